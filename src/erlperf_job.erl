%%% @doc A job: one benchmark's controller process, its generated module and its workers.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>controller</b>: this gen_server. It loads the generated module, runs `init'
%%%       and `done', starts and stops workers, and answers samples.</li>
%%%   <li><b>worker</b>: a process running `init_runner' once, then the runner in a tight
%%%       loop. Each worker owns an `atomics' array and publishes its iteration count
%%%       there in batches (see {@link erlperf_codegen}); nothing is shared between
%%%       workers, so they scale with the number of schedulers.</li>
%%%   <li><b>owner</b>: the process that started the job. The job stops when it exits.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% {ok, Job} = erlperf_job:start_link(#{runner => "rand:uniform()."}),
%%% ok = erlperf_job:set_concurrency(Job, 2),
%%% Before = erlperf_job:sample(Job),
%%% timer:sleep(1000),
%%% PerSecond = erlperf_job:sample(Job) - Before,
%%% ok = erlperf_job:stop(Job).
%%% '''
%%%
%%% Cost and safety: a job loads one module (`erlperf_job_N') and spawns one process per
%%% worker, linked to the controller. When the controller stops, for any reason, it kills
%%% its workers, waits for them, runs `done' and purges the module, so nothing is left
%%% behind. A worker that crashes stops the job at once with reason
%%% `{shutdown, {crashed, Role, {Class, Reason, Stack}}}'; no crash report is logged.
%%% The controller runs at `high' priority while it has workers (see
%%% {@link set_priority/2}) so that it keeps control over busy schedulers.
-module(erlperf_job).
-behaviour(gen_server).

%% API
-export([start/1, start_link/1, stop/1, request_stop/1,
         concurrency/1, set_concurrency/2, sample/1, sample_request/1, measure/2,
         source/1, info/1, set_priority/2]).

%% gen_server callbacks
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

%% Internal export: the body of worker processes, spawned by the controller.
-export([worker/5]).

-export_type([callable/0, code_map/0, info/0]).

-type callable() :: erlperf_codegen:callable().
-type code_map() :: erlperf_codegen:code_map().
-type info() :: #{module := module(), arity := 0..2, label := binary(),
                  warnings := [erlperf_codegen:warning()]}.
-type server_ref() :: gen_server:server_ref().

%% How long the controller waits for killed workers to exit before giving up on them.
-define(WORKER_EXIT_TIMEOUT, 10000).
%% pg scope and group that jobs join, so that the monitor can find them.
-define(PG_SCOPE, erlperf).
-define(PG_GROUP, jobs).

-record(state, {
    module :: module(),
    context :: tuple(),
    roles :: [erlperf_codegen:role()],
    info :: info(),
    forms :: [erl_parse:abstract_form()],
    init_result :: term(),
    owner :: pid(),
    %% running workers, newest first, each with its counter
    workers = [] :: [{pid(), atomics:atomics_ref()}],
    %% iterations published by workers that have stopped
    retired = 0 :: non_neg_integer(),
    %% workers running a timed measurement
    timed = #{} :: #{pid() => gen_server:from()},
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

%% @doc Starts or stops workers until `Concurrency' of them run.
-spec set_concurrency(server_ref(), non_neg_integer()) -> ok.
set_concurrency(Job, Concurrency) when is_integer(Concurrency), Concurrency >= 0 ->
    gen_server:call(Job, {set_concurrency, Concurrency}, infinity).

%% @doc Returns the iterations done by all workers since the job started.
-spec sample(server_ref()) -> non_neg_integer().
sample(Job) ->
    gen_server:call(Job, sample, infinity).

%% @doc Asks for {@link sample/1} without waiting: collect the answer with
%% `gen_server:receive_response/2' (used to sample many jobs under one deadline).
-spec sample_request(server_ref()) -> gen_server:request_id().
sample_request(Job) ->
    gen_server:send_request(Job, sample).

%% @doc Runs `Count' iterations in a fresh worker and returns the nanoseconds taken.
-spec measure(server_ref(), pos_integer()) -> non_neg_integer().
measure(Job, Count) when is_integer(Count), Count > 0 ->
    gen_server:call(Job, {measure, Count}, infinity).

