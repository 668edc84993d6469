%%% @doc The cluster monitor's handlers and fields, on this node.
%%%
%%% The application's monitor is stopped for the whole suite: the cases send the history
%%% samples they made themselves, so that every line and every callback argument is known
%%% exactly. Output reaches the cases as messages: callbacks send them, and io devices are
%%% capturing io servers (`erlperf_test_lib:capture/0') that forward each line.
%%% Multi-node monitoring is in `erlperf_cluster_SUITE'.
-module(erlperf_cluster_monitor_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1,
         init_per_testcase/2, end_per_testcase/2]).
-export([console_default/0, mfa_state/0, mfa_all_fields/0, fd_device/0, io_device/0,
         file_name/0, fun_handler/0, no_history/0, invalid_arguments/0]).
-export([console_default/1, mfa_state/1, mfa_all_fields/1, fd_device/1, io_device/1,
         file_name/1, fun_handler/1, no_history/1, invalid_arguments/1]).

%% Callback of the {Module, Function, UserState} handler.
-export([collect/2]).

%% Milliseconds between two outputs of the monitors started here (but start_link/0's).
-define(INTERVAL_MS, 200).
%% Milliseconds to wait for an output.
-define(WAIT_MS, 5000).
%% Width of the node column.
-define(NODE_WIDTH, 28).

suite() ->
    [{timetrap, {seconds, 30}}].

all() ->
    [{group, handlers}].

%% one history at a time: it is a registered process
groups() ->
    [{handlers, [], [console_default, mfa_state, mfa_all_fields, fd_device, io_device,
                     file_name, fun_handler, no_history, invalid_arguments]}].

init_per_suite(Config) ->
    erlperf_test_lib:app_without_monitor(Config).

end_per_suite(Config) ->
    erlperf_test_lib:restore_app(Config).

init_per_testcase(no_history, Config) ->
    Config;
init_per_testcase(_Case, Config) ->
    {ok, History} = erlperf_cluster_history:start_link(),
    unlink(History),
    [{history, History} | Config].

end_per_testcase(_Case, Config) ->
    case ?config(history, Config) of
        undefined -> ok;
        History -> gen_server:stop(History)
    end.

%%--------------------------------------------------------------------
%% Cases

console_default() ->
    [{doc, "start_link/0 prints every field, once a second, to the caller's group leader"}].
console_default(Config) when is_list(Config) ->
    Leader = group_leader(),
    Console = erlperf_test_lib:capture(),
    true = group_leader(Console, self()),
    {ok, Monitor} = try erlperf_cluster_monitor:start_link()
                    after group_leader(Leader, self())
                    end,
    try
        Sample = sample(a@host, 1000),
        send([Sample]),
        Header = next_line(),
        ?assertEqual(["time", "node", "sched_util", "dcpu", "dio", "processes", "ports", "ets",
                      "memory_total", "memory_processes", "memory_binary", "memory_ets", "jobs"],
                     string:lexemes(Header, " ")),
        ?assertEqual(erlperf_cluster_monitor:fields(), [list_to_atom(F) || F <- string:lexemes(Header, " ")]),
        ?assertEqual(erlperf_cluster_monitor:format(erlperf_cluster_monitor:fields(), ?NODE_WIDTH, Sample),
                     next_line())
    after
        stop(Monitor)
    end.

mfa_state() ->
    [{doc, "{M, F, UserState}: M:F(Samples, State) gets [{Time, Sample}] with the fields "
           "asked for, and returns the next State; no call for an interval without samples"}].
mfa_state(Config) when is_list(Config) ->
    Fields = [node, sched_util, jobs],
    {ok, Monitor} = erlperf_cluster_monitor:start_link({?MODULE, collect, {self(), 0}},
                                                       ?INTERVAL_MS, Fields),
    try
        A1 = sample(a@host, 1000),
        send([A1]),
        ?assertEqual({0, [{1000, maps:with(Fields, A1)}]}, next_call()),
        %% nothing arrives: no call during a few intervals
        ok = ticks(Monitor, 3),
        receive {collect, _, _} = Unexpected -> ct:fail({called, Unexpected})
        after 0 -> ok
        end,
        %% ordered by node, then time
        [B2, A2, A3] = [sample(b@host, 2000), sample(a@host, 2000), sample(a@host, 3000)],
        send([B2, A3, A2]),
        ?assertEqual({1, [{2000, maps:with(Fields, A2)}, {3000, maps:with(Fields, A3)},
                          {2000, maps:with(Fields, B2)}]},
                     next_calls(3)),
        send([sample(c@host, 4000)]),
        ?assertMatch({N, [{4000, #{node := c@host}}]} when N >= 2, next_call())
    after
        stop(Monitor)
    end.

mfa_all_fields() ->
    [{doc, "Fields = undefined hands every documented field to the handler"}].
mfa_all_fields(Config) when is_list(Config) ->
    {ok, Monitor} = erlperf_cluster_monitor:start_link({?MODULE, collect, {self(), 0}},
                                                       ?INTERVAL_MS, undefined),
    try
        Sample = sample(a@host, 1000),
        send([Sample]),
        {0, [{1000, Filtered}]} = next_call(),
        ?assertEqual(lists:sort(erlperf_cluster_monitor:fields()), lists:sort(maps:keys(Filtered))),
        ?assertEqual(maps:remove(version, Sample), Filtered)
    after
        stop(Monitor)
    end.

fd_device() ->
    [{doc, "{fd, IoDevice}: a header, then a line per sample; the device stays open"}].
fd_device(Config) when is_list(Config) ->
    device(fun (Device) -> {fd, Device} end).

io_device() ->
    [{doc, "An io device given as it is: a header, then a line per sample"}].
io_device(Config) when is_list(Config) ->
    device(fun (Device) -> Device end).

file_name() ->
    [{doc, "A file name: the table is written to that file, created or truncated"}].
file_name(Config) when is_list(Config) ->
    File = filename:join(?config(priv_dir, Config), "cluster.log"),
    ok = file:write_file(File, <<"old contents\n">>),
    Fields = [time, node, sched_util, jobs],
    {ok, Monitor} = erlperf_cluster_monitor:start_link(File, ?INTERVAL_MS, Fields),
    Sample = sample(a@host, 1000),
    Line = erlperf_cluster_monitor:format(Fields, ?NODE_WIDTH, Sample),
    try
        send([Sample]),
        ?assert(erlperf_test_lib:wait_for(fun () -> file_lines(File) =:= 2 end, ?WAIT_MS))
    after
        stop(Monitor)
    end,
    {ok, Text} = file:read_file(File),
    ?assertEqual([erlperf_cluster_monitor:header(Fields, ?NODE_WIDTH), Line],
                 string:lexemes(binary_to_list(Text), "\n")).

fun_handler() ->
    [{doc, "A fun of one argument gets the list of samples reduced to the fields"}].
fun_handler(Config) when is_list(Config) ->
    Self = self(),
    {ok, Monitor} = erlperf_cluster_monitor:start_link(fun (S) -> Self ! {samples, S} end,
                                                       ?INTERVAL_MS, [node, jobs]),
    try
        Sample = sample(a@host, 1000),
        send([Sample]),
        receive {samples, Samples} -> ?assertEqual([maps:with([node, jobs], Sample)], Samples)
        after ?WAIT_MS -> ct:fail(no_call)
        end
    after
        stop(Monitor)
    end.

no_history() ->
    [{doc, "Without erlperf_cluster_history the monitor does not start, and names the reason"}].
no_history(Config) when is_list(Config) ->
    process_flag(trap_exit, true),
    ?assertEqual(undefined, whereis(erlperf_cluster_history)),
    ?assertMatch({error, {no_history, _}}, erlperf_cluster_monitor:start_link()),
    ?assertMatch({error, {no_history, _}},
                 erlperf_cluster_monitor:start_link({?MODULE, collect, x}, 1000, undefined)).

invalid_arguments() ->
    [{doc, "Bad handlers, intervals and fields are rejected with the bad value"}].
invalid_arguments(Config) when is_list(Config) ->
    ?assertError({invalid_option, handler, 42}, erlperf_cluster_monitor:start_link(42, 1000, undefined)),
    ?assertError({invalid_option, handler, {fd, 42}},
                 erlperf_cluster_monitor:start_link({fd, 42}, 1000, undefined)),
    ?assertError({invalid_option, interval, 0},
                 erlperf_cluster_monitor:start_link(user, 0, undefined)),
    ?assertError({invalid_option, fields, []}, erlperf_cluster_monitor:start_link(user, 1000, [])),
    ?assertError({invalid_option, fields, [node, color]},
                 erlperf_cluster_monitor:start_link(user, 1000, [node, color])).

%%--------------------------------------------------------------------
%% Callback

%% @doc The {Module, Function, UserState} handler: tells the case the state it was called
%% with and the samples, and counts calls in its state.
-spec collect([{integer(), map()}], {pid(), non_neg_integer()}) -> {pid(), non_neg_integer()}.
collect(Samples, {Case, Calls}) ->
    Case ! {collect, Calls, Samples},
    {Case, Calls + 1}.

%%--------------------------------------------------------------------
%% Helpers

device(Handler) ->
    Device = erlperf_test_lib:capture(),
    Fields = [node, sched_util, jobs],
    {ok, Monitor} = erlperf_cluster_monitor:start_link(Handler(Device), ?INTERVAL_MS, Fields),
    try
        [A, B] = [sample(a@host, 1000), sample(b@host, 1000)],
        send([B, A]),
        ?assertEqual(erlperf_cluster_monitor:header(Fields, ?NODE_WIDTH), next_line()),
        ?assertEqual(["node", "sched_util", "jobs"], string:lexemes(erlperf_cluster_monitor:header(Fields, ?NODE_WIDTH), " ")),
        ?assertEqual(erlperf_cluster_monitor:format(Fields, ?NODE_WIDTH, A), next_line()),
        ?assertEqual(erlperf_cluster_monitor:format(Fields, ?NODE_WIDTH, B), next_line())
    after
        stop(Monitor)
    end,
    ?assert(is_process_alive(Device)).

%% The next callback of collect/2: the state it was called with and the samples.
next_call() ->
    receive
        {collect, State, Samples} -> {State, Samples}
    after ?WAIT_MS ->
        ct:fail(no_call)
    end.

%% The samples of the calls until Count of them arrived, and the first call's state.
%% Samples sent at once usually come in one call, but an interval may end between them.
next_calls(Count) ->
    {State, Samples} = next_call(),
    {State, more_calls(Samples, Count)}.

more_calls(Samples, Count) when length(Samples) >= Count ->
    Samples;
more_calls(Samples, Count) ->
    {_, More} = next_call(),
    more_calls(Samples ++ More, Count).

next_line() ->
    receive
        {log_line, Line} -> Line
    after ?WAIT_MS ->
        ct:fail(no_line)
    end.

file_lines(File) ->
    case file:read_file(File) of
        {ok, Bin} -> length(string:lexemes(binary_to_list(Bin), "\n"));
        {error, _} -> 0
    end.

%% Returns once the monitor has handled Count more ticks: a debug function installed in
%% it tells of each tick it receives, and the handler's messages of a tick come before
%% the next tick's (both are sent by the monitor).
ticks(Monitor, Count) ->
    Self = self(),
    Ref = make_ref(),
    Tell = fun (Seen, {in, tick}, _ProcState) -> Self ! {Ref, tick}, Seen + 1;
               (Seen, _Event, _ProcState) -> Seen
           end,
    ok = sys:install(Monitor, {Tell, 0}),
    _ = [receive {Ref, tick} -> ok after ?WAIT_MS -> ct:fail(no_tick) end
         || _ <- lists:seq(0, Count)],
    ok = sys:remove(Monitor, Tell),
    flush(Ref).

flush(Ref) ->
    receive {Ref, tick} -> flush(Ref)
    after 0 -> ok
    end.

stop(Monitor) ->
    unlink(Monitor),
    gen_server:stop(Monitor).

sample(Node, Time) ->
    #{version => 1, time => Time, node => Node, sched_util => 12.5, dcpu => 0.0,
      dio => 1.25, processes => 50, ports => 3, ets => 20, memory_total => 30000000,
      memory_processes => 6000000, memory_binary => 200000, memory_ets => 500000,
      jobs => [{self(), Time * 1000}]}.

send(Samples) ->
    _ = [erlperf_cluster_history ! S || S <- Samples],
    ok.
