%%% @doc The tracer agent, on a test node: counts the calls of the target functions and
%%% the time spent in them, per calling process, with `call_time' tracing (paper,
%%% section 3.3), keeps the counts across module reloads, and reports the system under
%%% test's own use of tracing as conflicts.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>targets</b>: the concrete `{M, F, A}' the trace patterns expand to, in the
%%%       modules loaded now or later (a pattern naming a module not loaded yet is armed
%%%       when the module loads). `erlang:trace_pattern/3' only takes the wildcard forms
%%%       `{M, F, '_'}' and `{M, '_', '_'}', and counts are read per function, so the
%%%       agent always works on concrete functions.</li>
%%%   <li><b>armed</b>: a target with a `call_time' pattern of ours. Arming an armed
%%%       function would reset its counters (checked on OTP 25), so the agent only arms
%%%       functions whose `trace_info' says `false'.</li>
%%%   <li><b>hooks</b>: meta trace patterns of ours on `erlang:trace/3',
%%%       `erlang:trace_pattern/2,3' (conflicts), `erlang:prepare_loading/2' and
%%%       `erlang:finish_loading/1' (reloads; every way of loading code on OTP 25, from
%%%       `code:load_binary/3', `code:load_file/1', `code:atomic_load/1' to
%%%       `erlang:load_module/2', ends in these two).</li>
%%%   <li><b>conflict</b>: a call of the SUT to a tracing BIF while the agent runs, or a
%%%       process another tracer owned when the agent started (left alone, its calls not
%%%       counted).</li>
%%%   <li><b>snapshot</b>: the counts last read for a target while its code was current.
%%%       Loading a module throws the counts of its old code away (`trace_info' returns
%%%       `false' for the new code); the snapshot is added to the <b>saved</b> counts
%%%       then.</li>
%%%   <li><b>sweep</b>: after each periodic snapshot, the callers in the counts that
%%%       were not sent before go to {@link erlperf_agent_discoverer} (which finds new
%%%       processes this way while its own patterns are dormant).</li>
%%%   <li><b>discovering calls</b>: the calls made while the discoverer's patterns were
%%%       set (it tells the agent of each change with {@link phase/1}); each of them paid
%%%       the discovery pattern as well as `call_time', and is compensated for both.</li>
%%% </ul>
%%%
%%% `call_time' counts only the calls of processes carrying the `call' trace flag, so the
%%% agent sets `call' with itself as tracer on every process (`erlang:trace(all, ...)'),
%%% except the agents. A process can have one tracer only: when the SUT calls
%%% `erlang:trace(Pid, true, Flags)' on a process we trace, the `erlang:trace/3' hook
%%% removes our flag in the caller before the BIF runs, so the SUT's call succeeds (and
%%% that process's calls are no longer counted from then on); the hook's message records
%%% the conflict.
%%%
%%% Reloads: the agent takes a snapshot of every target every `interval' milliseconds,
%%% and of a module's targets when the `prepare_loading' hook message for it arrives; the
%%% `finish_loading' return message makes it fold the last snapshot into the saved counts
%%% and arm the new code (and tell the discoverer to arm it). A target found unarmed at a
%%% periodic snapshot is folded and armed the same way (a load the hooks missed).
%%%
%%% Residual race: trace messages are asynchronous, and nothing in OTP's tracing lets
%%% the agent run before the loading process swaps the code (only a NIF tracer module
%%% runs in the traced process). The hook message is handled after the load in practice
%%% (on OTP 25, 2 cores, `code:load_binary/3' of a small module: 3 loads of 3, even at
%%% `max' priority), so the counts kept for the old code are those of the last periodic
%%% snapshot: calls of the old code in the last `interval' before the load, and calls of
%%% the new code before the agent arms it, are not counted. A module reloaded while its
%%% callers are idle for an `interval' loses nothing.
%%%
%%% Example (erlperf_agents does this over erpc):
%%% ```
%%% {ok, _} = erlperf_agent_tracer:start(#{flow => self(), controller => node(),
%%%     patterns => [{sut, f, 1}], interval => 1000, t0 => erlang:monotonic_time(millisecond)}),
%%% ... load ...
%%% {ok, #{functions := Functions}} = erlperf_agent_tracer:collect().
%%% '''
%%% Cost and safety: `call_time' adds a fraction of a microsecond per target call
%%% (measured by {@link erlperf_agent_impact}); the hooks cost the SUT nothing unless it
%%% traces or loads code. The agent runs at `high' priority, refuses nothing itself
%%% (erlperf_agents refuses patterns matching everything or erlperf's agents) and never
%%% traces functions of the agents or of its hooks. It monitors the flow process and the
%%% controlling node: when either goes, it removes its patterns, hooks and flags (only
%%% from the processes whose tracer is itself: the SUT's flags stay), waits for the
%%% other agents to go, and deletes the agents' modules from the node.
-module(erlperf_agent_tracer).
-behaviour(gen_server).

%% API: called on the test node by erlperf_agents (over erpc) and by the other agents.
-export([start/1, collect/0, exclude/1, listen/1, armed/0, snapshots/0, phase/1, orphan_modules/0]).

%% gen_server callbacks.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

-export_type([config/0, counts/0]).

%% How long a call to the agent may take (collect reads every target's counts).
-define(CALL_TIMEOUT_MS, 60000).
%% How long an orphaned tracer waits for the other agents to go before deleting modules.
-define(ORPHAN_WAIT_MS, 5000).
%% The most conflicts kept (a SUT tracing in a loop must not fill the agent's memory).
-define(MAX_CONFLICTS, 1000).

%% What the agents get from erlperf_agents:start/2 (`quiet' is the discoverer's).
-type config() :: #{flow := pid(), controller := node(),
                    patterns := [erlperf_load_generator:trace_pattern()],
                    interval := pos_integer(), t0 := integer(),
                    quiet => pos_integer() | infinity}.

%% Calls and microseconds per process.
-type counts() :: #{pid() => {non_neg_integer(), non_neg_integer()}}.

-record(state, {
          flow :: pid(),
          controller :: node(),
          patterns :: [erlperf_load_generator:trace_pattern()],
          interval :: pos_integer(),
          t0 :: integer(),
          armed = #{} :: #{mfa() => true},
          saved = #{} :: #{mfa() => counts()},
          last = #{} :: #{mfa() => counts()},
          pending = [] :: [module()],
          agents = [] :: [pid()],
          %% agents told of targets armed later (`{rearm, MFAs}') and of the callers the
          %% counts show (`{sweep, Callers}'): the discoverer
          listeners = [] :: [pid()],
          foreign = [] :: [pid()],
          conflicts = [] :: [map()],
          reloads = [] :: [map()],
          tracing = true :: boolean(),
          snapshots = 0 :: non_neg_integer(),
          timer :: reference() | undefined,
          %% the discoverer's phase, as it told: calls while `discovering' are counted
          %% apart, as `acc' plus (totals now - `base')
          discovering = true :: boolean(),
          base = #{} :: #{mfa() => counts()},
          acc = #{} :: #{mfa() => counts()},
          %% callers already sent to the discoverer by a sweep
          seen = #{} :: #{pid() => true}
         }).

-type state() :: #state{}.

%% The functions the hooks meta-trace.
-define(HOOKS, [{erlang, trace, 3}, {erlang, trace_pattern, 2}, {erlang, trace_pattern, 3},
                {erlang, prepare_loading, 2}, {erlang, finish_loading, 1}]).

%%--------------------------------------------------------------------
%% API

%% @doc Starts the tracer agent (registered as this module), arms the targets, sets the
%% `call' flag on every process and the hooks.
-spec start(config()) -> {ok, pid()} | {error, term()}.
start(Config) ->
    gen_server:start({local, ?MODULE}, ?MODULE, Config, []).

%% @doc Reads the counts (saved plus live) of every target, then stops tracing: hooks,
%% patterns and flags are removed. The agent stays until removed. Functions without
%% calls are left out. `calls_discovering' (of a function and of each process): the
%% calls made while the discoverer's patterns were set.
-spec collect() -> {ok, #{functions := [map()], conflicts := [map()],
                          reloads := [map()], duration_ms := non_neg_integer()}}.
collect() ->
    gen_server:call(?MODULE, collect, ?CALL_TIMEOUT_MS).

%% @doc Untraces `Pid', an agent's process: it is never counted nor reported.
-spec exclude(pid()) -> ok.
exclude(Pid) ->
    gen_server:call(?MODULE, {exclude, Pid}, ?CALL_TIMEOUT_MS).

%% @doc {@link exclude/1}, and `Pid' is sent `{rearm, [mfa()]}' when targets are armed
%% later (their module was loaded after the start) and `{sweep, [{pid(), mfa()}]}' with
%% the callers each snapshot finds that it has not sent before.
-spec listen(pid()) -> ok.
listen(Pid) ->
    gen_server:call(?MODULE, {listen, Pid}, ?CALL_TIMEOUT_MS).

%% @doc The targets armed now.
-spec armed() -> [mfa()].
armed() ->
    gen_server:call(?MODULE, armed, ?CALL_TIMEOUT_MS).

%% @doc The discoverer's phase changed (it calls this before removing its patterns and
%% after setting them): the calls up to now are counted as made in the previous phase.
-spec phase(discovering | dormant) -> ok.
phase(Phase) when Phase =:= discovering; Phase =:= dormant ->
    gen_server:call(?MODULE, {phase, Phase}, ?CALL_TIMEOUT_MS).

%% @doc How many periodic snapshots the agent took so far.
-spec snapshots() -> non_neg_integer().
snapshots() ->
    gen_server:call(?MODULE, snapshots, ?CALL_TIMEOUT_MS).

%% @doc The modules an orphaned tracer deletes: every agent module.
-spec orphan_modules() -> [module()].
orphan_modules() ->
    [erlperf_agent_metrics, erlperf_agent_discoverer, erlperf_agent_impact,
     erlperf_agent_ms, ?MODULE].

%%--------------------------------------------------------------------
%% gen_server callbacks

%% @private
-spec init(config()) -> {ok, state()}.
init(#{flow := Flow, controller := Controller, patterns := Patterns, interval := Interval,
       t0 := T0}) ->
    _ = process_flag(priority, high),
    _ = monitor(process, Flow, [{tag, flow_down}]),
    true = monitor_node(Controller, true),
    S0 = #state{flow = Flow, controller = Controller, patterns = Patterns,
                interval = Interval, t0 = T0, agents = [self()]},
    S1 = lists:foldl(fun arm_module/2, S0, target_modules(Patterns)),
    Foreign = [P || P <- processes(), P =/= self(), foreign_tracer(P) =/= none],
    S2 = lists:foldl(fun already_traced/2, S1, Foreign),
    _ = erlang:trace(all, true, [call, {tracer, self()}]),
    _ = erlang:trace(self(), false, [call]),
    ok = set_hooks(Foreign),
    {ok, schedule(S2#state{foreign = Foreign})}.

%% @private
-spec handle_call(term(), gen_server:from(), state()) -> {reply, term(), state()}.
handle_call(collect, _From, #state{tracing = true} = S) ->
    Functions = functions(S),
    S2 = stop_tracing(S),
    {reply, {ok, #{functions => Functions, conflicts => lists:reverse(S2#state.conflicts),
                   reloads => lists:reverse(S2#state.reloads),
                   duration_ms => erlang:monotonic_time(millisecond) - S2#state.t0}}, S2};
handle_call(collect, _From, S) ->
    {reply, {error, already_collected}, S};
handle_call({exclude, Pid}, _From, #state{agents = Agents} = S) ->
    _ = monitor(process, Pid),
    _ = S#state.tracing andalso untrace_ours(Pid),
    {reply, ok, S#state{agents = [Pid | Agents]}};
handle_call({listen, Pid}, From, #state{listeners = Listeners} = S) ->
    handle_call({exclude, Pid}, From, S#state{listeners = [Pid | Listeners]});
handle_call(armed, _From, S) ->
    {reply, maps:keys(S#state.armed), S};
handle_call(snapshots, _From, S) ->
    {reply, S#state.snapshots, S};
handle_call({phase, Phase}, _From, S) ->
    {reply, ok, phase(Phase, S)}.

%% @private
-spec handle_cast(term(), state()) -> {noreply, state()}.
handle_cast(_Msg, S) ->
    {noreply, S}.

%% @private
-spec handle_info(term(), state()) -> {noreply, state()} | {stop, term(), state()}.
handle_info({trace_ts, Caller, call, {erlang, Fun, Args}, _Ts}, S) ->
    {noreply, hook_call(Caller, Fun, Args, S)};
handle_info({trace_ts, _Caller, return_from, {erlang, finish_loading, 1}, _Ret, _Ts},
            #state{tracing = true, pending = Pending} = S) ->
    {noreply, resync(Pending, S#state{pending = []})};
handle_info(snapshot, #state{tracing = true} = S) ->
    {Lost, S1} = snapshot(S),
    {noreply, schedule(resync(Lost, sweep(S1)))};
handle_info({flow_down, _, process, _, _}, S) ->
    {stop, {shutdown, flow_down}, S};
handle_info({nodedown, Node}, #state{controller = Node} = S) ->
    {stop, {shutdown, controller_down}, S};
handle_info(_Other, S) ->
    %% call trace messages of patterns someone else set, DOWN of agents, late snapshots
    {noreply, S}.

%% @private
-spec terminate(term(), state()) -> ok.
terminate(Reason, S) ->
    _ = S#state.tracing andalso stop_tracing(S),
    case Reason of
        {shutdown, Orphaned} when Orphaned =:= flow_down; Orphaned =:= controller_down ->
            wait_agents(S#state.agents -- [self()]),
            Modules = orphan_modules(),
            _ = [code:delete(M) || M <- Modules],
            _ = spawn(fun () -> [code:purge(M) || M <- Modules] end),
            ok;
        _ ->
            ok
    end.

%%--------------------------------------------------------------------
%% Internal functions: targets

%% Modules named by the patterns, or every loaded one for a pattern with '_' module.
-spec target_modules([erlperf_load_generator:trace_pattern()]) -> [module()].
target_modules(Patterns) ->
    case lists:keymember('_', 1, Patterns) of
        true -> [M || {M, _} <- code:all_loaded()];
        false -> lists:usort([M || {M, _, _} <- Patterns, erlang:module_loaded(M)])
    end.

%% The targets in Module, as loaded now.
-spec expand(module(), [erlperf_load_generator:trace_pattern()]) -> [mfa()].
expand(Module, Patterns) ->
    case lists:any(fun ({M, _, _}) -> M =:= Module orelse M =:= '_' end, Patterns)
        andalso not excluded_module(Module) andalso erlang:module_loaded(Module) of
        true ->
            Functions = erlang:get_module_info(Module, functions),
            [{Module, F, A} || {F, A} <- Functions,
                               lists:any(fun (P) -> matches(P, Module, F, A) end, Patterns),
                               not lists:member({Module, F, A}, ?HOOKS)];
        false ->
            []
    end.

-spec matches(erlperf_load_generator:trace_pattern(), module(), atom(), arity()) -> boolean().
matches({PM, PF, PA}, M, F, A) ->
    (PM =:= '_' orelse PM =:= M) andalso (PF =:= '_' orelse PF =:= F)
        andalso (PA =:= '_' orelse PA =:= A).

-spec excluded_module(module()) -> boolean().
excluded_module(Module) ->
    lists:prefix("erlperf_agent", atom_to_list(Module)).

%% Arms the targets of Module that are not armed (new code has none armed).
-spec arm_module(module(), state()) -> state().
arm_module(Module, #state{patterns = Patterns, armed = Armed} = S) ->
    New = [MFA || MFA <- expand(Module, Patterns),
                  erlang:trace_info(MFA, call_time) =:= {call_time, false}],
    _ = [erlang:trace_pattern(MFA, true, [call_time]) || MFA <- New],
    %% a listener started later asks armed/0
    _ = New =/= [] andalso tell({rearm, New}, S),
    S#state{armed = maps:merge(Armed, maps:from_list([{MFA, true} || MFA <- New]))}.

%% Reads the live counts of every target into the snapshots; returns the modules with a
%% target that lost its pattern (its module was loaded again).
-spec snapshot(state()) -> {[module()], state()}.
snapshot(#state{armed = Armed, last = Last} = S) ->
    Read = [{MFA, live(MFA)} || MFA <- maps:keys(Armed)],
    Lost = lists:usort([M || {{M, _, _}, false} <- Read]),
    Live = maps:from_list([{MFA, C} || {MFA, C} <- Read, C =/= false]),
    {Lost, S#state{last = maps:merge(Last, Live), snapshots = S#state.snapshots + 1}}.

%% Folds the snapshots of the targets of Modules that lost their pattern into the saved
%% counts, and arms Modules again (new code, new functions).
-spec resync([module()], state()) -> state().
resync(Modules, S) ->
    lists:foldl(fun resync_module/2, S, lists:usort(Modules)).

-spec resync_module(module(), state()) -> state().
resync_module(Module, #state{armed = Armed} = S) ->
    Lost = [MFA || {M, _, _} = MFA <- maps:keys(Armed), M =:= Module, live(MFA) =:= false],
    S1 = lists:foldl(fun fold_lost/2, S, Lost),
    S2 = case Lost of
             [] -> S1;
             _ -> S1#state{reloads = [#{module => Module, t_ms => t_ms(S1)} | S1#state.reloads]}
         end,
    arm_module(Module, S2).

-spec fold_lost(mfa(), state()) -> state().
fold_lost(MFA, #state{armed = Armed, saved = Saved, last = Last} = S) ->
    Snap = maps:get(MFA, Last, #{}),
    S#state{armed = maps:remove(MFA, Armed), last = maps:remove(MFA, Last),
            saved = Saved#{MFA => add(maps:get(MFA, Saved, #{}), Snap)}}.

%% The live counts of a target, or false when its code is not traced (reloaded).
-spec live(mfa()) -> counts() | false.
live(MFA) ->
    case erlang:trace_info(MFA, call_time) of
        {call_time, List} when is_list(List) ->
            maps:from_list([{P, {C, S * 1000000 + Us}} || {P, C, S, Us} <- List]);
        _ ->
            false
    end.

%% Takes a snapshot of the targets in Module (called when it is about to be loaded).
-spec snapshot_module(module(), state()) -> state().
snapshot_module(Module, #state{armed = Armed, last = Last} = S) ->
    Snaps = [{MFA, C} || {M, _, _} = MFA <- maps:keys(Armed), M =:= Module,
                         C <- [live(MFA)], C =/= false],
    S#state{last = maps:merge(Last, maps:from_list(Snaps))}.

-spec add(counts(), counts()) -> counts().
add(A, B) ->
    maps:fold(fun (P, {C, T}, Acc) ->
                      {C0, T0} = maps:get(P, Acc, {0, 0}),
                      Acc#{P => {C0 + C, T0 + T}}
              end, A, B).

-spec sub(counts(), counts()) -> counts().
sub(Now, Base) ->
    maps:map(fun (P, {C, T}) ->
                     {C0, T0} = maps:get(P, Base, {0, 0}),
                     {max(0, C - C0), max(0, T - T0)}
             end, Now).

%% The counts of every target so far: saved plus live (or the last snapshot when not
%% armed), without the agents.
-spec totals(state()) -> #{mfa() => counts()}.
totals(#state{armed = Armed, saved = Saved, last = Last, agents = Agents}) ->
    MFAs = lists:usort(maps:keys(Armed) ++ maps:keys(Saved)),
    maps:from_list(
      [begin
           Live = case live(MFA) of
                      false -> maps:get(MFA, Last, #{});
                      L -> L
                  end,
           {MFA, maps:without(Agents, add(maps:get(MFA, Saved, #{}), Live))}
       end || MFA <- MFAs]).

%% The counts of the calls made while discovering, given the totals now.
-spec discovering(#{mfa() => counts()}, state()) -> #{mfa() => counts()}.
discovering(Totals, #state{discovering = false, acc = Acc}) ->
    maps:with(maps:keys(Totals), Acc);
discovering(Totals, #state{base = Base, acc = Acc}) ->
    maps:map(fun (MFA, Counts) ->
                     add(maps:get(MFA, Acc, #{}), sub(Counts, maps:get(MFA, Base, #{})))
             end, Totals).

-spec phase(discovering | dormant, state()) -> state().
phase(dormant, #state{discovering = true} = S) ->
    S#state{discovering = false, acc = discovering(totals(S), S)};
phase(discovering, #state{discovering = false} = S) ->
    S#state{discovering = true, base = totals(S)};
phase(_Same, S) ->
    S.

%% Functions with their calls, and the calls made while discovering.
-spec functions(state()) -> [map()].
functions(S) ->
    Totals = totals(S),
    Discovering = discovering(Totals, S),
    lists:filtermap(fun ({MFA, Counts}) ->
                            function_entry(MFA, Counts, maps:get(MFA, Discovering, #{}))
                    end, lists:sort(maps:to_list(Totals))).

-spec function_entry(mfa(), counts(), counts()) -> false | {true, map()}.
function_entry(MFA, Counts, Discovering) ->
    PerProcess = [#{pid => P, calls => C, time_us => T,
                    calls_discovering => min(C, element(1, maps:get(P, Discovering, {0, 0})))}
                  || {P, {C, T}} <- lists:sort(maps:to_list(Counts)), C > 0],
    case lists:sum([C || #{calls := C} <- PerProcess]) of
        0 -> false;
        Calls -> {true, #{mfa => MFA, calls => Calls, per_process => PerProcess,
                          time_us => lists:sum([T || #{time_us := T} <- PerProcess]),
                          calls_discovering =>
                              lists:sum([D || #{calls_discovering := D} <- PerProcess])}}
    end.

%% Sends the discoverer the callers of the last snapshot not sent before, each with a
%% target it called.
-spec sweep(state()) -> state().
sweep(#state{last = Last, seen = Seen, agents = Agents} = S) ->
    New = maps:fold(fun (MFA, Counts, Acc) ->
                            maps:fold(fun (P, {C, _}, Acc1) when C > 0,
                                                               not is_map_key(P, Seen),
                                                               not is_map_key(P, Acc1) ->
                                              Acc1#{P => MFA};
                                          (_, _, Acc1) ->
                                              Acc1
                                      end, Acc, Counts)
                    end, #{}, Last),
    Callers = maps:to_list(maps:without(Agents, New)),
    _ = Callers =/= [] andalso tell({sweep, Callers}, S),
    S#state{seen = maps:merge(Seen, maps:from_list([{P, true} || {P, _} <- Callers]))}.

-spec tell(term(), state()) -> ok.
tell(Message, #state{listeners = Listeners}) ->
    lists:foreach(fun (Pid) -> Pid ! Message end, Listeners).

%%--------------------------------------------------------------------
%% Internal functions: hooks and conflicts

-spec set_hooks([pid()]) -> ok.
set_hooks(Foreign) ->
    Meta = [{meta, self()}],
    1 = erlang:trace_pattern({erlang, trace, 3}, erlperf_agent_ms:trace_hook_spec(Foreign), Meta),
    1 = erlang:trace_pattern({erlang, trace_pattern, 2}, true, Meta),
    1 = erlang:trace_pattern({erlang, trace_pattern, 3}, true, Meta),
    1 = erlang:trace_pattern({erlang, prepare_loading, 2}, true, Meta),
    1 = erlang:trace_pattern({erlang, finish_loading, 1}, [{'_', [], [{return_trace}]}], Meta),
    ok.

-spec hook_call(pid(), atom(), list(), state()) -> state().
hook_call(Caller, Fun, Args, #state{agents = Agents, tracing = true} = S) ->
    case lists:member(Caller, Agents) of
        true -> S;
        false -> hook_call_1(Caller, Fun, Args, S)
    end;
hook_call(_Caller, _Fun, _Args, S) ->
    S.

-spec hook_call_1(pid(), atom(), list(), state()) -> state().
hook_call_1(_Caller, prepare_loading, [Module, _Binary], S) ->
    case expand_possible(Module, S#state.patterns) of
        true -> snapshot_module(Module, S#state{pending = [Module | S#state.pending]});
        false -> S
    end;
hook_call_1(_Caller, finish_loading, _Args, S) ->
    S;
hook_call_1(Caller, trace, [Target, How, _Flags] = Args, #state{foreign = Foreign} = S) ->
    S1 = conflict(trace, Caller, {trace, Args}, S),
    case is_pid(Target) andalso How =:= true andalso not lists:member(Target, Foreign) of
        true ->
            NewForeign = [Target | Foreign],
            _ = erlang:trace_pattern({erlang, trace, 3},
                                     erlperf_agent_ms:trace_hook_spec(NewForeign),
                                     [{meta, self()}]),
            S1#state{foreign = NewForeign};
        false ->
            S1
    end;
hook_call_1(Caller, trace_pattern, Args, S) ->
    Kind = case Args of
               [_, _, Flags] when is_list(Flags) ->
                   case lists:any(fun is_meta_flag/1, Flags) of
                       true -> meta;
                       false -> trace_pattern
                   end;
               _ -> trace_pattern
           end,
    conflict(Kind, Caller, {trace_pattern, Args}, S);
hook_call_1(_Caller, _Fun, _Args, S) ->
    S.

-spec is_meta_flag(term()) -> boolean().
is_meta_flag(meta) -> true;
is_meta_flag({meta, _}) -> true;
is_meta_flag({meta, _, _}) -> true;
is_meta_flag(_) -> false.

-spec expand_possible(module(), [erlperf_load_generator:trace_pattern()]) -> boolean().
expand_possible(Module, Patterns) ->
    not excluded_module(Module)
        andalso lists:any(fun ({M, _, _}) -> M =:= Module orelse M =:= '_' end, Patterns).

%% A process another tracer owned when the agent started.
-spec already_traced(pid(), state()) -> state().
already_traced(Pid, S) ->
    conflict(trace, Pid, {already_traced, Pid, foreign_tracer(Pid)}, S).

-spec conflict(trace | trace_pattern | meta, pid(), term(), state()) -> state().
conflict(_Kind, _Caller, _What, #state{conflicts = Conflicts} = S)
  when length(Conflicts) >= ?MAX_CONFLICTS ->
    S;
conflict(Kind, Caller, What, #state{conflicts = Conflicts} = S) ->
    Entry = #{kind => Kind, caller => Caller, detail => detail(What)},
    S#state{conflicts = [Entry | Conflicts]}.

-spec detail(term()) -> binary().
detail({trace, [Target, How, Flags]}) ->
    iolist_to_binary(io_lib:format("erlang:trace(~0tp, ~0tp, ~0tP)", [Target, How, Flags, 20]));
detail({trace_pattern, Args}) ->
    Text = lists:join(", ", [io_lib:format("~0tP", [A, 12]) || A <- Args]),
    iolist_to_binary(["erlang:trace_pattern(", Text, ")"]);
detail({already_traced, Pid, Tracer}) ->
    iolist_to_binary(io_lib:format("~0p was already traced by ~0tp: its calls are not counted",
                                   [Pid, Tracer])).

-spec foreign_tracer(pid()) -> none | term().
foreign_tracer(Pid) ->
    case erlang:trace_info(Pid, tracer) of
        {tracer, []} -> none;
        {tracer, Tracer} -> Tracer;
        undefined -> none
    end.

%%--------------------------------------------------------------------
%% Internal functions: stopping

%% Removes hooks first (so our own trace calls are not reported), then patterns, then
%% the `call' flag from the processes whose tracer is this agent, and `new' tracing.
-spec stop_tracing(state()) -> state().
stop_tracing(#state{armed = Armed, timer = Timer} = S) ->
    _ = [erlang:trace_pattern(MFA, false, [meta]) || MFA <- ?HOOKS],
    _ = [erlang:trace_pattern(MFA, false, [call_time]) || MFA <- maps:keys(Armed)],
    _ = erlang:trace(new, false, [call]),
    _ = [untrace_ours(P) || P <- processes()],
    _ = is_reference(Timer) andalso erlang:cancel_timer(Timer),
    S#state{tracing = false, timer = undefined}.

-spec untrace_ours(pid()) -> boolean().
untrace_ours(Pid) ->
    Self = self(),
    case erlang:trace_info(Pid, tracer) of
        {tracer, Self} ->
            try erlang:trace(Pid, false, [call]) of
                _ -> true
            catch
                error:badarg -> false   % it exited meanwhile
            end;
        _ ->
            false
    end.

-spec wait_agents([pid()]) -> ok.
wait_agents(Pids) ->
    Deadline = erlang:monotonic_time(millisecond) + ?ORPHAN_WAIT_MS,
    lists:foreach(
      fun (P) ->
              Ref = monitor(process, P),
              Left = max(0, Deadline - erlang:monotonic_time(millisecond)),
              receive {'DOWN', Ref, process, P, _} -> ok
              after Left -> demonitor(Ref, [flush])
              end
      end, Pids).

-spec schedule(state()) -> state().
schedule(#state{interval = Interval} = S) ->
    S#state{timer = erlang:send_after(Interval, self(), snapshot)}.

-spec t_ms(state()) -> non_neg_integer().
t_ms(#state{t0 = T0}) ->
    max(0, erlang:monotonic_time(millisecond) - T0).
