defmodule Erlperf.Console do
  @moduledoc false
  # What Erlperf.run/2 prints besides the results: the system and the configuration
  # before the run, a line as each input starts, the title, the cost of per-call hooks.

  @doc false
  @spec configuration([map()], map()) :: iodata()
  def configuration(jobs, config) do
    %{samples: samples, warmup: warmup} = run = Erlperf.Options.with_defaults(config.run)
    inputs = for {name, _} <- config.inputs, name != nil, do: name(name)
    scenarios = length(jobs) * max(1, length(inputs))
    extra = if run.memory, do: " (and memory and reductions after each input)", else: ""

    [system(),
     "\nConfiguration:\n",
     timing(run.sample_duration, samples, warmup),
     "  memory and reductions per call: #{if run.memory, do: "measured", else: "not measured"}\n",
     "  parallel: #{run.concurrency}\n",
     "  inputs: #{if inputs == [], do: "none", else: Enum.join(inputs, ", ")}\n",
     "  percentiles: #{Enum.join(config.percentiles, ", ")}\n",
     "Estimated total run time: #{estimate(jobs, run, max(1, length(inputs)))}#{extra}, ",
     "#{scenarios} scenarios\n\n"]
  end

  defp timing(ms, samples, warmup) when is_integer(ms) do
    "  warmup: #{duration(warmup * ms)}, time: #{duration(samples * ms)} " <>
      "(#{samples} samples of #{ms} ms) per scenario\n"
  end

  defp timing(_timed, samples, warmup), do: "  warmup: #{warmup} samples, time: #{samples} samples per scenario\n"

  # The measuring: per input, the warmup (erlperf's in each fork) and the samples, once for
  # the jobs run side by side (the default), once per job when they take turns; then each
  # job's per-call hooks alone, measured the same way; then each job's calls timed one by
  # one (erlperf gives them a budget).
  defp estimate(jobs, %{sample_duration: ms} = run, inputs) when is_integer(ms) do
    once = fn codes, run ->
      %{warmup: warmup} = Erlperf.Runner.fork_run(run, codes)
      (:erlperf_forks.resolve(codes, run, :undefined) * warmup + run.samples) * ms
    end

    side_by_side = if run.compare == :parallel, do: 1, else: length(jobs)
    hooked = Enum.count(jobs, &(&1.before_each != [] or &1.after_each != []))
    measured = once.(length(jobs), run) * side_by_side + hooked * once.(1, %{run | forks: 1})
    # the calls timed one by one after the samples, each code at most this long
    timed = if run.latency, do: length(jobs) * :erlperf_latency.budget_ms(), else: 0
    duration((measured + timed) * inputs)
  end

  defp estimate(_jobs, _run, _inputs), do: "as long as the timed samples take"

  @doc false
  # The system, as Benchee prints it.
  @spec system() :: iodata()
  def system do
    info = :erlperf_system.info()

    ["Operating System: #{os_name()}\n",
     "CPU Information: #{info.cpu}\n",
     "Number of Available Cores: #{:erlang.system_info(:logical_processors_available) |> cores()}\n",
     "Available memory: #{memory()}\n",
     "Elixir #{System.version()}\n",
     "Erlang #{otp_version()}\n",
     "JIT enabled: #{:erlang.system_info(:emu_flavor) == :jit}\n"]
  end

  @doc false
  @spec benchmarking([map()], String.t() | nil) :: String.t()
  def benchmarking(jobs, input_name) do
    names = Enum.map_join(jobs, ", ", &name(&1.name))
    if input_name, do: "Benchmarking #{names} with input #{name(input_name)} ...", else: "Benchmarking #{names} ..."
  end

  @doc false
  @spec title(String.t() | nil) :: iodata()
  def title(nil), do: []
  def title(title), do: ["\n*** ", title, " ***\n\n"]

  @doc false
  # What :before_each and :after_each cost a call, measured alone.
  @spec hooks([{String.t(), String.t() | nil, map()}]) :: iodata()
  def hooks([]), do: []

  def hooks(measured) do
    ["\nPer-call hooks (:before_each, :after_each) run inside erlperf's loop: their cost is in every figure above.\n"
     | for {name, input, report} <- measured do
         %{"runs" => [run]} = :erlperf_record.from_reports([report])
         "  #{name(name)}#{if input, do: " with input #{name(input)}", else: ""}: #{time(run["iteration_ns"])} a call\n"
       end]
  end

  # A job's or input's name as every erlperf output writes names (:erlperf_name): one line,
  # quoted with visible escapes when it holds a control character or begins with "::".
  defp name(name), do: name |> to_string() |> :erlperf_name.text() |> List.to_string()

  defp time(ns) when not is_number(ns), do: "-"
  defp time(ns) when ns >= 1.0e6, do: "#{Float.round(ns / 1.0e6, 2)} ms"
  defp time(ns) when ns >= 1.0e3, do: "#{Float.round(ns / 1.0e3, 2)} μs"
  defp time(ns), do: "#{Float.round(ns * 1.0, 2)} ns"

  defp cores(:unknown), do: :erlang.system_info(:schedulers_online)
  defp cores(n), do: n

  defp os_name do
    case :os.type() do
      {:unix, :linux} -> "Linux"
      {:unix, :darwin} -> "macOS"
      {:unix, :freebsd} -> "FreeBSD"
      {:win32, _} -> "Windows"
      {_, name} -> name |> Atom.to_string() |> String.capitalize()
    end
  end

  # The machine's memory (Linux's MemTotal), "N/A" where it cannot be read.
  defp memory do
    with {:ok, text} <- File.read("/proc/meminfo"),
         [_, kb] <- Regex.run(~r/^MemTotal:\s+(\d+) kB/m, text) do
      "#{Float.round(String.to_integer(kb) / 1_048_576, 2)} GB"
    else
      _ -> "N/A"
    end
  end

  # The OTP version in full (25.2.3), as the release's OTP_VERSION file has it.
  defp otp_version do
    release = List.to_string(:erlang.system_info(:otp_release))

    case File.read(Path.join([List.to_string(:code.root_dir()), "releases", release, "OTP_VERSION"])) do
      {:ok, version} -> String.trim(version)
      {:error, _} -> release
    end
  end

  defp duration(ms) when ms >= 60_000, do: "#{div(ms, 60_000)} min #{duration(rem(ms, 60_000))}"
  defp duration(ms) when ms >= 1000 and rem(ms, 1000) == 0, do: "#{div(ms, 1000)} s"
  defp duration(ms) when ms >= 1000, do: "#{Float.round(ms / 1000, 1)} s"
  defp duration(ms), do: "#{ms} ms"
end
