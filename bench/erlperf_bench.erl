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
%%%   <li>funs: the rate of a runner given as a fun against the same call given as
%%%       `{M, F, A}' (`erlperf_bench:work/0', a call of `erlang:phash2/1'): an external
%%%       fun (`fun erlperf_bench:work/0', what Elixir's `&Mod.f/0' is) and a fun made by
%%%       `erl_eval' (what IEx, `elixir -e' and scripts make) are compiled into the loop
%%%       (goal: >= 0.95 each); a fun of compiled code is called as a fun (no goal: what
%%%       a fun call costs);</li>
%%%   <li>start-up: wall time of `./erlperf 'ok.' -l 1' against a bare VM start (goal:
%%%       =< 0.2 s, and at most 1.3 times a bare VM's start), its runner compiled before
%%%       (found in a compile cache of its own, filled by a first run); of an escript that
%%%       loads what such a run loads and halts ({@link erlperf_bench_preload}): the
%%%       floor; and of the same command without a cache (`ERLPERF_CACHE=off': a first
%%%       run, compiling). The four take turns ?STARTUP_RUNS times, each ratio is the
%%%       median of the rounds' ratios;</li>
%%%   <li>100,000 busy workers, the whole command: wall time of one run of
%%%       `./erlperf 'ok.' -c 100000 -d 500 -s 2', exit status 0 required, beside the
%%%       bare VM start above (goal: =< 10 s; it was 68 s when starting workers took
%%%       O(N^2));</li>
%%%   <li>100,000 busy workers, in this VM: wall time of
%%%       `erlperf_job:set_concurrency(Job, 100000)' for the runner `ok.' against
%%%       spawning as many idle processes (each counts down on an atomics counter and
%%%       blocks in `receive'; the last one tells the spawner), and of
%%%       `erlperf_job:stop(Job)' against killing as many idle processes and waiting
%%%       for their exits; both sides run in a process at `high' priority, as the CLI
%%%       does, best of ?MANY_ROUNDS rounds (no goal: the ratio is what the engine
%%%       costs over the VM's own spawn and kill);</li>
%%% </ul>
%%% References and erlperf runs alternate, each about ?ROUND_MS long, and the best of
%%% `?ROUNDS' rounds is kept for each side (as `timeit' keeps the fastest run): on a shared
%%% or virtual machine, interference only ever slows a run down, so the fastest run is the
%%% closest to what the code costs, and both sides get the same number of chances.
%%% The calibration of intervals and verdicts (coverage, false alarms, power) is
%%% {@link erlperf_bench_calibration}, run after this module by `make bench'.
%%%
%%% Cost: a few minutes, both cores busy. The 100,000-worker figures take hundreds of
%%% megabytes and seconds each; they run last, and after each of their rounds the
%%% benchmark waits until every process it started is gone (it fails if one is left
%%% after ?SETTLE_MS), so that no load leaks into the next measurement.
-module(erlperf_bench).

-export([main/0]).

%% Internal exports: hand-written reference loops, run in spawned processes.
-export([phash2_loop/1, empty_loop/1]).
%% Internal export: the function the funs figure calls.
-export([work/0]).

-define(ROUNDS, 25).
%% Length of a round, and iterations of the reference loops per round (about as long).
-define(ROUND_MS, 200).
-define(PHASH2_ITERATIONS, 16000000).
-define(EMPTY_ITERATIONS, 130000000).
%% Rounds of the start-up figure: a bare VM, the escript, the floor and the escript without
%% a cache, taking turns.
-define(STARTUP_RUNS, 40).
%% Workers for the 100,000-worker figures, and rounds of each side (each costs seconds).
-define(MANY, 100000).
-define(MANY_ROUNDS, 3).
%% The whole command with that many workers, and its goal in seconds.
-define(MANY_ARGS, ["ok.", "-c", "100000", "-d", "500", "-s", "2"]).
-define(MANY_GOAL_S, 10).
%% How long processes stopped by a measurement may take to disappear from the VM,
%% and how often that is checked.
-define(SETTLE_MS, 10000).
-define(SETTLE_POLL_MS, 10).

%% @doc Runs every measurement and prints the figures.
-spec main() -> ok.
main() ->
    io:format("erlperf self-benchmark on ~ts, ~ts, ~b schedulers~n",
              [maps:get(cpu, erlperf_system:info()), erlang:system_info(otp_release),
               erlang:system_info(schedulers_online)]),
    overhead(),
    empty(),
    scaling(),
    funs(),
    Bare = startup(),
    command_many(Bare),
    workers_many().

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

%% @private
-spec work() -> non_neg_integer().
work() -> erlang:phash2(12345).

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

funs() ->
    {ok, Tokens, _} = erl_scan:string("fun () -> erlperf_bench:work() end."),
    {ok, [Expr]} = erl_parse:parse_exprs(Tokens),
    {value, Eval, _} = erl_eval:expr(Expr, erl_eval:new_bindings()),
    Mfa = fun () -> erlperf_rate({?MODULE, work, []}, 1) end,
    io:format("~-44s ~12s ~12s ~8s~n", ["funs (a call of work/0 in bench/)", "{M,F,A}/s", "fun/s", "ratio"]),
    lists:foreach(
      fun ({Label, Fun, Goal}) ->
              {Ref, Ours} = rounds(Mfa, fun () -> erlperf_rate(Fun, 1) end),
              io:format("~-44s ~12s ~12s ~8.3f  (~ts)~n", [Label, si(Ref), si(Ours), Ours / Ref, Goal])
      end,
      [{"  fun M:F/0 (what Elixir's &Mod.f/0 is)", fun ?MODULE:work/0, "goal >= 0.95"},
       {"  an erl_eval fun (IEx, elixir -e, a script)", Eval, "goal >= 0.95"},
       {"  a fun of compiled code", fun () -> ?MODULE:work() end, "no goal: a fun call"}]).

startup() ->
    Escript = filename:absname("erlperf"),
    Erl = os:find_executable("erl"),
    case filelib:is_regular(Escript) of
        false ->
            io:format("start-up: ./erlperf not built, skipped~n"),
            undefined;
        true ->
            Floor = preload_escript(),
            %% a cache of its own, filled by a first run: the figure of a run whose code
            %% was compiled before (the usual case); and one without a cache
            Cache = [{"ERLPERF_CACHE", filename:join(filename:dirname(Floor), "cache")}],
            Off = [{"ERLPERF_CACHE", "off"}],
            _ = wall(Escript, ["ok.", "-l", "1"], Cache),
            Sides = [fun () -> wall(Erl, ["-noshell", "-eval", "halt()."], []) end,
                     fun () -> wall(Escript, ["ok.", "-l", "1"], Cache) end,
                     fun () -> wall(Floor, [], []) end,
                     fun () -> wall(Escript, ["ok.", "-l", "1"], Off) end],
            Rounds = [turns(I, Sides) || I <- lists:seq(1, ?STARTUP_RUNS)],
            ok = file:del_dir_r(filename:dirname(Floor)),
            Bare = median([B || [B | _] <- Rounds]),
            Row = fun (Label, K, Note) ->
                          io:format("~-44s ~12.3f ~12.3f ~8.3f  (~ts)~n",
                                    [Label, Bare, median([lists:nth(K, R) || R <- Rounds]),
                                     median([lists:nth(K, R) / B || [B | _] = R <- Rounds]), Note])
                  end,
            io:format("~-44s ~12s ~12s ~8s~n", ["start-up (ratio: median of the rounds')", "bare VM s",
                                                 "erlperf s", "ratio"]),
            Row("  ./erlperf 'ok.' -l 1, median wall time", 2, "goal =< 0.200 s, =< 1.3x; compiled before"),
            Row("  loading what a run loads, then halting", 3, "the floor"),
            Row("  ./erlperf 'ok.' -l 1, ERLPERF_CACHE=off", 4, "no goal: compiled, as on a first run"),
            Bare
    end.

%% Round I: each side once, in an order that turns with I; the times in the sides' order.
turns(I, Sides) ->
    N = length(Sides),
    Order = [(I + J) rem N + 1 || J <- lists:seq(0, N - 1)],
    Times = maps:from_list([{K, (lists:nth(K, Sides))()} || K <- Order]),
    [maps:get(K, Times) || K <- lists:seq(1, N)].

%% An escript (in a fresh temporary directory) whose main is erlperf_bench_preload's: it
%% loads what a run loads, as the command line's escript does, and halts.
preload_escript() ->
    Dir = filename:join(erlperf_system:temp_dir(), "erlperf_bench_" ++ os:getpid()),
    File = filename:join(Dir, "preload"),
    ok = filelib:ensure_dir(File),
    {ok, Beam} = file:read_file(code:which(erlperf_bench_preload)),
    Ebin = filename:dirname(code:which(erlperf_cli_vm)),
    ok = escript:create(File, [shebang, {emu_args, "+pc unicode -pa " ++ Ebin}, {beam, Beam}]),
    ok = file:change_mode(File, 8#755),
    File.

%% One run of the whole command with ?MANY busy workers, beside the bare VM start.
command_many(undefined) ->
    io:format("100,000 busy workers, whole command: ./erlperf not built, skipped~n");
command_many(Bare) ->
    {Status, Ours} = run(filename:absname("erlperf"), ?MANY_ARGS, []),
    Verdict = case Status of
                  0 -> "";
                  _ -> io_lib:format("  FAILED: exit status ~b", [Status])
              end,
    io:format("~-44s ~12s ~12s ~8s~n", ["100,000 busy workers, whole command", "bare VM s", "erlperf s", "ratio"]),
    io:format("~-44s ~12.3f ~12.3f ~8.3f  (goal =< ~b s)~ts~n",
              ["  ./erlperf 'ok.' -c 100000 -d 500 -s 2", Bare, Ours, Ours / Bare, ?MANY_GOAL_S,
               Verdict]).

%% Seconds of wall time for one successful run of a program.
wall(Exe, Args, Env) ->
    {0, Seconds} = run(Exe, Args, Env),
    Seconds.

%% Exit status and seconds of wall time of one run of a program.
run(Exe, Args, Env) ->
    T0 = erlang:monotonic_time(),
    Port = open_port({spawn_executable, Exe}, [{args, Args}, {env, Env}, exit_status, binary,
                                               stderr_to_stdout]),
    Status = wait_exit(Port),
    {Status, erlang:convert_time_unit(erlang:monotonic_time() - T0, native, microsecond) / 1.0e6}.

wait_exit(Port) ->
    receive
        {Port, {data, _}} -> wait_exit(Port);
        {Port, {exit_status, Status}} -> Status
    end.

%% Starting and stopping ?MANY busy workers against spawning and killing as many idle
%% processes, alternating, best of ?MANY_ROUNDS rounds each. Each side runs in a fresh
%% process at high priority, and the next starts only once every process it started
%% is gone.
workers_many() ->
    Rounds = [{isolated(fun idle_many/0), isolated(fun job_many/0)} || _ <- lists:seq(1, ?MANY_ROUNDS)],
    [{RefStart, RefStop}, {Start, Stop}] =
        [{lists:min([element(1, element(Side, R)) || R <- Rounds]),
          lists:min([element(2, element(Side, R)) || R <- Rounds])} || Side <- [1, 2]],
    io:format("~-44s ~12s ~12s ~8s~n", ["100,000 busy workers, in this VM", "idle procs s", "erlperf s", "ratio"]),
    io:format("~-44s ~12.3f ~12.3f ~8.3f  (reference: spawn idle; best of ~b)~n",
              ["  start: set_concurrency(Job, 100000)", RefStart, Start, Start / RefStart, ?MANY_ROUNDS]),
    io:format("~-44s ~12.3f ~12.3f ~8.3f  (reference: kill idle; best of ~b)~n",
              ["  stop: erlperf_job:stop(Job)", RefStop, Stop, Stop / RefStop, ?MANY_ROUNDS]).

%% Seconds to spawn ?MANY idle processes until all of them run (each counts down, the
%% last one says so), and to kill them until all their exits are in.
idle_many() ->
    process_flag(trap_exit, true),
    {Self, Ref, Countdown} = {self(), make_ref(), atomics:new(1, [{signed, true}])},
    ok = atomics:put(Countdown, 1, ?MANY),
    T0 = erlang:monotonic_time(),
    Pids = [spawn_link(fun () -> idle(Self, Ref, Countdown) end) || _ <- lists:seq(1, ?MANY)],
    receive {ready, Ref} -> ok end,
    T1 = erlang:monotonic_time(),
    _ = [exit(Pid, kill) || Pid <- Pids],
    ok = wait_exits(length(Pids)),
    {seconds(T1 - T0), seconds(erlang:monotonic_time() - T1)}.

idle(Spawner, Ref, Countdown) ->
    _ = atomics:sub_get(Countdown, 1, 1) =:= 0 andalso (Spawner ! {ready, Ref}),
    receive stop -> ok end.

wait_exits(0) ->
    ok;
wait_exits(N) ->
    receive {'EXIT', _, killed} -> wait_exits(N - 1)
    after ?SETTLE_MS -> error({idle_processes_left, N})
    end.

%% Seconds for erlperf_job:set_concurrency/2 to start ?MANY busy workers, and for
%% erlperf_job:stop/1 to stop them and the job.
job_many() ->
    {ok, Job} = erlperf_job:start(#{runner => "ok."}),
    Mon = erlang:monitor(process, Job),
    T0 = erlang:monotonic_time(),
    ok = erlperf_job:set_concurrency(Job, ?MANY),
    T1 = erlang:monotonic_time(),
    ok = erlperf_job:stop(Job),
    T2 = erlang:monotonic_time(),
    receive {'DOWN', Mon, process, Job, _} -> ok end,
    {seconds(T1 - T0), seconds(T2 - T1)}.

%% Runs a measurement in a fresh process at high priority and returns its result once
%% every process started since is gone again (the measurement's own included).
isolated(Fun) ->
    Before = erlang:system_info(process_count),
    {Pid, Mon} = spawn_opt(fun () -> exit({result, Fun()}) end, [monitor, {priority, high}]),
    receive
        {'DOWN', Mon, process, Pid, {result, Result}} ->
            ok = settle(Before, ?SETTLE_MS div ?SETTLE_POLL_MS),
            Result;
        {'DOWN', Mon, process, Pid, Reason} ->
            error({measurement_failed, Reason})
    end.

%% Waits (polling: exited processes send nothing more) until no more processes run
%% than before a measurement.
settle(Before, Polls) ->
    case erlang:system_info(process_count) - Before of
        Left when Left =< 0 -> ok;
        Left when Polls =:= 0 -> error({processes_left, Left});
        _ -> timer:sleep(?SETTLE_POLL_MS), settle(Before, Polls - 1)
    end.

seconds(Native) ->
    erlang:convert_time_unit(Native, native, microsecond) / 1.0e6.

%% Alternates two rate measurements ?ROUNDS times; returns the best rate of each.
rounds(A, B) ->
    Pairs = [{A(), B()} || _ <- lists:seq(1, ?ROUNDS)],
    {lists:max([X || {X, _} <- Pairs]), lists:max([Y || {_, Y} <- Pairs])}.

median(List) ->
    lists:nth((length(List) + 1) div 2, lists:sort(List)).

si(Rate) when Rate >= 1.0e6 -> io_lib:format("~.2f M", [Rate / 1.0e6]);
si(Rate) -> io_lib:format("~.1f K", [Rate / 1.0e3]).
