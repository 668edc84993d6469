%%% @doc The bodies of a job's measurement workers: fresh processes that a job's
%%% controller spawns beside its running workers, linked to it, for one measurement each.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>measurement worker</b>: runs `init_runner', then the runner in a loop of the
%%%       job's generated module for one measurement, and tells its reader. Its
%%%       arguments are its own, then the generated module, its context, whether the
%%%       code has `init_runner' and the result of `init'. Four kinds:
%%%       <ul>
%%%         <li>{@link timed/6}: `Count' iterations of the timed loop; replies the
%%%             nanoseconds to the caller of `erlperf_job:measure/2'.</li>
%%%         <li>{@link cost/6}: the same loop between two waits, so that its reader,
%%%             `erlperf_cost:batch/3', can read its heap and reductions while it is
%%%             not running.</li>
%%%         <li>{@link latency/6}: calls timed one by one into `atomics' arrays, read by
%%%             `erlperf_latency:time_calls/2'.</li>
%%%         <li>{@link profile/5}: the timed loop for longer than any profile lasts, for
%%%             `erlperf_profile' to watch (through `erlperf_job:profile_workers/2');
%%%             the controller kills it.</li>
%%%         <li>{@link paced/6}: the runner called once for each call its pacer
%%%             (`erlperf_rate') has released and it claims, its service and response
%%%             times recorded into the pacer's histograms.</li>
%%%       </ul></li>
%%%   <li><b>reader</b>: the process a worker reports to, with messages
%%%       `{Tag, Worker, Value}' that it waits for with {@link await/4}. A reader asks
%%%       the job for a cost or latency worker with `erlperf_job:start_measurer/4'.</li>
%%% </ul>
%%%
%%% Example (`erlperf_job:measure/2' spawns a timed worker and returns its reply):
%%% ```
%%% {ok, Job} = erlperf_job:start(#{runner => "rand:uniform()."}),
%%% Microseconds = erlperf_job:measure(Job, 1000),
%%% ok = erlperf_job:stop(Job).
%%% '''
%%%
%%% Cost and safety: one process per measurement (profile: one per traced worker), linked
%%% to the controller, which kills it when the job stops and stops the job when it
%%% crashes (`{crashed, Role, {Class, Reason, Stack}}', see `erlperf_job_code:guarded/2').
%%% None counts or publishes: the job's total is left alone. A latency worker allocates
%%% nothing of its own from `init_runner' on.
-module(erlperf_job_measurer).

%% API: called by the readers of cost and latency workers (erlperf_cost, erlperf_latency).
-export([await/4]).

%% Internal exports: worker bodies, spawned by erlperf_job's controller.
-export([timed/6, cost/6, latency/6, profile/5, paced/6]).

-export_type([latency_spec/0, paced_spec/0]).

%% What a latency worker is given: the array its call spans go into and its size, the
%% array of empty spans and their number, and the milliseconds it may spend on calls.
-type latency_spec() :: {Durations :: atomics:atomics_ref(), Calls :: pos_integer(),
                         Timer :: atomics:atomics_ref(), TimerCalls :: pos_integer(),
                         BudgetMs :: pos_integer()}.

%% What a paced worker is given (see erlperf_rate): the histograms its calls' times go
%% into, nanoseconds (service: from the actual start; response: from the intended start);
%% the counters of late calls (index 1) and of calls returned (index 2); the atomics of
%% the calls claimed (index 1) and released (index 2); the ring of intended starts of
%% released calls (native units) and its size; how late (native units) is late.
-type paced_spec() :: #{service := erlperf_histogram:recorder(),
                        response := erlperf_histogram:recorder(),
                        counts := counters:counters_ref(), calls := atomics:atomics_ref(),
                        ring := atomics:atomics_ref(), ring_size := pos_integer(),
                        late_native := non_neg_integer()}.

%% Iterations of a profile worker's loop: far more than any profile lasts (it is killed
%% when the profile ends).
-define(PROFILE_ITERATIONS, (1 bsl 60)).

%%--------------------------------------------------------------------
%% API

%% @doc A measurement worker's message `{Tag, Worker, Value}' (its value), or `timeout'
%% after `Timeout' ms; its crash (or other exit) is raised as a stop of its job is, as
%% if from a call to the job: `{{shutdown, Crash}, {erlperf_job, Tag, [Worker]}}'.
%% `Mon' monitors the worker.
-spec await(pid(), reference(), atom(), timeout()) -> term().
await(Worker, Mon, Tag, Timeout) ->
    receive
        {Tag, Worker, Value} -> Value;
        {'DOWN', Mon, process, Worker, {crashed, _, _} = Crash} ->
            exit({{shutdown, Crash}, {erlperf_job, Tag, [Worker]}});
        {'DOWN', Mon, process, Worker, Reason} ->
            exit({Reason, {erlperf_job, Tag, [Worker]}})
    after Timeout ->
        timeout
    end.

%%--------------------------------------------------------------------
%% Internal exports

%% @private
%% Timed worker: runs init_runner, then `Count' iterations, and replies the nanoseconds.
-spec timed(gen_server:from(), pos_integer(), module(), tuple(), boolean(), term()) -> ok.
timed(From, Count, Module, Context, HasInitRunner, InitResult) ->
    InitRunner = erlperf_job_code:init_runner(HasInitRunner, Module, InitResult, Context),
    Loop = fun () -> Module:'erlperf timed'(Count, InitRunner, Context) end,
    Nanoseconds = erlperf_job_code:guarded(runner, Loop),
    gen_server:reply(From, Nanoseconds).

