%%% @doc The VM monitor: once per interval (a second by default), samples this node and the
%%% jobs it knows of, and sends the sample to every subscriber.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>sample</b>: a map describing this node during the last interval (see
%%%       {@link monitor_sample()}): scheduler utilisation in percent (normal, dirty CPU,
%%%       dirty IO), process, port and ETS table counts, memory (total, processes,
%%%       binaries, ETS) and, under `jobs', the iterations each job did during the
%%%       interval.</li>
%%%   <li><b>job</b>: a process whose iteration total the monitor reads through a
%%%       <b>sampling handle</b> with `erlperf_job:sample/1'. A job is known either by
%%%       {@link register/3} (with the handle it gives), or by being a member of the
%%%       `pg' group `jobs' in scope `erlperf' on this node, which every `erlperf_job'
%%%       joins (its handle is then asked of it once, with `erlperf_job:handle/1').
%%%       {@link unregister/1} removes a job by either route.</li>
%%%   <li><b>subscriber</b>: a process that joined, in scope `erlperf', the group
%%%       `{erlperf_monitor, Node}' (the samples of `Node') or the group `cluster_monitor'
%%%       (the samples of every node that runs a monitor). Subscribers may live on any
%%%       node; {@link subscribe/1} joins for the caller.</li>
%%% </ul>
%%% Each subscriber receives every sample as the message itself: a bare
%%% {@link monitor_sample()} map, whichever group it joined (a process in both groups gets
%%% one copy). The `node' key tells where a sample comes from.
%%%
%%% Example, in a shell (the `erlperf' application runs the monitor), with the first
%%% sample of a real run:
%%% ```
%%% 1> {ok, _} = application:ensure_all_started(erlperf).
%%% 2> ok = pg:join(erlperf, cluster_monitor, self()).
%%% 3> erlperf:run("rand:uniform().").
%%% 4814212
%%% 4> flush().
%%% Shell got #{dcpu => 0.0,dio => 0.16084526482267922,ets => 22,
%%%             jobs => [{<0.93.0>,4533759}],
%%%             memory_binary => 41008,memory_ets => 407352,
%%%             memory_processes => 5055264,memory_total => 18208104,
%%%             node => nonode@nohost,ports => 3,processes => 47,
%%%             sched_util => 48.42168420790628,time => 1795335437574,
%%%             version => 1}
%%% '''
%%% Any process can be sampled as a job with `erlperf_monitor:register(Pid, Handle, 0)';
%%% see {@link register/3}.
%%%
%%% Cost and safety: the monitor turns scheduler wall time accounting on while it runs
%%% (`erlang:system_flag(scheduler_wall_time, true)'; the flag is reference counted per
%%% process, so it goes back to its previous state when the monitor stops). Each sample
%%% reads a few VM counters and samples every job at once, each from a short-lived helper
%%% process; a job that has not answered within ?SAMPLE_TIMEOUT_MS is left out of that
%%% sample (its helper is killed), so a busy or dead job never stalls the monitor or
%%% blanks the others. A job found in the group is asked for its handle by the helper of
%%% the first sample that sees it, a call to its controller; later samples read its
%%% counters directly. Samples are small maps sent to each subscriber once per interval.
-module(erlperf_monitor).
-behaviour(gen_server).

%% API: called by erlperf_sup (start_link/0), erlperf_file_log and erlperf_cluster_history
%% (subscribe/0,1), and users (all, register/3 and unregister/1 among them).
-export([start/0, start/1, start_link/0, start_link/1, register/3, unregister/1,
         subscribe/0, subscribe/1, unsubscribe/0, unsubscribe/1, group/1]).

%% Behaviour callbacks: called by gen_server.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

-export_type([monitor_sample/0, sample/0, start_options/0, options/0, handle/0]).

%% pg scope shared with jobs and subscribers (started by erlperf_sup).
-define(SCOPE, erlperf).
%% pg group of the jobs this monitor finds by itself.
-define(JOBS_GROUP, jobs).
%% pg group receiving the samples of every node.
-define(CLUSTER_GROUP, cluster_monitor).
%% Default milliseconds between two samples.
%% Milliseconds the monitor waits for all jobs to report their totals.
-define(SAMPLE_TIMEOUT_MS, 200).

-type monitor_sample() :: #{
    version := 1,                       % shape of this map
    time := integer(),                  % erlang:system_time(millisecond) at sampling
    node := node(),                     % the node sampled
    sched_util := float(),              % normal schedulers, percent busy
    dcpu := float(),                    % dirty CPU schedulers, percent busy
    dio := float(),                     % dirty IO schedulers, percent busy
    processes := non_neg_integer(),
    ports := non_neg_integer(),
    ets := non_neg_integer(),           % ETS tables
    memory_total := non_neg_integer(),  % bytes, as erlang:memory/1
    memory_processes := non_neg_integer(),
    memory_binary := non_neg_integer(),
    memory_ets := non_neg_integer(),
    jobs := [{pid(), non_neg_integer()}] % iterations during the interval, oldest job first
}.

%% The name used before erlperf 2.3's `monitor_sample()' was adopted.
-type sample() :: monitor_sample().

%% Options of start/1 and start_link/1.
-type start_options() :: #{
    interval => pos_integer()           % milliseconds between samples [1000]
}.

-type options() :: start_options().

%% Whatever `erlperf_job:sample/1' accepts: the job's sampling handle, or its pid.
-type handle() :: erlperf_job:handle() | gen_server:server_ref().

-record(state, {
    interval :: pos_integer(),
    next :: integer(),                  % monotonic ms of the next sample
    sched :: [{pos_integer(), non_neg_integer(), non_neg_integer()}],
    %% jobs given by register/3: handle and monitor
    registered = #{} :: #{pid() => {handle(), reference()}},
    %% jobs removed by unregister/1, left out even when in the pg group, until they exit
    excluded = #{} :: #{pid() => reference()},
    %% handles of the jobs found in the pg group, once asked of them
    found = #{} :: #{pid() => handle()},
    totals = #{} :: #{pid() => non_neg_integer()}, % job totals at the last sample
    order = [] :: [pid()],              % jobs in the order first seen
    wall_flag :: boolean()              % scheduler_wall_time before the monitor started
}).

%%--------------------------------------------------------------------
%% API

%% @doc Starts the monitor with default options, registered as `erlperf_monitor' and not
%% linked to the caller.
-spec start() -> gen_server:start_ret().
start() ->
    start(#{}).

%% @doc Starts the monitor with `Options' (see {@link start_options()}), registered as
%% `erlperf_monitor' and not linked to the caller.
-spec start(start_options()) -> gen_server:start_ret().
start(Options) when is_map(Options) ->
    gen_server:start({local, ?MODULE}, ?MODULE, validate(Options), []).

%% @doc Starts the monitor with default options, registered as `erlperf_monitor' and
%% linked to the caller.
-spec start_link() -> gen_server:start_ret().
start_link() ->
    start_link(#{}).

%% @doc Starts the monitor with `Options' (see {@link start_options()}), linked to the
%% caller.
-spec start_link(start_options()) -> gen_server:start_ret().
start_link(Options) when is_map(Options) ->
    gen_server:start_link({local, ?MODULE}, ?MODULE, validate(Options), []).

%% @doc Adds a job to the samples: from the next sample on, `jobs' holds `{Job, N}' where
%% `N' is the growth of `erlperf_job:sample(Handle)' since the previous sample.
%% `Initial' is the total the first difference is taken from (0 for a new job; a job's
%% current total to leave out what it did before). The monitor watches `Job' and forgets
%% it when it exits. Registering a job again replaces its handle and initial total.
%% Returns `ok' at once, also when no monitor runs.
-spec register(pid(), handle(), non_neg_integer()) -> ok.
register(Job, Handle, Initial) when is_pid(Job), is_integer(Initial), Initial >= 0 ->
    gen_server:cast(?MODULE, {register, Job, Handle, Initial}).

%% @doc Removes a job from the samples, whether it was registered or found in the `pg'
%% group `jobs' (it stays out until it exits or is registered again). Returns `ok' at
%% once, also when no monitor runs or the job is unknown.
-spec unregister(pid()) -> ok.
unregister(Job) when is_pid(Job) ->
    gen_server:cast(?MODULE, {unregister, Job}).

%% @doc Subscribes the caller to the samples of this node.
-spec subscribe() -> ok.
subscribe() ->
    subscribe(node()).

%% @doc Subscribes the caller to the samples of `Node', or of every node with `all' (the
%% group `cluster_monitor'). Needs the `erlperf' scope (the application) on this node.
-spec subscribe(node() | all) -> ok.
subscribe(Node) when is_atom(Node) ->
    pg:join(?SCOPE, group(Node), self()).

%% @doc Cancels {@link subscribe/0}.
-spec unsubscribe() -> ok | not_joined.
unsubscribe() ->
    unsubscribe(node()).

%% @doc Cancels {@link subscribe/1}.
-spec unsubscribe(node() | all) -> ok | not_joined.
unsubscribe(Node) when is_atom(Node) ->
    pg:leave(?SCOPE, group(Node), self()).

%% @doc The `pg' group (scope `erlperf') receiving the samples of `Node', or of all nodes.
-spec group(node() | all) -> {erlperf_monitor, node()} | cluster_monitor.
group(all) ->
    ?CLUSTER_GROUP;
group(Node) ->
    {?MODULE, Node}.

%%--------------------------------------------------------------------
%% Behaviour callbacks

-spec init(pos_integer()) -> {ok, #state{}}.
init(Interval) ->
    WallFlag = erlang:system_flag(scheduler_wall_time, true),
    Now = erlang:monotonic_time(millisecond),
    State = #state{interval = Interval, next = Now + Interval,
                   sched = sched_times(), wall_flag = WallFlag},
    {ok, schedule(State)}.

-spec handle_call(term(), gen_server:from(), #state{}) -> {reply, {error, badarg}, #state{}}.
handle_call(_Request, _From, State) ->
    {reply, {error, badarg}, State}.

-spec handle_cast(term(), #state{}) -> {noreply, #state{}}.
handle_cast({register, Job, Handle, Initial}, State) ->
    #state{registered = Registered, totals = Totals} = Cleared = forget(Job, State),
    Ref = erlang:monitor(process, Job),
    {noreply, Cleared#state{registered = Registered#{Job => {Handle, Ref}},
                            totals = Totals#{Job => Initial}}};
handle_cast({unregister, Job}, State) ->
    #state{excluded = Excluded} = Cleared = forget(Job, State),
    Ref = erlang:monitor(process, Job),
    {noreply, Cleared#state{excluded = Excluded#{Job => Ref}}};
handle_cast(_Msg, State) ->
    {noreply, State}.

-spec handle_info(term(), #state{}) -> {noreply, #state{}}.
handle_info({timeout, _Ref, sample}, #state{interval = Interval, next = Next} = State) ->
    {Sample, NewState} = take_sample(State),
    publish(Sample),
    {noreply, schedule(NewState#state{next = Next + Interval})};
handle_info({'DOWN', _Ref, process, Job, _Reason}, State) ->
    {noreply, forget(Job, State)};
handle_info(_Msg, State) ->
    {noreply, State}.

-spec terminate(term(), #state{}) -> ok.
terminate(_Reason, #state{wall_flag = WallFlag}) ->
    _ = erlang:system_flag(scheduler_wall_time, WallFlag),
    ok.

%%--------------------------------------------------------------------
%% Internal functions

validate(Options) ->
    maps:get(interval, erlperf_options:check(monitor, Options)).

%% Drops everything known of a job: registration, exclusion, handle found, last total.
forget(Job, #state{registered = Registered, excluded = Excluded, found = Found,
                   totals = Totals, order = Order} = State) ->
    _ = [erlang:demonitor(Ref, [flush]) || {_, Ref} <- maps:values(maps:with([Job], Registered))],
    _ = [erlang:demonitor(Ref, [flush]) || Ref <- maps:values(maps:with([Job], Excluded))],
    State#state{registered = maps:remove(Job, Registered), excluded = maps:remove(Job, Excluded),
                found = maps:remove(Job, Found), totals = maps:remove(Job, Totals),
                order = lists:delete(Job, Order)}.

%% Absolute timer: samples do not drift when sampling takes time.
schedule(#state{next = Next} = State) ->
    _ = erlang:start_timer(Next, self(), sample, [{abs, true}]),
    State.

publish(Sample) ->
    Members = members(fun pg:get_members/2, group(node())) ++ members(fun pg:get_members/2, ?CLUSTER_GROUP),
    _ = [Pid ! Sample || Pid <- lists:usort(Members)],
    ok.

%% Members of a group of the scope; none when the scope does not run (a monitor started
%% with start/0,1 outside the application).
members(Get, Group) ->
    case whereis(?SCOPE) of
        undefined -> [];
        _ -> Get(?SCOPE, Group)
    end.

take_sample(#state{sched = OldSched} = State) ->
    Sched = sched_times(),
    {Normal, Dcpu, Dio} = utilisation(OldSched, Sched),
    {Jobs, NewState} = jobs(State),
    Sample = maps:merge(vm_counts(), #{
        version => 1, time => erlang:system_time(millisecond), node => node(),
        sched_util => Normal, dcpu => Dcpu, dio => Dio, jobs => Jobs}),
    {Sample, NewState#state{sched = Sched}}.

vm_counts() ->
    [{total, Total}, {processes, Procs}, {binary, Bin}, {ets, Ets}] =
        erlang:memory([total, processes, binary, ets]),
    #{processes => erlang:system_info(process_count),
      ports => erlang:system_info(port_count),
      ets => erlang:system_info(ets_count),
      memory_total => Total, memory_processes => Procs,
      memory_binary => Bin, memory_ets => Ets}.

%% Active and total wall time of every scheduler (normal, dirty CPU, dirty IO), by id.
sched_times() ->
    case erlang:statistics(scheduler_wall_time_all) of
        undefined -> [];
        Times -> lists:sort(Times)
    end.

%% Busy percentage of each scheduler kind between two readings.
utilisation(Old, New) ->
    Normal = erlang:system_info(schedulers),
    Dcpu = erlang:system_info(dirty_cpu_schedulers),
    Add = fun ({Id, A0, T0}, {Id, A1, T1}, Acc) ->
                  maps:update_with(kind(Id, Normal, Dcpu),
                                   fun ({A, T}) -> {A + A1 - A0, T + T1 - T0} end, Acc)
          end,
    Totals = lists:foldl(fun ({O, N}, Acc) -> Add(O, N, Acc) end,
                         #{normal => {0, 0}, dcpu => {0, 0}, dio => {0, 0}},
                         lists:zip(Old, New)),
    {percent(maps:get(normal, Totals)), percent(maps:get(dcpu, Totals)),
     percent(maps:get(dio, Totals))}.

kind(Id, Normal, _Dcpu) when Id =< Normal -> normal;
kind(Id, Normal, Dcpu) when Id =< Normal + Dcpu -> dcpu;
kind(_Id, _Normal, _Dcpu) -> dio.

percent({_Active, 0}) -> 0.0;
percent({Active, Total}) -> 100.0 * Active / Total.

%% Iterations of each job since the previous sample: the registered jobs, and the local
%% members of the pg group that are neither registered nor excluded (their handle is
%% asked of them the first time). A job seen for the first time reports its growth from
%% its initial total (0 for one found in the group). A job that did not answer in time
%% is left out, its previous total kept.
jobs(#state{registered = Registered, excluded = Excluded, found = Given, totals = Old,
            order = Order} = State) ->
    Members = [Pid || Pid <- members(fun pg:get_local_members/2, ?JOBS_GROUP),
                      not is_map_key(Pid, Registered), not is_map_key(Pid, Excluded)],
    Found = [{Pid, found_handle(Pid, Given)} || Pid <- Members],
    Handles = Found ++ [{Pid, {handle, Handle}} || {Pid, {Handle, _Ref}} <- maps:to_list(Registered)],
    {Fresh, Resolved} = job_totals(Handles),
    Known = maps:with([Pid || {Pid, _} <- Handles], Old),
    Totals = maps:merge(Known, Fresh),
    Kept = [Pid || Pid <- Order, is_map_key(Pid, Totals)],
    NewOrder = Kept ++ lists:sort([Pid || {Pid, _} <- Handles, not lists:member(Pid, Kept)]),
    Jobs = [{Pid, max(0, maps:get(Pid, Fresh) - maps:get(Pid, Old, 0))}
            || Pid <- NewOrder, is_map_key(Pid, Fresh)],
    {Jobs, State#state{totals = Totals, order = NewOrder,
                       found = maps:with(Members, maps:merge(Given, Resolved))}}.

%% How a found job is sampled: through the handle it gave, or by asking it first.
found_handle(Pid, Given) ->
    case Given of
        #{Pid := Handle} -> {handle, Handle};
        #{} -> {ask, Pid}
    end.

%% Totals of every job that answers within ?SAMPLE_TIMEOUT_MS, and the handles found
%% jobs gave. Each job is sampled by a helper process of its own, all at once under one
%% deadline, so that a job that is busy (a pid as handle, or a found job asked for its
%% handle, means a call to it) or gone is left out alone. Helpers still running at the
%% deadline are killed; an answer arriving later is dropped by handle_info/2.
job_totals(Handles) ->
    Deadline = erlang:monotonic_time(millisecond) + ?SAMPLE_TIMEOUT_MS,
    Self = self(),
    Helpers = maps:from_list([{Helper, {Job, Ref}}
                              || {Job, How} <- Handles,
                                 {Helper, Ref} <- [spawn_monitor(sampler(Self, How))]]),
    collect(Helpers, Deadline, {#{}, #{}}).

sampler(Monitor, How) ->
    fun () ->
            Reading = try read(How)
                      catch _:_ -> undefined
                      end,
            Monitor ! {?MODULE, self(), Reading}
    end.

%% The job's total and the handle it was read through.
read({ask, Job}) ->
    Handle = erlperf_job:handle(Job),
    {erlperf_job:sample(Handle), Handle};
read({handle, Handle}) ->
    {erlperf_job:sample(Handle), Handle}.

collect(Helpers, _Deadline, Acc) when map_size(Helpers) =:= 0 ->
    Acc;
collect(Helpers, Deadline, {Totals, Resolved} = Acc) ->
    Left = max(0, Deadline - erlang:monotonic_time(millisecond)),
    receive
        {?MODULE, Helper, Reading} when is_map_key(Helper, Helpers) ->
            {{Job, Ref}, Rest} = maps:take(Helper, Helpers),
            erlang:demonitor(Ref, [flush]),
            case Reading of
                {Total, Handle} when is_integer(Total), Total >= 0 ->
                    collect(Rest, Deadline, {Totals#{Job => Total}, Resolved#{Job => Handle}});
                _ ->
                    collect(Rest, Deadline, Acc)  % undefined: the job is gone
            end;
        {'DOWN', _Ref, process, Helper, _Reason} when is_map_key(Helper, Helpers) ->
            collect(maps:remove(Helper, Helpers), Deadline, Acc)
    after Left ->
        _ = [begin
                 exit(Helper, kill),
                 erlang:demonitor(Ref, [flush])
             end || {Helper, {_Job, Ref}} <- maps:to_list(Helpers)],
        Acc
    end.
