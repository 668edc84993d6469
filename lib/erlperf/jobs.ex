defmodule Erlperf.Jobs do
  @moduledoc false
  # A job of Erlperf.run/2: its name, what runs, its own hooks; and the code map erlperf
  # runs for it with an input.

  @hooks [:before_scenario, :after_scenario, :before_each, :after_each]

  @doc false
  @spec job(String.t(), Erlperf.job(), map()) :: map()
  def job(name, {job, hooks}, config) when is_list(hooks) or is_map(hooks) do
    hooks = Map.new(hooks)

    Enum.each(hooks, fn {key, value} ->
      key in @hooks and is_function(value, 1) or
        raise ArgumentError,
              "job #{inspect(name)}: its own options are hooks (#{Enum.map_join(@hooks, ", ", &inspect/1)}), " <>
                "each a function of one argument, not #{inspect({key, value})}"
    end)

    job(name, job, config, hooks)
  end

  def job(name, job, config), do: job(name, job, config, %{})

  defp job(name, job, config, own) do
    # Benchee's order: the suite's hook, then the job's, before; the job's, then the
    # suite's, after
    before = Enum.reject([config.before_each, own[:before_each]], &is_nil/1)
    after_ = Enum.reject([own[:after_each], config.after_each], &is_nil/1)

    if (before != [] or after_ != []) and not is_function(job) do
      raise ArgumentError,
            "job #{inspect(name)}: :before_each and :after_each need the job as a function, " <>
              "not #{inspect(job)}"
    end

    %{name: name, job: job,
      before_scenario: Enum.reject([config.before_scenario, own[:before_scenario]], &is_nil/1),
      after_scenario: Enum.reject([own[:after_scenario], config.after_scenario], &is_nil/1),
      before_each: before, after_each: after_}
  end

  @doc false
  # The input the job runs with: what its before_scenario hooks return.
  @spec scenario_input(map(), term()) :: term()
  def scenario_input(%{before_scenario: hooks}, input) do
    Enum.reduce(hooks, input, fn hook, acc -> hook.(acc) end)
  end

  @doc false
  @spec after_scenario(map(), term()) :: :ok
  def after_scenario(%{after_scenario: hooks}, input), do: Enum.each(hooks, & &1.(input))

  @doc false
  # erlperf's code map of the job with an input (nil: none), labelled with its name.
  @spec code(map(), term(), boolean()) :: map()
  def code(%{name: name, job: job} = j, input, has_input) do
    runner = with_hooks(job, j.before_each, j.after_each, has_input)

    case runner do
      %{} = code -> Map.put(code, :label, name)
      _ -> %{runner: runner, label: name}
    end
    |> with_input(input, has_input)
  end

  @doc false
  # The per-call hooks alone, as a code map: before_each given the input, after_each
  # given what the job returned when called once (`result`).
  @spec hooks_code(map(), term(), boolean()) :: map() | nil
  def hooks_code(%{before_each: [], after_each: []}, _input, _has_input), do: nil

  def hooks_code(%{name: name} = j, input, has_input) do
    result = call_once(%{j | before_each: [], after_each: []}, apply_all(j.before_each, input), has_input)

    runner =
      if has_input,
        do: fn input -> _ = apply_all(j.before_each, input); apply_all(j.after_each, result) end,
        else: fn -> _ = apply_all(j.before_each, nil); apply_all(j.after_each, result) end

    with_input(%{runner: runner, label: name <> " (hooks alone)"}, input, has_input)
  end

  defp with_hooks(job, [], [], _has_input), do: job

  defp with_hooks(job, before, after_, true) do
    fn input -> apply_all(after_, job.(apply_all(before, input))) end
  end

  defp with_hooks(job, before, after_, false) do
    fn ->
      _ = apply_all(before, nil)
      apply_all(after_, job.())
    end
  end

  defp apply_all(hooks, value), do: Enum.reduce(hooks, value, fn hook, acc -> hook.(acc) end)

  # The input as erlperf's init_runner: a call returning it, which erlperf's generated code
  # holds as a literal when it can be one (erlperf_cli's --input does the same).
  defp with_input(code, _input, false), do: code
  defp with_input(code, input, true), do: Map.put(code, :init_runner, {:erlang, :hd, [[input]]})

  @doc false
  # The job called once (pre_check): its result, the job's input applied as a real run would.
  @spec call_once(map(), term(), boolean()) :: term()
  def call_once(%{job: job} = j, input, has_input) do
    case with_hooks(job, j.before_each, j.after_each, has_input) do
      fun when is_function(fun, 1) -> fun.(input)
      fun when is_function(fun, 0) -> fun.()
      {m, f, a} -> apply(m, f, a)
      other -> {:not_called, other}
    end
  end
end
