%%% @doc erlperf_interference on real threads (Linux only): it finds this VM's scheduler
%%% threads by name (a name OTP does not promise to keep: this runs on every supported
%%% release), a read opens no port, spawns nothing and sends no message, a handle works in
%%% any process, and a scheduler made to wait is seen waiting. For that, a peer VM with one
%%% scheduler, pinned to one CPU with `taskset', runs a busy process and measures itself:
%%% once alone, once beside an OS busy loop that it starts itself (so the loop inherits its
%%% CPU and dies with it).
%%%
%%% The peer starts in a session of its own, and where it may (as root) gives that session
%%% the highest priority (`/proc/self/autogroup', the kernel's per-session scheduling group):
%%% the other programs of a busy host (other tests) then take little of that CPU, so the VM
%%% is nearly alone, and the busy loop, in the same session, still shares the CPU with it
%%% equally.
-module(erlperf_interference_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).
-export([finds_schedulers/0, finds_schedulers/1, read_sends_nothing/0, read_sends_nothing/1,
         read_anywhere/0, read_anywhere/1, waiting_is_seen/0, waiting_is_seen/1,
         found_before_workers/0, found_before_workers/1]).
%% Internal exports: run in the peer VMs of waiting_is_seen and found_before_workers.
-export([measure/2, spin/0, boost/0, open_sends/1]).

%% Milliseconds of one measurement in the peer: long enough for the kernel to share a
%% CPU between two busy threads many times over (its time slices are a few ms).
-define(MEASURE_MS, 500).
%% Measurements alone, at most: the first one that ran at least ?ALONE_CPU of the
%% wall-clock time passes (the host may be busy with other tests for a while).
-define(ALONE_TRIES, 3).
%% Alone, the busy scheduler runs nearly all the time; beside the hog about half of it,
%% and waits the other half. Tolerant bounds, for a loaded host, that a broken measure
%% still fails.
-define(ALONE_CPU, 0.6).
-define(HOG_CPU, 0.75).
-define(HOG_SHARE, 0.25).
%% A busy scheduler is always runnable: it runs or waits the whole wall-clock time (the
%% dirty CPU scheduler adds a little of its own).
-define(RUNNABLE_MIN, 0.8).
-define(RUNNABLE_MAX, 1.25).
%% The niceness of the peer's session when this user may raise a priority (the highest).
-define(NICENESS, "-19").
%% Milliseconds to wait for the OS busy loop to say its process id.
-define(HOG_TIMEOUT_MS, 10000).
%% Milliseconds for a call into the peer (a measurement and its retries).
-define(CALL_TIMEOUT_MS, 30000).

suite() ->
    [{timetrap, {seconds, 60}}].

all() ->
    [{group, threads}, waiting_is_seen, found_before_workers].

%% Sequential: finds_schedulers counts this VM's open files.
groups() ->
    [{threads, [], [finds_schedulers, read_sends_nothing, read_anywhere]}].

init_per_suite(Config) ->
    case os:type() of
        {unix, linux} -> Config;
        Other -> {skip, io_lib:format("interference is measured on Linux only, this is ~p", [Other])}
    end.

end_per_suite(_Config) ->
    ok.

%%--------------------------------------------------------------------
%% Cases

finds_schedulers() ->
    [{doc, "open/0 finds every normal and dirty CPU scheduler thread (and no other), opening "
           "one file each and the two host-wide ones; close/1 closes them all"}].
finds_schedulers(Config) when is_list(Config) ->
    Before = open_files(),
    Handle = erlperf_interference:open(),
    Opened = open_files() - Before,
    ?assertEqual(ok, erlperf_interference:available(Handle)),
    Schedulers = erlang:system_info(schedulers) + erlang:system_info(dirty_cpu_schedulers),
    HostFiles = case file:open("/proc/pressure/cpu", [read, raw]) of  % absent without PSI
                    {ok, Fd} -> ok = file:close(Fd), 2;
                    {error, _} -> 1
                end,
    ?assertEqual(Schedulers + HostFiles, Opened),
    ok = erlperf_interference:close(Handle),
    ?assertEqual(Before, open_files()).

read_sends_nothing() ->
    [{doc, "read/1 sends no message (not even to the file server), spawns no process and opens "
           "no port, in the process that opened the handle and in another one"}].
read_sends_nothing(Config) when is_list(Config) ->
    Handle = erlperf_interference:open(),
    try
        Ports = erlang:system_info(port_count),
        ?assertEqual([], traced(fun () -> erlperf_interference:read(Handle) end)),
        Self = self(),
        Other = spawn_link(fun () -> Self ! {self(), traced(fun () -> erlperf_interference:read(Handle) end)} end),
        ?assertEqual([], receive {Other, Events} -> Events end),
        ?assertEqual(Ports, erlang:system_info(port_count))
    after
        erlperf_interference:close(Handle)
    end.

