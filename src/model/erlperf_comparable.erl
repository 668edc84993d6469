%%% @doc Whether the figures of two runs (of a results record, {@link erlperf_record}) can
%%% be compared, and on what footing. What a sample is depends on a run's settings: two
%%% runs whose settings differ measured different things, and a verdict on their samples
%%% would compare those things, not the code. Pure.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>setting</b>: what decides what a run's sample is, by the name the record
%%%       gives it: `mode' (`continuous', `timed', `concurrency' estimation, which every
%%%       other setting follows); `rate' (an open load's calls started per second, `null'
%%%       for a closed load); `concurrency' (the workers of a closed, continuous load; an
%%%       open load's pool and an estimation's best concurrency are measured, not set);
%%%       `loop' (timed: a sample is the time of that many calls); `sample_duration'
%%%       (milliseconds, continuous: a sample is the calls made in it). A setting a run
%%%       does not hold (a record of an older release) differs from nothing.</li>
%%%   <li><b>footing</b>: `per_sample', nothing differs, the samples compare as they are;
%%%       `{per_second, {OldMs, NewMs}}', only the sample durations differ, and each
%%%       run's samples (and `cpu_samples') are scaled by 1000 / its duration in ms
%%%       ({@link per_second/1}): calls per second. The scaling is exact: the workers of a
%%%       continuous run never stop, and a sample counts what they did in its time.
%%%       `{incomparable, Differences}': any other setting differs, `[{Key, Baseline,
%%%       Run}]'. Timed runs of different loops are: a sample's fixed cost (reading the
%%%       clock, entering the loop) is shared by another number of calls, so their time
%%%       per call differs by more than the code's.</li>
%%%   <li><b>kind</b>: of load: the mode, and whether the load is open (a `rate') or
%%%       closed. Runs of different kinds are compared in nothing, not even their exact
%%%       counts per call ({@link same_kind/2}): an open load measures what the calls a
%%%       schedule started took, a closed one how many calls its workers made.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% Run = fun (Ms, Workers, Samples) ->
%%%           #{<<"label">> => <<"a">>, <<"mode">> => <<"continuous">>, <<"samples">> => Samples,
%%%             <<"concurrency">> => Workers, <<"sample_duration">> => Ms}
%%%       end,
%%% {per_second, {100, 200}} = erlperf_comparable:footing(Run(100, 1, [10]), Run(200, 1, [20])),
%%% #{<<"samples">> := [100.0]} = erlperf_comparable:per_second(Run(100, 1, [10])),
%%% {incomparable, [{<<"concurrency">>, 1, 4}]} =
%%%     erlperf_comparable:footing(Run(100, 1, [10]), Run(100, 4, [40])).
%%% '''
-module(erlperf_comparable).

%% API: called by erlperf_baseline (a run against a saved one, and against its history).
-export([footing/2, same_kind/2, per_second/1, sample_duration/1]).

-export_type([footing/0, difference/0]).

-include("model/erlperf_schema.hrl").

%% A setting that differs between two runs: its name, the baseline's and the run's value
%% (as the record holds them: `<<"continuous">>', 4, `null' for no rate).
-type difference() :: {binary(), term(), term()}.
-type footing() :: per_sample | {per_second, {pos_integer(), pos_integer()}}
                 | {incomparable, [difference(), ...]}.

%% A record that does not hold a run's sample duration (an older release's) holds its
%% `qps' and `average' (qps = average x 1000 / sample_duration, continuous; loop x 10^6 /
%% average, timed): the duration they give is taken when it is a whole number within this
%% (relative; JSON keeps a float exactly, so only rounding in the division is left).
-define(WHOLE_TOLERANCE, 1.0e-9).

%%--------------------------------------------------------------------
%% API

%% @doc How the samples of `Run' compare with those of `BaseRun' (see the glossary).
-spec footing(erlperf_record:run(), erlperf_record:run()) -> footing().
footing(BaseRun, Run) ->
    case differences(BaseRun, Run) of
        [] -> per_sample;
        [{<<"sample_duration">>, Old, New}] -> {per_second, {Old, New}};
        Differences -> {incomparable, Differences}
    end.

