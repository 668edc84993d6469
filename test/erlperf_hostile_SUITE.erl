%%% @doc The command line as a careless or hostile user meets it, through the real escript:
%%% numbers past the machine's limits, options that would be ignored, broken and foreign
%%% records, clashing and odd output paths, code that stops the VM, signals, logging
%%% beside a machine-readable format, an internal error, and fuzzed arguments and files.
%%% Every case checks the exit status, that standard error holds exactly the one line
%%% the mistake deserves, that standard output holds only what was asked for, which
%%% files exist afterwards, and that no OS process of the run is left.
-module(erlperf_hostile_SUITE).

-include_lib("stdlib/include/assert.hrl").
-include_lib("common_test/include/ct.hrl").

-export([suite/0, all/0, init_per_suite/1, end_per_suite/1, init_per_testcase/2,
         end_per_testcase/2]).

-export([limits/1, ignored_options/1, cv_not_met/1, bad_records/1, foreign_records/1,
         output_paths/1, symlink_followed/1, unwritable_output/1, halting_runner/1,
         halting_runner_isolated/1, sigterm/1, sigterm_isolated/1, sigint/1,
         log_off_stdout/1, internal_error/1, version_and_help/1, binary_path_api/1,
         argument_fuzz/1, record_bytes_fuzz/1, rate_conflicts/1, rate_figures/1,
         rate_against_closed_baseline/1, rate_crash_among_several/1, benchee_no_call_returned/1,
         history_foreign_entry/1, all_crash/1]).

%% Longest a run of the escript may take here.
-define(RUN_TIMEOUT_MS, 120000).
%% How long a signalled run may take to end.
-define(SIGNAL_EXIT_MS, 30000).
%% Fuzzed command lines run through the escript, and random files given to it.
-define(FUZZ_RUNS, 25).
-define(FUZZ_FILES, 8).

suite() ->
    [{timetrap, {minutes, 10}}].

all() ->
    [limits, ignored_options, cv_not_met, bad_records, foreign_records, output_paths,
     symlink_followed, unwritable_output, halting_runner, halting_runner_isolated, sigterm,
     sigterm_isolated, sigint, log_off_stdout, internal_error, version_and_help,
     binary_path_api, argument_fuzz, record_bytes_fuzz, rate_conflicts, rate_figures,
     rate_against_closed_baseline, rate_crash_among_several, benchee_no_call_returned,
     history_foreign_entry, all_crash].

init_per_suite(Config) ->
    erlperf_test_lib:with_escript(Config).

end_per_suite(_Config) ->
    ok.

init_per_testcase(_Case, Config) ->
    Dir = filename:join(?config(priv_dir, Config), "work_" ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    [{dir, Dir} | Config].

end_per_testcase(_Case, _Config) ->
    ok.

%%--------------------------------------------------------------------
%% Cases

%% Counts above what the VM allows. The process limit is the escript's (+P, a release's
%% default): every concurrency here is above the largest a VM can have (2^27).
limits(Config) ->
    [usage(Config, ["ok.", Option, Value], Option ++ ": " ++ Value ++ " is above the limit of " ++ Max)
     || {Option, Value, Max} <- [{"-c", "300000000", ""}, {"-c", "1G", ""},
                                 {"-c", "99999999999999999999999", ""},
                                 {"-d", "99999999999999999999999", "4294967295"},
                                 {"-l", "99999999999999999999999", "576460752303423487"},
                                 {"-s", "5G", "4294967295"}]],
    usage(Config, ["ok.", "-q", "--max", "1G"], "--max: 1G is above the limit of "),
    usage(Config, ["ok.", "-c", "1G"], "this node's process limit"),
    %% a value with a newline is quoted on the one line
    usage(Config, ["ok.", "-c", "1\n2"], "-c: '1 2' is not a positive integer").

ignored_options(Config) ->
    usage(Config, ["ok.", "--fail-on-regression", "5"], "--fail-on-regression needs --baseline"),
    usage(Config, ["ok.", "-q", "--latency"], "--latency and -q/--squeeze cannot be combined"),
    usage(Config, ["ok.", "--memory", "-q"], "--memory and -q/--squeeze cannot be combined"),
    usage(Config, ["ok.", "-i", "--nodes", "a@b"], "-i/--isolated and --nodes cannot be combined").

