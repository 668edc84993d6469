defmodule Erlperf.Runner do
  @moduledoc false
  # Erlperf.run/2's run: per input, the jobs measured side by side by erlperf; the hooks,
  # the pre-check, the configuration and progress lines, the outputs, the results.

  alias Erlperf.{Console, Jobs, Results}

  @doc false
  @spec run([map()], map()) :: [Erlperf.Scenario.t()]
  def run(jobs, config) do
    has_input = config.inputs != [{nil, nil}]
    # read before the run: a bad file costs no run
    loaded = load(config.load)
    if config.print.configuration, do: IO.write(Console.configuration(jobs, config))

    {reports, hooks} =
      config.inputs
      |> Enum.map(fn {input_name, input} -> run_input(jobs, input_name, input, config, has_input) end)
      |> Enum.unzip()

    record = :erlperf_record.from_reports(List.flatten(reports))
    baselines = if loaded == [], do: [], else: :erlperf_baseline.compare(loaded, record, %{})
    record = :erlperf_record.with_baselines(record, baselines)
    save(config.save, record)
    outputs(config, record, baselines, List.flatten(hooks))
    Results.scenarios(record, config.percentiles)
  end

  defp run_input(jobs, input_name, input, config, has_input) do
    if config.print.benchmarking do
      IO.puts(Console.benchmarking(jobs, input_name))
    end

    # Benchee's order: each job's before_scenario hooks, the pre-check, the run, and
    # after_scenario once nothing more calls the job
    inputs = Enum.map(jobs, &Jobs.scenario_input(&1, input))
    if config.pre_check, do: pre_check(jobs, inputs, input_name, config.pre_check, has_input)
    codes = for {job, i} <- Enum.zip(jobs, inputs), do: Jobs.code(job, i, has_input)
    reports = benchmark(codes, config.run, input_name)

    hooks =
      for {job, i} <- Enum.zip(jobs, inputs), code = Jobs.hooks_code(job, i, has_input), code != nil do
        [report] = benchmark([code], Map.merge(config.run, %{memory: false, counts: false, profile: :undefined, forks: 1}), input_name)
        {job.name, input_name, report}
      end

    Enum.each(Enum.zip(jobs, inputs), fn {job, i} -> Jobs.after_scenario(job, i) end)

    reports =
      case input_name do
        nil -> reports
        _ -> for r <- reports, do: Map.put(r, :params, [{:input, String.to_charlist(input_name)}])
      end

    {reports, hooks}
  end

  # Each job called once with its scenario's input before it is measured; with
  # :all_same, their results must be equal.
  defp pre_check(jobs, inputs, input_name, how, has_input) do
    results =
      for {job, i} <- Enum.zip(jobs, inputs) do
        try do
          {job.name, Jobs.call_once(job, i, has_input)}
        catch
          kind, reason -> raise_job_error(job.name, input_name, kind, reason, __STACKTRACE__)
        end
      end

    called = Enum.reject(results, &match?({_, {:not_called, _}}, &1))

    if how == :all_same and length(Enum.uniq_by(called, &elem(&1, 1))) > 1 do
      raise ArgumentError,
            "pre_check: :all_same, but the jobs return different values#{with_input(input_name)}: " <>
              Enum.map_join(called, "; ", fn {name, value} -> "#{name} returns #{inspect(value, limit: 5)}" end)
    end

    :ok
  end

  # erlperf's benchmark, its errors in Elixir's terms.
  defp benchmark(codes, run, input_name) do
    :erlperf.benchmark(codes, fork_run(run, length(codes)), :undefined)
  rescue
    e in ErlangError -> translate(e.original, codes, input_name)
  end

  @doc false
  # The run options of `codes` codes with Benchee's warmup, which is of the whole run,
  # spread over erlperf's forks (erlperf warms up in each), a sample each at least.
  @spec fork_run(map(), pos_integer()) :: map()
  def fork_run(%{warmup: warmup} = run, codes) when warmup > 0 do
    forks = :erlperf_forks.resolve(codes, Erlperf.Options.with_defaults(run), :undefined)
    %{run | warmup: max(1, round(warmup / forks))}
  end

  def fork_run(run, _codes), do: run

  defp translate({:crashed, {_role, label}, {kind, reason, stack}}, _codes, input_name) do
    raise_job_error(List.to_string(:unicode.characters_to_list(label)), input_name, kind, reason, stack)
  end

  # one job: erlperf names no label
  defp translate({:crashed, _role, {kind, reason, stack}}, [%{label: label}], input_name) do
    raise_job_error(label, input_name, kind, reason, stack)
  end

  # a call that did not return while its counts or memory were measured after the run
  defp translate({:call_not_returned, _what, label, _wait_ms} = reason, _codes, input_name) do
    name = List.to_string(:unicode.characters_to_list(label))

    raise Erlperf.JobError,
      job: name,
      input: input_name,
      message: "job #{inspect(name)}#{with_input(input_name)} failed: " <>
        List.to_string(:erlperf.format_error(reason))
  end

  defp translate(reason, _codes, _input_name) do
    message = List.to_string(:erlperf.format_error(reason))

    if :erlperf.is_known_error(reason),
      do: raise(ArgumentError, message),
      else: :erlang.error(reason)
  end

  defp raise_job_error(name, input_name, kind, reason, stack) do
    banner = kind |> Exception.format_banner(reason, stack) |> String.replace_prefix("** ", "")

    raise Erlperf.JobError,
      job: name,
      input: input_name,
      message: "job #{inspect(name)}#{with_input(input_name)} failed: " <> banner <> hint(kind, reason, stack)
  end

  defp with_input(nil), do: ""
  defp with_input(name), do: " with input #{inspect(name)}"

  # A module that is not available is most often one Mix has not compiled.
  defp hint(:error, :undef, [{module, _, _, _} | _]) do
    if Code.ensure_loaded?(module),
      do: "",
      else: " (compile it with mix compile, or add the dependency that has it to mix.exs)"
  end

  defp hint(_kind, _reason, _stack), do: ""

  defp load(files) do
    for file <- files do
      case :erlperf_baseline.load(file) do
        {:ok, saved} -> {file, saved}
        {:error, reason} -> raise ArgumentError, "load: " <> List.to_string(:erlperf_baseline.format_error(reason))
      end
    end
  end

  defp save(false, _record), do: :ok

  defp save(save, record) do
    save = Map.new(save)
    record = if tag = save[:tag], do: Map.put(record, "tag", tag), else: record

    case :erlperf_output.write_record(save.path, :json, record, %{}) do
      :ok -> :ok
      {:error, reason} -> raise File.Error, reason: error_reason(reason), action: "save the run to", path: save.path
    end
  end

  defp error_reason({:write, _name, reason}), do: reason
  defp error_reason(reason), do: reason

  defp outputs(config, record, baselines, hooks) do
    for {format, _file} = formatter <- config.formatters do
      case {format, config.print.results} do
        {:console, false} -> :ok
        {:console, :text} -> IO.write(:erlperf_output.render(:text, record, %{format: :extended, width: :infinity, colour: false, baselines: baselines}))
        {:console, _} -> IO.write([Console.title(config.title), :erlperf_output.render(:benchee, record, %{baselines: baselines, system: false, percentiles: config.percentiles}), Console.hooks(hooks)])
        _ -> write(elem(formatter, 1), format, record, baselines)
      end
    end

    :ok
  end

  defp write(file, format, record, baselines) do
    case :erlperf_output.write_record(file, format, record, %{baselines: baselines}) do
      :ok -> :ok
      {:error, reason} -> raise File.Error, reason: error_reason(reason), action: "write #{format} to", path: file
    end
  end
end
