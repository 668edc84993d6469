%%% @doc Helpers shared by the test suites: bounded polling, a capturing io device, and the
%%% escript under test (built from the code under test).
-module(erlperf_test_lib).

-export([escript_env/1, wait_for/2, wait_for/3, capture/0, app_without_monitor/1, restore_app/1,
         prop_check/3, prop_forall/2, with_proper/1, root/0, escript_path/0, escript/2, escript/3,
         with_escript/1, build_escript/0, default_sigint/0]).

%% Longest an escript run of escript/2 may take.
-define(ESCRIPT_TIMEOUT_MS, 150000).

%% @doc The repository root (rebar3 runs tests from a copy under _build; its src links
%% back to the repository).
-spec root() -> file:filename().
root() ->
    AppDir = filename:dirname(filename:dirname(code:which(?MODULE))),
    Src = filename:join(AppDir, "src"),
    case file:read_link(Src) of
        {ok, Target} -> filename:dirname(filename:absname(Target, AppDir));
        {error, _} -> AppDir
    end.

%% @doc The escript under test: `$ERLPERF_ESCRIPT' when set, else one built from the
%% code under test (see {@link build_escript/0}) the first time this VM asks for it, so
%% that a plain `rebar3 ct' never runs a stale `./erlperf'.
-spec escript_path() -> file:filename().
escript_path() ->
    case os:getenv("ERLPERF_ESCRIPT") of
        false -> built_escript();
        Path -> Path
    end.

