%%% @doc erlperf's measurements of itself (`make bench').
%%%
%%% Every figure is a ratio against a reference measured in the same run, on the same VM:
%%% <ul>
%%%   <li>harness overhead: erlperf's continuous-mode rate for `erlang:phash2(12345).'
%%%       against a hand-written compiled loop doing the same calls (goal: >= 0.95);</li>
%%%   <li>empty runner: nanoseconds per iteration of `ok.' minus those of an empty
%%%       hand-written loop (goal: =< 1 ns);</li>
%%%   <li>scaling: throughput with 2 workers over throughput with 1 (goal: >= 0.9 x N,
%%%       here 1.8 on a 2-core machine; N is the number of schedulers, at most 2), beside
%%%       the same ratio for a hand-written loop in N processes: what the machine allows;</li>
%%%   <li>start-up: wall time of `./erlperf 'ok.' -l 1' against a bare VM start
%%%       (goal: =< 0.2 s).</li>
%%% </ul>
%%% References and erlperf runs alternate, each about ?ROUND_MS long, and the best of
%%% `?ROUNDS' rounds is kept for each side (as `timeit' keeps the fastest run): on a shared
%%% or virtual machine, interference only ever slows a run down, so the fastest run is the
%%% closest to what the code costs, and both sides get the same number of chances.
-module(erlperf_bench).

-export([main/0]).

%% Internal exports: hand-written reference loops, run in spawned processes.
-export([phash2_loop/1, empty_loop/1]).

-define(ROUNDS, 25).
%% Length of a round, and iterations of the reference loops per round (about as long).
-define(ROUND_MS, 200).
-define(PHASH2_ITERATIONS, 16000000).
-define(EMPTY_ITERATIONS, 130000000).
%% Runs of the escript for the start-up figure.
-define(STARTUP_RUNS, 10).

%% @doc Runs every measurement and prints the figures.
-spec main() -> ok.
main() ->
    io:format("erlperf self-benchmark on ~ts, ~ts, ~b schedulers~n",
              [maps:get(cpu, erlperf_system:info()), erlang:system_info(otp_release),
               erlang:system_info(schedulers_online)]),
    overhead(),
    empty(),
    scaling(),
    startup().

%%--------------------------------------------------------------------
%% Reference loops

%% @private
-spec phash2_loop(non_neg_integer()) -> ok.
phash2_loop(0) -> ok;
phash2_loop(N) -> erlang:phash2(12345), phash2_loop(N - 1).

%% @private
-spec empty_loop(non_neg_integer()) -> ok.
empty_loop(0) -> ok;
empty_loop(N) -> empty_loop(N - 1).

%% Iterations per second of a reference loop, run in fresh processes (all of them
%% together for the rate of several).
reference_rate(Fun, Iterations) ->
    reference_rate(Fun, Iterations, 1).

reference_rate(Fun, Iterations, Processes) ->
    Self = self(),
    T0 = erlang:monotonic_time(),
    Pids = [spawn(fun () -> ok = ?MODULE:Fun(Iterations), Self ! {self(), done} end)
            || _ <- lists:seq(1, Processes)],
    _ = [receive {Pid, done} -> ok end || Pid <- Pids],
    Native = erlang:monotonic_time() - T0,
    Processes * Iterations / (erlang:convert_time_unit(Native, native, nanosecond) / 1.0e9).

erlperf_rate(Code, Concurrency) ->
    PerSample = erlperf:run(Code, #{concurrency => Concurrency, samples => 1,
                                    sample_duration => ?ROUND_MS, warmup => 1}),
    PerSample * 1000 / ?ROUND_MS.

%%--------------------------------------------------------------------
%% Figures

overhead() ->
    {Ref, Ours} = rounds(fun () -> reference_rate(phash2_loop, ?PHASH2_ITERATIONS) end,
                         fun () -> erlperf_rate("erlang:phash2(12345).", 1) end),
    io:format("~-44s ~12s ~12s ~8s~n", ["harness overhead (phash2)", "hand loop/s", "erlperf/s", "ratio"]),
    io:format("~-44s ~12s ~12s ~8.3f  (goal >= 0.95)~n",
              ["  erlperf rate / hand-written loop rate", si(Ref), si(Ours), Ours / Ref]).

