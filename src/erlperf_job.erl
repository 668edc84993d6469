%%% @doc A job: one benchmark's controller process, its generated module and its workers.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>controller</b>: this gen_server. It loads the generated module, runs `init'
%%%       and `done', starts and stops workers.</li>
%%%   <li><b>worker</b>: a process running `init_runner' once, then the runner in a tight
%%%       loop (see {@link erlperf_codegen}).</li>
%%%   <li><b>profile worker</b>: a worker of {@link erlperf_profile}'s, started by
%%%       {@link profile_workers/2}: `init_runner', then the runner in the timed loop,
%%%       which neither counts nor publishes, until {@link stop_profile_workers/1} kills
%%%       it.</li>
%%%   <li><b>position</b>: a worker's place, 1 to the concurrency. Each position owns an
%%%       `atomics' array on cache lines of its own: slot 1 counts the iterations of
%%%       every worker that ever held the position, slot 2 is when its worker last
%%%       published, slot 3 how long its current batch should take (native units),
%%%       slot 4 the size of that batch.
%%%       Stopping workers keeps their counts; a new worker at that position adds to
%%%       it, so the total never goes down and needs no bookkeeping.</li>
%%%   <li><b>batch</b>: the iterations a worker runs between two publications. A worker
%%%       credits a batch to its counter when it starts it (the count grows as calls
%%%       start, so a runner that crashes on its first call still counts 1), and sizes
%%%       the next one from how long the last one took, aiming at
%%%       `?PUBLISH_INTERVAL_US': when a runner's cost per call jumps, the count lags by
%%%       at most one batch of the old size, and a runner taking that long or longer
%%%       per call is counted call by call.</li>
%%%   <li><b>handle</b>: what {@link handle/1} returns; {@link sample/1} reads the
%%%       counters through it directly, without a message to the controller, so it
%%%       answers while the controller is busy or suspended.</li>
%%%   <li><b>owner</b>: the process that started the job. The job stops when it exits.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% {ok, Job} = erlperf_job:start_link(#{runner => "rand:uniform()."}),
%%% Handle = erlperf_job:handle(Job),
%%% ok = erlperf_job:set_concurrency(Job, 2),
%%% Before = erlperf_job:sample(Handle),
%%% timer:sleep(1000),
%%% PerSecond = erlperf_job:sample(Handle) - Before,
%%% ok = erlperf_job:stop(Job).
%%% '''
%%%
%%% Cost and safety: a job loads one module (`erlperf_job_N'), owns one ETS table (the
%%% handle) and spawns one process per worker, linked to the controller. New workers
%%% run `init_runner', report ready and wait at a start line: {@link set_concurrency/2}
%%% returns once all of them have started together. When the controller stops, for any
%%% reason (including its supervisor's shutdown), it kills its workers, waits for
%%% them, runs `done' and purges the module, so nothing is left behind. A worker that
%%% crashes stops the job at once with reason
%%% `{shutdown, {crashed, Role, {Class, Reason, Stack}}}'; no crash report is logged.
%%% The controller runs at `high' priority while it has workers (see
%%% {@link set_priority/2}) so that it keeps control over busy schedulers. Measurements
%%% in a fresh worker (`measure/2', and the internal `cost/3' and `latency/2') spawn one
%%% more linked worker each, stopped with the others; `latency/2' stops its worker
%%% itself when a call does not return within the caller's wait.
-module(erlperf_job).
-behaviour(gen_server).

%% API
-export([start/1, start_link/1, stop/1, request_stop/1,
         concurrency/1, set_concurrency/2, handle/1, sample/1, measure/2,
         source/1, info/1, set_priority/2, suspend/1, resume/1]).

%% Internal API: erlperf_sampler reads counters with the overdue flag and times
%% measurements in nanoseconds.
-export([sample_status/1, measure_ns/2]).

%% Internal API: erlperf_cost measures one batch's allocation, reductions and times;
%% erlperf_latency times calls one by one.
-export([cost/3, latency/2]).

%% Internal API: erlperf_profile traces workers of its own.
-export([profile_workers/2, stop_profile_workers/1]).

%% gen_server callbacks
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

%% Internal exports: worker bodies, spawned by the controller; publish/0, called by
%% the generated worker loop at the end of each batch.
-export([worker/6, timed_worker/6, cost_worker/6, latency_worker/6, profile_worker/5,
         publish/0]).

%% Internal export: the batch sizing rule, pure (tested on its own).
-export([next_batch/2]).

-export_type([callable/0, code_map/0, info/0, handle/0, batch_cost/0, latency_options/0,
              latency_calls/0]).

-type callable() :: erlperf_codegen:callable().
-type code_map() :: erlperf_codegen:code_map().
-type info() :: #{module := module(), arity := 0..2, label := binary(),
                  warnings := [erlperf_codegen:warning()]}.
-type server_ref() :: gen_server:server_ref().
-opaque handle() :: {?MODULE, ets:tid()}.
%% One batch measured by {@link cost/3}: heap words allocated (heap top and heap
%% fragments, read before and after the batch in the worker), reductions, wall-clock and
%% VM CPU nanoseconds, and whether a garbage collection happened during the batch (the
%% words are then meaningless; `unknown' when collections were not traced). With
%% `call_memory => true' (OTP 26 and later), also the words the worker allocated in the
%% timed loop as the `call_memory' trace counts them (`traced_words'), which a
%% collection does not disturb.
-type batch_cost() :: #{words := integer(), reductions := integer(), wall_ns := integer(),
                        cpu_ns := integer(), gc := boolean() | unknown,
                        traced_words => non_neg_integer()}.
