defmodule Erlperf.Results do
  @moduledoc false
  # A results record's runs as Erlperf.Scenario structs, fastest first within each input.

  @doc false
  # `percentiles`: those the :percentiles option asked for.
  @spec scenarios(map(), [term()]) :: [Erlperf.Scenario.t()]
  def scenarios(%{"runs" => runs}, percentiles) do
    runs
    |> Enum.with_index()
    |> Enum.sort_by(fn {run, i} -> {input_order(runs, run), -ips(run), i} end)
    |> Enum.map(fn {run, _} -> scenario(run, percentiles) end)
  end

  # Inputs in the order they ran.
  defp input_order(runs, run) do
    Enum.find_index(runs, &(get_in(&1, ["params", "input"]) == get_in(run, ["params", "input"])))
  end

  defp scenario(run, asked) do
    latency = timed(run)

    %Erlperf.Scenario{
      name: run["label"],
      input: get_in(run, ["params", "input"]),
      ips: ips(run),
      average_ns: nil_for_null(run["iteration_ns"]),
      deviation_pct: deviation(run, latency),
      median_ns: latency && latency["p50"] * 1000,
      p99_ns: latency && latency["p99"] * 1000,
      percentiles: Map.take(percentiles(latency), asked),
      timed_average_ns: latency && latency["average"] * 1000,
      memory_bytes: nil_for_null(run["bytes_per_iteration"]),
      reductions: nil_for_null(run["reductions_per_iteration"]),
      comparison: comparison(run["comparison"])
    }
  end

  # A record's null (an Erlang atom, truthy in Elixir) is nil in a struct.
  defp nil_for_null(:null), do: nil
  defp nil_for_null(value), do: value

  # The calls timed one by one, when there are some.
  defp timed(%{"latency_us" => %{"p50" => p50, "average" => avg} = l}) when is_number(p50) and is_number(avg), do: l
  defp timed(_run), do: nil

  defp ips(%{"iteration_ns" => ns}) when is_number(ns) and ns > 0, do: 1.0e9 / ns
  defp ips(%{"qps" => qps}) when is_number(qps), do: qps
  defp ips(_run), do: 0.0

  # Of the timed calls when there are some, else of the samples.
  defp deviation(_run, %{"stddev" => sd, "average" => avg}) when avg > 0, do: 100 * sd / avg
  defp deviation(_run, %{}), do: nil
  defp deviation(%{"stddev" => sd, "average" => avg}, nil) when is_number(sd) and avg != 0, do: 100 * sd / abs(avg)
  defp deviation(_run, _latency), do: nil

  defp percentiles(nil), do: %{}

  defp percentiles(l) do
    for {p, key} <- :erlperf_benchee.percentiles(), is_number(l[key]), into: %{},
        do: {p, l[key] * 1000}
  end

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
