%%% @doc The behaviour of a load generator: the one module a user writes to performance-test
%%% a whole system with {@link erlperf_perf_test} (`./erlperf --perf-test load_gen.erl').
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>test</b>: one call of {@link erlperf_perf_test:run/2}: `test_setup/0', a
%%%       <b>run</b> for each size of `get_test_sizes/0', then `test_teardown/1'.</li>
%%%   <li><b>size</b>: the integer a run grows the load by (clients, requests, table
%%%       entries...); its meaning is the first element of `get_test_sizes/0'.</li>
%%%   <li><b>test nodes</b>: the nodes `setup_run/1' returns, where the system under test
%%%       runs; the agents go there for the length of the run.</li>
%%%   <li><b>trace patterns</b>: `{Module, Function, Arity}' with `'_'' wildcards (not all
%%%       three): the target functions whose calls and callers are measured.</li>
%%% </ul>
%%%
%%% A run calls, in order: `setup_run(Size)', (agents start on the test nodes),
%%% `start_load(Nodes, Size)', (the load runs `get_load_duration()' milliseconds),
%%% `stop_load(RunInfo)', (results are collected, the impact benchmark runs, agents are
%%% removed), `teardown_run(RunInfo)'. `teardown_run/1' and `test_teardown/1' run also
%%% when a step before them failed; `teardown_run/1' then gets what the last step that
%%% succeeded returned (the nodes of `setup_run/1' when `start_load/2' failed).
%%%
%%% Optional callbacks: `get_requirements(Size)' (limits checked after each run, see
%%% {@link erlperf_perf_requirements}) and `get_invariants(Node, Size)' (read by the
%%% example invariant-checker agent in `examples/').
%%%
%%% Example (`examples/' has complete ones):
%%% ```
%%% -module(echo_load_gen).
%%% -behaviour(erlperf_load_generator).
%%% ...
%%% get_test_sizes() -> {clients, [1, 10, 100]}.
%%% setup_run(_Size) ->
%%%     {ok, Node} = erlperf_perf_node:start(#{name => echo_sut}),
%%%     {run_started, [Node]}.
%%% '''
-module(erlperf_load_generator).

%% API: called by erlperf_perf_test (a load generator's patterns) and erlperf_agents
%% (their `patterns' option)
-export([is_trace_pattern/1]).

-export_type([run_info/0, test_info/0, test_size/0, trace_pattern/0, requirement/0]).

-type run_info() :: term().
-type test_info() :: term().
-type test_size() :: non_neg_integer().
-type trace_pattern() :: {module() | '_', atom() | '_', arity() | '_'}.

%% A limit checked after each run (see erlperf_perf_requirements for the measured values):
%% time per call of an MFA (microseconds, compensated), memory or message queue length of
%% a discovered process (by its name: registered name or initial call, as in the results),
%% total memory of a test node (bytes; the highest sample), or a percentile (0 < P =< 100)
%% of the response time of an open load (microseconds; erlperf_perf_rate).
-type requirement() ::
        {max_time_per_call_us, mfa(), number()} |
        {max_process_memory, Name :: atom() | string(), non_neg_integer()} |
        {max_message_queue_len, Name :: atom() | string(), non_neg_integer()} |
        {max_node_memory, node() | all, non_neg_integer()} |
        {max_response_us, Percentile :: number(), number()}.

-callback get_test_name() -> string().
-callback test_setup() -> {ok, test_info()}.
-callback setup_run(Size :: test_size()) -> {run_started, [node()]}.
-callback start_load(TestNodes :: [node()], Size :: test_size()) ->
    {load_started, run_info()} | {already_started, pid()}.
-callback get_load_duration() -> pos_integer().
-callback get_test_sizes() -> {atom(), [test_size()]}.
-callback stop_load(RunInfo :: run_info()) -> {load_stopped, run_info()} | {error, not_started}.
-callback teardown_run(RunInfo :: run_info()) -> run_ended.
-callback test_teardown(TestInfo :: test_info()) -> ok.
-callback get_trace_patterns() -> [trace_pattern()].
-callback get_requirements(Size :: test_size()) -> [requirement()].

-optional_callbacks([get_requirements/1]).

%%--------------------------------------------------------------------
%% API

%% @doc Whether `Term' is a `trace_pattern()': `{Module, Function, Arity}', each an atom
%% (the arity an integer from 0 to 255, as `arity()') or the wildcard ```'_''''. Whether a
%% pattern may be used is for its user to say: `erlperf_perf_test' refuses
%% ```{'_', '_', '_'}'''' from a load generator, the agents refuse it and the patterns that
%% would trace themselves (`erlperf_agents:start/2').
-spec is_trace_pattern(term()) -> boolean().
is_trace_pattern({M, F, A}) ->
    is_atom(M) andalso is_atom(F)
        andalso (A =:= '_' orelse (is_integer(A) andalso A >= 0 andalso A =< 255));
is_trace_pattern(_) ->
    false.
