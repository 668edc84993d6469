%%% @doc Tests of the reference workload's part of a record: the benchmark's report
%%% with it, and the ratios a comparison across runs reads.
-module(erlperf_reference_tests).

-include_lib("eunit/include/eunit.hrl").

report(Label, Values) ->
    #{label => Label, mode => continuous, concurrency => 1, code => #{runner => "x."},
      run_options => #{}, sleep => sleep,
      result => #{values => Values, average => lists:sum(Values) / length(Values)}}.

beside_test() ->
    Bench = (report(<<"b">>, [10, 20]))#{comparison => #{against => <<"reference">>}},
    Beside = erlperf_reference:beside([Bench, report(<<"reference">>, [5, 4])]),
    ?assertNot(is_map_key(comparison, Beside)),
    ?assertMatch(#{label := <<"b">>, result := #{values := [10, 20]},
                   reference := #{values := [5, 4], code := [_ | _]}}, Beside).

%% The ratios pair the samples; another reference's code, or samples of another count,
%% give none.
ratios_test_() ->
    Ref = fun (Values) ->
                  #{code := Code} = maps:get(reference, erlperf_reference:beside(
                                                          [report(<<"b">>, Values),
                                                           report(<<"reference">>, Values)])),
                  #{<<"code">> => unicode:characters_to_binary(Code), <<"samples">> => [5, 4]}
          end,
    Run = #{<<"samples">> => [10, 20], <<"reference">> => Ref([5, 4])},
    [?_assertEqual([2.0, 5.0], erlperf_reference:ratios(Run)),
     ?_assertEqual(undefined, erlperf_reference:ratios(Run#{<<"samples">> => [10]})),
     ?_assertEqual(undefined, erlperf_reference:ratios(
                                Run#{<<"reference">> =>
                                         (Ref([5, 4]))#{<<"code">> => <<"other.">>}})),
     ?_assertEqual(undefined, erlperf_reference:ratios(maps:remove(<<"reference">>, Run)))].

%% One figure a fork: the median of its ratios (a ratio the host spoiled moves it not).
fork_medians_test() ->
    #{reference := #{code := Code}} = erlperf_reference:beside([report(<<"b">>, [1]),
                                                                report(<<"r">>, [1])]),
    Run = #{<<"samples">> => [10, 10, 10, 40, 20, 20],
            <<"forks">> => #{<<"sizes">> => [3, 3]},
            <<"reference">> => #{<<"code">> => unicode:characters_to_binary(Code),
                                 <<"samples">> => [5, 5, 1, 10, 10, 10]}},
    ?assertEqual([2.0, 2.0], erlperf_reference:fork_medians(Run)).
