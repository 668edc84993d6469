%%% @doc Prints the samples of the VM monitor of this node as a table, one line per second.
%%%
%%% A real run, a job running `rand:uniform()' with one worker (the header is printed
%%% again when the job appears):
%%% ```
%%% YYYY-MM-DDTHH:MM:SS-oo:oo  Sched   DCPU    DIO    Procs    Ports     ETS Mem Total  Mem Proc   Mem Bin   Mem ETS     <0.88.0>
%%% 2026-11-22T08:17:26+00:00  47.93   0.00   0.05       47        3      21  17241 Kb   4560 Kb     31 Kb    396 Kb      4848 Ki
%%% 2026-11-22T08:17:27+00:00  51.07   0.00   0.03       47        3      21  19093 Kb   4649 Kb    657 Kb    398 Kb      4091 Ki
%%% '''
%%% Columns: local time of the sample, utilisation in percent of normal, dirty CPU and
%%% dirty IO schedulers, process, port and ETS table counts, memory (total, processes,
%%% binaries, ETS; Kb, Mb or Gb) and one column per running job, headed by the job's pid,
%%% with the iterations it did during that second (Ki = 1000, Mi = 1000 Ki, as in the
%%% results table; memory in Kb = 1024 bytes, Mb, Gb).
%%% The header is printed first, again every ?HEADER_EVERY lines, and whenever the set of
%%% jobs changes.
%%%
%%% Example (the samples come from the monitor of the `erlperf' application, which
%%% `start_link/0,1' starts when it is not running):
%%% ```
%%% {ok, Log} = erlperf_file_log:start_link(),              % to the caller's group leader
%%% {ok, File} = erlperf_file_log:start_link("vm.log").   % to a file (truncated)
%%% '''
%%% Cost and safety: one formatted line per second; the log is linked to the caller, and
%%% closes the file it opened when it stops.
-module(erlperf_file_log).
-behaviour(gen_server).

%% API: called by erlperf_cli (-v) and users.
-export([start_link/0, start_link/1, header/1, line/1]).

%% Internal export: called by erlperf_cluster_monitor, which prints to the same targets.
-export([open/1]).

%% Behaviour callbacks: called by gen_server.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

-export_type([target/0]).

%% Width of a job column (a longer pid widens it: io_lib would cut it).
-define(JOB_WIDTH, 12).
%% Lines printed between two repetitions of the header.
-define(HEADER_EVERY, 30).

%% Where to print: an io device (pid or registered name) or a file name.
-type target() :: io:device() | file:filename_all().

-record(state, {
    device :: io:device(),
    close :: boolean(),                 % the log opened the device, and closes it
    jobs :: [pid()] | undefined,        % job columns of the last header
    lines = 0 :: non_neg_integer()      % lines printed since the last header
}).

%%--------------------------------------------------------------------
%% API

%% @doc Starts a log printing to the group leader of the caller (the console).
-spec start_link() -> gen_server:start_ret() | {error, {erlperf, term()}}.
start_link() ->
    start_link(group_leader()).

%% @doc Starts a log printing to an io device, or to a file (created or truncated).
%% The samples come from the monitor of the `erlperf' application: it is started first
%% when it is not running (as `erlperf:start/2' does), and `{error, {erlperf, Reason}}'
%% is returned when it cannot be.
-spec start_link(target()) -> gen_server:start_ret() | {error, {erlperf, term()}}.
start_link(Target) when is_pid(Target); is_atom(Target); is_list(Target); is_binary(Target) ->
    case application:ensure_all_started(erlperf) of
        {ok, _Started} -> gen_server:start_link(?MODULE, Target, []);
        {error, Reason} -> {error, {erlperf, Reason}}
    end;
start_link(Target) ->
    erlang:error({invalid_option, target, Target}).

