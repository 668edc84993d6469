%%% @doc The process discoverer agent, on a test node: finds the processes that call
%%% the target functions, names them, and tells when they exit (paper, section 3.4).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>discovery pattern</b>: a meta trace pattern of ours on every target armed by
%%%       {@link erlperf_agent_tracer}, with the match specification of
%%%       {@link erlperf_agent_ms:discovery_spec/1}: a caller sends a message only when
%%%       it is not in the <b>known tree</b> (the discovered processes still alive). A
%%%       module whose every function is a target gets one pattern `{M, '_', '_'}' (one
%%%       `erlang:trace_pattern/3' call instead of one per function: setting the
%%%       patterns of the 537 functions of inets httpd takes 0.6 ms instead of 22 ms).</li>
%%%   <li><b>discovered process</b>: a caller reported by a discovery message or by a
%%%       sweep. Its name is its registered name, else its initial call (proc_lib's,
%%%       else the VM's, unless that is the uninformative `erlang:apply/2' of a fun),
%%%       else the target that revealed it: an atom or an MFA, which the results write
%%%       as {@link erlperf_units:function_name/1} does (`"m:f/a"').</li>
%%%   <li><b>rebuild</b>: setting the discovery patterns again with a new tree, when new
%%%       processes were discovered. The agent first takes every discovery and exit
%%%       message already queued, so a burst of new callers costs one rebuild. A rebuild
%%%       comes at the earliest ?REBUILD_SHARE times the last one's duration after it
%%%       (rebuilding takes at most 1/?REBUILD_SHARE of the agent's time: under load a
%%%       rebuild waits for every scheduler, milliseconds), and none comes when every
%%%       process found since the last one has exited (a process starting per request
%%%       is gone before a rebuild could spare it a message).</li>
%%%   <li><b>phase</b>: `discovering' (the discovery patterns are set) or `dormant'
%%%       (they are not). The agent starts discovering; after `quiet' milliseconds
%%%       without a new process it goes dormant. While dormant, the tracer agent's
%%%       <b>sweep</b> finds new callers: after each periodic snapshot it sends the
%%%       callers its `call_time' counts show that it has not reported before. The first
%%%       new one still alive makes the agent discover again (one that has exited lived
%%%       too briefly for the patterns to name it any sooner). The tracer agent is told
%%%       of every change of phase and counts the calls made while discovering apart:
%%%       each of them paid the discovery pattern (see {@link erlperf_agent_impact}).</li>
%%%   <li><b>churn</b>: processes that each live for a moment (a handler per request or
%%%       per connection). Every call such a process makes while discovering sends a
%%%       message until a rebuild covers it, and it is gone before long: when the
%%%       ?CHURN_MIN processes that exited last while discovering were all <b>brief</b>
%%%       (exited within ?BRIEF_MS ms of their discovery), the agent goes dormant at once
%%%       rather than after `quiet', and sweeps find the processes after them (those
%%%       alive at a sweep named as usual, the others after the target that revealed
%%%       them).</li>
%%% </ul>
%%%
%%% Why phases: a call through a discovery pattern costs about 0.3 us even when the
%%% guard turns it down (on OTP 25 the VM asks the tracer whether it is enabled before it
%%% runs the match specification), more than `call_time' itself (0.2 us). A system whose
%%% processes live long pays it only until they are all known. A process found by a
%%% sweep was found up to one `interval' late: when it had exited by then, it is named
%%% after the target that revealed it and its exit time is the sweep's.
%%% With `quiet' set to `infinity' the agent never goes dormant, churn or not (the paper's
%%% design).
%%%
%%% Example (erlperf_agents does this over erpc, after starting the tracer):
%%% ```
%%% {ok, _} = erlperf_agent_discoverer:start(Config),
%%% ... load ...
%%% {ok, #{processes := Processes, active_max := Max}} = erlperf_agent_discoverer:collect().
%%% '''
%%% Cost and safety: while discovering, a caller already known pays the tree guard,
%%% about log2(N) comparisons for N known processes (see `make bench'); a new caller
%%% sends one message holding the call's arguments (copied once per discovery, large
%%% arguments included). A rebuild compiles the tree once per target module (or
%%% function). At most ?MAX_DISCOVERED processes are discovered: then the discovery
%%% patterns are removed for good and sweeps are ignored (later callers are still
%%% counted by the tracer, per process, but neither named nor sampled). The agent
%%% monitors the flow process and the controlling node: when either goes, it removes its
%%% patterns and exits (the tracer agent then deletes the modules).
-module(erlperf_agent_discoverer).
-behaviour(gen_server).

