%%% @doc Tests of erlperf_latency's arithmetic (pure), against values computed by hand
%%% and with R.
%%%
%%% By hand. Spans [130, 90, 580, 100, 110, 95, 120, 85, 105, 1080] ns, empty spans
%%% [40, 30, 50, 40, 45] (sorted 30, 40, 40, 45, 50; median by nearest rank: rank
%%% ⌈0.5·5⌉ = 3 -> 40):
%%%   calls less 40, at least 0: [90, 50, 540, 60, 70, 55, 80, 45, 65, 1040]
%%%   sorted: 45, 50, 55, 60, 65, 70, 80, 90, 540, 1040; n = 10
%%%   sum = 2095, average = 209.5
%%%   deviations from 209.5, in the order above: -119.5, -159.5, 330.5, -149.5, -139.5,
%%%     -154.5, -129.5, -164.5, -144.5, 830.5
%%%   squared: 14280.25, 25440.25, 109230.25, 22350.25, 19460.25, 23870.25, 16770.25,
%%%     27060.25, 20880.25, 689730.25; sum = 969072.5
%%%   stddev = sqrt(969072.5 / 9) = sqrt(107674.7222...) = 328.13826692755...
%%%   p50: rank ⌈5⌉ = 5 -> 65; p90: rank ⌈9⌉ = 9 -> 540; p99: rank ⌈9.9⌉ = 10 -> 1040;
%%%   p99.9: rank 10 -> 1040; max 1040; min 45.
%%% A span shorter than the timer's cost counts as 0: [20, 50] less 40 -> [0, 10].
%%%
%%% With R (test/erlperf_stat_SUITE_data/reference.R, the `latency' line of
%%% reference.txt): the spans of the `heavy' set, floor(10^6 / (((i · 7919) mod 10007)
%%% + 1)) for i = 1..3000, less the median of [80, 70, 90, 80, 100, 60, 85] (80),
%%% `pmax(0, ...)': 3000 calls, min 19, mean 690.83766666666668, sd 4374.6940185457379,
%%% `quantile(type = 1)' at 0.5, 0.9, 0.99, 0.999, 1: 119, 919, 9443, 55475, 124920.
-module(erlperf_latency_tests).

-include_lib("eunit/include/eunit.hrl").

-define(SPANS, [130, 90, 580, 100, 110, 95, 120, 85, 105, 1080]).
-define(EMPTY, [40, 30, 50, 40, 45]).
%% Relative tolerance of the floats: R's are printed to 17 digits.
-define(EPS, 1.0e-12).

close(Expected, Actual) ->
    abs(Expected - Actual) =< ?EPS * abs(Expected).

by_hand_test() ->
    S = erlperf_latency:summary(?SPANS, ?EMPTY),
    ?assertMatch(#{calls := 10, timer_ns := 40, min := 45, p50 := 65, p90 := 540, p99 := 1040,
                   p999 := 1040, max := 1040}, S),
    ?assertEqual(209.5, maps:get(average, S)),
    ?assert(close(328.1382669275594, maps:get(stddev, S)), S).

shorter_than_timer_is_zero_test() ->
    ?assertMatch(#{calls := 2, min := 0, p50 := 0, max := 10, average := 5.0},
                 erlperf_latency:summary([20, 50], ?EMPTY)).

one_call_test() ->
    ?assertMatch(#{calls := 1, p50 := 960, p90 := 960, p99 := 960, p999 := 960, max := 960,
                   stddev := +0.0, average := 960.0},
                 erlperf_latency:summary([1000], ?EMPTY)).

no_call_has_no_figures_test() ->
    ?assertEqual(#{calls => 0, timer_ns => 40}, erlperf_latency:summary([], ?EMPTY)).

r_reference_test() ->
    Heavy = [1000000 div ((I * 7919) rem 10007 + 1) || I <- lists:seq(1, 3000)],
    S = erlperf_latency:summary(Heavy, [80, 70, 90, 80, 100, 60, 85]),
    ?assertMatch(#{calls := 3000, timer_ns := 80, min := 19, p50 := 119, p90 := 919,
                   p99 := 9443, p999 := 55475, max := 124920}, S),
    ?assert(close(690.83766666666668, maps:get(average, S)), S),
    ?assert(close(4374.6940185457379, maps:get(stddev, S)), S).

ordered_test() ->
    %% whatever the spans, p50 =< p90 =< p99 =< p99.9 =< max, and min =< p50
    Spans = [(I * 7919) rem 1009 * (I rem 7 + 1) || I <- lists:seq(1, 777)],
    #{min := Min, p50 := P50, p90 := P90, p99 := P99, p999 := P999, max := Max} =
        erlperf_latency:summary(Spans, [3]),
    ?assert(Min =< P50 andalso P50 =< P90 andalso P90 =< P99 andalso P99 =< P999
            andalso P999 =< Max, {Min, P50, P90, P99, P999, Max}).
