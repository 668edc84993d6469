%%% @doc Isolated runs (`isolation' run option, `-i'): real peer nodes, real OS processes.
%%%
%%% Every case that needs to know a peer's OS process makes the benchmark's `init' print
%%% `os:getpid()' in the peer; the peer forwards that output to the group leader of the
%%% caller, which is either a capturing io server (cases running here) or standard output
%%% of a separate controller VM (cases started with open_port).
-module(erlperf_isolation_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0]).
-export([two_runners/0, remote_error/0, extra_code_paths/0, no_epmd/0,
         no_peer_after_return/0, no_peer_after_caller_crash/0, no_peer_after_kill9/0,
         escript_archive/0, latency_isolated/0]).
-export([latency_isolated/1]).
-export([two_runners/1, remote_error/1, extra_code_paths/1, no_epmd/1,
         no_peer_after_return/1, no_peer_after_caller_crash/1, no_peer_after_kill9/1,
         escript_archive/1]).
%% Internal export: body of the controller VMs started by no_epmd and no_peer_after_kill9.
-export([controller/1]).

%% A peer OS process must be gone this many milliseconds after its controller is.
-define(GONE_TIMEOUT_MS, 10000).
%% Milliseconds between two checks of an OS process.
-define(POLL_MS, 100).
%% Milliseconds to wait for a line from a controller VM.
-define(LINE_TIMEOUT_MS, 30000).
%% Init code printing the peer's OS pid, so that the test can watch that process.
-define(PRINT_PID, "io:format(\"peer_os_pid ~s~n\", [os:getpid()])").

suite() ->
    [{timetrap, {seconds, 60}}].

all() ->
    [{group, isolated}].

groups() ->
    [{isolated, [], [two_runners, remote_error, extra_code_paths, no_epmd,
                     no_peer_after_return, no_peer_after_caller_crash, no_peer_after_kill9,
                     escript_archive, latency_isolated]}].

%%--------------------------------------------------------------------
%% Cases

two_runners() ->
    [{doc, "Two codes run in two different nodes, in order (the second sleeps 10 ms a call: at most "
           "21 calls in 200 ms, orders of magnitude fewer than the first), without making this node "
           "distributed"}].
two_runners(Config) when is_list(Config) ->
    Alive = erlang:is_alive(),
    First = #{init => "persistent_term:put(erlperf_isolation_SUITE, set).",
              runner => "set = persistent_term:get(erlperf_isolation_SUITE)."},
    %% The second node must not see what the first one did.
    Second = #{init => "undefined = persistent_term:get(erlperf_isolation_SUITE, undefined).",
               runner => "timer:sleep(10)."},
    Opts = #{isolation => #{}, samples => 1, sample_duration => 200},
    [Fast, Slow] = erlperf:benchmark([First, Second], Opts, undefined),
    ?assert(Fast >= 100 * Slow, {Fast, Slow}),  % results in the order of the codes
    ?assert(Slow >= 0 andalso Slow < 25, Slow),  % at most 20 sleeps of 10 ms in 200 ms, and one under way
    ?assertEqual(Alive, erlang:is_alive()),
    ?assertEqual(undefined, persistent_term:get(?MODULE, undefined)).

latency_isolated() ->
    [{doc, "latency => true with isolation: calls are timed in the peer, init_runner's result reaches the runner"}].
