%%% `--suite ... --against REV' through the real escript, in real git repositories made
%%% here: an unchanged revision and one that does the work twice, a rebar3 project whose
%%% code differs between the versions, what cannot work (outside a repository, an unknown
%%% revision, a revision whose suite does not compile, no git, options that cannot go
%%% together), a benchmark new in the working tree, a run in this node, and SIGTERM.
%%% After every run: the exit status and its lines, `git worktree list' shows the main
%%% tree only, the temporary directory is empty, no process is left in the worktree or
%%% the repository, epmd knows no new name, and nothing was stored.
-module(erlperf_against_SUITE).

-include_lib("stdlib/include/assert.hrl").
-include_lib("common_test/include/ct.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1, init_per_testcase/2,
         end_per_testcase/2]).
-export([unchanged/0, unchanged/1, twice/0, twice/1, rebar3_project/0, rebar3_project/1,
         outside_repository/0, outside_repository/1, unknown_revision/0, unknown_revision/1,
         not_compiling/0, not_compiling/1, new_benchmark/0, new_benchmark/1, no_git/0, no_git/1,
         crashing/0, crashing/1, sweep/0, sweep/1,
         usage/0, usage/1, in_this_node/0, in_this_node/1, sigterm/0, sigterm/1, killed/0, killed/1]).

%% Longest a run of the escript may take (a loaded CI machine builds and boots slowly).
-define(RUN_TIMEOUT_MS, 300000).
%% How long what a run started may take to go once it ended.
-define(GONE_MS, 30000).
%% Short samples: 10 forks of 2 samples of 50 ms for each version.
-define(QUICK, ["-d", "50", "-s", "20"]).
%% Who commits in the repositories made here.
-define(GIT_USER, ["-c", "user.name=erlperf", "-c", "user.email=erlperf@example.com",
                   "-c", "commit.gpgsign=false"]).

suite() ->
    [{timetrap, {minutes, 15}}].

all() ->
    [{group, timing}, {group, edges}, in_this_node, sigterm, killed].

%% The timing cases one at a time (they measure); the others at once.
groups() ->
    [{timing, [], [unchanged, twice, rebar3_project]},
     {edges, [parallel], [outside_repository, unknown_revision, not_compiling, new_benchmark,
                          crashing, sweep, no_git, usage]}].

init_per_suite(Config) ->
    case os:find_executable("git") of
        false -> {skip, "git is not on the PATH"};
        _ -> erlperf_test_lib:with_escript(Config)
    end.

end_per_suite(_Config) ->
    ok.

