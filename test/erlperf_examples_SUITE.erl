%%% @doc The examples of `examples/': the load generators' callbacks driven by hand on
%%% real test nodes (as erlperf_perf_test drives them), and the invariant-checker agent
%%% on a test node and on this one.
%%%
%%% The suite compiles the examples from source, as the flow does, and keeps their
%%% object code for {@link erlperf_perf_node:inject_mod/2}. When this node is not
%%% distributed, the first test node makes it so (hidden, not listening); the suite
%%% turns distribution off again at the end.
-module(erlperf_examples_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1, end_per_testcase/2]).
-export([compile_clean/0, httpd_serves/0, port_pool_echoes/0, invariants_checked/0,
         invariant_ops/0, invariant_config/0, agent_stops_with_controller/0,
         flow_httpd/0, flow_port_pool/0, flow_invariants/0, rate_by_hand/0, flow_rate/0]).
-export([compile_clean/1, httpd_serves/1, port_pool_echoes/1, invariants_checked/1,
         invariant_ops/1, invariant_config/1, agent_stops_with_controller/1,
         flow_httpd/1, flow_port_pool/1, flow_invariants/1, rate_by_hand/1, flow_rate/1]).

%% The examples, compiled by the suite.
-define(EXAMPLES, [httpd_load_gen, port_pool_load_gen, invariants_load_gen,
                   invariant_checker_agent, rate_load_gen]).
%% The warnings the project compiles with (rebar.config), for the examples too.
-define(WARNINGS, [warn_missing_spec, warn_untyped_record, warn_export_vars,
                   warn_shadow_vars, warn_unused_import]).
%% Longest wait for progress of a load (requests, echoes, checks) or for a node or an
%% OS process to go.
-define(WAIT_MS, 20000).
%% Progress a load must show before it is stopped.
-define(MIN_REQUESTS, 100).
-define(MIN_ECHOES, 200).
-define(MIN_CHECKS, 10).

suite() ->
    [{timetrap, {seconds, 120}}].

all() ->
    [{group, by_hand}, {group, flow}].

groups() ->
    [{by_hand, [], [compile_clean, httpd_serves, port_pool_echoes, invariants_checked,
                    invariant_ops, invariant_config, agent_stops_with_controller, rate_by_hand]},
     %% the examples as a user runs them: erlperf_perf_test:run/2 on the source file
     {flow, [], [flow_httpd, flow_port_pool, flow_invariants, flow_rate]}].

init_per_suite(Config) ->
    Sources = [{M, filename:join([root(), "examples", atom_to_list(M) ++ ".erl"])}
               || M <- ?EXAMPLES],
    lists:foreach(fun load_example/1, Sources),
    [{sources, Sources}, {was_alive, erlang:is_alive()} | Config].

end_per_suite(Config) ->
    ok = erlperf_perf_node:stop_all(),
    _ = [{code:purge(M), code:delete(M)} || M <- ?EXAMPLES],
    case ?config(was_alive, Config) of
        false -> _ = net_kernel:stop(), ok;
        true -> ok
    end.

end_per_testcase(_Case, _Config) ->
    %% a failed case leaves no test node behind for the next one
    ok = erlperf_perf_node:stop_all().

%%--------------------------------------------------------------------
%% Cases

compile_clean() ->
    [{doc, "Every example compiles without a warning under the project's warning options"}].
compile_clean(Config) when is_list(Config) ->
    [?assertMatch({{ok, M, _, []}, _}, {compile:file(Src, [binary, return | ?WARNINGS]), Src})
     || {M, Src} <- ?config(sources, Config)].

httpd_serves() ->
    [{doc, "httpd_load_gen: the page is served whole, clients get requests served, "
           "the node and the document root are gone at the end"}].
httpd_serves(Config) when is_list(Config) ->
    M = httpd_load_gen,
    ?assertEqual({clients, [1, 2, 4, 8]}, M:get_test_sizes()),
    ok = patterns_exist(M:get_trace_patterns()),
    {ok, Test} = M:test_setup(),
    Root = M:doc_root(),
    {run_started, [Node]} = M:setup_run(2),
    ?assertEqual([Node], erlperf_perf_node:started()),
    %% a request by hand: 200 and the whole page
    {ok, Port} = M:httpd_port(Node),
    {ok, Sock} = M:connect(Port),
    {ok, Page} = file:read_file(filename:join([Root, "htdocs", "index.html"])),
    ?assertEqual({ok, Page}, M:get(Sock, <<"/index.html">>)),
    ?assertEqual({ok, Page}, M:get(Sock, <<"/index.html">>)),   % the connection is kept
    ok = gen_tcp:close(Sock),
    %% the load
    {load_started, Run} = M:start_load([Node], 2),
    ?assert(erlperf_test_lib:wait_for(fun () -> M:served(Run) >= ?MIN_REQUESTS end, ?WAIT_MS)),
    {load_stopped, #{served := Served, errors := Errors} = Stopped} = M:stop_load(Run),
    ?assert(Served >= ?MIN_REQUESTS, Served),
    ?assertEqual(0, Errors),
    ?assertEqual({error, not_started}, M:stop_load(not_a_run)),
    %% teardown: the node goes, then the document root
    true = erlang:monitor_node(Node, true),
    ?assertEqual(run_ended, M:teardown_run(Stopped)),
    receive {nodedown, Node} -> ok after ?WAIT_MS -> ct:fail({still_up, Node}) end,
    ?assertEqual([], erlperf_perf_node:started()),
    ?assert(filelib:is_dir(Root)),
    ?assertEqual(ok, M:test_teardown(Test)),
    ?assertNot(filelib:is_dir(Root)).

port_pool_echoes() ->
    [{doc, "port_pool_load_gen: one cat per worker, echoes come back intact (empty, "
           "large, not UTF-8), none mixed up under load, programs gone at the end"}].
port_pool_echoes(Config) when is_list(Config) ->
    M = port_pool_load_gen,
    PoolSize = 3,
    ok = patterns_exist(M:get_trace_patterns()),
    [?assertEqual(M, Mod) || {Mod, _, _} <- M:get_trace_patterns()],
    {ok, #{payload_bytes := Bytes}} = M:test_setup(),
    {run_started, [Node]} = M:setup_run(PoolSize),
    OsPids = cat_os_pids(Node),
    ?assertEqual(PoolSize, length(OsPids)),
    [?assertEqual({ok, byte_size(P), erlang:md5(P)}, echo_digest(Node, P))
     || P <- [<<>>, <<"x">>, rand:bytes(Bytes), <<255, 254, 0, 192, 128>>, rand:bytes(300000)]],
    {load_started, Run} = M:start_load([Node], PoolSize),
    ?assert(erlperf_test_lib:wait_for(fun () -> M:echoes(Run) >= ?MIN_ECHOES end, ?WAIT_MS)),
    {load_stopped, #{echoes := Echoes, mismatches := Mismatches, errors := Errors,
                     bytes := Total} = Stopped} = M:stop_load(Run),
    ?assert(Echoes >= ?MIN_ECHOES, Echoes),
    ?assertEqual({0, 0}, {Mismatches, Errors}),
    ?assertEqual(Echoes * Bytes, Total),
    true = erlang:monitor_node(Node, true),
    ?assertEqual(run_ended, M:teardown_run(Stopped)),
    receive {nodedown, Node} -> ok after ?WAIT_MS -> ct:fail({still_up, Node}) end,
    ?assertEqual([], erlperf_perf_node:started()),
    %% the programs read end-of-file when the node goes, and end
    Gone = fun () -> not lists:any(fun os_process_alive/1, OsPids) end,
    ?assert(erlperf_test_lib:wait_for(Gone, ?WAIT_MS), OsPids).

invariants_checked() ->
    [{doc, "invariant_checker_agent on a test node of invariants_load_gen: the example's "
           "invariants hold, a violated one is reported with its worst value, a crashing "
           "one is an error, and the agent survives it"}].
invariants_checked(Config) when is_list(Config) ->
    M = invariants_load_gen,
    A = invariant_checker_agent,
    Size = 4,
    ok = patterns_exist(M:get_trace_patterns()),
    {run_started, [Node]} = M:setup_run(Size),
    ok = erlperf_perf_node:inject_mod(A, Node),
    #{invariants := Invariants, interval := Interval} = Base = A:get_config(Node, M, Size),
    ?assertEqual(M:get_load_duration() div 50, Interval),
    Own = [Name || {Name, _, _, _} <- Invariants],
    ?assertEqual([sessions_within_limit, store_up, store_queue_short, node_memory_under_1gb], Own),
    Limit = 8 * Size,
    ?assertMatch([{sessions_within_limit, _, '=<', Limit} | _], Invariants),
    Extra = [{no_sessions, {ets, info, [invariants_sut, size]}, '<', 1},   % violated
             {broken, {M, no_such_function, []}, '==', 0}],                 % crashes
    {ok, Agent} = erpc:call(Node, A, start, [Base#{invariants := Invariants ++ Extra,
                                                   interval := 20}]),
    AgentRef = erlang:monitor(process, Agent),
    {load_started, Run} = M:start_load([Node], Size),
    Checked = fun () -> erpc:call(Node, A, checks_made, []) >= ?MIN_CHECKS end,
    ?assert(erlperf_test_lib:wait_for(Checked, ?WAIT_MS)),
    {load_stopped, #{opened := Opened} = Stopped} = M:stop_load(Run),
    ?assert(Opened > 0, Opened),
    {ok, Raw} = erpc:call(Node, A, get_results_and_stop, []),
    %% the agent stopped now, normally: the crashing invariant never took it down
    receive {'DOWN', AgentRef, process, Agent, Why} -> ?assertEqual(normal, Why)
    after ?WAIT_MS -> ct:fail(agent_still_running) end,
    #{checks := Checks, violated := Violated, failed := Failed, invariants := Results,
      text := Text} = Summary = A:process_results(Node, Raw),
    ?assert(Checks >= ?MIN_CHECKS, Checks),
    ?assertEqual({[no_sessions], [broken]}, {Violated, Failed}),
    ByName = maps:from_list([{N, R} || #{name := N} = R <- Results]),
    [?assertMatch(#{violations := 0, errors := 0, worst := null}, maps:get(N, ByName))
     || N <- Own],
    #{violations := V, worst := Worst, errors := 0} = maps:get(no_sessions, ByName),
    ?assert(V > 0 andalso V =< Checks, {V, Checks}),
    ?assert(Worst >= 1 andalso Worst =< Limit, Worst),   % the table's largest size seen
    #{errors := E, violations := 0, last_error := Last} = maps:get(broken, ByName),
    ?assertEqual(Checks, E),
    ?assertMatch({match, _}, re:run(Last, "undef")),
    ?assertMatch({match, _}, re:run(Text, "no_sessions violated")),
    %% the report: the checks, a row per invariant, the violations over time of no_sessions
    #{report := #{tables := [#{title := <<"Checks">>, rows := [[Checks | _]]},
                             #{title := <<"Invariants">>, rows := Rows}],
                  series := [#{series := [#{name := <<"no_sessions">>, points := Points}]}]}} = Summary,
    ?assertEqual([atom_to_binary(N) || #{name := N} <- Results], [hd(R) || R <- Rows]),
    ?assertEqual(lists:seq(1, V), [N || [_, N] <- Points]),
    ?assertEqual(Points, lists:sort(Points)),
    _ = iolist_to_binary(erlperf_json:encode(Summary)),   % a report can carry it
    ?assertEqual(undefined, erpc:call(Node, erlang, whereis, [A])),
    ?assertEqual(run_ended, M:teardown_run(Stopped)),
    ?assertEqual([], erlperf_perf_node:started()).

invariant_ops() ->
    [{doc, "Every comparison, held and violated, with the worst value by the operator's "
           "direction; an invariant that hangs is killed and recorded as an error"}].
invariant_ops(Config) when is_list(Config) ->
    A = invariant_checker_agent,
    Inv = fun (Name, Value, Op, Limit) -> {Name, {erlang, abs, [Value]}, Op, Limit} end,
    Invariants = [Inv(eq_held, 3, '==', 3.0), Inv(eq_violated, 4, '==', 3),
                  Inv(le_held, 3, '=<', 3), Inv(le_violated, 5, '=<', 3),
                  Inv(ge_held, 3, '>=', 3), Inv(ge_violated, 2, '>=', 3),
                  Inv(lt_held, 2, '<', 3), Inv(lt_violated, 3, '<', 3),
                  Inv(gt_held, 4, '>', 3), Inv(gt_violated, 3, '>', 3),
                  {hangs, {timer, sleep, [infinity]}, '==', ok}],
    %% values that rise at every evaluation, for the direction of the worst value
    Rising = fun (Name, Op, Limit) ->
                     {Name, {erlang, unique_integer, [[positive, monotonic]]}, Op, Limit}
             end,
    Big = 1 bsl 62,
    RisingInvariants = [Rising(eq_rising, '==', 0), Rising(le_rising, '=<', 0),
                        Rising(ge_rising, '>=', Big), Rising(lt_rising, '<', 0),
                        Rising(gt_rising, '>', Big)],
    Sleeping = fun () -> length([P || P <- processes(),
                                      process_info(P, current_function) =:= {current_function, {timer, sleep, 1}}])
               end,
    SleepingBefore = Sleeping(),
    %% every check waits check_timeout for `hangs': long enough that the others finish
    %% in it on a loaded machine
    {ok, Agent} = A:start(#{invariants => Invariants ++ RisingInvariants, interval => 10,
                            check_timeout => 1000}),
    AgentRef = erlang:monitor(process, Agent),
    ?assert(erlperf_test_lib:wait_for(fun () -> A:checks_made() >= 3 end, ?WAIT_MS)),
    {ok, Raw} = A:get_results_and_stop(),
    receive {'DOWN', AgentRef, process, Agent, normal} -> ok after ?WAIT_MS -> ct:fail(alive) end,
    #{checks := Checks, invariants := Results, violated := Violated, failed := Failed} =
        A:process_results(node(), Raw),
    ?assertEqual([eq_violated, le_violated, ge_violated, lt_violated, gt_violated,
                  eq_rising, le_rising, ge_rising, lt_rising, gt_rising], Violated),
    ?assertEqual([hangs], Failed),
    %% the largest value for =< and <, the smallest for >= and >, the first for ==: the
    %% values of the last check are above those of the first
    Worst = maps:from_list([{N, W} || #{name := N, worst := W} <- Results]),
    #{eq_rising := WEq, le_rising := WLe, ge_rising := WGe, lt_rising := WLt,
      gt_rising := WGt} = Worst,
    ?assert(WLe > WGe andalso WLt > WGt andalso WLe > WEq andalso WLt > WEq, Worst),
    Got = [{N, V, W} || #{name := N, violations := V, worst := W} <- Results,
                        N =/= hangs, not lists:keymember(N, 1, RisingInvariants)],
    ?assertEqual([{eq_held, 0, null}, {eq_violated, Checks, 4},
                  {le_held, 0, null}, {le_violated, Checks, 5},
                  {ge_held, 0, null}, {ge_violated, Checks, 2},
                  {lt_held, 0, null}, {lt_violated, Checks, 3},
                  {gt_held, 0, null}, {gt_violated, Checks, 3}], Got),
    [Hangs] = [R || #{name := hangs} = R <- Results],
    ?assertMatch(#{errors := Checks, violations := 0, last_error := <<"timeout">>}, Hangs),
    %% no evaluating process is left behind
    ?assert(Sleeping() =< SleepingBefore).

invariant_config() ->
    [{doc, "get_config/3 without get_invariants/2 gives none and the agent is not started; "
           "a bad operator or a duplicate name is refused before anything starts"}].
invariant_config(Config) when is_list(Config) ->
    A = invariant_checker_agent,
    #{invariants := [], interval := 60} = Empty = A:get_config(node(), port_pool_load_gen, 1),
    ?assertEqual(ignore, A:start(Empty)),
    ?assertEqual({ok, not_running}, A:get_results_and_stop()),
    ?assertMatch(#{checks := 0, invariants := [], violated := [], failed := []},
                 A:process_results(node(), not_running)),
    Mfa = {erlang, abs, [1]},
    ?assertException(error, {invalid_invariant, {op, wrong, '<='}},
                     A:start(#{invariants => [{wrong, Mfa, '<=', 1}], interval => 10})),
    ?assertException(error, {invalid_invariant, {duplicate_name, twice}},
                     A:start(#{invariants => [{twice, Mfa, '==', 1}, {twice, Mfa, '<', 2}],
                               interval => 10})),
    ?assertException(error, {invalid_invariant, {"name", Mfa, '==', 1}},
                     A:start(#{invariants => [{named, Mfa, '==', 1}, {"name", Mfa, '==', 1}],
                               interval => 10})),
    ?assertEqual(undefined, whereis(A)).

agent_stops_with_controller() ->
    [{doc, "The agent on a test node stops when the node it was told to watch goes"}].
agent_stops_with_controller(Config) when is_list(Config) ->
    A = invariant_checker_agent,
    {ok, Node} = erlperf_perf_node:start(#{name => peer:random_name(?FUNCTION_NAME)}),
    {ok, Watched} = erlperf_perf_node:start(#{name => peer:random_name(?FUNCTION_NAME)}),
    ok = erlperf_perf_node:inject_mod(A, Node),
    Invariants = [{memory, {erlang, memory, [total]}, '>', 0}],
    {ok, Agent} = erpc:call(Node, A, start, [#{invariants => Invariants, interval => 10,
                                               controller => Watched}]),
    MRef = erlang:monitor(process, Agent),
    ?assert(erlperf_test_lib:wait_for(fun () -> erpc:call(Node, A, checks_made, []) >= 1 end,
                                      ?WAIT_MS)),
    ok = erlperf_perf_node:stop(Watched),
    receive {'DOWN', MRef, process, Agent, Why} -> ?assertEqual(normal, Why)
    after ?WAIT_MS -> ct:fail(agent_still_running) end,
    ok = erlperf_perf_node:stop(Node),
    ?assertEqual([], erlperf_perf_node:started()).

flow_httpd() ->
    [{doc, "./erlperf --perf-test examples/httpd_load_gen.erl, through the API: every size "
           "runs, httpd's request handlers are found and their calls counted"}].
flow_httpd(Config) when is_list(Config) ->
    Runs = flow(Config, "httpd_load_gen.erl", #{}),
    ?assertEqual([1, 2, 4, 8], [S || #{<<"size">> := S} <- Runs]),
    lists:foreach(
      fun (#{<<"size">> := Clients, <<"functions">> := Functions, <<"processes">> := Processes}) ->
              Handled = [C || #{<<"mfa">> := <<"httpd_request_handler:", _/binary>>,
                                <<"calls">> := C} <- Functions],
              ?assert(lists:sum(Handled) > 0, Functions),
              %% one connection per client, one handler process per connection
              Handlers = [P || #{<<"found_by">> := <<"httpd_request_handler:", _/binary>>} = P
                                   <- Processes],
              ?assert(length(Handlers) >= Clients, {Clients, Processes})
      end, Runs).

flow_port_pool() ->
    [{doc, "./erlperf --perf-test examples/port_pool_load_gen.erl, through the API: every "
           "size runs, the pool's functions are counted, every worker is found"}].
flow_port_pool(Config) when is_list(Config) ->
    Runs = flow(Config, "port_pool_load_gen.erl", #{}),
    ?assertEqual([1, 2, 4, 8], [S || #{<<"size">> := S} <- Runs]),
    lists:foreach(
      fun (#{<<"size">> := PoolSize, <<"functions">> := Functions, <<"processes">> := Processes}) ->
              Calls = maps:from_list([{Mfa, C} || #{<<"mfa">> := Mfa, <<"calls">> := C} <- Functions]),
              #{<<"port_pool_load_gen:echo/1">> := Echo,
                <<"port_pool_load_gen:handle_echo/2">> := Handled} = Calls,
              ?assert(Echo > 0 andalso Handled > 0, Calls),
              ?assert(abs(Echo - Handled) =< 32, Calls),   % clients in flight at the stop
              Workers = [P || #{<<"found_by">> := <<"port_pool_load_gen:handle_echo/2">>} = P
                                  <- Processes],
              ?assertEqual(PoolSize, length(Workers))
      end, Runs).

flow_invariants() ->
    [{doc, "./erlperf --perf-test examples/invariants_load_gen.erl --custom-agents "
           "examples/invariant_checker_agent.erl, through the API: the agent's summary is in "
           "every run, the example's invariants held"}].
flow_invariants(Config) when is_list(Config) ->
    Agent = filename:join([root(), "examples", "invariant_checker_agent.erl"]),
    Runs = flow(Config, "invariants_load_gen.erl", #{custom_agents => [Agent]}),
    ?assertEqual([1, 4, 16], [S || #{<<"size">> := S} <- Runs]),
    lists:foreach(
      fun (#{<<"custom_agents">> := #{<<"invariant_checker_agent">> := ByNode},
             <<"nodes">> := [Node]}) ->
              #{Node := #{<<"checks">> := Checks, <<"violated">> := Violated,
                          <<"failed">> := Failed, <<"invariants">> := Invariants}} = ByNode,
              ?assert(Checks > 0, Checks),
              ?assertEqual({[], []}, {Violated, Failed}),
              ?assertEqual(4, length(Invariants))
      end, Runs).

rate_by_hand() ->
    [{doc, "rate_load_gen: an open load of 500 calls a second of the test node's counter for "
           "about a second: every call served, the figures (response and service times) in "
           "what stop_load/1 returns; the counter counted them; a bad rate is refused"}].
rate_by_hand(Config) when is_list(Config) ->
    M = rate_load_gen,
    ?assertEqual({rate, [500, 1000, 2000]}, M:get_test_sizes()),
    {run_started, [Node]} = M:setup_run(500),
    try
        {load_started, Run} = M:start_load([Node], 500),
        ?assert(erlperf_test_lib:wait_for(fun () -> served(Node) >= 400 end, ?WAIT_MS)),
        {load_stopped, #{erlperf_rate := Rate}} = M:stop_load(Run),
        #{target := 500, started := Started, completed := Completed, response := Response,
          service := Service} = Rate,
        ?assertEqual(Started, Completed),
        ?assertEqual(Completed, erlperf_histogram:count(Response)),
        ?assertEqual(Completed, erlperf_histogram:count(Service)),
        ?assertEqual(Completed, served(Node)),
        ?assertError({invalid_option, rate, 0}, erlperf_perf_rate:start("ok.", #{rate => 0}))
    after
        M:teardown_run([Node])
    end.

flow_rate() ->
    [{doc, "./erlperf --perf-test examples/rate_load_gen.erl, through the API: every run has "
           "its open load's figures (the rate asked for is the size), and the p99 requirement "
           "is evaluated against the response time measured"}].
flow_rate(Config) when is_list(Config) ->
    Dir = filename:join(?config(priv_dir, Config), "rate_load_gen"),
    Runs = flow(Config, "rate_load_gen.erl", #{}),
    ?assertEqual([500, 1000, 2000], [S || #{<<"size">> := S} <- Runs]),
    [?assertMatch(#{<<"rate">> := #{<<"target">> := Size, <<"response_us">> := #{<<"p99">> := P99}}}
                      when is_number(P99), Run)
     || #{<<"size">> := Size} = Run <- Runs],
    [Written] = filelib:wildcard(filename:join([Dir, "*", "results.json"])),
    {ok, #{<<"requirements">> := Requirements}} = erlperf_schema:read(Written, perf_test),
    ?assertEqual([500, 1000, 2000], [S || #{<<"requirement">> := <<"max_response_us">>,
                                           <<"size">> := S} <- Requirements]),
    [?assert(is_number(M)) || #{<<"requirement">> := <<"max_response_us">>, <<"measured">> := M}
                                  <- Requirements],
    %% the report: response time against the rate, a point per size for each percentile
    {ok, Page} = file:read_file(filename:join(filename:dirname(Written), "index.html")),
    ?assertNotEqual(nomatch, binary:match(Page, <<"<h2>Open load</h2>">>)),
    [Chart] = [Svg || Svg <- binary:split(Page, <<"<svg">>, [global]),
                      binary:match(Svg, <<"<title>Response time against rate">>) =/= nomatch],
    Groups = [G || G <- tl(binary:split(Chart, <<"<g class=\"series series-">>, [global])),
                   binary:match(G, <<"data-series=\"p99\"">>) =/= nomatch],
    ?assertEqual([length(Runs)], [length(binary:matches(hd(binary:split(G, <<"</g>">>)), <<"class=\"point">>))
                                  || G <- Groups]).

served(Node) ->
    Count = erpc:call(Node, sys, get_state, [rate_load_gen]),
    Count.

%%--------------------------------------------------------------------
%% Helpers

%% Runs an example with erlperf_perf_test:run/2 as the command line does, from its
%% source file; checks that every run succeeded, that the record was written and that
%% no test node is left; returns the runs of the record as read back from results.json.
flow(Config, File, Options) ->
    Dir = filename:join(?config(priv_dir, Config), filename:rootname(File)),
    Src = filename:join([root(), "examples", File]),
    {ok, #{<<"runs">> := Runs}} = erlperf_perf_test:run(Src, Options#{out_dir => Dir}),
    [?assertEqual({Size, <<"ok">>, null}, {Size, Status, Error})
     || #{<<"size">> := Size, <<"status">> := Status, <<"error">> := Error} <- Runs],
    [Written] = filelib:wildcard(filename:join([Dir, "*", "results.json"])),
    {ok, Json} = file:read_file(Written),
    {ok, #{<<"runs">> := WrittenRuns}} = erlperf_json:decode(Json),
    ?assertEqual(length(Runs), length(WrittenRuns)),
    ?assertEqual([], erlperf_perf_node:started()),
    WrittenRuns.

root() ->
    AppDir = filename:dirname(filename:dirname(code:which(?MODULE))),
    Src = filename:join(AppDir, "src"),
    case file:read_link(Src) of
        {ok, Target} -> filename:dirname(filename:absname(Target, AppDir));  % rebar3 _build
        {error, _} -> AppDir
    end.

%% Compiles an example as the flow does (in memory) and keeps its object code for
%% inject_mod/2.
load_example({Module, Src}) ->
    {ok, Module, Bin} = compile:file(Src, [binary, return_errors, debug_info]),
    {module, Module} = code:load_binary(Module, Src, Bin),
    ok = erlperf_perf_node:remember_object_code(Module, Src, Bin).

%% Every pattern names a module (no '_') that exists, and a function it exports when it
%% names one.
patterns_exist(Patterns) ->
    ?assertNotEqual([], Patterns),
    lists:foreach(fun pattern_exists/1, Patterns).

pattern_exists({M, F, A}) ->
    ?assertNotEqual('_', M),
    ?assertMatch({module, M}, code:ensure_loaded(M)),
    case {F, A} of
        {'_', _} -> ok;
        {_, '_'} -> ?assert(lists:keymember(F, 1, M:module_info(exports)), {M, F});
        _ -> ?assert(erlang:function_exported(M, F, A), {M, F, A})
    end.

%% The size and digest of an echo (a mismatch of 300 KB payloads is unreadable).
echo_digest(Node, Payload) ->
    case erpc:call(Node, port_pool_load_gen, echo, [Payload]) of
        {ok, Echo} -> {ok, byte_size(Echo), erlang:md5(Echo)};
        Error -> Error
    end.

%% OS pids of the cat programs on Node.
cat_os_pids(Node) ->
    Ports = erpc:call(Node, erlang, ports, []),
    Info = [erpc:call(Node, erlang, port_info, [P]) || P <- Ports],
    [proplists:get_value(os_pid, I) || I <- Info, I =/= undefined,
                                       lists:suffix("cat", proplists:get_value(name, I))].

os_process_alive(OsPid) ->
    case file:read_file_info("/proc/" ++ integer_to_list(OsPid)) of
        {ok, _} -> not zombie(OsPid);
        {error, _} -> false
    end.

%% A program that ended but was not reaped yet (its parent is gone) counts as ended.
zombie(OsPid) ->
    case file:read_file("/proc/" ++ integer_to_list(OsPid) ++ "/stat") of
        {ok, Stat} -> match =:= re:run(Stat, "\\) Z ", [{capture, none}]);
        {error, _} -> true
    end.
