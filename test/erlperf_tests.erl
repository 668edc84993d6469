%%% @doc eunit tests of `erlperf''s options as Elixir gives them: keyword lists for run
%%% options, concurrency options, sweep options and code maps.
-module(erlperf_tests).

-include_lib("eunit/include/eunit.hrl").

%% Short runs: one sample of 20 ms.
-define(QUICK, [{samples, 1}, {sample_duration, 20}]).

keyword_options_test_() ->
    [{timeout, 60, Test} || Test <-
     [?_assert(is_integer(erlperf:run("ok.", ?QUICK))),
      ?_assertMatch([A, B] when is_integer(A) andalso is_integer(B),
                    erlperf:compare(["ok.", "rand:uniform()."], ?QUICK)),
      %% report => full as a keyword: the options were taken
      ?_assertMatch(#{result := #{values := [_]}, run_options := #{samples := 1, sample_duration := 20}},
                    erlperf:run("ok.", [{report, full} | ?QUICK])),
      %% concurrency estimation with keyword lists for both
      ?_assertMatch({Qps, C} when is_integer(Qps) andalso C >= 1 andalso C =< 2,
                    erlperf:run("ok.", ?QUICK, [{max, 2}])),
      %% a code map as a keyword list
      ?_assertMatch(#{label := <<"kw">>},
                    erlperf:run([{runner, "ok."}, {label, "kw"}], [{report, full} | ?QUICK])),
      %% the first of repeated keys counts, as Keyword.get/2 says
      ?_assertMatch(#{run_options := #{samples := 2}},
                    erlperf:run("ok.", [{report, full}, {samples, 2}, {samples, 9}, {sample_duration, 20}])),
      %% sweeps
      ?_assertMatch([#{params := [{'N', 1}]}, #{params := [{'N', 2}]}],
                    erlperf:sweep(["lists:seq(1, N)."], [{params, [{'N', [1, 2]}]} | ?QUICK]))]].

keyword_errors_test_() ->
    [%% an unknown key in a keyword list, as in a map
     ?_assertError({invalid_option, bogus, 1}, erlperf:run("ok.", [{bogus, 1}])),
     %% a list that is no keyword list is refused whole
     ?_assertError({invalid_option, run_options, [1, 2]}, erlperf:run("ok.", [1, 2])),
     ?_assertError({invalid_option, run_options, [{samples, 1}, x]},
                   erlperf:run("ok.", [{samples, 1}, x]))].
