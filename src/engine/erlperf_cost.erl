%%% @doc Cost per call of a runner: heap bytes allocated, reductions, CPU and wall-clock
%%% time per iteration, measured in fresh workers of a job. This module is the client
%%% side of the cost protocol: {@link batch/3} asks the job for a cost worker
%%% (`erlperf_job:start_measurer/4') and reads it while the worker waits before and
%%% after its batch (the worker's side is `erlperf_job_measurer:cost/6').
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>memory batch</b>: about 200 ms of calls at the run's time per call, at most
%%%       `?MEMORY_ITERATIONS' (`counts/2': about 20 ms), in a worker whose heap is large
%%%       enough that no garbage collection happens. When a collection happens anyway,
%%%       the batch is retried with fewer iterations, then a bigger heap
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
%%%   <li><b>batch</b>: iterations of the runner in the job's timed loop, in a fresh
%%%       worker that has run `init_runner' (see {@link batch/3}). Its cost is read from
%%%       outside: the worker's heap top (`heap_size' + `mbuf_size' of
%%%       `garbage_collection_info') and reductions while it waits, the VM's CPU time
%%%       around it.</li>
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
%%% Bounds: a batch of N calls is waited for 100 x N x the run's time per call, at least
%%% 2 s and at most 60 s (2 s when no call returned in the run); a batch not done by then
%%% is given up, its worker stopped, and `{call_not_returned, cost, WaitMs}' raised: a runner
%%% that never returns (a deadlock) cannot be counted, and nothing waits for it.
%%%
%%% Cost and safety: at most a few batches, each in a fresh worker linked to the job; a
%%% memory batch's heap is at most `?MAX_HEAP_WORDS' words; the time batch lasts about
%%% `?TIME_BATCH_NS' (one call, whatever it costs, when a call takes longer). A batch
%%% traces the worker's garbage collections to the caller (`collections => true'), and
%%% with `call_memory => true' gives the job's timed loop a `call_memory' trace pattern,
%%% removed after the batch whatever happens; a worker crash stops the job and is raised
%%% in the caller.
-module(erlperf_cost).

%% API: called by erlperf_local after a benchmark, with the job's workers stopped.
-export([measure/2, counts/2, counts_of/1]).

%% Internal exports: the arithmetic, pure (tested on its own); a chosen memory method
%% (tests compare the methods); one batch (tests check the trace pattern goes).
-export([per_iteration/4, measure/3, counts/3, batch/3, wait_ms/2]).

-export_type([cost/0, counts/0, memory_method/0, batch_cost/0]).

-type memory_method() :: call_memory | heap.

-type cost() :: #{bytes_per_iteration := float() | undefined,
                  memory_method := memory_method(),
                  reductions_per_iteration := float(),
                  cpu_ns_per_iteration := float(),
                  wall_ns_per_iteration := float(),
                  iterations := pos_integer(),
                  retries := non_neg_integer()}.

%% The exact counts per call alone (see {@link counts/2}): what a code change moves
%% and the host's load does not.
-type counts() :: #{bytes_per_iteration := float() | undefined,
                    memory_method := memory_method(),
                    reductions_per_iteration := float(),
                    iterations := pos_integer()}.

%% One batch measured by {@link batch/3}: heap words allocated (heap top and heap
%% fragments, read before and after the batch in the worker), reductions, wall-clock and
%% VM CPU nanoseconds, and whether a garbage collection happened during the batch (the
%% words are then meaningless; `unknown' when collections were not traced). With
%% `call_memory => true' (OTP 26 and later), also the words the worker allocated in the
%% timed loop as the `call_memory' trace counts them (`traced_words'), which a
%% collection does not disturb.
-type batch_cost() :: #{words := integer(), reductions := integer(), wall_ns := integer(),
                        cpu_ns := integer(), gc := boolean() | unknown,
                        traced_words => non_neg_integer()}.

