%% my_app with twice the work: what erlperf_rebar3_SUITE plants as a regression.
-module(my_app).
-export([work/0]).

work() -> lists:sum(lists:seq(1, 100)) + lists:sum(lists:seq(1, 100)) - 5050.