%% @doc Returns the source text of the generated module.
-spec source(server_ref() | code_map()) -> iodata().
source(#{runner := _} = Code) ->
    erlperf_codegen:source(Code);
source(Job) ->
    gen_server:call(Job, source, infinity).

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
%% gen_server callbacks

%% @private
-spec init({pid(), module(), erlperf_codegen:generated()}) -> {ok, #state{}} | {stop, term()}.
init({Owner, Module, #{binary := Bin} = Gen}) ->
    process_flag(trap_exit, true),
    _ = erlang:monitor(process, Owner),
    {module, Module} = code:load_binary(Module, "erlperf_generated", Bin),
    #{context := Context, roles := Roles, forms := Forms} = Gen,
    Info = maps:with([module, arity, label, warnings], Gen),
    State = #state{module = Module, context = Context, roles = Roles, info = Info,
                   forms = Forms, owner = Owner,
                   initial_priority = element(2, process_info(self(), priority))},
    case call_role(init, undefined, State) of
        {ok, InitResult} ->
            ok = join_group(),
            {ok, State#state{init_result = InitResult}};
        {error, Reason} ->
            unload(Module),
            {stop, {shutdown, Reason}}
    end.

%% @private
-spec handle_call(term(), gen_server:from(), #state{}) ->
    {reply, term(), #state{}} | {noreply, #state{}} | {stop, normal, term(), #state{}}.
handle_call(sample, _From, State) ->
    {reply, total(State), State};
handle_call(concurrency, _From, #state{workers = Workers} = State) ->
    {reply, length(Workers), State};
handle_call({set_concurrency, N}, _From, State) ->
    {reply, ok, set_priority_flag(resize(N, State))};
handle_call({measure, Count}, From, #state{timed = Timed} = State) ->
    Pid = spawn_worker({timed, From, Count}, State),
    {noreply, State#state{timed = Timed#{Pid => From}}};
handle_call(source, _From, #state{forms = Forms} = State) ->
    {reply, erlperf_codegen:source(#{forms => Forms}), State};
handle_call(info, _From, #state{info = Info} = State) ->
    {reply, Info, State};
handle_call({priority, Priority}, _From, #state{priority = Old} = State) ->
    {reply, Old, set_priority_flag(State#state{priority = Priority})};
handle_call(stop, _From, State) ->
    {Reply, NewState} = finish(State),
    {stop, normal, Reply, NewState}.

%% @private
-spec handle_cast(stop, #state{}) -> {stop, normal, #state{}}.
handle_cast(stop, State) ->
    {stop, normal, State}.

%% @private
-spec handle_info(term(), #state{}) -> {noreply, #state{}} | {stop, term(), #state{}}.
handle_info({'EXIT', Pid, Reason}, #state{timed = Timed} = State) when is_map_key(Pid, Timed) ->
    NewState = State#state{timed = maps:remove(Pid, Timed)},
    case Reason of
        normal -> {noreply, NewState};
        _ -> {stop, {shutdown, crash_reason(Reason)}, NewState}
    end;
handle_info({'EXIT', Pid, Reason}, #state{workers = Workers} = State) ->
    case lists:keytake(Pid, 1, Workers) of
        {value, _, Remaining} ->
            %% the worker is gone already: stopping the others must not wait for it
            {stop, {shutdown, crash_reason(Reason)}, State#state{workers = Remaining}};
        false ->
            {noreply, State}
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
%% Worker body: runs init_runner, then the continuous loop or one timed measurement.
-spec worker(module(), tuple(), term(), boolean(),
             {continuous, atomics:atomics_ref()} | {timed, gen_server:from(), pos_integer()}) ->
    no_return() | ok.
worker(Module, Context, InitResult, HasInitRunner, Mode) ->
    InitRunner = case HasInitRunner of
                     true -> guarded(init_runner, fun () -> Module:'erlperf call'(init_runner, InitResult, Context) end);
                     false -> undefined
                 end,
    case Mode of
        {continuous, Ref} ->
            guarded(runner, fun () -> Module:'erlperf run'(Ref, InitRunner, Context) end);
        {timed, From, Count} ->
            Nanoseconds = guarded(runner, fun () -> Module:'erlperf timed'(Count, InitRunner, Context) end),
            gen_server:reply(From, Nanoseconds)
    end.

guarded(Role, Fun) ->
    try Fun()
    catch Class:Reason:Stack -> exit({crashed, Role, {Class, Reason, Stack}})
    end.

spawn_worker(Mode, #state{module = Module, context = Context, init_result = Init, roles = Roles}) ->
    HasInitRunner = lists:member(init_runner, Roles),
    spawn_link(?MODULE, worker, [Module, Context, Init, HasInitRunner, Mode]).

%% Starts workers, or kills the newest ones, until N run.
resize(N, #state{workers = Workers} = State) when length(Workers) < N ->
    New = [begin
               Ref = new_counter(),
               {spawn_worker({continuous, Ref}, State), Ref}
           end || _ <- lists:seq(1, N - length(Workers))],
    State#state{workers = New ++ Workers};
resize(N, #state{workers = Workers, retired = Retired} = State) ->
    {Stopping, Remaining} = lists:split(length(Workers) - N, Workers),
    State#state{workers = Remaining, retired = Retired + stop_workers(Stopping)}.

%% Each worker's counter is the first slot of an array spanning two cache lines, so that
%% no two workers ever write to the same cache line.
new_counter() ->
    atomics:new(16, [{signed, false}]).

%% Kills workers, waits for them to exit, and returns what they had published.
stop_workers(Workers) ->
    kill_and_wait([Pid || {Pid, _} <- Workers]),
    lists:sum([atomics:get(Ref, 1) || {_, Ref} <- Workers]).

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

total(#state{workers = Workers, retired = Retired}) ->
    lists:foldl(fun ({_, Ref}, Acc) -> Acc + atomics:get(Ref, 1) end, Retired, Workers).

set_priority_flag(#state{workers = [], initial_priority = Initial} = State) ->
    _ = process_flag(priority, Initial),
    State;
set_priority_flag(#state{priority = Priority} = State) ->
    _ = process_flag(priority, Priority),
    State.

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

%% Stops everything once: workers (continuous and timed), then done, then the module.
finish(#state{done = true} = State) ->
    {ok, State};
finish(#state{workers = Workers, timed = Timed, init_result = Init, module = Module} = State) ->
    Retired = stop_workers(Workers),
    kill_and_wait(maps:keys(Timed)),
    Reply = case call_role(done, Init, State) of
                {ok, _} -> ok;
                {error, _} = Error -> Error
            end,
    unload(Module),
    {Reply, State#state{workers = [], timed = #{}, retired = State#state.retired + Retired,
                        done = true}}.

unload(Module) ->
    _ = code:delete(Module),
    _ = code:purge(Module),
    ok.

join_group() ->
    case whereis(?PG_SCOPE) of
        undefined -> ok;
        _ -> pg:join(?PG_SCOPE, ?PG_GROUP, self())
    end.
