%%% @doc `rebar3 erlperf' and erlperf as a rebar3 dependency, in real rebar3 projects made
%%% under the suite's `priv_dir' (the skeleton is in the data directory: an application
%%% `my_app' and a suite file `bench/my_bench.erl').
%%%
%%% erlperf reaches a project as a user's local copy does: the repository's `src/' and
%%% `rebar.config' copied to the project's `_checkouts/erlperf' (no network, no `.git'
%%% needed), or, when git is installed, as a git repository made from that copy. rebar3
%%% runs with a `HOME' and a cache of its own under `priv_dir', without colours.
%%%
%%% <ul>
%%%   <li><b>plugin</b> (`{plugins, [erlperf]}'): a plain benchmark of the project's
%%%       compiled code exits 0; then the suite files (the `suite' group, which needs the
%%%       suite feature: `erlperf_suite'): a first run, a second one compared with it, and
%%%       a planted slowdown that `--fail-on-regression 20' turns into exit 3.</li>
%%%   <li><b>dependency</b> (`{deps, [erlperf]}'): `rebar3 compile' builds it, and
%%%       `erlperf:run/2' runs on the code path `rebar3 path' gives.</li>
%%%   <li><b>git</b>: erlperf as a plugin and a dependency from a `file://' git URL.</li>
%%% </ul>
%%% Skipped, saying why, without rebar3 (and the git case without git).
-module(erlperf_rebar3_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1,
         init_per_group/2, end_per_group/2]).
-export([plain_run/0, plain_run/1, first_run/0, first_run/1, second_run/0, second_run/1,
         regression/0, regression/1, dependency/0, dependency/1, git/0, git/1]).

%% Longest one rebar3 command may take (the first compiles erlperf).
-define(REBAR3_TIMEOUT_MS, 120000).
%% Environment variables of this node that would change what rebar3 does in the project.
-define(UNSET, ["ERL_LIBS", "ERL_FLAGS", "ERL_AFLAGS", "ERL_ZFLAGS", "REBAR_PROFILE",
                "REBAR_CONFIG", "REBAR_BASE_DIR", "REBAR_GLOBAL_CONFIG_DIR", "DEBUG",
                "DIAGNOSTIC", "QUIET"]).

suite() ->
    [{timetrap, {minutes, 4}}].

all() ->
    [{group, plugin}, dependency, git].

%% The plugin's cases share one project, in order: each run is compared with the one
%% before.
groups() ->
    [{plugin, [sequence], [plain_run, {group, suite}]},
     {suite, [sequence], [first_run, second_run, regression]}].

init_per_suite(Config) ->
    case os:find_executable("rebar3") of
        false ->
            {skip, "no rebar3 on this machine (apt-get install rebar3)"};
        Rebar3 ->
            Home = filename:join(?config(priv_dir, Config), "home"),
            ok = filelib:ensure_dir(filename:join(Home, "x")),
            [{rebar3, Rebar3}, {home, Home} | Config]
    end.

end_per_suite(_Config) ->
    ok.

init_per_group(plugin, Config) ->
    [{project, project(Config, "plugin", "{plugins, [erlperf]}.\n")} | Config];
init_per_group(suite, Config) ->
    case code:which(erlperf_suite) of
        non_existing -> {skip, "no suite files in this erlperf (erlperf_suite is not built)"};
        _ -> Config
    end.

end_per_group(_Group, _Config) ->
    ok.

%%--------------------------------------------------------------------
%% Cases

plain_run() ->
    [{doc, "rebar3 erlperf -- CODE: a plain benchmark of the project's compiled code, exit 0"}].
plain_run(Config) ->
    {0, Out} = rebar3(Config, ["erlperf", "--", "5050 = my_app:work().", "-s", "2", "-d", "100"]),
    ?assertNotEqual(nomatch, string:find(Out, "5050 = my_app:work().")).

first_run() ->
    [{doc, "rebar3 erlperf runs the suite files of bench/ and stores the run in _build/erlperf"}].
first_run(Config) ->
    {0, _} = rebar3(Config, ["erlperf"]),
    ?assert(filelib:is_dir(filename:join(?config(project, Config), "_build/erlperf"))).

second_run() ->
    [{doc, "A second run is compared with the first: a line says how, against the previous run "
           "(inconclusive too: the host's load may change between the runs)"}].
second_run(Config) ->
    {0, Out} = rebar3(Config, ["erlperf"]),
    Lines = [L || L <- string:split(Out, "\n", all),
                  string:find(L, "against the previous run") =/= nomatch],
    ?assertNotEqual([], Lines),
    [?assert(lists:any(fun (Word) -> string:find(L, Word) =/= nomatch end,
                       ["regressed", "improved", "no change", "inconclusive"]), L) || L <- Lines].

regression() ->
    [{doc, "my_app waiting fifteen times as long: --fail-on-regression 20 exits 3"}].
regression(Config) ->
    Project = ?config(project, Config),
    {ok, _} = file:copy(filename:join(?config(data_dir, Config), "slower_my_app.erl"),
                        filename:join(Project, "src/my_app.erl")),
    %% compiled again whatever the files' times say
    ok = file:delete(filename:join(Project, "_build/default/lib/my_app/ebin/my_app.beam")),
    {3, Out} = rebar3(Config, ["erlperf", "--fail-on-regression", "20"]),
    ?assertNotEqual(nomatch, string:find(Out, "regressed")).

dependency() ->
    [{doc, "erlperf as a dependency: rebar3 compile, then erlperf:run/2 on rebar3 path's code path"}].
dependency(Config) ->
    Project = project(Config, "dependency", "{deps, [erlperf]}.\n"),
    Dep = [{project, Project} | Config],
    {0, _} = rebar3(Dep, ["compile"]),
    qps_on_path(Dep).

git() ->
    [{doc, "erlperf as a plugin and a dependency from a file:// git repository"}].
git(Config) ->
    case os:find_executable("git") of
        false ->
            {skip, "no git on this machine (apt-get install git)"};
        Git ->
            Repo = git_repository(Config, Git),
            Source = "{git, \"file://" ++ Repo ++ "\", {branch, \"main\"}}",
            Project = skeleton(Config, "git", "{deps, [{erlperf, " ++ Source ++ "}]}.\n"
                                              "{plugins, [{erlperf, " ++ Source ++ "}]}.\n"),
            WithGit = [{project, Project} | Config],
            {0, _} = rebar3(WithGit, ["erlperf", "--", "5050 = my_app:work().", "-s", "2", "-d", "100"]),
            qps_on_path(WithGit)
    end.

%%--------------------------------------------------------------------
%% Internal functions

%% A project named Name: the skeleton with erlperf in _checkouts.
project(Config, Name, RebarConfig) ->
    Dir = skeleton(Config, Name, RebarConfig),
    ok = copy_erlperf(filename:join(Dir, "_checkouts/erlperf")),
    Dir.

%% A project named Name: the data directory's skeleton and the rebar.config given.
skeleton(Config, Name, RebarConfig) ->
    Dir = filename:join(?config(priv_dir, Config), Name),
    ok = copy_tree(filename:join(?config(data_dir, Config), "project"), Dir),
    ok = file:write_file(filename:join(Dir, "rebar.config"), RebarConfig),
    Dir.

%% What rebar3 needs of erlperf to build it: its sources and rebar.config.
copy_erlperf(To) ->
    Root = erlperf_test_lib:root(),
    ok = copy_tree(filename:join(Root, "src"), filename:join(To, "src")),
    {ok, _} = file:copy(filename:join(Root, "rebar.config"), filename:join(To, "rebar.config")),
    ok.

copy_tree(From, To) ->
    Files = [F || F <- filelib:wildcard("**", From), filelib:is_regular(filename:join(From, F))],
    lists:foreach(fun (F) ->
                          Target = filename:join(To, F),
                          ok = filelib:ensure_dir(Target),
                          {ok, _} = file:copy(filename:join(From, F), Target)
                  end, Files).

%% A git repository of erlperf's copy, on a branch named main.
git_repository(Config, Git) ->
    Repo = filename:join(?config(priv_dir, Config), "erlperf.git"),
    ok = copy_erlperf(Repo),
    Env = [{"GIT_AUTHOR_NAME", "t"}, {"GIT_AUTHOR_EMAIL", "t@localhost"},
           {"GIT_COMMITTER_NAME", "t"}, {"GIT_COMMITTER_EMAIL", "t@localhost"},
           {"HOME", ?config(home, Config)}],
    [{0, _} = command(Git, Args, Repo, Env)
     || Args <- [["init", "-q"], ["checkout", "-q", "-b", "main"], ["add", "-A"],
                 ["commit", "-q", "-m", "erlperf"]]],
    Repo.

%% erlperf:run/2 of the project's my_app:work/0, in a fresh VM on the code path that
%% `QUIET=1 rebar3 path' prints, as doc/rebar3.md's recipe takes it (all its output:
%% a plugin compiled on the way prints nothing else): a positive QPS.
qps_on_path(Config) ->
    {0, Out} = rebar3(Config, ["path"], [{"QUIET", "1"}]),
    [Line] = string:lexemes(Out, "\n"),
    Paths = string:lexemes(Line, " "),
    Erl = filename:join([code:root_dir(), "bin", "erl"]),
    Eval = "io:format(\"qps ~p~n\", [erlperf:run({my_app, work, []}, "
           "#{samples => 2, sample_duration => 100})]), halt(0).",
    {0, Printed} = command(Erl, ["-noshell", "-pa" | Paths] ++ ["-eval", Eval],
                           ?config(project, Config), []),
    {match, [Qps]} = re:run(Printed, "qps ([0-9]+)", [{capture, all_but_first, list}]),
    ?assert(list_to_integer(Qps) > 0).

%% rebar3 with Args in the project; returns its exit status and output.
rebar3(Config, Args) ->
    rebar3(Config, Args, []).

rebar3(Config, Args, Extra) ->
    Home = ?config(home, Config),
    Env = [{"HOME", Home}, {"REBAR_CACHE_DIR", filename:join(Home, ".cache/rebar3")},
           {"REBAR_COLOR", "none"} | [{Name, false} || Name <- ?UNSET, not lists:keymember(Name, 1, Extra)]]
        ++ Extra,
    command(?config(rebar3, Config), Args, ?config(project, Config), Env).

command(Executable, Args, Dir, Env) ->
    Port = open_port({spawn_executable, Executable},
                     [exit_status, stderr_to_stdout, binary, {cd, Dir}, {args, Args}, {env, Env}]),
    {Status, Out} = collect(Port, []),
    ct:log("~ts ~p (in ~ts)~n~ts~nexit ~b", [Executable, Args, Dir, Out, Status]),
    {Status, Out}.

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Data | Acc]);
        {Port, {exit_status, Status}} -> {Status, unicode:characters_to_list(lists:reverse(Acc))}
    after ?REBAR3_TIMEOUT_MS ->
        {os_pid, Pid} = erlang:port_info(Port, os_pid),
        _ = os:cmd("kill -9 " ++ integer_to_list(Pid)),
        error({timeout, unicode:characters_to_list(lists:reverse(Acc))})
    end.