-type batch_options() :: #{heap => pos_integer(), collections => boolean(),
                           call_memory => boolean(), wait_ms => timeout()}.

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
%% Target duration of the memory batch of counts/2 (iterations sized from the time per
%% call, at most ?MEMORY_ITERATIONS): a short batch keeps exact counts cheap enough to
%% take on every suite run.
-define(COUNTS_BATCH_NS, 20000000).
%% The fewest calls of a counts batch: a call that waits (a `receive ... after 30') runs
%% a few reductions, and one call's count is within what the empty batch differs by (a
%% batch of one such call read 2 reductions a call in one run and -1 in the next).
-define(MIN_COUNTS_CALLS, 5).
%% Target duration of the memory batch of measure/2 (iterations sized from the time per
%% call, at most ?MEMORY_ITERATIONS): a runner of 20 ms a call counts 10 calls, not 1000.
-define(MEMORY_BATCH_NS, 200000000).
%% The wait for a batch: its calls at the run's time per call, times ?GRACE_FACTOR (a
%% call slower in a fresh worker, under a trace, or on a host that got busier since the
%% run), at least ?MIN_WAIT_MS and at most ?MAX_WAIT_MS; then the batch is given up
%% ({call_not_returned, ...}). A runner that never returns is told from a slow one by that margin.
-define(GRACE_FACTOR, 100).
-define(MIN_WAIT_MS, 2000).
-define(MAX_WAIT_MS, 60000).
%% Target duration of the time batch: the CPU clock ticks in milliseconds.
-define(TIME_BATCH_NS, 200000000).
%% Most iterations of the time batch.
-define(MAX_TIME_ITERATIONS, (1 bsl 30)).
%% Heap (words) of a batch's worker when the caller names none (an ordinary heap).
-define(DEFAULT_HEAP_WORDS, 233).
%% Reading a worker that has not reached its receive yet: tries (a yield between them)
%% before the figures are taken as they are.
-define(READ_TRIES, 10000).

%%--------------------------------------------------------------------
%% API

%% @doc Measures the cost per call of the job's runner; `IterationNs' (the benchmark's
%% time per iteration) sizes the time batch.
-spec measure(pid(), number() | infinity) -> cost().
measure(Job, IterationNs) ->
    measure(Job, IterationNs, ?MEMORY_METHOD).

