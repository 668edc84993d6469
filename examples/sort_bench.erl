%%% A benchmark suite (see doc/suites.md): `erlperf --suite examples/sort_bench.erl'.
%%% Each run is kept in the results store (_build/erlperf) and compared with the
%%% previous one.
-module(sort_bench).
-behaviour(erlperf_suite).

-export([benchmarks/0, input/0, sort/1, usort/1]).

benchmarks() ->
    Quick = #{samples => 10, sample_duration => 100},
    [#{name => "lists:sort/1 of 1000 floats", runner => sort, init_runner => input,
       options => Quick},
     #{name => "lists:usort/1 of 1000 floats", runner => usort, init_runner => input,
       options => Quick},
     #{name => "lists:seq/2", runner => "lists:seq(1, N).", params => #{'N' => [100, 10000]},
       options => Quick}].

%% The input each worker sorts, made once per worker.
input() ->
    Rand = rand:seed_s(exsss, 42),
    {List, _} = lists:mapfoldl(fun (_, S) -> rand:uniform_s(S) end, Rand, lists:seq(1, 1000)),
    List.

sort(List) ->
    lists:sort(List).

usort(List) ->
    lists:usort(List).
