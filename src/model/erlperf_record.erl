%%% @doc The results record: full reports turned into the documented, machine-readable
%%% map that every output format writes (`doc/formats.md'). Pure: no I/O.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>record</b>: a map of `version', `system', `options', `compare' and `runs',
%%%       with binary keys (the macros of `erlperf_schema.hrl': `?RUNS') and JSON-able
%%%       values only (binaries, numbers, booleans, `null', lists, maps), so that
%%%       `erlperf_json:encode/1' writes it as it is and reading it back gives the same
%%%       map; {@link erlperf_schema} checks one read back from a file.</li>
%%%   <li><b>run</b>: one runner's figures: label, code, mode, concurrency, the per-sample
%%%       values (`samples') and the raw counter (`counter'), statistics, the 95%
%%%       interval (`ci95'), outliers, time per iteration, iterations per second, and
%%%       against the fastest runner a `comparison' (change in percent, its 95% interval,
%%%       significant). When another `confidence' was asked for, `ci' and the
%%%       comparison's `ci_pct' are at that level as well. With `memory => true' the
%%%       cost per call; with `latency => true' the latency percentiles in microseconds
%%%       (`latency_us') and how many calls were timed.</li>
%%%   <li><b>sweep</b> (see {@link erlperf_sweep}): each run's `params' holds its
%%%       combination (numbers as they are, other terms as their Erlang text), `best'
%%%       marks the best run, and with bytes `bytes_processed_per_iteration' and
%%%       `bytes_per_second' are added; the record's `options' hold the parameters in
%%%       order (`params': `[{"name", "values"}]') and `bytes'. Comparisons are made
%%%       between runs of the same combination only.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% %% the record's keys: -include_lib("erlperf/src/model/erlperf_schema.hrl").
%%% Reports = erlperf:compare(["rand:uniform().", "rand:uniform(1000)."], #{report => full}),
%%% #{?VERSION := 1, ?RUNS := [_, _]} = erlperf_record:from_reports(Reports).
%%% '''
-module(erlperf_record).

%% API: called by the command line and the output formats.
-export([from_reports/1, with_baselines/2, version/0]).
%% API: what every output reads from a record the same way.
-export([param_names/1, run_name/2, qps_bounds/1, qps_interval/1, comparison/1, fork_sizes/1,
         interval_label/1, ci_label/1, computes/1, host_load/2]).
%% API: an open load's figures as a record holds them (erlperf_perf_results writes them
%% into a performance test's runs too).
-export([rate_fields/1, rate_histogram/2]).

-export_type([results/0, run/0]).

-include("model/erlperf_schema.hrl").

-type results() :: erlperf_schema:benchmark_record().
%% One of the record's `runs'.
-type run() :: erlperf_schema:run().

%% A run whose scheduler threads wanted a CPU for at least this share of the run, per
%% worker they could keep busy, is code that computes.
-define(COMPUTE_DEMAND, 0.75).
%% Intervals in the record are at this confidence, whatever the run's.
-define(RECORD_CONFIDENCE, 95).

%%--------------------------------------------------------------------
%% API

%% @doc The record of full reports of one call (`report => full').
-spec from_reports([erlperf:report(), ...]) -> results().
from_reports([First | _] = Reports) ->
    Runs = [run(R, Reports) || R <- Reports],
    #{?VERSION => ?RECORD_LAYOUT,
      ?SYSTEM => system(maps:get(system, First, #{})),
      ?OPTIONS => options(maps:get(run_options, First, #{})),
      ?COMPARE => text(maps:get(compare, maps:get(run_options, First, #{}), parallel)),
      ?RUNS => Runs}.

%% @doc Adds to each run its comparison with baselines (rows of
%% {@link erlperf_baseline:compare/3}, in the runs' order): `baselines', a list of
%% `{file, match, verdict, change_pct, ci95_pct, significant}' objects.
-spec with_baselines(results(), [erlperf_baseline:row()]) -> results().
with_baselines(Record, []) ->
    Record;
with_baselines(#{?RUNS := Runs} = Record, Rows) ->
    Record#{?RUNS := [Run#{?BASELINES => [baseline(E) || E <- Entries]}
                           || {Run, #{baselines := Entries}} <- lists:zip(Runs, Rows)]}.

baseline(#{file := File, match := none}) ->
    #{<<"file">> => unicode:characters_to_binary(File), <<"match">> => <<"none">>};
baseline(#{file := File, match := Match} = E) ->
    #{<<"file">> => unicode:characters_to_binary(File), <<"match">> => atom_to_binary(Match),
      <<"verdict">> => atom_to_binary(maps:get(verdict, E)),
      <<"change_pct">> => number(maps:get(change_pct, E)),
      <<"ci95_pct">> => interval(maps:get(ci_pct, E)),
      <<"interval">> => atom_to_binary(maps:get(basis, E)),
      <<"run_noise_pct">> => maps:get(run_noise, maps:get(comparison, E), 0),
      <<"significant">> => maps:get(significant, E),
      <<"text">> => unicode:characters_to_binary(erlperf_verdict:text(maps:get(comparison, E))),
      <<"figure">> => atom_to_binary(maps:get(figure, E, wall)),
      <<"run_noise_source">> => noise_source(maps:get(run_noise_source, maps:get(comparison, E), default)),
      ?INTERFERENCE => interference_pair(maps:get(interference, E, {undefined, undefined})),
      <<"environment">> => [#{<<"key">> => K, <<"baseline">> => Old, <<"run">> => New}
                            || {K, Old, New} <- maps:get(environment, E, [])],
      <<"options">> => [#{<<"key">> => K, <<"baseline">> => Old, <<"run">> => New}
                        || {K, Old, New} <- maps:get(options, E, [])],
      <<"counts">> => [#{<<"count">> => C, <<"baseline">> => Old, <<"run">> => New,
                         <<"change_pct">> => number(Change), <<"verdict">> => atom_to_binary(V)}
                       || #{count := C, baseline := Old, run := New, change_pct := Change, verdict := V}
                              <- maps:get(counts, E, [])],
      <<"reason">> => reason(maps:get(reason, E, undefined))}.

%% Why a verdict is inconclusive (`null' when it is not).
reason(undefined) -> null;
reason(too_few_samples) -> <<"too_few_samples">>;
reason({load_changed, _, _}) -> <<"load_changed">>;
reason({saturated, _}) -> <<"saturated">>;
reason({too_wide, _, _}) -> <<"too_wide">>;
reason({options_differ, _}) -> <<"options_differ">>;
reason({same_code, _Why}) -> <<"same_code">>.

%% Where a comparison's run noise came from: "default", "history" or "given".
noise_source(Source) -> atom_to_binary(Source).

interference_pair({Base, Run}) ->
    #{<<"baseline">> => number(Base), <<"run">> => number(Run)}.

%% @doc The names of the parameters of a sweep's record, in the order given (`[]' for
%% a record of no sweep).
-spec param_names(results()) -> [binary()].
param_names(#{?OPTIONS := #{?PARAMS := Params}}) when is_list(Params) ->
    [Name || #{<<"name">> := Name} <- Params];
param_names(#{?RUNS := [#{?PARAMS := Params} | _]}) when is_map(Params) ->
    lists:sort(maps:keys(Params));
param_names(_Record) ->
    [].

%% @doc A run's name: its label, and in a sweep its combination in the order of the
%% parameters `Names' (see {@link param_names/1}): `lists:seq(1, N). (N=10)'.
-spec run_name(run(), [binary()]) -> binary().
run_name(#{?LABEL := Label} = Run, Names) ->
    Params = maps:get(?PARAMS, Run, #{}),
    case [[N, $=, erlperf_units:record_text(maps:get(N, Params))] || N <- Names, is_map_key(N, Params)] of
        [] -> Label;
        Pairs -> unicode:characters_to_binary([Label, " (", lists:join(", ", Pairs), ")"])
    end.

%% @doc The 95% interval of a run's throughput (iterations per second): its per-sample
%% interval scaled as `qps' is to `average'; `none' without an interval or throughput.
-spec qps_bounds(run()) -> {number(), number()} | none.
qps_bounds(#{<<"ci95">> := [Lo, Hi], ?AVERAGE := Avg, ?QPS := Qps})
  when is_number(Lo), is_number(Hi), is_number(Qps), is_number(Avg), Avg /= 0 ->
    {Lo * Qps / Avg, Hi * Qps / Avg};
qps_bounds(_Run) ->
    none.

%% @doc A run's throughput interval as the tables write it: `"1671 Ki..4102 Ki (5 forks,
%% run noise 1%)"'; `none' without an interval or throughput.
-spec qps_interval(run()) -> string() | none.
qps_interval(Run) ->
    case qps_bounds(Run) of
        {Lo, Hi} -> erlperf_units:count_range(Lo, Hi) ++ " (" ++ ci_label(Run) ++ ")";
        none -> none
    end.

%% @doc A run's comparison with the fastest at the confidence the run asked for, as
%% {@link erlperf_stat:compare/3} returns it (for {@link erlperf_verdict:text/1});
%% `none' for the fastest, or a run compared with nothing. A field a record read back
%% lacks (all but `against' are optional) reads as no significant difference, with
%% nothing measured.
-spec comparison(run()) -> erlperf_stat:comparison() | none.
comparison(#{?COMPARISON := C0} = Run) ->
    C = maps:merge(#{<<"test">> => <<"welch">>, <<"change_pct">> => null, <<"ci95_pct">> => null,
                     <<"significant">> => false, <<"verdict">> => <<"no_difference">>,
                     <<"within_noise">> => false, <<"p">> => null, <<"noise_pct">> => 0}, C0),
    At = fun (Key, Chosen) -> maps:get(Chosen, C, maps:get(Key, C)) end,
    #{test => binary_to_atom(maps:get(<<"test">>, C)),
      better => binary_to_atom(maps:get(<<"better">>, C, <<"higher">>)),
      confidence => maps:get(<<"confidence">>, C, ?RECORD_CONFIDENCE),
      change_pct => undefined(maps:get(<<"change_pct">>, C)),
      ci_pct => bounds(At(<<"ci95_pct">>, <<"ci_pct">>)),
      significant => At(<<"significant">>, <<"significant_at_confidence">>),
      verdict => binary_to_atom(At(<<"verdict">>, <<"verdict_at_confidence">>)),
      within_noise => At(<<"within_noise">>, <<"within_noise_at_confidence">>),
      p => undefined(maps:get(<<"p">>, C)),
      noise => maps:get(<<"noise_pct">>, C),
      basis => binary_to_atom(maps:get(<<"interval">>, C, <<"single_run">>)),
      forks => fork_count(Run),
      looks => maps:get(<<"looks">>, C, 1),
      %% the one reason a comparison between runners of one run can have
      reason => case maps:get(<<"reason">>, C, null) of
                    <<"too_few_samples">> -> too_few_samples;
                    _ -> undefined
                end};
comparison(_Run) ->
    none.

%% @doc A run's samples per fork, as the record holds them (`[length(samples)]' for a
%% single run, and for records written before forks).
-spec fork_sizes(run()) -> [pos_integer()].
fork_sizes(#{<<"forks">> := #{<<"sizes">> := Sizes}}) -> Sizes;
fork_sizes(#{?SAMPLES := Values}) -> [length(Values)].

%% @doc What a run's interval knows, for people: `"5 forks"', or `"one run"' (only the
%% variation within that run).
-spec interval_label(run()) -> string().
interval_label(Run) ->
    erlperf_verdict:interval_label(fork_count(Run)).

%% @doc What a run's own interval (`ci95') covers, for people: {@link interval_label/1}
%% and the run noise it adds, `"5 forks, run noise 1%"'.
-spec ci_label(run()) -> string().
ci_label(Run) ->
    case maps:get(<<"run_noise_pct">>, Run, 0) of
        R when R > 0 -> interval_label(Run) ++ ", " ++ erlperf_verdict:run_noise_label(R);
        _ -> interval_label(Run)
    end.

fork_count(Run) ->
    length(fork_sizes(Run)).

%% @doc Whether a run is of code that computes: its scheduler threads wanted a CPU for
%% at least `?COMPUTE_DEMAND' of the run per worker they could keep busy (code that
%% waits, for messages, timers, I/O, wants one now and then). (Whether it has CPU
%% figures is another matter: on a busy host a sample now and then has none, and the run
%% then has no `cpu_samples'.)
-spec computes(run()) -> boolean().
computes(#{?INTERFERENCE := #{<<"demand">> := Demand}}) when is_number(Demand) ->
    Demand >= ?COMPUTE_DEMAND;
computes(_Run) ->
    false.

%% @doc The host's load during a run, 0..1: the share of the CPU it did not leave the
%% code, from the share of the scheduler threads' time that other programs took (`share') and, for code that
%% computes (`Computes'), the share of the host's CPUs they kept busy (`others': their
%% cores and caches slow the code without making it wait), 1 - (1 - share)(1 - others);
%% for code that waits, the share alone (how long a woken scheduler waits for a CPU is
%% what slows it). `undefined' when not measured (an older record, another platform).
-spec host_load(run(), boolean()) -> float() | undefined.
host_load(#{?INTERFERENCE := Interference}, Computes) ->
    Keys = case Computes of
               true -> [<<"share">>, <<"others">>];
               false -> [<<"share">>]
           end,
    case [V || K <- Keys, V <- [maps:get(K, Interference, null)], is_number(V)] of
        [] -> undefined;
        Measured -> 1 - lists:foldl(fun (V, Left) -> Left * (1 - min(1.0, V)) end, 1.0, Measured)
    end;
host_load(_Run, _Computes) ->
    undefined.

%% @doc The layout version this release writes.
-spec version() -> pos_integer().
version() ->
    ?RECORD_LAYOUT.

%%--------------------------------------------------------------------
%% Internal functions

run(#{result := Result, label := Label} = Report, Reports) ->
    #{values := Values, average := Avg} = Result,
    Sizes = sizes(Result),
    RunNoise = maps:get(run_noise, maps:get(run_options, Report, #{}), 0),
    Base = #{?LABEL => Label,
             ?CODE => code(maps:get(code, Report, #{})),
             ?MODE => text(maps:get(mode, Report)),
             ?CONCURRENCY => maps:get(concurrency, Report, 1),
             ?SAMPLES => Values,
             <<"counter">> => maps:get(samples, Result, []),
             ?AVERAGE => Avg,
             ?STDDEV => maps:get(stddev, Result),
             ?MEDIAN => maps:get(median, Result),
             ?P99 => maps:get(p99, Result),
             <<"min">> => maps:get(min, Result),
             <<"max">> => maps:get(max, Result),
             <<"ci95">> => interval(erlperf_stat:interval(Values, Sizes, ?RECORD_CONFIDENCE, RunNoise)),
             <<"run_noise_pct">> => RunNoise,
             <<"interval">> => basis(Sizes),
             <<"outliers">> => outliers(Values),
             ?ITERATION_NS => iteration_ns(Result),
             ?QPS => maps:get(qps, Result),
             <<"sleep">> => text(maps:get(sleep, Report, sleep)),
             <<"overdue">> => maps:get(overdue, Result, 0),
             <<"time_us">> => maps:get(time, Result, 0),
             ?PARAMS => combination(maps:get(params, Report, []))},
    Duration = case maps:get(run_options, Report, #{}) of
                   %% each run's own: a suite's benchmarks have their own options
                   #{sample_duration := D} -> #{<<"sample_duration">> => option(D)};
                   #{} -> #{}
               end,
    Chosen = case maps:get(confidence, Result, ?RECORD_CONFIDENCE) of
                 C when C == ?RECORD_CONFIDENCE -> #{};
                 C -> #{<<"confidence">> => C,
                        <<"ci">> => interval(erlperf_stat:interval(Values, Sizes, C, RunNoise))}
             end,
    lists:foldl(fun maps:merge/2, Base, [Chosen, Duration, forks(Result), dead_code(Report),
                                         interpreted(Report), cv(Report),
                                         cost(Result), counts(Result),
                                         host(Report),
                                         latency(Result), rate(Result),
                                         search(Report), sequential(Report), reference(Report),
                                         fingerprint(Report), sweep(Report), comparison(Report, Reports),
                                         profile(Report)]).

%% The time of one call of one worker; none for an open load, which measures its calls'
%% times one by one (`rate'): its samples count the calls a schedule started, and the
%% pool's size over the calls a second would be the schedule's period, not a call's time.
iteration_ns(#{rate := _}) -> null;
iteration_ns(Result) -> number(maps:get(iteration_time, Result, null)).

%% A run measured until decided: how it went (erlperf_forks:sequential()).
sequential(#{sequential := S}) ->
    #{?SEQUENTIAL => maps:fold(fun (K, V, Acc) -> Acc#{atom_to_binary(K) => json_value(V)} end,
                                    #{}, S)};
sequential(_Report) ->
    #{}.

%% The reference workload measured beside the run (erlperf_reference:beside/2).
reference(#{reference := #{code := Code, values := Values}}) ->
    #{?REFERENCE => #{?CODE => unicode:characters_to_binary(Code), ?SAMPLES => Values}};
reference(_Report) ->
    #{}.

%% The fingerprint of the code a suite's benchmark ran (erlperf_fingerprint).
fingerprint(#{fingerprint := F}) -> #{?FINGERPRINT => F};
fingerprint(_Report) -> #{}.

json_value(V) when is_atom(V) -> atom_to_binary(V);
json_value(V) -> V.

%% A sweep's run: the best one, and what bytes give.
sweep(Report) ->
    Keys = [{best, <<"best">>}, {bytes_processed, <<"bytes_processed_per_iteration">>},
            {bytes_per_second, <<"bytes_per_second">>}],
    maps:from_list([{Json, V} || {Key, Json} <- Keys, {ok, V} <- [maps:find(Key, Report)]]).

%% Roles whose code the compiler removed: the figures measure an empty loop.
dead_code(Report) ->
    case [atom_to_binary(Role) || {dead_code, Role} <- maps:get(warnings, Report, [])] of
        [] -> #{};
        Roles -> #{<<"dead_code">> => Roles}
    end.

%% Roles left as interpreted funs, and what interpreting a call costs in that VM.
interpreted(Report) ->
    case [atom_to_binary(Role) || {interpreted, Role} <- maps:get(warnings, Report, [])] of
        [] -> #{};
        Roles -> #{<<"interpreted">> => Roles,
                   <<"interpreted_call_ns">> => maps:get(interpreted_call_ns, Report, null)}
    end.

%% With `cv': the goal, and whether the samples met it before the cap on their number.
cv(#{cv_met := Met, run_options := #{cv := Goal}}) when is_number(Goal) ->
    #{<<"cv_goal">> => Goal, <<"cv_met">> => Met};
cv(_Report) ->
    #{}.

%% With `memory => true': the cost per call.
cost(#{cost := Cost}) ->
    #{?BYTES_PER_ITERATION => number(maps:get(bytes_per_iteration, Cost)),
      <<"memory_method">> => atom_to_binary(maps:get(memory_method, Cost)),
      ?REDUCTIONS_PER_ITERATION => maps:get(reductions_per_iteration, Cost),
      <<"cpu_ns_per_iteration">> => maps:get(cpu_ns_per_iteration, Cost),
      <<"wall_ns_per_iteration">> => maps:get(wall_ns_per_iteration, Cost)};
cost(_Result) ->
    #{}.

%% The exact counts per call (`counts => true', or with the cost per call).
counts(#{counts := Counts}) ->
    #{<<"counts">> => #{?BYTES_PER_ITERATION => number(maps:get(bytes_per_iteration, Counts)),
                        ?REDUCTIONS_PER_ITERATION => maps:get(reductions_per_iteration, Counts),
                        <<"memory_method">> => atom_to_binary(maps:get(memory_method, Counts)),
                        <<"iterations">> => maps:get(iterations, Counts)}};
counts(_Result) ->
    #{}.

%% What the host's other programs took of the scheduler threads' time, per sample and
%% over the run (see erlperf_interference), and the throughput per CPU-second of the
%% scheduler threads with the samples as they would have been without the waiting
%% (`cpu_samples').
host(#{result := #{interference := Figures} = Result} = Report) ->
    Sum = fun (Key) -> sum_defined([maps:get(Key, F) || F <- Figures]) end,
    {Cpu, Wait, Wall} = {Sum(cpu_ns), Sum(wait_ns), Sum(wall_ns)},
    Workers = min(maps:get(concurrency, Report, 1),
                  maps:get(schedulers, maps:get(system, Report, #{}), maps:get(concurrency, Report, 1))),
    Interference = #{<<"share">> => number(share(Cpu, Wait)),
                     <<"samples">> => [number(maps:get(share, F)) || F <- Figures],
                     <<"cpu_ns">> => number(Cpu), <<"wait_ns">> => number(Wait),
                     <<"wall_ns">> => number(Wall),
                     <<"demand">> => number(demand(Cpu, Wait, Wall, Workers)),
                     <<"pressure">> => number(mean_defined([maps:get(pressure, F) || F <- Figures])),
                     <<"steal">> => number(mean_defined([maps:get(steal, F) || F <- Figures])),
                     <<"others">> => number(others(Figures, Cpu, Wall))},
    Cpus = case Result of
               #{cpu_values := CpuValues} ->
                   #{?CPU_SAMPLES => CpuValues,
                     <<"cpu_qps">> => number(cpu_qps(Report, Figures, Cpu))};
               #{} ->
                   #{}
           end,
    Cpus#{?INTERFERENCE => Interference};
host(_Report) ->
    #{}.

%% The share of the scheduler threads' runnable time that other programs took.
share(Cpu, Wait) when is_integer(Cpu), is_integer(Wait), Cpu + Wait > 0 -> Wait / (Cpu + Wait);
share(_Cpu, _Wait) -> undefined.

%% How much of the run the scheduler threads that the workers could keep busy wanted a
%% CPU: near 1 for code that computes, near 0 for code that waits.
demand(Cpu, Wait, Wall, Workers) when is_integer(Cpu), is_integer(Wait), Wall > 0 ->
    (Cpu + Wait) / (Wall * Workers);
demand(_Cpu, _Wait, _Wall, _Workers) ->
    undefined.

%% Iterations per second of the scheduler threads' CPU time.
cpu_qps(_Report, _Figures, Cpu) when not is_integer(Cpu); Cpu =< 0 ->
    undefined;
cpu_qps(#{mode := timed, result := #{values := Values},
          run_options := #{sample_duration := {timed, N}}}, _Figures, Cpu) ->
    N * length(Values) * 1.0e9 / Cpu;
cpu_qps(#{result := #{values := Values}, run_options := #{sample_duration := Ms}}, Figures, Cpu)
  when is_integer(Ms) ->
    Iterations = lists:sum([V * W / (Ms * 1.0e6) || {V, #{wall_ns := W}} <- lists:zip(Values, Figures)]),
    Iterations * 1.0e9 / Cpu;
cpu_qps(_Report, _Figures, _Cpu) ->
    undefined.

%% The share of the host's CPUs other programs kept busy over the run, from the sums of
%% its samples' ticks (a sample holds too few ticks to tell alone): the host's busy
%% share less this VM's schedulers'.
others(Figures, Cpu, Wall) ->
    Ticks = sum_defined([maps:get(host_ticks, F, undefined) || F <- Figures]),
    Idle = sum_defined([maps:get(host_idle, F, undefined) || F <- Figures]),
    Cpus = [C || #{cpus := C} <- Figures, is_integer(C)],
    case {Ticks, Idle, Cpus} of
        {T, I, [N | _]} when is_integer(T), T > 0, is_integer(I), is_integer(Cpu), is_integer(Wall), Wall > 0 ->
            max(0.0, min(1.0, 1 - I / T - Cpu / (Wall * N)));
        _ ->
            undefined
    end.

sum_defined(Values) ->
    case [V || V <- Values, V =/= undefined] of
        [] -> undefined;
        Defined -> lists:sum(Defined)
    end.

mean_defined(Values) ->
    case [V || V <- Values, V =/= undefined] of
        [] -> undefined;
        Defined -> lists:sum(Defined) / length(Defined)
    end.

%% With `latency => true': the calls timed one by one, figures in microseconds (`null'
%% when no call returned).
latency(#{latency := #{calls := Calls, timer_ns := Timer, unfinished := Unfinished} = L}) ->
    Figures = case Calls of
                  0 -> null;
                  _ -> maps:from_list([{atom_to_binary(K), maps:get(K, L) / 1000}
                                       || K <- [p50, p90, p99, p999, max, min, average, stddev]])
              end,
    #{<<"latency_us">> => Figures, <<"latency_calls">> => Calls,
      <<"latency_timer_us">> => Timer / 1000, <<"latency_unfinished">> => Unfinished};
latency(_Result) ->
    #{}.

%% @doc The `rate' field of a run from an open load's figures (erlperf_rate's result).
-spec rate_fields(map()) -> #{binary() => map()}.
rate_fields(Rate) ->
    rate(#{rate => Rate}).

%% @doc A histogram of a run's `rate' (`<<"response">>', `<<"service">>',
%% `<<"lateness">>'), read back as an erlperf_histogram snapshot (nanoseconds).
-spec rate_histogram(map(), binary()) -> erlperf_histogram:snapshot().
rate_histogram(Rate, Name) ->
    #{<<"count">> := Count, <<"sum">> := Sum, <<"min">> := Min, <<"max">> := Max,
      <<"buckets">> := Buckets} = maps:get(<<Name/binary, "_histogram">>, Rate),
    Undefined = fun (null) -> undefined; (V) -> V end,
    #{count => Count, sum => Sum, min => Undefined(Min), max => Undefined(Max),
      buckets => maps:from_list([{I, N} || [I, N] <- Buckets])}.

%% At a rate (open load): what the pacer did, the times of the calls in microseconds
%% (service: from the actual start, response: from the intended start, lateness: the
%% pacer's own), and the histograms they come from, which merge exactly (nanoseconds;
%% buckets as [index, count] pairs).
rate(#{rate := Rate}) ->
    Plain = maps:from_list([{atom_to_binary(K), maps:get(K, Rate)}
                            || K <- [target, achieved, started, completed, late, skipped,
                                     unfinished, workers, behind]]),
    Times = maps:from_list(lists:append(
                             [[{<<Name/binary, "_us">>, us_summary(maps:get(K, Rate))},
                               {<<Name/binary, "_histogram">>, histogram(maps:get(K, Rate))}]
                              || K <- [service, response, lateness], Name <- [atom_to_binary(K)]])),
    #{<<"rate">> => maps:merge(maps:merge(Plain, objectives(Rate)),
                               Times#{<<"arrival">> => atom_to_binary(maps:get(arrival, Rate)),
                                      <<"duration_ms">> => maps:get(duration_ns, Rate) / 1.0e6})};
rate(_Result) ->
    #{}.

%% With `slo': the objectives (percentile, limit in microseconds), those missed (and the
%% time measured, `null' when no call returned), whether the rate held them, and the
%% highest rate of the ramp that did (`null': none).
objectives(#{slo := Slo, missed := Missed, held := Held} = Rate) ->
    #{<<"slo">> => [#{<<"percentile">> => P, <<"limit_us">> => Ns / 1000} || {P, Ns} <- Slo],
      <<"missed">> => [#{<<"percentile">> => P, <<"limit_us">> => Ns / 1000,
                         <<"response_us">> => case Got of undefined -> null; _ -> Got / 1000 end}
                       || {P, Ns, Got} <- Missed],
      <<"held">> => Held, <<"knee">> => null_if_undefined(maps:get(knee, Rate, undefined))};
objectives(_Rate) ->
    #{}.

%% A histogram's summary in microseconds (`null' figures when it is empty).
us_summary(Snapshot) ->
    maps:from_list([{atom_to_binary(K), case V of
                                            undefined -> null;
                                            _ when K =:= count -> V;
                                            _ -> V / 1000
                                        end}
                    || {K, V} <- maps:to_list(erlperf_histogram:summary(Snapshot))]).

histogram(#{count := Count, sum := Sum, min := Min, max := Max, buckets := Buckets}) ->
    #{<<"count">> => Count, <<"sum">> => Sum, <<"min">> => null_if_undefined(Min),
      <<"max">> => null_if_undefined(Max),
      <<"buckets">> => [[I, N] || {I, N} <- lists:sort(maps:to_list(Buckets))]}.

null_if_undefined(undefined) -> null;
null_if_undefined(V) -> V.

%% Concurrency estimation: the best step beside the one reported, and every step.
search(#{mode := concurrency, best_concurrency := Best, history := History}) ->
    #{<<"best_concurrency">> => Best,
      <<"steps">> => [#{?CONCURRENCY => C, ?AVERAGE => Avg, ?QPS => Qps}
                      || {C, #{average := Avg, qps := Qps}} <- History]};
search(_Report) ->
    #{}.

%% With `profile => Tool': the top functions, each named "module:function/arity".
profile(#{profile := #{tool := Tool, functions := Functions} = Profile}) ->
    #{<<"profile">> =>
          (optional(memory_ms, Profile))#{
            <<"tool">> => atom_to_binary(Tool),
            <<"duration_ms">> => maps:get(duration_ms, Profile),
            <<"workers">> => maps:get(workers, Profile),
            <<"total_calls">> => maps:get(total_calls, Profile),
            <<"total_us">> => number(maps:get(total_us, Profile)),
            <<"functions">> =>
                [(optional(bytes_per_call, F))#{
                   <<"function">> => unicode:characters_to_binary(erlperf_units:function_name(Fn)),
                   <<"calls">> => Calls, <<"time_us">> => number(Us), <<"percent">> => Pct}
                 || #{mfa := Fn, calls := Calls, time_us := Us, percent := Pct} = F <- Functions]}};
profile(_Report) ->
    #{}.

%% The key (as a binary) and its value when the map has it (tprof's memory figures).
optional(Key, Map) ->
    maps:from_list([{atom_to_binary(Key), V} || #{Key := V} <- [Map]]).

%% The fastest is the one report without a comparison (of the same sweep combination);
%% a report given without it (one report of a comparison, alone) has no comparison here.
comparison(#{comparison := #{against := Against}} = Report, Reports) ->
    Params = maps:get(params, Report, []),
    case [Result || #{label := L, result := Result} = R <- Reports, L =:= Against,
                    not is_map_key(comparison, R), maps:get(params, R, []) =:= Params] of
        [Fastest | _] -> comparison(Report, Fastest, Against);
        [] -> #{}
    end;
comparison(_Report, _Reports) ->
    #{}.

comparison(#{comparison := Cmp, result := Result}, Fastest, Against) ->
    Options = maps:with([test, better, noise, looks], Cmp),
    At95 = erlperf_stat:compare_runs(run_samples(Fastest), run_samples(Result),
                                     Options#{confidence => ?RECORD_CONFIDENCE}),
    Base = #{<<"against">> => Against,
             <<"interval">> => atom_to_binary(maps:get(basis, At95)),
             <<"test">> => text(maps:get(test, Cmp)),
             <<"change_pct">> => number(maps:get(change_pct, At95)),
             <<"ci95_pct">> => interval(maps:get(ci_pct, At95)),
             <<"significant">> => maps:get(significant, At95),
             <<"p">> => number(maps:get(p, At95)),
             <<"verdict">> => text(maps:get(verdict, At95)),
             <<"better">> => text(maps:get(better, Cmp)),
             <<"noise_pct">> => maps:get(noise, At95),
             <<"within_noise">> => maps:get(within_noise, At95),
             <<"reason">> => reason(maps:get(reason, At95, undefined)),
             <<"looks">> => maps:get(looks, At95, 1)},
    Chosen = case maps:get(confidence, Cmp) of
                 C when C == ?RECORD_CONFIDENCE -> #{};
                 C -> #{<<"confidence">> => C, <<"ci_pct">> => interval(maps:get(ci_pct, Cmp)),
                        <<"significant_at_confidence">> => maps:get(significant, Cmp),
                        <<"verdict_at_confidence">> => text(maps:get(verdict, Cmp)),
                        <<"within_noise_at_confidence">> => maps:get(within_noise, Cmp)}
             end,
    #{?COMPARISON => maps:merge(Base, Chosen)}.

%% Samples per fork of an in-memory result (a single run is one fork).
sizes(#{forks := #{sizes := Sizes}}) -> Sizes;
sizes(#{values := Values}) -> [length(Values)].

run_samples(#{values := Values} = Result) ->
    {Values, sizes(Result)}.

%% What the intervals know: the variation between forks, or within one run.
basis([_]) -> <<"single_run">>;
basis(_Sizes) -> <<"forks">>.

%% A forked run: the forks' sizes and means, and the standard deviations between and
%% within forks (`null' when the forks cannot tell).
forks(#{forks := #{forks := N} = Components}) when N > 1 ->
    #{between_variance := Between, within_variance := Within, sizes := Sizes, means := Means} = Components,
    #{<<"forks">> => #{<<"sizes">> => Sizes, <<"means">> => Means,
                       <<"between_sd">> => sd(Between), <<"within_sd">> => sd(Within)}};
forks(_Result) ->
    #{}.

sd(undefined) -> null;
sd(Variance) -> math:sqrt(Variance).

outliers(Values) ->
    maps:fold(fun (K, V, Acc) -> Acc#{atom_to_binary(K) => V} end, #{},
              erlperf_stat:outliers(Values)).

%% A sweep's combination: numbers as they are, other terms as their Erlang text; an
%% input's name (`--input', erlperf_cli) as it is.
combination(Combination) ->
    maps:from_list([{atom_to_binary(N), param_value(N, V)} || {N, V} <- Combination]).

param_value(input, Name) when is_list(Name); is_binary(Name) -> unicode:characters_to_binary(Name);
param_value(_Name, V) -> erlperf_units:record_value(V).

bounds([Lo, Hi]) -> {Lo, Hi};
bounds(null) -> undefined.

undefined(null) -> undefined;
undefined(V) -> V.

interval({Lo, Hi}) -> [Lo, Hi];
interval(undefined) -> null.

number(infinity) -> null;
number(undefined) -> null;
number(N) -> N.

code(#{runner := Runner}) ->
    callable(Runner);
code(_Code) ->
    null.

callable(Text) when is_binary(Text) ->
    Text;
callable([C | _] = Text) when is_integer(C) ->
    unicode:characters_to_binary(Text);
callable(Other) ->
    unicode:characters_to_binary(erlperf_units:value(Other)).

system(System) ->
    maps:fold(fun (K, V, Acc) -> Acc#{atom_to_binary(K) => system_value(V)} end, #{}, System).

system_value({Family, Name}) -> iolist_to_binary([atom_to_binary(Family), $:, atom_to_binary(Name)]);
system_value(V) when is_atom(V) -> atom_to_binary(V);
system_value([C | _] = V) when is_integer(C) -> unicode:characters_to_binary(V);
system_value(V) -> V.

%% Run options as JSON: atoms as text, {timed, N} as {"timed": N}, funs left out, a
%% sweep's parameters in order, its bytes as given.
options(Options) ->
    maps:fold(fun (_K, V, Acc) when is_function(V) -> Acc;
                  (params, Params, Acc) -> Acc#{?PARAMS => params(Params)};
                  (bytes, Bytes, Acc) -> Acc#{<<"bytes">> => bytes(Bytes)};
                  (slo, [_ | _] = Slo, Acc) ->
                      Acc#{<<"slo">> => [#{<<"percentile">> => P, <<"limit_us">> => Ns / 1000}
                                         || {P, Ns} <- Slo]};
                  (K, V, Acc) -> Acc#{atom_to_binary(K) => option(V)}
              end, #{}, Options).

params(Params) ->
    [#{<<"name">> => atom_to_binary(Name),
       <<"values">> => [erlperf_units:record_value(V) || V <- Values]}
     || {Name, Values} <- Params].

bytes(N) when is_number(N) -> N;
bytes(Text) -> unicode:characters_to_binary(Text).

option({timed, N}) -> #{<<"timed">> => N};
option(V) when is_boolean(V) -> V;
option(undefined) -> null;
option(V) when is_atom(V) -> atom_to_binary(V);
option(V) when is_map(V) -> options(V);
option(V) when is_list(V) -> [option(E) || E <- V];
option(V) -> V.

text(A) when is_atom(A) -> atom_to_binary(A);
text(B) when is_binary(B) -> B.
