%%% @doc Tests of `erlperf_args': the command a command line asks for, every option kind of
%%% the benchmark's and the performance test's grammars and their defaults, `--render',
%%% every usage error's shape and the exact line it prints, the help text and the exit
%%% statuses. Nothing runs here: erlperf_cli_SUITE runs the escript end to end.
-module(erlperf_args_tests).

-include_lib("eunit/include/eunit.hrl").

%% What parse/1 returns for a lone runner: every key, with nothing given.
-define(PLAIN, #{codes => [#{runner => "ok."}], run_options => #{},
                 concurrency_options => undefined, report => auto, format => text,
                 outputs => [], baselines => [], gate => none, params => [], inputs => [],
                 bytes => undefined, verbose => false, colour => auto, paths => [], help => false,
                 suites => [], filter => undefined, store => "_build/erlperf",
                 save_baseline => undefined, history => false, fail_on_inconclusive => false}).

%% ?PLAIN to be updated (updating the literal itself is a warning from OTP 27 on).
plain() ->
    ?PLAIN.

%%--------------------------------------------------------------------
%% Commands

command_test_() ->
    [?_assertEqual(benchmark, erlperf_args:command([])),
     ?_assertEqual(benchmark, erlperf_args:command(["ok.", "-s", "1"])),
     ?_assertEqual(perf_test, erlperf_args:command(["--perf-test", "lg.erl"])),
     ?_assertEqual(render, erlperf_args:command(["--render", "r.json"])),
     %% --perf-test wins over --render; an inline value is not the option
     ?_assertEqual(perf_test, erlperf_args:command(["--render", "r.json", "--perf-test", "x"])),
     ?_assertEqual(benchmark, erlperf_args:command(["ok.", "--perf-test=x"]))].

%%--------------------------------------------------------------------
%% The benchmark: defaults and every option kind

defaults_test_() ->
    Defaults = erlperf_args:defaults(),
    [?_assertEqual({ok, ?PLAIN}, erlperf_args:parse(["ok."])),
     %% the engine's defaults, never retyped (report and budget: the command line's auto)
     ?_assertEqual(maps:without([report, budget], erlperf:defaults()),
                   maps:with(maps:keys(erlperf:defaults()) -- [report, budget], Defaults)),
     ?_assertEqual(#{report => auto, budget => auto}, maps:with([report, budget], Defaults)),
     ?_assertEqual(#{budget => auto}, erlperf_args:run_defaults()),
     ?_assertEqual(maps:with(maps:keys(erlperf:concurrency_defaults()), Defaults),
                   erlperf:concurrency_defaults()),
     ?_assertMatch(#{report := auto, format := text, verbose := false, squeeze := false,
                     help := false}, Defaults)].

