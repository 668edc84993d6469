%%% @doc Per-call latency of a runner: calls timed one by one in a fresh worker of its
%%% job, and their distribution. This module is the client side of the latency
%%% protocol: {@link time_calls/2} asks the job for a latency worker
%%% (`erlperf_job:start_measurer/4'), waits for it and reads the spans it wrote
%%% (the worker's side is `erlperf_job_measurer:latency/6').
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>span</b>: the monotonic clock read right before a call and right after it
%%%       (`erlang:monotonic_time/0', native units: nanoseconds on Linux). Every call is
%%%       timed; none is skipped.</li>
%%%   <li><b>timer cost</b>: the median of `?TIMER_CALLS' empty spans (the clock read
%%%       twice with nothing between), timed in the same worker just before the calls.
%%%       It is subtracted from every call's span, down to 0 at least: an `ok.' runner
%%%       shows about 0 ns.</li>
%%%   <li><b>percentiles</b>: `p50' (the median), `p90', `p99', `p999' (99.9%) and `max'
%%%       by nearest rank ({@link erlperf_stat:percentiles/2}, R's
%%%       `quantile(x, type = 1)'): each is one of the timed calls. `average' and
%%%       `stddev' (sample standard deviation) are of the same calls.</li>
%%%   <li><b>unfinished</b>: a call that had not returned when the wait ended (see the
%%%       cost note); it is left out of the figures, and `calls' may then be 0.</li>
%%% </ul>
%%%
%%% Calls run one after another in one worker, after the benchmark, with no other worker
%%% of any job running: this is the latency of a call on an otherwise idle node,
%%% including what happens during it (garbage collections, being scheduled out). For a
%%% runner that allocates, where collections fall depends on the worker's heap, so a
%%% fresh worker can see calls take another time than the benchmark's workers did: on
%%% the 2-core test machine, the median of `lists:seq(1, 100)' (a collection every call
%%% or two) was 300 ns in some fresh workers and 700 ns in others, in loops with and
%%% without the clock. The worker allocates nothing of its own from `init_runner' on.
%%%
%%% Example:
%%% ```
%%% {ok, Job} = erlperf_job:start(#{runner => "timer:sleep(1)."}),
%%% #{calls := Calls, p50 := P50, p99 := P99, max := Max} = erlperf_latency:measure(Job, infinity),
%%% ok = erlperf_job:stop(Job).
%%% '''
%%% Cost and safety: one fresh worker, linked to the job; at most `?MAX_CALLS' calls
%%% and `?BUDGET_MS' of calls (at least one call, however long it takes); durations are
%%% kept in an `atomics' array of `?MAX_CALLS' integers (800 KB), off the worker's heap.
%%% A call that does not return is waited for `?BUDGET_MS' plus `?GRACE_FACTOR' times
%%% the benchmark's time per call (between `?MIN_GRACE_MS' and `?MAX_GRACE_MS'); then
%%% the worker is stopped and the result is marked `unfinished'.
-module(erlperf_latency).

%% API: called by erlperf_local after a benchmark, with the job's workers stopped.
-export([measure/2, budget_ms/0]).

%% Internal exports: the arithmetic, pure (tested on its own); calls timed in a worker,
%% unsummarised (tests check the worker and the wait).
-export([summary/2, time_calls/2]).

-export_type([latency/0, latency_options/0, latency_calls/0]).

%% Nanoseconds. The figures are present when `calls' is above 0.
-type latency() :: #{calls := non_neg_integer(),
                     timer_ns := non_neg_integer(),
                     unfinished := boolean(),
                     average => float(),
                     stddev => float(),
                     min => non_neg_integer(),
                     p50 => non_neg_integer(),
                     p90 => non_neg_integer(),
                     p99 => non_neg_integer(),
                     p999 => non_neg_integer(),
                     max => non_neg_integer()}.

%% How {@link time_calls/2} times calls: `timer_calls' empty spans first; at most
%% `calls' runner calls, for at most `budget_ms'; the caller waits at most `wait_ms' for
%% the worker once it has started timing.
-type latency_options() :: #{calls := pos_integer(), timer_calls := pos_integer(),
                             budget_ms := pos_integer(), wait_ms := pos_integer()}.
%% What {@link time_calls/2} timed, in nanoseconds: each runner call that returned, in
%% order (`durations'), the empty spans (`timer'), and whether a call was still running
%% when the wait ended (`unfinished').
-type latency_calls() :: #{durations := [integer()], timer := [integer()],
                           unfinished := boolean()}.

%% Most calls timed: enough for 100 calls above the 99.9th percentile.
-define(MAX_CALLS, 100000).
%% Time given to the calls (milliseconds): a 1 ms runner gets about 1000 calls.
-define(BUDGET_MS, 1000).
%% Empty spans timed to find the timer's own cost.
-define(TIMER_CALLS, 1000).
%% Once the budget has passed, a call still running is waited for this many times the
%% benchmark's time per call, within these bounds (milliseconds).
-define(GRACE_FACTOR, 10).
-define(MIN_GRACE_MS, 1000).
-define(MAX_GRACE_MS, 60000).
%% The percentiles reported, in percent, and their keys.
-define(PERCENTILES, [{p50, 50}, {p90, 90}, {p99, 99}, {p999, 99.9}, {max, 100}]).
%% What a slot of a durations array holds until a call's span is written there.
-define(UNWRITTEN, -1).

%%--------------------------------------------------------------------
%% API

%% @doc The most time the calls of one code are given (milliseconds): what a run with
%% `latency' takes longer for each code, at most.
-spec budget_ms() -> pos_integer().
budget_ms() ->
    ?BUDGET_MS.

%% @doc Times calls of the job's runner one by one; `IterationNs' (the benchmark's time
%% per call, `infinity' when none completed) sizes the wait for a call that does not
%% return.
-spec measure(pid(), number() | infinity) -> latency().
measure(Job, IterationNs) ->
    #{durations := Spans, timer := Timer, unfinished := Unfinished} =
        time_calls(Job, #{calls => ?MAX_CALLS, timer_calls => ?TIMER_CALLS,
                          budget_ms => ?BUDGET_MS, wait_ms => wait_ms(IterationNs)}),
    (summary(Spans, Timer))#{unfinished => Unfinished}.

%% @private
%% The distribution of call spans (nanoseconds), less the timer's cost: the median of
%% the empty spans.
-spec summary([integer()], [integer(), ...]) -> map().
summary(Spans, EmptySpans) ->
    Timer = erlperf_stat:median(EmptySpans),
    figures([max(0, S - Timer) || S <- Spans], #{calls => length(Spans), timer_ns => Timer}).

%% @private
%% Times runner calls one by one in a fresh worker of the job, after its `init_runner':
%% first `timer_calls' empty spans (the clock read twice with nothing between: what
%% timing itself costs), then up to `calls' runner calls, for at most `budget_ms' (at
%% least one call). Durations are kept in an `atomics' array, off the worker's heap, and
%% returned in nanoseconds. When the worker is still busy `wait_ms' after it started
%% timing (a call that does not return), the job stops it and the calls that returned
%% are given with `unfinished => true'. A crash stops the job, as in a run, and is
%% raised here.
-spec time_calls(gen_server:server_ref(), latency_options()) -> latency_calls().
time_calls(Job, #{calls := Size, timer_calls := TimerCalls, budget_ms := Budget, wait_ms := Wait}) ->
    Durations = atomics:new(Size, [{signed, true}]),
    ok = unwritten(Durations, Size),
    Timer = atomics:new(TimerCalls, [{signed, true}]),
    Spec = {Durations, Size, Timer, TimerCalls, Budget},
    {Worker, _Module} = erlperf_job:start_measurer(Job, latency, [self(), Spec], []),
    Mon = erlang:monitor(process, Worker),
    try
        ok = erlperf_job_measurer:await(Worker, Mon, latency_ready, infinity),
        {Calls, Unfinished} = wait_calls(Job, Worker, Mon, Durations, Wait),
        #{durations => slots(Durations, Size - Calls + 1, Size),
          timer => slots(Timer, 1, TimerCalls), unfinished => Unfinished}
    after
        erlang:demonitor(Mon, [flush])
    end.

%%--------------------------------------------------------------------
%% Internal functions

%% Every slot of a durations array starts as ?UNWRITTEN.
unwritten(_Durations, 0) ->
    ok;
unwritten(Durations, I) ->
    ok = atomics:put(Durations, I, ?UNWRITTEN),
    unwritten(Durations, I - 1).

%% {Calls timed, Unfinished}: the worker's count, or, when it is still busy after Wait,
%% the slots it wrote (from the last one down) before the job stopped it.
wait_calls(Job, Worker, Mon, Durations, Wait) ->
    case erlperf_job_measurer:await(Worker, Mon, latency_done, Wait) of
        timeout ->
            ok = erlperf_job:cancel_measurer(Job, Worker),
            %% it may have finished meanwhile: its last message comes before its DOWN
            receive
                {latency_done, Worker, Calls} -> {Calls, false};
                {'DOWN', Mon, process, Worker, _} -> {written(Durations), true}
            end;
        Calls ->
            {Calls, false}
    end.

written(Durations) ->
    #{size := Size} = atomics:info(Durations),
    length(lists:takewhile(fun (I) -> atomics:get(Durations, I) =/= ?UNWRITTEN end,
                           lists:seq(Size, 1, -1))).

%% Slots From to To of an array, in nanoseconds.
slots(Array, From, To) ->
    [erlang:convert_time_unit(atomics:get(Array, I), native, nanosecond) || I <- lists:seq(From, To)].

figures([], Base) ->
    Base;
figures(Calls, Base) ->
    {Keys, Ps} = lists:unzip(?PERCENTILES),
    Percentiles = maps:from_list(lists:zip(Keys, erlperf_stat:percentiles(Calls, Ps))),
    maps:merge(Base#{average => erlperf_stat:mean(Calls), stddev => erlperf_stat:stddev(Calls),
                     min => lists:min(Calls)}, Percentiles).

wait_ms(infinity) ->
    ?BUDGET_MS + ?MIN_GRACE_MS;
wait_ms(IterationNs) ->
    Grace = ceil(?GRACE_FACTOR * IterationNs / 1000000),
    ?BUDGET_MS + min(?MAX_GRACE_MS, max(?MIN_GRACE_MS, Grace)).
