%%% @doc The process discoverer's cost against the number of known processes (`make
%%% bench'; the paper's Fig. 4, configuration 3).
%%%
%%% The impact benchmark's dummy function (`erlperf_agent_impact:dummy/1', called in its
%%% loop, `erlperf_agent_impact:calls/1') carries the discoverer's meta trace pattern
%%% whose known tree ({@link erlperf_agent_ms:discovery_spec/1}) holds K pids, the caller's among them, so
%%% no message is sent: what a call pays is the tree guard. For K = 1, 10, ..., 100,000 it
%%% prints the nanoseconds per call untraced and traced, the overhead (traced minus
%%% untraced), and the growth: overhead per doubling of K beyond K = 1, and
%%% overhead(K) / overhead(1). A balanced tree makes the growth logarithmic: the
%%% overhead per doubling stays about constant, and overhead(100000) / overhead(1000)
%%% stays far below 100 (the ratio of the sizes); it is printed last.
%%%
%%% Method: the caller is a fresh process; untraced and traced rounds of ?CALLS calls
%%% alternate, ?ROUNDS of each, and the fastest round of each side is kept (interference
%%% only slows a round down). The other K - 1 pids are of processes that exited at once
%%% (only the terms matter to the guard); the caller, the newest, sits at the deepest
%%% right-hand leaf.
%%%
%%% Cost: a few seconds; compiling the tree of 100,000 pids takes about half a second.
-module(erlperf_bench_agents).

-export([main/0]).

%% Internal export: the caller's loop.
-export([caller/0]).

%% Known processes in the tree, one measurement each.
-define(SIZES, [1, 10, 100, 1000, 10000, 100000]).
%% Calls in a round, and rounds of each side.
-define(CALLS, 200000).
-define(ROUNDS, 7).
%% How long a round may take.
-define(ROUND_TIMEOUT_MS, 60000).

%% @doc Measures and prints the figures.
-spec main() -> ok.
main() ->
    io:format("Process discoverer: a target call by a known caller, K known processes~n"),
    io:format("~8s ~12s ~12s ~12s ~14s ~10s~n",
              ["K", "untraced ns", "traced ns", "overhead ns", "per doubling", "x K=1"]),
    Rows = [measure(K) || K <- ?SIZES],
    {_, _, _, Base} = hd(Rows),
    _ = [print(Row, Base) || Row <- Rows],
    Cost = maps:from_list([{K, O} || {K, _, _, O} <- Rows]),
    io:format("overhead(100000) / overhead(1000) = ~.2f (sizes: x100)~n",
              [maps:get(100000, Cost) / max(1.0e-3, maps:get(1000, Cost))]).

-spec print({pos_integer(), float(), float(), float()}, float()) -> ok.
print({K, Untraced, Traced, Overhead}, Base) ->
    PerDoubling = case K of
                      1 -> "-";
                      _ -> io_lib:format("~.2f", [(Overhead - Base) / math:log2(K)])
                  end,
    io:format("~8b ~12.1f ~12.1f ~12.1f ~14s ~10.2f~n",
              [K, Untraced, Traced, Overhead, PerDoubling, Overhead / max(1.0e-3, Base)]).

%% @doc The caller: runs a round of ?CALLS calls when asked and replies with the
%% nanoseconds per call.
-spec caller() -> ok.
caller() ->
    receive
        {round, From} ->
            %% the impact benchmark's own dummy and loop (microseconds per call)
            From ! {round, self(), erlperf_agent_impact:calls(?CALLS) * 1000},
            caller();
        stop ->
            ok
    end.

-spec measure(pos_integer()) -> {pos_integer(), float(), float(), float()}.
measure(K) ->
    Others = [spawn(fun () -> ok end) || _ <- lists:seq(1, K - 1)],
    Caller = spawn(fun caller/0),
    Spec = erlperf_agent_ms:discovery_spec([Caller | Others]),
    MFA = {erlperf_agent_impact, dummy, 1},
    try
        Pairs = [begin
                     Untraced = run_round(Caller),
                     1 = erlang:trace_pattern(MFA, Spec, [{meta, self()}]),
                     Traced = run_round(Caller),
                     1 = erlang:trace_pattern(MFA, false, [meta]),
                     {Untraced, Traced}
                 end || _ <- lists:seq(1, ?ROUNDS)],
        U = lists:min([A || {A, _} <- Pairs]),
        T = lists:min([B || {_, B} <- Pairs]),
        {K, U, T, max(0.0, T - U)}
    after
        _ = erlang:trace_pattern(MFA, false, [meta]),
        Caller ! stop,
        no_messages()
    end.

-spec run_round(pid()) -> float().
run_round(Caller) ->
    Caller ! {round, self()},
    receive {round, Caller, Ns} -> Ns
    after ?ROUND_TIMEOUT_MS -> erlang:error({round_timeout, Caller})
    end.

%% The caller is known: a trace message would mean the guard failed.
-spec no_messages() -> ok.
no_messages() ->
    receive
        {trace_ts, _, call, _, _} = Msg -> erlang:error({unexpected_discovery, Msg})
    after 0 ->
            ok
    end.
