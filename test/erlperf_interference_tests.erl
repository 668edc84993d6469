%%% @doc erlperf_interference's pure parts: the /proc files' parsing (real lines, malformed
%%% and missing input), the thread names, and delta/2's arithmetic against hand-computed
%%% figures. The measurement on real threads is erlperf_interference_SUITE's.
-module(erlperf_interference_tests).

-include_lib("eunit/include/eunit.hrl").

%%--------------------------------------------------------------------
%% Parsing

schedstat_test_() ->
    P = fun erlperf_interference:parse_schedstat/1,
    [?_assertEqual({64906996, 4296972}, P(<<"64906996 4296972 53\n">>)),
     ?_assertEqual({0, 0}, P(<<"0 0 0\n">>)),
     ?_assertEqual({12, 34}, P(<<"12 34">>)),          % no newline, no timeslices
     ?_assertEqual(undefined, P(<<"12\n">>)),          % too few
     ?_assertEqual(undefined, P(<<>>)),
     ?_assertEqual(undefined, P(<<"12 -3 5\n">>)),     % negative
     ?_assertEqual(undefined, P(<<"12 3x 5\n">>)),
     ?_assertEqual(undefined, P(<<"a b c\n">>)),
     ?_assertEqual(undefined, P(<<255, 254, " 1 2">>)), % not UTF-8
     ?_assertEqual(undefined, P(undefined))].

pressure_test_() ->
    P = fun erlperf_interference:parse_pressure/1,
    [?_assertEqual(4221553, P(<<"some avg10=4.19 avg60=1.84 avg300=0.88 total=4221553\n"
                                "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n">>)),
     %% the "some" line wherever it is; "full" is not it
     ?_assertEqual(7, P(<<"full avg10=0.00 avg60=0.00 avg300=0.00 total=99\n"
                          "some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n">>)),
     ?_assertEqual(7, P(<<"some total=7">>)),
     ?_assertEqual(undefined, P(<<"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n">>)),
     ?_assertEqual(undefined, P(<<"some avg10=4.19 avg60=1.84 avg300=0.88\n">>)),
     ?_assertEqual(undefined, P(<<"some avg10=4.19 total=\n">>)),
     ?_assertEqual(undefined, P(<<"some avg10=4.19 total=12.5\n">>)),
     ?_assertEqual(undefined, P(<<"some avg10=4.19 total=-1\n">>)),
     ?_assertEqual(undefined, P(<<>>)),
     ?_assertEqual(undefined, P(<<200, 201, "\n">>)),
     ?_assertEqual(undefined, P(undefined))].

stat_test_() ->
    P = fun erlperf_interference:parse_stat/1,
    [%% user nice system idle iowait irq softirq steal guest guest_nice: the first eight
     %% summed (guest is already in user), steal the eighth
     ?_assertEqual({0, 2017 + 1565 + 25995 + 4492 + 83},
                   P(<<"cpu  2017 0 1565 25995 4492 0 83 0 0 0\ncpu0 1000 0 700 13000 2000 0 40 0 0 0\n"
                       "intr 1 2 3\n">>)),
     ?_assertEqual({8, 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8},
                   P(<<"cpu  1 2 3 4 5 6 7 8 100 200\n">>)),
     ?_assertEqual({8, 36}, P(<<"cpu 1 2 3 4 5 6 7 8">>)),
     %% kernels before 2.6.11 have no steal
     ?_assertEqual(undefined, P(<<"cpu  1 2 3 4 5 6 7\n">>)),
     ?_assertEqual(undefined, P(<<"cpu0 1 2 3 4 5 6 7 8 9 10\n">>)),
     ?_assertEqual(undefined, P(<<"intr 1 2 3\ncpu  1 2 3 4 5 6 7 8 9 10\n">>)),
     ?_assertEqual(undefined, P(<<"cpu  1 2 x 4 5 6 7 8 9 10\n">>)),
     ?_assertEqual(undefined, P(<<"cpu ">>)),
     ?_assertEqual(undefined, P(<<>>)),
     ?_assertEqual(undefined, P(undefined))].

