%%% Runners that never return, or take long, through the real escript, in every mode that
%%% measures after the run (exact counts with --save and suites, --memory, several
%%% runners): each run ends within the documented bound (a call is waited for 100 times
%%% the run's time per call, at least 2 s and at most 60 s), a runner that never returns
%%% fails the run with exit 1 and one line naming it, the others' results stay, and a slow
%%% runner's batches are sized to its time per call. A timed sample (-l), an init and a
%%% done that never return are stopped once they run nothing for 10 s (erlperf_progress),
%%% with one line and exit 1, leaving nothing behind.
-module(erlperf_stuck_SUITE).

-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, init_per_suite/1, end_per_suite/1]).
-export([never_returns_memory/1, never_returns_saved/1, never_returns_among_others/1,
         never_returns_in_suite/1, slow_runner_memory/1, never_returns_api/1,
         never_returns_plain/1, never_returns_timed/1, init_never_returns/1,
         done_never_returns/1, stuck_leaves_nothing/1, never_returns_against/1]).

%% What a run that meets a stuck runner may take here: its samples, the 2 s wait, a VM's
%% start and stop, and a loaded test host's slack.
-define(STUCK_RUN_MS, 20000).
%% What a run whose timed sample, init or done is stuck may take: the 10 s without
%% progress (erlperf_progress), a VM's start and stop, and a loaded test host's slack.
-define(NO_PROGRESS_RUN_MS, 30000).
%% The runner that never returns.
-define(STUCK, "receive after infinity -> ok end.").

suite() ->
    [{timetrap, {minutes, 5}}].

all() ->
    [never_returns_memory, never_returns_saved, never_returns_among_others,
     never_returns_in_suite, slow_runner_memory, never_returns_api, never_returns_plain,
     never_returns_timed, init_never_returns, done_never_returns, stuck_leaves_nothing,
     never_returns_against].

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
    ?assertMatch({call_not_returned, counts, _Label, 2000}, Reason),
    ?assertMatch("#Fun<" ++ _, erlperf:format_error(Reason)),
    ?assertNotEqual(nomatch, string:find(erlperf:format_error(Reason), "did not return within 2 s")).

%% A timed run (-l) of a runner that never returns: its sample is given up once the
%% worker has run nothing for 10 s; one line, exit 1. With another runner, the other's
%% results stay. A slow one (20 ms a call, its worker sleeping and waking) is timed.
never_returns_timed(_Config) ->
    {1, Out, Ms} = timed([?STUCK, "-l", "10"]),
    ?assert(Ms < ?NO_PROGRESS_RUN_MS, Ms),
    ?assertEqual(["erlperf: " ++ ?STUCK ++ ": a timed sample (-l) of its runner ran nothing for "
                  "10 s and was stopped (code that never returns: it waits for what never comes)"],
                 lines(Out)),
    {1, Two, _} = timed([?STUCK, "rand:uniform().", "-l", "100"]),
    ?assertMatch([_], [L || L <- lines(Two), string:find(L, "ran nothing for 10 s") =/= nomatch]),
    ?assertNotEqual(nomatch, string:find(Two, "rand:uniform()."), Two),
    {0, _, SlowMs} = timed(["timer:sleep(20).", "-l", "20", "-s", "2"]),
    ?assert(SlowMs < ?NO_PROGRESS_RUN_MS, SlowMs).

%% An init that never returns: stopped after 10 s without progress, one line, exit 1;
%% an init that works (waits on a process that computes) is waited for.
init_never_returns(_Config) ->
    {1, Out, Ms} = timed(["ok.", "--init", ?STUCK]),
    ?assert(Ms < ?NO_PROGRESS_RUN_MS, Ms),
    ?assertEqual(["erlperf: ok.: its init ran nothing for 10 s and was stopped (code that never "
                  "returns: it waits for what never comes)"], lines(Out)),
    %% the isolated node the same
    {1, Isolated, _} = timed(["ok.", "--init", ?STUCK, "-i"]),
    ?assertMatch([_], [L || L <- lines(Isolated), string:find(L, "its init ran nothing") =/= nomatch]).

%% A done that never returns: the run is measured, then stopped after 10 s of its done
%% without progress; exit 1, one line.
done_never_returns(_Config) ->
    {1, Out, Ms} = timed(["ok.", "--done", ?STUCK, "-d", "100", "-s", "2"]),
    ?assert(Ms < ?NO_PROGRESS_RUN_MS, Ms),
    ?assertEqual(["erlperf: ok.: its done ran nothing for 10 s and was stopped (code that never "
                  "returns: it waits for what never comes)"], lines(Out)).

