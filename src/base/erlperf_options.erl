%%% @doc The option registry: every option of erlperf, written once. For each option its
%%% API key, where its value goes (the scope), its type and range, its default, its
%%% names on the command line and its help text; and the rules of which options cannot
%%% go together. Everything else is derived from this table: the facade's and the
%%% performance test's checks of API options ({@link valid/2}), their defaults
%%% ({@link defaults/1}), the command line's grammar, help and error texts
%%% (`erlperf_args'), the rebar3 provider's option list ({@link rebar3/0}) and the Mix
%%% task's and the rebar3 provider's default suites ({@link suite_dir/0}). Pure, and in the base layer so that every
%%% layer may read it.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>key</b>: the option's name in the API (`erlperf:run/2' takes
%%%       `#{samples => 5}'); the command line's `-s'/`--samples' set the same key.</li>
%%%   <li><b>scope</b>: where the value goes: `run' (run options of `erlperf:run/2'),
%%%       `concurrency' (concurrency estimation), `sweep' (`erlperf:sweep/3'),
%%%       `perf_test' (`erlperf_perf_test:run/2'), `cli' (the command line's own
%%%       settings), `runner' (a hook of one runner, the k-th for the k-th runner),
%%%       `all_runners' (a hook for every runner without one), `perf_cli' (the
%%%       performance test's command line), `monitor' (`erlperf_monitor:start/1') or
%%%       `cluster_history' (`erlperf_cluster_history:start_link/1').</li>
%%%   <li><b>type</b>: the values the option takes, with its range: `{int, Min, Limit}'
%%%       (an integer from Min to {@link limit/1} of Limit), `{number, Low, High}' (each
%%%       bound `{gt, N}', `{ge, N}', `{lt, N}' or `none'), `{one_of, Atoms}', `boolean',
%%%       `{value, Term}' (exactly Term), `{timed, Type}' (`{timed, N}' with N of Type),
%%%       `{either, Types}', `nodes' (a non-empty list of node names), `map', `path' (a
%%%       string or binary), `list', `string', `term' or `{function, Arity}'.</li>
%%%   <li><b>arg</b>: how the command line reads the option's text (`count': `10K';
%%%       `flag': no value; `choice': one of the words of its `one_of' type; `file', `dir',
%%%       `code', ...); `erlperf_args' parses the text, this module checks the value's
%%%       range. An option of choices needs nothing else of the command line.</li>
%%%   <li><b>rule</b>: `{needs, Key, Keys}' (Key is given only with one of Keys) or
%%%       `{excludes, A, B}' (not both), where A and B are keys or `{Key, Value}' (the
%%%       option given with that value), possibly with a fourth element: why not
%%%       ({@link why/2}).</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% 1> maps:get(samples, erlperf_options:defaults(run)).
%%% 3
%%% 2> erlperf_options:valid(run, confidence, 120).
%%% false
%%% 3> #{names := Names} = erlperf_options:find(samples), Names.
%%% ["-s","--samples"]
%%% '''
-module(erlperf_options).

-export([all/0, auto_budget/1, find/1, find/2, defaults/1, default/1, valid/3, check/2,
         valid_type/2, limit/1, limit_reason/1,
         rules/0, why/2, rebar3/0, suite_dir/0, profilers/0, profiler_choices/0]).

-export_type([option/0, scope/0, type/0, arg/0, rule/0]).

-type scope() :: run | concurrency | sweep | perf_test | cli | runner | all_runners | perf_cli
               | monitor | cluster_history.
-type bound() :: {gt | ge | lt | le, number()} | none.
-type type() :: {int, integer(), atom()} | {number, bound(), bound()} | {one_of, [atom()]}
              | boolean | {value, term()} | {timed, type()} | {either, [type()]} | nodes | map
              | path | list | string | term | {function, arity()} | {list_of, type()} | slo.
%% How the command line reads an option's text (see erlperf_args).
-type arg() :: flag | no_flag | count | non_neg_count | choice | ratio | percent
             | noise | code | text | regex | name | dir | nodes | output_format | file | out_file
             | gate | param | bytes | profiler | files | tolerance | ms | forks | input
             | revision | rates | slo.
-type option() :: #{key := atom(), scope := scope(), type := type(), help := string(),
                    names := [string()],          % [] when the command line has none
                    arg => arg(),                 % the command line's reading
                    metavar => string(),          % the value's name in the help
                    default => term(),
                    cli_default => term(),        % the command line's, when it differs
                    cli_type => type(),           % the command line's, when it differs
                    repeat => true,               % the command line adds each value to a list
                    api => false,                 % the command line's alone
                    rebar3 => string()}.          % its line in `rebar3 help erlperf'
-type rule() :: {needs, atom(), [atom()]}
              | {excludes, atom() | {atom(), term()}, atom() | {atom(), term()}}
              | {excludes, atom() | {atom(), term()}, atom() | {atom(), term()}, Why :: string()}.

%% Run noise by default, percent: the standard deviation by which whole runs of the same
%% code differed beyond what one run showed, measured by `make bench-calibration' on the
%% 2-core machine CI uses (see doc/cli.md, "What an interval covers").
-define(RUN_NOISE, 1.0).
%% Processes of this node kept for erlperf and the system: concurrency (and the
%% concurrency estimation's `max') stays this far below the process limit.
-define(RESERVED_PROCESSES, 1000).
%% The longest a receive, or a timer, can wait (milliseconds): the longest sample, the
%% performance test's longest `timeout' and `interval' (about 49 days).
-define(MAX_WAIT_MS, 16#FFFFFFFF).
%% Iterations of one timed sample: a small integer on a 64-bit VM, so the counting
%% loop never works on bignums.
-define(MAX_TIMED_ITERATIONS, (1 bsl 59 - 1)).
%% Samples, warmup samples and steps without gain.
-define(MAX_SAMPLES, 16#FFFFFFFF).
%% Calls a second of an open load: one pacer hands each call to a worker in a message,
%% which costs about a microsecond (see doc/cli.md, "Open load").
-define(MAX_RATE, 1000000).
%% Seconds a run measures until decided when `budget' is `auto': several runners in one
%% run, and a suite's benchmark against a git revision (each turn a call to each
%% version's node, and two nodes' forks to take).
-define(AUTO_BUDGET_S, 30).
-define(AUTO_BUDGET_AGAINST_S, 45).
%% Where suite runs are kept unless `--store' says.
-define(STORE, "_build/erlperf").
%% The suite files' directory of a project (rebar3 erlperf, mix erlperf).
-define(SUITE_DIR, "bench").

-if(?OTP_RELEASE >= 27).
-define(PROFILERS, [eprof, fprof, cprof, tprof]).
-define(PROFILER_CHOICES, "eprof, fprof, cprof or tprof").
-else.
-define(PROFILERS, [eprof, fprof, cprof]).
-define(PROFILER_CHOICES, "eprof, fprof or cprof (tprof needs OTP 27 or later; this is OTP "
                          ++ integer_to_list(?OTP_RELEASE) ++ ")").
-endif.

-define(COUNT(Key), {int, 1, Key}).
-define(PERCENT, {number, {gt, 0}, {lt, 100}}).
-define(NOISE, {number, {ge, 0}, {lt, 100}}).
-define(NON_NEGATIVE, {number, {ge, 0}, none}).
-define(POSITIVE, {number, {gt, 0}, none}).

%%--------------------------------------------------------------------
%% API

%% @doc Every option, in the order the help lists them.
-spec all() -> [option()].
all() ->
    benchmark() ++ perf_test() ++ monitoring().

%% @doc The option of a key (the benchmark's first: `paths' and `help' are both
%% command lines').
-spec find(atom()) -> option().
find(Key) ->
    case [O || #{key := K} = O <- all(), K =:= Key] of
        [Option | _] -> Option;
        [] -> erlang:error({invalid_option, Key, unknown})
    end.

%% @doc The defaults of a scope's options that have one.
-spec defaults(scope()) -> #{atom() => term()}.
defaults(Scope) ->
    maps:from_list([{K, D} || #{key := K, scope := S, default := D} <- all(), S =:= Scope]).

%% @doc Seconds a run measures until decided when `budget' is `auto': `runners'
%% compared in one run, or a benchmark measured `against' a git revision.
-spec auto_budget(runners | against) -> pos_integer().
auto_budget(runners) ->
    ?AUTO_BUDGET_S;
auto_budget(against) ->
    ?AUTO_BUDGET_AGAINST_S.

%% @doc One option's default.
-spec default(atom()) -> term().
default(Key) ->
    maps:get(default, find(Key)).

%% @doc The option of a key in a scope, or `error' when the scope has no such option
%% (for the API: an unknown key).
-spec find(scope(), atom()) -> {ok, option()} | error.
find(Scope, Key) ->
    case [O || #{key := K, scope := S} = O <- all(), K =:= Key, S =:= Scope] of
        [Option] -> {ok, Option};
        [] -> error
    end.

%% @doc Whether `Value' is in the type and range of option `Key' of `Scope', as the API
%% takes it (an unknown key, or one of the command line alone, is not valid).
-spec valid(scope(), atom(), term()) -> boolean().
valid(Scope, Key, Value) ->
    case find(Scope, Key) of
        {ok, #{api := false}} -> false;
        {ok, #{type := Type}} -> valid_type(Type, Value);
        error -> false
    end.

%% @doc The options of an API call of `Scope', checked, with the scope's defaults for
%% those not given; raises `{invalid_option, Key, Value}' for an unknown key or a value out
%% of its type and range.
-spec check(scope(), #{atom() => term()}) -> #{atom() => term()}.
check(Scope, Options) ->
    maps:foreach(fun (Key, Value) ->
                         valid(Scope, Key, Value) orelse erlang:error({invalid_option, Key, Value})
                 end, Options),
    maps:merge(defaults(Scope), Options).

%% @doc Whether `Value' is of `Type' (see the glossary).
-spec valid_type(type(), term()) -> boolean().
valid_type({int, Min, Limit}, V) -> is_integer(V) andalso V >= Min andalso V =< limit(Limit);
valid_type({number, Low, High}, V) -> is_number(V) andalso above(Low, V) andalso below(High, V);
valid_type({one_of, Atoms}, V) -> lists:member(V, Atoms);
valid_type(boolean, V) -> is_boolean(V);
valid_type({value, Term}, V) -> V =:= Term;
valid_type({timed, Type}, {timed, V}) -> valid_type(Type, V);
valid_type({timed, _Type}, _V) -> false;
valid_type({either, Types}, V) -> lists:any(fun (T) -> valid_type(T, V) end, Types);
valid_type(nodes, V) -> is_list(V) andalso V =/= [] andalso lists:all(fun is_atom/1, V);
valid_type(map, V) -> is_map(V);
valid_type(path, V) -> is_list(V) orelse is_binary(V);
valid_type(list, V) -> is_list(V);
valid_type(string, V) -> is_list(V);
valid_type(term, _V) -> true;
valid_type({function, Arity}, V) -> is_function(V, Arity);
valid_type({list_of, Type}, V) ->
    is_list(V) andalso V =/= [] andalso lists:all(fun (E) -> valid_type(Type, E) end, V);
valid_type(slo, V) ->
    is_list(V) andalso V =/= [] andalso
        lists:all(fun ({P, Ns}) -> is_number(P) andalso P > 0 andalso P =< 100 andalso
                                       is_integer(Ns) andalso Ns > 0;
                      (_) -> false
                  end, V).

%% @doc The highest value an integer option may take: `concurrency', `min', `step' and
%% `max' stay 1000 processes below this node's process limit; `sample_duration' and
%% `ms' (the performance test's `timeout' and `interval') at most 2^32-1 ms (the longest
%% wait of a receive); `timed' (the iterations of a timed sample) at most 2^59-1;
%% `samples', `warmup' and `threshold' at most 2^32-1.
-spec limit(atom()) -> pos_integer().
limit(Key) when Key =:= concurrency; Key =:= min; Key =:= step; Key =:= max ->
    erlang:system_info(process_limit) - ?RESERVED_PROCESSES;
limit(Key) when Key =:= sample_duration; Key =:= ms -> ?MAX_WAIT_MS;
limit(timed) -> ?MAX_TIMED_ITERATIONS;
limit(rate) -> ?MAX_RATE;
limit(_SamplesWarmupOrThreshold) -> ?MAX_SAMPLES.

%% @doc Why a count has its limit, as the end of an error text (may be empty).
-spec limit_reason(atom()) -> string().
limit_reason(Key) when Key =:= concurrency; Key =:= min; Key =:= step; Key =:= max ->
    lists:flatten(io_lib:format(" (this node's process limit, ~b, less ~b kept for erlperf and the "
                                "system; emulator flag +P raises it)",
                                [erlang:system_info(process_limit), ?RESERVED_PROCESSES]));
limit_reason(Key) when Key =:= sample_duration; Key =:= ms ->
    " milliseconds (the longest wait of a receive)";
limit_reason(rate) ->
    " calls a second (one process hands out every call)";
limit_reason(_Key) -> "".

%% @doc Options that would be silently ignored or refused together: the first needs one
%% of the others, or cannot go with the second. Keys are the API's (`squeeze' and
%% `loop' are the command line's words for concurrency estimation and a timed sample).
-spec rules() -> [rule()].
rules() ->
    [{needs, fail_on_regression, [baselines, suites]},
     {needs, fail_on_inconclusive, [fail_on_regression]},
     {needs, filter, [suites]},
     {needs, save_baseline, [suites]},
     {needs, store, [suites, history]},
     {needs, against, [suites]},
     {needs, min, [squeeze]},
     {needs, step, [squeeze]},
     {needs, max, [squeeze]},
     {needs, threshold, [squeeze]},
     {needs, arrival, [rate]},
     {needs, slo, [rate]},
     {excludes, against, baselines},
     {excludes, against, save_baseline},
     {excludes, against, store},
     {excludes, against, history},
     {excludes, squeeze, suites},
     {excludes, params, suites},
     {excludes, inputs, suites},
     {excludes, inputs, params},
     {excludes, bytes, suites},
     {excludes, isolation, suites},
     {excludes, nodes, suites},
     {excludes, loop, squeeze,
      "concurrency estimation compares throughputs, and a timed sample measures time"},
     {excludes, loop, sample_duration},
     {excludes, latency, squeeze},
     {excludes, memory, squeeze},
     {excludes, isolation, nodes},
     {excludes, rate, squeeze, "an open load holds the rate whatever the concurrency"},
     {excludes, rate, loop, "an open load runs for a time, not a number of calls"},
     {excludes, rate, latency, "an open load times every call already"},
     {excludes, rate, cv, "an open load runs for a fixed time"},
     {excludes, rate, forks, "an open load is one run of each runner, for a time"},
     {excludes, rate, {compare, interleaved}, "each runner takes the rate in turn"},
     {excludes, rate, memory,
      "an open load measures its calls' times, not their cost (run without --rate for it)"},
     {excludes, rate, profile,
      "an open load is not profiled (run without --rate to profile the runner)"},
     {excludes, rate, warmup,
      "an open load takes no warmup samples: every call due is measured"},
     {excludes, rate, bytes,
      "an open load's throughput is the rate it was given, not the code's"},
     {excludes, history, {format, benchee}, "the history has no Benchee layout"},
     {excludes, history, {format, 'github-action-benchmark'},
      "the history is not a benchmark run such a service reads"},
     {excludes, history, {format, bencher},
      "the history is not a benchmark run such a service reads"},
     {excludes, profile, nodes, "a profile is of one node's workers"},
     {excludes, isolation, {compare, interleaved},
      "jobs take turns by suspending each other's workers, so they must share one node"}].

%% @doc Why two options cannot go together, as the end of an error text ("" when the
%% rule says no more).
-spec why(atom() | {atom(), term()}, atom() | {atom(), term()}) -> string().
why(A, B) ->
    case [W || {excludes, X, Y, W} <- rules(), {X, Y} =:= {A, B} orelse {X, Y} =:= {B, A}] of
        [Why] -> ": " ++ Why;
        [] -> ""
    end.

%% @doc The options `rebar3 erlperf' declares to rebar3, as its option specs; the values
%% are read back from the arguments by erlperf's own parser.
-spec rebar3() -> [{atom(), undefined, string(), string, string()}].
rebar3() ->
    [{K, undefined, long(Names), string, Help} || #{key := K, names := Names, rebar3 := Help} <- all()].

%% @doc The directory of a project's suite files (`rebar3 erlperf', `mix erlperf' run
%% them when given no runner and no `--suite').
-spec suite_dir() -> string().
suite_dir() ->
    ?SUITE_DIR.

%% @doc The profilers this OTP release has: tprof from OTP 27 on.
-spec profilers() -> [atom()].
profilers() ->
    ?PROFILERS.

%% @doc The profilers, as a phrase for messages: before OTP 27, "eprof, fprof or cprof
%% (tprof needs OTP 27 or later; this is OTP 25)".
-spec profiler_choices() -> string().
profiler_choices() ->
    ?PROFILER_CHOICES.

%%--------------------------------------------------------------------
%% The table

-spec benchmark() -> [option()].
benchmark() ->
    [#{key => concurrency, scope => run, names => ["-c", "--concurrency"], arg => count,
       type => ?COUNT(concurrency), default => 1, help => "workers running each runner"},
     #{key => sample_duration, scope => run, names => ["-d", "--duration", "--sample_duration"],
       arg => count, default => 1000,
       %% undefined: erlperf 2.3's timed mode, `samples' iterations measured once
       type => {either, [?COUNT(sample_duration), {timed, ?COUNT(timed)}, {value, undefined}]},
       help => "milliseconds per sample"},
     #{key => samples, scope => run, names => ["-s", "--samples"], arg => count,
       type => ?COUNT(samples), default => 3, help => "samples to collect"},
     #{key => loop, scope => run, names => ["-l", "--loop"], arg => count, api => false,
       type => ?COUNT(timed),
       help => "timed mode: each sample is the time of N iterations (10M = 10 million)"},
     #{key => warmup, scope => run, names => ["-w", "--warmup"], arg => non_neg_count,
       type => {int, 0, warmup}, default => 0, help => "samples to take and discard first"},
     #{key => cv, scope => run, names => ["--cv"], arg => ratio,
       type => {either, [?POSITIVE, {value, undefined}]}, default => undefined,
       help => "sample until the coefficient of variation is at most this (e.g. 0.05)"},
     #{key => report, scope => run, names => ["-r", "--report"], arg => choice, metavar => "FORMAT",
       type => {one_of, [basic, extended, full]}, default => basic, cli_default => auto,
       cli_type => {one_of, [auto, basic, extended, full]},
       help => "basic, extended or full; auto is extended from 10 samples"},
     #{key => priority, scope => run, names => [], type => {one_of, [low, normal, high, max]},
       default => high, help => "the sampler's process priority"},
     #{key => format, scope => cli, names => ["--format"], arg => output_format, type => term,
       default => text,
       help => "standard output: FORMATS (text: tables; benchee: text laid out as Benchee "
               "prints it, calls timed one by one unless -q)"},
     #{key => output, scope => cli, names => ["-o", "--output"], arg => out_file, type => term,
       repeat => true,
       help => "also write the results to FILE, as its extension says (EXTENSIONS); "
               "repeatable"},
     #{key => save, scope => cli, names => ["--save"], arg => file, type => path,
       help => "write the results record (JSON) to FILE, atomically"},
     #{key => html, scope => cli, names => ["--html"], arg => file, type => path,
       help => "write an HTML report with charts to FILE (self-contained; see also --render)"},
     #{key => baselines, scope => cli, names => ["--baseline"], arg => file, type => path,
       repeat => true, rebar3 => "Compare with the stored run NAME.",
       help => "compare each runner with a saved record (--save); repeatable"},
     #{key => fail_on_regression, scope => cli, names => ["--fail-on-regression"], arg => gate,
       type => {either, [?NON_NEGATIVE, {value, none}]}, default => none,
       rebar3 => "Exit 3 when a benchmark is significantly slower by more than PCT percent.",
       help => "exit 3 when a runner is significantly slower than a baseline by more than PCT "
               "percent, or an exact count per call (bytes, reductions) grew by more"},
     #{key => fail_on_inconclusive, scope => cli, names => ["--fail-on-inconclusive"],
       arg => flag, type => boolean, default => false,
       help => "with --fail-on-regression: exit 3 on an inconclusive verdict too (the host's "
               "load changed, too few samples, an interval too wide to tell); without it, a "
               "warning on stderr"},
     #{key => suites, scope => cli, names => ["--suite"], arg => file, type => path,
       repeat => true, default => [],
       rebar3 => "Suite files: a directory or files (default: " ?SUITE_DIR ").",
       help => "run the benchmark suites of FILE (.erl) or of the .erl files in a directory "
               "(repeatable); each run is kept in the store and compared with the previous one"},
     #{key => filter, scope => cli, names => ["--filter"], arg => regex,
       type => {either, [string, {value, undefined}]}, default => undefined, rebar3 => "Only the benchmarks whose names match REGEX.",
       help => "--suite: only the benchmarks whose name matches REGEX"},
     #{key => store, scope => cli, names => ["--store"], arg => dir, type => path,
       default => ?STORE, rebar3 => "Directory of the stored runs (default: " ?STORE ").",
       help => "--suite, --history: the results store"},
     #{key => save_baseline, scope => cli, names => ["--save-baseline"], arg => name,
       type => {either, [string, {value, undefined}]}, default => undefined, rebar3 => "Store this run as NAME.",
       help => "--suite: also keep this run as the baseline NAME (--baseline NAME compares "
               "with it)"},
     #{key => against, scope => cli, names => ["--against"], arg => revision, type => string,
       rebar3 => "Compare with git revision REV, built and run beside the working tree (not "
                 "stored).",
       help => "--suite: also run every benchmark on git revision REV (built in a temporary "
               "worktree), its forks taking turns with the current code's, and compare with "
               "REV instead of the previous run (the run is not stored)"},
     #{key => history, scope => cli, names => ["--history"], arg => flag, type => boolean,
       default => false,
       help => "the store's history: text summary, and an HTML page (store/history.html "
               "unless -o)"},
     #{key => colour, scope => cli, names => ["--color", "--colour"], arg => choice,
       metavar => "WHEN", type => {one_of, [auto, always, never]}, default => auto,
       help => "colour in the table: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), "
               "always or never"},
     #{key => verbose, scope => cli, names => ["-v", "--verbose"], arg => flag, type => boolean,
       default => false, help => "print generated code and a VM monitor line every second"},
     #{key => paths, scope => cli, names => ["-pa"], arg => dir, type => path, repeat => true,
       help => "add DIR to the code path (repeatable)"},
     #{key => forks, scope => run, names => ["--forks"], arg => forks,
       type => {either, [{value, auto}, ?COUNT(samples)]}, default => auto,
       help => "N independent repetitions (fresh code and workers each), the samples split "
               "among them; auto: forks when verdicts are asked for (several runners, "
               "--baseline, --save)"},
     #{key => verdicts, scope => run, names => [], type => boolean, default => false,
       help => "the results will be compared (with a baseline, or saved to be one): forks "
               "auto forks, and exact counts per call are taken, as for several runners"},
     #{key => compare, scope => run, names => ["--compare"], arg => choice, metavar => "HOW",
       type => {one_of, [parallel, sequential, interleaved]}, default => parallel,
       help => "several runners: parallel (at the same time), sequential or interleaved "
               "(taking turns)"},
     #{key => budget, scope => run, names => ["--budget"], arg => forks, metavar => "SECONDS",
       type => {either, [{value, undefined}, {value, auto}, ?COUNT(budget)]},
       default => undefined, cli_default => auto,
       help => "several runners: measure them taking turns, in forks, until every verdict is "
               "decided (a sequential test: the interval holds over all its looks), for at most "
               "SECONDS; auto: " ++ integer_to_list(?AUTO_BUDGET_S) ++ " (" ++
               integer_to_list(?AUTO_BUDGET_AGAINST_S) ++ " with --against) when -s is not given"},
     #{key => confidence, scope => run, names => ["--confidence"], arg => percent,
       type => ?PERCENT, default => 95, help => "confidence of intervals and verdicts, percent"},
     #{key => noise, scope => run, names => ["--noise"], arg => noise, type => ?NOISE,
       default => 1, help => "noise floor, percent: smaller changes are never called significant"},
     #{key => run_noise, scope => run, names => ["--run-noise"], arg => noise, type => ?NOISE,
       default => ?RUN_NOISE,
       help => "how much whole runs differ beyond what one run shows, percent (a standard "
               "deviation): added to each runner's interval and to verdicts against baselines"},
     #{key => isolation, scope => run, names => ["-i", "--isolated", "--isolation"], arg => flag,
       type => map, help => "run each runner in a fresh peer node"},
     #{key => memory, scope => run, names => ["--memory"], arg => flag, type => boolean,
       default => false,
       help => "also measure each runner's cost per call: heap bytes, reductions, CPU and wall "
               "time"},
     #{key => counts, scope => run, names => [], type => boolean, default => false,
       help => "exact counts per call (reductions, bytes allocated), from one short batch after "
               "the run"},
     #{key => params, scope => sweep, names => ["--param"], arg => param, type => term,
       default => [],
       help => "sweep: run once per value of the variable NAME of the code (repeatable: every "
               "combination)"},
     #{key => inputs, scope => cli, names => ["--input"], arg => input, type => term,
       help => "run once per input NAME=CODE: CODE's value (evaluated once) is each runner's "
               "argument (repeatable; the runners take one argument)"},
     #{key => bytes, scope => sweep, names => ["--bytes"], arg => bytes, type => term,
       default => undefined,
       help => "bytes processed per iteration, an expression of the parameters (N * 8): adds "
               "bytes/s"},
     #{key => rate, scope => run, names => ["--rate"], arg => rates, metavar => "R",
       type => {either, [{int, 1, rate}, {list_of, {int, 1, rate}}, {value, undefined}]},
       default => undefined,
       help => "open load: start R calls a second (K, M suffixes) whether or not earlier ones "
               "returned; response times from each call's intended start, service times from "
               "its actual start; -c caps the workers (default: as many as needed). A ramp: "
               "1k..64k (doubling) or 1k,5k,20k, each rate in turn"},
     #{key => slo, scope => run, names => ["--slo"], arg => slo, metavar => "PCT=TIME",
       type => {either, [slo, {value, undefined}]}, default => undefined,
       help => "open load: the response times to hold, p99=5ms (p50, p99.9, ... ; ns, us, ms, "
               "s; several with commas): the highest rate of a ramp that holds them is marked "
               "(the knee), and the ramp stops after the first rate that does not"},
     #{key => arrival, scope => run, names => ["--arrival"], arg => choice, metavar => "HOW",
       type => {one_of, [even, poisson]}, default => even,
       help => "open load: calls evenly spaced, or arriving as a Poisson process"},
     #{key => latency, scope => run, names => ["--latency"], arg => flag, type => boolean,
       default => false,
       help => "also time each runner's calls one by one: latency percentiles, p50 to max"},
     #{key => profile, scope => run, names => ["--profile"], arg => profiler,
       type => {either, [{one_of, ?PROFILERS}, {value, undefined}]}, default => undefined,
       help => "after the run, profile each runner briefly with TOOL and list its top "
               "functions: " ++ ?PROFILER_CHOICES},
     #{key => nodes, scope => run, names => ["--nodes"], arg => nodes, type => nodes,
       help => "run on these nodes at once (a@h,b@h), add results up"},
     #{key => progress, scope => run, names => [], type => {function, 1},
       help => "a fun called with each progress event"},
     #{key => decide, scope => run, names => [], type => {function, 2},
       help => "with a budget: a fun of the full reports of the forks so far and the planned "
               "looks, true when the run is decided (instead of the runners' verdicts), so "
               "that one runner can be measured until its comparison with a saved run is "
               "decided"},
     #{key => turn_gate, scope => run, names => [], type => {function, 1},
       help => "compare interleaved: a fun called before each turn (start) and after it "
               "({done, Iterations, NativeTime}), so that turns can be taken with jobs of "
               "other nodes"},
     #{key => squeeze, scope => cli, names => ["-q", "--squeeze"], arg => flag, type => boolean,
       default => false, help => "concurrency estimation: add workers while throughput grows"},
     #{key => min, scope => concurrency, names => ["--min"], arg => count, type => ?COUNT(min),
       default => 1, help => "squeeze: first concurrency tried"},
     #{key => step, scope => concurrency, names => ["--step"], arg => count,
       type => ?COUNT(step), default => 1, help => "squeeze: workers added per step"},
     #{key => max, scope => concurrency, names => ["--max"], arg => count, type => ?COUNT(max),
       default => limit(max), help => "squeeze: highest concurrency tried (process limit - 1000)"},
     #{key => threshold, scope => concurrency, names => ["-t", "--threshold"], arg => count,
       type => ?COUNT(threshold), default => 3,
       help => "squeeze: stop after N steps without a throughput gain"},
     #{key => init, scope => runner, names => ["--init"], arg => code, type => term,
       help => "code run once before the runner starts"},
     #{key => done, scope => runner, names => ["--done"], arg => code, type => term,
       help => "code run once when the runner stops"},
     #{key => init_runner, scope => runner, names => ["--init_runner"], arg => code, type => term,
       help => "code run in each worker; its result is the runner's argument"},
     #{key => label, scope => runner, names => ["--label"], arg => text, type => term,
       help => "name shown in the Code column"},
     #{key => init_all, scope => all_runners, names => ["--init_all"], arg => code, type => term,
       help => "--init for runners without one"},
     #{key => done_all, scope => all_runners, names => ["--done_all"], arg => code, type => term,
       help => "--done for runners without one"},
     #{key => init_runner_all, scope => all_runners, names => ["--init_runner_all"], arg => code,
       type => term, help => "--init_runner for runners without one"},
     #{key => help, scope => cli, names => ["-h", "--help"], arg => flag, type => boolean,
       default => false, help => "print this help"},
     #{key => version, scope => cli, names => ["--version"], arg => flag, type => boolean,
       help => "print erlperf's and OTP's versions"}].

-spec perf_test() -> [option()].
perf_test() ->
    [#{key => perf_test, scope => perf_cli, names => ["--perf-test"], arg => file, type => path,
       help => "run the performance test of the load generator FILE (.erl, or a module name)"},
     #{key => out_dir, scope => perf_test, names => ["--out-dir"], arg => dir, type => path,
       default => "erlperf_results", help => "write results to DIR/<test name>-<timestamp>/"},
     #{key => custom_agents, scope => perf_test, names => ["--custom-agents"], arg => files,
       type => list, repeat => true, default => [],
       help => "custom agents to put on the test nodes (a.erl,b.erl)"},
     #{key => baseline, scope => perf_test, names => ["--baseline"], arg => file,
       type => {either, [{value, none}, path, map]}, default => none,
       help => "compare time per call with a results.json of an earlier test (exit 3 when "
               "worse)"},
     #{key => tolerance, scope => perf_test, names => ["--tolerance"], arg => tolerance,
       type => ?NON_NEGATIVE, default => 10, help => "how much worse than the baseline still passes"},
     #{key => interval, scope => perf_test, names => ["--interval"], arg => ms,
       type => ?COUNT(ms), default => 1000, help => "milliseconds between two metrics samples"},
     #{key => compensate, scope => perf_test, names => ["--no-compensation"], arg => no_flag,
       type => boolean, default => true,
       help => "keep the agents' own cost in call times (the impact benchmark is skipped)"},
     #{key => timeout, scope => perf_test, names => ["--timeout"], arg => ms, type => ?COUNT(ms),
       default => 60000, help => "milliseconds a load generator callback may take"},
     #{key => progress, scope => perf_test, names => [],
       type => {either, [{value, none}, {function, 1}]}, default => none,
       help => "a fun called with each event"},
     #{key => write, scope => perf_test, names => [], type => boolean, default => true,
       help => "write the record to out_dir"},
     #{key => paths, scope => perf_cli, names => ["-pa"], arg => dir, type => path,
       repeat => true, help => "add DIR to the code path (repeatable)"},
     #{key => help, scope => perf_cli, names => ["-h", "--help"], arg => flag, type => boolean,
       help => "print this help"}].

-spec monitoring() -> [option()].
monitoring() ->
    [#{key => interval, scope => monitor, names => [], type => ?COUNT(ms), default => 1000,
       help => "milliseconds between two samples of the VM"},
     #{key => duration, scope => cluster_history, names => [], type => ?COUNT(ms),
       default => 120000, help => "milliseconds of samples kept"}].

%%--------------------------------------------------------------------
%% Internal functions

-spec above(bound(), number()) -> boolean().
above(none, _V) -> true;
above({gt, N}, V) -> V > N;
above({ge, N}, V) -> V >= N.

-spec below(bound(), number()) -> boolean().
below(none, _V) -> true;
below({lt, N}, V) -> V < N;
below({le, N}, V) -> V =< N.

%% "--save-baseline" as rebar3 declares it: "save-baseline".
-spec long([string()]) -> string().
long(Names) ->
    [Long | _] = [N || "--" ++ N <- Names],
    Long.
