%% The project's benchmark suite file: `rebar3 erlperf' runs it.
-module(my_bench).
-behaviour(erlperf_suite).
-export([benchmarks/0, work/0]).

benchmarks() -> [#{name => "work", runner => work, options => #{samples => 20, sample_duration => 100}}].

work() -> my_app:work().
