%%% @doc The history of a results store as series: each benchmark's throughput over
%%% the stored runs, oldest first, with the steps found in it
%%% ({@link erlperf_changepoint}). Pure: it reads entries already loaded
%%% ({@link erlperf_store:runs/1}); {@link erlperf_trend} renders what it returns.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>series</b>: the points of one benchmark name (with a sweep's combination,
%%%       `seq (N=10)'), one per stored run that has it, in the order of the runs.</li>
%%%   <li><b>point</b>: a run's throughput (`qps', iterations per second), its 95%
%%%       interval, what the interval knows (`forks' or `single_run'), and the run's
%%%       commit, time and OTP release.</li>
%%%   <li><b>step</b>: where the series' level changes, found on the points' values
%%%       (their intervals bound the noise of short segments).</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% {Entries, _Problems} = erlperf_store:runs("_build/erlperf"),
%%% #{benchmarks := [#{name := _, points := _, steps := _} | _]} =
%%%     erlperf_series:history(<<"_build/erlperf">>, Entries).
%%% '''
-module(erlperf_series).

%% API: called by the suites' command line (erlperf_suite_cli)
-export([history/2, name/1]).

-export_type([history/0]).

-include("model/erlperf_schema.hrl").

-type history() :: #{store := binary(), runs := non_neg_integer(),
                     benchmarks := [#{name := binary(), points := [map()],
                                      steps := [erlperf_changepoint:step()]}]}.

%%--------------------------------------------------------------------
%% API

%% @doc The history of the entries (oldest first) of the store `Store'. Benchmarks are
%% in the order they first appear.
-spec history(binary(), [erlperf_store:entry()]) -> history().
history(Store, Entries) ->
    Points = [{Name, point(I, Entry, Run)}
              || {I, #{?RECORD := #{?RUNS := Runs}} = Entry}
                     <- lists:zip(lists:seq(1, length(Entries)), Entries),
                 Run <- Runs, is_number(maps:get(?QPS, Run, null)),
                 Name <- [name(Run)]],
    Names = first_seen([N || {N, _} <- Points]),
    #{store => Store, runs => length(Entries),
      benchmarks => [series(Name, [P || {N, P} <- Points, N =:= Name]) || Name <- Names]}.

%%--------------------------------------------------------------------
%% Internal functions

%% Steps need positive values (a run that completed no iteration has none: its series
%% gets no steps); an interval that does not hold its value is left out.
series(Name, Points) ->
    Values = [case P of
                  #{low := Lo, high := Hi} when is_float(Lo), is_float(Hi), Lo =< V, V =< Hi -> {V, Lo, Hi};
                  #{value := V} -> V
              end || #{value := V} = P <- Points],
    Steps = case lists:all(fun ({V, _, _}) -> V > 0; (V) -> V > 0 end, Values) of
                true -> erlperf_changepoint:steps(Values);
                false -> []
            end,
    #{name => Name, points => Points, steps => Steps}.

point(I, Entry, Run) ->
    {Low, High} = case erlperf_record:qps_bounds(Run) of
                      {L, H} -> {float(L), float(H)};
                      none -> {undefined, undefined}
                  end,
    {Sha, Dirty} = case maps:get(?COMMIT, Entry, null) of
                       #{<<"sha">> := S, <<"dirty">> := D} -> {S, D =:= true};
                       _ -> {undefined, false}
                   end,
    #{run => I, time => maps:get(?TIME, Entry), commit => Sha, dirty => Dirty,
      otp => maps:get(<<"otp">>, Entry, <<"?">>), value => float(maps:get(?QPS, Run)),
      low => Low, high => High,
      bytes => count(?BYTES_PER_ITERATION, Run), reductions => count(?REDUCTIONS_PER_ITERATION, Run),
      load => load(Run),
      interval => case maps:get(<<"interval">>, Run, <<"single_run">>) of
                      <<"forks">> -> forks;
                      _ -> single_run
                  end}.

%% An exact count per call of a run (`undefined' in records without them).
count(Key, #{<<"counts">> := Counts}) ->
    case maps:get(Key, Counts, null) of
        N when is_number(N) -> N;
        _ -> undefined
    end;
count(_Key, _Run) ->
    undefined.

%% The host's load during the run, as verdicts take it (erlperf_record:host_load/2).
load(Run) ->
    erlperf_record:host_load(Run, erlperf_record:computes(Run)).

%% @doc A run's name in a series: its label and sweep combination (parameters in name
%% order).
-spec name(erlperf_record:run()) -> binary().
name(Run) ->
    erlperf_record:run_name(Run, lists:sort(maps:keys(maps:get(?PARAMS, Run, #{})))).

first_seen(Names) ->
    {Order, _} = lists:foldl(fun (N, {Acc, Seen}) ->
                                     case is_map_key(N, Seen) of
                                         true -> {Acc, Seen};
                                         false -> {[N | Acc], Seen#{N => true}}
                                     end
                             end, {[], #{}}, Names),
    lists:reverse(Order).
