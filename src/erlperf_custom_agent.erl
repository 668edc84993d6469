%%% @doc The behaviour of a custom agent: a module of the user's, compiled and injected
%%% into every test node by {@link erlperf_perf_test} (`--custom-agents a.erl,b.erl'),
%%% started after the standard agents and stopped before them, so that it can rely on
%%% them.
%%%
%%% `get_config/3' and `process_results/2' run on the controlling node; `start/1' and
%%% `get_results_and_stop/0' run on each test node. What `process_results/2' returns goes
%%% into the results record under the run's `custom_agents', keyed by the agent module and
%%% the node; it must be a term that `erlperf_json' can encode (maps, lists, numbers,
%%% atoms, binaries) to appear in `results.json', and is kept whole in `results.term'.
%%%
%%% Example: `examples/invariant_checker_agent.erl' checks invariants that the load
%%% generator defines with `get_invariants(Node, Size)'.
-module(erlperf_custom_agent).

-callback get_config(TestNode :: node(), LoadModule :: module(),
                     TestSize :: erlperf_load_generator:test_size()) -> map().
-callback process_results(TestNode :: node(), Results :: term()) -> ProcessedResults :: term().
-callback start(Config :: map()) -> {ok, pid()} | ignore | {error, term()}.
-callback get_results_and_stop() -> {ok, Results :: term()}.
