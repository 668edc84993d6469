%%% @doc Open load: calls of a job's runner started on a schedule, at a fixed arrival
%%% rate, whether or not earlier calls have returned. The calling process is the
%%% pacer: it hands each call, when due, to an idle worker of a pool (`paced' workers of
%%% the job, see `erlperf_job_measurer:paced/6'), growing the pool when none is idle.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>intended start</b>: when the schedule says a call is due (native monotonic
%%%       time). `even': call I at T0 + I / Rate. `poisson': gaps drawn from the
%%%       exponential distribution of mean 1 / Rate (a Poisson process, as independent
%%%       users arrive).</li>
%%%   <li><b>service time</b>: from the call's actual start to its return: what the code
%%%       costs.</li>
%%%   <li><b>response time</b>: from the call's intended start to its return: what a user
%%%       arriving then would wait. When a slow call holds the workers, the calls due
%%%       meanwhile start late and their wait counts (a closed loop would not have
%%%       issued them at all: coordinated omission).</li>
%%%   <li><b>late</b>: a call that started more than ?LATE_MS ms after its intended
%%%       start (no idle worker and the pool at its cap, or the pacer behind).</li>
%%%   <li><b>skipped</b>: a call due during the run that never started: still queued at
%%%       the end, or beyond the queue's limit (?MAX_QUEUE) when it was due.</li>
%%%   <li><b>unfinished</b>: a call started but not returned ?DRAIN_MS ms after the end
%%%       of the run; its times are not recorded.</li>
%%%   <li><b>lateness</b>: how long after its intended start the pacer handed a call
%%%       out (or queued it): the generator's own delay. Its p99 above ?BEHIND_MS ms
%%%       means the generator, not the code, set the pace (`behind').</li>
%%%   <li><b>pool</b>: the workers. With `concurrency => N' there are N from the start
%%%       and never more; without, it starts with one and grows by one whenever a call is
%%%       due and none is idle, up to ?MAX_POOL.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% {ok, Job} = erlperf_job:start(#{runner => "timer:sleep(1)."}),
%%% Rate = erlperf_rate:run(#{pid => Job, monitor => monitor(process, Job)},
%%%                         #{rate => 500, samples => 3, sample_duration => 1000}),
%%% #{achieved := Achieved, response := Response} = Rate,
%%% ok = erlperf_job:stop(Job).
%%% '''
%%% Cost and safety: the pacer sleeps until ?SPIN_MS ms before the next call is due,
%%% then polls its mailbox until then (timers have millisecond granularity: a call
%%% started on a timer alone would start up to a millisecond late, which response times
%%% would charge to the code); with calls due less than ?SPIN_MS ms apart it never
%%% sleeps, and one scheduler is busy with it. Two histograms of ?SNAPSHOT_KB KB each
%%% (erlperf_histogram), shared by the workers; the queue of calls waiting for a worker
%%% holds ?MAX_QUEUE at most. The workers are linked to the job's controller: a crash
%%% of the runner stops the job, and the pacer raises it.
-module(erlperf_rate).

%% API: called by erlperf_local for `rate' runs.
-export([run/2]).
%% Internal exports: the schedule, pure (tested on its own).
-export([arrivals/3, gap/3]).

-export_type([options/0, result/0, arrival/0]).

%% A call that starts later than this after its intended start is late.
-define(LATE_MS, 1).
%% The pacer polls instead of sleeping when the next call is due within this.
-define(SPIN_MS, 1).
%% Calls waiting for a worker, at most: beyond, due calls are skipped.
-define(MAX_QUEUE, 1000000).
%% The largest pool without `concurrency'.
-define(MAX_POOL, 10000).
%% How long in-flight calls are waited for after the end of the run.
-define(DRAIN_MS, 2000).
%% The pacer's own lateness p99 above which the generator is called behind.
-define(BEHIND_MS, 1).
%% The first call is due this long after the pool is ready.
-define(START_MS, 5).
%% Size of a histogram, for the cost note.
-define(SNAPSHOT_KB, 42).

%% `rate': calls per second; `arrival': even (default) or poisson; `concurrency': the
%% pool's fixed size (default: grows as needed); `samples' x `sample_duration' ms: how
%% long calls are started; `seed': of the Poisson arrivals.
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
    next :: integer(),
    end_time :: integer(),
    sample_ns :: pos_integer(),
    sample_end :: integer(),
    in_sample = 0 :: non_neg_integer(),
    values = [] :: [non_neg_integer()],
    idle = [] :: [pid()],
    queue :: queue:queue(integer()),
    queued = 0 :: non_neg_integer(),
    pool = 0 :: non_neg_integer(),
    cap :: pos_integer(),
    growing = 0 :: non_neg_integer(),
    started = 0 :: non_neg_integer(),
    completed = 0 :: non_neg_integer(),
    skipped = 0 :: non_neg_integer(),
    lateness :: erlperf_histogram:recorder()
}).

%%--------------------------------------------------------------------
%% API

%% @doc Runs the job's runner at `rate' calls per second for `samples' x
%% `sample_duration' ms and returns what happened (see the module doc). Raises the
%% runner's crash as `{crashed, Role, Detail}'.
-spec run(#{pid := pid(), monitor := reference(), _ => _}, options()) -> result().
run(#{pid := Job, monitor := Mon}, #{rate := Rate, samples := Samples, sample_duration := Ms} = Opts) ->
    Spec = {erlperf_histogram:new(), erlperf_histogram:new(), counters:new(1, [write_concurrency]),
            erlang:convert_time_unit(?LATE_MS, millisecond, native)},
    {Cap, Initial} = case maps:get(concurrency, Opts, undefined) of
                         undefined -> {?MAX_POOL, 1};
                         N -> {N, N}
                     end,
    Workers = [spawn_worker(Job, Spec) || _ <- lists:seq(1, Initial)],
    Idle = [await_ready(W, Job, Mon) || W <- Workers],
    SampleNs = erlang:convert_time_unit(Ms, millisecond, native),
    T0 = erlang:monotonic_time() + erlang:convert_time_unit(?START_MS, millisecond, native),
    Arrival = arrival(maps:get(arrival, Opts, even), Rate, maps:get(seed, Opts, undefined), T0),
    {First, Arrival1} = gap(Arrival, T0, 0),
    P = #pacer{job = Job, job_monitor = Mon, spec = Spec, arrival = Arrival1, t0 = T0,
               next = First, end_time = T0 + Samples * SampleNs, sample_ns = SampleNs,
               sample_end = T0 + SampleNs, idle = Idle, queue = queue:new(),
               pool = Initial, cap = Cap, lateness = erlperf_histogram:new()},
    finish(drain(pace(P)), Rate, maps:get(arrival, Opts, even)).

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

%% Hands out every call due before the end; returns the pacer at the end.
pace(#pacer{next = Next, end_time = End} = P) when Next >= End ->
    close_sample(P);
pace(#pacer{next = Next, sample_end = SampleEnd} = P) ->
    Now = erlang:monotonic_time(),
    if
        Now >= SampleEnd -> pace(close_sample(P));
        Now >= Next -> pace(dispatch(P, Now));
        true -> pace(wait(P, min(Next, SampleEnd) - Now))
    end.

%% Waits for a worker's message, at most until `Left' (native) has passed; sleeps only
%% when that is more than ?SPIN_MS away.
wait(P, Left) ->
    Spin = erlang:convert_time_unit(?SPIN_MS, millisecond, native),
    Timeout = case Left > Spin of
                  true -> erlang:convert_time_unit(Left - Spin, native, millisecond);
                  false -> 0
              end,
    receive
        Msg -> handle(Msg, P)
    after Timeout ->
        P
    end.

handle({paced_idle, Worker}, #pacer{completed = C, in_sample = S} = P) ->
    give(Worker, P#pacer{completed = C + 1, in_sample = S + 1});
handle({paced_ready, Worker}, #pacer{growing = G} = P) ->
    give(Worker, P#pacer{growing = G - 1});
handle({'DOWN', Mon, process, _, Reason}, #pacer{job_monitor = Mon}) ->
    erlperf_sampler:job_down(Reason);
handle(_Other, P) ->
    P.

%% An idle worker takes the oldest queued call, or joins the idle ones.
give(Worker, #pacer{queued = 0, idle = Idle} = P) ->
    P#pacer{idle = [Worker | Idle]};
give(Worker, #pacer{queue = Q, queued = N, started = S} = P) ->
    {{value, Intended}, Rest} = queue:out(Q),
    Worker ! {call, Intended},
    P#pacer{queue = Rest, queued = N - 1, started = S + 1}.

%% The call due at `next': to an idle worker, or queued (a new worker on its way when
%% the pool may grow), or skipped when the queue is full.
dispatch(#pacer{next = Next, lateness = Lateness} = P, Now) ->
    ok = erlperf_histogram:record(Lateness, erlang:convert_time_unit(Now - Next, native, nanosecond)),
    advance(assign(Next, P)).

assign(Intended, #pacer{idle = [Worker | Idle], started = S} = P) ->
    Worker ! {call, Intended},
    P#pacer{idle = Idle, started = S + 1};
assign(Intended, #pacer{queued = N, skipped = Skipped} = P) when N >= ?MAX_QUEUE ->
    _ = Intended,
    P#pacer{skipped = Skipped + 1};
assign(Intended, #pacer{queue = Q, queued = N} = P) ->
    grow(P#pacer{queue = queue:in(Intended, Q), queued = N + 1}).

%% One more worker when every call queued has none on its way and the cap allows.
grow(#pacer{pool = Pool, cap = Cap, growing = G, queued = N, job = Job, spec = Spec} = P)
  when Pool < Cap, G < N ->
    _ = spawn_worker(Job, Spec),
    P#pacer{pool = Pool + 1, growing = G + 1};
grow(P) ->
    P.

advance(#pacer{arrival = A, t0 = T0, index = I} = P) ->
    {Next, A1} = gap(A, T0, I + 1),
    P#pacer{arrival = A1, index = I + 1, next = Next}.

close_sample(#pacer{in_sample = S, values = Values, sample_end = End, sample_ns = Ns} = P) ->
    P#pacer{in_sample = 0, values = [S | Values], sample_end = End + Ns}.

%% After the end: queued calls are skipped; calls in flight are waited for, at most
%% ?DRAIN_MS; idle workers are stopped (busy ones stop with the job).
drain(#pacer{queued = N, skipped = Skipped} = P) ->
    Deadline = erlang:monotonic_time() + erlang:convert_time_unit(?DRAIN_MS, millisecond, native),
    drain_wait(P#pacer{queue = queue:new(), queued = 0, skipped = Skipped + N}, Deadline).

drain_wait(#pacer{idle = Idle, pool = Pool, growing = G} = P, Deadline) when length(Idle) + G >= Pool ->
    _ = Deadline,
    stop_idle(P);
drain_wait(P, Deadline) ->
    Left = erlang:convert_time_unit(Deadline - erlang:monotonic_time(), native, millisecond),
    receive
        {paced_idle, Worker} ->
            drain_wait(P#pacer{idle = [Worker | P#pacer.idle], completed = P#pacer.completed + 1},
                       Deadline);
        {paced_ready, Worker} ->
            drain_wait(P#pacer{idle = [Worker | P#pacer.idle], growing = P#pacer.growing - 1},
                       Deadline);
        {'DOWN', Mon, process, _, Reason} when Mon =:= P#pacer.job_monitor ->
            erlperf_sampler:job_down(Reason)
    after max(0, Left) ->
        stop_idle(P)
    end.

stop_idle(#pacer{idle = Idle} = P) ->
    _ = [W ! stop || W <- Idle],
    P.

finish(#pacer{spec = {Service, Response, Late, _}, t0 = T0, end_time = End, values = Values,
              started = Started, completed = Completed, skipped = Skipped, pool = Pool,
              idle = Idle, growing = G, lateness = Lateness}, Rate, Arrival) ->
    Seconds = (End - T0) / native_per_second(),
    LatenessSnapshot = erlperf_histogram:snapshot(Lateness),
    Behind = case erlperf_histogram:percentile(LatenessSnapshot, 99) of
                 undefined -> false;
                 P99 -> P99 > erlang:convert_time_unit(?BEHIND_MS, millisecond, nanosecond)
             end,
    #{target => Rate, arrival => Arrival, achieved => Started / Seconds, started => Started,
      completed => Completed, late => counters:get(Late, 1), skipped => Skipped,
      unfinished => Pool - length(Idle) - G, workers => Pool, behind => Behind,
      duration_ns => erlang:convert_time_unit(End - T0, native, nanosecond),
      values => lists:reverse(Values),
      service => erlperf_histogram:snapshot(Service),
      response => erlperf_histogram:snapshot(Response),
      lateness => LatenessSnapshot}.
