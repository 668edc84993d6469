%%% @doc Example load generator with invariants for `invariant_checker_agent': a small
%%% session store on a test node, under clients that open and close sessions.
%%%
%%% Run it with the agent (from the repository root):
%%% ```
%%% ./erlperf --perf-test examples/invariants_load_gen.erl \
%%%     --custom-agents examples/invariant_checker_agent.erl
%%% '''
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>session store</b>: the system under test, a process registered as
%%%       `invariants_sut' that owns the table `invariants_sut' (one row per open
%%%       session) and answers `open' and `close' requests one at a time.</li>
%%%   <li><b>size</b>: the number of clients (`get_test_sizes/0'). Each keeps at most
%%%       `?SESSIONS_PER_CLIENT' sessions open: when it has that many it closes its
%%%       oldest before it opens another, and waits for each answer.</li>
%%%   <li><b>invariants</b> (`get_invariants/2'): what must hold on the node at every
%%%       check, whatever the load: the table has at most `?SESSIONS_PER_CLIENT' rows per
%%%       client; the store is up; its message queue is no longer than the number of
%%%       clients plus one (each client waits for its answer; the one more is a progress
%%%       query, `opened/1'); the node uses less than 1 GB.</li>
%%% </ul>
%%%
%%% A run: `setup_run/1' starts a test node, puts this module there and starts the
%%% store; `start_load/2' starts the clients there; `stop_load/1' stops them and returns
%%% how many sessions were opened; `teardown_run/1' stops the node.
%%%
%%% Calling the callbacks by hand:
%%% ```
%%% {run_started, [Node]} = invariants_load_gen:setup_run(4),
%%% {load_started, Run} = invariants_load_gen:start_load([Node], 4),
%%% %% ... until invariants_load_gen:opened(Run) is high enough
%%% {load_stopped, #{opened := _}} = invariants_load_gen:stop_load(Run),
%%% run_ended = invariants_load_gen:teardown_run(Run).
%%% '''
%%%
%%% Cost and safety: the store and the clients are processes of the test node; the
%%% clients monitor the store and stop with it, and the node halts when the controlling
%%% node goes.
-module(invariants_load_gen).
-behaviour(erlperf_load_generator).

%% erlperf_load_generator callbacks: called by erlperf_perf_test.
-export([get_test_name/0, get_test_sizes/0, get_load_duration/0, get_trace_patterns/0,
         test_setup/0, setup_run/1, start_load/2, stop_load/1, teardown_run/1,
         test_teardown/1]).

%% Called by invariant_checker_agent on the controlling node.
-export([get_invariants/2]).

%% Internal exports: on the test node, called over erpc by the callbacks above, by the
%% invariants and by the test suite; open_session/0 and close_session/1 are the traced
%% functions (called with the module name, so that they are traced however the tracer
%% is set).
-export([start_store/0, open_session/0, close_session/1, store_status/0, store_queue_len/0,
         start_clients/1, stop_clients/1, opened/0]).

%% Internal export: progress of a run, from the controlling node.
-export([opened/1]).

%% Internal exports: process entries on the test node.
-export([store/1, client/1]).

%% Milliseconds of load per size.
-define(LOAD_MS, 2000).
%% Sessions a client keeps open at most.
-define(SESSIONS_PER_CLIENT, 8).
%% Node memory limit of the invariants, in bytes.
-define(MEMORY_LIMIT, (1024 * 1024 * 1024)).
%% The store's registered name and its table's name.
-define(STORE, invariants_sut).
%% Longest wait for the store to start or answer, and for the clients to stop.
-define(CALL_TIMEOUT_MS, 5000).
-define(STOP_TIMEOUT_MS, 10000).
%% Longest wait for an erpc call to the test node (stopping the clients included).
-define(RPC_TIMEOUT_MS, 15000).

-type run_info() :: #{node := node(), clients := [pid()], opened => non_neg_integer()}.

%%--------------------------------------------------------------------
%% erlperf_load_generator callbacks

-spec get_test_name() -> string().
get_test_name() ->
    "session store with invariants".

-spec get_test_sizes() -> {clients, [pos_integer()]}.
get_test_sizes() ->
    {clients, [1, 4, 16]}.

