%%% @doc The VM monitor: once per second, samples this node and publishes the sample.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>sample</b>: a map describing this node during the last interval (see
%%%       {@link sample()}): scheduler utilisation in percent (normal, dirty CPU, dirty
%%%       IO), process, port and ETS table counts, memory (total, processes, binaries,
%%%       ETS) and, for every running job, the iterations done during the interval.</li>
%%%   <li><b>job</b>: a member of the `pg' group `jobs' in scope `erlperf' on this node
%%%       (jobs join it themselves, see `erlperf_job').</li>
%%%   <li><b>subscriber</b>: a process that joined a `pg' group of scope `erlperf':
%%%       `{erlperf_monitor, Node}' receives the samples of `Node',
%%%       `{erlperf_monitor, all}' receives the samples of every node of the cluster
%%%       that runs the monitor. Subscribers may live on any node.</li>
%%% </ul>
%%% Every subscriber receives `{erlperf_monitor, Sample}' messages. A subscription lasts
%%% until {@link unsubscribe/1} or until the subscriber exits (`pg' removes it).
%%%
%%% Example (the `erlperf' application must run, it starts the monitor):
%%% ```
%%% {ok, _} = application:ensure_all_started(erlperf),
%%% ok = erlperf_monitor:subscribe(),
%%% receive {erlperf_monitor, #{sched_util := Util, jobs := Jobs}} -> {Util, Jobs} end.
%%% '''
%%%
%%% Cost and safety: the monitor turns scheduler wall time accounting on while it runs
%%% (`erlang:system_flag(scheduler_wall_time, true)'; the flag is reference counted per
%%% process, so it goes back to its previous state when the monitor stops). Each sample
%%% reads a few counters and asks every job for its total at once; a job that has not
%%% answered within ?JOBS_TIMEOUT_MS is left out of that sample (the others are kept),
%%% so a busy job never stalls the monitor. Samples are small maps sent to each
%%% subscriber once per interval.
-module(erlperf_monitor).
-behaviour(gen_server).

%% API: called by erlperf_sup (start_link), erlperf_file_log, erlperf_history and users.
-export([start_link/0, start_link/1, subscribe/0, subscribe/1,
         unsubscribe/0, unsubscribe/1, group/1]).

%% Behaviour callbacks: called by gen_server.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

-export_type([sample/0, options/0]).

%% pg scope shared with jobs and subscribers (started by erlperf_sup).
-define(SCOPE, erlperf).
%% pg group of the jobs this monitor samples.
-define(JOBS_GROUP, jobs).
%% Default milliseconds between two samples.
-define(DEFAULT_INTERVAL_MS, 1000).
%% Milliseconds the monitor waits for all jobs to answer `sample/1'.
-define(JOBS_TIMEOUT_MS, 200).

-type sample() :: #{
    version := 1,
    time := integer(),                  % erlang:system_time(millisecond) at sampling
    node := node(),
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

%% Options of start_link/1.
-type options() :: #{
    interval => pos_integer()           % milliseconds between samples [1000]
}.

-record(state, {
    interval :: pos_integer(),
    next :: integer(),                  % monotonic ms of the next sample
    sched :: [{pos_integer(), non_neg_integer(), non_neg_integer()}],
    totals = #{} :: #{pid() => non_neg_integer()}, % job iteration totals, last sample
    order = [] :: [pid()],              % jobs in the order first seen
    wall_flag :: boolean()              % scheduler_wall_time before the monitor started
}).

%%--------------------------------------------------------------------
%% API

%% @doc Starts the monitor with default options, registered as `erlperf_monitor'.
-spec start_link() -> gen_server:start_ret().
start_link() ->
    start_link(#{}).

%% @doc Starts the monitor with `Options' (see {@link options()}).
-spec start_link(options()) -> gen_server:start_ret().
start_link(Options) when is_map(Options) ->
    Interval = validate(Options),
    gen_server:start_link({local, ?MODULE}, ?MODULE, Interval, []).

%% @doc Subscribes the caller to the samples of this node.
-spec subscribe() -> ok.
subscribe() ->
    subscribe(node()).

%% @doc Subscribes the caller to the samples of `Node', or of every node with `all'.
%% Needs the `erlperf' scope (the application) running on this node.
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

%% @doc The `pg' group (scope `erlperf') receiving the samples of `Node' (or of all nodes).
-spec group(node() | all) -> {erlperf_monitor, node() | all}.
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
handle_cast(_Msg, State) ->
    {noreply, State}.

-spec handle_info(term(), #state{}) -> {noreply, #state{}}.
handle_info({timeout, _Ref, sample}, #state{interval = Interval, next = Next} = State) ->
    {Sample, NewState} = take_sample(State),
    publish(Sample),
    {noreply, schedule(NewState#state{next = Next + Interval})};
handle_info(_Msg, State) ->
    {noreply, State}.

-spec terminate(term(), #state{}) -> ok.
terminate(_Reason, #state{wall_flag = WallFlag}) ->
    _ = erlang:system_flag(scheduler_wall_time, WallFlag),
    ok.

%%--------------------------------------------------------------------
%% Internal functions

validate(Options) ->
    maps:foreach(fun validate_option/2, Options),
    maps:get(interval, Options, ?DEFAULT_INTERVAL_MS).

validate_option(interval, Ms) when is_integer(Ms), Ms > 0 -> ok;
validate_option(Key, Value) -> erlang:error({invalid_option, Key, Value}).

%% Absolute timer: samples do not drift when sampling takes time.
schedule(#state{next = Next} = State) ->
    _ = erlang:start_timer(Next, self(), sample, [{abs, true}]),
    State.

publish(Sample) ->
    Msg = {?MODULE, Sample},
    Members = pg:get_members(?SCOPE, group(node())) ++ pg:get_members(?SCOPE, group(all)),
    _ = [Pid ! Msg || Pid <- lists:usort(Members)],
    ok.

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

%% Iterations of each local job since the previous sample. A job seen for the first
%% time reports its total (it started during this interval, or the monitor did). A job
%% that did not answer in time is left out, its previous total kept.
jobs(#state{totals = Old, order = Order} = State) ->
    Members = pg:get_local_members(?SCOPE, ?JOBS_GROUP),
    Fresh = job_totals(Members),
    Totals = maps:merge(maps:with(Members, Old), Fresh),
    Known = [Pid || Pid <- Order, is_map_key(Pid, Totals)],
    NewOrder = Known ++ lists:sort([Pid || Pid <- maps:keys(Totals), not lists:member(Pid, Known)]),
    Jobs = [{Pid, maps:get(Pid, Fresh) - maps:get(Pid, Old, 0)}
            || Pid <- NewOrder, is_map_key(Pid, Fresh)],
    {Jobs, State#state{totals = Totals, order = NewOrder}}.

%% Totals of every job that answers within ?JOBS_TIMEOUT_MS: all are asked at once and
%% share the deadline, so that a busy job is left out alone and cannot stall the monitor
%% (a late answer arrives as a stray message, dropped by handle_info/2).
job_totals(Pids) ->
    Deadline = erlang:monotonic_time(millisecond) + ?JOBS_TIMEOUT_MS,
    Requests = [{Pid, erlperf_job:sample_request(Pid)} || Pid <- Pids],
    lists:foldl(
        fun ({Pid, Request}, Acc) ->
                Left = max(0, Deadline - erlang:monotonic_time(millisecond)),
                case gen_server:receive_response(Request, Left) of
                    {reply, Total} -> Acc#{Pid => Total};
                    _TimeoutOrDown -> Acc
                end
        end, #{}, Requests).
