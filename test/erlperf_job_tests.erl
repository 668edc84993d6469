%%% @doc Tests of a worker's publishing step (`erlperf_job:publish/0'): the batch sizing
%%% rule (`erlperf_job:next_batch/2', pure) and what publishing writes to the counters.
-module(erlperf_job_tests).

-include_lib("eunit/include/eunit.hrl").

-define(KEY, '$erlperf_publish').

us(Us) -> erlang:convert_time_unit(Us, microsecond, native).

fast_batch_grows_at_most_four_times_test() ->
    %% 100 calls in 10 us: 500 would last the 50 us aimed at, but growth is capped
    ?assertEqual(400, erlperf_job:next_batch(100, us(10))).

batch_on_target_stays_test() ->
    ?assertEqual(100, erlperf_job:next_batch(100, us(50))).

cost_jump_shrinks_at_once_test() ->
    %% 1000 calls took a whole second: the next batch is a single call
    ?assertEqual(1, erlperf_job:next_batch(1000, us(1000000))).

slower_batch_shrinks_in_proportion_test() ->
    %% 1000 calls in 500 us: ten times too long, a tenth of the size
    ?assertEqual(100, erlperf_job:next_batch(1000, us(500))).

slow_runner_counted_call_by_call_test() ->
    %% one call of 2 ms: still one
    ?assertEqual(1, erlperf_job:next_batch(1, us(2000))).

largest_batch_test() ->
    %% an empty loop never grows the batch past 2^24 calls
    ?assertEqual(1 bsl 24, erlperf_job:next_batch(1 bsl 24, us(1))),
    ?assertEqual(1 bsl 24, erlperf_job:next_batch(1 bsl 23, 0)).

credits_the_next_batch_test() ->
    Ref = atomics:new(16, [{signed, true}]),
    {module, erlperf_job} = code:ensure_loaded(erlperf_job),
    Before = erlang:monotonic_time(),
    _ = put(?KEY, {Ref, 100, Before - us(50)}),
    Next = erlperf_job:publish(),
    After = erlang:monotonic_time(),
    {Ref, Next, Published} = erase(?KEY),
    ?assert(Next >= 1 andalso Next =< 100, Next),
    %% the count grows by the batch about to run, before it runs
    ?assertEqual(Next, atomics:get(Ref, 1)),
    %% when it was credited, how long it should take at the last batch's pace, its size
    ?assertEqual(Published, atomics:get(Ref, 2)),
    ?assert(Published >= Before andalso Published =< After),
    Took = Published - (Before - us(50)),
    ?assertEqual(Took * Next div 100, atomics:get(Ref, 3)),
    ?assertEqual(Next, atomics:get(Ref, 4)).

erased_state_test() ->
    _ = erase(?KEY),
    ?assertError(erlperf_state_erased, erlperf_job:publish()).

%% Generated modules are told from erlperf's own job modules by their number or digest.
is_generated_test_() ->
    [?_assert(erlperf_job_code:is_generated(erlperf_job_12)),
     ?_assert(erlperf_job_code:is_generated(erlperf_job_cc613b19a5c2d09795c446ee47a517b6)),
     ?_assertNot(erlperf_job_code:is_generated(erlperf_job_CC613B)),
     ?_assertNot(erlperf_job_code:is_generated(erlperf_job_code)),
     ?_assertNot(erlperf_job_code:is_generated(erlperf_job_counters)),
     ?_assertNot(erlperf_job_code:is_generated(erlperf_job_)),
     ?_assertNot(erlperf_job_code:is_generated(lists))].
