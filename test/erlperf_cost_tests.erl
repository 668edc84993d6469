%%% @doc Tests of erlperf_cost's arithmetic (pure): the empty batch and the loop's own
%%% reduction are subtracted; a batch that collected has no heap bytes, while traced
%%% words (call_memory) are counted whether or not it collected.
-module(erlperf_cost_tests).

-include_lib("eunit/include/eunit.hrl").

batch(Words, Reds, Gc) ->
    #{words => Words, reductions => Reds, wall_ns => 0, cpu_ns => 0, gc => Gc}.

subtracts_empty_batch_test() ->
    Empty = batch(16, 17, false),
    Time = #{words => 0, reductions => 0, wall_ns => 820000, cpu_ns => 812000, gc => true},
    ?assertEqual(#{bytes_per_iteration => 1600.0, memory_method => heap,
                   reductions_per_iteration => 28.0,
                   cpu_ns_per_iteration => 812.0, wall_ns_per_iteration => 820.0,
                   iterations => 100},
                 erlperf_cost:per_iteration({100, batch(20016, 2917, false)}, Empty, {1000, Time}, 8)).

empty_runner_is_zero_test() ->
    Empty = batch(16, 17, false),
    ?assertMatch(#{bytes_per_iteration := +0.0, reductions_per_iteration := +0.0},
                 erlperf_cost:per_iteration({1000, batch(16, 1017, false)}, Empty, {1, batch(0, 0, false)}, 8)).

collected_batch_has_no_bytes_test() ->
    ?assertMatch(#{bytes_per_iteration := undefined, reductions_per_iteration := 9.0},
                 erlperf_cost:per_iteration({10, batch(5, 117, true)}, batch(16, 17, false),
                                            {1, batch(0, 0, false)}, 8)).

traced_words_test() ->
    %% the traced words count, whatever the heap did: a collection happened here
    Empty = (batch(16, 17, false))#{traced_words => 0},
    Batch = (batch(5, 2917, true))#{traced_words => 20000},
    ?assertMatch(#{bytes_per_iteration := 1600.0, memory_method := call_memory,
                   reductions_per_iteration := 28.0},
                 erlperf_cost:per_iteration({100, Batch}, Empty, {1, batch(0, 0, false)}, 8)),
    %% the empty batch's traced words (the harness) are subtracted
    ?assertMatch(#{bytes_per_iteration := 16.0},
                 erlperf_cost:per_iteration({10, Batch#{traced_words := 30}}, Empty#{traced_words := 10},
                                            {1, batch(0, 0, false)}, 8)).

%% A batch whose calls ran fewer reductions than the empty batch differs by (a call that
%% waits): none a call, never a negative count that a comparison would call "improved".
never_negative_test() ->
    ?assertMatch(#{reductions_per_iteration := +0.0},
                 erlperf_cost:per_iteration({1, batch(16, 17, false)}, batch(16, 17, false),
                                            {1, batch(0, 0, false)}, 8)).
