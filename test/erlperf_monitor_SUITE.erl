%%% @doc The VM monitor, the file log and permanent jobs (`erlperf:start/2').
%%%
%%% Synchronisation is by messages only: cases subscribe to the monitor, and the file log
%%% prints to a capturing io server that forwards each line to the test process.
-module(erlperf_monitor_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).
-export([sample_fields/0, job_iterations/0, invalid_options/0, file_log_table/0,
         file_log_file/0, header_on_job_change/0, permanent_job_concurrency/0,
         hot_code_reload/0, wall_time_restored/0]).
-export([sample_fields/1, job_iterations/1, invalid_options/1, file_log_table/1,
         file_log_file/1, header_on_job_change/1, permanent_job_concurrency/1,
         hot_code_reload/1, wall_time_restored/1]).

%% Milliseconds to wait for a monitor sample or a log line (samples come every second).
-define(SAMPLE_TIMEOUT_MS, 3000).
%% Samples looked at, at most, when waiting for a condition to show in them.
-define(MAX_SAMPLES, 5).
%% The seed's header, without job columns.
-define(HEADER, "YYYY-MM-DDTHH:MM:SS-oo:oo  Sched   DCPU    DIO    Procs    Ports     ETS "
                "Mem Total  Mem Proc   Mem Bin   Mem ETS").

suite() ->
    [{timetrap, {seconds, 30}}].

all() ->
    [{group, monitor}, wall_time_restored].

groups() ->
    [{monitor, [], [sample_fields, job_iterations, invalid_options, file_log_table,
                    file_log_file, header_on_job_change, permanent_job_concurrency,
                    hot_code_reload]}].

init_per_suite(Config) ->
    {ok, Started} = application:ensure_all_started(erlperf),
    [{started, Started} | Config].

end_per_suite(Config) ->
    _ = [application:stop(App) || App <- lists:reverse(?config(started, Config))],
    ok.

%%--------------------------------------------------------------------
%% Cases

sample_fields() ->
    [{doc, "A subscriber gets one sample per second with every documented field"}].
sample_fields(Config) when is_list(Config) ->
    ok = erlperf_monitor:subscribe(),
    try
        S1 = next_sample(),
        S2 = next_sample(),
        ?assertMatch(#{version := 1, node := N, jobs := []} when N =:= node(), S2),
        Keys = [time, node, sched_util, dcpu, dio, processes, ports, ets, memory_total,
                memory_processes, memory_binary, memory_ets, jobs, version],
        ?assertEqual(lists:sort(Keys), lists:sort(maps:keys(S2))),
        [?assert(is_float(V) andalso V >= 0.0 andalso V =< 100.0, {K, V})
         || K <- [sched_util, dcpu, dio], V <- [maps:get(K, S2)]],
        ?assert(maps:get(processes, S2) > 10),
        ?assert(maps:get(memory_total, S2) > maps:get(memory_processes, S2)),
        Gap = maps:get(time, S2) - maps:get(time, S1),
        ?assert(Gap > 800 andalso Gap < 1200, Gap)
    after
        erlperf_monitor:unsubscribe()
    end.

job_iterations() ->
    [{doc, "A running job shows with its iterations of the last second, and goes when stopped"}].
job_iterations(Config) when is_list(Config) ->
    ok = erlperf_monitor:subscribe(),
    Job = erlperf:start("timer:sleep(1).", 2),
    try
        _ = wait_sample(fun (#{jobs := Jobs}) -> lists:keymember(Job, 1, Jobs) end),
        #{jobs := Jobs} = next_sample(),
        {Job, Count} = lists:keyfind(Job, 1, Jobs),
        %% two workers sleeping at least 1 ms each: at most 2000 in a second
        ?assert(Count > 200 andalso Count =< 2100, Count),
        ok = erlperf_job:stop(Job),
        _ = wait_sample(fun (#{jobs := J}) -> not lists:keymember(Job, 1, J) end)
    after
        _ = catch erlperf_job:stop(Job),
        erlperf_monitor:unsubscribe()
    end.

invalid_options() ->
    [{doc, "Bad options are rejected with the bad value in the reason"}].
invalid_options(Config) when is_list(Config) ->
    ?assertError({invalid_option, interval, 0}, erlperf_monitor:start_link(#{interval => 0})),
    ?assertError({invalid_option, color, red}, erlperf_monitor:start_link(#{color => red})),
    ?assertError({invalid_option, target, 42}, erlperf_file_log:start_link(42)),
    ?assertError({invalid_option, duration, -1}, erlperf_history:start_link(#{duration => -1})),
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
        _ = catch erlperf_job:stop(Job),
        gen_server:stop(Log)
    end.

permanent_job_concurrency() ->
    [{doc, "erlperf:start/2 + set_concurrency/2: the file log shows 4 workers do about "
           "4 times the work of 1 within a second"}].
permanent_job_concurrency(Config) when is_list(Config) ->
    {ok, Log} = erlperf_file_log:start_link(erlperf_test_lib:capture()),
    Job = erlperf:start(#{init_runner => "5.", runner => "runner(Arg) -> timer:sleep(Arg)."}, 1),
    try
        One = full_second(Job),
        ok = erlperf_job:set_concurrency(Job, 4),
        _Mixed = job_rate(next_line()),
        Four = job_rate(next_line()),
        ?assert(Four > 3 * One andalso Four < 5 * One, {One, Four})
    after
        _ = catch erlperf_job:stop(Job),
        gen_server:stop(Log)
    end.

hot_code_reload() ->
    [{doc, "The doc/monitoring.md workflow: reloading examples/mymod.erl with a sleep twice "
           "as long halves the job's throughput in the file log"}].
hot_code_reload(Config) when is_list(Config) ->
    Example = filename:join([filename:dirname(?FILE), "..", "examples", "mymod.erl"]),
    ok = load(Example),
    {ok, Source} = file:read_file(Example),
    Slow = binary:replace(Source, <<"timer:sleep(Arg)">>, <<"timer:sleep(2 * Arg)">>, [global]),
    ?assertNotEqual(Source, Slow),
    SlowFile = filename:join(?config(priv_dir, Config), "mymod.erl"),
    ok = file:write_file(SlowFile, Slow),
    {ok, Log} = erlperf_file_log:start_link(erlperf_test_lib:capture()),
    Job = erlperf:start(#{init_runner => "5.", runner => "runner(Arg) -> mymod:do(Arg)."}, 2),
    try
        Before = full_second(Job),
        ok = load(SlowFile),
        _Mixed = job_rate(next_line()),
        After = job_rate(next_line()),
        ?assert(After < 0.7 * Before andalso After > 0.35 * Before, {Before, After})
    after
        _ = catch erlperf_job:stop(Job),
        gen_server:stop(Log),
        _ = code:purge(mymod),
        _ = code:delete(mymod),
        _ = code:purge(mymod)
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

%%--------------------------------------------------------------------
%% Helpers

next_sample() ->
    receive
        {erlperf_monitor, Sample} -> Sample
    after ?SAMPLE_TIMEOUT_MS ->
        ct:fail(no_sample)
    end.

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