-spec get_load_duration() -> pos_integer().
get_load_duration() ->
    ?LOAD_MS.

-spec get_trace_patterns() -> [erlperf_load_generator:trace_pattern()].
get_trace_patterns() ->
    [{?MODULE, open_session, 0}, {?MODULE, close_session, 1}].

-spec test_setup() -> {ok, none}.
test_setup() ->
    {ok, none}.

%% @doc Starts a test node running the session store.
-spec setup_run(erlperf_load_generator:test_size()) -> {run_started, [node()]}.
setup_run(_Clients) ->
    {ok, Node} = erlperf_perf_node:start(#{name => peer:random_name(?MODULE)}),
    try
        ok = erlperf_perf_node:inject_mod(?MODULE, Node),
        ok = erpc:call(Node, ?MODULE, start_store, [], ?RPC_TIMEOUT_MS),
        {run_started, [Node]}
    catch
        Class:Reason:Stack ->
            ok = erlperf_perf_node:stop(Node),
            erlang:raise(Class, Reason, Stack)
    end.

%% @doc Starts `Clients' clients on the test node.
-spec start_load([node()], erlperf_load_generator:test_size()) -> {load_started, run_info()}.
start_load([Node], Clients) ->
    Pids = erpc:call(Node, ?MODULE, start_clients, [Clients], ?RPC_TIMEOUT_MS),
    {load_started, #{node => Node, clients => Pids}}.

%% @doc Stops the clients; the run info gets `opened', the sessions opened in the run.
-spec stop_load(run_info() | term()) -> {load_stopped, run_info()} | {error, not_started}.
stop_load(#{node := Node, clients := Pids} = Run) ->
    Opened = erpc:call(Node, ?MODULE, stop_clients, [Pids], ?RPC_TIMEOUT_MS),
    {load_stopped, Run#{clients := [], opened => Opened}};
stop_load(_) ->
    {error, not_started}.

%% After a failed step: the nodes of setup_run/1, [] when setup_run/1 itself failed.
-spec teardown_run(run_info() | [node()]) -> run_ended.
teardown_run(#{node := Node}) ->
    teardown_run([Node]);
teardown_run(Nodes) when is_list(Nodes) ->
    lists:foreach(fun erlperf_perf_node:stop/1, Nodes),
    run_ended.

-spec test_teardown(term()) -> ok.
test_teardown(_TestInfo) ->
    ok.

%%--------------------------------------------------------------------
%% Invariants (read by invariant_checker_agent)

%% @doc What must hold on the test node at every check of a run with `Clients' clients.
-spec get_invariants(node(), erlperf_load_generator:test_size()) ->
    [{atom(), {module(), atom(), [term()]}, '==' | '=<' | '>=' | '<' | '>', term()}].
get_invariants(_Node, Clients) ->
    [{sessions_within_limit, {ets, info, [?STORE, size]}, '=<', ?SESSIONS_PER_CLIENT * Clients},
     {store_up, {?MODULE, store_status, []}, '==', up},
     {store_queue_short, {?MODULE, store_queue_len, []}, '=<', Clients + 1},
     {node_memory_under_1gb, {erlang, memory, [total]}, '<', ?MEMORY_LIMIT}].

%%--------------------------------------------------------------------
%% Internal exports: the session store, on the test node

%% @doc Starts the store (not linked to the caller); returns once it is registered.
-spec start_store() -> ok | {error, {store, term()}}.
start_store() ->
    {Pid, MRef} = spawn_monitor(?MODULE, store, [self()]),
    receive
        {ready, Pid} ->
            erlang:demonitor(MRef, [flush]),
            ok;
        {'DOWN', MRef, process, Pid, Reason} ->
            {error, {store, Reason}}
    after ?CALL_TIMEOUT_MS ->
        exit(Pid, kill),
        {error, {store, timeout}}
    end.

%% @doc Opens a session for the caller: its id.
-spec open_session() -> {ok, pos_integer()} | {error, term()}.
open_session() ->
    call(open).

%% @doc Closes a session.
-spec close_session(pos_integer()) -> ok | {error, term()}.
close_session(Id) ->
    call({close, Id}).

%% @doc `up' when the store runs, else `down'.
-spec store_status() -> up | down.
store_status() ->
    case whereis(?STORE) of
        undefined -> down;
        _ -> up
    end.

%% @doc The store's message queue length (raises when the store is down).
-spec store_queue_len() -> non_neg_integer().
store_queue_len() ->
    {message_queue_len, Len} = erlang:process_info(whereis(?STORE), message_queue_len),
    Len.

%% @doc Starts `Count' clients; they stop with the store.
-spec start_clients(pos_integer()) -> [pid()].
start_clients(Count) ->
    Store = whereis(?STORE),
    [spawn(?MODULE, client, [Store]) || _ <- lists:seq(1, Count)].

%% @doc Stops the clients; returns the sessions opened so far.
-spec stop_clients([pid()]) -> non_neg_integer().
stop_clients(Pids) ->
    Refs = [{erlang:monitor(process, Pid), Pid} || Pid <- Pids],
    _ = [Pid ! stop || Pid <- Pids],
    lists:foreach(fun wait_down/1, Refs),
    opened().

%% @doc Sessions opened so far on this node.
-spec opened() -> non_neg_integer().
opened() ->
    {ok, N} = call(opened),
    N.

%% @doc Sessions opened so far in a run (from the controlling node).
-spec opened(run_info()) -> non_neg_integer().
opened(#{node := Node}) ->
    erpc:call(Node, ?MODULE, opened, [], ?RPC_TIMEOUT_MS).

%%--------------------------------------------------------------------
%% Internal exports: processes on the test node

%% @doc The store: owns the session table, answers one request at a time.
-spec store(pid()) -> no_return().
store(Starter) ->
    true = register(?STORE, self()),
    ?STORE = ets:new(?STORE, [named_table, protected, {read_concurrency, true}]),
    Starter ! {ready, self()},
    store_loop(0).

%% @doc A client: keeps opening and closing sessions until told to stop or until the
%% store goes.
-spec client(pid()) -> ok.
client(Store) ->
    MRef = erlang:monitor(process, Store),
    client_loop(MRef, queue:new()).

%%--------------------------------------------------------------------
%% Internal functions

store_loop(Opened) ->
    receive
        {Alias, open} ->
            Id = erlang:unique_integer([positive]),
            true = ets:insert(?STORE, {Id, erlang:monotonic_time()}),
            Alias ! {Alias, {ok, Id}},
            store_loop(Opened + 1);
        {Alias, {close, Id}} ->
            true = ets:delete(?STORE, Id),
            Alias ! {Alias, ok},
            store_loop(Opened);
        {Alias, opened} ->
            Alias ! {Alias, {ok, Opened}},
            store_loop(Opened)
    end.

call(Request) ->
    case whereis(?STORE) of
        undefined ->
            {error, noproc};
        Store ->
            Alias = erlang:monitor(process, Store, [{alias, reply_demonitor}]),
            Store ! {Alias, Request},
            receive
                {Alias, Reply} -> Reply;
                {'DOWN', Alias, process, Store, Reason} -> {error, Reason}
            after ?CALL_TIMEOUT_MS ->
                erlang:demonitor(Alias, [flush]),
                {error, timeout}
            end
    end.

client_loop(MRef, Open) ->
    receive
        stop -> ok;
        {'DOWN', MRef, process, _, _} -> ok
    after 0 ->
        client_loop(MRef, client_step(Open))
    end.

client_step(Open) ->
    Room = case queue:len(Open) < ?SESSIONS_PER_CLIENT of
               true -> Open;
               false ->
                   {{value, Oldest}, Rest} = queue:out(Open),
                   ok = ?MODULE:close_session(Oldest),
                   Rest
           end,
    {ok, Id} = ?MODULE:open_session(),
    queue:in(Id, Room).

wait_down({MRef, Pid}) ->
    receive
        {'DOWN', MRef, process, Pid, _} -> ok
    after ?STOP_TIMEOUT_MS ->
        exit(Pid, kill),
        receive {'DOWN', MRef, process, Pid, _} -> ok end
    end.
