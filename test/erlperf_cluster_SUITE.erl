%%% @doc Distributed load (`nodes' run option), the history and the cluster monitor,
%%% with real peer nodes on this host.
%%%
%%% This node must be distributed: if it is not, the suite starts `epmd' (no-op when one
%%% runs) and distribution with a random short name, and stops distribution at the end.
-module(erlperf_cluster_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).
-export([total_is_sum/0, basic_and_extended/0, remote_error/0, unreachable_node/0,
         caller_gone/0, cluster_monitor/0, rate_split/0, rate_ramp/0]).
-export([total_is_sum/1, basic_and_extended/1, remote_error/1, unreachable_node/1,
         caller_gone/1, cluster_monitor/1, rate_split/1, rate_ramp/1]).

%% Milliseconds to wait for a message from a benchmark or a monitor.
-define(MSG_TIMEOUT_MS, 15000).
%% Callbacks looked at, at most, when waiting for the cluster monitor to show something
%% (one each 500 ms: 30 s, for peers slow to start their monitors on a loaded machine).
-define(MAX_CALLBACKS, 60).
%% Milliseconds between two reads of a file the cluster monitor writes.
-define(FILE_POLL_MS, 50).

suite() ->
    [{timetrap, {minutes, 3}}].

all() ->
    [{group, cluster}].

groups() ->
    [{cluster, [], [total_is_sum, basic_and_extended, remote_error, unreachable_node,
                    caller_gone, cluster_monitor, rate_split, rate_ramp]}].

init_per_suite(Config) ->
    case erlang:is_alive() of
        true ->
            Config;
        false ->
            _ = os:cmd("epmd -daemon"),
            {ok, _} = net_kernel:start([list_to_atom(peer:random_name(?MODULE)), shortnames]),
            [{stop_distribution, true} | Config]
    end.

end_per_suite(Config) ->
    case ?config(stop_distribution, Config) of
        true -> _ = net_kernel:stop(), ok;
        _ -> ok
    end.

%%--------------------------------------------------------------------
%% Cases

total_is_sum() ->
    [{doc, "3 nodes run at once (none has erlperf in its path): the total is their sum, at most "
           "what 6 workers sleeping 1 ms can do"}].
