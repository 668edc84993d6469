%%% @doc eunit tests of `erlperf_benchee': the Benchee layout of a results record.
-module(erlperf_benchee_tests).

-include_lib("eunit/include/eunit.hrl").

%% A run of the record as erlperf_record writes it: label, 1e9 / Ns iterations a second.
run(Label, Ns, Extra) ->
    maps:merge(#{<<"label">> => Label, <<"mode">> => <<"continuous">>, <<"concurrency">> => 1,
                 <<"iteration_ns">> => Ns, <<"qps">> => 1.0e9 / Ns, <<"average">> => 1.0e8 / Ns,
                 <<"stddev">> => 1.0e6 / Ns, <<"median">> => 1.0e8 / Ns,
                 <<"samples">> => [1.0e8 / Ns, 1.0e8 / Ns], <<"interval">> => <<"forks">>,
                 <<"forks">> => #{<<"sizes">> => [1, 1, 1, 1, 1], <<"means">> => [1, 1, 1, 1, 1]}}, Extra).

record(Runs) ->
    #{<<"version">> => 1, <<"runs">> => Runs,
      <<"system">> => #{<<"os_name">> => <<"Linux">>, <<"cpu">> => <<"Test CPU">>,
                        <<"schedulers">> => 2, <<"otp_release">> => <<"25">>}}.

text(Record) ->
    unicode:characters_to_list(erlperf_benchee:format(Record)).

%% Where Sub first occurs in Text (string:find/2 returns the rest of Text from there).
pos(Text, Sub) ->
    length(Text) - length(string:find(Text, Sub)).

lines(Record) ->
    string:split(text(Record), "\n", all).

compared_test_() ->
    Slow = run(<<"slow">>, 2000, #{<<"comparison">> => #{<<"against">> => <<"fast">>, <<"change_pct">> => -50.0,
                                                       <<"ci95_pct">> => [-52.0, -48.0], <<"significant">> => true},
                                   <<"latency_us">> => #{<<"p50">> => 1.9, <<"p99">> => 3.5, <<"average">> => 2.0,
                                                         <<"stddev">> => 0.5},
                                   <<"bytes_per_iteration">> => 2048}),
    Fast = run(<<"fast">>, 1000, #{<<"latency_us">> => #{<<"p50">> => 0.95, <<"p99">> => 1.5, <<"average">> => 1.0,
                                                         <<"stddev">> => 0.1},
                                   <<"bytes_per_iteration">> => 1024}),
    Text = text(record([Slow, Fast])),
    Lines = lines(record([Slow, Fast])),
    [?_assert(lists:member("Operating System: Linux", Lines)),
     ?_assert(lists:member("CPU Information: Test CPU", Lines)),
     ?_assert(lists:member("Number of Available Cores: 2", Lines)),
     %% the table: fastest first, ips from the iteration time, per-call figures from latency
     ?_assertMatch([_ | _], [L || L <- Lines, string:prefix(L, "Name") =/= nomatch,
                                  string:find(L, "ips") =/= nomatch, string:find(L, "99th %") =/= nomatch]),
     ?_assertEqual(["fast", "1.00", "M", "1.00", "μs", "±10.00%", "950.00", "ns", "1.50", "μs"],
                   string:lexemes(hd([L || L <- Lines, lists:prefix("fast ", L)]), " ")),
     ?_assertEqual(["slow", "500.00", "K", "2.00", "μs", "±25.00%", "1.90", "μs", "3.50", "μs"],
                   string:lexemes(hd([L || L <- Lines, lists:prefix("slow ", L)]), " ")),
     %% the comparison, with erlperf's interval as times slower: 100/52..100/48
     ?_assert(lists:member("Comparison:", Lines)),
     ?_assertNotEqual(nomatch, string:find(Text, "500.00 K - 2.00x slower +1.00 μs (95% CI 1.92x..2.08x, 5 forks)")),
     %% memory, least first
     ?_assertNotEqual(nomatch, string:find(Text, "Memory usage statistics:")),
     ?_assertNotEqual(nomatch, string:find(Text, "2.00 KB - 2.00x memory usage +1.00 KB")),
     ?_assert(pos(Text, "fast") < pos(Text, "slow"))].

%% Benchee's name of the system, from erlperf's family, name and kernel version.
os_name_test_() ->
    Os = fun (Name) ->
                 Record = (record([run(<<"a">>, 1000, #{})]))#{<<"system">> => #{<<"os_name">> => Name}},
                 hd([L || L <- lines(Record), lists:prefix("Operating System: ", L)])
         end,
    [?_assertEqual("Operating System: Linux", Os(<<"unix:linux 6.18.44">>)),
     ?_assertEqual("Operating System: macOS", Os(<<"unix:darwin 23.1.0">>)),
     ?_assertEqual("Operating System: FreeBSD", Os(<<"unix:freebsd 14.0">>)),
     ?_assertEqual("Operating System: Windows", Os(<<"win32:nt 10.0">>)),
     ?_assertEqual("Operating System: Sunos", Os(<<"unix:sunos 5.11">>))].

%% The percentiles asked for, from the calls timed one by one; reductions least first;
%% a median far from the average explained once; each column's source named; no system
%% block when asked.
percentiles_reductions_test_() ->
    Latency = #{<<"p50">> => 0.5, <<"p90">> => 0.9, <<"p99">> => 0.99, <<"p999">> => 2.0,
                <<"average">> => 0.6, <<"stddev">> => 0.1},
    A = run(<<"a">>, 1000, #{<<"latency_us">> => Latency, <<"reductions_per_iteration">> => 40.0,
                            <<"comparison">> => #{<<"change_pct">> => 0.0, <<"ci95_pct">> => [-1.0, 1.0],
                                                  <<"significant">> => false}}),
    B = run(<<"b">>, 100, #{<<"latency_us">> => Latency#{<<"p50">> => 0.02}, <<"reductions_per_iteration">> => 10.5}),
    Text = unicode:characters_to_list(erlperf_benchee:format(record([A, B]), #{system => false,
                                                                            percentiles => [50, 90, 99.9]})),
    Lines = string:split(Text, "
", all),
    [?_assertEqual(nomatch, string:find(Text, "Operating System")),
     ?_assertEqual(["Name", "ips", "average", "deviation", "median", "90th", "%", "99.9th", "%"],
                   string:lexemes(hd([L || L <- Lines, lists:prefix("Name", L)]), " ")),
     ?_assertEqual(["a", "1.00", "M", "1.00", "μs", "±16.67%", "500.00", "ns", "900.00", "ns", "2.00", "μs"],
                   string:lexemes(hd([L || L <- Lines, lists:prefix("a ", L)]), " ")),
     ?_assertNotEqual(nomatch, string:find(Text, "Reduction count statistics:")),
     ?_assertEqual([["b", "10.50"], ["a", "40", "-", "3.81x", "reduction", "count", "+29.50"]],
                   begin
                       ["Reduction count statistics:", "", _Header | Rest] =
                           lists:dropwhile(fun (L) -> L =/= "Reduction count statistics:" end, Lines),
                       [string:lexemes(L, " ") || L <- lists:takewhile(fun (L) -> L =/= "" end, Rest)]
                   end),
     %% b: a median of 20 ns against an average of 100 ns
     ?_assertMatch([_], [L || L <- Lines, lists:prefix("Note: median over average: b 0.20x. ", L)]),
     ?_assertNotEqual(nomatch, string:find(Text, "ips and average: erlperf's loop, no clock read per call; "
                                                 "deviation, median and percentiles: calls timed one by one")),
     %% a percentile not measured: refused, with or without calls timed one by one
     ?_assertError({invalid_option, percentiles, [95]}, erlperf_benchee:format(record([A, B]), #{percentiles => [95]})),
     ?_assertError({invalid_option, percentiles, [95]},
                   erlperf_benchee:format(record([maps:remove(<<"latency_us">>, B)]), #{percentiles => [95]}))].

not_significant_test() ->
    B = run(<<"b">>, 1010, #{<<"comparison">> => #{<<"change_pct">> => -1.0, <<"ci95_pct">> => [-3.0, 1.0],
                                                  <<"significant">> => false}}),
    Text = text(record([run(<<"a">>, 1000, #{}), B])),
    ?assertNotEqual(nomatch, string:find(Text, "1.01x slower +10.00 ns (no significant difference, 95% CI 0.99x..1.03x, 5 forks)")),
    %% no latency: deviation of the samples, no memory section
    ?assertEqual(nomatch, string:find(Text, "Memory usage")).

%% A suite's benchmarks are not alternatives: no comparison, their order kept.
%% A change whose interval reaches -100% or below: infinitely slower at the far end.
unbounded_test() ->
    B = run(<<"b">>, 5000, #{<<"comparison">> => #{<<"change_pct">> => -80.0, <<"ci95_pct">> => [-130.0, -30.0],
                                                  <<"significant">> => true}}),
    Text = text(record([run(<<"a">>, 1000, #{}), B])),
    ?assertNotEqual(nomatch, string:find(Text, "5.00x slower +4.00 μs (95% CI 1.43x..∞, 5 forks)")).

suite_test() ->
    Text = text(record([run(<<"second">>, 3000, #{}), run(<<"first">>, 1000, #{})])),
    ?assertEqual(nomatch, string:find(Text, "Comparison:")),
    ?assert(pos(Text, "second") < pos(Text, "first")).

inputs_test_() ->
    Small = fun (L, Ns) -> run(L, Ns, #{<<"params">> => #{<<"input">> => <<"small">>}}) end,
    Large = fun (L, Ns) -> run(L, Ns, #{<<"params">> => #{<<"input">> => <<"large">>}}) end,
    Text = text(record([Small(<<"a">>, 10), Small(<<"b">>, 20), Large(<<"a">>, 1.0e6), Large(<<"b">>, 3.0e9)])),
    Sweep = text(record([run(<<"a">>, 10, #{<<"params">> => #{<<"N">> => 10}}),
                         run(<<"a">>, 100, #{<<"params">> => #{<<"N">> => 100}})])),
    [%% a section per input, in order, named as Benchee names inputs
     ?_assert(pos(Text, "##### With input small #####") < pos(Text, "##### With input large #####")),
     %% a sweep's combination as NAME=VALUE
     ?_assertNotEqual(nomatch, string:find(Sweep, "##### With input N=100 #####")),
     %% units: G/M/K ips, ns to s
     ?_assertNotEqual(nomatch, string:find(Text, "100.00 M")),
     ?_assertNotEqual(nomatch, string:find(Text, "1.00 ms")),
     ?_assertNotEqual(nomatch, string:find(Text, "3.00 s")),
     ?_assertNotEqual(nomatch, string:find(Text, "0.33"))].

%% A run in which no call returned (a runner slower than the run: timer:sleep(1000) for
%% 2 samples of 100 ms): no time per call, no calls timed one by one (`latency_us' null),
%% a throughput of 0; the layout shows "-" where there is no figure, beside a run that has
%% them, and never divides by the throughput of 0.
no_call_returned_test() ->
    Comparison = #{<<"against">> => <<"fast">>, <<"change_pct">> => -100.0,
                   <<"ci95_pct">> => [-100.0, -100.0], <<"significant">> => true},
    None = run(<<"slow">>, 1000, #{<<"iteration_ns">> => null, <<"qps">> => 0.0,
                                   <<"average">> => 0.0, <<"stddev">> => 0.0, <<"median">> => 0.0,
                                   <<"samples">> => [0, 0], <<"latency_us">> => null,
                                   <<"comparison">> => Comparison}),
    Fast = run(<<"fast">>, 0.5, #{<<"latency_us">> => #{<<"p50">> => 0.001, <<"p99">> => 0.002,
                                                        <<"average">> => 0.001,
                                                        <<"stddev">> => 0.0}}),
    Lines = lines(record([None, Fast])),
    [Slow] = [L || "slow " ++ _ = L <- Lines, string:find(L, "slower") =:= nomatch],
    ?assertEqual(["slow", "0.00", "-", "-", "-", "-"], string:lexemes(Slow, " ")),
    ?assertMatch([_], [L || "slow " ++ _ = L <- Lines, string:find(L, "∞x slower") =/= nomatch]),
    %% alone, and with no comparison
    ?assertMatch([_ | _], lines(record([maps:remove(<<"comparison">>, None)]))).
