%%% @doc Per-call latency of a runner: calls timed one by one in a fresh worker of its
%%% job (see {@link erlperf_job:latency/2}), and their distribution.
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
-export([measure/2]).

%% Internal export: the arithmetic, pure (tested on its own).
-export([summary/2]).

-export_type([latency/0]).

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

%%--------------------------------------------------------------------
%% API

%% @doc Times calls of the job's runner one by one; `IterationNs' (the benchmark's time
%% per call, `infinity' when none completed) sizes the wait for a call that does not
%% return.
-spec measure(pid(), number() | infinity) -> latency().
measure(Job, IterationNs) ->
    #{durations := Spans, timer := Timer, unfinished := Unfinished} =
        erlperf_job:latency(Job, #{calls => ?MAX_CALLS, timer_calls => ?TIMER_CALLS,
                                   budget_ms => ?BUDGET_MS, wait_ms => wait_ms(IterationNs)}),
    (summary(Spans, Timer))#{unfinished => Unfinished}.

%% @private
%% The distribution of call spans (nanoseconds), less the timer's cost: the median of
%% the empty spans.
-spec summary([integer()], [integer(), ...]) -> map().
summary(Spans, EmptySpans) ->
    Timer = erlperf_stat:median(EmptySpans),
    figures([max(0, S - Timer) || S <- Spans], #{calls => length(Spans), timer_ns => Timer}).

%%--------------------------------------------------------------------
%% Internal functions

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