total_is_sum(Config) when is_list(Config) ->
    Peers = start_peers(3, ?FUNCTION_NAME, []),
    Nodes = [N || {_, N} <- Peers],
    true = register(?MODULE, self()),
    try
        %% every node reports when its job starts (init) and stops (done)
        Tell = fun (What) -> lists:flatten(io_lib:format(
                   "{~s, '~s'} ! {~s, node()}.", [?MODULE, node(), What])) end,
        Code = #{runner => "timer:sleep(1).", init => Tell(started), done => Tell(done)},
        [Total] = erlperf:benchmark([Code], #{nodes => Nodes, samples => 3, concurrency => 2,
                                            sample_duration => 500, report => full}, undefined),
        %% all three jobs started before any of them stopped: they ran at the same time
        Started = [receive {started, N} -> N after ?MSG_TIMEOUT_MS -> timeout end || _ <- Nodes],
        ?assertEqual(lists:sort(Nodes), lists:sort(Started)),
        _ = [receive {done, N} -> ok after ?MSG_TIMEOUT_MS -> ct:fail({no_done, N}) end
             || N <- Nodes],
        #{nodes := PerNode, result := #{samples := Samples, average := Average},
          concurrency := Concurrency} = Total,
        ?assertEqual(lists:sort(Nodes), lists:sort(maps:keys(PerNode))),
        NodeSamples = [S || #{result := #{samples := S}} <- maps:values(PerNode)],
        ?assertEqual(lists:foldl(fun add/2, [0, 0, 0, 0], NodeSamples), Samples),
        NodeAverage = lists:sum([A || #{result := #{average := A}} <- maps:values(PerNode)]),
        ?assert(abs(NodeAverage - Average) < 1.0e-6, {NodeAverage, Average}),
        ?assertEqual(6, Concurrency),
        [?assertEqual(2, C) || #{concurrency := C} <- maps:values(PerNode)],
        %% 2 workers sleeping 1 ms at least: at most 1000 iterations per 500 ms per node,
        %% and the calls under way (10% for samples normalised from timers rounded to the ms)
        ?assert(Average >= 0 andalso Average =< 1.1 * 3 * (1000 + 2), Average)
    after
        unregister(?MODULE),
        stop_peers(Peers)
    end.

rate_split() ->
    [{doc, "An open load of 2001 calls a second from two nodes: each starts its share (1001 "
           "and 1000), the total holds the rate, and its histograms are the nodes' merged, so "
           "that its percentiles are those of all the calls; a rate below the node count is "
           "refused"}].
rate_split(Config) when is_list(Config) ->
    Peers = start_peers(2, ?FUNCTION_NAME, []),
    Nodes = [N || {_, N} <- Peers],
    try
        [Total] = erlperf:benchmark(["rand:uniform()."], #{nodes => Nodes, rate => 2001, samples => 2,
                                                           report => full}, undefined),
        #{nodes := PerNode, result := #{rate := Rate}} = Total,
        Shares = [maps:get(rate, R) || #{result := R} <- maps:values(PerNode)],
        ?assertEqual([1000, 1001], lists:sort([T || #{target := T} <- Shares])),
        #{target := 2001, started := Started, skipped := Skipped, achieved := Achieved} = Rate,
        ?assertEqual(4002, Started + Skipped),
        ?assert(Achieved >= 0.9 * 2001, Rate),
        ?assertEqual(lists:sum([S || #{started := S} <- Shares]), Started),
        [begin
             Merged = lists:foldl(fun erlperf_histogram:merge/2, erlperf_histogram:empty(),
                                  [maps:get(K, R) || R <- Shares]),
             ?assertEqual(Merged, maps:get(K, Rate)),
             ?assertEqual(erlperf_histogram:count(Merged), lists:sum([erlperf_histogram:count(maps:get(K, R))
                                                                       || R <- Shares]))
         end || K <- [service, response, lateness]],
        ?assertMatch({error, {incompatible_options, rate, 1, {nodes, 2}}},
                     try {ok, erlperf:run("ok.", #{nodes => Nodes, rate => 1})}
                     catch error:Reason -> {error, Reason} end)
    after
        stop_peers(Peers)
    end.

rate_ramp() ->
    [{doc, "A ramp from two nodes, each call sleeping 10 ms with one worker a node (200 calls "
           "a second in all at most), objectives p99 =< 500 ms: judged on the total, the ramp "
           "ends at the first rate that does not hold, the knee below it"}].
rate_ramp(Config) when is_list(Config) ->
    Peers = start_peers(2, ?FUNCTION_NAME, []),
    Nodes = [N || {_, N} <- Peers],
    try
        Reports = erlperf:benchmark(["timer:sleep(10)."],
                                    #{nodes => Nodes, rate => [50, 100, 400, 800], concurrency => 1,
                                      samples => 1, slo => [{99, 500000000}], report => full},
                                    undefined),
        Rates = [R || #{result := #{rate := R}} <- Reports],
        %% 50 a second holds, whatever other programs take of the host (its calls wait
        %% tens of milliseconds at worst); the ramp ends at the first rate that does not
        %% (400 at the latest: twice what the workers can serve), the knee the highest held
        %% before it
        [#{held := false, target := LastTarget} | Held] = lists:reverse(Rates),
        ?assertMatch([#{target := 50, held := true} | _], Rates),
        ?assert(lists:all(fun (#{held := H}) -> H end, Held), Rates),
        ?assert(LastTarget =< 400, Rates),
        Knee = lists:max([T || #{target := T} <- Held]),
        ?assertEqual([Knee], lists:usort([K || #{knee := K} <- Rates]))
    after
        stop_peers(Peers)
    end.

basic_and_extended() ->
    [{doc, "Basic and extended reports of a distributed run are totals, shaped as for one node "
           "(two nodes sleeping 1 ms: at most 440 calls in 200 ms); compare returns them in order "
           "(rand:uniform() before sleeps of 100 ms, at most 3 calls a node)"}].
basic_and_extended(Config) when is_list(Config) ->
    Peers = start_peers(2, ?FUNCTION_NAME, []),
    Nodes = [N || {_, N} <- Peers],
    try
        Opts = #{nodes => Nodes, samples => 2, sample_duration => 200},
        Basic = erlperf:run("timer:sleep(1).", Opts),
        ?assert(is_integer(Basic) andalso Basic >= 0 andalso Basic =< 440, Basic),
        Extended = erlperf:run("timer:sleep(1).", Opts#{report => extended}),
        ?assertMatch([A, B] when is_integer(A) andalso is_integer(B), Extended),
        [Rand, Hundred] = erlperf:compare(["rand:uniform().", "timer:sleep(100)."], Opts),
        ?assert(Hundred =< 1.1 * 2 * 3 andalso Rand >= 10 * Hundred, {Rand, Hundred})
    after
        stop_peers(Peers)
    end.

remote_error() ->
    [{doc, "An error on the load nodes is raised here with the same reason"}].
remote_error(Config) when is_list(Config) ->
    Peers = start_peers(2, ?FUNCTION_NAME, []),
    Nodes = [N || {_, N} <- Peers],
    try
        Code = #{init => "pg2:create(g).", runner => "pg2:join(g, self())."},
        ?assertError({crashed, init, {error, undef, [{pg2, create, [g], _} | _]}},
                     erlperf:run(Code, #{nodes => Nodes}))
    after
        stop_peers(Peers)
    end.

caller_gone() ->
    [{doc, "When the caller of a distributed run dies, every load node stops its job"}].
caller_gone(Config) when is_list(Config) ->
    Peers = start_peers(2, ?FUNCTION_NAME, []),
    Nodes = [N || {_, N} <- Peers],
    true = register(?MODULE, self()),
    try
        Tell = fun (What) -> lists:flatten(io_lib:format(
                   "{~s, '~s'} ! {~s, node()}.", [?MODULE, node(), What])) end,
        Code = #{runner => "timer:sleep(1).", init => Tell(started), done => Tell(done)},
        %% a run of 100 s, interrupted once it runs everywhere
        {Caller, Mon} = spawn_monitor(fun () ->
            erlperf:run(Code, #{nodes => Nodes, samples => 100, sample_duration => 1000})
        end),
        _ = [receive {started, N} -> N after ?MSG_TIMEOUT_MS -> ct:fail(not_started) end
             || _ <- Nodes],
        exit(Caller, kill),
        receive {'DOWN', Mon, process, Caller, killed} -> ok end,
        Done = [receive {done, N} -> N after ?MSG_TIMEOUT_MS -> still_running end || _ <- Nodes],
        ?assertEqual(lists:sort(Nodes), lists:sort(Done))
    after
        unregister(?MODULE),
        stop_peers(Peers)
    end.

unreachable_node() ->
    [{doc, "A node that cannot be reached is reported before anything runs"}].
unreachable_node(Config) when is_list(Config) ->
    [_, Host] = string:split(atom_to_list(node()), "@"),
    Missing = list_to_atom("erlperf_missing@" ++ Host),
    ?assertError({nodedown, Missing}, erlperf:run("ok.", #{nodes => [node(), Missing]})),
    ?assertMatch("node erlperf_missing@" ++ _,
                 erlperf_cluster:format_error({nodedown, Missing})).

cluster_monitor() ->
    [{doc, "The history collects samples of every node; the cluster monitor prints the "
           "selected fields to a callback, an io device and a file"}].
cluster_monitor(Config) when is_list(Config) ->
    {ok, _} = application:ensure_all_started(erlperf),
    Ebin = filename:dirname(code:which(erlperf)),
    Peers = start_peers(2, ?FUNCTION_NAME, ["-pa", Ebin]),
    [Node1, Node2] = Nodes = [N || {_, N} <- Peers],
    All = [node() | Nodes],
    File = filename:join(?config(priv_dir, Config), "cluster.log"),
    _ = [{ok, _} = erpc:call(N, application, ensure_all_started, [erlperf]) || N <- Nodes],
    {ok, History} = erlperf_cluster_history:start_link(),
    Self = self(),
    Fields = [time, node, sched_util, jobs],
    {ok, Callback} = erlperf_cluster_monitor:start_link(
                       fun (Samples) -> Self ! {samples, Samples} end, 500, Fields),
    {ok, Device} = erlperf_cluster_monitor:start_link(erlperf_test_lib:capture(), 500, [node, sched_util, jobs]),
    {ok, FileMon} = erlperf_cluster_monitor:start_link(File, 500, Fields),
    Job = erpc:call(Node1, erlperf, start, ["timer:sleep(1).", 1]),
    try
        %% every node shows up, node1 with its job, each sample with the fields asked for
        Seen = wait_samples(fun (Seen) -> lists:all(fun (N) -> is_map_key(N, Seen) end, All)
                                          andalso job_seen(Job, maps:get(Node1, Seen)) end),
        [?assertEqual(lists:sort(Fields), lists:sort(maps:keys(S))) || S <- maps:values(Seen)],
        ?assertEqual([], maps:get(jobs, maps:get(Node2, Seen))),
        %% the device shows a header, then lines starting with each node name
        Lines = device_lines(length(All) + 1),
        ?assertMatch(["node" ++ _ | _], Lines),
        ["node", "sched_util", "jobs"] = string:lexemes(hd(Lines), " "),
        Named = [L || L <- tl(Lines), N <- All, lists:prefix(atom_to_list(N) ++ " ", L)],
        ?assertEqual(length(tl(Lines)), length(Named)),
        %% the history kept them too, by node
        ?assert(lists:all(fun (N) -> lists:keymember(N, 2, [{x, maps:get(node, S)}
                                                           || {_, S} <- erlperf_cluster_history:get()]) end,
                          All)),
        %% the file monitor ticks on its own: wait until it has written the job's row
        JobText = pid_to_list(Job),
        ?assert(erlperf_test_lib:wait_for(fun () -> file_shows(File, JobText) end,
                                          ?MSG_TIMEOUT_MS, ?FILE_POLL_MS),
                {file_lacks, JobText})
    after
        try erpc:call(Node1, erlperf_job, stop, [Job])
        catch _:_ -> ok   % already stopped with its node
        end,
        _ = [gen_server:stop(P) || P <- [Callback, Device, FileMon, History]],
        stop_peers(Peers)
    end,
    {ok, Text} = file:read_file(File),
    [Header | Rows] = string:lexemes(binary_to_list(Text), "\n"),
    ?assertEqual(["time", "node", "sched_util", "jobs"], string:lexemes(Header, " ")),
    ?assert(lists:any(fun (R) -> string:find(R, pid_to_list(Job)) =/= nomatch end, Rows), Rows).

%%--------------------------------------------------------------------
%% Helpers

%% Whether a file contains Text.
file_shows(File, Text) ->
    case file:read_file(File) of
        {ok, Bin} -> binary:match(Bin, list_to_binary(Text)) =/= nomatch;
        {error, _} -> false
    end.

start_peers(Count, Case, Args) ->
    [begin
         {ok, Peer, Node} = peer:start_link(#{name => peer:random_name(Case), args => Args}),
         {Peer, Node}
     end || _ <- lists:seq(1, Count)].

stop_peers(Peers) ->
    _ = [peer:stop(Peer) || {Peer, _} <- Peers],
    ok.

add(A, B) ->
    lists:zipwith(fun erlang:'+'/2, A, B).

wait_samples(Pred) ->
    wait_samples(Pred, #{}, ?MAX_CALLBACKS).

wait_samples(_Pred, Seen, 0) ->
    ct:fail({cluster_monitor, Seen});
wait_samples(Pred, Seen, Left) ->
    receive
        {samples, Samples} ->
            Latest = maps:merge(Seen, maps:from_list([{N, S} || #{node := N} = S <- Samples])),
            case Pred(Latest) of
                true -> Latest;
                false -> wait_samples(Pred, Latest, Left - 1)
            end
    after ?MSG_TIMEOUT_MS ->
        ct:fail({no_callback, Seen})
    end.

job_seen(Job, #{jobs := Jobs}) ->
    case lists:keyfind(Job, 1, Jobs) of
        {Job, Count} -> Count > 0;
        false -> false
    end.

device_lines(0) ->
    [];
device_lines(N) ->
    receive
        {log_line, L} -> [L | device_lines(N - 1)]
    after ?MSG_TIMEOUT_MS ->
        ct:fail(no_device_line)
    end.
