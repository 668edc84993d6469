%%% @doc The VM monitor, the file log and permanent jobs (`erlperf:start/2').
%%%
%%% Synchronisation is by messages only: cases subscribe to the monitor, and the file log
%%% prints to a capturing io server that forwards each line to the test process. A case
%%% that must know the monitor has handled a cast asks it for its state (a message handled
%%% after the cast) and then looks only at samples taken later.
%%%
%%% The `api_23' group checks the API as erlperf 2.3 documents it; its cases replace the
%%% application's monitor for a while and run one after another.
-module(erlperf_monitor_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).
-export([sample_fields/0, job_iterations/0, invalid_options/0, file_log_table/0, file_log_device_gone/0,
         file_log_file/0, header_on_job_change/0, permanent_job_concurrency/0,
         hot_code_reload/0, wall_time_restored/0, start_unlinked/0, start_linked/0,
         register_unregister/0, registered_job_exits/0, cluster_monitor_group/0,
         node_group/0, one_copy_per_subscriber/0, silent_handle/0, found_job_handle/0,
         file_log_starts_application/0]).
-export([sample_fields/1, job_iterations/1, invalid_options/1, file_log_table/1, file_log_device_gone/1,
         file_log_file/1, header_on_job_change/1, permanent_job_concurrency/1,
         hot_code_reload/1, wall_time_restored/1, start_unlinked/1, start_linked/1,
         register_unregister/1, registered_job_exits/1, cluster_monitor_group/1,
         node_group/1, one_copy_per_subscriber/1, silent_handle/1, found_job_handle/1,
         file_log_starts_application/1]).

%% Milliseconds to wait for a monitor sample or a log line (samples come every second; a
%% wait ends as soon as one comes).
-define(SAMPLE_TIMEOUT_MS, 5000).
%% Interval of the monitors the api_23 cases start: longer than the default, so that
%% samples that come at least this long after the start show it was not ignored.
-define(LONG_INTERVAL_MS, 1100).
%% Longest wait for a job to count its first iterations (it ends as soon as they are).
-define(FROZEN_WAIT_MS, 10000).
%% Samples looked at, at most, when waiting for a condition to show in them.
-define(MAX_SAMPLES, 5).
%% Keys of a sample as erlperf 2.3 documents `monitor_sample()'.
-define(KEYS_23, [time, node, sched_util, dcpu, dio, processes, ports, ets, memory_total,
                  memory_processes, memory_binary, memory_ets, jobs]).
%% The seed's header, without job columns.
-define(HEADER, "YYYY-MM-DDTHH:MM:SS-oo:oo  Sched   DCPU    DIO    Procs    Ports     ETS "
                "Mem Total  Mem Proc   Mem Bin   Mem ETS").

suite() ->
    [{timetrap, {seconds, 30}}].

all() ->
    [{group, monitor}, {group, api_23}, wall_time_restored, file_log_starts_application].

groups() ->
    [{monitor, [], [sample_fields, job_iterations, invalid_options, file_log_table,
                    file_log_device_gone, file_log_file, header_on_job_change, permanent_job_concurrency,
                    hot_code_reload, found_job_handle]},
     {api_23, [], [start_unlinked, start_linked, register_unregister, registered_job_exits,
                   silent_handle, cluster_monitor_group, node_group,
                   one_copy_per_subscriber]}].

init_per_suite(Config) ->
    {ok, Started} = application:ensure_all_started(erlperf),
    [{started, Started} | Config].

end_per_suite(Config) ->
    _ = [application:stop(App) || App <- lists:reverse(?config(started, Config))],
    ok.

%%--------------------------------------------------------------------
%% Cases

sample_fields() ->
    [{doc, "A subscriber gets samples with every documented field, each later than the one before"}].
sample_fields(Config) when is_list(Config) ->
    ok = erlperf_monitor:subscribe(),
    try
        S1 = next_sample(),
        S2 = next_sample(),
        ?assertMatch(#{version := 1, node := N, jobs := []} when N =:= node(), S2),
        ?assertEqual(lists:sort([version | ?KEYS_23]), lists:sort(maps:keys(S2))),
        [?assert(is_float(V) andalso V >= 0.0 andalso V =< 100.0, {K, V})
         || K <- [sched_util, dcpu, dio], V <- [maps:get(K, S2)]],
        ?assert(maps:get(processes, S2) > 10),
        ?assert(maps:get(memory_total, S2) > maps:get(memory_processes, S2)),
        ?assert(maps:get(time, S2) > maps:get(time, S1), {S1, S2})
    after
        erlperf_monitor:unsubscribe()
    end.

job_iterations() ->
    [{doc, "A running job shows with its iterations of the last interval (some, and no more than "
           "the job has done: two workers sleeping 1 ms, at most one call a millisecond each), "
           "and goes when stopped"}].
job_iterations(Config) when is_list(Config) ->
    ok = erlperf_monitor:subscribe(),
    Started = erlang:monotonic_time(millisecond),
    Job = erlperf:start("timer:sleep(1).", 2),
    try
        _ = wait_sample(fun (#{jobs := Jobs}) -> lists:keymember(Job, 1, Jobs) end),
        #{jobs := Jobs} = next_sample(),
        {Job, Count} = lists:keyfind(Job, 1, Jobs),
        Total = erlperf_job:sample(Job),
        Lifetime = erlang:monotonic_time(millisecond) - Started,
        %% each call counted when it starts: the one under way in each worker too
        ?assert(Count > 0 andalso Count =< Total andalso Total =< 2 * Lifetime + 2,
                {Count, Total, Lifetime}),
        ok = erlperf_job:stop(Job),
        _ = wait_sample(fun (#{jobs := J}) -> not lists:keymember(Job, 1, J) end)
    after
        stop_quietly(Job),
        erlperf_monitor:unsubscribe()
    end.

invalid_options() ->
    [{doc, "Bad options are rejected with the bad value in the reason"}].
invalid_options(Config) when is_list(Config) ->
    ?assertError({invalid_option, interval, 0}, erlperf_monitor:start_link(#{interval => 0})),
    ?assertError({invalid_option, color, red}, erlperf_monitor:start_link(#{color => red})),
    ?assertError({invalid_option, target, 42}, erlperf_file_log:start_link(42)),
    ?assertError({invalid_option, duration, -1}, erlperf_cluster_history:start_link(#{duration => -1})),
    ?assertError({invalid_option, interval, 0}, erlperf_monitor:start(#{interval => 0})),
    ?assertError(function_clause, erlperf_monitor:register(self(), self(), -1)),
    process_flag(trap_exit, true),
    ?assertMatch({error, {open, _, enoent}},
                 erlperf_file_log:start_link("/nonexistent-dir/erlperf/log")).

file_log_table() ->
    [{doc, "The file log prints the seed's header, then aligned lines"}].
file_log_table(Config) when is_list(Config) ->
    {ok, Log} = erlperf_file_log:start_link(erlperf_test_lib:capture()),
    try
        Header = next_line(),
        ?assertEqual(?HEADER, Header),
        Line = next_line(),
        ?assertEqual(length(Header), length(Line), Line),
        Re = "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d[+-]\\d\\d:\\d\\d +\\d+\\.\\d\\d +"
             "\\d+\\.\\d\\d +\\d+\\.\\d\\d +\\d+ +\\d+ +\\d+( +\\d+ [KMG]b){4}$",
        ?assertMatch({match, _}, re:run(Line, Re), Line)
    after
        gen_server:stop(Log)
    end.

file_log_device_gone() ->
    [{doc, "A log whose device has gone (standard output closed under a pipe) ends normally at "
      "its next line: the process linked to it lives on, without trapping exits"}].
file_log_device_gone(Config) when is_list(Config) ->
    {Caller, CallerRef} = spawn_monitor(
        fun () ->
            Device = spawn(fun () -> receive stop -> ok end end),
            {ok, Log} = erlperf_file_log:start_link(Device),
            LogRef = monitor(process, Log),
            Device ! stop,
            receive {'DOWN', LogRef, process, Log, Reason} -> exit({log_ended, Reason})
            after 5000 -> exit(log_kept_running)
            end
        end),
    receive {'DOWN', CallerRef, process, Caller, Why} -> ?assertEqual({log_ended, normal}, Why)
    end.

file_log_file() ->
    [{doc, "The file log writes to a file it creates, and closes it when stopped"}].
file_log_file(Config) when is_list(Config) ->
    File = filename:join(?config(priv_dir, Config), "vm.log"),
    ok = erlperf_monitor:subscribe(),
    {ok, Log} = erlperf_file_log:start_link(File),
    try
        _ = next_sample(),
        _ = next_sample()   % the log has the first of these in its queue, or done
    after
        ok = gen_server:stop(Log),
        erlperf_monitor:unsubscribe()
    end,
    {ok, Text} = file:read_file(File),
    [Header, Line | _] = string:lexemes(binary_to_list(Text), "\n"),
    ?assertEqual(?HEADER, Header),
    ?assertEqual(length(Header), length(Line)).

header_on_job_change() ->
    [{doc, "The header is printed again, with a column per job, when the set of jobs changes"}].
header_on_job_change(Config) when is_list(Config) ->
    {ok, Log} = erlperf_file_log:start_link(erlperf_test_lib:capture()),
    Job = erlperf:start("timer:sleep(1).", 1),
    JobColumn = lists:flatten(string:pad(pid_to_list(Job), 12, leading)),
    try
        Header = wait_line(fun (L) -> lists:suffix(JobColumn, L) end),
        ?assertEqual(?HEADER ++ " " ++ JobColumn, Header),
        Line = next_line(),
        ?assertEqual(length(Header), length(Line)),
        ok = erlperf_job:stop(Job),
        ?assertEqual(?HEADER, wait_line(fun (L) -> lists:prefix("YYYY", L) end))
    after
        stop_quietly(Job),
        gen_server:stop(Log)
    end.

permanent_job_concurrency() ->
    [{doc, "erlperf:start/2 + set_concurrency/2, the doc/monitoring.md workflow with a change "
           "that shows on a loaded machine: in the file log, a full second after raising 1 worker "
           "sleeping 5 ms to 100 counts more than 10 times a full second before (100 times on a "
           "quiet machine)"}].
permanent_job_concurrency(Config) when is_list(Config) ->
    {ok, Log} = erlperf_file_log:start_link(erlperf_test_lib:capture()),
    Job = erlperf:start(#{init_runner => "5.", runner => "runner(Arg) -> timer:sleep(Arg)."}, 1),
    try
        One = full_second(Job),
        ok = erlperf_job:set_concurrency(Job, 100),
        {_, Hundred} = full_second_after(erlang:system_time(millisecond)),
        ?assert(One > 0 andalso Hundred > 10 * One, {One, Hundred})
    after
        stop_quietly(Job),
        gen_server:stop(Log)
    end.

hot_code_reload() ->
    [{doc, "The doc/monitoring.md workflow: once examples/mymod.erl is reloaded with a sleep 100 "
           "times as long (500 ms), a full second of the file log counts no more calls than two "
           "workers of the new code can start (the old code starts hundreds)"}].
hot_code_reload(Config) when is_list(Config) ->
    Example = filename:join([filename:dirname(?FILE), "..", "examples", "mymod.erl"]),
    ok = load(Example),
    {ok, Source} = file:read_file(Example),
    Slow = binary:replace(Source, <<"timer:sleep(Arg)">>, <<"timer:sleep(100 * Arg)">>, [global]),
    ?assertNotEqual(Source, Slow),
    SlowFile = filename:join(?config(priv_dir, Config), "mymod.erl"),
    ok = file:write_file(SlowFile, Slow),
    {ok, Log} = erlperf_file_log:start_link(erlperf_test_lib:capture()),
    Job = erlperf:start(#{init_runner => "5.", runner => "runner(Arg) -> mymod:do(Arg)."}, 2),
    try
        Before = full_second(Job),
        ok = load(SlowFile),
        %% every call started from now on runs the new code
        {SpanMs, After} = full_second_after(erlang:system_time(millisecond)),
        %% a worker starts a call at most every 500 ms; one may be starting as the span
        %% begins, and the totals are read a little before each sample is stamped
        ?assert(After =< 2 * (SpanMs div 500 + 2), {Before, After, SpanMs})
    after
        stop_quietly(Job),
        gen_server:stop(Log),
        _ = code:purge(mymod),
        _ = code:delete(mymod),
        _ = code:purge(mymod)
    end.

found_job_handle() ->
    [{doc, "A job found in the pg group is sampled through the handle it gave when first "
           "seen: its iterations still show while its controller is suspended"}].
found_job_handle(Config) when is_list(Config) ->
    ok = erlperf_monitor:subscribe(),
    Job = erlperf:start("timer:sleep(1).", 1),
    try
        _ = wait_sample(fun (S) -> job_entry(Job, S) =/= false end),
        ok = sys:suspend(Job),
        try
            %% the sample after the one in progress is taken wholly while suspended
            _ = sample_after(erlang:system_time(millisecond)),
            Suspended = next_sample(),
            ?assertMatch({Job, N} when N > 0, job_entry(Job, Suspended))
        after
            ok = sys:resume(Job)
        end
    after
        stop_quietly(Job),
        erlperf_monitor:unsubscribe()
    end.

wall_time_restored() ->
    [{doc, "Scheduler wall time accounting is on while the monitor runs, off after"}].
wall_time_restored(Config) when is_list(Config) ->
    ?assertNotEqual(undefined, erlang:statistics(scheduler_wall_time)),
    ok = application:stop(erlperf),
    try
        ?assertEqual(undefined, erlang:statistics(scheduler_wall_time))
    after
        {ok, _} = application:ensure_all_started(erlperf)
    end.

file_log_starts_application() ->
    [{doc, "erlperf_file_log:start_link/1 with the application stopped starts it (doc/monitoring.md "
           "starts a log first) and prints samples of its monitor"}].
file_log_starts_application(Config) when is_list(Config) ->
    ok = application:stop(erlperf),
    ?assertEqual(undefined, whereis(erlperf_monitor)),
    {ok, Log} = erlperf_file_log:start_link(erlperf_test_lib:capture()),
    try
        ?assert(lists:keymember(erlperf, 1, application:which_applications())),
        ?assert(is_pid(whereis(erlperf_monitor))),
        ?assertEqual(?HEADER, next_line()),
        ?assertMatch({match, _}, re:run(next_line(), "^\\d{4}-\\d\\d-\\d\\dT"))
    after
        ok = gen_server:stop(Log)
    end.

%%--------------------------------------------------------------------
%% erlperf 2.3 API

start_unlinked() ->
    [{doc, "start/0 and start/1 start a registered monitor not linked to the caller; "
           "the interval option sets the time to the first sample (never earlier)"}].
start_unlinked(Config) when is_list(Config) ->
    without_app_monitor(fun () ->
        {ok, Pid} = erlperf_monitor:start(),
        ?assertEqual(Pid, whereis(erlperf_monitor)),
        ?assertNot(lists:member(self(), element(2, process_info(Pid, links)))),
        ?assertEqual({error, {already_started, Pid}}, erlperf_monitor:start()),
        ok = gen_server:stop(Pid),
        ok = pg:join(erlperf, {erlperf_monitor, node()}, self()),
        Start = erlang:system_time(millisecond),
        {ok, Slow} = erlperf_monitor:start(#{interval => ?LONG_INTERVAL_MS}),
        try
            ?assertNot(lists:member(self(), element(2, process_info(Slow, links)))),
            first_sample_after(Start, ?LONG_INTERVAL_MS)
        after
            ok = pg:leave(erlperf, {erlperf_monitor, node()}, self()),
            ok = gen_server:stop(Slow)
        end
    end).

start_linked() ->
    [{doc, "start_link/0 and start_link/1 start a registered monitor linked to the caller; "
           "the interval option sets the time to the first sample (never earlier)"}].
start_linked(Config) when is_list(Config) ->
    without_app_monitor(fun () ->
        {ok, Pid} = erlperf_monitor:start_link(),
        ?assertEqual(Pid, whereis(erlperf_monitor)),
        ?assert(lists:member(self(), element(2, process_info(Pid, links)))),
        ok = gen_server:stop(Pid),
        ok = erlperf_monitor:subscribe(),
        Start = erlang:system_time(millisecond),
        {ok, Slow} = erlperf_monitor:start_link(#{interval => ?LONG_INTERVAL_MS}),
        try
            ?assert(lists:member(self(), element(2, process_info(Slow, links)))),
            first_sample_after(Start, ?LONG_INTERVAL_MS)
        after
            erlperf_monitor:unsubscribe(),
            ok = gen_server:stop(Slow)
        end
    end).

register_unregister() ->
    [{doc, "register(Job, Handle, Initial): `jobs' holds {Job, growth of the handle's total "
           "from Initial}; unregister/1 removes it, and also removes a job found in the "
           "pg group `jobs'"}].
