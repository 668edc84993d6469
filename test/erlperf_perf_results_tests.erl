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
