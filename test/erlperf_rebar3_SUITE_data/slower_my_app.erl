%% my_app with ten times the work (the same result): what erlperf_rebar3_SUITE plants as
%% a regression, far beyond what a loaded machine does to a run.
-module(my_app).
-export([work/0]).

work() -> lists:last([lists:sum(lists:seq(1, 100)) || _ <- lists:seq(1, 10)]).