scheduler_thread_test_() ->
    S = fun erlperf_interference:scheduler_thread/1,
    [?_assert(S(<<"1_scheduler\n">>)),
     ?_assert(S(<<"12_scheduler\n">>)),
     ?_assert(S(<<"1_dirty_cpu_sch\n">>)),
     ?_assert(S(<<"10_dirty_cpu_sc\n">>)),   % names are cut at 15 characters
     ?_assert(S(<<"1000_dirty_cpu_\n">>)),
     ?_assert(S(<<"1_scheduler">>)),
     %% OTP 27 and later name them otherwise
     ?_assert(S(<<"erts_sched_1\n">>)),
     ?_assert(S(<<"erts_sched_128\n">>)),
     ?_assert(S(<<"erts_dcpus_2\n">>)),
     ?_assertNot(S(<<"erts_dios_1\n">>)),
     ?_assertNot(S(<<"erts_aux_1\n">>)),
     ?_assertNot(S(<<"erts_poll_0\n">>)),
     ?_assertNot(S(<<"erts_sched_\n">>)),
     ?_assertNot(S(<<"erts_sched_x\n">>)),
     ?_assertNot(S(<<"1_dirty_io_sche\n">>)),
     ?_assertNot(S(<<"beam.smp\n">>)),
     ?_assertNot(S(<<"1_aux\n">>)),
     ?_assertNot(S(<<"0_poller\n">>)),
     ?_assertNot(S(<<"async_1\n">>)),
     ?_assertNot(S(<<"_scheduler\n">>)),
     ?_assertNot(S(<<"x_scheduler\n">>)),
     ?_assertNot(S(<<"1_schedulers\n">>)),
     ?_assertNot(S(<<"1_scheduler_2\n">>)),
     ?_assertNot(S(<<>>)),
     ?_assertNot(S(<<255, "_scheduler">>)),
     ?_assertNot(S(undefined))].

%%--------------------------------------------------------------------
%% Arithmetic

share_test_() ->
    [?_assertEqual(0.25, erlperf_interference:share(300, 100)),
     ?_assertEqual(0.0, erlperf_interference:share(300, 0)),
     ?_assertEqual(1.0, erlperf_interference:share(0, 5)),
     ?_assertEqual(undefined, erlperf_interference:share(0, 0)),
     ?_assertEqual(undefined, erlperf_interference:share(undefined, 5)),
     ?_assertEqual(undefined, erlperf_interference:share(5, undefined))].

delta_test_() ->
    Before = reading(1000, 5000, 100, 2000, 10, 1000),
    %% 1 s: the schedulers ran 0.6 s and waited 0.2 s; the host was under pressure 0.3 s;
    %% 4 of 200 ticks stolen.
    After = reading(1000 + 1000000000, 5000 + 600000000, 100 + 200000000, 2000 + 300000, 14, 1200),
    [?_assertEqual(#{wall_ns => 1000000000, cpu_ns => 600000000, wait_ns => 200000000,
                     share => 0.25, pressure => 0.3, steal => 0.02, busy_cpu_ns => undefined,
                     busy_wait_ns => undefined, host_ticks => 200, host_idle => undefined, cpus => undefined},
                   erlperf_interference:delta(Before, After)),
     %% the same instant: no time, nothing ran
     ?_assertEqual(#{wall_ns => 0, cpu_ns => 0, wait_ns => 0, share => undefined,
                     pressure => undefined, steal => undefined, busy_cpu_ns => undefined,
                     busy_wait_ns => undefined, host_ticks => 0, host_idle => undefined, cpus => undefined},
                   erlperf_interference:delta(Before, Before)),
     ?_assertError({not_in_order, After, Before}, erlperf_interference:delta(After, Before))].

