%%% @doc The command line of benchmark suites and their history: `erlperf --suite'
%%% runs the benchmarks of suite files ({@link erlperf_suite}), keeps the run in the
%%% results store ({@link erlperf_store}), compares each benchmark with its previous
%%% run (or a named baseline) and applies the regression gate; `erlperf --history'
%%% shows the store's runs over time with the steps found in them
%%% ({@link erlperf_changepoint}, {@link erlperf_trend}).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>previous run</b>: for each benchmark (and sweep combination), the newest
%%%       stored run that has it; benchmarks left out by `--filter' keep theirs.</li>
%%%   <li><b>verdict</b>: `regressed' (significantly slower, beyond the noise floor),
%%%       `improved' (significantly faster), or `no change', with the change's interval
%%%       (of fork means: suite runs are forked by default, so the interval knows how
%%%       runs vary).</li>
%%%   <li><b>project code</b>: when the current directory holds `rebar.config', the
%%%       `ebin' directories under `_build/default/lib' are added to the code path; with
%%%       `mix.exs', those under `_build/dev/lib' and `_build/dev/consolidated'.</li>
%%% </ul>
%%%
%%% Exit status: 0; 1 a benchmark crashed (the others still ran and were stored); 2 a
%%% usage error (a suite that does not compile, a bad benchmark, an unknown baseline);
%%% 3 a benchmark regressed beyond `--fail-on-regression'.
%%%
%%% Example:
%%% ```
%%% $ ./erlperf --suite examples/suite_bench.erl
%%% $ ./erlperf --suite bench --filter sort --fail-on-regression 10
%%% $ ./erlperf --history
%%% '''
-module(erlperf_suite_cli).

%% API: called by erlperf_cli
-export([run/1, history/1]).

-include("model/erlperf_schema.hrl").

%% The file of the history page in the store, unless -o says.
-define(HISTORY_PAGE, "history.html").

%%--------------------------------------------------------------------
%% API

%% @doc Runs `--suite': prints the table, the verdicts against the previous runs (or
%% baselines, or `--against' a git revision), writes the outputs, and returns the exit
%% status.
-spec run(erlperf_args:parsed()) -> non_neg_integer().
run(Parsed) ->
    %% a bug is one line and a file with its details, never a stack trace
    try dispatch(Parsed)
    catch Class:Reason:Stack -> erlperf_cli_outcome:fail(erlperf_cli_outcome:known(Class, Reason, Stack))
    end.

dispatch(#{against := _} = Parsed) -> against(Parsed);
dispatch(Parsed) -> suites(Parsed).

suites(#{suites := Paths, filter := Filter} = Parsed) ->
    ok = project_code(),
    case erlperf_suite:load(Paths) of
        {ok, Loaded} ->
            try
                case erlperf_suite:benchmarks(Loaded, #{filter => Filter}) of
                    {ok, Benchmarks} -> with_baselines(Benchmarks, Parsed);
                    {error, Reason} -> erlperf_cli_outcome:fail({suite_file, Reason})
                end
            after
                erlperf_suite:unload(Loaded)
            end;
        {error, Reason} ->
            erlperf_cli_outcome:fail({suite_file, Reason})
    end.

%% @doc Runs `--history': the summary on stdout in `--format' (text unless json,
%% markdown, csv or html), and the HTML page written to the store (or to `-o' files,
%% each in the format of its extension).
-spec history(erlperf_args:parsed()) -> non_neg_integer().
history(#{store := Store, format := Format, outputs := Outputs}) ->
    {Entries, Problems} = erlperf_store:runs(Store),
    warn(Problems),
    History = erlperf_series:history(unicode:characters_to_binary(Store), Entries),
    io:put_chars(render_history(Format, History)),
    Files = case Outputs of
                [] -> [{filename:join(Store, ?HISTORY_PAGE), html}];
                _ -> Outputs
            end,
    write_history(Files, History, Format).

%%--------------------------------------------------------------------
%% Running the suites

%% --against REV: both versions measured by erlperf_against, the revision's record the
%% baseline; shown, written and gated as a run against a baseline, and not stored.
against(Parsed) ->
    case erlperf_against:run(Parsed, fun benchmark_options/2) of
        {ok, #{record := none}} ->
            erlperf_args:exit_code(benchmark_failed);
        {ok, #{record := Record, baseline := Baseline, failed := Failed}} ->
            case measured(Record, [], Parsed#{baselines := [Baseline]}) of
                0 when Failed -> erlperf_args:exit_code(benchmark_failed);
                Status -> Status
            end;
        {error, Reason} ->
            erlperf_cli_outcome:fail({classified, erlperf_against:outcome(Reason),
                                       erlperf_against:format_error(Reason)})
    end.

with_baselines(Benchmarks, #{baselines := Names, store := Store} = Parsed) ->
    case baselines(Names, Store) of
        {ok, Baselines} -> measure(Benchmarks, Parsed#{baselines := Baselines});
        {error, Text} -> erlperf_cli_outcome:fail({usage, Text})
    end.

%% --baseline NAME: the store's baseline of that name, else a saved record file.
baselines(Names, Store) ->
    Loaded = [baseline(N, Store) || N <- Names],
    case [T || {error, T} <- Loaded] of
        [] -> {ok, [B || {ok, B} <- Loaded]};
        [Text | _] -> {error, Text}
    end.

baseline(Name, Store) ->
    case erlperf_store:valid_name(Name) andalso erlperf_store:baseline(Store, Name) of
        {ok, #{?RECORD := Record} = Entry} ->
            {ok, {source("baseline " ++ Name, Entry), Record}};
        _ when not is_boolean(Name) ->
            case filelib:is_regular(Name) of
                true ->
                    case erlperf_baseline:load(Name) of
                        {ok, Record} -> {ok, {Name, Record}};
                        {error, Reason} -> {error, erlperf_baseline:format_error(Reason)}
                    end;
                false ->
                    {error, lists:flatten(io_lib:format("--baseline ~ts: no baseline of that name in ~ts "
                                                        "(--save-baseline NAME keeps one) and no such file",
                                                        [Name, Store]))}
            end
    end.

measure(Benchmarks, #{store := Store} = Parsed) ->
    {Entries, Problems} = erlperf_store:runs(Store),
    warn(Problems),
    Project = erlperf_fingerprint:project(),
    Outcomes = [{B, fingerprinted(run_benchmark(B, Parsed, Entries), Project, B)} || B <- Benchmarks],
    Failed = [{B, Why} || {B, {error, Why}} <- Outcomes],
    [io:put_chars(standard_error, ["erlperf: ", erlperf_cli_outcome:benchmark_failed(Name, [], Why), "\n"])
     || {#{name := Name}, Why} <- Failed],
    case lists:append([R || {_, {ok, R}} <- Outcomes]) of
        [] ->
            erlperf_args:exit_code(benchmark_failed);
        Reports ->
            Status = measured(erlperf_record:from_reports(Reports), Entries, Parsed),
            case {Status, Failed} of
                {0, [_ | _]} -> erlperf_args:exit_code(benchmark_failed);
                _ -> Status
            end
    end.

%% Compared with a stored run: forked for verdicts unless --forks or the benchmark says
%% otherwise (the facade decides). A benchmark that fixes no sample count takes turns
%% with the reference workload (erlperf_reference) sample by sample until its comparison
%% with the previous run (or the baselines) is decided. (One that fixes its samples runs
%% alone: turns of a code that waits, a few calls a sample, cut calls in two and spread its
%% samples far wider.)
run_benchmark(#{code := Code, params := Params, options := Own}, #{run_options := Given} = Parsed,
              Entries) ->
    Options = benchmark_options(Own, Given),
    Forked = Options#{verdicts => true, report => full},
    Decide = fun (Reports, _Looks) ->
                     Record = erlperf_record:from_reports([erlperf_reference:beside(Reports)]),
                     {Rows, Compare} = rows(Record, Entries, Parsed),
                     erlperf_gate:decided(Rows, Record, Compare)
             end,
    try
        %% in the try: it checks the options, and a bad value of the benchmark's own is
        %% its failure, said with its name
        Until = Params =:= [] andalso erlperf:until_decided(2, Forked#{decide => Decide}),
        case Params of
            [] when Until ->
                Reports = erlperf:benchmark([Code, erlperf_reference:code_map()],
                                            Forked#{decide => Decide}, undefined),
                {ok, [erlperf_reference:beside(Reports)]};
            [] -> {ok, erlperf:benchmark([Code], Forked, undefined)};
            _ -> {ok, erlperf:sweep([Code], Forked#{params => Params})}
        end
    catch
        Class:Reason:Stack -> {error, erlperf_cli_outcome:known(Class, alone(Reason), Stack)}
    end.

%% Each report of a benchmark with the fingerprint of the code it ran (added after it was
%% measured: whether to measure on is decided by time and counts alone).
fingerprinted({ok, Reports}, Project, #{code := Code}) ->
    Fingerprint = erlperf_fingerprint:benchmark(Project, Code),
    {ok, [R#{fingerprint => Fingerprint} || R <- Reports]};
fingerprinted(Error, _Project, _Benchmark) ->
    Error.

%% A crash of the benchmark run beside the reference, said as of the benchmark alone
%% (its name begins the line).
alone({crashed, {Role, _Label}, Detail}) -> {crashed, Role, Detail};
alone(Reason) -> Reason.

%% Options: erlperf's defaults, exact counts, then the benchmark's, then the command
%% line's.
benchmark_options(Own, Given) ->
    %% exact counts per call by default: what a suite's verdicts can trust on a busy host
    maps:merge((erlperf_args:run_defaults())#{counts => true}, maps:merge(Own, Given)).

%% The record's rows against the baselines given, else each run's against the newest
%% stored run of its name; and the options they were compared with.
rows(Record, Entries, #{baselines := Baselines} = Parsed) ->
    Options = (erlperf_cli_outcome:compare_options(Parsed))#{history => earlier_runs(Entries)},
    Rows = case Baselines of
               [] -> previous_rows(Record, Entries, Options);
               _ -> erlperf_baseline:compare(Baselines, Record, Options)
           end,
    {Rows, Options}.

measured(Record0, Entries, #{store := Store} = Parsed) ->
    {Rows, _Options} = rows(Record0, Entries, Parsed),
    Record = erlperf_record:with_baselines(Record0, Rows),
    ok = erlperf_cli_outcome:interference_note(Record0, Rows),
    #{report := Report, format := Format} = Parsed,
    io:put_chars(erlperf_output:render(Format, shown(Format, Record),
                                       #{format => Report, width => infinity, colour => false,
                                         baselines => [], relative => false})),
    (Format =:= text orelse Format =:= benchee) andalso io:put_chars(verdicts(Rows)),
    Entry = erlperf_store:entry(Record0, [unicode:characters_to_binary(P) || P <- maps:get(suites, Parsed)]),
    case store(Store, Entry, Parsed) of
        ok ->
            case erlperf_cli_outcome:write_outputs(Parsed, {Record, Rows}) of
                ok -> erlperf_cli_outcome:gate(Parsed, Rows);
                {error, Why} -> erlperf_cli_outcome:fail(Why)
            end;
        {error, Text} ->
            erlperf_cli_outcome:fail({failed, Text})
    end.

%% The text table names each run as its series does, a sweep's combination included
%% (the benchmarks of a suite have no parameters in common to make columns of).
shown(text, #{?RUNS := Runs} = Record) ->
    Record#{?RUNS := [(maps:remove(?PARAMS, R))#{?LABEL := erlperf_series:name(R)}
                           || R <- Runs],
            ?OPTIONS := maps:remove(?PARAMS, maps:get(?OPTIONS, Record, #{}))};
shown(_Format, Record) ->
    Record.

%% A run against a revision is not kept: its baseline was measured beside it.
store(_Store, _Entry, #{against := _}) ->
    ok;
store(Store, Entry, #{save_baseline := Name}) ->
    case erlperf_store:save_run(Store, Entry) of
        {ok, _} when Name =:= undefined -> ok;
        {ok, _} ->
            case erlperf_store:save_baseline(Store, Name, Entry) of
                {ok, _} -> ok;
                {error, Reason} -> {error, erlperf_store:format_error(Reason)}
            end;
        {error, Reason} ->
            {error, erlperf_store:format_error(Reason)}
    end.

%% The earlier runs of each benchmark (by label and parameters), oldest first: its
%% history, from which the run noise of its verdicts is estimated.
earlier_runs(Entries) ->
    Runs = [{{maps:get(?LABEL, R), maps:get(?PARAMS, R, #{})}, R}
            || #{?RECORD := #{?RUNS := Rs}} <- Entries, R <- Rs],
    maps:map(fun (_Key, Reversed) -> lists:reverse(Reversed) end,
             lists:foldl(fun ({Key, R}, Acc) -> maps:update_with(Key, fun (L) -> [R | L] end, [R], Acc) end,
                         #{}, Runs)).

%% Each run against the newest stored run that has a run of the same name.
previous_rows(#{?RUNS := Runs} = Record, Entries, Options) ->
    Newest = lists:reverse(Entries),
    System = maps:get(?SYSTEM, Record, #{}),
    [row(Run, System, previous(Run, Newest), Options) || Run <- Runs].

row(Run, _System, none, _Options) ->
    #{label => maps:get(?LABEL, Run), name => erlperf_series:name(Run), baselines => []};
row(Run, System, {Entry, Previous}, Options) ->
    #{?RECORD := PreviousRecord} = Entry,
    Base = #{?RUNS => [Previous], ?SYSTEM => maps:get(?SYSTEM, PreviousRecord, #{})},
    [Row] = erlperf_baseline:compare([{source("the previous run", Entry), Base}],
                                     #{?RUNS => [Run], ?SYSTEM => System}, Options),
    Row#{name := erlperf_series:name(Run)}.

previous(Run, Entries) ->
    Name = erlperf_series:name(Run),
    Found = [{E, P} || #{?RECORD := #{?RUNS := Ps}} = E <- Entries, P <- Ps,
                       erlperf_series:name(P) =:= Name],
    case Found of
        [{E, P} | _] -> {E, P};
        [] -> none
    end.

%% "the previous run (abc1234+, 2026-11-25 08:00:03 UTC)"
source(What, #{?TIME := Time} = Entry) ->
    When = binary_to_list(binary:part(Time, 0, min(19, byte_size(Time)))),
    Commit = case maps:get(?COMMIT, Entry, null) of
                 #{<<"sha">> := Sha, <<"dirty">> := Dirty} ->
                     [binary_to_list(binary:part(Sha, 0, 7)), [$+ || Dirty =:= true], ", "];
                 _ -> ""
             end,
    lists:flatten([What, " (", Commit, [case C of $T -> $\s; _ -> C end || C <- When], " UTC)"]).

%% criterion's words: regressed, improved, no change; and inconclusive when the
%% evidence cannot tell. A line per changed exact count after the time's verdict.
%% Names and baselines are written by erlperf_name: a line never begins with `::'.
verdicts(Rows) ->
    [[[io_lib:format("~ts: ~ts against ~ts~ts~n",
                     [erlperf_name:text(Name), verdict_line(E, C), erlperf_name:text(File),
                      erlperf_baseline:environment_text(E)])
       | [io_lib:format("~ts: ~ts: ~ts against ~ts~n",
                        [erlperf_name:text(Name), atom_to_list(V),
                         erlperf_baseline:count_text(Count), erlperf_name:text(File)])
          || #{verdict := V} = Count <- maps:get(counts, E, []), V =/= no_change]]
      || #{file := File, comparison := C} = E <- Entries]
     ++ [io_lib:format("~ts: first run, nothing to compare with~n", [erlperf_name:text(Name)])
         || Entries =:= []]
     || #{name := Name, baselines := Entries} <- Rows].

%% "regressed: 12.0% slower (...)"; an inconclusive verdict's text starts with the word.
verdict_line(#{verdict := inconclusive}, Comparison) -> erlperf_verdict:text(Comparison);
verdict_line(Entry, Comparison) -> [word(Entry), ": ", erlperf_verdict:text(Comparison)].

word(#{verdict := slower, significant := true}) -> "regressed";
word(#{verdict := faster, significant := true}) -> "improved";
word(_) -> "no change".

%%--------------------------------------------------------------------
%% Code path, files, messages

%% The project's compiled code, when erlperf runs at the root of a rebar3 or Mix project.
project_code() ->
    ok = code:add_pathsa(erlperf_against:project_dirs(".")).

%% The page's file is named on stdout after the text summary (not after JSON, which
%% stays one document).
write_history(Files, History, Stdout) ->
    Written = [{File, erlperf_file:write_atomic(File, render_history(Format, History))}
               || {File, Format} <- Files],
    case [E || {_, {error, _} = E} <- Written] of
        [] ->
            _ = [io:format("history: ~ts~n", [F])
                 || Stdout =:= text, {F, ok} <- Written, filename:extension(F) =:= ".html"],
            erlperf_args:exit_code(success);
        [{error, Reason} | _] ->
            erlperf_cli_outcome:fail(Reason)
    end.

render_history(html, History) -> erlperf_trend:html(History);
render_history(json, History) -> erlperf_trend:json(History);
render_history(markdown, History) -> erlperf_trend:markdown(History);
render_history(csv, History) -> erlperf_trend:csv(History);
render_history(_TextOrBenchee, History) -> erlperf_trend:text(History).

warn(Problems) ->
    _ = [io:put_chars(standard_error, ["erlperf: warning: ", erlperf_store:format_error(P), "\n"])
         || P <- Problems],
    ok.
