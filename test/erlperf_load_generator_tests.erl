%%% @doc Tests of `erlperf_load_generator:is_trace_pattern/1', the one check of a trace
%%% pattern's shape (used by erlperf_perf_test for a load generator's patterns and by
%%% erlperf_agents for their `patterns' option).
-module(erlperf_load_generator_tests).

-include_lib("eunit/include/eunit.hrl").

is_trace_pattern_test_() ->
    Good = [{m, f, 1}, {m, f, 0}, {m, f, 255}, {m, f, '_'}, {m, '_', '_'}, {'_', f, 2},
            {'_', '_', 3}, {'_', '_', '_'}],
    Bad = [{m, f, 256}, {m, f, -1}, {m, f, 1.0}, {m, f, "1"}, {"m", f, 1}, {m, "f", 1},
           {m, f}, {m, f, 1, x}, [m, f, 1], m, "m:f/1"],
    [?_assert(erlperf_load_generator:is_trace_pattern(P)) || P <- Good]
    ++ [?_assertNot(erlperf_load_generator:is_trace_pattern(P)) || P <- Bad].
