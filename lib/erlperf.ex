defmodule Erlperf do
  @moduledoc """
  erlperf from Elixir, with `Benchee.run/2`'s options and meaning.

      Erlperf.run(
        %{"flat_map" => fn input -> Enum.flat_map(input, &[&1, &1]) end,
          "map.flatten" => fn input -> input |> Enum.map(&[&1, &1]) |> List.flatten() end},
        inputs: %{"small" => Enum.to_list(1..100), "large" => Enum.to_list(1..10_000)},
        warmup: 0.5, time: 2, memory_time: 1, reduction_time: 1)

  Each job is a function (of no argument, or of one, the input), `{module, function, args}`,
  Erlang source text, a map of erlperf's code roles (`runner`, `init`, `init_runner`,
  `done`), or `{job, hooks}` with hooks of its own (below). Functions are not called as
  funs where erlperf can avoid it: `&Mod.fun/arity` is a remote call in erlperf's generated
  loop, and a `fn` written in a script, IEx or `elixir -e` is compiled into the loop; a
  `fn` of compiled code costs a fun call.

  ## Benchee's options

    * `:warmup`, `:time` - seconds (integers or floats; defaults 2 and 5) of warmup and of
      measurement per job and input. erlperf measures in samples of 100 ms: `time: 2` is
      20 samples, 3 at least.
    * `:memory_time`, `:reduction_time` - above 0, memory and reductions per call are
      measured too, exactly, from a batch of calls after the run (erlperf needs no time of
      its own for them: any value above 0 turns both on).
    * `:inputs` - named inputs (a map, or a list of `{name, value}` kept in its order);
      every job runs once per input, receiving it as its argument.
    * `:parallel` - processes running each job at once (erlperf's `:concurrency`).
    * `:before_scenario`, `:after_scenario` - a function of the input, run before and after
      each job and input; what `:before_scenario` returns is the job's input.
    * `:before_each`, `:after_each` - run around every call: `:before_each` gets the input
      and returns the job's argument, `:after_each` gets the job's result. They run inside
      erlperf's loop, so their time is in every figure; erlperf measures them alone and
      prints what they cost a call.
    * `:pre_check` - `true`: each job is called once per input before anything is measured,
      so that a job that raises fails at once; `:all_same`: the results must be equal too.
    * `:title` - printed above the results.
    * `:print` - `false` for nothing, a map of `:configuration`, `:benchmarking` and
      `:fast_warning` (defaults true; erlperf's loop has no fast function to warn of), or
      `:text` for erlperf's own tables instead of Benchee's layout.
    * `:percentiles` - the percentiles of the calls timed one by one shown beside the median
      (default `[50, 99]`; 50, 90, 99 and 99.9 are measured).
    * `:unit_scaling` - `:best` (each figure in its own unit), the only one erlperf has.
    * `:save` - `[path: "run.json", tag: "main"]`: the run's record (erlperf's JSON, see
      doc/formats.md), tagged. `:load` - a path or a list of them: each saved run compared
      with this one, as `--baseline` does.
    * `:formatters` - where results go: `Benchee.Formatters.Console` or `:console`;
      `{Benchee.Formatters.HTML, file: "x.html"}` or `{:html, file: ...}`, and the same for
      `JSON`, `Markdown` (`:markdown`) and `CSV` (`:csv`): erlperf's own formats.
    * `:profile_after` - `true` (eprof) or `:eprof`, `:fprof`,
      `:cprof`, `:tprof` (OTP 27 and later): each job profiled after the run.

  Benchee's `:exclude_outliers`, `:measure_function_call_overhead`, `:max_sample_size`,
  `:assigns` and `:input_names` raise an `ArgumentError` that says why erlperf has no such
  thing; an unknown option raises one that lists the known options. None is ignored but a
  Benchee formatter's own settings (`file:` is taken).

  ## erlperf's own options

  `:samples`, `:sample_duration` (milliseconds: then `:time` and `:warmup` are not used),
  `:concurrency`, `:forks`, `:compare`, `:confidence`, `:noise`, `:run_noise`, `:latency`,
  `:memory`, `:priority`, `:cv`, `:isolation`, `:profile` (see erlperf's doc/api.md).
  The median and percentiles come from timing calls one by one, on unless `latency: false`.

  ## Results

  One `Erlperf.Scenario` per job and input, fastest first within each input. A job that
  raises, exits or throws raises `Erlperf.JobError`, naming the job and the input.
  """

  alias Erlperf.Options

  @typedoc "A job: a function (of the input, with inputs), erlperf's source text or `{m, f, a}`, or one of those with its hooks."
  @type job :: function() | String.t() | {module(), atom(), list()} | {function(), keyword() | map()}

  @doc "Runs the jobs (a map or keyword list of name => job) and prints and returns the results."
  @spec run(%{optional(String.t() | atom()) => job()} | [{String.t() | atom(), job()}], keyword() | map()) ::
          [Erlperf.Scenario.t()]
  def run(jobs, options \\ []) do
    config = Options.check(options)
    jobs = Enum.map(jobs, fn {name, job} -> Erlperf.Jobs.job(to_string(name), job, config) end)
    Erlperf.Runner.run(jobs, config)
  end
end

defmodule Erlperf.JobError do
  @moduledoc """
  A job raised, exited or threw while erlperf ran it: `job` and `input` name it,
  `message` says what happened in Elixir's terms (an exception by its
  `Exception.message/1`).
  """
  defexception [:message, :job, :input]

  @type t :: %__MODULE__{message: String.t(), job: String.t() | nil, input: String.t() | nil}
end

defmodule Erlperf.Scenario do
  @moduledoc """
  One job with one input, measured.

    * `name`, `input` - the job's name and the input's (nil without inputs).
    * `ips`, `average_ns` - erlperf's loop: calls a second of one process, and the time of
      one call, with no clock read per call (the figures erlperf compares).
    * `deviation_pct`, `median_ns`, `p99_ns`, `percentiles` (a map of percentile to
      nanoseconds), `timed_average_ns` - the calls timed one by one after the run (their
      average is `timed_average_ns`); with `latency: false`, the deviation of the samples.
    * `memory_bytes`, `reductions` - per call (with `:memory_time` or `:reduction_time`).
    * `comparison` - nil for the fastest of its input, else `%{slower_by:, ci: {low, high},
      significant:, verdict:}`: times slower, its 95% interval, and erlperf's verdict,
      "slower", "faster", "no_difference", or "inconclusive" when there are too few samples
      to tell.
  """
  defstruct [:name, :input, :ips, :average_ns, :deviation_pct, :median_ns, :p99_ns,
             :percentiles, :timed_average_ns, :memory_bytes, :reductions, :comparison]

  @type comparison :: %{slower_by: number() | nil, ci: {number(), number()} | nil,
                        significant: boolean(), verdict: String.t()}
  @type t :: %__MODULE__{name: String.t(), input: String.t() | nil, ips: number() | nil,
                         average_ns: number() | nil, deviation_pct: number() | nil,
                         median_ns: number() | nil, p99_ns: number() | nil,
                         percentiles: %{optional(number()) => number()} | nil,
                         timed_average_ns: number() | nil, memory_bytes: number() | nil,
                         reductions: number() | nil, comparison: comparison() | nil}
end
