%% Performance testing end to end: erlperf_perf_test:run/2 and `./erlperf --perf-test',
%% with real test nodes, a deterministic system under test (test data
%% det_load_gen.erl), failures injected into callbacks, custom agents, requirements and
%% baselines, and what is left behind.
-module(erlperf_perf_test_SUITE).

-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1,
         init_per_testcase/2, end_per_testcase/2]).
-export([counts_exact/1, failed_run_tears_down/1, hanging_callback/1, node_down/1, test_setup_fails/1,
         not_a_load_generator/1, does_not_compile/1, custom_agent/1, requirements/1,
         baseline/1, results_files/1, bad_options/1, aborted/1,
         cli_ok/1, cli_requirement_fails/1, cli_run_fails/1, cli_usage/1, cli_baseline/1,
         cli_killed/1]).
-export([counts_exact/0, failed_run_tears_down/0, hanging_callback/0, node_down/0, test_setup_fails/0, not_a_load_generator/0, does_not_compile/0, custom_agent/0, requirements/0, baseline/0, results_files/0, bad_options/0, aborted/0, cli_ok/0, cli_requirement_fails/0, cli_run_fails/0, cli_usage/0, cli_baseline/0, cli_killed/0]).

suite() ->
    [{timetrap, {minutes, 3}}].

all() ->
    [{group, api}, {group, cli}].

groups() ->
    [{api, [], [counts_exact, failed_run_tears_down, hanging_callback, node_down, test_setup_fails,
                not_a_load_generator, does_not_compile, custom_agent, requirements, baseline,
                results_files, bad_options, aborted]},
     {cli, [], [cli_ok, cli_requirement_fails, cli_run_fails, cli_usage, cli_baseline,
                cli_killed]}].

-define(config(K, C), proplists:get_value(K, C)).
-define(ENV, ["DET_LOG", "DET_FAIL", "DET_COST", "DET_LIMIT_US", "DET_SIZES"]).
%% Against a baseline: the tolerance (percent) with which the same code passes, however a
%% loaded machine slows one run of a few microseconds of calls (a time slice lost in it
%% multiplies its time per call), and the cost (DET_COST) of code that must fail: 10,000
%% times the default's work per call.
-define(SAME_TOLERANCE, 10000000).
-define(COSTLIER, "100000").
%% Longest wait for the test nodes of a killed command to go, and how often to look.
-define(GONE_TIMEOUT_MS, 10000).
-define(GONE_POLL_MS, 100).

init_per_suite(Config) ->
    %% a listening node, so that other suites' peers can still connect back to it
    Started = case node() of
                  nonode@nohost ->
                      {ok, _} = net_kernel:start(list_to_atom("erlperf_perf_ct_" ++ os:getpid() ++ "@127.0.0.1"),
                                                 #{name_domain => longnames}),
                      true;
                  _ ->
                      false
              end,
    [{started_dist, Started} | Config].

end_per_suite(Config) ->
    _ = [net_kernel:stop() || ?config(started_dist, Config)],
    ok.

init_per_testcase(Case, Config) ->
    _ = [os:unsetenv(V) || V <- ?ENV],
    Dir = filename:join(proplists:get_value(priv_dir, Config), Case),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Log = filename:join(Dir, "callbacks.log"),
    true = os:putenv("DET_LOG", Log),
    [{dir, Dir}, {log, Log} | Config].

end_per_testcase(_Case, _Config) ->
    _ = [os:unsetenv(V) || V <- ?ENV],
    ok.

%%--------------------------------------------------------------------
%% API

counts_exact() ->
    [{doc, "Calls of the target function are counted exactly per run, per process, and the discovered processes are exactly the callers"}].
counts_exact(Config) ->
    {ok, Record} = run(Config, #{}),
    #{<<"runs">> := [Run1, Run2], <<"sizes">> := [1, 2], <<"size_label">> := <<"callers">>} = Record,
    lists:foreach(
      fun ({#{<<"functions">> := Functions, <<"processes">> := Processes, <<"status">> := Status}, Size}) ->
              ?assertEqual(<<"ok">>, Status),
              [#{<<"mfa">> := <<"det_load_gen:work/1">>, <<"calls">> := Calls, <<"per_process">> := PerProcess}] =
                  Functions,
              ?assertEqual(100 * Size, Calls),
              ?assertEqual(lists:duplicate(Size, 100), [C || #{<<"calls">> := C} <- PerProcess]),
              ?assertEqual(lists:sort([P || #{<<"pid">> := P} <- PerProcess]),
                           lists:sort([P || #{<<"pid">> := P} <- Processes])),
              ?assertEqual(lists:duplicate(Size, <<"det_load_gen:caller/2">>),
                           [N || #{<<"name">> := N} <- Processes])
      end, [{Run1, 1}, {Run2, 2}]),
    ?assertEqual([], erlperf_perf_node:started()),
    ?assertEqual([test_setup, {setup_run, 1}, {start_load, 1}, {stop_load, 1}, {teardown_run, {node(1, Config), 1}},
                  {setup_run, 2}, {start_load, 2}, {stop_load, 2}, {teardown_run, {node(2, Config), 2}},
                  test_teardown],
                 callbacks(Config)).

failed_run_tears_down() ->
    [{doc, "A callback that raises fails its run, with the reason; teardown_run/1 still runs (with the nodes), and the next size runs"}].
failed_run_tears_down(Config) ->
    true = os:putenv("DET_FAIL", "start_load:1"),
    {ok, #{<<"runs">> := [Failed, Ok]}} = run(Config, #{}),
    #{<<"status">> := <<"failed">>, <<"error">> := Error} = Failed,
    ?assertMatch({match, _}, re:run(Error, "start_load: error:\\{injected,start_load,1\\}")),
    ?assertMatch(#{<<"status">> := <<"ok">>}, Ok),
    Callbacks = callbacks(Config),
    ?assertMatch([test_setup, {setup_run, 1}, {start_load, 1}, {teardown_run, [_]}, {setup_run, 2} | _], Callbacks),
    ?assertEqual(test_teardown, lists:last(Callbacks)),
    ?assertEqual([], erlperf_perf_node:started()).

hanging_callback() ->
    [{doc, "A callback that hangs fails its run after the timeout; the run is torn down and the test goes on"}].
hanging_callback(Config) ->
    true = os:putenv("DET_FAIL", "stop_load_hang:1"),
    %% long enough for setup_run/1 to start a node on a loaded machine
    {ok, #{<<"runs">> := [Failed, Ok]}} = run(Config, #{timeout => 8000}),
    ?assertMatch(#{<<"status">> := <<"failed">>, <<"error">> := <<"stop_load: no answer in 8000 ms">>}, Failed),
    ?assertMatch(#{<<"status">> := <<"ok">>}, Ok),
    ?assertEqual(test_teardown, lists:last(callbacks(Config))),
    ?assertEqual([], erlperf_perf_node:started()).

node_down() ->
    [{doc, "A test node that goes down during the load fails its run; teardown_run/1 still runs and the next size runs"}].
node_down(Config) ->
    true = os:putenv("DET_FAIL", "node_down:1"),
    {ok, #{<<"runs">> := [Failed, Ok]}} = run(Config, #{}),
    #{<<"status">> := <<"failed">>, <<"error">> := Error} = Failed,
    ?assertMatch({match, _}, re:run(Error, "went down during the load")),
    ?assertMatch(#{<<"status">> := <<"ok">>}, Ok),
    ?assertMatch([test_setup, {setup_run, 1}, {start_load, 1}, {teardown_run, {_, 1, pids}}, {setup_run, 2} | _],
                 callbacks(Config)),
    ?assertEqual(test_teardown, lists:last(callbacks(Config))),
    ?assertEqual([], erlperf_perf_node:started()).

test_setup_fails() ->
    [{doc, "test_setup/0 raising is an error of the whole test; no run starts"}].
test_setup_fails(Config) ->
    true = os:putenv("DET_FAIL", "test_setup:0"),
    ?assertMatch({error, {test_setup, _}}, run(Config, #{})),
    ?assertEqual([test_setup], callbacks(Config)),
    {error, Reason} = run(Config, #{}),
    ?assertMatch("test_setup/0 failed: error:{injected,test_setup,0}" ++ _, erlperf_perf_test:format_error(Reason)).

not_a_load_generator() ->
    [{doc, "A module without the behaviour's callbacks is refused, naming what is missing"}].
not_a_load_generator(Config) ->
    File = data(Config, "not_a_load_gen.erl"),
    {error, Reason} = erlperf_perf_test:run(File, #{write => false}),
    ?assertMatch({load_generator, not_a_load_gen, {missing_callbacks, _}}, Reason),
    Text = erlperf_perf_test:format_error(Reason),
    ?assertMatch({match, _}, re:run(Text, "does not export .*test_setup/0")).

does_not_compile() ->
    [{doc, "A load generator that does not compile: the compiler's messages, with file and line"}].
does_not_compile(Config) ->
    File = filename:join(?config(dir, Config), "broken.erl"),
    ok = file:write_file(File, "-module(broken).\nx() -> .\n"),
    {error, Reason} = erlperf_perf_test:run(File, #{write => false}),
    Text = erlperf_perf_test:format_error(Reason),
    ?assertMatch({match, _}, re:run(Text, "broken.erl:2:\\d+: syntax error")),
    ?assertMatch({error, {load_generator, _, {not_found, _}}},
                 erlperf_perf_test:run(File ++ ".missing.erl", #{write => false})).

custom_agent() ->
    [{doc, "A custom agent is compiled, configured, started on the test node and its processed results land in the record; its module is gone afterwards"}].
custom_agent(Config) ->
    {ok, #{<<"runs">> := Runs}} = run(Config, #{custom_agents => [data(Config, "counting_agent.erl")]}),
    lists:foreach(
      fun (#{<<"size">> := Size, <<"custom_agents">> := Custom, <<"nodes">> := [Node]}) ->
              #{<<"counting_agent">> := #{Node := #{size := Size, node := NodeAtom, checks := Checks}}} = Custom,
              ?assertEqual(Node, atom_to_binary(NodeAtom)),
              ?assert(is_integer(Checks))
      end, Runs).

requirements() ->
    [{doc, "get_requirements/1 limits are evaluated per size with the measured value: pass under a generous limit, fail under 0"}].
requirements(Config) ->
    {ok, #{<<"requirements">> := Passed}} = run(Config, #{}),
    ?assertMatch([#{<<"size">> := 1, <<"pass">> := true, <<"requirement">> := <<"max_time_per_call_us">>,
                    <<"subject">> := <<"det_load_gen:work/1">>, <<"limit">> := 1000000},
                  #{<<"size">> := 2, <<"pass">> := true}], Passed),
    [?assert(is_number(M) andalso M >= 0) || #{<<"measured">> := M} <- Passed],
    true = os:putenv("DET_LIMIT_US", "0"),
    true = os:putenv("DET_COST", "2000"),
    {ok, #{<<"requirements">> := Failed}} = run(Config, #{}),
    ?assertMatch([#{<<"pass">> := false}, #{<<"pass">> := false}], Failed),
    ?assertEqual(2, length(erlperf_perf_requirements:failed(Failed))).

baseline() ->
    [{doc, "Against a baseline: the same code passes with a tolerance of orders of magnitude "
           "(10,000,000%), code 10,000x costlier per call fails with one of 10%"}].
baseline(Config) ->
    true = os:putenv("DET_SIZES", "1"),
    {ok, #{<<"dir">> := Dir}} = run(Config, #{}),
    File = filename:join(binary_to_list(Dir), "results.json"),
    {ok, #{<<"requirements">> := Same}} = run(Config, #{baseline => File, tolerance => ?SAME_TOLERANCE}),
    ?assertMatch([_ | _], [R || #{<<"requirement">> := <<"baseline_time_per_call_us">>} = R <- Same]),
    ?assertEqual([], erlperf_perf_requirements:failed(Same)),
    true = os:putenv("DET_COST", ?COSTLIER),
    {ok, #{<<"requirements">> := Slower}} = run(Config, #{baseline => File, tolerance => 10}),
    ?assertMatch([#{<<"subject">> := <<"all target functions">>, <<"pass">> := false},
                  #{<<"subject">> := <<"det_load_gen:work/1">>, <<"pass">> := false}],
                 [R || #{<<"requirement">> := <<"baseline_time_per_call_us">>} = R <- Slower]),
    ?assertMatch({error, {baseline, _, _}}, run(Config, #{baseline => File ++ ".missing"})).

results_files() ->
    [{doc, "results.json, results.term and the HTML report (index.html and its pages) are written "
           "into OUT_DIR/<test name>-<timestamp>/, as the command line writes them; the records read back alike"}].
results_files(Config) ->
    {ok, #{<<"dir">> := Dir, <<"report">> := Index} = Record} = run(Config, #{}),
    ?assertEqual(?config(dir, Config), filename:dirname(binary_to_list(Dir))),
    ?assertMatch("det_test-" ++ _, filename:basename(binary_to_list(Dir))),
    ?assertEqual(filename:join(binary_to_list(Dir), "index.html"), binary_to_list(Index)),
    {ok, Html} = file:read_file(Index),
    ?assertMatch({match, _}, re:run(Html, "det_load_gen:work/1")),
    ?assertMatch([_ | _], filelib:wildcard(binary_to_list(Dir) ++ "/function-*.html")),
    {ok, Json} = erlperf_perf_results:read(filename:join(Dir, "results.json")),
    ?assertEqual(maps:get(<<"runs">>, erlperf_perf_results:jsonable(Record)), maps:get(<<"runs">>, Json)),
    {ok, [Term]} = file:consult(filename:join(Dir, "results.term")),
    ?assertEqual(maps:without([<<"dir">>, <<"report">>], Record), Term),
    ?assertEqual([], filelib:wildcard(binary_to_list(Dir) ++ "/*.tmp.*")),
    %% a second test in the same second gets a directory of its own
    {ok, #{<<"dir">> := Dir2}} = run(Config, #{}),
    ?assertNotEqual(Dir, Dir2).

bad_options() ->
    [{doc, "Unknown options and bad values are programmer errors raised before anything runs"}].
bad_options(_Config) ->
    ?assertError({invalid_option, colour, blue}, erlperf_perf_test:run(det_load_gen, #{colour => blue})),
    ?assertError({invalid_option, interval, 0}, erlperf_perf_test:run(det_load_gen, #{interval => 0})),
    ?assertError({invalid_option, tolerance, -1}, erlperf_perf_test:run(det_load_gen, #{tolerance => -1})),
    ?assertError({invalid_option, timeout, 16#100000000},
                 erlperf_perf_test:run(det_load_gen, #{timeout => 16#100000000})),
    ?assertError({invalid_option, interval, 16#100000000},
                 erlperf_perf_test:run(det_load_gen, #{interval => 16#100000000})).

aborted() ->
    [{doc, "abort/2 before the first run: test_setup/0 and test_teardown/1 run, no size runs, nothing "
           "is written, run/2 returns {error, {aborted, Why}}; a later test in the same process is not "
           "aborted"}].
aborted(Config) ->
    ok = erlperf_perf_test:abort(self(), sigterm),
    ?assertEqual({error, {aborted, sigterm}}, run(Config, #{})),
    ?assertEqual([test_setup, test_teardown], callbacks(Config)),
    ?assertEqual([], filelib:wildcard(filename:join(?config(dir, Config), "det_test-*"))),
    ?assertEqual([], erlperf_perf_node:started()),
    ?assertEqual("the test was stopped (sigterm)", erlperf_perf_test:format_error({aborted, sigterm})),
    true = os:putenv("DET_SIZES", "1"),
    ?assertMatch({ok, #{<<"runs">> := [#{<<"status">> := <<"ok">>}]}}, run(Config, #{})).

%%--------------------------------------------------------------------
%% The escript

cli_ok() ->
    [{doc, "./erlperf --perf-test prints progress and a summary, writes results and exits 0"}].
cli_ok(Config) ->
    {0, Out} = escript(Config, ["--out-dir", ?config(dir, Config)], []),
    ?assertMatch({match, _}, re:run(Out, "size 1: setup_run")),
    ?assertMatch({match, _}, re:run(Out, "size 2: load runs")),
    ?assertMatch({match, _}, re:run(Out, "callers\\s+status\\s+calls")),
    ?assertMatch({match, _}, re:run(Out, "\\n2\\s+ok\\s+200\\s")),
    ?assertMatch({match, _}, re:run(Out, "max_time_per_call_us\\s+det_load_gen:work/1.*pass")),
    ?assertMatch([_], filelib:wildcard(filename:join(?config(dir, Config), "det_test-*/results.json"))).

cli_requirement_fails() ->
    [{doc, "A requirement that fails: FAIL in the summary, exit status 3"}].
cli_requirement_fails(Config) ->
    {3, Out} = escript(Config, ["--out-dir", ?config(dir, Config)], [{"DET_LIMIT_US", "0"}, {"DET_COST", "2000"}]),
    ?assertMatch({match, _}, re:run(Out, "max_time_per_call_us\\s+det_load_gen:work/1.*FAIL")).

cli_run_fails() ->
    [{doc, "A run that fails: the reason on the console, exit status 1, no stack trace"}].
cli_run_fails(Config) ->
    {1, Out} = escript(Config, ["--out-dir", ?config(dir, Config)], [{"DET_FAIL", "start_load:2"}]),
    ?assertMatch({match, _}, re:run(Out, "size 2: FAILED: start_load: error:\\{injected,start_load,2\\}")),
    ?assertEqual(nomatch, re:run(Out, "erl_eval|stacktrace|\\{file,")).

cli_usage() ->
    [{doc, "Usage errors exit 2 with one line: unknown option, bad value, missing file, not a load generator, bad baseline"}].
cli_usage(Config) ->
    Cases = [{["--perf-test", data(Config, "det_load_gen.erl"), "--bogus"], "unknown option for --perf-test: --bogus"},
             {["--perf-test", data(Config, "det_load_gen.erl"), "--tolerance", "-3"], "--tolerance needs a percentage"},
             {["--perf-test", data(Config, "det_load_gen.erl"), "--interval"], "--interval needs a value"},
             {["--perf-test", "/nonexistent/lg.erl"], "no such file"},
             {["--perf-test", data(Config, "not_a_load_gen.erl")], "does not export"},
             {["--perf-test", data(Config, "det_load_gen.erl"), "--baseline", "/nonexistent.json"], "baseline /nonexistent.json"}],
    lists:foreach(fun ({Args, Expected}) ->
                          {Status, Out} = erlperf_test_lib:escript(Args, []),
                          ?assertEqual({2, Args}, {Status, Args}),
                          ?assertMatch({match, _}, re:run(Out, Expected)),
                          ?assertEqual(nomatch, re:run(Out, "\\{file,|erl_eval"))
                  end, Cases).

cli_baseline() ->
    [{doc, "--baseline with the same code exits 0 (a tolerance of orders of magnitude); with "
           "code made 10,000x slower, 3 (the default tolerance)"}].
cli_baseline(Config) ->
    Env = [{"DET_SIZES", "1"}],
    {0, _} = escript(Config, ["--out-dir", ?config(dir, Config)], Env),
    [Saved] = filelib:wildcard(filename:join(?config(dir, Config), "det_test-*/results.json")),
    {0, _} = escript(Config, ["--out-dir", ?config(dir, Config), "--baseline", Saved, "--tolerance",
                              integer_to_list(?SAME_TOLERANCE)], Env),
    {3, Out} = escript(Config, ["--out-dir", ?config(dir, Config), "--baseline", Saved],
                       [{"DET_COST", ?COSTLIER} | Env]),
    ?assertMatch({match, _}, re:run(Out, "baseline_time_per_call_us\\s+det_load_gen:work/1.*FAIL")).

cli_killed() ->
    [{doc, "kill -9 of the command during the load leaves no test node running"}].
cli_killed(Config) ->
    Escript = erlperf_test_lib:escript_path(),
    Log = ?config(log, Config),
    Cmd = lists:flatten(io_lib:format("DET_LOG='~ts' DET_SIZES=1 exec ~ts --perf-test '~ts' --out-dir '~ts'",
                                      [Log, Escript, data(Config, "det_load_gen.erl"), ?config(dir, Config)])),
    Port = open_port({spawn_executable, "/bin/sh"}, [{args, ["-c", Cmd]}, exit_status, stderr_to_stdout, binary]),
    {os_pid, OsPid} = erlang:port_info(Port, os_pid),
    ok = wait_for(Port, <<"load runs">>),
    ?assertMatch([_], test_nodes(OsPid)),
    _ = os:cmd("kill -9 " ++ integer_to_list(OsPid)),
    receive {Port, {exit_status, _}} -> ok end,
    ?assert(erlperf_test_lib:wait_for(fun () -> test_nodes(OsPid) =:= [] end, ?GONE_TIMEOUT_MS,
                                      ?GONE_POLL_MS), test_nodes(OsPid)).

%%--------------------------------------------------------------------
%% Helpers

data(Config, File) ->
    filename:join(proplists:get_value(data_dir, Config), File).

run(Config, Options) ->
    erlperf_perf_test:run(data(Config, "det_load_gen.erl"), maps:merge(#{out_dir => ?config(dir, Config)}, Options)).

callbacks(Config) ->
    {ok, Terms} = file:consult(?config(log, Config)),
    [normalise(T) || T <- Terms].

%% node names in teardown_run's argument are replaced by what the test can know
normalise({teardown_run, {Node, Size}}) when is_atom(Node) -> {teardown_run, {run_node, Size}};
normalise(Other) -> Other.

node(_Size, _Config) -> run_node.

escript(Config, Args, Env) ->
    erlperf_test_lib:escript(["--perf-test", data(Config, "det_load_gen.erl") | Args],
                             [{"DET_LOG", ?config(log, Config)} | Env]).

wait_for(Port, Text) ->
    receive
        {Port, {data, Data}} ->
            case binary:match(Data, Text) of
                nomatch -> wait_for(Port, Text);
                _ -> ok
            end;
        {Port, {exit_status, S}} ->
            {exited, S}
    after 60000 ->
            timeout
    end.

%% OS processes of test nodes started by the escript with this OS pid (peer names end
%% in -<OS pid of the controlling node>)
test_nodes(OsPid) ->
    Pattern = "erlperf_test_node-[0-9]*-" ++ integer_to_list(OsPid) ++ "@",
    [L || L <- string:lexemes(os:cmd("ps -eo args"), "\n"), re:run(L, Pattern) =/= nomatch,
          re:run(L, "^ps ") =:= nomatch].
