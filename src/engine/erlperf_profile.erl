%%% @doc Profiles a job's runner with one of OTP's profilers for a short, bounded time,
%%% in workers of its own, and returns the functions they spend their time in, as data.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>tool</b>: the profiler.
%%%       `eprof': time per function from `call_time' tracing of the traced workers only;
%%%       `fprof': every call of the traced workers written to a trace file, then
%%%       analysed (own time per function; `garbage_collect' is the time spent
%%%       collecting garbage);
%%%       `cprof': call counts only, from `call_count' patterns, which count the calls
%%%       of every process of the node (there is no per-process counting);
%%%       `tprof' (OTP 27 and later only: {@link tools/0} lists what this node has):
%%%       calls and own time from a `call_time' session, like eprof, then heap bytes
%%%       per call of each function from a `call_memory' session of `?TPROF_MEMORY_MS'
%%%       (`bytes_per_call'; 0 for a function that allocated nothing then).</li>
%%%   <li><b>profile workers</b>: fresh workers of the job, as many as the run had (at
%%%       most `?MAX_TRACED_WORKERS'), each running `init_runner' and then the runner in
%%%       a loop that neither counts nor publishes (see
%%%       {@link erlperf_job:profile_workers/2}), so that the harness hardly shows: the
%%%       generated module's `'erlperf timed_loop'/1' is the loop, with the runner's own
%%%       code inlined in it. They are the traced processes; processes they spawn are
%%%       traced too by fprof (which always follows spawns), not by eprof and tprof.</li>
%%%   <li><b>own time</b>: the time spent in a function itself, not in the functions it
%%%       calls. Percentages are of the total own time of all functions (cprof: of all
%%%       calls), not only of the top ones listed.</li>
%%%   <li><b>session</b>: a process started for one profile. It starts the tool, waits,
%%%       collects the data and stops the tool, whatever happens. Its group leader
%%%       discards output, so the tools' progress messages (fprof's "Reading trace
%%%       data...") never reach the terminal.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% {ok, Job} = erlperf_job:start(#{runner => "lists:seq(1, 100)."}),
%%% #{tool := cprof, functions := [#{mfa := {lists, seq_loop, 3}} | _]} =
%%%     erlperf_profile:profile(cprof, Job, 1),
%%% ok = erlperf_job:stop(Job).
%%% '''
%%%
%%% Cost and safety: a profile lasts `?PROFILE_MS' (fprof: `?FPROF_MS', since it writes
%%% every call to a file, about 40 MB per busy worker and second, and reading the file
%%% back takes as long again), plus the tool's own set-up and analysis (well under a
%%% second, a few seconds for fprof). eprof, fprof and cprof set trace patterns on every
%%% function of every loaded module, which slows the traced code several times over
%%% while they run. Before starting, the profile refuses to run when the tool's server
%%% already runs, when another tool has patterns set for modules yet to be loaded, or
%%% when a traced worker already has a tracer; with fprof, when any process of the node
%%% is traced (fprof turns all process tracing off when it starts and stops). The
%%% session stops the tool, removes every pattern it set, turns tracing of the workers
%%% off and deletes its temporary directory (fprof's trace and analysis files) when it
%%% ends, including when the runner crashes mid-profile (the job's crash is raised
%%% then) and when the caller exits: it monitors both. Only a session killed outright
%%% (`exit(Pid, kill)') cannot clean up.
-module(erlperf_profile).

%% API: tools/0, check/1 and choices/0 are called by erlperf and erlperf_args to
%% validate the `profile' option; profile/3 by erlperf_local after a benchmark.
-export([tools/0, check/1, choices/0, profile/3, format_error/1]).

%% Internal exports: each tool's data read into entries, and the top functions of the
%% entries; pure (tested on their own).
-export([from_eprof/1, from_fprof/1, from_cprof/1, from_tprof/1, bytes_per_call/2, top/2]).

-export_type([tool/0, profile/0, function_profile/0, entry/0]).

-type tool() :: eprof | fprof | cprof | tprof.
%% A function, or fprof's pseudo-function for garbage collection.
-type function_name() :: mfa() | garbage_collect.
%% One function in the profile: calls, own time (`undefined' with cprof, which counts
%% calls only) and share of the total own time (cprof: of all calls), in percent.
%% tprof adds the heap bytes a call of the function allocates itself.
-type function_profile() :: #{mfa := function_name(),
                              calls := non_neg_integer(),
                              time_us := number() | undefined,
                              percent := float(),
                              bytes_per_call => float()}.
%% A profile: the tool, how long it watched, how many workers it traced (cprof counts
%% the calls of every process), the totals over all functions, and the top functions,
%% most time first (cprof: most calls first). tprof then watches allocation for
%% `memory_ms'.
-type profile() :: #{tool := tool(),
                     duration_ms := pos_integer(),
                     memory_ms => pos_integer(),
                     workers := non_neg_integer(),
                     total_calls := non_neg_integer(),
                     total_us := number() | undefined,
                     functions := [function_profile()]}.
%% A function's calls and own time in microseconds, as read from a tool's data.
-type entry() :: {function_name(), non_neg_integer(), number() | undefined}.

%% How long eprof, cprof and tprof watch the workers (milliseconds).
-define(PROFILE_MS, 1000).
%% How long tprof's call_memory session watches, after its call_time one (milliseconds).
-define(TPROF_MEMORY_MS, 500).
%% How long fprof traces the workers (milliseconds): it writes every call to a file.
-define(FPROF_MS, 200).
%% Functions listed in a profile, the most expensive first.
-define(TOP_FUNCTIONS, 15).
%% Workers traced at most, whatever the concurrency (fprof's file grows with each).
-define(MAX_TRACED_WORKERS, 8).
%% Every function of every module, as trace patterns spell it.
-define(ALL_FUNCTIONS, {'_', '_', '_'}).
%% Registered names of the profilers' servers: one of them running means "in use".
-define(SERVERS, [eprof, fprof_server, tprof]).

%%--------------------------------------------------------------------
%% API

%% @doc The tools this OTP release has: tprof from OTP 27 on.
-spec tools() -> [tool()].
tools() ->
    erlperf_options:profilers().

%% @doc The tools, as a phrase for messages: before OTP 27, "eprof, fprof or cprof
%% (tprof needs OTP 27 or later; this is OTP 25)".
-spec choices() -> string().
choices() ->
    erlperf_options:profiler_choices().

%% @doc Checks, before anything runs, that the tool's modules can be loaded (they belong
%% to OTP's `tools' and `runtime_tools' applications, which some systems package
%% separately); raises `{profiler_missing, Tool, Module}' otherwise.
-spec check(tool()) -> ok.
check(Tool) ->
    lists:foreach(fun (M) ->
                          case code:ensure_loaded(M) of
                              {module, M} -> ok;
                              {error, _} -> erlang:error({profiler_missing, Tool, M})
                          end
                  end, modules(Tool)).

%% @doc Profiles the job's runner with the tool, in `Concurrency' profile workers (at
%% most `?MAX_TRACED_WORKERS'), and returns the top functions. The job's other workers
%% should be stopped. Raises `{profiler_busy, Tool, What}' when tracing is in use
%% already, and the job's exit (as a failed call to it would) when the job stops during
%% the profile: a runner crash.
-spec profile(tool(), pid(), pos_integer()) -> profile().
profile(Tool, Job, Concurrency) ->
    lists:member(Tool, tools()) orelse erlang:error({invalid_option, profile, Tool}),
    Workers = erlperf_job:profile_workers(Job, min(Concurrency, ?MAX_TRACED_WORKERS)),
    ok = check_free(Tool, Workers),
    Profile = run_session(Tool, Job, Workers),
    ok = erlperf_job:stop_profile_workers(Job),
    Profile.

run_session(Tool, Job, Workers) ->
    Caller = self(),
    Ref = make_ref(),
    {Pid, Mon} = spawn_monitor(fun () -> session(Tool, Workers, Job, {Caller, Ref}) end),
    %% the session answers once it has cleaned up
    receive
        {Ref, Outcome} ->
            erlang:demonitor(Mon, [flush]),
            outcome(Outcome, Tool, Job);
        {'DOWN', Mon, process, Pid, Reason} ->
            erlang:error({profile_failed, Tool, Reason})
    end.

%% @doc Readable text for the errors this module raises.
-spec format_error(term()) -> string().
format_error({profiler_missing, Tool, Module}) ->
    flat("cannot profile with ~ts: module ~ts of OTP's ~ts application cannot be loaded "
         "(some systems package it separately)", [Tool, Module, application_of(Module)]);
format_error({profiler_busy, Tool, {running, Server}}) ->
    flat("cannot profile with ~ts: ~ts is running already", [Tool, server_name(Server)]);
format_error({profiler_busy, Tool, {on_load, Pattern}}) ->
    flat("cannot profile with ~ts: another tool has set ~ts trace patterns", [Tool, Pattern]);
format_error({profiler_busy, Tool, {traced, Pid}}) ->
    flat("cannot profile with ~ts: process ~0p is traced already (one tracer per process)",
         [Tool, Pid]);
format_error({profile_failed, Tool, Reason}) ->
    flat("profiling with ~ts failed: ~0tP", [Tool, Reason, 12]);
format_error(Reason) ->
    flat("~0tP", [Reason, 12]).

server_name(fprof_server) -> fprof;
server_name(Server) -> Server.

%%--------------------------------------------------------------------
%% Reading the tools' data (pure)

%% @private
%% eprof:dump/0: call counts and microseconds per function, per process.
-spec from_eprof([{pid(), [{mfa(), {non_neg_integer(), non_neg_integer()}}]}]) -> [entry()].
from_eprof(Dump) ->
    merge([{MFA, Calls, Us} || {_Pid, Functions} <- Dump, {MFA, {Calls, Us}} <- Functions]).

%% @private
%% fprof's analysis file, read with file:consult/1 (written with `{callers, false}' and
%% `{details, false}'): `{Function, Count, Accumulated, Own}', times in milliseconds.
%% Pseudo-functions other than `garbage_collect' (`suspend', `undefined') are left out.
-spec from_fprof([term()]) -> [entry()].
from_fprof(Terms) ->
    merge([{Fn, Calls, Own * 1000} || {Fn, Calls, _Acc, Own} <- Terms, is_function_name(Fn),
                                      is_integer(Calls), is_number(Own)]).

%% @private
%% cprof:analyse/0: `{Total, [{Module, ModuleTotal, [{MFA, Count}]}]}'. cprof counts the
%% calls of every process: the profile session's own (this module's) are left out; the
%% few that cprof makes itself (`erlang:trace_pattern/3' and what it calls) are not.
-spec from_cprof({non_neg_integer(), [{module(), non_neg_integer(), [{mfa(), non_neg_integer()}]}]}) ->
    [entry()].
from_cprof({_Total, Modules}) ->
    merge([{MFA, Count, undefined} || {Module, _Count, Functions} <- Modules, Module =/= ?MODULE,
                                      {MFA, Count} <- Functions]).

%% @private
%% tprof:collect/0 with `type => call_time': `{call_time, [{M, F, A, [{Pid, Calls, Us}]}]}'.
-spec from_tprof({call_time, [{module(), atom(), arity(), [{pid() | all, non_neg_integer(), non_neg_integer()}]}]}) ->
    [entry()].
from_tprof({call_time, Functions}) ->
    merge([{{M, F, A}, Calls, Us} || {M, F, A, PerProcess} <- Functions,
                                     {_Pid, Calls, Us} <- PerProcess]).

%% @private
%% tprof:collect/0 with `type => call_memory': `{call_memory, [{M, F, A, [{Pid, Calls,
%% Words}]}]}' (only functions that allocated) read into heap bytes per call.
-spec bytes_per_call({call_memory, [{module(), atom(), arity(), [{pid() | all, non_neg_integer(), non_neg_integer()}]}]},
                     pos_integer()) -> #{mfa() => float()}.
bytes_per_call({call_memory, Functions}, WordSize) ->
    maps:from_list([{{M, F, A}, Words * WordSize / Calls}
                    || {M, F, A, PerProcess} <- Functions,
                       {Calls, Words} <- [lists:foldl(fun ({_Pid, C, W}, {C0, W0}) -> {C0 + C, W0 + W} end,
                                                      {0, 0}, PerProcess)],
                       Calls > 0]).

%% @private
%% The top `N' functions, most own time first (most calls first when times are
%% unknown), with their share of the total; and the totals over all entries. Functions
%% neither called nor taking time are left out.
-spec top([entry()], pos_integer()) ->
    {non_neg_integer(), number() | undefined, [function_profile()]}.
top(Entries, N) ->
    Kept = [E || {_Fn, Calls, Time} = E <- Entries, Calls > 0 orelse (is_number(Time) andalso Time > 0)],
    TotalCalls = lists:sum([C || {_, C, _} <- Kept]),
    TotalUs = total_time(Kept),
    Sorted = lists:sort(fun (A, B) -> rank(A) =< rank(B) end, Kept),
    {TotalCalls, TotalUs,
     [#{mfa => Fn, calls => Calls, time_us => Time, percent => share(Calls, Time, TotalCalls, TotalUs)}
      || {Fn, Calls, Time} <- lists:sublist(Sorted, N)]}.

%% Sums the entries of the same function (several processes).
merge(Entries) ->
    Summed = lists:foldl(fun ({Fn, Calls, Time}, Acc) ->
                                 {C0, T0} = maps:get(Fn, Acc, {0, none}),
                                 Acc#{Fn => {C0 + Calls, add_time(T0, Time)}}
                         end, #{}, Entries),
    [{Fn, Calls, Time} || {Fn, {Calls, Time}} <- lists:sort(maps:to_list(Summed))].

add_time(none, Time) -> Time;
add_time(undefined, _Time) -> undefined;
add_time(_Sum, undefined) -> undefined;
add_time(Sum, Time) -> Sum + Time.

%% Unknown when any entry has no time (cprof).
total_time(Entries) ->
    case lists:all(fun ({_, _, T}) -> is_number(T) end, Entries) of
        true -> lists:sum([T || {_, _, T} <- Entries]);
        false -> undefined
    end.

%% Sort key: most time first, then most calls, then by name (a stable order).
rank({Fn, Calls, Time}) when is_number(Time) -> {-Time, -Calls, Fn};
rank({Fn, Calls, _Unknown}) -> {0, -Calls, Fn}.

share(_Calls, Time, _TotalCalls, TotalUs) when is_number(Time), is_number(TotalUs), TotalUs > 0 ->
    100 * Time / TotalUs;
share(Calls, _Time, TotalCalls, _TotalUs) when TotalCalls > 0 ->
    100 * Calls / TotalCalls;
share(_Calls, _Time, _TotalCalls, _TotalUs) ->
    0.0.

is_function_name({M, F, A}) -> is_atom(M) andalso is_atom(F) andalso is_integer(A);
is_function_name(garbage_collect) -> true;
is_function_name(_Other) -> false.

%%--------------------------------------------------------------------
%% Checks

modules(fprof) -> [fprof, dbg];
modules(Tool) -> [Tool].

application_of(dbg) -> runtime_tools;
application_of(_Profiler) -> tools.

%% Tracing in use: a profiler's server, patterns for modules yet to be loaded (eprof,
%% cprof and fprof set them), a traced worker; for fprof, any traced process.
check_free(Tool, Workers) ->
    Servers = [S || S <- servers(Tool), whereis(S) =/= undefined],
    Patterns = [P || P <- [call_count, call_time, traced], element(2, erlang:trace_info(on_load, P)) =/= false],
    Candidates = case Tool of
                     fprof -> processes();
                     _ -> Workers
                 end,
    case {Servers, Patterns, [P || P <- Candidates, has_tracer(P)]} of
        {[], [], []} -> ok;
        {[Server | _], _, _} -> erlang:error({profiler_busy, Tool, {running, Server}});
        {[], [Pattern | _], _} -> erlang:error({profiler_busy, Tool, {on_load, Pattern}});
        {[], [], [Traced | _]} -> erlang:error({profiler_busy, Tool, {traced, Traced}})
    end.

%% fprof reads its trace file with a dbg trace client, and stops dbg afterwards.
servers(fprof) -> ?SERVERS ++ [dbg];
servers(_Tool) -> ?SERVERS.

has_tracer(Pid) ->
    case erlang:trace_info(Pid, tracer) of
        {tracer, []} -> false;
        {tracer, _Tracer} -> true;
        undefined -> false   % gone meanwhile
    end.

%%--------------------------------------------------------------------
%% Session: one process per profile

outcome({profiled, Profile}, _Tool, _Job) ->
    Profile;
outcome({job_down, Reason}, Tool, Job) ->
    %% as a call to the stopped job would exit
    exit({Reason, {?MODULE, profile, [Tool, Job]}});
outcome({failed, Reason}, Tool, _Job) ->
    erlang:error({profile_failed, Tool, Reason}).

%% Starts the tool, waits, collects, cleans up whatever happens, and then answers the
%% caller: `{profiled, Profile}', `{job_down, Reason}' or `{failed, Reason}'.
session(Tool, Workers, Job, {Caller, Ref}) ->
    Sink = spawn_link(fun discard_output/0),
    true = group_leader(Sink, self()),
    Monitors = {erlang:monitor(process, Job), erlang:monitor(process, Caller)},
    Files = files(Tool),
    Outcome = try start_and_watch(Tool, Workers, Files, Monitors)
              catch Class:Reason -> {failed, {Class, Reason}}
              after
                  cleanup(Tool, Workers, Files),
                  true = unlink(Sink),
                  exit(Sink, kill)
              end,
    Caller ! {Ref, Outcome}.

%% The traced workers are suspended while the tool starts, so that none can crash before
%% it is traced (fprof's server crashes then); they resume when the session ends, if
%% not before. cprof traces no process.
start_and_watch(Tool, Workers, Files, {JobMon, _} = Monitors) ->
    Traced = case Tool of
                 cprof -> [];
                 _ -> Workers
             end,
    case suspend(Traced) of
        ok ->
            Started = start(Tool, Workers, Files),
            _ = [erlang:resume_process(W) || W <- Traced],
            case Started of
                ok -> watch(Tool, Workers, Files, Monitors);
                Error -> {failed, Error}
            end;
        gone ->
            %% a worker that is gone has stopped the job: say why
            receive {'DOWN', JobMon, process, _, Reason} -> {job_down, Reason} end
    end.

suspend([]) ->
    ok;
suspend([W | Rest]) ->
    try erlang:suspend_process(W) of
        true -> suspend(Rest)
    catch error:badarg ->
        gone
    end.

%% Waits as long as the tool watches, unless the job or the caller goes first; tprof
%% then watches allocation.
watch(Tool, Workers, Files, Monitors) ->
    Duration = duration(Tool),
    case wait(Duration, Monitors) of
        ok ->
            {TotalCalls, TotalUs, Top} = top(collect(Tool, Files), ?TOP_FUNCTIONS),
            Profile = #{tool => Tool, duration_ms => Duration, workers => length(Workers),
                        total_calls => TotalCalls, total_us => TotalUs, functions => Top},
            case Tool of
                tprof -> watch_memory(Workers, Monitors, Profile);
                _ -> {profiled, Profile}
            end;
        Down ->
            Down
    end.

%% `ok' after Ms, or why the job or the caller went first.
wait(Ms, {JobMon, CallerMon}) ->
    receive
        {'DOWN', JobMon, process, _, Reason} -> {job_down, Reason};
        {'DOWN', CallerMon, process, _, Reason} -> {caller_down, Reason}
    after Ms ->
        ok
    end.

duration(fprof) -> ?FPROF_MS;
duration(_Tool) -> ?PROFILE_MS.

%% A group leader that accepts all output and discards it.
discard_output() ->
    receive
        {io_request, From, ReplyAs, _Request} ->
            From ! {io_reply, ReplyAs, ok},
            discard_output();
        _Other ->
            discard_output()
    end.

%% fprof's trace and analysis files, in a directory of their own (made by start/3).
files(fprof) ->
    Dir = filename:join(erlperf_system:temp_dir(), flat("erlperf_profile_~s_~b",
                                          [os:getpid(), erlang:unique_integer([positive])])),
    #{dir => Dir, trace => filename:join(Dir, "fprof.trace"),
      analysis => filename:join(Dir, "fprof.analysis")};
files(_Tool) ->
    #{}.

%% `ok', or what the tool answered instead.
start(eprof, Workers, _Files) ->
    {ok, _} = eprof:start(),
    case eprof:start_profiling(Workers, ?ALL_FUNCTIONS, []) of
        profiling -> ok;
        Error -> Error
    end;
start(fprof, Workers, #{dir := Dir, trace := Trace}) ->
    case file:make_dir(Dir) of
        ok -> fprof:trace([start, {procs, Workers}, {file, Trace}]);
        {error, Reason} -> {temp_dir, Dir, file:format_error(Reason)}
    end;
start(cprof, _Workers, _Files) ->
    _ = cprof:start(),
    ok;
start(tprof, Workers, _Files) ->
    start_tprof(Workers).

collect(eprof, _Files) ->
    profiling_stopped = eprof:stop_profiling(),
    from_eprof(eprof:dump());
collect(fprof, #{trace := Trace, analysis := Analysis}) ->
    ok = fprof:trace(stop),
    ok = fprof:profile([{file, Trace}]),
    ok = fprof:analyse([{dest, Analysis}, {callers, false}, {details, false}, {totals, true}]),
    {ok, Terms} = file:consult(Analysis),
    from_fprof(Terms);
collect(cprof, _Files) ->
    _ = cprof:pause(),
    from_cprof(cprof:analyse());
collect(tprof, _Files) ->
    from_tprof(collect_tprof()).

%% Stops the tool (which removes its patterns), turns tracing of the workers off, and
%% deletes the files. The patterns and tracing are turned off here too, as the tool
%% does, in case its server crashed (fprof's does when a worker dies before it is
%% traced).
cleanup(eprof, Workers, _Files) ->
    _ = whereis(eprof) =/= undefined andalso eprof:stop(),
    clear_patterns(call_time),
    untrace(Workers);
cleanup(fprof, _Workers, #{dir := Dir}) ->
    _ = whereis(fprof_server) =/= undefined andalso fprof:trace(stop),
    ok = fprof:stop(),
    %% dbg was not running before (see check_free/2): fprof's trace client started it
    _ = whereis(dbg) =/= undefined andalso dbg:stop(),
    clear_patterns(local),
    %% no process was traced before (see check_free/2): those traced now are fprof's
    untrace([P || P <- processes(), has_tracer(P)]),
    case file:del_dir_r(Dir) of
        ok -> ok;
        {error, enoent} -> ok   % start/3 could not make it
    end;
cleanup(cprof, _Workers, _Files) ->
    _ = cprof:stop(),
    ok;
cleanup(tprof, Workers, _Files) ->
    cleanup_tprof(Workers),
    untrace(Workers).

clear_patterns(Flag) ->
    _ = erlang:trace_pattern(on_load, false, [Flag]),
    _ = erlang:trace_pattern(?ALL_FUNCTIONS, false, [Flag]),
    ok.

untrace(Workers) ->
    lists:foreach(fun (W) ->
                          %% a worker that died meanwhile cannot be untraced, nor needs to be
                          try erlang:trace(W, false, [all])
                          catch error:badarg -> ok
                          end
                  end, Workers).

-if(?OTP_RELEASE >= 27).
%% tprof's second session: bytes per call of the functions already in the profile.
watch_memory(Workers, Monitors, #{functions := Top} = Profile) ->
    ok = switch_tprof(Workers, call_memory),
    case wait(?TPROF_MEMORY_MS, Monitors) of
        ok ->
            PerCall = bytes_per_call(collect_tprof(), erlang:system_info(wordsize)),
            {profiled, Profile#{memory_ms => ?TPROF_MEMORY_MS,
                                functions := [F#{bytes_per_call => maps:get(Fn, PerCall, 0.0)}
                                              || #{mfa := Fn} = F <- Top]}};
        Down ->
            Down
    end.

start_tprof(Workers) ->
    start_tprof(Workers, call_time).

start_tprof(Workers, Type) ->
    {ok, _} = tprof:start(#{type => Type}),
    _ = tprof:enable_trace(Workers, #{set_on_spawn => false}),
    _ = tprof:set_pattern('_', '_', '_'),
    ok.

%% Ends the session and starts one of another type on the same workers.
switch_tprof(Workers, Type) ->
    cleanup_tprof(Workers),
    start_tprof(Workers, Type).

collect_tprof() ->
    _ = tprof:pause(),
    tprof:collect().

cleanup_tprof(Workers) ->
    case whereis(tprof) of
        undefined ->
            ok;
        _ ->
            _ = tprof:disable_trace(Workers, #{set_on_spawn => false}),
            _ = tprof:clear_pattern('_', '_', '_'),
            tprof:stop()
    end.
-else.
%% Never called: tprof is not among tools/0 before OTP 27, and profile/3 refuses it.
start_tprof(_Workers) ->
    ok.

watch_memory(_Workers, _Monitors, Profile) ->
    {profiled, Profile}.

collect_tprof() ->
    {call_time, []}.

cleanup_tprof(_Workers) ->
    ok.
-endif.

flat(Format, Args) ->
    lists:flatten(io_lib:format(Format, Args)).
