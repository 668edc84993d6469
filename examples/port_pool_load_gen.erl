%%% @doc Example load generator: a pool of port programs (`cat', echoing what it reads)
%%% on a test node, under a fixed number of clients; how many programs are worth having?
%%%
%%% Run it from the repository root (each size takes `get_load_duration()', a whole test
%%% well under a minute):
%%% ```
%%% ./erlperf --perf-test examples/port_pool_load_gen.erl
%%% ERLPERF_PORT_POOL_PAYLOAD=1024 ./erlperf --perf-test examples/port_pool_load_gen.erl
%%% '''
%%%
%%% The study it repeats (an echo pool of external programs): throughput grew with the
%%% number of programs up to about the number of CPUs and then stayed flat, and for a
%%% given pool there was a best payload size (about 12 KB there).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>size</b>: the pool size, the number of `cat' programs, each owned by one
%%%       <b>worker</b> process of the pool (`get_test_sizes/0').</li>
%%%   <li><b>payload</b>: the bytes a client sends and waits to read back, `?PAYLOAD_BYTES'
%%%       by default. The two dimensions of the study are covered this way: the size is
%%%       the pool, and the payload is set for a whole test with the OS environment
%%%       variable `ERLPERF_PORT_POOL_PAYLOAD' (bytes, at least 8); the test name says
%%%       which payload it used, so the results of several tests can be told apart.</li>
%%%   <li><b>client</b>: one of `?CLIENTS' processes on the test node; each sends a
%%%       payload to a worker picked at random and waits for the echo, then sends the
%%%       next one. Every payload starts with the client's sequence number, so an echo
%%%       that comes back to the wrong client or damaged is counted as a
%%%       <b>mismatch</b>.</li>
%%% </ul>
%%%
%%% A run: `setup_run/1' starts a test node, puts this module there and starts the pool;
%%% `start_load/2' starts the clients there; `stop_load/1' stops them and returns the
%%% counts (`echoes', `mismatches', `errors', `bytes'); `teardown_run/1' stops the node.
%%% The trace patterns are the pool's own functions: `echo/1' (a client's request) and
%%% `handle_echo/2' (a worker's turn with its program). Call times count the time a
%%% process runs, not the time it waits in `receive': `echo/1' shows what a request costs
%%% the client, not how long it waited for a worker; the number of calls per second is
%%% the pool's throughput.
%%%
%%% Calling the callbacks by hand (as the test suite does):
%%% ```
%%% {run_started, [Node]} = port_pool_load_gen:setup_run(4),
%%% Payload = <<"not only UTF-8: ", 255, 0, 254>>,
%%% {ok, Payload} = erpc:call(Node, port_pool_load_gen, echo, [Payload]),
%%% {load_started, Run} = port_pool_load_gen:start_load([Node], 4),
%%% %% ... until port_pool_load_gen:echoes(Run) is high enough
%%% {load_stopped, #{echoes := _, mismatches := 0}} = port_pool_load_gen:stop_load(Run),
%%% run_ended = port_pool_load_gen:teardown_run(Run).
%%% '''
%%%
%%% Cost and safety: each size starts as many OS processes (`cat') as the pool size;
%%% they read from their pipe and end when it closes, which happens when their worker,
%%% the pool or the test node goes. Clients monitor the pool and stop with it; the test
%%% node halts when the controlling node goes.
-module(port_pool_load_gen).
-behaviour(erlperf_load_generator).

%% erlperf_load_generator callbacks: called by erlperf_perf_test.
-export([get_test_name/0, get_test_sizes/0, get_load_duration/0, get_trace_patterns/0,
         test_setup/0, setup_run/1, start_load/2, stop_load/1, teardown_run/1,
         test_teardown/1]).

%% Internal exports: on the test node, called over erpc by the callbacks above and by
%% the test suite; echo/1 and handle_echo/2 are the traced functions (called with the
%% module name, so that they are traced however the tracer is set).
-export([start_pool/1, echo/1, handle_echo/2, start_clients/2, stop_clients/1, counts/0]).

%% Internal export: progress of a run, from the controlling node.
-export([echoes/1]).

%% Internal exports: process entries on the test node.
-export([pool/2, worker/1, client/4]).

%% Milliseconds of load per size.
-define(LOAD_MS, 3000).
%% Clients at every size (the study used 100 on 8 cores).
-define(CLIENTS, 32).
%% Payload bytes unless ERLPERF_PORT_POOL_PAYLOAD says otherwise (13 KB, as the study).
-define(PAYLOAD_BYTES, 13312).
-define(PAYLOAD_ENV, "ERLPERF_PORT_POOL_PAYLOAD").
%% Longest wait for the pool to start, for an echo, and for the clients to stop.
-define(START_TIMEOUT_MS, 10000).
-define(ECHO_TIMEOUT_MS, 5000).
-define(STOP_TIMEOUT_MS, 10000).
%% Longest wait for an erpc call to the test node (stopping the clients included).
-define(RPC_TIMEOUT_MS, 15000).

%% The pool's registered name and its public table (workers, counters).
-define(POOL, ?MODULE).

%% Indexes in the counters of a run.
-define(ECHOES, 1).
-define(MISMATCHES, 2).
-define(ERRORS, 3).
-define(BYTES, 4).

-type counts() :: #{echoes := non_neg_integer(), mismatches := non_neg_integer(),
                    errors := non_neg_integer(), bytes := non_neg_integer()}.
-type run_info() :: #{node := node(), clients := [pid()], payload_bytes := pos_integer(),
                      echoes => non_neg_integer(), mismatches => non_neg_integer(),
                      errors => non_neg_integer(), bytes => non_neg_integer()}.

%%--------------------------------------------------------------------
%% erlperf_load_generator callbacks

-spec get_test_name() -> string().
get_test_name() ->
    lists:concat(["cat port pool, ", ?CLIENTS, " clients, ", payload_bytes(), "-byte payloads"]).

-spec get_test_sizes() -> {pool_size, [pos_integer()]}.
get_test_sizes() ->
    {pool_size, [1, 2, 4, 8]}.

-spec get_load_duration() -> pos_integer().
get_load_duration() ->
    ?LOAD_MS.

-spec get_trace_patterns() -> [erlperf_load_generator:trace_pattern()].
get_trace_patterns() ->
    [{?MODULE, echo, 1}, {?MODULE, handle_echo, 2}].

%% @doc Checks that there is a `cat' to run and that the payload setting is valid.
-spec test_setup() -> {ok, #{cat := file:filename(), payload_bytes := pos_integer()}}.
test_setup() ->
    {ok, #{cat => cat(), payload_bytes => payload_bytes()}}.

%% @doc Starts a test node with a pool of `PoolSize' programs.
-spec setup_run(erlperf_load_generator:test_size()) -> {run_started, [node()]}.
setup_run(PoolSize) ->
    {ok, Node} = erlperf_perf_node:start(#{name => peer:random_name(?MODULE)}),
    try
        ok = erlperf_perf_node:inject_mod(?MODULE, Node),
        ok = erpc:call(Node, ?MODULE, start_pool, [PoolSize], ?RPC_TIMEOUT_MS),
        {run_started, [Node]}
    catch
        Class:Reason:Stack ->
            ok = erlperf_perf_node:stop(Node),
            erlang:raise(Class, Reason, Stack)
    end.

%% @doc Starts the clients on the test node.
-spec start_load([node()], erlperf_load_generator:test_size()) -> {load_started, run_info()}.
start_load([Node], _PoolSize) ->
    Bytes = payload_bytes(),
    Pids = erpc:call(Node, ?MODULE, start_clients, [?CLIENTS, Bytes], ?RPC_TIMEOUT_MS),
    {load_started, #{node => Node, clients => Pids, payload_bytes => Bytes}}.

%% @doc Stops the clients; the run info gets the counts.
-spec stop_load(run_info() | term()) -> {load_stopped, run_info()} | {error, not_started}.
stop_load(#{node := Node, clients := Pids} = Run) ->
    Counts = erpc:call(Node, ?MODULE, stop_clients, [Pids], ?RPC_TIMEOUT_MS),
    {load_stopped, maps:merge(Run#{clients := []}, Counts)};
stop_load(_) ->
    {error, not_started}.

%% @doc Stops the test node: the pool, its programs and any client go with it.
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
%% Internal exports: the pool, on the test node

%% @doc Starts the pool (registered as this module's name) with `Size' workers, each
%% owning a `cat'; returns when all programs run.
-spec start_pool(pos_integer()) -> ok | {error, {pool, term()}}.
start_pool(Size) ->
    {Pid, MRef} = spawn_monitor(?MODULE, pool, [self(), Size]),
    receive
        {ready, Pid} ->
            erlang:demonitor(MRef, [flush]),
            ok;
        {'DOWN', MRef, process, Pid, Reason} ->
            {error, {pool, Reason}}
    after ?START_TIMEOUT_MS ->
        exit(Pid, kill),
        {error, {pool, timeout}}
    end.

%% @doc Sends `Payload' to a worker picked at random and returns its echo.
-spec echo(binary()) -> {ok, binary()} | {error, term()}.
echo(Payload) ->
    Workers = ets:lookup_element(?POOL, workers, 2),
    Worker = element(rand:uniform(tuple_size(Workers)), Workers),
    Alias = erlang:monitor(process, Worker, [{alias, reply_demonitor}]),
    Worker ! {echo, Alias, Payload},
    receive
        {Alias, Echo} -> Echo;
        {'DOWN', Alias, process, Worker, Reason} -> {error, {worker, Reason}}
    after ?ECHO_TIMEOUT_MS ->
        erlang:demonitor(Alias, [flush]),
        {error, timeout}
    end.

%% @doc A worker's turn: writes `Payload' to the program and reads as many bytes back.
-spec handle_echo(port(), binary()) -> {ok, binary()} | {error, term()}.
handle_echo(Port, Payload) ->
    true = port_command(Port, Payload),
    read_echo(Port, byte_size(Payload), []).

%% @doc Starts `Count' clients sending `Bytes'-byte payloads; they stop with the pool.
-spec start_clients(pos_integer(), pos_integer()) -> [pid()].
start_clients(Count, Bytes) ->
    Counters = ets:lookup_element(?POOL, counters, 2),
    Pool = whereis(?POOL),
    [spawn(?MODULE, client, [Pool, N, Bytes, Counters]) || N <- lists:seq(1, Count)].

%% @doc Stops the clients and returns the counts of the run.
-spec stop_clients([pid()]) -> counts().
stop_clients(Pids) ->
    Refs = [{erlang:monitor(process, Pid), Pid} || Pid <- Pids],
    _ = [Pid ! stop || Pid <- Pids],
    lists:foreach(fun wait_down/1, Refs),
    counts().

%% @doc The counts so far.
-spec counts() -> counts().
counts() ->
    C = ets:lookup_element(?POOL, counters, 2),
    #{echoes => counters:get(C, ?ECHOES), mismatches => counters:get(C, ?MISMATCHES),
      errors => counters:get(C, ?ERRORS), bytes => counters:get(C, ?BYTES)}.

%% @doc Echoes so far in a run (from the controlling node).
-spec echoes(run_info()) -> non_neg_integer().
echoes(#{node := Node}) ->
    #{echoes := N} = erpc:call(Node, ?MODULE, counts, [], ?RPC_TIMEOUT_MS),
    N.

%%--------------------------------------------------------------------
%% Internal exports: processes on the test node

%% @doc The pool: owns the table and the workers (linked: one failing takes the pool,
%% and the clients, down).
-spec pool(pid(), pos_integer()) -> no_return().
pool(Starter, Size) ->
    true = register(?POOL, self()),
    Cat = cat(),
    Workers = [spawn_link(?MODULE, worker, [Cat]) || _ <- lists:seq(1, Size)],
    ?POOL = ets:new(?POOL, [named_table, public, {read_concurrency, true}]),
    true = ets:insert(?POOL, [{workers, list_to_tuple(Workers)},
                              {counters, counters:new(4, [write_concurrency])}]),
    Starter ! {ready, self()},
    receive after infinity -> ok end.

%% @doc A worker: owns one program and echoes through it, one request at a time.
-spec worker(file:filename()) -> no_return().
worker(Cat) ->
    Port = open_port({spawn_executable, Cat}, [binary, stream, use_stdio, exit_status]),
    worker_loop(Port).

%% @doc A client: sends payloads until told to stop or until the pool goes.
-spec client(pid(), pos_integer(), pos_integer(), counters:counters_ref()) -> ok.
client(Pool, Id, Bytes, Counters) ->
    MRef = erlang:monitor(process, Pool),
    Filler = binary:copy(<<Id>>, Bytes - 8),
    client_loop(MRef, 0, Filler, Counters).

%%--------------------------------------------------------------------
%% Internal functions

cat() ->
    case os:find_executable("cat") of
        false -> erlang:error({no_executable, "cat"});
        Path -> Path
    end.

payload_bytes() ->
    case os:getenv(?PAYLOAD_ENV) of
        false -> ?PAYLOAD_BYTES;
        Text ->
            case string:to_integer(Text) of
                {N, ""} when N >= 8 -> N;
                _ -> erlang:error({invalid_env, ?PAYLOAD_ENV, Text})
            end
    end.

worker_loop(Port) ->
    receive
        {echo, Alias, Payload} ->
            Alias ! {Alias, ?MODULE:handle_echo(Port, Payload)},
            worker_loop(Port);
        {Port, {exit_status, Status}} ->
            exit({port_exited, Status})
    end.

read_echo(_Port, 0, Acc) ->
    {ok, iolist_to_binary(lists:reverse(Acc))};
read_echo(Port, Left, Acc) ->
    receive
        {Port, {data, Data}} when byte_size(Data) =< Left ->
            read_echo(Port, Left - byte_size(Data), [Data | Acc]);
        {Port, {data, Data}} ->
            {error, {extra_bytes, byte_size(Data) - Left}};
        {Port, {exit_status, Status}} ->
            exit({port_exited, Status})
    after ?ECHO_TIMEOUT_MS ->
        {error, {timeout, Left}}
    end.

client_loop(MRef, Seq, Filler, Counters) ->
    receive
        stop -> ok;
        {'DOWN', MRef, process, _, _} -> ok
    after 0 ->
        Payload = <<Seq:64, Filler/binary>>,
        _ = count(?MODULE:echo(Payload), Payload, Counters),
        client_loop(MRef, Seq + 1, Filler, Counters)
    end.

count({ok, Payload}, Payload, Counters) ->
    counters:add(Counters, ?ECHOES, 1),
    counters:add(Counters, ?BYTES, byte_size(Payload));
count({ok, _Other}, _Payload, Counters) ->
    counters:add(Counters, ?MISMATCHES, 1);
count({error, _}, _Payload, Counters) ->
    counters:add(Counters, ?ERRORS, 1).

wait_down({MRef, Pid}) ->
    receive
        {'DOWN', MRef, process, Pid, _} -> ok
    after ?STOP_TIMEOUT_MS ->
        exit(Pid, kill),
        receive {'DOWN', MRef, process, Pid, _} -> ok end
    end.
