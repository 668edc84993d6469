%%% @doc The metrics collector agent, on a test node: samples the discovered processes
%%% and the node every `interval' milliseconds (paper, section 3.5).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>sample</b>: `[T_ms, Value]', T_ms the milliseconds since the agents
%%%       started.</li>
%%%   <li><b>process metrics</b>: `memory' (bytes), `reductions' (the process's total so
%%%       far) and `message_queue_len' of each discovered process alive at the time
%%%       (asked from {@link erlperf_agent_discoverer}).</li>
%%%   <li><b>node metrics</b>: `memory_total' (`erlang:memory(total)', bytes),
%%%       `process_count', and `scheduler_utilisation': the share of wall time the
%%%       schedulers were busy since the previous sample (0.0 to 1.0), from
%%%       `statistics(scheduler_wall_time)'.</li>
%%% </ul>
%%%
%%% Example (erlperf_agents does this over erpc, after the discoverer):
%%% ```
%%% {ok, _} = erlperf_agent_metrics:start(Config),
%%% ... load ...
%%% {ok, #{node_metrics := #{memory_total := [[0, Bytes] | _]}}} = erlperf_agent_metrics:collect().
%%% '''
%%% Cost and safety: one `process_info/2' per discovered process per sample (at most
%%% the discoverer's limit of processes), three numbers kept per process and sample.
%%% The `scheduler_wall_time' system flag is turned on by this agent's process: the VM
%%% counts it per process, so it is restored (turned off for us) when the agent stops
%%% or dies, whatever else turned it on. The agent monitors the flow process and the
%%% controlling node and exits when either goes.
-module(erlperf_agent_metrics).
-behaviour(gen_server).

%% API: called on the test node by erlperf_agents (over erpc).
-export([start/1, collect/0, samples/0]).

%% gen_server callbacks.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

%% How long a call to the agent may take.
-define(CALL_TIMEOUT_MS, 60000).

%% Samples of a process, newest first: memory, reductions, message queue length.
-type series() :: [[non_neg_integer()]].

-record(state, {
          flow :: pid(),
          controller :: node(),
          t0 :: integer(),
          interval :: pos_integer(),
          timer :: reference() | undefined,
          wall :: [{pos_integer(), non_neg_integer(), non_neg_integer()}] | undefined,
          procs = #{} :: #{pid() => {series(), series(), series()}},
          memory = [] :: series(),
          count = [] :: series(),
          utilisation = [] :: [[number()]],
          sampling = true :: boolean()
         }).

-type state() :: #state{}.

%%--------------------------------------------------------------------
%% API

%% @doc Starts the metrics agent (registered as this module); the discoverer must run.
-spec start(erlperf_agent_tracer:config()) -> {ok, pid()} | {error, term()}.
start(Config) ->
    gen_server:start({local, ?MODULE}, ?MODULE, Config, []).

%% @doc Takes a last sample (unless one was taken in this millisecond), stops sampling
%% and returns the samples, oldest first.
-spec collect() -> {ok, #{processes := #{pid() => map()}, node_metrics := map()}}.
collect() ->
    gen_server:call(?MODULE, collect, ?CALL_TIMEOUT_MS).

%% @doc How many samples of the node the agent took so far.
-spec samples() -> non_neg_integer().
samples() ->
    gen_server:call(?MODULE, samples, ?CALL_TIMEOUT_MS).

%%--------------------------------------------------------------------
%% gen_server callbacks

%% @private
-spec init(erlperf_agent_tracer:config()) -> {ok, state()}.
init(#{flow := Flow, controller := Controller, t0 := T0, interval := Interval}) ->
    _ = process_flag(priority, high),
    ok = erlperf_agent_tracer:exclude(self()),
    _ = monitor(process, Flow, [{tag, flow_down}]),
    true = monitor_node(Controller, true),
    _ = erlang:system_flag(scheduler_wall_time, true),
    S = #state{flow = Flow, controller = Controller, t0 = T0, interval = Interval,
               wall = wall()},
    {ok, schedule(sample(S))}.

%% @private
-spec handle_call(term(), gen_server:from(), state()) -> {reply, term(), state()}.
handle_call(collect, _From, #state{sampling = true} = S) ->
    S1 = stop_sampling(last_sample(S)),
    Procs = maps:map(fun (_, {M, R, Q}) ->
                             #{memory => lists:reverse(M), reductions => lists:reverse(R),
                               message_queue_len => lists:reverse(Q)}
                     end, S1#state.procs),
    Node = #{memory_total => lists:reverse(S1#state.memory),
             process_count => lists:reverse(S1#state.count),
             scheduler_utilisation => lists:reverse(S1#state.utilisation)},
    {reply, {ok, #{processes => Procs, node_metrics => Node}}, S1};
handle_call(collect, _From, S) ->
    {reply, {error, already_collected}, S};
handle_call(samples, _From, S) ->
    {reply, length(S#state.memory), S}.

%% @private
-spec handle_cast(term(), state()) -> {noreply, state()}.
handle_cast(_Msg, S) ->
    {noreply, S}.

%% @private
-spec handle_info(term(), state()) -> {noreply, state()} | {stop, term(), state()}.
handle_info(sample, #state{sampling = true} = S) ->
    {noreply, schedule(sample(S))};
handle_info({flow_down, _, process, _, _}, S) ->
    {stop, {shutdown, flow_down}, S};
handle_info({nodedown, Node}, #state{controller = Node} = S) ->
    {stop, {shutdown, controller_down}, S};
handle_info(_Other, S) ->
    {noreply, S}.

%% @private
-spec terminate(term(), state()) -> ok.
terminate(_Reason, S) ->
    _ = stop_sampling(S),
    ok.

%%--------------------------------------------------------------------
%% Internal functions

-spec sample(state()) -> state().
sample(#state{t0 = T0} = S) ->
    T = max(0, erlang:monotonic_time(millisecond) - T0),
    Pids = try erlperf_agent_discoverer:live()
           catch exit:_ -> []   % the discoverer is stopping
           end,
    Procs = lists:foldl(fun (P, Acc) -> sample_process(P, T, Acc) end, S#state.procs, Pids),
    Wall = wall(),
    Util = case utilisation(S#state.wall, Wall) of
               undefined -> S#state.utilisation;
               U -> [[T, U] | S#state.utilisation]
           end,
    S#state{procs = Procs, wall = Wall, utilisation = Util,
            memory = [[T, erlang:memory(total)] | S#state.memory],
            count = [[T, erlang:system_info(process_count)] | S#state.count]}.

%% A last sample, unless one was taken in this millisecond (times stay increasing).
-spec last_sample(state()) -> state().
last_sample(#state{t0 = T0, memory = [[Last, _] | _]} = S) ->
    case max(0, erlang:monotonic_time(millisecond) - T0) of
        Last -> S;
        _ -> sample(S)
    end;
last_sample(S) ->
    sample(S).

-spec sample_process(pid(), non_neg_integer(), #{pid() => {series(), series(), series()}}) ->
          #{pid() => {series(), series(), series()}}.
sample_process(Pid, T, Acc) ->
    case process_info(Pid, [memory, reductions, message_queue_len]) of
        [{memory, M}, {reductions, R}, {message_queue_len, Q}] ->
            {Ms, Rs, Qs} = maps:get(Pid, Acc, {[], [], []}),
            Acc#{Pid => {[[T, M] | Ms], [[T, R] | Rs], [[T, Q] | Qs]}};
        undefined ->
            Acc
    end.

-spec wall() -> [{pos_integer(), non_neg_integer(), non_neg_integer()}] | undefined.
wall() ->
    case erlang:statistics(scheduler_wall_time) of
        undefined -> undefined;
        List -> lists:sort(List)
    end.

%% Busy share of the schedulers' wall time between two readings.
-spec utilisation(Old, New) -> float() | undefined when
      Old :: [{pos_integer(), non_neg_integer(), non_neg_integer()}] | undefined,
      New :: [{pos_integer(), non_neg_integer(), non_neg_integer()}] | undefined.
utilisation(Old, New) when is_list(Old), is_list(New) ->
    {Active, Total} = lists:foldl(
                        fun ({{I, A0, T0}, {I, A1, T1}}, {A, T}) -> {A + A1 - A0, T + T1 - T0} end,
                        {0, 0}, lists:zip(Old, New)),
    case Total > 0 of
        true -> min(1.0, max(0.0, Active / Total));
        false -> undefined
    end;
utilisation(_Old, _New) ->
    undefined.

-spec stop_sampling(state()) -> state().
stop_sampling(#state{sampling = true, timer = Timer} = S) ->
    _ = is_reference(Timer) andalso erlang:cancel_timer(Timer),
    _ = erlang:system_flag(scheduler_wall_time, false),
    S#state{sampling = false, timer = undefined};
stop_sampling(S) ->
    S.

-spec schedule(state()) -> state().
schedule(#state{interval = Interval} = S) ->
    S#state{timer = erlang:send_after(Interval, self(), sample)}.