%% How {@link latency/2} times calls: `timer_calls' empty spans first; at most `calls'
%% runner calls, for at most `budget_ms'; the caller waits at most `wait_ms' for the
%% worker once it has started timing.
-type latency_options() :: #{calls := pos_integer(), timer_calls := pos_integer(),
                             budget_ms := pos_integer(), wait_ms := pos_integer()}.
%% What {@link latency/2} timed, in nanoseconds: each runner call that returned, in
%% order (`durations'), the empty spans (`timer'), and whether a call was still running
%% when the wait ended (`unfinished').
-type latency_calls() :: #{durations := [integer()], timer := [integer()],
                           unfinished := boolean()}.

%% How long the controller waits for killed workers to exit before giving up on them.
-define(WORKER_EXIT_TIMEOUT, 10000).
%% pg scope and group that jobs join, so that the monitor can find them.
-define(PG_SCOPE, erlperf).
-define(PG_GROUP, jobs).
%% A batch of iterations should last about this long. Short enough that a runner whose
%% cost per call jumps 10,000 times is seen within half a second; long enough that
%% publishing (a few atomics writes, ~0.1 us) is lost in the noise (~0.2%).
-define(PUBLISH_INTERVAL_US, 50).
%% A batch grows at most this many times from one to the next (it shrinks at once).
-define(MAX_GROWTH, 4).
%% Upper bound for a batch, so that a worker publishes at least this often in iterations.
-define(MAX_BATCH, 1 bsl 24).
%% A worker is overdue when its batch has run this many times longer than it should
%% have, and at least ?OVERDUE_MIN_MS (a scheduler time slice or two is no news).
-define(OVERDUE_FACTOR, 4).
-define(OVERDUE_MIN_MS, 100).
%% The longest a busy process runs before the scheduler switches to the next one (4000
%% reductions; well under a millisecond for most code).
-define(TIME_SLICE_MS, 1).
%% Process dictionary key of a continuous worker's publishing state.
-define(STATE_KEY, '$erlperf_publish').
%% Counter array slots: iterations, last publication, expected batch duration. Each
%% position owns 16 slots (128 bytes): whatever the array's alignment, no two
%% positions share a cache line.
-define(COUNT, 1).
-define(PUBLISHED, 2).
-define(EXPECTED, 3).
-define(BATCH, 4).
-define(SLOTS, 16).
%% ETS key of the number of running workers, beside the {Position, Counter} rows.
-define(CONCURRENCY_KEY, concurrency).

%% Iterations of a profile worker's loop: far more than any profile lasts (it is killed
%% when the profile ends).
-define(PROFILE_ITERATIONS, (1 bsl 60)).

%% Heap (words) of a cost worker when the caller names none (erlperf_cost sizes it).
-define(COST_DEFAULT_HEAP, 233).
%% What a slot of a latency array must hold until a call's duration is written there.
-define(UNWRITTEN, -1).

-record(starting, {
    ref :: reference(),
    from :: gen_server:from(),
    workers :: [{pid(), pos_integer()}]
}).

-record(state, {
    module :: module(),
    context :: tuple(),
    roles :: [erlperf_codegen:role()],
    info :: info(),
    forms :: [erl_parse:abstract_form()],
    init_result :: term(),
    owner :: pid(),
    table :: ets:tid(),
    %% running workers, newest (highest position) first
    workers = [] :: [{pid(), pos_integer()}],
    %% workers started but not yet at the start line, and who asked for them
    starting :: #starting{} | undefined,
    %% calls that arrived while workers were starting, oldest first
    deferred = [] :: [{term(), gen_server:from()}],
    %% workers running a timed measurement, or a profile (until stopped)
    timed = #{} :: #{pid() => gen_server:from() | profile},
    %% workers suspended by suspend/1, or false
    suspended = false :: [pid()] | false,
    priority = high :: erlang:priority_level(),
    initial_priority :: erlang:priority_level(),
    done = false :: boolean()
}).

%%--------------------------------------------------------------------
%% API

%% @doc Starts a job with no workers. The caller becomes the owner.
-spec start(code_map()) -> {ok, pid()} | {error, term()}.
start(Code) ->
    start_job(Code).

%% @doc Starts a job with no workers, linked to the caller (the owner).
-spec start_link(code_map()) -> {ok, pid()} | {error, term()}.
start_link(Code) ->
    %% linked only once init has succeeded, so that a failing init returns
    %% an error instead of killing the caller with an exit signal
    case start_job(Code) of
        {ok, Pid} ->
            true = link(Pid),
            {ok, Pid};
        Error ->
            Error
    end.

%% @doc Stops the job: kills the workers, runs `done', unloads the module.
%% Returns an error when `done' crashed.
-spec stop(server_ref()) -> ok | {error, term()}.
stop(Job) ->
    gen_server:call(Job, stop, infinity).

%% @doc Asks the job to stop and returns at once; monitor the job to see it go.
-spec request_stop(server_ref()) -> ok.
request_stop(Job) ->
    gen_server:cast(Job, stop).

%% @doc Returns the number of running workers.
-spec concurrency(server_ref()) -> non_neg_integer().
concurrency(Job) ->
    gen_server:call(Job, concurrency, infinity).

%% @doc Starts or stops workers until `Concurrency' of them run. New workers run
%% `init_runner' first and start their loops together once all are ready; the call
%% returns then (it never returns if an `init_runner' hangs).
-spec set_concurrency(server_ref(), non_neg_integer()) -> ok.
set_concurrency(Job, Concurrency) when is_integer(Concurrency), Concurrency >= 0 ->
    gen_server:call(Job, {set_concurrency, Concurrency}, infinity).

%% @doc Suspends every running worker (`erlang:suspend_process/1'): the job keeps its
%% workers and their state, and its count stands still until {@link resume/1}. Workers
%% started later run. Used to let jobs take turns on the schedulers.
-spec suspend(server_ref()) -> ok.
suspend(Job) ->
    gen_server:call(Job, suspend, infinity).

%% @doc Resumes the workers suspended by {@link suspend/1}.
-spec resume(server_ref()) -> ok.
resume(Job) ->
    gen_server:call(Job, resume, infinity).

%% @doc Returns the job's sampling handle, for {@link sample/1}.
-spec handle(server_ref()) -> handle().
handle(Job) ->
    gen_server:call(Job, handle, infinity).

%% @doc Returns the iterations started by all workers since the job started: through a
%% handle, read directly from the counters (`undefined' once the job has stopped);
%% through the job's pid or name, asked of the controller.
-spec sample(handle() | server_ref()) -> non_neg_integer() | undefined.
sample({?MODULE, Table}) ->
    try
        lists:foldl(fun (Ref, Acc) -> Acc + atomics:get(Ref, ?COUNT) end, 0,
                    ets:select(Table, [{{'$1', '$2'}, [{is_integer, '$1'}], ['$2']}]))
    catch error:badarg ->
        undefined
    end;
sample(Job) ->
    gen_server:call(Job, sample, infinity).

%% @private
%% The total, how many running workers are overdue (their batch has taken much longer
%% than the last one did: the runner's cost per call jumped, or the worker is blocked
%% or waiting for a scheduler) and how many calls those workers have been credited
%% with in their current batch: the total may be ahead of the calls completed by that.
-spec sample_status(handle()) ->
    {non_neg_integer(), non_neg_integer(), non_neg_integer()} | undefined.
sample_status({?MODULE, Table} = Handle) ->
    try
        [{_, N}] = ets:lookup(Table, ?CONCURRENCY_KEY),
        Now = erlang:monotonic_time(),
        %% busy workers beyond the schedulers wait their turn: up to a time slice for
        %% every worker ahead of them in the run queue
        Queue = N div erlang:system_info(schedulers_online),
        Min = erlang:convert_time_unit(max(?OVERDUE_MIN_MS, Queue * ?TIME_SLICE_MS), millisecond, native),
        Running = ets:select(Table, [{{'$1', '$2'}, [{is_integer, '$1'}, {'=<', '$1', N}], ['$2']}]),
        Overdue = [atomics:get(Ref, ?BATCH) || Ref <- Running, overdue(Ref, Now, Min)],
        case sample(Handle) of
            undefined -> undefined;
            Total -> {Total, length(Overdue), lists:sum(Overdue)}
        end
    catch error:badarg ->
        undefined
    end.

%% @doc Runs `Count' iterations in a fresh worker and returns the microseconds taken,
%% like `timer:tc/3'.
-spec measure(server_ref(), pos_integer()) -> non_neg_integer().
measure(Job, Count) ->
    measure_ns(Job, Count) div 1000.

%% @private
%% {@link measure/2} in nanoseconds.
-spec measure_ns(server_ref(), pos_integer()) -> non_neg_integer().
measure_ns(Job, Count) when is_integer(Count), Count > 0 ->
    gen_server:call(Job, {measure, Count}, infinity).

%% @private
%% Runs `Count' iterations (0: the harness alone) in a fresh worker spawned with a
%% heap of at least `heap' words (`#{heap => Words}'), after its `init_runner', and
%% returns what the batch cost. The worker runs the same timed loop as
%% {@link measure/2}; the caller reads the worker's heap top, collections and
%% reductions while it waits before and after the batch (a process's heap top is only
%% current when it is not running), and the VM's CPU time around the batch. The
%% worker's garbage collections are traced (`garbage_collection' trace flag, this
%% process the tracer) with `collections => true', to tell whether one happened during
%% the batch (`gc => unknown' otherwise: tracing them slows a batch that collects).
%% With `call_memory => true' (OTP 26 and later), the timed loop of the job's
%% generated module has a `call_memory' trace pattern for the batch, and the worker is
%% traced (`call' flag): `traced_words' is what the loop and everything it calls
%% allocated. The pattern is removed afterwards, whatever happens.
-spec cost(server_ref(), non_neg_integer(),
           #{heap => pos_integer(), collections => boolean(), call_memory => boolean()}) ->
    batch_cost().
cost(Job, Count, Options) when is_integer(Count), Count >= 0, is_map(Options) ->
    Heap = maps:get(heap, Options, ?COST_DEFAULT_HEAP),
    {Worker, Module} = gen_server:call(Job, {cost, Count, Heap, self()}, infinity),
    Mon = erlang:monitor(process, Worker),
    try
        Loop = traced_loop(Module, maps:get(call_memory, Options, false)),
        try
            ok = cost_wait(Worker, Mon, cost_ready, infinity),
            %% garbage collections of the worker are traced to this process
            Trace = maps:get(collections, Options, false),
            1 = erlang:trace(Worker, Trace, [garbage_collection]),
            ok = trace_memory(Worker, Loop),
            Before = cost_reading(Worker),
            Worker ! {cost_go, self()},
            Nanoseconds = cost_wait(Worker, Mon, cost_done, infinity),
            After = cost_reading(Worker),
            Batch = (cost_delta(Before, After, Nanoseconds))#{gc => collected(Worker, Trace)},
            traced_words(Batch, Loop)
        after
            ok = untrace_memory(Loop)
        end
    after
        Worker ! {cost_finish, self()},
        erlang:demonitor(Mon, [flush])
    end.

%% @private
%% Times runner calls one by one in a fresh worker, after its `init_runner': first
%% `timer_calls' empty spans (the clock read twice with nothing between: what timing
%% itself costs), then up to `calls' runner calls, for at most `budget_ms' (at least
%% one call). Durations are kept in an `atomics' array, off the worker's heap, and
%% returned in nanoseconds. When the worker is still busy `wait_ms' after it started
%% timing (a call that does not return), it is stopped and the calls that returned are
%% given with `unfinished => true'. A crash stops the job, as in a run.
-spec latency(server_ref(), latency_options()) -> latency_calls().
latency(Job, #{calls := Size, timer_calls := TimerCalls, budget_ms := Budget, wait_ms := Wait}) ->
    Durations = atomics:new(Size, [{signed, true}]),
    ok = unwritten(Durations, Size),
    Timer = atomics:new(TimerCalls, [{signed, true}]),
    Spec = {Durations, Size, Timer, TimerCalls, Budget},
    Worker = gen_server:call(Job, {latency, Spec, self()}, infinity),
    Mon = erlang:monitor(process, Worker),
    try
        ok = cost_wait(Worker, Mon, latency_ready, infinity),
        {Calls, Unfinished} = latency_wait(Job, Worker, Mon, Durations, Wait),
        #{durations => slots(Durations, Size - Calls + 1, Size),
          timer => slots(Timer, 1, TimerCalls), unfinished => Unfinished}
    after
        erlang:demonitor(Mon, [flush])
    end.

%% Starts `Count' profile workers: each runs `init_runner', then the runner in the timed
%% loop (no counter, no publishing: nothing but the runner's code and the loop) until
%% {@link stop_profile_workers/1}. Returns their pids once all have run `init_runner'.
%% Like any worker's, a crash stops the job.
-spec profile_workers(server_ref(), pos_integer()) -> [pid()].
profile_workers(Job, Count) when is_integer(Count), Count > 0 ->
    Mon = erlang:monitor(process, Job),
    try
        Pids = gen_server:call(Job, {profile_workers, Count, self()}, infinity),
        [receive
             {profile_ready, Pid} -> Pid;
             {'DOWN', Mon, process, _, Reason} -> exit({Reason, {?MODULE, profile_workers, [Job, Count]}})
         end || Pid <- Pids]
    after
        erlang:demonitor(Mon, [flush])
    end.

%% @private
%% Kills the profile workers and waits for them to exit.
-spec stop_profile_workers(server_ref()) -> ok.
stop_profile_workers(Job) ->
    gen_server:call(Job, stop_profile_workers, infinity).

%% @doc Returns the source text of the generated module, one string per form.
-spec source(server_ref() | code_map()) -> [string()].
source(#{runner := _} = Code) ->
    forms_text(erlperf_codegen:source(Code));
source(Job) ->
    forms_text(gen_server:call(Job, source, infinity)).

%% @doc Returns the generated module, runner arity, label and compiler warnings.
-spec info(server_ref()) -> info().
info(Job) ->
    gen_server:call(Job, info, infinity).

%% @doc Sets the controller's priority while it has workers; returns the previous one.
-spec set_priority(server_ref(), erlang:priority_level()) -> erlang:priority_level().
set_priority(Job, Priority) when Priority =:= low; Priority =:= normal; Priority =:= high;
                                 Priority =:= max ->
    gen_server:call(Job, {priority, Priority}, infinity).

%%--------------------------------------------------------------------
%% Worker loop support

%% @private
%% Called by the generated loop at the end of a batch: credits the next batch to the
%% worker's counter, records when, and returns its size. The size aims at
%% ?PUBLISH_INTERVAL_US from how long the last batch took: a slower runner shrinks it
%% at once (down to 1: counted call by call), a faster one grows it gradually.
-spec publish() -> pos_integer().
publish() ->
    case get(?STATE_KEY) of
        {Ref, Batch, Started} ->
            Now = erlang:monotonic_time(),
            Took = Now - Started,
            Next = next_batch(Batch, Took),
            _ = atomics:add(Ref, ?COUNT, Next),
            ok = atomics:put(Ref, ?PUBLISHED, Now),
            ok = atomics:put(Ref, ?EXPECTED, expected(Batch, Next, Took)),
            ok = atomics:put(Ref, ?BATCH, Next),
            _ = put(?STATE_KEY, {Ref, Next, Now}),
            Next;
        _ ->
            erlang:error(erlperf_state_erased)
    end.

%% @private
%% The next batch's size, from the last batch's size and how long it took (native units).
-spec next_batch(pos_integer(), integer()) -> pos_integer().
next_batch(Batch, Took) when Took =< 0 ->
    min(Batch * ?MAX_GROWTH, ?MAX_BATCH);
next_batch(Batch, Took) ->
    Interval = erlang:convert_time_unit(?PUBLISH_INTERVAL_US, microsecond, native),
    max(1, min(Batch * Interval div Took, min(Batch * ?MAX_GROWTH, ?MAX_BATCH))).

%% How long the new batch should take at the last batch's pace.
expected(Batch, Next, Took) -> Took * Next div Batch.

overdue(Ref, Now, Min) ->
    Running = Now - atomics:get(Ref, ?PUBLISHED),
    Running > max(Min, ?OVERDUE_FACTOR * atomics:get(Ref, ?EXPECTED)).

%%--------------------------------------------------------------------
%% gen_server callbacks

%% @private
-spec init({pid(), module(), erlperf_codegen:generated()}) -> {ok, #state{}} | {stop, term()}.
init({Owner, Module, #{binary := Bin} = Gen}) ->
    process_flag(trap_exit, true),
    _ = erlang:monitor(process, Owner),
    {module, Module} = code:load_binary(Module, "erlperf_generated", Bin),
    #{context := Context, roles := Roles, forms := Forms} = Gen,
    ok = load_called_modules(Forms),
    Info = maps:with([module, arity, label, warnings], Gen),
    Table = ets:new(?MODULE, [protected, set, {read_concurrency, true}]),
    true = ets:insert(Table, {?CONCURRENCY_KEY, 0}),
    State = #state{module = Module, context = Context, roles = Roles, info = Info,
                   forms = Forms, owner = Owner, table = Table,
                   initial_priority = element(2, process_info(self(), priority))},
    case call_role(init, undefined, State) of
        {ok, InitResult} ->
            ok = join_group(),
            ok = register_with_monitor({?MODULE, Table}),
            {ok, State#state{init_result = InitResult}};
        {error, Reason} ->
            unload(Module),
            {stop, {shutdown, Reason}}
    end.

%% @private
-spec handle_call(term(), gen_server:from(), #state{}) ->
    {reply, term(), #state{}} | {noreply, #state{}} | {stop, normal, term(), #state{}}.
handle_call(sample, _From, #state{table = Table} = State) ->
    {reply, sample({?MODULE, Table}), State};
handle_call(handle, _From, #state{table = Table} = State) ->
    {reply, {?MODULE, Table}, State};
handle_call(concurrency, _From, #state{workers = Workers} = State) ->
    {reply, length(Workers), State};
handle_call(source, _From, #state{forms = Forms} = State) ->
    {reply, erlperf_codegen:source(#{forms => Forms}), State};
handle_call(info, _From, #state{info = Info} = State) ->
    {reply, Info, State};
handle_call(suspend, _From, #state{workers = Workers, suspended = false} = State) ->
    _ = [erlang:suspend_process(Pid) || {Pid, _} <- Workers],
    {reply, ok, State#state{suspended = [Pid || {Pid, _} <- Workers]}};
handle_call(suspend, _From, State) ->
    {reply, ok, State};
handle_call(resume, _From, #state{suspended = false} = State) ->
    {reply, ok, State};
handle_call(resume, _From, #state{suspended = Suspended} = State) ->
    _ = [erlang:resume_process(Pid) || Pid <- Suspended, is_process_alive(Pid)],
    {reply, ok, State#state{suspended = false}};
handle_call({priority, Priority}, _From, #state{priority = Old} = State) ->
    {reply, Old, set_priority_flag(State#state{priority = Priority})};
handle_call(stop, _From, State) ->
    {Reply, NewState} = finish(State),
    {stop, normal, Reply, NewState};
handle_call(Request, From, #state{starting = #starting{}, deferred = Deferred} = State) ->
    %% one change of workers at a time: the rest waits for the start line
    {noreply, State#state{deferred = Deferred ++ [{Request, From}]}};
handle_call({set_concurrency, N}, From, #state{workers = Workers} = State) when N > length(Workers) ->
    {noreply, grow(N, From, State)};
handle_call({set_concurrency, N}, _From, State) ->
    {reply, ok, set_priority_flag(shrink(N, State))};
handle_call({measure, Count}, From, #state{timed = Timed} = State) ->
    Pid = spawn_timed(From, Count, State),
    {noreply, State#state{timed = Timed#{Pid => From}}};
handle_call({cost, Count, Heap, Reader}, From, #state{timed = Timed, module = Module} = State) ->
    Pid = spawn_cost(Reader, Count, Heap, State),
    {reply, {Pid, Module}, State#state{timed = Timed#{Pid => From}}};
handle_call({latency, Spec, Reader}, From, #state{timed = Timed} = State) ->
    Pid = spawn_latency(Reader, Spec, State),
    {reply, Pid, State#state{timed = Timed#{Pid => From}}};
handle_call({cancel, Pid}, _From, #state{timed = Timed} = State) ->
    %% a worker of latency/2 whose call does not return: stopped quietly
    kill_and_wait([Pid || is_map_key(Pid, Timed)]),
    {reply, ok, State#state{timed = maps:remove(Pid, Timed)}};
handle_call({profile_workers, Count, Reader}, _From, #state{timed = Timed} = State) ->
    Pids = [spawn_profile(Reader, State) || _ <- lists:seq(1, Count)],
    {reply, Pids, State#state{timed = maps:merge(Timed, maps:from_keys(Pids, profile))}};
handle_call(stop_profile_workers, _From, #state{timed = Timed} = State) ->
    {Profiling, Others} = maps:fold(fun (Pid, profile, {P, O}) -> {[Pid | P], O};
                                        (Pid, From, {P, O}) -> {P, O#{Pid => From}}
                                    end, {[], #{}}, Timed),
    kill_and_wait(Profiling),
    {reply, ok, State#state{timed = Others}}.

%% @private
-spec handle_cast(stop, #state{}) -> {stop, normal, #state{}}.
handle_cast(stop, State) ->
    {stop, normal, State}.

%% @private
-spec handle_info(term(), #state{}) -> {noreply, #state{}} | {stop, term(), #state{}}.
handle_info({ready, Ref}, #state{starting = #starting{ref = Ref} = Starting} = State) ->
    {noreply, started(Starting, State)};
handle_info({'EXIT', Pid, Reason}, #state{timed = Timed} = State) when is_map_key(Pid, Timed) ->
    NewState = State#state{timed = maps:remove(Pid, Timed)},
    case Reason of
        normal -> {noreply, NewState};
        _ -> {stop, {shutdown, crash_reason(Reason)}, NewState}
    end;
handle_info({'EXIT', Pid, Reason}, #state{workers = Workers, starting = Starting} = State) ->
    case {lists:keytake(Pid, 1, Workers), is_starting(Pid, Starting)} of
        {{value, _, Remaining}, _} ->
            %% the worker is gone already: stopping the others must not wait for it
            {stop, {shutdown, crash_reason(Reason)}, State#state{workers = Remaining}};
        {false, true} ->
            #starting{workers = New} = Starting,
            Rest = Starting#starting{workers = lists:keydelete(Pid, 1, New)},
            {stop, {shutdown, crash_reason(Reason)}, State#state{starting = Rest}};
        {false, false} ->
            %% the owner or supervisor linked to the job (start_link) is going: so is
            %% the job, quietly (its own crash is logged by whoever it was)
            {stop, linked_exit(Reason), State}
    end;
handle_info({'DOWN', _Ref, process, Owner, _}, #state{owner = Owner} = State) ->
    {stop, {shutdown, owner_down}, State};
handle_info(_Other, State) ->
    {noreply, State}.

%% @private
-spec terminate(term(), #state{}) -> ok.
terminate(_Reason, State) ->
    _ = finish(State),
    ok.

%%--------------------------------------------------------------------
%% Workers

%% @private
%% Continuous worker: runs init_runner, reports ready, waits for the start signal,
%% then loops forever, publishing to its position's counter.
-spec worker(pid(), {reference(), atomics:atomics_ref()}, atomics:atomics_ref(), module(), tuple(),
             {boolean(), term()}) ->
    no_return().
worker(Controller, {Ref, Countdown}, Counter, Module, Context, {HasInitRunner, InitResult}) ->
    InitRunner = init_runner(HasInitRunner, Module, InitResult, Context),
    %% the first call is counted before the start line, so that the first reading
    %% after set_concurrency/2 returns includes it, whenever it starts
    _ = atomics:add(Counter, ?COUNT, 1),
    %% the last worker ready tells the controller, for all
    _ = atomics:sub_get(Countdown, 1, 1) =:= 0 andalso (Controller ! {ready, Ref}),
    receive {go, Ref} -> ok end,
    Now = erlang:monotonic_time(),
    ok = atomics:put(Counter, ?PUBLISHED, Now),
    ok = atomics:put(Counter, ?EXPECTED, 0),
    ok = atomics:put(Counter, ?BATCH, 1),
    _ = put(?STATE_KEY, {Counter, 1, Now}),
    guarded(runner, fun () -> Module:'erlperf run'(1, InitRunner, Context) end).

%% @private
%% Timed worker: runs init_runner, then `Count' iterations, and replies the nanoseconds.
-spec timed_worker(gen_server:from(), pos_integer(), module(), tuple(), boolean(), term()) -> ok.
timed_worker(From, Count, Module, Context, HasInitRunner, InitResult) ->
    InitRunner = init_runner(HasInitRunner, Module, InitResult, Context),
    Nanoseconds = guarded(runner, fun () -> Module:'erlperf timed'(Count, InitRunner, Context) end),
    gen_server:reply(From, Nanoseconds).

%% @private
%% Cost worker: runs init_runner, then waits for the reader (the caller of cost/3)
%% before and after `Count' iterations of the timed loop, so that it can read the
%% worker's heap. The messages cost the same for every count: an empty batch measures
%% them.
-spec cost_worker(pid(), non_neg_integer(), module(), tuple(), boolean(), term()) -> ok.
cost_worker(Reader, Count, Module, Context, HasInitRunner, InitResult) ->
    InitRunner = init_runner(HasInitRunner, Module, InitResult, Context),
    Reader ! {cost_ready, self(), ok},
    receive {cost_go, Reader} -> ok end,
    Nanoseconds = guarded(runner, fun () -> Module:'erlperf timed'(Count, InitRunner, Context) end),
    Reader ! {cost_done, self(), Nanoseconds},
    receive {cost_finish, Reader} -> ok end.

%% @private
%% Profile worker: runs init_runner, tells the reader (the caller of profile_workers/2),
%% then runs the timed loop for longer than any profile lasts; it is killed before.
-spec profile_worker(pid(), module(), tuple(), boolean(), term()) -> ok.
profile_worker(Reader, Module, Context, HasInitRunner, InitResult) ->
    InitRunner = init_runner(HasInitRunner, Module, InitResult, Context),
    Reader ! {profile_ready, self()},
    _ = guarded(runner, fun () -> Module:'erlperf timed'(?PROFILE_ITERATIONS, InitRunner, Context) end),
    ok.

%% Latency worker: runs init_runner, times the empty spans and tells the reader (the
%% caller of latency/2), then times runner calls and tells it how many it timed. From
%% init_runner on, the worker allocates nothing of its own (spans go into atomics
%% arrays, the message is built before): its heap is the runner's, as in a timed run.
%% For a runner that allocates, the heap decides when collections happen, which
%% changes how long calls take.
-spec latency_worker(pid(), {atomics:atomics_ref(), pos_integer(), atomics:atomics_ref(),
                             pos_integer(), pos_integer()},
                     module(), tuple(), boolean(), term()) -> ok.
latency_worker(Reader, {Durations, Size, Timer, TimerCalls, Budget}, Module, Context, HasInitRunner,
               InitResult) ->
    Ready = {latency_ready, self(), ok},
    InitRunner = init_runner(HasInitRunner, Module, InitResult, Context),
    ok = empty_spans(Timer, TimerCalls),
    Reader ! Ready,
    Deadline = erlang:monotonic_time() + erlang:convert_time_unit(Budget, millisecond, native),
    Left = guarded(runner, fun () -> Module:'erlperf latency'(Size, Durations, Deadline, InitRunner, Context) end),
    Reader ! {latency_done, self(), Size - Left},
    ok.

%% The clock read twice with nothing between, as the latency loop reads it around a call.
empty_spans(_Timer, 0) ->
    ok;
empty_spans(Timer, N) ->
    T0 = erlang:monotonic_time(),
    T1 = erlang:monotonic_time(),
    ok = atomics:put(Timer, N, T1 - T0),
    empty_spans(Timer, N - 1).

%% Slots From to To of an array, in nanoseconds.
slots(Array, From, To) ->
    [erlang:convert_time_unit(atomics:get(Array, I), native, nanosecond) || I <- lists:seq(From, To)].

%% Every slot of a latency array starts as ?UNWRITTEN.
unwritten(_Durations, 0) ->
    ok;
unwritten(Durations, I) ->
    ok = atomics:put(Durations, I, ?UNWRITTEN),
    unwritten(Durations, I - 1).

%% {Calls timed, Unfinished}: the worker's count, or, when it is still busy after Wait,
%% the slots it wrote (from the last one down) before it was stopped.
latency_wait(Job, Worker, Mon, Durations, Wait) ->
    case cost_wait(Worker, Mon, latency_done, Wait) of
        timeout ->
            ok = gen_server:call(Job, {cancel, Worker}, infinity),
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

%% A value from the worker, or `timeout'; its crash (or other exit) is raised as a job
%% stop would be.
cost_wait(Worker, Mon, Tag, Timeout) ->
    receive
        {Tag, Worker, Value} -> Value;
        {'DOWN', Mon, process, Worker, {crashed, _, _} = Crash} ->
            exit({{shutdown, Crash}, {?MODULE, Tag, [Worker]}});
        {'DOWN', Mon, process, Worker, Reason} ->
            exit({Reason, {?MODULE, Tag, [Worker]}})
    after Timeout ->
        timeout
    end.

cost_reading(Worker) ->
    {CpuMs, _} = erlang:statistics(runtime),
    [{garbage_collection_info, Gc}, {reductions, Reds}] =
        erlang:process_info(Worker, [garbage_collection_info, reductions]),
    {proplists:get_value(heap_size, Gc) + proplists:get_value(mbuf_size, Gc), Reds, CpuMs}.

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

cost_delta({Words0, Reds0, Cpu0}, {Words1, Reds1, Cpu1}, Nanoseconds) ->
    #{words => Words1 - Words0, reductions => Reds1 - Reds0, wall_ns => Nanoseconds,
      cpu_ns => (Cpu1 - Cpu0) * 1000000}.

init_runner(true, Module, InitResult, Context) ->
    guarded(init_runner, fun () -> Module:'erlperf call'(init_runner, InitResult, Context) end);
init_runner(false, _Module, _InitResult, _Context) ->
    undefined.

guarded(Role, Fun) ->
    try Fun()
    catch Class:Reason:Stack -> exit({crashed, Role, {Class, Reason, Stack}})
    end.

has_init_runner(#state{roles = Roles}) ->
    lists:member(init_runner, Roles).

spawn_timed(From, Count, #state{module = Module, context = Context, init_result = Init} = State) ->
    spawn_link(?MODULE, timed_worker, [From, Count, Module, Context, has_init_runner(State), Init]).

spawn_profile(Reader, #state{module = Module, context = Context, init_result = Init} = State) ->
    spawn_link(?MODULE, profile_worker, [Reader, Module, Context, has_init_runner(State), Init]).

spawn_cost(Reader, Count, Heap, #state{module = Module, context = Context, init_result = Init} = State) ->
    spawn_opt(?MODULE, cost_worker, [Reader, Count, Module, Context, has_init_runner(State), Init],
              [link, {min_heap_size, Heap}]).

spawn_latency(Reader, Spec, #state{module = Module, context = Context, init_result = Init} = State) ->
    spawn_link(?MODULE, latency_worker, [Reader, Spec, Module, Context, has_init_runner(State), Init]).

%% Spawns the workers for positions above the current ones. Each counts down once
%% init_runner is done; the last one tells the controller (one message, however many
%% workers: a mailbox of 100,000 messages would make every garbage collection of the
%% controller copy them), which then starts them all together (see started/2). The controller takes its working
%% priority first: spawning many busy workers at normal priority would leave it
%% queueing behind them after every spawn.
grow(N, From, #state{workers = Workers, table = Table, module = Module, context = Context,
                     init_result = Init} = State) ->
    _ = process_flag(priority, State#state.priority),
    Ref = make_ref(),
    Countdown = atomics:new(1, [{signed, true}]),
    ok = atomics:put(Countdown, 1, N - length(Workers)),
    Arg = {has_init_runner(State), Init},
    New = [{spawn_link(?MODULE, worker, [self(), {Ref, Countdown}, counter(Table, P), Module, Context, Arg]), P}
           || P <- lists:seq(length(Workers) + 1, N)],
    State#state{starting = #starting{ref = Ref, from = From, workers = New}}.

%% All new workers are ready: start them, answer the caller, then the calls that waited.
started(#starting{ref = Ref, from = From, workers = New}, #state{workers = Workers, table = Table,
                                                                 deferred = Deferred} = State) ->
    _ = [Pid ! {go, Ref} || {Pid, _} <- New],
    All = lists:reverse(New) ++ Workers,
    true = ets:insert(Table, {?CONCURRENCY_KEY, length(All)}),
    gen_server:reply(From, ok),
    replay(Deferred, State#state{workers = All, starting = undefined, deferred = []}).

replay([], State) ->
    State;
replay([{Request, From} | Rest], #state{starting = undefined} = State) ->
    case handle_call(Request, From, State) of
        {reply, Reply, NewState} ->
            gen_server:reply(From, Reply),
            replay(Rest, NewState);
        {noreply, NewState} ->
            replay(Rest, NewState)
    end;
replay(Waiting, State) ->
    State#state{deferred = Waiting}.

is_starting(Pid, #starting{workers = New}) -> lists:keymember(Pid, 1, New);
is_starting(_Pid, undefined) -> false.

%% The counter of a position, created the first time the position is used.
counter(Table, Position) ->
    case ets:lookup(Table, Position) of
        [{_, Ref}] ->
            Ref;
        [] ->
            Ref = atomics:new(?SLOTS, [{signed, true}]),
            true = ets:insert(Table, {Position, Ref}),
            Ref
    end.

%% Kills the newest workers until N run; their counts stay with their positions.
shrink(N, #state{workers = Workers, table = Table} = State) ->
    {Stopping, Remaining} = lists:split(length(Workers) - N, Workers),
    true = ets:insert(Table, {?CONCURRENCY_KEY, N}),
    kill_and_wait([Pid || {Pid, _} <- Stopping]),
    State#state{workers = Remaining}.

kill_and_wait(Pids) ->
    _ = [exit(Pid, kill) || Pid <- Pids],
    wait_exits(maps:from_list([{Pid, true} || Pid <- Pids])).

wait_exits(Pids) when map_size(Pids) =:= 0 ->
    ok;
wait_exits(Pids) ->
    receive
        {'EXIT', Pid, _} when is_map_key(Pid, Pids) ->
            wait_exits(maps:remove(Pid, Pids))
    after ?WORKER_EXIT_TIMEOUT ->
        ok
    end.

set_priority_flag(#state{workers = [], initial_priority = Initial} = State) ->
    _ = process_flag(priority, Initial),
    State;
set_priority_flag(#state{priority = Priority} = State) ->
    _ = process_flag(priority, Priority),
    State.

linked_exit(Reason) when Reason =:= normal; Reason =:= shutdown -> Reason;
linked_exit({shutdown, _} = Reason) -> Reason;
linked_exit(Reason) -> {shutdown, {linked_exit, Reason}}.

%% A worker exit reason as the job's stop reason.
crash_reason({crashed, _Role, {_Class, _Reason, _Stack}} = Crash) -> Crash;
crash_reason(Other) -> {crashed, runner, {exit, Other, []}}.

%%--------------------------------------------------------------------
%% Internal

start_job(Code) ->
    Module = list_to_atom("erlperf_job_" ++ integer_to_list(erlang:unique_integer([positive]))),
    case erlperf_codegen:generate(Code, Module) of
        {ok, Gen} ->
            case gen_server:start(?MODULE, {self(), Module, Gen}, []) of
                {error, {shutdown, Reason}} -> {error, Reason};
                Other -> Other
            end;
        {error, _} = Error ->
            Error
    end.

%% Runs init or done (when defined) in the controller, catching a crash.
call_role(Role, Arg, #state{module = Module, roles = Roles, context = Context}) ->
    case lists:member(Role, Roles) of
        true ->
            try {ok, Module:'erlperf call'(Role, Arg, Context)}
            catch Class:Reason:Stack -> {error, {crashed, Role, {Class, Reason, Stack}}}
            end;
        false ->
            {ok, undefined}
    end.

%% Stops everything once: workers (running, starting and timed), then done, then the
%% module.
finish(#state{done = true} = State) ->
    {ok, State};
finish(#state{workers = Workers, starting = Starting, timed = Timed, init_result = Init,
              module = Module, table = Table} = State) ->
    Pending = case Starting of
                  #starting{workers = New} -> New;
                  undefined -> []
              end,
    true = ets:insert(Table, {?CONCURRENCY_KEY, 0}),
    kill_and_wait([Pid || {Pid, _} <- Workers ++ Pending] ++ maps:keys(Timed)),
    Reply = case call_role(done, Init, State) of
                {ok, _} -> ok;
                {error, _} = Error -> Error
            end,
    unload(Module),
    {Reply, State#state{workers = [], starting = undefined, timed = #{}, done = true}}.

unload(Module) ->
    _ = code:delete(Module),
    _ = code:purge(Module),
    ok.

join_group() ->
    case whereis(?PG_SCOPE) of
        undefined -> ok;
        _ -> pg:join(?PG_SCOPE, ?PG_GROUP, self())
    end.

%% Loads the modules the generated code calls by name, so that the first samples do
%% not time code loading (a NIF library such as crypto's takes tens of milliseconds,
%% much more on a busy machine). A module that cannot be loaded is left to fail in
%% the role that calls it.
load_called_modules(Forms) ->
    _ = [code:ensure_loaded(M) || M <- lists:usort(called_modules(Forms, []))],
    ok.

called_modules({remote, _, {atom, _, M}, {atom, _, _}}, Acc) ->
    [M | Acc];
called_modules(Tuple, Acc) when is_tuple(Tuple) ->
    called_modules(tuple_to_list(Tuple), Acc);
called_modules(List, Acc) when is_list(List) ->
    lists:foldl(fun called_modules/2, Acc, List);
called_modules(_Other, Acc) ->
    Acc.

%% Only when a monitor runs: the command line does not load the monitor's module for
%% nothing (every module counts in its start-up time).
register_with_monitor(Handle) ->
    case whereis(erlperf_monitor) of
        undefined -> ok;
        _ -> erlperf_monitor:register(self(), Handle, 0)
    end.

%% The generated module's source, one string per form.
forms_text(Source) ->
    [unicode:characters_to_list(Form) || Form <- Source].
