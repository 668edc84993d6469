# The project's benchmark suite: `mix erlperf` runs it.
defmodule AppBench do
  @behaviour :erlperf_suite

  def benchmarks do
    [%{name: "sum100", runner: :sum100, options: [samples: 4, sample_duration: 100]}]
  end

  def sum100, do: App.Work.sum100()
end
