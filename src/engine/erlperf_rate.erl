%%% @doc Open load: calls of a job's runner started on a schedule, at a fixed arrival
%%% rate, whether or not earlier calls have returned. The pacer (a process of its own)
%%% keeps the schedule: when a call is due it releases it; workers of a pool (`paced'
%%% workers of the job, see `erlperf_job_measurer:paced/6') claim released calls one
%%% after another, and a worker that finds none tells the pacer, which wakes it when the
%%% next call is released. The pool grows when calls wait and no worker is idle.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>intended start</b>: when the schedule says a call is due (native monotonic
%%%       time). `even': call I at T0 + I / Rate. `poisson': gaps drawn from the
%%%       exponential distribution of mean 1 / Rate (a Poisson process, as independent
%%%       users arrive).</li>
%%%   <li><b>released, claimed</b>: two counters shared by the pacer and the workers
%%%       (`atomics'): calls due so far, and calls a worker has taken. A worker takes
%%%       the oldest released call not taken (compare-and-swap on the claimed counter),
%%%       so a busy pool runs call after call without a message; the intended starts of
%%%       released calls are kept in a ring of ?RING_SIZE.</li>
%%%   <li><b>service time</b>: from the call's actual start to its return: what the code
%%%       costs.</li>
%%%   <li><b>response time</b>: from the call's intended start to its return: what a user
%%%       arriving then would wait. When a slow call holds the workers, the calls due
%%%       meanwhile start late and their wait counts (a closed loop would not have
%%%       issued them at all: coordinated omission).</li>
%%%   <li><b>late</b>: a call that started more than ?LATE_MS ms after its intended
%%%       start (no worker was free, or the pacer was behind).</li>
%%%   <li><b>skipped</b>: a call due during the run that never started: released but not
%%%       claimed by the end, or not released because ?RING_SIZE calls were waiting.</li>
%%%   <li><b>unfinished</b>: a call started but not returned ?DRAIN_MS ms after the end
%%%       of the run; its times are not recorded.</li>
%%%   <li><b>lateness</b>: how long after its intended start the pacer released a call:
%%%       the generator's own delay. Its p99 above ?BEHIND_MS ms means the generator,
%%%       not the code, set the pace (`behind').</li>
%%%   <li><b>pool</b>: the workers. With `concurrency => N' there are N from the start
%%%       and never more; without, it starts with one and grows by one (one new worker
%%%       at a time) whenever released calls wait and none is idle, up to ?MAX_POOL.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% {ok, Job} = erlperf_job:start(#{runner => "timer:sleep(1)."}),
%%% Rate = erlperf_rate:run(#{pid => Job}, #{rate => 500, samples => 3, sample_duration => 1000}),
%%% #{achieved := Achieved, response := Response} = Rate,
%%% ok = erlperf_job:stop(Job).
%%% '''
%%% Cost and safety: the pacer sleeps until ?SPIN_MS ms before the next call is due,
%%% then polls (yielding to other processes) until then: timers have millisecond
%%% granularity, and a call released on a timer alone would start up to a millisecond
%%% late, which response times would charge to the code. With calls due less than
%%% ?SPIN_MS ms apart it never sleeps. Two histograms of about 42 KB each
%%% (erlperf_histogram) and a ring of ?RING_SIZE integers, shared by the workers. The
%%% workers are linked to the job's controller: a crash of the runner stops the job,
%%% and the pacer raises it; workers still in a call at the end stop with the job.
-module(erlperf_rate).

%% API: called by erlperf_local for `rate' runs, by erlperf_perf_rate for a load that
%% runs until stopped, and by both (and erlperf_cluster) to add results of several nodes.
-export([run/2, start/2, stop/1, merge/1, split/2]).
%% Internal exports: the schedule, pure (tested on its own).
-export([arrivals/3, gap/3]).

-export_type([options/0, result/0, arrival/0]).

%% A call that starts later than this after its intended start is late.
-define(LATE_MS, 1).
%% The pacer polls instead of sleeping when the next call is due within this.
-define(SPIN_MS, 1).
%% Released calls waiting for a worker, at most (the ring of their intended starts, 8
%% bytes each); beyond, due calls are skipped.
-define(RING_SIZE, (1 bsl 18)).
%% The largest pool without `concurrency'.
-define(MAX_POOL, 10000).
%% How long calls in flight are waited for after the end of the run.
-define(DRAIN_MS, 2000).
%% How often the end of the run looks at the calls in flight.
-define(DRAIN_POLL_MS, 1).
%% At the end, how long calls released but not claimed yet may still be claimed (a call
%% released just before the end is claimed a few microseconds later).
-define(CLOSE_GRACE_MS, 10).
%% The pacer's own lateness p99 above which the generator is called behind.
-define(BEHIND_MS, 1).
%% The first call is due this long after the pool is ready.
-define(START_MS, 5).
%% A load started with start/2 and no length: samples of this many ms, as many as ever.
-define(OPEN_SAMPLE_MS, 100).
-define(OPEN_SAMPLES, (1 bsl 40)).
%% The claimed counter at the end: above any count of released calls, so that no
%% worker claims another.
-define(CLOSED, (1 bsl 62)).

%% `rate': calls per second; `arrival': even (default) or poisson; `concurrency': the
%% pool's fixed size (default: grows as needed); `samples' x `sample_duration' ms: how
%% long calls are released; `seed': of the Poisson arrivals.
-type options() :: #{rate := number(), arrival => even | poisson, concurrency => pos_integer(),
                     samples := pos_integer(), sample_duration := pos_integer(),
                     seed => integer()}.
%% Times in nanoseconds. `values': calls returned in each sample; `achieved': calls
%% started per second over the run.
-type result() :: #{target := number(), arrival := even | poisson, achieved := float(),
                    started := non_neg_integer(), completed := non_neg_integer(),
                    late := non_neg_integer(), skipped := non_neg_integer(),
                    unfinished := non_neg_integer(), workers := pos_integer(),
                    behind := boolean(), duration_ns := non_neg_integer(),
                    values := [non_neg_integer()],
                    service := erlperf_histogram:snapshot(),
                    response := erlperf_histogram:snapshot(),
                    lateness := erlperf_histogram:snapshot()}.
%% The schedule: even, its period; poisson, the mean gap, the random state and the
%% last start (native units).
-type arrival() :: {even, float()} | {poisson, float(), rand:state(), integer()}.

-record(pacer, {
    job :: pid(),
    job_monitor :: reference(),
    spec :: erlperf_job_measurer:paced_spec(),
    arrival :: arrival(),
    t0 :: integer(),
    index = 0 :: non_neg_integer(),
    released = 0 :: non_neg_integer(),
    next :: integer(),
    end_time :: integer(),
    sample_ns :: pos_integer(),
    sample_end :: integer(),
    sample_start = 0 :: non_neg_integer(),
    values = [] :: [non_neg_integer()],
    idle = [] :: [pid()],
    pool = 0 :: non_neg_integer(),
    cap :: pos_integer(),
    growing = 0 :: 0 | 1,
    skipped = 0 :: non_neg_integer(),
    started = 0 :: non_neg_integer(),
    lateness :: erlperf_histogram:recorder()
}).

%%--------------------------------------------------------------------
%% API

%% @doc Runs the job's runner at `rate' calls per second for `samples' x
%% `sample_duration' ms and returns what happened (see the module doc). Raises the
%% runner's crash as `{crashed, Role, Detail}'.
-spec run(#{pid := pid(), _ => _}, options()) -> result().
run(#{pid := Job}, Opts) ->
    %% the pacer is a process of its own, at normal priority (when it polls, it yields
    %% to the system under test); messages of workers that come back after it are lost.
    %% It hands back the job's crash as a message and ends normally: a process ending
    %% with an error would have the VM log a report of its own for it
    Caller = self(),
    {Pid, Ref} = spawn_monitor(fun () -> Caller ! {self(), paced, paced(Job, Opts)} end),
    receive
        {Pid, paced, {ok, Result}} ->
            erlang:demonitor(Ref, [flush]),
            Result;
        {Pid, paced, {error, Reason}} ->
            erlang:demonitor(Ref, [flush]),
            erlang:error(Reason);
        {'DOWN', Ref, process, Pid, Reason} -> erlang:error({pacer_failed, Reason})
    end.

%% @doc Starts the job's runner at `rate' calls per second, until {@link stop/1} (or
%% `samples' x `sample_duration' ms, when given); returns the pacer, linked to the caller.
-spec start(#{pid := pid(), _ => _}, #{rate := number(), _ => _}) -> pid().
start(#{pid := Job}, Opts) ->
    Owner = self(),
    Open = maps:merge(#{samples => ?OPEN_SAMPLES, sample_duration => ?OPEN_SAMPLE_MS}, Opts),
    spawn_link(fun () -> Owner ! {self(), paced, pace_job(Job, Open)} end).

%% @doc Ends a load started with {@link start/2} and returns what happened, as
%% {@link run/2} does (its `values': calls returned per sample of ?OPEN_SAMPLE_MS ms).
-spec stop(pid()) -> result().
stop(Pacer) ->
    Ref = erlang:monitor(process, Pacer),
    Pacer ! {stop, self()},
    receive
        {Pacer, paced, Result} ->
            erlang:demonitor(Ref, [flush]),
            Result;
        {'DOWN', Ref, process, Pacer, {{crashed, _, _} = Crash, _Stack}} -> erlang:error(Crash);
        {'DOWN', Ref, process, Pacer, Reason} -> erlang:error({pacer_failed, Reason})
    end.

%% @doc A rate shared among `Count' nodes: each takes Rate div Count, the first Rate rem
%% Count one call a second more.
-spec split(pos_integer(), pos_integer()) -> [non_neg_integer()].
split(Rate, Count) ->
    [Rate div Count + case I =< Rate rem Count of true -> 1; false -> 0 end
     || I <- lists:seq(1, Count)].

%% @doc Results of loads run at the same time (by several nodes) as one: calls added up,
%% histograms merged (exactly: every call in the bucket it was recorded in), samples
%% added sample by sample (only when every result has `values': reports hold the
%% result without them), the longest duration.
-spec merge([result() | #{atom() => term()}, ...]) -> result() | #{atom() => term()}.
merge([Result]) ->
    Result;
merge([First | _] = Results) ->
    Sum = fun (K) -> lists:sum([maps:get(K, R) || R <- Results]) end,
    Merged = fun (K) -> lists:foldl(fun erlperf_histogram:merge/2, erlperf_histogram:empty(),
                                    [maps:get(K, R) || R <- Results])
             end,
    Values = case [V || #{values := V} <- Results] of
                 All when length(All) =:= length(Results) ->
                     Shortest = lists:min([length(V) || V <- All]),
                     #{values => [lists:sum(C) || C <- columns([lists:sublist(V, Shortest) || V <- All])]};
                 _ ->
                     #{}
             end,
    maps:merge(Values, (maps:from_list([{K, Sum(K)} || K <- [target, achieved, started, completed, late, skipped,
                                          unfinished, workers]]))#{
        arrival => maps:get(arrival, First),
        behind => lists:any(fun (#{behind := B}) -> B end, Results),
        duration_ns => lists:max([D || #{duration_ns := D} <- Results]),
        service => Merged(service), response => Merged(response), lateness => Merged(lateness)}).

%%--------------------------------------------------------------------
%% Internal exports

%% @private
%% The first `Count' intended starts after `T0' (native units) of an arrival process,
%% and the process after them.
-spec arrivals(arrival(), integer(), non_neg_integer()) -> {[integer()], arrival()}.
arrivals(Arrival, T0, Count) ->
    lists:mapfoldl(fun (I, A) -> gap(A, T0, I) end, Arrival, lists:seq(0, Count - 1)).

%% @private
%% The intended start of call `I' (from 0): even, T0 + I x period (no drift from
%% rounding); poisson, the last start plus an exponential gap (the first from T0).
-spec gap(arrival(), integer(), non_neg_integer()) -> {integer(), arrival()}.
gap({even, Period} = A, T0, I) ->
    {T0 + round(I * Period), A};
gap({poisson, Mean, State, Last}, _T0, _I) ->
    {U, Next} = rand:uniform_real_s(State),
    Start = Last + round(-math:log(U) * Mean),
    {Start, {poisson, Mean, Next, Start}}.

%%--------------------------------------------------------------------
%% Internal functions

%% run/2's pacer: the result, or the job's crash or stop (erlperf_sampler:job_down/1).
paced(Job, Opts) ->
    try {ok, pace_job(Job, Opts)}
    catch error:{crashed, _, _} = Crash -> {error, Crash};
          error:{job_stopped, _} = Stopped -> {error, Stopped}
    end.

pace_job(Job, #{rate := Rate, samples := Samples, sample_duration := Ms} = Opts) ->
    Mon = erlang:monitor(process, Job),
    Spec = #{service => erlperf_histogram:new(), response => erlperf_histogram:new(),
             counts => counters:new(2, [write_concurrency]), calls => atomics:new(2, []),
             ring => atomics:new(?RING_SIZE, []), ring_size => ?RING_SIZE,
             late_native => erlang:convert_time_unit(?LATE_MS, millisecond, native)},
    {Cap, Initial} = case maps:get(concurrency, Opts, undefined) of
                         undefined -> {?MAX_POOL, 1};
                         N -> {N, N}
                     end,
    Workers = [spawn_worker(Job, Spec) || _ <- lists:seq(1, Initial)],
    Idle = [await_ready(W, Job, Mon) || W <- Workers],
    SampleNs = erlang:convert_time_unit(Ms, millisecond, native),
    T0 = erlang:monotonic_time() + erlang:convert_time_unit(?START_MS, millisecond, native),
    ArrivalKind = maps:get(arrival, Opts, even),
    {First, Arrival} = gap(arrival(ArrivalKind, Rate, maps:get(seed, Opts, undefined), T0), T0, 0),
    P = #pacer{job = Job, job_monitor = Mon, spec = Spec, arrival = Arrival, t0 = T0,
               next = First, end_time = T0 + Samples * SampleNs, sample_ns = SampleNs,
               sample_end = T0 + SampleNs, idle = Idle, pool = Initial, cap = Cap,
               lateness = erlperf_histogram:new()},
    finish(drain(settle(pace(P))), Rate, ArrivalKind).

arrival(even, Rate, _Seed, _T0) ->
    {even, native_per_second() / Rate};
arrival(poisson, Rate, Seed, T0) ->
    State = case Seed of
                undefined -> rand:seed_s(exsss);
                _ -> rand:seed_s(exsss, Seed)
            end,
    {poisson, native_per_second() / Rate, State, T0}.

native_per_second() ->
    erlang:convert_time_unit(1, second, native).

spawn_worker(Job, Spec) ->
    {Pid, _Module} = erlperf_job:start_measurer(Job, paced, [self(), Spec], []),
    Pid.

await_ready(Worker, Job, Mon) ->
    receive
        {paced_ready, Worker} -> Worker;
        {'DOWN', Mon, process, Job, Reason} -> erlperf_sampler:job_down(Reason)
    end.

%% Releases every call due before the end; returns the pacer at the end.
pace(#pacer{next = Next, end_time = End} = P) when Next >= End ->
    close_sample(P);
pace(#pacer{next = Next, sample_end = SampleEnd} = P) ->
    Now = erlang:monotonic_time(),
    if
        Now >= SampleEnd -> pace(close_sample(P));
        Now >= Next -> pace(release(P, Now));
        true -> pace(wait(P, min(Next, SampleEnd) - Now))
    end.

%% Waits for a worker's message, at most until `Left' (native) has passed; sleeps only
%% when that is more than ?SPIN_MS away, and yields while it polls.
wait(P, Left) ->
    Spin = erlang:convert_time_unit(?SPIN_MS, millisecond, native),
    Timeout = case Left > Spin of
                  true -> erlang:convert_time_unit(Left - Spin, native, millisecond);
                  false -> 0
              end,
    Timeout =:= 0 andalso erlang:yield(),
    receive
        Msg -> handle(Msg, P)
    after Timeout ->
        P
    end.

handle({paced_idle, Worker}, P) ->
    idle(Worker, P);
handle({paced_ready, Worker}, P) ->
    idle(Worker, P#pacer{growing = 0});
handle({'DOWN', Mon, process, _, Reason}, #pacer{job_monitor = Mon}) ->
    erlperf_sampler:job_down(Reason);
handle({stop, _From}, #pacer{next = Next} = P) ->
    %% stop/1: the run ends now (no call is released after)
    P#pacer{end_time = max(P#pacer.t0 + 1, min(Next, erlang:monotonic_time()))};
handle(_Other, P) ->
    P.

%% A worker with nothing to claim: woken at once if a call was released meanwhile, else
%% kept idle.
idle(Worker, #pacer{spec = #{calls := Calls}, idle = Idle} = P) ->
    case atomics:get(Calls, 1) < atomics:get(Calls, 2) of
        true ->
            Worker ! wake,
            P;
        false ->
            P#pacer{idle = [Worker | Idle]}
    end.

%% The call due at `next' is released (its intended start in the ring) and an idle
%% worker woken; with none idle, the pool may grow. With the ring full of calls
%% waiting, the call is skipped: it is not released, and it is counted once, here (the
%% released calls are counted apart from the calls due, so that no worker ever claims
%% a skipped call, and the end counts as skipped only released calls left unclaimed).
release(#pacer{next = Next, lateness = Lateness, spec = Spec, released = R, skipped = Skipped} = P,
        Now) ->
    ok = erlperf_histogram:record(Lateness, erlang:convert_time_unit(Now - Next, native, nanosecond)),
    #{calls := Calls, ring := Ring, ring_size := Size} = Spec,
    case R - atomics:get(Calls, 1) < Size of
        true ->
            ok = atomics:put(Ring, R rem Size + 1, Next),
            ok = atomics:put(Calls, 2, R + 1),
            advance(wake(P#pacer{released = R + 1}));
        false ->
            advance(P#pacer{skipped = Skipped + 1})
    end.

wake(#pacer{idle = [Worker | Idle]} = P) ->
    Worker ! wake,
    P#pacer{idle = Idle};
wake(P) ->
    grow(P).

%% One more worker, when none is on its way and the cap allows: one at a time, so that
%% a moment's delay (a collection, the host) does not start a worker per call released
%% meanwhile, workers that would then compete for what they call.
grow(#pacer{pool = Pool, cap = Cap, growing = 0, job = Job, spec = Spec} = P) when Pool < Cap ->
    _ = spawn_worker(Job, Spec),
    P#pacer{pool = Pool + 1, growing = 1};
grow(P) ->
    P.

advance(#pacer{arrival = A, t0 = T0, index = I} = P) ->
    {Next, A1} = gap(A, T0, I + 1),
    P#pacer{arrival = A1, index = I + 1, next = Next}.

%% A sample's value: the calls returned since the last. A stop asked for meanwhile
%% (stop/1) is seen here too, when the pacer has been too busy to wait.
close_sample(#pacer{spec = #{counts := Counts}, sample_start = From, values = Values,
                    sample_end = End, sample_ns = Ns} = P) ->
    Returned = counters:get(Counts, 2),
    Closed = P#pacer{sample_start = Returned, values = [Returned - From | Values], sample_end = End + Ns},
    receive
        {stop, _} = Stop -> handle(Stop, Closed)
    after 0 ->
        Closed
    end.

%% Lists of equal length as columns: [[A1, B1], [A2, B2], ...].
columns([[] | _]) -> [];
columns(Lists) -> [[hd(L) || L <- Lists] | columns([tl(L) || L <- Lists])].

%% The end: calls released but not claimed yet may be claimed for ?CLOSE_GRACE_MS more;
%% then no worker claims another, and those left are skipped.
settle(P) ->
    settle(P, erlang:monotonic_time() + erlang:convert_time_unit(?CLOSE_GRACE_MS, millisecond, native)).

settle(#pacer{spec = #{calls := Calls}, released = Released} = P, Deadline) ->
    case atomics:get(Calls, 1) >= Released orelse erlang:monotonic_time() >= Deadline of
        true ->
            close(P);
        false ->
            receive
                Msg -> settle(handle(Msg, P), Deadline)
            after 1 ->
                settle(P, Deadline)
            end
    end.

close(#pacer{spec = #{calls := Calls}, released = Released, skipped = Skipped} = P) ->
    Claimed = atomics:exchange(Calls, 1, ?CLOSED),
    P#pacer{started = Claimed, skipped = Skipped + Released - Claimed}.

%% Calls in flight are waited for, at most ?DRAIN_MS; then idle workers are stopped
%% (busy ones stop with the job).
drain(P) ->
    drain(P, erlang:monotonic_time() + erlang:convert_time_unit(?DRAIN_MS, millisecond, native)).

drain(#pacer{spec = #{counts := Counts}, started = Started, job_monitor = Mon} = P, Deadline) ->
    case counters:get(Counts, 2) >= Started orelse erlang:monotonic_time() >= Deadline of
        true ->
            stop_idle(P);
        false ->
            receive
                {'DOWN', Mon, process, _, _} = JobDown -> handle(JobDown, P)
            after ?DRAIN_POLL_MS ->
                drain(P, Deadline)
            end
    end.

%% Every worker idle now, or idle or ready since, is told to stop.
stop_idle(#pacer{idle = Idle} = P) ->
    _ = [W ! stop || W <- Idle],
    ok = flush_stop(),
    P#pacer{idle = []}.

flush_stop() ->
    receive
        {paced_idle, W} -> W ! stop, flush_stop();
        {paced_ready, W} -> W ! stop, flush_stop()
    after 0 ->
        ok
    end.

finish(#pacer{spec = Spec, t0 = T0, end_time = End, values = Values, started = Started,
              skipped = Skipped, pool = Pool, lateness = Lateness}, Rate, Arrival) ->
    #{service := Service, response := Response, counts := Counts} = Spec,
    Completed = counters:get(Counts, 2),
    LatenessSnapshot = erlperf_histogram:snapshot(Lateness),
    Behind = case erlperf_histogram:percentile(LatenessSnapshot, 99) of
                 undefined -> false;
                 P99 -> P99 > erlang:convert_time_unit(?BEHIND_MS, millisecond, nanosecond)
             end,
    #{target => Rate, arrival => Arrival, achieved => Started / ((End - T0) / native_per_second()),
      started => Started, completed => Completed, late => counters:get(Counts, 1),
      skipped => Skipped, unfinished => Started - Completed, workers => Pool, behind => Behind,
      duration_ns => erlang:convert_time_unit(End - T0, native, nanosecond),
      values => lists:reverse(Values),
      service => erlperf_histogram:snapshot(Service),
      response => erlperf_histogram:snapshot(Response),
      lateness => LatenessSnapshot}.
