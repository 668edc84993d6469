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
%%% <b>Report convention.</b> When `process_results/2' returns a map, two of its keys
%%% have a meaning:
%%% <ul>
%%%   <li>`text' (a string): a line the console summary prints for each size and
%%%       node;</li>
%%%   <li>`report': what the HTML report ({@link erlperf_html_perf}) draws on its front
%%%       page, in the agent's section:
%%% ```
%%% #{tables => [#{title => <<"Invariants">>,
%%%                columns => [<<"invariant">>, <<"violations">>],
%%%                rows => [[<<"store_up">>, 0], [<<"queue_short">>, 3]]}],
%%%   series => [#{title => <<"Violations over time">>,
%%%                x_label => <<"time (ms)">>, y_label => <<"violations so far">>,
%%%                series => [#{name => <<"queue_short">>, points => [[120, 1], [400, 3]]}]}]}
%%% '''
%%%       Tables with the same title and columns at every size are merged into one, with
%%%       the size (and the node, when a size has several) in front of each row; series
%%%       with the same title and axis labels share a chart, one line per size (and
%%%       node) and name. Cells are numbers, binaries, atoms or `null'; anything else is
%%%       shown printed. Points are `[X, Y]' lists of two numbers; others are left out.
%%%       Write text in a report as binaries or atoms: in `results.json' a report's lists
%%%       stay arrays (elsewhere in an agent's result a printable list becomes a string,
%%%       so `[100, 50]' would become `"d2"').</li>
%%% </ul>
%%% A result with neither `report' nor `text' is shown as JSON.
%%%
%%% Example: `examples/invariant_checker_agent.erl' checks invariants that the load
%%% generator defines with `get_invariants(Node, Size)', and returns a `text' and a
%%% `report'.
-module(erlperf_custom_agent).

-callback get_config(TestNode :: node(), LoadModule :: module(),
                     TestSize :: erlperf_load_generator:test_size()) -> map().
-callback process_results(TestNode :: node(), Results :: term()) -> ProcessedResults :: term().
-callback start(Config :: map()) -> {ok, pid()} | ignore | {error, term()}.
-callback get_results_and_stop() -> {ok, Results :: term()}.
