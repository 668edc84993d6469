%%% @doc Forks: a benchmark measured in several independent repetitions, so that its
%%% interval and verdicts know the variation between runs, not only within one.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>fork</b>: one repetition. Each starts fresh jobs: the runner is generated
%%%       and loaded again (a new copy of the loop, placed where the code loader puts
%%%       it), its workers are new processes, and with `isolation' each fork gets new
%%%       peer nodes. The `samples' of a run are split among its forks (the first
%%%       `samples rem forks' forks take one more), so forks cost no more samples;
%%%       `warmup' samples are taken and discarded in every fork, and the first fork
%%%       discards 500 ms of samples at least (one sample at least): the first sample of
%%%       a run's first fork, taken as the VM settles and the code's first calls load what
%%%       they call, was measured up to 35% slow, and on a busy host a NIF call's first
%%%       fork of 50 ms turns less than half as fast as the others.</li>
%%%   <li><b>order</b>: the forks of compared codes take turns, fork by fork: A1 B1,
%%%       B2 A2, A3 B3, ... (`compare => sequential'), or run together as the compare
%%%       mode says, the jobs started in the given order in odd forks and in reverse in
%%%       even ones (who starts first, and gets the first scheduler, alternates). Drift of
%%%       the machine over the run reaches every code alike.</li>
%%%   <li><b>auto</b> (the default): one fork (a single run, as erlperf 2.3 measures)
%%%       unless the run compares codes in a full report, that is, unless it gives
%%%       verdicts; then {@link auto/1} forks. Verdicts of a single run are labelled
%%%       so.</li>
%%% </ul>
%%% The merged report of a code holds every fork's samples in `result.values' (fork
%%% after fork) and `result.forks' ({@link erlperf_stat:components/1}: sizes, means,
%%% and the variance between and within forks); its `ci' is the t interval of the fork
%%% means (see {@link erlperf_comparison}). With `memory', `latency' or `profile', those
%%% are measured once, after the last fork.
%%%
%%% Example:
%%% ```
%%% [#{result := #{forks := #{forks := 3, sizes := [2, 2, 2]}}}] =
%%%     erlperf:benchmark(["rand:uniform()."], #{forks => 3, samples => 6, report => full,
%%%                                              sample_duration => 100}, undefined).
%%% '''
%%% Cost: a job start and stop per fork and code (compiling the runner: milliseconds),
%%% or a peer node start per fork and code with `isolation' (about half a second).
-module(erlperf_forks).

%% API: called by erlperf:benchmark/3.
-export([budget/5, resolve/3, for_verdicts/2, auto/1, sizes/2, run/3, until/4, looks/2, turn_ms/0]).

-export_type([progress/0, sequential/0]).

