%%% @doc Performance testing under hostile input, signals and secrets: every case runs the
%%% real escript (`erlperf_test_lib:escript_path/0') in an OS process of its own, with
%%% standard output and standard error captured apart, and checks the exit status, that
%%% standard error holds exactly the line a user's mistake deserves, that standard output
%%% holds only what was asked for (never a VM report), that no test node's OS process is
%%% left, and that the cookie is on no command line and in no output.
%%%
%%% The load generator is `hostile_load_gen' (test data), steered by the environment. Test
%%% nodes are found by their OS processes: the escript's descendants in `/proc', and for
%%% what is left after it exits, the OS pid of the escript that every test node's name
%%% carries (`peer:random_name/1').
%%%
%%% Groups: `usage' (mistakes, parallel: exit 2 and one line, before anything starts),
%%% `runs' (sequential: runs that fail, nodes started the wrong way, the cookie), and
%%% `signals' (sequential: SIGTERM and SIGINT during the load, with a node the suite owns
%%% as one of the test nodes, checked for trace patterns, trace flags and modules left).
-module(erlperf_perf_hostile_SUITE).

-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1,
         init_per_testcase/2, end_per_testcase/2]).
-export([usage_errors/0, usage_errors/1, callback_timeout/0, callback_timeout/1,
         failed_setup_teardown/0, failed_setup_teardown/1, plain_peer/0, plain_peer/1,
         own_cookie_peer/0, own_cookie_peer/1, no_cookie_perf_test/0, no_cookie_perf_test/1,
         no_cookie_isolated/0, no_cookie_isolated/1, sigterm/0, sigterm/1,
         sigint/0, sigint/1]).

-define(config(K, C), proplists:get_value(K, C)).
%% Environment variables of hostile_load_gen.
-define(ENV, ["HOSTILE_LOG", "HOSTILE_MS", "HOSTILE_PATTERNS", "HOSTILE_START",
              "HOSTILE_NODE", "HOSTILE_COOKIE", "HOSTILE_NAME"]).
