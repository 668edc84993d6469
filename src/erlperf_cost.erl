%%% @doc Cost per call of a runner: heap bytes allocated, reductions, CPU and wall-clock
%%% time per iteration, measured in fresh workers of a job (see {@link erlperf_job:cost/3}).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>memory batch</b>: `?MEMORY_ITERATIONS' iterations in a worker whose heap is
%%%       large enough that no garbage collection happens. When a collection happens
%%%       anyway, the batch is retried with fewer iterations, then a bigger heap
%%%       (`retries' counts them), up to `?MAX_HEAP_WORDS'.</li>
%%%   <li><b>memory method</b>: how the batch's bytes are counted (`memory_method').
%%%       `call_memory' (OTP 26 and later): the `call_memory' trace of the worker's timed
%%%       loop counts the words it allocates, whatever it calls, as `tprof' does; a
%%%       collection does not disturb it. `heap' (OTP 25): the worker's heap growth,
%%%       which a collection makes meaningless: past `?MAX_HEAP_WORDS' the bytes are then
%%%       `undefined'. Either way, less an empty batch's (the harness), divided by the
%%%       iterations, is the bytes per call; off-heap (refc) binaries' data, messages
%%%       sent (copied into the receiver's heap) and spawned processes' own heaps are
%%%       not the caller's and are not counted.</li>
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

%% Internal exports: the arithmetic, pure (tested on its own); a chosen memory method.
-export([per_iteration/4, measure/3]).

-export_type([cost/0, memory_method/0]).

-type memory_method() :: call_memory | heap.

-type cost() :: #{bytes_per_iteration := float() | undefined,
                  memory_method := memory_method(),
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
%% How bytes are counted: the call_memory trace where the release has it.
-if(?OTP_RELEASE >= 26).
-define(MEMORY_METHOD, call_memory).
-else.
-define(MEMORY_METHOD, heap).
-endif.
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
    measure(Job, IterationNs, ?MEMORY_METHOD).

%% @private
%% The same, counting bytes with the method given: `call_memory' needs OTP 26 or later
%% (tests compare the two methods there).
-spec measure(pid(), number() | infinity, memory_method()) -> cost().
measure(Job, IterationNs, Method) ->
    Options = #{collections => true, call_memory => Method =:= call_memory},
    {N, Heap, Retries, Batch} = memory_batch(Job, ?MEMORY_ITERATIONS, Options#{heap => ?MEMORY_HEAP_WORDS}, 0),
    Empty = erlperf_job:cost(Job, 0, Options#{heap => Heap}),
    Timed = time_iterations(IterationNs),
    Time = erlperf_job:cost(Job, Timed, #{}),
    Cost = per_iteration({N, Batch}, Empty, {Timed, Time}, erlang:system_info(wordsize)),
    Cost#{retries => Retries}.

%% @private
%% Per iteration: bytes and reductions from the memory batch less the empty one; CPU
%% and wall-clock time from the time batch. Bytes come from the traced words when the
%% batches have them (`call_memory'), else from the heap growth of a batch that did not
%% collect (`heap').
-spec per_iteration({pos_integer(), erlperf_job:batch_cost()},
                    erlperf_job:batch_cost(), {pos_integer(), erlperf_job:batch_cost()},
                    pos_integer()) -> map().
per_iteration({N, Batch}, Empty, {Timed, Time}, WordSize) ->
    #{reductions := Reds0} = Empty,
    #{reductions := Reds} = Batch,
    #{cpu_ns := Cpu, wall_ns := Wall} = Time,
    {Method, Words} = case {Batch, Empty} of
                          {#{traced_words := W}, #{traced_words := W0}} -> {call_memory, W - W0};
                          {#{gc := false, words := W}, #{words := W0}} -> {heap, W - W0};
                          {#{}, #{}} -> {heap, undefined}
                      end,
    #{bytes_per_iteration => bytes(Words, WordSize, N), memory_method => Method,
      reductions_per_iteration => (Reds - Reds0) / N - ?LOOP_REDUCTIONS,
      cpu_ns_per_iteration => Cpu / Timed, wall_ns_per_iteration => Wall / Timed,
      iterations => N}.

bytes(undefined, _WordSize, _N) -> undefined;
bytes(Words, WordSize, N) -> Words * WordSize / N.

%%--------------------------------------------------------------------
%% Internal functions

%% Fewer iterations first, then a bigger heap, until no collection happens.
memory_batch(Job, N, #{heap := Heap} = Options, Retries) ->
    case erlperf_job:cost(Job, N, Options) of
        #{gc := false} = Batch ->
            {N, Heap, Retries, Batch};
        #{} when N > 1 ->
            memory_batch(Job, max(1, N div 10), Options, Retries + 1);
        #{} when Heap < ?MAX_HEAP_WORDS ->
            memory_batch(Job, 1, Options#{heap := Heap * 8}, Retries + 1);
        Batch ->
            {N, Heap, Retries, Batch}
    end.

time_iterations(infinity) -> 1;
time_iterations(Ns) when Ns =< 0 -> ?MAX_TIME_ITERATIONS;
time_iterations(Ns) -> max(1, min(?MAX_TIME_ITERATIONS, round(?TIME_BATCH_NS / Ns))).
