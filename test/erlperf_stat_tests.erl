%%% @doc eunit tests of `erlperf_stat' against reference values computed independently:
%%% by hand (the summary statistics, below), with R (the rest, further below) and, for the
%%% `ratio' test, with Python and SciPy (`test/erlperf_stat_SUITE_data/ratio_reference.py').
%%%
%%% Data set A = [2, 4, 4, 4, 5, 5, 7, 9] (n = 8), given unsorted below:
%%%   sum = 40, mean = 40 / 8 = 5.0
%%%   deviations from the mean: -3, -1, -1, -1, 0, 0, 2, 4
%%%   squared: 9, 1, 1, 1, 0, 0, 4, 16; sum = 32
%%%   sample variance = 32 / (8 - 1) = 4.571428571428571
%%%   sample stddev = sqrt(32 / 7) = 2.138089935299395
%%%   cv = 2.138089935299395 / 5 = 0.427617987059879
%%%   nearest rank of P: ceil(P * 8 / 100) on the sorted list [2, 4, 4, 4, 5, 5, 7, 9]
%%%     P = 50   -> rank ceil(4.0)  = 4 -> 4 (the median: lower middle)
%%%     P = 99   -> rank ceil(7.92) = 8 -> 9
%%%     P = 12.5 -> rank ceil(1.0)  = 1 -> 2
%%%     P = 13   -> rank ceil(1.04) = 2 -> 4
%%%     P = 62.5 -> rank ceil(5.0)  = 5 -> 5
%%%     P = 63   -> rank ceil(5.04) = 6 -> 5
%%%     P = 76   -> rank ceil(6.08) = 7 -> 7
%%%     P = 100  -> rank 8 -> 9;  P = 1 -> rank ceil(0.08) = 1 -> 2
%%%
%%% Data set B = [30, 10, 20] (n = 3): mean 20.0; deviations -10, 0, 10; squares sum 200;
%%%   variance 200 / 2 = 100; stddev 10.0; cv 10 / 20 = 0.5;
%%%   median rank ceil(1.5) = 2 -> 20; P = 33 -> rank ceil(0.99) = 1 -> 10;
%%%   P = 34 -> rank ceil(1.02) = 2 -> 20; p99 -> rank ceil(2.97) = 3 -> 30.
%%%
%%% Data set C = [-1, -3]: mean -2.0; deviations 1, -1; variance 2 / 1 = 2;
%%%   stddev sqrt(2) = 1.4142135623730951; cv uses |mean|: 1.4142135623730951 / 2 = 0.7071067811865476.
%%%
%%% Data set D = 1..100: mean 101 / 2 = 50.5; sample variance of 1..n is n(n + 1) / 12
%%%   = 100 * 101 / 12 = 841.6666...; stddev = 29.011491975882016;
%%%   p99 -> rank 99 -> 99; median -> rank 50 -> 50; p1 -> 1; p100 -> 100.
%%%
%%% (Cross-checked with Python's statistics.stdev, an independent implementation.)
%%%
%%% Confidence intervals, quartiles and outliers, comparisons and the distributions:
%%% reference values computed with R 4.2.2's own functions (`qt', `pt', `qnorm', `pbeta',
%%% `t.test', `t.test(paired = TRUE)', `wilcox.test(exact = FALSE, correct = TRUE)',
%%% `quantile(type = 7)', `quantile(type = 1)', and `aov''s mean squares for the variance
%%% components of samples in forks), by `test/erlperf_stat_SUITE_data/reference.R'; its printed
%%% output is `reference.txt' next to it. Recompute with
%%%   Rscript test/erlperf_stat_SUITE_data/reference.R | diff - test/erlperf_stat_SUITE_data/reference.txt
%%% The literals below are that output, floats written in their shortest form (the
%%% same doubles). They are compared with a relative tolerance of 1e-10 (10 significant
%%% digits; the module agrees with R to 2e-13 on these), absolute for an expected 0.
%%% Two values are not R's functions but R arithmetic on R's results: the z statistic
%%% of Mann-Whitney (the formula of wilcox.test's own source) and the approximate
%%% interval of the Hodges-Lehmann shift (order statistics of outer(b, a, "-"); R's
%%% wilcox.test(conf.int = TRUE) uses a root search instead).
-module(erlperf_stat_tests).

-include_lib("eunit/include/eunit.hrl").

-define(A, [4, 9, 2, 5, 4, 7, 4, 5]).
-define(B, [30, 10, 20]).
-define(C, [-1, -3]).
-define(D, lists:seq(1, 100)).

%% The data sets of reference.R (those the verdicts' tests use too are in the header).
-include("erlperf_stat_data.hrl").
-define(OUTLIERS, [101, 99, 100, 102, 98, 100, 103, 97, 101, 99, 100, 104, 96, 100,
                   112, 88, 130, 60, 250, 1, 91]).
-define(FENCES, [0, 4, 4, 4, 8, 8, 8, 14, 20]).
-define(PC, [1023, 994, 1017, 1032, 982, 1004, 1023, 992, 1010, 1020, 1006, 989]).
%% Data sets of reference.R made by formula (spread, heavy and big there).
-define(SPREAD, [(I * 7919) rem 10007 || I <- lists:seq(1, 5000)]).
-define(HEAVY, [1000000 div ((I * 7919) rem 10007 + 1) || I <- lists:seq(1, 3000)]).
-define(BIG, [(I * 7919) rem 10007 || I <- lists:seq(1, 41000)]).
%% Samples in forks (reference.R's fsets), fork after fork; the sizes are in the tests.
-define(BALANCED, [1012, 1030, 998, 1021, 1105, 1093, 1120, 1098, 987, 1003, 979, 995,
                   1050, 1041, 1066, 1039, 1010, 1025, 1002, 1018]).
-define(BALANCED_B, [990, 1001, 985, 1004, 1080, 1071, 1092, 1077, 970, 981, 962, 977,
                     1022, 1030, 1019, 1035, 995, 988, 1001, 990]).
-define(UNBALANCED, [502, 498, 510, 530, 526, 489, 495]).
-define(UNBALANCED_B, [509, 505, 515, 541, 533, 497, 500]).
-define(UNEVEN, [20.5, 21.1, 19.8, 20.9, 23.4, 18.7, 21.5, 22.0, 20.2]).
-define(SINGLES, [300, 310, 295, 305]).
%% forks whose means are closer than the samples in them suggest: MSB < MSW
-define(CLIPPED, [10, 20, 30, 11, 19, 29, 12, 21, 28]).
%% Relative tolerance for float comparisons: results are exact to a few ulps.
-define(EPS, 1.0e-12).

-define(assertClose(Expected, Actual),
        ?assert(abs((Expected) - (Actual)) =< ?EPS * max(1.0, abs(Expected)), {Expected, Actual})).
-define(_assertClose(Expected, Actual), ?_test(?assertClose(Expected, Actual))).

%% Relative tolerance against R's values (absolute when R's value is 0).
-define(REF_EPS, 1.0e-10).
-define(assertRef(Expected, Actual),
        ?assert(abs((Expected) - (Actual)) =< ?REF_EPS * abs(Expected)
                orelse ((Expected) == 0 andalso abs(Actual) =< ?REF_EPS), {Expected, Actual})).
-define(_assertRef(Expected, Actual), ?_test(?assertRef(Expected, Actual))).

mean_test_() ->
    [?_assertClose(5.0, erlperf_stat:mean(?A)),
     ?_assertClose(20.0, erlperf_stat:mean(?B)),
     ?_assertClose(-2.0, erlperf_stat:mean(?C)),
     ?_assertClose(50.5, erlperf_stat:mean(?D)),
     ?_assertClose(1.5, erlperf_stat:mean([1.5])),
     ?_assert(is_float(erlperf_stat:mean([2, 2])))].

stddev_test_() ->
    [?_assertClose(2.138089935299395, erlperf_stat:stddev(?A)),
     ?_assertClose(10.0, erlperf_stat:stddev(?B)),
     ?_assertClose(1.4142135623730951, erlperf_stat:stddev(?C)),
     ?_assertClose(29.011491975882016, erlperf_stat:stddev(?D)),
     %% one sample: no spread, and no division by zero
     ?_assertEqual(0.0, erlperf_stat:stddev([42])),
     ?_assertClose(0.0, erlperf_stat:stddev([7, 7, 7, 7]))].

median_test_() ->
    [?_assertEqual(4, erlperf_stat:median(?A)),
     ?_assertEqual(20, erlperf_stat:median(?B)),
     ?_assertEqual(-3, erlperf_stat:median(?C)),
     ?_assertEqual(50, erlperf_stat:median(?D)),
     ?_assertEqual(2, erlperf_stat:median([4, 3, 2, 1])),
     ?_assertEqual(1.5, erlperf_stat:median([1.5]))].

percentile_test_() ->
    Cases = [{?A, 50, 4}, {?A, 99, 9}, {?A, 12.5, 2}, {?A, 13, 4}, {?A, 62.5, 5}, {?A, 63, 5},
             {?A, 76, 7}, {?A, 100, 9}, {?A, 1, 2},
             {?B, 33, 10}, {?B, 34, 20}, {?B, 99, 30},
             {?D, 99, 99}, {?D, 1, 1}, {?D, 100, 100}, {?D, 50, 50}],
    [?_assertEqual(Expected, erlperf_stat:percentile(Samples, P)) || {Samples, P, Expected} <- Cases] ++
        [?_assertError(function_clause, erlperf_stat:percentile(?A, 0)),
         ?_assertError(function_clause, erlperf_stat:percentile(?A, 101))].

%% R's quantile(x, c(0.5, 0.9, 0.99, 0.999, 1), type = 1), from reference.txt.
percentiles_reference_test_() ->
    Cases = [{?SMALL, [1520, 1534, 1534, 1534, 1534]},
             {?TIES, [14, 18, 20, 20, 20]},
             {?SKEWED, [821, 1430, 2059, 2059, 2059]},
             {?OUTLIERS, [100, 112, 250, 250, 250]},
             {?FENCES, [8, 20, 20, 20, 20]},
             {?SPREAD, [5009, 9012, 9908, 9996, 10006]},
             {?HEAVY, [199, 999, 9523, 55555, 125000]},
             %% 99.9 * 41000 / 100 is 40959.000000000007 in floating point: rank 40959
             %% (9996), not 40960 (9997)
             {?BIG, [5003, 9006, 9906, 9996, 10006]}],
    [?_assertEqual(Expected, erlperf_stat:percentiles(Samples, [50, 90, 99, 99.9, 100]))
     || {Samples, Expected} <- Cases].

percentiles_test_() ->
    [?_assertEqual([], erlperf_stat:percentiles(?A, [])),
     %% in the order asked, each as percentile/2 gives it
     ?_assertEqual([9, 2, 4], erlperf_stat:percentiles(?A, [100, 1, 50])),
     ?_assertEqual([erlperf_stat:percentile(?D, P) || P <- [3, 33.3, 66.7, 99.9]],
                   erlperf_stat:percentiles(?D, [3, 33.3, 66.7, 99.9])),
     ?_assertError(function_clause, erlperf_stat:percentiles(?A, [50, 0])),
     ?_assertError(function_clause, erlperf_stat:percentiles(?A, [100.5])),
     ?_assertError(function_clause, erlperf_stat:percentiles([], [50]))].

cv_test_() ->
    [?_assertClose(0.427617987059879, erlperf_stat:cv(?A)),
     ?_assertClose(0.5, erlperf_stat:cv(?B)),
     ?_assertClose(0.7071067811865476, erlperf_stat:cv(?C)),
     %% zero mean: defined as 0.0 rather than a division by zero
     ?_assertEqual(0.0, erlperf_stat:cv([0, 0, 0])),
     ?_assertEqual(0.0, erlperf_stat:cv([5]))].

summary_test_() ->
    S = erlperf_stat:summary(?A),
    [?_assertEqual(lists:sort([average, min, max, stddev, median, p99, samples]), lists:sort(maps:keys(S))),
     ?_assertClose(5.0, maps:get(average, S)),
     ?_assertEqual(2, maps:get(min, S)),
     ?_assertEqual(9, maps:get(max, S)),
     ?_assertClose(2.138089935299395, maps:get(stddev, S)),
     ?_assertEqual(4, maps:get(median, S)),
     ?_assertEqual(9, maps:get(p99, S)),
     %% samples are kept in the order given
     ?_assertEqual(?A, maps:get(samples, S)),
     ?_assertMatch(#{average := 2.5, median := 2, min := 1, max := 4}, erlperf_stat:summary([1, 2, 3, 4])),
     ?_assertMatch(#{stddev := +0.0, median := 3.5, p99 := 3.5}, erlperf_stat:summary([3.5]))].

%%--------------------------------------------------------------------
%% Distributions against R

%% qt(P, Df): df 1, 2, 5, 10, 30, 100, 1000 at 90/95/99% (two-sided: P = 0.95, 0.975,
%% 0.995), and Welch-like fractional df at other P.
t_quantile_test_() ->
    Ref = [{0.95, 1.0, 6.313751514675038},
           {0.975, 1.0, 12.706204736174694},
           {0.995, 1.0, 63.656741162871526},
           {0.95, 2.0, 2.919985580353724},
           {0.975, 2.0, 4.302652729749462},
           {0.995, 2.0, 9.92484320091829},
           {0.95, 5.0, 2.0150483733330224},
           {0.975, 5.0, 2.5705818356363137},
           {0.995, 5.0, 4.032142983555229},
           {0.95, 10.0, 1.8124611228116756},
           {0.975, 10.0, 2.228138851986274},
           {0.995, 10.0, 3.16927267261695},
           {0.95, 30.0, 1.697260886593957},
           {0.975, 30.0, 2.0422724563012378},
           {0.995, 30.0, 2.7499956535672254},
           {0.95, 100.0, 1.6602343260853394},
           {0.975, 100.0, 1.9839715185235516},
           {0.995, 100.0, 2.625890521438018},
           {0.95, 1.0e3, 1.6463788172854634},
           {0.975, 1.0e3, 1.9623390808264076},
           {0.995, 1.0e3, 2.58075469806595},
           {0.001, 2.5, -13.822193110866},
           {0.3, 2.5, -0.5973077382523155},
           {0.9, 2.5, 1.7302509288071761},
           {0.001, 7.3, -4.688865993538374},
           {0.3, 7.3, -0.5480628979421776},
           {0.9, 7.3, 1.4089223177480419},
           {0.001, 17.68, -3.6212798099815426},
           {0.3, 17.68, -0.5339884985777122},
           {0.9, 17.68, 1.3313090634618123},
           {0.001, 1.0e5, -3.0903138094272373},
           {0.3, 1.0e5, -0.5244021842335456},
           {0.9, 1.0e5, 1.2815600314493614}],
    [{lists:flatten(io_lib:format("qt(~p, ~p)", [P, Df])),
      ?_assertRef(Expected, erlperf_stat:t_quantile(P, Df))} || {P, Df, Expected} <- Ref] ++
        [?_assertEqual(0.0, erlperf_stat:t_quantile(0.5, 3)),
         %% integer df, and the closed forms of df = 1 (tan) and df = 2
         ?_assertRef(6.313751514675038, erlperf_stat:t_quantile(0.95, 1)),
         ?_assertRef(math:tan(math:pi() * (0.9 - 0.5)), erlperf_stat:t_quantile(0.9, 1)),
         ?_assertRef((2 * 0.8 - 1) / math:sqrt(2 * 0.8 * 0.2), erlperf_stat:t_quantile(0.8, 2)),
         ?_assertError(function_clause, erlperf_stat:t_quantile(0, 3)),
         ?_assertError(function_clause, erlperf_stat:t_quantile(1, 3)),
         ?_assertError(function_clause, erlperf_stat:t_quantile(0.9, 0))].

t_cdf_test_() ->
    Ref = [{-6.0, 1.0, 0.052568456711253424},
           {-1.25, 1.0, 0.21477671252272262},
           {0.3, 1.0, 0.5927735790777423},
           {2.2, 1.0, 0.8642002512199082},
           {-6.0, 3.0, 0.00463635744614233},
           {-1.25, 3.0, 0.14996473397543109},
           {0.3, 3.0, 0.6081183539800405},
           {2.2, 3.0, 0.9424140240117647},
           {-6.0, 12.5, 2.620529572751121e-5},
           {-1.25, 12.5, 0.11709799122744236},
           {0.3, 12.5, 0.6154461280157326},
           {2.2, 12.5, 0.9763584085489281},
           {-6.0, 100.0, 1.58624575140143e-8},
           {-1.25, 100.0, 0.10710847446439005},
           {0.3, 100.0, 0.6176000598498482},
           {2.2, 100.0, 0.9849453343576}],
    [?_assertRef(Expected, erlperf_stat:t_cdf(T, Df)) || {T, Df, Expected} <- Ref] ++
        [?_assertEqual(0.5, erlperf_stat:t_cdf(0, 4)),
         %% far tails neither overflow nor lose the tail
         ?_assert(erlperf_stat:t_cdf(-1.0e200, 1) < 1.0e-199),
         ?_assertEqual(1.0, erlperf_stat:t_cdf(1.0e200, 3)),
         ?_assertEqual(0.0, erlperf_stat:t_cdf(-1.0e200, 1.0e8))].

normal_quantile_test_() ->
    Ref = [{1.0e-12, -7.034483825301132},
           {0.001, -3.090232306167813},
           {0.02, -2.0537489106318225},
           {0.025, -1.9599639845400538},
           {0.3, -0.5244005127080407},
           {0.5, 0.0},
           {0.75, 0.6744897501960817},
           {0.975, 1.9599639845400536},
           {0.999999, 4.753424308817089}],
    [?_assertRef(Expected, erlperf_stat:normal_quantile(P)) || {P, Expected} <- Ref] ++
        [?_assertRef(0.975, erlperf_stat:normal_cdf(1.9599639845400536)),
         ?_assertError(function_clause, erlperf_stat:normal_quantile(0.0))].

incomplete_beta_test_() ->
    Ref = [{0.01, 0.5, 0.5, 0.06376856085851984},
           {0.4, 0.5, 0.5, 0.43590578315102485},
           {0.6, 0.5, 0.5, 0.5640942168489751},
           {0.99, 0.5, 0.5, 0.9362314391414801},
           {0.01, 2.0, 3.0, 5.920300000000003e-4},
           {0.4, 2.0, 3.0, 0.5248},
           {0.6, 2.0, 3.0, 0.8208},
           {0.99, 2.0, 3.0, 0.9999960299999999},
           {0.01, 15.0, 0.5, 1.4514644320395853e-31},
           {0.4, 15.0, 0.5, 1.9630898171294662e-7},
           {0.6, 15.0, 0.5, 1.0292101786378162e-4},
           {0.99, 15.0, 0.5, 0.5860649647763354},
           {0.01, 0.5, 40.0, 0.6286139767460154},
           {0.4, 0.5, 40.0, 0.9999999998153117},
           {0.6, 0.5, 40.0, 1.0},
           {0.99, 0.5, 40.0, 1.0},
           {0.01, 200.0, 300.0, 1.5253363876345586e-257},
           {0.4, 200.0, 300.0, 0.5024286163199317},
           {0.6, 200.0, 300.0, 1.0},
           {0.99, 200.0, 300.0, 1.0}],
    [?_assertRef(Expected, erlperf_stat:incomplete_beta(X, A, B)) || {X, A, B, Expected} <- Ref] ++
        [?_assertEqual(0.0, erlperf_stat:incomplete_beta(0, 2, 3)),
         ?_assertEqual(1.0, erlperf_stat:incomplete_beta(1, 2, 3))].

%%--------------------------------------------------------------------
%% Confidence interval of the mean, quartiles, outliers

%% t.test(x, conf.level = C / 100)$conf.int
confidence_interval_test_() ->
    Ref = [{?SMALL, 50.0, {1508.7784993089244, 1525.8881673577423}},
           {?SMALL, 90.0, {1486.7392162517767, 1547.9274504148898}},
           {?SMALL, 95.0, {1472.2523362692011, 1562.4143303974656}},
           {?SMALL, 99.0, {1413.345896906266, 1621.3207697604007}},
           {?SMALL, 99.9, {1186.254583533083, 1848.4120831335836}},
           {?TIES, 50.0, {13.761076512007296, 15.038923487992705}},
           {?TIES, 90.0, {12.73331151688931, 16.066688483110692}},
           {?TIES, 95.0, {12.34321930577467, 16.456780694225326}},
           {?TIES, 99.0, {11.445210159896277, 17.354789840103724}},
           {?TIES, 99.9, {10.053136365044235, 18.746863634955766}},
           {?SKEWED, 50.0, {891.3280456482096, 998.0719543517904}},
           {?SKEWED, 90.0, {811.9329329057198, 1077.4670670942803}},
           {?SKEWED, 95.0, {784.8890283187194, 1104.5109716812806}},
           {?SKEWED, 99.0, {729.3204159573771, 1160.0795840426229}},
           {?SKEWED, 99.9, {658.7599471624853, 1230.6400528375148}},
           {?OUTLIERS, 50.0, {95.23640752206376, 107.81121152555528}},
           {?OUTLIERS, 90.0, {85.73819782893686, 117.30942121868217}},
           {?OUTLIERS, 95.0, {82.43187429126195, 120.61574475635709}},
           {?OUTLIERS, 99.0, {75.48162670174956, 127.56599234586947}},
           {?OUTLIERS, 99.9, {66.29082617793652, 136.75679286968253}},
           {?FENCES, 50.0, {6.356310481350377, 9.199245074205178}},
           {?FENCES, 90.0, {4.035794741620027, 11.519760813935529}},
           {?FENCES, 95.0, {3.137387650130838, 12.418167905424717}},
           {?FENCES, 99.0, {1.0257056504775566, 14.529849905077999}},
           {?FENCES, 99.9, {-2.3668805107069795, 17.922436066262534}}],
    [?_test(begin
                {Lo, Hi} = erlperf_stat:confidence_interval(Samples, C),
                ?assertRef(ExpLo, Lo),
                ?assertRef(ExpHi, Hi)
            end) || {Samples, C, {ExpLo, ExpHi}} <- Ref] ++
        [%% 95 is the default; an integer confidence works
         ?_assertEqual(erlperf_stat:confidence_interval(?SKEWED, 95),
                       erlperf_stat:confidence_interval(?SKEWED)),
         ?_assertEqual(erlperf_stat:confidence_interval(?SKEWED, 95.0),
                       erlperf_stat:confidence_interval(?SKEWED, 95)),
         %% one sample: no spread to estimate
         ?_assertEqual(undefined, erlperf_stat:confidence_interval([42])),
         ?_assertEqual(undefined, erlperf_stat:confidence_interval([42], 99)),
         %% a constant sample: zero width, exactly
         ?_assertEqual({7.0, 7.0}, erlperf_stat:confidence_interval([7, 7, 7, 7], 99)),
         %% n = 2, df = 1: mean 2, s = sqrt(2), half width qt(0.975, 1) * sqrt(2) / sqrt(2)
         ?_test(begin
                    {Lo, Hi} = erlperf_stat:confidence_interval([1, 3]),
                    ?assertRef(2 - 12.706204736174694, Lo),
                    ?assertRef(2 + 12.706204736174694, Hi)
                end),
         ?_assertError({invalid_option, confidence, 0}, erlperf_stat:confidence_interval(?A, 0)),
         ?_assertError({invalid_option, confidence, 100}, erlperf_stat:confidence_interval(?A, 100)),
         %% checked even when there is nothing to compute
         ?_assertError({invalid_option, confidence, -5}, erlperf_stat:confidence_interval([1], -5)),
         ?_assertError({invalid_option, confidence, high}, erlperf_stat:confidence_interval(?A, high))].

%% quantile(x, c(0.25, 0.5, 0.75), type = 7); fences Q1 - 3 IQR, Q1 - 1.5 IQR,
%% Q3 + 1.5 IQR, Q3 + 3 IQR; counts {low severe, low mild, high mild, high severe}.
outliers_test_() ->
    Ref = [{?SMALL, {1509.0, 1520.0, 1527.0}, {1455.0, 1482.0, 1554.0, 1581.0}, {0, 0, 0, 0}},
           {?TIES, {12.0, 14.5, 15.0}, {3.0, 7.5, 19.5, 24.0}, {0, 0, 1, 0}},
           {?SKEWED, {653.5, 857.0, 1189.75}, {-955.25, -150.875, 1994.125, 2798.5}, {0, 0, 1, 0}},
           {?OUTLIERS, {97.0, 100.0, 102.0}, {82.0, 89.5, 109.5, 117.0}, {2, 1, 1, 2}},
           %% 14 is on the mild fence (not an outlier), 20 on the severe one (mild)
           {?FENCES, {4.0, 8.0, 8.0}, {-8.0, -2.0, 14.0, 20.0}, {0, 0, 1, 0}}],
    [?_test(begin
                ?assertEqual({Q1, Q2, Q3}, erlperf_stat:quartiles(Samples)),
                ?assertEqual(#{q1 => Q1, median => Q2, q3 => Q3, iqr => Q3 - Q1,
                               low_severe_fence => F1, low_mild_fence => F2,
                               high_mild_fence => F3, high_severe_fence => F4,
                               low_severe => C1, low_mild => C2, high_mild => C3,
                               high_severe => C4},
                             erlperf_stat:outliers(Samples))
            end) || {Samples, {Q1, Q2, Q3}, {F1, F2, F3, F4}, {C1, C2, C3, C4}} <- Ref] ++
        [%% by hand: h = 1 + 3 * 0.25 = 1.75 -> 1 + 0.75 * (2 - 1); h = 2.5; h = 3.25
         ?_assertEqual({1.75, 2.5, 3.25}, erlperf_stat:quartiles([4, 1, 3, 2])),
         ?_assertEqual({5.0, 5.0, 5.0}, erlperf_stat:quartiles([5])),
         ?_assertMatch(#{iqr := +0.0, low_severe := 0, high_severe := 0}, erlperf_stat:outliers([5])),
         %% never dropped: the samples are only counted
         %% Q1 = Q3 = 10 (h = 5.5 and 16.5 of 23), IQR 0: the three 99s are severe
         ?_assertEqual(3, maps:get(high_severe, erlperf_stat:outliers(
                                                   lists:duplicate(20, 10) ++ lists:duplicate(3, 99))))].

%%--------------------------------------------------------------------
%% Comparisons

%% {Test, A, B, Confidence, ChangePct, CiPct, P, Statistic, Df (t-tests) or the
%% Hodges-Lehmann shift (mann_whitney)}. welch: t.test(B, A); paired: t.test(B, A,
%% paired = TRUE); mann_whitney: wilcox.test(B, A, exact = FALSE, correct = TRUE).
%% ChangePct is 100 * shift / mean(A); CiPct (t-tests) is Fieller's interval of
%% mean(B) / mean(A), less 1, in percent (found in R by root search), and for
%% mann_whitney 100 * the shift's interval / mean(A).
compare_reference() ->
    [{welch, ?SKEWED, ?SKEWED2, 95.0, 45.35408066052715, {7.2210936552373095, 91.91077993057712}, 0.01939124727615728, 2.4487866052120455, 35.618044667290654},
     {mann_whitney, ?SKEWED, ?SKEWED2, 95.0, 39.53636074944426, {8.574150523975865, 67.11125224939134}, 0.018795048662300584, 2.349571208960564, 373.5},
     {welch, ?SKEWED, ?SKEWED2, 90.0, 45.35408066052715, {13.209736985878461, 83.28337785999207}, 0.01939124727615728, 2.4487866052120455, 35.618044667290654},
     {mann_whitney, ?SKEWED, ?SKEWED2, 90.0, 39.53636074944426, {12.490737800359902, 61.3951519000741}, 0.018795048662300584, 2.349571208960564, 373.5},
     {welch, ?TIES, ?TIES2, 95.0, 19.79166666666666, {2.0760782771315878, 41.769015215026805}, 0.028768638955543546, 2.3669816832328867, 18.896802556121276},
     {mann_whitney, ?TIES, ?TIES2, 95.0, 20.833333333333332, {0.0, 41.666666666666664}, 0.030618786382403475, 2.1619920837308686, 3.0},
     {welch, ?TIES, ?TIES2, 99.0, 19.79166666666666, {-3.6503143408818217, 51.32503025299988}, 0.028768638955543546, 2.3669816832328867, 18.896802556121276},
     {mann_whitney, ?TIES, ?TIES2, 99.0, 20.833333333333332, {-6.944444444444445, 48.61111111111111}, 0.030618786382403475, 2.1619920837308686, 3.0},
     {welch, ?PA, ?PB, 95.0, -1.8193847171683684, {-3.025272079335295, -0.5984949114913984}, 0.00546162899725089, -3.081165461176014, 21.992202048256136},
     {paired, ?PA, ?PB, 95.0, -1.8193847171683757, {-2.2561064079985704, -1.3807037532381883}, 1.9669894274210265e-6, -9.058652559287667, 11.0},
     {mann_whitney, ?PA, ?PB, 95.0, -1.835924578233543, {-2.9771749917300694, -0.39695666556400927}, 0.02240010886164099, -2.283514004862671, -18.5},
     {welch, ?PA, ?PB, 99.9, -1.8193847171683684, {-4.013380727991356, 0.4247843071230717}, 0.00546162899725089, -3.081165461176014, 21.992202048256136},
     {paired, ?PA, ?PB, 99.9, -1.8193847171683757, {-2.697890422839244, -0.9329146662476528}, 1.9669894274210265e-6, -9.058652559287667, 11.0},
     {mann_whitney, ?PA, ?PB, 99.9, -1.835924578233543, {-4.4657624875951045, 0.8931524975190209}, 0.02240010886164099, -2.283514004862671, -18.5},
     {welch, ?PA, ?PC, 95.0, 0.0, {-1.277534877505504, 1.292824481900623}, 1.0, 0.0, 21.879310078066737},
     {paired, ?PA, ?PC, 95.0, 0.0, {-0.25685006288137524, 0.2561271368242579}, 1.0, 0.0, 11.0},
     {mann_whitney, ?PA, ?PC, 95.0, 0.04961958319550116, {-1.3893483294740325, 1.4885874958650347}, 1.0, 0.0, 0.5},
     {welch, ?SMALL, ?SMALL2, 95.0, -1.4224516695957772, {-3.7456762026502943, 0.9798573630644514}, 0.16662947403501194, -1.7289349805118366, 3.6071290364413175},
     %% 3 x 4 samples are too few for a 95% interval of the shift (k < 1)
     {mann_whitney, ?SMALL, ?SMALL2, 95.0, -1.351054481546573, undefined, 0.21592493894014034, -1.2374368670764582, -20.5}].

compare_reference_test_() ->
    [{lists:flatten(io_lib:format("~p at ~p%, p = ~p", [Test, C, P])),
      ?_test(check_comparison(Test, A, B, C, Change, Ci, P, Stat, Extra))}
     || {Test, A, B, C, Change, Ci, P, Stat, Extra} <- compare_reference()].

check_comparison(Test, A, B, C, Change, Ci, P, Stat, Extra) ->
    %% the test alone: no noise floor
    Cmp = erlperf_stat:compare(A, B, #{test => Test, confidence => C, noise => 0}),
    #{test := Test, confidence := C, better := higher, change_pct := ChangePct, ci_pct := CiPct,
      p := PValue, statistic := Statistic, significant := Significant, verdict := Verdict} = Cmp,
    ?assertRef(Change, ChangePct),
    ?assertRef(P, PValue),
    ?assertRef(Stat, Statistic),
    case Ci of
        undefined ->
            ?assertEqual(undefined, CiPct);
        {Lo, Hi} ->
            {CiLo, CiHi} = CiPct,
            ?assertRef(Lo, CiLo),
            ?assertRef(Hi, CiHi)
    end,
    case Test of
        mann_whitney -> ?assertRef(Extra, erlperf_stat:hodges_lehmann(A, B));
        _ -> ?assertRef(Extra, maps:get(df, Cmp))
    end,
    %% significant iff p < 1 - C / 100, and the verdict follows it
    ?assertEqual(P < 1 - C / 100, Significant),
    ?assertEqual(case {Significant, Stat > 0} of
                     {false, _} -> no_difference;
                     {true, true} -> faster;
                     {true, false} -> slower
                 end, Verdict).

compare_test_() ->
    [%% defaults: welch at 95%, higher is better
     ?_assertEqual(erlperf_stat:compare(?SKEWED, ?SKEWED2, #{test => welch, confidence => 95,
                                                               better => higher}),
                   erlperf_stat:compare(?SKEWED, ?SKEWED2)),
     %% the run options' defaults (the option registry's): one noise floor everywhere
     ?_assertEqual(#{test => welch, confidence => 95, better => higher,
                     noise => maps:get(noise, erlperf:defaults())},
                   erlperf_stat:compare_defaults()),
     %% verdicts of the reference sets: significant at 95%, not at 99%
     ?_assertMatch(#{verdict := faster, significant := true},
                   erlperf_stat:compare(?TIES, ?TIES2, #{confidence => 95})),
     ?_assertMatch(#{verdict := no_difference, significant := false},
                   erlperf_stat:compare(?TIES, ?TIES2, #{confidence => 99})),
     ?_assertMatch(#{verdict := slower}, erlperf_stat:compare(?PA, ?PB, #{test => paired})),
     %% lower is better (time): the same change is the other verdict
     ?_assertMatch(#{verdict := faster},
                   erlperf_stat:compare(?PA, ?PB, #{test => paired, better => lower})),
     ?_assertMatch(#{verdict := slower}, erlperf_stat:compare(?TIES, ?TIES2, #{better => lower})),
     %% too few samples for a t-test: the change, but no test
     ?_assertMatch(#{p := undefined, ci_pct := undefined, significant := false,
                     verdict := inconclusive, reason := too_few_samples, change_pct := -50.0},
                   erlperf_stat:compare([10], [5, 5])),
     ?_assertMatch(#{p := undefined, significant := false},
                   erlperf_stat:compare([10], [5], #{test => paired})),
     ?_assertNot(maps:is_key(statistic, erlperf_stat:compare([10], [5, 6]))),
     %% constant samples: certainty either way, no statistic
     ?_assertMatch(#{p := +0.0, significant := true, verdict := slower, ci_pct := {-20.0, -20.0},
                     change_pct := -20.0},
                   erlperf_stat:compare([10, 10, 10], [8, 8, 8, 8])),
     ?_assertMatch(#{p := 1.0, significant := false, ci_pct := {+0.0, +0.0}},
                   erlperf_stat:compare([10, 10, 10], [10, 10])),
     ?_assertMatch(#{p := +0.0, significant := true, verdict := faster},
                   erlperf_stat:compare([1, 2, 3], [2, 3, 4], #{test => paired})),
     ?_assertMatch(#{p := 1.0, significant := false, change_pct := +0.0},
                   erlperf_stat:compare([4, 4], [4, 4, 4], #{test => mann_whitney})),
     %% a zero baseline mean: no percentages, the test still runs
     ?_assertMatch(#{change_pct := undefined, ci_pct := undefined, significant := true,
                     verdict := faster},
                   erlperf_stat:compare([0, 0, 0, 0], [5, 6, 5, 6], #{noise => 0})),
     %% the noise floor: significant only when the interval lies beyond it (?PA, ?PB:
     %% paired 1.4..2.3% lower, Welch 0.6..3.0% lower)
     ?_assertMatch(#{verdict := slower, significant := true, within_noise := false},
                   erlperf_stat:compare(?PA, ?PB, #{test => paired, noise => 1})),
     ?_assertMatch(#{verdict := no_difference, significant := false, within_noise := true,
                     noise := 2},
                   erlperf_stat:compare(?PA, ?PB, #{test => paired, noise => 2})),
     ?_assertMatch(#{verdict := no_difference, within_noise := true},
                   erlperf_stat:compare(?PA, ?PB, #{noise => 1})),
     ?_assertMatch(#{verdict := slower, within_noise := false},
                   erlperf_stat:compare(?PA, ?PB, #{noise => 0.5})),
     %% not rejected at all: not "within noise"
     ?_assertMatch(#{verdict := no_difference, within_noise := false},
                   erlperf_stat:compare(?TIES, ?TIES2, #{confidence => 99, noise => 1})),
     %% no interval: the change itself against the floor; no change: never significant
     ?_assertMatch(#{significant := true, change_pct := -20.0},
                   erlperf_stat:compare([10, 10, 10], [8, 8, 8, 8], #{noise => 19.9})),
     ?_assertMatch(#{significant := false, within_noise := true},
                   erlperf_stat:compare([10, 10, 10], [8, 8, 8, 8], #{noise => 20})),
     ?_assertMatch(#{significant := false, within_noise := true},
                   erlperf_stat:compare([0, 0, 0, 0], [5, 6, 5, 6], #{noise => 1})),
     %% the programmer's errors
     ?_assertError({invalid_option, noise, -1}, erlperf_stat:compare(?A, ?B, #{noise => -1})),
     ?_assertError({invalid_option, test, student},
                   erlperf_stat:compare(?A, ?B, #{test => student})),
     ?_assertError({invalid_option, confidence, 100},
                   erlperf_stat:compare(?A, ?B, #{confidence => 100})),
     ?_assertError({invalid_option, better, faster},
                   erlperf_stat:compare(?A, ?B, #{better => faster})),
     ?_assertError({invalid_option, alpha, 0.05}, erlperf_stat:compare(?A, ?B, #{alpha => 0.05})),
     ?_assertError({paired_lengths, 8, 3}, erlperf_stat:compare(?A, ?B, #{test => paired})),
     ?_assertError(function_clause, erlperf_stat:compare([], ?B, #{}))].

%% The Hodges-Lehmann shift and its order statistics, beyond the size that is sorted
%% directly (1024 candidates): 60 x 70 pairs, checked against sorting all of them.
hodges_lehmann_test_() ->
    A = [(I * 7919) rem 1000 || I <- lists:seq(1, 60)],
    B = [(I * 104729) rem 977 + 25 || I <- lists:seq(1, 70)] ++ [500, 500, 500],
    Sorted = lists:sort([Y - X || X <- A, Y <- B]),
    Mid = length(Sorted) div 2,
    [?_assertEqual((lists:nth(Mid, Sorted) + lists:nth(Mid + 1, Sorted)) / 2,
                   erlperf_stat:hodges_lehmann(A, B)),
     %% an odd count, 61 x 73: the middle one
     ?_assertEqual(float(lists:nth((61 * 73 + 1) div 2, lists:sort([Y - X || X <- [1000 | A], Y <- B]))),
                   erlperf_stat:hodges_lehmann([1000 | A], B)),
     ?_assertEqual(0.0, erlperf_stat:hodges_lehmann([5, 5, 5], [5, 5])),
     ?_assertEqual(-1.0, erlperf_stat:hodges_lehmann([3], [2]))].

%%--------------------------------------------------------------------
%% Run noise

%% reference.R's run_noise_ci: {Samples, Sizes, R, Confidence, {Lo, Hi}}.
run_noise_interval_reference() ->
    [{?BALANCED, [4, 4, 4, 4, 4], 0.5, 95, {978.14515640625405, 1091.0548435937458}},
     {?BALANCED, [4, 4, 4, 4, 4], 0.5, 99, {940.98264182993296, 1128.2173581700667}},
     {?BALANCED, [4, 4, 4, 4, 4], 2.0, 95, {955.3447652785851, 1113.8552347214147}},
     {?BALANCED, [4, 4, 4, 4, 4], 2.0, 99, {903.17344342037302, 1166.0265565796267}},
     {?UNBALANCED, [3, 2, 2], 0.5, 95, {460.7656645266236, 554.78989102893195}},
     {?UNBALANCED, [3, 2, 2], 0.5, 99, {399.33587417365237, 616.21968138190323}},
     {?UNBALANCED, [3, 2, 2], 2.0, 95, {444.53118570615999, 571.02436984939561}},
     {?UNBALANCED, [3, 2, 2], 2.0, 99, {361.88812580491231, 653.66742975064324}},
     {?UNEVEN, [4, 1, 1, 3], 0.5, 95, {17.873181036167164, 24.080985630499502}},
     {?UNEVEN, [4, 1, 1, 3], 0.5, 99, {15.280329928909621, 26.673836737757043}},
     {?UNEVEN, [4, 1, 1, 3], 2.0, 95, {17.614722848547579, 24.339443818119086}},
     {?UNEVEN, [4, 1, 1, 3], 2.0, 99, {14.805968167726833, 27.148198498939834}},
     {?SKEWED, [30], 0.5, 95, {784.59729959268702, 1104.8027004073131}},
     {?SKEWED, [30], 2.0, 95, {780.28347164078809, 1109.116528359212}}].

run_noise_interval_reference_test_() ->
    [?_test(begin
                {Lo, Hi} = erlperf_stat:interval(Samples, Sizes, C, R),
                ?assertRef(ExpLo, Lo),
                ?assertRef(ExpHi, Hi)
            end) || {Samples, Sizes, R, C, {ExpLo, ExpHi}} <- run_noise_interval_reference()].

run_noise_interval_test_() ->
    Forked = fun (R) -> erlperf_stat:interval(?BALANCED, [4, 4, 4, 4, 4], 95, R) end,
    Width = fun (R) -> {Lo, Hi} = Forked(R), Hi - Lo end,
    [%% none: interval/3's
     ?_assertEqual(erlperf_stat:interval(?BALANCED, [4, 4, 4, 4, 4], 95), Forked(0)),
     ?_assertEqual(erlperf_stat:interval(?SKEWED, [30], 95), erlperf_stat:interval(?SKEWED, [30], 95, 0.0)),
     %% only ever wider as the run noise grows, and about the same mean
     ?_assert(lists:all(fun ({A, B}) -> Width(A) < Width(B) end,
                        [{0, 0.1}, {0.1, 1}, {1, 5}, {5, 50}])),
     %% samples that do not vary: the run noise alone, t of their degrees of freedom
     ?_test(begin
                {Lo, Hi} = erlperf_stat:interval([100, 100, 100], [3], 95, 2),
                ?assertClose(100 - erlperf_stat:t_quantile(0.975, 2) * 2, Lo),
                ?assertClose(100 + erlperf_stat:t_quantile(0.975, 2) * 2, Hi)
            end),
     %% a throughput of 0 stays an interval of 0; one sample has none
     ?_assertEqual({0.0, 0.0}, erlperf_stat:interval([0, 0, 0], [3], 95, 1)),
     ?_assertEqual(undefined, erlperf_stat:interval([42], [1], 95, 1)),
     ?_assertError({invalid_option, run_noise, 100}, erlperf_stat:interval(?SINGLES, [4], 95, 100)),
     ?_assertError({invalid_option, run_noise, -1}, erlperf_stat:interval(?SINGLES, [4], 95, -1)),
     ?_assertError({invalid_option, run_noise, x}, erlperf_stat:interval(?SINGLES, [4], 95, x))].

%% reference.R's run_noise_welch: {A, B, R, Confidence, ChangePct, CiPct, P, Statistic, Df}.
run_noise_welch_reference() ->
    [{fork_means(?BALANCED, 4), fork_means(?BALANCED_B, 4), 0.5, 95, -2.0394355306398522,
      {-8.0474693109145239, 4.3721824296065526}, 0.47434076254075497, -0.75077286444836966,
      7.9810144576616224},
     {?PA, ?PB, 0.5, 95, -1.8193847171683684, {-3.6844439785821081, 0.081796846957282732},
      0.059695307740811894, -1.9855140385444352, 21.992202048256132},
     {?SKEWED, ?SKEWED2, 0.5, 99, 45.354080660527153, {-4.641787812901299, 110.92158574683938},
      0.019518857727661064, 2.4460136651210878, 35.61804466729064},
     {fork_means(?BALANCED, 4), fork_means(?BALANCED_B, 4), 2.0, 95, -2.0394355306398522,
      {-10.428256638339484, 7.1463832223834345}, 0.60959169680401426, -0.53142579196927342,
      7.9810144576616224},
     {?PA, ?PB, 2.0, 95, -1.8193847171683684, {-7.5362133149699195, 4.2509100875778749},
      0.53186194424795197, -0.63518449580552938, 21.992202048256132},
     {?SKEWED, ?SKEWED2, 2.0, 99, 45.354080660527153, {-5.3982169621623282, 112.57662990782124},
      0.021471572785779637, 2.4055184861342429, 35.61804466729064}].

run_noise_welch_reference_test_() ->
    [?_test(check_two_means(welch, Case)) || Case <- run_noise_welch_reference()].

%% A test of two means with run noise against reference.R's figures:
%% {A, B, R, Confidence, ChangePct, CiPct, P, Statistic, Df}.
check_two_means(Test, {A, B, R, Conf, ExpChange, {ExpLo, ExpHi}, ExpP, ExpT, ExpDf}) ->
    C = erlperf_stat:compare(A, B, #{test => Test, confidence => Conf, run_noise => R, noise => 0}),
    #{change_pct := Change, ci_pct := {Lo, Hi}, p := P, statistic := T, df := Df} = C,
    [?assertRef(Exp, Got) || {Exp, Got} <- [{ExpChange, Change}, {ExpLo, Lo}, {ExpHi, Hi},
                                            {ExpP, P}, {ExpT, T}, {ExpDf, Df}]],
    ?assertMatch(#{run_noise := R}, C).

run_noise_compare_test_() ->
    P = fun (R) -> maps:get(p, erlperf_stat:compare(?PA, ?PB, #{run_noise => R, noise => 0})) end,
    [%% without run noise Welch's test as before: significant; with 0.5% no longer
     ?_assertMatch(#{significant := true}, erlperf_stat:compare(?PA, ?PB, #{noise => 0})),
     ?_assertEqual(erlperf_stat:compare(?PA, ?PB, #{}),
                   maps:remove(run_noise, erlperf_stat:compare(?PA, ?PB, #{run_noise => 0}))),
     ?_assertMatch(#{significant := false}, erlperf_stat:compare(?PA, ?PB, #{run_noise => 0.5})),
     %% the p value only grows with the run noise
     ?_assert(P(0) < P(0.1) andalso P(0.1) < P(0.5) andalso P(0.5) < P(2)),
     %% identical samples on both sides: the run noise alone (normal)
     ?_assertMatch(#{significant := false, df := Df} when Df > 1.0e8,
                   erlperf_stat:compare([100, 100, 100], [101, 101, 101], #{run_noise => 1})),
     %% compared runs only: the other tests compare the samples of one run
     ?_assertError({invalid_option, run_noise, {paired, 1}},
                   erlperf_stat:compare(?PA, ?PB, #{test => paired, run_noise => 1})),
     ?_assertError({invalid_option, run_noise, 100}, erlperf_stat:compare(?PA, ?PB, #{run_noise => 100})),
     %% compare_runs passes it on, for fork means as for samples
     ?_assertMatch(#{basis := forks, run_noise := 1},
                   erlperf_stat:compare_runs({?BALANCED, [4, 4, 4, 4, 4]}, {?BALANCED_B, [4, 4, 4, 4, 4]},
                                             #{run_noise => 1}))].

%% reference.R's yuen: {A, B, R, Confidence, ChangePct, CiPct, P, Statistic, Df}.
-define(BUSY_A, [0.1587, 0.1559, 0.1582, 0.1573, 0.1495, 0.1562, 0.1546, 0.1528, 0.1621, 0.1602,
                 0.1589, 0.1591, 0.1629, 0.1572, 0.1650, 0.1556]).
-define(BUSY_B, [0.1460, 0.1413, 0.1542, 0.1476, 0.1447, 0.1471, 0.1513, 0.1485, 0.1465, 0.1425,
                 0.1745, 0.1551, 0.1455, 0.1468]).
yuen_reference() ->
    [{?SKEWED, ?SKEWED2, 0, 95, 44.941474217019937, {12.279865552872993, 88.239326088993892},
      0.0064171846406397316, 2.9527233835248898, 27.228824862480913},
     {?OUTLIERS, [X / 10 || X <- ?PA], 0, 95, 0.99826388888888773,
      {-1.2374855274424834, 3.3171046760402723}, 0.36378467340731202, 0.93350681630010535,
      16.796760169428662},
     {?PA, ?PB, 0.5, 95, -1.638733705772812, {-3.8178279351663846, 0.58307335037421915},
      0.13443257025576846, -1.5940077134589681, 13.28898924722399},
     {?SMALL, [1490, 1475, 1502, 1488], 0, 95, -1.8837873462214363,
      {-4.2398978800123004, 0.56349266337851756}, 0.091789107663833011, -2.4128021328565783,
      3.1080311447788449},
     {?BUSY_A, ?BUSY_B, 0, 95, -6.2828884803144627, {-8.3956613338958874, -4.1496983854042213},
      2.0785136814261622e-05, -6.2544925979646822, 14.047672188324013},
     {?BUSY_A, ?BUSY_B, 1, 100 - 5 / 3, -6.2828884803144627,
      {-10.694190310962959, -1.7003426091716789}, 0.0023766658231876374, -3.6974864577139712,
      14.047672188324013}].

yuen_reference_test_() ->
    [?_test(check_two_means(yuen, Case)) || Case <- yuen_reference()].

yuen_test_() ->
    Welch = erlperf_stat:compare(?SMALL, [1490, 1475, 1502, 1488], #{test => welch}),
    Yuen = erlperf_stat:compare(?SMALL, [1490, 1475, 1502, 1488], #{test => yuen}),
    %% ?PB with one of its three largest (1004) a thousand times larger
    Far = [1002, 973, 1002, 1004000, 975, 982, 1004, 968, 1000, 1004, 982, 976],
    [%% fewer than 5 samples a side: nothing cut, Welch's test
     ?_test(begin
                #{p := P, ci_pct := {Lo, Hi}, df := Df, change_pct := Change} = Welch,
                ?assertMatch(#{verdict := no_difference, change_pct := Change}, Yuen),
                [?assertRef(W, Y) || {W, Y} <- lists:zip([P, Lo, Hi, Df],
                                                         [maps:get(p, Yuen), element(1, maps:get(ci_pct, Yuen)),
                                                          element(2, maps:get(ci_pct, Yuen)), maps:get(df, Yuen)])]
            end),
     %% one fork far off on the busy runs: Welch's interval wider, Yuen's decides
     ?_assertMatch(#{significant := true, verdict := slower},
                   erlperf_stat:compare(?BUSY_A, ?BUSY_B, #{test => yuen, run_noise => 1, looks => 3})),
     ?_test(begin
                Width = fun (#{ci_pct := {Lo, Hi}}) -> Hi - Lo end,
                Opts = #{run_noise => 1, looks => 3},
                ?assert(Width(erlperf_stat:compare(?BUSY_A, ?BUSY_B, Opts#{test => yuen}))
                        < Width(erlperf_stat:compare(?BUSY_A, ?BUSY_B, Opts#{test => welch})))
            end),
     %% the largest sample moved a thousandfold changes nothing (Welch's test does change)
     ?_assertEqual(erlperf_stat:compare(?PA, ?PB, #{test => yuen}),
                   erlperf_stat:compare(?PA, Far, #{test => yuen})),
     ?_assertNotEqual(erlperf_stat:compare(?PA, ?PB, #{test => welch}),
                      erlperf_stat:compare(?PA, Far, #{test => welch})),
     %% too few: no test
     ?_assertMatch(#{verdict := inconclusive, reason := too_few_samples},
                   erlperf_stat:compare([1], [2], #{test => yuen}))].

%% Under the model the run noise describes (each run's mean off by a normal amount of R
%% percent, its samples spread around that), 95% intervals with run noise R hold the true
%% mean about 95% of the time, where intervals without it hold it far less often; and
%% two runs of the same code are called different by Welch's test with run noise at
%% most about 5% of the time. 2000 simulated runs: a binomial 95% has 93.5..96.5% there.
run_noise_model_test_() ->
    {timeout, 120, ?_test(begin
        rand:seed(exsss, {21, 21, 21}),
        R = 1.0,
        Run = fun (Forks, PerFork) ->
                      Shift = 1000 * (1 + R / 100 * rand:normal()),
                      lists:append([[Shift + 3 * rand:normal() || _ <- lists:seq(1, PerFork)]
                                    || _ <- lists:seq(1, Forks)])
              end,
        Covers = fun (Noise, Forks, PerFork) ->
                         V = Run(Forks, PerFork),
                         {Lo, Hi} = erlperf_stat:interval(V, lists:duplicate(Forks, PerFork), 95, Noise),
                         Lo =< 1000 andalso 1000 =< Hi
                 end,
        Count = fun (F) -> length([x || _ <- lists:seq(1, 2000), F()]) end,
        With = Count(fun () -> Covers(R, 10, 3) end),
        WithSingle = Count(fun () -> Covers(R, 1, 30) end),
        Without = Count(fun () -> Covers(0, 10, 3) end),
        Alarms = Count(fun () ->
                               A = Run(10, 3),
                               B = Run(10, 3),
                               C = erlperf_stat:compare_runs({A, lists:duplicate(10, 3)},
                                                             {B, lists:duplicate(10, 3)},
                                                             #{run_noise => R}),
                               maps:get(p, C) < 0.05
                       end),
        ?debugFmt("run noise model: covered ~b (forks), ~b (single) of 2000 with, ~b without; "
                  "two runs called different ~b of 2000", [With, WithSingle, Without, Alarms]),
        %% conservative: at least the nominal coverage, no more than the nominal alarms
        ?assert(With >= 1870, With),
        ?assert(WithSingle >= 1870, WithSingle),
        ?assert(Without < 1000, Without),
        ?assert(Alarms =< 130, Alarms)
    end)}.

fork_means(Values, Size) ->
    [erlperf_stat:mean(F) || F <- erlperf_stat:split(Values, lists:duplicate(length(Values) div Size, Size))].

%%--------------------------------------------------------------------
%% Samples in forks

split_test_() ->
    [?_assertEqual([[1, 2, 3], [4, 5], [6, 7]], erlperf_stat:split(lists:seq(1, 7), [3, 2, 2])),
     ?_assertEqual([[1.5], [2], [3]], erlperf_stat:split([1.5, 2, 3], [1, 1, 1])),
     ?_assertEqual([?SKEWED], erlperf_stat:split(?SKEWED, [30])),
     %% the error names the samples and the sizes given, whichever fork runs short
     ?_assertError({fork_sizes, 3, [2, 2]}, erlperf_stat:split([1, 2, 3], [2, 2])),
     ?_assertError({fork_sizes, 3, [1, 1]}, erlperf_stat:split([1, 2, 3], [1, 1])),
     ?_assertError({fork_sizes, 3, [4]}, erlperf_stat:split([1, 2, 3], [4])),
     ?_assertError({fork_sizes, 2, [2, 0]}, erlperf_stat:split([1, 2], [2, 0])),
     ?_assertError({fork_sizes, 2, [0, 2]}, erlperf_stat:split([1, 2], [0, 2])),
     ?_assertError({fork_sizes, 0, [1]}, erlperf_stat:split([], [1]))].

%% {Samples, Sizes, Means, MeanOfMeans, Between, Within}: R's fork means, and the
%% variance components from anova(aov(y ~ fork)) (see reference.R); undefined for one
%% sample per fork (no residual degrees of freedom); 0.0 when MSB < MSW (clipped).
components_reference() ->
    [{?BALANCED, [4, 4, 4, 4, 4], [1015.25, 1104.0, 991.0, 1049.0, 1013.75], 1034.6,
      1899.3979166666663, 136.23333333333306},
     {?BALANCED_B, [4, 4, 4, 4, 4], [995.0, 1080.0, 972.5, 1026.5, 993.5], 1013.5,
      1737.8416666666672, 63.13333333333315},
     {?UNBALANCED, [3, 2, 2], [503.3333333333333, 528.0, 492.0], 507.77777777777777,
      289.1562500000001, 25.166666666666682},
     {?UNBALANCED_B, [3, 2, 2], [509.6666666666667, 537.0, 498.5], 515.0555555555555,
      339.21093750000017, 21.791666666666707},
     {?UNEVEN, [4, 1, 1, 3], [20.575, 23.4, 18.7, 21.233333333333334], 20.977083333333333,
      1.702888888888889, 0.5428333333333332},
     {?SINGLES, [1, 1, 1, 1], [300.0, 310.0, 295.0, 305.0], 302.5, undefined, undefined},
     {?CLIPPED, [3, 3, 3], [20.0, 19.666666666666668, 20.333333333333332], 20.0, 0.0,
      81.8888888888889}].

components_reference_test_() ->
    [{lists:flatten(io_lib:format("components, sizes ~w", [Sizes])),
      ?_test(check_components(Samples, Sizes, Means, Mean, Between, Within))}
     || {Samples, Sizes, Means, Mean, Between, Within} <- components_reference()].

check_components(Samples, Sizes, Means, Mean, Between, Within) ->
    C = erlperf_stat:components(erlperf_stat:split(Samples, Sizes)),
    ?assertMatch(#{forks := F, sizes := Sizes} when F =:= length(Sizes), C),
    #{means := M, mean := Mu, between_variance := B, within_variance := W} = C,
    ?assertEqual(length(Means), length(M)),
    _ = [?assertRef(E, A) || {E, A} <- lists:zip([Mean | Means], [Mu | M])],
    check_variance(Between, B),
    check_variance(Within, W).

%% undefined and the clipped 0.0 exactly, the rest against R.
check_variance(Expected, Actual) when Expected =:= undefined; Expected == 0 ->
    ?assertEqual(Expected, Actual);
check_variance(Expected, Actual) ->
    ?assertRef(Expected, Actual).

components_test_() ->
    [%% one fork: nothing between, the within variance is the sample variance (32 / 7)
     ?_assertMatch(#{forks := 1, sizes := [8], means := [5.0], mean := 5.0,
                     between_variance := undefined},
                   erlperf_stat:components([?A])),
     ?_assertClose(32 / 7, maps:get(within_variance, erlperf_stat:components([?A]))),
     ?_assertMatch(#{forks := 1, between_variance := undefined, within_variance := undefined},
                   erlperf_stat:components([[5]])),
     %% identical forks: no variance either way
     ?_assertMatch(#{between_variance := +0.0, within_variance := +0.0},
                   erlperf_stat:components([[3, 3], [3, 3], [3, 3]]))].

%% t.test(fork means, conf.level = C / 100)$conf.int: {Samples, Sizes, C, {Lo, Hi}}.
forked_interval_reference() ->
    [{?BALANCED, [4, 4, 4, 4, 4], 90.0, {992.6783698930519, 1076.5216301069477}},
     {?BALANCED, [4, 4, 4, 4, 4], 95.0, {980.002687726493, 1089.1973122735067}},
     {?BALANCED, [4, 4, 4, 4, 4], 99.0, {944.0629297883995, 1125.1370702116003}},
     {?BALANCED_B, [4, 4, 4, 4, 4], 90.0, {973.5755123902359, 1053.4244876097641}},
     {?BALANCED_B, [4, 4, 4, 4, 4], 95.0, {961.5036985243858, 1065.496301475614}},
     {?BALANCED_B, [4, 4, 4, 4, 4], 99.0, {927.2761072585698, 1099.72389274143}},
     {?UNBALANCED, [3, 2, 2], 90.0, {476.74638450546314, 538.8091710500923}},
     {?UNBALANCED, [3, 2, 2], 95.0, {462.05244616333897, 553.5031093922165}},
     {?UNBALANCED, [3, 2, 2], 99.0, {402.30406769992027, 613.2514878556352}},
     {?UNBALANCED_B, [3, 2, 2], 90.0, {481.66275771877014, 548.448353392341}},
     {?UNBALANCED_B, [3, 2, 2], 95.0, {465.85065066386375, 564.2604604472474}},
     {?UNBALANCED_B, [3, 2, 2], 99.0, {401.5555832269556, 628.5555278841555}},
     {?UNEVEN, [4, 1, 1, 3], 90.0, {18.695112596000435, 23.25905407066623}},
     {?UNEVEN, [4, 1, 1, 3], 95.0, {17.891181158430978, 24.062985508235684}},
     {?UNEVEN, [4, 1, 1, 3], 99.0, {15.313366489976655, 26.64080017669001}},
     {?SINGLES, [1, 1, 1, 1], 90.0, {294.90455217453257, 310.09544782546743}},
     {?SINGLES, [1, 1, 1, 1], 95.0, {292.2286987161974, 312.7713012838026}},
     {?SINGLES, [1, 1, 1, 1], 99.0, {283.6485462639124, 321.3514537360876}},
     {?CLIPPED, [3, 3, 3], 90.0, {19.438048513050987, 20.561951486949013}},
     {?CLIPPED, [3, 3, 3], 95.0, {19.171954096083226, 20.828045903916774}},
     {?CLIPPED, [3, 3, 3], 99.0, {18.08996303542834, 21.91003696457166}}].

interval_reference_test_() ->
    [?_test(begin
                {Lo, Hi} = erlperf_stat:interval(Samples, Sizes, C),
                ?assertRef(ExpLo, Lo),
                ?assertRef(ExpHi, Hi)
            end) || {Samples, Sizes, C, {ExpLo, ExpHi}} <- forked_interval_reference()].

interval_test_() ->
    [%% a single fork: the interval of its samples (t.test(skewed), above)
     ?_assertEqual(erlperf_stat:confidence_interval(?SKEWED, 95), erlperf_stat:interval(?SKEWED, [30], 95)),
     ?_assertEqual(undefined, erlperf_stat:interval([42], [1], 95)),
     %% one sample per fork: the interval of the samples themselves
     ?_assertEqual(erlperf_stat:confidence_interval(?SINGLES, 99),
                   erlperf_stat:interval(?SINGLES, [1, 1, 1, 1], 99)),
     %% forks of equal means: zero width, however the samples vary within them
     ?_assertEqual({20.0, 20.0}, erlperf_stat:interval([10, 30, 20, 20, 15, 25], [2, 2, 2], 95)),
     %% sizes that do not add up, with one fork or several
     ?_assertError({fork_sizes, 3, [2, 2]}, erlperf_stat:interval([1, 2, 3], [2, 2], 95)),
     ?_assertError({fork_sizes, 3, [4]}, erlperf_stat:interval([1, 2, 3], [4], 95)),
     ?_assertError({invalid_option, confidence, 100}, erlperf_stat:interval(?SINGLES, [2, 2], 100))].

%% The comparison of forked runs: B's fork means against A's, paired fork by fork
%% (t.test(B means, A means, paired = TRUE); Fieller's interval as for compare_reference/0):
%% {A, B, Sizes, Confidence, ChangePct, CiPct, P, Statistic, Df}.
fork_compare_reference() ->
    [{?BALANCED, ?BALANCED_B, [4, 4, 4, 4, 4], 95.0, -2.039435530639861,
      {-2.1880308963253103, -1.8755860559170334}, 2.5751542010874084e-5, -21.89439968463331, 4.0},
     {?BALANCED, ?BALANCED_B, [4, 4, 4, 4, 4], 99.0, -2.039435530639861,
      {-2.2785986092182298, -1.7581198254498553}, 2.5751542010874084e-5, -21.89439968463331, 4.0},
     {?UNBALANCED, ?UNBALANCED_B, [3, 2, 2], 95.0, 1.4332603938730877,
      {0.7663684569724216, 1.9998139021776273}, 0.013754400184825776, 8.438451805850965, 2.0}].

fork_compare_reference_test_() ->
    Means = fun (Samples, Sizes) -> [erlperf_stat:mean(F) || F <- erlperf_stat:split(Samples, Sizes)] end,
    [?_test(check_comparison(paired, Means(A, Sizes), Means(B, Sizes), C, Change, Ci, P, Stat, Df))
     || {A, B, Sizes, C, Change, Ci, P, Stat, Df} <- fork_compare_reference()].

%%--------------------------------------------------------------------
%% The ratio test: runs measured until decided (erlperf_forks:until/4)

%% 5 forks of 4 samples, A's and B's sample I of a fork taken in the same round: B about
%% 2% lower in every round; C about the same as A.
-define(RATIO_A, [1000, 1012, 995, 1006, 1020, 1031, 1015, 1024, 990, 1003, 985, 998,
                  1010, 1008, 1016, 1002, 1005, 1019, 997, 1011]).
-define(RATIO_B, [981, 990, 978, 985, 1001, 1012, 990, 1009, 972, 987, 968, 975,
                  985, 991, 994, 983, 988, 996, 981, 990]).
-define(RATIO_C, [1003, 1008, 999, 1001, 1012, 1036, 1010, 1027, 994, 998, 989, 1001,
                  1006, 1013, 1012, 1007, 1001, 1022, 999, 1006]).
-define(RATIO_SIZES, [4, 4, 4, 4, 4]).
%% Student t quantiles of 4 degrees of freedom (the 5 forks), with SciPy 1.10.1:
%% scipy.stats.t.ppf(1 - 0.05 / 2, 4) and scipy.stats.t.ppf(1 - 0.05 / (2 * 3), 4).
-define(QT_95, 2.7764451051977987).
-define(QT_95_3_LOOKS, 3.960786482775424).

%% Computed by test/erlperf_stat_SUITE_data/ratio_reference.py (Python's math and
%% statistics, SciPy's t distribution; its output is ratio_reference.txt next to it):
%% each fork's statistic the lower median of its 4 log ratios, their mean, standard
%% deviation, t statistic (df 4), p = 2 * scipy.stats.t.sf(|t|, 4), the interval
%% mean ± qt * sd / sqrt(5) and the change, as 100 * (exp(x) - 1).
%% {B, Looks, ChangePct, CiPct, P, Statistic}
ratio_reference() ->
    [{?RATIO_B, 1, -2.002276237302225, {-2.191201173835322, -1.8129863782665234},
      8.30077018053674e-06, -29.100833415621622},
     {?RATIO_B, 3, -2.002276237302225, {-2.2716795610698393, -1.7321302613481082},
      8.30077018053674e-06, -29.100833415621622},
     {?RATIO_C, 1, -0.2762178011314509, {-0.6780341059726691, 0.12722408916192585},
      0.12992204015784004, -1.9021116669779787},
     {?RATIO_C, 3, -0.2762178011314509, {-0.8489429076796395, 0.29981553083853196},
      0.12992204015784004, -1.9021116669779787}].

ratio_reference_test_() ->
    [?_test(check_ratio(B, Looks, Change, Ci, P, T))
     || {B, Looks, Change, Ci, P, T} <- ratio_reference()].

check_ratio(B, Looks, Change, {Lo, Hi}, P, T) ->
    Cmp = erlperf_stat:compare_runs({?RATIO_A, ?RATIO_SIZES}, {B, ?RATIO_SIZES},
                                    #{test => ratio, looks => Looks, noise => 0}),
    #{test := ratio, basis := forks, forks := 5, confidence := 95, looks := Looks,
      change_pct := ChangePct, ci_pct := {CiLo, CiHi}, p := PValue, statistic := Statistic,
      df := 4.0, significant := Significant, verdict := Verdict} = Cmp,
    ?assertRef(Change, ChangePct),
    ?assertRef(Lo, CiLo),
    ?assertRef(Hi, CiHi),
    ?assertRef(P, PValue),
    ?assertRef(T, Statistic),
    %% significant at 5% over all looks: each look at 5 / Looks percent
    ?assertEqual(P < 0.05 / Looks, Significant),
    {Worse, Better} = case Significant of
                          true -> {slower, faster};
                          false -> {no_difference, no_difference}
                      end,
    ?assertEqual(Worse, Verdict),
    %% lower is better (times): the same test, the other verdict
    ?assertMatch(#{verdict := Better, significant := Significant, change_pct := ChangePct},
                 erlperf_stat:compare_runs({?RATIO_A, ?RATIO_SIZES}, {B, ?RATIO_SIZES},
                                           #{test => ratio, looks => Looks, noise => 0,
                                             better => lower})).

ratio_test_() ->
    Ratio = fun (B, Opts) -> erlperf_stat:compare_runs({?RATIO_A, ?RATIO_SIZES},
                                                       {B, ?RATIO_SIZES},
                                                       maps:merge(#{test => ratio}, Opts))
            end,
    Paired = fun (SizesA, B, SizesB) ->
                     Opts = #{test => paired, noise => 0},
                     {erlperf_stat:compare_runs({?RATIO_A, SizesA}, {B, SizesB}, Opts),
                      erlperf_stat:compare_runs({?RATIO_A, SizesA}, {B, SizesB},
                                                Opts#{test => ratio})}
             end,
    Interval = fun (Opts) -> maps:get(ci_pct, Ratio(?RATIO_B, Opts#{noise => 0})) end,
    {Lo3, Hi3} = Interval(#{looks => 3}),
    {LoC, HiC} = Interval(#{confidence => 100 - 5 / 3}),
    [%% the quantiles the intervals above take, as SciPy has them
     ?_assertRef(?QT_95, erlperf_stat:t_quantile(1 - 0.05 / 2, 4)),
     ?_assertRef(?QT_95_3_LOOKS, erlperf_stat:t_quantile(1 - 0.05 / (2 * 3), 4)),
     %% three looks: the interval of one look at 100 - 5/3 percent, labelled 95
     ?_assertRef(LoC, Lo3),
     ?_assertRef(HiC, Hi3),
     ?_assertMatch(#{confidence := 95, looks := 3}, Ratio(?RATIO_B, #{looks => 3})),
     ?_assert(Lo3 < element(1, Interval(#{})) andalso element(2, Interval(#{})) < Hi3),
     %% a change the test finds inside the noise floor: no difference, within the noise
     ?_assertMatch(#{significant := false, verdict := no_difference, within_noise := true},
                   Ratio(?RATIO_B, #{noise => 3})),
     ?_assertMatch(#{significant := true, verdict := slower}, Ratio(?RATIO_B, #{noise => 1})),
     ?_assertError({invalid_option, looks, 0}, Ratio(?RATIO_B, #{looks => 0})),
     %% forks of other sizes than A's, or one fork: not rounds side by side; the
     %% paired test (of the fork means, or of the samples of the one fork)
     ?_assertMatch({#{test := paired, basis := forks} = C, C},
                   Paired(?RATIO_SIZES, lists:droplast(?RATIO_B), [4, 4, 4, 4, 3])),
     ?_assertMatch({#{test := paired, basis := forks} = C, C},
                   Paired([5, 3, 4, 4, 4], ?RATIO_B, ?RATIO_SIZES)),
     ?_assertMatch({#{test := paired, basis := single_run} = C, C}, Paired([20], ?RATIO_B, [20]))].

%% The false alarms of a run measured until decided, by simulation: runners of the same
%% code, each fork's statistic (here a fork of one round: its log ratio) normal around
%% 0 with a standard deviation of 1%, looked at after the forks erlperf_forks:looks/2
%% plans for 19 (4, 8, 16, 19), stopping at the first significant look. Bonferroni over
%% the 4 looks keeps the runs called different at most 5%: 37 of 1000 with this seed (a
%% binomial 5% of 1000 is 50 ± 7). Without it (each look at 5%), 134 of 1000.
sequential_error_rate_test_() ->
    %% 1000 simulated runs of 19 forks; minutes on a loaded CI leg (each look computes its
    %% t quantile), a second on a quiet one
    {timeout, 600, ?_test(begin
        Looks = erlperf_forks:looks(19, 4),
        ?assertEqual([4, 8, 16, 19], Looks),
        rand:seed(exsss, {38, 38, 38}),
        Runs = [[1000 * math:exp(0.01 * rand:normal()) || _ <- lists:seq(1, 19)]
                || _ <- lists:seq(1, 1000)],
        Alarms = fun (K) ->
                         length([x || B <- Runs,
                                      lists:any(fun (F) -> significant_look(B, F, K) end, Looks)])
                 end,
        Corrected = Alarms(length(Looks)),
        Uncorrected = Alarms(1),
        ?debugFmt("sequential: called different ~b of 1000 over 4 looks, ~b with each look "
                  "at 5%", [Corrected, Uncorrected]),
        ?assert(Corrected =< 50, Corrected),
        %% the simulation can raise alarms at all: a look alone takes 1.25%
        ?assert(Corrected >= 12, Corrected),
        ?assert(Uncorrected >= 80, Uncorrected)
    end)}.

%% Whether the look at the first Forks forks of B (A all 1000) is significant.
significant_look(B, Forks, Looks) ->
    Sizes = lists:duplicate(Forks, 1),
    Cmp = erlperf_stat:compare_runs({lists:duplicate(Forks, 1000), Sizes},
                                    {lists:sublist(B, Forks), Sizes},
                                    #{test => ratio, looks => Looks, noise => 0}),
    maps:get(significant, Cmp).