%% API: called on the test node by erlperf_agents (over erpc), by the metrics agent and
%% by the tracer agent.
-export([start/1, collect/0, live/0, phase/0]).

%% gen_server callbacks.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

%% How long a call to the agent may take.
-define(CALL_TIMEOUT_MS, 60000).
%% The most processes discovered (each is kept, named, sampled and in the tree).
-define(MAX_DISCOVERED, 100000).
%% Milliseconds without a new process before the agent goes dormant, when the config
%% does not say.
-define(DEFAULT_QUIET_MS, 250).
%% A rebuild waits this many times the last one's duration after it.
-define(REBUILD_SHARE, 10).
%% A process that exits within this many milliseconds of its discovery is brief; this
%% many brief ones in a row are churn: the agent goes dormant.
-define(BRIEF_MS, 50).
-define(CHURN_MIN, 10).

-record(proc, {
          name :: atom() | mfa(),
          found_by :: mfa(),
          %% monotonic milliseconds of its discovery
          found_at :: integer(),
          exited = false :: false | non_neg_integer()
         }).

-record(state, {
          flow :: pid(),
          controller :: node(),
          t0 :: integer(),
          quiet :: pos_integer() | infinity,
          targets = [] :: [mfa()],
          procs = #{} :: #{pid() => #proc{}},
          alive = #{} :: #{pid() => reference()},
          active_max = 0 :: non_neg_integer(),
          %% false when ?MAX_DISCOVERED were found or after collect: for good
          discovering = true :: boolean(),
          phase = discovering :: discovering | dormant,
          %% monotonic milliseconds of the last discovery (or of the last phase change)
          last_found :: integer(),
          %% [From_ms, To_ms] of each discovering phase, newest first (To_ms undefined
          %% while it lasts)
          phases = [] :: [[non_neg_integer() | undefined]],
          timer :: reference() | undefined,
          %% processes discovered since the last rebuild (not in the tree)
          fresh = [] :: [pid()],
          %% brief processes in a row among those that exited while discovering
          brief = 0 :: non_neg_integer(),
          %% monotonic microseconds when the last rebuild ended, and how long it took
          rebuilt_at :: integer(),
          rebuild_us = 0 :: non_neg_integer(),
          rebuild_timer :: reference() | undefined
         }).

-type state() :: #state{}.

%%--------------------------------------------------------------------
%% API

%% @doc Starts the discoverer (registered as this module); the tracer agent must run.
%% `Config' may hold `quiet' (milliseconds without a new process before the agent goes
%% dormant, or `infinity'; default ?DEFAULT_QUIET_MS).
-spec start(erlperf_agent_tracer:config()) -> {ok, pid()} | {error, term()}.
start(Config) ->
    gen_server:start({local, ?MODULE}, ?MODULE, Config, []).

%% @doc Stops discovering and returns the discovered processes (without samples), the
%% highest number of them alive at once, and the discovering phases as
%% `[From_ms, To_ms]' since the agents started.
-spec collect() -> {ok, #{processes := [map()], active_max := non_neg_integer(),
                          phases := [[non_neg_integer()]]}}.
collect() ->
    gen_server:call(?MODULE, collect, ?CALL_TIMEOUT_MS).

%% @doc The discovered processes alive now.
-spec live() -> [pid()].
live() ->
    gen_server:call(?MODULE, live, ?CALL_TIMEOUT_MS).

