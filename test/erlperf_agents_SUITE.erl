%%% @doc The tracing agents (erlperf_agents and erlperf_agent_*) on real peer nodes: exact
%%% counts and discovered processes of a deterministic system, a module reloaded mid-run,
%%% a system that traces, metrics, the impact benchmark, and that nothing is left on the
%%% test node after remove/1, when the flow process dies, or when the controlling node
%%% goes.
%%%
%%% The system under test is the module `agents_sut' (its source is below), compiled
%%% here and loaded on each test node.
-module(erlperf_agents_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).
-export([exact_counts/0, tree/0, dormant/0, churn/0, reload/0, sut_traces/0, metrics/0, impact/0,
         nothing_left/0, flow_gone/0, controller_gone/0, refused/0]).
-export([exact_counts/1, tree/1, dormant/1, churn/1, reload/1, sut_traces/1, metrics/1, impact/1,
         nothing_left/1, flow_gone/1, controller_gone/1, refused/1]).

%% Internal export: a flow process on another controlling node (controller_gone).
-export([remote_flow/3]).

%% Milliseconds to wait for a message from a test node.
-define(MSG_TIMEOUT_MS, 15000).
%% Milliseconds an orphaned test node may take to clean itself.
-define(CLEAN_TIMEOUT_MS, 15000).
%% The metrics interval of the metrics case, and the samples it waits for.
-define(FAST_INTERVAL_MS, 50).
-define(MIN_SAMPLES, 4).
%% The trace pattern of every case.
-define(TARGET, {agents_sut, f, 1}).

%% The system under test. Callers call f/1 exactly N times when told, report, and wait
%% in receive; version/0 tells which code is loaded.
-define(SUT_SOURCE(Version), "
-module(agents_sut).
-export([f/1, version/0, start_caller/2, start_named/3, caller/1, wait/1, idle/0,
         start_tracing_sut/1, tracing_sut/1, echo/0, start_brief/2, brief/1]).
f(X) -> X.
version() -> " ++ integer_to_list(Version) ++ ".
start_caller(Parent, N) -> spawn(agents_sut, caller, [{Parent, N}]).
start_named(Name, Parent, N) ->
    spawn(fun () -> true = register(Name, self()), caller({Parent, N}) end).
caller({Parent, N}) -> loop(N), Parent ! {done, self(), agents_sut:version()}, agents_sut:wait(Parent).
start_brief(Parent, N) -> spawn(agents_sut, brief, [{Parent, N}]).
brief({Parent, N}) -> loop(N), Parent ! {done, self(), agents_sut:version()}.
wait(Parent) ->
    receive
        {more, N} -> loop(N), Parent ! {done, self(), agents_sut:version()}, agents_sut:wait(Parent);
        stop -> ok
    end.
loop(0) -> ok;
loop(N) -> _ = agents_sut:f(N), loop(N - 1).
idle() -> receive stop -> ok end.
start_tracing_sut(Parent) -> spawn(agents_sut, tracing_sut, [Parent]).
tracing_sut(Parent) ->
    receive
        {trace_it, Pid} ->
            R = erlang:trace(Pid, true, [send]),
            Parent ! {traced, R},
            receive
                {trace, Pid, send, Msg, _To} -> Parent ! {got_trace, Pid, Msg}
            end,
            tracing_sut(Parent)
    end.
echo() ->
    receive
        {send, To, Msg} -> To ! Msg, _ = agents_sut:f(Msg), echo();
        stop -> ok
    end.
").

suite() ->
    [{timetrap, {seconds, 120}}].

all() ->
    [{group, agents}].

groups() ->
    [{agents, [parallel], [exact_counts, tree, dormant, churn, reload, sut_traces, metrics, impact,
                           nothing_left, flow_gone, controller_gone, refused]}].

init_per_suite(Config) ->
    case erlang:is_alive() of
        true ->
            Config;
        false ->
            ok = erlperf_perf_node:ensure_distributed(),
            [{stop_distribution, true} | Config]
    end.

end_per_suite(Config) ->
    case ?config(stop_distribution, Config) of
        true -> _ = net_kernel:stop(), ok;
        _ -> ok
    end.

%%--------------------------------------------------------------------
%% Cases

exact_counts() ->
    [{doc, "3 callers calling sut:f/1 7, 100 and 2000 times, one process that never calls: "
      "exact calls in total and per process, exactly the callers discovered, named by "
      "registered name or initial call"}].
exact_counts(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    try
        %% never dormant: a caller whose first call comes after the default quiet time
        %% (a loaded machine) would be found by the next sweep only, after collect
        ok = erlperf_agents:start(Node, #{patterns => [?TARGET], quiet => infinity}),
        Idle = erpc:call(Node, erlang, spawn, [agents_sut, idle, []]),
        Named = erpc:call(Node, agents_sut, start_named, [sut_named, self(), 7]),
        Plain = [erpc:call(Node, agents_sut, start_caller, [self(), N]) || N <- [100, 2000]],
        Callers = [Named | Plain],
        _ = [done(P) || P <- Callers],
        {ok, #{functions := Functions, processes := Processes, active_max := ActiveMax,
               conflicts := Conflicts}} = erlperf_agents:collect(Node),
        ?assertMatch([#{mfa := ?TARGET, calls := 2107}], Functions),
        [#{per_process := PerProcess, time_us := TimeUs}] = Functions,
        ?assertEqual(lists:sort(lists:zip(Callers, [7, 100, 2000])),
                     [{P, C} || #{pid := P, calls := C} <- PerProcess]),
        ?assert(is_integer(TimeUs) andalso TimeUs >= 0),
        ?assertEqual(lists:sort(Callers), [P || #{pid := P} <- Processes]),
        ?assertNot(lists:member(Idle, [P || #{pid := P} <- Processes])),
        Names = maps:from_list([{P, N} || #{pid := P, name := N} <- Processes]),
        ?assertEqual(sut_named, maps:get(Named, Names)),
        [?assertEqual({agents_sut, caller, 1}, maps:get(P, Names)) || P <- Plain],
        [?assertEqual(?TARGET, F) || #{found_by := F} <- Processes],
        [?assertEqual(false, E) || #{exited := E} <- Processes],
        ?assertEqual(3, ActiveMax),
        ?assertEqual([], Conflicts)
    after
        stop_sut(Node)
    end.

tree() ->
    [{doc, "a burst of callers that exit at once, then callers that stay: all are "
      "discovered, the brief ones marked exited; the ones that stay end up in the known "
      "tree of the discovery pattern (rebuilds are put off, never lost)"}].
tree(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    try
        ok = erlperf_agents:start(Node, #{patterns => [?TARGET], quiet => infinity}),
        Brief = [erpc:call(Node, erlang, spawn, [agents_sut, f, [I]]) || I <- lists:seq(1, 20)],
        Stay = [erpc:call(Node, agents_sut, start_caller, [self(), 3]) || _ <- lists:seq(1, 5)],
        _ = [done(P) || P <- Stay],
        InTree = fun () ->
                         {all, Info} = erpc:call(Node, erlang, trace_info, [?TARGET, all]),
                         {meta_match_spec, Spec} = lists:keyfind(meta_match_spec, 1, Info),
                         Text = lists:flatten(io_lib:format("~w", [Spec])),
                         lists:all(fun (P) -> string:find(Text, pid_to_list(P)) =/= nomatch end,
                                   Stay)
                 end,
        ?assert(erlperf_test_lib:wait_for(InTree, ?MSG_TIMEOUT_MS)),
        {ok, #{processes := Processes}} = erlperf_agents:collect(Node),
        Found = maps:from_list([{P, E} || #{pid := P, exited := E} <- Processes]),
        ?assertEqual(lists:sort(Brief ++ Stay), lists:sort(maps:keys(Found))),
        [?assert(is_integer(maps:get(P, Found))) || P <- Brief],
        [?assertEqual(false, maps:get(P, Found)) || P <- Stay]
    after
        stop_sut(Node)
    end.

dormant() ->
    [{doc, "the discoverer goes dormant after `quiet' ms without a new process (its "
      "patterns removed, only from the targets); a process that calls a target and exits "
      "while it is dormant is found by the tracer's sweep, named and marked exited, and "
      "the discoverer stays dormant; one that a sweep finds alive makes it discover "
      "again; calls made while discovering are counted apart exactly"}].
