%% my_app waiting fifteen times as long (the same result): what erlperf_rebar3_SUITE plants
%% as a regression, far beyond what a loaded machine does to a run.
-module(my_app).
-export([work/0]).

work() -> timer:sleep(30), lists:sum(lists:seq(1, 100)).
