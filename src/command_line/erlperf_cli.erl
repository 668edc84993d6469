%%% @doc The `erlperf' command line: escript main, which runs the benchmark (or hands
%%% over to `--perf-test' and `--render'), prints the table and returns the exit status;
%%% and `format/2', which renders `erlperf:benchmark/3' full reports as that table for
%%% escript-based benchmarks (erlperf 2.3's API).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>argument encoding</b>: arguments are UTF-8 under a UTF-8 locale; an argument
%%%       that is not valid UTF-8 is read as Latin-1 (one character per byte), so its
%%%       bytes reach the compiled code unchanged. Output is UTF-8 under a UTF-8
%%%       locale.</li>
%%%   <li><b>usage error</b>: a mistake in the command line (unknown option, bad value,
%%%       code that does not parse); exit status 2. The grammar, its defaults, help text
%%%       and exit statuses are {@link erlperf_args}'.</li>
%%%   <li><b>benchmark failure</b>: the code crashed or the run failed; exit status 1.</li>
%%%   <li><b>regression gate</b>: with `--fail-on-regression PCT', exit status 3 when a
%%%       runner is significantly slower than a `--baseline' by more than PCT percent.</li>
%%%   <li><b>sweep</b>: with `--param' or `--bytes' the run goes to `erlperf:sweep/3'
%%%       ({@link erlperf_sweep}): once per combination of parameter values.</li>
%%% </ul>
%%%
%%% This module and {@link erlperf_perf_cli} are the only ones that write to stdout and
%%% stderr; only `main/1' and its SIGTERM handler call `erlang:halt/1'. The VM is
%%% prepared (code path, preloaded modules, distribution for `--nodes') by
%%% {@link erlperf_cli_vm}.
%%%
%%% Example (the escript runs `main/1'):
%%% ```
%%% $ ./erlperf 'rand:uniform().' 'crypto:strong_rand_bytes(2).' -s 10
%%% $ ./erlperf --init_runner '1.' 'run(1) -> ok.' 'run(2) -> ok.' --init_runner '2.'
%%% $ ./erlperf 'lists:seq(1, N).' --param N=10,100,1000 --bytes 'N * 8'
%%% '''
%%% Example of `format/2' in an escript (erlperf's `ebin' in the code path):
%%% ```
%%% main(_) ->
%%%     Reports = erlperf:benchmark([#{runner => fun () -> rand:uniform(10) end},
%%%                                  #{runner => {rand, mwc59, [1]}}],
%%%                                 #{report => full}, undefined),
%%%     io:put_chars(erlperf_cli:format(Reports, #{format => extended, viewport_width => 120})).
%%% '''
%%% Cost: the application is started only with `-v'; the progress printer (a linked
%%% process) runs only when stderr is a terminal and the run is expected to be long.
-module(erlperf_cli).

%% API: the escript entry point, the command line without halting (the rebar3 provider),
%% and the table for escript-based benchmarks
-export([main/1, run/1, run/2, format/2]).

-export_type([format_options/0, argument/0, run_options/0]).

-include("model/erlperf_schema.hrl").

%% Show progress when the run is expected to take longer than this (milliseconds).
-define(PROGRESS_AFTER_MS, 3000).
%% Terminal width assumed when stdout is a terminal of unknown width; also the default
%% `viewport_width' of format/2 when io:columns/0 does not know (as in erlperf 2.3).
-define(DEFAULT_TERMINAL_WIDTH, 80).
%% How long to wait for the progress printer to clear its line (milliseconds).
-define(PRINTER_STOP_TIMEOUT, 1000).

%% Options of format/2 (erlperf 2.3's `format_options()'):
%% `format': `basic', `extended' or `full' [basic below 10 samples, else extended];
%% `viewport_width': the width a line may take, the Code column is cut to fit
%% [io:columns/0, or 80 when that fails]; `infinity' cuts nothing.
-type format_options() :: #{format => erlperf_report:format(),
                            viewport_width => pos_integer() | infinity}.
%% A command-line argument as the VM hands it over: OTP decodes arguments with the
%% native file name encoding and, for one that is not valid UTF-8, passes on the error
%% tuple of unicode:characters_to_list/2 (the text before the bad byte, the rest).
-type argument() :: string() | {error | incomplete, string(), binary()}.
-type parsed() :: erlperf_args:parsed().
%% How run/2 runs a command line. `code': turns the text of each runner and hook into
%% what erlperf runs (`mix erlperf' compiles Elixir source this way): `{ok, Callable}',
%% or `{error, Message}' for a usage error naming the role [none: the text is Erlang
%% source]. `format': standard output's format when `--format' is not given, unless an
%% option given cannot go with it (`--history' and `benchee') [text].
-type run_options() :: #{code => fun((erlperf_codegen:role(), string()) ->
                                        {ok, erlperf_job:callable()} | {error, string()}),
                         format => erlperf_output:format()}.

%%--------------------------------------------------------------------
%% API

%% @doc Escript entry point: runs the command line and halts with its exit status.
%% Arguments that are not valid UTF-8 are read as Latin-1 (see the glossary).
-spec main([argument()]) -> no_return().
main(Args) ->
    ok = unicode_output(file:native_name_encoding()),
    ok = erlperf_cli_vm:log_to_stderr(),
    {ok, _} = erlperf_signal:install([sigterm], fun stopped/1),
    erlang:halt(last_resort(fun () -> run([decode_argument(A) || A <- Args]) end)).

%% Anything raised that no step caught (writing a results file, a summary) is an
%% internal error: one line on stderr naming the file with its details, exit status 1.
%% A write to a standard output that has closed meanwhile (the watcher of
%% erlperf_cli_vm had no time to halt) ends as the watcher would: silently, 141.
-spec last_resort(fun(() -> non_neg_integer())) -> non_neg_integer().
last_resort(Run) ->
    try Run()
    catch Class:Reason:Stack ->
        case erlperf_cli_vm:output_closed() of
            true ->
                erlperf_cli_vm:closed_output_status();
            false ->
                Line = erlperf_cli_outcome:format_error(erlperf_cli_outcome:known(Class, Reason, Stack)),
                io:put_chars(standard_error, ["erlperf: ", Line, "\n"]),
                1
        end
    end.

%% SIGTERM: the run ends here, unfinished; everything it made goes with the VM.
-spec stopped(erlperf_signal:signal()) -> no_return().
stopped(Signal) ->
    io:put_chars(standard_error, io_lib:format("erlperf: stopped by ~s before the run finished~n",
                                               [erlperf_signal:name(Signal)])),
    erlang:halt(erlperf_signal:exit_status(Signal)).

%% @doc Formats full reports of `erlperf:benchmark/3' (run option `#{report => full}')
%% as the command line prints them (without colour). `Reports' is the list that
%% benchmark/3 returns; a single report is taken as a list of one. The result is
%% character data: print it with `io:put_chars/1' (or `io:format/1', as erlperf 2.3's
%% example does, when no label contains `~'); labels outside Latin-1 are Unicode
%% code points, so use `unicode:characters_to_binary/1' before writing it to a file.
%% Raises `{invalid_option, Key, Value}' for an unknown option or a bad value, and
%% `{invalid_option, report, Report}' for what is not a full report.
-spec format(Reports, Options) -> unicode:chardata() when
      Reports :: [erlperf:report()] | erlperf:report(),
      Options :: format_options().
format(Report, Options) when is_map(Report) ->
    format([Report], Options);
format(Reports, Options) when is_list(Reports), is_map(Options) ->
    ok = lists:foreach(fun full_report/1, Reports),
    ReportOptions = maps:fold(fun format_option/3, #{colour => false}, Options),
    [erlperf_report:format(Reports, maps:merge(#{width => viewport_width()}, ReportOptions))];
format(Reports, Options) when is_list(Reports) ->
    erlang:error({invalid_option, options, Options});
format(Reports, _Options) ->
    erlang:error({invalid_option, report, Reports}).

%%--------------------------------------------------------------------
%% format/2: options and reports

%% erlperf 2.3's option names mapped to erlperf_report's.
-spec format_option(term(), term(), erlperf_report:options()) -> erlperf_report:options().
format_option(format, Format, Acc) when Format =:= basic; Format =:= extended; Format =:= full ->
    Acc#{format => Format};
format_option(viewport_width, Width, Acc) when is_integer(Width), Width > 0; Width =:= infinity ->
    Acc#{width => Width};
format_option(Key, Value, _Acc) ->
    erlang:error({invalid_option, Key, Value}).

-spec full_report(term()) -> ok.
full_report(#{result := #{}}) -> ok;
full_report(Other) -> erlang:error({invalid_option, report, Other}).

%% format/2's default width: the terminal's, else 80 (erlperf 2.3's documented default).
-spec viewport_width() -> pos_integer().
viewport_width() ->
    case io:columns() of
        {ok, N} -> N;
        {error, _} -> ?DEFAULT_TERMINAL_WIDTH
    end.

%%--------------------------------------------------------------------
%% Argument and output encoding

%% An argument that is not valid UTF-8 arrives as the error tuple of
%% unicode:characters_to_list/2; its bytes are put back together and read as Latin-1,
%% one character per byte (what the VM does for every argument under a Latin-1 locale).
-spec decode_argument(argument()) -> string().
decode_argument({Tag, Valid, Rest}) when Tag =:= error; Tag =:= incomplete ->
    binary_to_list(<<(unicode:characters_to_binary(Valid))/binary, Rest/binary>>);
decode_argument(Arg) when is_list(Arg) ->
    Arg.

%% Under a UTF-8 locale the table and messages are written as UTF-8 (an OTP 25 escript
%% starts with Latin-1 stdout and stderr, which prints "é" as one byte); otherwise the
%% devices are left as they are, so Latin-1 bytes come out as they went in.
-spec unicode_output(utf8 | latin1) -> ok.
unicode_output(utf8) ->
    %% a device that refuses (a closed pipe) keeps its encoding: nothing to do about it
    _ = io:setopts(standard_io, [{encoding, unicode}]),
    _ = io:setopts(standard_error, [{encoding, unicode}]),
    ok;
unicode_output(latin1) ->
    ok.

%%--------------------------------------------------------------------
%% Running

%% @doc Runs a command line (arguments as `main/1' gets them, decoded) in this VM and
%% returns its exit status instead of halting: 0 success, 1 a benchmark failed, 2 a
%% usage error, 3 a regression gate or requirement failed.
-spec run([string()]) -> non_neg_integer().
run(Args) ->
    run(Args, #{}).

%% @doc {@link run/1} with `Options' (see {@link run_options()}): how code text is
%% compiled, and the default format of standard output.
-spec run([string()], run_options()) -> non_neg_integer().
run([], _Options) ->
    io:put_chars(standard_error, erlperf_args:help()),
    erlperf_args:exit_code(usage);
run(Args, Options) ->
    case erlperf_args:command(Args) of
        perf_test -> erlperf_perf_cli:run(Args);
        render -> render_command(Args);
        benchmark -> benchmark_command(Args, Options)
    end.

%% --render FILE [-o OUT]: a saved record as an HTML report, beside it by default.
-spec render_command([string()]) -> non_neg_integer().
render_command(Args) ->
    case erlperf_args:parse_render(Args) of
        {ok, #{file := File, out := Out}} ->
            case erlperf_render:render(File, Out) of
                {ok, [Main | _]} ->
                    io:format("report: ~ts~n", [Main]),
                    erlperf_args:exit_code(success);
                {error, Reason} ->
                    erlperf_cli_outcome:fail(Reason)
            end;
        {error, Reason} ->
            erlperf_cli_outcome:fail({args, Reason})
    end.

-spec benchmark_command([string()], run_options()) -> non_neg_integer().
benchmark_command(Args, Options) ->
    %% the front end's format of standard output, unless --format is given (or another
    %% option cannot go with it: `mix erlperf --history' writes the text summary)
    case erlperf_args:parse(Args, maps:with([format], Options)) of
        {ok, #{help := true}} ->
            io:put_chars(erlperf_args:help()),
            erlperf_args:exit_code(success);
        {ok, #{help := version}} ->
            io:format("erlperf ~ts (Erlang/OTP ~ts, ERTS ~ts)~n",
                      [erlperf_args:version(), erlang:system_info(otp_release),
                       erlang:system_info(version)]),
            erlperf_args:exit_code(success);
        {ok, Parsed} ->
            case compiled(Parsed, Options) of
                {ok, Compiled} -> execute(Compiled);
                {error, Message} -> erlperf_cli_outcome:fail({usage, Message})
            end;
        {error, Reason} ->
            erlperf_cli_outcome:fail({args, Reason})
    end.

%% The code maps' text through the `code' option: labelled with the runner's text.
-spec compiled(parsed(), run_options()) -> {ok, parsed()} | {error, string()}.
compiled(#{codes := Codes, inputs := Inputs} = Parsed, Options) ->
    Compile = maps:get(code, Options, none),
    try
        Compiled = case Compile of
                       none -> Codes;
                       _ -> [compile_code(C, Compile) || C <- Codes]
                   end,
        Inputs =/= [] andalso lists:any(fun (C) -> is_map_key(init_runner, C) end, Codes)
            andalso throw({code, "--input gives each runner its argument: it cannot go with --init_runner"}),
        {ok, Parsed#{codes := Compiled, inputs := [input(I, Compile) || I <- Inputs]}}
    catch
        throw:{code, Message} -> {error, Message}
    end.

%% --input NAME=CODE: the value of CODE, evaluated here once (Erlang source, or through
%% the `code' option: a fun of no argument to call).
input({Name, Text}, Compile) ->
    Result = try input_value(Text, Compile)
             catch Class:Reason -> {error, io_lib:format("~s:~0tP", [Class, Reason, 10])}
             end,
    case Result of
        {ok, Value} -> {Name, Value};
        {error, Message} -> throw({code, io_lib:format("--input ~ts: ~ts", [Name, Message])})
    end.

input_value(Text, none) ->
    case erl_scan:string(Text) of
        {ok, Tokens, End} ->
            Dotted = case lists:last(Tokens) of {dot, _} -> Tokens; _ -> Tokens ++ [{dot, End}] end,
            case erl_parse:parse_exprs(Dotted) of
                {ok, Exprs} ->
                    {value, Value, _} = erl_eval:exprs(Exprs, erl_eval:new_bindings()),
                    {ok, Value};
                {error, {_, Mod, Desc}} ->
                    {error, Mod:format_error(Desc)}
            end;
        {error, {_, Mod, Desc}, _} ->
            {error, Mod:format_error(Desc)}
    end;
input_value(Text, Compile) ->
    case Compile(init_runner, Text) of
        {ok, Fun} when is_function(Fun, 0) -> {ok, Fun()};
        {ok, _Other} -> {error, "is not a value"};
        {error, Message} -> {error, Message}
    end.

compile_code(#{runner := Runner} = Code, Compile) ->
    Labelled = maps:merge(#{label => Runner}, Code),
    maps:map(fun (Role, Text) when Role =:= runner; Role =:= init; Role =:= init_runner; Role =:= done ->
                     case is_list(Text) andalso Compile(Role, Text) of
                         false -> Text;
                         {ok, Callable} -> Callable;
                         {error, Message} -> throw({code, io_lib:format("~s ~ts: ~ts", [Role, Text, Message])})
                     end;
                 (_Key, Value) ->
                     Value
             end, Labelled).

-spec execute(parsed()) -> non_neg_integer().
execute(#{paths := Paths} = Parsed) ->
    ok = erlperf_cli_vm:compile_cache(),
    ok = erlperf_cli_vm:preload(),
    case erlperf_cli_vm:add_paths(Paths) of
        ok ->
            project(Parsed);
        {error, Reason} ->
            erlperf_cli_outcome:fail(Reason)
    end.

%% --suite (then --history, when asked) and --history go to erlperf_suite_cli.
-spec project(parsed()) -> non_neg_integer().
project(#{suites := [_ | _], history := History} = Parsed) ->
    case erlperf_suite_cli:run(Parsed) of
        0 when History -> erlperf_suite_cli:history(Parsed#{outputs := [], format := text});
        Status -> Status
    end;
project(#{history := true} = Parsed) ->
    erlperf_suite_cli:history(Parsed);
project(Parsed) ->
    case load_baselines(Parsed) of
        {ok, WithBaselines} -> distributed(WithBaselines);
        {error, Reason} -> erlperf_cli_outcome:fail({usage, erlperf_baseline:format_error(Reason)})
    end.

%% Baselines are read before anything runs: a missing or broken one is a usage error.
-spec load_baselines(parsed()) -> {ok, parsed()} | {error, term()}.
load_baselines(#{baselines := Files} = Parsed) ->
    Loaded = [{F, erlperf_baseline:load(F)} || F <- Files],
    case [E || {_, {error, _} = E} <- Loaded] of
        [] -> {ok, Parsed#{baselines := [{F, Record} || {F, {ok, Record}} <- Loaded]}};
        [{error, Reason} | _] -> {error, Reason}
    end.

%% --nodes: this VM becomes a hidden client node first.
-spec distributed(parsed()) -> non_neg_integer().
distributed(#{run_options := Run} = Parsed) ->
    case erlperf_cli_vm:distribution(maps:get(nodes, Run, [])) of
        ok -> benchmark(Parsed);
        {error, Reason} -> erlperf_cli_outcome:fail(Reason)
    end.

%% A run compared with a baseline, or saved as a record (a baseline to be), gets verdicts
%% as codes compared with each other do (the facade forks it and takes exact counts).
-spec verdicts(parsed(), map()) -> map().
verdicts(#{baselines := Baselines, outputs := Outputs}, Run) ->
    Run#{verdicts => Baselines =/= [] orelse lists:keymember(json, 2, Outputs)}.

-spec benchmark(parsed()) -> non_neg_integer().
benchmark(#{codes := Codes, run_options := Run, concurrency_options := Conc} = Parsed) ->
    Progress = start_progress(Parsed),
    Run1 = maps:merge(erlperf_args:run_defaults(), (verdicts(Parsed, Run))#{report => full}),
    Options = maps:merge(Run1, progress_option(Progress)),
    %% any class: a load node may raise exit or throw, which must not end as a stack dump
    verbose(Parsed),
    Outcome = measured(Codes, Options, Conc, Parsed),
    stop_progress(Progress),
    case Outcome of
        {crashed, Crashes, Reports} ->
            _ = [erlperf_cli_outcome:fail(Crash) || Crash <- Crashes],
            max(erlperf_args:exit_code(benchmark_failed), shown(Reports, Parsed));
        {error, Why} ->
            erlperf_cli_outcome:fail(Why);
        {ok, Reports} ->
            shown(Reports, Parsed)
    end.

%% The reports, or the error; a runner that crashes is named, and when it was among
%% several the others run again without it.
-spec measured([erlperf_job:code_map()], map(), map() | undefined, parsed()) ->
          {ok, [map()]} | {crashed, [term()], [map()]} | {error, term()}.
measured(Codes, Options, Conc, Parsed) ->
    %% any class: a load node may raise exit or throw, which must not end as a stack dump
    try
        {ok, measure(Codes, Options, Conc, Parsed)}
    catch
        error:{crashed, {_Role, _Label}, _} = Crash ->
            without(Crash, Codes, Options, Conc, Parsed);
        error:{crashed, Role, Detail} when is_atom(Role), length(Codes) =:= 1 ->
            %% the one runner's crash names it too, as one among several does
            {error, {crashed, {Role, erlperf_codegen:label(hd(Codes))}, Detail}};
        error:{call_not_returned, _What, _Label, _WaitMs} = Unfinished ->
            without(Unfinished, Codes, Options, Conc, Parsed);
        Class:Reason:Stack ->
            {error, erlperf_cli_outcome:known(Class, Reason, Stack)}
    end.

%% The others measured again without the runner that failed.
without(Failure, Codes, Options, Conc, Parsed) ->
    Label = failed_label(Failure),
    case [C || C <- Codes, erlperf_codegen:label(C) =/= Label] of
        [] ->
            {error, Failure};
        Others ->
            case measured(Others, Options, Conc, Parsed) of
                {ok, Reports} -> {crashed, [Failure], Reports};
                {crashed, More, Reports} -> {crashed, [Failure | More], Reports};
                {error, Why} ->
                    %% the others failed too: the first failure said before theirs
                    _ = erlperf_cli_outcome:fail(Failure),
                    {error, Why}
            end
    end.

%% A run none of whose calls returned (nor any timed one by one after it, `latency'): at
%% a rate, calls started and none completed; else every sample 0 and one or more ended
%% with a call in progress far longer than expected.
stuck(#{latency := #{calls := Calls}}) when Calls > 0 -> false;   % timed after the run
stuck(#{rate := #{completed := 0, unfinished := Unfinished}}) -> Unfinished > 0;
stuck(#{rate := #{}}) -> false;
stuck(#{values := Values, overdue := Overdue}) -> Overdue > 0 andalso lists:sum(Values) == 0;
stuck(#{}) -> false.

%% The runner a failure names: one that crashed among several, one whose call did not
%% return after the run.
failed_label({crashed, {_Role, Label}, _Detail}) -> Label;
failed_label({call_not_returned, _What, Label, _WaitMs}) -> Label.

%% The results printed and written; the exit status of the gate.
-spec shown([map()], parsed()) -> non_neg_integer().
shown(Reports, Parsed) ->
    %% one record for every output, the baselines' comparisons in it
    Record = erlperf_record:from_reports(Reports),
    Rows = baseline_rows(Parsed, Record),
    Results = {erlperf_record:with_baselines(Record, Rows), Rows},
    print_results(Parsed, Results),
    warn_cv(maps:get(?RUNS, element(1, Results))),
    %% a runner none of whose calls returned in the run (a sample or more ended with one
    %% in progress far longer than expected): nothing was measured
    Stuck = [erlperf_cli_outcome:fail({stuck, Label, length(Values)})
             || #{label := Label, result := #{values := Values} = Result} <- Reports,
                stuck(Result)],
    case erlperf_cli_outcome:write_outputs(Parsed, Results) of
        ok -> lists:max([erlperf_cli_outcome:gate(Parsed, Rows) | Stuck]);
        {error, Why} -> erlperf_cli_outcome:fail(Why)
    end.

%% A sweep with --param or --bytes, a benchmark per --input, else one benchmark.
-spec measure([erlperf_job:code_map()], map(), map() | undefined, parsed()) -> [map()].
measure(Codes, Options, Conc, #{params := [], bytes := undefined, inputs := [_ | _] = Inputs}) ->
    lists:append([[R#{params => [{input, Name}]}
                   || R <- erlperf:benchmark([with_input(C, Value) || C <- Codes], Options, Conc)]
                  || {Name, Value} <- Inputs]);
measure(Codes, Options, Conc, #{params := [], bytes := undefined}) ->
    erlperf:benchmark(Codes, Options, Conc);
measure(Codes, Options, Conc, #{params := Params, bytes := Bytes}) ->
    erlperf:sweep(Codes, Options#{params => Params, bytes => Bytes}, Conc).

%% The input as every runner's init_runner result: `erlang:hd([Value])', a call whose
%% literal argument the generated code holds (a fun returning it, when it cannot be a
%% literal).
with_input(Code, Value) ->
    Code#{init_runner => {erlang, hd, [[Value]]}}.

-spec print_results(map(), {erlperf_record:results(), [erlperf_baseline:row()]}) -> ok.
print_results(#{report := Report, format := Format} = Parsed, {Record, Rows}) ->
    Options = #{format => Report, width => terminal_width(), colour => colour(Parsed, stdout),
                baselines => Rows},
    io:put_chars(erlperf_output:render(Format, Record, Options)).

%% --cv whose goal a run did not meet: said on stderr (the record holds `cv_met').
-spec warn_cv([map()]) -> ok.
warn_cv(Runs) ->
    _ = [io:put_chars(standard_error,
                      io_lib:format("erlperf: warning: ~ts did not reach --cv ~s before the cap "
                                    "on samples (the last ~b samples vary by ~s)~n",
                                    [erlperf_name:text(Label), erlperf_units:setting(Goal),
                                     length(Values),
                                     erlperf_units:percent(100 * erlperf_stat:cv(Values))]))
         || #{<<"cv_met">> := false, <<"cv_goal">> := Goal, ?LABEL := Label,
              ?SAMPLES := Values} <- Runs],
    ok.

-spec baseline_rows(parsed(), erlperf_record:results()) -> [erlperf_baseline:row()].
baseline_rows(#{baselines := []}, _Record) ->
    [];
baseline_rows(#{baselines := Baselines} = Parsed, Record) ->
    Rows = erlperf_baseline:compare(Baselines, Record, erlperf_cli_outcome:compare_options(Parsed)),
    ok = erlperf_cli_outcome:interference_note(Record, Rows),
    Rows.

%% -v: start the application, show the generated code (of every combination of a
%% sweep), log the VM every second.
-spec verbose(parsed()) -> ok.
verbose(#{verbose := false}) ->
    ok;
verbose(#{verbose := true, codes := Codes, params := Params}) ->
    {ok, _} = application:ensure_all_started(erlperf),
    [io:put_chars([erlperf_job:source(Code), "\n"]) || Code <- erlperf_sweep:bound_codes(Codes, Params)],
    {ok, _Logger} = erlperf_file_log:start_link(),
    ok.

%%--------------------------------------------------------------------
%% Terminal: progress, colour, width

-spec start_progress(parsed()) -> {pid(), #{progress := fun((term()) -> any())}} | none.
start_progress(Parsed) ->
    case long_run(Parsed) andalso erlperf_terminal:is_terminal(stderr) of
        true ->
            Timed = is_tuple(maps:get(sample_duration, maps:get(run_options, Parsed), 0)),
            Printer = spawn_link(fun () -> printer(Timed, "") end),
            {Printer, #{progress => fun (Event) -> Printer ! {progress, Event} end}};
        false ->
            none
    end.

-spec progress_option({pid(), map()} | none) -> map().
progress_option({_Printer, Option}) -> Option;
progress_option(none) -> #{}.

%% Waits until the printer has cleared its line, so the table starts on a clean line.
-spec stop_progress({pid(), map()} | none) -> ok.
stop_progress({Printer, _Option}) ->
    Ref = monitor(process, Printer),
    Printer ! stop,
    receive {'DOWN', Ref, process, Printer, _} -> ok
    after ?PRINTER_STOP_TIMEOUT -> ok
    end;
stop_progress(none) ->
    ok.

-spec long_run(parsed()) -> boolean().
long_run(#{concurrency_options := Conc}) when Conc =/= undefined ->
    true;
long_run(#{run_options := #{cv := _}}) ->
    true;
long_run(#{run_options := #{sample_duration := {timed, _}}}) ->
    true;
long_run(#{codes := Codes, run_options := Run, params := Params}) ->
    #{samples := Samples, warmup := Warmup, sample_duration := Duration} =
        maps:merge(erlperf_args:defaults(), Run),
    Combinations = lists:foldl(fun ({_, Values}, Acc) -> Acc * length(Values) end, 1, Params),
    Runs = length(Codes) * Combinations,
    (Samples + Warmup) * Duration * Runs > ?PROGRESS_AFTER_MS.

%% A forked run's events say which fork they are of.
-spec printer(boolean(), iodata()) -> ok.
printer(Timed, Fork) ->
    receive
        {progress, {fork, I, N}} ->
            Prefix = io_lib:format("fork ~b/~b, ", [I, N]),
            io:put_chars(standard_error, ["\r\e[K", Prefix, "starting"]),
            printer(Timed, Prefix);
        {progress, Event} ->
            io:put_chars(standard_error, ["\r\e[K", Fork, progress_text(Event, Timed)]),
            printer(Timed, Fork);
        stop ->
            io:put_chars(standard_error, "\r\e[K")
    end.

-spec progress_text(term(), boolean()) -> iodata().
progress_text({warmup, I, N}, _Timed) ->
    io_lib:format("warmup ~b/~b", [I, N]);
progress_text({sample, I, N, Average}, true) ->
    io_lib:format("sample ~b/~b, average ~s", [I, N, erlperf_units:time(Average * 1000)]);
progress_text({sample, I, N, Average}, false) ->
    io_lib:format("sample ~b/~b, average ~s", [I, N, erlperf_units:count(Average)]);
progress_text({concurrency, C}, _Timed) ->
    io_lib:format("trying concurrency ~b", [C]);
progress_text(Other, _Timed) ->
    io_lib:format("~0tp", [Other]).

%% Colour as --color says; auto: on a terminal only, never with NO_COLOR set
%% (https://no-color.org) or TERM=dumb.
-spec colour(parsed(), stdout | stderr) -> boolean().
colour(#{colour := always}, _Stream) -> true;
colour(#{colour := never}, _Stream) -> false;
colour(#{colour := auto}, Stream) ->
    os:getenv("NO_COLOR", "") =:= "" andalso os:getenv("TERM") =/= "dumb"
        andalso erlperf_terminal:is_terminal(Stream).

-spec terminal_width() -> pos_integer() | infinity.
terminal_width() ->
    case erlperf_args:count(os:getenv("COLUMNS", "")) of
        N when is_integer(N), N > 0 -> N;
        _ -> io_width()
    end.

-spec io_width() -> pos_integer() | infinity.
io_width() ->
    case io:columns() of
        {ok, N} -> N;
        {error, _} ->
            case erlperf_terminal:is_terminal(stdout) of
                true -> ?DEFAULT_TERMINAL_WIDTH;
                false -> infinity
            end
    end.
