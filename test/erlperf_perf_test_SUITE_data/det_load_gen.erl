%% A deterministic system under test: Size processes on one test node, each calling
%% work/1 exactly ?CALLS times, then waiting. Environment knobs (read on the
%% controlling node): DET_LOG (a file each callback appends its name to), DET_FAIL
%% ("Callback:Size": that callback raises, or hangs for stop_load_hang), DET_COST (work
%% per call), DET_LIMIT_US (max time per call of work/1), DET_SIZES ("1,2"), DET_NAME
%% (the test's name).
-module(det_load_gen).
-behaviour(erlperf_load_generator).

-export([get_test_name/0, test_setup/0, setup_run/1, start_load/2, get_load_duration/0,
         get_test_sizes/0, stop_load/1, teardown_run/1, test_teardown/1, get_trace_patterns/0,
         get_requirements/1]).
-export([caller/2, work/1]).

-define(CALLS, 100).

get_test_name() -> os:getenv("DET_NAME", "det test").

test_setup() ->
    log(test_setup),
    fail_if(test_setup, 0),
    {ok, setup_info}.

get_test_sizes() ->
    Sizes = [list_to_integer(S) || S <- string:lexemes(os:getenv("DET_SIZES", "1,2"), ",")],
    {callers, Sizes}.

get_load_duration() -> 300.

get_trace_patterns() -> [{?MODULE, work, 1}].

setup_run(Size) ->
    log({setup_run, Size}),
    {ok, Node} = erlperf_perf_node:start(#{}),
    ok = erlperf_perf_node:inject_mod(?MODULE, Node),
    {run_started, [Node]}.

start_load([Node], Size) ->
    log({start_load, Size}),
    fail_if(start_load, Size),
    Cost = list_to_integer(os:getenv("DET_COST", "10")),
    Self = self(),
    Pids = [erpc:call(Node, erlang, spawn, [?MODULE, caller, [Self, Cost]]) || _ <- lists:seq(1, Size)],
    [receive {done, P} -> ok end || P <- Pids],
    case fail_wanted(node_down, Size) of
        true -> erpc:cast(Node, erlang, halt, []);
        false -> ok
    end,
    {load_started, {Node, Size, Pids}}.

stop_load({Node, Size, Pids}) ->
    log({stop_load, Size}),
    case fail_wanted(stop_load_hang, Size) of
        true -> receive never -> ok end;
        false -> ok
    end,
    [P ! stop || P <- Pids],
    {load_stopped, {Node, Size}}.

teardown_run(Info) ->
    log({teardown_run, shape(Info)}),
    case Info of
        {Node, _Size} -> ok = erlperf_perf_node:stop(Node);
        _ -> ok
    end,
    run_ended.

test_teardown(setup_info) ->
    log(test_teardown),
    ok.

get_requirements(_Size) ->
    Limit = list_to_integer(os:getenv("DET_LIMIT_US", "1000000")),
    [{max_time_per_call_us, {?MODULE, work, 1}, Limit}].

%% on the test node
caller(Parent, Cost) ->
    _ = [work(Cost) || _ <- lists:seq(1, ?CALLS)],
    Parent ! {done, self()},
    receive stop -> ok end.

work(Cost) ->
    lists:sum(lists:seq(1, Cost)).

%% knobs

%% what the log can show of a run info (no pids)
shape({Node, Size, _Pids}) -> {Node, Size, pids};
shape(Info) -> Info.
log(What) ->
    case os:getenv("DET_LOG") of
        false -> ok;
        File -> ok = file:write_file(File, io_lib:format("~0p.~n", [What]), [append])
    end.

fail_if(Callback, Size) ->
    case fail_wanted(Callback, Size) of
        true -> erlang:error({injected, Callback, Size});
        false -> ok
    end.

fail_wanted(Callback, Size) ->
    os:getenv("DET_FAIL") =:= lists:concat([Callback, ":", Size]).
