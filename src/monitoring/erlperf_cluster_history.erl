%%% @doc Keeps the recent monitor samples of every node of the cluster, to be read back by
%%% time.
%%%
%%% The history joins the `pg' group `cluster_monitor' of scope `erlperf' (see
%%% `erlperf_monitor'): every node that runs the `erlperf' application and is connected to
%%% this one sends it a sample once a second. A sample is kept for `Duration' milliseconds
%%% after it arrived, then dropped.
%%%
%%% Example (on `node1', with `node2' connected and running `erlperf' too):
%%% ```
%%% {ok, _} = application:ensure_all_started(erlperf),
%%% {ok, _} = erlperf_cluster_history:start_link(60000),        % keep samples for a minute
%%% Now = erlang:system_time(millisecond),
%%% [{Time, #{node := Node, sched_util := Util}} | _] = erlperf_cluster_history:get(Now - 5000).
%%% '''
%%% {@link get/1} and {@link get/2} select by the time a sample was taken on its own node.
%%% Readers that must not miss or repeat a sample (`erlperf_cluster_monitor') use
%%% {@link poll/1} with a cursor instead, since the clocks of nodes differ.
%%%
%%% Cost and safety: memory is bounded by time: about one small map per node per second
%%% of `Duration' (default 120000 ms, from `erlperf_options'). Registered as `erlperf_cluster_history',
%%% linked to the caller.
-module(erlperf_cluster_history).
-behaviour(gen_server).

%% API: called by erlperf_cluster_monitor and users.
-export([start_link/0, start_link/1, get/0, get/1, get/2, poll/1]).

%% Behaviour callbacks: called by gen_server.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2]).

-export_type([options/0, cursor/0]).

%% Default milliseconds a sample is kept after it arrived.
%% Milliseconds a caller waits for the history to answer.
-define(CALL_TIMEOUT_MS, 5000).

%% Options of start_link/1.
-type options() :: #{
    duration => pos_integer()           % milliseconds samples are kept [120000]
}.

%% Position in the history: {@link poll/1} returns the samples that arrived after it.
-type cursor() :: non_neg_integer().

-record(state, {
    duration :: pos_integer(),
    next = 0 :: cursor(),               % sequence number of the next sample
    %% {Sequence, arrival monotonic ms, Sample}, oldest first
    samples = queue:new() :: queue:queue({cursor(), integer(), erlperf_monitor:monitor_sample()})
}).

%%--------------------------------------------------------------------
%% API

%% @doc Starts the history keeping samples for the default duration (120000 ms), registered as
%% `erlperf_cluster_history'.
-spec start_link() -> gen_server:start_ret().
start_link() ->
    start_link(#{}).

%% @doc Starts the history keeping samples for `DurationMs' milliseconds, or with
%% `Options' (see {@link options()}).
-spec start_link(DurationMs :: pos_integer() | options()) -> gen_server:start_ret().
start_link(DurationMs) when is_integer(DurationMs) ->
    start_link(#{duration => DurationMs});
start_link(Options) when is_map(Options) ->
    #{duration := Duration} = erlperf_options:check(cluster_history, Options),
    gen_server:start_link({local, ?MODULE}, ?MODULE, Duration, []).

%% @doc Every sample kept, as `{Time, Sample}' sorted by time (`Time' is the sample's
%% `time', then by node).
-spec get() -> [{integer(), erlperf_monitor:monitor_sample()}].
get() ->
    get(0, infinity).

%% @doc The samples taken from `From' until now, as `{Time, Sample}' sorted by time.
%% `From' and `Time' are wall clock milliseconds (`erlang:system_time(millisecond)'; a
%% sample's time is read on the node that took it).
-spec get(From :: integer()) -> [{integer(), erlperf_monitor:monitor_sample()}].
get(From) ->
    get(From, erlang:system_time(millisecond)).

%% @doc The samples taken between `From' and `To' inclusive (wall clock milliseconds;
%% `infinity': no upper bound), as `{Time, Sample}' sorted by time.
-spec get(From :: integer(), To :: integer() | infinity) ->
    [{integer(), erlperf_monitor:monitor_sample()}].
get(From, To) when is_integer(From), is_integer(To) orelse To =:= infinity ->
    gen_server:call(?MODULE, {get, From, To}, ?CALL_TIMEOUT_MS).

%% @doc Samples that arrived since `Cursor' (start with 0), in arrival order, and the
%% cursor to pass next.
-spec poll(cursor()) -> {cursor(), [erlperf_monitor:monitor_sample()]}.
poll(Cursor) when is_integer(Cursor), Cursor >= 0 ->
    gen_server:call(?MODULE, {poll, Cursor}, ?CALL_TIMEOUT_MS).

%%--------------------------------------------------------------------
%% Behaviour callbacks

-spec init(pos_integer()) -> {ok, #state{}}.
init(Duration) ->
    ok = erlperf_monitor:subscribe(all),
    {ok, #state{duration = Duration}}.

-spec handle_call(term(), gen_server:from(), #state{}) ->
    {reply, term(), #state{}}.
handle_call({get, From, To}, _From, State) ->
    #state{samples = Samples} = Trimmed = trim(State),
    Selected = [{T, S} || {_, _, #{time := T} = S} <- queue:to_list(Samples),
                          T >= From, To =:= infinity orelse T =< To],
    {reply, lists:sort(fun by_time_node/2, Selected), Trimmed};
handle_call({poll, Cursor}, _From, State) ->
    #state{next = Next, samples = Samples} = Trimmed = trim(State),
    Reply = [S || {Seq, _, S} <- queue:to_list(Samples), Seq >= Cursor],
    {reply, {Next, Reply}, Trimmed};
handle_call(_Request, _From, State) ->
    {reply, {error, badarg}, State}.

-spec handle_cast(term(), #state{}) -> {noreply, #state{}}.
handle_cast(_Msg, State) ->
    {noreply, State}.

-spec handle_info(term(), #state{}) -> {noreply, #state{}}.
handle_info(#{time := Time, node := Node} = Sample, #state{next = Next, samples = Samples} = State)
  when is_integer(Time), is_atom(Node) ->
    Now = erlang:monotonic_time(millisecond),
    Added = queue:in({Next, Now, Sample}, Samples),
    {noreply, trim(State#state{next = Next + 1, samples = Added})};
handle_info(_Msg, State) ->
    {noreply, State}.

%%--------------------------------------------------------------------
%% Internal functions


%% Drops the samples that arrived more than `duration' ms ago.
trim(#state{duration = Duration, samples = Samples} = State) ->
    State#state{samples = drop_before(erlang:monotonic_time(millisecond) - Duration, Samples)}.

drop_before(Oldest, Samples) ->
    case queue:peek(Samples) of
        {value, {_, Arrived, _}} when Arrived < Oldest -> drop_before(Oldest, queue:drop(Samples));
        _ -> Samples
    end.

%% lists:sort/2 is stable: samples of one node at one millisecond stay in arrival order.
by_time_node({T1, #{node := N1}}, {T2, #{node := N2}}) ->
    {T1, N1} =< {T2, N2}.