%% Nothing ran on the schedulers (they slept): the share is undefined, not 0.
delta_idle_test() ->
    Before = reading(0, 5000, 100, 7, 10, 1000),
    After = reading(500000000, 5000, 100, 7, 10, 1100),
    #{pressure := Pressure, steal := Steal} = Figures = erlperf_interference:delta(Before, After),
    ?assertMatch(#{wall_ns := 500000000, cpu_ns := 0, wait_ns := 0, share := undefined}, Figures),
    ?assert(Pressure == 0 andalso Steal == 0, Figures).

%% A figure whose counter is missing from either reading, or went backwards (a thread
%% that vanished lowers the sum), is undefined; the others are still computed.
delta_missing_test_() ->
    Full = reading(0, 100, 100, 100, 100, 100),
    Later = reading(1000, 400, 200, 101, 101, 200),
    Missing = fun (Key) -> erlperf_interference:delta(Full#{Key := undefined}, Later) end,
    [?_assertMatch(#{cpu_ns := undefined, wait_ns := 100, share := undefined}, Missing(run_ns)),
     ?_assertMatch(#{cpu_ns := 300, wait_ns := undefined, share := undefined}, Missing(wait_ns)),
     ?_assertMatch(#{pressure := undefined, share := 0.25}, Missing(psi_us)),
     ?_assertMatch(#{steal := undefined, pressure := 1.0}, Missing(steal)),
     ?_assertMatch(#{steal := undefined, wall_ns := 1000}, Missing(ticks)),
     ?_assertMatch(#{cpu_ns := undefined, share := undefined},
                   erlperf_interference:delta(Full, Later#{run_ns := 99})),
     ?_assertMatch(#{steal := undefined},
                   erlperf_interference:delta(Full, Later#{ticks := 100}))].

%% Pressure and steal are shares: at most 1, even when the files were read a little apart.
delta_bounds_test() ->
    Before = reading(0, 0, 0, 0, 0, 0),
    After = reading(1000000, 0, 0, 1001, 30, 20),
    ?assertMatch(#{pressure := 1.0, steal := 1.0}, erlperf_interference:delta(Before, After)).

%% Every figure undefined but the wall-clock time: what a platform without /proc gives.
delta_nothing_test() ->
    Nothing = #{run_ns => undefined, wait_ns => undefined, psi_us => undefined,
                steal => undefined, ticks => undefined},
    ?assertEqual(#{wall_ns => 10, cpu_ns => undefined, wait_ns => undefined, share => undefined,
                   pressure => undefined, steal => undefined, busy_cpu_ns => undefined,
                   busy_wait_ns => undefined, host_ticks => undefined, host_idle => undefined, cpus => undefined},
                 erlperf_interference:delta(Nothing#{time => -20}, Nothing#{time => -10})).

%% The busy threads: those that ran or waited for at least half the span (a worker's
%% scheduler), not one that ran now and then (the sampler's, an idle one spinning).
delta_busy_test_() ->
    Wall = 1000000000,
    At = fun (Time, Threads) ->
                 (reading(Time, lists:sum([R || {R, _} <- Threads]), lists:sum([W || {_, W} <- Threads]),
                          0, 0, 100))#{threads => Threads}
         end,
    Before = At(0, [{1000, 0}, {5000, 700}, {0, 0}]),
    %% thread 1: ran 0.4 s, waited 0.5 s (busy); thread 2: ran 0.05 s, waited 0.2 s;
    %% thread 3: nothing
    After = At(Wall, [{1000 + 400000000, 500000000}, {5000 + 50000000, 700 + 200000000}, {0, 0}]),
    [?_assertMatch(#{busy_cpu_ns := 400000000, busy_wait_ns := 500000000,
                     cpu_ns := 450000000, wait_ns := 700000000},
                   erlperf_interference:delta(Before, After)),
     %% no busy thread: code that waits
     ?_assertMatch(#{busy_cpu_ns := 0, busy_wait_ns := 0},
                   erlperf_interference:delta(Before, At(Wall, [{1000 + 10, 10}, {5000, 700}, {0, 0}]))),
     %% a thread's counters going backwards (another thread in its place): not known
     ?_assertMatch(#{busy_cpu_ns := undefined},
                   erlperf_interference:delta(Before, At(Wall, [{999, 0}, {5000, 700}, {0, 0}]))),
     %% threads that do not match: not known
     ?_assertMatch(#{busy_cpu_ns := undefined},
                   erlperf_interference:delta(Before, At(Wall, [{2000, 0}])))].

%% The host's ticks, idle ticks and CPUs of a span, for the share of the host's CPUs
%% other programs kept busy (erlperf_record sums them over a run).
delta_host_ticks_test_() ->
    Stat = fun (Time, Idle, Ticks) -> (reading(Time, 0, 0, 0, 0, Ticks))#{idle => Idle, cpus => 2} end,
    [?_assertMatch(#{host_ticks := 200, host_idle := 50, cpus := 2},
                   erlperf_interference:delta(Stat(0, 0, 0), Stat(1000, 50, 200))),
     ?_assertMatch(#{host_idle := undefined},
                   erlperf_interference:delta(Stat(0, 0, 0), (Stat(1000, 50, 200))#{idle := undefined})),
     ?_assertEqual(30, erlperf_interference:parse_idle(<<"cpu  10 0 5 20 10 0 0 0 0 0\n">>)),
     ?_assertEqual(undefined, erlperf_interference:parse_idle(<<"cpu  10 0 5\n">>)),
     ?_assertEqual(undefined, erlperf_interference:parse_idle(undefined))].

%%--------------------------------------------------------------------
%% Messages

format_unavailable_test_() ->
    [?_assertMatch({match, _}, re:run(erlperf_interference:format_unavailable(R), Re))
     || {R, Re} <- [{not_linux, "^interference not measured: .*Linux"},
                    {no_schedstat, "^interference not measured: .*schedstat"},
                    {no_scheduler_threads, "^interference not measured: .*scheduler"}]] ++
    [?_assertEqual(nomatch, re:run(erlperf_interference:format_unavailable(R), "\n"))
     || R <- [not_linux, no_schedstat, no_scheduler_threads]].

%%--------------------------------------------------------------------
%% Internal functions

reading(Time, Run, Wait, Psi, Steal, Ticks) ->
    #{time => Time, run_ns => Run, wait_ns => Wait, psi_us => Psi, steal => Steal, ticks => Ticks}.
