%%% @doc Supervisor of permanent jobs started with `erlperf:start/2'.
%%%
%%% Each child is an `erlperf_job' started with `erlperf_job:start_link(CodeMap)'
%%% (the supervisor is the job's owner). Children are `temporary': a crashed job
%%% is not restarted, since its workers and counters are gone.
%%% ```
%%% {ok, Job} = supervisor:start_child(erlperf_job_sup, [#{runner => "rand:uniform()."}]).
%%% '''
-module(erlperf_job_sup).
-behaviour(supervisor).

%% API: called by erlperf_sup.
-export([start_link/0]).

%% Behaviour callbacks: called by supervisor.
-export([init/1]).

%% A job is never restarted, so these only bound the supervisor itself.
-define(MAX_RESTARTS, 1).
%% Period, in seconds, for ?MAX_RESTARTS.
-define(RESTART_PERIOD_S, 5).
%% Milliseconds a job gets to run its `done' callable and stop its workers.
-define(JOB_SHUTDOWN_MS, 5000).

-spec start_link() -> supervisor:startlink_ret().
start_link() ->
    supervisor:start_link({local, ?MODULE}, ?MODULE, []).

-spec init([]) -> {ok, {supervisor:sup_flags(), [supervisor:child_spec()]}}.
init([]) ->
    Flags = #{strategy => simple_one_for_one, intensity => ?MAX_RESTARTS,
              period => ?RESTART_PERIOD_S},
    Job = #{id => erlperf_job, start => {erlperf_job, start_link, []},
            restart => temporary, shutdown => ?JOB_SHUTDOWN_MS,
            modules => [erlperf_job]},
    {ok, {Flags, [Job]}}.
