%%% @doc Tests of the job process (`erlperf_job') used directly: lifecycle, workers,
%%% counters, timed measurement, introspection, priority and failure handling.
-module(erlperf_job_SUITE).

-include_lib("stdlib/include/assert.hrl").
-include_lib("common_test/include/ct.hrl").

%% common_test callbacks
-export([suite/0, all/0, groups/0, end_per_testcase/2]).

%% Case documentation (Common Test reads Case() -> [{doc, ...}]).
-export([start_stop/0, start_link/0, request_stop/0, start_errors/0, init_crash_cleans_up/0,
         start_link_init_crash/0, concurrency/0, source/0, info/0, set_priority/0, owner_exit/0,
         done_runs_once/0, workers_linked/0, sample_grows/0, sample_kept_after_workers_stop/0,
         measure/0, measure_fresh_worker/0, latency_calls/0, latency_cancel/0, pg_group/0, worker_crash/0,
         worker_crash_many_workers/0, init_runner_crash/0, measure_crash/0, done_crash/0]).

%% Test cases
-export([start_stop/1, start_link/1, start_link_init_crash/1, request_stop/1, start_errors/1, init_crash_cleans_up/1,
         concurrency/1, sample_grows/1, sample_kept_after_workers_stop/1, measure/1,
         measure_fresh_worker/1, latency_calls/1, latency_cancel/1, source/1, info/1, set_priority/1, owner_exit/1,
         worker_crash/1, worker_crash_many_workers/1, init_runner_crash/1, measure_crash/1,
         done_crash/1, done_runs_once/1, pg_group/1, workers_linked/1]).

%% Test cases: erlperf 2.3's documented job API, and the engine's edges
-export([handle_while_suspended/0, handle_while_suspended/1, handle_after_stop/0, handle_after_stop/1,
         source_strings/0, source_strings/1, measure_microseconds/0, measure_microseconds/1,
         counted_when_called/0, counted_when_called/1, cost_jump/0, cost_jump/1,
         overdue_flagged/0, overdue_flagged/1, start_line/0, start_line/1,
         application_stop/0, application_stop/1, busy_100k/0, busy_100k/1,
         init_runner_hangs/0, init_runner_hangs/1]).

%% Test cases: profile workers (erlperf_profile's)
-export([profile_workers/0, profile_workers/1, profile_worker_crash/0, profile_worker_crash/1]).

%% Internal export: the runner of cost_jump/1, spinning a number of times read each call.
-export([spin/1]).

%% How long cases wait for a process to go, or a counter to move (the waits end as soon
%% as it happens).
-define(WAIT_MS, 10000).
%% Slots of the atomics array of spin/1: the spins per call, the calls done.
-define(SPIN_SLOTS, 2).
-define(SPIN_COST, 1).
-define(SPIN_DONE, 2).

suite() ->
    [{timetrap, {seconds, 60}}].

all() ->
    [{group, lifecycle}, {group, measuring}, {group, failures}, {group, compat}, {group, edges},
     {group, profile}].

groups() ->
    [{lifecycle, [parallel],
      [start_stop, start_link, request_stop, start_errors, concurrency,
       source, info, set_priority, owner_exit, done_runs_once, workers_linked]},
     {measuring, [],
      [sample_grows, sample_kept_after_workers_stop, measure, measure_fresh_worker, latency_calls,
       latency_cancel, pg_group]},
     {failures, [],
      [init_crash_cleans_up, start_link_init_crash, worker_crash, worker_crash_many_workers, init_runner_crash, measure_crash, done_crash]},
     {compat, [parallel],
      [handle_while_suspended, handle_after_stop, source_strings, measure_microseconds,
       counted_when_called]},
     {edges, [],
      [cost_jump, overdue_flagged, start_line, application_stop, busy_100k, init_runner_hangs]},
     {profile, [], [profile_workers, profile_worker_crash]}].

end_per_testcase(_Case, _Config) ->
    ok.

%%--------------------------------------------------------------------
%% Lifecycle

start_stop() ->
    [{doc, "start/1 starts a job with no workers; stop/1 stops it and unloads its module."}].
start_stop(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start(#{runner => "rand:uniform()."}),
    #{module := Mod} = erlperf_job:info(Job),
    ?assert(erlang:module_loaded(Mod)),
    ?assertEqual(0, erlperf_job:concurrency(Job)),
    ?assertNot(lists:member(Job, element(2, process_info(self(), links)))),
    Mon = erlang:monitor(process, Job),
    ?assertEqual(ok, erlperf_job:stop(Job)),
    ?assertEqual(normal, down_reason(Mon)),
    ?assertNot(erlang:module_loaded(Mod)).

start_link() ->
    [{doc, "start_link/1 links the job to the caller."}].
start_link(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start_link(#{runner => "ok."}),
    ?assert(lists:member(Job, element(2, process_info(self(), links)))),
    ok = erlperf_job:stop(Job),
    ?assertNot(is_process_alive(Job)).

request_stop() ->
    [{doc, "request_stop/1 returns at once; the job goes with reason normal and cleans up."}].
request_stop(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start(#{runner => "rand:uniform()."}),
    #{module := Mod} = erlperf_job:info(Job),
    ok = erlperf_job:set_concurrency(Job, 2),
    Workers = workers(Job),
    Mon = erlang:monitor(process, Job),
    ?assertEqual(ok, erlperf_job:request_stop(Job)),
    ?assertEqual(normal, down_reason(Mon)),
    ?assertNot(erlang:module_loaded(Mod)),
    ?assert(all_gone(Workers)).

start_errors() ->
    [{doc, "Bad code and arity problems are returned as {error, {bad_code, ...}}."}].
start_errors(Config) when is_list(Config) ->
    ?assertMatch({error, {bad_code, runner, {parse, 1, 5, _}}}, erlperf_job:start(#{runner => "foo(."})),
    ?assertMatch({error, {bad_code, runner, {arity, 1, _}}}, erlperf_job:start(#{runner => fun (_) -> ok end})),
    ?assertMatch({error, {bad_code, runner, {bad_callable, 1}}}, erlperf_job:start(#{runner => 1})),
    ?assertMatch({error, {bad_code, runner, {bad_callable, not_a_map}}}, erlperf_job:start(not_a_map)).

init_crash_cleans_up() ->
    [{doc, "A crashing init fails start with {crashed, init, _} and unloads the module."}].
init_crash_cleans_up(Config) when is_list(Config) ->
    Before = job_modules(),
    ?assertMatch({error, {crashed, init, {error, badarith, [_ | _]}}},
                 erlperf_job:start(#{runner => "ok.", init => "1 / erlang:length([])."})),
    ?assertEqual([], job_modules() -- Before).

start_link_init_crash() ->
    [{doc, "start_link/1 with a crashing init returns an error and does not kill its caller, "
           "which outlives the failed job."}].
start_link_init_crash(Config) when is_list(Config) ->
    Self = self(),
    {Caller, Mon} = spawn_monitor(fun () ->
        Me = self(),
        Init = fun () -> Me ! {controller, self()}, throw(nope) end,
        Self ! {result, erlperf_job:start_link(#{runner => "ok.", init => Init})},
        %% init ran in the job: once the job is down, any exit signal it sent this process
        %% has arrived (signals from one process to another keep their order)
        Job = receive {controller, C} -> C end,
        JobMon = erlang:monitor(process, Job),
        receive {'DOWN', JobMon, process, Job, _} -> ok end,
        Self ! outlived_job,
        receive stop -> ok end
    end),
    Result = receive
                 {result, R} -> R;
                 {'DOWN', Mon, process, Caller, Killed} -> ct:fail({caller_killed, Killed})
             after ?WAIT_MS -> ct:fail(no_result)
             end,
    ?assertMatch({error, {crashed, init, {throw, nope, _}}}, Result),
    receive
        outlived_job -> Caller ! stop;
        {'DOWN', Mon, process, Caller, Reason} -> ct:fail({caller_killed, Reason})
    after ?WAIT_MS -> ct:fail(job_did_not_stop)
    end,
    ?assertEqual(normal, down_reason(Mon)).

concurrency() ->
    [{doc, "set_concurrency/2 starts and stops workers; concurrency/1 reads it."}].
concurrency(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start(#{runner => "receive after infinity -> ok end."}),
    [begin
         ok = erlperf_job:set_concurrency(Job, N),
         ?assertEqual(N, erlperf_job:concurrency(Job)),
         ?assertEqual(N, length(workers(Job)))
     end || N <- [3, 10, 1, 0, 5]],
    Workers = workers(Job),
    ok = erlperf_job:stop(Job),
    ?assert(all_gone(Workers)),
    ?assertException(error, function_clause, erlperf_job:set_concurrency(Job, -1)).

source() ->
    [{doc, "source/1 returns the generated module's text, for a job and for a code map."}].
source(Config) when is_list(Config) ->
    Code = #{runner => "erlang:phash2(12345).", init_runner => "prepare() -> 42."},
    {ok, Job} = erlperf_job:start(Code),
    #{module := Mod} = erlperf_job:info(Job),
    Text = unicode:characters_to_list(erlperf_job:source(Job)),
    ?assertNotEqual(nomatch, string:find(Text, "12345")),
    ?assertNotEqual(nomatch, string:find(Text, atom_to_list(Mod))),
    ?assertNotEqual(nomatch, string:find(Text, "42")),
    Static = unicode:characters_to_list(erlperf_job:source(Code)),
    ?assertNotEqual(nomatch, string:find(Static, "12345")),
    %% the text is valid Erlang
    {ok, Tokens, _} = erl_scan:string(Text),
    ?assert(length(Tokens) > 10),
    ok = erlperf_job:stop(Job).

info() ->
    [{doc, "info/1: module, runner arity, label and warnings."}].
info(Config) when is_list(Config) ->
    {ok, J0} = erlperf_job:start(#{runner => "erlang:phash2(1)."}),
    ?assertMatch(#{module := M, arity := 0, label := <<"erlang:phash2(1).">>, warnings := []}
                     when is_atom(M), erlperf_job:info(J0)),
    {ok, J1} = erlperf_job:start(#{runner => fun (X) -> X end, init_runner => "1."}),
    ?assertMatch(#{arity := 1, label := <<"#Fun", _/binary>>}, erlperf_job:info(J1)),
    {ok, J2} = erlperf_job:start(#{runner => "r(_, S) -> S.", init_runner => "1.", label => "two"}),
    ?assertMatch(#{arity := 2, label := <<"two">>}, erlperf_job:info(J2)),
    {ok, J3} = erlperf_job:start(#{runner => "ok."}),
    ?assertMatch(#{warnings := [{dead_code, runner}]}, erlperf_job:info(J3)),
    {ok, J4} = erlperf_job:start(#{runner => {erlang, phash2, [1]}}),
    ?assertMatch(#{arity := 0, label := <<"{erlang,phash2,[1]}">>}, erlperf_job:info(J4)),
    [ok = erlperf_job:stop(J) || J <- [J0, J1, J2, J3, J4]],
    ok.

set_priority() ->
    [{doc, "set_priority/2 returns the previous priority; the controller uses it only while workers run."}].
set_priority(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start(#{runner => "receive after infinity -> ok end."}),
    Initial = priority(Job),
    ok = erlperf_job:set_concurrency(Job, 1),
    ?assertEqual(high, priority(Job)),
    ?assertEqual(high, erlperf_job:set_priority(Job, low)),
    ?assertEqual(low, priority(Job)),
    ?assertEqual(low, erlperf_job:set_priority(Job, normal)),
    ?assertEqual(normal, priority(Job)),
    ?assertEqual(normal, erlperf_job:set_priority(Job, high)),
    ok = erlperf_job:set_concurrency(Job, 0),
    ?assertEqual(Initial, priority(Job)),
    ?assertException(error, function_clause, erlperf_job:set_priority(Job, urgent)),
    ok = erlperf_job:stop(Job).

owner_exit() ->
    [{doc, "When the owner exits, the job stops, kills its workers and unloads its module."}].
owner_exit(Config) when is_list(Config) ->
    Self = self(),
    Owner = spawn(fun () ->
                          {ok, Job} = erlperf_job:start(#{runner => "rand:uniform()."}),
                          ok = erlperf_job:set_concurrency(Job, 3),
                          Self ! {job, Job},
                          receive exit -> ok end
                  end),
    Job = receive {job, J} -> J after ?WAIT_MS -> ct:fail(no_job) end,
    #{module := Mod} = erlperf_job:info(Job),
    Workers = workers(Job),
    ?assertEqual(3, length(Workers)),
    Mon = erlang:monitor(process, Job),
    Owner ! exit,
    ?assertEqual({shutdown, owner_down}, down_reason(Mon)),
    ?assertNot(erlang:module_loaded(Mod)),
    ?assert(all_gone(Workers)).

done_runs_once() ->
    [{doc, "done runs once, in the controller, with init's result, when the job stops."}].
done_runs_once(Config) when is_list(Config) ->
    Self = self(),
    {ok, Job} = erlperf_job:start(#{init => fun () -> {init, self()} end,
                                    runner => "ok.",
                                    done => fun (Init) -> Self ! {done, Init, self()} end}),
    ok = erlperf_job:set_concurrency(Job, 1),
    Mon = erlang:monitor(process, Job),
    ok = erlperf_job:stop(Job),
    %% done runs in the job: its messages come before the job's 'DOWN'
    _ = down_reason(Mon),
    receive {done, Init, Pid} -> ?assertEqual({{init, Job}, Job}, {Init, Pid})
    after 0 -> ct:fail(done_not_run)
    end,
    receive {done, _, _} = Again -> ct:fail({done_twice, Again}) after 0 -> ok end.

workers_linked() ->
    [{doc, "Workers are linked to the controller and run init_runner in their own process."}].
workers_linked(Config) when is_list(Config) ->
    Self = self(),
    {ok, Job} = erlperf_job:start(#{init_runner => fun () -> Self ! {ir, self()}, self() end,
                                    runner => fun (Me) -> Me = self() end}),
    ok = erlperf_job:set_concurrency(Job, 2),
    Workers = lists:sort(workers(Job)),
    ?assertEqual(Workers, lists:sort([receive {ir, P} -> P after ?WAIT_MS -> ct:fail(no_ir) end
                                      || _ <- [1, 2]])),
    ?assertNot(lists:member(Job, Workers)),
    ok = erlperf_job:stop(Job),
    ?assert(all_gone(Workers)).

%%--------------------------------------------------------------------
%% Measuring

sample_grows() ->
    [{doc, "sample/1 counts iterations of all workers and only grows."}].
sample_grows(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start_link(#{runner => "rand:uniform()."}),
    ?assertEqual(0, erlperf_job:sample(Job)),
    ok = erlperf_job:set_concurrency(Job, 2),
    S1 = erlperf_job:sample(Job),
    ?assert(erlperf_test_lib:wait_for(fun () -> erlperf_job:sample(Job) > S1 + 1000 end, ?WAIT_MS)),
    Samples = [erlperf_job:sample(Job) || _ <- lists:seq(1, 50)],
    ?assertEqual(Samples, lists:sort(Samples)),
    ok = erlperf_job:stop(Job).

sample_kept_after_workers_stop() ->
    [{doc, "Iterations of stopped workers stay counted; with no workers the sample stays still."}].
sample_kept_after_workers_stop(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start_link(#{runner => "rand:uniform()."}),
    ok = erlperf_job:set_concurrency(Job, 1),
    ?assert(erlperf_test_lib:wait_for(fun () -> erlperf_job:sample(Job) > 1000 end, ?WAIT_MS)),
    Running = erlperf_job:sample(Job),
    ok = erlperf_job:set_concurrency(Job, 0),
    Stopped = erlperf_job:sample(Job),
    ?assert(Stopped >= Running, {Stopped, Running}),
    ?assertEqual(Stopped, erlperf_job:sample(Job)),
    ok = erlperf_job:set_concurrency(Job, 1),
    ?assert(erlperf_test_lib:wait_for(fun () -> erlperf_job:sample(Job) > Stopped end, ?WAIT_MS)),
    ok = erlperf_job:stop(Job).

measure() ->
    [{doc, "measure/2 returns the microseconds N iterations took (erlperf 2.3): 10 sleeps of a "
           "millisecond at least 10 ms, 100,000 calls of phash2 at least 10 us."}].
measure(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start_link(#{runner => {timer, sleep, [1]}}),
    Us = erlperf_job:measure(Job, 10),
    ?assert(is_integer(Us) andalso Us >= 9000, Us),
    ok = erlperf_job:stop(Job),
    {ok, Fast} = erlperf_job:start_link(#{runner => "erlang:phash2(12345)."}),
    FastUs = erlperf_job:measure(Fast, 100000),
    %% phash2 of a small integer: well over 0.1 ns
    ?assert(is_integer(FastUs) andalso FastUs > 10, FastUs),
    ?assertEqual(0, erlperf_job:concurrency(Fast)),
    ?assertException(error, function_clause, erlperf_job:measure(Fast, 0)),
    ok = erlperf_job:stop(Fast).

measure_fresh_worker() ->
    [{doc, "measure/2 runs init_runner in a fresh worker and threads runner/2 state."}].
measure_fresh_worker(Config) when is_list(Config) ->
    Self = self(),
    {ok, Job} = erlperf_job:start_link(#{init => "100.",
                                         init_runner => fun (100) -> Self ! {ir, self()}, 0 end,
                                         runner => fun (0, N) -> Self ! {iter, N}, N + 1 end}),
    _ = erlperf_job:measure(Job, 5),
    W = receive {ir, P} -> P after 0 -> ct:fail(no_init_runner) end,
    ?assertNot(is_process_alive(W) andalso lists:member(W, workers(Job))),
    ?assertEqual([0, 1, 2, 3, 4], [receive {iter, N} -> N after 0 -> ct:fail(missing_iteration) end
                                   || _ <- lists:seq(1, 5)]),
    receive {iter, _} = Extra -> ct:fail({extra, Extra}) after 0 -> ok end,
    ok = erlperf_job:stop(Job).

latency_calls() ->
    [{doc, "latency/2 times at most `calls' calls in a fresh worker, after its init_runner, and leaves the job as it was."}].
latency_calls(Config) when is_list(Config) ->
    Self = self(),
    {ok, Job} = erlperf_job:start_link(#{init_runner => fun () -> Self ! {ir, self()}, 0 end,
                                         runner => fun (_, N) -> Self ! {iter, N}, N + 1 end}),
    Options = #{calls => 3, timer_calls => 7, budget_ms => 60000, wait_ms => 60000},
    #{durations := Durations, timer := Timer, unfinished := false} = erlperf_latency:time_calls(Job, Options),
    ?assertMatch([_, _, _], Durations),
    ?assertEqual(7, length(Timer)),
    ?assert(lists:all(fun (D) -> is_integer(D) andalso D >= 0 end, Durations ++ Timer)),
    W = receive {ir, P} -> P after 0 -> ct:fail(no_init_runner) end,
    ?assertNot(is_process_alive(W)),
    ?assertEqual([0, 1, 2], [receive {iter, N} -> N after 0 -> ct:fail(missing_call) end
                             || _ <- lists:seq(1, 3)]),
    receive {iter, _} = Extra -> ct:fail({extra, Extra}) after 0 -> ok end,
    ?assertEqual(0, erlperf_job:concurrency(Job)),
    ok = erlperf_job:stop(Job),
    ?assertEqual({messages, []}, process_info(self(), messages)).