dormant(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    Wait = {agents_sut, wait, 1},
    try
        %% quiet for 3 s: the caller's first 10 calls come while it discovers, five
        %% calls to the node after it started (more than a second on a loaded machine)
        ok = erlperf_agents:start(Node, #{patterns => [?TARGET, Wait], interval => 100,
                                          quiet => 3000}),
        Discoverer = erpc:call(Node, erlang, whereis, [erlperf_agent_discoverer]),
        ?assertEqual(discovering, phase(Node)),
        ?assertEqual({meta, Discoverer}, meta(Node, ?TARGET)),
        ?assertEqual({meta, Discoverer}, meta(Node, Wait)),
        ?assertEqual({meta, false},
                     meta(Node, {agents_sut, version, 0})),
        Caller = erpc:call(Node, agents_sut, start_caller, [self(), 10]),
        1 = done(Caller),
        ?assert(erlperf_test_lib:wait_for(fun () -> phase(Node) =:= dormant end, ?MSG_TIMEOUT_MS)),
        [?assertEqual({meta, false}, meta(Node, MFA))
         || MFA <- [?TARGET, Wait]],
        Caller ! {more, 20},
        1 = done(Caller),
        %% calls the target once and exits at once: only a sweep can find it, and it
        %% does not wake the discoverer (two sweeps after it, still dormant); no sweep
        %% may come while it lives
        [Brief] = between_sweeps(Node, fun () -> [erpc:call(Node, erlang, spawn, [agents_sut, f, [1]])] end),
        ok = sweeps(Node, 2),
        ?assertEqual(dormant, phase(Node)),
        %% a caller a sweep finds alive does
        Late = erpc:call(Node, agents_sut, start_caller, [self(), 1]),
        1 = done(Late),
        ?assert(erlperf_test_lib:wait_for(fun () -> phase(Node) =:= discovering end,
                                          ?MSG_TIMEOUT_MS)),
        ?assertEqual({meta, Discoverer}, meta(Node, ?TARGET)),
        {ok, #{functions := Functions, processes := Processes, discovery := Phases}} =
            erlperf_agents:collect(Node),
        [#{calls := 32, calls_discovering := 10, per_process := PerProcess}] =
            [F || #{mfa := ?TARGET} = F <- Functions],
        ?assertMatch(#{Caller := #{calls := 30, calls_discovering := 10},
                       Brief := #{calls := 1, calls_discovering := 0},
                       Late := #{calls := 1, calls_discovering := 0}},
                     maps:from_list([{P, E} || #{pid := P} = E <- PerProcess])),
        ?assertEqual(3, length(PerProcess)),
        ?assertMatch(#{Caller := #{name := {agents_sut, caller, 1}, exited := false},
                       Brief := #{name := {agents_sut, f, 1}, found_by := ?TARGET,
                                  exited := T},
                       Late := #{name := {agents_sut, caller, 1}, exited := false}} when is_integer(T),
                     maps:from_list([{P, E} || #{pid := P} = E <- Processes])),
        ?assertEqual(3, length(Processes)),
        %% two discovering phases, in order, the second still on at collect
        ?assertMatch([[A, B], [C, D]] when A =< B andalso B =< C andalso C =< D, Phases)
    after
        stop_sut(Node)
    end.

churn() ->
    [{doc, "processes that each call the target a few times and exit (a handler per "
      "request): the discoverer goes dormant after ten in a row, long before `quiet'; "
      "those after are found by sweeps and do not wake it: every one is found, named by "
      "its initial call when found alive, by the target otherwise, and marked exited"}].
churn(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    try
        ok = erlperf_agents:start(Node, #{patterns => [?TARGET], interval => 100, quiet => 600000}),
        ?assertEqual(discovering, phase(Node)),
        %% ten in a row (more if the host held one up for ?BRIEF_MS)
        First = until_dormant(Node, []),
        ?assert(length(First) >= 10, First),
        %% no sweep comes while one of these lives
        Later = between_sweeps(Node, fun () -> [brief(Node) || _ <- lists:seq(1, 20)] end),
        ok = sweeps(Node, 2),
        ?assertEqual(dormant, phase(Node)),
        {ok, #{functions := [#{calls := Calls}], processes := Processes, discovery := Phases}} =
            erlperf_agents:collect(Node),
        ?assertEqual(5 * (length(First) + length(Later)), Calls),
        Found = maps:from_list([{P, E} || #{pid := P} = E <- Processes]),
        ?assertEqual(lists:sort(First ++ Later), lists:sort(maps:keys(Found))),
        [?assertMatch(#{exited := T} when is_integer(T), maps:get(P, Found)) || P <- First ++ Later],
        Names = [N || P <- First ++ Later, #{name := N} <- [maps:get(P, Found)]],
        ?assertEqual([], [N || N <- Names, N =/= {agents_sut, brief, 1}, N =/= ?TARGET]),
        ?assertMatch([[_, _]], Phases)
    after
        stop_sut(Node)
    end.

until_dormant(Node, Briefs) when length(Briefs) < 200 ->
    Pid = brief(Node),
    case phase(Node) of
        dormant -> lists:reverse([Pid | Briefs]);
        discovering -> until_dormant(Node, [Pid | Briefs])
    end;
until_dormant(_Node, Briefs) ->
    ct:fail({still_discovering_after, length(Briefs)}).

%% Runs Fun with the tracer agent on Node suspended: no snapshot, and so no sweep, while
%% it runs (the one due comes after).
between_sweeps(Node, Fun) ->
    ok = erpc:call(Node, sys, suspend, [erlperf_agent_tracer]),
    try Fun()
    after
        ok = erpc:call(Node, sys, resume, [erlperf_agent_tracer])
    end.

%% A process on Node that calls the target 5 times and exits; returns once it has.
brief(Node) ->
    Pid = erpc:call(Node, agents_sut, start_brief, [self(), 5]),
    Ref = monitor(process, Pid),
    1 = done(Pid),
    receive {'DOWN', Ref, process, Pid, _} -> Pid
    after ?MSG_TIMEOUT_MS -> ct:fail({not_exited, Pid})
    end.

%% Waits until the tracer agent on Node has taken N more snapshots (each followed by
%% a sweep).
sweeps(Node, N) ->
    Before = erpc:call(Node, erlperf_agent_tracer, snapshots, []),
    true = erlperf_test_lib:wait_for(
             fun () -> erpc:call(Node, erlperf_agent_tracer, snapshots, []) >= Before + N end,
             ?MSG_TIMEOUT_MS),
    ok.

reload() ->
    [{doc, "sut is loaded again while its caller waits in receive: the calls before and "
      "after the reload are both counted, the new code is traced"}].
reload(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    try
        ok = erlperf_agents:start(Node, #{patterns => [?TARGET], interval => ?FAST_INTERVAL_MS}),
        Caller = erpc:call(Node, agents_sut, start_caller, [self(), 300]),
        1 = done(Caller),
        %% a whole snapshot period passes while the caller waits (the agent keeps the
        %% counts of the last snapshot: see erlperf_agent_tracer, "Residual race")
        Before = erpc:call(Node, erlperf_agent_tracer, snapshots, []),
        Snapshot = fun () -> erpc:call(Node, erlperf_agent_tracer, snapshots, []) >= Before + 2 end,
        ?assert(erlperf_test_lib:wait_for(Snapshot, ?MSG_TIMEOUT_MS)),
        ok = load_sut(Node, 2),
        %% a call to the tracer after the load: the load's hook messages are handled
        _ = erpc:call(Node, erlperf_agent_tracer, armed, []),
        Caller ! {more, 45},
        ?assertEqual(2, done(Caller)),
        {ok, #{functions := Functions, reloads := Reloads}} = erlperf_agents:collect(Node),
        ?assertMatch([#{mfa := ?TARGET, calls := 345,
                        per_process := [#{pid := Caller, calls := 345}]}], Functions),
        ?assertMatch([#{module := agents_sut, t_ms := _}], Reloads)
    after
        stop_sut(Node)
    end.

sut_traces() ->
    [{doc, "a process of the system traces another one (send) mid-run: its erlang:trace "
      "call succeeds, it gets its trace messages, and a conflict is reported"}].
sut_traces(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    try
        ok = erlperf_agents:start(Node, #{patterns => [?TARGET]}),
        Echo = erpc:call(Node, erlang, spawn, [agents_sut, echo, []]),
        Tracer = erpc:call(Node, agents_sut, start_tracing_sut, [self()]),
        Tracer ! {trace_it, Echo},
        ?assertEqual({traced, 1}, receive {traced, _} = T -> T after ?MSG_TIMEOUT_MS -> timeout end),
        ?assertEqual({tracer, Tracer}, erpc:call(Node, erlang, trace_info, [Echo, tracer])),
        Echo ! {send, self(), hello},
        ?assertEqual(hello, receive hello -> hello after ?MSG_TIMEOUT_MS -> timeout end),
        ?assertEqual({got_trace, Echo, hello},
                     receive {got_trace, _, _} = G -> G after ?MSG_TIMEOUT_MS -> timeout end),
        ?assert(erpc:call(Node, erlang, is_process_alive, [Tracer])),
        ?assert(erpc:call(Node, erlang, is_process_alive, [Echo])),
        {ok, #{conflicts := Conflicts}} = erlperf_agents:collect(Node),
        ?assertMatch([#{kind := trace, caller := Tracer, detail := <<"erlang:trace(", _/binary>>}],
                     Conflicts),
        ok = erlperf_agents:remove(Node),
        %% the system's own tracing is left as it was
        ?assertEqual({tracer, Tracer}, erpc:call(Node, erlang, trace_info, [Echo, tracer]))
    after
        stop_sut(Node)
    end.

metrics() ->
    [{doc, "samples of the callers and of the node have increasing times; a caller that "
      "exited has `exited' set, the others do not"}].
metrics(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    try
        ok = erlperf_agents:start(Node, #{patterns => [?TARGET], interval => ?FAST_INTERVAL_MS}),
        [Stays, Goes] = [erpc:call(Node, agents_sut, start_caller, [self(), 10]) || _ <- [1, 2]],
        _ = [done(P) || P <- [Stays, Goes]],
        Ref = monitor(process, Goes),
        Goes ! stop,
        receive {'DOWN', Ref, process, Goes, _} -> ok end,
        %% samples taken from now on: both callers are known (discovered by their calls)
        Samples = fun () -> erpc:call(Node, erlperf_agent_metrics, samples, []) end,
        Base = Samples(),
        Enough = fun () -> Samples() >= Base + ?MIN_SAMPLES end,
        ?assert(erlperf_test_lib:wait_for(Enough, ?MSG_TIMEOUT_MS)),
        {ok, #{processes := Processes, node_metrics := NodeMetrics}} = erlperf_agents:collect(Node),
        #{memory_total := Memory, process_count := Count, scheduler_utilisation := Util} = NodeMetrics,
        [?assert(length(S) >= ?MIN_SAMPLES, S) || S <- [Memory, Count]],
        ?assert(length(Util) >= ?MIN_SAMPLES - 1, Util),
        [increasing(S) || S <- [Memory, Count, Util]],
        [?assert(U >= 0.0 andalso U =< 1.0) || [_, U] <- Util],
        [?assert(B > 0) || [_, B] <- Memory],
        #{Stays := StaysInfo, Goes := GoesInfo} =
            maps:from_list([{P, I} || #{pid := P} = I <- Processes]),
        ?assertMatch(#{exited := false}, StaysInfo),
        ?assertMatch(#{exited := T} when is_integer(T), GoesInfo),
        #{memory := M, reductions := R, message_queue_len := Q} = StaysInfo,
        ?assert(length(M) >= ?MIN_SAMPLES - 1, M),
        [increasing(S) || S <- [M, R, Q]],
        ?assertEqual(length(M), length(R))
    after
        stop_sut(Node)
    end.

impact() ->
    [{doc, "the impact benchmark returns two floats >= 0 and leaves no pattern or flag"}].
impact(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    try
        ok = erlperf_agents:start(Node, #{patterns => [?TARGET]}),
        {ok, _} = erlperf_agents:collect(Node),
        {ok, #{counting := Counting, discovering := Discovering}} = erlperf_agents:impact(Node, 50),
        [?assert(is_float(Us) andalso Us >= 0.0, Us) || Us <- [Counting, Discovering]],
        ?assertEqual({all, false},
                     erpc:call(Node, erlang, trace_info, [{erlperf_agent_impact, dummy, 1}, all])),
        ?assertEqual([], traced_processes(Node)),
        ok = erlperf_agents:remove(Node),
        assert_clean(Node)
    after
        stop_sut(Node)
    end.

nothing_left() ->
    [{doc, "after remove/1 (once without collect, once after collect and impact): no "
      "pattern on the targets or the hooked BIFs, no traced process, scheduler_wall_time "
      "off again, no agent module loaded; remove/1 again is ok"}].
nothing_left(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    try
        ?assertEqual(undefined, erpc:call(Node, erlang, statistics, [scheduler_wall_time])),
        ok = erlperf_agents:start(Node, #{patterns => [?TARGET, {agents_sut, '_', '_'}]}),
        Caller = erpc:call(Node, agents_sut, start_caller, [self(), 5]),
        1 = done(Caller),
        ?assertNotEqual([], traced_processes(Node)),
        ?assertNotEqual(undefined, erpc:call(Node, erlang, statistics, [scheduler_wall_time])),
        ok = erlperf_agents:remove(Node),
        assert_clean(Node),
        ok = erlperf_agents:remove(Node),
        ok = erlperf_agents:start(Node, #{patterns => [?TARGET]}),
        Caller ! {more, 5},
        1 = done(Caller),
        {ok, #{functions := [#{calls := 5}]}} = erlperf_agents:collect(Node),
        {ok, _} = erlperf_agents:impact(Node, 3),
        ok = erlperf_agents:remove(Node),
        assert_clean(Node)
    after
        stop_sut(Node)
    end.

flow_gone() ->
    [{doc, "the process that started the agents exits: the test node cleans itself"}].
flow_gone(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    try
        Self = self(),
        {Flow, Ref} = spawn_monitor(fun () ->
                                            Self ! {started, erlperf_agents:start(Node, #{patterns => [?TARGET]})},
                                            receive stop -> ok end
                                    end),
        ?assertEqual({started, ok}, receive {started, _} = S -> S after ?MSG_TIMEOUT_MS -> timeout end),
        Caller = erpc:call(Node, agents_sut, start_caller, [self(), 5]),
        1 = done(Caller),
        ?assertNotEqual([], traced_processes(Node)),
        Flow ! stop,
        receive {'DOWN', Ref, process, Flow, _} -> ok end,
        wait_clean(Node)
    after
        stop_sut(Node)
    end.

controller_gone() ->
    [{doc, "the agents are started from another controlling node, which then stops: the "
      "test node cleans itself"}].
controller_gone(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    {ok, Controller} = erlperf_perf_node:start(#{name => peer:random_name(controller)}),
    try
        ok = erlperf_perf_node:inject_mod(?MODULE, Controller),
        _ = erpc:call(Controller, erlang, spawn, [?MODULE, remote_flow, [Node, ?TARGET, self()]]),
        ?assertEqual({started, ok}, receive {started, _} = S -> S after ?MSG_TIMEOUT_MS -> timeout end),
        Caller = erpc:call(Node, agents_sut, start_caller, [self(), 5]),
        1 = done(Caller),
        ?assertNotEqual([], traced_processes(Node)),
        ok = erlperf_perf_node:stop(Controller),
        wait_clean(Node)
    after
        erlperf_perf_node:stop(Controller),
        stop_sut(Node)
    end.

refused() ->
    [{doc, "patterns matching everything, naming the agents or the hooked BIFs are refused "
      "before anything is put on the node; invalid options raise"}].
refused(Config) when is_list(Config) ->
    Node = start_sut(?FUNCTION_NAME, 1),
    try
        ?assertEqual({error, {refused_pattern, {'_', '_', '_'}, everything}},
                     erlperf_agents:start(Node, #{patterns => [?TARGET, {'_', '_', '_'}]})),
        ?assertEqual({error, {refused_pattern, {erlperf_agent_tracer, '_', '_'}, agent_module}},
                     erlperf_agents:start(Node, #{patterns => [{erlperf_agent_tracer, '_', '_'}]})),
        ?assertEqual({error, {refused_pattern, {erlang, trace, '_'}, tracing_bif}},
                     erlperf_agents:start(Node, #{patterns => [{erlang, trace, '_'}]})),
        [?assertMatch("trace pattern " ++ _, erlperf_agents:format_error(
                                                {refused_pattern, {'_', '_', '_'}, W}))
         || W <- [everything, agent_module, tracing_bif]],
        ?assertException(error, {invalid_option, interval, 0},
                         erlperf_agents:start(Node, #{patterns => [?TARGET], interval => 0})),
        ?assertException(error, {invalid_option, patterns, []},
                         erlperf_agents:start(Node, #{patterns => []})),
        ?assertException(error, {invalid_option, colour, red},
                         erlperf_agents:start(Node, #{patterns => [?TARGET], colour => red})),
        ?assertEqual([], agent_modules(Node)),
        ok = erlperf_agents:start(Node, #{patterns => [?TARGET]}),
        ?assertMatch({error, {agents, Node, {already_running, erlperf_agent_tracer}}},
                     erlperf_agents:start(Node, #{patterns => [?TARGET]}))
    after
        stop_sut(Node)
    end.

%%--------------------------------------------------------------------
%% Helpers

%% Runs on another controlling node: starts the agents and waits to be killed.
remote_flow(Node, Target, ReplyTo) ->
    ReplyTo ! {started, erlperf_agents:start(Node, #{patterns => [Target]})},
    receive stop -> ok end.

start_sut(Case, Version) ->
    {ok, Node} = erlperf_perf_node:start(#{name => peer:random_name(Case)}),
    ok = load_sut(Node, Version),
    Node.

stop_sut(Node) ->
    ok = erlperf_agents:remove(Node),
    erlperf_perf_node:stop(Node).

load_sut(Node, Version) ->
    {ok, Tokens, _} = erl_scan:string(?SUT_SOURCE(Version)),
    Forms = split_forms(Tokens, [], []),
    {ok, agents_sut, Binary} = compile:forms(Forms, [binary]),
    {module, agents_sut} = erpc:call(Node, code, load_binary, [agents_sut, "agents_sut.erl", Binary]),
    ok.

split_forms([], [], Acc) ->
    lists:reverse(Acc);
split_forms([{dot, _} = Dot | Rest], Form, Acc) ->
    {ok, Parsed} = erl_parse:parse_form(lists:reverse([Dot | Form])),
    split_forms(Rest, [], [Parsed | Acc]);
split_forms([T | Rest], Form, Acc) ->
    split_forms(Rest, [T | Form], Acc).

%% Waits for a caller's report; returns the version of the code it ran.
done(Pid) ->
    receive {done, Pid, Version} -> Version
    after ?MSG_TIMEOUT_MS -> ct:fail({no_report, Pid})
    end.

phase(Node) ->
    erpc:call(Node, erlperf_agent_discoverer, phase, []).

%% The meta tracer of MFA on Node (trace_info(MFA, meta) says [] rather than false
%% after the meta pattern is removed while a call_time pattern stays: OTP 25).
meta(Node, MFA) ->
    case erpc:call(Node, erlang, trace_info, [MFA, all]) of
        {all, false} -> {meta, false};
        {all, Info} -> lists:keyfind(meta, 1, Info)
    end.

increasing(Samples) ->
    Times = [T || [T | _] <- Samples],
    ?assertEqual(lists:usort(Times), Times).

traced_processes(Node) ->
    [P || P <- erpc:call(Node, erlang, processes, []),
          erpc:call(Node, erlang, trace_info, [P, tracer]) =/= {tracer, []},
          erpc:call(Node, erlang, trace_info, [P, tracer]) =/= undefined].

agent_modules(Node) ->
    [M || {M, _} <- erpc:call(Node, code, all_loaded, []),
          lists:prefix("erlperf_agent", atom_to_list(M))].

hooked() ->
    [{erlang, trace, 3}, {erlang, trace_pattern, 2}, {erlang, trace_pattern, 3},
     {erlang, prepare_loading, 2}, {erlang, finish_loading, 1}].

%% What must hold on a test node the agents left.
clean_state(Node) ->
    #{patterns => [{MFA, erpc:call(Node, erlang, trace_info, [MFA, all])}
                   || MFA <- [?TARGET, {agents_sut, caller, 1}, {agents_sut, wait, 1}] ++ hooked()],
      traced => traced_processes(Node),
      scheduler_wall_time => erpc:call(Node, erlang, statistics, [scheduler_wall_time]),
      modules => agent_modules(Node),
      registered => [A || A <- [erlperf_agent_tracer, erlperf_agent_discoverer,
                                erlperf_agent_metrics],
                          erpc:call(Node, erlang, whereis, [A]) =/= undefined]}.

expected_clean() ->
    #{patterns => [{MFA, {all, false}}
                   || MFA <- [?TARGET, {agents_sut, caller, 1}, {agents_sut, wait, 1}] ++ hooked()],
      traced => [], scheduler_wall_time => undefined, modules => [], registered => []}.

assert_clean(Node) ->
    ?assertEqual(expected_clean(), clean_state(Node)).

wait_clean(Node) ->
    Clean = expected_clean(),
    _ = erlperf_test_lib:wait_for(fun () -> clean_state(Node) =:= Clean end, ?CLEAN_TIMEOUT_MS),
    assert_clean(Node).
