%%% @doc Prints, or hands to a callback, selected fields of the monitor samples of every
%%% node of the cluster.
%%%
%%% Every `IntervalMs' milliseconds, takes the samples that arrived in the history
%%% (`erlperf_cluster_history', which must run on this node) since the previous interval, and
%%% hands them, ordered by node then time, to the handler:
%%% <ul>
%%%   <li>an io device (a pid such as `group_leader()', or a registered name such as
%%%       `user'), or `{fd, IoDevice}': prints a header naming the fields (first, then
%%%       every ?HEADER_EVERY lines), then one line per sample;</li>
%%%   <li>a file name: the same table, written to that file (created or truncated, and
%%%       closed when the monitor stops);</li>
%%%   <li>`{Module, Function, UserState}': calls `Module:Function(Samples, UserState)'
%%%       with the samples as `[{Time, Sample}]' (`Time' is the sample's `time'; `Sample'
%%%       holds only the fields asked for), and keeps what it returns as the `UserState'
%%%       of the next call; not called for an interval without samples;</li>
%%%   <li>a `fun((Samples) -> any())': called with the list of samples, each reduced to the
%%%       fields asked for; not called for an interval without samples.</li>
%%% </ul>
%%% Fields are keys of `erlperf_monitor:monitor_sample()': `time', `node', `sched_util',
%%% `dcpu', `dio', `processes', `ports', `ets', `memory_total', `memory_processes',
%%% `memory_binary', `memory_ets', `jobs' (printed as `Pid Iterations' pairs); `undefined'
%%% selects all of them, in this order.
%%%
%%% Example: all fields to the console, some to a file, and to a callback counting samples
%%% (`my_stats:add(Samples, Count) -> Count + length(Samples).'):
%%% ```
%%% {ok, _} = application:ensure_all_started(erlperf),
%%% {ok, _} = erlperf_cluster_history:start_link(),
%%% {ok, _} = erlperf_cluster_monitor:start_link(),
%%% {ok, _} = erlperf_cluster_monitor:start_link("cluster.log", 1000, [time, node, sched_util, jobs]),
%%% {ok, _} = erlperf_cluster_monitor:start_link({my_stats, add, 0}, 1000, [node, jobs]).
%%% '''
%%% Cost and safety: one call to the history and a few lines per interval; linked to the
%%% caller; a file it opened is closed when it stops. A callback runs in the monitor
%%% process: if it raises, the monitor stops (and its caller gets the exit signal).
-module(erlperf_cluster_monitor).
-behaviour(gen_server).

%% API: called by users.
-export([start_link/0, start_link/3, fields/0, format/3, header/2]).

%% Behaviour callbacks: called by gen_server.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

-export_type([handler/0, field/0]).

%% Lines printed between two repetitions of the header.
-define(HEADER_EVERY, 30).
%% Narrowest node column; it widens to the longest node name seen (with a new header).
-define(NODE_WIDTH, 28).
%% Milliseconds between two outputs of start_link/0.
%% Every field, in the order `Fields = undefined' prints them.
-define(ALL_FIELDS, [time, node, sched_util, dcpu, dio, processes, ports, ets, memory_total,
                     memory_processes, memory_binary, memory_ets, jobs]).

%% Where the samples go; see the module documentation.
-type handler() :: io:device() | {fd, io:device()} | file:filename_all()
                 | {module(), atom(), UserState :: term()} | fun(([map()]) -> any()).
-type field() :: time | node | sched_util | dcpu | dio | processes | ports | ets
               | memory_total | memory_processes | memory_binary | memory_ets | jobs.

-record(state, {
    handler :: {device, io:device(), boolean()} | {callback, fun(([map()]) -> any())}
             | {mfa, module(), atom(), term()},
    interval :: pos_integer(),
    fields :: [field()],
    cursor = 0 :: erlperf_cluster_history:cursor(),
    node_width = ?NODE_WIDTH :: pos_integer(),
    lines = 0 :: non_neg_integer()      % lines printed since the last header
}).

%%--------------------------------------------------------------------
%% API

%% @doc Starts a monitor printing every field of every node's samples to the caller's
%% group leader (the console) once a second: `start_link(group_leader(), 1000, undefined)'.
-spec start_link() -> gen_server:start_ret().
start_link() ->
    start_link(group_leader(), maps:get(interval, erlperf_options:defaults(monitor)), undefined).

%% @doc Starts a monitor, linked to the caller, handing the `Fields' of every node's
%% samples to `Handler' every `IntervalMs' milliseconds (`Fields = undefined': all of
%% {@link fields/0}). Needs `erlperf_cluster_history' running on this node: returns
%% `{error, {no_history, Text}}' otherwise.
-spec start_link(handler(), pos_integer(), [field(), ...] | undefined) -> gen_server:start_ret().
start_link(Handler, IntervalMs, undefined) ->
    start_link(Handler, IntervalMs, fields());
start_link(Handler, IntervalMs, Fields) ->
    validate(Handler, IntervalMs, Fields),
    gen_server:start_link(?MODULE, {Handler, IntervalMs, Fields}, []).

%% @doc Every field a monitor can show, in the order `Fields = undefined' shows them.
-spec fields() -> [field(), ...].
fields() ->
    ?ALL_FIELDS.

%% @doc The table line of a sample, with these fields and a node column `NodeWidth'
%% characters wide (no trailing newline or space).
-spec format([field()], pos_integer(), erlperf_monitor:monitor_sample()) -> string().
format(Fields, NodeWidth, Sample) ->
    Cells = [cell(F, NodeWidth, maps:get(F, Sample)) || F <- Fields],
    string:trim(lists:flatten(lists:join($\s, Cells)), trailing).

%% @doc The header line naming these fields (no trailing newline or space).
-spec header([field()], pos_integer()) -> string().
header(Fields, NodeWidth) ->
    string:trim(lists:flatten(lists:join($\s, [title(F, NodeWidth) || F <- Fields])), trailing).

%%--------------------------------------------------------------------
%% Behaviour callbacks

-spec init({handler(), pos_integer(), [field()]}) -> {ok, #state{}} | {stop, term()}.
init({Handler, IntervalMs, Fields}) ->
    %% the history first: opening a file would truncate it
    case whereis(erlperf_cluster_history) =/= undefined andalso open(Handler) of
        false ->
            {stop, {no_history, "erlperf_cluster_history is not running"}};
        {ok, Open} ->
            {Cursor, _Old} = erlperf_cluster_history:poll(0),
            _ = erlang:send_after(IntervalMs, self(), tick),
            {ok, #state{handler = Open, interval = IntervalMs, fields = Fields,
                        cursor = Cursor}};
        {error, Reason} ->
            {stop, {open, Handler, Reason}}
    end.

-spec handle_call(term(), gen_server:from(), #state{}) -> {reply, {error, badarg}, #state{}}.
handle_call(_Request, _From, State) ->
    {reply, {error, badarg}, State}.

-spec handle_cast(term(), #state{}) -> {noreply, #state{}}.
handle_cast(_Msg, State) ->
    {noreply, State}.

-spec handle_info(term(), #state{}) -> {noreply, #state{}}.
handle_info(tick, #state{cursor = Cursor, interval = Interval} = State) ->
    _ = erlang:send_after(Interval, self(), tick),
    {Next, Samples} = erlperf_cluster_history:poll(Cursor),
    Sorted = lists:sort(fun by_node_time/2, Samples),
    {noreply, output(Sorted, State#state{cursor = Next})};
handle_info(_Msg, State) ->
    {noreply, State}.

-spec terminate(term(), #state{}) -> ok.
terminate(_Reason, #state{handler = {device, Device, true}}) ->
    _ = file:close(Device),
    ok;
terminate(_Reason, #state{}) ->
    ok.

%%--------------------------------------------------------------------
%% Internal functions

validate(Handler, IntervalMs, Fields) ->
    valid_handler(Handler) orelse erlang:error({invalid_option, handler, Handler}),
    (is_integer(IntervalMs) andalso IntervalMs > 0)
        orelse erlang:error({invalid_option, interval, IntervalMs}),
    (is_list(Fields) andalso Fields =/= [] andalso lists:all(fun is_field/1, Fields))
        orelse erlang:error({invalid_option, fields, Fields}),
    ok.

valid_handler(H) when is_pid(H); is_atom(H); is_binary(H); is_function(H, 1) -> true;
valid_handler({fd, Device}) -> is_pid(Device) orelse is_atom(Device);
valid_handler({M, F, _UserState}) -> is_atom(M) andalso is_atom(F);
valid_handler(H) when is_list(H) -> io_lib:char_list(H);
valid_handler(_) -> false.

is_field(F) ->
    lists:member(F, ?ALL_FIELDS).

open(Fun) when is_function(Fun, 1) ->
    {ok, {callback, Fun}};
open({fd, Device}) ->
    {ok, {device, Device, false}};
open({M, F, UserState}) ->
    {ok, {mfa, M, F, UserState}};
open(Target) ->
    case erlperf_file_log:open(Target) of
        {ok, Device, Close} -> {ok, {device, Device, Close}};
        {error, _} = Error -> Error
    end.

by_node_time(#{node := N, time := T1}, #{node := N, time := T2}) -> T1 =< T2;
by_node_time(#{node := N1}, #{node := N2}) -> N1 =< N2.

output([], State) ->
    State;
output(Samples, #state{handler = {callback, Fun}, fields = Fields} = State) ->
    _ = Fun([maps:with(Fields, S) || S <- Samples]),
    State;
output(Samples, #state{handler = {mfa, M, F, UserState}, fields = Fields} = State) ->
    Next = M:F([{T, maps:with(Fields, S)} || #{time := T} = S <- Samples], UserState),
    State#state{handler = {mfa, M, F, Next}};
output(Samples, #state{handler = {device, Device, _}, fields = Fields, lines = Lines,
                       node_width = OldWidth} = State) ->
    Width = lists:max([OldWidth | [length(atom_to_list(N)) || #{node := N} <- Samples]]),
    Text = [[format(Fields, Width, S), $\n] || S <- Samples],
    case Lines =:= 0 orelse Lines >= ?HEADER_EVERY orelse Width > OldWidth of
        true ->
            ok = io:put_chars(Device, [header(Fields, Width), $\n, Text]),
            State#state{lines = length(Samples), node_width = Width};
        false ->
            ok = io:put_chars(Device, Text),
            State#state{lines = Lines + length(Samples)}
    end.

title(time, _NodeWidth) -> io_lib:format("~-25s", ["time"]);
title(node, NodeWidth) -> string:pad("node", NodeWidth);
title(jobs, _NodeWidth) -> "jobs";
title(Field, _NodeWidth) -> io_lib:format("~*s", [width(Field), atom_to_list(Field)]).

width(F) when F =:= sched_util; F =:= dcpu; F =:= dio -> 10;
width(F) when F =:= processes; F =:= ports; F =:= ets -> 9;
width(_Memory) -> 16.

cell(time, _NodeWidth, Ms) ->
    calendar:system_time_to_rfc3339(Ms div 1000, [{unit, second}]);
cell(node, NodeWidth, Node) ->
    string:pad(atom_to_list(Node), NodeWidth);  % io_lib would cut a longer name
cell(jobs, _NodeWidth, Jobs) ->
    lists:join($\s, [[pid_to_list(Pid), $\s, erlperf_units:count(N)] || {Pid, N} <- Jobs]);
cell(F, _NodeWidth, Value) when is_float(Value) ->
    io_lib:format("~*.2f", [width(F), Value]);
cell(F, _NodeWidth, Value) when F =:= processes; F =:= ports; F =:= ets ->
    io_lib:format("~*b", [width(F), Value]);
cell(F, _NodeWidth, Bytes) ->
    io_lib:format("~*s", [width(F), erlperf_units:size(Bytes)]).
