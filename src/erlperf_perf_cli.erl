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
-export([run/1, usage/0, options/0]).

-define(EXIT_OK, 0).
-define(EXIT_FAILED, 1).
-define(EXIT_USAGE, 2).
-define(EXIT_REQUIREMENT, 3).

%% {Key, Names, Argument, Help}
-type option() :: {atom(), [string()], flag | file | dir | files | percent | ms, string()}.

%%--------------------------------------------------------------------
%% API

%% @doc Runs `--perf-test' arguments; returns the exit status.
-spec run([string()]) -> non_neg_integer().
run(Args) ->
    try parse(Args, #{}) of
        #{help := true} ->
            io:put_chars(usage()),
            ?EXIT_OK;
        #{perf_test := File} = Parsed ->
            ok = add_paths(maps:get(paths, Parsed, [])),
            test(File, maps:without([perf_test, paths, help], Parsed));
        #{} ->
            usage_error("--perf-test needs a load generator file")
    catch
        throw:{usage, Text} -> usage_error(Text)
    end.

%% @doc The options, for the help text.
-spec options() -> [option()].
options() ->
    [{perf_test, ["--perf-test"], file,
      "run the performance test of the load generator FILE (.erl, or a module name)"},
     {out_dir, ["--out-dir"], dir, "write results to DIR/<test name>-<timestamp>/"},
     {custom_agents, ["--custom-agents"], files,
      "custom agents to put on the test nodes (a.erl,b.erl)"},
     {baseline, ["--baseline"], file,
      "compare time per call with a results.json of an earlier test (exit 3 when worse)"},
     {tolerance, ["--tolerance"], percent, "how much worse than the baseline still passes"},
     {interval, ["--interval"], ms, "milliseconds between two metrics samples"},
     {compensate, ["--no-compensation"], flag,
      "keep the agents' own cost in call times (the impact benchmark is skipped)"},
     {timeout, ["--timeout"], ms, "milliseconds a load generator callback may take"},
     {paths, ["-pa"], dir, "add DIR to the code path (repeatable)"},
     {help, ["-h", "--help"], flag, "print this help"}].

%% @doc Help text of `--perf-test', defaults from {@link erlperf_perf_test:defaults/0}.
-spec usage() -> iodata().
usage() ->
    Defaults = erlperf_perf_test:defaults(),
    ["\nPerformance testing: erlperf --perf-test FILE [OPTION]...\n"
     "Runs a load generator (behaviour erlperf_load_generator) over its sizes, with tracing\n"
     "agents on the test nodes; see doc/perf-testing.md.\n"
     | [help_line(O, Defaults) || O <- options(), element(1, O) =/= help]]
    ++ ["Exit status: 0 success, 1 a run failed, 2 usage error, 3 a requirement failed.\n"].

%%--------------------------------------------------------------------
%% Parsing

-spec help_line(option(), map()) -> iodata().
help_line({Key, Names, Arg, Help}, Defaults) ->
    Default = case {Arg, maps:find(Key, Defaults)} of
                  {flag, _} -> "";
                  {_, {ok, V}} when V =/= none, V =/= [] -> io_lib:format(" (default: ~0tp)", [V]);
                  _ -> ""
              end,
    io_lib:format("  ~-36ts ~ts~ts~n", [lists:flatten([lists:join(", ", Names), metavar(Arg)]),
                                        Help, Default]).

-spec metavar(atom()) -> string().
metavar(flag) -> "";
metavar(file) -> " FILE";
metavar(dir) -> " DIR";
metavar(files) -> " FILES";
metavar(percent) -> " PCT";
metavar(ms) -> " MS".

-spec parse([string()], map()) -> map().
parse([], Acc) ->
    Acc;
parse([Name | Rest], Acc) ->
    case [O || {_, Names, _, _} = O <- options(), lists:member(Name, Names)] of
        [Option] -> take(Option, Name, Rest, Acc);
        [] -> throw({usage, "unknown option for --perf-test: " ++ Name})
    end.

-spec take(option(), string(), [string()], map()) -> map().
take({Key, _, flag, _}, _Name, Rest, Acc) ->
    parse(Rest, flag(Key, Acc));
take(_Option, Name, [], _Acc) ->
    throw({usage, Name ++ " needs a value"});
take(Option, Name, [Value | More], Acc) ->
    parse(More, value(Option, Name, Value, Acc)).

-spec flag(atom(), map()) -> map().
flag(compensate, Acc) -> Acc#{compensate => false};
flag(Key, Acc) -> Acc#{Key => true}.

-spec value(option(), string(), string(), map()) -> map().
value({paths, _, _, _}, _Name, Dir, Acc) ->
    Acc#{paths => maps:get(paths, Acc, []) ++ [Dir]};
value({custom_agents, _, _, _}, Name, Text, Acc) ->
    case [F || F <- string:lexemes(Text, ","), F =/= ""] of
        [] -> throw({usage, Name ++ " needs at least one file"});
        Files -> Acc#{custom_agents => maps:get(custom_agents, Acc, []) ++ Files}
    end;
value({Key, _, percent, _}, Name, Text, Acc) ->
    case string:to_float(Text) of
        {F, ""} when F >= 0 -> Acc#{Key => F};
        _ ->
            case string:to_integer(Text) of
                {I, ""} when I >= 0 -> Acc#{Key => I};
                _ -> throw({usage, Name ++ " needs a percentage (0 or more), got " ++ Text})
            end
    end;
value({Key, _, ms, _}, Name, Text, Acc) ->
    case string:to_integer(Text) of
        {I, ""} when I > 0 -> Acc#{Key => I};
        _ -> throw({usage, Name ++ " needs a positive number of milliseconds, got " ++ Text})
    end;
value({Key, _, _, _}, _Name, Text, Acc) ->
    Acc#{Key => Text}.

-spec add_paths([string()]) -> ok.
add_paths(Paths) ->
    lists:foreach(fun (Dir) ->
                          case code:add_patha(Dir) of
                              true -> ok;
                              {error, _} -> throw({usage, "-pa: " ++ Dir ++ " is not a directory"})
                          end
                  end, Paths).

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
        {[_ | _], _} -> ?EXIT_FAILED;
        {[], [_ | _]} -> ?EXIT_REQUIREMENT;
        {[], []} -> ?EXIT_OK
    end.

-spec error_status(term()) -> non_neg_integer().
error_status({load_generator, callback, _}) -> ?EXIT_USAGE;
error_status({load_generator, _, _}) -> ?EXIT_USAGE;
error_status({custom_agent, _, _}) -> ?EXIT_USAGE;
error_status({baseline, _, _}) -> ?EXIT_USAGE;
error_status({trace_patterns, _}) -> ?EXIT_USAGE;
error_status(_) -> ?EXIT_FAILED.

-spec usage_error(string()) -> non_neg_integer().
usage_error(Text) ->
    io:put_chars(standard_error, ["erlperf: ", Text, "\nTry 'erlperf --perf-test FILE' or 'erlperf --help'.\n"]),
    ?EXIT_USAGE.

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