register_unregister(Config) when is_list(Config) ->
    %% the handle is a real job whose total no longer changes; the registered Job is a
    %% plain process, in no pg group: only the registration can bring it into samples
    {Real, Total} = frozen_job(),
    Job = stand_in(),
    ok = erlperf_monitor:subscribe(),
    try
        ?assertEqual(ok, erlperf_monitor:register(Job, Real, Total - 5)),
        First = sample_after(handled()),
        ?assertEqual({Job, 5}, job_entry(Job, First)),
        ?assertEqual({Job, 0}, job_entry(Job, next_sample())),
        ?assertEqual(ok, erlperf_monitor:unregister(Job)),
        ?assertEqual(false, job_entry(Job, sample_after(handled()))),
        %% the real job is in the pg group `jobs': found, then left out once unregistered
        ?assertMatch({Real, _}, job_entry(Real, next_sample())),
        ok = erlperf_monitor:unregister(Real),
        After = handled(),
        ?assertEqual(false, job_entry(Real, sample_after(After))),
        ?assertEqual(false, job_entry(Real, next_sample())),
        %% registering it again brings it back
        ok = erlperf_monitor:register(Real, Real, Total),
        ?assertEqual({Real, 0}, job_entry(Real, sample_after(handled())))
    after
        Job ! stop,
        _ = erlperf_job:stop(Real),
        erlperf_monitor:unsubscribe()
    end.

registered_job_exits() ->
    [{doc, "A registered job that exits leaves the samples without unregister/1; "
           "register/3 and unregister/1 return ok when no monitor runs"}].
registered_job_exits(Config) when is_list(Config) ->
    {Real, Total} = frozen_job(),
    Job = stand_in(),
    ok = erlperf_monitor:subscribe(),
    try
        ok = erlperf_monitor:register(Job, Real, Total),
        ?assertEqual({Job, 0}, job_entry(Job, sample_after(handled()))),
        Ref = monitor(process, Job),
        Job ! stop,
        receive {'DOWN', Ref, process, Job, _} -> ok end,
        ?assertEqual(false, job_entry(Job, sample_after(handled())))
    after
        _ = erlperf_job:stop(Real),
        erlperf_monitor:unsubscribe()
    end,
    without_app_monitor(fun () ->
        ?assertEqual(ok, erlperf_monitor:register(self(), self(), 0)),
        ?assertEqual(ok, erlperf_monitor:unregister(self()))
    end).

silent_handle() ->
    [{doc, "A job whose handle never answers is left out of every sample; the other jobs "
           "are kept and samples keep coming"}].
silent_handle(Config) when is_list(Config) ->
    {Real, Total} = frozen_job(),
    Silent = stand_in(),   % a pid handle: erlperf_job:sample/1 calls it, it never replies
    [Job1, Job2] = [stand_in(), stand_in()],
    ok = erlperf_monitor:subscribe(),
    try
        ok = erlperf_monitor:register(Job1, Silent, 0),
        ok = erlperf_monitor:register(Job2, Real, Total),
        #{time := T1} = S1 = sample_after(handled()),
        #{time := T2} = S2 = next_sample(),
        [?assertEqual({false, {Job2, 0}}, {job_entry(Job1, S), job_entry(Job2, S)})
         || S <- [S1, S2]],
        ?assert(T2 > T1, {T1, T2})
    after
        [P ! stop || P <- [Silent, Job1, Job2]],
        _ = erlperf_job:stop(Real),
        erlperf_monitor:unsubscribe()
    end.

cluster_monitor_group() ->
    [{doc, "A process joined to `cluster_monitor' in scope `erlperf' receives each sample "
           "as a bare monitor_sample() map, with the documented keys"}].
