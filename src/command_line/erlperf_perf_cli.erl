%%% @doc The command line of performance testing: `erlperf --perf-test FILE [OPTION]...'.
%%% {@link erlperf_cli} hands the arguments over when they hold `--perf-test'; this
%%% module parses them, runs {@link erlperf_perf_test:run/2}, prints progress to standard
%%% error and the summary to standard output, and returns the exit status.
%%%
%%% Exit status: 0 every run succeeded and every requirement passed; 1 a run failed (or
%%% the test could not run: `test_setup/0' failed, results could not be written); 2 a
%%% usage error (bad option, a file that is missing or does not compile, a module that is
%%% not a load generator, a bad baseline); 3 a requirement or baseline check failed;
%%% 143 stopped by SIGTERM (128 + the signal's number).
%%%
%%% Standard output holds the summary only; progress, the one line of a usage error or of
%%% a failure, and any report of the VM's logger go to standard error. The test runs in a
%%% process of its own (the <b>runner</b>) while this one waits for it or for SIGTERM
%%% ({@link erlperf_signal}): SIGTERM aborts the test ({@link erlperf_perf_test:abort/2}:
%%% agents removed, teardown callbacks run, test nodes stopped), and a runner that is not
%%% done within `?STOP_TIMEOUT_MS', or a second signal, is killed (its test nodes go with
%%% it). SIGINT cannot be handled by Erlang: the VM exits at once with status 130, and the
%%% test nodes halt as their control connection closes.
%%%
%%% Example:
%%% ```
%%% ./erlperf --perf-test examples/httpd_load_gen.erl --out-dir perf --tolerance 5 \
%%%     --baseline perf/httpd-20261122T140000/results.json
%%% '''
-module(erlperf_perf_cli).

%% API: called by erlperf_cli.
-export([run/1]).

-include("model/erlperf_schema.hrl").

%% Longest wait for an aborted test to clean up before its runner is killed.
-define(STOP_TIMEOUT_MS, 20000).
%% Signals that stop a test.
-define(SIGNALS, [sigterm, sigint]).

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
                ok -> with_signals(fun () -> test(File, Options) end);
                {error, Reason} -> erlperf_cli_outcome:fail(Reason)
            end;
        {error, Reason} ->
            erlperf_cli_outcome:fail({usage, erlperf_args:format_error(Reason)})
    end.

%%--------------------------------------------------------------------
%% Running

%% The VM's reports go to standard error, and SIGTERM to this process, while Fun runs.
-spec with_signals(fun(() -> non_neg_integer())) -> non_neg_integer().
with_signals(Fun) ->
    ok = erlperf_cli_vm:log_to_stderr(),
    Self = self(),
    {ok, _Handled} = erlperf_signal:install(?SIGNALS, fun (S) -> Self ! {?MODULE, signal, S} end),
    try Fun()
    after erlperf_signal:uninstall()
    end.

-spec test(string(), map()) -> non_neg_integer().
test(File, Options) ->
    Self = self(),
    Progress = progress_printer(),
    Run = fun () -> Self ! {?MODULE, self(), runner(File, Options#{progress => Progress})} end,
    {Runner, Ref} = spawn_monitor(Run),
    receive
        {?MODULE, Runner, Result} ->
            demonitor(Ref, [flush]),
            outcome(Result);
        {?MODULE, signal, Signal} ->
            stop(Runner, Ref, Signal);
        {'DOWN', Ref, process, Runner, Reason} ->
            erlperf_cli_outcome:fail({failed, io_lib:format("the test's process exited: ~0tp", [Reason])})
    end.

%% The runner: what the load generator's callbacks print, the processes they start
%% (test nodes' control processes, which relay what the test nodes print) and their
%% reports go to standard error, as the runner's group leader is standard error.
-spec runner(string(), erlperf_perf_test:options()) -> {ok, map()} | {error, term()}.
runner(File, Options) ->
    true = group_leader(whereis(standard_error), self()),
    erlperf_perf_test:run(File, Options).

-spec outcome({ok, map()} | {error, term()}) -> non_neg_integer().
outcome({ok, Record}) ->
    io:put_chars(standard_error, "\n"),
    io:put_chars(erlperf_perf_results:summary(Record)),
    _ = [io:format("report: ~ts~n", [Index]) || #{<<"report">> := Index} <- [Record]],
    status(Record);
outcome({error, Reason}) ->
    erlperf_cli_outcome:fail({perf_test, Reason}).

%% Aborts the test, waits for it to clean up (at most ?STOP_TIMEOUT_MS, or until another
%% signal), and tells which signal stopped it.
-spec stop(pid(), reference(), erlperf_signal:signal()) -> non_neg_integer().
stop(Runner, Ref, Signal) ->
    ok = erlperf_perf_test:abort(Runner, Signal),
    receive
        {?MODULE, Runner, _Result} -> true = demonitor(Ref, [flush]), ok;
        {'DOWN', Ref, process, Runner, _} -> ok;
        {?MODULE, signal, _Again} -> kill(Runner, Ref)
    after ?STOP_TIMEOUT_MS ->
            kill(Runner, Ref)
    end,
    io:put_chars(standard_error, ["erlperf: stopped by ", erlperf_signal:name(Signal), "\n"]),
    erlperf_signal:exit_status(Signal).

-spec kill(pid(), reference()) -> ok.
kill(Runner, Ref) ->
    exit(Runner, kill),
    receive {'DOWN', Ref, process, Runner, _} -> ok end.

%% 1 with a line saying how many runs failed, 3 when a requirement failed, else 0.
-spec status(map()) -> non_neg_integer().
status(#{?RUNS := Runs, ?REQUIREMENTS := Requirements}) ->
    case {[R || #{?STATUS := <<"failed">>} = R <- Runs], erlperf_perf_requirements:failed(Requirements)} of
        {[_ | _] = Failed, _} ->
            erlperf_cli_outcome:fail({failed, io_lib:format("~b of ~b runs failed",
                                                            [length(Failed), length(Runs)])});
        {[], [_ | _]} -> erlperf_args:exit_code(gate_failed);
        {[], []} -> erlperf_args:exit_code(success)
    end.

%% Progress on standard error: a line per step; the load's countdown (every second) is
%% one line rewritten in place on a terminal, a line each otherwise.
-spec progress_printer() -> fun((erlperf_perf_test:event()) -> ok).
progress_printer() ->
    Terminal = erlperf_terminal:is_terminal(stderr),
    fun (Event) -> io:put_chars(standard_error, progress_text(Event, Terminal)) end.

%% Names and failure reasons from the test's modules are written as every output writes
%% names (erlperf_name): one line, never one that begins with `::'.
-spec progress_text(erlperf_perf_test:event(), boolean()) -> unicode:chardata().
progress_text({test, Name, Label, Sizes}, _) ->
    io_lib:format("test ~ts: ~ts ~w~n", [erlperf_name:text(Name), erlperf_name:text(Label), Sizes]);
progress_text({step, Size, Step}, Terminal) ->
    [clear(Terminal), io_lib:format("size ~b: ~ts~n", [Size, Step])];
progress_text({load, Size, Left}, true) ->
    io_lib:format("\rsize ~b: load runs ~b s more ", [Size, (Left + 999) div 1000]);
progress_text({load, Size, Left}, false) ->
    io_lib:format("size ~b: load runs ~b s more~n", [Size, (Left + 999) div 1000]);
progress_text({run_ended, Size, ok}, Terminal) ->
    [clear(Terminal), io_lib:format("size ~b: done~n", [Size])];
progress_text({run_ended, Size, {failed, Why}}, Terminal) ->
    [clear(Terminal), io_lib:format("size ~b: FAILED: ~ts~n", [Size, erlperf_name:text(Why)])];
progress_text({step_failed, Step, Why}, Terminal) ->
    [clear(Terminal), io_lib:format("~ts failed: ~ts~n", [Step, erlperf_name:text(Why)])].

-spec clear(boolean()) -> string().
clear(true) -> "\r\e[K";
clear(false) -> "".


