%%% @doc The `erlperf' command line: parses arguments, runs the benchmark, prints the table;
%%% and `format/2', which renders `erlperf:benchmark/3' full reports as that table for
%%% escript-based benchmarks.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>runner argument</b>: a positional argument; source text (usually ending in
%%%       `.') or a literal `{M, F, A}' tuple.</li>
%%%   <li><b>hook</b>: a per-runner option, `--init', `--done', `--init_runner' or
%%%       `--label'. Hooks of one kind are read in the same order as runner arguments,
%%%       as in erlperf 2.3: the k-th `--init_runner' belongs to the k-th runner, wherever
%%%       either stands on the command line. A runner without a hook of its kind gets the
%%%       `--init_all', `--done_all' or `--init_runner_all' default, if given. More hooks
%%%       of a kind than runners is a usage error.</li>
%%%   <li><b>argument encoding</b>: arguments are UTF-8 under a UTF-8 locale; an argument
%%%       that is not valid UTF-8 is read as Latin-1 (one character per byte), so its
%%%       bytes reach the compiled code unchanged. Output is UTF-8 under a UTF-8
%%%       locale.</li>
%%%   <li><b>usage error</b>: a mistake in the command line (unknown option, bad value,
%%%       code that does not parse); exit status 2.</li>
%%%   <li><b>benchmark failure</b>: the code crashed or the run failed; exit status 1.</li>
%%%   <li><b>sweep</b>: with `--param' or `--bytes' the run goes to `erlperf:sweep/3'
%%%       ({@link erlperf_sweep}): once per combination of parameter values.</li>
%%% </ul>
%%%
%%% This is the only module that writes to stdout and stderr and calls `erlang:halt/1'.
%%% Every default lives in `defaults/0'; the help text is generated from it and from
%%% `options/0'.
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

%% API: the escript entry point, and the table for escript-based benchmarks
-export([main/1, format/2]).

%% Internal exports: pure parsing, help text and error text, for tools wrapping the CLI
-export([parse/1, usage/0, defaults/0, format_error/1]).

-export_type([parsed/0, format_options/0, argument/0]).

%% Modules the compiler's passes load for a runner (OTP 25-28; missing ones are skipped).
-define(COMPILER_MODULES,
        [compile, v3_core, sys_core_fold, sys_core_alias, sys_core_bsm, core_lib, cerl,
         cerl_clauses, cerl_trees, v3_kernel, beam_kernel_to_ssa, beam_core_to_ssa, beam_ssa,
         beam_ssa_opt, beam_ssa_type, beam_ssa_bool, beam_ssa_bsm, beam_ssa_bc_size,
         beam_ssa_dead, beam_ssa_recv, beam_ssa_share, beam_ssa_throw, beam_ssa_pre_codegen,
         beam_ssa_codegen, beam_ssa_alias, beam_ssa_ss, beam_ssa_destructive_update,
         beam_call_types, beam_types, beam_digraph, beam_a, beam_block, beam_jump, beam_clean,
         beam_trim, beam_flatten, beam_z, beam_validator, beam_asm, beam_dict, beam_opcodes,
         beam_utils, erl_bifs]).
-define(STDLIB_MODULES, [erl_expand_records, sets, sofs, digraph, digraph_utils, erl_scan, erl_parse,
                         erl_lint, erl_anno, erl_internal, otp_internal, orddict, ordsets,
                         io_lib_format]).
%% erlperf's own modules that every benchmark run needs.
-define(ENGINE_MODULES, [erlperf, erlperf_local, erlperf_sampler, erlperf_job, erlperf_codegen,
                         erlperf_comparison,
                         erlperf_report, erlperf_stat, erlperf_system]).

%% Exit statuses.
-define(EXIT_OK, 0).
-define(EXIT_FAILED, 1).
-define(EXIT_USAGE, 2).
-define(EXIT_REGRESSION, 3).
%% Show progress when the run is expected to take longer than this (milliseconds).
-define(PROGRESS_AFTER_MS, 3000).
%% Terminal width assumed when stdout is a terminal of unknown width; also the default
%% `viewport_width' of format/2 when io:columns/0 does not know (as in erlperf 2.3).
-define(DEFAULT_TERMINAL_WIDTH, 80).
%% How long to wait for the progress printer to clear its line (milliseconds).
-define(PRINTER_STOP_TIMEOUT, 1000).

-define(HINT, "Run 'erlperf --help' for usage.").

%% How an option's value is read.
-type arg() :: flag | count | non_neg_count | report | compare | ratio | percent | code | text | dir
             | nodes | output_format | file | out_file | gate | param | bytes | profiler.
%% Where the value goes: run options, concurrency options, CLI settings, the last
%% runner's code map, or every runner's code map (as a default).
-type target() :: run | concurrency | cli | runner | all_runners.
-type option() :: {Key :: atom(), Names :: [string()], arg(), target(), Help :: string()}.

-type code() :: erlperf_job:callable().
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
-type parsed() :: #{codes := [erlperf_job:code_map()],
                    run_options := map(),
                    concurrency_options := map() | undefined,
                    report := erlperf_report:format() | auto,
                    format := erlperf_output:format(),
                    outputs := [{file:filename(), erlperf_output:format()}],
                    %% file names, then (once read) the records
                    baselines := [file:filename()] | [{file:filename(), erlperf_record:results()}],
                    gate := float() | none,
                    params := erlperf_sweep:params(),
                    bytes := string() | undefined,
                    verbose := boolean(),
                    paths := [string()],
                    help := boolean()}.

