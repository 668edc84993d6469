%%% @doc eunit tests of `erlperf_changepoint': reference values computed independently
%%% with R, false-alarm and power rates measured on simulated histories, and the edges.
%%%
%%% Reference values: `test/erlperf_changepoint_reference.R' computes, with R 4.2.2's own
%%% functions (`t.test', `lm', `confint'), the split a series' steps are at and both tests
%%% of each step (pooled over the model of segment means, and Welch's) on the logarithms;
%%% its printed output is `erlperf_changepoint_reference.txt' next to it. Recompute with
%%%   Rscript test/erlperf_changepoint_reference.R | diff - test/erlperf_changepoint_reference.txt
%%% The literals below are that output, compared with a relative tolerance of 1e-10. The
%%% t statistic is not part of a step: it is pinned by the p value and the interval
%%% (given the degrees of freedom, each determines it).
%%%
%%% Simulated histories: runs of `1.0e6 * (1 + e)', e normal with standard deviation
%%% 1.7% (the noise between runs of one benchmark on the development machine); the
%%% heavy-tailed variant has each run, with probability 0.1, 3-10% slower (a host's
%%% one-run slowdowns). Seeded with `rand:seed(exsss, ...)': the rates are the same on
%%% every run of the tests, and printed.
-module(erlperf_changepoint_tests).

-include_lib("eunit/include/eunit.hrl").

%% The data sets of erlperf_changepoint_reference.R.
-define(REF_A, [1012, 998, 1005, 991, 1003, 1009, 925, 931, 918, 926, 935, 921]).
-define(REF_B, [1040, 975, 1010, 960, 1030, 990, 1102, 1098, 1105, 1100, 1097, 1103]).
-define(REF_CC, [1003, 985, 1017, 996, 1021, 979, 1008, 992, 1011, 1082, 1081, 1083]).
-define(REF_D, [1001, 990, 1012, 995, 1098, 1110, 1092, 1105, 1101, 1003, 991, 1008, 997,
                1012, 989]).
-define(REF_E, [{V, V * 0.99, V * 1.01} || V <- [1000, 1000, 1001, 1000, 1050, 1051, 1050, 1050]]).

%% Relative tolerance against R's values.
-define(REF_EPS, 1.0e-10).
-define(assertRef(Expected, Actual),
        ?assert(abs((Expected) - (Actual)) =< ?REF_EPS * abs(Expected), {Expected, Actual})).

%% The noise of the simulated runs (standard deviation, relative) and the heavy tail.
-define(SD, 0.017).
-define(SLOW_SHARE, 0.1).
-define(SLOW_MIN, 0.03).
-define(SLOW_MAX, 0.10).
%% A group of simulations takes some 10 s of one core; the ceiling leaves room for a
%% machine loaded by other work (three test legs at once take a core each).
-define(SIM_TIMEOUT, 600).

%%--------------------------------------------------------------------
%% Reference values (R)

%% {Series, Alpha, At, Before, After, ChangePct, {CiLow, CiHigh}, P, the wider test}:
%% erlperf_changepoint_reference.txt. R's best single split of a, b, cc is at 7, 7 and
%% 10; d's best inner stretch is points 5..9 (steps at 5 and 10).
reference() ->
    [{a, 0.01, 7, 1002.975854992382, 925.98237494966429, -7.6765038419895459,
      {-8.8875209458347157, -6.4493905629438908}, 3.8008147078911584e-09, welch},
     {a, 0.05, 7, 1002.975854992382, 925.98237494966429, -7.6765038419895459,
      {-8.52852971263024, -6.8165416379548311}, 3.8008147078911584e-09, welch},
     {b, 0.01, 7, 1000.4233742459128, 1100.8297882298989, 10.036392248398762,
      {4.5213058915316129, 15.842483173801082}, 0.00064597060143818414, welch},
     {cc, 0.01, 10, 1001.2414152031471, 1081.9996919284392, 8.0658146475999217,
      {5.1675734656799754, 11.043926474736487}, 3.9638646238068298e-06, pooled},
     {d, 0.01, 5, 999.46644077370456, 1101.1830321832635, 10.17708922080649,
      {7.7632314526551394, 12.645016537971166}, 1.0982114145696204e-05, welch},
     {d, 0.01, 10, 1101.1830321832635, 999.96434204615593, -9.1918134568806487,
      {-10.5946662014472, -7.7669486495061228}, 2.6689900634296106e-10, pooled},
     {e, 0.01, 5, 1000.2499063046497, 1050.2499107638562, 4.9987512264737743,
      {3.6036922747818778, 6.4125951214043297}, 1.0151598535964869e-05, welch}].

ref_series(a) -> ?REF_A;
ref_series(b) -> ?REF_B;
ref_series(cc) -> ?REF_CC;
ref_series(d) -> ?REF_D;
ref_series(e) -> ?REF_E.

%% R's steps for each series and alpha, in order of `at'.
ref_steps(Series, Alpha) ->
    [At || {S, A, At, _, _, _, _, _, _} <- reference(), S =:= Series, A == Alpha].

reference_test_() ->
    [{lists:concat([Series, " alpha ", Alpha, " at ", At, " (", Test, " wider)"]),
      fun () ->
              Steps = erlperf_changepoint:steps(ref_series(Series), #{alpha => Alpha}),
              ?assertEqual(ref_steps(Series, Alpha), [S || #{at := S} <- Steps]),
              [#{before := B, 'after' := A, change_pct := C, ci_pct := {L, H}, p := P}] =
                  [S || #{at := X} = S <- Steps, X =:= At],
              ?assertRef(Before, B),
              ?assertRef(After, A),
              ?assertRef(Change, C),
              ?assertRef(Low, L),
              ?assertRef(High, H),
              ?assertRef(RefP, P)
      end}
     || {Series, Alpha, At, Before, After, Change, {Low, High}, RefP, Test} <- reference()].

%%--------------------------------------------------------------------
%% False alarms: flat histories

%% A timeout on a group of several tests is the group's alone (each test keeps eunit's
%% 5 s): every test here has its own.
false_alarm_test_() ->
    [{timeout, ?SIM_TIMEOUT, Test} || Test <-
     [?_test(false_alarms(12, normal, #{}, {1201, 1, 1}, 0.02)),
      ?_test(false_alarms(30, normal, #{}, {3001, 1, 1}, 0.02)),
      ?_test(false_alarms(12, heavy, #{}, {1202, 1, 1}, 0.03)),
      ?_test(false_alarms(30, heavy, #{}, {3002, 1, 1}, 0.03)),
      %% the segmentation's level alone: no noise floor to drop what it finds
      ?_test(false_alarms(12, normal, #{noise => 0}, {1203, 1, 1}, 0.02)),
      ?_test(false_alarms(30, normal, #{noise => 0}, {3003, 1, 1}, 0.02))]].

false_alarms(Runs, Noise, Options, Seed, Bound) ->
    rand:seed(exsss, Seed),
    Called = length([x || _ <- lists:seq(1, 1000),
                          erlperf_changepoint:steps(series(Runs, [], Noise), Options) =/= []]),
    ?debugFmt("false alarms, ~b runs, ~s noise, options ~p: ~b of 1000 series (~.1f%)",
              [Runs, Noise, Options, Called, Called / 10]),
    ?assert(Called / 1000 =< Bound, {Called, of_1000}).

%% One run 3-10% slow, at each position of a flat history, is not a step: called at
%% most at the false-alarm rate of flat noise.
lone_slow_run_test_() ->
    {timeout, ?SIM_TIMEOUT,
     fun () ->
             rand:seed(exsss, {1203, 1, 1}),
             Called = [Pos || Pos <- lists:seq(1, 12), _ <- lists:seq(1, 100),
                              [] =/= erlperf_changepoint:steps(
                                        slow_at(Pos, series(12, [], normal)))],
             ?debugFmt("a lone run 3-10% slow in 12: a step in ~b of 1200 series",
                       [length(Called)]),
             ?assert(length(Called) =< 12, Called)
     end}.

%% With little noise a lone slow run stands out most: still not a step.
lone_slow_run_low_noise_test() ->
    rand:seed(exsss, {1204, 1, 1}),
    Flat = [1000 + (I rem 3) || I <- lists:seq(1, 12)],
    ?assertEqual([], [{Pos, Steps} || Pos <- lists:seq(1, 12),
                                      Steps <- [erlperf_changepoint:steps(slow_at(Pos, Flat))],
                                      Steps =/= []]).

%%--------------------------------------------------------------------
%% Power: histories with steps

%% A 5% step after run 6 of 12 is about 3 noise standard deviations: no test does well
%% on 12 runs at α = 0.01. erlperf_changepoint_reference.R: the t-test at the known split
%% rejects at 1% in 93.4% of such series; the exact largest-t test over single splits
%% alone in 72.5% (here the level is shared with stretches, and the noise floor applies).
power_5pct_test_() ->
    {timeout, ?SIM_TIMEOUT,
     ?_test(begin
                {Exactly, Found} = power(12, [{7, 1.05}], 1000, {1205, 1, 1}),
                ?debugFmt("5% step at 7 of 12: at 7 alone in ~b of 1000 series, any step in ~b",
                          [Exactly, Found]),
                ?assert(Exactly >= 550, Exactly)
            end)}.

%% A 9% step is found, at 7 alone, in 95% of the series.
power_9pct_test_() ->
    {timeout, ?SIM_TIMEOUT,
     ?_test(begin
                {Exactly, Found} = power(12, [{7, 1.09}], 1000, {1209, 1, 1}),
                ?debugFmt("9% step at 7 of 12: at 7 alone in ~b of 1000 series, any step in ~b",
                          [Exactly, Found]),
                ?assert(Exactly >= 950, Exactly)
            end)}.

%% A 10% step: found in every series, within one run of 7; at 7 alone in 97% (the rest
%% are runs next to the step whose noise took them past the middle: no method can place
%% those; or a second step).
power_10pct_test_() ->
    {timeout, ?SIM_TIMEOUT,
     ?_test(begin
                rand:seed(exsss, {1210, 1, 1}),
                Ats = [[A || #{at := A} <- erlperf_changepoint:steps(
                                             series(12, [{7, 1.10}], normal))]
                       || _ <- lists:seq(1, 200)],
                Exactly = length([x || [7] <- Ats]),
                ?debugFmt("10% step at 7 of 12: at 7 alone in ~b of 200 series; others ~p",
                          [Exactly, [X || X <- Ats, X =/= [7]]]),
                ?assertEqual([], [X || X <- Ats, [] =:= [A || A <- X, abs(A - 7) =< 1]]),
                ?assert(Exactly >= 194, Exactly)
            end)}.

%% A step up at 5 and back down at 10 of 15 (a regression, then its fix).
two_steps_test_() ->
    {timeout, ?SIM_TIMEOUT,
     ?_test(begin
                rand:seed(exsss, {1215, 1, 1}),
                Ats = [[A || #{at := A} <- erlperf_changepoint:steps(
                                             series(15, [{5, 1.10}, {10, 1 / 1.10}], normal))]
                       || _ <- lists:seq(1, 200)],
                Both = length([x || [5, 10] <- Ats]),
                ?debugFmt("10% up at 5, down at 10 of 15: both, alone, in ~b of 200 series",
                          [Both]),
                ?assert(Both >= 190, Both)
            end)}.

two_steps_exact_test() ->
    Series = [100, 101, 100, 99, 110, 111, 110, 109, 110, 100, 99, 101, 100, 100, 101],
    ?assertMatch([#{at := 5, change_pct := Up}, #{at := 10, change_pct := Down}]
                     when Up > 9 andalso Down < -8,
                 erlperf_changepoint:steps(Series)).

%% The module doc's example.
doc_example_test() ->
    Flat = [100, 101, 99, 100, 102, 100],
    [#{at := 7, change_pct := Pct}] =
        erlperf_changepoint:steps(Flat ++ [90, 91, 89, 90, 91, 90]),
    true = Pct < -9,
    [] = erlperf_changepoint:steps(Flat ++ Flat).

%%--------------------------------------------------------------------
%% Edges

short_test_() ->
    [?_assertEqual([], erlperf_changepoint:steps([])),
     ?_assertEqual([], erlperf_changepoint:steps([1000])),
     ?_assertEqual([], erlperf_changepoint:steps([1000, 2000])),
     ?_assertEqual([], erlperf_changepoint:steps([{1000, 990, 1010}, {2000, 1990, 2010}])),
     %% 3 runs: no split leaves 2 on each side
     ?_assertEqual([], erlperf_changepoint:steps([1000, 1000, 2000])),
     %% 4 runs: the one split possible, a doubling without spread
     ?_assertMatch([#{at := 3, change_pct := 100.0, ci_pct := {100.0, 100.0}, p := P}] when P == 0,
                   erlperf_changepoint:steps([1000, 1000, 2000, 2000]))].

all_equal_test_() ->
    [?_assertEqual([], erlperf_changepoint:steps(lists:duplicate(N, 1000)))
     || N <- [4, 5, 12, 30]]
    ++ [?_assertEqual([], erlperf_changepoint:steps(lists:duplicate(12, {1000, 990, 1010}))),
        ?_assertEqual([], erlperf_changepoint:steps(lists:duplicate(12, 0.001)))]
    %% without a noise floor either, whatever rounding does to their mean
    ++ [?_assertEqual([], erlperf_changepoint:steps(lists:duplicate(N, V), #{noise => 0}))
        || V <- [0.1, 1.1, 3.3, 1234.567, 7.7e6], N <- [5, 12, 13, 30]].

%% Points with intervals: a clear step is found with them; the intervals set a floor
%% under the variance, so that runs that happen to be equal do not make a 2% step
%% certain when each run is only known to ±5%.
intervals_test_() ->
    Tight = [1000, 1000, 1000, 1000, 1020, 1020, 1020, 1020],
    Wide = [{V, V * 0.95, V * 1.05} || V <- Tight],
    Exact = [{V, V, V} || V <- Tight],
    [?_assertMatch([#{at := 5, ci_pct := {Same, Same}}], erlperf_changepoint:steps(Tight)),
     ?_assertEqual(erlperf_changepoint:steps(Tight), erlperf_changepoint:steps(Exact)),
     ?_assertEqual([], erlperf_changepoint:steps(Wide)),
     ?_assertMatch([#{at := 5}],
                   erlperf_changepoint:steps([{V, V * 0.95, V * 1.05}
                                              || V <- [1000, 1000, 1000, 1000,
                                                       1200, 1200, 1200, 1200]])),
     %% mixed: points with and without intervals
     ?_assertMatch([#{at := 7}], erlperf_changepoint:steps([{1012, 1000, 1020} | tl(?REF_A)]))].

%% A 0.5% step with 0.05% noise: certain, and below the noise floor.
noise_floor_test_() ->
    rand:seed(exsss, {1220, 1, 1}),
    Series = [1000 * (1 + 0.0005 * rand:normal()) * step_factor(I, [{7, 1.005}])
              || I <- lists:seq(1, 12)],
    [?_assertEqual([], erlperf_changepoint:steps(Series)),
     ?_assertEqual([], erlperf_changepoint:steps(Series, #{noise => 0.6})),
     ?_assertMatch([#{at := 7, ci_pct := {Low, _}}] when Low > 0.3,
                   erlperf_changepoint:steps(Series, #{noise => 0.3})),
     ?_assertMatch([#{at := 7}], erlperf_changepoint:steps(Series, #{noise => 0}))].

min_segment_test_() ->
    Early = [100, 90, 91, 90, 89, 91, 90, 90, 91, 89, 90, 90],
    Late = lists:reverse(Early),
    [%% a step after the first run cannot be called: one run is a segment shorter than 2
     ?_assertEqual([], erlperf_changepoint:steps(Early)),
     ?_assertEqual([], erlperf_changepoint:steps(Late)),
     ?_assertMatch([#{at := 3}], erlperf_changepoint:steps([100, 101 | tl(tl(Early))])),
     ?_assertEqual([], erlperf_changepoint:steps([100, 101 | tl(tl(Early))], #{min_segment => 3})),
     ?_assertMatch([#{at := 7}], erlperf_changepoint:steps(?REF_A, #{min_segment => 6})),
     ?_assertEqual([], erlperf_changepoint:steps(?REF_A, #{min_segment => 7})),
     {timeout, ?SIM_TIMEOUT, ?_test(min_segment_everywhere())}].

%% In random histories with two steps anywhere, every segment holds min_segment runs.
min_segment_everywhere() ->
    rand:seed(exsss, {1230, 1, 1}),
    Short = [{MinSegment, Ats}
             || _ <- lists:seq(1, 300),
                MinSegment <- [2 + rand:uniform(3)],
                Series <- [series(20, [{1 + rand:uniform(19), 1.1}, {1 + rand:uniform(19), 0.92}],
                                  heavy)],
                Ats <- [[A || #{at := A} <- erlperf_changepoint:steps(
                                                Series, #{min_segment => MinSegment})]],
                Edges <- [[1 | Ats] ++ [21]],
                lists:min([B - A || {A, B} <- lists:zip(lists:droplast(Edges), tl(Edges))])
                    < MinSegment],
    ?assertEqual([], Short).

%% What a step says: ordered by `at', change_pct from before and after, inside its
%% interval, p in [0, 1]; the same history always gives the same steps.
invariants_test_() ->
    {timeout, ?SIM_TIMEOUT,
     ?_test(begin
                rand:seed(exsss, {1240, 1, 1}),
                Histories = [series(24, [{1 + rand:uniform(23), 0.85 + 0.3 * rand:uniform()}
                                         || _ <- lists:seq(1, rand:uniform(3))], heavy)
                             || _ <- lists:seq(1, 200)],
                Steps = [erlperf_changepoint:steps(H) || H <- Histories],
                ?assertEqual(Steps, [erlperf_changepoint:steps(H) || H <- Histories]),
                Called = lists:sum([length(S) || S <- Steps]),
                ?debugFmt("invariants: ~b steps in 200 histories", [Called]),
                ?assert(Called > 100, Called),
                [begin
                     ?assertEqual(lists:usort([A || #{at := A} <- S]), [A || #{at := A} <- S]),
                     [begin
                          ?assert(abs(C - 100 * (Af / Be - 1)) =< 1.0e-9 * max(1.0, abs(C))),
                          ?assert(L =< C andalso C =< H),
                          ?assert(P >= 0 andalso P =< 1),
                          ?assert(L > 1.0 orelse H < -1.0)
                      end || #{before := Be, 'after' := Af, change_pct := C, ci_pct := {L, H},
                               p := P} <- S]
                 end || S <- Steps]
            end)}.

invalid_test_() ->
    Good = [1000, 1001, 999, 1000],
    [?_assertError({invalid_point, x}, erlperf_changepoint:steps([1000, x, 1000, 1000])),
     ?_assertError({invalid_point, 0}, erlperf_changepoint:steps([0 | Good])),
     ?_assertError({invalid_point, -1.5}, erlperf_changepoint:steps(Good ++ [-1.5])),
     ?_assertError({invalid_point, {1000, 1010, 1020}},
                   erlperf_changepoint:steps([{1000, 1010, 1020} | Good])),
     ?_assertError({invalid_point, {1000, 990}}, erlperf_changepoint:steps([{1000, 990} | Good])),
     ?_assertError({invalid_point, {0, 0, 0}}, erlperf_changepoint:steps([{0, 0, 0} | Good])),
     ?_assertError({invalid_option, alpha, 0}, erlperf_changepoint:steps(Good, #{alpha => 0})),
     ?_assertError({invalid_option, alpha, 1.0}, erlperf_changepoint:steps(Good, #{alpha => 1.0})),
     ?_assertError({invalid_option, alpha, high},
                   erlperf_changepoint:steps(Good, #{alpha => high})),
     ?_assertError({invalid_option, min_segment, 1},
                   erlperf_changepoint:steps(Good, #{min_segment => 1})),
     ?_assertError({invalid_option, min_segment, 2.0},
                   erlperf_changepoint:steps(Good, #{min_segment => 2.0})),
     ?_assertError({invalid_option, noise, -1}, erlperf_changepoint:steps(Good, #{noise => -1})),
     ?_assertError({invalid_option, confidence, 95},
                   erlperf_changepoint:steps(Good, #{confidence => 95})),
     %% points are checked even when too few to test
     ?_assertError({invalid_point, x}, erlperf_changepoint:steps([x]))].

%%--------------------------------------------------------------------
%% Internal functions

%% Runs of 1.0e6 · (1 + e) · the factors of the steps at or before each run; heavy: a
%% run is, with probability ?SLOW_SHARE, ?SLOW_MIN..?SLOW_MAX slower.
series(Runs, Steps, Noise) ->
    [1.0e6 * (1 + ?SD * rand:normal()) * slowdown(Noise) * step_factor(I, Steps)
     || I <- lists:seq(1, Runs)].

slowdown(normal) ->
    1.0;
slowdown(heavy) ->
    case rand:uniform() < ?SLOW_SHARE of
        true -> 1 - (?SLOW_MIN + (?SLOW_MAX - ?SLOW_MIN) * rand:uniform());
        false -> 1.0
    end.

step_factor(I, Steps) ->
    lists:foldl(fun ({At, Factor}, Acc) when I >= At -> Acc * Factor;
                    (_, Acc) -> Acc
                end, 1.0, Steps).

%% Run Pos ?SLOW_MIN..?SLOW_MAX slower.
slow_at(Pos, Series) ->
    {Before, [Run | After]} = lists:split(Pos - 1, Series),
    Before ++ [Run * (1 - (?SLOW_MIN + (?SLOW_MAX - ?SLOW_MIN) * rand:uniform())) | After].

%% Of Count histories with Steps: how many have exactly the steps' `at', and how many
%% any step.
power(Runs, Steps, Count, Seed) ->
    rand:seed(exsss, Seed),
    Expected = [At || {At, _} <- Steps],
    Ats = [[A || #{at := A} <- erlperf_changepoint:steps(series(Runs, Steps, normal))]
           || _ <- lists:seq(1, Count)],
    {length([x || X <- Ats, X =:= Expected]), length([x || X <- Ats, X =/= []])}.
