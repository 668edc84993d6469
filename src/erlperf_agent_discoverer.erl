%%% @doc The process discoverer agent, on a test node: finds the processes that call
%%% the target functions, names them, and tells when they exit (paper, section 3.4).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>discovery pattern</b>: a meta trace pattern of ours on every target armed by
%%%       {@link erlperf_agent_tracer}, with the match specification of
%%%       {@link erlperf_agent_ms:discovery_spec/1}: a caller sends a message only when
%%%       it is not in the <b>known tree</b> (the discovered processes still alive).</li>
%%%   <li><b>discovered process</b>: a caller reported by a discovery message. Its name is
%%%       its registered name, else its initial call (proc_lib's, else the VM's, unless
%%%       that is the uninformative `erlang:apply/2' of a fun), else the target that
%%%       revealed it, as `"m:f/a"'.</li>
%%%   <li><b>rebuild</b>: setting the discovery patterns again with a new tree. The agent
%%%       first takes every discovery and exit message already queued, so a burst of new
%%%       callers costs one rebuild.</li>
%%% </ul>
%%%
%%% Example (erlperf_agents does this over erpc, after starting the tracer):
%%% ```
%%% {ok, _} = erlperf_agent_discoverer:start(Config),
%%% ... load ...
%%% {ok, #{processes := Processes, active_max := Max}} = erlperf_agent_discoverer:collect().
%%% '''
%%% Cost and safety: a caller already known pays the tree guard, about log2(N)
%%% comparisons for N known processes (see `make bench'); a new caller sends one message
%%% holding the call's arguments (copied once per discovery, large arguments included).
%%% A rebuild compiles the tree once per target. At most ?MAX_DISCOVERED processes are
%%% discovered: then the discovery patterns are removed (later callers are still counted
%%% by the tracer, per process, but neither named nor sampled). The agent monitors the
%%% flow process and the controlling node: when either goes, it removes its patterns and
%%% exits (the tracer agent then deletes the modules).
-module(erlperf_agent_discoverer).
-behaviour(gen_server).

%% API: called on the test node by erlperf_agents (over erpc) and by the metrics agent.
-export([start/1, collect/0, live/0]).

%% gen_server callbacks.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

%% How long a call to the agent may take.
-define(CALL_TIMEOUT_MS, 60000).
%% The most processes discovered (each is kept, named, sampled and in the tree).
-define(MAX_DISCOVERED, 100000).

-record(proc, {
          name :: binary(),
          found_by :: mfa(),
          exited = false :: false | non_neg_integer()
         }).

-record(state, {
          flow :: pid(),
          controller :: node(),
          t0 :: integer(),
          targets = [] :: [mfa()],
          procs = #{} :: #{pid() => #proc{}},
          alive = #{} :: #{pid() => reference()},
          active_max = 0 :: non_neg_integer(),
          discovering = true :: boolean()
         }).

-type state() :: #state{}.

%%--------------------------------------------------------------------
%% API

%% @doc Starts the discoverer (registered as this module); the tracer agent must run.
-spec start(erlperf_agent_tracer:config()) -> {ok, pid()} | {error, term()}.
start(Config) ->
    gen_server:start({local, ?MODULE}, ?MODULE, Config, []).

%% @doc Stops discovering and returns the discovered processes (without samples) and the
%% highest number of them alive at once.
-spec collect() -> {ok, #{processes := [map()], active_max := non_neg_integer()}}.
collect() ->
    gen_server:call(?MODULE, collect, ?CALL_TIMEOUT_MS).

%% @doc The discovered processes alive now.
-spec live() -> [pid()].
live() ->
    gen_server:call(?MODULE, live, ?CALL_TIMEOUT_MS).

%%--------------------------------------------------------------------
%% gen_server callbacks

%% @private
-spec init(erlperf_agent_tracer:config()) -> {ok, state()}.
init(#{flow := Flow, controller := Controller, t0 := T0}) ->
    _ = process_flag(priority, high),
    ok = erlperf_agent_tracer:exclude(self()),
    _ = monitor(process, Flow, [{tag, flow_down}]),
    true = monitor_node(Controller, true),
    S = #state{flow = Flow, controller = Controller, t0 = T0},
    {ok, arm(erlperf_agent_tracer:armed(), S)}.

%% @private
-spec handle_call(term(), gen_server:from(), state()) -> {reply, term(), state()}.
handle_call(live, _From, S) ->
    {reply, lists:sort(maps:keys(S#state.alive)), S};
handle_call(collect, _From, S) ->
    S1 = stop_discovery(S),
    Processes = [#{pid => P, name => N, found_by => F, exited => E}
                 || {P, #proc{name = N, found_by = F, exited = E}}
                        <- lists:sort(maps:to_list(S1#state.procs))],
    {reply, {ok, #{processes => Processes, active_max => S1#state.active_max}}, S1}.

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
    _ = stop_discovery(S),
    ok.

%%--------------------------------------------------------------------
%% Internal functions

%% Sets the discovery pattern on new targets (a reloaded module's new code included).
-spec arm([mfa()], state()) -> state().
arm(MFAs, #state{discovering = true, targets = Targets} = S) ->
    Spec = erlperf_agent_ms:discovery_spec(maps:keys(S#state.alive)),
    _ = [erlang:trace_pattern(MFA, Spec, [{meta, self()}]) || MFA <- MFAs],
    S#state{targets = lists:usort(MFAs ++ Targets)};
arm(_MFAs, S) ->
    S.

%% Takes the queued discoveries and exits with Msgs, then rebuilds once.
-spec batch([tuple()], state()) -> state().
batch(Msgs, S) ->
    S1 = lists:foldl(fun handle_msg/2, S, drain(Msgs)),
    rebuild(S1).

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
handle_msg({'DOWN', Ref, process, Pid, _}, #state{alive = Alive, procs = Procs} = S) ->
    case Alive of
        #{Pid := Ref} ->
            #{Pid := Proc} = Procs,
            S#state{alive = maps:remove(Pid, Alive),
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
    Ref = monitor(process, Pid),
    Proc = #proc{name = name(Pid, MFA), found_by = MFA},
    Alive1 = Alive#{Pid => Ref},
    S1 = S#state{procs = Procs#{Pid => Proc}, alive = Alive1,
                 active_max = max(S#state.active_max, map_size(Alive1))},
    case map_size(S1#state.procs) >= ?MAX_DISCOVERED of
        true -> stop_discovery(S1);
        false -> S1
    end.

%% Registered name, else initial call, else the target that revealed the process.
-spec name(pid(), mfa()) -> binary().
name(Pid, MFA) ->
    case process_info(Pid, [registered_name, initial_call, dictionary]) of
        [{registered_name, Name}, _, _] when is_atom(Name) ->
            atom_to_binary(Name);
        [_, {initial_call, Initial}, {dictionary, Dict}] ->
            case proplists:get_value('$initial_call', Dict, Initial) of
                {erlang, apply, 2} -> mfa_name(MFA);
                {M, F, A} -> mfa_name({M, F, A});
                _ -> mfa_name(MFA)
            end;
        undefined ->
            mfa_name(MFA)
    end.

-spec mfa_name(mfa()) -> binary().
mfa_name({M, F, A}) ->
    iolist_to_binary(io_lib:format("~ts:~ts/~b", [M, F, A])).

-spec rebuild(state()) -> state().
rebuild(#state{discovering = true, targets = Targets} = S) ->
    arm(Targets, S);
rebuild(S) ->
    S.

-spec stop_discovery(state()) -> state().
stop_discovery(#state{discovering = true, targets = Targets} = S) ->
    _ = [erlang:trace_pattern(MFA, false, [meta]) || MFA <- Targets],
    S#state{discovering = false};
stop_discovery(S) ->
    S.

-spec t_ms(state()) -> non_neg_integer().
t_ms(#state{t0 = T0}) ->
    max(0, erlang:monotonic_time(millisecond) - T0).