cluster_monitor_group(Config) when is_list(Config) ->
    ok = pg:join(erlperf, cluster_monitor, self()),
    try
        Sample = receive_any(),
        ?assert(is_map(Sample), Sample),
        ?assertEqual(lists:sort([version | ?KEYS_23]), lists:sort(maps:keys(Sample))),
        ?assertMatch(#{node := N, jobs := Jobs} when N =:= node() andalso is_list(Jobs), Sample)
    after
        pg:leave(erlperf, cluster_monitor, self())
    end.

node_group() ->
    [{doc, "A process joined to `{erlperf_monitor, node()}' in scope `erlperf' receives "
           "each sample as a bare monitor_sample() map, jobs as {Pid, Iterations}"}].
node_group(Config) when is_list(Config) ->
    ok = pg:join(erlperf, {erlperf_monitor, node()}, self()),
    Job = erlperf:start("timer:sleep(1).", 1),
    try
        Sample = receive_any(),
        ?assert(is_map(Sample), Sample),
        ?assertEqual(lists:sort([version | ?KEYS_23]), lists:sort(maps:keys(Sample))),
        #{jobs := Jobs} = wait_sample(fun (S) -> job_entry(Job, S) =/= false end),
        ?assert(lists:all(fun ({P, C}) -> is_pid(P) andalso is_integer(C) andalso C >= 0 end,
                          Jobs), Jobs)
    after
        _ = erlperf_job:stop(Job),
        pg:leave(erlperf, {erlperf_monitor, node()}, self())
    end.

one_copy_per_subscriber() ->
    [{doc, "A process in both groups receives each sample once"}].
one_copy_per_subscriber(Config) when is_list(Config) ->
    ok = pg:join(erlperf, cluster_monitor, self()),
    ok = erlperf_monitor:subscribe(),
    try
        #{time := T1} = next_sample(),
        #{time := T2} = next_sample(),
        ?assert(T2 > T1, {T1, T2})
    after
        erlperf_monitor:unsubscribe(),
        pg:leave(erlperf, cluster_monitor, self())
    end.

%%--------------------------------------------------------------------
%% Helpers

%% Stops a job that a failed case may have left running (or already stopped).
stop_quietly(Job) ->
    try erlperf_job:stop(Job)
    catch _:_ -> ok
    end.

%% The next message, whatever it is (cases that check the shape of what arrives).
receive_any() ->
    receive
        Msg -> Msg
    after ?SAMPLE_TIMEOUT_MS ->
        ct:fail(no_message)
    end.

next_sample() ->
    receive
        #{node := _, time := _} = Sample -> Sample
    after ?SAMPLE_TIMEOUT_MS ->
        ct:fail(no_sample)
    end.

%% The first sample taken after `Time' (system time, ms).
sample_after(Time) ->
    wait_sample(fun (#{time := T}) -> T > Time end).

%% Returns once the monitor has handled every message sent to it before, and the system
%% time then: samples taken later reflect those messages.
handled() ->
    _ = sys:get_state(erlperf_monitor),
    erlang:system_time(millisecond).

%% Stops the application's monitor, runs Fun, and restarts the application's monitor.
without_app_monitor(Fun) ->
    ok = supervisor:terminate_child(erlperf_sup, erlperf_monitor),
    try
        Fun()
    after
        {ok, _} = supervisor:restart_child(erlperf_sup, erlperf_monitor)
    end.

%% A job that did its iterations and stopped its workers: its total no longer changes.
frozen_job() ->
    {ok, Job} = erlperf_job:start_link(#{runner => "erlang:phash2(1)."}),
    ok = erlperf_job:set_concurrency(Job, 1),
    true = erlperf_test_lib:wait_for(fun () -> erlperf_job:sample(Job) > 20 end, ?FROZEN_WAIT_MS),
    ok = erlperf_job:set_concurrency(Job, 0),
    {Job, erlperf_job:sample(Job)}.

%% A process standing for a job (the `Job' argument of register/3).
stand_in() ->
    spawn_link(fun () -> receive stop -> ok end end).

job_entry(Pid, #{jobs := Jobs}) ->
    lists:keyfind(Pid, 1, Jobs).

wait_sample(Pred) ->
    wait_sample(Pred, ?MAX_SAMPLES).

wait_sample(_Pred, 0) ->
    ct:fail(condition_not_met);
wait_sample(Pred, Left) ->
    Sample = next_sample(),
    case Pred(Sample) of
        true -> Sample;
        false -> wait_sample(Pred, Left - 1)
    end.

next_line() ->
    receive
        {log_line, Line} -> Line
    after ?SAMPLE_TIMEOUT_MS ->
        ct:fail(no_log_line)
    end.

wait_line(Pred) ->
    wait_line(Pred, 2 * ?MAX_SAMPLES).

wait_line(_Pred, 0) ->
    ct:fail(line_not_printed);
wait_line(Pred, Left) ->
    Line = next_line(),
    case Pred(Line) of
        true -> Line;
        false -> wait_line(Pred, Left - 1)
    end.

%% The job's throughput over the first full second it ran: the header naming it, the
%% line of the second it started in (partial), then the next line.
full_second(Job) ->
    _ = wait_line(fun (L) -> lists:suffix(pid_to_list(Job), L) end),
    _Partial = next_line(),
    job_rate(next_line()).

%% The job's throughput over the first full interval of the log after system time T
%% (ms): the line after the first one stamped T or later, and at most how long that
%% interval was (lines are stamped in whole seconds).
full_second_after(T) ->
    case stamp(next_line()) of
        Stamped when Stamped >= T ->
            %% the totals of the line stamped after T may have been read before it (a
            %% loaded machine delays the stamp): the second after the next line's
            From = stamp(next_line()),
            Line = next_line(),
            {stamp(Line) - From + 1000, job_rate(Line)};
        _ ->
            full_second_after(T)
    end.

%% The time of a log line in milliseconds, 0 for a header.
stamp("YYYY" ++ _) ->
    0;
stamp(Line) ->
    calendar:rfc3339_to_system_time(hd(string:lexemes(Line, " ")), [{unit, millisecond}]).

%% The first sample of a monitor started at system time Start (ms) with an interval of
%% Ms: the monitor samples on deadlines, the first Ms after it starts, never earlier (less
%% the milliseconds its clocks round).
first_sample_after(Start, Ms) ->
    #{time := T} = next_sample(),
    ?assert(T >= Start + Ms - 2, {T - Start, Ms}).

%% Value of the last column (the only job): "123", "14798 Ki" or "12 Mi".
job_rate(Line) ->
    case lists:reverse(string:lexemes(Line, " ")) of
        ["Ki", N | _] -> list_to_integer(N) * 1000;
        ["Mi", N | _] -> list_to_integer(N) * 1000 * 1000;
        [N | _] -> list_to_integer(N)
    end.

load(File) ->
    {ok, Module, Binary} = compile:file(File, [binary, return_errors]),
    {module, Module} = code:load_binary(Module, File, Binary),
    ok.
