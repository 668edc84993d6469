%%% @doc The history of monitor samples: how long it keeps them, and reading them back.
%%%
%%% The application's monitor is stopped for the whole suite, and the cases send the
%%% history samples they made themselves (it takes any map with `time' and `node' from
%%% anyone), so that contents and order are known exactly. A call to the history is
%%% handled after every sample sent to it before by the same process.
-module(erlperf_cluster_history_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).
-export([duration_ms/0, duration_option/0, get_sorted/0, get_from/0, get_from_to/0,
         poll_arrival_order/0, not_samples_ignored/0, invalid_arguments/0,
         monitor_samples/0, erlperf_2_3_name/0]).
-export([duration_ms/1, duration_option/1, get_sorted/1, get_from/1, get_from_to/1,
         poll_arrival_order/1, not_samples_ignored/1, invalid_arguments/1,
         monitor_samples/1, erlperf_2_3_name/1]).

%% Milliseconds the short-lived histories keep samples.
-define(SHORT_MS, 1000).
%% Milliseconds to wait for a sample to be dropped, or for a monitor sample.
-define(WAIT_MS, 5000).

suite() ->
    [{timetrap, {seconds, 30}}].

all() ->
    [{group, history}].

%% one history at a time: it is a registered process
groups() ->
    [{history, [], [duration_ms, duration_option, get_sorted, get_from, get_from_to,
                    poll_arrival_order, not_samples_ignored, invalid_arguments,
                    monitor_samples, erlperf_2_3_name]}].

init_per_suite(Config) ->
    erlperf_test_lib:app_without_monitor(Config).

end_per_suite(Config) ->
    erlperf_test_lib:restore_app(Config).

%%--------------------------------------------------------------------
%% Cases

duration_ms() ->
    [{doc, "start_link(DurationMs): a sample is kept DurationMs milliseconds, then dropped"}].
duration_ms(Config) when is_list(Config) ->
    {ok, History} = erlperf_cluster_history:start_link(?SHORT_MS),
    try
        kept_for(?SHORT_MS)
    after
        gen_server:stop(History)
    end.

duration_option() ->
    [{doc, "start_link(#{duration => Ms}) is the same as start_link(Ms)"}].
