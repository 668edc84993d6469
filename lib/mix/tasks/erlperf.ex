defmodule Mix.Tasks.Erlperf do
  @shortdoc "Benchmarks Elixir code, or the project's benchmark suites in bench/"

  @moduledoc """
  Runs erlperf in this project: its compiled code and consolidated protocols on the code
  path, results printed as Benchee prints them (`--format text` for erlperf's tables).

      mix erlperf "Enum.sum(1..100)" "Enum.reduce(1..100, 0, &+/2)" --memory
      mix erlperf "fn list -> Enum.sort(list) end" --init_runner "Enum.shuffle(1..1000)"
      mix erlperf                          # the suite files of bench/ (.exs and .erl)
      mix erlperf --fail-on-regression 10  # exit status 3 on a regression
      mix erlperf --history

  A runner (and `--init`, `--init_runner`, `--done`) is Elixir source text: an expression,
  run once per iteration, or a `fn` taking the `--init_runner` result (`fn state -> ... end`).
  It is compiled into erlperf's generated loop: no interpretation and no fun call per
  iteration. Every other option is erlperf's command line (`mix erlperf --help`,
  doc/cli.md). Without a runner, the suite files in `bench/` run, each run kept in
  `_build/erlperf` and compared with the previous one (doc/suites.md).

  The exit status is erlperf's: 0 success, 1 a benchmark failed, 2 a usage error, 3 a
  regression gate failed.
  """

  use Mix.Task

  # The first lines of `mix erlperf --help`: erlperf's options follow, then these.
  @usage """
  Usage: mix erlperf [OPTION]... CODE [PER-RUNNER OPTION]... [CODE [PER-RUNNER OPTION]...]...
         mix erlperf [OPTION]...   (no CODE: the suite files of bench/, .exs and .erl)
  Benchmarks Elixir code of this project, compiled first (its modules, dependencies and
  consolidated protocols on the code path). CODE is an Elixir expression, run once per
  iteration, or a fn taking the --init_runner value: "fn list -> Enum.sort(list) end";
  --init, --init_runner and --done are Elixir expressions too. Each CODE is compiled into
  erlperf's loop: no fun call and no interpretation per iteration.

  """

  @epilogue """

  Exit status: 0 success, 1 a benchmark failed, 2 usage error, 3 a regression gate failed.
  From a script or IEx: Erlperf.run/2, with Benchee's options (doc/elixir.md).
  """

  @impl Mix.Task
  @spec run([String.t()]) :: :ok
  def run(args) do
    if Enum.any?(args, &(&1 in ["--help", "-h"])) do
      IO.write([@usage, :erlperf_args.options_help(), @epilogue])
    else
      run_args(args)
    end
  end

  defp run_args(args) do
    Mix.Task.run("compile", [])
    consolidated = Mix.Project.consolidation_path()
    if File.dir?(consolidated), do: Code.prepend_path(consolidated)

    # no runner and no --suite: the project's suites (bench/), as rebar3 erlperf does
    args = :erlperf_args.project(Enum.map(args, &String.to_charlist/1))
    status = :erlperf_cli.run(args, %{code: &compile/2, format: :benchee})
    if status != 0, do: exit({:shutdown, status})
    :ok
  end

  @doc false
  # Elixir source as an interpreted fun, which erlperf compiles into its loop: `fn ... end`
  # as it is, any other expression as the body of a fn of no argument.
  @spec compile(atom(), charlist()) :: {:ok, function()} | {:error, charlist()}
  def compile(_role, text) do
    source = List.to_string(text)
    wrapped = if String.starts_with?(String.trim_leading(source), "fn "), do: source, else: "fn -> #{source}\nend"

    try do
      # the text alone first: a syntax error points into what the user wrote
      Code.string_to_quoted!(source)

      case Code.eval_string(wrapped) do
        {fun, _} when is_function(fun) -> {:ok, fun}
        {other, _} -> {:error, ~c"is not a fn: #{inspect(other)}"}
      end
    rescue
      e -> {:error, String.to_charlist(first_line(Exception.message(e)))}
    end
  end

  defp first_line(message), do: message |> String.split("\n", trim: true) |> List.first("")
end