read_anywhere() ->
    [{doc, "A handle read in another process, or after the process that opened it exited, "
           "gives the same figures: counters that grow"}].
read_anywhere(Config) when is_list(Config) ->
    Self = self(),
    {Opener, Ref} = spawn_monitor(fun () ->
                                          H = erlperf_interference:open(),
                                          Self ! {self(), H, erlperf_interference:read(H)}
                                  end),
    {Handle, First} = receive {Opener, H, R} -> {H, R} end,
    receive {'DOWN', Ref, process, Opener, normal} -> ok end,
    _ = lists:sum(lists:seq(1, 100000)),  % some CPU time for the schedulers to run
    Second = erlperf_interference:read(Handle),
    ?assertEqual(ok, erlperf_interference:available(Handle)),
    #{wall_ns := Wall, cpu_ns := Cpu, wait_ns := Wait, share := Share} =
        erlperf_interference:delta(First, Second),
    ?assert(Wall > 0, Wall),
    ?assert(is_integer(Cpu) andalso Cpu > 0, Cpu),
    ?assert(is_integer(Wait), Wait),
    ?assert(is_float(Share) andalso Share >= 0.0 andalso Share =< 1.0, Share).

waiting_is_seen() ->
    [{doc, "A peer VM with one scheduler pinned to one CPU runs a busy process: alone, its "
           "scheduler runs most of the wall-clock time; beside an OS busy loop on the same "
           "CPU, it runs about half and waits about half (share about 0.5)"}].
waiting_is_seen(Config) when is_list(Config) ->
    case {os:find_executable("taskset"), os:find_executable("setsid")} of
        {false, _} ->
            {skip, "taskset (util-linux) is not installed: cannot pin a VM and a busy loop to one CPU"};
        {_, false} ->
            {skip, "setsid (util-linux) is not installed: cannot give the peer VM a session of its own"};
        {Taskset, Setsid} ->
            Peer = start_peer([Setsid, "-w", Taskset, "-c", first_cpu()]),
            try
                ct:log("the peer's session at niceness " ?NICENESS ": ~p", [peer:call(Peer, ?MODULE, boost, [])]),
                Alone = alone(Peer, ?ALONE_TRIES),
                ct:log("alone: ~p", [Alone]),
                Beside = peer:call(Peer, ?MODULE, measure, [?MEASURE_MS, true], ?CALL_TIMEOUT_MS),
                ct:log("beside a busy loop: ~p", [Beside]),
                check_runnable(Alone),
                check_runnable(Beside),
                #{wall_ns := Wall, cpu_ns := Cpu, share := Share} = Beside,
                ?assert(Cpu < ?HOG_CPU * Wall, {Cpu, Wall}),
                ?assert(Share > ?HOG_SHARE, Share),
                ?assert(Share > maps:get(share, Alone), {Share, Alone}),
                {comment, lists:flatten(io_lib:format("alone: share ~.2f, cpu/wall ~.2f; beside a busy loop: "
                                                      "share ~.2f, cpu/wall ~.2f",
                                                      [maps:get(share, Alone), ratio(Alone), Share, ratio(Beside)]))}
            after
                peer:stop(Peer)
            end
    end.

found_before_workers() ->
    [{doc, "In a fresh VM, open/0 asks the file server for the VM's threads (a call that "
           "waits seconds behind 100,000 busy workers); once a job has started, it sends "
           "nothing: the job found the scheduler threads before any worker ran"}].
found_before_workers(Config) when is_list(Config) ->
    Fresh = start_peer([os:find_executable("env")]),
    try
        ?assertMatch([_ | _], [E || {trace, _, send, _, To} = E <- peer:call(Fresh, ?MODULE, open_sends, [false]),
                                    To =:= whereis_in(Fresh, file_server_2)])
    after
        peer:stop(Fresh)
    end,
    WithJob = start_peer([os:find_executable("env")]),
    try
        ?assertEqual([], peer:call(WithJob, ?MODULE, open_sends, [true]))
    after
        peer:stop(WithJob)
    end.

%%--------------------------------------------------------------------
%% Internal exports

