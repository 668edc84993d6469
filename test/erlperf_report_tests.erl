%%% @doc Tests of the report tables: units, column layout (against the README's own
%%% tables), sorting, Rel, notes, width cutting and colour.
-module(erlperf_report_tests).

-include_lib("eunit/include/eunit.hrl").

%%--------------------------------------------------------------------
%% Report builders: full reports as erlperf:benchmark/3 returns them

continuous(Label, Concurrency, Avg, IterationNs) ->
    continuous(Label, Concurrency, [Avg, Avg, Avg], Avg, 0.0, Avg, Avg, IterationNs).

continuous(Label, Concurrency, Samples, Avg, StdDev, Median, P99, IterationNs) ->
    #{version => 1, mode => continuous, label => Label, concurrency => Concurrency,
      result => #{average => Avg, min => lists:min(Samples), max => lists:max(Samples),
                  stddev => StdDev, median => Median, p99 => P99, samples => Samples,
                  time => 3000000, iteration_time => IterationNs},
      run_options => #{}, sleep => sleep, warnings => [],
      system => #{os => "unix:linux 6.1.0", cpu => "Test CPU @ 2GHz",
                  vm => "Erlang/OTP 25 [erts-13.1.5]", otp_release => "25",
                  schedulers => 2}}.

timed(Label, NSamples, AvgUs, StdDevUs, MedianUs, P99Us, IterationNs) ->
    R = continuous(Label, 1, lists:duplicate(NSamples, AvgUs), AvgUs, StdDevUs, MedianUs,
                   P99Us, IterationNs),
    R#{mode => timed}.

text(Reports, Options) ->
    unicode:characters_to_list(erlperf_report:format(Reports, Options)).

lines(Reports, Options) ->
    string:split(string:trim(text(Reports, Options), trailing, "\n"), "\n", all).

%%--------------------------------------------------------------------
%% Units

format_count_test_() ->
    [?_assertEqual(Expected, erlperf_report:format_count(N))
     || {N, Expected} <- [{0, "0"}, {500, "500"}, {64021, "64021"}, {99999, "99999"},
                          {100000, "100 Ki"}, {241000, "241 Ki"}, {17266000, "17266 Ki"},
                          {99999000, "99999 Ki"}, {100000000, "100 Mi"},
                          {2.0e11, "200 Gi"}, {333.4, "333"}]].

format_time_test_() ->
    [?_assertEqual(Expected, erlperf_report:format_time(Ns))
     || {Ns, Expected} <- [{57, "57 ns"}, {57.4, "57 ns"}, {4129, "4129 ns"},
                           {15619, "15619 ns"}, {99999, "99999 ns"}, {707000, "707 us"},
                           {2001000, "2001 us"}, {554.0e6, "554 ms"}, {2.54, "2.5 ns"},
                           {3, "3 ns"}, {200.0e9, "200 s"}, {0, "0 ns"}]].

%%--------------------------------------------------------------------
%% Tables from the README, exactly

