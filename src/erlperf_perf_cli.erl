%%% @doc The command line of performance testing: `erlperf --perf-test FILE [OPTION]...'.
%%% {@link erlperf_cli} hands the arguments over when they hold `--perf-test'; this
%%% module parses them, runs {@link erlperf_perf_test:run/2}, prints progress to standard
%%% error and the summary to standard output, and returns the exit status.
%%%
%%% Exit status: 0 every run succeeded and every requirement passed; 1 a run failed (or
%%% the test could not run: `test_setup/0' failed, results could not be written); 2 a
%%% usage error (bad option, a file that is missing or does not compile, a module that is
%%% not a load generator, a bad baseline); 3 a requirement or baseline check failed.
%%%
%%% Example:
%%% ```
%%% ./erlperf --perf-test examples/httpd_load_gen.erl --out-dir perf --tolerance 5 \
%%%     --baseline perf/httpd-20261122T140000/results.json
%%% '''
-module(erlperf_perf_cli).

%% API: called by erlperf_cli.
-export([run/1]).

-define(HINT, "Try 'erlperf --perf-test FILE' or 'erlperf --help'.").

%%--------------------------------------------------------------------
%% API

%% @doc Runs `--perf-test' arguments (parsed by {@link erlperf_args:parse_perf_test/1});
%% returns the exit status.
-spec run([string()]) -> non_neg_integer().
run(Args) ->
    case erlperf_args:parse_perf_test(Args) of
        {ok, #{help := true}} ->
            io:put_chars(erlperf_args:perf_test_help()),
            erlperf_args:exit_code(success);
        {ok, #{file := File, paths := Paths, options := Options}} ->
            case erlperf_cli_vm:add_paths(Paths) of
                ok -> test(File, Options);
                {error, Reason} -> usage_error(erlperf_cli_vm:format_error(Reason))
            end;
        {error, Reason} ->
            usage_error(erlperf_args:format_error(Reason))
    end.

%%--------------------------------------------------------------------
%% Running

-spec test(string(), map()) -> non_neg_integer().
test(File, Options) ->
    Progress = progress_printer(),
    case erlperf_perf_test:run(load_generator(File), Options#{progress => Progress}) of
        {ok, Record} ->
            io:put_chars(standard_error, "\n"),
            io:put_chars(erlperf_perf_results:summary(Record)),
            report(Record),
            status(Record);
        {error, Reason} ->
            Text = erlperf_perf_test:format_error(Reason),
            io:put_chars(standard_error, ["erlperf: ", Text, "\n"]),
            error_status(Reason)
    end.

%% A file name, else a module name already on the code path.
-spec load_generator(string()) -> module() | string().
load_generator(File) ->
    case filelib:is_regular(File) orelse filename:extension(File) =:= ".erl" of
        true -> File;
        false -> list_to_atom(File)
    end.

%% The HTML report beside results.json (its failure is told, and does not change the
%% exit status: the results are written).
-spec report(map()) -> ok.
report(#{<<"dir">> := Dir}) ->
    case erlperf_render:render(filename:join(Dir, "results.json"), Dir) of
        {ok, [Index | _]} -> io:format("report: ~ts~n", [Index]);
        {error, Reason} -> io:put_chars(standard_error, ["erlperf: report: ", erlperf_render:format_error(Reason), "\n"])
    end;
report(_) ->
    ok.

-spec status(map()) -> non_neg_integer().
status(#{<<"runs">> := Runs, <<"requirements">> := Requirements}) ->
    case {[R || #{<<"status">> := <<"failed">>} = R <- Runs], erlperf_perf_requirements:failed(Requirements)} of
        {[_ | _], _} -> erlperf_args:exit_code(benchmark_failed);
        {[], [_ | _]} -> erlperf_args:exit_code(gate_failed);
        {[], []} -> erlperf_args:exit_code(success)
    end.

-spec error_status(term()) -> non_neg_integer().
error_status(Reason) ->
    erlperf_args:exit_code(outcome(Reason)).

-spec outcome(term()) -> erlperf_args:outcome().
outcome({load_generator, _, _}) -> usage;
outcome({custom_agent, _, _}) -> usage;
outcome({baseline, _, _}) -> usage;
outcome({trace_patterns, _}) -> usage;
outcome(_) -> benchmark_failed.

-spec usage_error(string()) -> non_neg_integer().
usage_error(Text) ->
    io:put_chars(standard_error, ["erlperf: ", Text, "\n", ?HINT, "\n"]),
    erlperf_args:exit_code(usage).

%% Progress on standard error: a line per step; the load's countdown (every second) is
%% one line rewritten in place on a terminal, a line each otherwise.
-spec progress_printer() -> fun((erlperf_perf_test:event()) -> ok).
progress_printer() ->
    Terminal = erlperf_terminal:is_terminal(stderr),
    fun (Event) -> io:put_chars(standard_error, progress_text(Event, Terminal)) end.

-spec progress_text(erlperf_perf_test:event(), boolean()) -> unicode:chardata().
progress_text({test, Name, Label, Sizes}, _) ->
    io_lib:format("test ~ts: ~ts ~w~n", [Name, Label, Sizes]);
progress_text({step, Size, Step}, Terminal) ->
    [clear(Terminal), io_lib:format("size ~b: ~ts~n", [Size, Step])];
progress_text({load, Size, Left}, true) ->
    io_lib:format("\rsize ~b: load runs ~b s more ", [Size, (Left + 999) div 1000]);
progress_text({load, Size, Left}, false) ->
    io_lib:format("size ~b: load runs ~b s more~n", [Size, (Left + 999) div 1000]);
progress_text({run_ended, Size, ok}, Terminal) ->
    [clear(Terminal), io_lib:format("size ~b: done~n", [Size])];
progress_text({run_ended, Size, {failed, Why}}, Terminal) ->
    [clear(Terminal), io_lib:format("size ~b: FAILED: ~ts~n", [Size, Why])];
progress_text({step_failed, Step, Why}, Terminal) ->
    [clear(Terminal), io_lib:format("~ts failed: ~ts~n", [Step, Why])].

-spec clear(boolean()) -> string().
clear(true) -> "\r\e[K";
clear(false) -> "".


