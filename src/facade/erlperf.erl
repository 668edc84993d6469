%%% @doc The benchmarking API: a thin facade that checks options, picks where the
%%% benchmark runs and shapes the results.
%%%
%%% Modes:
%%% <ul>
%%%   <li><b>continuous</b> (default): workers loop for `samples' periods of
%%%       `sample_duration' ms; each sample is the iterations done in one period,
%%%       normalised to the nominal period with the measured time.</li>
%%%   <li><b>timed</b> (`sample_duration => {timed, N}'): each sample is the time one
%%%       worker takes for N iterations.</li>
%%%   <li><b>concurrency estimation</b> (`run/3', `benchmark/3' with concurrency options):
%%%       continuous runs with more and more workers, until throughput stops growing for
%%%       `threshold' steps; the best run is reported.</li>
%%% </ul>
%%% A <b>sweep</b> (`sweep/2,3') runs the benchmark once per combination of parameter
%%% values, bound to variables of the source text (see {@link erlperf_sweep}).
%%% Layers: this module validates options (defaults in {@link defaults/0}) and picks a
%%% strategy: {@link erlperf_local} on this node, {@link erlperf_isolation} (a peer node
%%% per code) or {@link erlperf_cluster} (several nodes). Each strategy returns full
%%% reports; time (sample schedule, warmup, `cv', precise waiting, concurrency
%%% estimation) belongs to {@link erlperf_sampler}. Results come back as `report'
%%% asks: `basic', `extended' or `full'.
%%%
%%% Example (figures from a run on a 2-core machine):
%%% ```
%%% 1> erlperf:run("rand:uniform().").
%%% 20669889
%%% 2> erlperf:compare(["rand:uniform().", {crypto, strong_rand_bytes, [2]}], #{}).
%%% [17755489,390538]
%%% 3> erlperf:run({code, is_loaded, [local_udp]}, #{warmup => 1}, #{max => 4}).
%%% {678469,1}
%%% 4> [{P, round(Q)} || #{params := P, qps := Q} <- erlperf:sweep(["lists:seq(1, N)."],
%%%                                     #{params => [{'N', [10, 1000]}]})].
%%% [{[{'N',10}],32552399},{[{'N',1000}],573560}]
%%% '''
%%%
%%% Jobs of one call run at the same time and are sampled at the same instants
%%% (`compare => parallel', as erlperf 2.3 documents), one after another
%%% (`compare => sequential'), or take turns sample by sample, the others suspended
%%% (`compare => interleaved'). Every job is stopped, and its module unloaded, before the
%%% call returns or raises. With `forks => N' the measurement is repeated N times, each with
%%% fresh jobs, the samples split among the repetitions ({@link erlperf_forks}); by default
%%% (`auto') codes compared in a full report are forked, and their intervals and verdicts
%%% come from the fork means.
-module(erlperf).

%% API
-export([run/1, run/2, run/3, compare/2, benchmark/3, sweep/2, sweep/3, start/2, time/2,
         format_error/1, is_known_error/1]).

%% Internal exports: default options (from the option registry, erlperf_options).
-export([defaults/0, concurrency_defaults/0, sweep_defaults/0]).
%% Internal exports: suite files (erlperf_suite) take keyword lists as this API does,
%% and are checked for calls that stop the VM when they load.
-export([keywords/1, stopping_calls/1]).
%% Internal export: a suite's benchmark runs beside the reference workload only when it
%% is measured until decided (erlperf_suite_cli).
-export([until_decided/2]).

-export_type([code/0, run_options/0, sweep_options/0, concurrency_options/0, concurrency_test/0,
              report/0, result/0, run_statistics/0, system_information/0, keywords/0]).

-type code() :: erlperf_job:code_map() | erlperf_job:callable() | keywords().
%% Options (and code maps) may also be given as a keyword list, as Elixir writes them:
%% `[{samples, 5}, {report, full}]' is `#{samples => 5, report => full}' (the first of
%% repeated keys counts, as in Elixir's Keyword.get/2).
-type keywords() :: [{atom(), term()}].
%% Run options; the defaults are {@link defaults/0}, from the option registry
%% (`erlperf_options', where each option's type, range and help are written).
-type run_options() :: #{concurrency => pos_integer(),          % workers per job
                         samples => pos_integer(),              % samples kept
                         %% ms per sample; {timed, N}: N iterations per sample;
                         %% undefined (erlperf 2.3's timed mode): `samples' iterations, once
                         sample_duration => pos_integer() | {timed, pos_integer()} | undefined,
                         warmup => non_neg_integer(),           % samples discarded first
                         cv => number() | undefined,            % coefficient of variation
                         report => basic | extended | full,     % result shape
                         priority => erlang:priority_level(),   % of the sampler
                         compare => parallel | sequential | interleaved, % several codes
                         %% independent repetitions, the samples split among them; auto: 1,
                         %% or a few when codes are compared in a full report
                         forks => pos_integer() | auto,
                         %% the results will be compared (with a baseline, or saved to be
                         %% one): `forks => auto' forks as for codes compared, and exact
                         %% counts are taken unless `counts' says otherwise
                         verdicts => boolean(),
                         %% several codes: measured until every verdict is decided, for at
                         %% most so many seconds (auto: when `samples' is not given)
                         budget => pos_integer() | auto | undefined,
                         confidence => number(),                % percent, of intervals and verdicts
                         noise => number(),                     % noise floor of verdicts, percent
                         %% how much whole runs differ beyond one run's own spread, percent
                         %% (a standard deviation), added to every runner's interval
                         run_noise => number(),
                         memory => boolean(),                   % cost per call in result.cost
                         %% exact counts per call (reductions, bytes allocated) in
                         %% result.counts, from one short batch after the run
                         counts => boolean(),
                         latency => boolean(),                  % per-call latency in result.latency
                         %% open load: calls started per second, on a schedule (each
                         %% runner in turn; `concurrency' caps the workers, which grow as
                         %% needed without it); result.rate holds what happened
                         %% (a list: a ramp, each rate in turn)
                         rate => pos_integer() | [pos_integer()] | undefined,
                         arrival => even | poisson,             % the schedule of `rate'
                         %% response-time objectives of `rate', [{Percentile, Ns}]: a
                         %% ramp marks the highest rate holding them and stops after
                         %% the first that does not
                         slo => [{number(), pos_integer()}] | undefined,
                         %% after the run, profile each runner: the report's `profile'
                         profile => erlperf_profile:tool() | undefined,
                         isolation => #{},                      % a peer node per code
                         nodes => [node()],                     % run on these nodes
                         progress => fun((erlperf_sampler:progress() | erlperf_forks:progress())
                                         -> any()),
                         %% with `budget': measured until this says the full reports of
                         %% the forks so far (and the number of planned looks) decide,
                         %% instead of the runners' verdicts; one runner may be measured so
                         decide => fun(([report()], pos_integer()) -> boolean())}.
%% Options of a sweep: run options and these two; the defaults are
%% {@link sweep_defaults/0}. `params': the parameters, `[{Name, Values}]' in the order
%% the combinations go through them, or a map (taken in the order of the names) [[]];
%% `bytes': bytes processed per iteration, an expression of the parameters or a number
%% [undefined]. `report' can only be `full'.
-type sweep_options() :: #{params => erlperf_sweep:params() | #{atom() => [term(), ...]},
                           bytes => erlperf_sweep:bytes() | undefined,
                           atom() => term()}.
%% Concurrency estimation options; the defaults are {@link concurrency_defaults/0}.
-type concurrency_options() :: #{min => pos_integer(), step => pos_integer(),
                                 max => pos_integer(), threshold => pos_integer()}.
%% erlperf 2.3's name for {@link concurrency_options()}.
-type concurrency_test() :: concurrency_options().
-type system_information() :: erlperf_system:info().
%% Statistics of one run. `samples': continuous mode, the raw iteration counter read at
%% the start and after every sample (`samples + 1' integers; forked, a counter from 0
%% adding each fork's increments); timed mode, microseconds per sample. `values': what the statistics are computed from: iterations per
%% `sample_duration' (each sample normalised to the nominal period with the measured
%% time), or microseconds per sample. `iteration_time': nanoseconds per iteration of
%% one worker. `qps': iterations per second, all workers (timed mode: of the one
%% worker). `overdue': samples ending while a worker ran far longer than usual.
%% `ci': the `confidence' interval of the average (undefined for one sample);
%% `outliers': Tukey's fences and the values outside them, counted, never dropped.
%% `cost' (`memory => true'), `counts' (`counts => true' or `memory => true') and
%% `latency' (`latency => true'): measured after the run. `interference' (Linux): per
%% sample, what the host's other programs took of the schedulers' time, and
%% `cpu_values' the samples as they would have been without it (see erlperf_local).
%% `forks': a run of several forks, their sizes, means and variance components.
-type run_statistics() :: #{average := float(), min := number(), max := number(),
                            best := number(), worst := number(), stddev := float(),
                            variance := float(), median := number(), p99 := number(),
                            samples := [non_neg_integer()], values := [number()],
                            time := non_neg_integer(), overdue := non_neg_integer(),
                            iteration_time := float() | infinity, qps := float(),
                            ci => {float(), float()} | undefined,
                            confidence => number(),
                            outliers => erlperf_stat:outliers(),
                            cost => erlperf_cost:cost(),
                            counts => erlperf_cost:counts(),
                            interference => [erlperf_interference:figures()],
                            cpu_values => [float()],
                            latency => erlperf_latency:latency(),
                            forks => erlperf_stat:components()}.
