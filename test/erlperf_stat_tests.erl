%%% @doc eunit tests of `erlperf_stat' against reference values computed by hand.
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
-module(erlperf_stat_tests).

-include_lib("eunit/include/eunit.hrl").

-define(A, [4, 9, 2, 5, 4, 7, 4, 5]).
-define(B, [30, 10, 20]).
-define(C, [-1, -3]).
-define(D, lists:seq(1, 100)).
%% Relative tolerance for float comparisons: results are exact to a few ulps.
-define(EPS, 1.0e-12).

-define(assertClose(Expected, Actual),
        ?assert(abs((Expected) - (Actual)) =< ?EPS * max(1.0, abs(Expected)), {Expected, Actual})).
-define(_assertClose(Expected, Actual), ?_test(?assertClose(Expected, Actual))).

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
     ?_assertMatch(#{stddev := 0.0, median := 3.5, p99 := 3.5}, erlperf_stat:summary([3.5]))].
