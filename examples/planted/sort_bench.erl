%%% The sort benchmark of examples/sort_bench.erl with a planted regression: its sort
%%% does the work twice. Same module and benchmark name, so that a run of it is compared
%%% with the example's runs in the store (doc/suites.md).
-module(sort_bench).
-behaviour(erlperf_suite).

-export([benchmarks/0, input/0, sort/1]).

benchmarks() ->
    [#{name => "lists:sort/1 of 1000 floats", runner => sort, init_runner => input,
       options => #{samples => 10, sample_duration => 100}}].

input() ->
    [rand:uniform() || _ <- lists:seq(1, 1000)].

sort(List) ->
    _ = lists:sort(List),
    lists:sort(List).