%% A runner against the fastest of the same call (see erlperf_comparison).
-type comparison() :: #{against := binary(), atom() => term()}.
-type report() :: #{version := 1,
                    mode := continuous | timed | concurrency,
                    result := run_statistics(),
                    code := erlperf_job:code_map(),
                    label := binary(),
                    run_options := run_options(),
                    concurrency := pos_integer(),
                    sleep := sleep | busy_wait,
                    warnings := [erlperf_codegen:warning()],
                    system => system_information(),
                    history => [{pos_integer(), run_statistics()}],
                    best_concurrency => pos_integer(),
                    concurrency_options => concurrency_options(),
                    cv_met => boolean(),
                    %% a role left as an interpreted fun ({interpreted, Role} warning): what
                    %% interpreting a call costs in that VM, nanoseconds
                    interpreted_call_ns => float(),
                    qps => float(),
                    relative => float(),
                    comparison => comparison(),
                    %% measured until decided (`budget'): how it went
                    sequential => erlperf_forks:sequential(),
                    %% a suite's benchmark that took turns with the reference workload:
                    %% its code and samples (erlperf_reference:beside/1)
                    reference => #{code := string(), values := [number()]},
                    %% a suite's benchmark: the fingerprint of its code (erlperf_fingerprint)
                    fingerprint => binary(),
                    nodes => #{node() => report()},
                    %% sweeps (see erlperf_sweep): the combination, the best run, and with
                    %% `bytes' the bytes processed per iteration and per second
                    params => erlperf_sweep:combination(),
                    best => boolean(),
                    bytes_processed => number(),
                    bytes_per_second => float(),
                    profile => erlperf_profile:profile()}.
