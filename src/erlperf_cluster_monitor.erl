%%% @doc Prints selected fields of the monitor samples of every node of the cluster.
%%%
%%% Every `IntervalMs' milliseconds, takes the samples that arrived in the history
%%% (`erlperf_history', which must run) since the previous print, and hands them,
%%% ordered by node then time, to the handler:
%%% <ul>
%%%   <li>an io device (a pid such as `group_leader()', or a registered name): prints a
%%%       header naming the fields (first, then every ?HEADER_EVERY lines), then one
%%%       line per sample;</li>
%%%   <li>a file name: the same table, written to that file (created or truncated);</li>
%%%   <li>a `fun((Samples) -> any())' or `{Module, Function, Args}': called with the list
%%%       of samples, each a map reduced to the selected fields (applied as
%%%       `apply(Module, Function, [Samples | Args])'); not called when there is none.</li>
%%% </ul>
%%% Fields are keys of `erlperf_monitor:sample()': `time', `node', `sched_util', `dcpu',
%%% `dio', `processes', `ports', `ets', `memory_total', `memory_processes',
%%% `memory_binary', `memory_ets', `jobs' (printed as `Pid Iterations' pairs).
%%%
%%% Example, printing to the console and to a file:
%%% ```
%%% {ok, _} = erlperf_history:start_link(),
%%% {ok, _} = erlperf_cluster_monitor:start_link(group_leader(), 1000, [node, sched_util, jobs]),
%%% {ok, _} = erlperf_cluster_monitor:start_link("cluster.log", 1000, [time, node, sched_util, jobs]).
%%% '''
%%% prints, for two nodes each running a job:
%%% ```
%%% node                          sched_util jobs
%%% node1@host                         12.50 <0.214.0> 16720 Ki
%%% node2@host                         50.03 <9843.190.0> 55139 Ki
%%% '''
%%% Cost and safety: one call to the history and a few lines per interval; linked to the
%%% caller; a file it opened is closed when it stops.
-module(erlperf_cluster_monitor).
-behaviour(gen_server).

%% API: called by users.
-export([start_link/3, format/3, header/2]).

%% Behaviour callbacks: called by gen_server.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2]).

-export_type([handler/0, field/0]).

%% Lines printed between two repetitions of the header.
-define(HEADER_EVERY, 30).
%% Narrowest node column; it widens to the longest node name seen (with a new header).
-define(NODE_WIDTH, 28).

-type handler() :: io:device() | file:filename_all()
                 | fun(([map()]) -> any()) | {module(), atom(), [term()]}.
-type field() :: time | node | sched_util | dcpu | dio | processes | ports | ets
               | memory_total | memory_processes | memory_binary | memory_ets | jobs.

-record(state, {
    handler :: {device, io:device(), boolean()} | {callback, fun(([map()]) -> any())},
    interval :: pos_integer(),
    fields :: [field()],
    cursor = 0 :: erlperf_history:cursor(),
    node_width = ?NODE_WIDTH :: pos_integer(),
    lines = 0 :: non_neg_integer()      % lines printed since the last header
}).

%%--------------------------------------------------------------------
%% API

%% @doc Starts a monitor handing the `Fields' of every node's samples to `Handler' every
%% `IntervalMs' milliseconds. Needs `erlperf_history' running on this node.
-spec start_link(handler(), pos_integer(), [field(), ...]) -> gen_server:start_ret().
start_link(Handler, IntervalMs, Fields) ->
    validate(Handler, IntervalMs, Fields),
    gen_server:start_link(?MODULE, {Handler, IntervalMs, Fields}, []).

%% @doc The table line of a sample, with these fields and a node column `NodeWidth'
%% characters wide (no trailing newline or space).
-spec format([field()], pos_integer(), erlperf_monitor:sample()) -> string().
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
    case whereis(erlperf_history) =/= undefined andalso open(Handler) of
        false ->
            {stop, {no_history, "erlperf_history is not running"}};
        {ok, Open} ->
            {Cursor, _Old} = erlperf_history:poll(0),
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
    {Next, Samples} = erlperf_history:poll(Cursor),
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
valid_handler({M, F, A}) -> is_atom(M) andalso is_atom(F) andalso is_list(A);
valid_handler(H) when is_list(H) -> io_lib:char_list(H);
valid_handler(_) -> false.

is_field(F) ->
    lists:member(F, [time, node, sched_util, dcpu, dio, processes, ports, ets, memory_total,
                     memory_processes, memory_binary, memory_ets, jobs]).

open(Fun) when is_function(Fun, 1) ->
    {ok, {callback, Fun}};
open({M, F, A}) ->
    {ok, {callback, fun (Samples) -> erlang:apply(M, F, [Samples | A]) end}};
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
    lists:join($\s, [[pid_to_list(Pid), $\s, erlperf_report:format_count(N)] || {Pid, N} <- Jobs]);
cell(F, _NodeWidth, Value) when is_float(Value) ->
    io_lib:format("~*.2f", [width(F), Value]);
cell(F, _NodeWidth, Value) when F =:= processes; F =:= ports; F =:= ets ->
    io_lib:format("~*b", [width(F), Value]);
cell(F, _NodeWidth, Bytes) ->
    io_lib:format("~*s", [width(F), erlperf_report:format_size(Bytes)]).
