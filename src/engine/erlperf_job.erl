%%% @doc A job: one benchmark's controller process, its generated module and its workers.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>controller</b>: this gen_server. It loads the generated module, runs `init'
%%%       and `done', starts and stops workers.</li>
%%%   <li><b>worker</b>: a process running `init_runner' once, then the runner in a tight
%%%       loop (see {@link erlperf_codegen}).</li>
%%%   <li><b>measurement worker</b>: a fresh worker beside the running ones, for one
%%%       measurement ({@link measure/2}, {@link start_measurer/4},
%%%       {@link profile_workers/2}); see {@link erlperf_job_measurer}.</li>
%%%   <li><b>position</b>: a worker's place, 1 to the concurrency, with a counter of its
%%%       own that keeps the counts of every worker that ever held it (see
%%%       {@link erlperf_job_counters}).</li>
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
%%% Cost and safety: a job loads one module (`erlperf_job_N', or `erlperf_job_' and a
%%% digest with the compile cache, see {@link erlperf_job_code}),
%%% owns one ETS table (the handle) and spawns one process per worker, linked to the
%%% controller. New workers run `init_runner', report ready and wait at a start line:
%%% {@link set_concurrency/2} returns once all of them have started together. When the
%%% controller stops, for any reason (including its supervisor's shutdown), it kills its
%%% workers, waits for them, runs `done' and purges the module, so nothing is left behind.
%%% A worker that crashes stops the job at once with reason
%%% `{shutdown, {crashed, Role, {Class, Reason, Stack}}}'; no crash report is logged. The
%%% controller runs at `high' priority while it has workers (see {@link set_priority/2}) so
%%% that it keeps control over busy schedulers. A measurement worker is linked like the
%%% others and stopped with them, or on its own when its reader gives up on it
%%% ({@link cancel_measurer/2}).
%%%
%%% `init', `done' and a timed measurement are waited for while their process makes
%%% progress (erlperf_progress): stuck, they are stopped and the caller gets
%%% `{error, {call_not_returned, init | done, StuckMs}}' ({@link start/1}, {@link stop/1}),
%%% or the timed sample `{call_not_returned, timed, Job, StuckMs}' raised
%%% ({@link measure_ns/2}).
%%%
%%% The job joins the `pg' group `jobs' of scope `erlperf' when that scope runs; that
%%% is how `erlperf_monitor' finds it (and samples it through {@link handle/1}): the
%%% job does not know of the monitor.
-module(erlperf_job).
-behaviour(gen_server).

-include("erlperf_job_counters.hrl").

%% API
-export([start/1, start_link/1, stop/1, request_stop/1,
         concurrency/1, set_concurrency/2, handle/1, sample/1, measure/2,
         source/1, info/1, set_priority/2, suspend/1, resume/1]).

%% Internal API: erlperf_sampler reads counters with the overdue flag and times
%% measurements in nanoseconds.
-export([sample_status/1, measure_ns/2]).

%% Internal API: erlperf_cost and erlperf_latency (the clients of the cost and latency
%% protocols) start a measurement worker and give it up.
-export([start_measurer/4, cancel_measurer/2]).

%% Internal API: erlperf_profile traces workers of its own.
-export([profile_workers/2, stop_profile_workers/1]).

%% gen_server callbacks
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

%% Internal exports: the continuous worker's body, spawned by the controller; publish/0,
%% called by the generated worker loop at the end of each batch.
-export([worker/6, publish/0]).

%% Internal export: the batch sizing rule, pure (tested on its own).
-export([next_batch/2]).

-export_type([callable/0, code_map/0, info/0, handle/0]).

-type callable() :: erlperf_codegen:callable().
-type code_map() :: erlperf_codegen:code_map().
-type info() :: #{module := module(), arity := 0..2, label := binary(),
                  warnings := [erlperf_codegen:warning()]}.
-type server_ref() :: gen_server:server_ref().
-opaque handle() :: {?MODULE, counters, ets:tid()}.

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
%% Process dictionary key of a continuous worker's publishing state.
-define(STATE_KEY, '$erlperf_publish').

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
    %% measurement workers: who asked for each, or `profile' (running until stopped)
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
stop(Job) when is_pid(Job) ->
    case erlperf_progress:request(gen_server:send_request(Job, stop),
                                  fun () -> erlperf_progress:with_callees([Job]) end) of
        {reply, Reply} -> Reply;
        {error, {Reason, _}} -> exit({Reason, {gen_server, call, [Job, stop, infinity]}});
        stuck -> {error, stopped_stuck(Job, done)}
    end;
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
sample({?MODULE, counters, Table}) ->
    erlperf_job_counters:total(Table);