%% Each case: its directory, with `repo' (a git repository with a suite file), `tmp'
%% (the runs' TMPDIR) and what epmd knew before.
init_per_testcase(Case, Config) ->
    Dir = filename:join(?config(priv_dir, Config), atom_to_list(Case)),
    Repo = filename:join(Dir, "repo"),
    Tmp = filename:join(Dir, "tmp"),
    [ok = filelib:ensure_dir(filename:join(D, "x")) || D <- [Repo, Tmp]],
    [{dir, Dir}, {repo, Repo}, {tmp, Tmp}, {epmd, epmd_names()} | Config].

end_per_testcase(_Case, _Config) ->
    ok.

%%--------------------------------------------------------------------
%% Measuring both versions

unchanged() ->
    [{doc, "A revision with the same code: every benchmark compared with it, none regressed, "
           "no change by the same code (both versions' fingerprints), exit 0 under "
           "--fail-on-regression 20; nothing stored"}].
unchanged(Config) ->
    Sha = repository(Config, [{"bench/work_bench.erl", suite(["count(20000)"])}]),
    commit(Config, [], "unchanged"),
    #{status := Status, out := Out, err := Err} =
        against(Config, ["HEAD~1", "--fail-on-regression", "20" | ?QUICK]),
    ?assertEqual(0, Status, {Out, Err}),
    ?assertMatch([_], verdicts("countdown", Sha, Out), Out),
    ?assertEqual(0, count("regressed", Out ++ Err), {Out, Err}),
    ?assertEqual(1, count("countdown: no change: the same code (its fingerprint unchanged, no exact "
                          "count changed)", Out), Out),
    ?assertNot(filelib:is_dir(filename:join(?config(repo, Config), "_build"))),
    clean(Config).

twice() ->
    [{doc, "The benchmark doing its work twice: regressed against HEAD~1, exit 3 with "
           "--fail-on-regression 20; the JSON record is the current version's with its "
           "verdict against the revision"}].
twice(Config) ->
    Sha = repository(Config, [{"bench/work_bench.erl", suite(["count(20000)"])}]),
    commit(Config, [{"bench/work_bench.erl", suite(["count(20000)", "count(20000)"])}], "twice"),
    Json = filename:join(?config(dir, Config), "out.json"),
    #{status := Status, out := Out, err := Err} =
        against(Config, ["HEAD~1", "--fail-on-regression", "20", "-o", Json | ?QUICK]),
    ?assertEqual(3, Status, {Out, Err}),
    ?assertNotEqual(nomatch, string:find(Out, "countdown: regressed: "), Out),
    %% twice the work: twice the reductions a call, whatever the host's load did to the
    %% time (on a loaded machine the time's verdict may be inconclusive, and a fork may
    %% count a reduction more: 20003.1 on average)
    ?assertMatch({match, _}, re:run(Out, "countdown: regressed: 2000[3-4](\\.[0-9])? -> 4000[5-6](\\.[0-9])? "
                                         "reductions per call"), Out),
    ?assertNotEqual(nomatch, string:find(Err, "erlperf: regression: countdown "), Err),
    {ok, Bin} = file:read_file(Json),
    {ok, #{<<"runs">> := [Run]}} = erlperf_json:decode(Bin),
    Source = list_to_binary("HEAD~1 (" ++ Sha ++ ")"),
    ?assertMatch(#{<<"label">> := <<"countdown">>, <<"forks">> := #{<<"sizes">> := [2, 2, 2, 2, 2, 2, 2, 2, 2, 2]},
                   <<"baselines">> := [#{<<"file">> := Source, <<"match">> := <<"label">>,
                                         <<"counts">> := [_, #{<<"count">> := <<"reductions_per_iteration">>,
                                                               <<"verdict">> := <<"regressed">>}]}]},
                 Run),
    clean(Config).

rebar3_project() ->
    [{doc, "A rebar3 project: the revision is compiled in its worktree and its node runs its "
           "own code (the project's module doing the work once), the current node the working "
           "tree's (twice): regressed, and twice the reductions per call"}].
rebar3_project(Config) ->
    case os:find_executable("rebar3") of
        false ->
            {skip, "rebar3 is not on the PATH"};
        _ ->
            Repo = ?config(repo, Config),
            Sha = repository(Config, [{"rebar.config", "{erl_opts, [debug_info]}.\n"},
                                      {".gitignore", "_build\n"},
                                      {"src/myapp.app.src",
                                       "{application, myapp, [{vsn, \"1.0.0\"}, {modules, []},\n"
                                       "  {applications, [kernel, stdlib]}]}.\n"},
                                      {"src/myapp.erl", app_module(["count(20000)"])},
                                      {"bench/myapp_bench.erl",
                                       "-module(myapp_bench).\n-behaviour(erlperf_suite).\n"
                                       "-export([benchmarks/0]).\n"
                                       "benchmarks() -> [#{name => \"work\", runner => {myapp, work, []}}].\n"}]),
            commit(Config, [{"src/myapp.erl", app_module(["count(20000)", "count(20000)"])}], "twice"),
            {0, _} = command(os:find_executable("rebar3"), ["compile"], Repo, []),
            #{status := Status, out := Out, err := Err} =
                against(Config, ["HEAD~1", "--fail-on-regression", "20" | ?QUICK]),
            ?assertEqual(3, Status, {Out, Err}),
            ?assertNotEqual(nomatch, string:find(Out, "work: regressed: "), Out),
            %% each node ran its own version of myapp: twice the reductions per call
            ?assertMatch({match, _}, re:run(Out, "20003(\\.0)? -> 40005(\\.0)? reductions per call"), Out),
            ?assertNotEqual(nomatch, string:find(Out, "against HEAD~1 (" ++ Sha ++ ")"), Out),
            clean(Config)
    end.

