%%% @doc Runs benchmarks on this node: starts the jobs, has {@link erlperf_sampler} measure
%%% them, stops them, and builds full reports.
%%%
%%% The local strategy below {@link erlperf:benchmark/3}; the isolated
%%% ({@link erlperf_isolation}) and multi-node ({@link erlperf_cluster}) strategies run
%%% it on other nodes. It never calls back into the `erlperf' facade.
%%%
%%% How jobs share the node (the `compare' run option):
%%% <ul>
%%%   <li>`parallel' (default, as erlperf 2.3 documents): all jobs run at the same time
%%%       and are read at the same instants, so a comparison takes as long as one run
%%%       and every job sees the same conditions;</li>
%%%   <li>`sequential': one job at a time, each started just before its run and stopped
%%%       just after, so that jobs never compete for schedulers;</li>
%%%   <li>`interleaved': all jobs started, taking turns sample by sample, the others'
%%%       workers suspended: they never compete, and they see the same drift of the
%%%       machine (the samples of round I are comparable across jobs).</li>
%%% </ul>
%%% Concurrency estimation always runs one job at a time.
%%%
%%% Example:
%%% ```
%%% [#{mode := continuous, result := #{average := _}}] =
%%%     erlperf_local:benchmark([#{runner => "rand:uniform()."}],
%%%                             maps:merge(erlperf:defaults(), #{report => full}), undefined).
%%% '''
%%% After the measurement, with `memory => true', each runner's cost per call is
%%% measured ({@link erlperf_cost}), then with `profile => Tool' each runner is profiled
%%% ({@link erlperf_profile}), one job at a time, every other worker stopped.
%%%
%%% Cost and safety: every job is stopped, and its module unloaded, before the call
%%% returns or raises; the calling process samples at `priority' for the duration of
%%% the call. A profile adds about a second per runner.
-module(erlperf_local).

%% API: called by erlperf:benchmark/3, and over erpc by erlperf_isolation and
%% erlperf_cluster on their nodes.
-export([benchmark/3]).

%% Internal exports: erlperf_cluster computes the totals of several nodes the same way,
%% erlperf_forks the statistics of several forks.
-export([statistics/2, qps/3, result/4]).
%% Internal export: an open load's ramp, whatever runs each rate (erlperf_cluster's
%% nodes together, or this node).
-export([ramp/3]).

-type report() :: erlperf:report().

%% Modules a run calls once its workers are busy. They are loaded first: with many busy
%% workers, the code server (a process of normal priority) would take seconds to load
%% them on demand.
-define(RUN_MODULES, [erlperf_sampler, erlperf_stat, erlperf_job]).
%% Calls of an empty interpreted fun timed to tell what interpreting a call costs, in
%% each of a few rounds (a few milliseconds in all).
-define(INTERPRETED_CALLS, 500).
-define(INTERPRETED_ROUNDS, 5).
%% An open load holds its rate when it achieved at least this many percent less.
-define(HELD_PCT, 1).

%%--------------------------------------------------------------------
%% API

%% @doc Runs the benchmarks with complete, validated options (defaults filled in);
%% returns a full report per code, in order.
-spec benchmark([erlperf_job:code_map(), ...], erlperf:run_options(),
                erlperf:concurrency_options() | undefined) -> [report()].
benchmark(CodeMaps, #{priority := Priority} = Opts, Conc) ->
    _ = [{module, M} = code:ensure_loaded(M) || M <- ?RUN_MODULES],
    Old = process_flag(priority, Priority),
    try
        %% only a full report shows the system (reading it may start a shell on some OSes)
        System = case Opts of
                     #{report := full} -> erlperf_system:info();
                     _ -> #{}
                 end,
        [R#{system => System} || R <- run(CodeMaps, Opts, Conc)]
    after
        process_flag(priority, Old)
    end.

%%--------------------------------------------------------------------
%% Strategies

run(CodeMaps, #{rate := Rate} = Opts, undefined) when Rate =/= undefined ->
    each_alone(CodeMaps, fun ([Job]) -> ramp(fun (R) -> paced(Job, Opts#{rate => R}) end,
                                             lists:flatten([Rate]), Opts)
                         end);
run(CodeMaps, #{compare := parallel} = Opts, undefined) ->
    with_jobs(CodeMaps, fun (Jobs) -> measure(Jobs, Opts) end);
run(CodeMaps, #{compare := interleaved} = Opts, undefined) ->
    with_jobs(CodeMaps, fun (Jobs) -> interleave(Jobs, Opts) end);
run(CodeMaps, Opts, undefined) ->
    each_alone(CodeMaps, fun (Jobs) -> measure(Jobs, Opts) end);
run(CodeMaps, Opts, Conc) ->
    each_alone(CodeMaps, fun ([Job]) -> profile([Job], [estimate(Job, Opts, Conc)], Opts) end).

%% One code after another, each job alone on the node; a crash of one among several
%% names it, as with_jobs/2 does for jobs run together.
each_alone([_] = CodeMaps, Fun) ->
    with_jobs(CodeMaps, Fun);
each_alone(CodeMaps, Fun) ->
    lists:append([try with_jobs([C], Fun)
                  catch error:{crashed, Role, Detail} when is_atom(Role) ->
                          erlang:error({crashed, {Role, erlperf_codegen:label(C)}, Detail})
                  end || C <- CodeMaps]).

measure(Jobs, #{sample_duration := {timed, _}} = Opts) ->
    Runs = erlperf_sampler:timed(Jobs, Opts),
    after_run(Jobs, [report(Job, timed, 1, Run, Opts) || {Job, Run} <- lists:zip(Jobs, Runs)], Opts);
measure(Jobs, #{concurrency := C} = Opts) ->
    _ = [ok = erlperf_job:set_concurrency(Pid, C) || #{pid := Pid} <- Jobs],
    Runs = erlperf_sampler:continuous(Jobs, Opts),
    after_run(Jobs, [report(Job, continuous, C, Run, Opts) || {Job, Run} <- lists:zip(Jobs, Runs)], Opts).

%% Open load, one rate after another (a ramp): `RunRate' makes the report of one rate.
%% With `slo', each report says whether its rate held the objectives (`held', and those
%% `missed'), the ramp stops after the first rate that did not, and every report names
%% the highest rate held (`knee', `undefined' when none was).
-spec ramp(fun((pos_integer()) -> report()), [pos_integer()], erlperf:run_options()) -> [report()].
ramp(RunRate, Rates, Opts) ->
    ramp(RunRate, Rates, maps:get(slo, Opts, undefined), []).

ramp(_RunRate, [], undefined, Reports) ->
    lists:reverse(Reports);
ramp(_RunRate, [], _Slo, Reports) ->
    Knee = case [T || #{result := #{rate := #{target := T, held := true}}} <- Reports] of
               [] -> undefined;
               Held -> lists:max(Held)
           end,
    [R#{result => Result#{rate => Rate#{knee => Knee}}}
     || #{result := #{rate := Rate} = Result} = R <- lists:reverse(Reports)];
ramp(RunRate, [Rate | Rates], Slo, Reports) ->
    #{result := #{rate := Figures} = Result} = Report = RunRate(Rate),
    Judged = Report#{result => Result#{rate => maps:merge(Figures, objectives(Figures, Slo))}},
    case Judged of
        #{result := #{rate := #{held := false}}} -> ramp(RunRate, [], Slo, [Judged | Reports]);
        #{} -> ramp(RunRate, Rates, Slo, [Judged | Reports])
    end.

%% An open load at one rate: the report of a continuous run whose samples are the calls
%% that returned in each, with the pool's size as its concurrency and `rate' in its
%% result.
paced(Job, Opts) ->
    Pool = case maps:get(rate_pool, Opts, grow) of
               grow -> #{};
               N -> #{concurrency => N}
           end,
    #{values := Values, workers := Workers, duration_ns := Ns} = Rate =
        erlperf_rate:run(Job, maps:merge(maps:with([rate, arrival, samples, sample_duration], Opts), Pool)),
    Report = report(Job, continuous, Workers, erlperf_sampler:counted(Values, Ns), Opts),
    Report#{result => (maps:get(result, Report))#{rate => maps:remove(values, Rate)}}.

%% A rate holds its objectives when every call due started (the rate achieved within
%% ?HELD_PCT %, none skipped) and each response-time percentile is at most its limit.
objectives(_Rate, undefined) ->
    #{};
objectives(#{target := Target, achieved := Achieved, skipped := Skipped, response := Response}, Slo) ->
    Missed = [{P, Limit, Got} || {P, Limit} <- Slo, Got <- [erlperf_histogram:percentile(Response, P)],
                                 Got =:= undefined orelse Got > Limit],
    Kept = Achieved >= Target * (1 - ?HELD_PCT / 100) andalso Skipped =:= 0,
    #{slo => Slo, missed => Missed, held => Kept andalso Missed =:= []}.

interleave(Jobs, #{sample_duration := {timed, _}} = Opts) ->
    Runs = erlperf_sampler:interleaved(Jobs, Opts),
    after_run(Jobs, [report(Job, timed, 1, Run, Opts) || {Job, Run} <- lists:zip(Jobs, Runs)], Opts);
interleave(Jobs, #{concurrency := C} = Opts) ->
    %% every job's workers start, then wait suspended for their turns
    _ = [begin ok = erlperf_job:set_concurrency(Pid, C), ok = erlperf_job:suspend(Pid) end
         || #{pid := Pid} <- Jobs],
    Runs = erlperf_sampler:interleaved(Jobs, Opts),
    %% suspended workers cannot be stopped while suspended: resume them first
    _ = [ok = erlperf_job:resume(Pid) || has_after_run(Opts), #{pid := Pid} <- Jobs],
    after_run(Jobs, [report(Job, continuous, C, Run, Opts) || {Job, Run} <- lists:zip(Jobs, Runs)], Opts).

%% With `memory => true' or `latency => true': every job's workers stop (the CPU clock
%% is the VM's; calls are timed alone), then each runner is measured in fresh workers,
%% one job at a time: its cost per call, then its latency.
%% Then, with `profile => Tool', the profile.
after_run(Jobs, Reports, Opts) ->
    Measured = case after_run_measures(Opts) of
                   [] ->
                       Reports;
                   Measures ->
                       _ = [ok = erlperf_job:set_concurrency(Pid, 0) || #{pid := Pid} <- Jobs],
                       [R#{result => lists:foldl(fun (M, Acc) -> measure_after(M, Job, Acc) end,
                                                 Result, Measures)}
                        || {Job, #{result := Result} = R} <- lists:zip(Jobs, Reports)]
               end,
    profile(Jobs, Measured, Opts).

after_run_measures(Opts) ->
    %% the cost per call (memory) holds the exact counts
    Counts = maps:get(counts, Opts, false) andalso not maps:get(memory, Opts, false),
    [Key || Key <- [memory, latency], maps:get(Key, Opts, false)] ++ [counts || Counts].

has_after_run(Opts) ->
    after_run_measures(Opts) =/= [] orelse maps:get(profile, Opts, undefined) =/= undefined.

measure_after(memory, #{pid := Pid} = Job, #{iteration_time := Ns} = Result) ->
    Cost = bounded(memory, Job, fun () -> erlperf_cost:measure(Pid, Ns) end),
    Result#{cost => Cost, counts => erlperf_cost:counts_of(Cost)};
measure_after(counts, #{pid := Pid} = Job, #{iteration_time := Ns} = Result) ->
    Result#{counts => bounded(counts, Job, fun () -> erlperf_cost:counts(Pid, Ns) end)};
measure_after(latency, #{pid := Pid}, #{iteration_time := Ns} = Result) ->
    Result#{latency => erlperf_latency:measure(Pid, Ns)}.

%% A cost batch given up (erlperf_cost's bound: a call that did not return) fails the
%% benchmark, naming the runner and what was being measured.
bounded(What, #{code := Code}, Fun) ->
    try Fun()
    catch error:{call_not_returned, cost, WaitMs} ->
            erlang:error({call_not_returned, What, erlperf_codegen:label(Code), WaitMs})
    end.

%% With `profile => Tool': every job's workers stop, then one job at a time is profiled
%% in workers of its own, as many as in its run.
profile(Jobs, Reports, #{profile := Tool}) when Tool =/= undefined ->
    _ = [ok = erlperf_job:set_concurrency(Pid, 0) || #{pid := Pid} <- Jobs],
    [R#{profile => erlperf_profile:profile(Tool, Pid, C)}
     || {#{pid := Pid}, #{concurrency := C} = R} <- lists:zip(Jobs, Reports)];
profile(_Jobs, Reports, _Opts) ->
    Reports.

%% The report is the smallest concurrency not significantly below the best (noise
%% alone would otherwise push the answer to the last step tried); the best is beside it.
estimate(Job, Opts, Conc) ->
    History = erlperf_sampler:estimate(Job, Opts, Conc),
    {Chosen, Best} = erlperf_comparison:plateau([{C, V} || {C, #{values := V}} <- History],
                                                maps:with([confidence, noise], Opts)),
    {Chosen, Run} = lists:keyfind(Chosen, 1, History),
    Report = report(Job, continuous, Chosen, Run, Opts#{concurrency => Chosen}),
    Report#{mode => concurrency, concurrency_options => Conc, best_concurrency => Best,
            history => [{C, result(continuous, C, R, Opts)} || {C, R} <- History]}.

%%--------------------------------------------------------------------
%% Jobs

%% Starts the jobs, runs Fun, and stops the jobs whatever happens. A crash of one job
%% among several names it: `{crashed, {Role, Label}, Detail}', whether the run saw it
%% or only the stop did; when several crashed, the one the run met first is raised.
with_jobs(CodeMaps, Fun) ->
    Jobs = start_jobs(CodeMaps, []),
    Outcome = try {ok, Fun(Jobs)} catch C:R:S -> {C, not_returned(R, Jobs), S} end,
    Stops = [{Job, stop_job(Job)} || Job <- Jobs],
    case {Outcome, [S || {_, Stop} = S <- Stops, Stop =/= ok, Stop =/= consumed]} of
        {{ok, Value}, []} ->
            Value;
        {{ok, _}, [{Job, Error} | _]} ->
            erlang:error(named(Error, [Job], Jobs));
        {{Class, Reason, Stack}, Errors} ->
            case {crash_of(Class, Reason), Errors} of
                {{ok, Crash}, _} ->
                    %% the crashed job: its DOWN was taken by the run, or carries this crash
                    Crashed = [J || {J, Stop} <- Stops, Stop =:= consumed orelse Stop =:= Crash],
                    erlang:error(named(Crash, Crashed, Jobs));
                {error, [{Job, Error} | _]} ->
                    %% the run failed on a job that had stopped (a worker's call to it found
                    %% no process): the job's own crash says why
                    erlang:error(named(Error, [Job], Jobs));
                {error, []} ->
                    erlang:raise(Class, Reason, Stack)
            end
    end.

crash_of(exit, {{shutdown, {crashed, _, _} = Crash}, _}) -> {ok, Crash};
crash_of(error, {crashed, _, _} = Crash) -> {ok, Crash};
crash_of(_Class, _Reason) -> error.

%% The crash with the label of the job it came from, when there were several jobs.
named({crashed, Role, Detail}, [#{code := Code} | _], [_, _ | _]) when is_atom(Role) ->
    {crashed, {Role, erlperf_codegen:label(Code)}, Detail};
named({call_not_returned, What, Ms}, [#{code := Code} | _], _Jobs) ->
    {call_not_returned, What, erlperf_codegen:label(Code), Ms};
named(Error, _Crashed, _Jobs) ->
    Error.

%% A timed sample stuck in the code of the job of that controller, named by its label.
not_returned({call_not_returned, What, Pid, Ms}, Jobs) when is_pid(Pid) ->
    [Code | _] = [C || #{pid := P, code := C} <- Jobs, P =:= Pid],
    {call_not_returned, What, erlperf_codegen:label(Code), Ms};
not_returned(Reason, _Jobs) ->
    Reason.

start_jobs([], Started) ->
    lists:reverse(Started);
start_jobs([Code | Rest], Started) ->
    case erlperf_job:start(Code) of
        {ok, Pid} ->
            Job = #{pid => Pid, handle => erlperf_job:handle(Pid),
                    monitor => erlang:monitor(process, Pid), code => Code,
                    info => erlperf_job:info(Pid)},
            start_jobs(Rest, [Job | Started]);
        {error, Reason} ->
            _ = [stop_job(Job) || Job <- Started],
            erlang:error(named(Reason, [#{code => Code}], []))
    end.

%% Stops a job: `ok', the crash of its `done' or of a job that stopped by itself (a
%% runner crash the run had not seen yet), or `consumed' when the job is down and the
%% run took its DOWN (and raised its crash).
stop_job(#{pid := Pid, monitor := Mon}) ->
    case (try erlperf_job:stop(Pid) catch exit:_ -> gone end) of
        ok ->
            erlang:demonitor(Mon, [flush]),
            ok;
        {error, Crash} ->
            erlang:demonitor(Mon, [flush]),
            Crash;
        gone ->
            receive {'DOWN', Mon, process, _, Reason} -> down_reason(Reason)
            after 0 -> consumed
            end
    end.

down_reason({shutdown, {crashed, _, _} = Crash}) -> Crash;
down_reason(Reason) -> {job_stopped, Reason}.

%%--------------------------------------------------------------------
%% Reports

report(#{code := Code, info := Info}, Mode, Concurrency, Run, Opts) ->
    Report = #{version => 1, mode => Mode, code => Code, label => maps:get(label, Info),
               warnings => maps:get(warnings, Info), concurrency => Concurrency,
               sleep => maps:get(sleep, Run),
               run_options => maps:without([progress, rate_pool, turn_gate, decide],
                                           Opts#{concurrency => Concurrency}),
               result => result(Mode, Concurrency, Run, Opts)},
    Interpreted = interpreted(maps:get(warnings, Info)),
    case Run of
        #{cv_met := Met} -> maps:merge(Report#{cv_met => Met}, Interpreted);
        #{} -> maps:merge(Report, Interpreted)
    end.

%% A role left as an interpreted fun (see erlperf_codegen): what interpreting a call of an
%% empty fun costs in this VM, in nanoseconds, the least a call of it costs more than
%% compiled code.
interpreted(Warnings) ->
    case [R || {interpreted, R} <- Warnings] of
        [] -> #{};
        _ -> #{interpreted_call_ns => interpreted_call_ns()}
    end.

%% In a process of its own: the caller's heap and message queue (a runner may send it
%% messages by the million) would weigh on every garbage collection of the measurement.
interpreted_call_ns() ->
    Self = self(),
    {Pid, Ref} = spawn_monitor(fun () -> Self ! {self(), measure_interpreted()} end),
    receive
        {Pid, Ns} ->
            erlang:demonitor(Ref, [flush]),
            Ns;
        {'DOWN', Ref, process, Pid, Reason} ->
            erlang:error({interpreted_call_ns, Reason})
    end.

measure_interpreted() ->
    {ok, Tokens, _} = erl_scan:string("fun () -> ok end."),
    {ok, [Expr]} = erl_parse:parse_exprs(Tokens),
    {value, Empty, _} = erl_eval:expr(Expr, erl_eval:new_bindings()),
    Compiled = fun () -> ok end,
    Calls = ?INTERPRETED_CALLS,
    %% the least of a few rounds: what a call costs when nothing else takes the CPU
    Least = fun (F) -> lists:min([call_ns(F, Calls) || _ <- lists:seq(1, ?INTERPRETED_ROUNDS)]) end,
    max(0, Least(Empty) - Least(Compiled)) / Calls.

call_ns(Fun, Calls) ->
    T0 = erlang:monotonic_time(),
    ok = call_times(Fun, Calls),
    erlang:convert_time_unit(erlang:monotonic_time() - T0, native, nanosecond).

call_times(_Fun, 0) -> ok;
call_times(Fun, N) -> Fun(), call_times(Fun, N - 1).

%% @private
%% Statistics over the per-sample values, the raw samples, the time of one iteration
%% (nanoseconds, of one worker) and the iterations per second.
-spec result(continuous | timed, pos_integer(), map(), erlperf:run_options()) -> map().
result(Mode, Concurrency, #{values := Values} = Run, #{sample_duration := Duration} = Opts) ->
    #{average := Average} = Stats = statistics(Mode, Values),
    maps:merge(Stats#{samples => maps:get(samples, Run), time => maps:get(time, Run),
                      overdue => maps:get(overdue, Run), qps => qps(Mode, Average, Duration),
                      iteration_time => iteration_time(Mode, Concurrency, Average, Opts)},
               host(Mode, Values, maps:get(interference, Run, []))).

%% The host's interference of every sample, when the sampler measured it for each, and
%% the samples as they would have been had the scheduler threads never waited for a
%% CPU (`cpu_values'): continuous, a sample's iterations scaled by (run + wait) / run
%% of the scheduler threads busy in the sample (the workers'; see erlperf_interference);
%% timed, its time scaled by run / (run + wait). None without a busy thread. For code
%% that keeps its schedulers busy, what other programs took of their time is taken
%% out; for code that waits (sleeps, messages, I/O) the scaling means little, and
%% verdicts across runs use the wall-clock samples (erlperf_baseline).
host(Mode, Values, Figures) when length(Figures) =:= length(Values) ->
    Cpu = [cpu_value(Mode, V, F) || {V, F} <- lists:zip(Values, Figures)],
    case lists:member(undefined, Cpu) of
        true -> #{interference => Figures};
        false -> #{interference => Figures, cpu_values => Cpu}
    end;
host(_Mode, _Values, _Figures) ->
    #{}.

cpu_value(continuous, V, #{busy_cpu_ns := Run, busy_wait_ns := Wait}) when is_integer(Run), Run > 0,
                                                                         is_integer(Wait) ->
    V * (Run + Wait) / Run;
cpu_value(timed, V, #{busy_cpu_ns := Run, busy_wait_ns := Wait}) when is_integer(Run), Run > 0,
                                                                    is_integer(Wait) ->
    V * Run / (Run + Wait);
cpu_value(_Mode, _V, _Figures) ->
    undefined.

%% @private
%% Statistics of per-sample values: `best' is the highest throughput (continuous) or
%% the shortest time (timed), `worst' the other end.
-spec statistics(continuous | timed, [number(), ...]) -> map().
statistics(Mode, Values) ->
    #{min := Min, max := Max, stddev := StdDev} = Summary = erlperf_stat:summary(Values),
    {Best, Worst} = case Mode of
                        timed -> {Min, Max};
                        continuous -> {Max, Min}
                    end,
    Summary#{values => Values, variance => StdDev * StdDev, best => Best, worst => Worst}.

%% @private
%% Iterations per second, all workers, from the average sample: iterations per
%% sample duration (continuous), or microseconds per `N' iterations of the one worker
%% (timed; 0.0 when no time was measured). The one definition of `qps'.
-spec qps(continuous | timed, number(), pos_integer() | {timed, pos_integer()}) -> float().
qps(timed, Us, {timed, N}) ->
    case Us == 0 of true -> 0.0; false -> N * 1.0e6 / Us end;
qps(continuous, Average, Ms) ->
    Average * 1000 / Ms.

iteration_time(timed, _Concurrency, AverageUs, #{sample_duration := {timed, Count}}) ->
    AverageUs * 1000 / Count;
iteration_time(continuous, _Concurrency, Average, _Opts) when Average == 0 ->
    infinity;
iteration_time(continuous, Concurrency, Average, #{sample_duration := Ms}) ->
    Ms * 1000000 * Concurrency / Average.