%% A --cv goal no run can meet: said on stderr, recorded, stdout still only JSON. A busy
%% loop counts some 10^5-10^6 iterations in a 50 ms sample, never the same count in five
%% samples running (sleeping runners can: 20-odd sleeps a sample repeat their count).
cv_not_met(Config) ->
    Runner = "rand:uniform(1000).",
    #{status := 0, out := Out, err := Err} =
        run(Config, [Runner, "--cv", "0.000001", "-d", "50", "-s", "5", "--format", "json"]),
    [Line] = lines(Err),
    ?assert(lists:prefix("erlperf: warning: " ++ Runner ++ " did not reach --cv 1.0e-6 before the cap", Line), Line),
    #{<<"runs">> := [Run]} = json(Out),
    ?assertMatch(#{<<"cv_met">> := false, <<"cv_goal">> := _}, Run).

%% Records with fields of the wrong type, read by --baseline and --render.
bad_records(Config) ->
    Dir = ?config(dir, Config),
    Record = saved_record(Config),
    [Run] = maps:get(<<"runs">>, Record),
    Cases = [{"samples_empty.json", Record#{<<"runs">> := [Run#{<<"samples">> := []}]},
              "field runs[0].samples is not a non-empty list"},
             {"samples_text.json", Record#{<<"runs">> := [Run#{<<"samples">> := <<"x">>}]},
              "field runs[0].samples is not a non-empty list"},
             {"system_null.json", Record#{<<"system">> := null}, "field system is not an object"},
             {"runs_empty.json", Record#{<<"runs">> := []}, "field runs is not a non-empty list"}],
    [begin
         File = filename:join(Dir, Name),
         ok = file:write_file(File, erlperf_json:encode(Bad)),
         usage_line(Config, ["ok.", "-d", "10", "--baseline", File], "erlperf: baseline " ++ File ++ ": " ++ Field),
         usage_line(Config, ["--render", File, "-o", Dir], "erlperf: " ++ File ++ ": " ++ Field)
     end || {Name, Bad, Field} <- Cases],
    ?assertEqual([], filelib:wildcard(filename:join(Dir, "*.html"))).

%% A performance test's results where a benchmark record belongs.
foreign_records(Config) ->
    File = filename:join(?config(dir, Config), "results.json"),
    {ok, _} = file:copy(filename:join(data_dir(), "httpd.json"), File),
    usage_line(Config, ["ok.", "-d", "10", "--baseline", File],
               "erlperf: baseline " ++ File ++ ": a --perf-test results.json, not a benchmark record"),
    NotRecord = filename:join(?config(dir, Config), "list.json"),
    ok = file:write_file(NotRecord, <<"[1, 2, 3]">>),
    usage_line(Config, ["--render", NotRecord], "erlperf: " ++ NotRecord ++ ": not an erlperf results record").

output_paths(Config) ->
    Dir = ?config(dir, Config),
    usage(Config, ["--render", filename:join(Dir, "r.json"), "-o", ""], "-o: an empty file name"),
    usage(Config, ["ok.", "-o", ""], "-o: an empty file name"),
    usage(Config, ["ok.", "--save", ""], "--save: an empty file name"),
    A = filename:join(Dir, "a.json"),
    usage(Config, ["ok.", "-o", A, "--save", A], "-o and --save both write " ++ A),
    usage(Config, ["ok.", "--html", A ++ ".html", "-o", filename:join([Dir, ".", "a.json.html"])],
          "-o and --html both write"),
    ?assertEqual([], filelib:wildcard(filename:join(Dir, "*"))).

%% --save onto a symbolic link replaces the file it points to; the link stays.
symlink_followed(Config) ->
    Dir = ?config(dir, Config),
    Target = filename:join(Dir, "target.json"),
    Link = filename:join(Dir, "link.json"),
    ok = file:write_file(Target, <<"old">>),
    ok = file:make_symlink("target.json", Link),
    #{status := 0, err := ""} = run(Config, ["ok.", "-d", "10", "--save", Link]),
    ?assertEqual({ok, "target.json"}, file:read_link(Link)),
    ?assertMatch(#{<<"runs">> := [_]}, json(element(2, file:read_file(Target)))),
    ?assertEqual(lists:sort(["target.json", "link.json"]), lists:sort(element(2, file:list_dir(Dir)))).

%% A file that cannot be written: one line, status 1, nothing half-written.
unwritable_output(Config) ->
    Missing = filename:join([?config(dir, Config), "no", "such", "dir", "r.json"]),
    #{status := 1, err := Err} = run(Config, ["ok.", "-d", "10", "--save", Missing]),
    ?assertEqual(["erlperf: cannot write " ++ Missing ++ ": no such file or directory"], lines(Err)).

%% Code that would halt erlperf's VM (status 0, no output) is refused.
halting_runner(Config) ->
    usage_line(Config, ["halt()."], "erlperf: halt(). calls erlang:halt/0, which would stop erlperf's own VM"),
    usage_line(Config, ["{erlang, halt, [0]}"], "erlperf: {erlang,halt,[0]} calls erlang:halt/1"),
    usage_line(Config, ["init:stop()."], "erlperf: init:stop(). calls init:stop/0"),
    usage_line(Config, ["ok.", "--init_runner", "erlang:halt(3)."], "erlperf: ok. calls erlang:halt/1").

%% Isolated, it stops only its own node: a failed run, said in one line.
halting_runner_isolated(Config) ->
    #{status := 1, out := "", err := Err} = run(Config, ["halt().", "-i", "-d", "100"]),
    ?assertEqual(["erlperf: the isolated node stopped before the run finished "
                  "(does the code halt or stop the VM?)"], lines(Err)).

sigterm(Config) ->
    signalled(Config, ["timer:sleep(1).", "-d", "60000", "--format", "json"], "TERM", 143,
              ["erlperf: stopped by SIGTERM before the run finished"]).

%% The isolated node goes with the run, and never had the cookie on its command line.
sigterm_isolated(Config) ->
    signalled(Config, ["timer:sleep(1).", "-i", "-d", "60000"], "TERM", 143,
              ["erlperf: stopped by SIGTERM before the run finished"]).

%% Ctrl-C: the escript's VM has no break handler; it ends at once, 128 + 2 (SIGINT with
%% its default action, as a terminal's shell gives it).
sigint(Config) ->
    signalled(Config, ["timer:sleep(1).", "-d", "60000"], "INT", 130, [],
              erlperf_test_lib:default_sigint()).

%% The log (crash reports, the code's own logger calls) goes to stderr: stdout stays JSON.
%% The init code runs once whatever the host's load (a loaded host may leave the runner
%% no call at all: the runner's own reports are not asserted).
log_off_stdout(Config) ->
    Runner = "proc_lib:spawn(fun () -> erlang:error(x) end), logger:notice(\"noted\"), timer:sleep(20).",
    Init = "proc_lib:spawn(fun () -> erlang:error(x) end), logger:notice(\"noted\").",
    #{status := 0, out := Out, err := Err} =
        run(Config, [Runner, "--init", Init, "-d", "100", "-s", "2", "--format", "json"]),
    ?assertMatch(#{<<"runs">> := [_]}, json(Out)),
    ?assertNotEqual(nomatch, string:find(Err, "CRASH REPORT")),
    ?assertNotEqual(nomatch, string:find(Err, "noted")),
    #{status := 0, out := Csv} = run(Config, [Runner, "-d", "100", "-s", "2", "--format", "csv"]),
    ?assertMatch("label," ++ _, Csv).

%% An internal error (here: an erlperf module replaced by one that exports nothing) says
%% it is one, and where its details were written.
internal_error(Config) ->
    Dir = ?config(dir, Config),
    {ok, erlperf_cost, Beam} = compile:forms([{attribute, 1, module, erlperf_cost}], [binary]),
    ok = file:write_file(filename:join(Dir, "erlperf_cost.beam"), Beam),
    #{status := 1, out := "", err := Err} =
        run(Config, ["ok.", "-d", "10", "--memory", "-pa", Dir], [{"TMPDIR", Dir}]),
    [Line] = lines(Err),
    ?assertMatch("erlperf: internal error (a bug in erlperf; please report it with the details): " ++ _, Line),
    [_, Details] = string:split(Line, "; details in "),
    ?assertEqual(Dir, filename:dirname(Details)),
    {ok, Text} = file:read_file(Details),
    ?assertNotEqual(nomatch, binary:match(Text, <<"undef">>)).

version_and_help(Config) ->
    #{status := 0, out := Out, err := ""} = run(Config, ["--version"]),
    ?assertEqual(["erlperf " ++ erlperf_args:version() ++ " (Erlang/OTP " ++ erlang:system_info(otp_release)
                  ++ ", ERTS " ++ erlang:system_info(version) ++ ")"], lines(Out)),
    #{status := 0, out := Help} = run(Config, ["--help"]),
    [?assertNotEqual(nomatch, string:find(Help, Text), Text)
     || Text <- ["text, json, csv, markdown, html, benchee, github-action-benchmark or bencher", ".markdown", ".html", ".htm", "--version"]].

%% erlperf_output takes file names as binaries, as Elixir passes them.
binary_path_api(Config) ->
    File = filename:join(?config(dir, Config), "bin.json"),
    Report = erlperf:run("ok.", #{sample_duration => 10, report => full}),
    ?assertEqual(ok, erlperf_output:write(unicode:characters_to_binary(File), json, [Report])),
    ?assertMatch(#{<<"runs">> := [_]}, json(element(2, file:read_file(File)))),
    ?assertMatch({error, {write, "", _}}, erlperf_output:write(<<>>, json, [Report])).

%% Command lines of options with odd values, one of them certainly wrong: exit 2 and one
%% line, whatever the mix.
argument_fuzz(Config) ->
    _ = rand:seed(exsss, {25, 11, 2026}),
    Options = ["-c", "-d", "-s", "-l", "-w", "--cv", "-r", "--format", "-o", "--save", "--html",
               "--baseline", "--fail-on-regression", "--compare", "--confidence", "--noise",
               "--param", "--bytes", "--profile", "--nodes", "--min", "--max", "--step", "-t",
               "--init", "--done", "--init_runner", "--label"],
    Values = ["0", "-1", "", "1G", "99999999999999999999999", "x", "1.5", "%", "\"", "..", "a=b",
              "N=1,,", "{", "'", "-", "--"],
    Wrong = [["--no-such-option"], ["-c", "0"], ["-d", "9G"], ["--format", "xml"], ["-s", ""],
             ["--param", "="], ["--cv", "-1"], ["-o", "x.unknown"]],
    [begin
         Mix = [[lists:nth(rand:uniform(length(Options)), Options), lists:nth(rand:uniform(length(Values)), Values)]
                || _ <- lists:seq(1, rand:uniform(3))],
         Bad = lists:nth(rand:uniform(length(Wrong)), Wrong),
         Args = ["ok." | lists:append(Mix ++ [Bad])],
         #{status := 2, out := "", err := Err} = run(Config, Args),
         ?assertMatch(["erlperf: " ++ _], lines(Err), Args)
     end || _ <- lists:seq(1, ?FUZZ_RUNS)].

%% Random bytes and a record cut short, as a baseline and as a report to render.
record_bytes_fuzz(Config) ->
    _ = rand:seed(exsss, {26, 11, 2026}),
    Dir = ?config(dir, Config),
    Saved = iolist_to_binary(erlperf_json:encode(saved_record(Config))),
    Files = [<< <<(rand:uniform(256) - 1)>> || _ <- lists:seq(1, rand:uniform(200))>>
             || _ <- lists:seq(1, ?FUZZ_FILES)] ++ [binary:part(Saved, 0, byte_size(Saved) div 2)],
    [begin
         File = filename:join(Dir, "fuzz.json"),
         ok = file:write_file(File, Bytes),
         #{status := 2, out := "", err := E1} = run(Config, ["ok.", "-d", "10", "--baseline", File]),
         ?assertMatch(["erlperf: baseline " ++ _], lines(E1)),
         #{status := 2, out := "", err := E2} = run(Config, ["--render", File, "-o", Dir]),
         ?assertMatch(["erlperf: " ++ _], lines(E2))
     end || Bytes <- Files],
    ?assertEqual([], filelib:wildcard(filename:join(Dir, "*.html"))).

%% Options an open load would ignore (nothing is measured after or before its run), and
%% formats the history has no layout for: refused, each named.
rate_conflicts(Config) ->
    [usage(Config, ["ok.", "--rate", "10" | Args],
           "--rate and " ++ Other ++ " cannot be combined: ")
     || {Args, Other} <- [{["--memory"], "--memory"}, {["--profile", "eprof"], "--profile"},
                          {["-w", "1"], "-w/--warmup"}]],
    usage(Config, ["lists:seq(1, N).", "--param", "N=1", "--bytes", "N", "--rate", "10"],
          "--rate and --bytes cannot be combined: "),
    [usage(Config, ["--history", "--store", ?config(dir, Config), "--format", Format],
           "--history and --format " ++ Format ++ " cannot be combined: ")
     || Format <- ["benchee", "github-action-benchmark", "bencher"]],
    ?assertEqual([], filelib:wildcard(filename:join(?config(dir, Config), "*"))).

%% An open load's figures are what it measured: response times and the rate achieved,
%% never a time per call (the schedule's period), in every format; no timer note.
rate_figures(Config) ->
    Args = ["rand:uniform().", "--rate", "1k,2k", "-d", "100", "-s", "2"],
    #{status := 0, out := Text} = run(Config, Args),
    ?assertEqual(nomatch, string:find(Text, "Timer accuracy")),
    #{status := 0, out := Json} = run(Config, Args ++ ["--format", "json"]),
    #{<<"runs">> := Runs} = json(Json),
    ?assertEqual([{1000, null, <<"sleep">>}, {2000, null, <<"sleep">>}],
                 [{T, Ns, S} || #{<<"rate">> := #{<<"target">> := T}, <<"iteration_ns">> := Ns,
                                  <<"sleep">> := S} <- Runs]),
    #{status := 0, out := Github} = run(Config, Args ++ ["--format", "github-action-benchmark"]),
    ?assertEqual([<<"rand:uniform(). at ", R/binary, "/s - response ", P/binary>>
                  || R <- [<<"1000">>, <<"2000">>], P <- [<<"p50">>, <<"p99">>]],
                 [N || #{<<"name">> := N} <- json(Github)]),
    #{status := 0, out := Bencher} = run(Config, Args ++ ["--format", "bencher"]),
    Bmf = json(Bencher),
    ?assertEqual([<<"rand:uniform(). at 1000/s">>, <<"rand:uniform(). at 2000/s">>],
                 lists:sort(maps:keys(Bmf))),
    [?assertEqual([<<"response-p50">>, <<"response-p99">>, <<"throughput">>],
                  lists:sort(maps:keys(M))) || M <- maps:values(Bmf)].

%% The same code at a rate against a closed loop's baseline: not compared (their samples
%% measured different things), so no regression; the gate warns, naming the setting.
rate_against_closed_baseline(Config) ->
    Base = filename:join(?config(dir, Config), "closed.json"),
    #{status := 0} = run(Config, ["rand:uniform().", "-d", "100", "-s", "3", "--save", Base]),
    #{status := 0, err := Err} =
        run(Config, ["rand:uniform().", "--rate", "1k", "-d", "100", "-s", "2", "--baseline", Base,
                     "--fail-on-regression", "5"]),
    ?assertEqual(["erlperf: warning: rand:uniform(). against " ++ Base ++ ": inconclusive: options "
                  "differ: rate none -> 1000/s"], lines(Err)).

%% One runner of two crashing where each runs alone (at a rate, one after the other, each
%% in its own node): named, the other's results shown, exit 1, and no report of
%% erlperf's own processes.
rate_crash_among_several(Config) ->
    [begin
         #{status := 1, out := Out, err := Err} =
             run(Config, ["ok.", "erlang:error(boom).", "-d", "100", "-s", "1" | Alone]),
         ?assertMatch(["erlperf: runner of 'erlang:error(boom).' crashed: error:boom" ++ _],
                      lines(Err), Alone),
         ?assertNotEqual(nomatch, string:find(Out, "ok."), Alone),
         ?assertEqual(nomatch, string:find(Out, "boom"), Alone)
     end || Alone <- [["--rate", "100"], ["--compare", "sequential"], ["-i"]]].

%% Every runner crashes: each is named, in the order met (the first was lost when the
%% others, run again without it, failed too).
all_crash(Config) ->
    #{status := 1, err := Err} = run(Config, ["erlang:error(a).", "erlang:error(b).", "-d", "50", "-s", "1"]),
    ?assertMatch(["erlperf: runner of 'erlang:error(a).' crashed: error:a" ++ _,
                  "erlperf: runner of 'erlang:error(b).' crashed: error:b" ++ _], lines(Err)).

%% No call returned in the run (each takes a second, the run 200 ms): Benchee's layout
%% shows no figure where there is none.
benchee_no_call_returned(Config) ->
    #{status := 0, out := Out, err := ""} =
        run(Config, ["timer:sleep(1000).", "-d", "100", "-s", "2", "--format", "benchee"]),
    [Row] = [L || "timer:sleep(1000). " ++ _ = L <- lines(Out)],
    ?assertMatch(["timer:sleep(1000).", "0.00", "-" | _], string:lexemes(Row, " ")).

%% A store entry with a number where text belongs (another tool's, or edited by hand):
%% skipped with one warning naming it; the history of the others is shown.
history_foreign_entry(Config) ->
    Store = filename:join(?config(dir, Config), "store"),
    Entry = erlperf_store:entry(saved_record(Config), ["bench"]),
    {ok, Good} = erlperf_store:save_run(Store, Entry),
    {ok, Bad} = erlperf_store:save_run(Store, Entry#{<<"otp">> => 25}),
    #{status := 0, out := Out, err := Err} = run(Config, ["--history", "--store", Store]),
    ?assertEqual(["erlperf: warning: " ++ Bad ++ " holds a broken record (field otp is not a "
                  "string): skipped"], lines(Err)),
    ?assertNotEqual(nomatch, string:find(Out, "rand:uniform().")),
    ?assert(filelib:is_regular(Good)).

%%--------------------------------------------------------------------
%% Helpers

%% A usage error: status 2, nothing on stdout, one line on stderr holding Expected.
usage(Config, Args, Expected) ->
    #{status := 2, out := Out, err := Err} = run(Config, Args),
    ?assertEqual("", Out),
    [Line] = lines(Err),
    ?assertMatch("erlperf: " ++ _, Line),
    ?assertNotEqual(nomatch, string:find(Line, Expected), {Line, Expected}).

%% A usage error whose one line starts with Prefix.
usage_line(Config, Args, Prefix) ->
    #{status := 2, out := "", err := Err} = run(Config, Args),
    [Line] = lines(Err),
    ?assert(lists:prefix(Prefix, Line), {Line, Prefix}).

%% Signals the run once it is measuring; checks its status, its stderr and that no
%% process it started is left (its children, peers among them: none has the cookie on
%% its command line).
signalled(Config, Args, Signal, Status, Expected) ->
    signalled(Config, Args, Signal, Status, Expected, []).

signalled(Config, Args, Signal, Status, Expected, Wrapper) ->
    Dir = ?config(dir, Config),
    %% the runner's init (in the peer, isolated) leaves a file: the run is under way
    Mark = filename:join(Dir, "started"),
    Init = lists:flatten(io_lib:format("file:write_file(~0p, <<>>).", [Mark])),
    Port = start(Config, Args ++ ["--init", Init], [], Wrapper),
    {os_pid, Pid} = erlang:port_info(Port, os_pid),
    true = erlperf_test_lib:wait_for(fun () -> filelib:is_regular(Mark) end, ?RUN_TIMEOUT_MS, 50),
    Children = children(Pid),
    [?assertEqual(nomatch, string:find(cmdline(C), "setcookie")) || C <- Children],
    [] = os:cmd("kill -" ++ Signal ++ " " ++ integer_to_list(Pid)),
    #{status := Got, out := Out, err := Err} = finish(Port, Dir, ?SIGNAL_EXIT_MS),
    ?assertEqual(Status, Got),
    ?assertEqual("", Out),
    ?assertEqual(Expected, lines(Err)),
    true = erlperf_test_lib:wait_for(fun () -> [] =:= [C || C <- [Pid | Children], alive(C)] end,
                                     ?SIGNAL_EXIT_MS, 100).

children(Pid) ->
    [list_to_integer(P) || P <- string:lexemes(os:cmd("pgrep -P " ++ integer_to_list(Pid)), "\n")].

alive(Pid) ->
    filelib:is_dir("/proc/" ++ integer_to_list(Pid)).

cmdline(Pid) ->
    case file:read_file("/proc/" ++ integer_to_list(Pid) ++ "/cmdline") of
        {ok, Bin} -> binary_to_list(binary:replace(Bin, <<0>>, <<" ">>, [global]));
        {error, _} -> ""
    end.

run(Config, Args) ->
    run(Config, Args, []).

%% Runs the escript; stdout and stderr apart.
run(Config, Args, Env) ->
    finish(start(Config, Args, Env), ?config(dir, Config), ?RUN_TIMEOUT_MS).

start(Config, Args, Env) ->
    start(Config, Args, Env, []).

%% Wrapper: a command line the escript's is appended to (it must exec it).
start(Config, Args, Env, Wrapper) ->
    Dir = ?config(dir, Config),
    Out = filename:join(Dir, ".stdout"),
    Err = filename:join(Dir, ".stderr"),
    Script = "exec \"$0\" \"$@\" >'" ++ Out ++ "' 2>'" ++ Err ++ "'",
    ct:log("erlperf ~p ~p", [Env, Args]),
    open_port({spawn_executable, "/bin/sh"},
              [exit_status, binary, {cd, Dir},
               {args, ["-c", Script | Wrapper ++ [?config(escript, Config) | Args]]},
               {env, erlperf_test_lib:escript_env(Env)}]).

finish(Port, Dir, Timeout) ->
    Status = receive {Port, {exit_status, S}} -> S
             after Timeout -> error(timeout)
             end,
    {ok, Out} = file:read_file(filename:join(Dir, ".stdout")),
    {ok, Err} = file:read_file(filename:join(Dir, ".stderr")),
    ok = file:delete(filename:join(Dir, ".stdout")),
    ok = file:delete(filename:join(Dir, ".stderr")),
    ct:log("exit ~b~nstdout:~n~ts~nstderr:~n~ts", [Status, Out, Err]),
    %% a stack trace of erlperf's, never (a crash report of the code under test is the
    %% code's own, sent on by the VM's log)
    [?assertEqual(nomatch, binary:match(Err, Trace), Trace)
     || binary:match(Err, <<"CRASH REPORT">>) =:= nomatch,
        Trace <- [<<"in function">>, <<"in call from">>, <<"{badarg">>, <<"function_clause">>]],
    #{status => Status, out => unicode:characters_to_list(Out), err => unicode:characters_to_list(Err)}.

lines(Text) ->
    string:lexemes(Text, "\n").

json(Text) ->
    {ok, Map} = erlperf_json:decode(unicode:characters_to_binary(Text)),
    Map.

%% A record saved by the escript.
saved_record(Config) ->
    File = filename:join(?config(dir, Config), "saved.json"),
    #{status := 0} = run(Config, ["rand:uniform().", "-d", "10", "--save", File]),
    {ok, Bin} = file:read_file(File),
    ok = file:delete(File),
    json(Bin).

data_dir() ->
    filename:join(filename:dirname(?FILE), "erlperf_html_perf_tests_data").