%% In a fresh peer: what open/0 sends, spawns and opens (after a job started, when
%% StartJob).
-spec open_sends(boolean()) -> [tuple()].
open_sends(StartJob) ->
    Jobs = [begin {ok, Job} = erlperf_job:start(#{runner => {erlang, node, []}}), Job end || StartJob],
    try
        traced(fun () -> erlperf_interference:close(erlperf_interference:open()) end)
    after
        _ = [erlperf_job:stop(Job) || Job <- Jobs]
    end.

%% In the peer: a busy process on the one scheduler, measured for Ms milliseconds, beside
%% an OS busy loop on the same CPU when Hog is true.
-spec measure(pos_integer(), boolean()) -> erlperf_interference:figures().
measure(Ms, Hog) ->
    Hogs = [start_hog() || Hog],
    Busy = spawn(?MODULE, spin, []),
    Handle = erlperf_interference:open(),
    try
        ok = erlperf_interference:available(Handle),
        Before = erlperf_interference:read(Handle),
        receive after Ms -> ok end,  % the measured time, not a synchronisation
        erlperf_interference:delta(Before, erlperf_interference:read(Handle))
    after
        exit(Busy, kill),
        erlperf_interference:close(Handle),
        _ = [stop_hog(H) || H <- Hogs]
    end.

%% In the peer: its session's niceness ?NICENESS, when this user may raise a priority.
-spec boost() -> ok | {error, file:posix() | badarg | terminated | system_limit}.
boost() ->
    file:write_file("/proc/self/autogroup", ?NICENESS).

-spec spin() -> no_return().
spin() ->
    spin().

%%--------------------------------------------------------------------
%% Internal functions

%% Measurements alone until one ran at least ?ALONE_CPU of the time, or the last one.
alone(Peer, Tries) ->
    Figures = peer:call(Peer, ?MODULE, measure, [?MEASURE_MS, false], ?CALL_TIMEOUT_MS),
    case ratio(Figures) > ?ALONE_CPU of
        true ->
            Figures;
        false when Tries > 1 ->
            ct:log("alone, but the scheduler ran only ~.2f of the time: ~p", [ratio(Figures), Figures]),
            alone(Peer, Tries - 1);
        false ->
            ct:fail({alone_cpu_below, ?ALONE_CPU, Figures})
    end.

check_runnable(#{wall_ns := Wall, cpu_ns := Cpu, wait_ns := Wait} = Figures) ->
    ?assert(Cpu + Wait > ?RUNNABLE_MIN * Wall andalso Cpu + Wait < ?RUNNABLE_MAX * Wall, Figures).

ratio(#{wall_ns := Wall, cpu_ns := Cpu}) ->
    Cpu / Wall.

%% A peer VM (not distributed: the control connection is its standard input and output)
%% with one scheduler and one dirty CPU scheduler, started under Pin (commands giving it
%% a session and one CPU).
start_peer([Exec | Args]) ->
    Erl = filename:join([code:root_dir(), "bin", "erl"]),
    Paths = [filename:dirname(code:which(erlperf_interference)), filename:dirname(code:which(?MODULE))],
    {ok, Peer, _Node} = peer:start_link(#{connection => standard_io,
                                          exec => {Exec, Args ++ [Erl]},
                                          args => ["+S", "1:1", "+SDcpu", "1:1", "-pa" | Paths]}),
    Peer.

%% In the peer: an OS busy loop, on the peer's CPU (a child keeps its parent's). A port's
%% program starts a session of its own: it takes the peer's priority as the peer did
%% (`boost/0'), when it may. Its shell waits on standard input and kills the loop when
%% that closes (when the port closes, or the peer goes): the loop never outlives the test.
start_hog() ->
    Port = open_port({spawn_executable, "/bin/sh"},
                     [{args, ["-c", "echo " ?NICENESS " > /proc/self/autogroup 2>/dev/null; "
                                    "while :; do :; done & echo $!; read x; kill $!"]},
                      {line, 64}, binary, use_stdio]),
    receive
        {Port, {data, {eol, Pid}}} -> {Port, binary_to_list(Pid)}
    after ?HOG_TIMEOUT_MS ->
        port_close(Port),
        error(busy_loop_not_started)
    end.

stop_hog({Port, Pid}) ->
    port_close(Port),
    _ = os:cmd("kill -9 " ++ Pid),
    ok.

%% The first CPU this VM may run on (/proc/self/status: "Cpus_allowed_list:\t0-1,4").
first_cpu() ->
    {ok, Status} = file:read_file("/proc/self/status"),
    {match, [Cpu]} = re:run(Status, "^Cpus_allowed_list:\\s*([0-9]+)", [multiline, {capture, all_but_first, list}]),
    Cpu.

whereis_in(Peer, Name) ->
    peer:call(Peer, erlang, whereis, [Name]).

open_files() ->
    {ok, Fds} = file:list_dir("/proc/self/fd"),
    length(Fds).

%% The messages sent, processes spawned and ports opened while Fun runs in this process.
traced(Fun) ->
    Tracer = spawn_link(fun () -> collect([]) end),
    1 = erlang:trace(self(), true, [send, procs, ports, {tracer, Tracer}]),
    try
        _ = Fun()
    after
        1 = erlang:trace(self(), false, [send, procs, ports])
    end,
    Ref = erlang:trace_delivered(self()),
    receive {trace_delivered, _, Ref} -> ok end,
    Tracer ! {self(), events},
    receive {Tracer, Events} -> Events end.

collect(Events) ->
    receive
        {From, events} when is_pid(From) -> From ! {self(), lists:reverse(Events)};
        Event -> collect([Event | Events])
    end.