%% @doc The exact counts per call of the job's runner: bytes allocated and reductions,
%% from one memory batch of about `?COUNTS_BATCH_NS' (sized from `IterationNs', at
%% least one call, at most `?MEMORY_ITERATIONS') less an empty one. No time batch: the
%% cost of {@link measure/2} without its CPU and wall-clock times.
-spec counts(pid(), number() | infinity) -> counts().
counts(Job, IterationNs) ->
    counts(Job, IterationNs, ?MEMORY_METHOD).

%% @doc The exact counts of a cost per call ({@link measure/2} has them too).
-spec counts_of(cost()) -> counts().
counts_of(Cost) ->
    maps:with([bytes_per_iteration, memory_method, reductions_per_iteration, iterations], Cost).

%% @private
%% The same, counting bytes with the method given (as measure/3; exported as measure/3
%% is, so that dialyzer does not take this release's method as the only one).
-spec counts(pid(), number() | infinity, memory_method()) -> counts().
counts(Job, IterationNs, Method) ->
    Options = #{collections => true, call_memory => Method =:= call_memory},
    First = max(?MIN_COUNTS_CALLS, iterations(IterationNs, ?COUNTS_BATCH_NS)),
    {N, Heap, _Retries, Batch} = memory_batch(Job, First, IterationNs,
                                              Options#{heap => ?MEMORY_HEAP_WORDS}, 0),
    Empty = batch(Job, 0, Options#{heap => Heap, wait_ms => wait_ms(0, IterationNs)}),
    counts_per_iteration({N, Batch}, Empty, erlang:system_info(wordsize)).

%% @private
%% The same, counting bytes with the method given: `call_memory' needs OTP 26 or later
%% (tests compare the two methods there).
-spec measure(pid(), number() | infinity, memory_method()) -> cost().
measure(Job, IterationNs, Method) ->
    Options = #{collections => true, call_memory => Method =:= call_memory},
    First = iterations(IterationNs, ?MEMORY_BATCH_NS),
    {N, Heap, Retries, Batch} = memory_batch(Job, First, IterationNs,
                                             Options#{heap => ?MEMORY_HEAP_WORDS}, 0),
    Empty = batch(Job, 0, Options#{heap => Heap, wait_ms => wait_ms(0, IterationNs)}),
    Timed = time_iterations(IterationNs),
    Time = batch(Job, Timed, #{wait_ms => wait_ms(Timed, IterationNs)}),
    Cost = per_iteration({N, Batch}, Empty, {Timed, Time}, erlang:system_info(wordsize)),
    Cost#{retries => Retries}.

%% @private
%% Per iteration: bytes and reductions from the memory batch less the empty one; CPU
%% and wall-clock time from the time batch. Bytes come from the traced words when the
%% batches have them (`call_memory'), else from the heap growth of a batch that did not
%% collect (`heap').
-spec per_iteration({pos_integer(), batch_cost()},
                    batch_cost(), {pos_integer(), batch_cost()},
                    pos_integer()) -> map().
per_iteration({N, Batch}, Empty, {Timed, Time}, WordSize) ->
    #{cpu_ns := Cpu, wall_ns := Wall} = Time,
    (counts_per_iteration({N, Batch}, Empty, WordSize))#{
      cpu_ns_per_iteration => Cpu / Timed, wall_ns_per_iteration => Wall / Timed}.

%% Bytes and reductions per iteration from a memory batch less an empty one.
counts_per_iteration({N, Batch}, Empty, WordSize) ->
    #{reductions := Reds0} = Empty,
    #{reductions := Reds} = Batch,
    {Method, Words} = case {Batch, Empty} of
                          {#{traced_words := W}, #{traced_words := W0}} -> {call_memory, W - W0};
                          {#{gc := false, words := W}, #{words := W0}} -> {heap, W - W0};
                          {#{}, #{}} -> {heap, undefined}
                      end,
    #{bytes_per_iteration => bytes(Words, WordSize, N), memory_method => Method,
      %% never below none: what the batches differ by beside the calls is not the calls'
      reductions_per_iteration => max(0.0, (Reds - Reds0) / N - ?LOOP_REDUCTIONS),
      iterations => N}.

bytes(undefined, _WordSize, _N) -> undefined;
bytes(Words, WordSize, N) -> Words * WordSize / N.

%% @private
%% Runs `Count' iterations (0: the harness alone) in a fresh worker of the job spawned
%% with a heap of at least `heap' words, after its `init_runner', and returns what the
%% batch cost. The worker runs the same timed loop as `erlperf_job:measure/2'; this
%% process reads the worker's heap top, collections and reductions while it waits
%% before and after the batch (a process's heap top is only current when it is not
%% running), and the VM's CPU time around the batch. The worker's garbage collections
%% are traced (`garbage_collection' trace flag, this process the tracer) with
%% `collections => true', to tell whether one happened during the batch (`gc =>
%% unknown' otherwise: tracing them slows a batch that collects). With `call_memory =>
%% true' (OTP 26 and later), the timed loop of the job's generated module has a
%% `call_memory' trace pattern for the batch, and the worker is traced (`call' flag):
%% `traced_words' is what the loop and everything it calls allocated. The pattern is
%% removed afterwards, whatever happens. A batch not done within `wait_ms' (infinity
%% unless given) is given up: the job stops its worker and `{call_not_returned, cost, WaitMs}'
%% is raised.
-spec batch(gen_server:server_ref(), non_neg_integer(), batch_options()) -> batch_cost().
batch(Job, Count, Options) when is_integer(Count), Count >= 0, is_map(Options) ->
    Heap = maps:get(heap, Options, ?DEFAULT_HEAP_WORDS),
    {Worker, Module} = erlperf_job:start_measurer(Job, cost, [self(), Count], [{min_heap_size, Heap}]),
    Mon = erlang:monitor(process, Worker),
    try
        Loop = traced_loop(Module, maps:get(call_memory, Options, false)),
        try
            ok = erlperf_job_measurer:await(Worker, Mon, cost_ready, infinity),
            %% garbage collections of the worker are traced to this process
            Trace = maps:get(collections, Options, false),
            1 = erlang:trace(Worker, Trace, [garbage_collection]),
            ok = trace_memory(Worker, Loop),
            Before = reading(Worker),
            Worker ! {cost_go, self()},
            Wait = maps:get(wait_ms, Options, infinity),
            Nanoseconds = case erlperf_job_measurer:await(Worker, Mon, cost_done, Wait) of
                              timeout -> give_up(Job, Worker, Mon, Wait);
                              Done -> Done
                          end,
            After = reading(Worker),
            Batch = (delta(Before, After, Nanoseconds))#{gc => collected(Worker, Trace)},
            traced_words(Batch, Loop)
        after
            ok = untrace_memory(Loop)
        end
    after
        Worker ! {cost_finish, self()},
        erlang:demonitor(Mon, [flush])
    end.

%%--------------------------------------------------------------------
%% Internal functions

%% A batch not done in time: the job stops the worker (it may have finished meanwhile:
%% its last message comes before its DOWN), and the batch is given up.
give_up(Job, Worker, Mon, Wait) ->
    ok = erlperf_job:cancel_measurer(Job, Worker),
    receive
        {cost_done, Worker, Nanoseconds} -> Nanoseconds;
        {'DOWN', Mon, process, Worker, _} -> erlang:error({call_not_returned, cost, Wait})
    end.

%% Fewer iterations first, then a bigger heap, until no collection happens.
memory_batch(Job, N, IterationNs, #{heap := Heap} = Options, Retries) ->
    case batch(Job, N, Options#{wait_ms => wait_ms(N, IterationNs)}) of
        #{gc := false} = Batch ->
            {N, Heap, Retries, Batch};
        #{} when N > 1 ->
            memory_batch(Job, max(1, N div 10), IterationNs, Options, Retries + 1);
        #{} when Heap < ?MAX_HEAP_WORDS ->
            memory_batch(Job, 1, IterationNs, Options#{heap := Heap * 8}, Retries + 1);
        Batch ->
            {N, Heap, Retries, Batch}
    end.

%% Iterations of a memory batch lasting about TargetNs at the run's time per call (one
%% when no call returned in the run), at most ?MEMORY_ITERATIONS.
iterations(infinity, _TargetNs) -> 1;
iterations(Ns, _TargetNs) when Ns =< 0 -> ?MEMORY_ITERATIONS;
iterations(Ns, TargetNs) -> max(1, min(?MEMORY_ITERATIONS, round(TargetNs / Ns))).

%% @doc The most a batch of N calls is waited for (milliseconds), at the run's time per
%% call (`infinity' when no call returned in the run).
-spec wait_ms(non_neg_integer(), number() | infinity) -> pos_integer().
wait_ms(_N, infinity) ->
    ?MIN_WAIT_MS;
wait_ms(N, IterationNs) ->
    min(?MAX_WAIT_MS, max(?MIN_WAIT_MS, ceil(?GRACE_FACTOR * N * max(0, IterationNs) / 1000000))).

time_iterations(infinity) -> 1;
time_iterations(Ns) when Ns =< 0 -> ?MAX_TIME_ITERATIONS;
time_iterations(Ns) -> max(1, min(?MAX_TIME_ITERATIONS, round(?TIME_BATCH_NS / Ns))).

%% The worker's heap top (words) and reductions, and the VM's CPU time (ms), once it
%% waits in its receive: having sent its message it may still be running (or put back
%% in the run queue on a busy host) on its way there, with reductions not yet counted.
reading(Worker) ->
    reading(Worker, ?READ_TRIES).

reading(Worker, Tries) ->
    {CpuMs, _} = erlang:statistics(runtime),
    [{status, Status}, {garbage_collection_info, Gc}, {reductions, Reds}] =
        erlang:process_info(Worker, [status, garbage_collection_info, reductions]),
    case Status =/= waiting andalso Tries > 1 of
        true ->
            erlang:yield(),
            reading(Worker, Tries - 1);
        false ->
            {proplists:get_value(heap_size, Gc) + proplists:get_value(mbuf_size, Gc), Reds, CpuMs}
    end.

delta({Words0, Reds0, Cpu0}, {Words1, Reds1, Cpu1}, Nanoseconds) ->
    #{words => Words1 - Words0, reductions => Reds1 - Reds0, wall_ns => Nanoseconds,
      cpu_ns => (Cpu1 - Cpu0) * 1000000}.

%% Whether a collection was traced (`unknown' when not traced).
collected(_Worker, false) ->
    unknown;
collected(Worker, true) ->
    1 = erlang:trace(Worker, false, [garbage_collection]),
    Delivered = erlang:trace_delivered(Worker),
    receive {trace_delivered, Worker, Delivered} -> ok end,
    flush_gc(Worker, false).

%% Whether a collection was traced (and drops the trace messages).
flush_gc(Worker, Collected) ->
    receive {trace, Worker, _GcEvent, _Info} -> flush_gc(Worker, true)
    after 0 -> Collected
    end.

-if(?OTP_RELEASE >= 26).
%% The timed loop of the generated module, when its allocation is to be traced.
traced_loop(_Module, false) ->
    none;
traced_loop(Module, true) ->
    [Arity] = [A || {'erlperf timed_loop', A} <- Module:module_info(functions)],
    {Module, 'erlperf timed_loop', Arity}.

trace_memory(_Worker, none) ->
    ok;
trace_memory(Worker, Loop) ->
    1 = erlang:trace_pattern(Loop, true, [call_memory]),
    %% silent: no call trace message even where another tool set a pattern that sends them
    1 = erlang:trace(Worker, true, [call, silent]),
    ok.

traced_words(Batch, none) ->
    Batch;
traced_words(Batch, Loop) ->
    %% the batch's worker is the one process running the loop (the job's other workers
    %% are stopped while cost is measured), and the one traced for it
    Words = case erlang:trace_info(Loop, call_memory) of
                {call_memory, PerProcess} when is_list(PerProcess) ->
                    lists:sum([W || {_Pid, _Calls, W} <- PerProcess]);
                _NotTraced ->
                    0
            end,
    Batch#{traced_words => Words}.

untrace_memory(none) ->
    ok;
untrace_memory(Loop) ->
    _ = erlang:trace_pattern(Loop, false, [call_memory]),
    ok.
-else.
%% Before OTP 26 there is no call_memory trace: only the heap is read.
traced_loop(_Module, _CallMemory) -> none.
trace_memory(_Worker, none) -> ok.
traced_words(Batch, none) -> Batch.
untrace_memory(none) -> ok.
-endif.
