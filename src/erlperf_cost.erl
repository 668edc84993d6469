%%% @doc Cost per call of a runner: heap bytes allocated, reductions, CPU and wall-clock
%%% time per iteration, measured in fresh workers of a job (see {@link erlperf_job:cost/3}).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>memory batch</b>: `?MEMORY_ITERATIONS' iterations in a worker whose heap is
%%%       large enough that no garbage collection happens; its heap growth, less an empty
%%%       batch's (the harness), divided by the iterations, is the bytes per call. When a
%%%       collection happens anyway, the batch is retried with fewer iterations, then a
%%%       bigger heap (`retries' counts them); past `?MAX_HEAP_WORDS' the bytes are
%%%       `undefined'. Off-heap (refc) binaries are not counted.</li>
%%%   <li><b>reductions</b>: the worker's reductions over the memory batch, less the empty
%%%       batch's and the loop's own call (`?LOOP_REDUCTIONS' per iteration).</li>
%%%   <li><b>time batch</b>: iterations lasting about `?TIME_BATCH_NS' (from the measured
%%%       time per call), with an ordinary heap and collections not traced. CPU time is
%%%       `erlang:statistics(runtime)', the VM's whole CPU time in milliseconds: run it
%%%       with no other job working. It includes other VM threads (schedulers spinning
%%%       before sleeping, I/O, other processes), so it is an upper bound; wall-clock
%%%       time is the timed loop's.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% {ok, Job} = erlperf_job:start(#{runner => "lists:seq(1, 100)."}),
%%% #{bytes_per_iteration := 1600.0} = erlperf_cost:measure(Job, 1000.0),
%%% ok = erlperf_job:stop(Job).
%%% '''
%%% Cost and safety: at most a few batches, each in a fresh worker linked to the job; a
%%% memory batch's heap is at most `?MAX_HEAP_WORDS' words; the time batch lasts about
%%% `?TIME_BATCH_NS' (one call, whatever it costs, when a call takes longer).
-module(erlperf_cost).

%% API: called by erlperf_local after a benchmark, with the job's workers stopped.
-export([measure/2]).

%% Internal export: the arithmetic, pure (tested on its own).
-export([per_iteration/4]).

-export_type([cost/0]).

-type cost() :: #{bytes_per_iteration := float() | undefined,
                  reductions_per_iteration := float(),
                  cpu_ns_per_iteration := float(),
                  wall_ns_per_iteration := float(),
                  iterations := pos_integer(),
                  retries := non_neg_integer()}.

%% Iterations of the first memory batch.
-define(MEMORY_ITERATIONS, 1000).
%% Heap (words) of the first memory batch: 8 MB on 64-bit.
-define(MEMORY_HEAP_WORDS, (1 bsl 20)).
%% Largest heap (words) a memory batch may get: 128 MB on 64-bit.
-define(MAX_HEAP_WORDS, (1 bsl 24)).
%% Reductions of the timed loop's own call, per iteration (an `ok.' runner costs that).
-define(LOOP_REDUCTIONS, 1).
%% Target duration of the time batch: the CPU clock ticks in milliseconds.
-define(TIME_BATCH_NS, 200000000).
%% Most iterations of the time batch.
-define(MAX_TIME_ITERATIONS, (1 bsl 30)).

%%--------------------------------------------------------------------
%% API

%% @doc Measures the cost per call of the job's runner; `IterationNs' (the benchmark's
%% time per iteration) sizes the time batch.
-spec measure(pid(), number() | infinity) -> cost().
measure(Job, IterationNs) ->
    {N, Heap, Retries, Batch} = memory_batch(Job, ?MEMORY_ITERATIONS, ?MEMORY_HEAP_WORDS, 0),
    Empty = erlperf_job:cost(Job, 0, #{heap => Heap, collections => true}),
    Timed = time_iterations(IterationNs),
    Time = erlperf_job:cost(Job, Timed, #{}),
    Cost = per_iteration({N, Batch}, Empty, {Timed, Time}, erlang:system_info(wordsize)),
    Cost#{retries => Retries}.

%% @private
%% Per iteration: bytes and reductions from the memory batch less the empty one; CPU
%% and wall-clock time from the time batch.
-spec per_iteration({pos_integer(), erlperf_job:batch_cost()},
                    erlperf_job:batch_cost(), {pos_integer(), erlperf_job:batch_cost()},
                    pos_integer()) -> map().
per_iteration({N, Batch}, Empty, {Timed, Time}, WordSize) ->
    #{reductions := Reds0, words := Words0} = Empty,
    #{cpu_ns := Cpu, wall_ns := Wall} = Time,
    {Bytes, Reds} = case Batch of
                        #{gc := false, words := Words, reductions := R} ->
                            {(Words - Words0) * WordSize / N, (R - Reds0) / N - ?LOOP_REDUCTIONS};
                        #{reductions := R} ->
                            {undefined, (R - Reds0) / N - ?LOOP_REDUCTIONS}
                    end,
    #{bytes_per_iteration => Bytes, reductions_per_iteration => Reds,
      cpu_ns_per_iteration => Cpu / Timed, wall_ns_per_iteration => Wall / Timed,
      iterations => N}.

%%--------------------------------------------------------------------
%% Internal functions

%% Fewer iterations first, then a bigger heap, until no collection happens.
memory_batch(Job, N, Heap, Retries) ->
    case erlperf_job:cost(Job, N, #{heap => Heap, collections => true}) of
        #{gc := false} = Batch ->
            {N, Heap, Retries, Batch};
        #{} when N > 1 ->
            memory_batch(Job, max(1, N div 10), Heap, Retries + 1);
        #{} when Heap < ?MAX_HEAP_WORDS ->
            memory_batch(Job, 1, Heap * 8, Retries + 1);
        Batch ->
            {N, Heap, Retries, Batch}
    end.

time_iterations(infinity) -> 1;
time_iterations(Ns) when Ns =< 0 -> ?MAX_TIME_ITERATIONS;
time_iterations(Ns) -> max(1, min(?MAX_TIME_ITERATIONS, round(?TIME_BATCH_NS / Ns))).
