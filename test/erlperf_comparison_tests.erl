%% Unit tests of erlperf_comparison: the choice of concurrency from the steps of an
%% estimation.
-module(erlperf_comparison_tests).

-include_lib("eunit/include/eunit.hrl").

-define(STAT, #{confidence => 95, noise => 0}).

plateau_test_() ->
    Rising = [100, 101, 99, 100],
    Flat = [200, 202, 198, 201],
    FlatNoisy = [199, 203, 197, 200],
    [%% throughput doubles, then stays flat: the first flat step, not the last
     ?_assertEqual({2, 4}, erlperf_comparison:plateau([{1, Rising}, {2, Flat}, {3, FlatNoisy},
                                                      {4, [201, 203, 199, 201]}], ?STAT)),
     %% the best is clearly above the rest: it is the answer
     ?_assertEqual({3, 3}, erlperf_comparison:plateau([{1, Rising}, {2, Flat},
                                                      {3, [300, 301, 299, 300]}], ?STAT)),
     %% steps given out of order (min/step/max): the smallest concurrency wins
     ?_assertEqual({2, 4}, erlperf_comparison:plateau([{4, [201, 203, 199, 201]}, {2, Flat},
                                                      {1, Rising}], ?STAT)),
     %% one sample per step: no evidence, the best is the answer
     ?_assertEqual({3, 3}, erlperf_comparison:plateau([{1, [100]}, {2, [200]}, {3, [201]}], ?STAT)),
     %% one step
     ?_assertEqual({5, 5}, erlperf_comparison:plateau([{5, Flat}], ?STAT)),
     %% a noise floor larger than the gap between steps 1 and 2: step 1 is close enough
     ?_assertEqual({1, 2}, erlperf_comparison:plateau([{1, [196, 197, 196, 197]}, {2, Flat}],
                                                      #{confidence => 95, noise => 3})),
     ?_assertEqual({2, 2}, erlperf_comparison:plateau([{1, [196, 197, 196, 197]}, {2, Flat}],
                                                      ?STAT))].

annotate_test_() ->
    Report = fun (Label, Values) ->
                     #{label => Label, mode => continuous, run_options => #{compare => parallel},
                       result => #{values => Values, average => erlperf_stat:mean(Values)}}
             end,
    A = Report(<<"a">>, [1000, 1010, 990, 1005]),
    B = Report(<<"b">>, [990, 1000, 981, 994]),
    %% about 1% slower, paired: significant without a floor, within a 2% floor
    [?_assertMatch([_, #{comparison := #{verdict := slower, against := <<"a">>}}],
                   erlperf_comparison:annotate([A, B], #{confidence => 95, noise => 0})),
     ?_assertMatch([_, #{comparison := #{verdict := no_difference, within_noise := true}}],
                   erlperf_comparison:annotate([A, B], #{confidence => 95, noise => 2})),
     %% a bare confidence, as before: no floor
     ?_assertMatch([_, #{comparison := #{verdict := slower, confidence := 99}}],
                   erlperf_comparison:annotate([A, B], 99))].
