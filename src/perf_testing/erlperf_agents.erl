%%% @doc The tracing agents of a performance test, seen from the controlling node: puts
%%% them on a test node, collects what they measured, runs the impact benchmark there
%%% and removes them.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>agents</b>: three processes on the test node, started in this order:
%%%       the tracer ({@link erlperf_agent_tracer}: calls and time of the target
%%%       functions per process, conflicts, reloads), the discoverer
%%%       ({@link erlperf_agent_discoverer}: which processes call them) and the metrics
%%%       collector ({@link erlperf_agent_metrics}: samples of those processes and of the
%%%       node). The impact benchmark ({@link erlperf_agent_impact}) and the match
%%%       specifications ({@link erlperf_agent_ms}) are modules without processes.</li>
%%%   <li><b>flow</b>: the process that calls {@link start/2} (the performance test's
%%%       flow). The agents watch it and the controlling node: when either goes, they
%%%       remove everything they set and their modules by themselves.</li>
%%%   <li><b>raw</b>: times in the results are as traced; the flow subtracts the impact
%%%       (microseconds per call) times the calls.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% ok = erlperf_agents:start(Node, #{patterns => [{sut, handle, 2}]}),
%%% ... load ...
%%% {ok, #{functions := Functions, active_max := Max}} = erlperf_agents:collect(Node),
%%% {ok, #{counting := Us, discovering := DiscoveringUs}} = erlperf_agents:impact(Node, Max),
%%% ok = erlperf_agents:remove(Node).
%%% '''
%%% Cost and safety: see the agents' modules. Patterns matching everything
%%% (`{'_', '_', '_'}'), patterns on erlperf's agent modules and patterns that would
%%% trace the BIFs the tracer watches (`erlang:trace/3', `erlang:trace_pattern/2,3',
%%% `erlang:prepare_loading/2', `erlang:finish_loading/1') are refused before anything
%%% is put on the node. {@link remove/1} leaves no pattern, flag, process or module of
%%% the agents on the node, whatever state they are in.
-module(erlperf_agents).

%% API: called by erlperf_perf_test.
-export([start/2, collect/1, impact/2, remove/1, format_error/1]).

-export_type([pattern/0, options/0, node_results/0]).

%% How long an RPC to a test node may take (collect reads every target's counts; impact
%% runs ?MAX_CALLERS rounds and compiles a tree of up to 100,000 pids).
-define(RPC_TIMEOUT_MS, 120000).
%% Default milliseconds between two samples of the metrics agent (and counts snapshots).
-define(DEFAULT_INTERVAL_MS, 1000).
%% Default milliseconds without a new process before the discoverer goes dormant.
-define(DEFAULT_QUIET_MS, 250).
%% The agents' modules, in start order (helpers first).
-define(MODULES, [erlperf_agent_ms, erlperf_agent_tracer, erlperf_agent_discoverer,
                  erlperf_agent_metrics, erlperf_agent_impact]).
%% The agents' processes, in start order.
-define(AGENTS, [erlperf_agent_tracer, erlperf_agent_discoverer, erlperf_agent_metrics]).
%% The BIFs the tracer agent meta-traces.
-define(HOOKED, [{erlang, trace, 3}, {erlang, trace_pattern, 2}, {erlang, trace_pattern, 3},
                 {erlang, prepare_loading, 2}, {erlang, finish_loading, 1}]).

-type pattern() :: erlperf_load_generator:trace_pattern().

%% Options of start/2:
%% - patterns: the target functions (required, at least one);
%% - interval: milliseconds between samples, counts snapshots and sweeps (default
%%   ?DEFAULT_INTERVAL_MS);
%% - quiet: milliseconds without a new process before the discoverer's patterns go
%%   dormant, or `infinity' to keep them (default ?DEFAULT_QUIET_MS; see
%%   erlperf_agent_discoverer).
-type options() :: #{patterns := [pattern()], interval => pos_integer(),
                     quiet => pos_integer() | infinity}.

-type samples() :: [[non_neg_integer()]].

-type node_results() ::
        #{functions := [#{mfa := mfa(), calls := non_neg_integer(),
                          time_us := non_neg_integer(), calls_discovering := non_neg_integer(),
                          per_process := [#{pid := pid(), calls := non_neg_integer(),
                                            time_us := non_neg_integer(),
                                            calls_discovering := non_neg_integer()}]}],
          processes := [#{pid := pid(), name := atom() | mfa(), found_by := mfa(),
                          exited := false | non_neg_integer(),
                          memory := samples(), reductions := samples(),
                          message_queue_len := samples()}],
          node_metrics := #{memory_total := samples(), process_count := samples(),
                            scheduler_utilisation := [[number()]]},
          active_max := non_neg_integer(),
          discovery := [[non_neg_integer()]],
          conflicts := [#{kind := trace | trace_pattern | meta, caller := pid(),
                          detail := binary()}],
          reloads := [#{module := module(), t_ms := non_neg_integer()}],
          duration_ms := non_neg_integer()}.

%%--------------------------------------------------------------------
%% API

%% @doc Puts the agent modules on `Node' and starts the tracer, the discoverer and the
%% metrics collector there, watching the calling process and this node. On failure,
%% whatever was started is removed.
-spec start(node(), options()) -> ok | {error, term()}.
start(Node, Options) when is_atom(Node), is_map(Options) ->
    #{patterns := Patterns, interval := Interval, quiet := Quiet} = validate(Options),
    case refused(Patterns) of
        [] ->
            Config = #{flow => self(), controller => node(), patterns => Patterns,
                       interval => Interval, quiet => Quiet},
            start_agents(Node, Config);
        [{Pattern, Why} | _] ->
            {error, {refused_pattern, Pattern, Why}}
    end.

%% @doc Stops tracing and sampling on `Node' and returns what was measured there (times
%% not compensated). The agents stay, idle, until {@link remove/1}.
-spec collect(node()) -> {ok, node_results()} | {error, term()}.
collect(Node) ->
    try
        {ok, Metrics} = rpc(Node, erlperf_agent_metrics, collect, []),
        {ok, Discovered} = rpc(Node, erlperf_agent_discoverer, collect, []),
        {ok, Traced} = rpc(Node, erlperf_agent_tracer, collect, []),
        {ok, merge(Traced, Discovered, Metrics)}
    catch
        throw:{rpc, Reason} -> {error, {agents, Node, Reason}};
        error:{badmatch, {error, Reason}} -> {error, {agents, Node, Reason}}
    end.

%% @doc The overhead the agents' tracing adds to one call, in microseconds, while the
%% discoverer is dormant (`counting') and while it discovers (`discovering'), measured
%% on `Node' with `Processes' known processes (see {@link erlperf_agent_impact}). Call
%% it after {@link collect/1}.
-spec impact(node(), non_neg_integer()) ->
          {ok, #{counting := float(), discovering := float()}} | {error, term()}.
impact(Node, Processes) when is_integer(Processes), Processes >= 0 ->
    try rpc(Node, erlperf_agent_impact, run, [Processes])
    catch throw:{rpc, Reason} -> {error, {agents, Node, Reason}}
    end.

%% @doc Stops the agents on `Node' (each removes the patterns and flags it set) and
%% removes the agents' modules. Idempotent: `ok' when the node is down or the agents
%% never started.
-spec remove(node()) -> ok.
remove(Node) ->
    _ = [stop_agent(Node, A) || A <- lists:reverse(?AGENTS)],
    _ = [erlperf_perf_node:remove_mod(M, Node) || M <- ?MODULES],
    ok.

%% @doc Text for the reasons this module returns.
-spec format_error(term()) -> string().
format_error({refused_pattern, Pattern, Why}) ->
    lists:flatten(io_lib:format("trace pattern ~0tp refused: ~ts",
                                [Pattern, refusal_text(Why)]));
format_error({inject, _, _, _} = Reason) ->
    erlperf_perf_node:format_error(Reason);
format_error({agents, Node, {already_running, Agent}}) ->
    lists:flatten(io_lib:format("the agents already run on ~ts (~ts)", [Node, Agent]));
format_error({agents, Node, already_collected}) ->
    lists:flatten(io_lib:format("the agents on ~ts were already collected", [Node]));
format_error({agents, Node, {start, Agent, Reason}}) ->
    lists:flatten(io_lib:format("cannot start ~ts on ~ts: ~0tp", [Agent, Node, Reason]));
format_error({agents, Node, Reason}) ->
    lists:flatten(io_lib:format("agents on ~ts: ~0tp", [Node, Reason])).

%%--------------------------------------------------------------------
%% Internal functions

-spec validate(map()) -> #{patterns := [pattern()], interval := pos_integer(),
                           quiet := pos_integer() | infinity}.
validate(Options) ->
    Full = maps:merge(#{interval => ?DEFAULT_INTERVAL_MS, quiet => ?DEFAULT_QUIET_MS}, Options),
    maps:foreach(fun check_option/2, Full),
    is_map_key(patterns, Full) orelse erlang:error({invalid_option, patterns, missing}),
    Full.

-spec check_option(atom(), term()) -> ok.
check_option(patterns, [_ | _] = Patterns) ->
    _ = [erlang:error({invalid_option, patterns, P})
         || P <- Patterns, not erlperf_load_generator:is_trace_pattern(P)],
    ok;
check_option(interval, I) when is_integer(I), I > 0 ->
    ok;
check_option(quiet, Q) when (is_integer(Q) andalso Q > 0) orelse Q =:= infinity ->
    ok;
check_option(Key, Value) ->
    erlang:error({invalid_option, Key, Value}).

%% Patterns refused, with the reason.
-spec refused([pattern()]) -> [{pattern(), everything | agent_module | tracing_bif}].
refused(Patterns) ->
    [{P, Why} || P <- Patterns, Why <- [refusal(P)], Why =/= ok].

-spec refusal(pattern()) -> ok | everything | agent_module | tracing_bif.
refusal({'_', '_', '_'}) ->
    everything;
refusal({M, F, A}) ->
    case M =/= '_' andalso lists:prefix("erlperf_agent", atom_to_list(M)) of
        true ->
            agent_module;
        false ->
            Hooked = [H || {HM, HF, HA} = H <- ?HOOKED, M =:= HM, F =:= '_' orelse F =:= HF,
                           A =:= '_' orelse A =:= HA],
            case Hooked of
                [] -> ok;
                _ -> tracing_bif
            end
    end.

-spec refusal_text(everything | agent_module | tracing_bif) -> string().
refusal_text(everything) ->
    "it matches every function of the node (name a module or a function)";
refusal_text(agent_module) ->
    "it names erlperf's own agents";
refusal_text(tracing_bif) ->
    "it matches a BIF the tracer agent watches (erlang:trace/3, erlang:trace_pattern/2,3, "
    "erlang:prepare_loading/2, erlang:finish_loading/1)".

-spec start_agents(node(), map()) -> ok | {error, term()}.
start_agents(Node, Config) ->
    try
        ok = inject(Node, ?MODULES),
        T0 = rpc(Node, erlang, monotonic_time, [millisecond]),
        _ = [start_agent(Node, A, Config#{t0 => T0}) || A <- ?AGENTS],
        ok
    catch
        throw:{inject, Reason} -> remove(Node), {error, Reason};
        throw:{rpc, Reason} -> remove(Node), {error, {agents, Node, Reason}}
    end.

-spec inject(node(), [module()]) -> ok.
inject(_Node, []) ->
    ok;
inject(Node, [M | Ms]) ->
    case erlperf_perf_node:inject_mod(M, Node) of
        ok -> inject(Node, Ms);
        {error, Reason} -> throw({inject, Reason})
    end.

-spec start_agent(node(), module(), map()) -> pid().
start_agent(Node, Agent, Config) ->
    case rpc(Node, Agent, start, [Config]) of
        {ok, Pid} -> Pid;
        {error, {already_started, _}} -> throw({rpc, {already_running, Agent}});
        {error, Reason} -> throw({rpc, {start, Agent, Reason}})
    end.

-spec stop_agent(node(), module()) -> ok.
stop_agent(Node, Agent) ->
    try erpc:call(Node, gen_server, stop, [Agent, normal, ?RPC_TIMEOUT_MS], ?RPC_TIMEOUT_MS)
    catch _:_ -> ok   % not running, or the node is down
    end.

-spec rpc(node(), module(), atom(), list()) -> term().
rpc(Node, M, F, A) ->
    try erpc:call(Node, M, F, A, ?RPC_TIMEOUT_MS)
    catch
        error:{erpc, Reason} -> throw({rpc, Reason});
        error:{exception, Reason, _Stack} -> throw({rpc, Reason});
        exit:{exception, {noproc, _}} -> throw({rpc, not_running});
        exit:{exception, Reason} -> throw({rpc, Reason});
        Class:Reason -> throw({rpc, {Class, Reason}})
    end.

%% The three agents' results as one map: the processes get their samples.
-spec merge(map(), map(), map()) -> node_results().
merge(#{functions := Functions, conflicts := Conflicts, reloads := Reloads,
        duration_ms := Duration},
      #{processes := Processes, active_max := ActiveMax, phases := Phases},
      #{processes := Samples, node_metrics := NodeMetrics}) ->
    Empty = #{memory => [], reductions => [], message_queue_len => []},
    #{functions => Functions,
      processes => [maps:merge(P, maps:get(Pid, Samples, Empty)) || #{pid := Pid} = P <- Processes],
      node_metrics => NodeMetrics, active_max => ActiveMax, discovery => Phases,
      conflicts => Conflicts,
      reloads => Reloads, duration_ms => Duration}.