empty() ->
    {Ref, Ours} = rounds(fun () -> reference_rate(empty_loop, ?EMPTY_ITERATIONS) end,
                         fun () -> erlperf_rate("ok.", 1) end),
    RefNs = 1.0e9 / Ref,
    OurNs = 1.0e9 / Ours,
    io:format("~-44s ~12s ~12s ~8s~n", ["empty runner (ok.)", "hand ns", "erlperf ns", "gap ns"]),
    io:format("~-44s ~12.3f ~12.3f ~8.3f  (goal =< 1 ns; ratio ~.3f)~n",
              ["  ns per iteration", RefNs, OurNs, OurNs - RefNs, OurNs / RefNs]).

scaling() ->
    N = min(2, erlang:system_info(schedulers_online)),
    Rounds = [{reference_rate(phash2_loop, ?PHASH2_ITERATIONS, 1),
               reference_rate(phash2_loop, ?PHASH2_ITERATIONS, N),
               erlperf_rate("erlang:phash2(12345).", 1),
               erlperf_rate("erlang:phash2(12345).", N)} || _ <- lists:seq(1, ?ROUNDS)],
    [HandOne, HandMany, One, Many] = [lists:max([element(I, R) || R <- Rounds]) || I <- [1, 2, 3, 4]],
    Workers = io_lib:format("~b workers/s", [N]),
    io:format("~-44s ~12s ~12s ~8s~n", ["scaling (phash2)", "1 worker/s", Workers, "ratio"]),
    io:format("~-44s ~12s ~12s ~8.3f  (goal >= ~.1f)~n",
              [io_lib:format("  erlperf: rate with ~b workers / rate with 1", [N]),
               si(One), si(Many), Many / One, 0.9 * N]),
    io:format("~-44s ~12s ~12s ~8.3f  (what this machine allows)~n",
              [io_lib:format("  hand-written loop in ~b processes / in 1", [N]),
               si(HandOne), si(HandMany), HandMany / HandOne]).

startup() ->
    Escript = filename:absname("erlperf"),
    Erl = os:find_executable("erl"),
    case filelib:is_regular(Escript) of
        false ->
            io:format("start-up: ./erlperf not built, skipped~n");
        true ->
            Bare = median([wall(Erl, ["-noshell", "-eval", "halt()."]) || _ <- lists:seq(1, ?STARTUP_RUNS)]),
            Ours = median([wall(Escript, ["ok.", "-l", "1"]) || _ <- lists:seq(1, ?STARTUP_RUNS)]),
            io:format("~-44s ~12s ~12s ~8s~n", ["start-up", "bare VM s", "erlperf s", "ratio"]),
            io:format("~-44s ~12.3f ~12.3f ~8.3f  (goal =< 0.200 s)~n",
                      ["  ./erlperf 'ok.' -l 1, median wall time", Bare, Ours, Ours / Bare])
    end.

%% Seconds of wall time for one run of a program.
wall(Exe, Args) ->
    T0 = erlang:monotonic_time(),
    Port = open_port({spawn_executable, Exe}, [{args, Args}, exit_status, binary, stderr_to_stdout]),
    0 = wait_exit(Port),
    erlang:convert_time_unit(erlang:monotonic_time() - T0, native, microsecond) / 1.0e6.

wait_exit(Port) ->
    receive
        {Port, {data, _}} -> wait_exit(Port);
        {Port, {exit_status, Status}} -> Status
    end.

%% Alternates two rate measurements ?ROUNDS times; returns the best rate of each.
rounds(A, B) ->
    Pairs = [{A(), B()} || _ <- lists:seq(1, ?ROUNDS)],
    {lists:max([X || {X, _} <- Pairs]), lists:max([Y || {_, Y} <- Pairs])}.

median(List) ->
    lists:nth((length(List) + 1) div 2, lists:sort(List)).

si(Rate) when Rate >= 1.0e6 -> io_lib:format("~.2f M", [Rate / 1.0e6]);
si(Rate) -> io_lib:format("~.1f K", [Rate / 1.0e3]).
