-module(erlperf_perf_results_tests).

-include_lib("eunit/include/eunit.hrl").

%% A sample [T, V] whose numbers happen to be printable code points stays an array in the
%% record; in a custom agent's own result a printable list is a string, but not in its report.
jsonable_keeps_samples_test() ->
    Run = #{<<"processes">> => [#{<<"memory">> => [[1006, 24744]], <<"pid">> => self()}],
            <<"node_metrics">> => #{<<"n@h">> => #{<<"process_count">> => [[310, 49]]}},
            <<"custom_agents">> =>
                #{<<"agent">> => #{<<"n@h">> => #{text => "all held", names => ["a", "b"],
                                                  report => #{series => [#{name => <<"v">>, points => [[100, 50]]}]}}}}},
    #{<<"runs">> := [Json]} = erlperf_perf_results:jsonable(#{<<"runs">> => [Run]}),
    ?assertMatch(#{<<"processes">> := [#{<<"memory">> := [[1006, 24744]], <<"pid">> := <<"<", _/binary>>}],
                   <<"node_metrics">> := #{<<"n@h">> := #{<<"process_count">> := [[310, 49]]}}}, Json),
    #{<<"custom_agents">> := #{<<"agent">> := #{<<"n@h">> := Agent}}} = Json,
    ?assertMatch(#{text := <<"all held">>, names := [<<"a">>, <<"b">>],
                   report := #{series := [#{points := [[100, 50]]}]}}, Agent),
    %% what erlperf_json writes reads back the same
    {ok, Decoded} = erlperf_json:decode(erlperf_json:encode(Json)),
    ?assertMatch(#{<<"node_metrics">> := #{<<"n@h">> := #{<<"process_count">> := [[310, 49]]}}}, Decoded).

%% Compensation: calls made while discovering at the discovering cost, the others at the
%% counting cost, per function and per process; compensation off keeps raw times.
compensation_test() ->
    Pid = self(),
    Functions = [#{mfa => {m, f, 1}, calls => 1000, calls_discovering => 100, time_us => 2000,
                   per_process => [#{pid => Pid, calls => 1000, calls_discovering => 100,
                                     time_us => 2000}]},
                 %% an entry without calls_discovering counts all its calls as discovering
                 #{mfa => {m, g, 0}, calls => 10, time_us => 50,
                   per_process => [#{pid => Pid, calls => 10, time_us => 50}]},
                 %% never below 0
                 #{mfa => {m, h, 0}, calls => 10, calls_discovering => 0, time_us => 1,
                   per_process => [#{pid => Pid, calls => 10, calls_discovering => 0,
                                     time_us => 1}]}],
    Results = #{functions => Functions, processes => [], node_metrics => #{},
                active_max => 1, discovery => [[0, 250]], conflicts => [], reloads => []},
    Impact = #{counting => 0.25, discovering => 0.75},
    Run = fun (Compensate) ->
                  erlperf_perf_results:run(4, ok, ['n@h'],
                                           #{results => #{'n@h' => Results},
                                             impact => #{'n@h' => Impact}, custom => #{},
                                             duration_ms => 1000, compensate => Compensate})
          end,
    %% 2000 - 100 x 0.75 - 900 x 0.25 = 1700; 50 - 10 x 0.75 = 42.5 -> 43 (round); 1 - 2.5 -> 0
    #{<<"functions">> := [F, G, H]} = On = Run(true),
    ?assertMatch(#{<<"time_us">> := 1700, <<"time_us_raw">> := 2000, <<"calls_discovering">> := 100,
                   <<"per_process">> := [#{<<"time_us">> := 1700, <<"calls_discovering">> := 100}]}, F),
    ?assertEqual(1.7, maps:get(<<"time_per_call_us">>, F)),
    ?assertMatch(#{<<"time_us">> := 43, <<"calls_discovering">> := 10}, G),
    ?assertMatch(#{<<"time_us">> := 0, <<"per_process">> := [#{<<"time_us">> := 0}]}, H),
    ?assertMatch(#{<<"impact_us_per_call">> := 0.75, <<"impact_counting_us_per_call">> := 0.25,
                   <<"impact_counting_us_per_call_by_node">> := #{<<"n@h">> := 0.25},
                   <<"discovery_by_node">> := #{<<"n@h">> := [[0, 250]]}}, On),
    #{<<"functions">> := Off} = Run(false),
    ?assertEqual([2000, 50, 1], [T || #{<<"time_us">> := T} <- Off]).