%%--------------------------------------------------------------------
%% What cannot work: one line, its exit status, nothing left

outside_repository() ->
    [{doc, "Outside a git repository: exit 2, one line"}].
outside_repository(Config) ->
    Outside = filename:join(?config(dir, Config), "outside"),
    Bench = filename:join(Outside, "bench/work_bench.erl"),
    ok = filelib:ensure_dir(Bench),
    ok = file:write_file(Bench, suite(["count(20000)"])),
    #{status := Status, out := Out, err := Err} = run(Config, Outside, ["--suite", "bench", "--against", "HEAD~1"], []),
    ?assertEqual({2, ""}, {Status, Out}),
    ?assertEqual(["erlperf: --against: " ++ Outside ++ " is not in a git repository"], lines(Err)),
    clean(Config).

unknown_revision() ->
    [{doc, "A revision git does not know: exit 2, one line"}].
unknown_revision(Config) ->
    _ = repository(Config, [{"bench/work_bench.erl", suite(["count(20000)"])}]),
    #{status := Status, out := Out, err := Err} = against(Config, ["no-such-branch"]),
    ?assertEqual({2, ""}, {Status, Out}),
    ?assertEqual(["erlperf: --against no-such-branch: no such revision in this repository"], lines(Err)),
    clean(Config).

not_compiling() ->
    [{doc, "A revision whose suite file does not compile: exit 1, one line naming the revision, "
           "the file and the line"}].
not_compiling(Config) ->
    Sha = repository(Config, [{"bench/work_bench.erl", suite(["count(20000)"]) ++ "broken(\n"}]),
    commit(Config, [{"bench/work_bench.erl", suite(["count(20000)"])}], "fixed"),
    #{status := Status, out := Out, err := Err} = against(Config, ["HEAD~1" | ?QUICK]),
    ?assertEqual({1, ""}, {Status, Out}),
    [Line] = lines(Err),
    ?assert(lists:prefix("erlperf: --against HEAD~1 (" ++ Sha ++ "): suite bench/work_bench.erl "
                         "does not compile: work_bench.erl:", Line), Line),
    clean(Config).

new_benchmark() ->
    [{doc, "A benchmark the revision does not have (of the same code as one it has): one line "
           "says so, it gets no verdict, the other is compared; exit 0"}].
new_benchmark(Config) ->
    Sha = repository(Config, [{"bench/work_bench.erl", suite(["count(20000)"])}]),
    commit(Config, [{"bench/work_bench.erl", suite(["count(20000)"], ["countdown", "again"])}], "again"),
    #{status := Status, out := Out, err := Err} = against(Config, ["HEAD~1" | ?QUICK]),
    ?assertEqual(0, Status, {Out, Err}),
    ?assertEqual(["erlperf: again: not in HEAD~1, nothing to compare with"], lines(Err)),
    ?assertMatch([_], verdicts("countdown", Sha, Out), Out),
    ?assertEqual(1, count("against HEAD~1 (", Out), Out),
    ?assertEqual([], verdicts("again", Sha, Out), Out),
    clean(Config).

crashing() ->
    [{doc, "A benchmark crashing in the revision: one line naming it and the revision, exit 1; "
           "the other benchmark is still compared"}].
crashing(Config) ->
    Suite = fun (Boom) ->
                    "-module(crash_bench).\n-behaviour(erlperf_suite).\n-export([benchmarks/0, boom/0, fine/0]).\n"
                    "benchmarks() -> [#{name => \"boom\", runner => boom}, #{name => \"fine\", runner => fine}].\n"
                    "boom() -> " ++ Boom ++ ".\nfine() -> ok.\n"
            end,
    Sha = repository(Config, [{"bench/crash_bench.erl", Suite("erlang:error(kaput)")}]),
    commit(Config, [{"bench/crash_bench.erl", Suite("ok")}], "fixed"),
    #{status := Status, out := Out, err := Err} = against(Config, ["HEAD~1" | ?QUICK]),
    ?assertEqual(1, Status, {Out, Err}),
    [Line] = lines(Err),
    ?assert(lists:prefix("erlperf: boom in HEAD~1 (" ++ Sha ++ "): runner crashed: error:kaput", Line), Line),
    ?assertMatch([_], verdicts("fine", Sha, Out), Out),
    ?assertEqual([], verdicts("boom", Sha, Out), Out),
    clean(Config).