latency_isolated(Config) when is_list(Config) ->
    %% the runner crashes unless it gets init_runner's result, and only runs in a peer
    Code = #{init_runner => "ir() -> {peer, os:getpid()}.",
             runner => "r({peer, P}) -> true = P =/= \"" ++ os:getpid() ++ "\"."},
    Opts = #{isolation => #{}, samples => 1, sample_duration => 100, latency => true,
             report => full},
    [#{result := #{latency := #{calls := Calls, p50 := P50, max := Max}}},
     #{result := #{latency := #{calls := Calls2}}}] =
        erlperf:benchmark([Code, #{runner => "timer:sleep(1)."}], Opts, undefined),
    ?assert(Calls > 0 andalso P50 =< Max, {Calls, P50, Max}),
    ?assert(Calls2 > 0 andalso Calls2 =< 1000, Calls2).

remote_error() ->
    [{doc, "An error in the peer is raised here with the same reason (the seed's pg2 example)"}].
remote_error(Config) when is_list(Config) ->
    Code = #{init => ?PRINT_PID ++ ", pg2:create(g).",
             runner => "ok = pg2:join(g, self()), ok = pg2:leave(g, self())."},
    {Self, Capture} = capture(),
    Result = with_group_leader(Capture, fun () ->
        try erlperf:benchmark([Code], #{isolation => #{}}, undefined)
        catch error:R:St -> {error, R, St}
        end end),
    ?assertMatch({error, {crashed, init, {error, undef, [{pg2, create, [g], _} | _]}}, _},
                 Result),
    {error, Reason, _} = Result,
    ?assertMatch("init crashed: undefined function pg2:create/1" ++ _,
                 erlperf:format_error(Reason)),
    wait_gone(peer_os_pid(Self, Capture)).

extra_code_paths() ->
    [{doc, "The peer gets this node's extra code paths (-pa) and ERL_LIBS"}].
extra_code_paths(Config) when is_list(Config) ->
    Priv = ?config(priv_dir, Config),
    PaDir = filename:join(Priv, "pa"),
    LibDir = filename:join(Priv, "libs"),
    ok = compile_module(isolation_pa_mod, PaDir),
    ok = compile_module(isolation_lib_mod, filename:join([LibDir, "isolib-1.0", "ebin"])),
    true = code:add_patha(PaDir),
    OldLibs = os:getenv("ERL_LIBS"),
    true = os:putenv("ERL_LIBS", LibDir),
    try
        Codes = ["isolation_pa_mod:f().", "isolation_lib_mod:f()."],
        [Pa, Lib] = erlperf:benchmark(Codes, #{isolation => #{}, samples => 1,
                                               sample_duration => 100}, undefined),
        %% each runner ran: a module the peer cannot load crashes it
        ?assert(is_integer(Pa) andalso Pa >= 0 andalso is_integer(Lib) andalso Lib >= 0, {Pa, Lib}),
        %% without isolation, ERL_LIBS set after boot does not reach this node
        ?assertEqual(non_existing, code:which(isolation_lib_mod))
    after
        restore_env("ERL_LIBS", OldLibs),
        code:del_path(PaDir)
    end.

no_epmd() ->
    [{doc, "-i works in a VM that has no epmd to talk to, and starts none"}].
no_epmd(Config) when is_list(Config) ->
    EpmdPort = free_port(),
    Port = start_controller(1, [{"ERL_EPMD_PORT", integer_to_list(EpmdPort)}]),
    {ok, Line} = wait_line(Port, "result "),
    ?assertMatch({ok, [N], _} when N >= 0, io_lib:fread("result ~d", Line)),
    {ok, _} = wait_line(Port, "alive false"),
    ?assertEqual({exit, 0}, wait_exit(Port)),
    %% nobody started an epmd on that port (neither the controller nor its peer)
    Names = os:cmd("epmd -port " ++ integer_to_list(EpmdPort) ++ " -names"),
    ?assertNotEqual(nomatch, string:find(Names, "Cannot connect"), Names).

no_peer_after_return() ->
    [{doc, "The peer OS process is gone soon after benchmark/3 returns"}].
no_peer_after_return(Config) when is_list(Config) ->
    {Self, Capture} = capture(),
    Code = #{init => ?PRINT_PID ++ ".", runner => "rand:uniform()."},
    [R] = with_group_leader(Capture, fun () ->
        erlperf:benchmark([Code], #{isolation => #{}, samples => 1, sample_duration => 100},
                          undefined) end),
    ?assert(is_integer(R) andalso R >= 0, R),
    wait_gone(peer_os_pid(Self, Capture)).

no_peer_after_caller_crash() ->
    [{doc, "The peer OS process is gone soon after the calling process is killed"}].
no_peer_after_caller_crash(Config) when is_list(Config) ->
    {Self, Capture} = capture(),
    Code = #{init => ?PRINT_PID ++ ".", runner => "timer:sleep(1)."},
    {Caller, MRef} = spawn_monitor(fun () ->
        group_leader(Capture, self()),
        erlperf:benchmark([Code], #{isolation => #{}, samples => 100}, undefined) end),
    OsPid = peer_os_pid(Self, Capture),
    ?assert(os_alive(OsPid)),
    exit(Caller, kill),
    receive {'DOWN', MRef, process, Caller, killed} -> ok end,
    wait_gone(OsPid).

no_peer_after_kill9() ->
    [{doc, "The peer OS process is gone soon after its controller VM gets kill -9"}].
no_peer_after_kill9(Config) when is_list(Config) ->
    Port = start_controller(100, []),
    {ok, "controller_os_pid " ++ Controller} = wait_line(Port, "controller_os_pid "),
    {ok, "peer_os_pid " ++ Peer} = wait_line(Port, "peer_os_pid "),
    ?assert(os_alive(Peer)),
    _ = os:cmd("kill -9 " ++ Controller),
    ?assertMatch({exit, _}, wait_exit(Port)),
    wait_gone(Peer).

escript_archive() ->
    [{doc, "Isolation works when erlperf runs from an escript archive (object code is sent)"}].
escript_archive(Config) when is_list(Config) ->
    Priv = ?config(priv_dir, Config),
    Script = filename:join(Priv, "iso_escript"),
    Ebin = filename:dirname(code:which(erlperf)),
    Files = [{filename:join("erlperf/ebin", F), read(filename:join(Ebin, F))}
             || F <- filelib:wildcard("*.{beam,app}", Ebin)],
    Main = "main(_) -> [R] = erlperf:benchmark([\"rand:uniform().\"], "
           "#{isolation => #{}, samples => 1, sample_duration => 100}, undefined), "
           "io:format(\"result ~p~n\", [R]).\n",
    %% erlperf comes from the archive only: the escript's code path has no directory
    {ok, {_, Zip}} = zip:create("a.zip", [{"iso_escript/ebin/iso_escript.beam",
                                           compile_source(Main)} | Files], [memory]),
    ok = escript:create(Script, [shebang, {emu_args, "-escript main iso_escript"},
                                     {archive, Zip}]),
    Out = os:cmd(os:find_executable("escript") ++ " " ++ Script),
    ?assertMatch({ok, [N], _} when N >= 0, io_lib:fread("result ~d", Out), Out).

%%--------------------------------------------------------------------
%% Controller VM (runs in a separate OS process)

%% Prints its OS pid, runs an isolated benchmark of Samples samples, prints the result
%% and whether it became distributed, then halts.
controller(Samples) ->
    io:format("controller_os_pid ~s~n", [os:getpid()]),
    Code = #{init => ?PRINT_PID ++ ".", runner => "timer:sleep(1)."},
    [R] = erlperf:benchmark([Code], #{isolation => #{}, samples => Samples,
                                    sample_duration => 100}, undefined),
    io:format("result ~b~nalive ~s~n", [R, erlang:is_alive()]),
    erlang:halt(0).

start_controller(Samples, Env) ->
    Paths = [filename:dirname(code:which(M)) || M <- [erlperf, ?MODULE]],
    Eval = lists:flatten(io_lib:format("~s:controller(~b).", [?MODULE, Samples])),
    open_port({spawn_executable, os:find_executable("erl")},
              [{args, ["-noshell", "-pa" | Paths] ++ ["-eval", Eval]},
               {env, Env}, {line, 1024}, exit_status, stderr_to_stdout]).

wait_line(Port, Prefix) ->
    receive
        {Port, {data, {eol, Line}}} ->
            case lists:prefix(Prefix, Line) of
                true -> {ok, Line};
                false -> wait_line(Port, Prefix)
            end;
        {Port, {exit_status, Status}} ->
            {error, {exit_status, Status}}
    after ?LINE_TIMEOUT_MS ->
        {error, {timeout, Prefix}}
    end.

wait_exit(Port) ->
    receive
        {Port, {exit_status, Status}} -> {exit, Status};
        {Port, {data, _}} -> wait_exit(Port)
    after ?LINE_TIMEOUT_MS ->
        timeout
    end.

%%--------------------------------------------------------------------
%% Helpers

%% An io server forwarding whatever is printed to it to the test process.
capture() ->
    Self = self(),
    {Self, spawn_link(fun () -> capture_loop(Self) end)}.

capture_loop(Owner) ->
    receive
        {io_request, From, ReplyAs, Request} ->
            Owner ! {captured, self(), request_text(Request)},
            From ! {io_reply, ReplyAs, ok},
            capture_loop(Owner)
    end.

request_text({put_chars, _Encoding, Chars}) -> unicode:characters_to_list(Chars);
request_text({put_chars, _Encoding, M, F, A}) -> unicode:characters_to_list(apply(M, F, A));
request_text({requests, Requests}) -> lists:append([request_text(R) || R <- Requests]);
request_text(_Other) -> "".

with_group_leader(Leader, Fun) ->
    Old = group_leader(),
    group_leader(Leader, self()),
    try Fun() after group_leader(Old, self()) end.

peer_os_pid(Self, Capture) when Self =:= self() ->
    receive
        {captured, Capture, "peer_os_pid " ++ Rest} -> string:trim(Rest)
    after ?LINE_TIMEOUT_MS ->
        ct:fail(no_peer_os_pid)
    end.

%% Alive and not a zombie (a reparented zombie may wait for a reaper in a container).
os_alive(OsPid) ->
    case string:trim(os:cmd("ps -o stat= -p " ++ OsPid)) of
        "" -> false;
        "Z" ++ _ -> false;
        _ -> true
    end.

wait_gone(OsPid) ->
    erlperf_test_lib:wait_for(fun () -> not os_alive(OsPid) end, ?GONE_TIMEOUT_MS, ?POLL_MS)
        orelse ct:fail({peer_still_running, OsPid, ?GONE_TIMEOUT_MS}).

compile_module(Name, Dir) ->
    ok = filelib:ensure_dir(filename:join(Dir, "any")),
    N = atom_to_list(Name),
    Binary = forms_binary(["-module(", N, ").\n-export([f/0]).\nf() -> ", N, ".\n"]),
    ok = file:write_file(filename:join(Dir, N ++ ".beam"), Binary).

compile_source(Main) ->
    forms_binary(lists:flatten(["-module(iso_escript).\n-export([main/1]).\n", Main])).

forms_binary(Source) ->
    {ok, Tokens, _} = erl_scan:string(lists:flatten(Source)),
    Forms = split_forms(Tokens, [], []),
    {ok, _Module, Binary} = compile:forms(Forms, [binary, return_errors]),
    Binary.

split_forms([], [], Acc) ->
    lists:reverse(Acc);
split_forms([{dot, _} = Dot | Rest], Current, Acc) ->
    {ok, Form} = erl_parse:parse_form(lists:reverse([Dot | Current])),
    split_forms(Rest, [], [Form | Acc]);
split_forms([Token | Rest], Current, Acc) ->
    split_forms(Rest, [Token | Current], Acc).

read(File) ->
    {ok, Bin} = file:read_file(File),
    Bin.

restore_env(Name, false) -> true = os:unsetenv(Name);
restore_env(Name, Value) -> true = os:putenv(Name, Value).

free_port() ->
    {ok, Socket} = gen_tcp:listen(0, [{ip, {127, 0, 0, 1}}]),
    {ok, Port} = inet:port(Socket),
    ok = gen_tcp:close(Socket),
    Port.
