%%% @doc eunit tests of `erlperf_trackers': a record in github-action-benchmark's
%%% `customSmallerIsBetter' JSON and in the Bencher Metric Format, each checked against
%%% the format's documented shape (github-action-benchmark's README: a list of objects
%%% with `name', `unit', `value', optional `range' and `extra' strings; Bencher's BMF: an
%%% object of benchmarks, each an object of measures, each with a number `value' and
%%% optional `lower_value' and `upper_value').
-module(erlperf_trackers_tests).

-include_lib("eunit/include/eunit.hrl").

%% A run as erlperf_record writes it: 1000 ns a call, 1 M calls a second, its samples'
%% 95% interval 10% either side.
run(Label, Extra) ->
    maps:merge(#{<<"label">> => Label, <<"mode">> => <<"continuous">>, <<"concurrency">> => 1,
                 <<"iteration_ns">> => 1000.0, <<"qps">> => 1.0e6, <<"average">> => 1.0e5,
                 <<"ci95">> => [0.9e5, 1.1e5], <<"samples">> => [1.0e5, 1.0e5, 1.0e5]}, Extra).

record(Runs) ->
    #{<<"version">> => 1, <<"runs">> => Runs}.

decode(Iodata) ->
    {ok, Value} = erlperf_json:decode(iolist_to_binary(Iodata)),
    Value.