%% @doc The phase now: `stopped' after collect or the limit of processes.
-spec phase() -> discovering | dormant | stopped.
phase() ->
    gen_server:call(?MODULE, phase, ?CALL_TIMEOUT_MS).

%%--------------------------------------------------------------------
%% gen_server callbacks

%% @private
-spec init(erlperf_agent_tracer:config()) -> {ok, state()}.
init(#{flow := Flow, controller := Controller, t0 := T0} = Config) ->
    _ = process_flag(priority, high),
    ok = erlperf_agent_tracer:listen(self()),
    _ = monitor(process, Flow, [{tag, flow_down}]),
    true = monitor_node(Controller, true),
    S = #state{flow = Flow, controller = Controller, t0 = T0,
               quiet = maps:get(quiet, Config, ?DEFAULT_QUIET_MS),
               last_found = erlang:monotonic_time(millisecond),
               rebuilt_at = erlang:monotonic_time(microsecond)},
    S1 = arm(erlperf_agent_tracer:armed(), S),
    {ok, schedule_quiet(S1#state{phases = [[t_ms(S1), undefined]]})}.

%% @private
-spec handle_call(term(), gen_server:from(), state()) -> {reply, term(), state()}.
handle_call(live, _From, S) ->
    {reply, lists:sort(maps:keys(S#state.alive)), S};
handle_call(phase, _From, #state{discovering = false} = S) ->
    {reply, stopped, S};
handle_call(phase, _From, S) ->
    {reply, S#state.phase, S};
handle_call(collect, _From, S) ->
    S1 = stop_discovery(S, true),
    Processes = [#{pid => P, name => N, found_by => F, exited => E}
                 || {P, #proc{name = N, found_by = F, exited = E}}
                        <- lists:sort(maps:to_list(S1#state.procs))],
    {reply, {ok, #{processes => Processes, active_max => S1#state.active_max,
                   phases => lists:reverse(S1#state.phases)}}, S1}.

%% @private
-spec handle_cast(term(), state()) -> {noreply, state()}.
handle_cast(_Msg, S) ->
    {noreply, S}.

%% @private
-spec handle_info(term(), state()) -> {noreply, state()} | {stop, term(), state()}.
handle_info({trace_ts, _, call, _, _} = Msg, S) ->
    {noreply, batch([Msg], S)};
handle_info({'DOWN', _, process, _, _} = Msg, S) ->
    {noreply, batch([Msg], S)};
handle_info({sweep, Callers}, S) ->
    {noreply, swept(Callers, S)};
handle_info(rebuild, S) ->
    {noreply, rebuild_due(S#state{rebuild_timer = undefined})};
handle_info(quiet, S) ->
    {noreply, quiet(S#state{timer = undefined})};
handle_info({flow_down, _, process, _, _}, S) ->
    {stop, {shutdown, flow_down}, S};
handle_info({nodedown, Node}, #state{controller = Node} = S) ->
    {stop, {shutdown, controller_down}, S};
handle_info({rearm, MFAs}, S) ->
    {noreply, arm(MFAs, S)};
handle_info(_Other, S) ->
    {noreply, S}.

%% @private
-spec terminate(term(), state()) -> ok.
terminate(_Reason, S) ->
    %% the tracer agent may be stopping too: it is not told
    _ = stop_discovery(S, false),
    ok.

%%--------------------------------------------------------------------
%% Internal functions: patterns and phases

%% Adds targets (a reloaded module's new code included), and sets their discovery
%% pattern while discovering.
-spec arm([mfa()], state()) -> state().
arm(MFAs, #state{targets = Targets} = S) ->
    S1 = S#state{targets = lists:usort(MFAs ++ Targets)},
    case S1 of
        #state{discovering = true, phase = discovering} -> set_patterns(MFAs, S1);
        _ -> S1
    end.

-spec set_patterns([mfa()], state()) -> state().
set_patterns(MFAs, S) ->
    Spec = erlperf_agent_ms:discovery_spec(maps:keys(S#state.alive)),
    _ = [erlang:trace_pattern(P, Spec, [{meta, self()}]) || P <- grouped(MFAs)],
    S.

-spec clear_patterns(state()) -> ok.
clear_patterns(#state{targets = Targets}) ->
    _ = [erlang:trace_pattern(P, false, [meta]) || P <- grouped(Targets)],
    ok.

%% The patterns covering exactly MFAs: `{M, '_', '_'}' for a module whose every
%% function is among them, else the functions themselves.
-spec grouped([mfa()]) -> [mfa() | {module(), '_', '_'}].
grouped(MFAs) ->
    ByModule = maps:groups_from_list(fun ({M, _, _}) -> M end, lists:usort(MFAs)),
    lists:append([case whole_module(M, Fs) of
                      true -> [{M, '_', '_'}];
                      false -> Fs
                  end || {M, Fs} <- lists:sort(maps:to_list(ByModule))]).

-spec whole_module(module(), [mfa()]) -> boolean().
whole_module(M, MFAs) ->
    erlang:module_loaded(M)
        andalso lists:usort([{M, F, A} || {F, A} <- erlang:get_module_info(M, functions)])
                =:= MFAs.

