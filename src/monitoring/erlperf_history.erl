%%% @doc erlperf 2.3's name for {@link erlperf_cluster_history}, the recent monitor
%%% samples of every node of a cluster: code written against erlperf 2.3 runs unchanged.
%%% Each function is the one of {@link erlperf_cluster_history} of the same name; the
%%% process it starts is registered as `erlperf_cluster_history'.
%%%
%%% Example:
%%% ```
%%% {ok, _} = erlperf_history:start_link(),
%%% Samples = erlperf_history:get(erlang:system_time(millisecond) - 5000).
%%% '''
-module(erlperf_history).

%% API: erlperf 2.3's, kept for its users.
-export([start_link/0, start_link/1, get/1, get/2]).

%% @doc See {@link erlperf_cluster_history:start_link/0}.
-spec start_link() -> gen_server:start_ret().
start_link() ->
    erlperf_cluster_history:start_link().

%% @doc See {@link erlperf_cluster_history:start_link/1}.
-spec start_link(DurationMs :: pos_integer() | erlperf_cluster_history:options()) -> gen_server:start_ret().
start_link(DurationMs) ->
    erlperf_cluster_history:start_link(DurationMs).

%% @doc See {@link erlperf_cluster_history:get/1}.
-spec get(From :: integer()) -> [{integer(), erlperf_monitor:monitor_sample()}].
get(From) ->
    erlperf_cluster_history:get(From).

%% @doc See {@link erlperf_cluster_history:get/2}.
-spec get(From :: integer(), To :: integer() | infinity) -> [{integer(), erlperf_monitor:monitor_sample()}].
get(From, To) ->
    erlperf_cluster_history:get(From, To).
