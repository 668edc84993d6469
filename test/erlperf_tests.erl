%%% @doc eunit tests of `erlperf''s options as Elixir gives them: keyword lists for run
%%% options, concurrency options, sweep options and code maps; and of `budget': runners
%%% measured until decided, and what a budget cannot be combined with.
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

%% Two runners about 15 times apart, measured until decided within 10 seconds: decided
%% at a planned look, in forks of 10 samples taken in turns, compared by the ratio test
%% over the looks planned.
budget_test_() ->
    {timeout, 60, fun () ->
        Reports = erlperf:benchmark(["rand:uniform().", "lists:seq(1, 200)."],
                                    #{report => full, budget => 10, sample_duration => 10},
                                    undefined),
        [#{sequential := #{looks := Looks} = Sequential} | _] = Reports,
        ?assertMatch(#{stopped := decided, budget_ms := 10000, look := Look, forks := Forks}
                       when Look =< Looks andalso Forks >= 4, Sequential),
        #{forks := Forks} = Sequential,
        [?assertMatch(#{sequential := Sequential, run_options := #{compare := interleaved},
                        result := #{values := Values}} when length(Values) =:= 10 * Forks, R)
         || R <- Reports],
        ?assertMatch([#{comparison := #{test := ratio, looks := Looks, basis := forks,
                                        forks := Forks, significant := true,
                                        verdict := slower}}],
                     [R || #{comparison := _} = R <- Reports])
    end}.

%% With samples given, `auto' does not measure until decided; nor does the API's default.
budget_auto_test_() ->
    Two = ["rand:uniform().", "lists:seq(1, 200)."],
    Quick = #{report => full, sample_duration => 10},
    {timeout, 60,
     [?_assertMatch([#{run_options := #{samples := 2}} = R, _] when not is_map_key(sequential, R),
                    erlperf:benchmark(Two, Quick#{samples => 2, budget => auto}, undefined)),
      ?_assertMatch([R, _] when not is_map_key(sequential, R),
                    erlperf:benchmark(Two, Quick, undefined))]}.

%% A budget given with what fixes the run's shape is refused before anything runs, with
%% one line saying what it cannot be combined with and why.
budget_incompatible_test_() ->
    Two = ["rand:uniform().", "lists:seq(1, 200)."],
    Full = #{report => full, budget => 10, sample_duration => 10},
    Cases = [{one_runner, ["rand:uniform()."], Full, "a single runner"},
             {samples, Two, Full#{samples => 5}, "samples"},
             {forks, Two, Full#{forks => 2}, "a number of forks"},
             {sample_duration, Two, Full#{sample_duration => {timed, 100}}, "a timed sample"},
             {cv, Two, Full#{cv => 0.05}, "cv"},
             {report, Two, Full#{report => basic}, "a basic or extended report"}],
    lists:append(
      [[?_assertError({incompatible_options, budget, 10, What},
                      erlperf:benchmark(Codes, Opts, undefined)),
        ?_test(check_error_text({incompatible_options, budget, 10, What},
                                "budget (10) cannot be combined with " ++ Words ++ ": "))]
       || {What, Codes, Opts, Words} <- Cases]).

check_error_text(Reason, Prefix) ->
    ?assert(erlperf:is_known_error(Reason)),
    Text = erlperf:format_error(Reason),
    ?assert(io_lib:char_list(Text), Text),
    ?assert(lists:prefix(Prefix, Text), Text),
    ?assertEqual(nomatch, string:find(Text, "\n"), Text),
    %% and why, after the colon
    ?assert(length(Text) > length(Prefix) + 10, Text).

%% Names and messages the user wrote reach an error's one line quoted when they hold a
%% line break: no error text can start a line with `::' (a GitHub workflow command).
error_text_names_test_() ->
    Hostile = <<"L\n::warning::injected">>,
    Exception = #{'__exception__' => true, '__struct__' => 'Elixir.RuntimeError',
                  message => <<"boom\n::error::injected">>},
    Reasons = [{crashed, {runner, Hostile}, {error, badarg, []}},
               {crashed, runner, {error, Exception, []}},
               {crashed, {init, Hostile}, {error, Exception, []}},
               {stops_vm, Hostile, {erlang, halt, 0}},
               {call_not_returned, init, Hostile, 10000},
               {call_not_returned, counts, Hostile, 2000}],
    [?_test(begin
                Text = erlperf:format_error(Reason),
                ?assertEqual(nomatch, string:find(Text, "\n"), Text),
                ?assertNotEqual(nomatch, string:find(Text, "\\n::"), Text)
            end) || Reason <- Reasons].
