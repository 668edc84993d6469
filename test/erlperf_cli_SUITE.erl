%%% @doc The `erlperf' command line, run as a real escript in a separate OS process.
%%%
%%% The escript is `$ERLPERF_ESCRIPT' when set, else one built from the code under test
%%% (`erlperf_test_lib:escript_path/0'). Every case checks the exit status and the output; the
%%% tables are parsed into cells so that shapes (header columns, row order) and values
%%% (QPS, times) can be asserted. Output is never a terminal here, so no case may see an
%%% escape sequence; the `terminal' group uses `script(1)' to get a pseudo-terminal.
%%%
%%% Groups: `usage' (errors, fast, parallel: a few of each shape end to end, every parser
%%% error in erlperf_args_tests), `options' (one option at a time, with
%%% timing assertions, sequential), `hooks' (per-runner options read in the order of the
%%% runners, as erlperf 2.3's CLI.md specifies), `encoding' (code in UTF-8 and code that
%%% is not: Latin-1 bytes), `format' (`erlperf_cli:format/2' on real full reports, in this
%%% node), `seed' (every README and efficiency guide example, verbatim, parallel: only
%%% shapes are asserted there), `seed_timed' (examples whose figures are compared,
%%% sequential) and `terminal'.
-module(erlperf_cli_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

%% Test cases: open load (--rate), and standard output closed under a run
-export([rate_usage/0, rate_usage/1, rate_tables/0, rate_tables/1, closed_output/0, closed_output/1,
         compile_cache/0, compile_cache/1, github_actions/0, github_actions/1, tracker_formats/0,
         tracker_formats/1]).

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1, init_per_group/2,
         end_per_group/2]).
%% usage
-export([no_arguments/1, help/1, parser_errors/1, command_errors/1, syntax_error/1,
         syntax_error_second_line/1, bad_pa/1, bad_arity/1, runner_crash/1, crash_among_several/1,
         undefined_function/1, init_crash/1, unreachable_node/1]).
%% options
-export([aliases/1, sleep_plausible/1, one_sample/1, concurrency/1, duration/1, samples/1,
         warmup/1, loop/1, report_formats/1, cv/1, verbose/1, code_path/1, erl_libs/1,
         isolated/1, squeeze_options/1, init_and_done/1, init_runner/1, label/1,
         all_runner_defaults/1, mfa_runner/1, inline_value/1, terminal_width/1,
         nodes/1]).
%% hooks
-export([cli_md_init_runner_order/1, cli_md_init_runner_swapped/1, init_and_done_order/1,
         label_order/1, single_hook_first_runner/1, hooks_before_runners/1]).
%% encoding
-export([utf8_code/1, latin1_code/1, latin1_label/1, latin1_failure/1, latin1_syntax_error/1,
         latin1_locale/1]).
%% format
-export([format_basic/1, format_extended/1, format_full/1, format_narrow/1,
         format_default_width/1, format_2_3_example/1, format_bad_input/1]).
%% seed
-export([readme_rand_uniform/1, readme_concurrency/1, readme_compare_warmup/1,
         readme_state/1, readme_squeeze_is_loaded/1, readme_squeeze_persistent_term/1,
         readme_pg_scope/1, readme_sleep_init_runner/1, readme_pg2/1,
         readme_pg2_isolated/1, readme_verbose_squeeze/1, readme_squeeze_max/1,
         readme_pa_argparse/1, readme_erl_libs_argparse/1, readme_ets_timer/1,
         guide_bytes_2/1, guide_bytes_100/1, guide_bytes_1000/1]).
%% seed_timed
-export([readme_mfa_loop/1, readme_duration_doubles/1, readme_timed_compare/1]).
%% terminal
-export([terminal_colour_and_progress/1, no_colour/1, colour_option/1]).

%% case docs
-export([no_arguments/0, help/0, parser_errors/0, command_errors/0, syntax_error/0, syntax_error_second_line/0, bad_pa/0, bad_arity/0, runner_crash/0, crash_among_several/0, undefined_function/0, init_crash/0, unreachable_node/0, aliases/0, sleep_plausible/0, one_sample/0, concurrency/0, duration/0, samples/0, warmup/0, loop/0, report_formats/0, cv/0, verbose/0, code_path/0, erl_libs/0, isolated/0, squeeze_options/0, init_and_done/0, init_runner/0, label/0, all_runner_defaults/0, mfa_runner/0, inline_value/0, terminal_width/0, nodes/0, readme_rand_uniform/0, readme_concurrency/0, readme_compare_warmup/0, readme_state/0, readme_squeeze_is_loaded/0, readme_squeeze_persistent_term/0, readme_pg_scope/0, readme_sleep_init_runner/0, readme_pg2/0, readme_pg2_isolated/0, readme_verbose_squeeze/0, readme_squeeze_max/0, readme_pa_argparse/0, readme_erl_libs_argparse/0, readme_ets_timer/0, guide_bytes_2/0, guide_bytes_100/0, guide_bytes_1000/0, readme_mfa_loop/0, readme_duration_doubles/0, readme_timed_compare/0, terminal_colour_and_progress/0, no_colour/0, colour_option/0,
         cli_md_init_runner_order/0, cli_md_init_runner_swapped/0, init_and_done_order/0,
         label_order/0, single_hook_first_runner/0, hooks_before_runners/0,
         utf8_code/0, latin1_code/0, latin1_label/0, latin1_failure/0, latin1_syntax_error/0,
         latin1_locale/0, format_basic/0, format_extended/0, format_full/0, format_narrow/0,
         format_default_width/0, format_2_3_example/0, format_bad_input/0]).
-export([forks_usage/0, forks_usage/1, forks_auto/0, forks_auto/1, forks_explicit/0,
         forks_explicit/1, forks_baseline/0, forks_baseline/1]).
%% measured until decided: --budget
-export([budget_until_decided/0, budget_until_decided/1]).
-export([compare_modes/0, compare_modes/1,
         interleaved_isolated/0, interleaved_isolated/1,
         verdict_lines/0, verdict_lines/1, unwritable_output/0, unwritable_output/1,
         formats_stdout/0, formats_stdout/1, output_files/0, output_files/1,
         baseline_gate/0, baseline_gate/1, bad_baseline/0, bad_baseline/1,
         inconclusive_gate/0, inconclusive_gate/1, counts_gate/0, counts_gate/1,
         busy_100k/0, busy_100k/1, memory_flag/0, memory_flag/1,
         noise_floor/0, noise_floor/1, run_noise/0, run_noise/1,
         squeeze_plateau/0, squeeze_plateau/1,
         latency_flag/0, latency_flag/1, latency_sleep/0, latency_sleep/1,
         latency_formats/0, latency_formats/1, latency_crash/0, latency_crash/1]).
%% sweeps: --param and --bytes
-export([sweep_usage/0, sweep_usage/1, sweep_json/0, sweep_json/1, sweep_cartesian/0,
         sweep_cartesian/1, sweep_bytes/0, sweep_bytes/1, sweep_compare_baseline/0,
         sweep_compare_baseline/1, sweep_isolated/0, sweep_isolated/1, sweep_latency/0,
         sweep_latency/1]).
-export([profile_tprof/0, profile_tprof/1, profile_nodes/0, profile_nodes/1,
         profile_tools/0, profile_tools/1, profile_json/0, profile_json/1,
         profile_no_files/0, profile_no_files/1, profile_isolated/0, profile_isolated/1]).

%% Longest single escript run allowed: the -t 8 squeeze example takes about 30 s on a
%% quiet machine, and the seed group's squeezes took up to 117 s each with the three CI
%% legs sharing 2 CPUs (a squeeze stops after steps without gain: load that comes and
%% goes makes more of them).
-define(RUN_TIMEOUT_MS, 480000).
%% Basic and extended table headers, as in the README.
-define(BASIC, ["Code", "||", "QPS", "Time"]).
-define(EXTENDED, ["Code", "||", "Samples", "Avg", "StdDev", "Median", "P99", "Iteration"]).
%% The latency table (--latency), as in the README.
-define(LATENCY, ["Latency", "Calls", "ips", "Average", "Deviation", "Median", "P90", "P99", "P99.9",
                  "Max"]).
%% A short run, for cases that check shapes and pairings, not figures.
-define(QUICK, ["-d", "50", "-s", "1"]).
%% The escript under a UTF-8 locale (C.UTF-8 is built into Debian's C library).
-define(UTF8, [{"LC_ALL", "C.UTF-8"}]).
%% Code long enough for a narrow viewport to cut.
-define(LONG_CODE,
        "erlang:put(cli_key, [1, 2, 3]), erlang:put(cli_key, [4, 5]), erlang:get(cli_key).").

suite() ->
    [{timetrap, {minutes, 10}}].

all() ->
    [{group, usage}, {group, options}, {group, options_timed}, {group, hooks},
     {group, after_run}, {group, encoding}, {group, format}, {group, seed}, {group, seed_timed},
     {group, terminal}].

groups() ->
    [{usage, [parallel],
      [no_arguments, help, parser_errors, command_errors, syntax_error, syntax_error_second_line,
       bad_pa, bad_arity, runner_crash, crash_among_several, undefined_function, init_crash, unreachable_node,
       interleaved_isolated, bad_baseline, sweep_usage, latency_crash, profile_tprof,
       profile_nodes, forks_usage, rate_usage, closed_output, compile_cache, tracker_formats]},
     {options, [parallel],
      [aliases, one_sample, samples, report_formats, verbose, code_path, erl_libs, isolated,
       init_and_done, init_runner, label, all_runner_defaults, mfa_runner, inline_value,
       terminal_width]},
     %% measurements after the run and verdicts: one at a time, so that the figures they
     %% check are not those of a machine shared with twenty other escripts
     {after_run, [],
      [rate_tables, memory_flag, noise_floor, run_noise, squeeze_plateau, latency_flag, latency_formats, profile_tools,
       profile_json, profile_no_files, profile_isolated]},
     {hooks, [parallel],
      [cli_md_init_runner_order, cli_md_init_runner_swapped, init_and_done_order,
       label_order, single_hook_first_runner, hooks_before_runners]},
     {encoding, [parallel],
      [utf8_code, latin1_code, latin1_label, latin1_failure, latin1_syntax_error,
       latin1_locale]},
     {format, [],
      [format_basic, format_extended, format_full, format_narrow, format_default_width,
       format_2_3_example, format_bad_input]},
     {options_timed, [],
      [sleep_plausible, concurrency, duration, warmup, loop, cv, squeeze_options, nodes,
       compare_modes, busy_100k, verdict_lines, unwritable_output, formats_stdout, output_files,
       baseline_gate, github_actions, inconclusive_gate, counts_gate, sweep_json, sweep_cartesian, sweep_bytes, sweep_compare_baseline,
       sweep_isolated, latency_sleep, sweep_latency, forks_auto, forks_explicit,
       forks_baseline, budget_until_decided]},
     {seed, [parallel],
      [readme_squeeze_max, readme_squeeze_is_loaded, readme_squeeze_persistent_term,
       readme_timed_compare, readme_compare_warmup, readme_rand_uniform, readme_concurrency,
       readme_state, readme_pg_scope, readme_pg2, readme_pg2_isolated, readme_mfa_loop,
       readme_pa_argparse, readme_erl_libs_argparse, readme_ets_timer, guide_bytes_2,
       guide_bytes_100, guide_bytes_1000]},
     {seed_timed, [],
      [readme_sleep_init_runner, readme_duration_doubles, readme_verbose_squeeze]},
     {terminal, [], [terminal_colour_and_progress, no_colour, colour_option]}].

init_per_suite(Config) ->
    erlperf_test_lib:with_escript(Config).

end_per_suite(_Config) ->
    ok.

%% format: two real full reports (several codes: benchmark/3 returns a list), shared by
%% the group's cases.
init_per_group(format, Config) ->
    Reports = erlperf:benchmark([#{runner => "timer:sleep(1)."}, #{runner => ?LONG_CODE}],
                                #{report => full, sample_duration => 50, samples => 3},
                                undefined),
    [{reports, Reports} | Config];
init_per_group(_Group, Config) ->
    Config.

end_per_group(_Group, _Config) ->
    ok.

%%--------------------------------------------------------------------
%% usage: mistakes in the command line exit 2, failed benchmarks exit 1

no_arguments() ->
    [{doc, "No arguments: the usage text, exit 2"}].
no_arguments(Config) ->
    {2, Out} = run(Config, []),
    ?assertNotEqual(nomatch, string:find(Out, "Usage: erlperf")),
    ?assertNotEqual(nomatch, string:find(Out, "--concurrency")).

help() ->
    [{doc, "-h and --help print the help on stdout, exit 0 (its content: erlperf_args_tests)"}].
help(Config) ->
    {0, Out} = run(Config, ["-h"]),
    {0, Out} = run(Config, ["--help"]),
    {0, Out} = run(Config, ["ok.", "-c", "2", "--help"]),
    ?assert(lists:prefix("Usage: erlperf [OPTION]...", Out), Out),
    ?assertNotEqual(nomatch, string:find(Out, "Performance testing: erlperf --perf-test FILE")),
    %% defaults come from the engine's defaults map
    #{samples := Samples} = erlperf:defaults(),
    ?assertNotEqual(nomatch, string:find(Out, io_lib:format("samples to collect (default: ~b)", [Samples]))).

parser_errors() ->
    [{doc, "Mistakes the parser finds (each one's shape and line: erlperf_args_tests): one line and the hint, exit 2"}].
parser_errors(Config) ->
    usage_error(Config, ["rand:uniform().", "--bogus"], "erlperf: unknown option --bogus"),
    usage_error(Config, ["rand:uniform().", "-c", "0"],
                "erlperf: -c: '0' is not a positive integer (K, M, G suffixes allowed)"),
    usage_error(Config, ["rand:uniform().", "-s"], "erlperf: -s needs a value"),
    usage_error(Config, ["ok.", "--init", "ok.", "--init", "ok."], "erlperf: 2 --init for 1 runner:"),
    usage_error(Config, ["--samples=3"], "erlperf: no code to benchmark").

command_errors() ->
    [{doc, "Usage errors of --perf-test (exactly one line, a bad -pa too) and --render (with its "
           "hint): exit 2, no stack trace"}].
command_errors(Config) ->
    ?assertEqual({2, "erlperf: --perf-test needs a value\n"}, run(Config, ["--perf-test"], [])),
    ?assertEqual({2, "erlperf: -pa: /nonexistent/erlperf_cli is not a directory\n"},
                 run(Config, ["--perf-test", "lg.erl", "-pa", "/nonexistent/erlperf_cli"], [])),
    Render = usage_error(Config, ["--render", "a.json", "-x"],
                         "erlperf: --render takes a results file and -o DIR only, not -x"),
    ?assertNotEqual(nomatch, string:find(Render, "(see 'erlperf --help')"), Render).

syntax_error() ->
    [{doc, "A syntax error is a usage error with line and column"}].
syntax_error(Config) ->
    Out = usage_error(Config, ["rand:uniform(."], "runner: syntax error"),
    ?assertMatch({match, _}, re:run(Out, "line 1, column [0-9]+")).

syntax_error_second_line() ->
    [{doc, "Line numbers are those of the text given"}].
syntax_error_second_line(Config) ->
    Out = usage_error(Config, ["ok.", "r() ->\n  foo(."], "syntax error"),
    ?assertMatch({match, _}, re:run(Out, "line 2, column [0-9]+")).

compare_modes() ->
    [{doc, "--compare parallel (default) runs runners together, sequential one after another"}].
compare_modes(Config) ->
    %% each runner fails when it meets the other's worker: so sequential succeeds and
    %% parallel (the default) fails, naming the runner
    Args = fun (Extra) ->
               ["r(_) -> undefined = whereis(cli_b).", "--init_runner", "register(cli_a, self()).",
                "r(_) -> undefined = whereis(cli_a).", "--init_runner", "register(cli_b, self())."
                | Extra] ++ ?QUICK
           end,
    {0, Out} = run(Config, Args(["--compare", "sequential"])),
    ?assertEqual(2, length(table(?BASIC ++ ["Rel"], Out))),
    %% the runner that crashed is named; the other runs again alone, its result shown
    {1, Err} = run(Config, Args([])),
    ?assertMatch({match, _}, re:run(Err, "erlperf: runner of 'r\\(_\\) -> undefined = "
                                         "whereis\\(cli_[ab]\\)\\.' crashed: error:\\{badmatch,"), Err),
    ?assertEqual(1, length(table(?BASIC, Err)), Err),
    %% interleaved: both run, taking turns
    {0, Turns} = run(Config, ["rand:uniform().", "rand:uniform(1000).", "--compare", "interleaved"]
                             ++ ?QUICK),
    ?assertEqual(2, length(table(?BASIC ++ ["Rel"], Turns))).

unwritable_output() ->
    [{doc, "A results file that cannot be written fails the run with one line, exit 1"}].
unwritable_output(Config) ->
    {1, Out} = run(Config, ["ok.", "-o", "/nonexistent/erlperf/results.csv" | ?QUICK]),
    ?assertNotEqual(nomatch, string:find(Out, "cannot write /nonexistent/erlperf/results.csv"), Out).

memory_flag() ->
    [{doc, "--memory prints each runner's cost per call under the table, and the JSON record has its run keys"}].
memory_flag(Config) ->
    Bytes = 200 * erlang:system_info(wordsize),
    {0, Out} = run(Config, ["lists:seq(1, 100).", "--memory" | ?QUICK]),
    Line = [L || L <- lines(Out), lists:prefix("lists:seq(1, 100).: ", L)],
    ?assertMatch([_], Line, Out),
    ?assertMatch("lists:seq(1, 100).: " ++ _, hd(Line)),
    ?assertNotEqual(nomatch, string:find(hd(Line), io_lib:format(": ~b bytes, ", [Bytes])), Line),
    ?assertNotEqual(nomatch, string:find(hd(Line), " reductions, "), Line),
    ?assertNotEqual(nomatch, string:find(hd(Line), " CPU / "), Line),
    ?assertNotEqual(nomatch, string:find(hd(Line), " wall per call"), Line),
    {0, Json} = run(Config, ["lists:seq(1, 100).", "--memory", "--format", "json" | ?QUICK]),
    {ok, #{<<"runs">> := [Run]}} = erlperf_json:decode(Json),
    ?assertEqual(Bytes * 1.0, maps:get(<<"bytes_per_iteration">>, Run)),
    ?assert(maps:get(<<"reductions_per_iteration">>, Run) > 0, Run),
    ?assert(is_number(maps:get(<<"cpu_ns_per_iteration">>, Run)), Run),
    %% without the flag, no cost
    {0, Plain} = run(Config, ["lists:seq(1, 100).", "--format", "json" | ?QUICK]),
    {ok, #{<<"runs">> := [PlainRun]}} = erlperf_json:decode(Plain),
    ?assertNot(is_map_key(<<"bytes_per_iteration">>, PlainRun)).

latency_flag() ->
    [{doc, "--latency prints a latency table under the throughput table, a row per runner in the same order; -i too"}].
latency_flag(Config) ->
    Args = ["rand:uniform().", "lists:seq(1, 100).", "--latency" | ?QUICK],
    {0, Out} = run(Config, Args),
    Order = [C || #{"Code" := C} <- table(?BASIC ++ ["Rel"], Out)],
    Rows = table(?LATENCY, Out),
    ?assertEqual(Order, [C || #{"Code" := C} <- Rows]),
    [begin
         ?assert(Calls > 0 andalso Ips > 0, R),
         ?assert(P50 =< P90 andalso P90 =< P99 andalso P99 =< P999 andalso P999 =< Max, R)
     end || #{"Calls" := Calls, "ips" := Ips, "Median" := P50, "P90" := P90, "P99" := P99,
              "P99.9" := P999, "Max" := Max} = R <- Rows],
    %% isolated: measured in the peer node
    {0, Isolated} = run(Config, ["rand:uniform().", "-i", "--latency" | ?QUICK]),
    [#{"Calls" := IsolatedCalls}] = table(?LATENCY, Isolated),
    ?assert(IsolatedCalls > 0),
    %% without the flag: no latency table; the flag takes no value
    {0, Plain} = run(Config, ["rand:uniform()." | ?QUICK]),
    ?assertEqual(nomatch, string:find(Plain, "Latency")),
    usage_error(Config, ["rand:uniform().", "--latency=yes"], "--latency takes no value").

latency_formats() ->
    [{doc, "--latency: CSV gets the latency columns, Markdown its percentile columns; not without it"}].
latency_formats(Config) ->
    Args = ["rand:uniform().", "--latency" | ?QUICK],
    {0, Csv} = run(Config, Args ++ ["--format", "csv"]),
    [Header, Row] = [string:split(L, ",", all) || L <- string:split(string:trim(Csv), "\r\n", all)],
    Columns = [atom_to_list(C) || C <- erlperf_csv:columns() ++ erlperf_csv:latency_columns()],
    ?assertEqual(Columns, Header),
    Cells = maps:from_list(lists:zip(Header, Row)),
    ?assert(list_to_integer(maps:get("latency_calls", Cells)) > 0, Cells),
    ?assert(number(maps:get("latency_p50_us", Cells)) =< number(maps:get("latency_max_us", Cells)), Cells),
    {0, Md} = run(Config, Args ++ ["--format", "markdown"]),
    [MdHeader | _] = lines(Md),
    ?assertEqual("| Code | Concurrency | Throughput (per second) | 95% CI | Time | Latency p50 | p90 | "
                 "p99 | p99.9 | max | Verdict |", MdHeader),
    {0, PlainCsv} = run(Config, ["rand:uniform().", "--format", "csv" | ?QUICK]),
    ?assertEqual(nomatch, string:find(PlainCsv, "latency_")),
    {0, PlainMd} = run(Config, ["rand:uniform().", "--format", "markdown" | ?QUICK]),
    ?assertEqual(nomatch, string:find(PlainMd, "Latency")).

latency_sleep() ->
    [{doc, "--latency --format json: timer:sleep(1) takes at least 1 ms a call at the median, "
           "ok. less than a hundredth of that; the percentiles are ordered"}].
latency_sleep(Config) ->
    {0, Json} = run(Config, ["timer:sleep(1).", "ok.", "--latency", "--format", "json",
                             "-d", "200", "-s", "2"]),
    {ok, #{<<"runs">> := [Sleep, Ok]}} = erlperf_json:decode(Json),
    [begin
         #{<<"latency_us">> := #{<<"p50">> := P50, <<"p90">> := P90, <<"p99">> := P99,
                                 <<"p999">> := P999, <<"max">> := Max, <<"min">> := Min,
                                 <<"average">> := Avg, <<"stddev">> := StdDev},
           <<"latency_calls">> := Calls, <<"latency_unfinished">> := false,
           <<"latency_timer_us">> := Timer} = Run,
         ?assert(Calls > 0 andalso Timer >= 0 andalso Avg > 0 andalso StdDev >= 0, Run),
         ?assert(Min =< P50 andalso P50 =< P90 andalso P90 =< P99 andalso P99 =< P999
                 andalso P999 =< Max, Run)
     end || Run <- [Sleep, Ok]],
    #{<<"latency_us">> := #{<<"p50">> := SleepP50}} = Sleep,
    ?assert(SleepP50 >= 1000, SleepP50),
    #{<<"latency_us">> := #{<<"p50">> := OkP50}} = Ok,
    ?assert(in(OkP50, 0, SleepP50 / 100), {OkP50, SleepP50}).

profile_tprof() ->
    [{doc, "--profile tprof: a usage error naming the OTP release needed before OTP 27, a profile from it on"}].
profile_tprof(Config) ->
    case lists:member(tprof, erlperf_profile:tools()) of
        false ->
            usage_error(Config, ["ok.", "--profile", "tprof"],
                        "(tprof needs OTP 27 or later; this is OTP " ++ erlang:system_info(otp_release) ++ ")");
        true ->
            {0, Out} = run(Config, ["lists:seq(1, 100).", "--profile", "tprof" | ?QUICK]),
            ?assertNotEqual(nomatch, string:find(Out, "Profile (tprof, 1 s, then 500 ms for memory, "), Out),
            Rows = profile_rows(Out, "tprof", "lists:seq(1, 100)."),
            %% lists:seq_loop/3 makes 4 cons cells a call (8 words), fewer at the end
            [Bytes] = [B || ["lists:seq_loop/3" | Cells] <- Rows, B <- [lists:last(Cells)]],
            ?assert(in(list_to_float(Bytes), 55.0, 64.0), Out)
    end.

profile_nodes() ->
    [{doc, "--profile with --nodes is a usage error, before any node is contacted"}].
profile_nodes(Config) ->
    usage_error(Config, ["ok.", "--profile", "eprof", "--nodes", "nowhere@nohost"],
                "--profile and --nodes cannot be combined: a profile is of one node's workers").

profile_tools() ->
    [{doc, "--profile eprof, fprof and cprof: a section per runner under the table, the runner's "
           "functions (lists:seq_loop/3, which lists:seq/2 calls) among the top ones"}].
profile_tools(Config) ->
    [begin
         {0, Out} = run(Config, ["lists:seq(1, 100).", "--profile", Tool | ?QUICK]),
         [_] = table(?BASIC, Out),
         Rows = profile_rows(Out, Tool, "lists:seq(1, 100)."),
         ?assert(length(Rows) > 0 andalso length(Rows) =< 15, Out),
         ?assert(lists:member("lists:seq_loop/3", [F || [F | _] <- Rows]), Out),
         %% fprof's progress messages ("Reading trace data...") are not shown
         ?assertEqual(nomatch, string:find(Out, "trace data"), Out)
     end || Tool <- ["eprof", "fprof", "cprof"]].

profile_json() ->
    [{doc, "--profile with --format json: the run's \"profile\" has the tool and the functions, named as text"}].
profile_json(Config) ->
    {0, Json} = run(Config, ["lists:seq(1, 100).", "--profile", "cprof", "--format", "json" | ?QUICK]),
    {ok, #{<<"runs">> := [#{<<"profile">> := Profile}], <<"options">> := Options}} = erlperf_json:decode(Json),
    ?assertEqual(<<"cprof">>, maps:get(<<"profile">>, Options)),
    #{<<"tool">> := <<"cprof">>, <<"duration_ms">> := Ms, <<"total_us">> := null,
      <<"functions">> := Functions} = Profile,
    ?assert(Ms > 0, Profile),
    ?assert(lists:member(<<"lists:seq_loop/3">>, [F || #{<<"function">> := F} <- Functions]), Profile),
    [?assertMatch(#{<<"calls">> := C, <<"time_us">> := null, <<"percent">> := P}
                  when is_integer(C) andalso is_number(P), F) || F <- Functions].

profile_no_files() ->
    [{doc, "fprof writes its trace into TMPDIR and leaves nothing there, nor when the runner crashes mid-profile"}].
profile_no_files(Config) ->
    Tmp = filename:join(?config(priv_dir, Config), "profile_tmp"),
    ok = file:make_dir(Tmp),
    {0, Out} = run(Config, ["lists:seq(1, 100).", "--profile", "fprof" | ?QUICK], [{"TMPDIR", Tmp}]),
    [_ | _] = profile_rows(Out, "fprof", "lists:seq(1, 100)."),
    ?assertEqual({ok, []}, file:list_dir(Tmp)),
    %% the runner crashes as soon as it is traced: exit 1, one line, nothing left
    Crash = "r() -> case erlang:trace_info(self(), flags) of {flags, []} -> ok; _ -> erlang:error(traced) end.",
    {1, Err} = run(Config, [Crash, "--profile", "fprof" | ?QUICK], [{"TMPDIR", Tmp}]),
    [Line] = lines(Err),
    ?assert(lists:prefix("erlperf: runner of '" ++ Crash ++ "' crashed: error:traced", Line), Line),
    ?assertEqual({ok, []}, file:list_dir(Tmp)).

profile_isolated() ->
    [{doc, "-i --profile: each runner is profiled in its own peer node, a section each"}].
profile_isolated(Config) ->
    {0, Out} = run(Config, ["lists:seq(1, 100).", "lists:duplicate(100, a).", "-i", "--profile", "eprof"
                            | ?QUICK]),
    Seq = [F || [F | _] <- profile_rows(Out, "eprof", "lists:seq(1, 100).")],
    Dup = [F || [F | _] <- profile_rows(Out, "eprof", "lists:duplicate(100, a).")],
    ?assert(lists:member("lists:seq_loop/3", Seq) andalso not lists:member("lists:duplicate/3", Seq), Out),
    ?assert(lists:member("lists:duplicate/3", Dup) andalso not lists:member("lists:seq_loop/3", Dup), Out).

formats_stdout() ->
    [{doc, "--format csv and markdown print the record on standard output, one row per runner"}].
formats_stdout(Config) ->
    Args = ["rand:uniform().", "rand:uniform(1000)." | ?QUICK],
    {0, Csv} = run(Config, Args ++ ["--format", "csv"]),
    [Header, Row1, Row2] = string:split(string:trim(Csv), "\r\n", all),
    ?assertMatch("label,code,mode,concurrency," ++ _, Header),
    ?assertMatch("rand:uniform().," ++ _, Row1),
    ?assertMatch("rand:uniform(1000).," ++ _, Row2),
    {0, Json} = run(Config, Args ++ ["--format", "json"]),
    {ok, #{<<"version">> := 1, <<"compare">> := <<"parallel">>,
           <<"runs">> := [#{<<"label">> := <<"rand:uniform().">>} = A, B]}} = erlperf_json:decode(Json),
    %% one of them is the fastest: the other is compared with it
    ?assertEqual(1, length([R || R <- [A, B], is_map_key(<<"comparison">>, R)])),
    {0, Md} = run(Config, Args ++ ["--format", "markdown"]),
    ["| Code |" ++ _, "| --- |" ++ _, "| `rand:uniform()" ++ _, "| `rand:uniform(1000)" ++ _] =
        string:split(string:trim(Md), "\n", all).

output_files() ->
    [{doc, "-o FILE writes the format of its extension, --save FILE the JSON record; the table still prints"}].
output_files(Config) ->
    Priv = ?config(priv_dir, Config),
    Csv = filename:join(Priv, "out.csv"),
    Md = filename:join(Priv, "out.md"),
    Json = filename:join(Priv, "saved.json"),
    {0, Out} = run(Config, ["rand:uniform().", "-o", Csv, "--save", Json | ?QUICK]),
    [#{"Code" := "rand:uniform()."}] = table(?BASIC, Out),
    {ok, CsvText} = file:read_file(Csv),
    ?assertMatch([<<"label,", _/binary>>, <<"rand:uniform().,", _/binary>>],
                 binary:split(CsvText, <<"\r\n">>, [global, trim])),
    {ok, JsonText} = file:read_file(Json),
    {ok, #{<<"version">> := 1, <<"runs">> := [#{<<"label">> := <<"rand:uniform().">>,
                                                <<"samples">> := [_]}]}} =
        erlperf_json:decode(JsonText),
    %% no temporary file is left beside them
    ?assertEqual(["out.csv", "saved.json"],
                 lists:sort([F || F <- element(2, file:list_dir(Priv)),
                                  lists:prefix("out.", F) orelse lists:prefix("saved.", F)])),
    {0, _} = run(Config, ["ok.", "-o", Md | ?QUICK]),
    {ok, <<"| Code |", _/binary>>} = file:read_file(Md).

bad_baseline() ->
    [{doc, "A missing baseline is a usage error before anything runs"}].
bad_baseline(Config) ->
    usage_error(Config, ["ok.", "--baseline", "/nonexistent/base.json"],
                "baseline /nonexistent/base.json: no such file or directory").

inconclusive_gate() ->
    [{doc, "One sample against one: inconclusive, a warning and exit 0 under the gate; exit 3 "
           "with --fail-on-inconclusive; the record says why"}].
inconclusive_gate(Config) ->
    Dir = ?config(priv_dir, Config),
    Base = filename:join(Dir, "one.json"),
    Json = filename:join(Dir, "one-against.json"),
    Opts = ["--label", "one", "-d", "50", "-s", "1"],
    {0, _} = run(Config, ["ok." | Opts] ++ ["--save", Base]),
    {0, Warned} = run(Config, ["ok." | Opts] ++ ["--baseline", Base, "--fail-on-regression", "10",
                                                 "-o", Json]),
    ?assertNotEqual(nomatch, string:find(Warned, "one against " ++ Base ++ ": inconclusive: too few "
                                                 "samples to tell"), Warned),
    ?assertNotEqual(nomatch, string:find(Warned, "erlperf: warning: one against " ++ Base ++
                                                 ": inconclusive: "), Warned),
    {ok, Bin} = file:read_file(Json),
    {ok, #{<<"runs">> := [#{<<"baselines">> := [Entry]}]}} = erlperf_json:decode(Bin),
    ?assertMatch(#{<<"verdict">> := <<"inconclusive">>, <<"reason">> := <<"too_few_samples">>,
                   <<"significant">> := false}, Entry),
    {3, Failed} = run(Config, ["ok." | Opts] ++ ["--baseline", Base, "--fail-on-regression", "10",
                                                 "--fail-on-inconclusive"]),
    ?assertNotEqual(nomatch, string:find(Failed, "erlperf: inconclusive: one against "), Failed),
    usage_error(Config, ["ok.", "--fail-on-inconclusive"],
                "--fail-on-inconclusive needs --fail-on-regression").

counts_gate() ->
    [{doc, "A record saved and compared has exact counts; 25% more bytes a call is a regression of "
           "its own line, exit 3 under a 10% gate, whatever the time says"}].
counts_gate(Config) ->
    Base = filename:join(?config(priv_dir, Config), "tuple.json"),
    Opts = ["--label", "tuple", "-d", "50", "-s", "4"],
    {0, _} = run(Config, ["erlang:make_tuple(100, a)." | Opts] ++ ["--save", Base]),
    {ok, Bin} = file:read_file(Base),
    {ok, #{<<"runs">> := [#{<<"counts">> := #{<<"bytes_per_iteration">> := Bytes}}]}} = erlperf_json:decode(Bin),
    ?assertEqual(808.0, float(Bytes)),
    {3, Out} = run(Config, ["erlang:make_tuple(125, a)." | Opts] ++ ["--baseline", Base,
                                                                     "--fail-on-regression", "10"]),
    ?assertNotEqual(nomatch, string:find(Out, "tuple against " ++ Base ++ ": regressed: 808 -> 1008 "
                                              "bytes per call (+24.8%)"), Out),
    ?assertNotEqual(nomatch, string:find(Out, "erlperf: regression: tuple allocates or reduces more per "
                                              "call than in " ++ Base ++ ": bytes per call 808 -> 1008 "
                                              "(limit 10%)"), Out).

baseline_gate() ->
    [{doc, "--save, then --baseline with --fail-on-regression: the same code passes (exit 0), code made about 10 times slower exits 3; limits wide enough, and 10 forks a run, so that a loaded machine cannot turn either"}].
baseline_gate(Config) ->
    Base = filename:join(?config(priv_dir, Config), "base.json"),
    %% sleeps of 5 ms: the same code is called 75% slower only if a run's wake-ups are
    %% late by 15 ms more than the baseline's; 65 ms a call instead of 5 is 75% slower
    %% as long as the baseline's are late by less than 11 ms
    Opts = ["--label", "work", "-d", "200", "-s", "20"],
    {0, _} = run(Config, ["timer:sleep(5)." | Opts] ++ ["--save", Base]),
    {0, Same} = run(Config, ["timer:sleep(5)." | Opts] ++ ["--baseline", Base,
                                                           "--fail-on-regression", "75"]),
    ?assertNotEqual(nomatch, string:find(Same, "work against " ++ Base ++ ": "), Same),
    {3, Slow} = run(Config, ["timer:sleep(5), timer:sleep(60)." | Opts] ++
                    ["--baseline", Base, "--fail-on-regression", "75"]),
    ?assertNotEqual(nomatch, string:find(Slow, "erlperf: regression: work is "), Slow),
    ?assertNotEqual(nomatch, string:find(Slow, "slower than in " ++ Base ++ " (limit 75%)"), Slow),
    %% without the gate, the same slowdown is reported and exits 0
    {0, Reported} = run(Config, ["timer:sleep(5), timer:sleep(60)." | Opts] ++ ["--baseline", Base]),
    ?assertNotEqual(nomatch, string:find(Reported, "% slower (95% CI"), Reported).

github_actions() ->
    [{doc, "Under GitHub Actions: a regression beyond the gate is an ::error annotation on stderr "
           "(stdout keeps the format asked for) and a row of the job summary; elsewhere neither"}].
github_actions(Config) ->
    Priv = ?config(priv_dir, Config),
    Base = filename:join(Priv, "gha_base.json"),
    Summary = filename:join(Priv, "summary.md"),
    ok = file:write_file(Summary, <<"earlier step\n">>),
    Opts = ["--label", "work", "-d", "200", "-s", "20"],
    {0, _} = run(Config, ["timer:sleep(5)." | Opts] ++ ["--save", Base]),
    Slow = ["timer:sleep(5), timer:sleep(60)." | Opts] ++ ["--baseline", Base, "--fail-on-regression", "75",
                                                           "--format", "json"],
    Env = [{"GITHUB_ACTIONS", "true"}, {"GITHUB_STEP_SUMMARY", Summary}],
    {3, Out, Err} = run_split(Config, Slow, Env),
    {ok, _} = erlperf_json:decode(unicode:characters_to_binary(Out)),
    [Error] = [L || L <- lines(Err), lists:prefix("::", L)],
    ?assertMatch("::error title=erlperf%3A work failed the gate::work against " ++ _, Error),
    ?assertNotEqual(nomatch, string:find(Error, ": regressed: "), Error),
    {ok, Md} = file:read_file(Summary),
    [<<"earlier step">>, Heading, <<>>, Header, Rule, Row | _] = binary:split(Md, <<"\n">>, [global]),
    ?assertEqual({<<"### erlperf: 1 failed, 0 to look at, 0 as before">>, <<"| | Benchmark | Against | Verdict |">>,
                  <<"|---|---|---|---|">>}, {Heading, Header, Rule}),
    %% names in code spans (erlperf_name)
    [_, Mark, <<" `work` ">>, Against, Verdict, <<>>] = binary:split(Row, <<"|">>, [global]),
    ?assertEqual(<<" ❌ "/utf8>>, Mark),
    ?assertEqual(unicode:characters_to_binary([" `", Base, "` "]), Against),
    ?assertMatch({match, _}, re:run(Verdict, "^ [0-9.]+% slower \\(95% CI ")),
    %% not under GitHub Actions: neither
    {3, _, Plain} = run_split(Config, Slow, [{"GITHUB_ACTIONS", false}, {"GITHUB_STEP_SUMMARY", Summary}]),
    ?assertEqual([], [L || L <- lines(Plain), lists:prefix("::", L)]),
    ?assertEqual({ok, Md}, file:read_file(Summary)).

noise_floor() ->
    [{doc, "A difference the test finds but that may be inside --noise is no verdict, called a "
           "significant change within the noise floor; --noise 0 calls it"}].
noise_floor(Config) ->
    %% three times the work is about 65% slower: inside a 95% floor, outside 0 (CPU-bound
    %% code, compared in parallel: a busy host slows both alike, where a badly timed host
    %% makes short sleeps vary by more than this)
    %% (a host that other programs keep busy in bursts may blur even this into no
    %% significant difference: such a run is tried again, three times at most)
    Args = ["lists:seq(1, 100).", "lists:seq(1, 300).", "-r", "extended", "-d", "50", "-s", "20"],
    Line = until_found(
             fun () ->
                     {0, Out} = run(Config, Args ++ ["--noise", "95"]),
                     [L] = [L || L <- lines(Out), lists:prefix("lists:seq(1, 300). against ", L)],
                     L
             end, fun (L) -> string:find(L, "no significant difference") =:= nomatch end, 3),
    ?assertMatch("lists:seq(1, 300). against lists:seq(1, 100).: a significant change within the 95% noise "
                 "floor: " ++ _, Line),
    ?assert(lists:suffix("% slower (95% CI " ++ lists:last(string:split(Line, "% slower (95% CI ")), Line), Line),
    ?assert(lists:suffix(", 10 forks)", Line), Line),
    Cmp = until_found(
            fun () ->
                    {0, Json} = run(Config, Args ++ ["--noise", "95", "--format", "json"]),
                    {ok, #{<<"runs">> := Runs}} = erlperf_json:decode(Json),
                    [C] = [C || #{<<"comparison">> := C} <- Runs],
                    C
            end, fun (C) -> maps:get(<<"within_noise">>, C, false) end, 3),
    ?assertMatch(#{<<"significant">> := false, <<"within_noise">> := true, <<"noise_pct">> := 95.0,
                   <<"verdict">> := <<"no_difference">>}, Cmp),
    {0, Off} = run(Config, Args ++ ["--noise", "0"]),
    ?assertNotEqual(nomatch, string:find(Off, "lists:seq(1, 300). against lists:seq(1, 100).: "), Off),
    ?assertNotEqual(nomatch, string:find(Off, "% slower (95% CI "), Off).

%% Fun's result once Found says it is what the test needs, Fun tried Tries times at
%% most (the last result is returned whatever it is, for the test to show).
until_found(Fun, Found, Tries) ->
    Result = Fun(),
    case Tries =< 1 orelse Found(Result) of
        true -> Result;
        false -> until_found(Fun, Found, Tries - 1)
    end.

run_noise() ->
    [{doc, "--run-noise widens each runner's interval and a baseline's verdict, says so in the "
      "record, the verdict line and the Markdown interval; --run-noise 0 is a run's own spread"}].
run_noise(Config) ->
    Base = filename:join(?config(priv_dir, Config), "run_noise.json"),
    Args = ["timer:sleep(1).", "-d", "100", "-s", "4", "--forks", "2"],
    {0, _} = run(Config, Args ++ ["--save", Base]),
    {0, Json} = run(Config, Args ++ ["--run-noise", "5", "--format", "json", "--baseline", Base]),
    {ok, #{<<"runs">> := [Run]}} = erlperf_json:decode(Json),
    #{<<"ci95">> := [Lo, Hi], <<"run_noise_pct">> := Five, <<"average">> := Avg,
      <<"samples">> := Samples, <<"baselines">> := [#{<<"run_noise_pct">> := Five}]} = Run,
    ?assertEqual(5.0, Five),
    %% the interval of this run's fork means with 5% run noise, wider than without it,
    %% and at least the run noise's own 1.96 standard deviations either side
    Sizes = erlperf_record:fork_sizes(Run),
    {L, H} = erlperf_stat:interval(Samples, Sizes, 95, 5.0),
    ?assert(abs(L - Lo) =< 1.0e-9 * abs(L) andalso abs(H - Hi) =< 1.0e-9 * abs(H), {{L, H}, {Lo, Hi}}),
    {L0, H0} = erlperf_stat:interval(Samples, Sizes, 95, 0),
    ?assert(Hi - Lo > H0 - L0, {Lo, Hi, L0, H0}),
    ?assert(Hi - Lo > 2 * 1.96 * 0.05 * Avg, {Lo, Hi, Avg}),
    {0, Zero} = run(Config, Args ++ ["--run-noise", "0", "--format", "json"]),
    {ok, #{<<"runs">> := [#{<<"run_noise_pct">> := ZeroPct}]}} = erlperf_json:decode(Zero),
    ?assertEqual(0.0, ZeroPct),
    {0, Text} = run(Config, Args ++ ["--run-noise", "5", "--baseline", Base]),
    [Line] = [Ln || Ln <- lines(Text), lists:prefix("timer:sleep(1). against ", Ln)],
    ?assert(lists:suffix(", 2 forks, run noise 5%)", Line), Line),
    {0, Md} = run(Config, Args ++ ["--run-noise", "5", "--format", "markdown"]),
    ?assertNotEqual(nomatch, string:find(Md, "(2 forks, run noise 5%)"), Md).

squeeze_plateau() ->
    [{doc, "Squeeze reports the smallest concurrency not significantly below the best, "
      "and the best beside it"}].
squeeze_plateau(Config) ->
    %% whatever the noise: the best step has the highest average, the one reported is
    %% not above it, and the line under the table says when they differ
    %% sleeps of 5 ms: late wake-ups of a loaded machine cannot undo three sleepers' gain
    Args = ["timer:sleep(5).", "-q", "--max", "3", "--threshold", "5", "-d", "300", "-s", "3"],
    {0, Json0} = run(Config, Args ++ ["--noise", "0", "--format", "json"]),
    {ok, #{<<"runs">> := [#{<<"concurrency">> := C0, <<"best_concurrency">> := Best0,
                            <<"steps">> := Steps0}]}} = erlperf_json:decode(Json0),
    [{_, Best0} | _] = lists:reverse(lists:sort([{A, C} || #{<<"average">> := A, <<"concurrency">> := C} <- Steps0])),
    ?assert(C0 =< Best0, {C0, Best0}),
    %% one third of the best is within a 99% floor: concurrency 1 is reported
    {0, Wide} = run(Config, Args ++ ["--noise", "99"]),
    [#{"||" := 1}] = table(?BASIC, Wide),
    ?assertNotEqual(nomatch, string:find(Wide, "timer:sleep(5).: highest throughput at concurrency "),
                    Wide),
    ?assertNotEqual(nomatch, string:find(Wide, "), not significantly above concurrency 1"), Wide),
    {0, Json} = run(Config, Args ++ ["--noise", "99", "--format", "json"]),
    {ok, #{<<"runs">> := [Run]}} = erlperf_json:decode(Json),
    ?assertMatch(#{<<"concurrency">> := 1, <<"best_concurrency">> := B,
                   <<"steps">> := [#{<<"concurrency">> := 1}, #{<<"concurrency">> := 2},
                                   #{<<"concurrency">> := 3}]} when B > 1, Run).

verdict_lines() ->
    [{doc, "Extended tables say for each runner how it compares with the fastest, at --confidence"}].
verdict_lines(Config) ->
    %% CPU-bound code 100x apart: a busy or badly timed host cannot turn the verdict
    {0, Out} = run(Config, ["erlang:phash2(1).", "lists:seq(1, 1000).", "-r", "extended",
                            "--confidence", "99", "-d", "100", "-s", "5"]),
    %% the verdict's words depend on the machine (CI shares two cores among three releases:
    %% a host taking 65% of the schedulers' time can leave it inconclusive); its line, at
    %% the confidence asked for, does not
    [Line] = [L || L <- lines(Out), lists:prefix("lists:seq(1, 1000). against erlang:phash2(1).: ", L)],
    ?assertNotEqual(nomatch, string:find(Line, "(99% CI "), Out).

rate_usage() ->
    [{doc, "--rate: 0, negative, a fraction, not a number, above the limit; --arrival without "
      "--rate or unknown; --rate with what it cannot go with: one line each, exit 2"}].
rate_usage(Config) ->
    [usage_error(Config, ["ok.", "--rate", Bad], "--rate: '" ++ Bad ++ "' is not a rate (500, 10k), a ramp")
     || Bad <- ["0", "-5", "1.5", "fast", "4k..1k", "1k,,2k"]],
    usage_error(Config, ["ok.", "--rate", "2M"], "--rate: 2M is above the limit of 1000000 calls a second"),
    usage_error(Config, ["ok.", "--arrival", "poisson"], "--arrival needs --rate"),
    usage_error(Config, ["ok.", "--slo", "p99=5ms"], "--slo needs --rate"),
    usage_error(Config, ["ok.", "--rate", "10", "--slo", "p101=5ms"], "--slo: 'p101=5ms' is not an objective"),
    usage_error(Config, ["ok.", "--rate", "10", "--arrival", "x"], "--arrival: 'x' is not even or poisson"),
    usage_error(Config, ["ok.", "--rate", "10", "-q"], "--rate and -q/--squeeze cannot be combined: "
                "an open load holds the rate whatever the concurrency"),
    usage_error(Config, ["ok.", "--rate", "10", "-l", "100"], "cannot be combined"),
    usage_error(Config, ["ok.", "--rate", "10", "--latency"], "cannot be combined"),
    usage_error(Config, ["ok.", "--rate", "10", "--forks", "3"], "cannot be combined"),
    usage_error(Config, ["ok.", "ok.", "--rate", "10", "--compare", "interleaved"], "cannot be combined").

rate_tables() ->
    [{doc, "--rate 500 -c 2 on timer:sleep(1): the pacing table (every call started, none "
      "skipped) and the response and service times, in text and JSON; 10k is read as 10000"}].
rate_tables(Config) ->
    %% the figures depend on the machine's load (CI runs three releases at once on two
    %% cores); the table's shape and the rate asked for do not
    {0, Out} = run(Config, ["timer:sleep(1).", "--rate", "500", "-c", "2", "-s", "2"]),
    [#{"Rate" := 500, "Achieved" := Achieved, "Workers" := 2, "Skipped" := Skipped}] =
        table(["Code", "Rate", "Achieved", "Workers", "Late", "Skipped"], Out),
    ?assert(is_integer(Achieved) andalso Achieved > 0 andalso is_integer(Skipped), Out),
    ?assertNotEqual(nomatch, string:find(Out, "Response time, from each call's intended start"), Out),
    ?assertNotEqual(nomatch, string:find(Out, "Service time, from each call's actual start"), Out),
    {0, Json} = run(Config, ["rand:uniform().", "--rate", "10k", "-s", "1", "--format", "json"]),
    {ok, #{<<"runs">> := [#{<<"rate">> := Rate}]}} = erlperf_json:decode(Json),
    ?assertMatch(#{<<"target">> := 10000, <<"arrival">> := <<"even">>,
                   <<"response_us">> := #{<<"p99">> := _}, <<"service_histogram">> := #{}}, Rate).

closed_output() ->
    [{doc, "Standard output closed under a run (piped into head): erlperf ends at once with "
      "status 141, as a program killed by SIGPIPE, and writes nothing to standard error"}].
closed_output(Config) ->
    Dir = ?config(priv_dir, Config),
    [Err, Status] = [filename:join(Dir, F) || F <- ["closed_output.err", "closed_output.status"]],
    Cmd = io_lib:format("(~ts 'ok.' -v -s 3 2>~ts; echo $? >~ts) | head -1 >/dev/null",
                        [?config(escript, Config), Err, Status]),
    _ = os:cmd(lists:flatten(Cmd)),
    ?assertEqual({ok, <<"141\n">>}, file:read_file(Status)),
    ?assertEqual({ok, <<>>}, file:read_file(Err)).

forks_usage() ->
    [{doc, "--forks: a bad value, more forks than samples, and forks with -q or --cv are usage "
      "errors, one line each, before anything runs"}].
forks_usage(Config) ->
    usage_error(Config, ["ok.", "--forks", "x"], "--forks: x is not a positive integer or auto"),
    usage_error(Config, ["ok.", "--forks", "0"], "--forks: 0 is not a positive integer or auto"),
    usage_error(Config, ["ok.", "--forks", "4", "-s", "3"],
                "4 forks need at least 4 samples (a sample per fork), not 3"),
    usage_error(Config, ["ok.", "--forks", "2", "-q"],
                "2 forks cannot be combined with concurrency estimation: each step is one run"),
    usage_error(Config, ["ok.", "--forks", "2", "--cv", "0.1"],
                "2 forks cannot be combined with cv: cv samples one run until it is stable").

forks_auto() ->
    [{doc, "Two runners fork by default (auto), as the verdict says; one runner runs once, and "
      "--forks 1 labels the verdict as a single run's"}].
forks_auto(Config) ->
    Two = ["erlang:phash2(1).", "erlang:phash2(2).", "-d", "50", "-s", "6", "-r", "extended"],
    {0, Out} = run(Config, Two),
    [Verdict] = [L || L <- lines(Out), string:find(L, " against ") =/= nomatch],
    ?assertNotEqual(nomatch, string:find(Verdict, ", 3 forks)"), Out),
    [_, _] = [L || L <- lines(Out), string:find(L, ": 3 forks of 2 samples, standard deviation ")
                                        =/= nomatch, string:find(L, "% between forks, ") =/= nomatch],
    {0, Single} = run(Config, Two ++ ["--forks", "1"]),
    ?assertNotEqual(nomatch, string:find(Single, ", one run)"), Single),
    ?assertEqual(nomatch, string:find(Single, "forks of"), Single),
    {0, Json} = run(Config, ["erlang:phash2(1).", "-d", "50", "-s", "6", "--format", "json"]),
    {ok, #{<<"runs">> := [Run]}} = erlperf_json:decode(Json),
    ?assertMatch(#{<<"interval">> := <<"single_run">>}, Run),
    ?assertNot(is_map_key(<<"forks">>, Run)).

forks_explicit() ->
    [{doc, "--forks 4 -s 10: the record holds 10 samples in forks of 3, 3, 2, 2, their means, "
      "and an interval of the fork means; the Markdown interval says so"}].
forks_explicit(Config) ->
    Args = ["erlang:phash2(1).", "--forks", "4", "-s", "10", "-d", "30"],
    {0, Json} = run(Config, Args ++ ["--format", "json"]),
    {ok, #{<<"runs">> := [Run]}} = erlperf_json:decode(Json),
    #{<<"samples">> := Samples, <<"interval">> := <<"forks">>, <<"ci95">> := [Lo, Hi],
      <<"forks">> := #{<<"sizes">> := [3, 3, 2, 2] = Sizes, <<"means">> := Means,
                       <<"between_sd">> := Between, <<"within_sd">> := Within}} = Run,
    ?assertEqual(10, length(Samples)),
    ?assertEqual([erlperf_stat:mean(F) || F <- erlperf_stat:split(Samples, Sizes)], Means),
    #{<<"run_noise_pct">> := RunNoise} = Run,
    ?assertEqual(maps:get(run_noise, erlperf:defaults()), RunNoise),
    {L, H} = erlperf_stat:interval(Samples, Sizes, 95, RunNoise),
    ?assert(abs(L - Lo) =< 1.0e-9 * abs(L) andalso abs(H - Hi) =< 1.0e-9 * abs(H), {{L, H}, {Lo, Hi}}),
    ?assert(is_number(Between) andalso Between >= 0 andalso is_number(Within) andalso Within >= 0),
    {0, Md} = run(Config, Args ++ ["--format", "markdown"]),
    ?assertNotEqual(nomatch, string:find(Md, " (4 forks, run noise 1%) |"), Md).

forks_baseline() ->
    [{doc, "--save and --baseline fork by default (auto): the baseline verdict compares fork "
      "means and says so"}].
forks_baseline(Config) ->
    Base = filename:join(?config(priv_dir, Config), "forks_base.json"),
    Opts = ["timer:sleep(1).", "--label", "w", "-d", "50", "-s", "6"],
    {0, _} = run(Config, Opts ++ ["--save", Base]),
    {ok, Bin} = file:read_file(Base),
    {ok, #{<<"runs">> := [#{<<"interval">> := <<"forks">>,
                            <<"forks">> := #{<<"sizes">> := [2, 2, 2]}}]}} = erlperf_json:decode(Bin),
    {0, Out} = run(Config, Opts ++ ["--baseline", Base]),
    [Line] = [L || L <- lines(Out), lists:prefix("w against " ++ Base ++ ": ", L)],
    ?assertNotEqual(nomatch, string:find(Line, ", 3 forks, run noise 1%)"), Line),
    {0, Once} = run(Config, Opts ++ ["--baseline", Base, "--forks", "1"]),
    ?assertNotEqual(nomatch, string:find(Once, ", one run, run noise 1%)"), Once).

budget_until_decided() ->
    [{doc, "Two runners without -s are measured until decided (--budget, auto by default): "
      "the run says so under the verdict, exit 0; -s 3 measures 3 samples, no such line; "
      "--budget with -s is a usage error, one line, exit 2"}].
budget_until_decided(Config) ->
    %% about 15 times apart: decided at the first look, however busy the host
    Two = ["rand:uniform().", "lists:seq(1, 200).", "-d", "10"],
    [begin
         {0, Out} = run(Config, Two ++ Budget),
         [Line] = [L || L <- lines(Out), lists:prefix("Measured until decided: ", L)],
         ?assertNotEqual(nomatch, string:find(Line, "; every verdict decided at look "), Out),
         [Verdict] = [L || L <- lines(Out), string:find(L, " against ") =/= nomatch],
         ?assertNotEqual(nomatch, string:find(Verdict, " forks, sequential over "), Out)
     end || Budget <- [["--budget", "10"], []]],
    {0, Fixed} = run(Config, Two ++ ["-s", "3"]),
    ?assertEqual(nomatch, string:find(Fixed, "Measured until decided"), Fixed),
    usage_error(Config, Two ++ ["--budget", "5", "-s", "3"],
                "erlperf: budget (5) cannot be combined with samples: ").

interleaved_isolated() ->
    [{doc, "--compare interleaved with -i is a usage error saying why"}].
interleaved_isolated(Config) ->
    usage_error(Config, ["ok.", "ok.", "--compare", "interleaved", "-i"], "must share one node").

busy_100k() ->
    [{doc, "100,000 busy workers from the command line: -c 100000 runs and reports them"}].
busy_100k(Config) ->
    {0, Out} = run(Config, ["ok.", "-c", "100000", "-d", "500", "-s", "2"]),
    [#{"||" := 100000, "QPS" := Qps}] = table(?BASIC, Out),
    ?assert(Qps > 0, Out).

bad_pa() ->
    [{doc, "-pa with a missing directory is a usage error naming it"}].
bad_pa(Config) ->
    usage_error(Config, ["ok.", "-pa", "/nonexistent/erlperf_cli"], "/nonexistent/erlperf_cli").

bad_arity() ->
    [{doc, "A runner of arity 1 without init_runner is rejected before running, exit 2"}].
bad_arity(Config) ->
    usage_error(Config, ["r(X) -> X."], "runner").

latency_crash() ->
    [{doc, "A runner that crashes only while its calls are timed one by one: exit 1, one line, no stack trace"}].
latency_crash(Config) ->
    %% each worker counts its calls in its dictionary: the timed run makes 10, the
    %% latency worker crashes at its 50th
    Runner = "r() -> N = case get(n) of undefined -> 1; M -> M + 1 end, put(n, N), "
             "N < 50 orelse erlang:error(late).",
    {0, _} = run(Config, [Runner, "-l", "10", "-s", "1"]),
    failure(Config, [Runner, "-l", "10", "-s", "1", "--latency"], "runner of '" ++ Runner ++ "' crashed: error:late").

runner_crash() ->
    [{doc, "A crashing runner: one readable line, no stack trace, exit 1"}].
runner_crash(Config) ->
    Out = failure(Config, ["erlang:error(cli_oops)."], "runner of 'erlang:error(cli_oops).' crashed"),
    ?assertNotEqual(nomatch, string:find(Out, "cli_oops")).

crash_among_several() ->
    [{doc, "One runner of three crashes: it is named, the others' results are shown (and "
           "written), exit 1"}].
crash_among_several(Config) ->
    Json = filename:join(?config(priv_dir, Config), "crash_among_several.json"),
    {1, Out} = run(Config, ["rand:uniform().", "1 = 2.", "erlang:phash2(1).", "-s", "2", "-d", "100",
                            "-o", Json]),
    ?assertNotEqual(nomatch, string:find(Out, "erlperf: runner of '1 = 2.' crashed: "
                                              "error:{badmatch,2} at line 1"), Out),
    %% (standard error's line may come among standard output's rows: table/2 skips it)
    Rows = table(?BASIC ++ ["Rel"], Out),
    ?assertEqual(["erlang:phash2(1).", "rand:uniform()."], lists:sort([C || #{"Code" := C} <- Rows]), Out),
    {ok, Bytes} = file:read_file(Json),
    {ok, #{<<"runs">> := Runs}} = erlperf_json:decode(Bytes),
    ?assertEqual(2, length(Runs)).

undefined_function() ->
    [{doc, "A call to a missing module names the module, exit 1"}].
undefined_function(Config) ->
    failure(Config, ["cli_no_such_module:f()."], "cli_no_such_module").

init_crash() ->
    [{doc, "A crashing init, exit 1"}].
init_crash(Config) ->
    failure(Config, ["ok.", "--init", "exit(cli_init_failed)."], "init of 'ok.' crashed").

compile_cache() ->
    [{doc, "A runner compiled once loads from the cache the next time, without the compiler; "
           "a damaged entry is compiled and written again; ERLPERF_CACHE=off keeps nothing; "
           "a cache that cannot be written is none; one writable by all is not read; unset, "
           "the user's cache directory, none without HOME"}].
compile_cache(Config) ->
    Priv = ?config(priv_dir, Config),
    Dir = filename:join(Priv, "cache"),
    %% init fails when the compiler is loaded in the run's VM
    NoCompiler = "case erlang:module_loaded(compile) of true -> erlang:error(compiler_loaded); "
                 "false -> ok end.",
    Args = ["lists:seq(1, 7).", "--init", NoCompiler, "-l", "1"],
    Env = [{"ERLPERF_CACHE", Dir}],
    {1, Compiled} = run(Config, Args, Env),
    ?assertNotEqual(nomatch, string:find(Compiled, "compiler_loaded"), Compiled),
    [Entry] = filelib:wildcard(filename:join(Dir, "*.job")),
    {0, Cached} = run(Config, Args, Env),
    ?assertNotEqual(nomatch, string:find(Cached, "lists:seq(1, 7)."), Cached),
    ok = file:write_file(Entry, <<"damaged">>),
    {1, _} = run(Config, Args, Env),
    {0, _} = run(Config, Args, Env),
    ?assertEqual([Entry], filelib:wildcard(filename:join(Dir, "*"))),
    %% off: compiled every time, nothing kept
    Home = filename:join(Priv, "xdg"),
    {1, _} = run(Config, Args, [{"ERLPERF_CACHE", "off"}, {"XDG_CACHE_HOME", Home}]),
    ?assertNot(filelib:is_file(Home)),
    %% a file where the directory would be: the run is as without a cache
    Blocked = filename:join(Priv, "blocked"),
    ok = file:write_file(Blocked, <<>>),
    {0, _} = run(Config, ["lists:seq(1, 7).", "-l", "1"], [{"ERLPERF_CACHE", filename:join(Blocked, "c")}]),
    %% unset: under XDG_CACHE_HOME
    {0, _} = run(Config, ["lists:seq(1, 8).", "-l", "1"], [{"ERLPERF_CACHE", false}, {"XDG_CACHE_HOME", Home}]),
    ?assertMatch([_], filelib:wildcard(filename:join([Home, "erlperf", "*.job"]))),
    %% writable by all: what another user put there is not run (the compiler is)
    ok = file:change_mode(Dir, 8#777),
    {1, Shared} = run(Config, Args, Env),
    ?assertNotEqual(nomatch, string:find(Shared, "compiler_loaded"), Shared),
    ok = file:change_mode(Dir, 8#755),
    {0, _} = run(Config, Args, Env),
    %% no HOME (a service's environment): no cache, and the run as without one
    {0, NoHome} = run(Config, ["lists:seq(1, 9).", "-l", "1"],
                      [{"ERLPERF_CACHE", false}, {"XDG_CACHE_HOME", false}, {"HOME", false}]),
    ?assertNotEqual(nomatch, string:find(NoHome, "lists:seq(1, 9)."), NoHome).

tracker_formats() ->
    [{doc, "--format github-action-benchmark and --format bencher: JSON each history service reads, "
           "on stdout alone"}].
tracker_formats(Config) ->
    Args = ["lists:seq(1, 10).", "lists:seq(1, 100).", "--memory" | ?QUICK],
    {0, Gab, ""} = run_split(Config, Args ++ ["--format", "github-action-benchmark"], []),
    {ok, Entries} = erlperf_json:decode(unicode:characters_to_binary(Gab)),
    ?assertEqual([<<"lists:seq(1, 10).">>, <<"lists:seq(1, 10). - bytes per call">>,
                  <<"lists:seq(1, 10). - reductions per call">>, <<"lists:seq(1, 100).">>,
                  <<"lists:seq(1, 100). - bytes per call">>, <<"lists:seq(1, 100). - reductions per call">>],
                 lists:sort([N || #{<<"name">> := N} <- Entries])),
    {0, Bmf, ""} = run_split(Config, Args ++ ["--format", "bencher"], []),
    {ok, Benchmarks} = erlperf_json:decode(unicode:characters_to_binary(Bmf)),
    ?assertMatch(#{<<"lists:seq(1, 10).">> := #{<<"latency">> := #{<<"value">> := _},
                                                <<"throughput">> := #{<<"value">> := _},
                                                <<"bytes">> := #{<<"value">> := 160.0}}}, Benchmarks).

unreachable_node() ->
    [{doc, "--nodes with a node that cannot be reached names it, exit 1"}].
unreachable_node(Config) ->
    failure(Config, ["ok.", "-d", "100", "--nodes", "cli_no_such_node@localhost"],
            "cli_no_such_node@localhost").

%%--------------------------------------------------------------------
%% sweeps: --param NAME=V1,V2,... and --bytes EXPR

sweep_usage() ->
    [{doc, "Sweeps the engine refuses (unused parameter, parameter in a head, bad --bytes value): one line, exit 2, nothing runs"}].
sweep_usage(Config) ->
    Seq = "lists:seq(1, N).",
    Cases = [{["ok.", "--param", "N=1"], "parameter N is not used"},
             {["{lists, seq, [1, 2]}", "--param", "N=1"], "funs and {M, F, A} cannot take parameters"},
             {["r(N) -> N.", "--init_runner", "1.", "--param", "N=1"],
              "runner: parameter N is an argument in a function head (line 1, column 3)"},
             {[Seq, "--param", "N=1,a", "--bytes", "N * 8"],
              "bytes expression 'N * 8' failed with N=a: error:badarith"},
             {[Seq, "--param", "N=1", "--bytes", "-N"], "bytes expression '-N' gave -1 with N=1"}],
    [usage_error(Config, Args, Expected) || {Args, Expected} <- Cases].

sweep_json() ->
    [{doc, "--param N=10,100,1000 runs lists:seq(1, N) three times: three runs in JSON, each with its N, slower as N grows"}].
sweep_json(Config) ->
    {0, Json} = run(Config, ["lists:seq(1, N).", "--param", "N=10,100,1000", "--format", "json",
                             "-d", "200"]),
    {ok, #{<<"runs">> := Runs, <<"options">> := Options}} = erlperf_json:decode(Json),
    ?assertEqual([#{<<"N">> => 10}, #{<<"N">> => 100}, #{<<"N">> => 1000}],
                 [P || #{<<"params">> := P} <- Runs]),
    ?assertEqual([#{<<"name">> => <<"N">>, <<"values">> => [10, 100, 1000]}], maps:get(<<"params">>, Options)),
    %% a hundred times the work: slower, however loaded the machine
    [Q10, _Q100, Q1000] = [Q || #{<<"qps">> := Q} <- Runs],
    ?assert(Q10 > Q1000, {Q10, Q1000}),
    ?assertEqual([true, false, false], [B || #{<<"best">> := B} <- Runs]),
    [?assertEqual(<<"lists:seq(1, N).">>, L) || #{<<"label">> := L} <- Runs].

sweep_cartesian() ->
    [{doc, "Two --param: every combination (2 x 3 = 6 runs), the first parameter changing slowest; CSV and the table get a column per parameter"}].
sweep_latency() ->
    [{doc, "A sweep's latency table has the parameter columns too, a row per combination"}].
sweep_latency(Config) ->
    {0, Out} = run(Config, ["lists:seq(1, N).", "--param", "N=1,1000", "--latency" | ?QUICK]),
    [Header | Rows] = lists:dropwhile(fun (L) -> not lists:prefix("Latency ", L) end, lines(Out)),
    ?assertMatch(["Latency", "N", "Calls", "ips" | _], string:lexemes(Header, " "), Out),
    ?assertMatch([["lists:seq(1,", "N).", "1" | _], ["lists:seq(1,", "N).", "1000" | _]],
                 [string:lexemes(R, " ") || R <- Rows], Out).

sweep_cartesian(Config) ->
    Args = ["lists:duplicate(N, X).", "--param", "X=a,\"b,c\"", "--param", "N=1,2,3" | ?QUICK],
    {0, Json} = run(Config, Args ++ ["--format", "json"]),
    {ok, #{<<"runs">> := Runs}} = erlperf_json:decode(Json),
    ?assertEqual([#{<<"X">> => X, <<"N">> => N} || X <- [<<"a">>, <<"\"b,c\"">>], N <- [1, 2, 3]],
                 [P || #{<<"params">> := P} <- Runs]),
    {0, Csv} = run(Config, Args ++ ["--format", "csv"]),
    [Header | Rows] = string:split(string:trim(Csv), "\r\n", all),
    ?assertMatch("label,code,X,N,mode," ++ _, Header),
    ?assertEqual(6, length(Rows)),
    ?assertMatch("\"lists:duplicate(N, X).\",\"lists:duplicate(N, X).\",\"\"\"b,c\"\"\",3," ++ _,
                 lists:last(Rows)),
    {0, Out} = run(Config, Args),
    Table = sweep_table(["Code", "X", "N", "||", "QPS", "Time", "Rel"], Out),
    ?assertEqual([{X, N} || X <- ["a", "\"b,c\""], N <- [1, 2, 3]],
                 [{X, N} || #{"X" := X, "N" := N} <- Table]),
    ?assertEqual(1, length([R || #{"Best" := true} = R <- Table])).

sweep_bytes() ->
    [{doc, "--bytes: Bytes/s is QPS times the bytes of the combination, and the best row is the one of the most bytes/s"}].
sweep_bytes(Config) ->
    Args = ["binary:copy(<<0:64>>, N).", "--param", "N=1,16,256", "--bytes", "N * 8",
            "-d", "200"],
    {0, Json} = run(Config, Args ++ ["--format", "json"]),
    {ok, #{<<"runs">> := Runs}} = erlperf_json:decode(Json),
    ?assertEqual([8, 128, 2048], [B || #{<<"bytes_processed_per_iteration">> := B} <- Runs]),
    [?assertEqual(Q * B, Bps) || #{<<"qps">> := Q, <<"bytes_processed_per_iteration">> := B,
                                   <<"bytes_per_second">> := Bps} <- Runs],
    [Best] = [R || #{<<"best">> := true} = R <- Runs],
    ?assertEqual(lists:max([Bps || #{<<"bytes_per_second">> := Bps} <- Runs]),
                 maps:get(<<"bytes_per_second">>, Best)),
    %% the table: the marked row has the most bytes/s, each about QPS x bytes (QPS is
    %% per 200 ms sample, bytes are per second)
    {0, Out} = run(Config, Args),
    Table = sweep_table(["Code", "N", "||", "QPS", "Time", "Rel", "Bytes/s"], Out),
    [Marked] = [R || #{"Best" := true} = R <- Table],
    ?assertEqual(lists:max([B || #{"Bytes/s" := B} <- Table]), maps:get("Bytes/s", Marked)),
    [?assert(abs(Q * 5 * N * 8 - B) =< 0.02 * B, R)   % both cells rounded for display
     || #{"QPS" := Q, "N" := N, "Bytes/s" := B} = R <- Table].

sweep_compare_baseline() ->
    [{doc, "Two runners over two combinations: verdicts within a combination; --save then --baseline matches label and params"}].
sweep_compare_baseline(Config) ->
    Base = filename:join(?config(priv_dir, Config), "sweep_base.json"),
    Md = filename:join(?config(priv_dir, Config), "sweep.md"),
    Args = ["lists:seq(1, N).", "lists:reverse(lists:seq(1, N)).", "--param", "N=10,1000",
            "-r", "extended", "-d", "100", "-s", "5"],
    {0, Out} = run(Config, Args ++ ["--save", Base, "-o", Md]),
    Table = sweep_table(["Code", "N", "||", "Samples", "Avg", "StdDev", "Median", "P99",
                         "Iteration", "Rel"], Out),
    ?assertEqual([10, 10, 1000, 1000], [N || #{"N" := N} <- Table]),
    %% the slower runner against the faster: on a loaded host, either may be the faster at N=10
    [?assertEqual(1, length([A || {A, B} <- [{"lists:reverse(lists:seq(1, N)).", "lists:seq(1, N)."},
                                             {"lists:seq(1, N).", "lists:reverse(lists:seq(1, N))."}],
                                  string:find(Out, A ++ " against " ++ B ++ " (N=" ++ N ++ "): ")
                                      =/= nomatch]), Out)
     || N <- ["10", "1000"]],
    ?assertEqual(2, length([L || L <- lines(Out), string:find(L, " against ") =/= nomatch])),
    {ok, MdText} = file:read_file(Md),
    ?assertMatch([<<"| Code | N | Concurrency |", _/binary>>, _, _, _, _, _],
                 binary:split(MdText, <<"\n">>, [global, trim])),
    {0, Again} = run(Config, Args ++ ["--baseline", Base]),
    [?assertNotEqual(nomatch, string:find(Again, Name ++ " (N=" ++ N ++ ") against " ++ Base ++ ": "), Again)
     || Name <- ["lists:seq(1, N).", "lists:reverse(lists:seq(1, N))."], N <- ["10", "1000"]],
    ?assertEqual(nomatch, string:find(Again, "no runner with this label"), Again).

sweep_isolated() ->
    [{doc, "-i with --param: each combination runs in fresh peer nodes"}].
sweep_isolated(Config) ->
    {0, Out} = run(Config, ["lists:seq(1, N).", "--param", "N=1,10000", "-i" | ?QUICK]),
    [#{"N" := 1, "QPS" := Q1}, #{"N" := 10000, "QPS" := Q10000}] =
        sweep_table(["Code", "N", "||", "QPS", "Time", "Rel"], Out),
    ?assert(Q1 > Q10000, Out).

%%--------------------------------------------------------------------
%% options: one at a time, values checked

aliases() ->
    [{doc, "Every long form and alias of an option does what its short form does"}].
aliases(Config) ->
    Quick = ["-d", "20", "-s", "1"],
    {0, C} = run(Config, ["rand:uniform().", "--concurrency", "3", "-s", "1", "-d", "20"]),
    [#{"||" := 3}] = table(?BASIC, C),
    [begin
         {0, Out} = run(Config, ["rand:uniform().", Opt, "20", "-s", "11"]),
         [#{"Samples" := 11}] = table(?EXTENDED, Out)
     end || Opt <- ["--duration", "--sample_duration"]],
    {0, S} = run(Config, ["rand:uniform().", "--samples", "10", "-d", "20"]),
    [#{"Samples" := 10}] = table(?EXTENDED, S),
    {0, W} = run(Config, ["rand:uniform().", "--warmup", "1" | Quick]),
    [_] = table(?BASIC, W),
    {0, L} = run(Config, ["rand:uniform().", "--loop", "1K", "--report", "extended"]),
    [#{"Samples" := 3}] = table(?EXTENDED, L),
    {0, V} = run(Config, ["rand:uniform().", "--verbose" | Quick]),
    ?assertNotEqual(nomatch, string:find(V, "-module(")),
    [begin
         {0, I} = run(Config, ["error = init:get_argument(escript).", Opt | Quick]),
         [_] = table(?BASIC, I)
     end || Opt <- ["--isolated", "--isolation"]],
    {0, Q} = run(Config, ["timer:sleep(1).", "--squeeze", "--max", "2" | Quick]),
    [#{"||" := _}] = table(?BASIC, Q).

sleep_plausible() ->
    [{doc, "timer:sleep(1) gives at most 1100 QPS and takes at least 0.9 ms, timer:sleep(2) at most 550; rows sorted fastest first, Rel against the first"}].
sleep_plausible(Config) ->
    {0, Out} = run(Config, ["timer:sleep(2).", "timer:sleep(1).", "-s", "1"]),
    Rows = [#{"Rel" := 100} = First, Second] = table(?BASIC ++ ["Rel"], Out),
    #{"timer:sleep(1)." := One, "timer:sleep(2)." := Two} = maps:from_list([{C, R} || #{"Code" := C} = R <- Rows]),
    ?assert(in(maps:get("QPS", One), 0, 1100), One),
    ?assert(in(maps:get("QPS", Two), 0, 550), Two),
    ?assert(maps:get("Time", One) >= 0.9e6, One),
    ?assert(maps:get("Time", Two) >= 1.9e6, Two),
    ?assert(maps:get("QPS", Second) =< maps:get("QPS", First), {First, Second}),
    ?assert(maps:get("Rel", Second) =< 100, Second).

one_sample() ->
    [{doc, "-s 1 works"}].
one_sample(Config) ->
    {0, Out} = run(Config, ["rand:uniform().", "-s", "1", "-d", "100"]),
    [#{"QPS" := Qps}] = table(?BASIC, Out),
    ?assert(is_integer(Qps) andalso Qps >= 0, Out).

concurrency() ->
    [{doc, "-c 4 runs four workers: at most four times the sleeps of one, each sleep still at least 1 ms"}].
concurrency(Config) ->
    {0, Out} = run(Config, ["timer:sleep(1).", "-c", "4", "-s", "1", "-d", "500"]),
    [#{"||" := 4, "QPS" := Qps, "Time" := Time}] = table(?BASIC, Out),
    ?assert(in(Qps, 0, 4 * 550), Out),          % four sleepers, per 500 ms
    ?assert(Time >= 0.9e6, Out).                % each sleep still takes 1 ms or more

duration() ->
    [{doc, "-d 200 counts iterations per 200 ms: no more sleeps of 1 ms than fit in 200 ms"}].
duration(Config) ->
    {0, Out} = run(Config, ["timer:sleep(1).", "-d", "200", "-s", "2"]),
    [#{"QPS" := Qps}] = table(?BASIC, Out),
    ?assert(in(Qps, 0, 220), Out).              % sleeps in 200 ms, not in 1 s

samples() ->
    [{doc, "-s 12 takes 12 samples and defaults to the extended report"}].
samples(Config) ->
    {0, Out} = run(Config, ["rand:uniform().", "-s", "12", "-d", "20"]),
    [#{"Samples" := 12}] = table(?EXTENDED, Out).  % extended from 10 samples

warmup() ->
    [{doc, "-w 3 takes three more samples first"}].
warmup(Config) ->
    Run = fun () -> run(Config, ["rand:uniform().", "-w", "3", "-d", "100", "-s", "1"]) end,
    {Micros, {0, Out}} = timer:tc(Run),
    [_] = table(?BASIC, Out),
    ?assert(Micros > 400000, Micros).           % 3 warmup + 1 sample of 100 ms

loop() ->
    [{doc, "-l N is timed mode: QPS and Time from the time of N iterations"}].
loop(Config) ->
    {0, Out} = run(Config, ["timer:sleep(1).", "-l", "20", "-s", "2"]),
    [#{"QPS" := Qps, "Time" := Time}] = table(?BASIC, Out),
    ?assert(in(Qps, 0, 1100), Out),
    ?assert(Time >= 0.9e6, Out),
    {0, Out2} = run(Config, ["ok.", "--loop", "1K"]),
    [_] = table(?BASIC, Out2),
    {0, Out3} = run(Config, ["timer:sleep(1).", "-l", "20", "-s", "2", "-r", "extended"]),
    [#{"Avg" := Avg, "Samples" := 2}] = table(?EXTENDED, Out3),
    ?assert(Avg >= 20 * 0.9e6, Out3).                % time of 20 sleeps per sample

report_formats() ->
    [{doc, "-r extended, -r basic (over 10 samples), -r full (OS, CPU, VM lines)"}].
report_formats(Config) ->
    Code = ["rand:uniform().", "-d", "50"],
    {0, Extended} = run(Config, Code ++ ["-r", "extended"]),
    [#{"Samples" := 3}] = table(?EXTENDED, Extended),
    {0, Basic} = run(Config, Code ++ ["--report", "basic", "-s", "10"]),
    [_] = table(?BASIC, Basic),
    {0, Full} = run(Config, Code ++ ["-r", "full"]),
    ?assertMatch(["OS:" ++ _, "CPU:" ++ _, "VM:" ++ _, "" | _], lines(Full)),
    [_] = table(?EXTENDED, Full).

cv() ->
    [{doc, "--cv runs and reports"}].
cv(Config) ->
    {0, Out} = run(Config, ["timer:sleep(1).", "--cv", "0.5", "-d", "50", "-s", "3"]),
    [#{"QPS" := Qps}] = table(?BASIC, Out),
    ?assert(in(Qps, 0, 55), Out).                    % 1 ms sleeps in 50 ms

verbose() ->
    [{doc, "-v prints the generated source, then monitor lines, then the table"}].
verbose(Config) ->
    {0, Out} = run(Config, ["rand:uniform().", "-v", "-s", "2"]),
    Source = string:find(Out, "-module("),
    Monitor = string:find(Out, "Sched"),
    ?assertNotEqual(nomatch, Source),
    ?assertNotEqual(nomatch, Monitor),
    ?assert(length(Source) > length(Monitor), Out),  % the source comes first
    [_] = table(?BASIC, Out).

code_path() ->
    [{doc, "-pa DIR makes a module in DIR callable"}].
code_path(Config) ->
    Dir = compile_module(Config, "pa", cli_pa_mod),
    {0, Out} = run(Config, ["cli_pa_mod:f().", "-pa", Dir, "-d", "100", "-s", "1"]),
    [#{"Code" := "cli_pa_mod:f()."}] = table(?BASIC, Out),
    %% a sample long enough for the failing call (the code server searches the whole
    %% path first) to crash within it, even on a loaded machine
    failure(Config, ["cli_pa_mod:f().", "-d", "1000", "-s", "1"], "cli_pa_mod").

erl_libs() ->
    [{doc, "ERL_LIBS makes a library's modules callable"}].
erl_libs(Config) ->
    Libs = filename:join(?config(priv_dir, Config), "libs"),
    Ebin = filename:join([Libs, "cli_lib-1.0", "ebin"]),
    ok = filelib:ensure_dir(filename:join(Ebin, "x")),
    _ = compile_module(Config, "src", cli_lib_mod, Ebin),
    {0, Out} = run(Config, ["cli_lib_mod:f().", "-d", "100", "-s", "1"], [{"ERL_LIBS", Libs}]),
    [#{"Code" := "cli_lib_mod:f()."}] = table(?BASIC, Out).

isolated() ->
    [{doc, "-i runs the code in another VM (one without the escript argument)"}].
isolated(Config) ->
    %% an escript VM has the `escript' init argument; a fresh peer node has not
    Code = "error = init:get_argument(escript).",
    {0, Out} = run(Config, [Code, "-i", "-d", "100", "-s", "1"]),
    [_] = table(?BASIC, Out),
    failure(Config, [Code, "-d", "100", "-s", "1"], "runner of '" ++ Code ++ "' crashed").

