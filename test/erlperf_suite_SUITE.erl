%%% Benchmark suites through the real escript: `--suite' runs, the results store, the
%%% comparison with the previous run, named baselines, the regression gate, and hostile
%%% input (a suite that does not compile, a crashing benchmark, a corrupted store file,
%%% one written by a newer erlperf, two runs at once).
-module(erlperf_suite_SUITE).

-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).
-export([first_then_compared/0, first_then_compared/1,
         planted_slowdown/0, planted_slowdown/1,
         repeated_runs/0, repeated_runs/1,
         named_baseline/0, named_baseline/1,
         filter/0, filter/1,
         usage_errors/0, usage_errors/1,
         not_compiling/0, not_compiling/1,
         crashing_benchmark/0, crashing_benchmark/1,
         corrupted_store/0, corrupted_store/1,
         newer_store/0, newer_store/1,
         two_at_once/0, two_at_once/1,
         suite_api/0, suite_api/1,
         history_step/0, history_step/1,
         sample_duration_changed/0, sample_duration_changed/1,
         same_code/0, same_code/1]).

%% The example's benchmark the timing cases run (one, to keep them short).
-define(SORT, "lists:sort/1 of 1000 floats").
-define(SORT_FILTER, "^lists:sort/1").

suite() ->
    [{timetrap, {minutes, 5}}].

all() ->
    [{group, runs}, {group, hostile}, suite_api, history_step].

groups() ->
    [{runs, [], [first_then_compared, planted_slowdown, repeated_runs, named_baseline,
                 filter, sample_duration_changed, same_code]},
     {hostile, [parallel], [usage_errors, not_compiling, crashing_benchmark, corrupted_store,
                            newer_store, two_at_once]}].

init_per_suite(Config) ->
    case erlperf_test_lib:with_escript(Config) of
        {skip, _} = Skip -> Skip;
        With -> [{browser, erlperf_browser:find()} | With]
    end.

end_per_suite(_Config) ->
    ok.

%%--------------------------------------------------------------------
%% Runs of the example

first_then_compared() ->
    [{doc, "The example suite: the first run stores itself and says there is nothing to "
           "compare with; the second is compared with the first, benchmark by benchmark"}].
first_then_compared(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    {0, First} = suite(Store, [example()]),
    ?assertEqual(4, count("first run, nothing to compare with", First), First),
    [Table | _] = string:split(First, "\n" ++ ?SORT ++ ":"),
    [?assertNotEqual(nomatch, string:find(Table, Name)) || Name <- [?SORT, "lists:seq/2 (N=100)",
                                                                    "lists:seq/2 (N=10000)"]],
    {0, Second} = suite(Store, [example()]),
    ?assertEqual(4, count("against the previous run (", Second), Second),
    ?assertEqual(2, length(runs(Store))).

planted_slowdown() ->
    [{doc, "A benchmark doing fifteen times the waiting is called regressed, and "
           "--fail-on-regression 20 exits 3 naming it (a suite that sleeps: what other test legs "
           "do to the CPU cannot blur it; make bench-suites measures how often the example's "
           "sort doing twice the work is caught on a quiet machine)"}].
planted_slowdown(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    {0, _} = suite(Store, [sleeper(Config, 2)]),
    {3, Out} = suite(Store, [sleeper(Config, 30), "--fail-on-regression", "20"]),
    ?assertNotEqual(nomatch, string:find(Out, "wait: regressed: "), Out),
    ?assertNotEqual(nomatch, string:find(Out, "erlperf: regression: wait is "), Out),
    %% both runs are kept: the regressed one too
    ?assertEqual(2, length(runs(Store))).

repeated_runs() ->
    [{doc, "Each of several runs is compared with the one just before it (the store's "
           "newest run that has the benchmark), and the store keeps them all"}].
repeated_runs(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    Outs = [suite(Store, [example(), "--filter", ?SORT_FILTER]) || _ <- lists:seq(1, 4)],
    ?assertEqual([0, 0, 0, 0], [S || {S, _} <- Outs]),
    Times = [T || #{<<"time">> := T} <- runs(Store)],
    ?assertEqual(4, length(lists:usort(Times))),
    %% run k names run k-1's time as the previous run
    [?assertMatch({match, _}, re:run(Out, "against the previous run \\((.......\\+?, )?"
                                          ++ when_text(T) ++ " UTC\\)"), Out)
     || {{_, Out}, T} <- lists:zip(tl(Outs), lists:droplast(Times))].

named_baseline() ->
    [{doc, "--save-baseline NAME keeps a run under a name; --baseline NAME compares with "
           "it, not with the previous run"}].
named_baseline(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    {0, _} = suite(Store, [example(), "--filter", ?SORT_FILTER, "--save-baseline", "v1.0"]),
    ?assert(filelib:is_regular(filename:join([Store, "baselines", "v1.0.json"]))),
    {0, _} = suite(Store, [example(), "--filter", ?SORT_FILTER]),
    {0, Out} = suite(Store, [example(), "--filter", ?SORT_FILTER, "--baseline", "v1.0"]),
    ?assertEqual(1, count("against baseline v1.0 (", Out), Out),
    ?assertEqual(0, count("against the previous run", Out), Out).

filter() ->
    [{doc, "--filter runs only the matching benchmarks; the others keep their previous run"}].
filter(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    {0, Out} = suite(Store, [example(), "--filter", "seq"]),
    ?assertEqual(nomatch, string:find(Out, ?SORT), Out),
    ?assertEqual(2, count("first run", Out), Out),
    [#{<<"record">> := #{<<"runs">> := Runs}}] = runs(Store),
    ?assertEqual([<<"lists:seq/2">>, <<"lists:seq/2">>], [L || #{<<"label">> := L} <- Runs]).

sample_duration_changed() ->
    [{doc, "A benchmark whose sample_duration went from 100 to 200 ms between two runs (twice "
           "the calls a sample) is compared per second: no change, not 100% faster (a noise "
           "floor of 20% takes the sleeper's jitter), and the record says which option "
           "changed"}].
sample_duration_changed(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    {0, _} = suite(Store, [sleeper(Config, 2, #{samples => 6, sample_duration => 100})]),
    Json = filename:join(proplists:get_value(priv_dir, Config), "sample_duration_changed.json"),
    {0, Out} = suite(Store, [sleeper(Config, 2, #{samples => 6, sample_duration => 200}),
                             "--noise", "20", "-o", Json]),
    ?assertNotEqual(nomatch, string:find(Out, "per second: sample_duration 100 -> 200 ms"), Out),
    {ok, Bytes} = file:read_file(Json),
    {ok, #{<<"runs">> := [#{<<"sample_duration">> := 200, <<"baselines">> := [Baseline]}]}} =
        erlperf_json:decode(Bytes),
    ?assertMatch(#{<<"options">> := [#{<<"key">> := <<"sample_duration">>, <<"baseline">> := 100,
                                       <<"run">> := 200}]}, Baseline),
    %% per second, the same: no change (throughput per sample would say twice as fast);
    %% on a host loaded between the runs (CI's three legs at once) the verdict may stand
    %% aside, inconclusive, but never calls it faster or slower
    #{<<"change_pct">> := Change, <<"verdict">> := Verdict} = Baseline,
    case Verdict of
        <<"no_difference">> ->
            ?assertNotEqual(nomatch, string:find(Out, "wait: no change: "), Out),
            ?assert(abs(Change) < 20, Change);
        <<"inconclusive">> ->
            ?assert(abs(Change) < 50, Change),
            {comment, "inconclusive: the host's load moved between the runs"}
    end.

%%--------------------------------------------------------------------
%% Hostile input

same_code() ->
    [{doc, "The same code (its fingerprint) waiting twice as long, as the environment "
           "tells it (a change in time alone: the same counts): no change, the time's move said "
           "and not the code's, exit 0 under --fail-on-regression; the code changed: its time "
           "decides, regressed, exit 3"}].
same_code(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    Code = fun (Extra) ->
                   io_lib:format("-module(env_wait_bench).~n-behaviour(erlperf_suite).~n"
                                 "-export([benchmarks/0, input/0, wait/1]).~n"
                                 "benchmarks() -> [#{name => \"wait\", runner => wait, init_runner => input, "
                                 "options => #{samples => 20, sample_duration => 100}}].~n"
                                 "input() -> list_to_integer(os:getenv(\"FP_WAIT\")).~n"
                                 "wait(Ms) -> ~tsreceive after Ms -> ok end.~n",
                                 [Extra])
           end,
    File = write(Config, "env_wait_bench.erl", Code("")),
    Run = fun (F, Ms) -> erlperf_test_lib:escript(["--suite", F, "--store", Store, "--fail-on-regression", "20"],
                                                  [{"FP_WAIT", integer_to_list(Ms)}]) end,
    %% 1 and 2 ms: a count batch of 20 ms holds 10 calls or more, enough for steady counts
    {0, _} = Run(File, 1),
    {0, Out} = Run(File, 2),
    ?assertNotEqual(nomatch, string:find(Out, "wait: no change: the same code (its fingerprint unchanged, "
                                              "no exact count changed); its time "), Out),
    [F1, F2] = [F || #{<<"record">> := #{<<"runs">> := [#{<<"fingerprint">> := F}]}} <- runs(Store)],
    ?assertMatch(<<_:32/binary>>, F1),
    ?assertEqual(F1, F2),
    %% another code: its time decides
    Changed = write(Config, "env_wait_bench.erl", Code("receive after Ms -> ok end, ")),
    {3, Regressed} = Run(Changed, 2),
    ?assertNotEqual(nomatch, string:find(Regressed, "wait: regressed: "), Regressed),
    [_, _, F3] = [F || #{<<"record">> := #{<<"runs">> := [#{<<"fingerprint">> := F}]}} <- runs(Store)],
    ?assertNotEqual(F1, F3).

usage_errors() ->
    [{doc, "Suite options that cannot work are usage errors (exit 2, one line)"}].
usage_errors(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    Halting = filename:join(proplists:get_value(priv_dir, Config), "halting_bench.erl"),
    ok = file:write_file(Halting, "-module(halting_bench).\n-export([benchmarks/0, stopper/0]).\n"
                                  "benchmarks() -> [#{name => \"stops\", runner => stopper}].\n"
                                  "stopper() -> init:stop().\n"),
    Cases = [{["--suite", Halting], "calls init:stop/0, which would stop erlperf's own VM"},
             {["--suite", example(), "ok."], "a runner argument and --suite cannot be combined"},
             {["--filter", "x", "ok."], "--filter needs --suite"},
             {["--suite", example(), "--filter", "("], "--filter: '(' is not a regular expression"},
             {["--suite", example(), "--filter", "nothing matches this"],
              "no benchmark name matches --filter"},
             {["--suite", example(), "--save-baseline", "../x"], "is not a baseline name"},
             %% refused before the suite runs, not when its file cannot be written
             {["--suite", example(), "--save-baseline", lists:duplicate(201, $b)], "at most 200 characters"},
             {["--suite", example(), "-q"], "cannot be combined"},
             {["--suite", example(), "--baseline", "missing"], "no baseline of that name"},
             {["--suite", filename:join(Store, "none.erl")], "no such file"},
             {["--suite", Store], "no .erl files"}],
    ok = file:make_dir(Store),
    [begin
         {Status, Out} = erlperf_test_lib:escript(Args ++ ["--store", Store], []),
         ?assertEqual({2, true, 1}, {Status, string:find(Out, Expected) =/= nomatch, lines(Out)},
                      {Args, Out})
     end || {Args, Expected} <- Cases],
    ?assertEqual([], runs(Store)).

not_compiling() ->
    [{doc, "A suite that does not compile: exit 2, one line naming the file and line"}].
not_compiling(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    File = write(Config, "broken_bench.erl",
                 "-module(broken_bench).\n-export([benchmarks/0]).\nbenchmarks() -> [#{name => 1}\n"),
    {2, Out} = suite(Store, [File]),
    ?assertEqual(1, lines(Out), Out),
    ?assertNotEqual(nomatch, string:find(Out, "broken_bench.erl does not compile: broken_bench.erl:"), Out),
    ?assertEqual(false, code:is_loaded(broken_bench)).

crashing_benchmark() ->
    [{doc, "A benchmark that crashes: one line, exit 1, and the others' results are still "
           "shown and stored"}].
crashing_benchmark(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    File = write(Config, "crash_bench.erl",
                 "-module(crash_bench).\n-behaviour(erlperf_suite).\n-export([benchmarks/0, boom/0, fine/0]).\n"
                 "benchmarks() -> [#{name => \"boom\", runner => boom, options => #{samples => 2, sample_duration => 50}},\n"
                 "  #{name => \"fine\", runner => fine, options => #{samples => 2, sample_duration => 50}}].\n"
                 "boom() -> erlang:error(kaput).\nfine() -> ok.\n"),
    {1, Out} = suite(Store, [File]),
    ?assertNotEqual(nomatch, string:find(Out, "erlperf: boom: runner crashed: error:kaput"), Out),
    ?assertEqual(1, count("fine: first run", Out), Out),
    [#{<<"record">> := #{<<"runs">> := [#{<<"label">> := <<"fine">>}]}}] = runs(Store).

corrupted_store() ->
    [{doc, "A corrupted store file: one warning line naming it, the run goes on and is "
           "stored, the file is left as it was"}].
corrupted_store(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    Bad = filename:join([Store, "runs", "20000101T000000.000000Z-1-1.json"]),
    ok = filelib:ensure_dir(Bad),
    ok = file:write_file(Bad, <<"{\"store_version\": 1, \"ti">>),
    {0, Out} = suite(Store, [example(), "--filter", ?SORT_FILTER]),
    ?assertEqual(1, count("erlperf: warning: " ++ Bad ++ " is corrupted", Out), Out),
    ?assertEqual({ok, <<"{\"store_version\": 1, \"ti">>}, file:read_file(Bad)),
    ?assertEqual(1, length(runs(Store))).

newer_store() ->
    [{doc, "A store file of a newer erlperf: one warning line, skipped, left as it was"}].
newer_store(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    Newer = filename:join([Store, "runs", "20000101T000000.000000Z-1-1.json"]),
    ok = filelib:ensure_dir(Newer),
    ok = file:write_file(Newer, <<"{\"store_version\": 99, \"time\": \"2000-01-01T00:00:00Z\"}">>),
    {0, Out} = suite(Store, [example(), "--filter", ?SORT_FILTER]),
    ?assertEqual(1, count("written by a newer erlperf (store version 99", Out), Out),
    ?assertEqual(1, count("first run", Out), Out).

two_at_once() ->
    [{doc, "Two suite runs at once into one store: both kept, every file whole"}].
two_at_once(Config) ->
    Store = store(Config, ?FUNCTION_NAME),
    Self = self(),
    Pids = [spawn_link(fun () -> Self ! {self(), suite(Store, [example(), "--filter", ?SORT_FILTER])} end)
            || _ <- [1, 2]],
    [receive {P, {0, _}} -> ok end || P <- Pids],
    ?assertEqual(2, length(runs(Store))),
    ?assertEqual([], filelib:wildcard(filename:join([Store, "runs", "*.tmp*"]))).

%%--------------------------------------------------------------------
%% The module API

suite_api() ->
    [{doc, "erlperf_suite:load/1 and benchmarks/2: local functions become {M, F, A} (arity "
           "0) or funs (arity 1), bad benchmarks and clashes are errors, unload/1 unloads"}].
suite_api(Config) ->
    {ok, [{sort_bench, _}] = Loaded} = erlperf_suite:load([example()]),
    {ok, [Sort, _Usort, Seq]} = erlperf_suite:benchmarks(Loaded, #{}),
    ?assertMatch(#{name := <<?SORT>>, code := #{runner := Fun, init_runner := {sort_bench, input, []},
                                               label := <<?SORT>>}}
                   when is_function(Fun, 1), Sort),
    ?assertMatch(#{params := [{'N', [100, 10000]}]}, Seq),
    ?assertMatch({ok, [_]}, erlperf_suite:benchmarks(Loaded, #{filter => "usort"})),
    ok = erlperf_suite:unload(Loaded),
    ?assertEqual(false, code:is_loaded(sort_bench)),
    Clash = write(Config, "lists.erl", "-module(lists).\n-export([benchmarks/0]).\nbenchmarks() -> [].\n"),
    ?assertMatch({error, {suite, _, {clash, lists, _}}}, erlperf_suite:load([Clash])),
    Bad = write(Config, "badkey_bench.erl",
                "-module(badkey_bench).\n-export([benchmarks/0, f/2]).\n"
                "benchmarks() -> [#{name => \"a\", runner => f}].\nf(_, _) -> ok.\n"),
    {ok, BadLoaded} = erlperf_suite:load([Bad]),
    {error, Reason} = erlperf_suite:benchmarks(BadLoaded, #{}),
    ?assertEqual("suite badkey_bench: runner => f: badkey_bench:f must take 0 or 1 arguments, "
                 "in #{name => \"a\",runner => f}", erlperf_suite:format_error(Reason)),
    ok = erlperf_suite:unload(BadLoaded).

%%--------------------------------------------------------------------
%% History

history_step() ->
    [{doc, "--history on 12 stored runs (a real run's entry with samples made to spread by "
           "+-0.6%, its throughput 10% lower from run 7 on, within +-1% otherwise): the step "
           "is found at run 7 and nowhere else, in the text, the JSON, Markdown, CSV (stdout "
           "and -o files by extension) and the page, which "
           "loads in headless chromium with no console message and no request"}].
history_step(Config) ->
    Real = store(Config, history_real),
    {0, _} = suite(Real, [example(), "--filter", ?SORT_FILTER]),
    [Entry] = runs(Real),
    Store = store(Config, ?FUNCTION_NAME),
    Noise = [1.0, 1.008, 0.993, 1.004, 0.996, 1.0],
    [planted_entry(Store, Entry, I, lists:nth((I - 1) rem 6 + 1, Noise) * step(I))
     || I <- lists:seq(1, 12)],
    {0, Text} = erlperf_test_lib:escript(["--history", "--store", Store], []),
    ?assertEqual(1, count(?SORT ++ ": step at run 7", Text), Text),
    ?assertEqual(1, count("step at run", Text), Text),
    {0, Json} = erlperf_test_lib:escript(["--history", "--store", Store, "--format", "json"], []),
    [JsonText | _] = string:split(Json, "\nhistory: "),
    {ok, #{<<"runs">> := 12, <<"benchmarks">> := [#{<<"steps">> := [Step]}]}} =
        erlperf_json:decode(unicode:characters_to_binary(JsonText)),
    ?assertMatch(#{<<"at">> := 7}, Step),
    #{<<"change_pct">> := Change} = Step,
    ?assert(Change > -12 andalso Change < -8, Change),
    %% Markdown and CSV on stdout, and in -o files by their extension
    {0, Md} = erlperf_test_lib:escript(["--history", "--store", Store, "--format", "markdown"], []),
    ?assertEqual(1, count("### `" ++ ?SORT ++ "`", Md), Md),
    ?assertEqual(1, count("`" ++ ?SORT ++ "`: step at run 7", Md), Md),
    {0, Csv} = erlperf_test_lib:escript(["--history", "--store", Store, "--format", "csv"], []),
    ?assertEqual(12, count("\r\n" ++ ?SORT ++ ",", Csv), Csv),
    Files = [filename:join(proplists:get_value(priv_dir, Config), F) || F <- ["h.md", "h.csv"]],
    _ = [{0, _} = erlperf_test_lib:escript(["--history", "--store", Store, "-o", F], []) || F <- Files],
    {ok, MdFile} = file:read_file(hd(Files)),
    ?assertMatch(<<"## History of ", _/binary>>, MdFile),
    {ok, CsvFile} = file:read_file(lists:last(Files)),
    ?assertMatch(<<"benchmark,run,", _/binary>>, CsvFile),
    Page = filename:join(Store, "history.html"),
    case proplists:get_value(browser, Config) of
        {skip, Why} ->
            {skip, "browser checks skipped: " ++ Why};
        {ok, Chromium} ->
            Shot = filename:join(proplists:get_value(priv_dir, Config), "history.png"),
            ?assertMatch(#{exit := 0, console := [], requests := [], screenshot := true},
                         erlperf_browser:load(Chromium, Page, Shot)),
            Dom = erlperf_browser:dom(Chromium, Page),
            ?assertNotEqual(nomatch, binary:match(Dom, <<"<svg">>))
    end.

step(I) when I < 7 -> 1.0;
step(_I) -> 0.9.

%% The entry as run I of 12 (a day apart, its own commit): its run's samples replaced by
%% samples spread by +-0.6% around its average times F (a real run's own spread depends on
%% how loaded the machine was), and every figure made from them.
planted_entry(Store, #{<<"record">> := #{<<"runs">> := [Run]} = Record} = Entry, I, F) ->
    #{<<"samples">> := Real, <<"average">> := Avg, <<"qps">> := Qps} = Run,
    Sizes = erlperf_record:fork_sizes(Run),
    Spread = [-0.006, 0.003, -0.002, 0.006, -0.003, 0.002],
    Samples = [Avg * F * (1 + lists:nth((K - 1) rem 6 + 1, Spread)) || K <- lists:seq(1, length(Real))],
    Summary = erlperf_stat:summary(Samples),
    {Lo, Hi} = erlperf_stat:interval(Samples, Sizes, 95, maps:get(<<"run_noise_pct">>, Run, 0)),
    Means = [erlperf_stat:mean(S) || S <- erlperf_stat:split(Samples, Sizes)],
    Scaled = Run#{<<"samples">> := Samples, <<"average">> := maps:get(average, Summary),
                  <<"qps">> := Qps * F * maps:get(average, Summary) / (Avg * F),
                  <<"median">> := maps:get(median, Summary), <<"min">> := maps:get(min, Summary),
                  <<"max">> := maps:get(max, Summary), <<"p99">> := maps:get(p99, Summary),
                  <<"stddev">> := maps:get(stddev, Summary), <<"ci95">> := [Lo, Hi],
                  <<"forks">> => (maps:get(<<"forks">>, Run, #{<<"sizes">> => Sizes}))#{<<"means">> => Means}},
    Time = iolist_to_binary(io_lib:format("2026-10-~2..0bT08:00:00.000000Z", [I])),
    Sha = iolist_to_binary(io_lib:format("~40.16.0b", [I * 7919])),
    {ok, _} = erlperf_store:save_run(Store, Entry#{<<"time">> := Time,
                                                   <<"commit">> := #{<<"sha">> => Sha, <<"dirty">> => false},
                                                   <<"record">> := Record#{<<"runs">> := [Scaled]}}).

%%--------------------------------------------------------------------
%% Helpers

example() ->
    filename:join([erlperf_test_lib:root(), "examples", "sort_bench.erl"]).

%% A suite whose benchmark "wait" sleeps Ms milliseconds a call.
sleeper(Config, Ms) ->
    sleeper(Config, Ms, #{samples => 20, sample_duration => 100}).

sleeper(Config, Ms, Options) ->
    write(Config, "sleep_bench.erl",
          io_lib:format("-module(sleep_bench).~n-behaviour(erlperf_suite).~n-export([benchmarks/0, wait/0]).~n"
                        "benchmarks() -> [#{name => \"wait\", runner => wait, "
                        "options => ~0p}].~n"
                        "wait() -> timer:sleep(~b).~n", [Options, Ms])).

store(Config, Case) ->
    filename:join(proplists:get_value(priv_dir, Config), atom_to_list(Case) ++ "_store").

write(Config, Name, Text) ->
    Dir = filename:join(proplists:get_value(priv_dir, Config), integer_to_list(erlang:unique_integer([positive]))),
    File = filename:join(Dir, Name),
    ok = filelib:ensure_dir(File),
    ok = file:write_file(File, Text),
    File.

suite(Store, Args) ->
    erlperf_test_lib:escript(["--suite" | Args] ++ ["--store", Store], []).

runs(Store) ->
    element(1, erlperf_store:runs(Store)).

%% An entry's time as the comparison line shows it: "2026-11-25 08:00:03".
when_text(Time) ->
    [case C of $T -> $\s; _ -> C end || C <- binary_to_list(binary:part(Time, 0, 19))].

count(Text, Out) ->
    length(string:split(Out, Text, all)) - 1.

lines(Out) ->
    length(string:lexemes(Out, "\n")).
