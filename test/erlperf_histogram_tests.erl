%%% @doc Tests of erlperf_histogram: bucket arithmetic against its definition, percentiles
%%% against exact nearest-rank percentiles of the sorted values (R's
%%% `quantile(x, type = 1)'), exact merging, and recording from many processes at once.
-module(erlperf_histogram_tests).

-include_lib("eunit/include/eunit.hrl").

%% Random value sets per property, and their largest size.
-define(SETS, 200).
-define(SET_SIZE, 2000).
%% Seconds a property may take on a loaded machine.
-define(TIMEOUT_S, 120).

%%--------------------------------------------------------------------
%% Buckets

bucket_bounds_test_() ->
    {timeout, ?TIMEOUT_S, fun bucket_bounds/0}.

bucket_bounds() ->
    %% every value lies in its bucket; buckets follow one another with no gap
    Values = [0, 1, 255, 256, 257, 511, 512, 1000, 65535, 65536, 1 bsl 40, (1 bsl 47) - 1]
        ++ [rand_value(S) || S <- lists:seq(1, 5000)],
    [begin
         {Lo, Hi} = erlperf_histogram:bounds(erlperf_histogram:bucket(V)),
         ?assert(Lo =< V andalso V =< Hi, {V, Lo, Hi}),
         %% width at most 1/128 of the low end above 255, exact below
         ?assert(V < 256 andalso Lo =:= Hi orelse (Hi - Lo + 1) * 128 =< Lo, {V, Lo, Hi})
     end || V <- Values],
    Last = erlperf_histogram:bucket((1 bsl 47) - 1),
    ?assertEqual([], [I || I <- lists:seq(0, Last - 1),
                           element(2, erlperf_histogram:bounds(I)) + 1 =/=
                               element(1, erlperf_histogram:bounds(I + 1))]),
    ?assertEqual({0, 0}, erlperf_histogram:bounds(0)),
    ?assertEqual({256, 257}, erlperf_histogram:bounds(erlperf_histogram:bucket(256))),
    ?assertEqual({512, 515}, erlperf_histogram:bounds(erlperf_histogram:bucket(513))).

%%--------------------------------------------------------------------
%% Percentiles

percentile_examples_test() ->
    S = erlperf_histogram:from_values([1500, 2600]),
    ?assertEqual(#{p50 => 1503, max => 2600, min => 1500},
                 erlperf_histogram:percentiles(S, [p50, max, min])),
    %% small values are exact: 1..100, nearest rank
    H = erlperf_histogram:from_values(lists:seq(100, 1, -1)),
    ?assertEqual(#{p50 => 50, p90 => 90, p99 => 99, p999 => 100, max => 100, min => 1},
                 erlperf_histogram:percentiles(H, [p50, p90, p99, p999, max, min])),
    ?assertEqual(#{count => 100, average => 50.5, min => 1, p50 => 50, p90 => 90, p99 => 99,
                   p999 => 100, max => 100}, erlperf_histogram:summary(H)),
    %% none recorded: no figures
    E = erlperf_histogram:snapshot(erlperf_histogram:new()),
    ?assertEqual(E, erlperf_histogram:empty()),
    ?assertEqual(#{count => 0, average => undefined, min => undefined, p50 => undefined,
                   p90 => undefined, p99 => undefined, p999 => undefined, max => undefined},
                 erlperf_histogram:summary(E)),
    %% negative values count as 0, huge ones as the largest kept
    N = erlperf_histogram:from_values([-5, 1 bsl 60]),
    ?assertEqual(#{min => 0, max => (1 bsl 47) - 1}, erlperf_histogram:percentiles(N, [min, max])).

percentile_reference_test_() ->
    {timeout, ?TIMEOUT_S, fun percentile_reference/0}.

percentile_reference() ->
    %% at every rank: never below the exact value, above it by 1/128 of it at most
    [begin
         Values = random_values(Seed),
         Sorted = lists:sort(Values),
         S = erlperf_histogram:from_values(Values),
         [begin
              Exact = lists:nth(max(1, ceil(P * length(Sorted) / 100)), Sorted),
              Got = erlperf_histogram:percentile(S, P),
              ?assert(Exact =< Got andalso Got =< Exact + Exact div 128, {Seed, P, Exact, Got})
          end || P <- [0.1, 1, 25, 50, 75, 90, 99, 99.9, 100]],
         ?assertEqual(hd(Sorted), erlperf_histogram:percentile(S, 0.0001)),
         ?assertEqual(lists:last(Sorted), erlperf_histogram:percentile(S, 100)),
         ?assertEqual(lists:sum(Values), maps:get(sum, S))
     end || Seed <- lists:seq(1, ?SETS)].

%%--------------------------------------------------------------------
%% Merging

merge_test_() ->
    {timeout, ?TIMEOUT_S, fun merge/0}.

merge() ->
    %% merging snapshots is recording all the values into one
    [begin
         A = random_values(Seed),
         B = random_values(Seed + 10000),
         Merged = erlperf_histogram:merge(erlperf_histogram:from_values(A),
                                          erlperf_histogram:from_values(B)),
         ?assertEqual(erlperf_histogram:from_values(A ++ B), Merged),
         ?assert(erlperf_histogram:valid(Merged))
     end || Seed <- lists:seq(1, 50)],
    E = erlperf_histogram:empty(),
    S = erlperf_histogram:from_values([7]),
    ?assertEqual(S, erlperf_histogram:merge(E, S)),
    ?assertEqual(S, erlperf_histogram:merge(S, E)).

valid_test() ->
    ?assert(erlperf_histogram:valid(erlperf_histogram:empty())),
    ?assert(erlperf_histogram:valid(erlperf_histogram:from_values([1, 1000, 1 bsl 30]))),
    [?assertNot(erlperf_histogram:valid(T))
     || T <- [#{}, not_a_map, (erlperf_histogram:empty())#{count := 1},
              #{count => 1, sum => 5, min => 5, max => 5, buckets => #{5 => 2}},
              #{count => 1, sum => 5, min => 5, max => 5, buckets => #{-1 => 1}},
              #{count => 1, sum => 5, min => 6, max => 5, buckets => #{5 => 1}},
              #{count => 1, sum => 5, min => 5, max => 5, buckets => #{100000 => 1}}]].

%%--------------------------------------------------------------------
%% Recording from many processes

concurrent_test_() ->
    {timeout, ?TIMEOUT_S, fun concurrent/0}.

concurrent() ->
    %% 8 processes record 20,000 values each at once: every value counted once, and the
    %% extremes are those of all
    R = erlperf_histogram:new(),
    Self = self(),
    Pids = [spawn_link(fun () ->
                               _ = [erlperf_histogram:record(R, (I * 7919 + K) rem 100000)
                                    || I <- lists:seq(1, 20000)],
                               Self ! {done, self()}
                       end) || K <- lists:seq(1, 8)],
    [receive {done, P} -> ok end || P <- Pids],
    S = erlperf_histogram:snapshot(R),
    Expected = erlperf_histogram:from_values([(I * 7919 + K) rem 100000
                                              || K <- lists:seq(1, 8), I <- lists:seq(1, 20000)]),
    ?assertEqual(Expected, S).

%%--------------------------------------------------------------------
%% Helpers

%% Values spread over many powers of two, as durations are (ns to seconds).
random_values(Seed) ->
    _ = rand:seed(exsss, {Seed, Seed * 3, Seed * 7}),
    [rand_value() || _ <- lists:seq(1, rand:uniform(?SET_SIZE))].

rand_value(Seed) ->
    _ = rand:seed(exsss, {Seed, 11, 13}),
    rand_value().

rand_value() ->
    trunc(math:pow(2, rand:uniform() * 40)) + rand:uniform(3) - 1.