sweep() ->
    [{doc, "A sweep: each combination compared with the revision's, and one the revision does "
           "not have said so on stderr"}].
sweep(Config) ->
    Suite = fun (Values) ->
                    lists:flatten(io_lib:format("-module(seq_bench).\n-behaviour(erlperf_suite).\n-export([benchmarks/0]).\n"
                                                "benchmarks() -> [#{name => \"seq\", runner => \"lists:seq(1, N).\", "
                                                "params => #{'N' => ~w}}].\n", [Values]))
            end,
    Sha = repository(Config, [{"bench/seq_bench.erl", Suite([100])}]),
    commit(Config, [{"bench/seq_bench.erl", Suite([100, 1000])}], "more"),
    #{status := Status, out := Out, err := Err} = against(Config, ["HEAD~1" | ?QUICK]),
    ?assertEqual(0, Status, {Out, Err}),
    ?assertEqual(["erlperf: seq (N=1000): not in HEAD~1, nothing to compare with"], lines(Err)),
    ?assertMatch([_], verdicts("seq (N=100)", Sha, Out), Out),
    ?assertEqual([], verdicts("seq (N=1000)", Sha, Out), Out),
    clean(Config).

no_git() ->
    [{doc, "No git on the PATH: exit 2, one line"}].
no_git(Config) ->
    _ = repository(Config, [{"bench/work_bench.erl", suite(["count(20000)"])}]),
    Path = path_without_git(?config(dir, Config)),
    #{status := Status, out := Out, err := Err} = against(Config, ["HEAD"], [{"PATH", Path}]),
    ?assertEqual({2, ""}, {Status, Out}),
    ?assertEqual(["erlperf: --against needs git, and there is no git on the PATH"], lines(Err)),
    clean(Config).

usage() ->
    [{doc, "--against without --suite, with a stored baseline, with the store, or with what "
           "reads as an option: usage errors (exit 2, one line), before anything runs"}].
usage(Config) ->
    _ = repository(Config, [{"bench/work_bench.erl", suite(["count(20000)"])}]),
    Repo = ?config(repo, Config),
    Cases = [{["ok.", "--against", "HEAD"], "erlperf: --against needs --suite"},
             {["--suite", "bench", "--against", "HEAD", "--baseline", "v1"],
              "erlperf: --against and --baseline cannot be combined"},
             {["--suite", "bench", "--against", "HEAD", "--save-baseline", "v1"],
              "erlperf: --against and --save-baseline cannot be combined"},
             {["--suite", "bench", "--against", "HEAD", "--store", "s"],
              "erlperf: --against and --store cannot be combined"},
             {["--suite", "bench", "--against", "--filter"],
              "erlperf: --against: '--filter' is not a git revision"}],
    [begin
         #{status := Status, out := Out, err := Err} = run(Config, Repo, Args, []),
         ?assertEqual({2, ""}, {Status, Out}),
         [Line] = lines(Err),
         ?assert(lists:prefix(Expected, Line), {Line, Expected})
     end || {Args, Expected} <- Cases],
    clean(Config).

%%--------------------------------------------------------------------
%% In this node; SIGTERM

in_this_node() ->
    [{doc, "erlperf_cli:run/1 in this node (as rebar3 erlperf and mix erlperf run it): exit 0, "
           "and afterwards no suite module and nothing of the repository or the worktree is "
           "loaded here, and SIGTERM is OTP's again"}].
