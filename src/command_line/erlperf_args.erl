%%% @doc The grammar of erlperf's command lines: which command the arguments ask for,
%%% their options with defaults and help text, and the parsing of each command's
%%% arguments into data. Pure: no I/O, no `halt'; a mistake is `{error, Reason}', which
%%% {@link format_error/1} turns into the line the user sees. The exit statuses of both
%%% command lines ({@link erlperf_cli} and {@link erlperf_perf_cli}) are defined here,
%%% once ({@link exit_code/1}).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>command</b>: `benchmark' (the default), `perf_test' (the arguments hold
%%%       `--perf-test'; it wins over `--render') or `render' (they hold `--render').</li>
%%%   <li><b>grammar</b>: the options of a command. The benchmark's options take their
%%%       value as the next argument or inline (`--samples=10'), and any argument not
%%%       starting with `-' is a runner. The performance test's options take the next
%%%       argument only, and it has no positional argument.</li>
%%%   <li><b>runner argument</b>: a positional argument of the benchmark; source text
%%%       (usually ending in `.') or a literal `{M, F, A}' tuple (or a list of them).</li>
%%%   <li><b>hook</b>: a per-runner option, `--init', `--done', `--init_runner' or
%%%       `--label'. Hooks of one kind are read in the same order as runner arguments,
%%%       as in erlperf 2.3: the k-th `--init_runner' belongs to the k-th runner, wherever
%%%       either stands on the command line. A runner without a hook of its kind gets the
%%%       `--init_all', `--done_all' or `--init_runner_all' default, if given. More hooks
%%%       of a kind than runners is a usage error.</li>
%%%   <li><b>usage error</b>: every error of this module: a mistake in the command line
%%%       (unknown option, bad value, missing value); exit status 2.</li>
%%% </ul>
%%%
%%% Every option, with its names, type, range, default and help, is written once in the
%%% option registry (`erlperf_options'); this module reads text into values, and the
%%% help text and the errors are generated from the registry.
%%%
%%% Example:
%%% ```
%%% 1> erlperf_args:command(["rand:uniform().", "-s", "10"]).
%%% benchmark
%%% 2> {ok, #{codes := [#{runner := "rand:uniform()."}], run_options := #{samples := 10}}} =
%%%        erlperf_args:parse(["rand:uniform().", "-s", "10"]).
%%% 3> {error, Reason} = erlperf_args:parse(["ok.", "-c", "0"]), erlperf_args:format_error(Reason).
%%% "-c: '0' is not a positive integer (K, M, G suffixes allowed)"
%%% 4> erlperf_args:exit_code(usage).
%%% 2
%%% '''
-module(erlperf_args).

%% API: called by erlperf_cli (the benchmark and `--render') and erlperf_perf_cli
%% (`--perf-test')
-export([command/1, parse/1, parse/2, parse_perf_test/1, parse_render/1, defaults/0,
         run_defaults/0, help/0, options_help/0,
         perf_test_help/0, format_error/1, exit_code/1, count/1, version/0]).
%% Called by the project front ends: `rebar3 erlperf' (erlperf_rebar3) and `mix erlperf'.
-export([project/1]).

-export_type([command/0, parsed/0, perf_test/0, render/0, reason/0, outcome/0]).

%% How an option's value is read (erlperf_options).
-type arg() :: erlperf_options:arg().
%% Where the value goes: run options, concurrency options, CLI settings, the last
%% runner's code map, every runner's code map (as a default), a list the option adds to
%% (repeatable options), or the performance test's options.
-type target() :: run | concurrency | cli | runner | all_runners | repeated | perf_test.
%% An option of the registry that the command line has (it has names and an arg).
-type option() :: erlperf_options:option().
-type grammar() :: benchmark | perf_test.

-type command() :: benchmark | perf_test | render.
-type code() :: erlperf_job:callable().
-type parsed() :: #{codes := [erlperf_job:code_map()],
                    run_options := map(),
                    concurrency_options := map() | undefined,
                    report := erlperf_report:format() | auto,
                    format := erlperf_output:format(),
                    outputs := [{file:filename(), erlperf_output:format()}],
                    %% file names, then (once read) the records
                    baselines := [file:filename()] | [{file:filename(), erlperf_record:results()}],
                    gate := float() | none,
                    %% --fail-on-inconclusive: an inconclusive verdict fails the gate too
                    fail_on_inconclusive := boolean(),
                    params := erlperf_sweep:params(),
                    %% --input NAME=CODE, in the order given
                    inputs := [{string(), string()}],
                    bytes := string() | undefined,
                    verbose := boolean(),
                    colour := auto | always | never,
                    paths := [string()],
                    suites := [file:filename()],
                    filter := string() | undefined,
                    store := file:filename(),
                    save_baseline := string() | undefined,
                    history := boolean(),
                    %% --against REV: only when given
                    against => string(),
                    help := boolean() | version}.
%% `--perf-test FILE': the load generator, the code path to add and the options of
%% `erlperf_perf_test:run/2'; or `-h'.
-type perf_test() :: #{help := false, file := string(), paths := [string()], options := map()}
                   | #{help := true}.
%% `--render FILE [-o DIR]': DIR is the file's directory unless given.
-type render() :: #{file := string(), out := string()}.

%% Why a command line was refused (each is a usage error).
-type reason() :: {unknown_option, grammar(), Name :: string()}
                | {missing_value, Name :: string()}
                | {unexpected_value, Name :: string()}
                | {bad_value, Name :: string(), Text :: string(), arg()}
                | {choice, Name :: string(), Text :: string(), Words :: [string()]}
                | {param, Name :: string(), Why :: string()}
                | {param_twice, Name :: string(), Variable :: string()}
                | {input, Name :: string(), Text :: string()}
                | {bytes, Name :: string(), Text :: string(), Why :: string()}
                | {limit, Name :: string(), Text :: string(), Key :: atom()}
                | {too_many_hooks, Key :: atom(), Hooks :: pos_integer(), Runners :: pos_integer()}
                | {cannot_combine, string(), string()}
                | {cannot_combine, string(), string(), Why :: string()}
                | {needs, string(), string()}
                | {empty, Name :: string()}
                | {same_file, Name :: string(), Other :: string(), File :: string()}
                | {missing, code | perf_test | render}
                | {render_argument, string()}.
%% How a run ended, for its exit status.
-type outcome() :: success | benchmark_failed | usage | gate_failed.

%%--------------------------------------------------------------------
%% API

%% @doc The command the arguments ask for: `--perf-test' anywhere makes a performance
%% test, else `--render' anywhere a report, else a benchmark.
-spec command([string()]) -> command().
command(Args) ->
    case {lists:member("--perf-test", Args), lists:member("--render", Args)} of
        {true, _} -> perf_test;
        {false, true} -> render;
        {false, false} -> benchmark
    end.

%% @doc Parses a benchmark's command line into code maps and options. With `-h' (and no
%% mistake) the rest is not checked and `help' is `true'.
-spec parse([string()]) -> {ok, parsed()} | {error, reason()}.
parse(Args) ->
    parse(Args, #{}).

%% @doc {@link parse/1} with a front end's own defaults of command-line settings
%% (`mix erlperf': `#{format => benchee}'): each counts as given unless the arguments
%% give that option, or a rule of the registry would refuse it with what they give
%% (then the registry's default stands: a default never makes a usage error).
-spec parse([string()], #{atom() => term()}) -> {ok, parsed()} | {error, reason()}.
parse(Args, Defaults) ->
    catching(fun () ->
                     Empty = #{codes => [], hooks => #{}, given => #{}, all => #{}},
                     finish((read(benchmark, Args, Empty))#{defaults => Defaults})
             end).

%% @doc Parses the arguments of `--perf-test' (all of them, `--perf-test' included).
-spec parse_perf_test([string()]) -> {ok, perf_test()} | {error, reason()}.
parse_perf_test(Args) ->
    catching(fun () -> perf_test(maps:get(given, read(perf_test, Args, #{given => #{}}))) end).

%% @doc Parses the arguments of `--render': a results file and `-o DIR'.
-spec parse_render([string()]) -> {ok, render()} | {error, reason()}.
parse_render(Args) ->
    case render_args(Args, #{}) of
        #{file := File} = Parsed -> {ok, maps:merge(#{out => filename:dirname(File)}, Parsed)};
        {error, _} = Error -> Error
    end.

%% @doc Default value of every benchmark option that has one, from the option registry
%% (the command line's own where it differs: `report' is `auto'); the help text shows
%% these.
-spec defaults() -> #{atom() => term()}.
defaults() ->
    Registry = lists:foldl(fun (Scope, Acc) -> maps:merge(Acc, erlperf_options:defaults(Scope)) end,
                           #{}, [run, concurrency, sweep, cli]),
    maps:merge(Registry, maps:from_list([{K, D} || #{key := K, cli_default := D} <- options(benchmark)])).

%% @doc Help text of `erlperf', performance testing included, generated from the option
%% tables and the defaults.
-spec help() -> iodata().
help() ->
    ["Usage: erlperf [OPTION]... CODE [PER-RUNNER OPTION]... [CODE [PER-RUNNER OPTION]...]...\n"
     "Benchmarks Erlang code. CODE is source text ending in '.' or an {M, F, A} tuple.\n"
     "Per-runner options are read in the order of the CODEs: the first --init_runner\n"
     "belongs to the first CODE, the second to the second, wherever they stand.\n\n"
     | options_help()]
        ++ ["\nEnvironment: ERL_LIBS (extra libraries), COLUMNS (width of the table),\n"
            "NO_COLOR (no colour on a terminal).\n"
            "Exit status: 0 success, 1 benchmark failed, 2 usage error (also: no arguments),\n"
            "3 a runner regressed beyond --fail-on-regression.\n"
            "\nReports: erlperf --render RESULTS.json [-o DIR] writes an HTML report of a saved\n"
            "record (--save, --format json, or a --perf-test results.json) to DIR (default: beside it).\n"]
        ++ perf_test_help().

%% @doc The benchmark options' part of {@link help/0}, for other front ends' help
%% (`mix erlperf --help').
-spec options_help() -> iodata().
options_help() ->
    ["Options:\n" | [help_line(O, defaults()) || O <- options(benchmark)]].

%% @doc Help text of `--perf-test', defaults from `erlperf_perf_test:defaults/0'.
-spec perf_test_help() -> iodata().
perf_test_help() ->
    Defaults = erlperf_perf_test:defaults(),
    ["\nPerformance testing: erlperf --perf-test FILE [OPTION]...\n"
     "Runs a load generator (behaviour erlperf_load_generator) over its sizes, with tracing\n"
     "agents on the test nodes; see doc/perf-testing.md.\n"
     | [help_line(O, Defaults) || #{key := Key} = O <- options(perf_test), Key =/= help]]
    ++ ["Exit status: 0 success, 1 a run failed, 2 usage error, 3 a requirement failed.\n"].

%% @doc The line (without `erlperf: ') telling what is wrong with a command line.
-spec format_error(reason()) -> string().
format_error({unknown_option, benchmark, Name}) ->
    text("unknown option ~ts", [Name]);
format_error({unknown_option, perf_test, Name}) ->
    text("unknown option for --perf-test: ~ts", [Name]);
format_error({missing_value, Name}) ->
    text("~ts needs a value", [Name]);
format_error({unexpected_value, Name}) ->
    text("~ts takes no value", [Name]);
format_error({bad_value, Name, Text, Arg}) ->
    bad_value(Arg, Name, Text);
format_error({choice, Name, Text, Words}) ->
    text("~ts: '~ts' is not ~ts", [Name, Text, either(Words)]);
format_error({limit, Name, Text, Key}) ->
    text("~ts: ~ts is above the limit of ~b~ts",
         [Name, Text, erlperf_options:limit(Key), erlperf_options:limit_reason(Key)]);
format_error({param, Name, Why}) ->
    text("~ts: ~ts", [Name, Why]);
format_error({param_twice, Name, Var}) ->
    text("~ts ~ts is given twice", [Name, Var]);
format_error({input, Name, Text}) ->
    text("~ts: '~ts' is not NAME=CODE (a name, then the code of its value)", [Name, Text]);
format_error({bytes, Name, Text, Why}) ->
    text("~ts: '~ts': ~ts", [Name, Text, Why]);
format_error({too_many_hooks, Key, Hooks, Runners}) ->
    text("~b --~s for ~b runner~s: the k-th --~s belongs to the k-th runner~ts",
         [Hooks, Key, Runners, plural(Runners), Key, all_hint(Key)]);
format_error({cannot_combine, One, Other}) ->
    text("~ts and ~ts cannot be combined", [One, Other]);
format_error({cannot_combine, One, Other, Why}) ->
    text("~ts and ~ts cannot be combined~ts", [One, Other, Why]);
format_error({needs, One, Other}) ->
    text("~ts needs ~ts", [One, Other]);
format_error({empty, Name}) ->
    text("~ts: an empty file name", [Name]);
format_error({same_file, One, Other, File}) ->
    text("~ts and ~ts both write ~ts: give each its own file", [One, Other, File]);
format_error({missing, code}) ->
    "no code to benchmark";
format_error({missing, perf_test}) ->
    "--perf-test needs a load generator file";
format_error({missing, render}) ->
    "--render needs a results file";
format_error({render_argument, Other}) ->
    "--render takes a results file and -o DIR only, not " ++ Other.

%% @doc The exit status of a run of either command line: 0 success, 1 the benchmark
%% or a performance test's run failed (or could not run), 2 a usage error, 3 a gate
%% failed (`--fail-on-regression', a performance test's requirement or baseline).
-spec exit_code(outcome()) -> 0..3.
exit_code(success) -> 0;
exit_code(benchmark_failed) -> 1;
exit_code(usage) -> 2;
exit_code(gate_failed) -> 3.

%% @doc The command line of a project's front end (`rebar3 erlperf', `mix erlperf'): the
%% arguments after `--suite bench' (the project's suite files) unless they hold `--suite'
%% or are a whole command line without it: runner code (a plain benchmark of the
%% project's code), `--history', or a request for the help or the version.
-spec project([string()]) -> [string()].
project(Args) ->
    case has_suite(Args) orelse is_whole(Args) of
        true -> Args;
        false -> ["--suite", erlperf_options:suite_dir() | Args]
    end.

%% @doc erlperf's version (the application's `vsn').
-spec version() -> string().
version() ->
    erlperf_system:version().

%% @doc A count as options take it: "10" is 10, "10K" 10000, "10M", "10G" (suffixes in
%% either case); anything else is `error'. (Read by hand: the string module would load
%% 700 KB of Unicode tables at start-up.)
-spec count(string()) -> integer() | error.
count(Text) ->
    case lists:splitwith(fun (C) -> C >= $0 andalso C =< $9 end, Text) of
        {"", _} -> error;
        {Digits, ""} -> list_to_integer(Digits);
        {Digits, [S]} when S >= $a, S =< $z -> multiply(list_to_integer(Digits), S - $a + $A);
        {Digits, [S]} -> multiply(list_to_integer(Digits), S);
        _ -> error
    end.

%% A rate (10k), a ramp of rates doubling from the first to at most the last (1k..64k),
%% or a list (1k,5k,20k); `error' for anything else (0 and below included).
-spec rates(string()) -> [integer()] | error.
rates(Text) ->
    Read = fun (T) -> case count(T) of
                          N when is_integer(N), N > 0 -> N;
                          _ -> error
                      end
           end,
    case string:split(Text, "..") of
        [From, To] ->
            case {Read(From), Read(To)} of
                {F, T} when is_integer(F), is_integer(T), F < T -> doubling(F, T);
                _ -> error
            end;
        [_] ->
            Rates = [Read(T) || T <- string:split(Text, ",", all)],
            case lists:member(error, Rates) of
                true -> error;
                false -> Rates
            end
    end.

doubling(From, To) when From > To -> [];
doubling(From, To) -> [From | doubling(From * 2, To)].

%% Response-time objectives, `p99=5ms,p50=1ms': [{99, 5000000}, {50, 1000000}]
%% (percentiles, nanoseconds); `error' when one does not read.
-spec slo(string()) -> [{number(), pos_integer()}] | error.
slo(Text) ->
    Items = [slo_item(string:split(I, "=")) || I <- string:split(Text, ",", all)],
    case lists:member(error, Items) of
        true -> error;
        false -> Items
    end.

slo_item(["p" ++ Pct, Time]) ->
    case {percentile(Pct), duration_ns(Time)} of
        {P, Ns} when is_number(P), P > 0, P =< 100, is_integer(Ns), Ns > 0 -> {P, Ns};
        _ -> error
    end;
slo_item(_) ->
    error.

%% p99 is 99, p999 99.9, p99.9 99.9, p50 50.
percentile([_ | _] = Digits) ->
    case lists:all(fun (C) -> C >= $0 andalso C =< $9 orelse C =:= $. end, Digits) of
        false -> error;
        true when hd(Digits) =:= $. -> error;
        true ->
            case lists:member($., Digits) of
                true -> number(Digits);
                false when length(Digits) > 2, hd(Digits) =:= $9 ->
                    list_to_integer(Digits) / math:pow(10, length(Digits) - 2);
                false -> list_to_integer(Digits)
            end
    end;
percentile(_) ->
    error.

%% 5ms, 250us, 1s, 800ns: nanoseconds.
duration_ns(Text) ->
    {Num, Unit} = lists:splitwith(fun (C) -> C >= $0 andalso C =< $9 orelse C =:= $. end, Text),
    Scale = case Unit of
                "ns" -> 1;
                "us" -> 1000;
                "ms" -> 1000000;
                "s" -> 1000000000;
                _ -> error
            end,
    case {number(Num), Scale} of
        {N, S} when is_number(N), is_integer(S) -> round(N * S);
        _ -> error
    end.

-spec has_suite([string()]) -> boolean().
has_suite(Args) ->
    lists:any(fun (A) -> A =:= "--suite" orelse lists:prefix("--suite=", A) end, Args).

-spec is_whole([string()]) -> boolean().
is_whole(Args) ->
    case parse(Args) of
        {ok, #{codes := [_ | _]}} -> true;
        {ok, #{history := true}} -> true;
        {ok, #{help := Help}} -> Help =/= false;
        {error, _} -> false
    end.

%%--------------------------------------------------------------------
%% Option tables

%% The options of a command line, from the registry: those with names, the performance
%% test's for `perf_test'.
-spec options(grammar()) -> [option()].
options(Grammar) ->
    [O || #{names := [_ | _], scope := Scope} = O <- erlperf_options:all(), grammar(Scope) =:= Grammar].

-spec grammar(erlperf_options:scope()) -> grammar().
grammar(Scope) when Scope =:= perf_test; Scope =:= perf_cli -> perf_test;
grammar(_Scope) -> benchmark.

%% Where the command line puts an option's value: the report's shape is the command
%% line's to choose (it runs with `report => full'), sweep options are its own settings.
-spec target(option()) -> target().
target(#{repeat := true}) -> repeated;
target(#{key := report}) -> cli;
target(#{scope := sweep}) -> cli;
target(#{scope := perf_cli}) -> perf_test;
target(#{scope := Scope}) -> Scope.

%% An option's help, its choices filled in.
-spec help_text(option()) -> string().
help_text(#{key := format, help := Help}) ->
    fill("FORMATS", either(choices(output_format)), Help);
help_text(#{key := output, help := Help}) ->
    fill("EXTENSIONS", extensions(), Help);
help_text(#{help := Help}) ->
    Help.

-spec fill(string(), string(), string()) -> string().
fill(Word, Text, Help) ->
    lists:flatten(string:replace(Help, Word, Text)).

%% An option's line of the help text; a flag's default, `undefined', `none' and `[]' are
%% not shown.
-spec help_line(option(), map()) -> iodata().
help_line(#{key := Key, names := Names, arg := Arg} = Option, Defaults) ->
    Help = help_text(Option),
    Left = lists:join(", ", Names) ++ case Option of
                                         #{metavar := Var} -> " " ++ Var;
                                         #{} -> metavar(Arg)
                                     end,
    Default = case maps:find(Key, Defaults) of
                  {ok, V} when Arg =/= flag, Arg =/= no_flag, V =/= undefined, V =/= none,
                               V =/= [] ->
                      [" (default: ", erlperf_units:value(V), ")"];
                  _ -> ""
              end,
    io_lib:format("  ~-36ts ~ts~ts~n", [lists:flatten(Left), Help, Default]).

-spec metavar(arg()) -> string().
metavar(flag) -> "";
metavar(no_flag) -> "";
metavar(percent) -> " PCT";
metavar(noise) -> " PCT";
metavar(tolerance) -> " PCT";
metavar(output_format) -> " FORMAT";
metavar(file) -> " FILE";
metavar(out_file) -> " FILE";
metavar(files) -> " FILES";
metavar(gate) -> " PCT";
metavar(ratio) -> " CV";
metavar(code) -> " CODE";
metavar(text) -> " TEXT";
metavar(regex) -> " REGEX";
metavar(name) -> " NAME";
metavar(revision) -> " REV";
metavar(dir) -> " DIR";
metavar(nodes) -> " NODES";
metavar(param) -> " NAME=V1,V2,...";
metavar(input) -> " NAME=CODE";
metavar(bytes) -> " EXPR";
metavar(profiler) -> " TOOL";
metavar(ms) -> " MS";
metavar(_Count) -> " N".

%%--------------------------------------------------------------------
%% Reading arguments (both grammars)

%% Errors are thrown deep and caught once, here.
-spec catching(fun(() -> T)) -> {ok, T} | {error, reason()}.
catching(Parse) ->
    try {ok, Parse()}
    catch throw:{?MODULE, Reason} -> {error, Reason}
    end.

-spec usage(reason()) -> no_return().
usage(Reason) ->
    throw({?MODULE, Reason}).

-spec read(grammar(), [string()], map()) -> map().
read(_Grammar, [], State) ->
    State;
read(Grammar, [Arg | Rest], State) ->
    case is_option(Grammar, Arg) of
        true ->
            {Name, Inline} = split_inline(Grammar, Arg),
            Option = find_option(Grammar, Name),
            {Value, Rest1} = take_value(Option, Name, Inline, Rest),
            read(Grammar, Rest1, apply_option(Option, Name, Value, State));
        false ->
            #{codes := Codes} = State,
            read(Grammar, Rest, State#{codes := [callable(Arg) | Codes]})
    end.

%% The benchmark's positional arguments are runners; the performance test has none.
-spec is_option(grammar(), string()) -> boolean().
is_option(benchmark, Arg) -> lists:prefix("-", Arg);
is_option(perf_test, _Arg) -> true.

%% The benchmark reads "--samples=10" as "--samples 10".
-spec split_inline(grammar(), string()) -> {string(), string() | none}.
split_inline(benchmark, "--" ++ _ = Arg) ->
    case lists:splitwith(fun (C) -> C =/= $= end, Arg) of
        {Name, "=" ++ Value} -> {Name, Value};
        {Name, ""} -> {Name, none}
    end;
split_inline(_Grammar, Arg) ->
    {Arg, none}.

-spec find_option(grammar(), string()) -> option().
find_option(Grammar, Name) ->
    case [O || #{names := Names} = O <- options(Grammar), lists:member(Name, Names)] of
        [Option] -> Option;
        [] -> usage({unknown_option, Grammar, Name})
    end.

-spec take_value(option(), string(), string() | none, [string()]) -> {term(), [string()]}.
take_value(#{arg := Arg}, _Name, none, Rest) when Arg =:= flag; Arg =:= no_flag ->
    {Arg =:= flag, Rest};
take_value(#{arg := Arg}, Name, _Inline, _Rest) when Arg =:= flag; Arg =:= no_flag ->
    usage({unexpected_value, Name});
take_value(Option, Name, none, [Value | Rest]) ->
    {ranged(Option, Name, Value), Rest};
take_value(_Option, Name, none, []) ->
    usage({missing_value, Name});
take_value(Option, Name, Inline, Rest) ->
    {ranged(Option, Name, Inline), Rest}.

%% The value of the text, in the type and range the registry gives the option; a count
%% above its limit (erlperf_options:limit/1) says so, so that nothing is spawned or
%% waited for beyond what the VM allows.
-spec ranged(option(), string(), string()) -> term().
ranged(#{arg := choice} = Option, Name, Text) ->
    Words = choices(Option),
    case lists:member(Text, Words) of
        true -> list_to_atom(Text);
        false -> usage({choice, Name, Text, Words})
    end;
ranged(#{arg := Arg} = Option, Name, Text) ->
    Value = value(Arg, Name, Text),
    Type = maps:get(cli_type, Option, maps:get(type, Option)),
    case erlperf_options:valid_type(Type, Value) of
        true -> Value;
        false -> usage(out_of_range(Arg, Type, Name, Text, Value))
    end.

-spec out_of_range(arg(), erlperf_options:type(), string(), string(), term()) -> reason().
out_of_range(Arg, Type, Name, Text, Value) when is_integer(Value), Arg =/= ms ->
    case [L || {int, Min, L} <- ints(Type), Value >= Min, Value > erlperf_options:limit(L)] of
        [Limit | _] -> {limit, Name, Text, Limit};
        [] -> {bad_value, Name, Text, Arg}
    end;
out_of_range(Arg, _Type, Name, Text, _Value) ->
    {bad_value, Name, Text, Arg}.

-spec ints(erlperf_options:type()) -> [erlperf_options:type()].
ints({either, Types}) -> lists:append([ints(T) || T <- Types]);
ints({int, _, _} = Int) -> [Int];
ints(_Type) -> [].

-spec apply_option(option(), string(), term(), map()) -> map().
apply_option(Option, Name, Value, State) ->
    apply_option(target(Option), Option, Name, Value, State).

-spec apply_option(target(), option(), string(), term(), map()) -> map().
apply_option(runner, #{key := Key}, _Name, Value, #{hooks := Hooks} = State) ->
    State#{hooks := Hooks#{Key => [Value | maps:get(Key, Hooks, [])]}};
apply_option(all_runners, #{key := Key}, _Name, Value, #{all := All} = State) ->
    State#{all := All#{all_role(Key) => Value}};
apply_option(cli, #{key := inputs}, Name, {Input, _} = Value, #{given := Given} = State) ->
    Inputs = maps:get(inputs, Given, []),
    lists:keymember(Input, 1, Inputs) andalso usage({param_twice, Name, Input}),
    State#{given := Given#{inputs => Inputs ++ [Value]}};
apply_option(cli, #{key := params}, Name, {Var, _} = Value, #{given := Given} = State) ->
    Params = maps:get(params, Given, []),
    lists:keymember(Var, 1, Params) andalso usage({param_twice, Name, atom_to_list(Var)}),
    case erlperf_sweep:check_combinations(Params ++ [Value]) of
        ok -> ok;
        {error, Reason} -> usage({param, Name, erlperf_sweep:format_error(Reason)})
    end,
    State#{given := Given#{params => Params ++ [Value]}};
apply_option(repeated, #{key := Key, arg := files}, _Name, Files, #{given := Given} = State) ->
    State#{given := Given#{Key => maps:get(Key, Given, []) ++ Files}};
apply_option(repeated, #{key := Key}, _Name, Value, #{given := Given} = State) ->
    State#{given := Given#{Key => maps:get(Key, Given, []) ++ [Value]}};
apply_option(_Target, #{key := Key}, _Name, Value, #{given := Given} = State) ->
    State#{given := Given#{Key => Value}}.

-spec all_role(atom()) -> atom().
all_role(init_all) -> init;
all_role(done_all) -> done;
all_role(init_runner_all) -> init_runner.

%%--------------------------------------------------------------------
%% Values

%% The value of an option's text, as its arg reads it; the registry checks its range
%% (ranged/3). Text that cannot be read is `error' (out of every range) or a usage error.
-spec value(arg(), string(), string()) -> term().
value(Arg, _Name, Text) when Arg =:= count; Arg =:= non_neg_count ->
    count(Text);
value(forks, _Name, "auto") ->
    auto;
value(forks, _Name, Text) ->
    count(Text);
value(output_format, Name, Text) ->
    case lists:member(Text, choices(output_format)) of
        true -> list_to_atom(Text);
        false -> usage({bad_value, Name, Text, output_format})
    end;
value(Arg, _Name, Text) when Arg =:= ratio; Arg =:= percent; Arg =:= noise; Arg =:= gate ->
    ratio(Text);
value(Arg, Name, "") when Arg =:= file; Arg =:= out_file; Arg =:= dir ->
    usage({empty, Name});
value(out_file, Name, Text) ->
    case erlperf_output:format_from_extension(Text) of
        {ok, Format} -> {Text, Format};
        error -> usage({bad_value, Name, Text, out_file})
    end;
value(code, _Name, Text) ->
    callable(Text);
value(input, Name, Text) ->
    case string:split(Text, "=") of
        [[_ | _] = Input, [_ | _] = Code] -> {Input, Code};
        _ -> usage({input, Name, Text})
    end;
value(param, Name, Text) ->
    case erlperf_sweep:parse_param(Text) of
        {ok, Param} -> Param;
        {error, Why} -> usage({param, Name, Why})
    end;
value(bytes, Name, Text) ->
    case erlperf_sweep:parse_bytes(Text) of
        {ok, _} -> Text;
        {error, Why} -> usage({bytes, Name, Text, Why})
    end;
value(profiler, Name, Text) ->
    case [T || T <- erlperf_options:profilers(), atom_to_list(T) =:= Text] of
        [Tool] -> Tool;
        [] -> usage({bad_value, Name, Text, profiler})
    end;
value(nodes, Name, Text) ->
    case string:lexemes(Text, ",") of
        [] -> usage({bad_value, Name, Text, nodes});
        Nodes -> [list_to_atom(string:trim(N)) || N <- Nodes]
    end;
value(files, Name, Text) ->
    case [F || F <- string:lexemes(Text, ","), F =/= ""] of
        [] -> usage({bad_value, Name, Text, files});
        Files -> Files
    end;
value(rates, Name, Text) ->
    case rates(Text) of
        error -> usage({bad_value, Name, Text, rates});
        [Rate] -> Rate;
        Rates -> Rates
    end;
value(slo, Name, Text) ->
    case slo(Text) of
        error -> usage({bad_value, Name, Text, slo});
        Slo -> Slo
    end;
value(tolerance, _Name, Text) ->
    number(Text);
value(ms, _Name, Text) ->
    %% as -d reads milliseconds: 60K is 60000
    count(Text);
value(regex, Name, Text) ->
    case re:compile(Text, [unicode]) of
        {ok, _} -> Text;
        {error, _} -> usage({bad_value, Name, Text, regex})
    end;
%% A revision is for git to resolve; one that reads as an option is a mistake.
value(revision, Name, Text) ->
    case Text of
        [C | _] when C =/= $- -> Text;
        _ -> usage({bad_value, Name, Text, revision})
    end;
value(name, Name, Text) ->
    case erlperf_store:valid_name(Text) of
        true -> Text;
        false -> usage({bad_value, Name, Text, name})
    end;
value(_TextOrDir, _Name, Text) ->
    Text.

%% The words an option of choices takes, from the registry (the output formats from
%% erlperf_output, which writes them).
-spec choices(output_format | option()) -> [string()].
choices(output_format) ->
    [atom_to_list(F) || F <- erlperf_output:formats()];
choices(#{type := Type} = Option) ->
    {one_of, Words} = maps:get(cli_type, Option, Type),
    [atom_to_list(W) || W <- Words].

%% "a, b or c".
-spec either([string(), ...]) -> string().
either([One]) -> One;
either(Choices) ->
    lists:flatten([lists:join(", ", lists:droplast(Choices)), " or ", lists:last(Choices)]).

%% The file extensions -o knows, as help and errors list them.
-spec extensions() -> string().
extensions() ->
    lists:flatten(lists:join(", ", [E || {E, _} <- erlperf_output:extensions()])).

-spec multiply(integer(), char()) -> integer() | error.
multiply(N, $K) -> N * 1000;
multiply(N, $M) -> N * 1000000;
multiply(N, $G) -> N * 1000000000;
multiply(_N, _Suffix) -> error.

%% "0.5" or "5": always a float.
-spec ratio(string()) -> float() | error.
ratio(Text) ->
    try list_to_float(Text)
    catch error:badarg ->
        try float(list_to_integer(Text))
        catch error:badarg -> error
        end
    end.

%% "0.5" or "5", kept as written (a float or an integer).
-spec number(string()) -> number() | error.
number(Text) ->
    case string:to_float(Text) of
        {F, ""} -> F;
        _ -> integer(Text)
    end.

-spec integer(string()) -> integer() | error.
integer(Text) ->
    case string:to_integer(Text) of
        {I, ""} -> I;
        _ -> error
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

%%--------------------------------------------------------------------
%% The benchmark: code maps and options

-spec finish(map()) -> parsed().
finish(#{given := #{help := true}}) ->
    (parsed([], #{}, #{}, #{}))#{help := true};
finish(#{given := #{version := true}} = State) ->
    (finish(State#{given := #{help => true}}))#{help := version};
finish(#{codes := [], given := Given}) when not is_map_key(suites, Given),
                                            not is_map_key(history, Given) ->
    usage({missing, code});
finish(#{codes := [_ | _], given := #{suites := _}}) ->
    usage({cannot_combine, "a runner argument", "--suite"});
finish(#{codes := [_ | _], given := #{history := true}}) ->
    usage({cannot_combine, "a runner argument", "--history"});
finish(#{codes := Codes, hooks := Hooks, given := Given, all := All} = State) ->
    ok = combinations(Given),
    Defaults = maps:without(maps:keys(Given), maps:get(defaults, State, #{})),
    parsed(Codes, Hooks, maps:fold(fun front_default/3, Given, Defaults), All).

%% Every rule of the registry holds for the options given.
-spec combinations(map()) -> ok.
combinations(Given) ->
    lists:foreach(fun (Rule) -> combination(Rule, Given) end, erlperf_options:rules()).

%% A front end's default, taken when the registry's rules allow it beside the options given.
-spec front_default(atom(), term(), map()) -> map().
front_default(Key, Value, Given) ->
    With = Given#{Key => Value},
    try combinations(With) of
        ok -> With
    catch
        throw:{?MODULE, _} -> Given
    end.

-spec parsed([code()], map(), map(), map()) -> parsed().
parsed(Codes, Hooks, Given, All) ->
    Project = maps:with([suites, filter, store, save_baseline, history, against],
                        maps:merge(defaults(), Given)),
    maps:merge(Project, benchmark(Codes, Hooks, Given, All)).

-spec benchmark([code()], map(), map(), map()) -> map().
benchmark(Codes, Hooks, Given, All) ->
    Settings = maps:merge(defaults(), Given),
    #{codes => [maps:merge(All, Code) || Code <- code_maps(lists:reverse(Codes), Hooks)],
      run_options => run_options(Given),
      concurrency_options => concurrency_options(Given),
      report => maps:get(report, Settings),
      format => maps:get(format, Settings),
      outputs => distinct(outputs(Settings)),
      verbose => maps:get(verbose, Settings),
      colour => maps:get(colour, Settings),
      baselines => maps:get(baselines, Settings, []),
      gate => maps:get(fail_on_regression, Settings, none),
      fail_on_inconclusive => maps:get(fail_on_inconclusive, Settings, false),
      params => maps:get(params, Settings),
      inputs => maps:get(inputs, Settings, []),
      bytes => maps:get(bytes, Settings),
      paths => maps:get(paths, Settings, []),
      help => false}.

%% A rule of the registry (options that would be silently ignored or refused together)
%% holds for the options given.
-spec combination(erlperf_options:rule(), map()) -> ok.
combination({needs, Key, Others}, Given) ->
    not is_map_key(Key, Given) orelse lists:any(fun (O) -> is_map_key(O, Given) end, Others)
        orelse usage({needs, names(Key), lists:flatten(lists:join(" or ", [names(O) || O <- Others]))}),
    ok;
combination({excludes, Key, Other, _Why}, Given) ->
    given(Key, Given) andalso given(Other, Given)
        andalso usage({cannot_combine, names(Key), names(Other), erlperf_options:why(Key, Other)}),
    ok;
combination({excludes, Key, Other}, Given) ->
    given(Key, Given) andalso given(Other, Given)
        andalso usage({cannot_combine, names(Key), names(Other)}),
    ok.

%% A flag counts as given when true; `{Key, Value}' when given with that value.
-spec given(atom() | {atom(), term()}, map()) -> boolean().
given({Key, Value}, Given) ->
    maps:get(Key, Given, undefined) =:= Value;
given(Key, Given) ->
    maps:get(Key, Given, false) =/= false.

%% An option's names as the user reads them: "-q/--squeeze", "--compare interleaved".
-spec names(atom() | {atom(), atom()}) -> string().
names({Key, Value}) ->
    names(Key) ++ " " ++ atom_to_list(Value);
names(Key) ->
    [Names] = [N || #{key := K, names := N} <- options(benchmark), K =:= Key],
    lists:flatten(lists:join("/", [N || N <- Names, N =/= "--isolation", N =/= "--sample_duration"])).

%% -o (repeatable, in the order given), --save and --html, with the option that names
%% each.
-spec outputs(map()) -> [{string(), file:filename(), erlperf_output:format()}].
outputs(Settings) ->
    [{Name, File, Format}
     || {Key, Name} <- [{output, "-o"}, {save, "--save"}, {html, "--html"}],
        {ok, Value} <- [maps:find(Key, Settings)],
        {File, Format} <- output(Key, Value)].

-spec output(output | save | html, string() | [{string(), erlperf_output:format()}]) ->
    [{string(), erlperf_output:format()}].
output(output, Files) -> Files;
output(save, File) -> [{File, json}];
output(html, File) -> [{File, html}].

%% Every output its own file (the last writer would silently win); the option names
%% are dropped.
-spec distinct([{string(), file:filename(), erlperf_output:format()}]) ->
    [{file:filename(), erlperf_output:format()}].
distinct(Outputs) ->
    _ = lists:foldl(fun ({Name, File, _}, Seen) ->
                            Abs = filename:absname(File),
                            case lists:keyfind(Abs, 1, Seen) of
                                {_, Other} -> usage({same_file, Other, Name, File});
                                false -> [{Abs, Name} | Seen]
                            end
                    end, [], Outputs),
    [{File, Format} || {_, File, Format} <- Outputs].

%% The k-th hook of a kind goes to the k-th runner (erlperf 2.3's CLI.md: "read in the
%% same order as runner codes"); runners after the last hook of a kind get none. Hooks
%% are collected newest first.
-spec code_maps([code()], #{atom() => [term()]}) -> [erlperf_job:code_map()].
code_maps(Runners, Hooks) ->
    lists:foldl(fun (Key, Maps) -> assign(Key, lists:reverse(maps:get(Key, Hooks, [])), Maps) end,
                [#{runner => Runner} || Runner <- Runners],
                [Key || #{key := Key, scope := runner} <- options(benchmark)]).

-spec assign(atom(), [term()], [erlperf_job:code_map()]) -> [erlperf_job:code_map()].
assign(Key, Values, Maps) when length(Values) > length(Maps) ->
    usage({too_many_hooks, Key, length(Values), length(Maps)});
assign(Key, Values, Maps) ->
    {Hooked, Rest} = lists:split(length(Values), Maps),
    [Map#{Key => Value} || {Map, Value} <- lists:zip(Hooked, Values)] ++ Rest.

%% Only what was given: the engine fills in its defaults.
-spec run_options(map()) -> map().
run_options(Given) ->
    Run = maps:with([Key || #{key := Key} = O <- options(benchmark), target(O) =:= run], Given),
    timed(isolation(benchee(Given, Run))).

%% @doc The command line's own defaults of run options, where they differ from the API's
%% (`budget': measured until decided); a benchmark's run options are merged over them.
-spec run_defaults() -> map().
run_defaults() ->
    maps:from_list([{K, D} || #{key := K, cli_default := D} = O <- options(benchmark),
                              target(O) =:= run]).

%% --format benchee shows per-call figures: it times calls one by one unless told
%% otherwise, or estimating concurrency (which cannot).
-spec benchee(map(), map()) -> map().
benchee(#{format := benchee, squeeze := true}, Run) -> Run;
benchee(#{format := benchee}, #{rate := _} = Run) -> Run;   % an open load times every call
benchee(#{format := benchee}, Run) -> maps:merge(#{latency => true}, Run);
benchee(_Given, Run) -> Run.

-spec isolation(map()) -> map().
isolation(#{isolation := true} = Run) -> Run#{isolation => #{}};
isolation(Run) -> maps:remove(isolation, Run).

-spec timed(map()) -> map().
timed(#{loop := _, sample_duration := _}) ->
    usage({cannot_combine, "-l/--loop", "-d/--duration"});
timed(#{loop := Count} = Run) ->
    maps:remove(loop, Run#{sample_duration => {timed, Count}});
timed(Run) ->
    Run.

-spec concurrency_options(map()) -> map() | undefined.
concurrency_options(Given) ->
    Conc = maps:with([Key || #{key := Key, scope := concurrency} <- options(benchmark)], Given),
    case Given of
        #{squeeze := true} -> Conc;
        #{} -> undefined
    end.

%%--------------------------------------------------------------------
%% The performance test and the report

%% -h first; then the load generator is needed.
-spec perf_test(map()) -> perf_test().
perf_test(#{help := true}) ->
    #{help => true};
perf_test(#{perf_test := Help}) when Help =:= "-h"; Help =:= "--help" ->
    #{help => true};   % `--perf-test --help': help, not a file named so
perf_test(#{perf_test := File} = Given) ->
    #{help => false, file => File, paths => maps:get(paths, Given, []),
      options => maps:without([perf_test, paths, help], Given)};
perf_test(#{}) ->
    usage({missing, perf_test}).

-spec render_args([string()], map()) -> map() | {error, reason()}.
render_args([], #{file := _} = Acc) -> Acc;
render_args([], _Acc) -> {error, {missing, render}};
render_args([Name, "" | _], _Acc) when Name =:= "--render"; Name =:= "-o"; Name =:= "--output" ->
    {error, {empty, Name}};
render_args(["--render", File | Rest], Acc) -> render_args(Rest, Acc#{file => File});
render_args([O, Dir | Rest], Acc) when O =:= "-o"; O =:= "--output" -> render_args(Rest, Acc#{out => Dir});
render_args([Other | _], _Acc) -> {error, {render_argument, Other}}.

%%--------------------------------------------------------------------
%% Error text

-spec bad_value(arg(), string(), string()) -> string().
bad_value(regex, Name, Text) ->
    text("~ts: '~ts' is not a regular expression", [Name, Text]);
bad_value(revision, Name, Text) ->
    text("~ts: '~ts' is not a git revision (HEAD~~1, a branch, a tag, a commit)", [Name, Text]);
bad_value(name, Name, Text) ->
    text("~ts: '~ts' is not a baseline name (letters, digits, '.', '_', '-', at most ~b characters)",
         [Name, Text, erlperf_store:max_name()]);
bad_value(forks, Name, Text) ->
    text("~ts: ~ts is not a positive integer or auto", [Name, Text]);
bad_value(count, Name, Text) ->
    text("~ts: '~ts' is not a positive integer (K, M, G suffixes allowed)", [Name, Text]);
bad_value(non_neg_count, Name, Text) ->
    text("~ts: '~ts' is not a non-negative integer", [Name, Text]);
bad_value(ratio, Name, Text) ->
    text("~ts: '~ts' is not a positive number", [Name, Text]);
bad_value(percent, Name, Text) ->
    text("~ts: '~ts' is not a percentage between 0 and 100", [Name, Text]);
bad_value(noise, Name, Text) ->
    text("~ts: '~ts' is not a percentage from 0 to 100", [Name, Text]);
bad_value(output_format, Name, Text) ->
    text("~ts: '~ts' is not ~ts", [Name, Text, either(choices(output_format))]);
bad_value(out_file, Name, Text) ->
    text("~ts: '~ts' has no known extension (~ts)", [Name, Text, extensions()]);
bad_value(gate, Name, Text) ->
    text("~ts: '~ts' is not a percentage (0 or more)", [Name, Text]);
bad_value(profiler, Name, Text) ->
    text("~ts: '~ts' is not ~ts", [Name, Text, erlperf_options:profiler_choices()]);
bad_value(nodes, Name, Text) ->
    text("~ts: no node names in '~ts'", [Name, Text]);
bad_value(files, Name, _Text) ->
    text("~ts needs at least one file", [Name]);
bad_value(rates, Name, Text) ->
    text("~ts: '~ts' is not a rate (500, 10k), a ramp (1k..64k, doubling) or a list of rates "
         "(1k,5k,20k), each a positive integer", [Name, Text]);
bad_value(slo, Name, Text) ->
    text("~ts: '~ts' is not an objective such as p99=5ms (a percentile above 0 and at most "
         "100, then a time in ns, us, ms or s; several with commas)", [Name, Text]);
bad_value(tolerance, Name, Text) ->
    text("~ts needs a percentage (0 or more), got ~ts", [Name, Text]);
bad_value(ms, Name, Text) ->
    text("~ts needs a number of milliseconds from 1 to ~b, got ~ts", [Name, erlperf_options:limit(ms), Text]).

-spec text(io:format(), [term()]) -> string().
text(Format, Args) ->
    lists:flatten(io_lib:format(Format, Args)).

-spec all_hint(atom()) -> string().
all_hint(label) -> "";
all_hint(Key) -> "; --" ++ atom_to_list(Key) ++ "_all applies to every runner".

-spec plural(non_neg_integer()) -> string().
plural(1) -> "";
plural(_) -> "s".
