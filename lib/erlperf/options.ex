defmodule Erlperf.Options do
  @moduledoc false
  # Erlperf.run/2's options: Benchee's, checked and given erlperf's meaning, and erlperf's
  # own, passed on. Every option is known here; anything else is an ArgumentError.

  # Benchee's options that erlperf honours, and their defaults.
  @benchee %{
    warmup: 2,
    time: 5,
    memory_time: 0,
    reduction_time: 0,
    inputs: nil,
    parallel: 1,
    title: nil,
    print: %{configuration: true, benchmarking: true, fast_warning: true},
    percentiles: [50, 99],
    unit_scaling: :best,
    pre_check: false,
    save: false,
    load: false,
    formatters: [:console],
    profile_after: false,
    before_scenario: nil,
    after_scenario: nil,
    before_each: nil,
    after_each: nil
  }

  # Benchee's options that erlperf cannot honour, and why.
  @refused %{
    exclude_outliers:
      "erlperf keeps every sample: an outlier widens its interval rather than being dropped",
    measure_function_call_overhead:
      "erlperf compiles each job into its own loop, which adds no function call to measure",
    max_sample_size:
      "erlperf does not keep one time per call: it counts calls in samples, and times " <>
        "calls one by one into a histogram",
    assigns: "erlperf has no formatter plugins to pass assigns to",
    input_names: "input names come from :inputs"
  }

  # erlperf's run options, passed on as they are (erlperf checks them).
  @erlperf ~w(samples sample_duration concurrency forks compare confidence noise run_noise
              latency memory priority cv isolation profile)a

  # erlperf measures in samples of this many milliseconds, at least this many of them.
  @sample_ms 100
  @min_samples 3

  # Benchee's formatters and erlperf's output formats.
  @formatters %{
    Benchee.Formatters.Console => :console,
    Benchee.Formatters.HTML => :html,
    Benchee.Formatters.JSON => :json,
    Benchee.Formatters.Markdown => :markdown,
    Benchee.Formatters.CSV => :csv
  }

  @doc false
  # The configuration: Benchee's options with their defaults, `:run` erlperf's run options.
  @spec check(keyword() | map()) :: map()
  def check(options) when is_list(options) or is_map(options) do
    options = Enum.to_list(options)

    Enum.each(options, fn
      {key, _value} when is_map_key(@refused, key) ->
        raise ArgumentError,
              "option #{inspect(key)} is Benchee's, and erlperf has no such thing: " <>
                Map.fetch!(@refused, key)

      {key, value} when is_map_key(@benchee, key) ->
        check(key, value)

      {key, _value} when key in @erlperf ->
        :ok

      {key, _value} ->
        raise ArgumentError,
              "unknown option #{inspect(key)}; the options are " <>
                Enum.map_join(known(), ", ", &inspect/1)

      other ->
        raise ArgumentError, "options are a keyword list or a map, not #{inspect(other)}"
    end)

    given = Map.new(options)
    config = Map.merge(@benchee, Map.take(given, Map.keys(@benchee)))

    config
    |> Map.put(:print, print(config.print))
    |> Map.put(:inputs, inputs(config.inputs))
    |> Map.put(:formatters, Enum.map(config.formatters, &formatter/1))
    |> Map.put(:load, List.wrap(if config.load == false, do: [], else: config.load))
    |> Map.put(:run, checked_run(run_options(config, Map.take(given, @erlperf))))
  end

  def check(options) do
    raise ArgumentError, "options are a keyword list or a map, not #{inspect(options)}"
  end

  @doc false
  # Every option's name, sorted.
  @spec known() :: [atom()]
  def known, do: Enum.sort(Map.keys(@benchee) ++ @erlperf)

  defp check(key, value) when key in [:memory_time, :reduction_time] do
    is_number(value) and value >= 0 or invalid(key, value, "a number of seconds, 0 or more")
  end

  defp check(:warmup, value) do
    unless is_number(value) and value >= 0 do
      invalid(:warmup, value, "a number of seconds, 0 or more")
    end

    seconds_within(:warmup, value)
  end

  defp check(:time, value) do
    unless is_number(value) and value > 0 do
      invalid(:time, value, "a number of seconds above 0")
    end

    seconds_within(:time, value)
  end

  defp check(:parallel, value) do
    is_integer(value) and value > 0 or invalid(:parallel, value, "a number of processes, 1 or more")
  end

  defp check(:inputs, nil), do: true
  defp check(:inputs, value) when is_map(value) and map_size(value) > 0, do: true

  defp check(:inputs, [_ | _] = value) do
    Enum.all?(value, &match?({_, _}, &1)) or invalid(:inputs, value, "a map or a list of {name, input}")
  end

  defp check(:inputs, value), do: invalid(:inputs, value, "a map or a list of {name, input}")

  defp check(:title, value) do
    is_nil(value) or is_binary(value) or invalid(:title, value, "a string")
  end

  defp check(:print, value) when is_boolean(value) or value == :text, do: true

  defp check(:print, value) when is_map(value) or is_list(value) do
    Enum.all?(value, fn
      {k, v} -> k in [:configuration, :benchmarking, :fast_warning] and is_boolean(v)
      _ -> false
    end) or
      invalid(:print, value, "true, false, :text, or a map of :configuration, :benchmarking and :fast_warning to booleans")
  end

  defp check(:print, value) do
    invalid(:print, value, "true, false, :text, or a map of :configuration, :benchmarking and :fast_warning to booleans")
  end

  defp check(:percentiles, value) do
    measured = for {p, _key} <- :erlperf_benchee.percentiles(), do: p

    (is_list(value) and value != [] and Enum.all?(value, &(&1 in measured))) or
      invalid(:percentiles, value, "a list of the percentiles measured: " <> Enum.map_join(measured, ", ", &to_string/1))
  end

  defp check(:unit_scaling, :best), do: true

  defp check(:unit_scaling, value) do
    invalid(:unit_scaling, value, ":best (erlperf gives each figure a unit of its own, the only scaling it has)")
  end

  defp check(:pre_check, value) do
    is_boolean(value) or value == :all_same or invalid(:pre_check, value, "true, false or :all_same")
  end

  defp check(:save, false), do: true

  defp check(:save, value) when is_list(value) or is_map(value) do
    case Map.new(value) do
      %{path: path} = save when is_binary(path) ->
        (Enum.all?(Map.keys(save), &(&1 in [:path, :tag])) and (is_nil(save[:tag]) or is_binary(save[:tag]))) or
          invalid(:save, value, "[path: \"file.json\", tag: \"name\"]")

      _ ->
        invalid(:save, value, "[path: \"file.json\", tag: \"name\"]")
    end
  end

  defp check(:save, value), do: invalid(:save, value, "[path: \"file.json\", tag: \"name\"]")

  defp check(:load, value) do
    value == false or is_binary(value) or (is_list(value) and Enum.all?(value, &is_binary/1)) or
      invalid(:load, value, "a path, or a list of paths, of runs saved with :save")
  end

  defp check(:formatters, value) when is_list(value) do
    Enum.each(value, &formatter/1)
  end

  defp check(:formatters, value), do: invalid(:formatters, value, "a list of formatters")

  defp check(:profile_after, value) do
    is_boolean(value) or value in :erlperf_options.profilers() or
      invalid(:profile_after, value, "true, false or a profiler: " <> List.to_string(:erlperf_options.profiler_choices()))
  end

  defp check(hook, value) when hook in [:before_scenario, :after_scenario, :before_each, :after_each] do
    is_nil(value) or is_function(value, 1) or invalid(hook, value, "a function of one argument")
  end

  # :time and :warmup are at most as many samples of @sample_ms as erlperf takes.
  defp seconds_within(key, value) do
    samples = :erlperf_options.limit(:samples)
    max = samples * @sample_ms / 1000

    value <= max or
      invalid(key, value,
              "at most #{max} seconds (#{samples} samples of #{@sample_ms} ms, erlperf's limit)")
  end

  defp invalid(key, value, expected) do
    raise ArgumentError,
          "invalid value for option #{inspect(key)}: #{inspect(value, charlists: :as_lists)}; expected #{expected}"
  end

  defp print(true), do: print(@benchee.print)
  defp print(false), do: %{configuration: false, benchmarking: false, fast_warning: false, results: false}
  defp print(:text), do: Map.put(@benchee.print, :results, :text)
  defp print(map), do: @benchee.print |> Map.merge(Map.new(map)) |> Map.put_new(:results, true)

  defp inputs(nil), do: [{nil, nil}]
  defp inputs(inputs), do: Enum.map(inputs, fn {name, value} -> {to_string(name), value} end)

  # A formatter as {format, file or nil}.
  defp formatter(module) when is_map_key(@formatters, module), do: formatter({module, []})
  defp formatter(format) when format in [:console, :html, :json, :markdown, :csv], do: formatter({format, []})

  defp formatter({module, options}) when is_map_key(@formatters, module) do
    formatter({Map.fetch!(@formatters, module), options})
  end

  defp formatter({:console, _options}), do: {:console, nil}

  defp formatter({format, options}) when format in [:html, :json, :markdown, :csv] and (is_list(options) or is_map(options)) do
    case Map.new(options) do
      %{file: file} when is_binary(file) -> {format, file}
      _ -> invalid(:formatters, {format, options}, "a :file for #{inspect(format)}, as in {#{inspect(format)}, file: \"results.#{format}\"}")
    end
  end

  defp formatter(other) do
    invalid(:formatters, other,
      "erlperf's outputs: :console, {:html, file: ...}, {:json, file: ...}, {:markdown, file: ...}, " <>
        "{:csv, file: ...}, or Benchee's formatter modules of the same names")
  end

  # erlperf's run options from Benchee's: seconds as samples of @sample_ms, unless erlperf's
  # own :samples or :sample_duration are given.
  defp run_options(config, erlperf) do
    timing =
      if Map.has_key?(erlperf, :samples) or Map.has_key?(erlperf, :sample_duration) do
        %{}
      else
        %{sample_duration: @sample_ms,
          samples: max(@min_samples, round(config.time * 1000 / @sample_ms)),
          warmup: round(config.warmup * 1000 / @sample_ms)}
      end

    %{concurrency: config.parallel, latency: true, report: :full}
    |> Map.merge(if config.memory_time > 0 or config.reduction_time > 0, do: %{memory: true}, else: %{})
    # compared or saved to be compared: forks and exact counts, as the command line's
    # --baseline and -o x.json
    |> Map.merge(if config.save != false or config.load != false, do: %{verdicts: true}, else: %{})
    |> Map.merge(profile(config.profile_after))
    |> Map.merge(timing)
    |> Map.merge(erlperf)
  end

  # erlperf's run options, checked before anything runs (and passed on as given: erlperf
  # tells some defaults from options given, see with_defaults/1).
  defp checked_run(run) do
    _ = with_defaults(run)
    run
  rescue
    e in ErlangError ->
      case e.original do
        {:invalid_option, key, value} -> invalid(key, value, erlperf_help(key))
        other -> raise ArgumentError, List.to_string(:erlperf.format_error(other))
      end
  end

  @doc false
  # The run options with erlperf's defaults for those not given: what a run reads.
  @spec with_defaults(map()) :: map()
  def with_defaults(run), do: :erlperf_options.check(:run, run)

  defp erlperf_help(key) do
    case :erlperf_options.find(:run, key) do
      {:ok, %{help: help}} -> "erlperf's #{key}: " <> List.to_string(help)
      _ -> "what erlperf's #{key} takes (doc/api.md)"
    end
  end

  defp profile(false), do: %{}
  defp profile(true), do: %{profile: :eprof}
  defp profile(tool), do: %{profile: tool}
end
