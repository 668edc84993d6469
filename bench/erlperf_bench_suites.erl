%%% @doc Suite runs compared with the previous run (`make bench-suites', and part of
%%% `make bench'): how often unchanged code is called regressed, and how often a
%%% planted 2x slowdown is caught. Each run is a whole `./erlperf --suite' command (a
%%% fresh VM, the suite compiled again, so code placement changes from run to run as it
%%% does between a project's commits) into a fresh store in a temporary directory.
%%%
%%% The figures:
%%% <ul>
%%%   <li><b>unchanged</b>: ?RUNS runs of the example suite's sort benchmark
%%%       (`examples/sort_bench.erl', `--filter ^lists:sort/1'), each compared with the
%%%       one before: how many are called regressed, improved or no change, and how many
%%%       fail `--fail-on-regression ?GATE'. Goal: none regressed.</li>
%%%   <li><b>planted</b>: ?PLANTED_TRIALS trials of a run of the example, then a run of
%%%       a copy whose sort does the work twice: how many are called regressed and exit
%%%       3 under `--fail-on-regression ?GATE'. Goal: every one.</li>
%%% </ul>
%%% Cost: about 2 seconds per run, (?RUNS + 1) + 2 x ?PLANTED_TRIALS runs; nothing else
%%% should run meanwhile.
-module(erlperf_bench_suites).

%% API: `make bench' and `make bench-suites'
-export([main/0]).
%% Shared with erlperf_bench_busy: a whole ./erlperf command and what it printed.
-export([escript/1, collect/2]).

%% Unchanged runs compared with the one before (one more run starts the store).
-define(RUNS, 10).
-define(PLANTED_TRIALS, 5).
%% The gate's percentage.
-define(GATE, "20").
-define(FILTER, "^lists:sort/1").
%% How long one escript run may take (milliseconds).
-define(RUN_TIMEOUT_MS, 120000).

%%--------------------------------------------------------------------
%% API

%% @doc Runs both figures and prints them.
-spec main() -> ok.
main() ->
    T0 = erlang:monotonic_time(millisecond),
    Tmp = filename:join(erlperf_system:temp_dir(), "erlperf-bench-suites-" ++ os:getpid()),
    try
        unchanged(filename:join(Tmp, "unchanged")),
        planted(Tmp)
    after
        _ = file:del_dir_r(Tmp)
    end,
    io:format("suites elapsed: ~.1f s~n", [(erlang:monotonic_time(millisecond) - T0) / 1000]).

%%--------------------------------------------------------------------
%% Figures

unchanged(Store) ->
    {0, _} = suite(Store, example(), []),
    Outs = [suite(Store, example(), ["--fail-on-regression", ?GATE]) || _ <- lists:seq(1, ?RUNS)],
    Words = [word(Out) || {_, Out} <- Outs],
    io:format("suites, unchanged code: ~b runs each against the one before: ~b regressed, ~b improved, "
              "~b inconclusive, ~b no change; ~b exit 3 under --fail-on-regression ~s (goal: none regressed)~n"
              "  changes: ~ts~n",
              [?RUNS, count(regressed, Words), count(improved, Words), count(inconclusive, Words),
               count(no_change, Words),
               length([S || {3, _} = S <- Outs]), ?GATE, changes(Outs)]).

planted(Tmp) ->
    Slow = planted_copy(Tmp),
    Trials = [begin
                  Store = filename:join(Tmp, "planted" ++ integer_to_list(I)),
                  {0, _} = suite(Store, example(), []),
                  suite(Store, Slow, ["--fail-on-regression", ?GATE])
              end || I <- lists:seq(1, ?PLANTED_TRIALS)],
    io:format("suites, planted 2x slowdown: ~b of ~b called regressed, ~b of ~b exit 3 "
              "(goal: all)~n  changes: ~ts~n",
              [count(regressed, [word(O) || {_, O} <- Trials]), ?PLANTED_TRIALS,
               length([S || {3, _} = S <- Trials]), ?PLANTED_TRIALS, changes(Trials)]).

%%--------------------------------------------------------------------
%% Helpers

example() ->
    filename:absname("examples/sort_bench.erl").

planted_copy(Tmp) ->
    {ok, Src} = file:read_file(example()),
    Slow = binary:replace(Src, <<"sort(List) ->\n    lists:sort(List).">>,
                          <<"sort(List) ->\n    _ = lists:sort(List),\n    lists:sort(List).">>),
    true = Slow =/= Src,
    File = filename:join([Tmp, "planted", "sort_bench.erl"]),
    ok = filelib:ensure_dir(File),
    ok = file:write_file(File, Slow),
    File.

suite(Store, File, Extra) ->
    escript(["--suite", File, "--filter", ?FILTER, "--store", Store | Extra]).

%% @doc Runs `./erlperf Args' and returns its exit status and output (stdout and stderr).
-spec escript([string()]) -> {non_neg_integer(), string()}.
escript(Args) ->
    Port = open_port({spawn_executable, filename:absname("erlperf")},
                     [{args, Args}, exit_status, binary, stderr_to_stdout]),
    collect(Port, []).

%% @doc A port's exit status and output, once it has ended.
-spec collect(port(), [binary()]) -> {non_neg_integer(), string()}.
collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Data | Acc]);
        {Port, {exit_status, Status}} -> {Status, unicode:characters_to_list(lists:reverse(Acc))}
    after ?RUN_TIMEOUT_MS ->
        error({timeout, lists:reverse(Acc)})
    end.

word(Out) ->
    case [W || {Text, W} <- [{": regressed: ", regressed}, {": improved: ", improved},
                             {": no change: ", no_change}, {": inconclusive: ", inconclusive}],
                           string:find(Out, Text) =/= nomatch] of
        [W | _] -> W;
        [] -> error({no_verdict, Out})
    end.

count(Word, Words) ->
    length([W || W <- Words, W =:= Word]).

%% The change each run's verdict line gives ("-3.1%", or "~" when none is significant).
changes(Outs) ->
    lists:join(", ", [case re:run(Out, "([0-9.]+)% (slower|faster)", [{capture, all_but_first, list}]) of
                          {match, [N, "slower"]} -> "-" ++ N ++ "%";
                          {match, [N, "faster"]} -> "+" ++ N ++ "%";
                          nomatch -> "~"
                      end || {_, Out} <- Outs]).
