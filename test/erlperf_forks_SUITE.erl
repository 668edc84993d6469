%%% @doc Forked runs (the `forks' run option, {@link erlperf_forks}), for real: short runs
%%% of 20 ms samples.
%%%
%%% What a fork starts is seen from the inside: the codes' `init' prints which code it
%%% is, its generated module, its job process and its OS process, and `init_runner' its
%%% job and worker. Those lines are captured from the group leader of the caller, which
%%% the job processes and the peer nodes print to; a last line printed after the run
%%% marks the end of them (the capturing io server handles requests in order).
%%%
%%% Groups:
%%% <ul>
%%%   <li>`options' (parallel): errors raised before anything runs.</li>
%%%   <li>`runs' (sequential, they measure): the merged report, fresh jobs and peer
%%%       nodes per fork, the order of codes, after-run measures, comparisons, shapes,
%%%       progress.</li>
%%%   <li>`cleanup' (sequential, it counts the generated modules of the node): a runner
%%%       crashing in the second fork.</li>
%%% </ul>
-module(erlperf_forks_SUITE).

-include_lib("stdlib/include/assert.hrl").
-include_lib("common_test/include/ct.hrl").

-export([suite/0, all/0, groups/0]).
-export([incompatible/0, merged_report/0, timed_samples/0, fresh_jobs/0, order_sequential/0,
         order_parallel/0, memory_last_fork/0, isolated_forks/0, compare_forks/0,
         compare_auto/0, compare_single_run/0, shapes/0, progress/0, crash_in_fork_two/0]).
-export([incompatible/1, merged_report/1, timed_samples/1, fresh_jobs/1, order_sequential/1,
         order_parallel/1, memory_last_fork/1, isolated_forks/1, compare_forks/1,
         compare_auto/1, compare_single_run/1, shapes/1, progress/1, crash_in_fork_two/1]).

%% Milliseconds per sample of every run here.
-define(SAMPLE_MS, 20).
%% Milliseconds to wait for a captured line.
-define(LINE_TIMEOUT_MS, 10000).
%% The line printed after a run, marking the end of its lines.
-define(END_LINE, "end of run").

suite() ->
    [{timetrap, {seconds, 120}}].

all() ->
    [{group, options}, {group, runs}, {group, cleanup}].

groups() ->
    [{options, [parallel], [incompatible]},
     {runs, [], [merged_report, timed_samples, fresh_jobs, order_sequential, order_parallel,
                 memory_last_fork, isolated_forks, compare_forks, compare_auto,
                 compare_single_run, shapes, progress]},
     {cleanup, [], [crash_in_fork_two]}].

%%--------------------------------------------------------------------
%% Cases

incompatible() ->
    [{doc, "More forks than samples, or forks with nodes, cv or a concurrency estimation, are "
           "refused with the documented errors, before anything runs"}].
incompatible(Config) when is_list(Config) ->
    Code = ["rand:uniform()."],
    ?assertError({incompatible_options, forks, 8, {samples, 7}},
                 erlperf:benchmark(Code, #{forks => 8, samples => 7}, undefined)),
    ?assertError({incompatible_options, forks, 2, nodes},
                 erlperf:benchmark(Code, #{forks => 2, nodes => [node()]}, undefined)),
    ?assertError({incompatible_options, forks, 2, cv},
                 erlperf:benchmark(Code, #{forks => 2, cv => 0.05}, undefined)),
    ?assertError({incompatible_options, forks, 2, concurrency_estimation},
                 erlperf:benchmark(Code, #{forks => 2}, #{max => 2})),
    ?assertError({incompatible_options, forks, 2, {samples, 1}},
                 erlperf:benchmark(Code, #{forks => 2, sample_duration => undefined}, undefined)).

merged_report() ->
    [{doc, "forks => 3 with 7 samples: forks of 3, 2 and 2 samples, merged into one report of "
           "7 values, one counter and the interval of the fork means"}].
merged_report(Config) when is_list(Config) ->
    [#{result := Result, run_options := RunOptions}] =
        erlperf:benchmark(["rand:uniform()."], fast(#{forks => 3, samples => 7, report => full}),
                          undefined),
    #{values := Values, samples := Counter, ci := Ci, forks := Forks} = Result,
    ?assertMatch(#{samples := 7, forks := 3}, RunOptions),
    ?assertMatch(#{forks := 3, sizes := [3, 2, 2]}, Forks),
    ?assertEqual(7, length(Values)),
    ?assertEqual([erlperf_stat:mean(F) || F <- erlperf_stat:split(Values, [3, 2, 2])],
                 maps:get(means, Forks)),
    ?assertMatch([0 | _], Counter),
    ?assertEqual(8, length(Counter)),
    ?assertEqual(lists:sort(Counter), Counter),
    ?assertEqual(erlperf_stat:interval(Values, [3, 2, 2], 95, maps:get(run_noise, RunOptions)), Ci).

timed_samples() ->
    [{doc, "Timed mode: the raw samples are every fork's readings in turn, each its value "
           "rounded to whole microseconds"}].
timed_samples(Config) when is_list(Config) ->
    Opts = #{forks => 3, samples => 5, sample_duration => {timed, 1000}, report => full},
    [#{mode := timed, result := #{samples := Samples, values := Values, forks := Forks}}] =
        erlperf:benchmark(["rand:uniform()."], Opts, undefined),
    ?assertMatch(#{sizes := [2, 2, 1]}, Forks),
    ?assertEqual([round(V) || V <- Values], Samples),
    ?assertEqual(5, length(Values)).

fresh_jobs() ->
    [{doc, "Each fork loads a freshly generated module in a new job with new workers, and "
           "nothing of them is left after the run: a module of its own without the compile "
           "cache, the cached module loaded again (the same name) with it"}].
fresh_jobs(Config) when is_list(Config) ->
    Cache = filename:join(?config(priv_dir, Config), "cache"),
    Was = application:get_env(erlperf, compile_cache),
    try
        [begin
             case Dir of
                 off -> application:unset_env(erlperf, compile_cache);
                 _ -> application:set_env(erlperf, compile_cache, Dir)
             end,
             {_, Lines} = run_traced([traced("a")], #{forks => 3, samples => 3}),
             Inits = [parse_init(L) || "init " ++ _ = L <- Lines],
             Workers = [parse_worker(L) || "worker " ++ _ = L <- Lines],
             ?assertEqual(Names, length(lists:usort([M || {_, M, _, _} <- Inits])), {Dir, Inits}),
             ?assertEqual(3, length(lists:usort([J || {_, _, J, _} <- Inits])), Inits),
             %% one worker per fork (concurrency 1), each of its fork's job
             ?assertEqual([J || {_, _, J, _} <- Inits], [J || {_, J, _} <- Workers]),
             assert_gone(Inits, Workers)
         end || {Dir, Names} <- [{off, 3}, {Cache, 1}]]
    after
        case Was of
            {ok, Value} -> application:set_env(erlperf, compile_cache, Value);
            undefined -> application:unset_env(erlperf, compile_cache)
        end
    end.

order_sequential() ->
    [{doc, "compare => sequential: the codes take turns fork by fork, A B, B A, A B"}].
order_sequential(Config) when is_list(Config) ->
    ?assertEqual(["a", "b", "b", "a", "a", "b"], init_order(sequential)).

order_parallel() ->
    [{doc, "compare => parallel: the jobs start in the codes' order in odd forks, reversed "
           "in even ones; the reports stay in the codes' order"}].
order_parallel(Config) when is_list(Config) ->
    ?assertEqual(["a", "b", "b", "a", "a", "b"], init_order(parallel)).

memory_last_fork() ->
    [{doc, "memory => true: the cost per call is measured once, after the last fork (only "
           "its job starts workers besides the one of the run)"}].
memory_last_fork(Config) when is_list(Config) ->
    {[#{result := Result}], Lines} =
        run_traced([traced("a")], #{forks => 3, samples => 3, memory => true, report => full}),
    ?assertMatch(#{cost := #{}}, Result),
    Jobs = [J || {_, _, J, _} <- [parse_init(L) || "init " ++ _ = L <- Lines]],
    Workers = [J || {_, J, _} <- [parse_worker(L) || "worker " ++ _ = L <- Lines]],
    [One, Two, Last] = [length([W || W <- Workers, W =:= J]) || J <- Jobs],
    ?assertEqual({1, 1}, {One, Two}),
    ?assert(Last > 1, Last).

isolated_forks() ->
    [{doc, "isolation => #{} with forks => 2: every fork of every code runs in a peer node "
           "of its own"}].
isolated_forks(Config) when is_list(Config) ->
    {Results, Lines} = run_traced([traced("a"), traced("b")],
                                  #{forks => 2, samples => 2, isolation => #{}}),
    ?assertMatch([A, B] when is_integer(A) andalso is_integer(B), Results),
    Inits = [parse_init(L) || "init " ++ _ = L <- Lines],
    OsPids = [{Tag, Os} || {Tag, _, _, Os} <- Inits],
    ?assertEqual(["a", "a", "b", "b"], lists:sort([Tag || {Tag, _} <- OsPids])),
    ?assertEqual(4, length(lists:usort([Os || {_, Os} <- OsPids])), OsPids),
    ?assertNot(lists:keymember(os:getpid(), 2, OsPids), OsPids).

compare_forks() ->
    [{doc, "Two codes in a full report with forks => 4: the verdict is the paired test of "
           "the fork means, labelled with its basis"}].
compare_forks(Config) when is_list(Config) ->
    Reports = erlperf:benchmark(["rand:uniform().", "lists:seq(1, 50)."],
                                fast(#{forks => 4, samples => 8, report => full}), undefined),
    [#{result := Base}] = [R || R <- Reports, not is_map_key(comparison, R)],
    [#{result := Other, comparison := Comparison}] = [R || #{comparison := _} = R <- Reports],
    ?assertMatch(#{basis := forks, forks := 4, test := paired}, Comparison),
    Expected = erlperf_stat:compare(fork_means(Base), fork_means(Other),
                                    #{test => paired, confidence => 95, noise => 1}),
    Keys = [p, change_pct, ci_pct, verdict, significant],
    ?assertEqual(maps:with(Keys, Expected), maps:with(Keys, Comparison)).

compare_auto() ->
    [{doc, "forks => auto (the default) forks a full report comparing codes: 3 samples, 3 forks"}].
compare_auto(Config) when is_list(Config) ->
    Reports = erlperf:benchmark(["rand:uniform().", "lists:seq(1, 50)."],
                                fast(#{report => full}), undefined),
    ?assertMatch([#{run_options := #{forks := 3}, result := #{forks := #{sizes := [1, 1, 1]}}},
                  #{run_options := #{forks := 3}}], Reports),
    ?assertMatch([#{basis := forks, forks := 3}], [C || #{comparison := C} <- Reports]).

compare_single_run() ->
    [{doc, "forks => 1: a single run, compared sample by sample, and labelled so"}].
compare_single_run(Config) when is_list(Config) ->
    Reports = erlperf:benchmark(["rand:uniform().", "lists:seq(1, 50)."],
                                fast(#{forks => 1, report => full}), undefined),
    [Comparison] = [C || #{comparison := C} <- Reports],
    ?assertMatch(#{basis := single_run, test := paired}, Comparison),
    ?assertNot(is_map_key(forks, Comparison)),
    ?assertEqual([false, false], [is_map_key(forks, R) || #{result := R} <- Reports]).

shapes() ->
    [{doc, "basic and extended reports keep their shapes with forks: an integer per code, and "
           "as many integers as samples"}].
shapes(Config) when is_list(Config) ->
    Codes = ["rand:uniform().", "lists:seq(1, 50)."],
    ?assertMatch([A, B] when is_integer(A) andalso is_integer(B),
                 erlperf:benchmark(Codes, fast(#{forks => 3}), undefined)),
    [Extended] = erlperf:benchmark(["rand:uniform()."], fast(#{forks => 3, samples => 7,
                                                               report => extended}), undefined),
    ?assertEqual(7, length(Extended)),
    ?assert(lists:all(fun is_integer/1, Extended), Extended).

progress() ->
    [{doc, "The progress fun hears of each fork before its samples: fork I of 3, in order; "
           "the first fork's warmup (500 ms of samples) before its sample, no other's"}].
progress(Config) when is_list(Config) ->
    Self = self(),
    Opts = fast(#{forks => 3, samples => 3, progress => fun (Event) -> Self ! {progress, Event} end}),
    [_] = erlperf:benchmark(["rand:uniform()."], Opts, undefined),
    Events = progress_events(),
    Warmups = (500 + ?SAMPLE_MS - 1) div ?SAMPLE_MS,
    ?assertMatch([{fork, 1, 3}], lists:sublist(Events, 1)),
    ?assertEqual([{warmup, I, Warmups} || I <- lists:seq(1, Warmups)],
                 lists:sublist(Events, 2, Warmups)),
    ?assertMatch([{sample, 1, 1, _}, {fork, 2, 3}, {sample, 1, 1, _},
                  {fork, 3, 3}, {sample, 1, 1, _}], lists:nthtail(1 + Warmups, Events)).

crash_in_fork_two() ->
    [{doc, "A runner crashing in the second fork raises {crashed, runner, _}; no job process, "
           "worker or generated module is left, and the third fork never starts"}].
crash_in_fork_two(Config) when is_list(Config) ->
    ?MODULE = ets:new(?MODULE, [named_table, public]),
    true = ets:insert(?MODULE, {fork, 0}),
    Before = generated_modules(),
    {{error, {crashed, runner, {error, fork_two, _}}}, Lines} =
        run_traced([crashing_in_fork_two()], #{forks => 3, samples => 3}),
    Inits = [parse_init(L) || "init " ++ _ = L <- Lines],
    ?assertEqual(2, length(Inits), Lines),
    assert_gone(Inits, [parse_worker(L) || "worker " ++ _ = L <- Lines]),
    ?assertEqual(Before, generated_modules()).

%%--------------------------------------------------------------------
%% Helpers

fast(Opts) ->
    Opts#{sample_duration => ?SAMPLE_MS}.

%% A code whose init prints "init Tag Module Job OsPid" (which code, its generated
%% module, its job process and OS process) and returns the job, which init_runner prints
%% as "worker Tag Job Worker".
traced(Tag) ->
    #{init => "{module, M} = erlang:fun_info(fun () -> ok end, module), "
              "io:put_chars(io_lib:format(\"init " ++ Tag ++ " ~s ~p ~s~n\", [M, self(), os:getpid()])), self().",
      init_runner => "ir(Job) -> io:put_chars(io_lib:format(\"worker " ++ Tag ++ " ~p ~p~n\", [Job, self()])).",
      runner => "rand:uniform()."}.

%% A code traced as above whose runner crashes in the second fork (init counts the forks
%% in the case's ets table, and gives the count to the runner through init_runner).
crashing_in_fork_two() ->
    #{init => "N = ets:update_counter(erlperf_forks_SUITE, fork, 1), "
              "{module, M} = erlang:fun_info(fun () -> ok end, module), "
              "io:put_chars(io_lib:format(\"init crash ~s ~p ~s~n\", [M, self(), os:getpid()])), {self(), N}.",
      init_runner => "ir({Job, N}) -> io:put_chars(io_lib:format(\"worker crash ~p ~p~n\", [Job, self()])), N.",
      runner => "r(2) -> erlang:error(fork_two); r(N) -> N."}.

%% Runs the benchmark with its output captured: the results (or {error, Reason}) and the
%% lines printed during the run, in order.
run_traced(Codes, Opts) ->
    Capture = erlperf_test_lib:capture(),
    Old = group_leader(),
    true = group_leader(Capture, self()),
    Results = try erlperf:benchmark(Codes, fast(Opts), undefined)
              catch error:Reason -> {error, Reason}
              after group_leader(Old, self())
              end,
    ok = io:put_chars(Capture, ?END_LINE "\n"),
    {Results, captured([])}.

captured(Lines) ->
    receive
        {log_line, ?END_LINE} -> lists:reverse(Lines);
        {log_line, Line} -> captured([Line | Lines])
    after ?LINE_TIMEOUT_MS ->
        ct:fail({no_end_line, lists:reverse(Lines)})
    end.

%% "init Tag Module Job OsPid" -> {Tag, Module, Job, OsPid}
parse_init(Line) ->
    ["init", Tag, Module, Job, OsPid] = string:lexemes(Line, " "),
    {Tag, list_to_atom(Module), list_to_pid(Job), OsPid}.

%% "worker Tag Job Worker" -> {Tag, Job, Worker}
parse_worker(Line) ->
    ["worker", Tag, Job, Worker] = string:lexemes(Line, " "),
    {Tag, list_to_pid(Job), list_to_pid(Worker)}.

%% The tags of the inits of a run of codes a and b in 3 forks, in the order they ran.
init_order(Compare) ->
    {[_, _], Lines} = run_traced([traced("a"), traced("b")],
                                 #{forks => 3, samples => 3, compare => Compare}),
    [Tag || {Tag, _, _, _} <- [parse_init(L) || "init " ++ _ = L <- Lines]].

%% The jobs and workers seen are gone, and so are their generated modules.
assert_gone(Inits, Workers) ->
    Pids = [J || {_, _, J, _} <- Inits] ++ [W || {_, _, W} <- Workers],
    ?assertEqual([], [P || P <- Pids, is_process_alive(P)]),
    ?assertEqual([], [M || {_, M, _, _} <- Inits, code:is_loaded(M) =/= false]).

generated_modules() ->
    lists:sort([M || {M, _} <- code:all_loaded(), erlperf_job_code:is_generated(M)]).

fork_means(#{forks := #{means := Means}}) ->
    Means.

%% The progress events received so far (the run calls the progress fun in this process).
progress_events() ->
    receive
        {progress, Event} -> [Event | progress_events()]
    after 0 ->
        []
    end.