%% Longest an escript run may take (a plain peer:start/1 waits 15 s for its boot).
-define(RUN_TIMEOUT_MS, 150000).
%% Longest wait for a line on standard error (a test node booting on a loaded machine).
-define(LINE_TIMEOUT_MS, 60000).
%% Longest wait for what a stopped command leaves to go (OS processes, agents), and how
%% often to look.
-define(GONE_TIMEOUT_MS, 20000).
-define(POLL_MS, 100).
%% A load that lasts longer than any case: only a signal ends it.
-define(LONG_LOAD_MS, "600000").
%% Lines of a VM report (logger's default format).
-define(REPORT, "=(ERROR|CRASH|SUPERVISOR|WARNING|INFO|PROGRESS) REPORT").
%% The modules of erlperf's agents.
-define(AGENT_MODULES, [erlperf_agent_ms, erlperf_agent_tracer, erlperf_agent_discoverer,
                        erlperf_agent_metrics, erlperf_agent_impact]).

suite() ->
    [{timetrap, {minutes, 5}}].

all() ->
    [{group, usage}, {group, runs}, {group, signals}].

groups() ->
    [{usage, [parallel], [usage_errors]},
     {runs, [], [callback_timeout, failed_setup_teardown, plain_peer, own_cookie_peer,
                 no_cookie_perf_test, no_cookie_isolated]},
     {signals, [], [sigterm, sigint]}].

init_per_suite(Config) ->
    erlperf_test_lib:with_escript(Config).

end_per_suite(_Config) ->
    ok.

init_per_testcase(Case, Config) ->
    Dir = filename:join(?config(priv_dir, Config), Case),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    [{dir, Dir}, {log, filename:join(Dir, "callbacks.log")} | Config].

end_per_testcase(_Case, _Config) ->
    ok.

%%--------------------------------------------------------------------
%% usage

usage_errors() ->
    [{doc, "A load generator that is no module, not a load generator, a module that would replace "
           "OTP's own, a name too long for a module, no trace pattern, a missing -pa directory, "
           "timeouts Erlang cannot wait, a test name that is no string: exit 2, one line on stderr "
           "naming the problem, nothing on stdout, and no callback ran"}].
usage_errors(Config) ->
    Dir = ?config(dir, Config),
    Lists = filename:join(Dir, "lists.erl"),
    ok = file:write_file(Lists, "-module(lists).\n-export([x/0]).\nx() -> ok.\n"),
    Gen = hostile(Config),
    Long = lists:duplicate(300, $m),
    Cases = [{["--perf-test", "no_such_module_here"],
              "load generator no_such_module_here: no such file or module"},
             {["--perf-test", "lists"], "load generator lists does not export get_test_name/0, test_setup/0, "
              "setup_run/1, start_load/2, get_load_duration/0, get_test_sizes/0, stop_load/1, "
              "teardown_run/1, test_teardown/1, get_trace_patterns/0"},
             {["--perf-test", Lists], "load generator " ++ Lists ++ ": its module lists would replace "
                                      "OTP's or erlperf's own; rename it"},
             {["--perf-test", Long], "load generator " ++ Long ++ ": no such file"},
             {["--perf-test", Gen, "-pa", "/nonexistent/ebin"], "-pa: /nonexistent/ebin is not a directory"},
             {["--perf-test", Gen, "--timeout", "99999999999999999999"],
              "--timeout needs a number of milliseconds from 1 to 4294967295, got 99999999999999999999"},
             {["--perf-test", Gen, "--interval", "4294967296"],
              "--interval needs a number of milliseconds from 1 to 4294967295, got 4294967296"}],
    lists:foreach(fun ({Args, Line}) ->
                          R = run(Args, [], Config),
                          ?assertEqual({2, Args}, {status(R), Args}),
                          ?assertEqual(["erlperf: " ++ Line], err_lines(R)),
                          ?assertEqual("", out(R))
                  end, Cases),
    NoPatterns = run(["--perf-test", Gen], [{"HOSTILE_PATTERNS", "none"}], Config),
    ?assertEqual(2, status(NoPatterns)),
    ?assertEqual(["erlperf: get_trace_patterns/0: returned [], name at least one function to trace"],
                 err_lines(NoPatterns)),
    ?assertEqual("", out(NoPatterns)),
    NotText = run(["--perf-test", Gen], [{"HOSTILE_NAME", "integer"}], Config),
    ?assertEqual(2, status(NotText)),
    ?assertEqual(["erlperf: load generator: get_test_name/0: expected a string, got 42"],
                 err_lines(NotText)),
    ?assertEqual("", out(NotText)),
    ?assertEqual([], callbacks(Config)).

%%--------------------------------------------------------------------
%% runs

callback_timeout() ->
    [{doc, "--timeout 100: setup_run/1 cannot boot a node in time; no VM report anywhere, exit 1 "
           "with the last line on stderr saying what failed, no test node left, no cookie in the "
           "output. With a setup_run/1 that hangs after its node booted: the summary on stdout, "
           "the last line on stderr saying the run failed"}].
callback_timeout(Config) ->
    R = run(["--perf-test", hostile(Config), "--timeout", "100", "--out-dir", ?config(dir, Config)],
            [], Config),
    ?assertEqual(1, status(R)),
    no_report(R),
    %% the run fails; on a loaded machine, test_setup/0 (a file write) may not answer in
    %% 100 ms either: then the test fails before any run
    ?assertMatch({match, _}, re:run(lists:last(err_lines(R)),
                                    "^erlperf: (1 of 1 runs failed|test_setup/0 failed: no answer in 100 ms)$")),
    no_node_left(R),
    Hang = run(["--perf-test", hostile(Config), "--timeout", "5000", "--out-dir", ?config(dir, Config)],
               [{"HOSTILE_START", "perf_node,hang"}], Config),
    ?assertEqual(1, status(Hang)),
    no_report(Hang),
    ?assertMatch({match, _}, re:run(out(Hang), "^callers\\s+status")),
    ?assertMatch({match, _}, re:run(out(Hang), "setup_run: no answer in 5000 ms")),
    ?assertEqual("erlperf: 1 of 1 runs failed", lists:last(err_lines(Hang))),
    no_node_left(Hang),
    [no_cookie(Run, Cookie, []) || Run <- [R, Hang], Cookie <- cookies(Config)].

failed_setup_teardown() ->
    [{doc, "teardown_run/1 gets [] when setup_run/1 failed, and the examples' teardown_run/1 "
           "returns run_ended on it"}].
failed_setup_teardown(Config) ->
    R = run(["--perf-test", hostile(Config), "--out-dir", ?config(dir, Config)],
            [{"HOSTILE_START", "fail"}], Config),
    ?assertEqual(1, status(R)),
    ?assertMatch({match, _}, re:run(out(R), "setup_run: error:injected in hostile_load_gen:start/1")),
    ?assertEqual(nomatch, re:run(out(R), "teardown_run")),
    ?assertEqual([{teardown_run, []}, test_teardown], lists:nthtail(1, callbacks(Config))),
    Examples = filename:join(erlperf_test_lib:root(), "examples"),
    lists:foreach(fun (Example) ->
                          {ok, Mod, Bin} = compile:file(filename:join(Examples, Example), [binary]),
                          {module, Mod} = code:load_binary(Mod, Example, Bin),
                          ?assertEqual({Mod, run_ended}, {Mod, Mod:teardown_run([])})
                  end, ["httpd_load_gen.erl", "port_pool_load_gen.erl", "invariants_load_gen.erl"]).

plain_peer() ->
    [{doc, "A load generator starting a plain peer:start(#{name => ...}) (distribution as control "
           "connection): the run fails saying to use erlperf_perf_node:start/1, no report, no node left"}].
plain_peer(Config) ->
    R = run(["--perf-test", hostile(Config), "--out-dir", ?config(dir, Config)],
            [{"HOSTILE_START", "plain_peer"}], Config),
    ?assertEqual(1, status(R)),
    no_report(R),
    ?assertMatch({match, _}, re:run(out(R), "setup_run: exit:timeout in peer:start_it/2 \\(start test "
                                            "nodes with erlperf_perf_node:start/1")),
    ?assertEqual("erlperf: 1 of 1 runs failed", lists:last(err_lines(R))),
    no_node_left(R).

own_cookie_peer() ->
    [{doc, "A peer with a cookie of its own (standard_io control connection, no cookie given): "
           "the run fails saying to use erlperf_perf_node:start/1; what that node prints goes to "
           "stderr, stdout has the summary only; no node left"}].
own_cookie_peer(Config) ->
    R = run(["--perf-test", hostile(Config), "--out-dir", ?config(dir, Config)],
            [{"HOSTILE_START", "stdio_peer"}], Config),
    ?assertEqual(1, status(R)),
    ?assertEqual(nomatch, re:run(out(R), ?REPORT)),
    ?assertMatch({match, _}, re:run(out(R), "noconnection.*\\(start test nodes with erlperf_perf_node:start/1")),
    no_node_left(R).

no_cookie_perf_test() ->
    [{doc, "During a test, no command line of the escript or of any OS process it started (the "
           "test node among them) holds the cookie or -setcookie; neither do stdout, stderr and the "
           "files written"}].
no_cookie_perf_test(Config) ->
    Dir = ?config(dir, Config),
    Running = start(["--perf-test", hostile(Config), "--out-dir", Dir], [{"HOSTILE_MS", "5000"}], Config),
    ok = await_err(Running, "load runs"),
    Lines = command_lines(descendants(os_pid(Running))),
    R = finish(Running),
    ?assertEqual(0, status(R)),
    [{node, _, NodePid}] = [N || {node, _, _} = N <- callbacks(Config)],
    ?assert(lists:keymember(list_to_integer(NodePid), 1, Lines), {NodePid, Lines}),
    Files = [F || F <- filelib:wildcard(filename:join(Dir, "hostile-*/*")), filelib:is_regular(F)],
    ?assertMatch([_, _, _ | _], Files),
    no_cookie(R, cookie(Config), Lines ++ [{F, element(2, file:read_file(F))} || F <- Files]),
    no_node_left(R),
    gone(list_to_integer(NodePid)).

no_cookie_isolated() ->
    [{doc, "An isolated benchmark (-i): no command line of its peer nodes holds -setcookie or the "
           "user's cookie, nor does the output"}].
no_cookie_isolated(Config) ->
    Init = "io:format(\"peer_os_pid ~s~n\", [os:getpid()]).",
    {Pid, Running} = await_out(start(["timer:sleep(1).", "-i", "-s", "3", "--init", Init], [], Config),
                               "peer_os_pid ([0-9]+)"),
    Lines = command_lines(descendants(os_pid(Running))),
    R = finish(Running),
    ?assertEqual(0, status(R)),
    ?assert(lists:keymember(list_to_integer(Pid), 1, Lines), {Pid, Lines}),
    no_cookie(R, home_cookie(), Lines),
    gone(list_to_integer(Pid)).

%%--------------------------------------------------------------------
%% signals

sigterm() ->
    [{doc, "SIGTERM during the load: exit 143, stdout empty, the last line on stderr "
           "'erlperf: stopped by SIGTERM', teardown_run/1 and test_teardown/1 ran, the test node "
           "erlperf started is gone and a node the user runs keeps no agent module, trace pattern "
           "or trace flag"}].
sigterm(Config) ->
    signalled(Config, "TERM", fun (R) ->
        ?assertEqual(143, status(R)),
        ?assertEqual("erlperf: stopped by SIGTERM", lists:last(err_lines(R))),
        ?assertMatch([{teardown_run, [_, _]}, test_teardown], lists:nthtail(length(callbacks(Config)) - 2,
                                                                            callbacks(Config)))
    end).

sigint() ->
    [{doc, "SIGINT during the load: the VM exits 130 at once (Erlang cannot handle SIGINT); the "
           "test node erlperf started halts as its control connection closes, and a node the user "
           "runs is left without agent module, trace pattern or trace flag"}].
sigint(Config) ->
    signalled(Config, "INT", fun (R) -> ?assertEqual(130, status(R)) end).

%% Sends the signal during the load; checks the run with Check, then what every signal
%% must leave: an empty stdout, no VM report, no test node, nothing on the user's node.
signalled(Config, Signal, Check) ->
    {Peer, Env} = user_node(Config),
    try
        Running = start(["--perf-test", hostile(Config), "--out-dir", ?config(dir, Config)], Env, Config),
        ok = await_err(Running, "load runs"),
        _ = os:cmd("kill -" ++ Signal ++ " " ++ integer_to_list(os_pid(Running))),
        R = finish(Running),
        Check(R),
        ?assertEqual("", out(R)),
        no_report(R),
        no_node_left(R),
        nothing_left(Peer)
    after
        peer:stop(Peer)
    end.

%%--------------------------------------------------------------------
%% Running the escript

hostile(Config) ->
    filename:join(?config(data_dir, Config), "hostile_load_gen.erl").

%% Starts the escript with stderr to a file; SIGINT gets its default action (a shell may
%% have started this VM with SIGINT ignored, which its children would inherit).
start(Args, Env, Config) ->
    Err = filename:join(?config(dir, Config), "stderr." ++ integer_to_list(erlang:unique_integer([positive]))),
    Exec = erlperf_test_lib:default_sigint() ++ [erlperf_test_lib:escript_path() | Args],
    Base = [{"COLUMNS", false}, {"NO_COLOR", false} | [{V, false} || V <- ?ENV]],
    Vars = maps:merge(maps:from_list(Base), maps:from_list([{"HOSTILE_LOG", ?config(log, Config)} | Env])),
    Port = open_port({spawn_executable, "/bin/sh"},
                     [exit_status, binary, {cd, erlperf_test_lib:root()},
                      {args, ["-c", "exec \"$@\" 2>'" ++ Err ++ "'", "sh" | Exec]},
                      {env, maps:to_list(Vars)}]),
    {os_pid, OsPid} = erlang:port_info(Port, os_pid),
    ct:log("erlperf ~p ~p (OS pid ~b)", [Env, Args, OsPid]),
    #{port => Port, err => Err, os_pid => OsPid, out => []}.

run(Args, Env, Config) ->
    finish(start(Args, Env, Config)).

%% Waits for the escript to exit: its status, stdout and stderr (UTF-8, never a stack trace).
finish(#{port := Port, err := Err, os_pid := OsPid, out := Acc}) ->
    receive
        {Port, {data, Data}} ->
            finish(#{port => Port, err => Err, os_pid => OsPid, out => [Data | Acc]});
        {Port, {exit_status, Status}} ->
            Out = unicode:characters_to_list(iolist_to_binary(lists:reverse(Acc))),
            {ok, ErrBytes} = file:read_file(Err),
            ErrText = unicode:characters_to_list(ErrBytes),
            ct:log("exit ~b~n--- stdout~n~ts~n--- stderr~n~ts", [Status, Out, ErrText]),
            ?assert(is_list(Out) andalso is_list(ErrText)),
            [?assertEqual(nomatch, re:run([Out, ErrText], Trace))
             || Trace <- ["exception", "in function", "in call from", "\\{file,"]],
            #{status => Status, out => Out, err => ErrText, os_pid => OsPid}
    after ?RUN_TIMEOUT_MS ->
            _ = os:cmd("kill -9 " ++ integer_to_list(OsPid)),
            error({timeout, iolist_to_binary(lists:reverse(Acc))})
    end.

status(#{status := S}) -> S.
out(#{out := Out}) -> Out.
os_pid(#{os_pid := P}) -> P.
err_lines(#{err := Err}) -> string:lexemes(Err, "\n").

%% Waits until stderr (a file) holds Text.
await_err(#{err := Err}, Text) ->
    Found = erlperf_test_lib:wait_for(fun () ->
                                              case file:read_file(Err) of
                                                  {ok, B} -> binary:match(B, list_to_binary(Text)) =/= nomatch;
                                                  _ -> false
                                              end
                                      end, ?LINE_TIMEOUT_MS, ?POLL_MS),
    ?assert(Found, Text),
    ok.

%% Waits until stdout matches Regex: its first group, and the running escript with the
%% output read so far.
await_out(#{port := Port, out := Acc} = Running, Regex) ->
    receive
        {Port, {data, Data}} ->
            Next = Running#{out := [Data | Acc]},
            case re:run(lists:reverse([Data | Acc]), Regex, [{capture, [1], list}]) of
                {match, [Group]} -> {Group, Next};
                nomatch -> await_out(Next, Regex)
            end
    after ?LINE_TIMEOUT_MS ->
            error({no_output, Regex, iolist_to_binary(lists:reverse(Acc))})
    end.

callbacks(Config) ->
    case file:consult(?config(log, Config)) of
        {ok, Terms} -> Terms;
        {error, enoent} -> []
    end.

%% The controlling node's cookie, as test_setup/0 logged it.
cookie(Config) ->
    [Cookie] = cookies(Config),
    Cookie.

cookies(Config) ->
    [atom_to_list(C) || {test_setup, C} <- callbacks(Config)].

home_cookie() ->
    case file:read_file(filename:join(os:getenv("HOME", "/"), ".erlang.cookie")) of
        {ok, Bin} -> string:trim(binary_to_list(Bin));
        {error, _} -> "no cookie file"
    end.

%%--------------------------------------------------------------------
%% Checks

no_report(#{out := Out, err := Err}) ->
    ?assertEqual(nomatch, re:run(Out, ?REPORT)),
    ?assertEqual(nomatch, re:run(Err, ?REPORT)).

%% The cookie is in no output, command line or file, and no command line says -setcookie.
no_cookie(#{out := Out, err := Err}, Cookie, Texts) ->
    ?assert(length(Cookie) >= 8, Cookie),
    All = [{Where, bytes(Text)} || {Where, Text} <- [{stdout, Out}, {stderr, Err} | Texts]],
    [?assertEqual({Where, nomatch}, {Where, binary:match(Text, list_to_binary(Cookie))}) || {Where, Text} <- All],
    [?assertEqual({Pid, nomatch}, {Pid, binary:match(Line, <<"-setcookie">>)}) || {Pid, Line} <- All, is_integer(Pid)],
    ok.

bytes(Text) when is_binary(Text) -> Text;
bytes(Text) -> unicode:characters_to_binary(Text).

%% The OS process is gone (or a zombie waiting for its parent).
gone(OsPid) ->
    ?assert(erlperf_test_lib:wait_for(fun () -> parent(OsPid) =:= error end, ?GONE_TIMEOUT_MS, ?POLL_MS),
            command_lines([OsPid])).

%% No OS process of a test node the escript started is left: their names end in
%% -<OS pid of the escript>@.
no_node_left(#{os_pid := OsPid}) ->
    Pattern = "-" ++ integer_to_list(OsPid) ++ "@",
    Left = fun () -> [L || {_, L} <- command_lines(all_pids()),
                           binary:match(L, list_to_binary(Pattern)) =/= nomatch] end,
    ?assert(erlperf_test_lib:wait_for(fun () -> Left() =:= [] end, ?GONE_TIMEOUT_MS, ?POLL_MS), Left()).

%% A node the user runs, given to the escript as a test node (HOSTILE_START=given) besides
%% one erlperf starts: its cookie is set over its control connection.
user_node(_Config) ->
    {ok, Peer, Node} = peer:start_link(#{name => peer:random_name(user_node), host => "127.0.0.1",
                                         longnames => true, connection => standard_io,
                                         args => ["-kernel", "inet_dist_use_interface", "{127,0,0,1}"],
                                         env => [{"ERL_EPMD_ADDRESS", "127.0.0.1"}]}),
    Cookie = "hostile" ++ integer_to_list(erlang:unique_integer([positive])),
    true = peer:call(Peer, erlang, set_cookie, [list_to_atom(Cookie)]),
    ct:log("user node ~s", [Node]),
    {Peer, [{"HOSTILE_START", "perf_node,given"}, {"HOSTILE_NODE", atom_to_list(Node)},
            {"HOSTILE_COOKIE", Cookie}, {"HOSTILE_MS", ?LONG_LOAD_MS}]}.

%% The user's node keeps no agent module, trace pattern or trace flag (the agents may
%% still be removing themselves when the escript is gone).
nothing_left(Peer) ->
    Left = fun () -> left_on(Peer) end,
    ?assert(erlperf_test_lib:wait_for(fun () -> Left() =:= [] end, ?GONE_TIMEOUT_MS, ?POLL_MS), Left()).

left_on(Peer) ->
    Loaded = [M || {M, _} <- peer:call(Peer, code, all_loaded, []), lists:member(M, ?AGENT_MODULES)],
    Patterns = [{MFA, What, V} || MFA <- [{hostile_load_gen, work, 1}, {erlang, trace, 3},
                                           {erlang, trace_pattern, 3}],
                                  What <- [call_time, meta],
                                  {_, V} <- [peer:call(Peer, erlang, trace_info, [MFA, What])],
                                  V =/= false],
    Flags = [{P, F} || P <- [new_processes | peer:call(Peer, erlang, processes, [])],
                       {flags, [_ | _] = F} <- [peer:call(Peer, erlang, trace_info, [P, flags])]],
    Loaded ++ Patterns ++ Flags.

%%--------------------------------------------------------------------
%% OS processes (Linux /proc)

all_pids() ->
    {ok, Names} = file:list_dir("/proc"),
    [list_to_integer(N) || N <- Names, lists:all(fun (C) -> C >= $0 andalso C =< $9 end, N)].

%% The OS processes started by Pid, transitively (Pid included), alive now.
descendants(Pid) ->
    Parents = [{P, Parent} || P <- all_pids(), {ok, Parent} <- [parent(P)]],
    descendants([Pid], Parents, []).

descendants([], _Parents, Acc) ->
    Acc;
descendants([P | Rest], Parents, Acc) ->
    Children = [C || {C, Parent} <- Parents, Parent =:= P],
    descendants(Children ++ Rest, Parents, [P | Acc]).

%% /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
parent(Pid) ->
    case file:read_file("/proc/" ++ integer_to_list(Pid) ++ "/stat") of
        {ok, Stat} ->
            [_, After] = string:split(Stat, ")", trailing),
            [State, Parent | _] = string:lexemes(After, " "),
            case State of
                <<"Z">> -> error;  % a zombie holds no command line
                _ -> {ok, binary_to_integer(Parent)}
            end;
        {error, _} ->
            error
    end.

%% {Pid, command line} of the processes that still run (arguments joined by spaces).
%% As bytes: the command line of another program (another test leg's escript) need not
%% be UTF-8.
command_lines(Pids) ->
    [{P, binary:replace(Line, <<0>>, <<" ">>, [global])}
     || P <- Pids, {ok, Line} <- [file:read_file("/proc/" ++ integer_to_list(P) ++ "/cmdline")],
        Line =/= <<>>].