%%--------------------------------------------------------------------
%% API

%% @doc Escript entry point: runs the command line and halts with its exit status.
%% Arguments that are not valid UTF-8 are read as Latin-1 (see the glossary).
-spec main([argument()]) -> no_return().
main(Args) ->
    ok = unicode_output(file:native_name_encoding()),
    erlang:halt(run([decode_argument(A) || A <- Args])).

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

%% @doc Default value of every option that has one; the help text shows these. The run
%% and concurrency defaults are the engine's own (`erlperf:defaults/0'), so the two never
%% disagree; the rest are the command line's.
-spec defaults() -> #{atom() => term()}.
defaults() ->
    Engine = lists:foldl(fun maps:merge/2, erlperf:defaults(),
                         [erlperf:concurrency_defaults(), erlperf:sweep_defaults()]),
    maps:merge(Engine, #{report => auto, format => text, verbose => false, isolation => false,
                         squeeze => false, help => false}).

%% @doc Parses the command line into code maps and options.
-spec parse([string()]) -> {ok, parsed()} | {error, {usage, string()}}.
parse(Args) ->
    try
        {ok, finish(parse_args(Args, #{codes => [], hooks => #{}, given => #{}, all => #{}}))}
    catch
        throw:{usage, Fmt, FmtArgs} ->
            {error, {usage, lists:flatten(io_lib:format(Fmt, FmtArgs))}}
    end.

%% @doc Help text, generated from `options/0' and `defaults/0'.
-spec usage() -> iodata().
usage() ->
    ["Usage: erlperf [OPTION]... CODE [PER-RUNNER OPTION]... [CODE [PER-RUNNER OPTION]...]...\n"
     "Benchmarks Erlang code. CODE is source text ending in '.' or an {M, F, A} tuple.\n"
     "Per-runner options are read in the order of the CODEs: the first --init_runner\n"
     "belongs to the first CODE, the second to the second, wherever they stand.\n\n"
     "Options:\n" | [option_help(O) || O <- options()]]
        ++ ["\nEnvironment: ERL_LIBS (extra libraries), COLUMNS (width of the table),\n"
            "NO_COLOR (no colour on a terminal).\n"
            "Exit status: 0 success, 1 benchmark failed, 2 usage error (also: no arguments),\n"
            "3 a runner regressed beyond --fail-on-regression.\n"
            "\nReports: erlperf --render RESULTS.json [-o DIR] writes an HTML report of a saved\n"
            "record (--save, --format json, or a --perf-test results.json) to DIR (default: beside it).\n"]
        ++ erlperf_perf_cli:usage().

%% @doc Renders an error reason raised while parsing or benchmarking as one line.
-spec format_error(term()) -> string().
format_error({usage, Text}) ->
    Text;
format_error({write, _File, _Reason} = Reason) ->
    erlperf_output:format_error(Reason);
format_error({distribution, Reason}) ->
    lists:flatten(io_lib:format("cannot start Erlang distribution for --nodes: ~0tp", [Reason]));
format_error(Reason) ->
    erlperf:format_error(Reason).

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
%% Options

-spec options() -> [option()].
options() ->
    [{concurrency, ["-c", "--concurrency"], count, run, "workers running each runner"},
     {sample_duration, ["-d", "--duration", "--sample_duration"], count, run,
      "milliseconds per sample"},
     {samples, ["-s", "--samples"], count, run, "samples to collect"},
     {loop, ["-l", "--loop"], count, run,
      "timed mode: each sample is the time of N iterations (10M = 10 million)"},
     {warmup, ["-w", "--warmup"], non_neg_count, run, "samples to take and discard first"},
     {cv, ["--cv"], ratio, run,
      "sample until the coefficient of variation is at most this (e.g. 0.05)"},
     {report, ["-r", "--report"], report, cli,
      "basic, extended or full; auto is extended from 10 samples"},
     {format, ["--format"], output_format, cli,
      "standard output: text (tables), json, csv or markdown"},
     {output, ["-o", "--output"], out_file, cli,
      "also write the results to FILE, as its extension says (.json .csv .md .txt)"},
     {save, ["--save"], file, cli, "write the results record (JSON) to FILE, atomically"},
     {html, ["--html"], file, cli,
      "write an HTML report with charts to FILE (self-contained; see also --render)"},
     {baselines, ["--baseline"], file, cli,
      "compare each runner with a saved record (--save); repeatable"},
     {fail_on_regression, ["--fail-on-regression"], gate, cli,
      "exit 3 when a runner is significantly slower than a baseline by more than PCT percent"},
     {verbose, ["-v", "--verbose"], flag, cli,
      "print generated code and a VM monitor line every second"},
     {paths, ["-pa"], dir, cli, "add DIR to the code path (repeatable)"},
     {compare, ["--compare"], compare, run,
      "several runners: parallel (at the same time), sequential or interleaved (taking turns)"},
     {confidence, ["--confidence"], percent, run,
      "confidence of intervals and verdicts, percent"},
     {noise, ["--noise"], noise, run,
      "noise floor, percent: smaller changes are never called significant"},
     {isolation, ["-i", "--isolated", "--isolation"], flag, run,
      "run each runner in a fresh peer node"},
     {memory, ["--memory"], flag, run,
      "also measure each runner's cost per call: heap bytes, reductions, CPU and wall time"},
     {params, ["--param"], param, cli,
      "sweep: run once per value of the variable NAME of the code (repeatable: every combination)"},
     {bytes, ["--bytes"], bytes, cli,
      "bytes processed per iteration, an expression of the parameters (N * 8): adds bytes/s"},
     {latency, ["--latency"], flag, run,
      "also time each runner's calls one by one: latency percentiles, p50 to max"},
     {profile, ["--profile"], profiler, run,
      "after the run, profile each runner briefly with TOOL and list its top functions: "
      ++ erlperf_profile:choices()},
     {nodes, ["--nodes"], nodes, run, "run on these nodes at once (a@h,b@h), add results up"},
     {squeeze, ["-q", "--squeeze"], flag, cli,
      "concurrency estimation: add workers while throughput grows"},
     {min, ["--min"], count, concurrency, "squeeze: first concurrency tried"},
     {step, ["--step"], count, concurrency, "squeeze: workers added per step"},
     {max, ["--max"], count, concurrency,
      "squeeze: highest concurrency tried (process limit - 1000)"},
     {threshold, ["-t", "--threshold"], count, concurrency,
      "squeeze: stop after N steps without a throughput gain"},
     {init, ["--init"], code, runner, "code run once before the runner starts"},
     {done, ["--done"], code, runner, "code run once when the runner stops"},
     {init_runner, ["--init_runner"], code, runner,
      "code run in each worker; its result is the runner's argument"},
     {label, ["--label"], text, runner, "name shown in the Code column"},
     {init_all, ["--init_all"], code, all_runners, "--init for runners without one"},
     {done_all, ["--done_all"], code, all_runners, "--done for runners without one"},
     {init_runner_all, ["--init_runner_all"], code, all_runners,
      "--init_runner for runners without one"},
     {help, ["-h", "--help"], flag, cli, "print this help"}].

-spec option_help(option()) -> iodata().
option_help({Key, Names, Arg, _Target, Help}) ->
    Left = lists:join(", ", Names) ++ metavar(Arg),
    Default = case maps:find(Key, defaults()) of
                  {ok, V} when Arg =/= flag, V =/= undefined, V =/= [] ->
                      io_lib:format(" (default: ~0p)", [V]);
                  _ -> ""
              end,
    io_lib:format("  ~-36ts ~ts~ts~n", [lists:flatten(Left), Help, Default]).

-spec metavar(arg()) -> string().
metavar(flag) -> "";
metavar(report) -> " FORMAT";
metavar(compare) -> " HOW";
metavar(percent) -> " PCT";
metavar(noise) -> " PCT";
metavar(output_format) -> " FORMAT";
metavar(file) -> " FILE";
metavar(out_file) -> " FILE";
metavar(gate) -> " PCT";
metavar(ratio) -> " CV";
metavar(code) -> " CODE";
metavar(text) -> " TEXT";
metavar(dir) -> " DIR";
metavar(nodes) -> " NODES";
metavar(param) -> " NAME=V1,V2,...";
metavar(bytes) -> " EXPR";
metavar(profiler) -> " TOOL";
metavar(_Count) -> " N".

%%--------------------------------------------------------------------
%% Parsing

-spec parse_args([string()], map()) -> map().
parse_args([], State) ->
    State;
parse_args(["-" ++ _ = Arg | Rest], State) ->
    {Name, Inline} = split_inline(Arg),
    Option = find_option(Name),
    {Value, Rest1} = take_value(Option, Name, Inline, Rest),
    parse_args(Rest1, apply_option(Option, Name, Value, State));
parse_args([Code | Rest], #{codes := Codes} = State) ->
    parse_args(Rest, State#{codes := [callable(Code) | Codes]}).

%% "--samples=10" is "--samples 10".
-spec split_inline(string()) -> {string(), string() | none}.
split_inline("--" ++ _ = Arg) ->
    case lists:splitwith(fun (C) -> C =/= $= end, Arg) of
        {Name, "=" ++ Value} -> {Name, Value};
        {Name, ""} -> {Name, none}
    end;
split_inline(Arg) ->
    {Arg, none}.

-spec find_option(string()) -> option().
find_option(Name) ->
    case [O || {_, Names, _, _, _} = O <- options(), lists:member(Name, Names)] of
        [Option] -> Option;
        [] -> usage("unknown option ~ts", [Name])
    end.

-spec take_value(option(), string(), string() | none, [string()]) -> {term(), [string()]}.
take_value({_, _, flag, _, _}, _Name, none, Rest) ->
    {true, Rest};
take_value({_, _, flag, _, _}, Name, _Inline, _Rest) ->
    usage("~ts takes no value", [Name]);
take_value({_, _, Arg, _, _}, Name, none, [Value | Rest]) ->
    {value(Arg, Name, Value), Rest};
take_value({_, _, _, _, _}, Name, none, []) ->
    usage("~ts needs a value", [Name]);
take_value({_, _, Arg, _, _}, Name, Inline, Rest) ->
    {value(Arg, Name, Inline), Rest}.

-spec value(arg(), string(), string()) -> term().
value(count, Name, Text) ->
    case count(Text) of
        N when is_integer(N), N > 0 -> N;
        _ -> usage("~ts: '~ts' is not a positive integer (K, M, G suffixes allowed)", [Name, Text])
    end;
value(non_neg_count, Name, Text) ->
    case count(Text) of
        N when is_integer(N), N >= 0 -> N;
        _ -> usage("~ts: '~ts' is not a non-negative integer", [Name, Text])
    end;
value(report, Name, Text) ->
    case lists:member(Text, ["auto", "basic", "extended", "full"]) of
        true -> list_to_atom(Text);
        false -> usage("~ts: '~ts' is not basic, extended or full (or auto)", [Name, Text])
    end;
value(compare, Name, Text) ->
    case lists:member(Text, ["parallel", "sequential", "interleaved"]) of
        true -> list_to_atom(Text);
        false -> usage("~ts: '~ts' is not parallel, sequential or interleaved", [Name, Text])
    end;
value(ratio, Name, Text) ->
    case ratio(Text) of
        R when is_float(R), R > 0 -> R;
        _ -> usage("~ts: '~ts' is not a positive number", [Name, Text])
    end;
value(percent, Name, Text) ->
    case ratio(Text) of
        P when is_float(P), P > 0, P < 100 -> P;
        _ -> usage("~ts: '~ts' is not a percentage between 0 and 100", [Name, Text])
    end;
value(noise, Name, Text) ->
    case ratio(Text) of
        P when is_float(P), P >= 0, P < 100 -> P;
        _ -> usage("~ts: '~ts' is not a percentage from 0 to 100", [Name, Text])
    end;
value(output_format, Name, Text) ->
    case lists:member(Text, ["text", "json", "csv", "markdown", "html"]) of
        true -> list_to_atom(Text);
        false -> usage("~ts: '~ts' is not text, json, csv, markdown or html", [Name, Text])
    end;
value(out_file, Name, Text) ->
    case erlperf_output:format_from_extension(Text) of
        {ok, Format} -> {Text, Format};
        error -> usage("~ts: '~ts' has no known extension (.json, .csv, .md, .txt, .html)", [Name, Text])
    end;
value(gate, Name, Text) ->
    case ratio(Text) of
        P when is_float(P), P >= 0 -> P;
        _ -> usage("~ts: '~ts' is not a percentage (0 or more)", [Name, Text])
    end;
value(code, _Name, Text) ->
    callable(Text);
value(param, Name, Text) ->
    case erlperf_sweep:parse_param(Text) of
        {ok, Param} -> Param;
        {error, Why} -> usage("~ts: ~ts", [Name, Why])
    end;
value(bytes, Name, Text) ->
    case erlperf_sweep:parse_bytes(Text) of
        {ok, _} -> Text;
        {error, Why} -> usage("~ts: '~ts': ~ts", [Name, Text, Why])
    end;
value(profiler, Name, Text) ->
    case [T || T <- erlperf_profile:tools(), atom_to_list(T) =:= Text] of
        [Tool] -> Tool;
        [] -> usage("~ts: '~ts' is not ~ts", [Name, Text, erlperf_profile:choices()])
    end;
value(nodes, Name, Text) ->
    case string:lexemes(Text, ",") of
        [] -> usage("~ts: no node names in '~ts'", [Name, Text]);
        Nodes -> [list_to_atom(string:trim(N)) || N <- Nodes]
    end;
value(_TextOrDir, _Name, Text) ->
    Text.

%% "10" -> 10, "10K" -> 10000, "10M", "10G" (suffixes in either case); else error.
%% (Parsed by hand: the string module would load 700 KB of Unicode tables at start-up.)
-spec count(string()) -> integer() | error.
count(Text) ->
    case lists:splitwith(fun (C) -> C >= $0 andalso C =< $9 end, Text) of
        {"", _} -> error;
        {Digits, ""} -> list_to_integer(Digits);
        {Digits, [S]} when S >= $a, S =< $z -> multiply(list_to_integer(Digits), S - $a + $A);
        {Digits, [S]} -> multiply(list_to_integer(Digits), S);
        _ -> error
    end.

-spec multiply(integer(), char()) -> integer() | error.
multiply(N, $K) -> N * 1000;
multiply(N, $M) -> N * 1000000;
multiply(N, $G) -> N * 1000000000;
multiply(_N, _Suffix) -> error.

-spec ratio(string()) -> float() | error.
ratio(Text) ->
    try list_to_float(Text)
    catch error:badarg ->
        try float(list_to_integer(Text))
        catch error:badarg -> error
        end
    end.

%% A runner argument: an {M, F, A} tuple (or a list of them) when it reads as one,
%% otherwise source text, passed on as given (the engine reports syntax errors).
-spec callable(string()) -> code().
callable(Text) ->
    case lists:dropwhile(fun (C) -> C =:= $\s orelse C =:= $\t orelse C =:= $\n end, Text) of
        [C | _] when C =:= ${; C =:= $[ -> term_callable(Text);
        _ -> Text
    end.

-spec term_callable(string()) -> code().
term_callable(Text) ->
    Parsed = case erl_scan:string(Text ++ " .") of
                 {ok, Tokens, _} -> erl_parse:parse_term(Tokens);
                 Error -> Error
             end,
    case Parsed of
        {ok, {M, F, A} = MFA} when is_atom(M), is_atom(F), is_list(A) -> MFA;
        {ok, [_ | _] = List} -> mfa_list(List, Text);
        _ -> Text
    end.

-spec mfa_list([term()], string()) -> code().
mfa_list(List, Text) ->
    case lists:all(fun ({M, F, A}) -> is_atom(M) andalso is_atom(F) andalso is_list(A);
                       (_) -> false end, List) of
        true -> List;
        false -> Text
    end.

-spec apply_option(option(), string(), term(), map()) -> map().
apply_option({Key, _, _, runner, _}, _Name, Value, #{hooks := Hooks} = State) ->
    State#{hooks := Hooks#{Key => [Value | maps:get(Key, Hooks, [])]}};
apply_option({Key, _, _, all_runners, _}, _Name, Value, #{all := All} = State) ->
    State#{all := All#{all_role(Key) => Value}};
apply_option({params, _, _, cli, _}, Name, {Var, _} = Value, #{given := Given} = State) ->
    Params = maps:get(params, Given, []),
    lists:keymember(Var, 1, Params) andalso usage("~ts ~ts is given twice", [Name, Var]),
    State#{given := Given#{params => Params ++ [Value]}};
apply_option({Key, _, _, cli, _}, _Name, Value, #{given := Given} = State)
  when Key =:= paths; Key =:= baselines ->
    State#{given := Given#{Key => maps:get(Key, Given, []) ++ [Value]}};
apply_option({Key, _, _, _, _}, _Name, Value, #{given := Given} = State) ->
    State#{given := Given#{Key => Value}}.

-spec all_role(atom()) -> atom().
all_role(init_all) -> init;
all_role(done_all) -> done;
all_role(init_runner_all) -> init_runner.

-spec finish(map()) -> parsed().
finish(#{given := #{help := true}}) ->
    #{codes => [], run_options => #{}, concurrency_options => undefined, report => auto,
      format => text, outputs => [], verbose => false, baselines => [], gate => none,
      params => [], bytes => undefined, paths => [], help => true};
finish(#{codes := []}) ->
    usage("no code to benchmark", []);
finish(#{codes := Codes, hooks := Hooks, given := Given, all := All}) ->
    Settings = maps:merge(defaults(), Given),
    #{codes => [maps:merge(All, Code) || Code <- code_maps(lists:reverse(Codes), Hooks)],
      run_options => run_options(Given),
      concurrency_options => concurrency_options(Given),
      report => maps:get(report, Settings),
      format => maps:get(format, Settings),
      outputs => [O || O <- [maps:get(output, Settings, none),
                             case maps:get(save, Settings, none) of
                                 none -> none;
                                 Save -> {Save, json}
                             end,
                             case maps:get(html, Settings, none) of
                                 none -> none;
                                 Html -> {Html, html}
                             end], O =/= none],
      verbose => maps:get(verbose, Settings),
      baselines => maps:get(baselines, Settings, []),
      gate => maps:get(fail_on_regression, Settings, none),
      params => maps:get(params, Settings),
      bytes => maps:get(bytes, Settings),
      paths => maps:get(paths, Settings, []),
      help => false}.

%% The k-th hook of a kind goes to the k-th runner (erlperf 2.3's CLI.md: "read in the
%% same order as runner codes"); runners after the last hook of a kind get none. Hooks
%% are collected newest first.
-spec code_maps([code()], #{atom() => [term()]}) -> [erlperf_job:code_map()].
code_maps(Runners, Hooks) ->
    lists:foldl(fun (Key, Maps) -> assign(Key, lists:reverse(maps:get(Key, Hooks, [])), Maps) end,
                [#{runner => Runner} || Runner <- Runners],
                [Key || {Key, _, _, runner, _} <- options()]).

-spec assign(atom(), [term()], [erlperf_job:code_map()]) -> [erlperf_job:code_map()].
assign(Key, Values, Maps) when length(Values) > length(Maps) ->
    usage("~b --~s for ~b runner~s: the k-th --~s belongs to the k-th runner~ts",
          [length(Values), Key, length(Maps), plural(length(Maps)), Key, all_hint(Key)]);
assign(Key, Values, Maps) ->
    {Hooked, Rest} = lists:split(length(Values), Maps),
    [Map#{Key => Value} || {Map, Value} <- lists:zip(Hooked, Values)] ++ Rest.

-spec all_hint(atom()) -> string().
all_hint(label) -> "";
all_hint(Key) -> "; --" ++ atom_to_list(Key) ++ "_all applies to every runner".

-spec plural(non_neg_integer()) -> string().
plural(1) -> "";
plural(_) -> "s".

%% Only what was given: the engine fills in its defaults.
-spec run_options(map()) -> map().
run_options(Given) ->
    Run = maps:with([Key || {Key, _, _, run, _} <- options()], Given),
    timed(isolation(Run)).

-spec isolation(map()) -> map().
isolation(#{isolation := true} = Run) -> Run#{isolation => #{}};
isolation(Run) -> maps:remove(isolation, Run).

-spec timed(map()) -> map().
timed(#{loop := _, sample_duration := _}) ->
    usage("-l/--loop and -d/--duration cannot be combined", []);
timed(#{loop := Count} = Run) ->
    maps:remove(loop, Run#{sample_duration => {timed, Count}});
timed(Run) ->
    Run.

-spec concurrency_options(map()) -> map() | undefined.
concurrency_options(Given) ->
    Conc = maps:with([Key || {Key, _, _, concurrency, _} <- options()], Given),
    case Given of
        #{squeeze := true} -> Conc;
        #{} when Conc =:= #{} -> undefined;
        #{} -> usage("--~s needs -q/--squeeze", [hd(maps:keys(Conc))])
    end.

-spec usage(string(), list()) -> no_return().
usage(Fmt, Args) ->
    throw({usage, Fmt, Args}).

%%--------------------------------------------------------------------
%% Running

-spec run([string()]) -> non_neg_integer().
run([]) ->
    io:put_chars(standard_error, usage()),
    ?EXIT_USAGE;
run(Args) ->
    case {lists:member("--perf-test", Args), lists:member("--render", Args)} of
        {true, _} -> erlperf_perf_cli:run(Args);
        {false, true} -> render_command(Args);
        {false, false} -> benchmark_command(Args)
    end.

%% --render FILE [-o OUT]: a saved record as an HTML report, beside it by default.
-spec render_command([string()]) -> non_neg_integer().
render_command(Args) ->
    case render_args(Args, #{}) of
        #{file := File} = Parsed ->
            Out = maps:get(out, Parsed, filename:dirname(File)),
            case erlperf_render:render(File, Out) of
                {ok, [Main | _]} ->
                    io:format("report: ~ts~n", [Main]),
                    ?EXIT_OK;
                {error, {write, _, _} = Reason} ->
                    io:put_chars(standard_error, ["erlperf: ", erlperf_render:format_error(Reason), "\n"]),
                    ?EXIT_FAILED;
                {error, Reason} ->
                    fail({usage, erlperf_render:format_error(Reason)})
            end;
        {error, Text} ->
            fail({usage, Text})
    end.

-spec render_args([string()], map()) -> map() | {error, string()}.
render_args([], #{file := _} = Acc) -> Acc;
render_args([], _Acc) -> {error, "--render needs a results file"};
render_args(["--render", File | Rest], Acc) -> render_args(Rest, Acc#{file => File});
render_args([O, Dir | Rest], Acc) when O =:= "-o"; O =:= "--output" -> render_args(Rest, Acc#{out => Dir});
render_args([Other | _], _Acc) -> {error, "--render takes a results file and -o DIR only, not " ++ Other}.

-spec benchmark_command([string()]) -> non_neg_integer().
benchmark_command(Args) ->
    case parse(Args) of
        {ok, #{help := true}} ->
            io:put_chars(usage()),
            ?EXIT_OK;
        {ok, Parsed} ->
            execute(Parsed);
        {error, Reason} ->
            fail(Reason)
    end.

-spec execute(parsed()) -> non_neg_integer().
execute(#{paths := Paths} = Parsed) ->
    ok = preload(),
    case add_paths(Paths) of
        ok ->
            case load_baselines(Parsed) of
                {ok, WithBaselines} -> distributed(WithBaselines);
                {error, Reason} -> fail({usage, erlperf_baseline:format_error(Reason)})
            end;
        {error, Reason} ->
            fail(Reason)
    end.

%% Baselines are read before anything runs: a missing or broken one is a usage error.
-spec load_baselines(parsed()) -> {ok, parsed()} | {error, term()}.
load_baselines(#{baselines := Files} = Parsed) ->
    Loaded = [{F, erlperf_baseline:load(F)} || F <- Files],
    case [E || {_, {error, _} = E} <- Loaded] of
        [] -> {ok, Parsed#{baselines := [{F, Record} || {F, {ok, Record}} <- Loaded]}};
        [{error, Reason} | _] -> {error, Reason}
    end.

%% --nodes: this VM becomes a hidden node that connects out but does not listen (so it
%% needs no epmd of its own); the cookie is the default one (~/.erlang.cookie).
-spec distributed(parsed()) -> non_neg_integer().
distributed(#{run_options := #{nodes := Nodes}} = Parsed) when node() =:= nonode@nohost ->
    Domain = case lists:any(fun is_long_name/1, Nodes) of
                 true -> longnames;
                 false -> shortnames
             end,
    Name = list_to_atom("erlperf_cli_" ++ os:getpid()),
    case net_kernel:start(Name, #{name_domain => Domain, dist_listen => false}) of
        {ok, _} -> benchmark(Parsed);
        {error, Reason} -> fail({distribution, Reason})
    end;
distributed(Parsed) ->
    benchmark(Parsed).

-spec is_long_name(node()) -> boolean().
is_long_name(Node) ->
    case string:split(atom_to_list(Node), "@") of
        [_, Host] -> lists:member($., Host);
        _ -> false
    end.

-spec add_paths([string()]) -> ok | {error, {usage, string()}}.
add_paths([]) ->
    ok;
add_paths([Dir | Dirs]) ->
    case code:add_patha(Dir) of
        true -> add_paths(Dirs);
        {error, _} -> {error, {usage, "-pa: " ++ Dir ++ " is not a directory"}}
    end.

-spec benchmark(parsed()) -> non_neg_integer().
benchmark(#{codes := Codes, run_options := Run, concurrency_options := Conc} = Parsed) ->
    Progress = start_progress(Parsed),
    Options = maps:merge(Run#{report => full}, progress_option(Progress)),
    %% any class: a load node may raise exit or throw, which must not end as a stack dump
    Outcome = try
                  verbose(Parsed),
                  {ok, measure(Codes, Options, Conc, Parsed)}
              catch
                  _:Reason -> {error, Reason}
              end,
    stop_progress(Progress),
    case Outcome of
        {ok, Result} ->
            Rows = baseline_rows(Parsed, Result),
            print_results(Parsed#{baseline_rows => Rows}, Result),
            case write_outputs(Parsed#{baseline_rows => Rows}, Result) of
                ?EXIT_OK -> gate(Parsed, Rows);
                Failed -> Failed
            end;
        {error, Why} ->
            fail(Why)
    end.

%% A sweep with --param or --bytes, else one benchmark.
-spec measure([erlperf_job:code_map()], map(), map() | undefined, parsed()) -> [map()].
measure(Codes, Options, Conc, #{params := [], bytes := undefined}) ->
    erlperf:benchmark(Codes, Options, Conc);
measure(Codes, Options, Conc, #{params := Params, bytes := Bytes}) ->
    erlperf:sweep(Codes, Options#{params => Params, bytes => Bytes}, Conc).

%% The engine compiles every runner, which loads about 45 compiler modules (2 MB of
%% BEAM). Loaded on demand, one by one, each is looked up along the whole code path (the
%% escript's archive first) and prepared in turn. Reading the modules the compiler's
%% passes need straight from their directories and preparing them together
%% (`code:prepare_loading/1' prepares on every scheduler at once) halves that time.
%% Modules missing from this OTP release are skipped; any not listed load on demand.
-spec preload() -> ok.
preload() ->
    Wanted = [{compiler, ?COMPILER_MODULES}, {stdlib, ?STDLIB_MODULES}],
    Binaries = [{M, File, Bin}
                || {App, Modules} <- Wanted, Dir <- [code:lib_dir(App)], is_list(Dir),
                   Ebin <- [filename:join(Dir, "ebin")],
                   M <- Modules, not erlang:module_loaded(M),
                   File <- [filename:join(Ebin, atom_to_list(M) ++ ".beam")],
                   {ok, Bin} <- [file:read_file(File)]],
    Own = [M || M <- ?ENGINE_MODULES, not erlang:module_loaded(M)],
    load_all(Binaries),
    load_all(Own).

-spec load_all([module() | {module(), file:filename(), binary()}]) -> ok.
load_all(Modules) ->
    case code:prepare_loading(Modules) of
        {ok, Prepared} -> _ = code:finish_loading(Prepared), ok;
        {error, _} -> ok
    end.

-spec print_results(map(), [map()]) -> ok.
print_results(#{report := Report, format := Format, baseline_rows := Rows}, Reports) ->
    Options = #{format => Report, width => terminal_width(), colour => colour(stdout),
                baselines => Rows},
    io:put_chars(erlperf_output:format(Format, Reports, Options)).

-spec baseline_rows(parsed(), [map()]) -> [erlperf_baseline:row()].
baseline_rows(#{baselines := []}, _Reports) ->
    [];
baseline_rows(#{baselines := Baselines, run_options := Run}, Reports) ->
    erlperf_baseline:compare(Baselines, erlperf_record:from_reports(Reports),
                             maps:with([confidence, noise], Run)).

%% --fail-on-regression: exit 3, saying which runner regressed against which baseline.
-spec gate(parsed(), [erlperf_baseline:row()]) -> non_neg_integer().
gate(#{gate := none}, _Rows) ->
    ?EXIT_OK;
gate(#{gate := Percent}, Rows) ->
    case erlperf_baseline:regressions(Rows, Percent) of
        [] ->
            ?EXIT_OK;
        Regressions ->
            _ = [io:put_chars(standard_error,
                              io_lib:format("erlperf: regression: ~ts is ~.1f% slower than in ~ts "
                                            "(limit ~s%)~n", [Name, abs(C), File, number(Percent)]))
                 || {Name, Entries} <- Regressions, #{file := File, change_pct := C} <- Entries],
            ?EXIT_REGRESSION
    end.

-spec number(float()) -> string().
number(F) when F == trunc(F) -> integer_to_list(trunc(F));
number(F) -> float_to_list(F, [short]).

%% -o and --save; the first file that cannot be written fails the run.
-spec write_outputs(map(), [map()]) -> non_neg_integer().
write_outputs(#{outputs := Outputs, baseline_rows := Rows}, Reports) ->
    case [E || {File, Format} <- Outputs,
               E <- [erlperf_output:write(File, Format, Reports, #{baselines => Rows})], E =/= ok] of
        [] -> ?EXIT_OK;
        [{error, Reason} | _] -> fail(Reason)
    end.

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
%% Errors

-spec fail(term()) -> non_neg_integer().
fail(Reason) ->
    Status = exit_status(Reason),
    Hint = case Status of
               ?EXIT_USAGE -> ["\n", ?HINT];
               _ -> []
           end,
    io:put_chars(standard_error, ["erlperf: ", format_error(Reason), Hint, "\n"]),
    Status.

-spec exit_status(term()) -> non_neg_integer().
exit_status({usage, _}) -> ?EXIT_USAGE;
exit_status({bad_code, _, _}) -> ?EXIT_USAGE;
exit_status({invalid_option, _, _}) -> ?EXIT_USAGE;
exit_status({incompatible_options, _, _, _}) -> ?EXIT_USAGE;
exit_status({sweep, _}) -> ?EXIT_USAGE;
exit_status(_Crashed) -> ?EXIT_FAILED.

%%--------------------------------------------------------------------
%% Terminal: progress, colour, width

-spec start_progress(parsed()) -> {pid(), #{progress := fun((term()) -> any())}} | none.
start_progress(Parsed) ->
    case long_run(Parsed) andalso erlperf_terminal:is_terminal(stderr) of
        true ->
            Timed = is_tuple(maps:get(sample_duration, maps:get(run_options, Parsed), 0)),
            Printer = spawn_link(fun () -> printer(Timed) end),
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
        maps:merge(defaults(), Run),
    Combinations = lists:foldl(fun ({_, Values}, Acc) -> Acc * length(Values) end, 1, Params),
    Runs = length(Codes) * Combinations,
    (Samples + Warmup) * Duration * Runs > ?PROGRESS_AFTER_MS.

-spec printer(boolean()) -> ok.
printer(Timed) ->
    receive
        {progress, Event} ->
            io:put_chars(standard_error, ["\r\e[K", progress_text(Event, Timed)]),
            printer(Timed);
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

%% Colour on a terminal only, never with NO_COLOR set (https://no-color.org) or TERM=dumb.
-spec colour(stdout | stderr) -> boolean().
colour(Stream) ->
    os:getenv("NO_COLOR", "") =:= "" andalso os:getenv("TERM") =/= "dumb"
        andalso erlperf_terminal:is_terminal(Stream).

-spec terminal_width() -> pos_integer() | infinity.
terminal_width() ->
    case count(os:getenv("COLUMNS", "")) of
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