sample(Job) ->
    gen_server:call(Job, sample, infinity).

%% @private
%% The total, how many running workers are overdue and how many calls those have been
%% credited with in their current batch (see `erlperf_job_counters:status/1').
-spec sample_status(handle()) ->
    {non_neg_integer(), non_neg_integer(), non_neg_integer()} | undefined.
sample_status({?MODULE, counters, Table}) ->
    erlperf_job_counters:status(Table).

%% @doc Runs `Count' iterations in a fresh worker and returns the microseconds taken,
%% like `timer:tc/3'.
-spec measure(server_ref(), pos_integer()) -> non_neg_integer().
measure(Job, Count) ->
    measure_ns(Job, Count) div 1000.

%% @private
%% {@link measure/2} in nanoseconds.
-spec measure_ns(server_ref(), pos_integer()) -> non_neg_integer().
measure_ns(Job, Count) when is_pid(Job), is_integer(Count), Count > 0 ->
    Watched = fun () -> erlperf_progress:with_callees(gen_server:call(Job, timed_workers, infinity)) end,
    case erlperf_progress:request(gen_server:send_request(Job, {measure, Count}), Watched) of
        {reply, Ns} -> Ns;
        {error, {Reason, _}} -> exit({Reason, {gen_server, call, [Job, {measure, Count}, infinity]}});
        stuck -> erlang:error({call_not_returned, timed, Job, erlperf_progress:stuck_ms()})
    end;
measure_ns(Job, Count) when is_integer(Count), Count > 0 ->
    gen_server:call(Job, {measure, Count}, infinity).

%% @private
%% Spawns a measurement worker for the caller, its reader: `erlperf_job_measurer:Body'
%% (`cost' for erlperf_cost:batch/3, `latency' for erlperf_latency:time_calls/2,
%% `paced' for erlperf_rate) with
%% `Args', then the job's code, spawned with `SpawnOpts' and linked to the controller.
%% Returns it and the generated module, whose timed loop the reader may trace.
-spec start_measurer(server_ref(), cost | latency | paced, list(), [erlang:spawn_opt_option()]) ->
    {pid(), module()}.
start_measurer(Job, Body, Args, SpawnOpts) when Body =:= cost; Body =:= latency; Body =:= paced ->
    gen_server:call(Job, {measurer, Body, Args, SpawnOpts}, infinity).

%% @private
%% Stops a measurement worker quietly (a latency worker whose call does not return)
%% and waits for it to exit; the job runs on.
-spec cancel_measurer(server_ref(), pid()) -> ok.
cancel_measurer(Job, Worker) ->
    gen_server:call(Job, {cancel, Worker}, infinity).

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
    erlperf_job_code:text(erlperf_codegen:source(Code));
source(Job) ->
    erlperf_job_code:text(gen_server:call(Job, source, infinity)).

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

%%--------------------------------------------------------------------
%% gen_server callbacks

%% @private
-spec init({pid(), module(), erlperf_codegen:generated(), reference()}) -> {ok, #state{}} | {stop, term()}.
init({Owner, Generated, Code, Tag}) ->
    process_flag(trap_exit, true),
    _ = erlang:monitor(process, Owner),
    %% the same code in another job: loaded under a fresh name
    {Module, Gen} = erlperf_job_code:load(Generated, Code),
    #{context := Context, roles := Roles, forms := Forms} = Gen,
    Info = maps:with([module, arity, label, warnings], Gen),
    Table = erlperf_job_counters:new(),
    State = #state{module = Module, context = Context, roles = Roles, info = Info,
                   forms = Forms, owner = Owner, table = Table,
                   initial_priority = element(2, process_info(self(), priority))},
    Owner ! {Tag, init, self()},
    case erlperf_job_code:call(init, undefined, Module, Roles, Context) of
        {ok, InitResult} ->
            ok = join_group(),
            {ok, State#state{init_result = InitResult}};
        {error, Reason} ->
            ok = erlperf_job_code:unload(Module),
            {stop, {shutdown, Reason}}
    end.

%% @private
-spec handle_call(term(), gen_server:from(), #state{}) ->
    {reply, term(), #state{}} | {noreply, #state{}} | {stop, normal, term(), #state{}}.
handle_call(sample, _From, #state{table = Table} = State) ->
    {reply, sample({?MODULE, counters, Table}), State};
handle_call(handle, _From, #state{table = Table} = State) ->
    {reply, {?MODULE, counters, Table}, State};
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
    Pid = spawn_measurer(timed, [From, Count], [], State),
    {noreply, State#state{timed = Timed#{Pid => From}}};
handle_call({measurer, Body, Args, SpawnOpts}, From, #state{timed = Timed, module = Module} = State) ->
    Pid = spawn_measurer(Body, Args, SpawnOpts, State),
    {reply, {Pid, Module}, State#state{timed = Timed#{Pid => From}}};
handle_call(timed_workers, _From, #state{timed = Timed} = State) ->
    {reply, maps:keys(Timed), State};
handle_call({cancel, Pid}, _From, #state{timed = Timed} = State) ->
    %% a latency worker whose call does not return: stopped quietly
    kill_and_wait([Pid || is_map_key(Pid, Timed)]),
    {reply, ok, State#state{timed = maps:remove(Pid, Timed)}};
handle_call({profile_workers, Count, Reader}, _From, #state{timed = Timed} = State) ->
    Pids = [spawn_measurer(profile, [Reader], [], State) || _ <- lists:seq(1, Count)],
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
    InitRunner = erlperf_job_code:init_runner(HasInitRunner, Module, InitResult, Context),
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
    erlperf_job_code:guarded(runner, fun () -> Module:'erlperf run'(1, InitRunner, Context) end).

has_init_runner(#state{roles = Roles}) ->
    lists:member(init_runner, Roles).

%% Spawns a measurement worker (see erlperf_job_measurer), linked: the body's own
%% arguments, then the generated module, its context, whether it has init_runner and
%% init's result.
spawn_measurer(Body, Args, SpawnOpts, #state{module = Module, context = Context,
                                             init_result = Init} = State) ->
    spawn_opt(erlperf_job_measurer, Body, Args ++ [Module, Context, has_init_runner(State), Init],
              [link | SpawnOpts]).

%% Spawns the workers for positions above the current ones. Each counts down once
%% init_runner is done; the last one tells the controller (one message, however many
%% workers: a mailbox of 100,000 messages would make every garbage collection of the
%% controller copy them), which then starts them all together (see started/2). The
%% controller takes its working priority first: spawning many busy workers at normal
%% priority would leave it queueing behind them after every spawn.
grow(N, From, #state{workers = Workers, table = Table, module = Module, context = Context,
                     init_result = Init} = State) ->
    _ = process_flag(priority, State#state.priority),
    Ref = make_ref(),
    Countdown = atomics:new(1, [{signed, true}]),
    ok = atomics:put(Countdown, 1, N - length(Workers)),
    Arg = {has_init_runner(State), Init},
    New = [{spawn_link(?MODULE, worker, [self(), {Ref, Countdown}, erlperf_job_counters:counter(Table, P),
                                         Module, Context, Arg]), P}
           || P <- lists:seq(length(Workers) + 1, N)],
    State#state{starting = #starting{ref = Ref, from = From, workers = New}}.

%% All new workers are ready: start them, answer the caller, then the calls that waited.
started(#starting{ref = Ref, from = From, workers = New}, #state{workers = Workers, table = Table,
                                                                 deferred = Deferred} = State) ->
    _ = [Pid ! {go, Ref} || {Pid, _} <- New],
    All = lists:reverse(New) ++ Workers,
    ok = erlperf_job_counters:set_running(Table, length(All)),
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

%% Kills the newest workers until N run; their counts stay with their positions.
shrink(N, #state{workers = Workers, table = Table} = State) ->
    {Stopping, Remaining} = lists:split(length(Workers) - N, Workers),
    ok = erlperf_job_counters:set_running(Table, N),
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
    case erlperf_job_code:generate(Code) of
        {ok, Module, Gen} ->
            %% before any worker runs: the sampler's reads of the host then never wait
            %% for the file server behind busy workers
            ok = erlperf_interference:prepare(),
            %% started from a process of its own, so that this one can watch `init'
            Owner = self(),
            Tag = make_ref(),
            {_, Mon} = spawn_monitor(fun () ->
                                             Owner ! {Tag, started, gen_server:start(?MODULE, {Owner, Module, Gen, Tag}, [])}
                                     end),
            case init_outcome(Tag, Mon) of
                {error, {shutdown, Reason}} -> {error, Reason};
                Other -> Other
            end;
        {error, _} = Error ->
            Error
    end.

%% The start's outcome, `init' watched from the moment the controller says it runs it.
init_outcome(Tag, Mon) ->
    Receive = fun (Timeout) ->
                      receive
                          {Tag, started, Result} ->
                              erlang:demonitor(Mon, [flush]),
                              {ok, Result};
                          {'DOWN', Mon, process, _, Reason} when Reason =/= normal ->
                              {ok, {error, Reason}}
                      after Timeout ->
                              timeout
                      end
              end,
    receive
        {Tag, init, Controller} ->
            case erlperf_progress:await(Receive, fun () -> erlperf_progress:with_callees([Controller]) end) of
                {ok, Result} ->
                    Result;
                stuck ->
                    Stuck = stopped_stuck(Controller, init),
                    {ok, _} = Receive(infinity),
                    {error, Stuck}
            end;
        {Tag, started, Result} ->
            erlang:demonitor(Mon, [flush]),
            receive {Tag, init, _} -> ok after 0 -> ok end,
            Result;
        {'DOWN', Mon, process, _, Reason} when Reason =/= normal ->
            {error, Reason}
    end.

%% Kills a controller stuck in `init' or `done' and unloads its module (the name it is
%% registered under).
stopped_stuck(Controller, Role) ->
    Name = erlang:process_info(Controller, registered_name),
    exit(Controller, kill),
    Mon = erlang:monitor(process, Controller),
    receive {'DOWN', Mon, process, Controller, _} -> ok end,
    _ = case Name of
            {registered_name, Module} -> erlperf_job_code:unload(Module);
            _ -> ok
        end,
    {call_not_returned, Role, erlperf_progress:stuck_ms()}.

%% Stops everything once: workers (running, starting and timed), then done, then the
%% module.
finish(#state{done = true} = State) ->
    {ok, State};
finish(#state{workers = Workers, starting = Starting, timed = Timed, init_result = Init,
              module = Module, roles = Roles, context = Context, table = Table} = State) ->
    Pending = case Starting of
                  #starting{workers = New} -> New;
                  undefined -> []
              end,
    ok = erlperf_job_counters:set_running(Table, 0),
    kill_and_wait([Pid || {Pid, _} <- Workers ++ Pending] ++ maps:keys(Timed)),
    Reply = case erlperf_job_code:call(done, Init, Module, Roles, Context) of
                {ok, _} -> ok;
                {error, _} = Error -> Error
            end,
    ok = erlperf_job_code:unload(Module),
    {Reply, State#state{workers = [], starting = undefined, timed = #{}, done = true}}.

join_group() ->
    case whereis(?PG_SCOPE) of
        undefined -> ok;
        _ -> pg:join(?PG_SCOPE, ?PG_GROUP, self())
    end.
