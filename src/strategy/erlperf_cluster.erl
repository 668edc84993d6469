%%% @doc Runs the same benchmark on several nodes at once and adds the results up
%%% (the `nodes' run option, `--nodes').
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>origin node</b>: this node, calling {@link benchmark/4}; it must be
%%%       distributed and connected (or able to connect) to every node;</li>
%%%   <li><b>load node</b>: a node of `Nodes'; it runs each code with the given
%%%       concurrency, at the same time as the other load nodes;</li>
%%%   <li><b>total</b>: the result of all load nodes added up: samples are added
%%%       element-wise (sample I of the total is the sum of sample I of every node),
%%%       averages and concurrencies are summed.</li>
%%% </ul>
%%% Every node runs {@link erlperf_local:benchmark/3}; all start together (one
%%% `erpc:multicall/5'), so that the nodes load the system under test at the same time.
%%% An open load (`rate') is split among the nodes, rate by rate of a ramp: each node
%%% starts its share of the calls, and the total adds their calls up and merges their
%%% histograms; the ramp's objectives are judged on the total.
%%% Codes run at the same time on each node (`compare => parallel', the default), or one
%%% after another. The result is a full total report per code, with `nodes => #{Node =>
%%% Report}' holding each node's own; the facade shapes it as `report' asks. In timed mode the
%%% total adds times up too (the time the nodes would take one after another); read
%%% the per-node reports for latency.
%%%
%%% Example (both nodes connected to this one):
%%% ```
%%% Total = erlperf:run(#{runner => "rand:uniform()."},
%%%                     #{nodes => ['load1@host1', 'load2@host2'], concurrency => 4}).
%%% '''
%%% See `doc/cluster.md' for cookies, names and firewall rules across machines.
%%%
%%% Cost and safety: each load node runs the benchmark at full speed. erlperf's modules
%%% are loaded into a node only when it has no module of that name (a node running
%%% another erlperf version keeps it). Run options that are funs (`progress') are not
%%% sent. An exception raised on any node is raised again here, with the same class and
%%% reason; a node that cannot be reached raises `{nodedown, Node}'.
-module(erlperf_cluster).

%% API: called by erlperf:benchmark/3 for the `nodes' run option.
-export([benchmark/4, format_error/1]).

%% Internal export: what each load node runs, called over erpc.
-export([remote/2]).

%% Milliseconds a load node gets to answer a code loading request.
-define(LOAD_TIMEOUT_MS, 15000).
%% A benchmark runs as long as its options say (samples, squeeze steps): no time limit.
-define(RUN_TIMEOUT, infinity).

%%--------------------------------------------------------------------
%% API

%% @doc Runs each code on every node of `Nodes' at once, and returns the totals in order.
-spec benchmark([node(), ...], [erlperf_job:code_map()], erlperf:run_options(),
                erlperf:concurrency_options() | undefined) -> [erlperf:report()].
benchmark(Nodes, Codes, RunOptions, ConcurrencyOptions) when is_list(Nodes), Nodes =/= [] ->
    Unique = lists:usort(Nodes),
    Options = maps:filter(fun (_K, V) -> not is_function(V) end, RunOptions),
    ok = check_rate(Unique, Options),
    ok = connect(Unique),
    ok = ensure_loaded(Unique -- [node()], erlperf_isolation:object_code([?MODULE])),
    case {maps:get(compare, Options, parallel), ConcurrencyOptions} of
        {_, undefined} when is_map_key(rate, Options), map_get(rate, Options) =/= undefined ->
            Rates = lists:flatten([maps:get(rate, Options)]),
            lists:append([erlperf_local:ramp(fun (Rate) -> hd(totals(run_split(Unique, Code, Options, Rate))) end,
                                             Rates, Options)
                           || Code <- Codes]);
        {Together, undefined} when Together =:= parallel; Together =:= interleaved ->
            totals(run(Unique, [Codes, Options, ConcurrencyOptions]));
        _ ->
            lists:append([totals(run(Unique, [[Code], Options, ConcurrencyOptions]))
                          || Code <- Codes])
    end.

%% @private
%% Runs erlperf_local:benchmark/3 on this (load) node for `Caller', and gives up as soon
%% as `Caller' goes (killed, or its node disconnected): the jobs, owned by this process,
%% stop with it, so that an interrupted run leaves no load behind.
-spec remote(pid(), [term()]) -> [erlperf:report()].
remote(Caller, Args) ->
    Runner = self(),
    Watcher = spawn(fun () ->
        Ref = erlang:monitor(process, Caller),
        receive {'DOWN', Ref, process, Caller, _} -> exit(Runner, kill) end
    end),
    try
        erlang:apply(erlperf_local, benchmark, Args)
    after
        exit(Watcher, kill)
    end.

%% @doc Readable text for the errors raised by {@link benchmark/4} itself.
-spec format_error(term()) -> string().
format_error({nodedown, Node}) ->
    lists:flatten(io_lib:format("node ~ts cannot be reached (is it running, with the same "
                                "cookie, and is this node distributed?)", [Node]));
format_error({load_failed, Node, Module, Reason}) ->
    lists:flatten(io_lib:format("cannot load ~ts into node ~ts: ~0tp", [Module, Node, Reason]));
format_error(Reason) ->
    lists:flatten(io_lib:format("~0tp", [Reason])).

%%--------------------------------------------------------------------
%% Internal functions

connect(Nodes) ->
    lists:foreach(
        fun (Node) when Node =:= node() -> ok;
            (Node) ->
                net_kernel:connect_node(Node) orelse erlang:error({nodedown, Node})
        end, Nodes).

%% Loads the modules a node does not have (neither loaded nor in its code path).
ensure_loaded(Nodes, Modules) ->
    lists:foreach(fun (Node) -> lists:foreach(fun (M) -> ensure_loaded_on(Node, M) end, Modules) end,
                  Nodes).

ensure_loaded_on(Node, {Module, Binary, FileName}) ->
    case erpc:call(Node, code, ensure_loaded, [Module], ?LOAD_TIMEOUT_MS) of
        {module, Module} ->
            ok;
        {error, _} ->
            case erpc:call(Node, code, load_binary, [Module, FileName, Binary], ?LOAD_TIMEOUT_MS) of
                {module, Module} -> ok;
                {error, Reason} -> erlang:error({load_failed, Node, Module, Reason})
            end
    end.

%% At a rate, every node takes a share of at least one call a second.
check_rate(Nodes, #{rate := Rate}) when Rate =/= undefined ->
    case lists:min(lists:flatten([Rate])) >= length(Nodes) of
        true -> ok;
        false -> erlang:error({incompatible_options, rate, Rate, {nodes, length(Nodes)}})
    end;
check_rate(_Nodes, _Options) ->
    ok.

%% One rate of an open load, split among the nodes (the first ones take the remainder,
%% a call a second each), started on all together; returns [{Node, [FullReport]}].
run_split(Nodes, Code, Options, Rate) ->
    Shares = erlperf_rate:split(Rate, length(Nodes)),
    Requests = [{Node, erpc:send_request(Node, ?MODULE, remote,
                                         [self(), [[Code], Options#{rate => Share, slo => undefined},
                                                   undefined]])}
                || {Node, Share} <- lists:zip(Nodes, Shares)],
    [{Node, reply(Node, response(Request))} || {Node, Request} <- Requests].

%% erpc:receive_response/2's outcome as erpc:multicall/5 gives it.
response(Request) ->
    try {ok, erpc:receive_response(Request, ?RUN_TIMEOUT)}
    catch
        error:{exception, Reason, Stack} -> {error, {exception, Reason, Stack}};
        exit:{exception, Reason} -> {exit, {exception, Reason}};
        throw:Value -> {throw, Value};
        error:{erpc, Reason} -> {error, {erpc, Reason}}
    end.

%% Starts the benchmark on all nodes together; returns [{Node, [FullReport]}].
run(Nodes, Args) ->
    Replies = erpc:multicall(Nodes, ?MODULE, remote, [self(), Args], ?RUN_TIMEOUT),
    lists:zipwith(fun (Node, Reply) -> {Node, reply(Node, Reply)} end, Nodes, Replies).

reply(_Node, {ok, Report}) -> Report;
reply(_Node, {error, {exception, Reason, Stack}}) -> erlang:raise(error, Reason, Stack);
reply(_Node, {exit, {exception, Reason}}) -> erlang:exit(Reason);
reply(_Node, {throw, Value}) -> erlang:throw(Value);
reply(Node, {error, {erpc, noconnection}}) -> erlang:error({nodedown, Node});
reply(_Node, {error, {erpc, Reason}}) -> erlang:error({erpc, Reason}).

%% One total report per code, from [{Node, [Report per code]}].
totals([{_, First} | _] = NodeReports) ->
    [total([{Node, lists:nth(I, Reports)} || {Node, Reports} <- NodeReports])
     || I <- lists:seq(1, length(First))].

%% The total report: the first node's report with summed results, and every node's own.
total([{_, First} | _] = Reports) ->
    Results = [R || {_, #{result := R}} <- Reports],
    Concurrency = lists:sum([C || {_, #{concurrency := C}} <- Reports]),
    Total = maps:remove(history, First#{
        concurrency => Concurrency,
        result => maps:merge(total_result(First, Concurrency, Results), total_rate(Results)),
        sleep => sleep_mode(Reports),
        warnings => lists:usort(lists:append([W || {_, #{warnings := W}} <- Reports])),
        nodes => maps:from_list(Reports)}),
    cv_met(Reports, Total).

cv_met(Reports, #{cv_met := _} = Total) ->
    Total#{cv_met => lists:all(fun ({_, R}) -> maps:get(cv_met, R, false) end, Reports)};
cv_met(_Reports, Total) ->
    Total.

sleep_mode(Reports) ->
    case lists:any(fun ({_, #{sleep := S}}) -> S =:= busy_wait end, Reports) of
        true -> busy_wait;
        false -> sleep
    end.

%% Samples and values add up element-wise (the shortest node decides how many, in cv
%% mode); the average is the sum of the nodes' averages.
total_result(#{mode := Mode} = First, Concurrency, Results) ->
    Values = sum_lists([V || #{values := V} <- Results]),
    Average = lists:sum([A || #{average := A} <- Results]),
    Stats = erlperf_local:statistics(stat_mode(Mode), Values),
    Stats#{average => Average,
           samples => sum_lists([S || #{samples := S} <- Results]),
           time => lists:max([T || #{time := T} <- Results]),
           overdue => lists:sum([O || #{overdue := O} <- Results]),
           qps => erlperf_local:qps(stat_mode(Mode), Average, sample_duration(First)),
           iteration_time => iteration_time(First, Concurrency, Average, Results)}.

%% At a rate: the nodes' calls added up, their histograms merged (erlperf_rate:merge/1).
total_rate(Results) ->
    case [Rate || #{rate := Rate} <- Results] of
        [] -> #{};
        Rates -> #{rate => erlperf_rate:merge(Rates)}
    end.

sample_duration(#{run_options := #{sample_duration := Duration}}) -> Duration.

stat_mode(timed) -> timed;
stat_mode(_Continuous) -> continuous.

sum_lists([List]) ->
    List;
sum_lists([A, B | Rest]) ->
    Len = min(length(A), length(B)),
    Summed = lists:zipwith(fun (X, Y) -> X + Y end, lists:sublist(A, Len), lists:sublist(B, Len)),
    sum_lists([Summed | Rest]).

%% Continuous modes: nanoseconds per iteration per worker, from the total throughput.
%% Timed mode: the nodes' average (each node measures one worker).
iteration_time(#{mode := timed}, _Concurrency, _Average, Results) ->
    lists:sum([I || #{iteration_time := I} <- Results]) / length(Results);
iteration_time(_First, _Concurrency, Average, _Results) when Average == 0 ->
    infinity;
iteration_time(#{run_options := #{sample_duration := Ms}}, Concurrency, Average, _Results) ->
    Ms * 1000000 * Concurrency / Average.
