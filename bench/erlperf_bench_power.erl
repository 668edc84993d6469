%%% @doc The power of verdicts measured until decided (`make bench-power', and part of
%%% `make bench'): how often a known change in time alone is found, and how often
%%% identical code is called different or "no change", on this host, quiet and with one
%%% busy loop per logical processor through the run.
%%%
%%% The change in time alone: `crypto:hash(sha256, B)' of a binary of so many 64-byte
%%% blocks, a NIF whose reductions per call and bytes per call do not change between these
%%% sizes (the exact counts cannot see it). 34 blocks against 33 is 3.0% more work, 21
%%% against 20 is 5.0% (the time per call grows a little less: the call itself costs
%%% something).
%%%
%%% The figures, each over ?TRIALS runs of the real escript (a fresh VM each):
%%% <ul>
%%%   <li><b>one run</b>: two runners, no `-s' (measured until decided, 30 s at most):
%%%       33 against 34 blocks (found: "slower"), and 33 against 33 (a false alarm: any
%%%       significant verdict; "no difference": none).</li>
%%%   <li><b>against</b>: `--suite bench --against HEAD --fail-on-regression 3' in a git
%%%       repository of one suite that gives no options: the working tree at 21 blocks
%%%       against HEAD at 20 (found: "regressed", exit 3), and unchanged (a false alarm:
%%%       "regressed" or exit 3; "no change" counted, and how many of those the same
%%%       code decided, erlperf_fingerprint: the change shown after "=" is what the time
%%%       alone said).</li>
%%% </ul>
%%% Cost: about 4 x ?TRIALS x 2 runs of 20 to 50 s (about 25 minutes with 5 trials);
%%% nothing else should run meanwhile.
-module(erlperf_bench_power).

%% API: `make bench' and `make bench-power'
-export([main/0, main/1, main/2]).

-define(TRIALS, 5).
%% The gate of the runs against a revision, percent.
-define(GATE, "3").

-define(SUITE,
"-module(sha_bench).
-behaviour(erlperf_suite).
-export([benchmarks/0, input/0, sha/1]).

benchmarks() ->
    [#{name => \"sha\", runner => sha, init_runner => input}].

input() ->
    binary:copy(<<1>>, blocks() * 64 - 9).

blocks() -> ~b.

sha(B) ->
    crypto:hash(sha256, B).
").

%%--------------------------------------------------------------------
%% API

%% @doc ?TRIALS trials of each figure, quiet then busy.
-spec main() -> ok.
main() ->
    main(?TRIALS).

%% @doc `Trials' trials of each figure, quiet then busy.
-spec main(pos_integer()) -> ok.
main(Trials) ->
    main(Trials, [quiet, busy]).

%% @doc `Trials' trials of each figure, under each load given (`quiet', `busy').
-spec main(pos_integer(), [quiet | busy]) -> ok.
main(Trials, Loads) ->
    io:format("~nVerdicts measured until decided (~b trials each; a change in time alone: "
              "sha256 of more 64-byte blocks):~n", [Trials]),
    Erlperf = filename:absname("erlperf"),
    Repo = repository(),
    try
        _ = [figures(Erlperf, Repo, Trials, Load) || Load <- Loads],
        ok
    after
        _ = file:del_dir_r(Repo)
    end.

%%--------------------------------------------------------------------
%% Internal functions

figures(Erlperf, Repo, Trials, Load) ->
    Sha = fun (Blocks) -> ["runner(B) -> crypto:hash(sha256, B).", "--init_runner",
                           lists:flatten(io_lib:format("binary:copy(<<1>>, ~b).", [Blocks * 64 - 9]))]
          end,
    OneRun = fun (A, B) -> loaded(Load, fun () -> run(Erlperf, Sha(A) ++ Sha(B), ".") end) end,
    Against = fun (Blocks) ->
                      ok = file:write_file(filename:join([Repo, "bench", "sha_bench.erl"]),
                                           io_lib:format(?SUITE, [Blocks])),
                      loaded(Load, fun () ->
                                           run(Erlperf, ["--suite", "bench", "--against", "HEAD",
                                                         "--fail-on-regression", ?GATE], Repo)
                                   end)
              end,
    show(Load, "one run, 34 against 33 blocks (+3.0%)", found,
         [in_run(OneRun(33, 34)) || _ <- lists:seq(1, Trials)]),
    show(Load, "one run, identical", identical, [in_run(OneRun(33, 33)) || _ <- lists:seq(1, Trials)]),
    show(Load, "--against, 21 against 20 blocks (+5.0%)", found,
         [against(Against(21)) || _ <- lists:seq(1, Trials)]),
    show(Load, "--against, unchanged", identical, [against(Against(20)) || _ <- lists:seq(1, Trials)]).

%% A git repository of the suite at 20 blocks, committed.
repository() ->
    Dir = filename:join(erlperf_system:temp_dir(), "erlperf-bench-power-" ++ os:getpid()),
    ok = filelib:ensure_dir(filename:join([Dir, "bench", "x"])),
    ok = file:write_file(filename:join([Dir, "bench", "sha_bench.erl"]), io_lib:format(?SUITE, [20])),
    Git = "git -C " ++ Dir ++ " -c user.email=bench@erlperf -c user.name=bench ",
    _ = os:cmd(Git ++ "init -q . && " ++ Git ++ "add -A && " ++ Git ++ "commit -qm base"),
    Dir.

loaded(quiet, Fun) ->
    Fun();
loaded(busy, Fun) ->
    Loops = erlperf_bench_busy:busy_loops(),
    try Fun()
    after _ = [erlperf_bench_busy:stop_loop(L) || L <- Loops]
    end.

%% {Status, Output, Seconds}
run(Erlperf, Args, Dir) ->
    Started = erlang:monotonic_time(millisecond),
    Port = open_port({spawn_executable, Erlperf}, [{args, Args}, {cd, Dir}, exit_status, binary,
                                                   stderr_to_stdout]),
    {Status, Out} = erlperf_bench_suites:collect(Port, []),
    {Status, Out, (erlang:monotonic_time(millisecond) - Started) / 1000}.

%% {Word, Change, Seconds, Decided, Status}: the verdict of two runners of one run.
in_run({Status, Out, Seconds}) ->
    Word = case re:run(Out, " against [^\n]*: ([0-9.]+)% (slower|faster) \\(",
                       [{capture, all_but_first, list}]) of
               {match, [_, W]} -> list_to_atom(W);
               nomatch -> no_difference
           end,
    {Word, change(Out), Seconds, decided(Out), Status}.

%% The same of a suite run against a revision.
against({Status, Out, Seconds}) ->
    Word = case re:run(Out, "^sha: (regressed|improved|no change|inconclusive): ",
                       [multiline, {capture, all_but_first, list}]) of
               {match, ["regressed"]} -> slower;
               {match, ["improved"]} -> faster;
               {match, ["no change"]} -> no_difference;
               {match, ["inconclusive"]} -> inconclusive;
               nomatch -> error({no_verdict, Out})
           end,
    %% "=" marks a verdict the same code decided (its change: what the time alone said)
    Same = case string:find(Out, "the same code (its fingerprint unchanged") of
               nomatch -> "";
               _ -> "="
           end,
    {Word, Same ++ change(Out), Seconds, decided(Out), Status}.

%% How many verdicts the same code decided (erlperf_fingerprint), when any did.
same_code(Results) ->
    case length([C || {_, "=" ++ _ = C, _, _, _} <- Results]) of
        0 -> "";
        Same -> io_lib:format(" (~b by the same code)", [Same])
    end.

change(Out) ->
    case re:run(Out, "([0-9.]+)% (slower|faster) \\(", [{capture, all_but_first, list}]) of
        {match, [N, "slower"]} -> "-" ++ N ++ "%";
        {match, [N, "faster"]} -> "+" ++ N ++ "%";
        nomatch -> "~"
    end.

decided(Out) ->
    string:find(Out, "every verdict decided") =/= nomatch.

show(Load, What, Kind, Results) ->
    N = length(Results),
    Count = fun (W) -> length([R || R <- Results, element(1, R) =:= W]) end,
    Times = lists:sort([S || {_, _, S, _, _} <- Results]),
    Decided = length([R || {_, _, _, true, _} = R <- Results]),
    Exits = lists:usort([St || {_, _, _, _, St} <- Results]),
    Head = case Kind of
               found -> io_lib:format("found ~b of ~b", [Count(slower), N]);
               identical -> io_lib:format("called different ~b of ~b, no difference ~b of ~b~ts",
                                          [Count(slower) + Count(faster), N, Count(no_difference), N,
                                           same_code(Results)])
           end,
    io:format("  ~-5s ~-42s ~ts; decided ~b of ~b; ~.1f-~.1f s (median ~.1f); exit ~w; changes: ~ts~n",
              [Load, What, Head, Decided, N, hd(Times), lists:last(Times),
               lists:nth((N + 1) div 2, Times), Exits,
               lists:join(", ", [C || {_, C, _, _, _} <- Results])]).
