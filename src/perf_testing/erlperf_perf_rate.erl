%%% @doc Open load for load generators: a load generator's `start_load/2' starts calls
%%% at a fixed rate (from this node, or split among load nodes) and its `stop_load/1'
%%% stops them and hands the figures to the performance test, which puts them in the run's
%%% record (`rate': response and service times, calls late and skipped) and checks
%%% `{max_response_us, Percentile, Limit}' requirements against them.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>load node</b>: a node that starts calls (this one by default); each runs a
%%%       job of the code and a pacer (erlperf_rate) at its share of the rate, held by a
%%%       process that stops both when the load stops or the caller goes.</li>
%%%   <li><b>figures</b>: erlperf_rate's result, the nodes' merged (calls added up,
%%%       histograms merged exactly).</li>
%%% </ul>
%%%
%%% Example (a load generator's callbacks; sizes are rates):
%%% ```
%%% get_test_sizes() -> {rate, [500, 1000, 2000]}.
%%% start_load([Node], Rate) ->
%%%     Load = erlperf_perf_rate:start(fun () -> gen_server:call({echo, Node}, ping) end,
%%%                                    #{rate => Rate}),
%%%     {load_started, Load}.
%%% stop_load(Load) ->
%%%     {load_stopped, #{erlperf_rate => erlperf_perf_rate:stop(Load)}}.
%%% get_requirements(_Rate) -> [{max_response_us, 99, 5000}].
%%% '''
%%% Cost and safety: per load node one job (its workers grow as calls need, or
%%% `concurrency') and one pacer, which polls for the last millisecond before each call
%%% (see erlperf_rate). The holders are linked to nothing on the load nodes: each watches
%%% the caller and stops its load when the caller goes.
-module(erlperf_perf_rate).

%% API: called by load generators (start_load/2, stop_load/1).
-export([start/2, stop/1, format_error/1]).
%% Internal export: the holder of a load node's job and pacer, spawned there.
-export([hold/3]).

-export_type([load/0, options/0]).

%% How long a load node gets to start its job and workers.
-define(START_TIMEOUT_MS, 30000).

%% `rate': calls a second, all nodes together; `arrival', `concurrency' as for
%% `erlperf:run/2'; `nodes': the load nodes [this node].
-type options() :: #{rate := pos_integer(), arrival => even | poisson,
                     concurrency => pos_integer(), nodes => [node()]}.
-opaque load() :: #{holders := [{node(), pid(), reference()}]}.

%%--------------------------------------------------------------------
%% API

%% @doc Starts calls of `Code' (a code map, source text, `{M, F, A}' or a fun) at
%% `rate' a second, split among the load nodes, until {@link stop/1}. Raises
%% `{invalid_option, Key, Value}' for a bad option, `{perf_rate, Reason}' when a load
%% node cannot start (see {@link format_error/1}).
-spec start(erlperf:code(), options()) -> load().
start(Code, #{rate := Rate} = Opts) ->
    Nodes = lists:usort(maps:get(nodes, Opts, [node()])),
    _ = [erlperf_options:valid(run, K, V) orelse erlang:error({invalid_option, K, V})
         || {K, V} <- maps:to_list(maps:with([rate, arrival, concurrency], Opts))],
    is_integer(Rate) andalso Rate >= length(Nodes)
        orelse erlang:error({invalid_option, rate, Rate}),
    CodeMap = case Code of
                  #{runner := _} -> Code;
                  _ -> #{runner => Code}
              end,
    Pacing = maps:with([arrival, concurrency], Opts),
    Started = [start_on(Node, CodeMap, Pacing#{rate => Share})
               || {Node, Share} <- lists:zip(Nodes, erlperf_rate:split(Rate, length(Nodes)))],
    case [R || {error, R} <- Started] of
        [] ->
            #{holders => [H || {ok, H} <- Started]};
        [Reason | _] ->
            _ = [stop_holder(H) || {ok, H} <- Started],
            erlang:error({perf_rate, Reason})
    end.

%% @doc Stops the load and returns its figures (erlperf_rate's result, without the
%% per-sample `values' when several nodes ran it). Raises the runner's crash
%% (`{crashed, Role, Detail}') or `{perf_rate, Reason}'.
-spec stop(load()) -> map().
stop(#{holders := Holders}) ->
    _ = [Pid ! {stop, self()} || {_, Pid, _} <- Holders],
    Results = [await(H) || H <- Holders],
    erlperf_rate:merge(Results).

%% @doc Readable text for `{perf_rate, Reason}'.
-spec format_error(term()) -> string().
format_error({perf_rate, {node, Node, {nodedown, Node}}}) ->
    lists:flatten(io_lib:format("open load on node ~ts: the node cannot be reached", [Node]));
format_error({perf_rate, {node, Node, start_timeout}}) ->
    lists:flatten(io_lib:format("open load on node ~ts: its job and workers did not start within ~b ms",
                                [Node, ?START_TIMEOUT_MS]));
format_error({perf_rate, {node, Node, Reason}}) ->
    lists:flatten(io_lib:format("open load on node ~ts: ~0tP", [Node, Reason, 8]));
format_error(Reason) ->
    lists:flatten(io_lib:format("~0tP", [Reason, 8])).

%%--------------------------------------------------------------------
%% Internal exports

%% @private
%% On a load node: starts the job and the pacer, tells `Owner', then waits for `stop'
%% (replying the figures) or for `Owner' to go (stopping everything).
-spec hold(pid(), map(), map()) -> ok.
hold(Owner, CodeMap, Opts) ->
    Mon = erlang:monitor(process, Owner),
    case erlperf_job:start(CodeMap) of
        {ok, Job} ->
            try erlperf_rate:start(#{pid => Job}, Opts) of
                Pacer ->
                    Owner ! {self(), started},
                    receive
                        {stop, Owner} ->
                            Owner ! {self(), stopped, erlperf_rate:stop(Pacer)},
                            ok;
                        {'DOWN', Mon, process, Owner, _} ->
                            ok
                    end
            after
                stop_job(Job)
            end,
            ok;
        {error, Reason} ->
            Owner ! {self(), failed, Reason},
            ok
    end.

%%--------------------------------------------------------------------
%% Internal functions

start_on(Node, CodeMap, Opts) ->
    case spawn_holder(Node, [self(), CodeMap, Opts]) of
        {ok, Pid} ->
            Ref = erlang:monitor(process, Pid),
            receive
                {Pid, started} -> {ok, {Node, Pid, Ref}};
                {Pid, failed, Why} -> {error, {node, Node, Why}};
                {'DOWN', Ref, process, Pid, Down} -> {error, {node, Node, down_reason(Down)}}
            after ?START_TIMEOUT_MS ->
                exit(Pid, kill),
                {error, {node, Node, start_timeout}}
            end;
        {error, _} = Error ->
            Error
    end.

spawn_holder(Node, Args) when Node =:= node() ->
    {ok, spawn(?MODULE, hold, Args)};
spawn_holder(Node, Args) ->
    try {ok, erpc:call(Node, erlang, spawn, [?MODULE, hold, Args], ?START_TIMEOUT_MS)}
    catch
        error:{erpc, noconnection} -> {error, {node, Node, {nodedown, Node}}};
        error:{exception, Reason, _} -> {error, {node, Node, Reason}}
    end.

await({Node, Pid, Ref}) ->
    receive
        {Pid, stopped, Result} ->
            erlang:demonitor(Ref, [flush]),
            Result;
        {'DOWN', Ref, process, Pid, {{crashed, _, _} = Crash, _}} ->
            erlang:error(Crash);
        {'DOWN', Ref, process, Pid, {shutdown, {crashed, _, _} = Crash}} ->
            erlang:error(Crash);
        {'DOWN', Ref, process, Pid, Reason} ->
            erlang:error({perf_rate, {node, Node, down_reason(Reason)}})
    end.

%% The job, stopped whatever state it is in (a crash has stopped it already).
stop_job(Job) ->
    try erlperf_job:stop(Job) of
        _ -> ok
    catch
        exit:_ -> ok
    end.

stop_holder({_Node, Pid, Ref}) ->
    erlang:demonitor(Ref, [flush]),
    exit(Pid, kill).

down_reason({shutdown, {crashed, _, _} = Crash}) -> Crash;
down_reason({Reason, _Stack}) when is_tuple(Reason) -> Reason;
down_reason(Reason) -> Reason.