in_this_node(Config) ->
    Repo = ?config(repo, Config),
    Tmp = ?config(tmp, Config),
    _ = repository(Config, [{"bench/work_bench.erl", suite(["count(20000)"])}]),
    commit(Config, [], "unchanged"),
    {ok, Cwd} = file:get_cwd(),
    OldTmp = os:getenv("TMPDIR"),
    Status = try
                 ok = file:set_cwd(Repo),
                 true = os:putenv("TMPDIR", Tmp),
                 erlperf_cli:run(["--suite", "bench", "--against", "HEAD~1" | ?QUICK])
             after
                 ok = file:set_cwd(Cwd),
                 true = case OldTmp of
                            false -> os:unsetenv("TMPDIR");
                            _ -> os:putenv("TMPDIR", OldTmp)
                        end
             end,
    ?assertEqual(0, Status),
    ?assertEqual(false, code:is_loaded(work_bench)),
    ?assertEqual([], [{M, F} || {M, F} <- code:all_loaded(), is_list(F),
                                lists:prefix(Repo, F) orelse lists:prefix(Tmp, F)]),
    ?assertNot(lists:member(erlperf_signal, gen_event:which_handlers(erl_signal_server))),
    clean(Config).

sigterm() ->
    [{doc, "SIGTERM while both versions are measured: exit 143, one line, and the worktree, "
           "the version nodes and every process the run started are gone"}].
sigterm(Config) ->
    {Port, Started} = measuring(Config),
    {os_pid, Pid} = erlang:port_info(Port, os_pid),
    [] = os:cmd("kill -TERM " ++ integer_to_list(Pid)),
    #{status := Status, out := Out, err := Err} = finish(Port, ?config(dir, Config)),
    ?assertEqual({143, ""}, {Status, Out}),
    ?assertEqual(["erlperf: stopped by SIGTERM before the run finished"], lines(Err)),
    ?assert(erlperf_test_lib:wait_for(fun () -> [] =:= [P || P <- Started, alive(P)] end, ?GONE_MS, 100),
            [P || P <- Started, alive(P)]),
    clean(Config).

killed() ->
    [{doc, "kill -9 while both versions are measured (as Ctrl-C ends an escript, at once): the "
           "watchdog removes the worktree, and the version nodes go with their connections"}].
killed(Config) ->
    {Port, Started} = measuring(Config),
    {os_pid, Pid} = erlang:port_info(Port, os_pid),
    [] = os:cmd("kill -KILL " ++ integer_to_list(Pid)),
    #{status := Status} = finish(Port, ?config(dir, Config)),
    ?assertEqual(128 + 9, Status),
    %% the watchdog works after the VM ended: wait for it
    Repo = ?config(repo, Config),
    Tmp = ?config(tmp, Config),
    Gone = fun () -> {ok, []} =:= file:list_dir(Tmp) andalso
                         {0, 1} =:= (fun ({S, W}) -> {S, length(lines(W))} end)(git(Repo, ["worktree", "list"]))
           end,
    ?assert(erlperf_test_lib:wait_for(Gone, ?GONE_MS, 100), {file:list_dir(Tmp), git(Repo, ["worktree", "list"])}),
    ?assert(erlperf_test_lib:wait_for(fun () -> [] =:= [P || P <- Started, alive(P)] end, ?GONE_MS, 100),
            [P || P <- Started, alive(P)]),
    clean(Config).

