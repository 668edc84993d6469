%%% Runners that never return, or take long, through the real escript, in every mode that
%%% measures after the run (exact counts with --save and suites, --memory, several
%%% runners): each run ends within the documented bound (a call is waited for 100 times
%%% the run's time per call, at least 2 s and at most 60 s), a runner that never returns
%%% fails the run with exit 1 and one line naming it, the others' results stay, and a slow
%%% runner's batches are sized to its time per call.
-module(erlperf_stuck_SUITE).

-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, init_per_suite/1, end_per_suite/1]).
-export([never_returns_memory/1, never_returns_saved/1, never_returns_among_others/1,
         never_returns_in_suite/1, slow_runner_memory/1, never_returns_api/1,
         never_returns_plain/1]).

%% What a run that meets a stuck runner may take here: its samples, the 2 s wait, a VM's
%% start and stop, and a loaded test host's slack.
-define(STUCK_RUN_MS, 20000).
%% The runner that never returns.
-define(STUCK, "receive after infinity -> ok end.").

suite() ->
    [{timetrap, {minutes, 5}}].

all() ->
    [never_returns_memory, never_returns_saved, never_returns_among_others,
     never_returns_in_suite, slow_runner_memory, never_returns_api, never_returns_plain].

init_per_suite(Config) ->
    erlperf_test_lib:with_escript(Config).

end_per_suite(_Config) ->
    ok.

%%--------------------------------------------------------------------
%% Cases

%% --memory: the memory batch of a call that never returns is given up.
never_returns_memory(_Config) ->
    {1, Out, Ms} = timed([?STUCK, "--memory", "-d", "100", "-s", "1"]),
    ?assert(Ms < ?STUCK_RUN_MS, Ms),
    ?assertEqual(["erlperf: " ++ ?STUCK ++ ": a call did not return within 2 s while its memory "
                  "and time per call were measured after the run (a runner that never returns "
                  "cannot be counted)"], lines(Out)).

%% --save takes exact counts: the same bound.
never_returns_saved(Config) ->
    File = filename:join(proplists:get_value(priv_dir, Config), "stuck.json"),
    {1, Out, Ms} = timed([?STUCK, "-d", "100", "-s", "1", "--save", File]),
    ?assert(Ms < ?STUCK_RUN_MS, Ms),
    ?assertMatch(["erlperf: " ++ ?STUCK ++ ": a call did not return within 2 s while its exact "
                  "counts were measured" ++ _], lines(Out)),
    ?assertNot(filelib:is_regular(File)).

%% One runner of two never returns: it is named, the other's results are shown, exit 1.
never_returns_among_others(_Config) ->
    {1, Out, Ms} = timed([?STUCK, "rand:uniform().", "--memory", "-d", "100", "-s", "2"]),
    ?assert(Ms < 2 * ?STUCK_RUN_MS, Ms),
    ?assertEqual(1, length([L || L <- lines(Out), lists:prefix("erlperf: " ++ ?STUCK ++ ": a call did "
                                                               "not return within", L)]), Out),
    ?assertNotEqual(nomatch, string:find(Out, "rand:uniform()."), Out).

%% A suite whose benchmark never returns: exit 1 naming it, the other benchmark stored.
never_returns_in_suite(Config) ->
    Dir = proplists:get_value(priv_dir, Config),
    Suite = filename:join(Dir, "stuck_bench.erl"),
    ok = file:write_file(Suite, "-module(stuck_bench).\n-behaviour(erlperf_suite).\n"
                                "-export([benchmarks/0, stuck/0, fine/0]).\n"
                                "benchmarks() -> [#{name => \"stuck\", runner => stuck, options => #{samples => 2, sample_duration => 50}},\n"
                                "                 #{name => \"fine\", runner => fine, options => #{samples => 2, sample_duration => 50}}].\n"
                                "stuck() -> receive after infinity -> ok end.\n"
                                "fine() -> ok.\n"),
    Store = filename:join(Dir, "stuck_store"),
    {1, Out, Ms} = timed(["--suite", Suite, "--store", Store]),
    ?assert(Ms < 2 * ?STUCK_RUN_MS, Ms),
    ?assertMatch([_], [L || L <- lines(Out), lists:prefix("erlperf: stuck: ", L),
                            string:find(L, "a call did not return within 2 s") =/= nomatch]),
    {[#{<<"record">> := #{<<"runs">> := [#{<<"label">> := <<"fine">>}]}}], []} = erlperf_store:runs(Store).

%% A runner of 20 ms a call: its memory batch is sized to its time (10 calls of 200 ms,
%% not 1000 calls of 20 s), and the run says its bytes per call.
slow_runner_memory(_Config) ->
    {0, Out, Ms} = timed(["timer:sleep(20).", "--memory", "-d", "100", "-s", "2"]),
    ?assert(Ms < 10000, Ms),
    ?assertNotEqual(nomatch, string:find(Out, "timer:sleep(20)."), Out).

%% A plain run (nothing after it): every sample ends with a call in progress, none
%% returned: the table (0 calls), then exit 1 and one line naming it. The API still
%% returns 0 for it, as erlperf 2.3 does.
never_returns_plain(_Config) ->
    {1, Out, Ms} = timed([?STUCK, "-d", "100", "-s", "2"]),
    ?assert(Ms < ?STUCK_RUN_MS, Ms),
    ?assertEqual(["erlperf: " ++ ?STUCK ++ ": no call returned during the run (2 samples, a call "
                  "still in progress at its end): nothing was measured"], lines(Out)),
    %% beside the latency's note
    {1, Latency, _} = timed([?STUCK, "-d", "100", "-s", "2", "--latency"]),
    ?assertMatch([_], [L || L <- lines(Latency), string:find(L, "no call returned") =/= nomatch]),
    ?assertNotEqual(nomatch, string:find(Out, "Code"), Out),
    %% one that returns, slowly, is measured
    {0, _, _} = timed(["timer:sleep(30).", "-d", "100", "-s", "2"]),
    %% at a rate: calls started, none completed
    {1, Rate, RateMs} = timed([?STUCK, "-d", "100", "-s", "2", "--rate", "100"]),
    ?assert(RateMs < ?STUCK_RUN_MS, RateMs),
    ?assertMatch([_], [L || L <- lines(Rate), string:find(L, "no call returned") =/= nomatch]),
    {0, _, _} = timed(["timer:sleep(1).", "-d", "100", "-s", "2", "--rate", "100"]).

%% The API: the same bound, raised as an error erlperf explains in one line.
never_returns_api(_Config) ->
    T0 = erlang:monotonic_time(millisecond),
    Reason = try erlperf:run(#{runner => fun () -> receive after infinity -> ok end end},
                             #{counts => true, sample_duration => 50, samples => 1}) of
                 R -> {returned, R}
             catch error:E -> E
             end,
    ?assert(erlang:monotonic_time(millisecond) - T0 < ?STUCK_RUN_MS),
    ?assertMatch({unfinished, counts, _Label, 2000}, Reason),
    ?assertMatch("#Fun<" ++ _, erlperf:format_error(Reason)),
    ?assertNotEqual(nomatch, string:find(erlperf:format_error(Reason), "did not return within 2 s")).

%%--------------------------------------------------------------------
%% Helpers

%% The escript's status, output and how long it took (milliseconds).
timed(Args) ->
    T0 = erlang:monotonic_time(millisecond),
    {Status, Out} = erlperf_test_lib:escript(Args, []),
    {Status, Out, erlang:monotonic_time(millisecond) - T0}.

lines(Text) ->
    [L || L <- string:lexemes(Text, "\n"), lists:prefix("erlperf: ", L)].
