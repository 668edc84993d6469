%%% @doc eunit tests of `erlperf_turns' in this node (`erlperf_against' calls it in a
%%% version's node over peer:call): a run takes a sample only when given a turn, ends
%%% after its warmup and samples, and gives its reports once; a run whose runner crashes
%%% ends the turn under way and gives the crash. No call may wait forever: each test has
%%% a timeout that fails it.
-module(erlperf_turns_tests).

-include_lib("eunit/include/eunit.hrl").

%% One warmup turn, then 3 samples of 10 ms.
-define(OPTS, #{report => full, samples => 3, sample_duration => 10, warmup => 1}).
%% Seconds a test of a few turns of 10 ms may take; a call that never returns fails it.
-define(TIMEOUT_S, 30).
%% Milliseconds to wait for a run that should be waiting, or gone.
-define(WAIT_MS, 5000).
%% The runner of the crash tests crashes once this is true.
-define(CRASH_KEY, {?MODULE, crash}).
-define(CRASHING, "persistent_term:get({erlperf_turns_tests, crash}) andalso erlang:error(boom).").

turns_test_() ->
    {timeout, ?TIMEOUT_S, fun () ->
        Run = erlperf_turns:start(benchmark, [[#{runner => "rand:uniform()."}], ?OPTS, undefined]),
        %% nothing is sampled until a turn is given: the run waits for it
        ?assert(erlperf_test_lib:wait_for(fun () -> waiting(Run) end, ?WAIT_MS)),
        %% the warmup turn and the 3 samples' turns, then the run has ended
        ?assertEqual([ok, ok, ok, ok], [erlperf_turns:turn(Run) || _ <- lists:seq(1, 4)]),
        ?assertEqual([ended, ended], [erlperf_turns:turn(Run) || _ <- lists:seq(1, 2)]),
        ?assertMatch({ok, [#{result := #{values := [_, _, _]},
                             run_options := #{compare := interleaved, samples := 3}}]},
                     erlperf_turns:result(Run)),
        %% the reports are given once; then the run is gone
        gone(Run)
    end}.

%% A sweep: the turns of each combination in turn.
sweep_test_() ->
    {timeout, ?TIMEOUT_S, fun () ->
        Opts = #{samples => 2, sample_duration => 10, warmup => 0, params => [{'N', [1, 2]}]},
        Run = erlperf_turns:start(sweep, [["lists:seq(1, N)."], Opts]),
        ?assertEqual([ok, ok, ok, ok, ended],
                     [erlperf_turns:turn(Run) || _ <- lists:seq(1, 5)]),
        ?assertMatch({ok, [#{params := [{'N', 1}], result := #{values := [_, _]}},
                           #{params := [{'N', 2}], result := #{values := [_, _]}}]},
                     erlperf_turns:result(Run)),
        gone(Run)
    end}.

%% A runner that crashes at once: the first turn is ended, the result is the crash.
crash_test_() ->
    {timeout, ?TIMEOUT_S, fun () ->
        Run = erlperf_turns:start(benchmark, [[#{runner => "erlang:error(boom)."}], ?OPTS,
                                              undefined]),
        ?assertEqual([ended, ended], [erlperf_turns:turn(Run) || _ <- lists:seq(1, 2)]),
        ?assertMatch({error, {error, {crashed, runner, {error, boom, _}}, [_ | _]}},
                     erlperf_turns:result(Run)),
        gone(Run)
    end}.

%% A runner that crashes in the middle of the run: the turn under way is ended (or, when
%% the job's end is seen only after the turn, the next one), never left waiting.
crash_mid_run_test_() ->
    {setup,
     fun () -> persistent_term:put(?CRASH_KEY, false) end,
     fun (_) -> persistent_term:erase(?CRASH_KEY) end,
     {timeout, ?TIMEOUT_S, fun () ->
         Run = erlperf_turns:start(benchmark, [[#{runner => ?CRASHING}], ?OPTS, undefined]),
         ?assertEqual([ok, ok], [erlperf_turns:turn(Run) || _ <- lists:seq(1, 2)]),
         persistent_term:put(?CRASH_KEY, true),
         Turns = [erlperf_turns:turn(Run) || _ <- lists:seq(1, 2)],
         ?assert(Turns =:= [ended, ended] orelse Turns =:= [ok, ended], Turns),
         ?assertMatch({error, {error, {crashed, runner, {error, boom, _}}, _}},
                      erlperf_turns:result(Run)),
         gone(Run)
     end}}.

%% Whether the run waits in its sampler's gate for a turn.
waiting(Run) ->
    case erlang:process_info(Run, current_function) of
        {current_function, {erlperf_turns, gate, 1}} -> true;
        _ -> false
    end.

%% The run's process has ended (its result was taken).
gone(Run) ->
    Ref = monitor(process, Run),
    receive
        {'DOWN', Ref, process, Run, _} -> ok
    after ?WAIT_MS ->
        ?assert(false, {still_running, Run, erlang:process_info(Run, current_function)})
    end.
