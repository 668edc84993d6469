%%% @doc Tests of baseline comparison and the regression gate, on records built here.
-module(erlperf_baseline_tests).

-include_lib("eunit/include/eunit.hrl").

run(Label, Code, Mode, Samples) ->
    #{<<"label">> => Label, <<"code">> => Code, <<"mode">> => Mode, <<"samples">> => Samples}.

record(Runs) ->
    #{<<"version">> => 1, <<"runs">> => Runs}.

base() ->
    record([run(<<"a">>, <<"x().">>, <<"continuous">>, [1000, 1010, 990, 1005, 995]),
            run(<<"b">>, <<"y().">>, <<"continuous">>, [500, 505, 495, 502, 498])]).

same_code_passes_test() ->
    Rows = erlperf_baseline:compare([{"base.json", base()}], base(), #{}),
    [#{label := <<"a">>, baselines := [#{match := label, verdict := no_difference}]},
     #{label := <<"b">>, baselines := [#{match := label, verdict := no_difference}]}] = Rows,
    ?assertEqual([], erlperf_gate:regressions(Rows, 0)).

slower_by_half_fails_the_gate_test() ->
    Now = record([run(<<"a">>, <<"x().">>, <<"continuous">>, [500, 505, 495, 502, 498])]),
    Rows = erlperf_baseline:compare([{"base.json", base()}], Now, #{}),
    [#{baselines := [#{verdict := slower, significant := true, change_pct := Change}]}] = Rows,
    ?assert(abs(Change + 50) < 1, Change),
    ?assertMatch([{<<"a">>, [#{file := "base.json"}]}], erlperf_gate:regressions(Rows, 10)),
    %% a gate wider than the change lets it pass
    ?assertEqual([], erlperf_gate:regressions(Rows, 60)).

faster_is_no_regression_test() ->
    Now = record([run(<<"b">>, <<"y().">>, <<"continuous">>, [1000, 1010, 990, 1005, 995])]),
    Rows = erlperf_baseline:compare([{"base.json", base()}], Now, #{}),
    [#{baselines := [#{verdict := faster}]}] = Rows,
    ?assertEqual([], erlperf_gate:regressions(Rows, 0)).

timed_lower_is_better_test() ->
    Base = record([run(<<"t">>, <<"z().">>, <<"timed">>, [100, 101, 99, 100])]),
    Now = record([run(<<"t">>, <<"z().">>, <<"timed">>, [200, 202, 198, 200])]),
    [#{baselines := [#{verdict := slower, significant := true}]}] =
        erlperf_baseline:compare([{"t.json", Base}], Now, #{}).

match_by_code_then_none_test() ->
    Now = record([run(<<"renamed">>, <<"y().">>, <<"continuous">>, [500, 505, 495, 502, 498]),
                  run(<<"new">>, <<"w().">>, <<"continuous">>, [1, 2, 3])]),
    [#{baselines := [#{match := code, verdict := no_difference}]},
     #{baselines := [#{match := none}]}] = Rows =
        erlperf_baseline:compare([{"base.json", base()}], Now, #{}),
    Text = unicode:characters_to_list(erlperf_baseline:format(Rows)),
    ?assertNotEqual(nomatch, string:find(Text, "new against base.json: no runner with this label or code")).

several_baselines_in_order_test() ->
    Old = record([run(<<"a">>, <<"x().">>, <<"continuous">>, [2000, 2010, 1990, 2005, 1995])]),
    [#{baselines := [#{file := "old.json", verdict := slower}, #{file := "base.json", verdict := no_difference}]}] =
        erlperf_baseline:compare([{"old.json", Old}, {"base.json", base()}],
                                 record([run(<<"a">>, <<"x().">>, <<"continuous">>,
                                             [1000, 1010, 990, 1005, 995])]), #{}).

load_errors_test() ->
    Dir = filename:join(["/tmp", "erlperf_baseline_tests_" ++ os:getpid()]),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Missing = filename:join(Dir, "missing.json"),
    ?assertMatch({error, {baseline, _, enoent}}, erlperf_baseline:load(Missing)),
    NotRecord = filename:join(Dir, "array.json"),
    ok = file:write_file(NotRecord, <<"[1, 2]">>),
    ?assertMatch({error, {baseline, _, {record, _}}}, erlperf_baseline:load(NotRecord)),
    Newer = filename:join(Dir, "newer.json"),
    ok = file:write_file(Newer, <<"{\"version\": 99, \"runs\": []}">>),
    ?assertMatch({error, {baseline, _, {newer_version, benchmark, 99}}}, erlperf_baseline:load(Newer)),
    Broken = filename:join(Dir, "broken.json"),
    ok = file:write_file(Broken, <<"{\"version\": ">>),
    {error, Reason} = erlperf_baseline:load(Broken),
    ?assertMatch("baseline " ++ _, erlperf_baseline:format_error(Reason)),
    [ok = file:delete(F) || F <- [NotRecord, Newer, Broken]],
    ok = file:del_dir(Dir).

%% Every error load/1 returns reads as a sentence naming the file (doc/api.md quotes the
%% first two), never as a term.
format_error_test_() ->
    Text = fun (Why) -> erlperf_baseline:format_error({baseline, "base.json", Why}) end,
    {error, JsonError} = erlperf_json:decode(<<"{\"version\": ">>),
    [?_assertEqual("baseline base.json: no such file or directory", Text(enoent)),
     ?_assertEqual("baseline base.json: field runs[0].samples is not a non-empty list",
                   Text({record, {<<"runs[0].samples">>, "a non-empty list"}})),
     ?_assertEqual("baseline base.json: a --perf-test results.json, not a benchmark record (--save writes one)",
                   Text({record, perf_test_results})),
     ?_assertEqual("baseline base.json: written by a newer erlperf (record version 2; this one reads 1)",
                   Text({newer_version, benchmark, 2})),
     ?_assertEqual("baseline base.json: " ++ erlperf_json:format_error(JsonError), Text(JsonError)),
     ?_assertEqual(nomatch, string:find(Text(JsonError), "{"))].

%% Sweeps: a runner matches the baseline's runner of the same label and parameters;
%% rows are named with the combination, in the order of the record's parameters.
sweep(Runs) ->
    (record(Runs))#{<<"options">> => #{<<"params">> => [#{<<"name">> => <<"N">>, <<"values">> => [10, 100]},
                                                       #{<<"name">> => <<"S">>, <<"values">> => [<<"a">>]}]}}.

swept(N, Samples) ->
    (run(<<"lists:seq(1, N).">>, <<"lists:seq(1, N).">>, <<"continuous">>, Samples))#{
        <<"params">> => #{<<"N">> => N, <<"S">> => <<"a">>}}.

sweep_matches_params_test() ->
    Base = sweep([swept(10, [1000, 1010, 990, 1005, 995]), swept(100, [100, 101, 99, 100, 100])]),
    %% the same figures under the other combination: each matches its own
    Now = sweep([swept(100, [100, 101, 99, 100, 100]), swept(10, [500, 505, 495, 502, 498])]),
    [#{name := <<"lists:seq(1, N). (N=100, S=a)">>, baselines := [#{match := label, verdict := no_difference}]},
     #{name := <<"lists:seq(1, N). (N=10, S=a)">>, baselines := [#{match := label, verdict := slower}]}] =
        Rows = erlperf_baseline:compare([{"base.json", Base}], Now, #{}),
    ?assertMatch([{<<"lists:seq(1, N). (N=10, S=a)">>, [_]}], erlperf_gate:regressions(Rows, 10)),
    Text = unicode:characters_to_list(erlperf_baseline:format(Rows)),
    ?assertNotEqual(nomatch, string:find(Text, "lists:seq(1, N). (N=10, S=a) against base.json: ")).

sweep_without_match_test() ->
    %% a record of no sweep has no runner with these parameters, nor has another combination
    Plain = record([run(<<"lists:seq(1, N).">>, <<"lists:seq(1, N).">>, <<"continuous">>, [1, 2, 3])]),
    Other = sweep([swept(1000, [1, 2, 3])]),
    Now = sweep([swept(10, [1, 2, 3])]),
    [#{baselines := [#{match := none}, #{match := none}]}] =
        erlperf_baseline:compare([{"plain.json", Plain}, {"other.json", Other}], Now, #{}).

%%--------------------------------------------------------------------
%% Verdicts that hold on a busy host

%% A run of forks (sizes of 2) with the host's load measured: `Share' of the scheduler
%% threads' time and `Others' of the host's CPUs taken by other programs; `Demand' how
%% busy its schedulers were (code that computes near 1); `Cpu' its samples with the
%% waiting taken out.
measured(Label, Samples, Cpu, #{share := Share, others := Others, demand := Demand}) ->
    Sizes = lists:duplicate(length(Samples) div 2, 2),
    (run(Label, <<"x().">>, <<"continuous">>, Samples))#{
      <<"forks">> => #{<<"sizes">> => Sizes, <<"means">> => [0 || _ <- Sizes]},
      <<"cpu_samples">> => Cpu,
      <<"interference">> => #{<<"share">> => Share, <<"others">> => Others, <<"demand">> => Demand,
                              <<"samples">> => [Share || _ <- Samples]}}.

quiet() -> #{share => 0.01, others => 0.02, demand => 1.0}.
busy() -> #{share => 0.5, others => 0.9, demand => 1.0}.

scaled(Samples, F) -> [S * F || S <- Samples].

-define(QUIET_SAMPLES, [1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003]).

one(Base, Now, Options) ->
    [#{baselines := [Entry]}] = erlperf_baseline:compare([{"prev", record([Base])}], record([Now]), Options),
    Entry.

%% Under the same load, code that computes is compared on its CPU figure: a wall-clock
%% slowdown the waiting explains is no change.
cpu_figure_under_the_same_load_test() ->
    Base = measured(<<"a">>, scaled(?QUIET_SAMPLES, 0.5), ?QUIET_SAMPLES, busy()),
    Now = measured(<<"a">>, scaled(?QUIET_SAMPLES, 0.4), scaled(?QUIET_SAMPLES, 1.0), busy()),
    ?assertMatch(#{figure := cpu, verdict := no_difference}, one(Base, Now, #{noise => 1})),
    %% code that waits: the wall clock's figure
    Waits = fun (R) -> R#{<<"interference">> := (maps:get(<<"interference">>, R))#{<<"demand">> := 0.1}} end,
    ?assertMatch(#{figure := wall, verdict := slower}, one(Waits(Base), Waits(Now), #{noise => 1})).

%% The load rose between the runs: a slowdown it can explain is inconclusive; a
%% speedup stands (load only slows code); the other way round when the load fell. Code
%% that computes: a slowdown beyond the share of the CPUs lost stands.
load_changed_is_one_sided_test_() ->
    Some = #{share => 0.05, others => 0.25, demand => 1.0},
    Twice = measured(<<"a">>, scaled(?QUIET_SAMPLES, 0.5), scaled(?QUIET_SAMPLES, 0.5), Some),
    Bit = measured(<<"a">>, scaled(?QUIET_SAMPLES, 0.85), scaled(?QUIET_SAMPLES, 0.85), Some),
    Waits = fun (R) -> R#{<<"interference">> := (maps:get(<<"interference">>, R))#{<<"demand">> := 0.1}} end,
    QuietBase = measured(<<"a">>, ?QUIET_SAMPLES, ?QUIET_SAMPLES, quiet()),
    Quiet = measured(<<"a">>, ?QUIET_SAMPLES, ?QUIET_SAMPLES, quiet()),
    [%% 0.23 of the CPUs lost cannot make computing code twice as slow; 15% slower it can
     ?_assertMatch(#{verdict := slower, significant := true}, one(QuietBase, Twice, #{})),
     ?_assertMatch(#{verdict := inconclusive, reason := {load_changed, _, _}}, one(QuietBase, Bit, #{})),
     %% code that waits: any slowdown when more of its schedulers' time was taken; the
     %% host's CPUs kept busy by others alone do not slow it
     ?_assertMatch(#{verdict := inconclusive},
                   one(Waits(QuietBase), Waits(measured(<<"a">>, scaled(?QUIET_SAMPLES, 0.5),
                                                        scaled(?QUIET_SAMPLES, 0.5), busy())), #{})),
     ?_assertMatch(#{verdict := slower, significant := true}, one(Waits(QuietBase), Waits(Twice), #{}))] ++
    load_changed_cases(Quiet).

load_changed_cases(Quiet) ->
    Slow = measured(<<"a">>, scaled(?QUIET_SAMPLES, 0.5), ?QUIET_SAMPLES, busy()),
    Fast = measured(<<"a">>, scaled(?QUIET_SAMPLES, 2.0), ?QUIET_SAMPLES, busy()),
    SlowQuiet = measured(<<"a">>, scaled(?QUIET_SAMPLES, 0.5), ?QUIET_SAMPLES, quiet()),
    [?_assertMatch(#{figure := wall, verdict := inconclusive, reason := {load_changed, _, _},
                     significant := false}, one(Quiet, Slow, #{})),
     ?_assertMatch(#{figure := wall, verdict := faster, significant := true}, one(Quiet, Fast, #{})),
     %% the load fell: faster is inconclusive, slower stands
     ?_assertMatch(#{verdict := inconclusive, reason := {load_changed, _, _}}, one(Slow, Quiet, #{})),
     ?_assertMatch(#{verdict := slower, significant := true}, one(Fast, SlowQuiet, #{})),
     %% the gate never fails on an inconclusive verdict
     ?_assertEqual([], erlperf_gate:regressions(
                         erlperf_baseline:compare([{"p", record([Quiet])}], record([Slow]), #{}), 10))].

too_few_samples_test() ->
    Base = run(<<"a">>, <<"x().">>, <<"continuous">>, [1000]),
    Now = run(<<"a">>, <<"x().">>, <<"continuous">>, [100]),
    ?assertMatch(#{verdict := inconclusive, reason := too_few_samples}, one(Base, Now, #{})).

%% An interval of no significant difference that reaches past the gate cannot say the
%% change is within it.
too_wide_for_the_gate_test() ->
    Base = run(<<"a">>, <<"x().">>, <<"continuous">>, [1000, 1100, 900, 1050, 950]),
    Now = run(<<"a">>, <<"x().">>, <<"continuous">>, [950, 1050, 850, 1000, 900]),
    ?assertMatch(#{verdict := no_difference}, one(Base, Now, #{})),
    %% wider than 50 points: inconclusive whatever the gate
    Wide = run(<<"a">>, <<"x().">>, <<"continuous">>, [1000, 1300, 700, 1200, 800]),
    ?assertMatch(#{verdict := inconclusive, reason := {too_wide, _, _}},
                 one(Wide, run(<<"a">>, <<"x().">>, <<"continuous">>, [950, 1250, 650, 1150, 750]), #{})),
    ?assertMatch(#{verdict := inconclusive, reason := {too_wide, _, _}}, one(Base, Now, #{gate => 10})),
    ?assertMatch(#{verdict := no_difference}, one(Base, Now, #{gate => 60})).

%% Exact counts: compared within 1% (and half a count per call); a change across OTP
%% releases is inconclusive.
counts_test_() ->
    Counts = fun (R, Bytes, Reds) -> R#{<<"counts">> => #{<<"bytes_per_iteration">> => Bytes,
                                                          <<"reductions_per_iteration">> => Reds}} end,
    Base = Counts(run(<<"a">>, <<"x().">>, <<"continuous">>, ?QUIET_SAMPLES), 1600.0, 2003.0),
    Same = Counts(run(<<"a">>, <<"x().">>, <<"continuous">>, ?QUIET_SAMPLES), 1600.0, 2003.4),
    More = Counts(run(<<"a">>, <<"x().">>, <<"continuous">>, ?QUIET_SAMPLES), 2000.0, 2063.0),
    Counted = fun (B, N, O) -> [{K, V} || #{count := K, verdict := V} <- maps:get(counts, one(B, N, O))] end,
    Rows = erlperf_baseline:compare([{"prev", record([Base])}], record([More]), #{}),
    [?_assertEqual([{<<"bytes_per_iteration">>, no_change}, {<<"reductions_per_iteration">>, no_change}],
                   Counted(Base, Same, #{})),
     ?_assertEqual([{<<"bytes_per_iteration">>, regressed}, {<<"reductions_per_iteration">>, regressed}],
                   Counted(Base, More, #{})),
     ?_assertEqual([{<<"bytes_per_iteration">>, improved}, {<<"reductions_per_iteration">>, improved}],
                   Counted(More, Base, #{})),
     %% 25% more bytes: past a 10% gate, not past a 30% one (3% more reductions: past neither)
     ?_assertMatch([{<<"a">>, _}], erlperf_gate:regressions(Rows, 10)),
     ?_assertEqual([], erlperf_gate:regressions(Rows, 30)),
     ?_assertEqual(<<"1600 -> 2000 bytes per call (+25.0%)">>,
                   iolist_to_binary(erlperf_baseline:count_text(hd(maps:get(counts, one(Base, More, #{})))))),
     %% across OTP releases the counts of unchanged code change too
     ?_assertEqual([{<<"bytes_per_iteration">>, inconclusive}, {<<"reductions_per_iteration">>, inconclusive}],
                   [{K, V} || #{count := K, verdict := V}
                                  <- maps:get(counts, hd(maps:get(baselines, hd(
                                         erlperf_baseline:compare([{"p", (record([Base]))#{<<"system">> => #{<<"otp_release">> => <<"25">>}}}],
                                                                  (record([More]))#{<<"system">> => #{<<"otp_release">> => <<"27">>}}, #{})))))]),
     %% records without counts (older ones) compare as before
     ?_assertMatch(#{counts := []}, one(run(<<"a">>, <<"x().">>, <<"continuous">>, ?QUIET_SAMPLES), More, #{}))].

%% The same code (the same fingerprint) in the same environment, no count changed:
%% no change, whatever the time said, with what the time said kept; another fingerprint,
%% a changed count, other settings or another environment leave the time's verdict.
same_code_test_() ->
    Fp = fun (R, F) -> R#{<<"fingerprint">> => F} end,
    Counts = fun (R, Bytes) -> R#{<<"counts">> => #{<<"bytes_per_iteration">> => Bytes,
                                                    <<"reductions_per_iteration">> => 10.0}} end,
    Quiet = Fp(measured(<<"a">>, ?QUIET_SAMPLES, ?QUIET_SAMPLES, quiet()), <<"f1">>),
    %% the load rose: a slowdown it explains
    Slow = Fp(measured(<<"a">>, scaled(?QUIET_SAMPLES, 0.5), ?QUIET_SAMPLES, busy()), <<"f1">>),
    %% under the same load, twice as slow
    Twice = Fp(measured(<<"a">>, scaled(?QUIET_SAMPLES, 0.5), scaled(?QUIET_SAMPLES, 0.5), quiet()), <<"f1">>),
    Line = fun (B, N) -> text(erlperf_baseline:compare([{"p", record([B])}], record([N]), #{})) end,
    [?_assertMatch(#{verdict := no_difference, significant := false,
                     reason := {same_code, {load_changed, _, _}}}, one(Quiet, Slow, #{})),
     ?_assertMatch(#{verdict := no_difference, reason := {same_code, agrees}}, one(Quiet, Quiet, #{})),
     ?_assertMatch("a against p: the same code (its fingerprint unchanged, no exact count changed); "
                   "its time alone agrees: no significant difference" ++ _, Line(Quiet, Quiet)),
     ?_assertMatch(#{verdict := no_difference, reason := {same_code, {moved, slower}}}, one(Quiet, Twice, #{})),
     ?_assertEqual([], erlperf_gate:regressions(
                         erlperf_baseline:compare([{"p", record([Quiet])}], record([Twice]), #{}), 10)),
     ?_assertMatch("a against p: the same code (its fingerprint unchanged, no exact count changed); its time moved, "
                   "not by the code: 50.0% slower" ++ _, Line(Quiet, Twice)),
     ?_assertMatch("a against p: the same code (its fingerprint unchanged, no exact count changed); "
                   "its time alone could not tell: the host's load changed" ++ _, Line(Quiet, Slow)),
     ?_assertMatch(#{verdict := slower, significant := true}, one(Quiet, Fp(Twice, <<"f2">>), #{})),
     ?_assertMatch(#{verdict := inconclusive, reason := {load_changed, _, _}},
                   one(Quiet, maps:remove(<<"fingerprint">>, Slow), #{})),
     ?_assertMatch(#{verdict := slower, significant := true},
                   one(Counts(Quiet, 100.0), Counts(Twice, 200.0), #{})),
     ?_assertMatch(#{verdict := no_difference, reason := {same_code, _}},
                   one(Counts(Quiet, 100.0), Counts(Twice, 100.0), #{})),
     ?_assertMatch(#{verdict := inconclusive, reason := {options_differ, _}},
                   one(set(Quiet, #{<<"concurrency">> => 1}), set(Twice, #{<<"concurrency">> => 2}), #{})),
     ?_assertMatch([#{baselines := [#{verdict := slower, significant := true}]}],
                   erlperf_baseline:compare([{"p", (record([Quiet]))#{<<"system">> => #{<<"otp_release">> => <<"25">>}}}],
                                            (record([Twice]))#{<<"system">> => #{<<"otp_release">> => <<"27">>}},
                                            #{}))].

%% What differs between the compared records' systems is named.
environment_test() ->
    System = fun (Otp, Schedulers) -> #{<<"otp_release">> => Otp, <<"schedulers">> => Schedulers,
                                       <<"erlperf">> => <<"3.0.0">>} end,
    Base = (record([run(<<"a">>, <<"x().">>, <<"continuous">>, ?QUIET_SAMPLES)]))#{<<"system">> => System(<<"25">>, 2)},
    Now = (record([run(<<"a">>, <<"x().">>, <<"continuous">>, ?QUIET_SAMPLES)]))#{<<"system">> => System(<<"27">>, 8)},
    [#{baselines := [Entry]}] = erlperf_baseline:compare([{"p", Base}], Now, #{}),
    ?assertEqual([{<<"otp_release">>, <<"25">>, <<"27">>}, {<<"schedulers">>, 2, 8}], maps:get(environment, Entry)),
    ?assertEqual(<<"; OTP 25 -> 27, schedulers 2 -> 8">>, iolist_to_binary(erlperf_baseline:environment_text(Entry))).

%% The run noise from a benchmark's history: the median absolute difference of
%% consecutive run means over 0.9539, in percent of their median. Reference computed by
%% hand: means 100, 104, 98, 102, 99 -> differences 4, 6, 4, 3 -> median 4 -> 4 / 0.9539
%% / 100 (the median of the means) = 4.1933%.
history_noise_test() ->
    Run = fun (Mean) -> run(<<"a">>, <<"x().">>, <<"continuous">>, [Mean - 1, Mean + 1, Mean]) end,
    History = #{{<<"a">>, #{}} => [Run(M) || M <- [100, 104, 98, 102, 99]]},
    Entry = one(Run(99), Run(100), #{history => History, run_noise => 1}),
    #{comparison := #{run_noise := R, run_noise_source := history}} = Entry,
    ?assert(abs(R - 4.0 / 0.9539) < 1.0e-9, R),
    %% fewer than 4 earlier runs: the default
    Short = #{{<<"a">>, #{}} => [Run(M) || M <- [100, 104, 98]]},
    ?assertMatch(#{comparison := #{run_noise := 1, run_noise_source := default}},
                 one(Run(99), Run(100), #{history => Short, run_noise => 1})),
    %% --run-noise given: no estimate
    ?assertMatch(#{comparison := #{run_noise := 3, run_noise_source := given}},
                 one(Run(99), Run(100), #{history => History, given_run_noise => 3})).

%% Forks taken in pairs side by side (--against): compared pair by pair, so that a host
%% whose speed changed between pairs moves both versions alike. The same data unpaired
%% (Welch's test of fork means) cannot tell.
paired_forks_test() ->
    %% the host halves its speed after the second pair; the run is 10% slower in each pair
    Base = [1000, 1000, 1000, 1000, 500, 500, 500, 500],
    Now = [900, 900, 900, 900, 450, 450, 450, 450],
    Fork = fun (Samples) -> (run(<<"a">>, <<"x().">>, <<"continuous">>, Samples))#{
                              <<"forks">> => #{<<"sizes">> => [2, 2, 2, 2], <<"means">> => [0, 0, 0, 0]}} end,
    ?assertMatch(#{verdict := slower, significant := true, comparison := #{test := paired}},
                 one(Fork(Base), Fork(Now), #{paired => true})),
    ?assertMatch(#{significant := false, comparison := #{test := welch}},
                 one(Fork(Base), Fork(Now), #{})).

%% A host whose other programs took half the schedulers' time or more, in either run:
%% the CPU figure scales the samples 2x or more, and its change (here 30% slower, in
%% paired forks) is no verdict; below that it stands. Wall-clock verdicts keep their
%% rules (load only slows code).
saturated_host_test_() ->
    Load = fun (Share) -> #{share => Share, others => 0.9, demand => 1.0} end,
    Fork = fun (Cpu, Share) -> measured(<<"a">>, scaled(Cpu, 1 - Share), Cpu, Load(Share)) end,
    Slower = scaled(?QUIET_SAMPLES, 0.7),
    [?_assertMatch(#{figure := cpu, verdict := inconclusive, reason := {saturated, 0.72},
                     significant := false},
                   one(Fork(?QUIET_SAMPLES, 0.72), Fork(Slower, 0.72), #{paired => true})),
     ?_assertMatch(#{figure := cpu, verdict := inconclusive, reason := {saturated, 0.55}},
                   one(Fork(?QUIET_SAMPLES, 0.55), Fork(Slower, 0.5), #{paired => true})),
     ?_assertMatch(#{figure := cpu, verdict := slower, significant := true},
                   one(Fork(?QUIET_SAMPLES, 0.45), Fork(Slower, 0.45), #{paired => true})),
     %% no difference stays no difference
     ?_assertMatch(#{figure := cpu, verdict := no_difference},
                   one(Fork(?QUIET_SAMPLES, 0.72), Fork(?QUIET_SAMPLES, 0.72), #{paired => true})),
     %% the gate does not fail on it; the line says why
     ?_test(begin
                Rows = erlperf_baseline:compare([{"p", record([Fork(?QUIET_SAMPLES, 0.72)])}],
                                                record([Fork(Slower, 0.72)]), #{paired => true}),
                ?assertEqual([], erlperf_gate:regressions(Rows, 10)),
                Text = unicode:characters_to_list(erlperf_baseline:format(Rows)),
                ?assertNotEqual(nomatch, string:find(Text, "inconclusive: the host was saturated (its "
                                                           "other programs took 72% of the schedulers' "
                                                           "time), too busy for a time verdict: 30.0% slower"), Text)
            end)].

%% Code that waits, its share of the schedulers' time taken risen: a change no larger
%% than what waiting for a CPU added to a call (the wait over the wall-clock time, times
%% the time of a call) is the load's; a sleeper gone from 2 to 30 ms a call is not.
waiting_code_test_() ->
    Sleeper = fun (Ms, Share, WaitShare) ->
                      Rate = 1000 / Ms,
                      (measured(<<"s">>, scaled(?QUIET_SAMPLES, Rate / 1000), scaled(?QUIET_SAMPLES, Rate / 1000),
                                #{share => Share, others => 0.0, demand => 0.05}))#{
                        <<"iteration_ns">> => Ms * 1.0e6,
                        <<"interference">> => #{<<"share">> => Share, <<"others">> => 0.0, <<"demand">> => 0.05,
                                                <<"samples">> => [], <<"wait_ns">> => WaitShare * 1.0e9,
                                                <<"wall_ns">> => 1.0e9}}
              end,
    [%% 2 ms -> 30 ms a call, waiting added next to nothing: a regression
     ?_assertMatch(#{verdict := slower, significant := true},
                   one(Sleeper(2, 0.05, 0.001), Sleeper(30, 0.21, 0.001), #{})),
     %% 1 ms -> 3.7 ms a call, and waiting took 95% of the wall clock: the load's doing
     ?_assertMatch(#{verdict := inconclusive, reason := {load_changed, _, _}},
                   one(Sleeper(1, 0.3, 0.01), Sleeper(3.7, 0.98, 0.95), #{}))].

%%--------------------------------------------------------------------
%% Runs of other settings (erlperf_comparable)

%% A run with settings as a record holds them: `#{<<"concurrency">> => 4,
%% <<"sample_duration">> => 200}'.
set(Run, Settings) -> maps:merge(Run, Settings).

at(Ms, Samples) ->
    set(run(<<"a">>, <<"x().">>, <<"continuous">>, Samples),
        #{<<"concurrency">> => 1, <<"sample_duration">> => Ms}).

text(Rows) ->
    unicode:characters_to_list(erlperf_baseline:format(Rows)).

%% Unchanged code at 100 and then 200 ms a sample: twice the calls a sample, the same per
%% second: no difference, and the line says what was compared. Without the durations (a
%% record that does not hold them) the same samples read as 100% faster.
per_second_across_sample_durations_test() ->
    Rows = erlperf_baseline:compare([{"prev", record([at(100, ?QUIET_SAMPLES)])}],
                                    record([at(200, scaled(?QUIET_SAMPLES, 2))]), #{}),
    [#{baselines := [Entry]}] = Rows,
    ?assertMatch(#{verdict := no_difference, significant := false,
                   options := [{<<"sample_duration">>, 100, 200}]}, Entry),
    ?assert(abs(maps:get(change_pct, Entry)) < 1, Entry),
    Text = text(Rows),
    ?assertEqual(nomatch, string:find(Text, "faster"), Text),
    ?assertNotEqual(nomatch, string:find(Text, ", per second: sample_duration 100 -> 200 ms)"),
                    Text),
    ?assertEqual([], erlperf_gate:regressions(Rows, 1)),
    Unknown = fun (Run) -> maps:remove(<<"sample_duration">>, Run) end,
    ?assertMatch(#{verdict := faster, significant := true, options := []},
                 one(Unknown(at(100, ?QUIET_SAMPLES)),
                     Unknown(at(200, scaled(?QUIET_SAMPLES, 2))), #{})).

%% A real change across sample durations is found, per second, and fails the gate.
per_second_change_test_() ->
    Base = at(100, ?QUIET_SAMPLES),
    Faster = at(200, scaled(?QUIET_SAMPLES, 4)),    % 2x per second
    Slower = at(200, ?QUIET_SAMPLES),               % 0.5x per second
    SlowerRows = erlperf_baseline:compare([{"prev", record([Base])}], record([Slower]), #{}),
    [?_assertMatch(#{verdict := faster, significant := true}, one(Base, Faster, #{})),
     ?_assert(abs(maps:get(change_pct, one(Base, Faster, #{})) - 100) < 1),
     ?_assertMatch([#{baselines := [#{verdict := slower, significant := true}]}], SlowerRows),
     ?_assert(abs(maps:get(change_pct, one(Base, Slower, #{})) + 50) < 1),
     ?_assertMatch([{<<"a">>, [_]}], erlperf_gate:regressions(SlowerRows, 10))].

%% The CPU figure is scaled as the samples are; a record of an older release, without
%% the field, gives its duration by its `qps' and `average' (qps = average x 1000 / ms).
per_second_figures_test_() ->
    Cpu = fun (Ms, F) -> set(measured(<<"a">>, scaled(?QUIET_SAMPLES, F), scaled(?QUIET_SAMPLES, F),
                                      quiet()),
                             #{<<"concurrency">> => 1, <<"sample_duration">> => Ms}) end,
    Older = fun (Ms, F) ->
                    Samples = scaled(?QUIET_SAMPLES, F),
                    Average = lists:sum(Samples) / length(Samples),
                    set(run(<<"a">>, <<"x().">>, <<"continuous">>, Samples),
                        #{<<"concurrency">> => 1, <<"average">> => Average,
                          <<"qps">> => Average * 1000 / Ms})
            end,
    [?_assertMatch(#{figure := cpu, verdict := no_difference}, one(Cpu(100, 1), Cpu(200, 2), #{})),
     ?_assertMatch(#{figure := cpu, verdict := slower}, one(Cpu(100, 1), Cpu(200, 1), #{})),
     ?_assertEqual(300, erlperf_comparable:sample_duration(Older(300, 3))),
     ?_assertMatch(#{verdict := no_difference, options := [{<<"sample_duration">>, 100, 300}]},
                   one(Older(100, 1), Older(300, 3), #{})),
     ?_assertMatch(#{verdict := no_difference, options := [{<<"sample_duration">>, 100, 300}]},
                   one(Older(100, 1), at(300, scaled(?QUIET_SAMPLES, 3)), #{}))].

%% Runs whose settings differ measured different things: inconclusive, the options
%% differ, no change given.
options_differ_test_() ->
    Base = at(100, ?QUIET_SAMPLES),
    Four = set(Base, #{<<"concurrency">> => 4}),
    Rows = erlperf_baseline:compare([{"prev", record([Base])}], record([Four]), #{}),
    [#{baselines := [Entry]}] = Rows,
    [?_assertMatch(#{verdict := inconclusive, significant := false, change_pct := undefined,
                     ci_pct := undefined,
                     reason := {options_differ, [{<<"concurrency">>, 1, 4}]},
                     options := [{<<"concurrency">>, 1, 4}]}, Entry),
     ?_assertEqual("a against prev: inconclusive: options differ: concurrency 1 -> 4\n",
                   text(Rows)),
     ?_assertEqual("inconclusive", erlperf_baseline:record_word(baseline_of(Base, Four))),
     %% every setting that differs is named
     ?_assertMatch(#{reason := {options_differ, [{<<"concurrency">>, 1, 4},
                                                 {<<"sample_duration">>, 100, 200}]}},
                   one(Base, set(Four, #{<<"sample_duration">> => 200}), #{})),
     ?_assertEqual("inconclusive: options differ: concurrency 1 -> 4, "
                   "sample_duration 100 -> 200 ms",
                   verdict_text(Base, set(Four, #{<<"sample_duration">> => 200})))].

%% Mode, timed loop and open load: what a sample is, each its own setting.
options_differ_settings_test_() ->
    Timed = fun (Loop) -> set(run(<<"a">>, <<"x().">>, <<"timed">>, ?QUIET_SAMPLES),
                              #{<<"concurrency">> => 1,
                                <<"sample_duration">> => #{<<"timed">> => Loop}})
            end,
    Open = fun (Rate, Workers) -> set(at(100, ?QUIET_SAMPLES),
                                      #{<<"concurrency">> => Workers,
                                        <<"rate">> => #{<<"target">> => Rate}}) end,
    Closed = at(100, ?QUIET_SAMPLES),
    [?_assertMatch(#{reason := {options_differ, [{<<"mode">>, <<"continuous">>, <<"timed">>}]}},
                   one(Closed, Timed(1000), #{})),
     ?_assertEqual("inconclusive: options differ: mode continuous -> timed",
                   verdict_text(Closed, Timed(1000))),
     ?_assertMatch(#{reason := {options_differ, [{<<"loop">>, 1000, 10000}]}},
                   one(Timed(1000), Timed(10000), #{})),
     ?_assertEqual("inconclusive: options differ: loop 1000 -> 10000 calls",
                   verdict_text(Timed(1000), Timed(10000))),
     ?_assertMatch(#{verdict := no_difference, options := []}, one(Timed(1000), Timed(1000), #{})),
     %% an open load's pool grows as it needs: its workers are measured, not set
     ?_assertMatch(#{reason := {options_differ, [{<<"rate">>, null, 5000}]}},
                   one(Closed, Open(5000, 7), #{})),
     ?_assertEqual("inconclusive: options differ: rate 1000/s -> none",
                   verdict_text(Open(1000, 3), Closed)),
     ?_assertMatch(#{reason := {options_differ, [{<<"rate">>, 1000, 2000}]}},
                   one(Open(1000, 3), Open(2000, 5), #{})),
     ?_assertMatch(#{verdict := no_difference, options := []},
                   one(Open(1000, 3), Open(1000, 5), #{}))].

%% The gate does not fail on runs of other settings, however slower the samples; their
%% exact counts, per call, still compare and fail it.
options_differ_gate_and_counts_test_() ->
    Counts = fun (R, Bytes) -> R#{<<"counts">> => #{<<"bytes_per_iteration">> => Bytes,
                                                    <<"reductions_per_iteration">> => 2003.0}} end,
    Base = Counts(at(100, ?QUIET_SAMPLES), 1600.0),
    Halved = set(Counts(at(100, scaled(?QUIET_SAMPLES, 0.5)), 1600.0), #{<<"concurrency">> => 4}),
    More = set(Counts(at(100, scaled(?QUIET_SAMPLES, 0.5)), 2000.0), #{<<"concurrency">> => 4}),
    Compared = fun (Now) ->
                       erlperf_baseline:compare([{"prev", record([Base])}], record([Now]), #{})
               end,
    Counted = fun (Now) -> [{K, V} || #{count := K, verdict := V}
                                          <- maps:get(counts, one(Base, Now, #{}))] end,
    [?_assertMatch(#{verdict := inconclusive, reason := {options_differ, _}},
                   one(Base, Halved, #{})),
     ?_assertEqual([], erlperf_gate:regressions(Compared(Halved), 10)),
     ?_assertEqual([{<<"bytes_per_iteration">>, no_change},
                    {<<"reductions_per_iteration">>, no_change}], Counted(Halved)),
     ?_assertEqual([{<<"bytes_per_iteration">>, regressed},
                    {<<"reductions_per_iteration">>, no_change}], Counted(More)),
     ?_assertMatch([{<<"a">>, [#{reason := {options_differ, _}}]}],
                   erlperf_gate:regressions(Compared(More), 10))].

%% Runs of different kinds (an open load against a closed one, a timed run against a
%% continuous one) compare in nothing: not their samples (the open load's count calls a
%% schedule started, far fewer than a closed loop makes), not their exact counts. The
%% gate cannot fail on them.
other_kinds_test_() ->
    Counts = fun (R, Bytes) -> R#{<<"counts">> => #{<<"bytes_per_iteration">> => Bytes,
                                                    <<"reductions_per_iteration">> => 2003.0}} end,
    Closed = Counts(at(100, ?QUIET_SAMPLES), 1600.0),
    Open = set(Counts(at(100, scaled(?QUIET_SAMPLES, 0.001)), 3200.0),
               #{<<"rate">> => #{<<"target">> => 1000}}),
    Timed = set(Counts(run(<<"a">>, <<"x().">>, <<"timed">>, ?QUIET_SAMPLES), 3200.0),
                #{<<"concurrency">> => 1, <<"sample_duration">> => #{<<"timed">> => 1000}}),
    Gate = fun (Base, Now) ->
                   erlperf_gate:regressions(
                     erlperf_baseline:compare([{"prev", record([Base])}], record([Now]), #{}), 5)
           end,
    [[?_assertMatch(#{verdict := inconclusive, reason := {options_differ, _}, counts := []},
                    one(Base, Now, #{})),
      ?_assertEqual([], Gate(Base, Now))]
     || {Base, Now} <- [{Closed, Open}, {Open, Closed}, {Closed, Timed}]].

%% The record keeps the reason and the settings that differ, in a shape its reader takes.
options_differ_record_test() ->
    Base = at(100, ?QUIET_SAMPLES),
    Now = (record([set(Base, #{<<"concurrency">> => 4})]))#{<<"version">> => 1},
    Rows = erlperf_baseline:compare([{"prev", record([Base])}], Now, #{}),
    Record = erlperf_record:with_baselines(Now, Rows),
    #{<<"runs">> := [#{<<"baselines">> := [Saved]}]} = Record,
    ?assertMatch(#{<<"verdict">> := <<"inconclusive">>, <<"reason">> := <<"options_differ">>,
                   <<"change_pct">> := null, <<"ci95_pct">> := null,
                   <<"options">> := [#{<<"key">> := <<"concurrency">>, <<"baseline">> := 1,
                                       <<"run">> := 4}],
                   <<"text">> := <<"inconclusive: options differ: concurrency 1 -> 4">>}, Saved),
    Complete = fun (R) -> R#{<<"average">> => 1000.0, <<"qps">> => 10000.0,
                             <<"params">> => #{}} end,
    #{<<"runs">> := [Run]} = Record,
    {ok, Json} = erlperf_json:decode(iolist_to_binary(erlperf_json:encode(
                                                        Record#{<<"runs">> := [Complete(Run)]}))),
    ?assertEqual(ok, erlperf_schema:check(benchmark, Json)),
    %% the reader checks the new fields' shapes
    #{<<"runs">> := [JsonRun]} = Json,
    Mutated = fun (Changed) -> erlperf_schema:check(benchmark, Json#{<<"runs">> := [Changed]}) end,
    ?assertMatch({error, {record, {<<"runs[0].sample_duration">>, _}}},
                 Mutated(JsonRun#{<<"sample_duration">> => <<"1s">>})),
    ?assertMatch({error, {record, {<<"runs[0].baselines[0].options">>, _}}},
                 Mutated(JsonRun#{<<"baselines">> := [Saved#{<<"options">> => 4}]})).

%% The run noise from a history of other sample durations: each earlier run per sample
%% of this run's duration (history_noise_test's means, half of them measured at 200 ms);
%% an earlier run of other settings is left out.
history_across_settings_test() ->
    Earlier = fun (Ms, Mean) -> at(Ms, scaled([Mean - 1, Mean + 1, Mean], Ms / 100)) end,
    History = [Earlier(100, 100), Earlier(200, 104),
               set(Earlier(100, 400), #{<<"concurrency">> => 4}),
               Earlier(100, 98), Earlier(200, 102), Earlier(100, 99)],
    Entry = one(Earlier(100, 99), Earlier(100, 100), #{history => #{{<<"a">>, #{}} => History}}),
    #{comparison := #{run_noise := R, run_noise_source := history}} = Entry,
    ?assert(abs(R - 4.0 / 0.9539) < 1.0e-9, R).

baseline_of(Base, Now) ->
    Rows = erlperf_baseline:compare([{"prev", record([Base])}], record([Now]), #{}),
    #{<<"runs">> := [#{<<"baselines">> := [Saved]}]} =
        erlperf_record:with_baselines(record([Now]), Rows),
    Saved.

verdict_text(Base, Now) ->
    unicode:characters_to_list(erlperf_verdict:text(maps:get(comparison, one(Base, Now, #{})))).

%% Decided: without a gate, a significant change, or no significant change whose
%% interval lies inside the noise floor both ways; with one, a slowdown's interval wholly
%% past the gate or wholly within it; an inconclusive verdict never.
decided_test_() ->
    Compare = fun (Base, Now, Options) ->
                      erlperf_baseline:compare([{"b.json", record([Base])}], record([Now]), Options)
              end,
    Steady = run(<<"a">>, <<"x().">>, <<"continuous">>, [1000, 1001, 999, 1000, 1000]),
    SteadyToo = run(<<"a">>, <<"x().">>, <<"continuous">>, [1000, 999, 1001, 1000, 1000]),
    Half = run(<<"a">>, <<"x().">>, <<"continuous">>, [500, 501, 499, 500, 500]),
    Spread = run(<<"a">>, <<"x().">>, <<"continuous">>, [1000, 1100, 900, 1050, 950]),
    SpreadToo = run(<<"a">>, <<"x().">>, <<"continuous">>, [950, 1050, 850, 1000, 900]),
    New = run(<<"new">>, <<"w().">>, <<"continuous">>, [1, 2, 3]),
    Exact = #{given_run_noise => 0},
    [?_assert(erlperf_gate:decided(Compare(Steady, SteadyToo, Exact), Exact)),
     %% the same samples with a run noise of 1% between runs: an interval of 3% each way
     ?_assertNot(erlperf_gate:decided(Compare(Steady, SteadyToo, #{}), #{})),
     ?_assert(erlperf_gate:decided(Compare(Steady, Half, #{}), #{})),
     %% no significant change, an interval of several percent: not within the 1% floor,
     %% within a gate of 20%, and never when the gate makes it inconclusive
     ?_assertNot(erlperf_gate:decided(Compare(Spread, SpreadToo, #{}), #{})),
     ?_assert(erlperf_gate:decided(Compare(Spread, SpreadToo, #{gate => 20}), #{gate => 20})),
     ?_assertNot(erlperf_gate:decided(Compare(Spread, SpreadToo, #{gate => 5}), #{gate => 5})),
     %% 50% slower: past a gate of 10, not past one of 50 for sure
     ?_assert(erlperf_gate:decided(Compare(Steady, Half, #{gate => 10}), #{gate => 10})),
     ?_assertNot(erlperf_gate:decided(Compare(Steady, Half, #{gate => 50}), #{gate => 50})),
     %% twice as fast: within any gate
     ?_assert(erlperf_gate:decided(Compare(Half, Steady, #{gate => 10}), #{gate => 10})),
     %% a run the baseline does not have has no verdict to wait for
     ?_assert(erlperf_gate:decided(Compare(Steady, New, #{}), #{}))].

%% Runs of code that computes that each took turns with the same reference workload,
%% on a host about as busy in both, are compared on each fork's median ratio of their
%% samples: a host 20% slower in the new run (the benchmark and the reference alike) is
%% no change, where the samples alone say slower; the benchmark 10% slower beside the
%% same reference is slower. On a quiet host, across a change of load, or for code that
%% waits, the samples are compared as they are.
reference_ratio_test_() ->
    #{reference := #{code := Code}} =
        erlperf_reference:beside([#{result => #{values => [1]}}, #{result => #{values => [1]}}]),
    Referenced = fun (Values, Reference, Load) ->
                         (measured(<<"a">>, Values, Values, Load))#{
                           <<"reference">> => #{<<"code">> => unicode:characters_to_binary(Code),
                                                <<"samples">> => Reference}}
                 end,
    Ref = scaled(?QUIET_SAMPLES, 3),
    Busy = busy(),
    Base = Referenced(?QUIET_SAMPLES, Ref, Busy),
    Slower = Referenced(scaled(?QUIET_SAMPLES, 0.8), scaled(Ref, 0.8), Busy),
    Waits = fun (Run) -> Run#{<<"interference">> := (maps:get(<<"interference">>, Run))#{
                                                      <<"demand">> => 0.1}}
            end,
    [?_assertMatch(#{verdict := no_difference, figure := reference,
                     comparison := #{figure := reference}}, one(Base, Slower, #{})),
     ?_assertMatch(#{change_pct := C} when C < -15,
                   one(maps:remove(<<"reference">>, Base), maps:remove(<<"reference">>, Slower),
                       #{})),
     ?_assertMatch(#{verdict := slower, figure := reference, significant := true},
                   one(Base, Referenced(scaled(?QUIET_SAMPLES, 0.9), Ref, Busy), #{})),
     ?_assertNotEqual(nomatch,
                      string:find(unicode:characters_to_list(
                                    erlperf_verdict:text(maps:get(comparison,
                                                                  one(Base, Slower, #{})))),
                                  "relative to a reference workload")),
     %% quiet through both runs, across a change of load, code that waits: not on the ratio
     ?_assertNotMatch(#{figure := reference},
                      one(Referenced(?QUIET_SAMPLES, Ref, quiet()),
                          Referenced(scaled(?QUIET_SAMPLES, 0.8), scaled(Ref, 0.8), quiet()), #{})),
     ?_assertNotMatch(#{figure := reference},
                      one(Referenced(?QUIET_SAMPLES, Ref, quiet()), Slower, #{})),
     ?_assertNotMatch(#{figure := reference}, one(Waits(Base), Waits(Slower), #{})),
     %% the same busy loops, the load read 0.64 in one run and 0.85 in the next: still
     %% on the ratio (from quiet to busy the load moves 0.6 or more)
     ?_assertMatch(#{verdict := no_difference, figure := reference},
                   one(Referenced(?QUIET_SAMPLES, Ref, #{share => 0.15, others => 0.58, demand => 1.0}),
                       Referenced(scaled(?QUIET_SAMPLES, 0.8), scaled(Ref, 0.8),
                                  #{share => 0.45, others => 0.72, demand => 1.0}), #{})),
     %% half busy, then fully busy: not alike
     ?_assertNotMatch(#{figure := reference},
                      one(Referenced(?QUIET_SAMPLES, Ref, #{share => 0.1, others => 0.3, demand => 1.0}),
                          Slower, #{})),
     %% a run without CPU figures (a sample had none) still computes: on the ratio when
     %% busy, on the wall clock when quiet (never on CPU figures it lacks)
     ?_assertMatch(#{verdict := no_difference, figure := reference},
                   one(Base, maps:remove(<<"cpu_samples">>, Slower), #{})),
     ?_assertMatch(#{figure := wall},
                   one(Referenced(?QUIET_SAMPLES, Ref, quiet()),
                       maps:remove(<<"cpu_samples">>, Referenced(?QUIET_SAMPLES, Ref, quiet())), #{}))].

%% A run of code that computes is one whatever CPU figures it has.
computes_test_() ->
    Run = measured(<<"a">>, ?QUIET_SAMPLES, ?QUIET_SAMPLES, busy()),
    [?_assert(erlperf_record:computes(Run)),
     ?_assert(erlperf_record:computes(maps:remove(<<"cpu_samples">>, Run))),
     ?_assertNot(erlperf_record:computes(measured(<<"a">>, ?QUIET_SAMPLES, ?QUIET_SAMPLES,
                                                  #{share => 0.5, others => 0.9, demand => 0.1}))),
     ?_assertNot(erlperf_record:computes(maps:remove(<<"interference">>, Run)))].
