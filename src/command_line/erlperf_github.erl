%%% @doc The verdicts of a run against its baselines (`--baseline', the suites' previous
%%% run) where GitHub Actions shows them, when the run is a step of a workflow
%%% (`GITHUB_ACTIONS=true'):
%%% <ul>
%%%   <li><b>annotations</b>: a runner that regressed beyond `--fail-on-regression' is an
%%%       `::error' workflow command, one that regressed without a gate, or whose verdict
%%%       is inconclusive, a `::warning' (an `::error' with `--fail-on-inconclusive'). They
%%%       go to standard error, which the runner reads for workflow commands as it reads
%%%       standard output, so that standard output keeps only what `--format' asked for.</li>
%%%   <li><b>job summary</b>: when `GITHUB_STEP_SUMMARY' names a file, the verdicts as a
%%%       Markdown table appended to it (the workflow run's summary page shows it).</li>
%%% </ul>
%%% Names (benchmarks, baselines) come from the repository, so from pull requests: they
%%% are written by {@link erlperf_name} (quoted with visible escapes when they hold a line
%%% break or begin with `::'), so that none can start a workflow command or break the
%%% summary's table.
%%% A runner no baseline has is `new' in the table, with no annotation; an exact count
%%% that regressed without a gate is a `::warning'. A run compared with nothing (no
%%% baseline) writes nothing. Elsewhere nothing is written.
%%%
%%% Example (in a workflow step):
%%% ```
%%% $ ./erlperf --suite bench --fail-on-regression 10
%%% ::error title=erlperf%3A sort regressed::sort against HEAD~1: regressed: 14.2% slower ...
%%% '''
-module(erlperf_github).

%% API: called by the regression gate (erlperf_cli_outcome).
-export([report/3]).

-type level() :: erlperf_gate:level().

%%--------------------------------------------------------------------
%% API

%% @doc Annotations and the job summary for the rows, under GitHub Actions: `Percent'
%% is the gate (`none' without one), `FailsInconclusive' whether an inconclusive
%% verdict fails it.
-spec report([erlperf_baseline:row()], number() | none, boolean()) -> ok.
report([], _Percent, _FailsInconclusive) ->
    %% nothing compared: no annotation, no summary
    ok;
report(Rows, Percent, FailsInconclusive) ->
    case os:getenv("GITHUB_ACTIONS") of
        "true" ->
            Verdicts = verdicts(Rows, Percent, FailsInconclusive),
            _ = [io:put_chars(standard_error, annotation(Level, Name, Row))
                 || {Level, Name, Row} <- Verdicts, Level =:= error orelse Level =:= warning],
            summary(os:getenv("GITHUB_STEP_SUMMARY"), Verdicts);
        _ ->
            ok
    end.

%%--------------------------------------------------------------------
%% Internal functions

%% Each runner against each baseline: its level, name, and its row with that baseline
%% alone.
-spec verdicts([erlperf_baseline:row()], number() | none, boolean()) ->
    [{level(), binary(), erlperf_baseline:row()}].
verdicts(Rows, Percent, FailsInconclusive) ->
    [{erlperf_gate:level(E, Percent, FailsInconclusive), Name, Row#{baselines := [E]}}
     || #{name := Name, baselines := Entries} = Row <- Rows, E <- Entries].

%% `::error title=...::message', escaped as workflow commands are; the name as text
%% lines write it (erlperf_name: quoted when it holds a line break or begins with `::').
annotation(Level, Name, Row) ->
    Title = ["erlperf: ", erlperf_name:text(Name),
             case Level of error -> " failed the gate"; warning -> "" end],
    Line = string:trim(erlperf_baseline:format([Row]), trailing),
    ["::", atom_to_list(Level), " title=", escape(Title, property), "::", escape(Line, data), "\n"].

escape(Text, Kind) ->
    lists:flatmap(fun ($%) -> "%25";
                      ($\r) -> "%0D";
                      ($\n) -> "%0A";
                      ($:) when Kind =:= property -> "%3A";
                      ($,) when Kind =:= property -> "%2C";
                      (C) -> [C]
                  end, unicode:characters_to_list(Text)).

summary(File, Verdicts) when is_list(File), File =/= "" ->
    Count = fun (L) -> length([V || {Level, _, _} = V <- Verdicts, Level =:= L]) end,
    New = case Count(new) of
              0 -> "";
              N -> io_lib:format(", ~b new", [N])
          end,
    Heading = io_lib:format("### erlperf: ~b failed, ~b to look at, ~b as before~ts~n~n",
                            [Count(error), Count(warning), Count(none), New]),
    Table = ["| | Benchmark | Against | Verdict |\n|---|---|---|---|\n"
             | [["| ", mark(Level), " | ", erlperf_name:markdown(Name), " | ",
                 erlperf_name:markdown(F), " | ", verdict_cell(E), " |\n"]
                || {Level, Name, #{baselines := [#{file := F} = E]}} <- Verdicts]],
    %% appended, as every step's summary is: the file is shared by the job's steps
    case file:write_file(File, unicode:characters_to_binary([Heading, Table, "\n"]), [append]) of
        ok -> ok;
        {error, Reason} ->
            io:format(standard_error, "erlperf: warning: cannot write GITHUB_STEP_SUMMARY ~ts: ~ts~n",
                      [File, file:format_error(Reason)])
    end;
summary(_File, _Verdicts) ->
    ok.

mark(error) -> "❌";
mark(warning) -> "⚠️";
mark(new) -> "🆕";
mark(none) -> "✅".

%% The verdicts of an entry (the time's, then each exact count that changed), one cell.
verdict_cell(Entry) ->
    lists:join("<br>", [erlperf_name:markdown_text(L)
                        || L <- erlperf_baseline:verdict_lines(Entry)]).
