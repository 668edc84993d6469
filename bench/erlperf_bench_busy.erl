%%% @doc Verdicts on a busy host (`make bench-busy', and part of `make bench'): suite runs
%%% of unchanged code compared with the previous run while the host's load changes
%%% between them, as it does on shared CI runners and laptops, and planted changes
%%% found under that load. Each run is a whole `./erlperf --suite' command (a fresh VM)
%%% into a store in a temporary directory, under `--fail-on-regression ?GATE'.
%%%
%%% Load: one busy loop per logical processor (`sh -c "while :; do :; done"'), started
%%% before a "busy" run and stopped after it.
%%%
%%% The figures:
%%% <ul>
%%%   <li><b>unchanged</b>: ?RUNS runs of the suite below, alternately quiet and busy,
%%%       each compared with the one before (?RUNS - 1 load changes, a verdict per
%%%       benchmark each): how many are called regressed, improved, inconclusive or no
%%%       change (and how many of those by the same code: erlperf_fingerprint), how many
%%%       runs exit 3, and how many exact counts changed; and what the time alone said.
%%%       Goal: none regressed, no exit 3, no count changed.</li>
%%%   <li><b>planted 2x</b>: ?PLANTED_2X trials of a quiet run, then a busy run of a
%%%       copy whose `usort' does the work twice. Goal: regressed, exit 3.</li>
%%%   <li><b>planted allocation</b>: ?PLANTED_TRIALS trials of a quiet run, then a busy
%%%       run of a copy whose `alloc' builds a tuple 25% larger. Goal: the exact counts
%%%       say regressed (bytes per call) every time.</li>
%%%   <li><b>3% more work</b>: ?PLANTED_TRIALS trials of a quiet run, then a busy run of
%%%       a copy whose `countdown' counts 2060 steps instead of 2000. Goal: the exact
%%%       counts say regressed (reductions per call) every time.</li>
%%% </ul>
%%% Cost: about ?RUNS + 2 x (?PLANTED_2X + 2 x ?PLANTED_TRIALS) suite runs of a few
%%% seconds; nothing else should run meanwhile (the busy loops are the load).
-module(erlperf_bench_busy).

%% API: `make bench' and `make bench-busy'
-export([main/0]).
%% API: the busy loops, for the other benches that measure under load
-export([busy_loops/0, stop_loop/1]).

%% Unchanged runs (the first starts the store; each later one is a load change).
-define(RUNS, 7).
-define(PLANTED_2X, 2).
-define(PLANTED_TRIALS, 5).
%% The gate's percentage.
-define(GATE, "10").
%% The benchmarks of the suite, by name.
-define(BENCHMARKS, ["usort", "countdown", "alloc", "sleep"]).
%% How a verdict the same code decided begins (erlperf_baseline's same-code rule).
-define(SAME_CODE, "the same code (its fingerprint unchanged").

%% The suite; each planted copy replaces one line of it.
-define(SUITE,
"-module(busy_bench).
-behaviour(erlperf_suite).
-export([benchmarks/0, input/0, usort/1, countdown/0, alloc/0, sleep/0]).

benchmarks() ->
    Quick = #{samples => 10, sample_duration => 100},
    [#{name => \"usort\", runner => usort, init_runner => input, options => Quick},
     #{name => \"countdown\", runner => countdown, options => Quick},
     #{name => \"alloc\", runner => alloc, options => Quick},
     #{name => \"sleep\", runner => sleep, options => Quick}].

input() ->
    Rand = rand:seed_s(exsss, 42),
    {List, _} = lists:mapfoldl(fun (_, S) -> rand:uniform_s(S) end, Rand, lists:seq(1, 1000)),
    List.

usort(List) ->
    lists:usort(List).

countdown() ->
    count(2000).

count(0) -> ok;
count(N) -> count(N - 1).

alloc() ->
    erlang:make_tuple(size(), a).

size() -> 100.

sleep() ->
    timer:sleep(1).
").

%%--------------------------------------------------------------------
%% API

%% @doc Runs every figure and prints it.
-spec main() -> ok.
main() ->
    T0 = erlang:monotonic_time(millisecond),
    Tmp = filename:join(erlperf_system:temp_dir(), "erlperf-bench-busy-" ++ os:getpid()),
    try
        Base = write(Tmp, "base", []),
        unchanged(Tmp, Base),
        planted(Tmp, Base, "2x slowdown of usort", "usort", ?PLANTED_2X,
                [{"    lists:usort(List).", "    _ = lists:usort(List),\n    lists:usort(List)."}]),
        planted(Tmp, Base, "tuple 25% larger in alloc", "alloc", ?PLANTED_TRIALS,
                [{"size() -> 100.", "size() -> 125."}]),
        planted(Tmp, Base, "3% more work in countdown (2060 steps, not 2000)", "countdown",
                ?PLANTED_TRIALS, [{"    count(2000).", "    count(2060)."}])
    after
        _ = file:del_dir_r(Tmp)
    end,
    io:format("busy host elapsed: ~.1f s~n", [(erlang:monotonic_time(millisecond) - T0) / 1000]).

%%--------------------------------------------------------------------
%% Figures

unchanged(Tmp, Base) ->
    Store = filename:join(Tmp, "unchanged"),
    Runs = [suite(Store, Base, I rem 2 =:= 1) || I <- lists:seq(0, ?RUNS - 1)],
    [_First | Compared] = Runs,
    Verdicts = [V || {_, Out} <- Compared, V <- verdicts(Out)],
    Time = [W || {_, time, W, _} <- Verdicts],
    Alone = [alone(W, L) || {_, time, W, L} <- Verdicts],
    Counts = [W || {_, count, W, _} <- Verdicts],
    io:format("busy host, unchanged code: ~b runs alternately quiet and busy (~b load changes), "
              "~b verdicts: ~b regressed, ~b improved, ~b inconclusive, ~b no change (~b of them "
              "by the same code); ~b of ~b runs exit 3 under --fail-on-regression ~s; exact counts "
              "changed: ~b (goal: none regressed, no exit 3, no count changed)~n"
              "  what the time alone said: ~b regressed, ~b improved, ~b inconclusive, ~b no change~n",
              [?RUNS, ?RUNS - 1, length(Time), count(regressed, Time), count(improved, Time),
               count(inconclusive, Time), count(no_change, Time),
               length([L || {_, time, _, L} <- Verdicts, string:find(L, ?SAME_CODE) =/= nomatch]),
               length([S || {3, _} = S <- Compared]), length(Compared), ?GATE, length(Counts),
               count(regressed, Alone), count(improved, Alone), count(inconclusive, Alone),
               count(no_change, Alone)]),
    _ = [io:format("  run ~b (~s): ~ts~n", [I, load(I), summary(Out)])
         || {I, {_, Out}} <- lists:zip(lists:seq(1, length(Compared)), Compared)],
    ok.

planted(Tmp, Base, What, Name, Trials, Replacements) ->
    Planted = write(Tmp, "planted-" ++ Name, Replacements),
    Outs = [begin
                Store = filename:join(Tmp, io_lib:format("planted-~s-~b", [Name, I])),
                {0, _} = suite(Store, Base, false),
                suite(Store, Planted, true)
            end || I <- lists:seq(1, Trials)],
    Found = [[W || {N, Kind, W, _} <- verdicts(Out), N =:= Name, W =:= regressed, Kind =:= K]
             || {_, Out} <- Outs, K <- [time, count]],
    ByKind = lists:zip(lists:append([[time, count] || _ <- Outs]), Found),
    io:format("busy host, planted ~ts under load: ~b of ~b found by time, ~b of ~b by exact counts, "
              "~b of ~b exit 3~n",
              [What, length([x || {time, [_ | _]} <- ByKind]), Trials,
               length([x || {count, [_ | _]} <- ByKind]), Trials,
               length([S || {3, _} = S <- Outs]), Trials]),
    _ = [io:format("  trial ~b: ~ts~n", [I, summary(Out)])
         || {I, {_, Out}} <- lists:zip(lists:seq(1, length(Outs)), Outs)],
    ok.

%%--------------------------------------------------------------------
%% Helpers

load(I) when I rem 2 =:= 1 -> "busy";
load(_) -> "quiet".

write(Tmp, Name, Replacements) ->
    Text = lists:foldl(fun ({From, To}, Acc) ->
                               New = string:replace(Acc, From, To),
                               true = New =/= Acc,
                               lists:flatten(New)
                       end, ?SUITE, Replacements),
    File = filename:join([Tmp, Name, "busy_bench.erl"]),
    ok = filelib:ensure_dir(File),
    ok = file:write_file(File, Text),
    File.

%% A suite run, with one busy loop per logical processor when Busy.
suite(Store, File, Busy) ->
    Loops = case Busy of
                true -> busy_loops();
                false -> []
            end,
    try
        erlperf_bench_suites:escript(["--suite", File, "--store", Store, "--fail-on-regression", ?GATE])
    after
        _ = [stop_loop(L) || L <- Loops]
    end.

busy_loops() ->
    N = case erlang:system_info(logical_processors_available) of
            unknown -> erlang:system_info(logical_processors);
            Available -> Available
        end,
    [open_port({spawn_executable, "/bin/sh"},
               [{args, ["-c", "echo $$; exec sh -c 'while :; do :; done'"]}, binary, exit_status])
     || _ <- lists:seq(1, N)].

stop_loop(Port) ->
    receive
        {Port, {data, Pid}} -> _ = os:cmd("kill " ++ string:trim(binary_to_list(Pid)))
    after 5000 -> ok
    end,
    receive {Port, {exit_status, _}} -> ok after 5000 -> ok end.

%% The verdict lines of a suite run: {Benchmark, time | count, Word, Line}.
verdicts(Out) ->
    [{Name, kind(Rest), word(Word), Line}
     || Line <- string:split(Out, "\n", all),
        {match, [Name, Word, Rest]} <- [re:run(Line, "^([a-z]+): (regressed|improved|no change|inconclusive): (.*)$",
                                               [{capture, all_but_first, list}, unicode])],
        lists:member(Name, ?BENCHMARKS)].

kind(Rest) ->
    case string:find(Rest, " per call") of
        nomatch -> time;
        _ -> count
    end.

word("regressed") -> regressed;
word("improved") -> improved;
word("no change") -> no_change;
word("inconclusive") -> inconclusive.

%% What the time alone said of a verdict the same code decided (the line keeps it).
alone(Word, Line) ->
    case {string:find(Line, ?SAME_CODE), string:find(Line, "its time moved, not by the code: ")} of
        {nomatch, _} -> Word;
        {_, nomatch} ->
            case string:find(Line, "its time alone agrees") of
                nomatch -> inconclusive;
                _ -> no_change
            end;
        {_, Moved} ->
            case re:run(Moved, "% (slower|faster)", [{capture, all_but_first, list}]) of
                {match, ["slower"]} -> regressed;
                _ -> improved
            end
    end.

count(Word, Words) ->
    length([W || W <- Words, W =:= Word]).

%% Each verdict of a run in short: "usort regressed -48.1% (CPU time), alloc bytes +25.0%".
summary(Out) ->
    lists:join(", ", [[Name, " ", atom_to_list(W), short(Kind, Line)] || {Name, Kind, W, Line} <- verdicts(Out)]).

short(count, Line) ->
    case re:run(Line, "([0-9.]+ -> [0-9.]+ [a-z]+) per call", [{capture, all_but_first, list}]) of
        {match, [Text]} -> [" ", Text];
        nomatch -> ""
    end;
short(time, Line) ->
    Change = case re:run(Line, "([0-9.]+)% (slower|faster)", [{capture, all_but_first, list}]) of
                 {match, [N, "slower"]} -> [" -", N, "%"];
                 {match, [N, "faster"]} -> [" +", N, "%"];
                 nomatch -> ""
             end,
    Figure = case {string:find(Line, "CPU time"), string:find(Line, "reference workload")} of
                 {nomatch, nomatch} -> "";
                 {nomatch, _} -> " (reference)";
                 _ -> " (CPU)"
             end,
    Same = case string:find(Line, ?SAME_CODE) of
               nomatch -> "";
               _ -> " (same code)"
           end,
    Load = case re:run(Line, "\\(load ([0-9]+)%, then ([0-9]+)%\\)",
                       [{capture, all_but_first, list}]) of
               {match, [A, B]} -> [" (load ", A, "% -> ", B, "%)"];
               nomatch -> ""
           end,
    [Change, Figure, Load, Same].