duration_option(Config) when is_list(Config) ->
    {ok, History} = erlperf_cluster_history:start_link(#{duration => ?SHORT_MS}),
    try
        kept_for(?SHORT_MS)
    after
        gen_server:stop(History)
    end.

get_sorted() ->
    [{doc, "get/0 returns every sample as {Time, Sample}, sorted by time then node, "
           "whatever the arrival order"}].
get_sorted(Config) when is_list(Config) ->
    with_history(fun () ->
        [A1, A2, B2, B3, Future] = Samples = samples(),
        send(shuffle(Samples)),
        ?assertEqual([{1000, A1}, {2000, A2}, {2000, B2}, {3000, B3}, {time(Future), Future}],
                     erlperf_cluster_history:get())
    end).

erlperf_2_3_name() ->
    [{doc, "erlperf 2.3's erlperf_history: start_link/0,1, get/1,2 are the cluster history's"}].
erlperf_2_3_name(Config) when is_list(Config) ->
    {ok, History} = erlperf_history:start_link(),
    try
        ?assertEqual(History, whereis(erlperf_cluster_history)),
        [A1, A2, B2, B3, _Future] = Samples = samples(),
        send(shuffle(Samples)),
        ?assertEqual([{1000, A1}, {2000, A2}, {2000, B2}, {3000, B3}], erlperf_history:get(1000)),
        ?assertEqual([{2000, A2}, {2000, B2}], erlperf_history:get(1500, 2999))
    after
        gen_server:stop(History)
    end,
    {ok, Short} = erlperf_history:start_link(?SHORT_MS),
    try
        kept_for(?SHORT_MS)
    after
        gen_server:stop(Short)
    end.

get_from() ->
    [{doc, "get(From): samples taken from From (inclusive) until now, sorted by time"}].
get_from(Config) when is_list(Config) ->
    with_history(fun () ->
        [A1, A2, B2, B3, _Future] = Samples = samples(),
        send(shuffle(Samples)),
        ?assertEqual([{2000, A2}, {2000, B2}, {3000, B3}], erlperf_cluster_history:get(1500)),
        ?assertEqual([{1000, A1}, {2000, A2}, {2000, B2}, {3000, B3}], erlperf_cluster_history:get(1000)),
        ?assertEqual([], erlperf_cluster_history:get(erlang:system_time(millisecond) + 1000))
    end).

get_from_to() ->
    [{doc, "get(From, To): samples taken between From and To, both inclusive, sorted by "
           "time; To = infinity has no upper bound"}].
get_from_to(Config) when is_list(Config) ->
    with_history(fun () ->
        [A1, A2, B2, B3, Future] = Samples = samples(),
        send(shuffle(Samples)),
        ?assertEqual([{2000, A2}, {2000, B2}, {3000, B3}], erlperf_cluster_history:get(2000, 3000)),
        ?assertEqual([{1000, A1}], erlperf_cluster_history:get(0, 1999)),
        ?assertEqual([], erlperf_cluster_history:get(2001, 2999)),
        ?assertEqual([{3000, B3}, {time(Future), Future}], erlperf_cluster_history:get(2500, infinity))
    end).

poll_arrival_order() ->
    [{doc, "poll/1 returns the samples in arrival order and a cursor past them"}].
poll_arrival_order(Config) when is_list(Config) ->
    with_history(fun () ->
        Shuffled = shuffle(samples()),
        send(Shuffled),
        ?assertEqual({5, Shuffled}, erlperf_cluster_history:poll(0)),
        ?assertEqual({5, lists:nthtail(3, Shuffled)}, erlperf_cluster_history:poll(3)),
        ?assertEqual({5, []}, erlperf_cluster_history:poll(5))
    end).

not_samples_ignored() ->
    [{doc, "Messages that are not samples are not kept"}].
not_samples_ignored(Config) when is_list(Config) ->
    with_history(fun () ->
        send([hello, {erlperf_cluster_history, sample(a@host, 1000)}, #{time => 1000},
              #{node => a@host}, #{time => later, node => a@host}]),
        ?assertEqual([], erlperf_cluster_history:get())
    end).

invalid_arguments() ->
    [{doc, "Invalid durations and options are rejected with the bad value"}].
invalid_arguments(Config) when is_list(Config) ->
    ?assertError({invalid_option, duration, 0}, erlperf_cluster_history:start_link(0)),
    ?assertError({invalid_option, duration, -5}, erlperf_cluster_history:start_link(-5)),
    ?assertError({invalid_option, color, red}, erlperf_cluster_history:start_link(#{color => red})),
    ?assertEqual(undefined, whereis(erlperf_cluster_history)).

monitor_samples() ->
    [{doc, "With the monitor running, the history collects its samples of this node"}].
monitor_samples(Config) when is_list(Config) ->
    with_history(fun () ->
        {ok, _} = supervisor:restart_child(erlperf_sup, erlperf_monitor),
        try
            ?assert(erlperf_test_lib:wait_for(fun () -> erlperf_cluster_history:get() =/= [] end,
                                              ?WAIT_MS)),
            [{Time, Sample} | _] = erlperf_cluster_history:get(),
            ?assertMatch(#{time := T, node := N, jobs := _} when T =:= Time andalso N =:= node(),
                         Sample)
        after
            ok = supervisor:terminate_child(erlperf_sup, erlperf_monitor)
        end
    end).

%%--------------------------------------------------------------------
%% Helpers

with_history(Fun) ->
    {ok, History} = erlperf_cluster_history:start_link(),
    try
        Fun()
    after
        gen_server:stop(History)
    end.

%% Checks that a sample sent now is kept for DurationMs, then dropped.
kept_for(DurationMs) ->
    Sample = sample(a@host, 1000),
    Sent = erlang:monotonic_time(millisecond),
    send([Sample]),
    ?assertEqual([{1000, Sample}], erlperf_cluster_history:get()),
    ?assert(erlperf_test_lib:wait_for(fun () -> erlperf_cluster_history:get() =:= [] end,
                                      DurationMs + ?WAIT_MS)),
    Kept = erlang:monotonic_time(millisecond) - Sent,
    ?assert(Kept >= DurationMs, Kept).

%% Samples of two nodes, in time order: a@host at 1000 and 2000, b@host at 2000 and 3000,
%% and a@host an hour from now.
samples() ->
    [sample(a@host, 1000), sample(a@host, 2000), sample(b@host, 2000), sample(b@host, 3000),
     sample(a@host, erlang:system_time(millisecond) + 3600000)].

%% A fixed order unlike the time order.
shuffle([A1, A2, B2, B3, Future]) ->
    [B3, Future, B2, A1, A2].

sample(Node, Time) ->
    #{version => 1, time => Time, node => Node, sched_util => 12.5, dcpu => 0.0,
      dio => 0.0, processes => 50, ports => 3, ets => 20, memory_total => 30000000,
      memory_processes => 6000000, memory_binary => 200000, memory_ets => 500000,
      jobs => [{self(), Time}]}.

time(#{time := Time}) ->
    Time.

send(Messages) ->
    _ = [erlperf_cluster_history ! M || M <- Messages],
    ok.
