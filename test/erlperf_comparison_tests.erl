%% Unit tests of erlperf_comparison: the choice of concurrency from the steps of an
%% estimation, and whether the verdicts of a run measured until decided are decided.
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

%% Whether a run measured until decided can stop: every comparison significant, or no
%% significant difference with an interval inside ±margin (the noise floor unless given).
decided_test_() ->
    Cmp = fun (Map) -> #{label => <<"b">>,
                         comparison => maps:merge(#{verdict => no_difference, significant => false,
                                                    within_noise => false, noise => 1,
                                                    change_pct => 0.1, ci_pct => {-0.8, 0.9}},
                                                  Map)}
          end,
    Fastest = #{label => <<"a">>},
    Faster = Cmp(#{verdict => faster, significant => true, ci_pct => {3.0, 9.0}}),
    Slower = Cmp(#{verdict => slower, significant => true, ci_pct => {-9.0, -3.0}}),
    Inside = Cmp(#{}),
    Crossing = Cmp(#{ci_pct => {-1.5, 0.9}}),
    [%% a change found either way, or ruled out beyond the floor, decides
     ?_assert(erlperf_comparison:decided([Fastest, Slower])),
     ?_assert(erlperf_comparison:decided([Faster, Fastest, Slower])),
     ?_assert(erlperf_comparison:decided([Fastest, Inside])),
     %% the interval's ends may touch the floor
     ?_assert(erlperf_comparison:decided([Cmp(#{ci_pct => {-1.0, 1.0}})])),
     %% an interval reaching past the floor on either side leaves it undecided
     ?_assertNot(erlperf_comparison:decided([Fastest, Crossing])),
     ?_assertNot(erlperf_comparison:decided([Cmp(#{ci_pct => {-0.5, 1.2}})])),
     %% one undecided verdict among decided ones is enough to go on
     ?_assertNot(erlperf_comparison:decided([Fastest, Slower, Crossing])),
     %% a change found inside the floor: decided when its interval is inside it too
     ?_assert(erlperf_comparison:decided([Cmp(#{within_noise => true, ci_pct => {0.2, 0.9}})])),
     ?_assertNot(erlperf_comparison:decided([Cmp(#{within_noise => true, ci_pct => {0.2, 1.4}})])),
     %% no interval (too few samples), or an inconclusive verdict, decides nothing
     ?_assertNot(erlperf_comparison:decided([Cmp(#{ci_pct => undefined})])),
     ?_assertNot(erlperf_comparison:decided([Cmp(#{verdict => inconclusive})])),
     %% nothing compared: nothing to decide
     ?_assert(erlperf_comparison:decided([Fastest])),
     ?_assert(erlperf_comparison:decided([])),
     %% a margin given instead of the floor
     ?_assert(erlperf_comparison:decided([Fastest, Crossing], 2)),
     ?_assertNot(erlperf_comparison:decided([Fastest, Inside], 0.5)),
     ?_assert(erlperf_comparison:decided([Fastest, Slower], 0)),
     ?_assertEqual(erlperf_comparison:decided([Crossing], 1),
                   erlperf_comparison:decided([Crossing], noise))].
