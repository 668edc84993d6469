%% A load generator for hostile cases, steered by the environment of the controlling
%% node:
%% - HOSTILE_LOG: a file each callback appends a term to (with the controlling node's
%%   cookie in test_setup's, and each test node's OS pid);
%% - HOSTILE_MS: the load's duration (default 300);
%% - HOSTILE_PATTERNS: `none' makes get_trace_patterns/0 return [];
%% - HOSTILE_NAME: `integer' makes get_test_name/0 return 42;
%% - HOSTILE_START: how setup_run/1 gets its nodes, comma-separated: `perf_node' (the
%%   default) with erlperf_perf_node:start/1; `plain_peer', peer:start/1 with Erlang
%%   distribution as the control connection; `stdio_peer', a peer that keeps its own
%%   cookie; `given', the running node HOSTILE_NODE, reached with the cookie
%%   HOSTILE_COOKIE; `fail', setup_run/1 raises; `hang', it never returns.
-module(hostile_load_gen).
-behaviour(erlperf_load_generator).

-export([get_test_name/0, test_setup/0, setup_run/1, start_load/2, get_load_duration/0,
         get_test_sizes/0, stop_load/1, teardown_run/1, test_teardown/1, get_trace_patterns/0]).
-export([caller/0, work/1]).

get_test_name() ->
    case os:getenv("HOSTILE_NAME") of
        "integer" -> 42;
        _ -> "hostile"
    end.

get_test_sizes() -> {callers, [1]}.

get_load_duration() -> list_to_integer(os:getenv("HOSTILE_MS", "300")).

get_trace_patterns() ->
    case os:getenv("HOSTILE_PATTERNS") of
        "none" -> [];
        _ -> [{?MODULE, work, 1}]
    end.

test_setup() ->
    log({test_setup, erlang:get_cookie()}),
    {ok, setup}.

setup_run(_Size) ->
    Nodes = [start(How) || How <- string:lexemes(os:getenv("HOSTILE_START", "perf_node"), ",")],
    [begin
         ok = erlperf_perf_node:inject_mod(?MODULE, Node),
         log({node, Node, erpc:call(Node, os, getpid, [])})
     end || Node <- Nodes],
    {run_started, Nodes}.

start("perf_node") ->
    {ok, Node} = erlperf_perf_node:start(#{}),
    Node;
start("plain_peer") ->
    {ok, _Peer, Node} = peer:start(#{name => peer:random_name(hostile)}),
    Node;
start("stdio_peer") ->
    {ok, _Peer, Node} = peer:start(#{name => peer:random_name(hostile), host => "127.0.0.1",
                                     longnames => true, connection => standard_io}),
    Node;
start("given") ->
    Node = list_to_atom(os:getenv("HOSTILE_NODE")),
    true = erlang:set_cookie(Node, list_to_atom(os:getenv("HOSTILE_COOKIE"))),
    Node;
start("fail") ->
    erlang:error(injected);
start("hang") ->
    receive never -> ok end.

start_load(Nodes, _Size) ->
    Pids = [erpc:call(Node, erlang, spawn, [?MODULE, caller, []]) || Node <- Nodes],
    log(start_load),
    {load_started, {Nodes, Pids}}.

stop_load({Nodes, Pids}) ->
    [P ! stop || P <- Pids],
    log(stop_load),
    {load_stopped, Nodes}.

%% after stop_load/1 and setup_run/1: the nodes; after the load was cut short: the
%% nodes and the callers
teardown_run({Nodes, Pids}) ->
    [P ! stop || P <- Pids],
    teardown_run(Nodes);
teardown_run(Nodes) ->
    log({teardown_run, Nodes}),
    lists:foreach(fun erlperf_perf_node:stop/1, Nodes),
    run_ended.

test_teardown(setup) ->
    log(test_teardown),
    ok.

%% on a test node: calls work/1 until told to stop
caller() ->
    receive stop -> ok
    after 10 -> _ = work(100), caller()
    end.

work(N) ->
    lists:sum(lists:seq(1, N)).

log(What) ->
    case os:getenv("HOSTILE_LOG") of
        false -> ok;
        File -> ok = file:write_file(File, io_lib:format("~0p.~n", [What]), [append])
    end.
