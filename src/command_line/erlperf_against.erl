%%% @doc `--suite ... --against REV': the suites' benchmarks measured on the current code
%%% and on git revision REV of the same repository, in the same job, their forks taking
%%% turns, so that what the machine does meanwhile reaches both versions alike; the
%%% revision's record is the baseline the current record is compared with
%%% ({@link erlperf_suite_cli} shows, writes and gates the two as a suite run against a
%%% baseline; the run is not stored).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>current version</b>: the working tree as it is: the suite files as given,
%%%       and the project's code of the current directory ({@link project_dirs/1}),
%%%       compiled beforehand as for any suite run.</li>
%%%   <li><b>revision</b>: REV, any commit git resolves (`HEAD~1', a branch, a tag, a
%%%       SHA), named `HEAD~1 (abc1234)' in verdicts.</li>
%%%   <li><b>worktree</b>: the revision checked out (`git worktree add --detach') under
%%%       the temporary directory, and built there: `rebar3 compile' (or `$REBAR') for a
%%%       rebar3 project, `mix deps.get' and `mix compile' for a Mix project, nothing
%%%       otherwise. The suite paths given, and the current directory, are taken at the
%%%       same place of the worktree.</li>
%%%   <li><b>version node</b>: a peer node per version, with that version's code first
%%%       on its code path and its directory as the current one; its suite files are
%%%       compiled and its benchmarks run there, never in this node.</li>
%%%   <li><b>unit</b>: what is measured as one: a benchmark, or a combination of a
%%%       sweep. Both versions run it with the current version's options, in forks
%%%       that alternate (current, revision; revision, current; ...), at least
%%%       `?MIN_FORKS' each ({@link erlperf_forks}); each version's forks are merged
%%%       into one report.</li>
%%%   <li><b>session</b>: the process that owns the worktree: it runs git and the
%%%       build, and removes the worktree when the run ends or fails, when its caller
%%%       dies, or on SIGTERM (then it halts the VM with status 143).</li>
%%%   <li><b>watchdog</b>: a shell process that removes the worktree when the VM ends
%%%       without the session doing it (Ctrl-C, `kill -9'): it waits on its standard
%%%       input, which closes with the VM, and ignores the terminal's signals.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% $ ./erlperf --suite bench --against HEAD~1 --fail-on-regression 10
%%% '''
%%%
%%% Cost and safety: a `git worktree add', the revision's build (from scratch, as in a
%%% fresh clone: rebar3 fetches and compiles its dependencies), two VM starts (about a
%%% second each), then every benchmark twice. Nothing of either version is loaded into
%%% this VM; the version nodes get erlperf's modules as object code, as isolated runs do
%%% (`erlperf_isolation:object_code/1'), and halt when their control connections
%%% close: when the run ends, when its caller dies, or with this VM. `git worktree list'
%%% shows only the main tree again after the run, whichever way it ended. Unix only (the
%%% watchdog is a `/bin/sh' script).
-module(erlperf_against).

%% API: called by erlperf_suite_cli for `--against'
-export([run/2, format_error/1, outcome/1]).
%% API: where a project's compiled code is (erlperf_suite_cli's suite runs use it too)
-export([project_dirs/1]).

-export_type([reason/0, result/0, options/0]).

-include("model/erlperf_schema.hrl").

%% A benchmark's run options from its own (the suite's) and the command line's.
-type options() :: fun((Own :: map(), Given :: map()) -> map()).
%% The current version's record (`none' when no benchmark ran), the revision's as a
%% named baseline, and whether a benchmark failed (each said on stderr).
-type result() :: #{record := erlperf_record:results() | none,
                    baseline := {string(), erlperf_record:results()},
                    failed := boolean()}.
%% Why the run could not compare the versions.
-type reason() :: no_git
                | {not_a_repository, file:filename()}
                | {unknown_revision, string()}
                | {worktree, string(), binary()}
                | {build_tool, string(), string()}
                | {build, string(), string(), string()}
                | {suite, current | string(), term()}
                | {node, current | string(), term()}.

%% The fewest forks a version gets: as many fork means on each side of the comparison.
-define(MIN_FORKS, 4).
%% Milliseconds a version node gets to boot.
-define(BOOT_TIMEOUT_MS, 30000).
%% Milliseconds a version node gets to load erlperf's modules, or to compile and load the
%% suite files (a loaded CI machine compiles slowly).
-define(LOAD_TIMEOUT_MS, 120000).
%% A fork runs as long as its options say (samples, sample duration): no time limit.
-define(RUN_TIMEOUT, infinity).
%% Milliseconds a turn may take beyond its sample duration (a loaded machine).
-define(TURN_TIMEOUT_MS, 60000).
%% Milliseconds a cleanup command (git worktree remove, prune) may take.
-define(CLEANUP_TIMEOUT_MS, 60000).
%% Milliseconds a killed build, or the watchdog told to stand down, gets to exit.
-define(EXIT_WAIT_MS, 5000).
%% Kernel flag binding Erlang distribution to the loopback interface, should it start.
-define(LOOPBACK_ONLY, ["-kernel", "inet_dist_use_interface", "{127,0,0,1}"]).
%% What the worktrees' directories are named after, in the temporary directory.
-define(WORKTREE_PREFIX, "erlperf-against-").
%% Characters of a short SHA.
-define(SHORT_SHA, 7).
%% The watchdog: $1 git, $2 the repository, $3 the worktree. It ignores the terminal's
%% signals (Ctrl-C reaches the whole process group), waits for its standard input to
%% say "done" or to close, and removes the worktree unless told "done".
-define(WATCHDOG,
        "trap '' INT TERM HUP\n"
        "exec >/dev/null 2>&1\n"
        "read line\n"
        "[ \"$line\" = done ] && exit 0\n"
        "\"$1\" -C \"$2\" worktree remove --force \"$3\"\n"
        "rm -rf \"$3\"\n"
        "\"$1\" -C \"$2\" worktree prune\n").

-record(session, {owner :: pid(),
                  git :: file:filename(),
                  root :: file:filename(),
                  dir :: file:filename() | undefined,
                  watchdog :: port() | undefined}).

%%--------------------------------------------------------------------
%% API

%% @doc Measures the suites' benchmarks of `Parsed' (`suites', `filter', `against',
%% `run_options', `paths') on both versions, each benchmark's options made by
%% `Options'. Benchmarks of one version only are said on stderr, one line each; so is
%% each benchmark that failed. Returns the current record and the revision's, or why
%% the versions could not be compared. Leaves no worktree and no node behind.
-spec run(erlperf_args:parsed(), options()) -> {ok, result()} | {error, reason()}.
run(#{against := Rev} = Parsed, Options) ->
    try
        Git = git_executable(),
        {Root, Prefix} = repository(Git),
        Sha = revision(Git, Root, Rev),
        Source = lists:flatten([Rev, " (", lists:sublist(Sha, ?SHORT_SHA), ")"]),
        Session = start_session(Git, Root),
        try
            Dir = worktree(Session, Sha, Source),
            RevCwd = filename:join(Dir, Prefix),
            RevDirs = build(Session, RevCwd, Source),
            {ok, Cwd} = file:get_cwd(),
            Places = #{current => {project_dirs(Cwd), Cwd, fun (P) -> P end},
                       Source => {RevDirs, RevCwd, fun (P) -> in_worktree(P, Root, Dir) end}},
            measure(Parsed, Options, {Rev, Source}, Root, Places)
        after
            stop_session(Session)
        end
    catch
        throw:{?MODULE, Reason} -> {error, Reason}
    end.

%% @doc The line (without `erlperf: ') saying why the versions could not be compared.
-spec format_error(reason()) -> string().
format_error(no_git) ->
    "--against needs git, and there is no git on the PATH";
format_error({not_a_repository, Dir}) ->
    text("--against: ~ts is not in a git repository", [Dir]);
format_error({unknown_revision, Rev}) ->
    text("--against ~ts: no such revision in this repository", [Rev]);
format_error({worktree, Source, Output}) ->
    text("--against ~ts: git worktree add failed: ~ts", [Source, last_line(Output)]);
format_error({build_tool, Source, Tool}) ->
    text("--against ~ts: cannot build it: no ~ts on the PATH", [Source, Tool]);
format_error({build, Source, Command, Line}) ->
    text("--against ~ts: ~ts failed: ~ts", [Source, Command, Line]);
format_error({suite, current, Reason}) ->
    erlperf_suite:format_error(Reason);
format_error({suite, Source, Reason}) ->
    text("--against ~ts: ~ts", [Source, erlperf_suite:format_error(Reason)]);
format_error({node, current, Reason}) ->
    erlperf_cli_outcome:format_error(Reason);
format_error({node, Source, Reason}) ->
    text("--against ~ts: ~ts", [Source, erlperf_cli_outcome:format_error(Reason)]).

%% @doc The exit status's kind of a reason: what the command line or the current tree
%% must fix is a usage error (as for a suite run); a revision that cannot be built or
%% measured, a failed benchmark.
-spec outcome(reason()) -> erlperf_args:outcome().
outcome({build, _, _, _}) -> benchmark_failed;
outcome({worktree, _, _}) -> benchmark_failed;
outcome({suite, Source, _}) when Source =/= current -> benchmark_failed;
outcome({node, _, _}) -> benchmark_failed;
outcome(_Usage) -> usage.

%% @doc The `ebin' directories of the project at `Dir' (absolute): for a rebar3 project
%% (a `rebar.config' there), those under `_build/default/lib'; for a Mix project
%% (`mix.exs'), those under `_build/dev/lib' and `_build/dev/consolidated'; none
%% otherwise, or when it was not compiled.
-spec project_dirs(file:filename()) -> [file:filename()].
project_dirs(Dir0) ->
    Dir = filename:absname(Dir0),
    Relative = case kind(Dir) of
                   rebar3 -> filelib:wildcard("_build/default/lib/*/ebin", Dir);
                   mix -> ["_build/dev/consolidated" | filelib:wildcard("_build/dev/lib/*/ebin", Dir)];
                   none -> []
               end,
    [D || R <- Relative, D <- [filename:absname(R, Dir)], filelib:is_dir(D)].

%%--------------------------------------------------------------------
%% The repository and the revision

git_executable() ->
    case os:find_executable("git") of
        false -> throw({?MODULE, no_git});
        Git -> Git
    end.

%% The repository's root, and where the current directory is in it ("sub/dir/" or "").
repository(Git) ->
    {ok, Cwd} = file:get_cwd(),
    case command(Git, ["rev-parse", "--show-toplevel", "--show-prefix"], Cwd, drop) of
        {0, Output} ->
            [Root, Prefix | _] = string:split(unicode:characters_to_list(Output), "\n", all),
            {Root, Prefix};
        {_, _} ->
            throw({?MODULE, {not_a_repository, Cwd}})
    end.

%% The full SHA of the commit `Rev' names.
revision(Git, Root, Rev) ->
    case command(Git, ["rev-parse", "--verify", "--quiet", Rev ++ "^{commit}"], Root, drop) of
        {0, Output} -> string:trim(unicode:characters_to_list(Output));
        {_, _} -> throw({?MODULE, {unknown_revision, Rev}})
    end.

%% A suite path as the revision has it: a relative one stays (the revision's node is in
%% the current directory's place of the worktree), an absolute one inside the repository
%% moves into the worktree; a file outside the repository is the same for both.
in_worktree(Path, Root, Dir) ->
    case filename:pathtype(Path) of
        absolute ->
            case lists:prefix(Root ++ "/", Path) of
                true -> filename:join(Dir, lists:nthtail(length(Root) + 1, Path));
                false -> Path
            end;
        _ ->
            Path
    end.

%% The worktree of `Sha', under the temporary directory.
worktree(Session, Sha, Source) ->
    Dir = filename:join(erlperf_system:temp_dir(),
                        lists:concat([?WORKTREE_PREFIX, os:getpid(), "-", erlang:unique_integer([positive])])),
    case call(Session, {worktree, Dir, Sha}) of
        ok -> Dir;
        {error, Output} -> throw({?MODULE, {worktree, Source, Output}})
    end.

%% The revision built in its worktree: its project's code directories.
build(Session, Dir, Source) ->
    case kind(Dir) of
        none -> [];
        Kind ->
            _ = [built(call(Session, {run, Exe, Args, Dir, Env}), Source, Tool, Args)
                 || {Tool, Args, Env} <- build_commands(Kind), Exe <- [tool(Tool, Source)]],
            project_dirs(Dir)
    end.

built({0, _Output}, _Source, _Tool, _Args) ->
    ok;
built({_Status, Output}, Source, Tool, Args) ->
    Command = lists:flatten(lists:join(" ", [filename:basename(Tool) | Args])),
    throw({?MODULE, {build, Source, Command, last_error(Output)}}).

kind(Dir) ->
    case {filelib:is_regular(filename:join(Dir, "rebar.config")), filelib:is_regular(filename:join(Dir, "mix.exs"))} of
        {true, _} -> rebar3;
        {false, true} -> mix;
        {false, false} -> none
    end.

%% rebar3 fetches dependencies as it compiles; Mix needs them fetched first.
build_commands(rebar3) ->
    [{os:getenv("REBAR", "rebar3"), ["compile"], [{"REBAR_COLOR", "none"}]}];
build_commands(mix) ->
    [{"mix", [Task], [{"MIX_ENV", "dev"}]} || Task <- ["deps.get", "compile"]].

%% A build tool: a path as given (relative to the current directory), or a name on the PATH.
tool(Tool, Source) ->
    Found = case lists:member($/, Tool) of
                true -> filelib:is_regular(Tool) andalso filename:absname(Tool);
                false -> os:find_executable(Tool)
            end,
    case Found of
        false -> throw({?MODULE, {build_tool, Source, Tool}});
        Exe -> Exe
    end.

%% The line of a build's output that says what failed: its last line mentioning an
%% error, else its last line.
last_error(Output) ->
    Lines = output_lines(Output),
    case [L || L <- Lines, string:find(string:lowercase(L), "error") =/= nomatch] of
        [] -> last_line(Output);
        Errors -> lists:last(Errors)
    end.

last_line(Output) ->
    case output_lines(Output) of
        [] -> "(no output)";
        Lines -> lists:last(Lines)
    end.

%% The non-blank lines of a command's output, without terminal colours.
output_lines(Output) ->
    Chars = case unicode:characters_to_list(Output) of
                List when is_list(List) -> List;
                _NotUtf8 -> binary_to_list(iolist_to_binary(Output))
            end,
    Text = re:replace(Chars, "\e\\[[0-9;]*m", "", [global, unicode, {return, list}]),
    [string:trim(L) || L <- string:split(Text, "\n", all), string:trim(L) =/= ""].

%%--------------------------------------------------------------------
%% Measuring

measure(#{suites := Paths, filter := Filter, run_options := Given, paths := UserPaths} = Parsed,
        Options, {Rev, Source}, Root, Places) ->
    Extra = [filename:absname(P) || P <- UserPaths] ++ code_paths(Root),
    Modules = erlperf_isolation:object_code([erlperf, erlperf_suite, erlperf_turns, erlperf_fingerprint]),
    with_nodes([current, Source], Places, {Extra, Modules}, #{}, fun (Nodes) ->
        Current = benchmarks(current, Nodes, Paths, Filter),
        Revision = benchmarks(Source, Nodes, Paths, Filter),
        Projects = projects(Nodes),
        Gate = maps:get(gate, Parsed, none),
        Compare = erlperf_cli_outcome:compare_options(Parsed#{gate => Gate}),
        Measured = [{U, fingerprinted(unit(U, Nodes, Source, Options(Own, Given), maps:merge(Own, Given),
                                           Compare), U, Projects, Source)}
                    || #{options := Own} = U <- units(Current, Revision)],
        failed(Measured, Source),
        Result = result(Measured, Source),
        missing(Result, Measured, Current, Revision, Rev),
        Result
    end).

%% Each version's project fingerprint (erlperf_fingerprint), taken in its node once its
%% suites are loaded.
projects(Nodes) ->
    Harness = erlperf_system:version(),
    maps:map(fun (Version, #{peer := Peer}) ->
                     try peer:call(Peer, erlperf_fingerprint, project, [Harness], ?LOAD_TIMEOUT_MS)
                     catch Class:Reason:Stack ->
                             throw({?MODULE, {node, Version, erlperf_cli_outcome:known(Class, Reason, Stack)}})
                     end
             end, Nodes).

%% Each version's report with the fingerprint of the code it ran (after it was measured:
%% whether to measure on is decided by time alone).
fingerprinted({ok, Reports}, #{current := Current, revision := Revision}, Projects, Source) ->
    Codes = [{current, Current} | [{Source, Revision} || Revision =/= none]],
    {ok, [R#{fingerprint => erlperf_fingerprint:benchmark(maps:get(V, Projects), Code)}
          || {R, {V, Code}} <- lists:zip(Reports, Codes)]};
fingerprinted(Error, _Unit, _Projects, _Source) ->
    Error.

%% The code paths of this node a version node needs too (OTP's are its own, and the
%% repository's are each version's): those of `-pa', `ERL_LIBS', Elixir's.
code_paths(Root) ->
    Otp = filename:absname(code:root_dir()) ++ "/",
    [P || P0 <- code:get_path(), P0 =/= ".", P <- [filename:absname(P0)],
          not lists:prefix(Otp, P), not lists:prefix(Root ++ "/", P), filelib:is_dir(P)].

%% The suites' benchmarks, compiled and prepared in the version's node. The revision
%% may not have them (its suite directory or files, a name --filter matches): then it
%% has none, and each benchmark is compared with nothing.
benchmarks(Version, Nodes, Paths, Filter) ->
    #{Version := #{peer := Peer, paths := InVersion, cwd := Cwd}} = Nodes,
    Present = case Version of
                  current -> Paths;
                  _ -> [P || P <- [InVersion(P0) || P0 <- Paths], filelib:is_file(filename:absname(P, Cwd))]
              end,
    Loaded = case Present of
                 [] -> {ok, []};
                 _ -> in_node(Version, Peer, load, [Present])
             end,
    Prepared = case Loaded of
                   {ok, []} -> {ok, []};
                   {ok, Suites} -> in_node(Version, Peer, benchmarks, [Suites, #{filter => Filter}]);
                   {error, _} = Error -> Error
               end,
    case {Version, Prepared} of
        {_, {ok, Benchmarks}} -> Benchmarks;
        {current, {error, Reason}} -> throw({?MODULE, {suite, current, Reason}});
        {_, {error, {suite, Why, _}}} when Why =:= no_suites; Why =:= none_match -> [];
        {_, {error, Reason}} -> throw({?MODULE, {suite, Version, Reason}})
    end.

%% erlperf_suite's function in the version's node; what it raises (a compiler's crash)
%% ends the run, said as a failure of that version.
in_node(Version, Peer, Function, Args) ->
    try peer:call(Peer, erlperf_suite, Function, Args, ?LOAD_TIMEOUT_MS)
    catch Class:Reason:Stack -> throw({?MODULE, {node, Version, erlperf_cli_outcome:known(Class, Reason, Stack)}})
    end.

%% A unit per current benchmark, or per combination of a sweep, each with the
%% revision's code of the same name and combination, or `none'.
units(Current, Revision) ->
    [#{name => Name, params => [{K, [V]} || {K, V} <- Combination], options => Own,
       current => Code, revision => revision_code(Name, Combination, Revision)}
     || #{name := Name, code := Code, params := Params, options := Own} <- Current,
        Combination <- erlperf_sweep:combinations(Params)].

revision_code(Name, Combination, Revision) ->
    case [C || #{name := N, code := C, params := P} <- Revision, N =:= Name,
               lists:member(Combination, erlperf_sweep:combinations(P))] of
        [Code | _] -> Code;
        [] -> none
    end.

%% The unit's forks, alternating between the versions that have it; `{ok, Reports}' (the
%% current version's report first) or `{error, Version, Why}'. erlperf_forks only
%% orders the code maps it is given, and hands them back: here they name the versions.
%% Measured until decided (a `budget'), the forks go on until the verdict the run will
%% show (erlperf_baseline's, with `Compare', its options) is not inconclusive.
unit(Unit, Nodes, Source, Options, Given, Compare) ->
    Tags = [#{runner => "current", label => <<"current">>}
            | [#{runner => "revision", label => <<"revision">>} || maps:get(revision, Unit) =/= none]],
    VersionOf = fun (<<"current">>) -> current; (<<"revision">>) -> Source end,
    Run = fun (Order, ForkOpts) ->
                  forks(Unit, Nodes, [VersionOf(L) || #{label := L} <- Order], ForkOpts)
          end,
    try
        Opts = forked(Options, Given, length(Tags)),
        Stat = maps:with([confidence, noise, run_noise], Opts),
        shown(measured(Tags, Opts, Run, Stat, {Source, Compare}), Stat)
    of
        Reports -> {ok, Reports}
    catch
        throw:{?MODULE, {crashed, Version, Why}} -> {error, Version, Why};
        error:{incompatible_options, _, _, _} = Reason:Stack ->
            {error, current, erlperf_cli_outcome:known(error, Reason, Stack)}
    end.

%% The reports as the run shows them: each with its interval, a sweep's combination as a
%% run of its own.
shown(Reports, Stat) ->
    [swept(R) || R0 <- Reports, [R] <- [erlperf_comparison:annotate([R0], Stat)]].

measured([_, _] = Tags, #{budget := Budget} = Opts, Run, Stat, {Source, Compare})
  when is_integer(Budget) ->
    Decide = fun (Reports, _Looks) ->
                     [Current, Revision] = shown(Reports, Stat),
                     Baseline = by_name(erlperf_record:from_reports([Revision])),
                     Record = erlperf_record:from_reports([Current]),
                     Rows = erlperf_baseline:compare([{Source, Baseline}], Record, Compare),
                     erlperf_gate:decided(Rows, Compare)
             end,
    erlperf_forks:until(Tags, Opts, Run, Decide);
measured(Tags, Opts, Run, _Stat, _Compare) ->
    erlperf_forks:run(Tags, Opts#{budget => undefined}, Run).

%% The forks of verdicts, as a suite run's (erlperf_forks:for_verdicts/2, or --forks),
%% at least ?MIN_FORKS, and a sample per fork at least; or, both `Versions' having it,
%% measured until decided, as erlperf_forks:budget/5 says (`Given': what the suite and
%% the command line gave): the
%% forks of both versions take turns sample by sample, in samples of
%% erlperf_forks:turn_ms/0 unless given.
forked(Options, Given, Versions) ->
    Opts = maps:merge(erlperf:defaults(), Options#{report => full}),
    case erlperf_forks:budget(Versions, Opts, Given, undefined, against) of
        undefined ->
            Forks = max(?MIN_FORKS, case maps:get(forks, Opts) of
                                        auto -> erlperf_forks:for_verdicts(Opts, undefined);
                                        N -> N
                                    end),
            Opts#{forks => Forks, samples => max(Forks, maps:get(samples, Opts)),
                  budget => undefined};
        Budget ->
            Opts#{budget => Budget,
                  sample_duration => maps:get(sample_duration, Given, erlperf_forks:turn_ms())}
    end.

%% A fork of the unit: both versions taking turns sample by sample when both have it and
%% samples are taken for a time, else one version's fork after the other's.
forks(Unit, Nodes, [_, _] = Versions, #{sample_duration := Ms} = ForkOpts) when is_integer(Ms) ->
    turns(Unit, Nodes, Versions, ForkOpts);
forks(Unit, Nodes, Versions, ForkOpts) ->
    [fork(Unit, maps:get(V, Nodes), V, ForkOpts) || V <- Versions].

%% Both versions' runs started, then their turns: round by round, each round in a random
%% order (a fixed one would let anything periodic on the host fall on the same version's
%% turns), each version's warmup samples first; then their reports.
turns(Unit, Nodes, Versions, #{samples := Samples, warmup := Warmup} = ForkOpts) ->
    Runs = [{V, start_run(Unit, maps:get(V, Nodes), V, ForkOpts)} || V <- Versions],
    Rounds = [case rand:uniform(2) of 1 -> Runs; 2 -> lists:reverse(Runs) end
              || _ <- lists:seq(1, Warmup + Samples)],
    _ = [turn(maps:get(V, Nodes), V, Run, ForkOpts) || Round <- Rounds, {V, Run} <- Round],
    [run_result(maps:get(V, Nodes), V, Run) || {V, Run} <- Runs].

start_run(Unit, #{peer := Peer}, Version, ForkOpts) ->
    {F, A} = call_of(Unit, Version, ForkOpts),
    version_call(Peer, Version, erlperf_turns, start, [F, A], ?LOAD_TIMEOUT_MS).

%% A turn takes a sample; a run that ended early (it crashed) says why with its result.
turn(#{peer := Peer} = Node, Version, Run, #{sample_duration := Ms}) ->
    case version_call(Peer, Version, erlperf_turns, turn, [Run], ?TURN_TIMEOUT_MS + Ms) of
        ok -> ok;
        ended -> run_result(Node, Version, Run)
    end.

run_result(#{peer := Peer}, Version, Run) ->
    case version_call(Peer, Version, erlperf_turns, result, [Run], ?LOAD_TIMEOUT_MS) of
        {ok, [Report]} -> Report;
        {error, {Class, Reason, Stack}} ->
            throw({?MODULE, {crashed, Version, erlperf_cli_outcome:known(Class, Reason, Stack)}})
    end.

version_call(Peer, Version, M, F, A, Timeout) ->
    try peer:call(Peer, M, F, A, Timeout)
    catch
        exit:{Reason, {Call, call, _}} when Call =:= gen_statem; Call =:= gen_server ->
            throw({?MODULE, {crashed, Version, {peer_down, Reason}}});
        Class:Reason:Stack ->
            throw({?MODULE, {crashed, Version, erlperf_cli_outcome:known(Class, Reason, Stack)}})
    end.

%% The erlperf call of a fork of the unit in a version's node: a single run (a sweep of
%% one combination).
call_of(#{params := Params} = Unit, Version, ForkOpts) ->
    Code = maps:get(case Version of current -> current; _ -> revision end, Unit),
    Opts = ForkOpts#{forks => 1, budget => undefined},
    case Params of
        [] -> {benchmark, [[Code], Opts, undefined]};
        _ -> {sweep, [[Code], Opts#{params => Params}]}
    end.

%% One fork of the unit in a version's node.
fork(Unit, #{peer := Peer}, Version, ForkOpts) ->
    {F, A} = call_of(Unit, Version, ForkOpts),
    [Report] = version_call(Peer, Version, erlperf, F, A, ?RUN_TIMEOUT),
    Report.

%% A combination's throughput is its forks', not the last fork's; and a unit is one
%% combination, none the best of its sweep.
swept(#{params := _, result := #{qps := Qps}} = Report) ->
    Bytes = case Report of
                #{bytes_processed := B} -> #{bytes_per_second => B * Qps};
                #{} -> #{}
            end,
    maps:merge(maps:remove(best, Report#{qps => Qps}), Bytes);
swept(Report) ->
    Report.

%% Each benchmark that failed: a line on stderr.
failed(Measured, Source) ->
    warn([erlperf_cli_outcome:benchmark_failed(Name, [[" in ", Source] || V =/= current], Why)
          || {#{name := Name}, {error, V, Why}} <- Measured]).

%% Each benchmark (or combination) of one version only: a line on stderr, named as its
%% verdict would have been.
missing({ok, #{record := Record}}, Measured, Current, Revision, Rev) ->
    Runs = case Record of
               none -> [];
               #{?RUNS := Rs} -> Rs
           end,
    Names = [erlperf_record:run_name(R, erlperf_record:param_names(Record)) || R <- Runs],
    Measured1 = [U || {U, {ok, _}} <- Measured],
    Declared = [N || #{name := N} <- Current],
    warn([[erlperf_name:text(Name), ": not in ", Rev, ", nothing to compare with"]
          || {#{revision := none}, Name} <- lists:zip(Measured1, Names)]
         ++ [[erlperf_name:text(Name), ": only in ", Rev, ", not in the working tree"]
             || #{name := Name} <- Revision, not lists:member(Name, Declared)]).

warn(Lines) ->
    _ = [io:put_chars(standard_error, ["erlperf: ", string:replace(L, "\n", " ", all), "\n"]) || L <- Lines],
    ok.

result(Measured, Source) ->
    Pairs = [Reports || {_, {ok, Reports}} <- Measured],
    Record = case [C || [C | _] <- Pairs] of
                 [] -> none;
                 Current -> erlperf_record:from_reports(Current)
             end,
    Baseline = case [R || [_, R] <- Pairs] of
                   [] -> #{?VERSION => erlperf_record:version(), ?RUNS => []};
                   Revision -> by_name(erlperf_record:from_reports(Revision))
               end,
    {ok, #{record => Record, baseline => {Source, Baseline},
           failed => lists:keymember(error, 1, [O || {_, O} <- Measured])}}.

%% The revision's runs match the current ones by name only: without their code, which
%% erlperf_baseline would otherwise pair when no name matches (a benchmark new in the
%% working tree, of the same code as another, has nothing to compare with).
by_name(#{?RUNS := Runs} = Record) ->
    Record#{?RUNS := [maps:remove(?CODE, R) || R <- Runs]}.

%%--------------------------------------------------------------------
%% Version nodes

%% Starts a node per version (its code directories first, then `Extra'), in its
%% directory, with erlperf's modules; runs Fun with them; stops them.
with_nodes([], _Places, _Shipped, Nodes, Fun) ->
    Fun(Nodes);
with_nodes([Version | Rest], Places, {Extra, Modules} = Shipped, Nodes, Fun) ->
    {Dirs, Cwd, InVersion} = maps:get(Version, Places),
    Peer = start_node(Version, Dirs ++ (Extra -- Dirs)),
    try
        prepare_node(Version, Peer, Modules, Cwd),
        with_nodes(Rest, Places, Shipped, Nodes#{Version => #{peer => Peer, cwd => Cwd, paths => InVersion}}, Fun)
    after
        stop_node(Peer)
    end.

start_node(Version, Dirs) ->
    Args = case Dirs of
               [] -> ?LOOPBACK_ONLY;
               _ -> ["-pa" | Dirs] ++ ?LOOPBACK_ONLY
           end,
    case peer:start_link(#{connection => standard_io, wait_boot => ?BOOT_TIMEOUT_MS, args => Args}) of
        {ok, Peer} -> Peer;
        {ok, Peer, _Node} -> Peer;
        {error, Reason} -> throw({?MODULE, {node, Version, {peer_start, Reason}}})
    end.

%% erlperf's modules, the version's directory, and Elixir started when this node runs it
%% (under mix erlperf: Elixir suite files are compiled by Elixir).
prepare_node(Version, Peer, Modules, Cwd) ->
    Triples = [{Module, File, Binary} || {Module, Binary, File} <- Modules],
    case peer:call(Peer, code, atomic_load, [Triples], ?LOAD_TIMEOUT_MS) of
        ok -> ok;
        {error, [{Module, Why} | _]} -> throw({?MODULE, {node, Version, {peer_load, Module, Why}}})
    end,
    ok = peer:call(Peer, file, set_cwd, [Cwd], ?LOAD_TIMEOUT_MS),
    _ = [{ok, _} = peer:call(Peer, application, ensure_all_started, [elixir], ?LOAD_TIMEOUT_MS)
         || lists:keymember(elixir, 1, application:which_applications())],
    ok.

%% The link goes first, so that a caller trapping exits gets no 'EXIT' message from it;
%% the node halts when its control connection closes.
stop_node(Peer) ->
    true = unlink(Peer),
    receive {'EXIT', Peer, _} -> ok after 0 -> ok end,
    try peer:stop(Peer)
    catch exit:_ -> ok   % already gone, and its node with it
    end.

%%--------------------------------------------------------------------
%% The session: git, the build, the worktree's removal

start_session(Git, Root) ->
    Owner = self(),
    Session = spawn(fun () ->
                            _ = monitor(process, Owner),
                            session(#session{owner = Owner, git = Git, root = Root})
                    end),
    {ok, _} = erlperf_signal:install([sigterm], fun (Signal) -> Session ! {signal, Signal} end),
    Session.

%% Gives SIGTERM back to OTP's default handling: the command line is about to end.
stop_session(Session) ->
    ok = call(Session, stop),
    erlperf_signal:uninstall().

call(Session, Request) ->
    Ref = monitor(process, Session),
    Session ! {self(), Ref, Request},
    receive
        {Ref, Reply} ->
            demonitor(Ref, [flush]),
            Reply;
        {'DOWN', Ref, process, Session, Why} ->
            erlang:error({session_down, Why})
    end.

session(#session{owner = Owner} = S) ->
    receive
        {Owner, Ref, stop} ->
            cleanup(S),
            Owner ! {Ref, ok};
        {Owner, Ref, Request} ->
            {Reply, S1} = request(Request, S),
            Owner ! {Ref, Reply},
            session(S1);
        {signal, Signal} ->
            stopped(Signal, S);
        {'DOWN', _, process, Owner, _} ->
            cleanup(S)
    end.

%% The worktree is the session's from before git makes it, and the watchdog's too.
request({worktree, Dir, Sha}, #session{git = Git, root = Root} = S) ->
    Watchdog = open_port({spawn_executable, "/bin/sh"},
                         [{args, ["-c", ?WATCHDOG, "erlperf-against", Git, Root, Dir]},
                          exit_status, binary, hide]),
    S1 = S#session{dir = Dir, watchdog = Watchdog},
    case running(Git, ["-C", Root, "worktree", "add", "--detach", "--quiet", Dir, Sha], Root, [], wait, S1) of
        {0, _} -> {ok, S1};
        {_, Output} -> {{error, Output}, S1}
    end;
request({run, Exe, Args, Cd, Env}, S) ->
    {running(Exe, Args, Cd, Env, kill, S), S}.

%% A command run for the caller. SIGTERM meanwhile kills it (a build), or waits for it
%% to end (git: a worktree half made is harder to remove), then stops the run; the
%% caller's death kills it and cleans up.
running(Exe, Args, Cd, Env, OnSignal, #session{owner = Owner} = S) ->
    Port = spawn_command(Exe, Args, Cd, Env, keep),
    Collect = fun Collect(Acc) ->
                      receive
                          {Port, {data, Data}} -> Collect([Data | Acc]);
                          {Port, {exit_status, Status}} -> {Status, iolist_to_binary(lists:reverse(Acc))};
                          {signal, Signal} when OnSignal =:= kill -> ended(Port), stopped(Signal, S);
                          {signal, Signal} -> _ = collect(Port, [], infinity), stopped(Signal, S);
                          {'DOWN', _, process, Owner, _} -> ended(Port), cleanup(S), exit(normal)
                      end
              end,
    Collect([]).

%% Stopped by a signal: the worktree removed, one line, the signal's exit status.
-spec stopped(erlperf_signal:signal(), #session{}) -> no_return().
stopped(Signal, S) ->
    cleanup(S),
    io:put_chars(standard_error, io_lib:format("erlperf: stopped by ~s before the run finished~n",
                                               [erlperf_signal:name(Signal)])),
    erlang:halt(erlperf_signal:exit_status(Signal)).

cleanup(#session{dir = undefined}) ->
    ok;
cleanup(#session{git = Git, root = Root, dir = Dir, watchdog = Watchdog}) ->
    _ = command(Git, ["-C", Root, "worktree", "remove", "--force", Dir], Root, drop),
    _ = file:del_dir_r(Dir),
    _ = command(Git, ["-C", Root, "worktree", "prune"], Root, drop),
    true = port_command(Watchdog, <<"done\n">>),
    _ = collect(Watchdog, [], ?EXIT_WAIT_MS),
    ok.

%% Kills a command's OS process and waits for it to end.
ended(Port) ->
    _ = [os:cmd("kill -9 " ++ integer_to_list(Pid)) || {os_pid, Pid} <- [erlang:port_info(Port, os_pid)]],
    _ = collect(Port, [], ?EXIT_WAIT_MS),
    ok.

%%--------------------------------------------------------------------
%% Commands

%% Runs a command to its end (or the cleanup's time limit): its exit status and output.
%% `drop': its standard error is thrown away (git's own words for a failed query).
command(Exe, Args, Cd, Stderr) ->
    collect(spawn_command(Exe, Args, Cd, [], Stderr), [], ?CLEANUP_TIMEOUT_MS).

spawn_command(Exe, Args, Cd, Env, keep) ->
    open_port({spawn_executable, Exe}, [{args, Args}, {cd, Cd}, {env, Env}, exit_status, binary,
                                        stderr_to_stdout, hide]);
spawn_command(Exe, Args, Cd, Env, drop) ->
    spawn_command("/bin/sh", ["-c", "exec \"$0\" \"$@\" 2>/dev/null", Exe | Args], Cd, Env, keep).

collect(Port, Acc, Timeout) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Data | Acc], Timeout);
        {Port, {exit_status, Status}} -> {Status, iolist_to_binary(lists:reverse(Acc))}
    after Timeout ->
        _ = try port_close(Port) catch error:badarg -> true end,   % closed already
        {timeout, iolist_to_binary(lists:reverse(Acc))}
    end.

text(Format, Args) ->
    lists:flatten(io_lib:format(Format, Args)).