-type result() :: non_neg_integer() | [non_neg_integer()]
                | {non_neg_integer(), pos_integer()}
                | {{non_neg_integer(), pos_integer()}, [{non_neg_integer(), pos_integer()}]}
                | report().

%% Calls that end the VM: code making them is refused unless each runner has a node of
%% its own (`isolation'), as it would end the VM of the caller (or of a load node) with
%% status 0 and no result.
-define(STOPPING_CALLS, [{erlang, halt, 0}, {erlang, halt, 1}, {erlang, halt, 2}, {init, stop, 0},
                         {init, stop, 1}, {init, reboot, 0}, {init, restart, 0}, {init, restart, 1}]).
-define(FORMAT_DEPTH, 12).

%%--------------------------------------------------------------------
%% API

%% @doc Runs a benchmark with the default options: the average iterations per second.
-spec run(code()) -> result().
run(Code) ->
    run(Code, #{}).

%% @doc Runs a benchmark with the given run options.
-spec run(code(), run_options() | keywords()) -> result().
run(Code, RunOptions) ->
    hd(benchmark([Code], RunOptions, undefined)).

%% @doc `run(Module, Function, Args)' benchmarks `{Module, Function, Args}';
%% `run(Code, RunOptions, ConcurrencyOptions)' estimates concurrency.
-spec run(code() | module(), run_options() | keywords() | atom(),
          concurrency_options() | keywords() | [term()]) -> result().
run(Module, Function, Args) when is_atom(Module), is_atom(Function), is_list(Args) ->
    run({Module, Function, Args});
run(Code, RunOptions, ConcurrencyOptions)
  when (is_map(RunOptions) orelse is_list(RunOptions)),
       (is_map(ConcurrencyOptions) orelse is_list(ConcurrencyOptions)) ->
    hd(benchmark([Code], RunOptions, ConcurrencyOptions)).

%% @doc Runs several benchmarks with the same options, at the same time unless
%% `compare => sequential'; a result per code, in order.
-spec compare([code()], run_options() | keywords()) -> [result()].
compare(Codes, RunOptions) when is_list(Codes) ->
    benchmark(Codes, RunOptions, undefined).

%% @doc Runs benchmarks, one job per code; returns a result per code, in order. Jobs run
%% at the same time (`compare => parallel', the default) or one after another
%% (`sequential'); concurrency estimation runs one job at a time.
-spec benchmark([code()], run_options() | keywords(), concurrency_options() | keywords() | undefined) ->
          [result()].
benchmark([_ | _] = Codes, RunOptions, ConcurrencyOptions) ->
    {CodeMaps, #{report := Shape} = Opts, Conc} = prepare(Codes, RunOptions, ConcurrencyOptions),
    [shape(R, Shape) || R <- measure(CodeMaps, Opts, Conc)];
benchmark(Codes, _RunOptions, _ConcurrencyOptions) ->
    erlang:error({invalid_option, code, Codes}).

%% @doc {@link sweep/3} without concurrency estimation.
-spec sweep([code()], sweep_options() | keywords()) -> [report()].
sweep(Codes, Options) ->
    sweep(Codes, Options, undefined).

%% @doc Runs the benchmark of `Codes' once per combination of the `params' values,
%% bound to variables of their source text, and returns full reports: for each
%% combination in turn, one per code, in order. The codes of a combination run as
%% `benchmark/3' runs them (and are compared with each other); every report gets
%% `params' and `best', and with `bytes' also `bytes_processed' and `bytes_per_second'.
%% Raises `{invalid_option, params | bytes, Bad}' for bad options and
%% `{sweep, Reason}' (see {@link format_error/1}) for a parameter no source text uses
%% or bytes that cannot be computed, before anything runs.
-spec sweep([code()], sweep_options() | keywords(), concurrency_options() | keywords() | undefined) ->
          [report()].
sweep(Codes, [{_, _} | _] = Options, ConcurrencyOptions) ->
    sweep(Codes, keywords(Options), ConcurrencyOptions);
sweep([_ | _] = Codes, Options, ConcurrencyOptions) when is_map(Options) ->
    {Sweep, RunOptions} = erlperf_sweep:options(maps:merge(sweep_defaults(), Options)),
    case {Sweep, maps:get(rate, RunOptions, undefined)} of
        {#{bytes := Bytes}, Rate} when Bytes =/= undefined, Rate =/= undefined ->
            erlang:error({incompatible_options, rate, Rate, bytes});
        _ ->
            ok
    end,
    {CodeMaps, Opts, Conc} = prepare(Codes, RunOptions#{report => full}, ConcurrencyOptions),
    erlperf_sweep:run(CodeMaps, Sweep, fun (Bound) -> measure(Bound, Opts, Conc) end);
sweep(Codes, Options, _ConcurrencyOptions) when is_map(Options) ->
    erlang:error({invalid_option, code, Codes});
sweep(_Codes, Options, _ConcurrencyOptions) ->
    erlang:error({invalid_option, run_options, Options}).

%% @doc Starts a job that runs until stopped (`erlperf_job:stop/1', or the application's
%% shutdown) with `Concurrency' workers, under the application's supervisor.
-spec start(code(), non_neg_integer()) -> pid().
start(Code, Concurrency) when is_integer(Concurrency), Concurrency >= 0 ->
    {ok, _} = application:ensure_all_started(erlperf),
    case supervisor:start_child(erlperf_job_sup, [code_map(Code)]) of
        {ok, Job} ->
            ok = erlperf_job:set_concurrency(Job, Concurrency),
            Job;
        {error, Reason} ->
            erlang:error(Reason)
    end.

%% @doc Microseconds taken by `Count' iterations of the runner, like `timer:tc/3'.
-spec time(code(), pos_integer()) -> non_neg_integer().
time(Code, Count) when is_integer(Count), Count > 0 ->
    run(Code, #{sample_duration => undefined, samples => Count}).

%% @doc Renders an error raised by this module's functions as one line of text.
-spec format_error(term()) -> string().
format_error(Reason) ->
    case explain(Reason) of
        unknown -> flat("~0tP", [Reason, ?FORMAT_DEPTH]);
        Text -> Text
    end.

%% @doc Whether {@link format_error/1} explains a reason raised by this module's
%% functions (a bad option or code, a crash of the user's code, an unreachable node, ...);
%% anything else is an internal error.
-spec is_known_error(term()) -> boolean().
is_known_error(Reason) ->
    explain(Reason) =/= unknown.

%% The reasons this module's functions raise, each in words; the one list of them.
-spec explain(term()) -> string() | unknown.
explain({invalid_option, profile, Value}) ->
    flat("invalid value for option profile: ~0tP (the profilers are ~ts)",
         [Value, ?FORMAT_DEPTH, erlperf_profile:choices()]);
explain({invalid_option, Key, Value}) when is_integer(Value); element(1, Value) =:= timed ->
    LimitKey = limit_key(Key, Value),
    Limit = erlperf_options:limit(LimitKey),
    case count(Value) of
        N when is_integer(N), N > Limit ->
            flat("invalid value for option ~ts: ~b is above the limit of ~b~ts",
                 [Key, N, Limit, erlperf_options:limit_reason(LimitKey)]);
        _ ->
            flat("invalid value for option ~ts: ~0tP", [Key, Value, ?FORMAT_DEPTH])
    end;
explain({invalid_option, Key, Value}) ->
    flat("invalid value for option ~ts: ~0tP", [Key, Value, ?FORMAT_DEPTH]);
explain({incompatible_options, compare, interleaved, isolation}) ->
    "compare interleaved cannot be combined with isolation"
        ++ erlperf_options:why(isolation, {compare, interleaved});
explain({incompatible_options, forks, N, {samples, Samples}}) ->
    flat("~b forks need at least ~b samples (a sample per fork), not ~b", [N, N, Samples]);
explain({incompatible_options, forks, N, What}) ->
    flat("~b forks cannot be combined with ~ts: ~ts", [N, forks_what(What), forks_why(What)]);
explain({incompatible_options, rate, Rate, What}) ->
    flat("rate (~ts calls a second) cannot be combined with ~ts~ts",
         [rates(Rate), rate_what(What), erlperf_options:why(rate, rate_key(What))]);
explain({incompatible_options, budget, Budget, What}) ->
    flat("budget (~ts) cannot be combined with ~ts: ~ts",
         [erlperf_units:value(Budget), budget_what(What), budget_why(What)]);
explain({incompatible_options, slo, _Slo, no_rate}) ->
    "slo needs rate: objectives are of an open load's response times";
explain({incompatible_options, profile, Tool, nodes}) ->
    flat("profile (~ts) cannot be combined with nodes~ts", [Tool, erlperf_options:why(profile, nodes)]);
explain({Tag, _, _} = Reason) when Tag =:= profiler_missing; Tag =:= profiler_busy;
                                        Tag =:= profile_failed ->
    erlperf_profile:format_error(Reason);
explain({bad_code, Role, Detail}) ->
    flat("~ts: ~ts", [Role, erlperf_codegen:format_error(Detail)]);
explain({stops_vm, Label, MFA}) ->
    flat("~ts calls ~ts, which would stop erlperf's own VM: run it isolated (-i, or "
         "isolation => #{})", [erlperf_name:text(Label), erlperf_units:function_name(MFA)]);
explain({call_not_returned, What, Label, WaitMs}) when What =:= init; What =:= done; What =:= timed ->
    flat("~ts: ~ts ran nothing for ~ts and was stopped (code that never returns: it "
         "waits for what never comes)",
         [erlperf_name:text(Label), not_returned_what(What), erlperf_units:duration(WaitMs)]);
explain({call_not_returned, What, Label, WaitMs}) ->
    flat("~ts: a call did not return within ~ts while its ~ts were measured after the run "
         "(a runner that never returns cannot be counted)",
         [erlperf_name:text(Label), erlperf_units:duration(WaitMs), not_returned_what(What)]);
explain({crashed, {Role, Label}, {Class, Reason, Stack}}) ->
    flat("~ts of '~ts' crashed: ~ts", [Role, erlperf_name:text(Label), format_crash(Class, Reason, Stack)]);
explain({crashed, Role, {Class, Reason, Stack}}) ->
    flat("~ts crashed: ~ts", [Role, format_crash(Class, Reason, Stack)]);
explain({Tag, _} = Reason) when Tag =:= nodedown; Tag =:= erpc ->
    erlperf_cluster:format_error(Reason);
explain({sweep, _} = Reason) ->
    erlperf_sweep:format_error(Reason);
explain({load_failed, _, _, _} = Reason) ->
    erlperf_cluster:format_error(Reason);
explain({peer_start, _} = Reason) ->
    erlperf_isolation:format_error(Reason);
explain({peer_load, _, _} = Reason) ->
    erlperf_isolation:format_error(Reason);
explain({peer_down, _} = Reason) ->
    erlperf_isolation:format_error(Reason);
explain({job_stopped, Reason}) ->
    flat("the job stopped before the run finished: ~0tP", [Reason, ?FORMAT_DEPTH]);
explain(_Other) ->
    unknown.

%% @doc Default run options (from the option registry, `erlperf_options').
-spec defaults() -> run_options().
defaults() ->
    erlperf_options:defaults(run).

%% @doc Default sweep options (besides the run options).
-spec sweep_defaults() -> #{params := [], bytes := undefined}.
sweep_defaults() ->
    #{params := [], bytes := undefined} = erlperf_options:defaults(sweep).

%% @doc Default concurrency estimation options.
-spec concurrency_defaults() -> concurrency_options().
concurrency_defaults() ->
    erlperf_options:defaults(concurrency).

%%--------------------------------------------------------------------
%% Options

count({timed, N}) -> N;
count(N) -> N.

limit_key(sample_duration, {timed, _}) -> timed;
limit_key(Key, _Value) -> Key.

run_options(#{sample_duration := undefined} = Opts) ->
    %% erlperf 2.3's timed mode: `samples' iterations, measured once
    Count = maps:get(samples, Opts, 1),
    run_options(Opts#{sample_duration => {timed, Count}, samples => 1});
run_options(Opts) when is_map(Opts) ->
    maps:fold(fun (Key, Value, Acc) -> Acc#{Key => checked(run, Key, Value)} end, defaults(), Opts);
run_options(Opts) ->
    erlang:error({invalid_option, run_options, Opts}).

%% A value the registry's type and range of the option admit.
checked(Scope, Key, Value) ->
    erlperf_options:valid(Scope, Key, Value) orelse erlang:error({invalid_option, Key, Value}),
    Value.

%% Code that calls erlang:halt or init:stop, itself or through a module it calls (not
%% OTP's), is refused unless each runner has a node of its own.
check_stopping(_CodeMaps, #{isolation := _}) ->
    ok;
check_stopping(CodeMaps, _Opts) ->
    case [{erlperf_codegen:label(C), MFA}
          || C <- CodeMaps, {ok, _Module, Generated} <- [erlperf_job_code:generate(C)],
             MFA <- stops_vm(erlperf_codegen:calls(Generated))] of
        [] -> ok;
        [{Label, MFA} | _] -> erlang:error({stops_vm, Label, MFA})
    end.

%% The calls among these, or among the calls of the modules they call (not OTP's), that
%% stop the VM.
stops_vm(Calls) ->
    Direct = [C || C <- Calls, lists:member(C, ?STOPPING_CALLS)],
    Root = code:root_dir(),
    Indirect = [C || M <- lists:usort([M || {M, _, _} <- Calls]),
                     Beam <- [code:which(M)], is_list(Beam), not lists:prefix(Root, Beam),
                     C <- stopping_calls(Beam)],
    Direct ++ Indirect.

%% @doc The calls a compiled module makes that would stop the VM it runs in
%% (`erlang:halt/0,1,2', `init:stop/0,1', `init:reboot/0', `init:restart/0,1'): a
%% runner that makes them is refused unless isolated; suite files are checked when
%% they load.
-spec stopping_calls(file:filename() | binary()) -> [mfa()].
stopping_calls(Beam) ->
    [C || C <- erlperf_codegen:calls(Beam), lists:member(C, ?STOPPING_CALLS)].

%% The profiler's modules load, and the profile runs on the node of the jobs.
check_profile(#{profile := undefined}) ->
    ok;
check_profile(#{profile := Tool, nodes := _}) ->
    erlang:error({incompatible_options, profile, Tool, nodes});
check_profile(#{profile := Tool}) ->
    erlperf_profile:check(Tool).

concurrency_options(undefined) ->
    undefined;
concurrency_options(Opts) when is_map(Opts) ->
    Merged = maps:merge(concurrency_defaults(), Opts),
    maps:foreach(fun (Key, Value) -> checked(concurrency, Key, Value) end, Merged),
    #{min := Min, max := Max} = Merged,
    Min =< Max orelse erlang:error({invalid_option, max, Max}),
    Merged;
concurrency_options(Opts) ->
    erlang:error({invalid_option, concurrency_options, Opts}).

code_map(#{runner := _} = Code) -> Code;
code_map(Code) when is_map(Code) -> erlang:error({invalid_option, code, Code});
code_map([{Key, _} | _] = Code) when is_atom(Key) -> code_map(keywords(Code));
code_map(Callable) -> #{runner => Callable}.

%% @doc A keyword list as a map, the first of repeated keys counting (Keyword.get/2); a map
%% as it is; anything else as it is, for the checks to refuse.
-spec keywords(term()) -> term().
keywords(List) when is_list(List) ->
    case lists:all(fun ({K, _}) -> is_atom(K); (_) -> false end, List) of
        true -> maps:from_list(lists:reverse(List));
        false -> List
    end;
keywords(Other) ->
    Other.

%% Options and code maps checked, before anything starts.
prepare(Codes, RunOptions, ConcurrencyOptions) ->
    Given = keywords(RunOptions),
    Opts = run_options(Given),
    Conc = concurrency_options(keywords(ConcurrencyOptions)),
    %% concurrency estimation compares throughputs: it needs continuous mode
    case {Opts, Conc} of
        {#{sample_duration := {timed, _} = Timed}, #{}} ->
            erlang:error({invalid_option, sample_duration, Timed});
        _ ->
            ok
    end,
    CodeMaps = [code_map(C) || C <- Codes],
    _ = [case erlperf_codegen:check(C) of ok -> ok; {error, Reason} -> erlang:error(Reason) end
         || C <- CodeMaps],
    ok = check_stopping(CodeMaps, Opts),
    ok = check_profile(Opts),
    ok = check_rate(Opts, Conc),
    Forks = case Opts of
                #{rate := Rate} when Rate =/= undefined -> 1;
                _ -> erlperf_forks:resolve(length(CodeMaps), Opts, Conc)
            end,
    Decided = until_decided(length(CodeMaps), Opts#{forks => Forks}, Given, Conc),
    {CodeMaps, verdicts(pool(Decided, Given), Conc, Given), Conc}.

%% @doc Whether so many codes run with these options would be measured until decided
%% (`budget', see erlperf_forks:budget/5), as benchmark/3 would decide it.
-spec until_decided(pos_integer(), run_options()) -> boolean().
until_decided(Codes, RunOptions) ->
    Given = keywords(RunOptions),
    Opts = run_options(Given),
    Forks = erlperf_forks:resolve(Codes, Opts, undefined),
    erlperf_forks:budget(Codes, Opts#{forks => Forks}, Given, undefined, runners) =/= undefined.

%% Several codes compared in a full report, measured until decided (`budget', see
%% erlperf_forks:budget/5): taking turns (unless `compare' says otherwise), in samples of
%% erlperf_forks:turn_ms/0 unless `sample_duration' says otherwise.
until_decided(Codes, Opts, Given, Conc) ->
    case erlperf_forks:budget(Codes, Opts, Given, Conc, runners) of
        undefined ->
            maps:remove(decide, Opts#{budget => undefined});
        Seconds ->
            Compare = case is_map_key(isolation, Opts) of
                          true -> maps:get(compare, Opts);
                          false -> maps:get(compare, Given, interleaved)
                      end,
            Opts#{budget => Seconds, compare => Compare,
                  sample_duration => maps:get(sample_duration, Given, erlperf_forks:turn_ms())}
    end.

%% At a rate, `concurrency' given fixes the pool of workers (`rate_pool'); without it
%% the pool grows as calls need. Codes run one after another, as their record says.
pool(#{rate := Rate} = Opts, Given) when Rate =/= undefined ->
    Opts#{rate_pool => maps:get(concurrency, Given, grow), compare => sequential};
pool(Opts, _Given) ->
    Opts.

%% An open load runs each runner in turn for a fixed time, on this node (or an
%% isolated one), with its own timing of every call.
check_rate(#{rate := undefined, slo := Slo}, _Conc) when Slo =/= undefined ->
    erlang:error({incompatible_options, slo, Slo, no_rate});
check_rate(#{rate := undefined}, _Conc) ->
    ok;
check_rate(#{rate := Rate} = Opts, Conc) ->
    Conflicts = [{concurrency_estimation, Conc =/= undefined},
                 {sample_duration, is_tuple(maps:get(sample_duration, Opts))},
                 {latency, maps:get(latency, Opts)},
                 {cv, maps:get(cv, Opts) =/= undefined},
                 {{compare, interleaved}, maps:get(compare, Opts) =:= interleaved},
                 {forks, maps:get(forks, Opts) =/= auto andalso maps:get(forks, Opts) =/= 1},
                 {memory, maps:get(memory, Opts)},
                 {profile, maps:get(profile, Opts) =/= undefined},
                 {warmup, maps:get(warmup, Opts) > 0}],
    case [What || {What, true} <- Conflicts] of
        [] -> ok;
        [What | _] -> erlang:error({incompatible_options, rate, Rate, What})
    end.

%% Results to be compared take exact counts per call (cheap, and what the host's load
%% cannot move), unless asked otherwise or estimating concurrency.
verdicts(#{verdicts := true} = Opts, undefined, Given) ->
    case is_map_key(counts, Given) of
        true -> Opts;
        false -> Opts#{counts => true}
    end;
verdicts(Opts, _Conc, _Given) ->
    Opts.

%% Full reports of codes run together, compared with each other; at a rate, each in
%% turn (they all hold the rate: their throughputs are not compared).
measure(CodeMaps, #{rate := Rate} = Opts, Conc) when Rate =/= undefined ->
    dispatch(CodeMaps, Opts, Conc);
measure(CodeMaps, Opts, Conc) ->
    Run = fun (Codes, ForkOpts) -> dispatch(Codes, ForkOpts, Conc) end,
    Stat = maps:with([confidence, noise, run_noise], Opts),
    case Opts of
        #{budget := Budget} when is_integer(Budget) ->
            Decide = case maps:get(decide, Opts, undefined) of
                         undefined ->
                             fun (Reports, Looks) ->
                                     Annotated = erlperf_comparison:annotate(relative(Reports),
                                                                             Stat#{looks => Looks}),
                                     erlperf_comparison:decided(Annotated)
                             end;
                         Own ->
                             fun (Reports, Looks) ->
                                     Own(erlperf_comparison:annotate(relative(Reports),
                                                                     Stat#{looks => Looks}), Looks)
                             end
                     end,
            Reports = erlperf_forks:until(CodeMaps, maps:remove(decide, Opts), Run, Decide),
            [#{sequential := #{looks := Looks}} | _] = Reports,
            erlperf_comparison:annotate(relative(Reports), Stat#{looks => Looks});
        #{} ->
            Reports = erlperf_forks:run(CodeMaps, Opts, Run),
            erlperf_comparison:annotate(relative(Reports), Stat)
    end.

%%--------------------------------------------------------------------
%% Where to run: strategies below the facade, each returning full reports.

dispatch(CodeMaps, #{nodes := Nodes} = Opts, Conc) ->
    erlperf_cluster:benchmark(Nodes, CodeMaps, maps:remove(nodes, Opts), Conc);
dispatch(_CodeMaps, #{isolation := _, compare := interleaved}, _Conc) ->
    %% turns are taken by suspending workers: all jobs must share one node
    erlang:error({incompatible_options, compare, interleaved, isolation});
dispatch(CodeMaps, #{isolation := Isolation} = Opts, Conc) ->
    Reports = erlperf_isolation:benchmark(CodeMaps, maps:remove(isolation, Opts), Conc),
    [R#{run_options => (maps:get(run_options, R))#{isolation => Isolation}} || R <- Reports];
dispatch(CodeMaps, Opts, Conc) ->
    erlperf_local:benchmark(CodeMaps, Opts, Conc).

%%--------------------------------------------------------------------
%% Result shapes

%% Full reports of several jobs get `qps' (iterations per second, all workers) and
%% `relative' (qps as a fraction of the fastest job's).
relative([_, _ | _] = Reports) ->
    WithQps = [R#{qps => Qps} || #{result := #{qps := Qps}} = R <- Reports],
    Max = lists:max([Q || #{qps := Q} <- WithQps]),
    [R#{relative => case Max == 0 of true -> 0.0; false -> Q / Max end}
     || #{qps := Q} = R <- WithQps];
relative(Reports) ->
    Reports.

%% A full report in the shape `report' asks for: basic and extended results are
%% integers, as erlperf 2.3 returns them.
shape(Report, full) ->
    Report;
shape(#{mode := concurrency, result := #{average := Avg}, concurrency := C}, basic) ->
    {round(Avg), C};
shape(#{mode := concurrency, result := #{average := Avg}, concurrency := C, history := History},
      extended) ->
    {{round(Avg), C}, [{round(A), Conc} || {Conc, #{average := A}} <- History]};
shape(#{result := #{average := Avg}}, basic) ->
    round(Avg);
shape(#{result := #{values := Values}}, extended) ->
    [round(V) || V <- Values].

%%--------------------------------------------------------------------
%% Error text

forks_what(concurrency_estimation) -> "concurrency estimation";
forks_what(What) -> atom_to_list(What).

rates(Rates) when is_list(Rates) -> lists:join(", ", [integer_to_list(R) || R <- Rates]);
rates(Rate) -> integer_to_list(Rate).

rate_what({nodes, N}) -> io_lib:format("~b nodes (each node takes a share of at least one call a second)", [N]);
rate_what(concurrency_estimation) -> "concurrency estimation";
rate_what(sample_duration) -> "a timed sample";
rate_what({compare, interleaved}) -> "compare interleaved";
rate_what(What) -> atom_to_list(What).

rate_key(concurrency_estimation) -> squeeze;
rate_key(sample_duration) -> loop;
rate_key({nodes, _}) -> nodes;
rate_key(What) -> What.

not_returned_what(counts) -> "exact counts";
not_returned_what(memory) -> "memory and time per call";
not_returned_what(init) -> "its init";
not_returned_what(done) -> "its done";
not_returned_what(timed) -> "a timed sample (-l) of its runner".

budget_what(one_runner) -> "a single runner";
budget_what(report) -> "a basic or extended report";
budget_what(concurrency_estimation) -> "concurrency estimation";
budget_what(sample_duration) -> "a timed sample";
budget_what(forks) -> "a number of forks";
budget_what(What) -> atom_to_list(What).

budget_why(one_runner) -> "it measures until the runners' verdicts are decided";
budget_why(report) -> "only a full report holds verdicts";
budget_why(samples) -> "it takes samples until decided; give one or the other";
budget_why(forks) -> "it takes forks until decided; give one or the other";
budget_why(concurrency_estimation) -> "each step is one run";
budget_why(rate) -> "an open load is one run of each runner, for a time";
budget_why(cv) -> "cv samples one run until it is stable";
budget_why(sample_duration) -> "turns are taken sample by sample, for a time";
budget_why(nodes) -> "the nodes run at the same time, once".

forks_why(concurrency_estimation) -> "each step is one run";
forks_why(nodes) -> "the nodes run at the same time, once";
forks_why(cv) -> "cv samples one run until it is stable".

format_crash(error, undef, [{M, F, Args, _} | _]) ->
    Arity = if is_list(Args) -> length(Args); true -> Args end,
    Hint = case {M, code:which(M)} of
               {pg2, _} -> " (pg2 was removed in OTP 24; use pg instead)";
               {_, non_existing} -> missing_module(atom_to_list(M));
               _ -> ""
           end,
    flat("undefined function ~ts~ts", [language_name(M, F, Arity), Hint]);
format_crash(error, #{'__exception__' := true, '__struct__' := Struct} = Exception, Stack) ->
    %% an Elixir exception: its name and message, as Elixir prints them
    %% its message is the user's text: quoted when it holds a line break (erlperf_name)
    flat("~ts: ~ts~ts", [elixir_name(Struct), erlperf_name:text(elixir_message(Struct, Exception)),
                         where(Stack)]);
format_crash(error, erlperf_state_erased, _Stack) ->
    "the runner erased the process dictionary key '$erlperf_publish', where the worker loop "
    "keeps its counter";
format_crash(Class, Reason, Stack) ->
    flat("~ts:~0tP~ts", [Class, Reason, ?FORMAT_DEPTH, where(Stack)]).

%% Where a missing module's code is found: Mix for an Elixir module, -pa for Erlang's.
missing_module("Elixir." ++ Name) ->
    flat(" (module ~ts is not available: compile it with mix compile, or add the dependency "
         "that has it to mix.exs)", [Name]);
missing_module(Name) ->
    flat(" (module ~ts is not available: add its directory with -pa or ERL_LIBS)", [Name]).

%% A function as its language writes it: Elixir's `Foo.bar/0', Erlang's `foo:bar/0'.
language_name(M, F, Arity) ->
    case atom_to_list(M) of
        "Elixir." ++ _ when is_integer(Arity) -> flat("~ts.~ts/~b", [elixir_name(M), F, Arity]);
        _ -> erlperf_units:function_name({M, F, Arity})
    end.

elixir_name(Struct) ->
    case atom_to_list(Struct) of
        "Elixir." ++ Name -> Name;
        Name -> Name
    end.

%% The exception's message/1, when its module is loaded and the call returns a string;
%% else the struct's `message' field, or the struct itself.
elixir_message(Struct, Exception) ->
    try Struct:message(Exception) of
        Message when is_binary(Message) -> Message;
        _ -> field_message(Exception)
    catch
        _:_ -> field_message(Exception)
    end.

field_message(#{message := Message}) when is_binary(Message) -> Message;
field_message(Exception) -> flat("~0tP", [maps:without(['__exception__', '__struct__'], Exception), ?FORMAT_DEPTH]).

where([{M, F, Args, Loc} | _]) when is_atom(M) ->
    Arity = if is_list(Args) -> length(Args); true -> Args end,
    Generated = erlperf_job_code:is_generated(M),
    case proplists:get_value(line, Loc) of
        Line when Generated, is_integer(Line) -> flat(" at line ~b", [Line]);
        _ when Generated -> "";
        undefined -> " in " ++ erlperf_units:function_name({M, F, Arity});
        Line -> flat(" in ~ts, line ~b", [erlperf_units:function_name({M, F, Arity}), Line])
    end;
where(_) ->
    "".

flat(Format, Args) ->
    lists:flatten(io_lib:format(Format, Args)).