%% A run measuring (the benchmark's init, in a version node, left its mark) with the
%% worktree made: its port, and the OS processes it started.
measuring(Config) ->
    Mark = filename:join(?config(dir, Config), "measuring"),
    _ = repository(Config, [{"bench/work_bench.erl", suite(["count(20000)"], ["countdown"], Mark)}]),
    commit(Config, [], "unchanged"),
    Port = start(Config, ?config(repo, Config), ["--suite", "bench", "--against", "HEAD~1", "-d", "1000", "-s", "40"], []),
    {os_pid, Pid} = erlang:port_info(Port, os_pid),
    true = erlperf_test_lib:wait_for(fun () -> filelib:is_regular(Mark) end, ?RUN_TIMEOUT_MS, 50),
    ?assertMatch([_], filelib:wildcard(filename:join(?config(tmp, Config), "erlperf-against-*"))),
    Started = descendants(Pid),
    ?assert(length(Started) >= 3, Started),   % two version nodes and the watchdog at least
    {Port, Started}.

%%--------------------------------------------------------------------
%% Repositories and suites

%% A suite whose benchmarks (named Names) count down as the calls say, each call one
%% line of countdown/0; with Mark, the benchmarks' init writes that file.
suite(Calls) ->
    suite(Calls, ["countdown"]).

suite(Calls, Names) ->
    suite(Calls, Names, none).

suite(Calls, Names, Mark) ->
    Init = case Mark of
               none -> "";
               _ -> io_lib:format(", init => ~0p", [lists:flatten(io_lib:format("file:write_file(~0p, <<>>).", [Mark]))])
           end,
    lists:flatten(
      ["-module(work_bench).\n-behaviour(erlperf_suite).\n-export([benchmarks/0, countdown/0]).\n",
       "benchmarks() -> [", lists:join(", ", [io_lib:format("#{name => ~0p, runner => countdown~s}", [N, Init])
                                              || N <- Names]), "].\n",
       "countdown() -> ", lists:join(", ", Calls), ".\n",
       "count(0) -> ok;\ncount(N) -> count(N - 1).\n"]).

app_module(Calls) ->
    lists:flatten(["-module(myapp).\n-export([work/0]).\n",
                   "work() -> ", lists:join(", ", Calls), ".\n",
                   "count(0) -> ok;\ncount(N) -> count(N - 1).\n"]).

%% A repository in the case's `repo' with the files, committed: the commit's short SHA.
repository(Config, Files) ->
    Repo = ?config(repo, Config),
    {0, _} = git(Repo, ["init", "-q"]),
    commit(Config, Files, "first"),
    {0, Sha} = git(Repo, ["rev-parse", "--short=7", "HEAD"]),
    string:trim(Sha).

%% The files written and committed (none: an empty commit).
commit(Config, Files, Message) ->
    Repo = ?config(repo, Config),
    [begin
         File = filename:join(Repo, Name),
         ok = filelib:ensure_dir(File),
         ok = file:write_file(File, Text)
     end || {Name, Text} <- Files],
    {0, _} = git(Repo, ["add", "-A"]),
    {0, _} = git(Repo, ?GIT_USER ++ ["commit", "-q", "--allow-empty", "-m", Message]),
    ok.

git(Repo, Args) ->
    command(os:find_executable("git"), ["-C", Repo | Args], Repo, []).

command(Exe, Args, Dir, Env) ->
    Port = open_port({spawn_executable, Exe}, [exit_status, binary, stderr_to_stdout, {cd, Dir},
                                               {args, Args}, {env, Env}]),
    collect(Port, []).

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Data | Acc]);
        {Port, {exit_status, Status}} -> {Status, unicode:characters_to_list(lists:reverse(Acc))}
    after ?RUN_TIMEOUT_MS ->
        error({timeout, lists:reverse(Acc)})
    end.

%% A PATH with every command of this one but git (each directory holding git is
%% replaced by one of links to its other commands).
path_without_git(Dir) ->
    Shadow = filename:join(Dir, "nogit"),
    Dirs = string:lexemes(os:getenv("PATH"), ":"),
    Path = [case filelib:is_file(filename:join(D, "git")) of
                false -> D;
                true ->
                    Copy = filename:join(Shadow, integer_to_list(I)),
                    ok = filelib:ensure_dir(filename:join(Copy, "x")),
                    {ok, Names} = file:list_dir(D),
                    [ok = file:make_symlink(filename:join(D, N), filename:join(Copy, N))
                     || N <- Names, N =/= "git", not filelib:is_file(filename:join(Copy, N))],
                    Copy
            end || {I, D} <- lists:zip(lists:seq(1, length(Dirs)), Dirs)],
    false = lists:any(fun (D) -> filelib:is_file(filename:join(D, "git")) end, Path),
    lists:flatten(lists:join(":", Path)).

%%--------------------------------------------------------------------
%% Running the escript

