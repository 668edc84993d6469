%% The project's code under measurement.
-module(my_app).
-export([work/0]).

work() -> lists:sum(lists:seq(1, 100)).