github_action_benchmark_test_() ->
    Cost = #{<<"bytes_per_iteration">> => 160.0, <<"reductions_per_iteration">> => 6.0},
    Sweep = (record([run(<<"seq">>, Cost#{<<"params">> => #{<<"N">> => 10}})]))#{
              <<"options">> => #{<<"params">> => [#{<<"name">> => <<"N">>, <<"values">> => [10]}]}},
    Entries = decode(erlperf_trackers:github_action_benchmark(Sweep)),
    [?_assert(is_list(Entries)),
     %% the documented shape, every entry
     [?_assert(is_binary(N) andalso is_binary(U) andalso is_number(V)
               andalso is_binary(maps:get(<<"range">>, E, <<>>)) andalso is_binary(maps:get(<<"extra">>, E, <<>>))
               andalso [] =:= maps:keys(E) -- [<<"name">>, <<"unit">>, <<"value">>, <<"range">>, <<"extra">>])
      || #{<<"name">> := N, <<"unit">> := U, <<"value">> := V} = E <- Entries],
     ?_assertEqual(3, length(Entries)),
     ?_assertMatch([#{<<"name">> := <<"seq (N=10)">>, <<"unit">> := <<"ns">>, <<"value">> := 1000.0,
                      <<"extra">> := <<"1000 Ki calls a second, 3 samples, 1 worker">>},
                    #{<<"name">> := <<"seq (N=10) - bytes per call">>, <<"unit">> := <<"bytes">>, <<"value">> := 160.0},
                    #{<<"name">> := <<"seq (N=10) - reductions per call">>, <<"value">> := 6.0}], Entries),
     %% the time's interval from the throughput's: 1000 ns at 1.1 M/s is 909 ns, at 0.9 M/s 1111 ns
     ?_assertEqual(<<"± 101.01"/utf8>>, maps:get(<<"range">>, hd(Entries)))].

bencher_test_() ->
    Slow = run(<<"slow">>, #{<<"comparison">> => #{<<"change_pct">> => -50.0, <<"ci95_pct">> => [-55.0, -45.0],
                                                   <<"significant">> => true, <<"against">> => <<"fast">>}}),
    Bmf = decode(erlperf_trackers:bencher(record([run(<<"fast">>, #{}), Slow]))),
    Measures = [M || {_, Ms} <- maps:to_list(Bmf), M <- maps:values(Ms)],
    [?_assertEqual([<<"fast">>, <<"slow">>], lists:sort(maps:keys(Bmf))),
     %% the documented shape, every measure, the bounds around the value
     [?_assert(is_number(V) andalso maps:get(<<"lower_value">>, M, V) =< V andalso V =< maps:get(<<"upper_value">>, M, V)
               andalso [] =:= maps:keys(M) -- [<<"value">>, <<"lower_value">>, <<"upper_value">>])
      || #{<<"value">> := V} = M <- Measures],
     ?_assertEqual(length(Measures), length([M || #{<<"value">> := _} = M <- Measures])),
     ?_assertMatch(#{<<"latency">> := #{<<"value">> := 1000.0}, <<"throughput">> := #{<<"value">> := 1.0e6}},
                   maps:get(<<"fast">>, Bmf)),
     ?_assert(abs(maps:get(<<"lower_value">>, maps:get(<<"throughput">>, maps:get(<<"fast">>, Bmf))) - 0.9e6) < 1.0e-3),
     ?_assert(abs(maps:get(<<"upper_value">>, maps:get(<<"latency">>, maps:get(<<"fast">>, Bmf))) - 1.0e9 / 0.9e6) < 1.0e-6)].

%% A suite's runs: each named with its own parameters, none lost.
suite_names_test() ->
    Record = record([run(<<"seq">>, #{<<"params">> => #{<<"N">> => 100}}),
                     run(<<"seq">>, #{<<"params">> => #{<<"N">> => 10000}}), run(<<"sort">>, #{})]),
    ?assertEqual([<<"seq (N=100)">>, <<"seq (N=10000)">>, <<"sort">>],
                 lists:sort(maps:keys(decode(erlperf_trackers:bencher(Record))))),
    ?assertEqual([<<"seq (N=100)">>, <<"seq (N=10000)">>, <<"sort">>],
                 [N || #{<<"name">> := N} <- decode(erlperf_trackers:github_action_benchmark(Record))]).

%% A run without a time (an open load's) has no time entry; the formats still parse.
no_time_test() ->
    Record = record([#{<<"label">> => <<"x">>, <<"qps">> => 10.0, <<"samples">> => []}]),
    ?assertEqual([], decode(erlperf_trackers:github_action_benchmark(Record))),
    ?assertEqual(#{<<"x">> => #{<<"throughput">> => #{<<"value">> => 10.0}}}, decode(erlperf_trackers:bencher(Record))).

%% An open load's runs (a ramp of two rates): each rate a benchmark of its own, its figures
%% the response times and the rate achieved, never a time per call (which the pool's
%% size over the rate would make the schedule's period).
open_load_test_() ->
    Rate = fun (Target, Achieved, Us) ->
                   run(<<"rand:uniform().">>,
                       #{<<"iteration_ns">> => 1.0e9 / Target, <<"qps">> => Achieved,
                         <<"rate">> => #{<<"target">> => Target, <<"achieved">> => Achieved,
                                         <<"late">> => 0, <<"skipped">> => 0, <<"workers">> => 1,
                                         <<"response_us">> => Us}})
           end,
    Ramp = record([Rate(500, 499.5, #{<<"p50">> => 2.0, <<"p99">> => 5.0}),
                   Rate(1000, 998.0, #{<<"p50">> => 3.0, <<"p99">> => 9.0}),
                   Rate(2000, 0.0, #{<<"p50">> => null, <<"p99">> => null})]),
    Entries = decode(erlperf_trackers:github_action_benchmark(Ramp)),
    Bmf = decode(erlperf_trackers:bencher(Ramp)),
    [?_assertEqual([{<<"rand:uniform(). at 500/s - response p50">>, 2000.0},
                    {<<"rand:uniform(). at 500/s - response p99">>, 5000.0},
                    {<<"rand:uniform(). at 1000/s - response p50">>, 3000.0},
                    {<<"rand:uniform(). at 1000/s - response p99">>, 9000.0}],
                   [{N, V} || #{<<"name">> := N, <<"unit">> := <<"ns">>, <<"value">> := V}
                                  <- Entries]),
     ?_assertMatch(#{<<"extra">> := <<"open load: 500 calls a second due, ", _/binary>>},
                   hd(Entries)),
     ?_assertEqual([<<"rand:uniform(). at 1000/s">>, <<"rand:uniform(). at 2000/s">>,
                    <<"rand:uniform(). at 500/s">>], lists:sort(maps:keys(Bmf))),
     ?_assertEqual(#{<<"throughput">> => #{<<"value">> => 998.0},
                     <<"response-p50">> => #{<<"value">> => 3000.0},
                     <<"response-p99">> => #{<<"value">> => 9000.0}},
                   maps:get(<<"rand:uniform(). at 1000/s">>, Bmf)),
     %% no call returned: the rate achieved alone
     ?_assertEqual(#{<<"throughput">> => #{<<"value">> => 0.0}},
                   maps:get(<<"rand:uniform(). at 2000/s">>, Bmf))].