%% @doc Whether two runs are of one kind (see the glossary): the same mode, and both at
%% a rate or neither.
-spec same_kind(erlperf_record:run(), erlperf_record:run()) -> boolean().
same_kind(BaseRun, Run) ->
    maps:get(?MODE, BaseRun) =:= maps:get(?MODE, Run)
        andalso (setting(<<"rate">>, BaseRun) =:= null) =:= (setting(<<"rate">>, Run) =:= null).

%% @doc A continuous run's samples and `cpu_samples' in calls per second (the run as it
%% is when it does not hold its sample duration, or is timed).
-spec per_second(erlperf_record:run()) -> erlperf_record:run().
per_second(Run) ->
    case sample_duration(Run) of
        Ms when is_integer(Ms) ->
            Scale = fun (Samples) -> [S * 1000 / Ms || S <- Samples] end,
            maps:map(fun (Key, Samples) when Key =:= ?SAMPLES; Key =:= ?CPU_SAMPLES ->
                             Scale(Samples);
                         (_Key, Value) ->
                             Value
                     end, Run);
        _ ->
            Run
    end.

%% @doc A run's sample duration: milliseconds, or `{timed, Loop}' (each sample the time of
%% `Loop' calls); `undefined' when the record does not tell.
-spec sample_duration(erlperf_record:run()) -> pos_integer() | {timed, pos_integer()} | undefined.
sample_duration(#{<<"sample_duration">> := Ms}) when is_integer(Ms), Ms > 0 ->
    Ms;
sample_duration(#{<<"sample_duration">> := #{<<"timed">> := Loop}})
  when is_integer(Loop), Loop > 0 ->
    {timed, Loop};
sample_duration(#{<<"sample_duration">> := _Unknown}) ->
    undefined;
sample_duration(#{?MODE := <<"timed">>, ?AVERAGE := Us, ?QPS := Qps})
  when is_number(Us), is_number(Qps) ->
    case whole(Qps * Us / 1.0e6) of
        undefined -> undefined;
        Loop -> {timed, Loop}
    end;
sample_duration(#{?AVERAGE := Average, ?QPS := Qps})
  when is_number(Average), is_number(Qps), Qps > 0 ->
    whole(Average * 1000 / Qps);
sample_duration(_Run) ->
    undefined.

%%--------------------------------------------------------------------
%% Internal functions

%% The settings that differ: the mode alone when it does, else those of the mode.
differences(BaseRun, Run) ->
    case {maps:get(?MODE, BaseRun), maps:get(?MODE, Run)} of
        {Mode, Mode} ->
            [{Key, Old, New} || Key <- settings(Mode, BaseRun, Run),
                                Old <- [setting(Key, BaseRun)], New <- [setting(Key, Run)],
                                Old =/= undefined, New =/= undefined, Old =/= New];
        {Old, New} ->
            [{<<"mode">>, Old, New}]
    end.

settings(<<"timed">>, _BaseRun, _Run) ->
    [<<"loop">>];
settings(<<"continuous">>, BaseRun, Run) ->
    Closed = setting(<<"rate">>, BaseRun) =:= null andalso setting(<<"rate">>, Run) =:= null,
    [<<"rate">>] ++ [<<"concurrency">> || Closed] ++ [<<"sample_duration">>];
settings(_Estimation, _BaseRun, _Run) ->
    [<<"sample_duration">>].

setting(<<"rate">>, #{<<"rate">> := #{<<"target">> := Target}}) -> Target;
setting(<<"rate">>, _Run) -> null;
setting(<<"concurrency">>, Run) -> maps:get(?CONCURRENCY, Run, undefined);
setting(<<"loop">>, Run) ->
    case sample_duration(Run) of
        {timed, Loop} -> Loop;
        _ -> undefined
    end;
setting(<<"sample_duration">>, Run) ->
    case sample_duration(Run) of
        Ms when is_integer(Ms) -> Ms;
        _ -> undefined
    end.

whole(X) ->
    case round(X) of
        N when N > 0, abs(X - N) =< ?WHOLE_TOLERANCE * N -> N;
        _ -> undefined
    end.
