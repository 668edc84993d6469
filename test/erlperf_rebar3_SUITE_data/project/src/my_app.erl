%% The project's code under measurement: it waits, so that what other programs do to the
%% CPU does not change how long it takes.
-module(my_app).
-export([work/0]).

work() -> timer:sleep(2), lists:sum(lists:seq(1, 100)).