basic_single_test() ->
    R = continuous(<<"rand:uniform().">>, 1, 17266000, 57.0),
    ?assertEqual(["Code                    ||        QPS       Time",
                  "rand:uniform().          1   17266 Ki      57 ns"],
                 lines([R], #{})).

basic_concurrency_test() ->
    R = continuous(<<"rand:uniform().">>, 4, 53893000, 74.2),
    ?assertEqual(["Code                    ||        QPS       Time",
                  "rand:uniform().          4   53893 Ki      74 ns"],
                 lines([R], #{format => basic})).

basic_rel_sorted_test() ->
    Slow = continuous(<<"  runner(X) -> timer:sleep(X).">>, 1, 333, 3001000.0),
    Fast = continuous(<<"runner(X) -> timer:sleep(X).">>, 1, 500, 2001000.0),
    ?assertEqual(["Code                                   ||        QPS       Time   Rel",
                  "runner(X) -> timer:sleep(X).            1        500    2001 us  100%",
                  "  runner(X) -> timer:sleep(X).          1        333    3001 us   67%"],
                 lines([Slow, Fast], #{})).

extended_rel_test() ->
    Rand = continuous(<<"rand:uniform().">>, 1, lists:duplicate(10, 16611000), 16611000,
                      0.002 * 16611000, 16614000, 16664000, 60.2),
    Crypto = continuous(<<"crypto:strong_rand_bytes(2).">>, 1, lists:duplicate(10, 1804000),
                        1804000, 0.0079 * 1804000, 1797000, 1829000, 554.0),
    ?assertEqual(
       ["Code                             ||   Samples       Avg   StdDev    Median      P99  Iteration    Rel",
        "rand:uniform().                   1        10  16611 Ki    0.20%  16614 Ki 16664 Ki      60 ns   100%",
        "crypto:strong_rand_bytes(2).      1        10   1804 Ki    0.79%   1797 Ki  1829 Ki     554 ns    11%"],
       lines([Crypto, Rand], #{})).

extended_timed_test() ->
    Mod = timed(<<"rand:uniform(1000).">>, 20, 554000.0, 0.0037 * 554000, 554000.0, 563000.0, 55.4),
    Plain = timed(<<"rand:uniform().">>, 20, 560000.0, 0.006 * 560000, 560000.0, 564000.0, 55.0),
    ?assertEqual(
       ["Code                    ||   Samples       Avg   StdDev    Median      P99  Iteration    Rel",
        "rand:uniform(1000).      1        20    554 ms    0.37%    554 ms   563 ms      55 ns   100%",
        "rand:uniform().          1        20    560 ms    0.60%    560 ms   564 ms      55 ns    99%"],
       lines([Plain, Mod], #{})).

basic_timed_test() ->
    Mfa = timed(<<"{rand,uniform,[]}">>, 3, 600000.0, 0.0, 600000.0, 600000.0, 60.0),
    Src = timed(<<"rand:uniform().">>, 3, 540000.0, 0.0, 540000.0, 540000.0, 54.0),
    ?assertEqual(["Code                      ||        QPS       Time   Rel",
                  "rand:uniform().            1   18519 Ki      54 ns  100%",
                  "{rand,uniform,[]}          1   16667 Ki      60 ns   90%"],
                 lines([Mfa, Src], #{})).

timer_note_test() ->
    R = continuous(<<"ets:insert(ac_tab, {1, 2}).">>, 50, lists:duplicate(50, 6079), 6079,
                   0.8227 * 6079, 5497, 40313, 823000.0),
    ?assertEqual(
       ["Timer accuracy problem detected, results may be inaccurate",
        "",
        "Code                            ||   Samples       Avg   StdDev    Median      P99  Iteration",
        "ets:insert(ac_tab, {1, 2}).     50        50      6079   82.27%      5497    40313     823 us"],
       lines([R#{sleep => busy_wait}], #{})).

%%--------------------------------------------------------------------
%% Formats, notes, width, colour

auto_format_test_() ->
    Three = continuous(<<"a.">>, 1, 1000, 1.0e6),
    Ten = continuous(<<"a.">>, 1, lists:duplicate(10, 1000), 1000, 0.0, 1000, 1000, 1.0e6),
    [?_assertEqual(basic, erlperf_report:resolve_format(auto, [Three])),
     ?_assertEqual(extended, erlperf_report:resolve_format(auto, [Ten])),
     ?_assertEqual(extended, erlperf_report:resolve_format(auto, [Three, Ten])),
     ?_assertEqual(basic, erlperf_report:resolve_format(basic, [Ten])),
     ?_assertMatch(["Code", "||", "QPS", "Time"],
                   string:lexemes(hd(lines([Ten], #{format => basic})), " ")),
     ?_assertMatch(["Code", "||", "Samples", "Avg", "StdDev", "Median", "P99", "Iteration"],
                   string:lexemes(hd(lines([Three], #{format => extended})), " "))].

full_test() ->
    R = continuous(<<"a.">>, 1, 1000, 1.0e6),
    [Os, Cpu, Vm, Blank, Header, _Row] = lines([R], #{format => full}),
    ?assertEqual("OS:  unix:linux 6.1.0", Os),
    ?assertEqual("CPU: Test CPU @ 2GHz", Cpu),
    ?assertEqual("VM:  Erlang/OTP 25 [erts-13.1.5]", Vm),
    ?assertEqual("", Blank),
    ?assertMatch(["Code", "||", "Samples" | _], string:lexemes(Header, " ")).

dead_code_note_test() ->
    R = continuous(<<"ok.">>, 1, 1000, 1.0e6),
    Text = text([R#{warnings => [{dead_code, runner}]}], #{}),
    ?assertNotEqual(nomatch, string:find(Text, "compiler removed the benchmarked code of ok.")),
    ?assertEqual(nomatch, string:find(text([R], #{}), "compiler removed")).

cut_to_width_test() ->
    Long = list_to_binary(["lists:seq(1, 10), " || _ <- lists:seq(1, 10)] ++ ["ok."]),
    Short = continuous(<<"ok.">>, 1, 2000, 1.0e6),
    Lines = lines([continuous(Long, 1, 1000, 1.0e6), Short], #{width => 60}),
    ?assert(lists:all(fun (L) -> length(L) =< 60 end, Lines)),
    ?assertEqual(3, length(Lines)),
    %% uncut without a width
    ?assertNotEqual(nomatch, string:find(text([Short, continuous(Long, 1, 1, 1.0)], #{}),
                                         binary_to_list(Long))).

narrow_terminal_keeps_code_test() ->
    R = continuous(<<"rand:uniform(1000000).">>, 1, 1000, 1.0e6),
    [_Header, Row] = lines([R], #{width => 10}),
    ?assertMatch("rand:uniform" ++ _, Row).

colour_test() ->
    R = continuous(<<"a.">>, 1, 1000, 1.0e6),
    ?assertMatch("\e[1mCode" ++ _, text([R], #{colour => true})),
    ?assertEqual(nomatch, string:find(text([R], #{colour => false}), "\e[")).

control_characters_in_label_test() ->
    R = continuous(<<"a() ->\n  ok.">>, 1, 1000, 1.0e6),
    ?assertMatch(["Code" ++ _, "a() ->   ok." ++ _], lines([R], #{})).

no_iterations_test() ->
    R = continuous(<<"timer:sleep(infinity).">>, 1, 0, infinity),
    [_Header, Row, Row] = lines([R, R], #{}),
    ?assertMatch(["timer:sleep(infinity).", "1", "0", "-", "-"], string:lexemes(Row, " ")).

wide_values_stay_aligned_test() ->
    R = continuous(<<"a.">>, 123456, 1000, 1.0e6),
    [Header, Row] = lines([R], #{}),
    ?assertEqual(length(Header), length(Row)).

empty_test() ->
    ?assertEqual([], erlperf_report:format([], #{})).
