defmodule Erlperf do
  @moduledoc """
  erlperf from Elixir, in the spirit of `Benchee.run/2`.

      Erlperf.run(
        %{"flat_map" => fn input -> Enum.flat_map(input, &[&1, &1]) end,
          "map.flatten" => fn input -> input |> Enum.map(&[&1, &1]) |> List.flatten() end},
        inputs: %{"small" => Enum.to_list(1..100), "large" => Enum.to_list(1..10_000)},
        time: 5, memory: true)

  Each job is a function (of no argument, or of one, the input), `{module, function, args}`,
  Erlang source text, or a map of erlperf's code roles (`runner`, `init`, `init_runner`,
  `done`). Functions are not called as funs where erlperf can avoid it: `&Mod.fun/arity` is a
  remote call in erlperf's generated loop, and a `fn` written in a script, IEx or
  `elixir -e` is compiled into the loop; a `fn` of compiled code costs a fun call.

  Options (a keyword list or a map):

    * `:inputs` - named inputs (a map, or a list of `{name, value}`); every job runs once
      per input, receiving it as its argument. Without inputs, jobs take no argument.
    * `:time` - seconds of measurement per job and input (default 3): one sample a second,
      or `:samples` and `:sample_duration` (milliseconds) as erlperf takes them.
    * `:warmup` - seconds (samples) taken and discarded first (default 0).
    * `:memory` - heap bytes per call (default false).
    * `:parallel` - workers per job (erlperf's `:concurrency`, default 1).
    * `:print` - print the results as Benchee does (default true), or `:text` for erlperf's
      tables.
    * `:save` - write erlperf's JSON results record to this path.
    * any other erlperf run option (`:forks`, `:compare`, `:confidence`, `:noise`,
      `:run_noise`, `:latency`, ...; see erlperf's doc/api.md). Per-call figures (median,
      99th %) come from timing calls one by one, on unless `latency: false`.

  Returns one map per job and input, fastest first within each input:
  `%{name:, input:, ips:, average_ns:, deviation_pct:, median_ns:, p99_ns:, memory_bytes:,
  comparison:}` (`comparison` is nil for the fastest, else `%{slower_by:, ci: {low, high},
  significant:, verdict:}`, the times slower, its 95% interval, and the verdict: "slower",
  "no_difference", or "inconclusive" when there are too few samples to tell, as with one
  sample a job).
  """

  @erlperf_keys ~w(samples sample_duration concurrency forks compare confidence noise run_noise
                   latency memory report priority cv isolation profile)a

  @doc "Runs the jobs (a map or keyword list of name => job) and prints and returns the results."
  def run(jobs, options \\ []) do
    options = Map.new(options)
    inputs = inputs(Map.get(options, :inputs))
    run_options = run_options(options)
    reports =
      for {input_name, input} <- inputs do
        codes = for {name, job} <- jobs, do: code(to_string(name), job, input)
        reports = :erlperf.benchmark(codes, run_options, :undefined)
        case input_name do
          nil -> reports
          _ -> for r <- reports, do: Map.put(r, :params, [{:input, String.to_charlist(input_name)}])
        end
      end
      |> List.flatten()

    record = :erlperf_record.from_reports(reports)
    print(Map.get(options, :print, true), record)
    if path = options[:save], do: :ok = :erlperf_output.write_record(path, :json, record, %{})
    results(record)
  end

  defp inputs(nil), do: [{nil, nil}]
  defp inputs(inputs), do: Enum.map(inputs, fn {name, value} -> {to_string(name), value} end)

  defp run_options(options) do
    time = Map.get(options, :time, 3)
    timing =
      if Map.has_key?(options, :samples) or Map.has_key?(options, :sample_duration),
        do: %{},
        else: %{samples: max(1, round(time)), sample_duration: 1000}

    options
    |> Map.take(@erlperf_keys)
    |> Map.merge(timing, fn _, given, _ -> given end)
    |> Map.put_new(:latency, true)
    |> Map.put(:report, :full)
    |> maybe(:warmup, Map.get(options, :warmup))
    |> maybe(:concurrency, Map.get(options, :parallel))
  end

  defp maybe(map, _key, nil), do: map
  defp maybe(map, key, value), do: Map.put(map, key, value)

  # A job as erlperf's code map, labelled; with an input, the input is the runner's
  # argument (erlperf's init_runner result).
  defp code(name, %{} = code, nil), do: Map.put(code, :label, name)
  defp code(name, %{} = code, input), do: code |> Map.put(:label, name) |> Map.put(:init_runner, given(input))
  defp code(name, job, nil), do: %{runner: job, label: name}
  defp code(name, job, input), do: %{runner: job, label: name, init_runner: given(input)}

  # The input as erlperf's init_runner: a call returning it, which erlperf's generated code
  # holds as a literal when it can be one (erlperf_cli's --input does the same).
  defp given(input), do: {:erlang, :hd, [[input]]}

  defp print(false, _record), do: :ok
  defp print(:text, record), do: IO.write(:erlperf_output.render(:text, record, %{format: :extended, width: :infinity, colour: false}))
  defp print(_, record), do: IO.write(:erlperf_benchee.format(record))

  defp results(%{"runs" => runs}) do
    runs
    |> Enum.with_index()
    |> Enum.sort_by(fn {run, i} -> {input_order(runs, run), -ips(run), i} end)
    |> Enum.map(fn {run, _} -> result(run) end)
  end

  # Inputs in the order they ran.
  defp input_order(runs, run) do
    Enum.find_index(runs, &(get_in(&1, ["params", "input"]) == get_in(run, ["params", "input"])))
  end

  defp result(run) do
    latency = run["latency_us"]

    %{
      name: run["label"],
      input: get_in(run, ["params", "input"]),
      ips: ips(run),
      average_ns: run["iteration_ns"],
      deviation_pct: deviation(run, latency),
      median_ns: latency && latency["p50"] * 1000,
      p99_ns: latency && latency["p99"] * 1000,
      memory_bytes: run["bytes_per_iteration"],
      comparison: comparison(run["comparison"])
    }
  end

  defp ips(%{"iteration_ns" => ns}) when is_number(ns) and ns > 0, do: 1.0e9 / ns
  defp ips(%{"qps" => qps}), do: qps

  defp deviation(_run, %{"stddev" => sd, "average" => avg}) when avg > 0, do: 100 * sd / avg
  defp deviation(%{"stddev" => sd, "average" => avg}, _) when avg != 0, do: 100 * sd / abs(avg)
  defp deviation(_, _), do: nil

  defp comparison(nil), do: nil

  defp comparison(%{"change_pct" => change, "ci95_pct" => ci, "significant" => significant} = c) do
    %{slower_by: times(change), ci: ci_times(ci), significant: significant, verdict: verdict(c)}
  end

  # "slower", "faster", "no_difference", or "inconclusive" (too few samples to tell).
  defp verdict(%{"verdict" => verdict}), do: verdict
  defp verdict(%{"significant" => true}), do: "slower"
  defp verdict(_), do: "no_difference"

  defp times(change) when is_number(change) and change > -100, do: 100 / (100 + change)
  defp times(_), do: nil

  defp ci_times([low, high]) when is_number(low) and is_number(high), do: {times(high), times(low)}
  defp ci_times(_), do: nil
end