%% How a run measured until decided went (a report's `sequential'): the looks planned
%% (`of') and the one it stopped at, the forks and samples taken, the time it took and
%% its budget (milliseconds), and why it stopped: every verdict `decided', or the
%% `budget' spent.
-type sequential() :: #{look := pos_integer(), looks := pos_integer(), forks := pos_integer(),
                        elapsed_ms := non_neg_integer(), budget_ms := pos_integer(),
                        stopped := decided | budget}.

%% The event a run's `progress' fun gets as fork I of F starts.
-type progress() :: {fork, I :: pos_integer(), F :: pos_integer()}.

%% Forks taken by `auto' at most: 10 forks give the interval 9 degrees of freedom
%% (t = 2.26 at 95%, against 2.78 with 5), for a job start each (milliseconds).
%% Milliseconds of samples the first fork of a run discards at least (one sample at
%% least): the code's first calls load what it calls (a NIF library's module, on a busy
%% host for hundreds of milliseconds), and the VM settles after starting the run.
-define(FIRST_FORK_WARMUP_MS, 500).
-define(AUTO_FORKS, 10).
%% From this many samples, `auto' keeps two samples a fork at least, so that the noise
%% within a fork can be told from the noise between forks.
-define(AUTO_PAIRS_FROM, 6).
%% Measuring until decided: samples (rounds of turns) a fork, milliseconds of a turn
%% unless the sample duration is given, and the forks of the first look (the looks then
%% come at twice as many forks each time, and at the last fork). Measured on the 2-core
%% machine, two runners of the same NIF call: the forks' medians of the rounds' ratios
%% varied 0.4-2.0% with 10 turns of 50 ms, 2.0-2.8% with 5 of 100 ms.
-define(UNTIL_SAMPLES, 10).
-define(TURN_MS, 50).
-define(FIRST_LOOK, 4).
%% No doubling look past this many forks (the last fork is always a look).
-define(MAX_LOOK_FORKS, 1 bsl 20).

%%--------------------------------------------------------------------
%% API

%% @doc The number of forks of a run of `Codes' codes with checked options `Opts'
%% (`forks' is `auto' or a count) and concurrency options `Conc': `auto' is
%% {@link for_verdicts/2} when several codes are compared in a full report or `verdicts'
%% is true (the results will be compared with a baseline), else 1. Raises
%% `{incompatible_options, forks, N, What}' when
%% N forks (more than one) are asked with concurrency estimation, `nodes', `cv', or with
%% fewer samples (`What' is `{samples, Samples}').
-spec resolve(pos_integer(), erlperf:run_options(), erlperf:concurrency_options() | undefined) ->
          pos_integer().
resolve(Codes, #{forks := auto, report := full} = Opts, Conc) when Codes > 1 ->
    for_verdicts(Opts, Conc);
resolve(_Codes, #{forks := auto, verdicts := true} = Opts, Conc) ->
    for_verdicts(Opts, Conc);
resolve(_Codes, #{forks := auto}, _Conc) ->
    1;
resolve(_Codes, #{forks := 1}, _Conc) ->
    1;
resolve(_Codes, #{forks := N} = Opts, Conc) ->
    Incompatible = [What || {What, true} <- [{concurrency_estimation, Conc =/= undefined},
                                              {nodes, is_map_key(nodes, Opts)},
                                              {cv, maps:get(cv, Opts) =/= undefined}]],
    case Incompatible of
        [What | _] -> erlang:error({incompatible_options, forks, N, What});
        [] when N > map_get(samples, Opts) ->
            erlang:error({incompatible_options, forks, N, {samples, map_get(samples, Opts)}});
        [] -> N
    end.

%% @doc The forks of a run whose results get verdicts (codes compared, or a run
%% compared with a baseline) with checked options `Opts': {@link auto/1} of the
%% samples, or 1 for concurrency estimation, `nodes' and `cv' (one run each).
-spec for_verdicts(erlperf:run_options(), erlperf:concurrency_options() | undefined) -> pos_integer().
for_verdicts(#{samples := Samples, cv := Cv} = Opts, Conc) ->
    case Conc =:= undefined andalso not is_map_key(nodes, Opts) andalso Cv =:= undefined of
        true -> auto(Samples);
        false -> 1
    end.

%% @doc The forks `auto' takes for `Samples' samples: up to 5 samples, a fork each; from 6,
%% a fork per two samples, at most 10 forks (3 samples: 3 forks; 7: 3, of 3, 2 and 2
%% samples; 10: 5; 20 or more: 10).
-spec auto(pos_integer()) -> pos_integer().
auto(Samples) when Samples < ?AUTO_PAIRS_FROM ->
    Samples;
auto(Samples) ->
    min(?AUTO_FORKS, Samples div 2).

%% @doc How `Samples' samples are split among `Forks' forks (at most one per sample).
-spec sizes(pos_integer(), pos_integer()) -> [pos_integer()].
sizes(Samples, Forks) when Forks =< Samples ->
    [Samples div Forks + case I =< Samples rem Forks of true -> 1; false -> 0 end
     || I <- lists:seq(1, Forks)].

%% @doc Runs `forks' (a count, see {@link resolve/3}) repetitions of the benchmark of
%% `CodeMaps', each by `Run(Codes, ForkOptions)' (a strategy returning full reports in
%% the order of `Codes'), and returns a full report per code, in order.
-spec run([erlperf_job:code_map(), ...], erlperf:run_options(),
          fun(([erlperf_job:code_map(), ...], erlperf:run_options()) -> [erlperf:report()])) ->
          [erlperf:report()].
run(CodeMaps, #{forks := 1} = Opts, Run) ->
    Run(CodeMaps, Opts);
run(CodeMaps, #{forks := Forks, samples := Samples} = Opts, Run) ->
    Sizes = sizes(Samples, Forks),
    Indexed = lists:zip(lists:seq(1, Forks), Sizes),
    ByFork = [fork(I, Forks, Size, CodeMaps, Opts, Run) || {I, Size} <- Indexed],
    [merge(Reports, Opts) || Reports <- transpose(ByFork)].

%% @doc Measures until decided: forks of `?UNTIL_SAMPLES' samples, one after another (in
%% alternating order, as `run/3' takes them), until `Decide(Reports, Looks)' says the
%% merged reports of the forks so far decide every verdict, or the `budget'
%% (milliseconds) is spent. `Decide' is asked at planned looks only: after
%% `?FIRST_LOOK' forks, then at twice as many each time, and at the last fork the budget
%% allows (estimated from the second fork's time; see {@link looks/2}), so that `Looks',
%% the number of planned looks, is known before the first one and an interval can hold
%% over all of them. Every report gets `sequential' ({@link sequential()}). `memory',
%% `counts', `latency' and `profile' are measured in one more fork of one sample, after
%% the last, whose sample is not kept.
-spec until([erlperf_job:code_map(), ...], erlperf:run_options(),
            fun(([erlperf_job:code_map(), ...], erlperf:run_options()) -> [erlperf:report()]),
            fun(([erlperf:report()], pos_integer()) -> boolean())) -> [erlperf:report()].
until(CodeMaps, #{budget := Budget} = Opts, Run, Decide) ->
    Started = erlang:monotonic_time(millisecond),
    Plain = Opts#{samples => ?UNTIL_SAMPLES, memory => false, counts => false, latency => false,
                  profile => undefined},
    State = #{started => Started, budget => 1000 * Budget, plan => undefined},
    {Forks, Merged, Sequential} = until(1, CodeMaps, Plain, Run, Decide, State, []),
    Measured = after_measures(CodeMaps, Opts, Run, Merged, Forks + 1),
    [R#{sequential => Sequential} || R <- Measured].

%% @doc Whether a run of `Codes' codes is measured until decided ({@link until/4}), and
%% for how long: the seconds of its `budget' (`auto': those of `Auto', see
%% erlperf_options:auto_budget/1), or `undefined' when it takes fixed forks. `Opts' the
%% run's options, `Given' those the caller gave, `Conc' the concurrency estimation's.
%% `auto' measures until decided only a full report of several codes (or of one with
%% `decide', a rule of the caller's) whose `samples',
%% forks and shape nothing else fixes; a number of seconds given with what it cannot go
%% with is an error (`{incompatible_options, budget, Budget, What}').
-spec budget(pos_integer(), erlperf:run_options(), map(), map() | undefined,
             runners | against) -> pos_integer() | undefined.
budget(_Codes, #{budget := undefined}, _Given, _Conc, _Auto) ->
    undefined;
budget(Codes, #{budget := Budget} = Opts, Given, Conc, Auto) ->
    Conflicts = [{one_runner, Codes < 2 andalso not is_function(maps:get(decide, Opts, undefined))},
                 {report, maps:get(report, Opts) =/= full},
                 {samples, is_map_key(samples, Given)},
                 {concurrency_estimation, Conc =/= undefined},
                 {rate, maps:get(rate, Opts, undefined) =/= undefined},
                 {cv, maps:get(cv, Opts, undefined) =/= undefined},
                 {sample_duration, not is_integer(maps:get(sample_duration, Opts))},
                 {forks, maps:get(forks, Given, auto) =/= auto},
                 {nodes, is_map_key(nodes, Opts)}],
    case {Budget, [What || {What, true} <- Conflicts]} of
        {auto, [_ | _]} -> undefined;
        {_, [What | _]} -> erlang:error({incompatible_options, budget, Budget, What});
        {auto, []} -> erlperf_options:auto_budget(Auto);
        {Seconds, []} -> Seconds
    end.

%% @doc The looks of a run measured until decided whose budget allows `MaxForks' forks:
%% after ?FIRST_LOOK forks, then twice as many each time, and at the last fork (at least
%% ?FIRST_LOOK forks).
-spec looks(pos_integer(), pos_integer()) -> [pos_integer(), ...].
looks(MaxForks, First) ->
    Last = max(First, MaxForks),
    Doubling = lists:takewhile(fun (F) -> F < Last end, doubling(First)),
    Doubling ++ [Last].

%% @doc Milliseconds of a turn of a run measured until decided, unless the sample
%% duration is given.
-spec turn_ms() -> pos_integer().
turn_ms() ->
    ?TURN_MS.

%%--------------------------------------------------------------------
%% Internal functions

doubling(F) -> [F | doubling_tail(F)].

doubling_tail(F) when F > ?MAX_LOOK_FORKS -> [];
doubling_tail(F) -> doubling(2 * F).

until(I, CodeMaps, Opts, Run, Decide, #{started := Started, budget := Budget} = State, Acc) ->
    notify(Opts, {fork, I, planned(State, I)}),
    Reports = ordered(I, CodeMaps, Opts, Run),
    Forks = [Reports | Acc],
    Elapsed = erlang:monotonic_time(millisecond) - Started,
    %% planned from the second fork's time (the first warms up longer), before any look
    Looks = case State of
                #{plan := undefined} when I =:= 1 ->
                    looks(max(1, Budget div max(1, Elapsed)), ?FIRST_LOOK);
                #{plan := undefined, first_ms := First} ->
                    looks(I + max(0, Budget - Elapsed) div max(1, Elapsed - First), ?FIRST_LOOK);
                #{plan := Planned} ->
                    Planned
            end,
    Plan = case I of
               1 -> State#{first_ms => Elapsed};
               _ -> State#{plan := Looks}
           end,
    Last = I >= lists:last(Looks) orelse Elapsed + Elapsed div I > Budget,
    Look = length(lists:takewhile(fun (F) -> F < I end, Looks)) + 1,
    case (Last orelse lists:member(I, Looks)) andalso I >= ?FIRST_LOOK of
        true ->
            Samples = ?UNTIL_SAMPLES * I,
            Sequential = #{look => Look, looks => length(Looks), forks => I,
                           elapsed_ms => Elapsed, budget_ms => Budget},
            Merged = [(merge(Rs, Opts#{samples => Samples, forks => I}))#{sequential => Sequential}
                      || Rs <- transpose(lists:reverse(Forks))],
            Decided = Decide(Merged, length(Looks)),
            case Decided orelse Last of
                true ->
                    Why = case Decided of true -> decided; false -> budget end,
                    {I, Merged, Sequential#{stopped => Why}};
                false ->
                    until(I + 1, CodeMaps, Opts, Run, Decide, Plan, Forks)
            end;
        false ->
            until(I + 1, CodeMaps, Opts, Run, Decide, Plan, Forks)
    end.

%% The forks planned, for the progress line: the last look's, once known.
planned(#{plan := undefined}, I) -> I;
planned(#{plan := Looks}, _I) -> lists:last(Looks).

%% The measures after the run (memory, counts, latency, profile), in a fork of one
%% sample of their own; its sample is not kept.
after_measures(CodeMaps, Opts, Run, Merged, I) ->
    Measures = [K || K <- [memory, counts, latency], maps:get(K, Opts, false) =:= true]
        ++ [profile || maps:get(profile, Opts, undefined) =/= undefined],
    case Measures of
        [] ->
            Merged;
        _ ->
            Extra = ordered(I, CodeMaps, Opts#{samples => 1, warmup => 0}, Run),
            [with_profile(M#{result => maps:merge(Result, maps:with([cost, counts, latency],
                                                                    maps:get(result, E)))}, E)
             || {#{result := Result} = M, E} <- lists:zip(Merged, Extra)]
    end.

with_profile(Report, #{profile := Profile}) -> Report#{profile => Profile};
with_profile(Report, _Extra) -> Report.

%% Fork I's reports in the codes' order: even forks run the codes in reverse; the first
%% one warms up a sample at least.
ordered(I, CodeMaps, Opts, Run) ->
    Order = case I rem 2 of
                0 -> fun lists:reverse/1;
                1 -> fun (List) -> List end
            end,
    ForkOpts = case I of
                   1 -> Opts#{warmup => max(first_warmup(Opts), maps:get(warmup, Opts, 0))};
                   _ -> Opts
               end,
    Order(Run(Order(CodeMaps), ForkOpts)).

%% Fork I of Forks: the codes in this fork's order, the after-run measures only in the
%% last fork; the reports come back in the codes' order.
fork(I, Forks, Size, CodeMaps, Opts, Run) ->
    notify(Opts, {fork, I, Forks}),
    ForkOpts = case I =:= Forks of
                   true -> Opts#{samples => Size};
                   false -> Opts#{samples => Size, memory => false, counts => false, latency => false,
                                  profile => undefined}
               end,
    ordered(I, CodeMaps, ForkOpts, Run).

%% The samples of ?FIRST_FORK_WARMUP_MS (one at least; one of a timed run).
first_warmup(#{sample_duration := Ms}) when is_integer(Ms), Ms > 0 ->
    max(1, (?FIRST_FORK_WARMUP_MS + Ms - 1) div Ms);
first_warmup(_Opts) ->
    1.

notify(#{progress := Fun}, Event) -> Fun(Event);
notify(_Opts, _Event) -> ok.

transpose([[] | _]) -> [];
transpose(Rows) -> [[H || [H | _] <- Rows] | transpose([T || [_ | T] <- Rows])].

%% One code's reports of every fork, as one report: the last fork's, with the samples
%% and statistics of all, and the forks' components.
merge(Reports, #{samples := Samples, forks := Forks}) ->
    #{mode := Mode, concurrency := Concurrency, run_options := RunOptions} = Last = lists:last(Reports),
    Results = [R || #{result := R} <- Reports],
    Groups = [V || #{values := V} <- Results],
    Run = #{values => lists:append(Groups), samples => counter(Mode, Results),
            time => lists:sum([T || #{time := T} <- Results]),
            overdue => lists:sum([O || #{overdue := O} <- Results]),
            interference => lists:append([maps:get(interference, R, []) || R <- Results])},
    Merged = erlperf_local:result(Mode, Concurrency, Run, RunOptions),
    Extra = maps:with([cost, counts, latency], maps:get(result, Last)),
    Sleep = case lists:member(busy_wait, [S || #{sleep := S} <- Reports]) of
                true -> busy_wait;
                false -> sleep
            end,
    Last#{result => maps:merge(Merged, Extra#{forks => erlperf_stat:components(Groups)}),
          sleep => Sleep, run_options => RunOptions#{samples => Samples, forks => Forks}}.

%% The raw readings of all forks as one run's: timed, the microseconds of every sample;
%% continuous, a counter starting at 0 that grows by each fork's increments in turn.
counter(timed, Results) ->
    lists:append([S || #{samples := S} <- Results]);
counter(continuous, Results) ->
    Increments = lists:append([increments(S) || #{samples := S} <- Results]),
    lists:reverse(lists:foldl(fun (D, [Top | _] = Acc) -> [Top + D | Acc] end, [0], Increments)).

increments([First | Rest]) ->
    {Ds, _} = lists:mapfoldl(fun (C, Prev) -> {C - Prev, C} end, First, Rest),
    Ds.
