%%% @doc The impact benchmark, on a test node: what the agents' tracing adds to one call
%%% of a target function, in microseconds (paper, section 3.5).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>dummy</b>: {@link dummy/1}, a function doing nothing, called ?CALLS times
%%%       in a row by one process: a <b>round</b>. ?CALLS calls fit in one time slice,
%%%       so a round is not scheduled out (paper, footnote 12).</li>
%%%   <li><b>untraced</b>: rounds of fresh processes with no pattern on the dummy.</li>
%%%   <li><b>counting</b>: rounds with the dummy traced as targets are while the
%%%       discoverer is dormant: a `call_time' pattern and the `call' flag on the
%%%       caller.</li>
%%%   <li><b>discovering</b>: rounds with the dummy traced as targets are while the
%%%       discoverer discovers: counting plus a discovery pattern whose known tree holds
%%%       N processes, the callers among them (so no message is sent). N is the highest
%%%       number of discovered processes alive at once in the run, at least 1; up to
%%%       ?MAX_CALLERS of the N processes, spread over them, each run one round, one
%%%       after another.</li>
%%%   <li><b>impact</b>: for counting and for discovering, the median time per call
%%%       minus the median untraced one, never below 0.</li>
%%% </ul>
%%%
%%% Example (erlperf_agents:impact/2 does this over erpc, after collect):
%%% ```
%%% {ok, #{counting := Us, discovering := DiscoveringUs}} = erlperf_agent_impact:run(100).
%%% '''
%%% Cost and safety: spawns N idle processes (a few hundred bytes each) and compiles a
%%% tree of N pids once; runs about 3 x ?MAX_CALLERS rounds of ?CALLS calls. It traces
%%% only its own dummy function and its own processes, and removes the patterns, flags
%%% and processes before returning, also when it fails. Run it after the agents'
%%% collect: while the tracer agent runs, its hooks would report the benchmark's own
%%% trace calls as conflicts.
-module(erlperf_agent_impact).

%% API: called on the test node by erlperf_agents (over erpc), and by the agents' bench.
-export([run/1]).

%% Internal exports: the traced function and the loop calling it.
-export([dummy/1, calls/1]).

%% Calls of the dummy in a round.
-define(CALLS, 4000).
%% The most rounds on each side (untraced, traced).
-define(MAX_CALLERS, 64).
%% How long a round may take before the benchmark gives up.
-define(ROUND_TIMEOUT_MS, 30000).

%%--------------------------------------------------------------------
%% API

%% @doc Runs the benchmark with `Processes' known processes (0 is taken as 1): the
%% microseconds a call pays while the discoverer is dormant (`counting') and while it
%% discovers (`discovering').
-spec run(non_neg_integer()) -> {ok, #{counting := float(), discovering := float()}}.
run(Processes) ->
    N = max(1, Processes),
    Rounds = min(N, ?MAX_CALLERS),
    Untraced = median([round_in(spawn_idle()) || _ <- lists:seq(1, Rounds)]),
    Counting = traced(Rounds, false),
    Discovering = traced(N, true),
    {ok, #{counting => max(0.0, Counting - Untraced),
           discovering => max(0.0, Discovering - Untraced)}}.

%% @doc The function the benchmark calls.
-spec dummy(term()) -> term().
dummy(X) ->
    X.

%% @doc Calls the dummy `Calls' times; returns the microseconds per call.
-spec calls(non_neg_integer()) -> float().
calls(Calls) ->
    Start = erlang:monotonic_time(nanosecond),
    ok = loop(Calls),
    (erlang:monotonic_time(nanosecond) - Start) / 1000 / Calls.

%%--------------------------------------------------------------------
%% Internal functions

-spec loop(non_neg_integer()) -> ok.
loop(0) ->
    ok;
loop(N) ->
    _ = ?MODULE:dummy(N),
    loop(N - 1).

%% The median time per call of rounds by N processes' callers, with or without the
%% discovery pattern.
-spec traced(pos_integer(), boolean()) -> float().
traced(N, Discovery) ->
    MFA = {?MODULE, dummy, 1},
    Pids = [spawn_idle() || _ <- lists:seq(1, N)],
    Callers = spread(Pids, min(N, ?MAX_CALLERS)),
    try
        1 = erlang:trace_pattern(MFA, true, [call_time]),
        1 = case Discovery of
                true -> erlang:trace_pattern(MFA, erlperf_agent_ms:discovery_spec(Pids),
                                             [{meta, self()}]);
                false -> 1
            end,
        _ = [erlang:trace(P, true, [call, {tracer, self()}]) || P <- Callers],
        median([round_in(P) || P <- Callers])
    after
        _ = erlang:trace_pattern(MFA, false, [call_time]),
        _ = erlang:trace_pattern(MFA, false, [meta]),
        _ = [untrace(P) || P <- Callers],
        _ = [exit(P, kill) || P <- Pids],
        flush()
    end.

%% Stops tracing a caller; one that has exited is already untraced.
untrace(Pid) ->
    try erlang:trace(Pid, false, [call])
    catch error:badarg -> 0
    end.

%% Every (N div K)th element, K of them.
-spec spread([pid()], pos_integer()) -> [pid()].
spread(Pids, K) ->
    Step = max(1, length(Pids) div K),
    lists:sublist([P || {I, P} <- lists:zip(lists:seq(0, length(Pids) - 1), Pids),
                        I rem Step =:= 0], K).

-spec spawn_idle() -> pid().
spawn_idle() ->
    spawn(fun idle/0).

-spec idle() -> ok.
idle() ->
    receive
        {round, From} -> From ! {round, self(), calls(?CALLS)}, idle();
        stop -> ok
    end.

%% Has the process run a round, then stop.
-spec round_in(pid()) -> float().
round_in(Pid) ->
    Ref = monitor(process, Pid),
    Pid ! {round, self()},
    receive
        {round, Pid, PerCall} ->
            Pid ! stop,
            demonitor(Ref, [flush]),
            PerCall;
        {'DOWN', Ref, process, Pid, Reason} ->
            erlang:error({impact_round, Reason})
    after ?ROUND_TIMEOUT_MS ->
            erlang:error({impact_round, timeout})
    end.

-spec median([float()]) -> float().
median(Values) ->
    Sorted = lists:sort(Values),
    lists:nth((length(Sorted) + 1) div 2, Sorted).

-spec flush() -> ok.
flush() ->
    receive
        {trace_ts, _, _, _, _} -> flush();
        {trace, _, _, _} -> flush()
    after 0 ->
            ok
    end.
