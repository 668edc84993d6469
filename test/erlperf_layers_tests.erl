%%% @doc The layer rule, checked on the compiled modules with xref: every module of the
%%% application belongs to one layer; a module calls only modules of its own layer or of
%%% the layers it may use; no two modules call each other, directly or through others.
%%% `doc/architecture.md' describes the layers; the folders of src/ define them.
-module(erlperf_layers_tests).

-include_lib("eunit/include/eunit.hrl").

%% The layers, lowest first: base, engine, strategy, facade, model, presentation,
%% command line; monitoring and performance testing beside the stack. A module's layer
%% is the folder of src/ that holds it (src/engine/erlperf_job.erl: engine).
-define(LAYER_NAMES, [base, engine, strategy, facade, model, presentation, command_line,
                      monitoring, perf_testing]).
%% The layers each layer may call besides its own; every layer may call `base'. The
%% model is pure (base only); presentation draws from the model alone; monitoring
%% reads jobs; performance testing writes its results with the presentation layer, checks a
%% baseline with the model and drives open loads with the engine's jobs and pacer; the
%% command line may call any layer.
-define(USES, #{base => [], engine => [], strategy => [engine], facade => [strategy, engine],
                model => [], presentation => [model], command_line => all,
                monitoring => [engine], perf_testing => [presentation, model, engine]}).

%%--------------------------------------------------------------------
%% Tests

%% Every module lives in a layer's folder, and every layer's folder holds a module.
every_module_has_a_layer_test() ->
    Folders = [{M, folder(M)} || M <- modules()],
    ?assertEqual([], [MF || {_, F} = MF <- Folders, not lists:member(F, ?LAYER_NAMES)]),
    ?assertEqual([], ?LAYER_NAMES -- [F || {_, F} <- Folders]).

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
    Layer = folder(Module),
    true = lists:member(Layer, ?LAYER_NAMES),
    Layer.

%% The folder of src/ that holds a module's source, as the compiler recorded it.
folder(Module) ->
    Source = proplists:get_value(source, Module:module_info(compile)),
    list_to_atom(filename:basename(filename:dirname(Source))).

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
