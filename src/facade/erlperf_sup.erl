%%% @doc Top supervisor of the `erlperf' application.
%%%
%%% Children, started in this order (`rest_for_one': when one dies, the ones
%%% started after it are restarted too, since they depend on it):
%%% <ol>
%%%   <li>`erlperf': the `pg' scope that jobs and monitor subscribers join;</li>
%%%   <li>`erlperf_job_sup': the supervisor of permanent jobs (`erlperf:start/2');</li>
%%%   <li>`erlperf_monitor': the once-per-second VM sampler.</li>
%%% </ol>
-module(erlperf_sup).
-behaviour(supervisor).

%% API: called by erlperf_app.
-export([start_link/0]).

%% Behaviour callbacks: called by supervisor.
-export([init/1]).

%% At most this many restarts ...
-define(MAX_RESTARTS, 5).
%% ... within this many seconds, otherwise the application stops.
-define(RESTART_PERIOD_S, 60).
%% Milliseconds a child (the pg scope, the monitor) gets to stop cleanly.
-define(SHUTDOWN_MS, 5000).

-spec start_link() -> supervisor:startlink_ret().
start_link() ->
    supervisor:start_link({local, ?MODULE}, ?MODULE, []).

-spec init([]) -> {ok, {supervisor:sup_flags(), [supervisor:child_spec()]}}.
init([]) ->
    Flags = #{strategy => rest_for_one, intensity => ?MAX_RESTARTS,
              period => ?RESTART_PERIOD_S},
    Children = [
        #{id => erlperf_pg, start => {pg, start_link, [erlperf]},
          shutdown => ?SHUTDOWN_MS, modules => [pg]},
        #{id => erlperf_job_sup, start => {erlperf_job_sup, start_link, []},
          type => supervisor, shutdown => infinity},
        #{id => erlperf_monitor, start => {erlperf_monitor, start_link, []},
          shutdown => ?SHUTDOWN_MS}
    ],
    {ok, {Flags, Children}}.