%% @private
%% Cost worker: runs init_runner, then waits for the reader (the caller of
%% erlperf_cost:batch/3) before and after `Count' iterations of the timed loop, so that
%% it can read the worker's heap. The messages cost the same for every count: an empty
%% batch measures them.
-spec cost(pid(), non_neg_integer(), module(), tuple(), boolean(), term()) -> ok.
cost(Reader, Count, Module, Context, HasInitRunner, InitResult) ->
    InitRunner = erlperf_job_code:init_runner(HasInitRunner, Module, InitResult, Context),
    Reader ! {cost_ready, self(), ok},
    receive {cost_go, Reader} -> ok end,
    Loop = fun () -> Module:'erlperf timed'(Count, InitRunner, Context) end,
    Nanoseconds = erlperf_job_code:guarded(runner, Loop),
    Reader ! {cost_done, self(), Nanoseconds},
    receive {cost_finish, Reader} -> ok end.

%% @private
%% Latency worker: runs init_runner, times the empty spans and tells the reader (the
%% caller of erlperf_latency:time_calls/2), then times runner calls and tells it how
%% many it timed. From init_runner on, the worker allocates nothing of its own (spans go
%% into atomics arrays, the message is built before): its heap is the runner's, as in a
%% timed run. For a runner that allocates, the heap decides when collections happen,
%% which changes how long calls take.
-spec latency(pid(), latency_spec(), module(), tuple(), boolean(), term()) -> ok.
latency(Reader, {Durations, Size, Timer, TimerCalls, Budget}, Module, Context, HasInitRunner,
        InitResult) ->
    Ready = {latency_ready, self(), ok},
    InitRunner = erlperf_job_code:init_runner(HasInitRunner, Module, InitResult, Context),
    ok = empty_spans(Timer, TimerCalls),
    Reader ! Ready,
    Deadline = erlang:monotonic_time() + erlang:convert_time_unit(Budget, millisecond, native),
    Loop = fun () -> Module:'erlperf latency'(Size, Durations, Deadline, InitRunner, Context) end,
    Left = erlperf_job_code:guarded(runner, Loop),
    Reader ! {latency_done, self(), Size - Left},
    ok.

%% @private
%% Profile worker: runs init_runner, tells the reader (the caller of
%% erlperf_job:profile_workers/2), then runs the timed loop for longer than any profile
%% lasts; it is killed before.
-spec profile(pid(), module(), tuple(), boolean(), term()) -> ok.
profile(Reader, Module, Context, HasInitRunner, InitResult) ->
    InitRunner = erlperf_job_code:init_runner(HasInitRunner, Module, InitResult, Context),
    Reader ! {profile_ready, self()},
    Loop = fun () -> Module:'erlperf timed'(?PROFILE_ITERATIONS, InitRunner, Context) end,
    _ = erlperf_job_code:guarded(runner, Loop),
    ok.

%% @private
%% Paced worker: runs init_runner and tells the pacer it is ready; then claims released
%% calls one after another (see erlperf_rate), calling the runner once for each and
%% recording its times; with none left it tells the pacer it is idle and waits for
%% `wake' (or `stop').
-spec paced(pid(), paced_spec(), module(), tuple(), boolean(), term()) -> ok.
paced(Pacer, Spec, Module, Context, HasInitRunner, InitResult) ->
    InitRunner = erlperf_job_code:init_runner(HasInitRunner, Module, InitResult, Context),
    Pacer ! {paced_ready, self()},
    Loop = fun () -> paced_wait(Pacer, Spec, Module, InitRunner, Context) end,
    erlperf_job_code:guarded(runner, Loop).

%%--------------------------------------------------------------------
%% Internal functions

paced_wait(Pacer, Spec, Module, InitRunner, Context) ->
    receive
        wake -> paced_claim(Pacer, Spec, Module, InitRunner, Context);
        stop -> ok
    end.

%% Claims the oldest released call not claimed yet, if any, and makes it.
paced_claim(Pacer, #{calls := Calls} = Spec, Module, InitRunner, Context) ->
    Claimed = atomics:get(Calls, 1),
    case Claimed < atomics:get(Calls, 2) of
        true ->
            case atomics:compare_exchange(Calls, 1, Claimed, Claimed + 1) of
                ok -> paced_call(Claimed, Pacer, Spec, Module, InitRunner, Context);
                _Other -> paced_claim(Pacer, Spec, Module, InitRunner, Context)
            end;
        false ->
            Pacer ! {paced_idle, self()},
            paced_wait(Pacer, Spec, Module, InitRunner, Context)
    end.

paced_call(Index, Pacer, #{ring := Ring, ring_size := Size, service := Service, response := Response,
                           counts := Counts, late_native := Late} = Spec, Module, InitRunner, Context) ->
    Intended = atomics:get(Ring, Index rem Size + 1),
    Start = erlang:monotonic_time(),
    _ = Module:'erlperf timed'(1, InitRunner, Context),
    End = erlang:monotonic_time(),
    ok = erlperf_histogram:record(Service, erlang:convert_time_unit(End - Start, native, nanosecond)),
    ok = erlperf_histogram:record(Response, erlang:convert_time_unit(End - Intended, native, nanosecond)),
    _ = Start - Intended > Late andalso counters:add(Counts, 1, 1),
    %% counted last: a call counted has its times recorded
    ok = counters:add(Counts, 2, 1),
    paced_claim(Pacer, Spec, Module, InitRunner, Context).

%% The clock read twice with nothing between, as the latency loop reads it around a call.
empty_spans(_Timer, 0) ->
    ok;
empty_spans(Timer, N) ->
    T0 = erlang:monotonic_time(),
    T1 = erlang:monotonic_time(),
    ok = atomics:put(Timer, N, T1 - T0),
    empty_spans(Timer, N - 1).