latency_cancel() ->
    [{doc, "latency/2: a call that does not return is given up after wait_ms; the job goes on, the worker is gone."}].
latency_cancel(Config) when is_list(Config) ->
    Self = self(),
    %% the worker names itself in init_runner, before it tells latency/2 it is ready
    {ok, Job} = erlperf_job:start_link(#{init_runner => fun () -> Self ! {worker, self()} end,
                                         runner => fun (_) ->
                                                           Self ! {call, self()},
                                                           receive after infinity -> ok end
                                                   end}),
    Options = #{calls => 10, timer_calls => 1, budget_ms => 1, wait_ms => 50},
    %% twice: the job takes a second measurement after giving up on the first
    [begin
         ?assertMatch(#{durations := [], unfinished := true}, erlperf_latency:time_calls(Job, Options)),
         W = receive {worker, P} -> P after 0 -> ct:fail(no_worker) end,
         ?assertNot(is_process_alive(W)),
         %% the call may not have started within wait_ms; if it did, it told before the
         %% worker went
         receive {call, W} -> ok after 0 -> ok end
     end || _ <- [1, 2]],
    ok = erlperf_job:stop(Job),
    ?assertEqual({messages, []}, process_info(self(), messages)).

pg_group() ->
    [{doc, "Jobs join the pg group `jobs' of scope `erlperf' when that scope runs."}].
pg_group(Config) when is_list(Config) ->
    %% the scope may be running already (the application, started by another suite)
    Started = case pg:start(erlperf) of
                  {ok, Pid} -> Pid;
                  {error, {already_started, _}} -> none
              end,
    try
        {ok, Job} = erlperf_job:start(#{runner => "ok."}),
        ?assert(lists:member(Job, pg:get_members(erlperf, jobs))),
        ok = erlperf_job:stop(Job),
        ?assert(erlperf_test_lib:wait_for(fun () -> not lists:member(Job, pg:get_members(erlperf, jobs)) end, ?WAIT_MS))
    after
        Started =:= none orelse gen_server:stop(Started)
    end.

%%--------------------------------------------------------------------
%% Failures

worker_crash() ->
    [{doc, "A runner crash stops the job by itself with {shutdown, {crashed, runner, _}}, its module unloaded."}].
worker_crash(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start(#{runner => "erlang:error(boom)."}),
    #{module := Mod} = erlperf_job:info(Job),
    Mon = erlang:monitor(process, Job),
    ok = erlperf_job:set_concurrency(Job, 1),
    ?assertMatch({shutdown, {crashed, runner, {error, boom, [_ | _]}}}, down_reason(Mon)),
    ?assertNot(erlang:module_loaded(Mod)).

worker_crash_many_workers() ->
    [{doc, "One crashing worker among many stops the job and all other workers."}].
worker_crash_many_workers(Config) when is_list(Config) ->
    Self = self(),
    {ok, Job} = erlperf_job:start(#{init_runner => fun () -> Self ! {worker, self()}, ok end,
                                    runner => fun (_) -> receive crash -> exit(crashed_on_request) end end}),
    Mon = erlang:monitor(process, Job),
    ok = erlperf_job:set_concurrency(Job, 20),
    Workers = [receive {worker, P} -> P after ?WAIT_MS -> ct:fail(no_worker) end || _ <- lists:seq(1, 20)],
    hd(Workers) ! crash,
    ?assertMatch({shutdown, {crashed, runner, {exit, crashed_on_request, _}}}, down_reason(Mon)),
    ?assert(all_gone(Workers)).

init_runner_crash() ->
    [{doc, "An init_runner crash stops the job with {shutdown, {crashed, init_runner, _}}; set_concurrency/2 exits with it."}].
init_runner_crash(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start(#{runner => "ok.", init_runner => "exit(no)."}),
    Mon = erlang:monitor(process, Job),
    ?assertExit({{shutdown, {crashed, init_runner, {exit, no, _}}}, {gen_server, call, _}},
                erlperf_job:set_concurrency(Job, 3)),
    ?assertMatch({shutdown, {crashed, init_runner, {exit, no, _}}}, down_reason(Mon)).

measure_crash() ->
    [{doc, "A runner crash during measure/2 stops the job; the caller's call exits with the crash."}].
measure_crash(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start(#{runner => "erlang:error(boom)."}),
    Mon = erlang:monitor(process, Job),
    ?assertException(exit, {{shutdown, {crashed, runner, {error, boom, _}}}, {gen_server, call, _}},
                     erlperf_job:measure(Job, 10)),
    ?assertMatch({shutdown, {crashed, runner, _}}, down_reason(Mon)).

done_crash() ->
    [{doc, "stop/1 returns {error, {crashed, done, _}} when done crashes, and still cleans up."}].
done_crash(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start(#{runner => "ok.", done => "erlang:error(no_done)."}),
    #{module := Mod} = erlperf_job:info(Job),
    ok = erlperf_job:set_concurrency(Job, 1),
    Workers = workers(Job),
    ?assertMatch({error, {crashed, done, {error, no_done, _}}}, erlperf_job:stop(Job)),
    ?assertNot(is_process_alive(Job)),
    ?assertNot(erlang:module_loaded(Mod)),
    ?assert(all_gone(Workers)).

%%--------------------------------------------------------------------
%% erlperf 2.3's documented job API

handle_while_suspended() ->
    [{doc, "sample/1 through a handle reads the counters without a message: it answers while the job is suspended"}].
handle_while_suspended(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start_link(#{runner => "rand:uniform()."}),
    Handle = erlperf_job:handle(Job),
    ok = erlperf_job:set_concurrency(Job, 1),
    true = erlang:suspend_process(Job),
    try
        First = erlperf_job:sample(Handle),
        ?assert(erlperf_test_lib:wait_for(fun () -> erlperf_job:sample(Handle) > First + 1000 end,
                                          ?WAIT_MS)),
        ?assertMatch({N, _, _} when N > First, erlperf_job:sample_status(Handle))
    after
        true = erlang:resume_process(Job)
    end,
    %% a pid is accepted too (asked of the controller)
    ?assert(erlperf_job:sample(Job) >= erlperf_job:sample(Handle) - 1000000000),
    ok = erlperf_job:stop(Job).

handle_after_stop() ->
    [{doc, "sample/1 of a stopped job's handle is undefined, as erlperf 2.3 documents"}].
handle_after_stop(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start(#{runner => "ok."}),
    Handle = erlperf_job:handle(Job),
    ?assertEqual(0, erlperf_job:sample(Handle)),
    ok = erlperf_job:stop(Job),
    ?assertEqual(undefined, erlperf_job:sample(Handle)),
    ?assertEqual(undefined, erlperf_job:sample_status(Handle)).

source_strings() ->
    [{doc, "source/1 returns a list of strings, one per form (erlperf 2.3)"}].
source_strings(Config) when is_list(Config) ->
    Code = #{runner => "erlang:phash2(12345)."},
    Forms = erlperf_job:source(Code),
    ?assert(length(Forms) > 3),
    ?assert(lists:all(fun io_lib:char_list/1, Forms), Forms),
    {ok, Job} = erlperf_job:start(Code),
    JobForms = erlperf_job:source(Job),
    ?assert(lists:all(fun io_lib:char_list/1, JobForms)),
    ?assert(lists:any(fun (F) -> string:find(F, "12345") =/= nomatch end, JobForms)),
    ok = erlperf_job:stop(Job).

measure_microseconds() ->
    [{doc, "measure/2 is in microseconds and takes whole iterations (erlperf 2.3): 5 sleeps of "
           "2 ms take at least 10,000 us"}].
measure_microseconds(Config) when is_list(Config) ->
    {ok, Job} = erlperf_job:start_link(#{runner => "timer:sleep(2)."}),
    Us = erlperf_job:measure(Job, 5),
    ?assert(is_integer(Us) andalso Us >= 10000, Us),
    ok = erlperf_job:stop(Job).

counted_when_called() ->
    [{doc, "The counter grows when the runner is called, without waiting for it to return (erlperf 2.3)"}].
counted_when_called(Config) when is_list(Config) ->
    %% a runner that never returns: each worker counts its one call as soon as
    %% set_concurrency/2 returns, and never more
    {ok, Job} = erlperf_job:start_link(#{runner => "receive after infinity -> ok end."}),
    Handle = erlperf_job:handle(Job),
    ok = erlperf_job:set_concurrency(Job, 3),
    ?assertEqual(3, erlperf_job:sample(Handle)),
    ok = erlperf_job:set_concurrency(Job, 5),
    ?assertEqual(5, erlperf_job:sample(Handle)),
    ok = erlperf_job:stop(Job),
    %% a runner that crashes unconditionally still counts 1: it reads the counter
    %% itself, before crashing
    Self = self(),
    Tab = ets:new(handles, [public]),
    Runner = fun () ->
                 [{_, H}] = ets:lookup(Tab, handle),
                 Self ! {count, erlperf_job:sample(H)},
                 erlang:error(boom)
             end,
    {ok, Crash} = erlperf_job:start(#{runner => Runner}),
    true = ets:insert(Tab, {handle, erlperf_job:handle(Crash)}),
    Mon = erlang:monitor(process, Crash),
    ok = erlperf_job:set_concurrency(Crash, 1),
    ?assertEqual(1, receive {count, C} -> C after ?WAIT_MS -> ct:fail(no_count) end),
    ?assertMatch({shutdown, {crashed, runner, {error, boom, _}}}, down_reason(Mon)).

%%--------------------------------------------------------------------
%% Edges

cost_jump() ->
    [{doc, "A runner whose cost per call jumps 10,000 times mid-run: the count lags by one "
           "batch of the old size at most (the batch under way, or the next when the jump came "
           "after the last call of that one had started, so that it took no longer); once that "
           "batch is done, batches shrink to a call or two, so that the count is never more "
           "than a few calls ahead of the calls completed; the slow calls are counted"}].
cost_jump(Config) when is_list(Config) ->
    Cost = atomics:new(?SPIN_SLOTS, []),
    ok = atomics:put(Cost, ?SPIN_COST, 10),
    {ok, Job} = erlperf_job:start_link(#{runner => {?MODULE, spin, [Cost]}}),
    Handle = erlperf_job:handle(Job),
    _ = process_flag(priority, high),
    ok = erlperf_job:set_concurrency(Job, 1),
    Completed = fun () -> atomics:get(Cost, ?SPIN_DONE) end,
    %% cheap calls for a while, so that batches grow to their full size
    ?assert(erlperf_test_lib:wait_for(fun () -> Completed() > 100000 end, ?WAIT_MS)),
    ok = atomics:put(Cost, ?SPIN_COST, 100000),
    %% every call counted now was started by now: once they are done, the calls started
    %% at the old cost are; a batch sized at the old cost may have started since (the
    %% jump came after the last call of the batch before had started): once the calls
    %% counted then are done too, every batch is sized at the new cost
    AtJump = lists:foldl(fun (_, _) ->
                                 Counted = erlperf_job:sample(Handle),
                                 ?assert(erlperf_test_lib:wait_for(fun () -> Completed() >= Counted end,
                                                                   3 * ?WAIT_MS),
                                         {Counted, Completed()}),
                                 Counted
                         end, 0, [at_jump, next_batch]),
    %% the count, read between two readings of the calls completed, is never behind the
    %% first, and ahead of the second by the call under way and the next batch's (a call
    %% or two at the new cost). Calls completed after the count was read only lower the
    %% second difference: the test process stalled between the readings cannot fail it.
    Readings = [begin
                    Before = Completed(),
                    Count = erlperf_job:sample(Handle),
                    {Count - Before, Count - Completed()}
                end || _ <- lists:seq(1, 20)],
    ct:log("count ahead of the calls completed (before, after): ~p", [Readings]),
    ?assert(lists:all(fun ({Behind, Ahead}) -> Behind >= 0 andalso Ahead =< 8 end, Readings),
            Readings),
    ?assert(erlperf_test_lib:wait_for(fun () -> erlperf_job:sample(Handle) > AtJump + 10 end,
                                      ?WAIT_MS)),
    ok = erlperf_job:stop(Job).

overdue_flagged() ->
    [{doc, "A worker blocked far longer than its batches took is reported overdue"}].
overdue_flagged(Config) when is_list(Config) ->
    Gate = atomics:new(1, []),
    Runner = fun () -> case atomics:get(Gate, 1) of 0 -> ok; _ -> receive after 2000 -> ok end end end,
    {ok, Job} = erlperf_job:start_link(#{runner => Runner}),
    Handle = erlperf_job:handle(Job),
    ok = erlperf_job:set_concurrency(Job, 2),
    %% none overdue while calls are cheap (a machine that stalls a worker may flag it
    %% for a moment)
    ?assert(erlperf_test_lib:wait_for(fun () -> element(2, erlperf_job:sample_status(Handle)) =:= 0 end,
                                      ?WAIT_MS)),
    ok = atomics:put(Gate, 1, 1),
    ?assert(erlperf_test_lib:wait_for(fun () -> element(2, erlperf_job:sample_status(Handle)) =:= 2 end,
                                      ?WAIT_MS)),
    ok = erlperf_job:stop(Job).

start_line() ->
    [{doc, "New workers start their loops together, once every init_runner has returned"}].
start_line(Config) when is_list(Config) ->
    Tab = ets:new(start_line, [public, bag]),
    InitRunner = fun () ->
                     receive after rand:uniform(50) -> ok end,
                     ets:insert(Tab, {ready, erlang:monotonic_time()})
                 end,
    Runner = fun (_) -> ets:insert_new(Tab, {{first, self()}, erlang:monotonic_time()}) end,
    {ok, Job} = erlperf_job:start_link(#{init_runner => InitRunner, runner => Runner}),
    ok = erlperf_job:set_concurrency(Job, 20),
    ?assert(erlperf_test_lib:wait_for(fun () -> length(ets:match(Tab, {{first, '_'}, '_'})) =:= 20 end,
                                      ?WAIT_MS)),
    ok = erlperf_job:stop(Job),
    LastReady = lists:max([T || {ready, T} <- ets:tab2list(Tab)]),
    FirstCall = lists:min([T || {{first, _}, T} <- ets:tab2list(Tab)]),
    ?assert(FirstCall > LastReady, {FirstCall, LastReady}).

application_stop() ->
    [{doc, "application:stop(erlperf) with a permanent job running: the job runs done, unloads its module and goes"}].
application_stop(Config) when is_list(Config) ->
    _ = application:stop(erlperf),
    {ok, _} = application:ensure_all_started(erlperf),
    Self = self(),
    Job = erlperf:start(#{runner => "rand:uniform().", done => fun () -> Self ! {done, self()} end}, 2),
    #{module := Mod} = erlperf_job:info(Job),
    Workers = workers(Job),
    ?assertEqual(2, length(Workers)),
    Mon = erlang:monitor(process, Job),
    ok = application:stop(erlperf),
    ?assertEqual(shutdown, down_reason(Mon)),
    %% done ran in the job, before the supervisor's shutdown timeout would have killed it
    receive {done, Job} -> ok after 0 -> ct:fail(done_not_run) end,
    ?assertNot(erlang:module_loaded(Mod)),
    ?assert(all_gone(Workers)),
    {ok, _} = application:ensure_all_started(erlperf).

busy_100k() ->
    [{doc, "100,000 busy workers start, run and stop; the job answers throughout"}].
busy_100k(Config) when is_list(Config) ->
    _ = process_flag(priority, high),
    {ok, Job} = erlperf_job:start_link(#{runner => "ok."}),
    Handle = erlperf_job:handle(Job),
    ok = erlperf_job:set_concurrency(Job, 100000),
    ?assertEqual(100000, erlperf_job:concurrency(Job)),
    %% each worker counted its first call before the start line
    First = erlperf_job:sample(Handle),
    ?assert(First >= 100000, First),
    ?assert(erlperf_test_lib:wait_for(fun () -> erlperf_job:sample(Handle) > First + 100000 end,
                                      ?WAIT_MS * 3)),
    Workers = workers(Job),
    ?assertEqual(100000, length(Workers)),
    ok = erlperf_job:set_concurrency(Job, 10),
    ?assertEqual(10, erlperf_job:concurrency(Job)),
    ok = erlperf_job:stop(Job),
    ?assert(all_gone(Workers)).

init_runner_hangs() ->
    [{doc, "A hanging init_runner blocks set_concurrency/2, as erlperf 2.3 documents, but the job "
           "still stops: the blocked call exits then, it never returned"}].
init_runner_hangs(Config) when is_list(Config) ->
    Self = self(),
    InitRunner = fun () -> Self ! {hanging, self()}, receive after infinity -> ok end end,
    {ok, Job} = erlperf_job:start(#{runner => "ok.", init_runner => InitRunner}),
    #{module := Mod} = erlperf_job:info(Job),
    {Caller, CallerMon} = spawn_monitor(fun () -> Self ! {returned, erlperf_job:set_concurrency(Job, 2)} end),
    %% both workers are in their init_runner
    _ = [receive {hanging, _} -> ok after ?WAIT_MS -> ct:fail(no_init_runner) end || _ <- [1, 2]],
    %% the controller still answers, and stops with its hanging workers
    ?assertEqual(0, erlperf_job:concurrency(Job)),
    ?assertEqual(ok, erlperf_job:stop(Job)),
    ?assertNot(erlang:module_loaded(Mod)),
    receive
        {returned, R} -> ct:fail({returned, R});
        {'DOWN', CallerMon, process, Caller, Reason} ->
            ?assertMatch({_, {gen_server, call, _}}, Reason)
    after ?WAIT_MS -> ct:fail(call_still_blocked)
    end.

%%--------------------------------------------------------------------
%% Helpers

%% @private
%% Spins the number of times in the array's ?SPIN_COST slot, then counts the call done in
%% its ?SPIN_DONE slot.
-spec spin(atomics:atomics_ref()) -> ok.
spin(Cost) ->
    spin_loop(atomics:get(Cost, ?SPIN_COST)),
    atomics:add(Cost, ?SPIN_DONE, 1).

spin_loop(0) -> ok;
spin_loop(N) -> spin_loop(N - 1).

%% The job's workers: the processes linked to it, except its owner (when linked).
workers(Job) ->
    {links, Links} = process_info(Job, links),
    [P || P <- Links, is_pid(P), P =/= self(), P =/= whereis(erlperf_job_sup)].

priority(Pid) ->
    {priority, P} = process_info(Pid, priority),
    P.

down_reason(Mon) ->
    receive {'DOWN', Mon, process, _, Reason} -> Reason
    after ?WAIT_MS * 2 -> ct:fail(job_did_not_stop)
    end.

all_gone(Pids) ->
    erlperf_test_lib:wait_for(fun () -> not lists:any(fun erlang:is_process_alive/1, Pids) end, ?WAIT_MS).

job_modules() ->
    [M || {M, _} <- code:all_loaded(), lists:prefix("erlperf_job_", atom_to_list(M)),
          M =/= erlperf_job_sup].

%%--------------------------------------------------------------------
%% Profile workers

profile_workers() ->
    [{doc, "profile_workers/2 returns once init_runner ran in each; they run the runner, "
           "leave the counter alone, and stop_profile_workers/1 kills them, the job running on"}].
profile_workers(Config) when is_list(Config) ->
    T = ets:new(?FUNCTION_NAME, [named_table, public, set]),
    true = ets:insert(T, [{init_runner, 0}, {calls, 0}]),
    Code = #{init_runner => lists:flatten(io_lib:format("ets:update_counter(~w, init_runner, 1).", [T])),
             runner => lists:flatten(io_lib:format("r(_) -> ets:update_counter(~w, calls, 1).", [T]))},
    {ok, Job} = erlperf_job:start(Code),
    Pids = erlperf_job:profile_workers(Job, 3),
    ?assertEqual(3, length(lists:usort(Pids))),
    ?assertEqual([{init_runner, 3}], ets:lookup(T, init_runner)),
    ?assert(erlperf_test_lib:wait_for(fun () -> ets:lookup_element(T, calls, 2) > 1000 end, ?WAIT_MS)),
    %% no continuous worker, no count
    ?assertEqual(0, erlperf_job:concurrency(Job)),
    ?assertEqual(0, erlperf_job:sample(Job)),
    Mons = [erlang:monitor(process, P) || P <- Pids],
    ok = erlperf_job:stop_profile_workers(Job),
    [?assertEqual(killed, down_reason(M)) || M <- Mons],
    ?assert(is_process_alive(Job)),
    ok = erlperf_job:set_concurrency(Job, 1),
    ok = erlperf_job:stop(Job).

profile_worker_crash() ->
    [{doc, "A profile worker crashing stops the job with the crash, like any worker; "
           "one crashing in init_runner makes profile_workers/2 exit so"}].
profile_worker_crash(Config) when is_list(Config) ->
    T = ets:new(?FUNCTION_NAME, [named_table, public, set]),
    true = ets:insert(T, {calls, 0}),
    {ok, Job} = erlperf_job:start(
                  #{runner => lists:flatten(io_lib:format(
                                  "case ets:update_counter(~w, calls, 1) of 100 -> erlang:error(late); _ -> ok end.",
                                  [T]))}),
    Mon = erlang:monitor(process, Job),
    _ = erlperf_job:profile_workers(Job, 1),
    ?assertMatch({shutdown, {crashed, runner, {error, late, _}}}, down_reason(Mon)),
    {ok, Job2} = erlperf_job:start(#{init_runner => "exit(no).", runner => "r(_) -> ok."}),
    ?assertExit({{shutdown, {crashed, init_runner, {exit, no, _}}}, {erlperf_job, profile_workers, _}},
                erlperf_job:profile_workers(Job2, 2)).
