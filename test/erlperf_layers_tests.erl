%%% @doc The layer rule, checked on the compiled modules with xref: every module of the
%%% application belongs to one layer; a module calls only modules of its own layer or of
%%% the layers it may use; no two modules call each other, directly or through others.
%%% `doc/architecture.md' describes the layers; this table is their definition.
-module(erlperf_layers_tests).

-include_lib("eunit/include/eunit.hrl").

%% Layers with their modules. The stack, lowest first: base, engine, strategy,
%% facade, model, presentation, command line; monitoring and performance testing
%% beside it.
-define(LAYERS,
        #{base => [erlperf_stat, erlperf_changepoint, erlperf_units, erlperf_json, erlperf_terminal,
                   erlperf_system],
          engine => [erlperf_codegen, erlperf_job, erlperf_job_code, erlperf_job_counters,
                     erlperf_job_measurer, erlperf_job_sup, erlperf_sampler, erlperf_cost,
                     erlperf_latency, erlperf_profile, erlperf_interference],
          strategy => [erlperf_local, erlperf_isolation, erlperf_cluster, erlperf_comparison,
                       erlperf_forks],
          facade => [erlperf, erlperf_sweep, erlperf_app, erlperf_sup, erlperf_suite],
          model => [erlperf_record, erlperf_record_check, erlperf_baseline, erlperf_series],
          presentation => [erlperf_report, erlperf_table, erlperf_csv, erlperf_markdown, erlperf_benchee,
                           erlperf_html, erlperf_svg, erlperf_html_bench, erlperf_html_perf,
                           erlperf_output, erlperf_render, erlperf_trend],
          command_line => [erlperf_cli, erlperf_perf_cli, erlperf_args, erlperf_cli_vm,
                           erlperf_signal, erlperf_cli_outcome, erlperf_suite_cli, erlperf_store,
                           erlperf_against, erlperf_rebar3],
          %% beside the stack
          monitoring => [erlperf_monitor, erlperf_file_log, erlperf_history,
                         erlperf_cluster_monitor],
          perf_testing => [erlperf_perf_test, erlperf_perf_node, erlperf_perf_load,
                           erlperf_perf_requirements, erlperf_perf_results, erlperf_agents,
                           erlperf_agent_tracer, erlperf_agent_discoverer, erlperf_agent_metrics,
                           erlperf_agent_impact, erlperf_agent_ms, erlperf_load_generator,
                           erlperf_custom_agent]}).
%% The layers each layer may call besides its own; every layer may call `base'. The
%% model is pure (base only); presentation draws from the model alone; monitoring
%% reads jobs; performance testing writes its results with the presentation layer and checks a baseline with the model; the
%% command line may call any layer.
-define(USES, #{base => [], engine => [], strategy => [engine], facade => [strategy, engine],
                model => [], presentation => [model], command_line => all,
                monitoring => [engine], perf_testing => [presentation, model]}).

%%--------------------------------------------------------------------
%% Tests

every_module_has_a_layer_test() ->
    Placed = lists:append(maps:values(?LAYERS)),
    ?assertEqual([], modules() -- Placed),
    ?assertEqual([], Placed -- modules()),
    ?assertEqual(length(Placed), length(lists:usort(Placed))).

%% The first test to read the call graph (some 0.05 s here): a timeout of its own.
no_upward_call_test_() ->
    {timeout, 60,
     ?_assertEqual([], [{From, To} || {From, To} <- edges(), not allowed(layer(From), layer(To))])}.

no_cycle_test() ->
    ?assertEqual([], cycles(edges())).

%% An isolated run's peer and a cluster's load nodes get the engine and the strategies
%% only: never the facade, reports, monitoring or the command line.
shipped_code_test_() ->
    Layers = fun (Roots) -> lists:usort([layer(M) || {M, _, _} <- erlperf_isolation:object_code(Roots)]) end,
    Names = fun (Roots) -> [M || {M, _, _} <- erlperf_isolation:object_code(Roots)] end,
    [?_assertEqual([base, engine, strategy], Layers([erlperf_local])),
     ?_assertEqual([base, engine, strategy], Layers([erlperf_cluster])),
     ?_assertEqual([], [erlperf_local, erlperf_job, erlperf_codegen, erlperf_sampler]
                       -- Names([erlperf_local]))].

%% The rebar3 provider is reached from rebar3 only: no module of the application calls it,
%% so the escript and isolated nodes never need rebar3's modules.
nothing_calls_the_rebar3_provider_test() ->
    ?assertEqual([], [From || {From, erlperf_rebar3} <- edges()]).

%% The rule itself: a planted upward call and a planted cycle are found.
rule_test_() ->
    [?_assertNot(allowed(engine, facade)),
     ?_assertNot(allowed(model, facade)),
     ?_assertNot(allowed(facade, model)),
     ?_assertNot(allowed(strategy, facade)),
     ?_assertNot(allowed(presentation, strategy)),
     ?_assertNot(allowed(monitoring, presentation)),
     ?_assertNot(allowed(base, engine)),
     ?_assert(allowed(command_line, perf_testing)),
     ?_assert(allowed(perf_testing, presentation)),
     ?_assertEqual([[a, b, c]], cycles([{a, b}, {b, c}, {c, a}, {c, d}])),
     ?_assertEqual([], cycles([{a, b}, {b, c}, {a, c}]))].

%%--------------------------------------------------------------------
%% Internal functions

modules() ->
    ok = case application:load(erlperf) of
             ok -> ok;
             {error, {already_loaded, erlperf}} -> ok
         end,
    {ok, Modules} = application:get_key(erlperf, modules),
    lists:sort(Modules).

%% Calls between the application's modules, each once.
edges() ->
    {ok, Xref} = xref:start([{xref_mode, modules}]),
    try
        ok = xref:set_default(Xref, [{warnings, false}, {verbose, false}]),
        _ = [{ok, _} = xref:add_module(Xref, code:which(M)) || M <- modules()],
        {ok, Edges} = xref:q(Xref, "(Mod) ME || AM"),
        lists:usort([{A, B} || {A, B} <- Edges, A =/= B])
    after
        xref:stop(Xref)
    end.

layer(Module) ->
    [Layer] = [L || {L, Ms} <- maps:to_list(?LAYERS), lists:member(Module, Ms)],
    Layer.

allowed(Same, Same) -> true;
allowed(_From, base) -> true;
allowed(From, To) ->
    case maps:get(From, ?USES) of
        all -> true;
        Layers -> lists:member(To, Layers)
    end.

%% The strongly connected components of more than one module, each sorted.
cycles(Edges) ->
    Graph = digraph:new(),
    try
        _ = [begin digraph:add_vertex(Graph, A), digraph:add_vertex(Graph, B),
                   digraph:add_edge(Graph, A, B) end || {A, B} <- Edges],
        lists:sort([lists:sort(C) || C <- digraph_utils:strong_components(Graph), length(C) > 1])
    after
        digraph:delete(Graph)
    end.
