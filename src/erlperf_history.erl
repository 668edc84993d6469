%%% @doc Keeps the recent monitor samples of every node of the cluster.
%%%
%%% The history subscribes to the samples of all nodes (`pg' group
%%% `{erlperf_monitor, all}' of scope `erlperf', see `erlperf_monitor'); every node that
%%% runs the `erlperf' application and is connected to this one sends its samples once a
%%% second. Samples are kept for `duration' milliseconds after they arrive.
%%%
%%% Example (on `node1', with `node2' connected and running `erlperf' too):
%%% ```
%%% {ok, _} = application:ensure_all_started(erlperf),
%%% {ok, _} = erlperf_history:start_link(),
%%% Recent = erlperf_history:get(erlang:system_time(millisecond) - 5000).
%%% '''
%%% Readers that must not miss or repeat a sample (`erlperf_cluster_monitor') use
%%% {@link poll/1} with a cursor instead of times, since the clocks of nodes differ.
%%%
%%% Cost and safety: memory is bounded by time: about one small map per node per second
%%% of `duration' (default ?DEFAULT_DURATION_MS ms). Registered as `erlperf_history',
%%% linked to the caller.
-module(erlperf_history).
-behaviour(gen_server).

%% API: called by erlperf_cluster_monitor and users.
-export([start_link/0, start_link/1, get/0, get/1, get/2, poll/1]).

%% Behaviour callbacks: called by gen_server.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2]).

-export_type([options/0, cursor/0]).

%% Default milliseconds a sample is kept after it arrived.
-define(DEFAULT_DURATION_MS, 120000).
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
    samples = queue:new() :: queue:queue({cursor(), integer(), erlperf_monitor:sample()})
}).

%%--------------------------------------------------------------------
%% API

%% @doc Starts the history with default options, registered as `erlperf_history'.
-spec start_link() -> gen_server:start_ret().
start_link() ->
    start_link(#{}).

%% @doc Starts the history with `Options' (see {@link options()}).
-spec start_link(options()) -> gen_server:start_ret().
start_link(Options) when is_map(Options) ->
    Duration = validate(Options),
    gen_server:start_link({local, ?MODULE}, ?MODULE, Duration, []).

%% @doc All samples kept, oldest first.
-spec get() -> [erlperf_monitor:sample()].
get() ->
    get(0, infinity).

%% @doc Samples taken at or after `From' (`erlang:system_time(millisecond)' of the node
%% that took them), in arrival order.
-spec get(integer()) -> [erlperf_monitor:sample()].
get(From) ->
    get(From, infinity).

%% @doc Samples taken between `From' and `To' inclusive, in arrival order.
-spec get(integer(), integer() | infinity) -> [erlperf_monitor:sample()].
get(From, To) ->
    gen_server:call(?MODULE, {get, From, To}, ?CALL_TIMEOUT_MS).

%% @doc Samples that arrived since `Cursor' (start with 0) and the cursor to pass next.
-spec poll(cursor()) -> {cursor(), [erlperf_monitor:sample()]}.
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
handle_call({get, From, To}, _From, #state{samples = Samples} = State) ->
    Reply = [S || {_, _, #{time := T} = S} <- queue:to_list(Samples), T >= From, T =< To],
    {reply, Reply, State};
handle_call({poll, Cursor}, _From, #state{next = Next, samples = Samples} = State) ->
    Reply = [S || {Seq, _, S} <- queue:to_list(Samples), Seq >= Cursor],
    {reply, {Next, Reply}, State};
handle_call(_Request, _From, State) ->
    {reply, {error, badarg}, State}.

-spec handle_cast(term(), #state{}) -> {noreply, #state{}}.
handle_cast(_Msg, State) ->
    {noreply, State}.

-spec handle_info(term(), #state{}) -> {noreply, #state{}}.
handle_info({erlperf_monitor, Sample}, #state{next = Next, samples = Samples} = State) ->
    Now = erlang:monotonic_time(millisecond),
    Added = queue:in({Next, Now, Sample}, Samples),
    {noreply, State#state{next = Next + 1, samples = trim(Now - State#state.duration, Added)}};
handle_info(_Msg, State) ->
    {noreply, State}.

%%--------------------------------------------------------------------
%% Internal functions

validate(Options) ->
    maps:foreach(fun validate_option/2, Options),
    maps:get(duration, Options, ?DEFAULT_DURATION_MS).

validate_option(duration, Ms) when is_integer(Ms), Ms > 0 -> ok;
validate_option(Key, Value) -> erlang:error({invalid_option, Key, Value}).

%% Drops samples that arrived before `Oldest'.
trim(Oldest, Samples) ->
    case queue:peek(Samples) of
        {value, {_, Arrived, _}} when Arrived < Oldest -> trim(Oldest, queue:drop(Samples));
        _ -> Samples
    end.