%% Through the API: an init, a timed sample and a done that never return are errors
%% erlperf explains in one line naming the runner, and leave no job, worker or
%% generated module behind. An init that waits on a process that computes for 12 s is
%% no hang: the process it calls shows the progress.
stuck_leaves_nothing(_Config) ->
    Before = {generated(), length(processes())},
    Stuck = fun () -> receive after infinity -> ok end end,
    Cases = [{init, #{runner => fun () -> ok end, init => Stuck}, #{}},
             {timed, #{runner => Stuck}, #{sample_duration => {timed, 10}, samples => 1}},
             {done, #{runner => fun () -> ok end, done => fun () -> Stuck() end},
              #{samples => 1, sample_duration => 50}}],
    [begin
         Reason = try erlperf:run(Code, Opts) of R -> {returned, R} catch error:E -> E end,
         ?assertMatch({call_not_returned, What, _Label, 10000}, Reason),
         ?assertMatch("#Fun<" ++ _, erlperf:format_error(Reason))
     end || {What, Code, Opts} <- Cases],
    %% everything gone: processes settle once the killed ones are reaped
    ?assertEqual(element(1, Before), generated()),
    ?assert(length(processes()) =< element(2, Before) + 2),
    Busy = "fun () -> Server = spawn(fun () -> receive {go, From} -> "
           "Until = erlang:monotonic_time(millisecond) + 12000, "
           "(fun Spin() -> case erlang:monotonic_time(millisecond) < Until of true -> "
           "erlang:phash2(lists:seq(1, 100)), Spin(); false -> From ! done end end)() end end), "
           "Server ! {go, self()}, Mon = erlang:monitor(process, Server), "
           "receive done -> erlang:demonitor(Mon), ok end end().",
    ?assert(is_integer(erlperf:run(#{runner => "ok.", init => Busy}, #{samples => 1, sample_duration => 50}))).

%% A suite against a git revision whose benchmark never returns: exit 1, one line naming
%% the benchmark once (its name, where it ran, why), within the bound of its runs.
never_returns_against(Config) ->
    Dir = filename:join(proplists:get_value(priv_dir, Config), "against_repo"),
    ok = filelib:ensure_dir(filename:join([Dir, "bench", "x"])),
    ok = file:write_file(filename:join([Dir, "bench", "hang_bench.erl"]),
                         "-module(hang_bench).\n-behaviour(erlperf_suite).\n"
                         "-export([benchmarks/0, stuck/0]).\n"
                         "benchmarks() -> [#{name => \"stuck\", runner => stuck}].\n"
                         "stuck() -> receive after infinity -> ok end.\n"),
    Git = "cd " ++ Dir ++ " && git init -q && git add -A && git -c user.email=t@e -c user.name=t "
          "commit -qm one && echo done",
    ?assertEqual("done\n", os:cmd(Git)),
    T0 = erlang:monotonic_time(millisecond),
    {Status, Out} = erlperf_test_lib:escript(["--suite", "bench", "--against", "HEAD",
                                             "--fail-on-regression", "3"], [], Dir),
    Ms = erlang:monotonic_time(millisecond) - T0,
    ?assertEqual(1, Status, Out),
    ?assert(Ms < 120000, Ms),
    [Line] = [L || L <- lines(Out), string:find(L, "did not return") =/= nomatch],
    ?assertMatch("erlperf: stuck" ++ _, Line),
    ?assertEqual(nomatch, string:find(Line, "stuck: stuck"), Line).

%%--------------------------------------------------------------------
%% Helpers

generated() ->
    lists:sort([M || {M, _} <- code:all_loaded(), is_generated(atom_to_list(M))]).

is_generated("erlperf_job_" ++ Rest) -> not lists:member(Rest, ["code", "counters", "measurer"]);
is_generated(_) -> false.

%% The escript's status, output and how long it took (milliseconds).
timed(Args) ->
    T0 = erlang:monotonic_time(millisecond),
    {Status, Out} = erlperf_test_lib:escript(Args, []),
    {Status, Out, erlang:monotonic_time(millisecond) - T0}.

lines(Text) ->
    [L || L <- string:lexemes(Text, "\n"), lists:prefix("erlperf: ", L)].
