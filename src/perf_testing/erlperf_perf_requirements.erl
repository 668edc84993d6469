%%% @doc Pass/fail requirements of a performance test: the limits a load generator gives
%%% with `get_requirements(Size)' (see {@link erlperf_load_generator:requirement()}), and
%%% "no worse than before" against a baseline record with a tolerance. Pure: evaluates a
%%% results record ({@link erlperf_perf_results}), returns one entry per check.
%%%
%%% Measured values:
%%% <ul>
%%%   <li>`max_time_per_call_us': compensated time over calls of the MFA, all test nodes
%%%       together.</li>
%%%   <li>`max_process_memory', `max_message_queue_len': the highest sample of any
%%%       discovered process with that name (registered name, else initial call
%%%       `m:f/a').</li>
%%%   <li>`max_node_memory': the highest `memory_total' sample of that node (`all': of any
%%%       test node).</li>
%%%   <li>`baseline_time_per_call_us': against the baseline's run of the same size, the
%%%       traced (raw) time per call of all target functions together, and of each function that took
%%%       at least `?MIN_SHARE' of the baseline run's traced (raw) time in at least `?MIN_CALLS'
%%%       calls, must be at most the baseline's times `1 + tolerance / 100' (and at least
%%%       the baseline's plus `?ABSOLUTE_SLACK_US'). Minor functions are left out on their
%%%       own: between two runs of the same code their times per call vary by tens of
%%%       percent.</li>
%%% </ul>
%%% A requirement that cannot be measured (a function never called, a process never found,
%%% a failed run) fails: a gate passes on evidence only.
%%%
%%% Example:
%%% ```
%%% [#{<<"pass">> := true}] = erlperf_perf_requirements:evaluate(my_load_gen, Record, none, 10).
%%% '''
-module(erlperf_perf_requirements).

%% API: called by erlperf_perf_test.
-export([evaluate/4, failed/1]).

-include("model/erlperf_schema.hrl").

%% Time per call below which a baseline comparison is not meaningful, in microseconds.
-define(ABSOLUTE_SLACK_US, 0.1).
%% A function is compared with the baseline on its own when it took at least this share
%% of the baseline run's time...
-define(MIN_SHARE, 0.05).
%% ...in at least this many calls.
-define(MIN_CALLS, 100).

%%--------------------------------------------------------------------
%% API

%% @doc Every requirement of every size, and every baseline comparison, evaluated.
-spec evaluate(module(), map(), none | map(), number()) -> [map()].
evaluate(Module, #{?RUNS := Runs}, Baseline, Tolerance) ->
    lists:append([own(Module, Run) ++ baseline(Run, Baseline, Tolerance) || Run <- Runs]).

%% @doc The requirements that failed.
-spec failed([map()]) -> [map()].
failed(Requirements) ->
    [R || #{<<"pass">> := false} = R <- Requirements].

%%--------------------------------------------------------------------
%% The load generator's requirements

-spec own(module(), map()) -> [map()].
own(Module, #{?SIZE := Size} = Run) ->
    case erlang:function_exported(Module, get_requirements, 1) of
        false ->
            [];
        true ->
            try Module:get_requirements(Size) of
                List when is_list(List) -> [check(Size, R, Run) || R <- List];
                Other -> [broken(Size, io_lib:format("expected a list, got ~0tp", [Other]))]
            catch
                Class:Reason -> [broken(Size, io_lib:format("~p:~0tp", [Class, Reason]))]
            end
    end.

-spec broken(non_neg_integer(), io_lib:chars()) -> map().
broken(Size, Text) ->
    entry(Size, <<"get_requirements">>, <<>>, null, null, false,
          iolist_to_binary(["get_requirements/1 failed: ", Text])).

-spec check(non_neg_integer(), term(), map()) -> map().
check(Size, {max_time_per_call_us, {M, F, A} = MFA, Limit}, Run)
  when is_atom(M), is_atom(F), is_integer(A), is_number(Limit) ->
    Measured = time_per_call(erlperf_perf_results:mfa_text(MFA), Run),
    limit(Size, <<"max_time_per_call_us">>, erlperf_perf_results:mfa_text(MFA), Limit, Measured);
check(Size, {max_process_memory, Name, Limit}, Run) when is_integer(Limit) ->
    limit(Size, <<"max_process_memory">>, name(Name), Limit, process_max(name(Name), <<"memory">>, Run));
check(Size, {max_message_queue_len, Name, Limit}, Run) when is_integer(Limit) ->
    limit(Size, <<"max_message_queue_len">>, name(Name), Limit,
          process_max(name(Name), <<"message_queue_len">>, Run));
check(Size, {max_node_memory, Node, Limit}, Run) when is_atom(Node), is_integer(Limit) ->
    limit(Size, <<"max_node_memory">>, atom_to_binary(Node), Limit, node_memory(Node, Run));
check(Size, {max_response_us, P, Limit}, Run) when is_number(P), P > 0, P =< 100, is_number(Limit) ->
    Subject = iolist_to_binary(["p", erlperf_units:number(P), " response time"]),
    limit(Size, <<"max_response_us">>, Subject, Limit, response_us(P, Run));
check(Size, Other, _Run) ->
    entry(Size, <<"unknown">>, unicode:characters_to_binary(erlperf_units:value(Other)), null, null, false,
          <<"not a requirement this version knows">>).

-spec limit(non_neg_integer(), binary(), binary(), number(), number() | null) -> map().
limit(Size, Kind, Subject, Limit, null) ->
    entry(Size, Kind, Subject, Limit, null, false, <<"not measured">>);
limit(Size, Kind, Subject, Limit, Measured) ->
    entry(Size, Kind, Subject, Limit, Measured, Measured =< Limit, null).

%% The run's open-load response time at percentile P, microseconds (`null' without an
%% open load, or when no call returned).
-spec response_us(number(), map()) -> number() | null.
response_us(P, #{<<"rate">> := #{} = Rate}) ->
    case erlperf_histogram:percentile(erlperf_record:rate_histogram(Rate, <<"response">>), P) of
        undefined -> null;
        Ns -> Ns / 1000
    end;
response_us(_P, _Run) ->
    null.

-spec name(atom() | string() | binary()) -> binary().
name(Name) when is_atom(Name) -> atom_to_binary(Name);
name(Name) -> unicode:characters_to_binary(Name).

%%--------------------------------------------------------------------
%% Against a baseline

-spec baseline(map(), none | map(), number()) -> [map()].
baseline(_Run, none, _Tolerance) ->
    [];
baseline(#{?SIZE := Size, ?STATUS := <<"ok">>} = Run, #{?RUNS := BaseRuns}, Tolerance) ->
    case [B || #{?SIZE := S, ?STATUS := <<"ok">>} = B <- BaseRuns, S =:= Size] of
        [Base | _] ->
            [compare(Size, all, Run, Base, Tolerance)
             | [compare(Size, Mfa, Run, Base, Tolerance) || Mfa <- weighty(Base)]];
        [] ->
            []
    end;
baseline(#{?SIZE := Size}, _Baseline, _Tolerance) ->
    [entry(Size, <<"baseline_time_per_call_us">>, <<>>, null, null, false, <<"the run failed">>)].

-spec compare(non_neg_integer(), binary() | all, map(), map(), number()) -> map().
compare(Size, Mfa, Run, Base, Tolerance) ->
    %% traced times on both sides: the agents' cost is the same in both runs of a test,
    %% while the impact benchmark's estimate of it varies by a microsecond between runs
    %% (too much to subtract before comparing a cheap function)
    Before = time_per_call(<<"time_us_raw">>, Mfa, Base),
    Limit = max(Before * (1 + Tolerance / 100), Before + ?ABSOLUTE_SLACK_US),
    Subject = case Mfa of all -> <<"all target functions">>; _ -> Mfa end,
    limit(Size, <<"baseline_time_per_call_us">>, Subject, Limit, time_per_call(<<"time_us_raw">>, Mfa, Run)).

%% The functions of a baseline run worth comparing one by one: at least ?MIN_SHARE of the
%% run's time and ?MIN_CALLS calls (the others' times per call vary by tens of percent
%% between runs of the same code; they still count in the total).
-spec weighty(map()) -> [binary()].
weighty(#{<<"functions">> := Functions} = Base) ->
    %% shares of the raw (traced) time: compensation can bring a cheap run's times to 0
    Total = lists:sum([T || #{<<"time_us_raw">> := T} <- Functions]),
    lists:usort([M || #{<<"mfa">> := M} <- Functions, Total > 0,
                      calls(M, Base) >= ?MIN_CALLS,
                      time(M, Base) >= ?MIN_SHARE * Total]).

-spec calls(binary(), map()) -> non_neg_integer().
calls(Mfa, #{<<"functions">> := Functions}) ->
    lists:sum([C || #{<<"mfa">> := M, <<"calls">> := C} <- Functions, M =:= Mfa]).

-spec time(binary(), map()) -> number().
time(Mfa, #{<<"functions">> := Functions}) ->
    lists:sum([T || #{<<"mfa">> := M, <<"time_us_raw">> := T} <- Functions, M =:= Mfa]).

%%--------------------------------------------------------------------
%% Measured values

%% Compensated time per call (the requirements' measure).
-spec time_per_call(binary() | all, map()) -> float() | null.
time_per_call(Mfa, Run) ->
    time_per_call(<<"time_us">>, Mfa, Run).

%% Time per call by the record's `time_us' (compensated) or `time_us_raw' (traced).
-spec time_per_call(binary(), binary() | all, map()) -> float() | null.
time_per_call(Key, Mfa, #{<<"functions">> := Functions}) ->
    case [{C, maps:get(Key, F)} || #{<<"mfa">> := M, <<"calls">> := C} = F <- Functions,
                                   Mfa =:= all orelse M =:= Mfa] of
        [] ->
            null;
        Found ->
            case lists:sum([C || {C, _} <- Found]) of
                0 -> null;
                Calls -> lists:sum([T || {_, T} <- Found]) / Calls
            end
    end.

-spec process_max(binary(), binary(), map()) -> number() | null.
process_max(Name, Metric, #{<<"processes">> := Processes}) ->
    highest([V || #{<<"name">> := N} = P <- Processes, N =:= Name, [_, V] <- maps:get(Metric, P)]).

-spec node_memory(atom(), map()) -> number() | null.
node_memory(Node, #{<<"node_metrics">> := Metrics}) ->
    Key = atom_to_binary(Node),
    highest([V || {N, #{<<"memory_total">> := Samples}} <- maps:to_list(Metrics),
                  Node =:= all orelse N =:= Key, [_, V] <- Samples]).

-spec highest([number()]) -> number() | null.
highest([]) -> null;
highest(Values) -> lists:max(Values).

-spec entry(non_neg_integer(), binary(), binary(), number() | null, number() | null, boolean(),
            binary() | null) -> map().
entry(Size, Kind, Subject, Limit, Measured, Pass, Note) ->
    #{?SIZE => Size, <<"requirement">> => Kind, <<"subject">> => Subject,
      <<"limit">> => Limit, <<"measured">> => Measured, <<"pass">> => Pass, <<"note">> => Note}.