squeeze_options() ->
    [{doc, "-q with --min, --step, --max and -t"}].
squeeze_options(Config) ->
    %% sleepers scale with concurrency: every step gains (+50% at least), so the best is
    %% the maximum (sleeps of 50 ms: a loaded machine's late wake-ups, a few ms that vary
    %% from step to step, are small beside them)
    Args = ["timer:sleep(50).", "--min", "2", "--step", "2", "--max", "6", "-t", "1",
            "-d", "1000", "-s", "1"],
    {0, Out} = run(Config, Args ++ ["-q"]),
    [#{"||" := 6}] = table(?BASIC, Out),
    {0, Out2} = run(Config, ["timer:sleep(50).", "-q", "--max", "3", "--threshold", "5",
                             "-d", "1000", "-s", "1"]),
    [#{"||" := 3}] = table(?BASIC, Out2).

init_and_done() ->
    [{doc, "--init runs before the runner, --done after"}].
init_and_done(Config) ->
    Done = filename:join(?config(priv_dir, Config), "done.txt"),
    {0, Out} = run(Config, ["ets:insert(cli_t, {k, v}).",
                            "--init", "ets:new(cli_t, [named_table, public]).",
                            "--done", io_lib:format("file:write_file(~0p, <<\"done\">>).", [Done]),
                            "-d", "100", "-s", "1"]),
    [_] = table(?BASIC, Out),
    ?assertEqual({ok, <<"done">>}, file:read_file(Done)).

init_runner() ->
    [{doc, "--init_runner's result is the runner's argument"}].
init_runner(Config) ->
    {0, Out} = run(Config, ["r(N) -> 7 = N.", "--init_runner", "7.", "-d", "100", "-s", "1"]),
    [_] = table(?BASIC, Out),
    failure(Config, ["r(N) -> 7 = N.", "--init_runner", "8.", "-d", "100", "-s", "1"], "badmatch").

label() ->
    [{doc, "--label replaces the code in the Code column"}].
label(Config) ->
    {0, Out} = run(Config, ["rand:uniform().", "--label", "random", "ok.", "--label", "nothing",
                            "-d", "100", "-s", "1"]),
    Labels = [L || #{"Code" := L} <- table(?BASIC ++ ["Rel"], Out)],
    ?assertEqual(["nothing", "random"], lists:sort(Labels)).

all_runner_defaults() ->
    [{doc, "--init_all, --done_all, --init_runner_all apply to every runner, per-runner options win"}].
all_runner_defaults(Config) ->
    Done = filename:join(?config(priv_dir, Config), "done_all.txt"),
    %% the first --init_runner is the first runner's, the second the second's; the
    %% third runner has none, so it gets --init_runner_all
    Args = ["r(X) -> 6 = X.", "ets:insert(t, {k, v}).", "--init_runner", "6.",
            "r(X) -> 5 = X.", "--init_runner", "ok.",
            "--init_runner_all", "5.",
            "--init_all", "ets:new(t, [named_table, public]).",
            "--done_all", io_lib:format("file:write_file(~0p, <<\"all\">>, [append]).", [Done]),
            %% one named table at a time: the runners run one after another
            "--compare", "sequential", "-d", "100", "-s", "1"],
    {0, Out} = run(Config, Args),
    ?assertEqual(3, length(table(?BASIC ++ ["Rel"], Out))),
    ?assertEqual({ok, <<"allallall">>}, file:read_file(Done)).

mfa_runner() ->
    [{doc, "A runner given as an {M, F, A} tuple"}].
mfa_runner(Config) ->
    {0, Out} = run(Config, ["{erlang, abs, [-1]}", "-d", "100", "-s", "1"]),
    [#{"Code" := "{erlang,abs,[-1]}"}] = table(?BASIC, Out).

inline_value() ->
    [{doc, "--option=value is --option value"}].
inline_value(Config) ->
    {0, Out} = run(Config, ["rand:uniform().", "--samples=11", "--duration=20"]),
    [#{"Samples" := 11}] = table(?EXTENDED, Out).

terminal_width() ->
    [{doc, "The Code column is cut to COLUMNS, and not cut without it"}].
terminal_width(Config) ->
    Long = "erlang:put(cli_key, [1, 2, 3]), erlang:put(cli_key, [4, 5]), erlang:get(cli_key).",
    {0, Out} = run(Config, [Long, "-d", "50", "-s", "1"], [{"COLUMNS", "60"}]),
    ?assert(lists:all(fun (Line) -> length(Line) =< 60 end, lines(Out)), Out),
    [#{"Code" := "erlang:put(cli_key" ++ _}] = table(?BASIC, Out),
    {0, Wide} = run(Config, [Long, "-d", "50", "-s", "1"]),
    [#{"Code" := Long}] = table(?BASIC, Wide).

nodes() ->
    [{doc, "--nodes runs on two peer nodes at once and adds the results up"}].
nodes(Config) ->
    Peers = [begin
                 {ok, Peer, Node} = peer:start_link(#{name => peer:random_name(?FUNCTION_NAME),
                                                      connection => standard_io}),
                 {Peer, Node}
             end || _ <- [1, 2]],
    try
        List = lists:join(",", [atom_to_list(N) || {_, N} <- Peers]),
        {0, Out} = run(Config, ["timer:sleep(1).", "--nodes", List, "-d", "200", "-s", "1"]),
        [#{"||" := 2, "QPS" := Qps}] = table(?BASIC, Out),   % both nodes added up
        ?assert(in(Qps, 0, 2 * 220), Out)
    after
        [peer:stop(P) || {P, _} <- Peers]
    end.

%%--------------------------------------------------------------------
%% hooks: --init, --done, --init_runner and --label are read in the order of the
%% runners (erlperf 2.3's CLI.md), wherever they stand

cli_md_init_runner_order() ->
    [{doc, "CLI.md: --init_runner '1.' R1 R2 --init_runner '2.': each runner receives its own value"}].
cli_md_init_runner_order(Config) ->
    %% each runner has one clause: the other's value would crash it (function_clause)
    {0, Out} = run(Config, ["--init_runner", "1.", "run(1) -> ok.", "run(2) -> ok.",
                            "--init_runner", "2." | ?QUICK]),
    ?assertEqual(["run(1) -> ok.", "run(2) -> ok."],
                 lists:sort([C || #{"Code" := C} <- table(?BASIC ++ ["Rel"], Out)])).

cli_md_init_runner_swapped() ->
    [{doc, "CLI.md: the hooks swapped, the first runner receives 2 and the second 1: both "
           "crash with function_clause, each named on its line, exit 1"}].
cli_md_init_runner_swapped(Config) ->
    {1, Out} = run(Config, ["--init_runner", "2.", "run(1) -> ok.", "run(2) -> ok.",
                            "--init_runner", "1." | ?QUICK]),
    ?assertMatch(["erlperf: runner of 'run(1) -> ok.' crashed: error:function_clause" ++ _,
                  "erlperf: runner of 'run(2) -> ok.' crashed: error:function_clause" ++ _],
                 lines(Out)).

init_and_done_order() ->
    [{doc, "The k-th --init and the k-th --done belong to the k-th runner, wherever they stand"}].
init_and_done_order(Config) ->
    Dir = ?config(priv_dir, Config),
    [First, Second] = [filename:join(Dir, F) || F <- ["order_first.txt", "order_second.txt"]],
    %% done/1 receives init's result: each file tells which init its runner had
    Done = fun (File) -> io_lib:format("d(X) -> file:write_file(~0p, integer_to_list(X)).", [File]) end,
    {0, Out} = run(Config, ["--init", "1.", "--done", Done(First), "ok.", "--init", "2.",
                            "rand:uniform().", "--done", Done(Second) | ?QUICK]),
    [_, _] = table(?BASIC ++ ["Rel"], Out),
    ?assertEqual({ok, <<"1">>}, file:read_file(First)),
    ?assertEqual({ok, <<"2">>}, file:read_file(Second)).

label_order() ->
    [{doc, "--label before the first runner is the first runner's, after the second the second's"}].
label_order(Config) ->
    {0, Out} = run(Config, ["--label", "slow", "timer:sleep(2).", "ok.", "--label", "fast"
                            | ?QUICK]),
    ?assertMatch([#{"Code" := "fast", "Rel" := 100}, #{"Code" := "slow"}],
                 table(?BASIC ++ ["Rel"], Out)).

single_hook_first_runner() ->
    [{doc, "One --init_runner with two runners is the first runner's only; --init_runner_all is for all"}].
single_hook_first_runner(Config) ->
    %% the second runner takes an argument and gets no init_runner: rejected, exit 2
    usage_error(Config, ["run(1) -> ok.", "run(X) -> X.", "--init_runner", "1." | ?QUICK],
                "runner: arity 1: needs init_runner"),
    {0, Out} = run(Config, ["run(1) -> ok.", "run(7) -> ok.", "--init_runner", "1.",
                            "--init_runner_all", "7." | ?QUICK]),
    [_, _] = table(?BASIC ++ ["Rel"], Out).

hooks_before_runners() ->
    [{doc, "Hooks all before the runners, all after, each after its runner, --name=value: same pairing"}].
hooks_before_runners(Config) ->
    Forms = [["--init_runner", "1.", "--init_runner", "2.", "run(1) -> ok.", "run(2) -> ok."],
             ["run(1) -> ok.", "run(2) -> ok.", "--init_runner", "1.", "--init_runner", "2."],
             ["run(1) -> ok.", "--init_runner", "1.", "run(2) -> ok.", "--init_runner", "2."],
             ["run(1) -> ok.", "--init_runner=1.", "run(2) -> ok.", "--init_runner=2."]],
    [begin
         {0, Out} = run(Config, Args ++ ?QUICK),
         [_, _] = table(?BASIC ++ ["Rel"], Out)
     end || Args <- Forms].

%%--------------------------------------------------------------------
%% encoding: UTF-8 code, and code that is not UTF-8 (read as Latin-1)

utf8_code() ->
    [{doc, "UTF-8 code under a UTF-8 locale: é and 日本 are single characters, printed in UTF-8, exit 0"}].
utf8_code(Config) ->
    Code = "\"日本\" = [26085, 26412], \"é\" = [233], <<\"é\"/utf8>> = <<195, 169>>, ok.",
    {0, Out} = run(Config, [Code | ?QUICK], ?UTF8),
    ?assertMatch([#{"Code" := Code}], table(?BASIC, Out)),
    {0, Labelled} = run(Config, ["ok.", "--label", "日本 é" | ?QUICK], ?UTF8),
    ?assertMatch([#{"Code" := "日本 é"}], table(?BASIC, Labelled)).

latin1_code() ->
    [{doc, "Bytes that are not UTF-8 are read as Latin-1: <<\"\\xff\">> is <<255>>, the code runs, exit 0"}].
latin1_code(Config) ->
    Code = <<"<<255>> = <<\"", 255, "\">>, 'caf", 233, "' = list_to_atom([99, 97, 102, 233]), ok.">>,
    {0, Out} = run(Config, [Code | ?QUICK], ?UTF8),
    Latin1 = binary_to_list(Code),     % one character per byte, printed in UTF-8
    ?assertMatch([#{"Code" := Latin1}], table(?BASIC, Out)).

latin1_label() ->
    [{doc, "A --label that is not UTF-8 is read as Latin-1 and shown, exit 0"}].
latin1_label(Config) ->
    {0, Out} = run(Config, ["ok.", "--label", <<"lab", 233, "l">> | ?QUICK], ?UTF8),
    ?assertMatch([#{"Code" := "lab" ++ [233] ++ "l"}], table(?BASIC, Out)).

latin1_failure() ->
    [{doc, "A crashing runner that is not UTF-8: one line, no stack trace, exit 1"}].
latin1_failure(Config) ->
    failure(Config, [<<"\"", 233, "\" = \"e\".">> | ?QUICK], ?UTF8, "badmatch").

latin1_syntax_error() ->
    [{doc, "Code that is not UTF-8 and does not parse (a cut UTF-8 sequence, a stray byte): usage error, exit 2"}].
latin1_syntax_error(Config) ->
    usage_error(Config, [<<"ok.", 195>>], ?UTF8, "source must end with a period"),
    usage_error(Config, [<<"foo(", 255, ".">>], ?UTF8, "runner: syntax error").

latin1_locale() ->
    [{doc, "Under a Latin-1 locale every argument is Latin-1 and the bytes come out as they went in"}].
latin1_locale(Config) ->
    Code = <<"<<255>> = <<\"", 255, "\">>, ok.">>,
    %% +fnl: the VM reads arguments as Latin-1, whatever the OTP release's default
    {0, Out} = run_raw(Config, [Code | ?QUICK], [{"LC_ALL", "C"}, {"ERL_FLAGS", "+fnl"}]),
    ?assertNotEqual(nomatch, binary:match(Out, [<<"\n", Code/binary, "  ">>]), Out),
    no_stack_trace(Out).

%%--------------------------------------------------------------------
%% format: erlperf_cli:format/2 on real full reports (the group's init runs the benchmark)

format_basic() ->
    [{doc, "format => basic: the basic table, fastest first; without format, 3 samples give basic"}].
format_basic(Config) ->
    Reports = ?config(reports, Config),
    Out = text(erlperf_cli:format(Reports, #{format => basic, viewport_width => 200})),
    [Fast, Slow] = table(?BASIC ++ ["Rel"], Out),
    ?assertMatch(#{"Code" := ?LONG_CODE, "||" := 1, "Rel" := 100}, Fast),
    ?assertMatch(#{"Code" := "timer:sleep(1).", "||" := 1}, Slow),
    ?assert(in(maps:get("QPS", Slow), 0, 55), Slow),       % 1 ms sleeps in 50 ms
    ?assert(maps:get("Rel", Slow) < 100, Slow),
    ?assertEqual(Out, text(erlperf_cli:format(Reports, #{viewport_width => 200}))).

format_extended() ->
    [{doc, "format => extended: the extended table; without format, 10 samples give extended"}].
format_extended(Config) ->
    Out = text(erlperf_cli:format(?config(reports, Config), #{format => extended,
                                                                viewport_width => 200})),
    [#{"Code" := ?LONG_CODE, "Samples" := 3, "Rel" := 100},
     #{"Code" := "timer:sleep(1).", "Samples" := 3}] = table(?EXTENDED ++ ["Rel"], Out),
    Ten = erlperf:benchmark([#{runner => "ok."}, #{runner => "rand:uniform()."}],
                            #{report => full, sample_duration => 10, samples => 10}, undefined),
    [#{"Samples" := 10}, #{"Samples" := 10}] =
        table(?EXTENDED ++ ["Rel"], text(erlperf_cli:format(Ten, #{viewport_width => 200}))).

format_full() ->
    [{doc, "format => full: OS, CPU and VM lines, an empty line, then the extended table"}].
format_full(Config) ->
    Out = text(erlperf_cli:format(?config(reports, Config), #{format => full,
                                                                viewport_width => 200})),
    %% (a loaded machine may add the timer accuracy note before the table)
    ?assertMatch(["OS:  " ++ _, "CPU: " ++ _, "VM:  " ++ _, "" | _], lines(Out)),
    [#{"Code" := ?LONG_CODE}, #{"Code" := "timer:sleep(1)."}] = table(?EXTENDED ++ ["Rel"], Out).

format_narrow() ->
    [{doc, "A narrow viewport_width cuts the Code column as the command line does with COLUMNS"}].
format_narrow(Config) ->
    Reports = ?config(reports, Config),
    Out = text(erlperf_cli:format(Reports, #{format => basic, viewport_width => 60})),
    ?assert(lists:all(fun (Line) -> length(Line) =< 60 end, lines(Out)), Out),
    [#{"Code" := Cut}, #{"Code" := "timer:sleep(1)."}] = table(?BASIC ++ ["Rel"], Out),
    ?assert(lists:prefix(Cut, ?LONG_CODE) andalso length(Cut) < length(?LONG_CODE), Cut),
    %% the same text as the command line's renderer with that width, and no colour
    ?assertEqual(text(erlperf_report:format(Reports, #{format => basic, width => 60})), Out),
    %% extended columns leave no room: the Code column keeps its minimum of 12
    Ext = text(erlperf_cli:format(Reports, #{format => extended, viewport_width => 40})),
    [#{"Code" := "erlang:put(c"}, #{"Code" := "timer:sleep("}] = table(?EXTENDED ++ ["Rel"], Ext),
    Wide = text(erlperf_cli:format(Reports, #{format => basic, viewport_width => infinity})),
    [#{"Code" := ?LONG_CODE}, _] = table(?BASIC ++ ["Rel"], Wide).

format_default_width() ->
    [{doc, "Without viewport_width the width is io:columns/0, or 80 when unknown (erlperf 2.3's default)"}].
format_default_width(Config) ->
    Reports = ?config(reports, Config),
    Width = case io:columns() of
                {ok, N} -> N;
                {error, _} -> 80
            end,
    ?assertEqual(text(erlperf_cli:format(Reports, #{format => basic, viewport_width => Width})),
                 text(erlperf_cli:format(Reports, #{format => basic}))).

format_2_3_example() ->
    [{doc, "erlperf 2.3's erlperf_cli example, unchanged: a fun and an MFA, extended, 120 wide"}].
format_2_3_example(_Config) ->
    Report = erlperf:benchmark([
        #{runner => fun() -> rand:uniform(10) end},
        #{runner => {rand, mwc59, [1]}}
    ], #{report => full}, undefined),
    Out = erlperf_cli:format(Report, #{format => extended, viewport_width => 120}),
    %% the example prints it with io:format/1
    Printed = lists:flatten(io_lib:format(Out, [])),
    ?assertEqual(text(Out), Printed),
    ?assert(lists:all(fun (Line) -> length(Line) =< 120 end, lines(Printed)), Printed),
    Rows = table(?EXTENDED ++ ["Rel"], Printed),
    ?assertMatch(["#Fun<" ++ _, "{rand,mwc59,[1]}"], lists:sort([C || #{"Code" := C} <- Rows])),
    [?assertMatch(#{"Samples" := 3}, R) || R <- Rows].

format_bad_input() ->
    [{doc, "Unknown options, bad values and reports that are not full raise invalid_option; one report is a list of one"}].
format_bad_input(Config) ->
    Reports = ?config(reports, Config),
    ?assertError({invalid_option, colour, true}, erlperf_cli:format(Reports, #{colour => true})),
    ?assertError({invalid_option, format, auto}, erlperf_cli:format(Reports, #{format => auto})),
    ?assertError({invalid_option, viewport_width, 0},
                 erlperf_cli:format(Reports, #{viewport_width => 0})),
    ?assertError({invalid_option, options, [basic]}, erlperf_cli:format(Reports, [basic])),
    ?assertError({invalid_option, report, 42}, erlperf_cli:format([42], #{})),
    ?assertError({invalid_option, report, #{}}, erlperf_cli:format(#{}, #{})),
    ?assertError({invalid_option, report, {1, 2}}, erlperf_cli:format({1, 2}, #{})),
    ?assertEqual("", text(erlperf_cli:format([], #{}))),
    [#{"Code" := "timer:sleep(1)."}] =
        table(?BASIC, text(erlperf_cli:format(hd(Reports), #{format => basic}))).

%%--------------------------------------------------------------------
%% seed: the README's and the efficiency guide's examples, verbatim

readme_rand_uniform() ->
    [{doc, "README quick start 1"}].
readme_rand_uniform(Config) ->
    seed(Config, ["rand:uniform()."], ?BASIC, ["rand:uniform()."]).

readme_concurrency() ->
    [{doc, "README quick start 2: -c 4"}].
readme_concurrency(Config) ->
    [#{"||" := 4}] = seed(Config, ["rand:uniform().", "-c", "4"], ?BASIC, ["rand:uniform()."]).

readme_compare_warmup() ->
    [{doc, "README quick start 3: two runners, 10 samples, warmup"}].
readme_compare_warmup(Config) ->
    Rows = seed(Config, ["rand:uniform().", "crypto:strong_rand_bytes(2).", "--samples", "10",
                         "--warmup", "1"], ?EXTENDED ++ ["Rel"], unordered),
    ?assertEqual(["crypto:strong_rand_bytes(2).", "rand:uniform()."],
                 lists:sort([C || #{"Code" := C} <- Rows])),
    [#{"Samples" := 10} = R || R <- Rows].

readme_state() ->
    [{doc, "README quick start 4: state passed between iterations"}].
readme_state(Config) ->
    seed(Config, ["r(_, S) -> {_, N} = rand:uniform_s(S), N.", "--init_runner", "rand:seed(exsss).",
                  "r() -> rand:uniform()."], ?BASIC ++ ["Rel"], unordered).

readme_squeeze_is_loaded() ->
    [{doc, "README quick start 5: squeeze code:is_loaded/1"}].
readme_squeeze_is_loaded(Config) ->
    seed(Config, ["code:is_loaded(local_udp).", "--init", "code:ensure_loaded(local_udp).",
                  "--squeeze"], ?BASIC, ["code:is_loaded(local_udp)."]).

readme_squeeze_persistent_term() ->
    [{doc, "README quick start 5: squeeze persistent_term:put/2"}].
readme_squeeze_persistent_term(Config) ->
    seed(Config, ["persistent_term:put(atom, \"string\").", "-q"], ?BASIC,
         ["persistent_term:put(atom, \"string\")."]).

readme_pg_scope() ->
    [{doc, "README quick start 6: pg scope started by init, stopped by done"}].
readme_pg_scope(Config) ->
    Code = "pg:join(scope, group, self()), pg:leave(scope, group, self()).",
    seed(Config, [Code, "--init", "pg:start_link(scope).", "--done", "gen_server:stop(scope)."],
         ?BASIC, [Code]).

readme_sleep_init_runner() ->
    [{doc, "README quick start 7: same code, different init_runner"}].
readme_sleep_init_runner(Config) ->
    %% a host whose timers are late by a millisecond or more can make sleeps of 1 and 2 ms
    %% take the same time: such a run is tried again, three times at most
    Args = ["runner(X) -> timer:sleep(X).", "--init_runner", "1.",
            "  runner(X) -> timer:sleep(X).", "--init_runner", "2."],
    Rows = until_found(fun () -> seed(Config, Args, ?BASIC ++ ["Rel"], unordered) end,
                       fun ([#{"Code" := C} | _]) -> C =:= "runner(X) -> timer:sleep(X)." end, 3),
    ?assertEqual(["runner(X) -> timer:sleep(X).", "  runner(X) -> timer:sleep(X)."],
                 [C || #{"Code" := C} <- Rows]),
    [One, Two] = Rows,
    ?assert(in(maps:get("QPS", One), 0, 1100), One),
    ?assert(maps:get("QPS", Two) < maps:get("QPS", One), {One, Two}),
    ?assertMatch(#{"Rel" := 100}, One).

readme_pg2() ->
    [{doc, "README quick start 8: pg2 is gone since OTP 24, the message says so"}].
readme_pg2(Config) ->
    failure(Config, ["ok = pg2:join(g, self()), ok = pg2:leave(g, self()).",
                     "--init", "pg2:create(g)."], "pg2").

readme_pg2_isolated() ->
    [{doc, "README quick start 9: pg2 against pg in isolation: one line naming pg2's crash, exit 1, "
           "and pg measured alone (a crash among several runners, as in a closed loop)"}].
readme_pg2_isolated(Config) ->
    {1, Out} = run(Config, ["ok = pg2:join(g, self()), ok = pg2:leave(g, self()).", "--init", "pg2:create(g).",
                            "ok = pg:join(g, self()), ok = pg:leave(g, self()).", "--init", "pg:start(pg).",
                            "-i"]),
    ?assertMatch(["erlperf: init of 'ok = pg2:join(g, self()), ok = pg2:leave(g, self()).' crashed: "
                  "undefined function pg2:create/1" ++ _], [L || "erlperf: " ++ _ = L <- lines(Out)]),
    ?assertMatch([_], [L || "ok = pg:join(g, self()), ok = pg:leave(g, self()). " ++ _ = L <- lines(Out)]).

readme_verbose_squeeze() ->
    [{doc, "README quick start 10: -q -v -t 8"}].
readme_verbose_squeeze(Config) ->
    {0, Out} = run(Config, ["rand:uniform().", "-q", "-v", "-t", "8"]),
    ?assertNotEqual(nomatch, string:find(Out, "Sched")),
    [#{"Code" := "rand:uniform().", "||" := C}] = table(?BASIC, Out),
    ?assert(C >= 1, Out).

readme_squeeze_max() ->
    [{doc, "README concurrency estimation: {M, F, A} runner, -w 1 --max 50 -q"}].
readme_squeeze_max(Config) ->
    [#{"||" := C}] = seed(Config, ["{code, is_loaded, [local_udp]}", "-w", "1", "--max", "50", "-q"],
                          ?BASIC, ["{code,is_loaded,[local_udp]}"]),
    ?assert(C >= 1 andalso C =< 50, C).

%% The README's -pa example points at a directory built by an argparse checkout; here it
%% does not exist, which is a usage error naming it. code_path/1 covers a real -pa.
readme_pa_argparse() ->
    [{doc, "README -pa example"}].
readme_pa_argparse(Config) ->
    Args = ["argparse:parse([], #{}).", "-pa", "_build/test/lib/argparse/ebin"],
    case filelib:is_dir(filename:join(root(), "_build/test/lib/argparse/ebin")) of
        true -> seed(Config, Args, ?BASIC, ["argparse:parse([], #{})."]);
        false -> usage_error(Config, Args, "_build/test/lib/argparse/ebin")
    end.

%% ERL_LIBS="_build/test/lib": argparse is in stdlib from OTP 26; before, it is missing.
readme_erl_libs_argparse() ->
    [{doc, "README ERL_LIBS example"}].
readme_erl_libs_argparse(Config) ->
    Args = ["argparse:parse([], #{})."],
    Env = [{"ERL_LIBS", "_build/test/lib"}],
    case code:which(argparse) of
        non_existing -> failure(Config, Args, Env, "argparse");
        _ -> seed(Config, Args, Env, ?BASIC, ["argparse:parse([], #{})."])
    end.

readme_ets_timer() ->
    [{doc, "README timer precision example: -c 50, 50 samples of 100 ms"}].
readme_ets_timer(Config) ->
    [#{"||" := 50, "Samples" := 50}] =
        seed(Config, ["-c", "50", "ets:insert(ac_tab, {1, 2}).", "-d", "100", "-s", "50"], ?EXTENDED,
             ["ets:insert(ac_tab, {1, 2})."]).

guide_bytes_2() ->
    [{doc, "Efficiency guide: rand:bytes(2) against crypto:strong_rand_bytes(2)"}].
guide_bytes_2(Config) ->
    guide_bytes(Config, "2").

guide_bytes_100() ->
    [{doc, "Efficiency guide: 100 bytes"}].
guide_bytes_100(Config) ->
    guide_bytes(Config, "100").

guide_bytes_1000() ->
    [{doc, "Efficiency guide: 1000 bytes"}].
guide_bytes_1000(Config) ->
    guide_bytes(Config, "1000").

guide_bytes(Config, N) ->
    Codes = ["rand:bytes(" ++ N ++ ").", "crypto:strong_rand_bytes(" ++ N ++ ")."],
    Rows = seed(Config, Codes, ?BASIC ++ ["Rel"], unordered),
    ?assertEqual(lists:sort(Codes), lists:sort([C || #{"Code" := C} <- Rows])).

%%--------------------------------------------------------------------
%% seed (figures compared across rows) and seed_timed (timing compared across runs)

readme_mfa_loop() ->
    [{doc, "README: {M, F, A} against source in timed mode, -l 10M"}].
readme_mfa_loop(Config) ->
    [Fast, Slow] = seed(Config, ["{rand, uniform, []}", "rand:uniform().", "-l", "10M"],
                        ?BASIC ++ ["Rel"], unordered),
    ?assertMatch(#{"Rel" := 100}, Fast),
    ?assert(maps:get("QPS", Fast) >= maps:get("QPS", Slow)),
    %% one rand:uniform() is tens of nanoseconds: below 10 us even on a machine busy with
    %% other test legs, and well above what a wrong unit would show
    ?assert(in(maps:get("Time", Fast), 1, 10000), {Fast, Slow}).

readme_duration_doubles() ->
    [{doc, "README continuous mode: -d 200 doubles the counts of -d 100, not the iteration time"}].
readme_duration_doubles(Config) ->
    [Short] = seed(Config, ["rand:uniform().", "-d", "100", "-s", "20"], ?EXTENDED, ["rand:uniform()."]),
    [Long] = seed(Config, ["rand:uniform().", "-d", "200", "-s", "20"], ?EXTENDED, ["rand:uniform()."]),
    %% twice the iterations per sample, once the speed of each run is taken out (a loaded
    %% machine can run one of the two runs much slower than the other)
    Speed = maps:get("Iteration", Short) / maps:get("Iteration", Long),
    Ratio = maps:get("Avg", Long) / maps:get("Avg", Short) / Speed,
    ?assert(in(Ratio, 1.6, 2.5), {Short, Long}).

readme_timed_compare() ->
    [{doc, "README timed mode: Avg is the time of 10M iterations"}].
readme_timed_compare(Config) ->
    Rows = seed(Config, ["rand:uniform().", "rand:uniform(1000).", "-l", "10M", "-s", "20"],
                ?EXTENDED ++ ["Rel"], unordered),
    [begin
         ?assertMatch(#{"Samples" := 20}, R),
         %% Avg is the time of 10M iterations: 10M times the iteration time
         ?assert(in(maps:get("Avg", R) / (1.0e7 * maps:get("Iteration", R)), 0.8, 1.25), R)
     end || R <- Rows].

%%--------------------------------------------------------------------
%% terminal: colour and progress only on a terminal

terminal_colour_and_progress() ->
    [{doc, "On a terminal: bold header, progress on stderr for a 4 s run"}].
terminal_colour_and_progress(Config) ->
    in_terminal(Config, "", ["timer:sleep(1).", "-s", "4"],
                fun (Out) ->
                    ?assertNotEqual(nomatch, string:find(Out, "\e[1mCode")),
                    ?assertNotEqual(nomatch, string:find(Out, "sample 1/4"))
                end).

colour_option() ->
    [{doc, "--color always: a bold header also through a pipe; --color never: none on a "
           "terminal"}].
colour_option(Config) ->
    %% (not run/2: it checks that a pipe gets no escape sequence)
    Port = open_port({spawn_executable, ?config(escript, Config)},
                     [exit_status, binary, {cd, root()}, {env, [{"NO_COLOR", false}]},
                      {args, ["ok.", "-s", "1", "-d", "100", "--color", "always"]}]),
    {0, Piped} = collect(Port, []),
    ?assertNotEqual(nomatch, binary:match(Piped, <<"\e[1mCode">>), Piped),
    {0, Plain} = run(Config, ["ok.", "-s", "1", "-d", "100"]),
    ?assertEqual(nomatch, string:find(Plain, "\e[1m"), Plain),
    in_terminal(Config, "", ["ok.", "-s", "1", "-d", "100", "--color", "never"],
                fun (Out) ->
                    ?assertEqual(nomatch, string:find(Out, "\e[1m")),
                    ?assertNotEqual(nomatch, string:find(Out, "Code"))
                end).

no_colour() ->
    [{doc, "On a terminal with NO_COLOR set: no colour"}].
no_colour(Config) ->
    in_terminal(Config, "NO_COLOR=1 ", ["timer:sleep(1).", "-s", "1", "-d", "100"],
                fun (Out) ->
                    ?assertEqual(nomatch, string:find(Out, "\e[1m")),
                    ?assertNotEqual(nomatch, string:find(Out, "Code"))
                end).

%%--------------------------------------------------------------------
%% Helpers

root() ->
    erlperf_test_lib:root().

run(Config, Args) ->
    run(Config, Args, []).

%% Runs the escript from the repository root; returns {ExitStatus, Output}. Output must
%% be UTF-8, and never holds a stack trace.
run(Config, Args, Env) ->
    {Status, Bytes} = run_raw(Config, Args, Env),
    Out = unicode:characters_to_list(Bytes),
    ?assert(is_list(Out), {not_utf8, Bytes}),
    no_stack_trace(Bytes),
    {Status, Out}.

%% Exit status, standard output and standard error, apart (each UTF-8 text).
run_split(Config, Args, Env) ->
    Err = filename:join(?config(priv_dir, Config), "stderr." ++ integer_to_list(erlang:unique_integer([positive]))),
    Port = open_port({spawn_executable, "/bin/sh"},
                     [exit_status, binary, {cd, root()},
                      {args, ["-c", "exec \"$0\" \"$@\" 2>\"" ++ Err ++ "\"", ?config(escript, Config)
                              | [argument(A) || A <- Args]]},
                      {env, erlperf_test_lib:escript_env(Env)}]),
    {Status, Out} = collect(Port, []),
    {ok, ErrBytes} = file:read_file(Err),
    ct:log("erlperf ~p ~p~nexit ~b~n--- stdout~n~ts~n--- stderr~n~ts", [Env, Args, Status, printable(Out),
                                                                       printable(ErrBytes)]),
    {Status, unicode:characters_to_list(Out), unicode:characters_to_list(ErrBytes)}.

%% Returns the output as bytes. An argument given as a binary is passed as these bytes;
%% text is passed in UTF-8.
run_raw(Config, Args, Env) ->
    Port = open_port({spawn_executable, ?config(escript, Config)},
                     [exit_status, stderr_to_stdout, binary, {cd, root()},
                      {args, [argument(A) || A <- Args]},
                      {env, erlperf_test_lib:escript_env(Env)}]),
    {Status, Out} = collect(Port, []),
    ct:log("erlperf ~p ~p~n~ts~nexit ~b", [Env, Args, printable(Out), Status]),
    ?assertEqual(nomatch, binary:match(Out, <<"\e[">>), "escape sequence when not a terminal"),
    {Status, Out}.

argument(Bytes) when is_binary(Bytes) -> Bytes;
argument(Text) -> unicode:characters_to_binary(Text).

printable(Bytes) ->
    case unicode:characters_to_list(Bytes) of
        Text when is_list(Text) -> Text;
        _ -> binary_to_list(Bytes)
    end.

no_stack_trace(Bytes) ->
    [?assertEqual(nomatch, binary:match(Bytes, Trace), Bytes)
     || Trace <- [<<"exception">>, <<"in function">>, <<"in call from">>]].

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Data | Acc]);
        {Port, {exit_status, Status}} -> {Status, iolist_to_binary(lists:reverse(Acc))}
    after ?RUN_TIMEOUT_MS ->
        {os_pid, Pid} = erlang:port_info(Port, os_pid),
        _ = os:cmd("kill -9 " ++ integer_to_list(Pid)),
        ct:fail({timeout, lists:reverse(Acc)})
    end.

%% Runs the escript with a pseudo-terminal as stdout and stderr (script(1)), and checks
%% the output with Check.
in_terminal(Config, EnvPrefix, Args, Check) ->
    case os:find_executable("script") of
        false ->
            {skip, "script(1) is not available"};
        Script ->
            Command = EnvPrefix ++ lists:join(" ", [quote(A) || A <- [?config(escript, Config) | Args]]),
            Port = open_port({spawn_executable, Script},
                             [exit_status, stderr_to_stdout, binary,
                              {args, ["-qec", lists:flatten(Command), "/dev/null"]}]),
            {0, Bytes} = collect(Port, []),
            Out = unicode:characters_to_list(Bytes),
            ct:log("~ts", [Out]),
            Check(Out)
    end.

quote(Arg) ->
    "'" ++ lists:flatten(string:replace(Arg, "'", "'\\''", all)) ++ "'".

usage_error(Config, Args, Expected) ->
    usage_error(Config, Args, [], Expected).

usage_error(Config, Args, Env, Expected) ->
    {2, Out} = run(Config, Args, Env),
    ?assertNotEqual(nomatch, string:find(Out, Expected), Out),
    ?assertEqual(1, length(lines(Out)), Out),   % one line
    Out.

failure(Config, Args, Expected) ->
    failure(Config, Args, [], Expected).

failure(Config, Args, Env, Expected) ->
    {1, Out} = run(Config, Args, Env),
    ?assertMatch(["erlperf: " ++ _], lines(Out)),   % one line, no stack trace
    ?assertNotEqual(nomatch, string:find(Out, Expected), Out),
    Out.

%% A verbatim example: exit 0, the header of the README, the rows expected.
seed(Config, Args, Header, Order) ->
    seed(Config, Args, [], Header, Order).

seed(Config, Args, Env, Header, Order) ->
    {0, Out} = run(Config, Args, Env),
    Rows = table(Header, Out),
    case Order of
        unordered -> ok;
        _ -> ?assertEqual(Order, [C || #{"Code" := C} <- Rows])
    end,
    [?assert(Qps > 0, R) || #{"QPS" := Qps} = R <- Rows],
    Rows.

text(Chars) ->
    unicode:characters_to_list(Chars).

lines(Out) ->
    string:split(string:trim(Out, trailing, "\n"), "\n", all).

%% The table's rows, as maps from header column to value. Asserts the exact header
%% (the table is the one whose header starts with the first column's name).
table(Header, Out) ->
    {_, [HeaderLine | Rows]} = lists:splitwith(fun (L) -> not lists:prefix(hd(Header) ++ " ", L) end,
                                               lines(Out)),
    ?assertEqual(Header, string:lexemes(HeaderLine, " "), Out),
    [row(tl(Header), R) || R <- lists:takewhile(fun (L) -> L =/= "" end, Rows),
                           not lists:prefix("Note:", R), not is_verdict(R), not is_forks_line(R),
                           not is_stderr_line(R), not lists:prefix("Measured until decided: ", R),
                           string:find(R, ": highest throughput at concurrency ") =:= nomatch].

%% A line of standard error, which may come among standard output's rows (run/2 reads both
%% as one stream).
is_stderr_line(Line) ->
    lists:prefix("erlperf: ", Line).

%% The line under the table splitting a forked run's noise.
is_forks_line(Line) ->
    string:find(Line, " samples, standard deviation ") =/= nomatch.

%% A sweep's table: as table/2, with the Best column last ("Best" => true on the row
%% marked with "*").
sweep_table(Header, Out) ->
    {_, [HeaderLine | Rows]} = lists:splitwith(fun (L) -> not lists:prefix("Code ", L) end,
                                               lines(Out)),
    ?assertEqual(Header ++ ["Best"], string:lexemes(HeaderLine, " "), Out),
    [begin
         Best = lists:suffix(" *", R),
         Line = case Best of true -> lists:sublist(R, length(R) - 2); false -> R end,
         (row(tl(Header), Line))#{"Best" => Best}
     end || R <- lists:takewhile(fun (L) -> L =/= "" end, Rows),
            not lists:prefix("Note:", R), not is_verdict(R), not is_forks_line(R),
            not is_stderr_line(R)].

%% The rows of a runner's profile section, each [Function | other cells]; asserts the
%% title and the header.
profile_rows(Out, Tool, Label) ->
    Title = "Profile (" ++ Tool ++ ", ",
    Suffix = "runner " ++ Label ++ ")",
    {_, [TitleLine, Header | Rest]} =
        lists:splitwith(fun (L) -> not (lists:prefix(Title, L) andalso lists:suffix(Suffix, L)) end,
                        lines(Out)),
    ?assert(lists:prefix(Title, TitleLine), Out),
    Expected = case Tool of
                   "cprof" -> ["Function", "Calls", "%", "of", "calls"];
                   "tprof" -> ["Function", "Calls", "%", "of", "time", "Per", "call", "Bytes", "per", "call"];
                   _ -> ["Function", "Calls", "%", "of", "time", "Per", "call"]
               end,
    ?assertEqual(Expected, string:lexemes(Header, " "), Out),
    [string:lexemes(R, " ") || R <- lists:takewhile(fun (L) -> L =/= "" end, Rest)].

%% The lines under extended tables: "X against Y: 12.3% slower (95% CI ...)".
is_verdict(Line) ->
    string:find(Line, " against ") =/= nomatch andalso
        (string:find(Line, "% CI ") =/= nomatch orelse string:find(Line, "(too few samples") =/= nomatch
         orelse string:find(Line, "no runner with this label") =/= nomatch).

%% Cells are read from the right (a value with a unit is two tokens); the Code column is
%% the text before them, leading spaces kept.
row(Columns, Line) ->
    {Cells, CodeTokens} = cells(lists:reverse(Columns), lists:reverse(tokens(Line, 1, [])), #{}),
    {LastPos, LastToken} = lists:last(CodeTokens),
    Cells#{"Code" => lists:sublist(Line, LastPos + length(LastToken) - 1)}.

cells([], Tokens, Acc) ->
    {Acc, lists:reverse(Tokens)};
cells([Col | Cols], [{_, Unit}, {_, Number} | Tokens], Acc) when Unit =:= "Ki"; Unit =:= "Mi";
                                                               Unit =:= "Gi"; Unit =:= "Ti";
                                                               Unit =:= "ns"; Unit =:= "us";
                                                               Unit =:= "ms"; Unit =:= "s" ->
    cells(Cols, Tokens, Acc#{Col => number(Number) * multiplier(Unit)});
cells([Col | Cols], [{_, Unit}, {_, Number} | Tokens], Acc) when Unit =:= "B/s"; Unit =:= "KB/s";
                                                               Unit =:= "MB/s"; Unit =:= "GB/s" ->
    cells(Cols, Tokens, Acc#{Col => number(Number) * multiplier(Unit)});
cells([Col | Cols], [{_, Text} | Tokens], Acc) ->
    cells(Cols, Tokens, Acc#{Col => number(string:trim(Text, trailing, "%"))}).

%% Code is what precedes the concurrency column: the tokens left, with their spacing.
tokens([], _Pos, Acc) ->
    lists:reverse(Acc);
tokens([$\s | Rest], Pos, Acc) ->
    tokens(Rest, Pos + 1, Acc);
tokens(Line, Pos, Acc) ->
    {Token, Rest} = lists:splitwith(fun (C) -> C =/= $\s end, Line),
    tokens(Rest, Pos + length(Token), [{Pos, Token} | Acc]).

multiplier("Ki") -> 1000;
multiplier("Mi") -> 1000000;
multiplier("Gi") -> 1000000000;
multiplier("Ti") -> 1000000000000;
multiplier("ns") -> 1;
multiplier("us") -> 1000;
multiplier("ms") -> 1000000;
multiplier("s") -> 1000000000;
multiplier("B/s") -> 1;
multiplier("KB/s") -> 1000;
multiplier("MB/s") -> 1000000;
multiplier("GB/s") -> 1000000000.

number("-") -> undefined;
number(Text) ->
    case string:to_integer(Text) of
        {N, ""} -> N;
        _ ->
            case string:to_float(Text) of
                {F, ""} -> F;
                _ -> Text    % a parameter's value that is not a number
            end
    end.

in(Value, Min, Max) ->
    is_number(Value) andalso Value >= Min andalso Value =< Max.

compile_module(Config, Sub, Module) ->
    Dir = filename:join(?config(priv_dir, Config), Sub),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    compile_module(Config, Sub, Module, Dir).

compile_module(Config, Sub, Module, OutDir) ->
    SrcDir = filename:join(?config(priv_dir, Config), Sub ++ "_src"),
    ok = filelib:ensure_dir(filename:join(SrcDir, "x")),
    Src = filename:join(SrcDir, atom_to_list(Module) ++ ".erl"),
    ok = file:write_file(Src, io_lib:format("-module(~s).~n-export([f/0]).~nf() -> ok.~n", [Module])),
    {ok, Module} = compile:file(Src, [{outdir, OutDir}]),
    OutDir.
