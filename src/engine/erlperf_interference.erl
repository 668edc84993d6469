%%% @doc Interference: per benchmark sample, how much of the VM's scheduler threads' time
%%% other threads of the host took, and the CPU time those threads actually ran, read from
%%% Linux's per-thread scheduler statistics. {@link open/0} finds the scheduler threads,
%%% {@link read/1} reads their counters (and the host's CPU pressure and steal), and
%%% {@link delta/2} turns two readings into a sample's figures.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>scheduler threads</b>: the VM's normal schedulers (threads named
%%%       `1_scheduler', `2_scheduler', ... before OTP 27, `erts_sched_1', ... from it)
%%%       and dirty CPU schedulers (`1_dirty_cpu_sch', `erts_dcpus_1'; the kernel keeps
%%%       15 characters of a name), which run Erlang code and CPU-bound
%%%       NIFs. Dirty IO schedulers, async and auxiliary threads are left out.</li>
%%%   <li><b>run time</b> (`run_ns', `cpu_ns'): nanoseconds the scheduler threads spent on
%%%       a CPU, summed over the threads (`/proc/self/task/TID/schedstat', first number).
%%%       A scheduler that spins before sleeping (`+sbwt') runs too.</li>
%%%   <li><b>wait time</b> (`wait_ns'): nanoseconds the scheduler threads were runnable
%%%       but waited on a run queue for a CPU (schedstat's second number): time some other
%%%       thread of the host had their CPU. The other thread may be another program, or
%%%       one of this VM's own threads when the VM has more busy threads than the CPUs it
%%%       may use (more schedulers than CPUs, a busy dirty IO scheduler).</li>
%%%   <li><b>share</b>: wait / (run + wait), the share of the schedulers' runnable time
%%%       that others took: about 0 on a quiet host, 0.5 when one busy thread of another
%%%       program shares the CPU of one busy scheduler. `undefined' when nothing ran.</li>
%%%   <li><b>pressure</b>: the host's CPU pressure (`/proc/pressure/cpu', "some" line):
%%%       the share of the sample's wall-clock time during which at least one thread of
%%%       the host, any program's, waited for a CPU. Host-wide, unlike the share.</li>
%%%   <li><b>steal</b>: the share of the host's CPU time (`/proc/stat' ticks: user, nice,
%%%       system, idle, iowait, irq, softirq, steal) that the hypervisor gave to other
%%%       virtual machines. Host-wide; 0 outside a virtual machine.</li>
%%% </ul>
%%%
%%% Example (every field is `undefined' where the platform does not offer it):
%%% ```
%%% Handle = erlperf_interference:open(),
%%% Before = erlperf_interference:read(Handle),
%%% _ = lists:sum(lists:seq(1, 1000000)),
%%% After = erlperf_interference:read(Handle),
%%% #{wall_ns := Wall, cpu_ns := Cpu, share := Share} = erlperf_interference:delta(Before, After),
%%% ok = erlperf_interference:close(Handle).
%%% '''
%%% On a platform without these statistics, {@link available/1} says why and
%%% {@link format_unavailable/1} renders that in one line for users.
%%%
%%% Cost and safety: {@link open/0} opens as raw files (no file server, no port) one
%%% schedstat file per scheduler thread and the two host-wide files: call it once per
%%% run, in the process that will read. Which threads are the schedulers is found once
%%% per VM ({@link prepare/0}: it lists the VM's threads and reads each one's name) and
%%% kept in a `persistent_term': a scheduler thread lives as long as the VM. The listing
%%% is a call to the file server, which a VM running many busy processes at normal
%%% priority answers in seconds (about 1 s beside 100,000 of them): erlperf_job calls
%%% {@link prepare/0} before it starts workers, so that sampling never waits for it.
%%% {@link read/1} then re-reads each open file from its start
%%% (one `file:pread/3' of at most `?READ_BYTES' bytes): no process spawned, no port
%%% opened, no message sent, no command run. In another process than the one that opened
%%% it, a handle still works, but opens, reads and closes each file at every read (several
%%% times the cost). A read never raises: a file that vanished or does not parse
%%% gives `undefined' fields. Its cost grows with the number of scheduler threads (normal
%%% and dirty CPU: twice the CPUs by default). The files close with {@link close/1}, or
%%% when the process that opened them exits.
-module(erlperf_interference).

%% API: erlperf_sampler opens a handle once per run and reads it at every sample.
-export([open/0, read/1, delta/2, available/1, format_unavailable/1, close/1]).
%% API: erlperf_job finds the scheduler threads before it starts workers.
-export([prepare/0]).

%% Internal exports: the parsing and arithmetic, pure (tested on their own).
-export([parse_schedstat/1, parse_pressure/1, parse_stat/1, parse_idle/1, scheduler_thread/1, share/2]).

-export_type([handle/0, reading/0, figures/0, reason/0]).

%% Why nothing of the schedulers can be measured: not Linux; no per-thread statistics
%% (/proc not mounted, a kernel without CONFIG_SCHED_INFO); no thread named like a
%% scheduler (a runtime that names its threads otherwise).
-type reason() :: not_linux | no_schedstat | no_scheduler_threads.

%% The process that opened the files (only it may read them: others read by path); the
%% schedstat files of the scheduler threads found, or why there are none (on Linux,
%% pressure and steal are read all the same); the host-wide files (`none' when they
%% could not be opened); the CPUs this VM may run on.
-opaque handle() :: #{owner := pid(),
                      schedulers := [source()] | {unavailable, reason()},
                      pressure := source() | none,
                      stat := source() | none,
                      cpus := pos_integer()}.

%% A file, and the raw file its owner opened.
-type source() :: {file:filename(), file:fd()}.

%% The counters at one instant: `erlang:monotonic_time(nanosecond)' when read; run and
%% run-queue wait nanoseconds summed over the scheduler threads; the host's CPU pressure
%% ("some" total, microseconds); the host's steal ticks and all its ticks.
-type reading() :: #{time := integer(),
                     run_ns := non_neg_integer() | undefined,
                     wait_ns := non_neg_integer() | undefined,
                     threads => [{non_neg_integer(), non_neg_integer()}] | undefined,
                     psi_us := non_neg_integer() | undefined,
                     steal := non_neg_integer() | undefined,
                     ticks := non_neg_integer() | undefined,
                     idle => non_neg_integer() | undefined,
                     cpus => pos_integer()}.

%% Between two readings: wall-clock nanoseconds; the CPU time the scheduler threads ran
%% and waited on a run queue, all of them and those busy in the span (see
%% ?BUSY_SHARE); the share (wait / (run + wait), all threads); the pressure (0..1 of
%% the wall-clock time) and the steal (0..1 of the host's ticks); the host's ticks and
%% idle ticks (idle and I/O wait) and its CPUs, from which the share of the host's CPUs
%% that other programs kept busy is told over a run (erlperf_record: a span of a tenth
%% of a second holds too few ticks, 100 a second a CPU).
-type figures() :: #{wall_ns := non_neg_integer(),
                     cpu_ns := non_neg_integer() | undefined,
                     wait_ns := non_neg_integer() | undefined,
                     busy_cpu_ns := non_neg_integer() | undefined,
                     busy_wait_ns := non_neg_integer() | undefined,
                     share := float() | undefined,
                     pressure := float() | undefined,
                     steal := float() | undefined,
                     host_ticks => non_neg_integer() | undefined,
                     host_idle => non_neg_integer() | undefined,
                     cpus => pos_integer() | undefined}.

%% A scheduler thread is busy in a span when it ran or waited to run for at least this
%% share of it: it had work all along (a worker), not now and then (the sampler, an
%% idle scheduler spinning before it sleeps).
-define(BUSY_SHARE, 0.5).
%% The VM's threads, one directory each.
-define(TASKS, "/proc/self/task").
%% Where the scheduler threads' schedstat files found in this VM are kept.
-define(PATHS_KEY, {?MODULE, schedstat_paths}).
%% Host-wide CPU pressure (Linux 4.20 and later, when the kernel has PSI enabled).
-define(PRESSURE, "/proc/pressure/cpu").
%% Host-wide CPU time in ticks; its first line sums every CPU.
-define(STAT, "/proc/stat").
%% Most bytes read from a file, in one read: a schedstat, a thread's name, the pressure
%% file and /proc/stat's first line fit (the rest of /proc/stat, per CPU and interrupt
%% counts, is not needed).
-define(READ_BYTES, 4096).
%% Nanoseconds in a microsecond (pressure totals are in microseconds).
-define(NS_PER_US, 1000).

%%--------------------------------------------------------------------
%% API

%% @doc Finds this VM's scheduler threads (normal and dirty CPU), once per VM (see
%% {@link prepare/0}), and opens their statistics and the host-wide files for the
%% calling process to read.
-spec open() -> handle().
open() ->
    case os:type() of
        {unix, linux} ->
            #{owner => self(), schedulers => open_schedulers(), pressure => source(?PRESSURE),
              stat => source(?STAT), cpus => cpus()};
        _ ->
            #{owner => self(), schedulers => {unavailable, not_linux}, pressure => none,
              stat => none, cpus => cpus()}
    end.

%% @doc Finds which of this VM's threads are its schedulers (normal and dirty CPU), if
%% not done yet, and keeps their schedstat files' paths for every later {@link open/0}.
%% Cheap after the first call; the first lists the VM's threads through the file server.
-spec prepare() -> ok.
prepare() ->
    _ = schedstat_paths(),
    ok.

%% @doc Reads the counters: the scheduler threads' run and wait time, the host's CPU
%% pressure and steal. Never raises: what cannot be read is `undefined'.
-spec read(handle()) -> reading().
read(#{owner := Owner, schedulers := Schedulers, pressure := Pressure, stat := Stat, cpus := Cpus}) ->
    Time = erlang:monotonic_time(nanosecond),
    Mine = Owner =:= self(),
    Threads = threads(Schedulers, Mine),
    {Run, Wait} = sum(Threads),
    StatLine = read_source(Stat, Mine),
    {Steal, Ticks} = steal(parse_stat(StatLine)),
    #{idle => parse_idle(StatLine), cpus => Cpus, time => Time, run_ns => Run, wait_ns => Wait, threads => Threads,
      psi_us => parse_pressure(read_source(Pressure, Mine)), steal => Steal, ticks => Ticks}.

%% @doc The figures of the time between two readings of the same handle, `Earlier'
%% first. A counter missing from either reading (or going backwards: a thread that
%% vanished) gives `undefined'.
-spec delta(Earlier :: reading(), Later :: reading()) -> figures().
delta(#{time := T0} = Earlier, #{time := T1} = Later) when T1 >= T0 ->
    Wall = T1 - T0,
    Cpu = diff(run_ns, Earlier, Later),
    Wait = diff(wait_ns, Earlier, Later),
    {BusyCpu, BusyWait} = busy(maps:get(threads, Earlier, undefined), maps:get(threads, Later, undefined),
                               Wall),
    #{wall_ns => Wall, cpu_ns => Cpu, wait_ns => Wait, share => share(Cpu, Wait),
      busy_cpu_ns => BusyCpu, busy_wait_ns => BusyWait,
      pressure => ratio(times(diff(psi_us, Earlier, Later), ?NS_PER_US), Wall),
      steal => ratio(diff(steal, Earlier, Later), diff(ticks, Earlier, Later)),
      host_ticks => diff(ticks, Earlier, Later), host_idle => diff(idle, Earlier, Later),
      cpus => maps:get(cpus, Later, undefined)};
delta(Earlier, Later) ->
    erlang:error({not_in_order, Earlier, Later}).

%% @doc Whether the scheduler threads' figures can be measured here.
-spec available(handle()) -> ok | {unavailable, reason()}.
available(#{schedulers := {unavailable, Reason}}) -> {unavailable, Reason};
available(#{schedulers := [_ | _]}) -> ok.

%% @doc Closes the handle's files, when called by the process that opened them (they
%% close anyway when it exits). The handle is not to be read after.
-spec close(handle()) -> ok.
close(#{owner := Owner} = Handle) when Owner =:= self() ->
    _ = [file:close(Fd) || {_, Fd} <- sources(Handle)],
    ok;
close(#{}) ->
    ok.

%% @doc One line for users saying why interference is not measured.
-spec format_unavailable(reason()) -> string().
format_unavailable(not_linux) ->
    "interference not measured: only Linux gives per-thread scheduler statistics "
    "(/proc/PID/task/TID/schedstat), and this platform is not Linux";
format_unavailable(no_schedstat) ->
    "interference not measured: this platform has no per-thread scheduler statistics "
    "(Linux /proc/PID/task/TID/schedstat: /proc not mounted, or a kernel without "
    "CONFIG_SCHED_INFO)";
format_unavailable(no_scheduler_threads) ->
    "interference not measured: no thread of this VM is named like a scheduler "
    "(1_scheduler or erts_sched_1, 1_dirty_cpu_sch or erts_dcpus_1), so the schedulers' "
    "statistics cannot be told apart".

%%--------------------------------------------------------------------
%% Internal exports

%% @doc A schedstat's run and wait nanoseconds (`"RUN WAIT SLICES\n"'), or `undefined'.
-spec parse_schedstat(binary() | undefined) ->
          {Run :: non_neg_integer(), Wait :: non_neg_integer()} | undefined.
parse_schedstat(Text) ->
    case integers(Text) of
        [Run, Wait | _] -> {Run, Wait};
        _ -> undefined
    end.

%% @doc The "some" line's `total=' microseconds of `/proc/pressure/cpu', or `undefined'.
-spec parse_pressure(binary() | undefined) -> non_neg_integer() | undefined.
parse_pressure(undefined) ->
    undefined;
parse_pressure(Text) ->
    case [L || <<"some ", L/binary>> <- binary:split(Text, <<"\n">>, [global])] of
        [Line | _] -> total(binary:split(Line, <<" ">>, [global, trim_all]));
        [] -> undefined
    end.

%% @doc Steal ticks and all ticks (user, nice, system, idle, iowait, irq, softirq,
%% steal; guest time is already in user and nice) from `/proc/stat''s first line,
%% or `undefined'.
-spec parse_stat(binary() | undefined) ->
          {Steal :: non_neg_integer(), Ticks :: non_neg_integer()} | undefined.
parse_stat(<<"cpu ", Rest/binary>>) ->
    case integers(Rest) of
        [_, _, _, _, _, _, _, Steal | _] = Ticks -> {Steal, lists:sum(lists:sublist(Ticks, 8))};
        _ -> undefined
    end;
parse_stat(_) ->
    undefined.

%% @doc Idle and I/O wait ticks of `/proc/stat''s first line (the host's CPUs doing
%% nothing), or `undefined'.
-spec parse_idle(binary() | undefined) -> non_neg_integer() | undefined.
parse_idle(<<"cpu ", Rest/binary>>) ->
    case integers(Rest) of
        [_, _, _, Idle, IoWait | _] -> Idle + IoWait;
        _ -> undefined
    end;
parse_idle(_) ->
    undefined.

%% @doc Whether a thread's name (its `comm' file) is a normal or dirty CPU scheduler's:
%% `1_scheduler', `1_dirty_cpu_sch' (OTP 25 and 26), `erts_sched_1', `erts_dcpus_1'
%% (OTP 27 and later).
-spec scheduler_thread(binary() | undefined) -> boolean().
scheduler_thread(undefined) ->
    false;
scheduler_thread(Comm) ->
    case first_line(Comm) of
        <<"erts_sched_", N/binary>> -> digits(N);
        <<"erts_dcpus_", N/binary>> -> digits(N);
        Line ->
            case binary:split(Line, <<"_">>) of
                [<<_, _/binary>> = N, <<"scheduler">>] -> digits(N);
                [<<_, _/binary>> = N, <<"dirty_cpu", _/binary>>] -> digits(N);
                _ -> false
            end
    end.

%% @doc Wait / (run + wait): the share of the runnable time that others took;
%% `undefined' when either is or when nothing ran.
-spec share(Run :: non_neg_integer() | undefined, Wait :: non_neg_integer() | undefined) ->
          float() | undefined.
share(Run, Wait) when is_integer(Run), is_integer(Wait), Run + Wait > 0 ->
    Wait / (Run + Wait);
share(_, _) ->
    undefined.

%%--------------------------------------------------------------------
%% Internal functions

open_schedulers() ->
    case schedstat_paths() of
        {ok, Paths} -> open_schedstats(Paths);
        unavailable -> {unavailable, no_schedstat}
    end.

%% The scheduler threads' schedstat files, found at the first call in this VM.
schedstat_paths() ->
    case persistent_term:get(?PATHS_KEY, undefined) of
        undefined ->
            Paths = find_schedstat_paths(),
            persistent_term:put(?PATHS_KEY, Paths),
            Paths;
        Paths ->
            Paths
    end.

find_schedstat_paths() ->
    case file:list_dir(?TASKS) of
        {ok, Tids} ->
            {ok, [filename:join([?TASKS, T, "schedstat"])
                  || T <- lists:sort(Tids), scheduler_thread(read_head(filename:join([?TASKS, T, "comm"])))]};
        {error, _} ->
            unavailable
    end.

open_schedstats([]) ->
    {unavailable, no_scheduler_threads};
open_schedstats(Paths) ->
    Sources = [source(P) || P <- Paths],
    case lists:member(none, Sources) orelse threads(Sources, true) =:= undefined of
        true ->
            _ = [file:close(Fd) || {_, Fd} <- Sources],
            {unavailable, no_schedstat};
        false ->
            Sources
    end.

source(Path) ->
    case file:open(Path, [read, raw, binary]) of
        {ok, Fd} -> {Path, Fd};
        {error, _} -> none
    end.

sources(#{schedulers := Schedulers, pressure := Pressure, stat := Stat}) ->
    [S || S = {_, _} <- [Pressure, Stat | case Schedulers of [_ | _] -> Schedulers; _ -> [] end]].

%% Each scheduler's run and wait time, in the handle's order; `undefined' when one is
%% missing.
threads({unavailable, _}, _Mine) ->
    undefined;
threads(Sources, Mine) ->
    Read = [parse_schedstat(read_source(Source, Mine)) || Source <- Sources],
    case lists:member(undefined, Read) of
        true -> undefined;
        false -> Read
    end.

%% The run and wait time summed over the schedulers.
sum(undefined) ->
    {undefined, undefined};
sum(Threads) ->
    {lists:sum([R || {R, _} <- Threads]), lists:sum([W || {_, W} <- Threads])}.

%% The run and wait time of the threads busy between two readings (see ?BUSY_SHARE);
%% `undefined' when a reading has no threads, or a thread's counters went backwards.
busy([_ | _] = Threads0, [_ | _] = Threads1, Wall) when length(Threads0) =:= length(Threads1) ->
    Deltas = [{R1 - R0, W1 - W0} || {{R0, W0}, {R1, W1}} <- lists:zip(Threads0, Threads1)],
    case [D || {R, W} = D <- Deltas, R < 0 orelse W < 0] of
        [] ->
            Busy = [D || {R, W} = D <- Deltas, R + W >= ?BUSY_SHARE * Wall],
            sum(Busy);
        _ ->
            {undefined, undefined}
    end;
busy(_Threads0, _Threads1, _Wall) ->
    {undefined, undefined}.

%% The CPUs this VM may run on.
cpus() ->
    case [N || N <- [erlang:system_info(logical_processors_available),
                     erlang:system_info(logical_processors_online)], is_integer(N)] of
        [N | _] -> N;
        [] -> 1
    end.

steal({_, _} = StealTicks) -> StealTicks;
steal(undefined) -> {undefined, undefined}.

%% A source's first ?READ_BYTES bytes, or `undefined': read again from the start of the
%% open file by its owner, opened anew by any other process.
read_source(none, _Mine) ->
    undefined;
read_source({_, Fd}, true) ->
    try file:pread(Fd, 0, ?READ_BYTES) of
        {ok, Data} -> Data;
        _ -> undefined
    catch
        _:_ -> undefined
    end;
read_source({Path, _}, false) ->
    read_head(Path).

%% The first ?READ_BYTES bytes of a file, or `undefined'. Raw: no file server, no port.
read_head(Path) ->
    try read_raw(Path)
    catch _:_ -> undefined
    end.

read_raw(Path) ->
    case file:open(Path, [read, raw, binary]) of
        {ok, Fd} ->
            try file:read(Fd, ?READ_BYTES) of
                {ok, Data} -> Data;
                _ -> undefined
            after
                _ = file:close(Fd)
            end;
        {error, _} ->
            undefined
    end.

%% What comes before the first newline (a file's content may be any bytes).
first_line(Bin) ->
    [Line | _] = binary:split(Bin, <<"\n">>),
    Line.

total([<<"total=", N/binary>> | _]) ->
    case integers(N) of
        [Total] -> Total;
        _ -> undefined
    end;
total([_ | Fields]) ->
    total(Fields);
total([]) ->
    undefined.

%% The non-negative integers of a line of fields separated by spaces, or `undefined'
%% when one is not.
integers(undefined) ->
    undefined;
integers(Line) ->
    Fields = binary:split(first_line(Line), <<" ">>, [global, trim_all]),
    case lists:all(fun digits/1, Fields) of
        true -> [binary_to_integer(F) || F <- Fields];
        false -> undefined
    end.

digits(<<>>) -> false;
digits(Bin) -> lists:all(fun (C) -> C >= $0 andalso C =< $9 end, binary_to_list(Bin)).

diff(Key, Earlier, Later) ->
    case {maps:get(Key, Earlier, undefined), maps:get(Key, Later, undefined)} of
        {A, B} when is_integer(A), is_integer(B), B >= A -> B - A;
        _ -> undefined
    end.

times(undefined, _) -> undefined;
times(N, Factor) -> N * Factor.

%% A share, at most 1 (two files are not read at the same instant).
ratio(N, D) when is_integer(N), is_integer(D), D > 0 -> min(1.0, N / D);
ratio(_, _) -> undefined.
