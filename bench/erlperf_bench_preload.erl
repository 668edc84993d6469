%%% @doc The least a run of the command line can cost, as an escript's main: it loads what
%%% a run loads before its first job (`erlperf_cli_vm:preload/0': the compiler, what
%%% compiling needs of stdlib, erlperf's own run modules) and halts. Every runner is
%%% compiled, so no run starts faster. {@link erlperf_bench} packs it into an escript and
%%% times it beside a bare VM and `./erlperf 'ok.' -l 1'.
-module(erlperf_bench_preload).

%% API: the escript's entry point.
-export([main/1]).

%% @doc Loads what a run loads and halts with status 0.
-spec main([string()]) -> no_return().
main(_Args) ->
    ok = erlperf_cli_vm:preload(),
    erlang:halt(0).