%% `--suite bench --against ARGS' in the repository.
against(Config, Args) ->
    against(Config, Args, []).

against(Config, Args, Env) ->
    run(Config, ?config(repo, Config), ["--suite", "bench", "--against" | Args], Env).

run(Config, Cwd, Args, Env) ->
    finish(start(Config, Cwd, Args, Env), ?config(dir, Config)).

%% The escript in Cwd, its TMPDIR the case's; git looks for no repository above the
%% case's directory (the test logs are inside erlperf's own). Stdout and stderr go to
%% files of the case's directory.
start(Config, Cwd, Args, Env) ->
    Dir = ?config(dir, Config),
    Script = "exec \"$0\" \"$@\" >'" ++ filename:join(Dir, ".stdout") ++ "' 2>'" ++ filename:join(Dir, ".stderr") ++ "'",
    ct:log("erlperf ~p in ~ts", [Args, Cwd]),
    open_port({spawn_executable, "/bin/sh"},
              [exit_status, binary, {cd, Cwd}, {args, ["-c", Script, ?config(escript, Config) | Args]},
               {env, erlperf_test_lib:escript_env([{"TMPDIR", ?config(tmp, Config)},
                                                   {"GIT_CEILING_DIRECTORIES", Dir} | Env])}]).

finish(Port, Dir) ->
    Status = receive {Port, {exit_status, S}} -> S
             after ?RUN_TIMEOUT_MS -> error(timeout)
             end,
    {ok, Out} = file:read_file(filename:join(Dir, ".stdout")),
    {ok, Err} = file:read_file(filename:join(Dir, ".stderr")),
    ct:log("exit ~b~nstdout:~n~ts~nstderr:~n~ts", [Status, Out, Err]),
    [?assertEqual(nomatch, binary:match(Err, Trace), Trace)
     || Trace <- [<<"in function">>, <<"in call from">>, <<"{badarg">>, <<"function_clause">>]],
    #{status => Status, out => unicode:characters_to_list(Out), err => unicode:characters_to_list(Err)}.

%%--------------------------------------------------------------------
%% Nothing left

%% The main tree is the repository's only worktree, the temporary directory is empty,
%% no process has its current directory in the repository or the temporary directory
%% (a version node has: Linux's /proc tells), and epmd knows the names it knew.
clean(Config) ->
    Repo = ?config(repo, Config),
    Tmp = ?config(tmp, Config),
    _ = [begin
             {0, Worktrees} = git(Repo, ["worktree", "list"]),
             ?assertEqual(1, length(lines(Worktrees)), Worktrees)
         end || filelib:is_dir(filename:join(Repo, ".git"))],
    ?assertEqual({ok, []}, file:list_dir(Tmp)),
    ?assert(erlperf_test_lib:wait_for(fun () -> [] =:= in_dirs([Repo, Tmp]) end, ?GONE_MS, 100),
            in_dirs([Repo, Tmp])),
    ?assertEqual(?config(epmd, Config), epmd_names()).

%% OS processes whose current directory is in one of Dirs.
in_dirs(Dirs) ->
    [{P, Cwd} || P <- filelib:wildcard("/proc/[0-9]*"),
                 {ok, Cwd} <- [file:read_link(filename:join(P, "cwd"))],
                 lists:any(fun (D) -> Cwd =:= D orelse lists:prefix(D ++ "/", Cwd) end, Dirs)].

epmd_names() ->
    case erl_epmd:names() of
        {ok, Names} -> lists:sort(Names);
        {error, _} -> none
    end.

%% The OS processes under Pid, children first.
descendants(Pid) ->
    Children = [list_to_integer(C) || C <- string:lexemes(os:cmd("pgrep -P " ++ integer_to_list(Pid)), "\n")],
    lists:append([[C | descendants(C)] || C <- Children]).

alive(Pid) ->
    filelib:is_dir("/proc/" ++ integer_to_list(Pid)).

lines(Text) ->
    string:lexemes(Text, "\n").

%% The verdict lines of a benchmark against HEAD~1 (its short SHA).
verdicts(Name, Sha, Out) ->
    [L || L <- lines(Out), lists:prefix(Name ++ ": ", L),
          string:find(L, " against HEAD~1 (" ++ Sha ++ ")") =/= nomatch].

count(Text, Out) ->
    length(string:split(Out, Text, all)) - 1.
