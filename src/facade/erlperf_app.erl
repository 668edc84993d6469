%%% @doc The `erlperf' OTP application callback: starts the top supervisor.
%%%
%%% Starting the application is needed only for the VM monitor, the file log,
%%% the history and permanent jobs (`erlperf:start/2'):
%%% ```
%%% {ok, _} = application:ensure_all_started(erlperf).
%%% '''
%%% Cost: starting the application enables scheduler wall time accounting
%%% (see `erlperf_monitor') for as long as it runs.
-module(erlperf_app).
-behaviour(application).

%% Behaviour callbacks: called by the application controller.
-export([start/2, stop/1]).

-spec start(application:start_type(), term()) -> {ok, pid()} | {error, term()}.
start(_StartType, _StartArgs) ->
    erlperf_sup:start_link().

-spec stop(term()) -> ok.
stop(_State) ->
    ok.
