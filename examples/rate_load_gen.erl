%%% @doc An example load generator at a fixed rate: the system under test is a counter
%%% server (a gen_server) on a test node; the load is calls of it from this node, started
%%% at each size's rate whether or not earlier calls returned (`erlperf_perf_rate'), so
%%% that each run's record holds the response times users would see at that rate, and a
%%% requirement holds their p99 to 2 s (room for a machine shared with other work: the
%%% p99 was 8 to 22 ms on a quiet 2-core machine, up to 554 ms beside two other test runs).
%%%
%%% Run it: `./erlperf --perf-test examples/rate_load_gen.erl'.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>size</b>: calls a second of `bump/0' (a `gen_server:call/2' of the counter).</li>
%%%   <li><b>counter</b>: the gen_server `rate_load_gen' registered on the test node,
%%%       counting the calls it served.</li>
%%% </ul>
%%%
%%% Example (what a run does, by hand):
%%% ```
%%% {run_started, [Node]} = rate_load_gen:setup_run(1000),
%%% {load_started, Load} = rate_load_gen:start_load([Node], 1000),
%%% {load_stopped, #{erlperf_rate := #{response := Response}}} = rate_load_gen:stop_load(Load),
%%% run_ended = rate_load_gen:teardown_run([Node]).
%%% '''
-module(rate_load_gen).
-behaviour(erlperf_load_generator).
-behaviour(gen_server).

%% erlperf_load_generator callbacks: called by erlperf_perf_test.
-export([get_test_name/0, get_test_sizes/0, get_load_duration/0, get_trace_patterns/0,
         test_setup/0, setup_run/1, start_load/2, stop_load/1, teardown_run/1,
         test_teardown/1, get_requirements/1]).

%% gen_server callbacks: the counter, on the test node.
-export([init/1, handle_call/3, handle_cast/2]).

%% Internal exports: on the test node, called over erpc (start/0) and traced (served/1).
-export([start/0, served/1]).

%% Milliseconds of load per rate.
-define(LOAD_MS, 2000).
%% The p99 response time required at every rate, microseconds.
-define(P99_US, 2000000).
%% Longest wait for an erpc call to the test node, and for the counter to answer.
-define(RPC_TIMEOUT_MS, 15000).
-define(CALL_TIMEOUT_MS, 5000).

-type run_info() :: #{load := erlperf_perf_rate:load(), node := node()} | [node()].

%%--------------------------------------------------------------------
%% erlperf_load_generator callbacks

-spec get_test_name() -> string().
get_test_name() ->
    "counter server at a rate".

-spec get_test_sizes() -> {rate, [pos_integer()]}.
get_test_sizes() ->
    {rate, [500, 1000, 2000]}.

-spec get_load_duration() -> pos_integer().
get_load_duration() ->
    ?LOAD_MS.

-spec get_trace_patterns() -> [erlperf_load_generator:trace_pattern()].
get_trace_patterns() ->
    [{?MODULE, served, 1}].

-spec test_setup() -> {ok, none}.
test_setup() ->
    {ok, none}.

%% @doc Starts a test node running the counter.
-spec setup_run(erlperf_load_generator:test_size()) -> {run_started, [node()]}.
setup_run(_Rate) ->
    {ok, Node} = erlperf_perf_node:start(#{name => peer:random_name(?MODULE)}),
    try
        ok = erlperf_perf_node:inject_mod(?MODULE, Node),
        ok = erpc:call(Node, ?MODULE, start, [], ?RPC_TIMEOUT_MS),
        {run_started, [Node]}
    catch
        Class:Reason:Stack ->
            ok = erlperf_perf_node:stop(Node),
            erlang:raise(Class, Reason, Stack)
    end.

%% @doc Starts calls of the counter at `Rate' a second, from this node.
-spec start_load([node()], erlperf_load_generator:test_size()) -> {load_started, run_info()}.
start_load([Node], Rate) ->
    Call = fun () -> gen_server:call({?MODULE, Node}, bump, ?CALL_TIMEOUT_MS) end,
    {load_started, #{node => Node, load => erlperf_perf_rate:start(Call, #{rate => Rate})}}.

%% @doc Stops the calls; their figures go to the run's record (`erlperf_rate').
-spec stop_load(run_info() | term()) -> {load_stopped, map()} | {error, not_started}.
stop_load(#{load := Load, node := Node}) ->
    {load_stopped, #{node => Node, erlperf_rate => erlperf_perf_rate:stop(Load)}};
stop_load(_) ->
    {error, not_started}.

-spec teardown_run(map() | [node()]) -> run_ended.
teardown_run(#{node := Node}) ->
    teardown_run([Node]);
teardown_run(Nodes) when is_list(Nodes) ->
    lists:foreach(fun erlperf_perf_node:stop/1, Nodes),
    run_ended.

-spec test_teardown(term()) -> ok.
test_teardown(_TestInfo) ->
    ok.

%% @doc At every rate, the p99 of the response time (from when each call was due) at
%% most ?P99_US microseconds.
-spec get_requirements(erlperf_load_generator:test_size()) -> [erlperf_load_generator:requirement()].
get_requirements(_Rate) ->
    [{max_response_us, 99, ?P99_US}].

%%--------------------------------------------------------------------
%% The counter (on the test node)

%% @private
%% Starts the counter, not linked (it outlives the erpc call).
-spec start() -> ok.
start() ->
    {ok, _} = gen_server:start({local, ?MODULE}, ?MODULE, [], []),
    ok.

%% @private
-spec init([]) -> {ok, non_neg_integer()}.
init([]) ->
    {ok, 0}.

%% @private
-spec handle_call(bump, gen_server:from(), non_neg_integer()) -> {reply, ok, non_neg_integer()}.
handle_call(bump, _From, Count) ->
    {reply, ok, served(Count)}.

%% @private
-spec handle_cast(term(), non_neg_integer()) -> {noreply, non_neg_integer()}.
handle_cast(_Msg, Count) ->
    {noreply, Count}.

%% @private
%% One call served: the traced function.
-spec served(non_neg_integer()) -> non_neg_integer().
served(Count) ->
    Count + 1.