%% @doc The header line for a sample with these jobs (no trailing newline).
-spec header([pid()]) -> iolist().
header(Jobs) ->
    [io_lib:format("~-25s ~6s ~6s ~6s ~8s ~8s ~7s ~9s ~9s ~9s ~9s",
                   ["YYYY-MM-DDTHH:MM:SS-oo:oo", "Sched", "DCPU", "DIO", "Procs", "Ports",
                    "ETS", "Mem Total", "Mem Proc", "Mem Bin", "Mem ETS"]),
     [[$\s, string:pad(pid_to_list(Pid), ?JOB_WIDTH, leading)] || Pid <- Jobs]].

%% @doc The table line for a sample (no trailing newline).
-spec line(erlperf_monitor:monitor_sample()) -> iolist().
line(#{time := Time, sched_util := Sched, dcpu := Dcpu, dio := Dio,
       processes := Procs, ports := Ports, ets := Ets, memory_total := Total,
       memory_processes := MemProcs, memory_binary := Bin, memory_ets := MemEts,
       jobs := Jobs}) ->
    Stamp = calendar:system_time_to_rfc3339(Time div 1000, [{unit, second}]),
    [io_lib:format("~-25s ~6.2f ~6.2f ~6.2f ~8b ~8b ~7b ~9s ~9s ~9s ~9s",
                   [Stamp, Sched, Dcpu, Dio, Procs, Ports, Ets, memory(Total),
                    memory(MemProcs), memory(Bin), memory(MemEts)]),
     [[$\s, string:pad(count(Count), ?JOB_WIDTH, leading)] || {_Pid, Count} <- Jobs]].

%%--------------------------------------------------------------------
%% Behaviour callbacks

-spec init(target()) -> {ok, #state{}} | {stop, term()}.
init(Target) ->
    case open(Target) of
        {ok, Device, Close} ->
            ok = erlperf_monitor:subscribe(),
            {ok, #state{device = Device, close = Close}};
        {error, Reason} ->
            {stop, {open, Target, Reason}}
    end.

-spec handle_call(term(), gen_server:from(), #state{}) -> {reply, {error, badarg}, #state{}}.
handle_call(_Request, _From, State) ->
    {reply, {error, badarg}, State}.

-spec handle_cast(term(), #state{}) -> {noreply, #state{}}.
handle_cast(_Msg, State) ->
    {noreply, State}.

%% A device that has gone (standard output closed under a pipe) ends the log normally:
%% there is nothing left to write to, and the process that linked to it goes on.
-spec handle_info(term(), #state{}) -> {noreply, #state{}} | {stop, normal, #state{}}.
handle_info(#{jobs := Jobs, time := _} = Sample, State) ->
    Pids = [Pid || {Pid, _} <- Jobs],
    try
        State1 = maybe_header(Pids, State),
        ok = io:put_chars(State1#state.device, [line(Sample), $\n]),
        {noreply, State1#state{lines = State1#state.lines + 1}}
    catch
        error:terminated -> {stop, normal, State}
    end;
handle_info(_Msg, State) ->
    {noreply, State}.

-spec terminate(term(), #state{}) -> ok.
terminate(_Reason, #state{device = Device, close = true}) ->
    _ = file:close(Device),
    ok;
terminate(_Reason, #state{}) ->
    ok.

%%--------------------------------------------------------------------
%% Internal functions

%% @private
%% Opens a target: an io device as it is, a file name created or truncated. The boolean
%% says whether the caller must close the device when done.
-spec open(target()) -> {ok, io:device(), boolean()} | {error, term()}.
open(Device) when is_pid(Device); is_atom(Device) ->
    {ok, Device, false};
open(FileName) ->
    case file:open(FileName, [write]) of
        {ok, Device} -> {ok, Device, true};
        {error, _} = Error -> Error
    end.

maybe_header(Pids, #state{jobs = Pids, lines = Lines} = State) when Lines < ?HEADER_EVERY ->
    State;
maybe_header(Pids, #state{device = Device} = State) ->
    ok = io:put_chars(Device, [header(Pids), $\n]),
    State#state{jobs = Pids, lines = 0}.

memory(Bytes) ->
    erlperf_units:size(Bytes).

count(Count) ->
    erlperf_units:count(Count).