run_options_test_() ->
    [run(#{concurrency => 4, sample_duration => 10, samples => 2}, ["-c", "4", "-d", "10", "-s", "2"]),
     run(#{concurrency => 3, sample_duration => 20, samples => 11},
         ["--concurrency", "3", "--sample_duration", "20", "--samples", "11"]),
     run(#{sample_duration => 7}, ["--duration", "7"]),
     %% count: K, M, G suffixes in either case
     run(#{concurrency => 10000}, ["-c", "10K"]),
     run(#{samples => 2000000}, ["-s", "2m"]),
     run(#{sample_duration => {timed, 10000000}}, ["-l", "10M"]),
     run(#{sample_duration => {timed, 3000000000}}, ["--loop", "3g"]),
     %% non-negative count
     run(#{warmup => 0}, ["-w", "0"]),
     run(#{warmup => 2}, ["--warmup", "2"]),
     %% ratio and percentages: floats, whether written with a point or not
     run(#{cv => 0.05}, ["--cv", "0.05"]),
     run(#{cv => 1.0}, ["--cv", "1"]),
     run(#{confidence => 99.9, noise => 0.0}, ["--confidence", "99.9", "--noise", "0"]),
     run(#{run_noise => 2.5}, ["--run-noise", "2.5"]),
     run(#{run_noise => 0.0}, ["--run-noise=0"]),
     run(#{compare => interleaved}, ["--compare", "interleaved"]),
     run(#{compare => sequential}, ["--compare", "sequential"]),
     %% flags
     run(#{isolation => #{}, memory => true, latency => true}, ["-i", "--memory", "--latency"]),
     run(#{isolation => #{}}, ["--isolated"]),
     run(#{isolation => #{}}, ["--isolation"]),
     run(#{profile => eprof}, ["--profile", "eprof"]),
     run(#{nodes => ['a@h', 'b@h']}, ["--nodes", "a@h, b@h"]),
     run(#{nodes => ['a@h']}, ["--nodes", ",a@h,"])].

cli_options_test_() ->
    [cli(#{report => full, format => json}, ["-r", "full", "--format", "json"]),
     cli(#{report => basic, format => markdown}, ["--report", "basic", "--format", "markdown"]),
     cli(#{format => html}, ["--format", "html"]),
     %% -o (format from the extension), --save and --html, in this order
     cli(#{outputs => [{"a.csv", csv}, {"b.json", json}, {"c.html", html}]},
         ["--html", "c.html", "--save", "b.json", "-o", "a.csv"]),
     cli(#{outputs => [{"a.md", markdown}]}, ["--output", "a.md"]),
     %% -o repeatable: every file written (the last one alone was)
     cli(#{outputs => [{"a.md", markdown}, {"b.csv", csv}, {"c.json", json}]},
         ["-o", "a.md", "--output", "b.csv", "-o", "c.json"]),
     ?_assertMatch({error, {same_file, "-o", "-o", "a.md"}},
                   erlperf_args:parse(["ok.", "-o", "a.md", "-o", "a.md"])),
     %% repeatable: in the order given
     cli(#{baselines => ["x.json", "y.json"]}, ["--baseline", "x.json", "--baseline", "y.json"]),
     cli(#{paths => ["a", "b"]}, ["-pa", "a", "-pa", "b"]),
     cli(#{gate => 20.0, baselines => ["b.json"]}, ["--fail-on-regression", "20", "--baseline", "b.json"]),
     cli(#{gate => 0.0, verbose => true, baselines => ["b.json"]},
         ["--baseline", "b.json", "--fail-on-regression", "0", "-v"]),
     cli(#{verbose => true}, ["--verbose"]),
     cli(#{colour => never}, ["--color", "never"]),
     cli(#{colour => always}, ["--colour=always"]),
     cli(#{concurrency_options => #{}}, ["-q"]),
     cli(#{concurrency_options => #{min => 2, step => 3, max => 9, threshold => 4}},
         ["--squeeze", "--min", "2", "--step", "3", "--max", "9", "-t", "4"]),
     cli(#{concurrency_options => #{threshold => 5}}, ["-q", "--threshold", "5"])].

sweep_options_test_() ->
    Seq = "lists:seq(1, N).",
    [?_assertMatch({ok, #{params := [{'N', [1, 2]}], bytes := "N * 8"}},
                   erlperf_args:parse([Seq, "--param", "N=1,2", "--bytes", "N * 8"])),
     %% every combination: in the order given
     ?_assertMatch({ok, #{params := [{'N', [1]}, {'M', [a, b]}], bytes := undefined}},
                   erlperf_args:parse(["f(N, M).", "--param", "N=1", "--param", "M=a,b"]))].

inline_value_test_() ->
    [run(#{samples => 11, sample_duration => 20}, ["--samples=11", "--duration=20"]),
     ?_assertMatch({ok, #{codes := [#{init := "ok.", runner := "r."}]}},
                   erlperf_args:parse(["r.", "--init=ok."])),
     %% the value may hold "=" itself
     ?_assertMatch({ok, #{codes := [#{init := "X = 1."}]}},
                   erlperf_args:parse(["r.", "--init=X = 1."])),
     %% an option before the runner
     run(#{samples => 3}, ["--samples=3"], "ok.")].

%%--------------------------------------------------------------------
%% The benchmark: runners and hooks

runners_test_() ->
    Codes = fun (Args) -> {ok, #{codes := C}} = erlperf_args:parse(Args), C end,
    [?_assertEqual([#{runner => {erlang, abs, [-1]}}], Codes(["{erlang, abs, [-1]}"])),
     ?_assertEqual([#{runner => {a, b, [c]}}], Codes(["  {a, b, [c]}"])),
     ?_assertEqual([#{runner => [{erlang, abs, [-1]}, {erlang, abs, [1]}]}],
                   Codes(["[{erlang, abs, [-1]}, {erlang, abs, [1]}]"])),
     %% terms that are not {M, F, A}: passed on as text, for the engine to report
     [?_assertEqual([#{runner => T}], Codes([T]))
      || T <- ["[1, 2]", "{a, b}", "{a, b, c}", "[{a, b, []}, 1]", "{not closed", "rand:uniform()."]],
     %% runners keep their order
     ?_assertEqual([#{runner => "a."}, #{runner => "b."}, #{runner => "c."}], Codes(["a.", "b.", "c."]))].

hooks_test_() ->
    Codes = fun (Args) -> {ok, #{codes := C}} = erlperf_args:parse(Args), C end,
    Pair = [#{runner => "r(1) -> ok.", init_runner => "1."}, #{runner => "r(2) -> ok.", init_runner => "2."}],
    [?_assertEqual([#{runner => "ok.", init => "1.", done => "2.", init_runner => "3.", label => "x"}],
                   Codes(["ok.", "--init", "1.", "--done", "2.", "--init_runner", "3.", "--label", "x"])),
     %% the k-th hook of a kind is the k-th runner's, wherever either stands (erlperf 2.3)
     [?_assertEqual(Pair, Codes(Args))
      || Args <- [["--init_runner", "1.", "--init_runner", "2.", "r(1) -> ok.", "r(2) -> ok."],
                  ["r(1) -> ok.", "r(2) -> ok.", "--init_runner", "1.", "--init_runner", "2."],
                  ["--init_runner", "1.", "r(1) -> ok.", "r(2) -> ok.", "--init_runner", "2."],
                  ["r(1) -> ok.", "--init_runner=1.", "r(2) -> ok.", "--init_runner=2."]]],
     %% one hook, two runners: the first runner's only
     ?_assertEqual([#{runner => "a.", label => "x"}, #{runner => "b."}],
                   Codes(["a.", "b.", "--label", "x"])),
     %% --X_all for runners without their own
     ?_assertEqual([#{runner => "a.", init => "z.", done => "d.", init_runner => "ir."},
                    #{runner => "b.", init => "1.", done => "d.", init_runner => "ir."}],
                   Codes(["--init_all", "1.", "a.", "b.", "--init", "z.", "--done_all", "d.",
                          "--init_runner_all", "ir."])),
     ?_assertEqual([#{runner => {m, f, []}, init => {m, i, []}}],
                   Codes(["{m, f, []}", "--init", "{m, i, []}"]))].

help_flag_test_() ->
    Help = (plain())#{codes := [], help := true},
    [?_assertEqual({ok, Help}, erlperf_args:parse(["-h"])),
     ?_assertEqual({ok, Help}, erlperf_args:parse(["ok.", "--help"])),
     %% with -h, what is checked only once all is read is not checked
     ?_assertEqual({ok, Help}, erlperf_args:parse(["-h", "-l", "1", "-d", "1", "--max", "2"])),
     %% a mistake found while reading is still one
     ?_assertEqual({error, {unknown_option, benchmark, "--bogus"}},
                   erlperf_args:parse(["-h", "--bogus"]))].

%%--------------------------------------------------------------------
%% The benchmark: usage errors, their shapes and lines

%% --input NAME=CODE (repeatable, in order) and --format benchee (calls timed one by one).
inputs_and_benchee_test_() ->
    Parsed = fun (Args) -> {ok, P} = erlperf_args:parse(Args), P end,
    [?_assertMatch(#{inputs := [{"small", "lists:seq(1, 10)."}, {"large", "a=b."}]},
                   Parsed(["r(L) -> L.", "--input", "small=lists:seq(1, 10).", "--input=large=a=b."])),
     ?_assertMatch(#{format := benchee, run_options := #{latency := true}},
                   Parsed(["ok.", "--format", "benchee"])),
     %% squeezing cannot time calls: benchee leaves latency out
     ?_assertMatch(#{format := benchee, run_options := Run} when not is_map_key(latency, Run),
                   Parsed(["ok.", "--format", "benchee", "-q"])),
     ?_assertMatch({error, {input, "--input", "small"}}, erlperf_args:parse(["ok.", "--input", "small"])),
     ?_assertMatch({error, {input, "--input", "=x."}}, erlperf_args:parse(["ok.", "--input", "=x."])),
     ?_assertMatch({error, {param_twice, "--input", "a"}},
                   erlperf_args:parse(["ok.", "--input", "a=1.", "--input", "a=2."])),
     ?_assertMatch({error, {cannot_combine, _, _}},
                   erlperf_args:parse(["ok.", "--input", "a=1.", "--param", "N=1,2"])),
     ?_assertEqual("--input: 'small' is not NAME=CODE (a name, then the code of its value)",
                   erlperf_args:format_error({input, "--input", "small"}))].

%% A front end's default (`mix erlperf' shows Benchee's layout) counts as given, unless
%% the arguments give the option, or a rule refuses it with what they give: then the
%% registry's default stands (`--history' has no Benchee layout: its text summary).
front_end_defaults_test_() ->
    Benchee = fun (Args) -> {ok, P} = erlperf_args:parse(Args, #{format => benchee}), P end,
    [?_assertMatch(#{format := benchee, run_options := #{latency := true}}, Benchee(["ok."])),
     ?_assertMatch(#{format := json}, Benchee(["ok.", "--format", "json"])),
     ?_assertMatch(#{format := text, history := true}, Benchee(["--history"])),
     %% given, the same is a usage error
     ?_assertEqual({error, {cannot_combine, "--history", "--format benchee",
                            ": the history has no Benchee layout"}},
                   erlperf_args:parse(["--history", "--format", "benchee"], #{})),
     ?_assertMatch({error, {cannot_combine, "--history", "--format bencher", _}},
                   erlperf_args:parse(["--history", "--format", "bencher"], #{format => benchee}))].

benchmark_errors_test_() ->
    Profilers = erlperf_profile:choices(),
    Cases =
        [%% reading
         {["ok.", "--bogus"], {unknown_option, benchmark, "--bogus"}, "unknown option --bogus"},
         {["ok.", "-"], {unknown_option, benchmark, "-"}, "unknown option -"},
         {["--"], {unknown_option, benchmark, "--"}, "unknown option --"},
         {["ok.", "-v=1"], {unknown_option, benchmark, "-v=1"}, "unknown option -v=1"},
         {["ok.", "--perf-test=x"], {unknown_option, benchmark, "--perf-test"},
          "unknown option --perf-test"},
         {["ok.", "-s"], {missing_value, "-s"}, "-s needs a value"},
         {["ok.", "--init_all"], {missing_value, "--init_all"}, "--init_all needs a value"},
         {["ok.", "--profile"], {missing_value, "--profile"}, "--profile needs a value"},
         {["ok.", "--param"], {missing_value, "--param"}, "--param needs a value"},
         {["ok.", "--latency=yes"], {unexpected_value, "--latency"}, "--latency takes no value"},
         %% values, one kind after another
         {["ok.", "-c", "0"], {bad_value, "-c", "0", count},
          "-c: '0' is not a positive integer (K, M, G suffixes allowed)"},
         {["ok.", "-c", "10Q"], {bad_value, "-c", "10Q", count},
          "-c: '10Q' is not a positive integer (K, M, G suffixes allowed)"},
         {["ok.", "-l", "10X"], {bad_value, "-l", "10X", count},
          "-l: '10X' is not a positive integer (K, M, G suffixes allowed)"},
         {["ok.", "--samples="], {bad_value, "--samples", "", count},
          "--samples: '' is not a positive integer (K, M, G suffixes allowed)"},
         {["ok.", "-w", "-1"], {bad_value, "-w", "-1", non_neg_count},
          "-w: '-1' is not a non-negative integer"},
         {["ok.", "-r", "fancy"], {choice, "-r", "fancy", ["auto", "basic", "extended", "full"]},
          "-r: 'fancy' is not auto, basic, extended or full"},
         {["ok.", "--color", "yes"], {choice, "--color", "yes", ["auto", "always", "never"]},
          "--color: 'yes' is not auto, always or never"},
         {["ok.", "--compare", "sideways"], {choice, "--compare", "sideways", ["parallel", "sequential", "interleaved"]},
          "--compare: 'sideways' is not parallel, sequential or interleaved"},
         {["ok.", "--cv", "0"], {bad_value, "--cv", "0", ratio}, "--cv: '0' is not a positive number"},
         {["ok.", "--cv", "x"], {bad_value, "--cv", "x", ratio}, "--cv: 'x' is not a positive number"},
         {["ok.", "--confidence", "100"], {bad_value, "--confidence", "100", percent},
          "--confidence: '100' is not a percentage between 0 and 100"},
         {["ok.", "--confidence", "0"], {bad_value, "--confidence", "0", percent},
          "--confidence: '0' is not a percentage between 0 and 100"},
         {["ok.", "--noise", "-1"], {bad_value, "--noise", "-1", noise},
          "--noise: '-1' is not a percentage from 0 to 100"},
         {["ok.", "--noise", "100"], {bad_value, "--noise", "100", noise},
          "--noise: '100' is not a percentage from 0 to 100"},
         {["ok.", "--run-noise", "x"], {bad_value, "--run-noise", "x", noise},
          "--run-noise: 'x' is not a percentage from 0 to 100"},
         {["ok.", "--format", "xml"], {bad_value, "--format", "xml", output_format},
          "--format: 'xml' is not text, json, csv, markdown, html, benchee, github-action-benchmark or bencher"},
         {["ok.", "-o", "results.xyz"], {bad_value, "-o", "results.xyz", out_file},
          "-o: 'results.xyz' has no known extension (.json, .csv, .md, .markdown, .txt, .html, .htm)"},
         {["ok.", "--fail-on-regression", "-1"], {bad_value, "--fail-on-regression", "-1", gate},
          "--fail-on-regression: '-1' is not a percentage (0 or more)"},
         {["ok.", "--fail-on-regression", "5"], {needs, "--fail-on-regression", "--baseline or --suite"},
          "--fail-on-regression needs --baseline or --suite"},
         {["ok.", "-q", "--latency"], {cannot_combine, "--latency", "-q/--squeeze"},
          "--latency and -q/--squeeze cannot be combined"},
         {["X = {A, B, C, D, E}."] ++ lists:append([["--param", [V | "=1,2,3,4,5,6,7,8,9,10"]] || V <- "ABCDE"]),
          {param, "--param", "100000 combinations of parameter values: at most 10000 (each is a whole benchmark)"},
          "--param: 100000 combinations of parameter values: at most 10000 (each is a whole benchmark)"},
         {["ok.", "--memory", "--squeeze"], {cannot_combine, "--memory", "-q/--squeeze"},
          "--memory and -q/--squeeze cannot be combined"},
         {["ok.", "-i", "--nodes", "a@h"], {cannot_combine, "-i/--isolated", "--nodes"},
          "-i/--isolated and --nodes cannot be combined"},
         {["ok.", "-c", "1G"], {limit, "-c", "1G", concurrency},
          "-c: 1G is above the limit of " ++ integer_to_list(erlang:system_info(process_limit) - 1000)
          ++ " (this node's process limit, " ++ integer_to_list(erlang:system_info(process_limit))
          ++ ", less 1000 kept for erlperf and the system; emulator flag +P raises it)"},
         {["ok.", "-d", "4294967296"], {limit, "-d", "4294967296", sample_duration},
          "-d: 4294967296 is above the limit of 4294967295 milliseconds (the longest wait of a receive)"},
         {["ok.", "-l", "99999999999999999999"], {limit, "-l", "99999999999999999999", timed},
          "-l: 99999999999999999999 is above the limit of 576460752303423487"},
         {["ok.", "-s", "5G"], {limit, "-s", "5G", samples}, "-s: 5G is above the limit of 4294967295"},
         {["ok.", "-q", "--max", "1G"], {limit, "--max", "1G", max},
          "--max: 1G is above the limit of " ++ integer_to_list(erlang:system_info(process_limit) - 1000)
          ++ " (this node's process limit, " ++ integer_to_list(erlang:system_info(process_limit))
          ++ ", less 1000 kept for erlperf and the system; emulator flag +P raises it)"},
         {["ok.", "--profile", "bogus"], {bad_value, "--profile", "bogus", profiler},
          "--profile: 'bogus' is not " ++ Profilers},
         {["ok.", "--profile", "EPROF"], {bad_value, "--profile", "EPROF", profiler},
          "--profile: 'EPROF' is not " ++ Profilers},
         {["ok.", "--nodes", ","], {bad_value, "--nodes", ",", nodes}, "--nodes: no node names in ','"},
         %% sweeps
         {["f(N).", "--param", "n=1"], {param, "--param", '_'}, "--param: 'n' is not a variable name"},
         {["f(N).", "--param", "N="], {param, "--param", '_'}, "--param: N has no values"},
         {["f(N).", "--param", "N"], {param, "--param", '_'}, "--param: 'N' is not NAME=V1,V2,..."},
         {["f(N).", "--param", "N=1,,2"], {param, "--param", '_'}, "--param: N: empty value in '1,,2'"},
         {["f(N).", "--param", "N=foo("], {param, "--param", '_'}, "--param: N: 'foo(' is not an Erlang term"},
         {["f(N).", "--param", "N=\"abc"], {param, "--param", '_'}, "--param: N: '\"abc': unterminated string"},
         {["f(N).", "--param", "N=1,2,1"], {param, "--param", '_'}, "--param: N: value 1 is given twice"},
         {["f(N).", "--param", "N=1", "--param", "N=2"], {param_twice, "--param", "N"},
          "--param N is given twice"},
         {["f(N).", "--param", "N=1", "--bytes", "N *"], {bytes, "--bytes", "N *", '_'},
          "--bytes: 'N *': syntax error"},
         %% once all is read
         {["--samples=3"], {missing, code}, "no code to benchmark"},
         {["ok.", "--init", "ok.", "--init", "ok."], {too_many_hooks, init, 2, 1},
          "2 --init for 1 runner: the k-th --init belongs to the k-th runner; "
          "--init_all applies to every runner"},
         {["--init_runner", "1.", "ok.", "ok.", "--init_runner", "2.", "--init_runner", "3."],
          {too_many_hooks, init_runner, 3, 2},
          "3 --init_runner for 2 runners: the k-th --init_runner belongs to the k-th runner; "
          "--init_runner_all applies to every runner"},
         {["--done=ok.", "--done", "ok.", "ok."], {too_many_hooks, done, 2, 1},
          "2 --done for 1 runner: the k-th --done belongs to the k-th runner; "
          "--done_all applies to every runner"},
         {["ok.", "--label", "a", "--label", "b"], {too_many_hooks, label, 2, 1},
          "2 --label for 1 runner: the k-th --label belongs to the k-th runner"},
         {["ok.", "--max", "4"], {needs, "--max", "-q/--squeeze"}, "--max needs -q/--squeeze"},
         {["ok.", "-t", "4"], {needs, "-t/--threshold", "-q/--squeeze"},
          "-t/--threshold needs -q/--squeeze"},
         %% what the engine would refuse, refused while parsing, in the user's words
         {["ok.", "-l", "100", "-q"], {cannot_combine, "-l/--loop", "-q/--squeeze", '_'},
          "-l/--loop and -q/--squeeze cannot be combined: concurrency estimation compares "
          "throughputs, and a timed sample measures time"},
         {["ok.", "-i", "--compare", "interleaved"],
          {cannot_combine, "-i/--isolated", "--compare interleaved", '_'},
          "-i/--isolated and --compare interleaved cannot be combined: jobs take turns by "
          "suspending each other's workers, so they must share one node"},
         {["ok.", "--profile", "eprof", "--nodes", "a@h"],
          {cannot_combine, "--profile", "--nodes", '_'},
          "--profile and --nodes cannot be combined: a profile is of one node's workers"},
         {["ok.", "-l", "10", "-d", "100"], {cannot_combine, "-l/--loop", "-d/--duration"},
          "-l/--loop and -d/--duration cannot be combined"}],
    [{lists:flatten(lists:join(" ", Args)), error_case(erlperf_args:parse(Args), Shape, Line)}
     || {Args, Shape, Line} <- Cases].

%% The line is the whole message; for errors whose detail comes from another module
%% (erlperf_sweep), its start.
error_case(Result, Shape, Line) ->
    fun () ->
        ?assertMatch({error, _}, Result),
        {error, Reason} = Result,
        ?assert(same_shape(Shape, Reason), Reason),
        Text = erlperf_args:format_error(Reason),
        ?assert(io_lib:char_list(Text), Text),
        case lists:member('_', tuple_to_list(Shape)) of
            true -> ?assert(lists:prefix(Line, Text), {Line, Text});
            false -> ?assertEqual(Line, Text)
        end
    end.

same_shape(Shape, Reason) when tuple_size(Shape) =:= tuple_size(Reason) ->
    lists:all(fun ({'_', _}) -> true; ({S, R}) -> S =:= R end,
              lists:zip(tuple_to_list(Shape), tuple_to_list(Reason)));
same_shape(_Shape, _Reason) ->
    false.

%%--------------------------------------------------------------------
%% --perf-test

perf_test_test_() ->
    File = "lg.erl",
    Parse = fun (Args) -> erlperf_args:parse_perf_test(["--perf-test", File | Args]) end,
    [%% nothing but the file: the test's own defaults apply
     ?_assertEqual({ok, #{help => false, file => File, paths => [], options => #{}}}, Parse([])),
     ?_assertEqual({ok, #{help => false, file => File, paths => ["a", "b"],
                          options => #{out_dir => "out", custom_agents => ["a.erl", "b.erl", "c.erl"],
                                       baseline => "r.json", tolerance => 5, interval => 500,
                                       compensate => false, timeout => 2000}}},
                   Parse(["--out-dir", "out", "--custom-agents", "a.erl,b.erl", "-pa", "a",
                          "--baseline", "r.json", "--tolerance", "5", "--interval", "500",
                          "--no-compensation", "--timeout", "2000", "-pa", "b",
                          "--custom-agents", ",c.erl,"])),
     %% milliseconds as -d reads them: 60K is 60000
     ?_assertMatch({ok, #{options := #{timeout := 60000, interval := 2000}}},
                   Parse(["--timeout", "60K", "--interval", "2k"])),
     %% a tolerance as written: integer or float
     ?_assertMatch({ok, #{options := #{tolerance := 2.5}}}, Parse(["--tolerance", "2.5"])),
     ?_assertMatch({ok, #{options := #{tolerance := 0}}}, Parse(["--tolerance", "0"])),
     %% the file may come last; the last one given counts
     ?_assertMatch({ok, #{file := "b.erl"}},
                   erlperf_args:parse_perf_test(["--perf-test", "a.erl", "--perf-test", "b.erl"])),
     ?_assertMatch({ok, #{file := File, options := #{out_dir := "o"}}},
                   erlperf_args:parse_perf_test(["--out-dir", "o", "--perf-test", File])),
     %% -h, with or without the file
     ?_assertEqual({ok, #{help => true}}, Parse(["-h"])),
     ?_assertEqual({ok, #{help => true}}, erlperf_args:parse_perf_test(["--help", "--perf-test", File])),
     ?_assertEqual({ok, #{help => true}}, erlperf_args:parse_perf_test(["-h"])),
     %% right after --perf-test too (no load generator file is named -h)
     ?_assertEqual({ok, #{help => true}}, erlperf_args:parse_perf_test(["--perf-test", "-h"]))].

perf_test_errors_test_() ->
    Cases =
        [{["--bogus"], {unknown_option, perf_test, "--bogus"}, "unknown option for --perf-test: --bogus"},
         %% no positional argument, no inline value
         {["extra"], {unknown_option, perf_test, "extra"}, "unknown option for --perf-test: extra"},
         {["--tolerance=5"], {unknown_option, perf_test, "--tolerance=5"},
          "unknown option for --perf-test: --tolerance=5"},
         {["--interval"], {missing_value, "--interval"}, "--interval needs a value"},
         {["--custom-agents"], {missing_value, "--custom-agents"}, "--custom-agents needs a value"},
         {["--tolerance", "abc"], {bad_value, "--tolerance", "abc", tolerance},
          "--tolerance needs a percentage (0 or more), got abc"},
         {["--tolerance", "-1"], {bad_value, "--tolerance", "-1", tolerance},
          "--tolerance needs a percentage (0 or more), got -1"},
         {["--tolerance", "-1.5"], {bad_value, "--tolerance", "-1.5", tolerance},
          "--tolerance needs a percentage (0 or more), got -1.5"},
         {["--interval", "0"], {bad_value, "--interval", "0", ms},
          "--interval needs a number of milliseconds from 1 to 4294967295, got 0"},
         {["--timeout", "2x"], {bad_value, "--timeout", "2x", ms},
          "--timeout needs a number of milliseconds from 1 to 4294967295, got 2x"},
         {["--timeout", "1.5"], {bad_value, "--timeout", "1.5", ms},
          "--timeout needs a number of milliseconds from 1 to 4294967295, got 1.5"},
         {["--timeout", "4294967296"], {bad_value, "--timeout", "4294967296", ms},
          "--timeout needs a number of milliseconds from 1 to 4294967295, got 4294967296"},
         {["--timeout", "99999999999999999999"], {bad_value, "--timeout", "99999999999999999999", ms},
          "--timeout needs a number of milliseconds from 1 to 4294967295, got 99999999999999999999"},
         {["--custom-agents", ","], {bad_value, "--custom-agents", ",", files},
          "--custom-agents needs at least one file"}],
    [{lists:flatten(lists:join(" ", Args)),
      error_case(erlperf_args:parse_perf_test(["--perf-test", "lg.erl" | Args]), Shape, Line)}
     || {Args, Shape, Line} <- Cases]
    ++ [{"no file", error_case(erlperf_args:parse_perf_test(["--out-dir", "--perf-test"]),
                               {missing, perf_test}, "--perf-test needs a load generator file")},
        {"--perf-test last", error_case(erlperf_args:parse_perf_test(["--out-dir", "x", "--perf-test"]),
                                        {missing_value, "--perf-test"}, "--perf-test needs a value")}].

%%--------------------------------------------------------------------
%% --render

render_test_() ->
    [?_assertEqual({ok, #{file => "d/r.json", out => "d"}}, erlperf_args:parse_render(["--render", "d/r.json"])),
     ?_assertEqual({ok, #{file => "r.json", out => "."}}, erlperf_args:parse_render(["--render", "r.json"])),
     ?_assertEqual({ok, #{file => "r.json", out => "o"}},
                   erlperf_args:parse_render(["-o", "o", "--render", "r.json"])),
     ?_assertEqual({ok, #{file => "r.json", out => "o"}},
                   erlperf_args:parse_render(["--render", "r.json", "--output", "o"])),
     %% the last file given counts
     ?_assertEqual({ok, #{file => "b.json", out => "."}},
                   erlperf_args:parse_render(["--render", "a.json", "--render", "b.json"])),
     {"no file", error_case(erlperf_args:parse_render(["-o", "--render"]), {missing, render},
                            "--render needs a results file")},
     {"--render last", error_case(erlperf_args:parse_render(["--render"]), {render_argument, "--render"},
                                  "--render takes a results file and -o DIR only, not --render")},
     {"-o last", error_case(erlperf_args:parse_render(["--render", "a.json", "-o"]), {render_argument, "-o"},
                            "--render takes a results file and -o DIR only, not -o")},
     {"other", error_case(erlperf_args:parse_render(["ok.", "--render", "a.json"]), {render_argument, "ok."},
                          "--render takes a results file and -o DIR only, not ok.")}].

%%--------------------------------------------------------------------
%% Help, exit statuses, counts

help_test_() ->
    Help = unicode:characters_to_list(erlperf_args:help()),
    Perf = unicode:characters_to_list(erlperf_args:perf_test_help()),
    #{samples := Samples, sample_duration := Duration} = erlperf:defaults(),
    #{timeout := Timeout} = erlperf_perf_test:defaults(),
    [[?_assertNotEqual(nomatch, string:find(Help, Name))
      || Name <- ["Usage: erlperf [OPTION]... CODE", "-c, --concurrency N",
                  "-d, --duration, --sample_duration N", "-s, --samples N",
                  "-l, --loop N", "-w, --warmup N", "-r, --report FORMAT", "--cv CV", "-v, --verbose",
                  "-pa DIR", "-i, --isolated, --isolation", "-q, --squeeze", "--min N", "--step N",
                  "--max N", "-t, --threshold N", "--init CODE", "--done CODE", "--init_runner CODE",
                  "--label TEXT", "--init_all CODE", "--done_all CODE", "--init_runner_all CODE",
                  "-h, --help", "--nodes NODES", "--param NAME=V1,V2,...", "--input NAME=CODE", "--bytes EXPR",
                  "--profile TOOL", "--noise PCT", "--run-noise PCT", "--confidence PCT", "--compare HOW", "--latency",
                  "--memory", "--format FORMAT", "-o, --output FILE", "--save FILE", "--html FILE",
                  "--baseline FILE", "--fail-on-regression PCT",
                  "3 a runner regressed beyond --fail-on-regression", "--render RESULTS.json"]],
     %% defaults come from the engine's defaults map
     ?_assertNotEqual(nomatch, string:find(Help, io_lib:format("samples to collect (default: ~b)", [Samples]))),
     ?_assertNotEqual(nomatch, string:find(Help, io_lib:format("milliseconds per sample (default: ~b)", [Duration]))),
     ?_assertNotEqual(nomatch, string:find(Help, "(default: auto)")),
     %% a flag shows no default
     ?_assertEqual(nomatch, string:find(Help, "(default: false)")),
     %% the performance test's help ends the benchmark's
     ?_assert(lists:suffix(Perf, Help)),
     [?_assertNotEqual(nomatch, string:find(Perf, Name))
      || Name <- ["Performance testing: erlperf --perf-test FILE [OPTION]...", "--perf-test FILE",
                  "--out-dir DIR", "--custom-agents FILES", "--baseline FILE", "--tolerance PCT",
                  "--interval MS", "--no-compensation", "--timeout MS", "-pa DIR",
                  "3 a requirement failed"]],
     ?_assertNotEqual(nomatch, string:find(Perf, io_lib:format("callback may take (default: ~b)", [Timeout]))),
     ?_assertNotEqual(nomatch, string:find(Perf, "(default: 10)")),
     %% no -h line, no default for a flag or for none
     ?_assertEqual(nomatch, string:find(Perf, "--help")),
     ?_assertEqual(nomatch, string:find(Perf, "(default: true)")),
     ?_assertEqual(nomatch, string:find(Perf, "(default: none)"))].

exit_code_test_() ->
    [?_assertEqual(0, erlperf_args:exit_code(success)),
     ?_assertEqual(1, erlperf_args:exit_code(benchmark_failed)),
     ?_assertEqual(2, erlperf_args:exit_code(usage)),
     ?_assertEqual(3, erlperf_args:exit_code(gate_failed)),
     ?_assertError(function_clause, erlperf_args:exit_code(other))].

%% The application's version: 3.x, as it keeps erlperf 2.3's API.
version_test() ->
    Version = erlperf_args:version(),
    {ok, [{application, erlperf, Keys}]} = file:consult(code:where_is_file("erlperf.app")),
    ?assertEqual({vsn, Version}, lists:keyfind(vsn, 1, Keys)),
    ?assertMatch("3." ++ _, Version).

count_test_() ->
    [?_assertEqual(Expected, erlperf_args:count(Text))
     || {Text, Expected} <- [{"0", 0}, {"10", 10}, {"10K", 10000}, {"10k", 10000}, {"2M", 2000000},
                             {"3g", 3000000000}, {"", error}, {"K", error}, {"10X", error},
                             {"10KK", error}, {"-1", error}, {"1.5", error}, {" 1", error}]].

%% Random command lines of every option name, odd values and random bytes: each parse
%% is a result or a usage error with text, never an exception (the three grammars; the
%% seed is fixed so a failure repeats). The text quotes the bad value as given, newlines
%% too: the command line prints it as one line (erlperf_hostile_SUITE).
perf_test_help_test_() ->
    [?_assertEqual({ok, #{help => true}}, erlperf_args:parse_perf_test(["--perf-test", H]))
     || H <- ["-h", "--help"]].

fuzz_test_() ->
    {timeout, 120,
     fun () ->
             _ = rand:seed(exsss, {24, 11, 2026}),
             Names = lists:usort(["-c", "-d", "-s", "-l", "-w", "--cv", "-r", "--format", "-o",
                                  "--save", "--html", "--baseline", "--fail-on-regression", "-v",
                                  "-pa", "--compare", "--confidence", "--noise", "--run-noise", "-i", "--memory",
                                  "--param", "--input", "--bytes", "--latency", "--profile", "--nodes", "-q",
                                  "--min", "--step", "--max", "-t", "--init", "--done",
                                  "--init_runner", "--label", "--init_all", "--done_all",
                                  "--init_runner_all", "-h", "--version", "--perf-test",
                                  "--out-dir", "--custom-agents", "--tolerance", "--interval",
                                  "--no-compensation", "--timeout", "--render", "--samples=3",
                                  "--cv=", "-", "--", "---"]),
             Values = ["0", "1", "-1", "", "1G", "99999999999999999999999", "1.5", "1e3", "x", "%",
                       "N=1,2", "N=", "=", "a.json", "a.xyz", "{", "{m,f,[]}", "[{m,f,[]}]", "ok.",
                       "\"", ",", "a@b,,c"],
             Pick = fun (L) -> lists:nth(rand:uniform(length(L)), L) end,
             Arg = fun () ->
                           case rand:uniform(6) of
                               1 -> binary_to_list(<< <<(rand:uniform(255))>> || _ <- lists:seq(1, rand:uniform(8)) >>);
                               2 -> Pick(Values);
                               _ -> Pick(Names)
                           end
                   end,
             Outcomes = [fuzz_one([Arg() || _ <- lists:seq(1, rand:uniform(7))]) || _ <- lists:seq(1, 5000)],
             %% both outcomes are reached
             ?assert(lists:member(ok, Outcomes)),
             ?assert(lists:member(error, Outcomes))
     end}.

fuzz_one(Args) ->
    Results = [erlperf_args:parse(Args), erlperf_args:parse_perf_test(["--perf-test" | Args]),
               erlperf_args:parse_render(["--render" | Args])],
    [case R of
         {ok, _} -> ok;
         {error, Reason} ->
             Text = erlperf_args:format_error(Reason),
             ?assert(io_lib:char_list(Text), {Args, Reason})
     end || R <- Results],
    case hd(Results) of
        {ok, _} -> ok;
        {error, _} -> error
    end.

%%--------------------------------------------------------------------
%% Helpers

%% The run options of a runner and these arguments.
run(Expected, Args) ->
    run(Expected, Args, "ok.").

run(Expected, Args, Runner) ->
    {lists:flatten(lists:join(" ", Args)),
     ?_assertEqual({ok, (plain())#{run_options := Expected, codes := [#{runner => Runner}]}},
                   erlperf_args:parse(Args ++ [Runner]))}.

%% The parsed command line of a runner and these arguments: all as for a lone runner but
%% the keys given.
cli(Expected, Args) ->
    {lists:flatten(lists:join(" ", Args)),
     ?_assertEqual({ok, maps:merge(?PLAIN, Expected)}, erlperf_args:parse(["ok." | Args]))}.

%%--------------------------------------------------------------------
%% Open load: --rate (a rate, a ramp, a list) and --slo

rate_slo_test_() ->
    Run = fun (Args) ->
                  {ok, #{run_options := R}} = erlperf_args:parse(["ok." | Args]),
                  maps:with([rate, slo], R)
          end,
    [?_assertEqual(#{rate => 10000}, Run(["--rate", "10k"])),
     ?_assertEqual(#{rate => [1000, 2000, 4000, 8000]}, Run(["--rate", "1k..8k"])),
     ?_assertEqual(#{rate => [1000, 2000, 4000]}, Run(["--rate", "1k..7k"])),
     ?_assertEqual(#{rate => [500, 1000, 5000]}, Run(["--rate", "500,1k,5k"])),
     ?_assertEqual(#{rate => 10, slo => [{99, 5000000}]}, Run(["--rate", "10", "--slo", "p99=5ms"])),
     ?_assertEqual(#{rate => 10, slo => [{99.9, 20000000}, {50, 250000}, {100, 1000000000}, {99.9, 800}]},
                   Run(["--rate", "10", "--slo", "p999=20ms,p50=250us,p100=1s,p99.9=800ns"])),
     [?_assertEqual({error, {bad_value, "--rate", Bad, rates}}, erlperf_args:parse(["ok.", "--rate", Bad]))
      || Bad <- ["4k..1k", "1k..", "..4k", "1k,,2k", "1k..2k..4k", "0..4", "x"]],
     [?_assertEqual({error, {bad_value, "--slo", Bad, slo}},
                    erlperf_args:parse(["ok.", "--rate", "10", "--slo", Bad]))
      || Bad <- ["p99", "5ms", "p0=1ms", "p101=1ms", "p99=5", "p99=0ms", "p99=5ms,", "q99=5ms",
                 "p.9=1ms", "p99=-1ms"]],
     ?_assertEqual({error, {needs, "--slo", "--rate"}}, erlperf_args:parse(["ok.", "--slo", "p99=5ms"]))].