%% @doc A command prefix that runs the command after it with SIGINT's default action (this
%% node may ignore SIGINT, and a child inherits that; a terminal's shell would not): perl,
%% essential in Debian, resets it and execs the rest (the OS pid stays). `[]' without perl.
-spec default_sigint() -> [string()].
default_sigint() ->
    case os:find_executable("perl") of
        false -> [];
        Perl -> [Perl, "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die"]
    end.

%% @doc A suite's config with the escript under test as `escript' (built now unless
%% `$ERLPERF_ESCRIPT' names one), or a skip when `$ERLPERF_ESCRIPT' names no file
%% (suites that run the real escript call this from `init_per_suite/1').
-spec with_escript(list()) -> list() | {skip, string()}.
with_escript(Config) ->
    Escript = escript_path(),
    case filelib:is_regular(Escript) of
        true -> [{escript, Escript} | Config];
        false -> {skip, "no escript at " ++ Escript ++ " (ERLPERF_ESCRIPT)"}
    end.

%% @doc Writes the escript `rebar3 escriptize' would write, from the erlperf application
%% on the code path (the modules of its `.app' file, as compiled for the tests) and the
%% emulator arguments of `rebar.config', to `_build/<profile>/bin/erlperf'; returns its
%% path. Written to a temporary file and renamed, so that a case running the escript
%% meanwhile never sees half of it.
-spec build_escript() -> file:filename().
build_escript() ->
    Ebin = filename:join(code:lib_dir(erlperf), "ebin"),
    _ = application:load(erlperf),   % ok, or already loaded
    {ok, Modules} = application:get_key(erlperf, modules),
    Files = [{filename:join("erlperf/ebin", F), read(filename:join(Ebin, F))}
             || F <- ["erlperf.app" | [atom_to_list(M) ++ ".beam" || M <- Modules]]],
    %% _build/<profile>/lib/erlperf -> _build/<profile>/bin/erlperf
    Path = filename:join([filename:dirname(filename:dirname(code:lib_dir(erlperf))), "bin", "erlperf"]),
    Tmp = Path ++ "." ++ os:getpid() ++ "." ++ integer_to_list(erlang:unique_integer([positive])),
    ok = filelib:ensure_dir(Path),
    ok = escript:create(Tmp, [shebang, {comment, ""}, {emu_args, emu_args()}, {archive, Files, []}]),
    ok = file:change_mode(Tmp, 8#755),
    ok = file:rename(Tmp, Path),
    Path.

%% Built once per VM: the code under test does not change during a test run.
-spec built_escript() -> file:filename().
built_escript() ->
    case persistent_term:get({?MODULE, escript}, undefined) of
        undefined ->
            Path = build_escript(),
            ok = persistent_term:put({?MODULE, escript}, Path),
            Path;
        Path ->
            Path
    end.

%% rebar.config's `escript_emu_args', without its "%%!" and newline.
-spec emu_args() -> string().
emu_args() ->
    {ok, Terms} = file:consult(filename:join(root(), "rebar.config")),
    {escript_emu_args, "%%!" ++ Args} = lists:keyfind(escript_emu_args, 1, Terms),
    string:trim(Args, trailing, "\n").

-spec read(file:filename()) -> binary().
read(File) ->
    {ok, Bin} = file:read_file(File),
    Bin.

%% @doc The environment of a run of the escript (or of a command running it) in a test:
%% `Env' over what would make its output depend on the machine's (terminal width, colour,
%% GitHub Actions), and a compile cache of the tests' own under _build/test, not the
%% user's.
-spec escript_env([{string(), string() | false}]) -> [{string(), string() | false}].
escript_env(Env) ->
    Base = [{"COLUMNS", false}, {"NO_COLOR", false}, {"GITHUB_ACTIONS", false},
            {"ERLPERF_CACHE", filename:join([root(), "_build", "test", "erlperf_cache"])}],
    [{K, V} || {K, V} <- Base, not lists:keymember(K, 1, Env)] ++ Env.

%% @doc Runs the escript from the repository root with more environment; returns its exit
%% status and output (stdout and stderr), which must be UTF-8 without a stack trace.
-spec escript([string()], [{string(), string() | false}]) -> {non_neg_integer(), string()}.
escript(Args, Env) ->
    escript(Args, Env, root()).

%% @doc {@link escript/2} in directory `Dir'.
-spec escript([string()], [{string(), string() | false}], file:filename()) -> {integer(), string()}.
escript(Args, Env, Dir) ->
    Port = open_port({spawn_executable, escript_path()},
                     [exit_status, stderr_to_stdout, binary, {cd, Dir},
                      {args, [unicode:characters_to_binary(A) || A <- Args]},
                      {env, escript_env(Env)}]),
    {Status, Bytes} = collect(Port, []),
    Out = unicode:characters_to_list(Bytes),
    ct:log("erlperf ~p ~p~n~ts~nexit ~b", [Env, Args, Bytes, Status]),
    true = is_list(Out),
    [nomatch = binary:match(Bytes, Trace) || Trace <- [<<"exception">>, <<"in function">>, <<"in call from">>]],
    {Status, Out}.

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Data | Acc]);
        {Port, {exit_status, Status}} -> {Status, iolist_to_binary(lists:reverse(Acc))}
    after ?ESCRIPT_TIMEOUT_MS ->
        {os_pid, Pid} = erlang:port_info(Port, os_pid),
        _ = os:cmd("kill -9 " ++ integer_to_list(Pid)),
        error({timeout, iolist_to_binary(lists:reverse(Acc))})
    end.

%% Milliseconds between two checks of a condition by wait_for/2.
-define(POLL_MS, 5).

%% @doc Polls `Pred' until it holds (true) or `Ms' milliseconds pass (false): the wait
%% ends as soon as the condition holds, so the deadline can be generous. Re-checks every
%% 5 ms.
-spec wait_for(fun(() -> boolean()), non_neg_integer()) -> boolean().
wait_for(Pred, Ms) ->
    wait_for(Pred, Ms, ?POLL_MS).

%% @doc {@link wait_for/2}, re-checking every `PollMs' milliseconds (for a condition that
%% is costly to check, such as one that runs `ps').
-spec wait_for(fun(() -> boolean()), non_neg_integer(), pos_integer()) -> boolean().
wait_for(Pred, Ms, PollMs) ->
    wait_until(Pred, erlang:monotonic_time(millisecond) + Ms, PollMs).

wait_until(Pred, Deadline, PollMs) ->
    case Pred() of
        true -> true;
        false ->
            case erlang:monotonic_time(millisecond) >= Deadline of
                true -> false;
                false -> receive after PollMs -> wait_until(Pred, Deadline, PollMs) end
            end
    end.

%% @doc An io device, linked to the caller, that sends the caller `{log_line, Line}' for
%% each line printed to it.
-spec capture() -> pid().
capture() ->
    Self = self(),
    spawn_link(fun () -> capture_loop(Self) end).

capture_loop(Owner) ->
    receive
        {io_request, From, ReplyAs, {put_chars, _Encoding, Chars}} ->
            Text = unicode:characters_to_list(Chars),
            _ = [Owner ! {log_line, L} || L <- string:lexemes(Text, "\n")],
            From ! {io_reply, ReplyAs, ok},
            capture_loop(Owner);
        {io_request, From, ReplyAs, _Other} ->
            From ! {io_reply, ReplyAs, {error, request}},
            capture_loop(Owner)
    end.

%% @doc Starts the application (when it is not running) without its monitor, so that a
%% suite can start monitors of its own; returns Config with what was started.
-spec app_without_monitor(list()) -> list().
app_without_monitor(Config) ->
    {ok, Started} = application:ensure_all_started(erlperf),
    ok = supervisor:terminate_child(erlperf_sup, erlperf_monitor),
    [{erlperf_started, Started} | Config].

%% @doc Undoes {@link app_without_monitor/1}. The application may have been running
%% before the suite (then it is not stopped): its monitor runs again for the suites that
%% follow.
-spec restore_app(list()) -> ok.
restore_app(Config) ->
    {ok, _} = supervisor:restart_child(erlperf_sup, erlperf_monitor),
    _ = [application:stop(App) || App <- lists:reverse(proplists:get_value(erlperf_started, Config))],
    ok.

%% Process dictionary key of the case counter of the property being checked.
-define(PROP_COUNTER, '$erlperf_prop_counter').

%% @doc Checks the property built by `Build' with PropEr for `NumTests' cases: returns
%% `{Name, CasesChecked}' when it holds, the counterexample when it does not (a property
%% that ran no case shows a count of 0, so it cannot pass unseen).
-spec prop_check(atom(), fun(() -> term()), pos_integer()) -> tuple().
prop_check(Name, Build, NumTests) ->
    Counter = counters:new(1, []),
    put(?PROP_COUNTER, Counter),
    Prop = Build(),
    erase(?PROP_COUNTER),
    case proper:quickcheck(Prop, [{numtests, NumTests}, quiet]) of
        true -> {Name, counters:get(Counter, 1)};
        Other -> {Name, Other, proper:counterexample()}
    end.

%% @doc proper:forall/2, counting the cases checked (for {@link prop_check/3}). An
%% exception fails the case, printed with its value: Debian's PropEr 1.2 calls
%% erlang:get_stacktrace/0 (removed in OTP 23) on one, which would hide the counterexample.
-spec prop_forall(term(), fun((term()) -> boolean())) -> term().
prop_forall(Type, Fun) ->
    Counter = get(?PROP_COUNTER),
    proper:forall(Type, fun (Value) ->
        ok = counters:add(Counter, 1, 1),
        try Fun(Value)
        catch Class:Reason ->
            io:format(user, "~s:~0p for ~0p~n", [Class, Reason, Value]),
            false
        end
    end).

%% The eunit tests Tests() builds when PropEr is installed; otherwise one failing test
%% saying how to install it (properties must never be skipped silently).
-spec with_proper(fun(() -> term())) -> term().
with_proper(Tests) ->
    case code:which(proper) of
        non_existing ->
            {"PropEr is installed",
             fun () -> erlang:error({proper_missing, "apt-get install erlang-proper "
                                                     "(make prereq-test does)"}) end};
        _ ->
            Tests()
    end.