%% Dormant when no process was found for `quiet' milliseconds while discovering.
-spec quiet(state()) -> state().
quiet(#state{discovering = true, phase = discovering, quiet = Quiet, last_found = Last} = S)
  when is_integer(Quiet) ->
    case erlang:monotonic_time(millisecond) - Last >= Quiet of
        true -> dormant(S);
        false -> schedule_quiet(S)
    end;
quiet(S) ->
    S.

%% Dormant at once after churn (unless `quiet' is `infinity').
-spec churn(state()) -> state().
churn(#state{discovering = true, phase = discovering, quiet = Quiet, brief = Brief} = S)
  when is_integer(Quiet), Brief >= ?CHURN_MIN ->
    dormant(S);
churn(S) ->
    S.

-spec dormant(state()) -> state().
dormant(S) ->
    ok = erlperf_agent_tracer:phase(dormant),
    ok = clear_patterns(S),
    [[From, undefined] | Done] = S#state.phases,
    _ = is_reference(S#state.rebuild_timer) andalso erlang:cancel_timer(S#state.rebuild_timer),
    S#state{phase = dormant, phases = [[From, t_ms(S)] | Done], fresh = [], brief = 0,
            rebuild_timer = undefined}.

%% Discovering again (a sweep found a new process alive while dormant).
-spec wake(state()) -> state().
wake(#state{discovering = true, phase = dormant} = S) ->
    S1 = rebuild_now(S#state{phase = discovering, brief = 0}),
    ok = erlperf_agent_tracer:phase(discovering),
    schedule_quiet(S1#state{phases = [[t_ms(S1), undefined] | S1#state.phases],
                            last_found = erlang:monotonic_time(millisecond)});
wake(S) ->
    S.

-spec schedule_quiet(state()) -> state().
schedule_quiet(#state{quiet = infinity} = S) ->
    S;
schedule_quiet(#state{quiet = Quiet, last_found = Last, timer = undefined} = S) ->
    Left = max(0, Last + Quiet - erlang:monotonic_time(millisecond)),
    S#state{timer = erlang:send_after(Left, self(), quiet)};
schedule_quiet(S) ->
    S.

%% Ends discovery for good (collect, the limit of processes, termination); `Tell':
%% whether the tracer agent is told (not while terminating: it may be stopping).
-spec stop_discovery(state(), boolean()) -> state().
stop_discovery(#state{discovering = true, phase = Phase} = S, Tell) ->
    Phases = case {Phase, S#state.phases} of
                 {discovering, [[From, undefined] | Done]} ->
                     ok = clear_patterns(S),
                     _ = Tell andalso erlperf_agent_tracer:phase(dormant),
                     [[From, t_ms(S)] | Done];
                 {dormant, Done} ->
                     Done
             end,
    _ = [erlang:cancel_timer(T) || T <- [S#state.timer, S#state.rebuild_timer], is_reference(T)],
    S#state{discovering = false, phases = Phases, timer = undefined, rebuild_timer = undefined};
stop_discovery(S, _Tell) ->
    S.

%%--------------------------------------------------------------------
%% Internal functions: discoveries

%% Takes the queued discoveries and exits with Msgs, then rebuilds once, or goes dormant
%% after churn.
-spec batch([tuple()], state()) -> state().
batch(Msgs, S) ->
    case churn(lists:foldl(fun handle_msg/2, S, drain(Msgs))) of
        #state{phase = discovering} = S1 -> rebuild(S1);
        S1 -> S1
    end.

%% The callers of a sweep that are not known yet.
-spec swept([{pid(), mfa()}], state()) -> state().
swept(Callers, #state{discovering = true} = S) ->
    S1 = lists:foldl(fun ({Pid, MFA}, Acc) -> handle_msg({found, Pid, MFA}, Acc) end,
                     S, Callers),
    New = [Pid || {Pid, _} <- Callers, not is_map_key(Pid, S#state.procs)],
    case S1 of
        #state{phase = dormant} ->
            case lists:any(fun erlang:is_process_alive/1, New) of
                true -> wake(S1);
                false -> S1
            end;
        _ ->
            rebuild(S1)
    end;
swept(_Callers, S) ->
    S.

-spec drain([tuple()]) -> [tuple()].
drain(Acc) ->
    receive
        {trace_ts, _, call, _, _} = Msg -> drain([Msg | Acc])
    after 0 ->
            drain_down(Acc)
    end.

-spec drain_down([tuple()]) -> [tuple()].
drain_down(Acc) ->
    receive
        {'DOWN', _, process, _, _} = Msg -> drain_down([Msg | Acc])
    after 0 ->
            lists:reverse(Acc)
    end.

-spec handle_msg(tuple(), state()) -> state().
handle_msg({trace_ts, Pid, call, {M, F, Args}, _Ts}, #state{procs = Procs} = S)
  when not is_map_key(Pid, Procs) ->
    discover(Pid, {M, F, length(Args)}, S);
handle_msg({found, Pid, MFA}, #state{procs = Procs} = S) when not is_map_key(Pid, Procs) ->
    discover(Pid, MFA, S);
handle_msg({'DOWN', Ref, process, Pid, _}, #state{alive = Alive, procs = Procs} = S) ->
    case Alive of
        #{Pid := Ref} ->
            #{Pid := Proc} = Procs,
            Now = erlang:monotonic_time(millisecond),
            Brief = case Now - Proc#proc.found_at < ?BRIEF_MS of
                        true -> S#state.brief + 1;
                        false -> 0
                    end,
            S#state{alive = maps:remove(Pid, Alive), brief = Brief,
                    procs = Procs#{Pid := Proc#proc{exited = t_ms(S)}}};
        _ ->
            S
    end;
handle_msg(_Known, S) ->
    S.

-spec discover(pid(), mfa(), state()) -> state().
discover(_Pid, _MFA, #state{discovering = false} = S) ->
    S;
discover(Pid, MFA, #state{procs = Procs, alive = Alive} = S) ->
    Ref = monitor(process, Pid),   % 'DOWN' at once when Pid has exited
    Proc = #proc{name = name(Pid, MFA), found_by = MFA,
                 found_at = erlang:monotonic_time(millisecond)},
    Alive1 = Alive#{Pid => Ref},
    S1 = S#state{procs = Procs#{Pid => Proc}, alive = Alive1,
                 active_max = max(S#state.active_max, map_size(Alive1)),
                 last_found = erlang:monotonic_time(millisecond),
                 %% dormant, no tree to rebuild: the next wake covers those alive
                 fresh = case S#state.phase of
                             discovering -> [Pid | S#state.fresh];
                             dormant -> S#state.fresh
                         end},
    case map_size(S1#state.procs) >= ?MAX_DISCOVERED of
        true -> stop_discovery(S1, true);
        false -> S1
    end.

%% Registered name, else initial call, else the target that revealed the process (the
%% results write it as text: this node may not have erlperf_units).
-spec name(pid(), mfa()) -> atom() | mfa().
name(Pid, MFA) ->
    case process_info(Pid, [registered_name, initial_call, dictionary]) of
        [{registered_name, Name}, _, _] when is_atom(Name) ->
            Name;
        [_, {initial_call, Initial}, {dictionary, Dict}] ->
            case proplists:get_value('$initial_call', Dict, Initial) of
                {erlang, apply, 2} -> MFA;
                {M, F, A} -> {M, F, A};
                _ -> MFA
            end;
        undefined ->
            MFA
    end.

%% Rebuilds (now or when due) when processes were discovered since the last rebuild,
%% while discovering. Exits alone do not rebuild: a pid of a process that exited stays
%% in the tree until the next rebuild, where it costs a comparison at most.
-spec rebuild(state()) -> state().
rebuild(#state{fresh = []} = S) ->
    S;
rebuild(#state{discovering = true, phase = discovering, rebuild_timer = undefined} = S) ->
    Wait = S#state.rebuilt_at + ?REBUILD_SHARE * S#state.rebuild_us
        - erlang:monotonic_time(microsecond),
    case Wait =< 0 of
        true -> rebuild_now(S);
        false -> S#state{rebuild_timer = erlang:send_after(Wait div 1000 + 1, self(), rebuild)}
    end;
rebuild(S) ->
    S.   % a rebuild is due later, or not discovering

%% A rebuild that was put off: skipped when every process found since has exited.
-spec rebuild_due(state()) -> state().
rebuild_due(#state{discovering = true, phase = discovering, fresh = Fresh} = S) ->
    case lists:any(fun erlang:is_process_alive/1, Fresh) of
        true -> rebuild_now(S);
        false -> S#state{fresh = []}
    end;
rebuild_due(S) ->
    S.

-spec rebuild_now(state()) -> state().
rebuild_now(#state{targets = Targets} = S) ->
    T0 = erlang:monotonic_time(microsecond),
    S1 = set_patterns(Targets, S),
    T1 = erlang:monotonic_time(microsecond),
    S1#state{fresh = [], rebuilt_at = T1, rebuild_us = T1 - T0}.

-spec t_ms(state()) -> non_neg_integer().
t_ms(#state{t0 = T0}) ->
    max(0, erlang:monotonic_time(millisecond) - T0).
