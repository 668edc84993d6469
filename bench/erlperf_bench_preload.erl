%%% @doc The least a run of the command line can cost, as an escript's main: it loads what
%%% a run loads before its first job (`erlperf_cli_vm:preload/0': erlperf's own run
%%% modules, what generating a runner's module needs of stdlib) and halts. A run whose
%%% runner comes from the compile cache loads nothing more (the compiler loads only to
%%% compile). {@link erlperf_bench} packs it into an escript and times it beside a bare
%%% VM and `./erlperf 'ok.' -l 1'.
-module(erlperf_bench_preload).

%% API: the escript's entry point.
-export([main/1]).

%% @doc Loads what a run loads and halts with status 0.
-spec main([string()]) -> no_return().
main(_Args) ->
    ok = erlperf_cli_vm:preload(),
    erlang:halt(0).
