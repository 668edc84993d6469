%%% @doc Example module for permanent continuous benchmarking with hot code reload
%%% (see doc/monitoring.md).
%%%
%%% Start a job running `mymod:do/1' and watch its throughput in the file log, then
%%% change `timer:sleep(Arg)' below into `timer:sleep(2 * Arg)' and reload the module
%%% with `c(mymod).': the job's column shows the throughput halve within a second.
-module(mymod).

-export([do/1]).

%% @doc Sleeps `Arg' milliseconds: one call is one iteration of the benchmark.
-spec do(non_neg_integer()) -> ok.
do(Arg) ->
    timer:sleep(Arg).
