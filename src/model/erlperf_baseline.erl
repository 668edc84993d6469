%%% @doc Baselines and the regression gate: a run compared, runner by runner, with saved
%%% results records ({@link erlperf_record}, written by `--save').
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>baseline</b>: a saved record, from an earlier run (another commit, another
%%%       release). Several can be given: each is a column of the comparison.</li>
%%%   <li><b>match</b>: a runner of the run and one of a baseline with the same label, or,
%%%       when no label matches, the same code; in a sweep ({@link erlperf_sweep}) the
%%%       parameters must be the same as well (`params', compared as the record holds
%%%       them). A runner without a match is reported as such, never guessed.</li>
%%%   <li><b>name</b>: how a row is shown: its label, and in a sweep its combination,
%%%       `lists:seq(1, N). (N=10)'.</li>
%%%   <li><b>change</b>: the runner against the baseline's, with Welch's test (the two
%%%       were measured at different times: nothing pairs them): their fork means when
%%%       both ran in forks (the interval then knows how runs vary), else their samples
%%%       (an interval of single runs, labelled "one run": it knows only the variation
%%%       within each run). Throughput (continuous) higher is better; time (timed) lower
%%%       is better. Only runs of the same settings compare ({@link erlperf_comparable}):
%%%       of other sample durations, per second; of another mode, concurrency, loop or
%%%       rate, not at all (inconclusive, the options differ; exact counts, per call,
%%%       still compare, but not between runs of different kinds: an open load and a
%%%       closed one, or two modes).</li>
%%%   <li><b>same code</b>: a runner whose run and baseline have the same fingerprint
%%%       ({@link erlperf_fingerprint}: a suite's benchmark) and environment, with no
%%%       exact count changed, is no change when its time alone is inconclusive (the
%%%       host's load changed, say): the code is byte for byte what it was.</li>
%%%   <li><b>regression</b>: a runner significantly slower than a baseline, by more than
%%%       the gate's percentage (the change's point estimate).</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% {ok, Base} = erlperf_baseline:load("before.json"),
%%% Record = erlperf_record:from_reports(erlperf:compare(["rand:uniform()."], #{report => full})),
%%% [#{label := <<"rand:uniform().">>, baselines := [#{verdict := _}]}] =
%%%     erlperf_baseline:compare([{"before.json", Base}], Record, #{}).
%%% '''
-module(erlperf_baseline).

%% API: called by the command line and users.
-export([load/1, compare/3, format/1, format_error/1]).
%% API: how every output words an entry's parts.
-export([verdict_lines/1, count_text/1, environment_text/1, record_word/1, record_text/1]).

-export_type([entry/0, row/0, options/0, count/0]).

-include("model/erlperf_schema.hrl").

%% An exact count of both runs: `verdict' no_change within the tolerance, else the
%% direction (more is worse), inconclusive across OTP releases.
-type count() :: #{count := binary(), baseline := number(), run := number(),
                   change_pct := float() | undefined,
                   verdict := regressed | improved | no_change | inconclusive}.
%% One baseline's verdict for one runner. `figure': what was compared (`cpu', the
%% samples with the host's interference taken out, or `wall'); `reason': why a verdict
%% is `inconclusive'; `interference': the host's share in the baseline and in the run;
%% `environment': what differs between the two records' systems; `options': the settings
%% of the two runs that differ (erlperf_comparable: another sample duration is compared
%% per second, any other setting makes the verdict inconclusive, `options_differ').
-type entry() :: #{file := string(), match := label | code | none,
                   verdict => faster | slower | no_difference | inconclusive,
                   reason => too_few_samples | {load_changed, float(), float()}
                           | {saturated, float()} | {too_wide, float(), float()}
                           | {options_differ, [erlperf_comparable:difference(), ...]}
                           %% no change: the same code, its time inconclusive for
                           %% that reason or moved that way (by the host)
                           | {same_code, term()},
                   figure => cpu | wall | reference,
                   interference => {float() | undefined, float() | undefined},
                   environment => [{binary(), term(), term()}],
                   options => [erlperf_comparable:difference()],
                   counts => [count()],
                   change_pct => float() | undefined,
                   ci_pct => {float(), float()} | undefined,
                   significant => boolean(),
                   basis => forks | single_run,
                   comparison => erlperf_stat:comparison()}.
-type row() :: #{label := binary(), name := binary(), baselines := [entry()]}.
%% Options of compare/3, defaults in brackets (the run options' defaults are the option
%% registry's, erlperf_options): `confidence', `noise' (the noise floor, percent),
%% `run_noise' (percent, when nothing better is known),
%% `given_run_noise' (percent: no estimate; none: estimated) [none], `history' (earlier runs of each
%% benchmark, keyed by `{Label, Params}', oldest first) [#{}], `gate' (percent) [none],
%% `paired' (the forks of both runs were taken in pairs side by side: compared pair by
%% pair, with no run noise) [false].
-type options() :: #{confidence => number(), noise => number(), run_noise => number(),
                     given_run_noise => number() | none,
                     history => #{{binary(), map()} => [erlperf_record:run()]},
                     gate => number() | none, paired => boolean()}.

%% Code that waits: a change of the time of a call within this many times what waiting
%% for a CPU added to a call is explained by the load.
-define(WAIT_MARGIN, 1.5).
%% A change of the host's load (see erlperf_record:host_load/2) beyond this between two runs: the CPU
%% figure cannot be trusted (caches and cores shared with other programs slowed it
%% too: measured on 2 vCPUs, one busy loop beside the VM left its schedulers unwaiting
%% and the code 40% slower), and a wall-clock change in the direction of the load's
%% is inconclusive.
-define(LOAD_CHANGE, 0.10).
%% How far the host's load of two busy runs may differ for them to compare on their
%% ratios to the reference workload: under the same busy loop per vCPU of a 2-vCPU host,
%% 15 runs' load read 0.64-0.85 (the share of the scheduler threads' time the loops took
%% swings with the time slices), while their ratios moved within 1%; from quiet to busy
%% it moves 0.6 or more.
-define(REFERENCE_LOAD_CHANGE, 0.25).
%% The share of the scheduler threads' time the host's other programs took (in either
%% run) from which no time verdict stands: the CPU figure then scales the samples by
%% 1 / (1 - share), over 2x, and the scaling cannot take out the caches and cores the
%% others share. Measured on 2 vCPUs with three test VMs beside the run (72% taken):
%% unchanged code, its forks paired with the revision's, 29.8% slower in CPU time.
-define(SATURATED, 0.5).
%% An interval of no significant difference wider than this (percentage points) tells
%% nothing: inconclusive.
-define(TOO_WIDE_PCT, 50).
%% Earlier runs needed to estimate the run noise from a benchmark's history, and the
%% most recent ones used.
-define(HISTORY_MIN, 4).
-define(HISTORY_MAX, 20).
%% The largest run noise an estimate gives (percent): runs that far apart tell nothing
%% (the interval is then too wide to tell).
-define(MAX_RUN_NOISE, 50).
%% The median absolute difference of two normal draws, in standard deviations:
%% sqrt(2) times the normal's 75th percentile.
-define(MAD_NORMAL, 0.9539).
%% A count changed when it moved by more than both (percent, and per call).
-define(COUNT_TOLERANCE_PCT, 1).
-define(COUNT_TOLERANCE_ABS, 0.5).
%% What the verdict line names when it differs between the compared records' systems.
-define(ENVIRONMENT, [<<"otp_release">>, <<"erlperf">>, <<"schedulers">>, <<"emu_flavor">>, <<"cpu">>]).

%%--------------------------------------------------------------------
%% API

%% @doc Reads a saved record ({@link erlperf_schema:read/2}: of this layout or an older
%% one, of the shape a comparison reads).
-spec load(file:filename()) ->
    {ok, erlperf_record:results()} | {error, {baseline, file:filename(), erlperf_schema:reason()}}.
load(File) ->
    case erlperf_schema:read(File, benchmark) of
        {ok, Record} -> {ok, Record};
        {error, Reason} -> {error, {baseline, File, Reason}}
    end.

%% @doc Compares every runner of `Record' with each baseline, in order.
%% `Options' (see {@link options()}): the interval's confidence, the noise floor, the
%% run noise (see {@link erlperf_stat:compare/3}): a baseline is another run, and the
%% two differ by the run noise of each beyond what their samples show. The run noise is
%% `given_run_noise' when set (`--run-noise'); else estimated from the benchmark's
%% `history' (earlier runs of it, oldest first, keyed by label and parameters) when it
%% holds enough runs, else `run_noise'; and widened by the change of the host's load
%% between the two runs. `gate': a no-difference interval that reaches a slowdown past
%% the gate's percentage cannot tell: inconclusive.
-spec compare([{file:filename(), erlperf_record:results()}], erlperf_record:results(), options()) -> [row()].
compare(Baselines, #{?RUNS := Runs} = Record, Options) ->
    Stat = (maps:with([history, given_run_noise, gate, paired], Options))#{
             test => welch,
             confidence => maps:get(confidence, Options, erlperf_options:default(confidence)),
             noise => maps:get(noise, Options, erlperf_options:default(noise)),
             run_noise => maps:get(run_noise, Options, erlperf_options:default(run_noise)),
             system => maps:get(?SYSTEM, Record, #{})},
    Names = erlperf_record:param_names(Record),
    [#{label => maps:get(?LABEL, Run), name => erlperf_record:run_name(Run, Names),
       baselines => [entry(File, Run, Base, Stat) || {File, Base} <- Baselines]}
     || Run <- Runs].

%% @doc Text lines: each runner against each baseline, and each exact count that
%% changed: `NAME against FILE: VERDICT', the name and the baseline's file written by
%% {@link erlperf_name:text/1}.
-spec format([row()]) -> unicode:chardata().
format(Rows) ->
    [[[[erlperf_name:text(Name), " against ", erlperf_name:text(File), ": ", Line, "\n"]
       || Line <- verdict_lines(E)]
      || #{file := File} = E <- Entries]
     || #{name := Name, baselines := Entries} <- Rows].

%% @doc The verdicts of an entry, a line each (without a line break): its time's (with
%% what differs between the systems), then each exact count that changed
%% (`regressed: 808 -> 1008 bytes per call (+24.8%)').
-spec verdict_lines(entry()) -> [unicode:chardata(), ...].
verdict_lines(E) ->
    [[entry_text(E), environment_text(E)]
     | [[atom_to_list(V), ": ", count_text(C)]
        || #{verdict := V} = C <- maps:get(counts, E, []), V =/= no_change]].

%% @doc The one word of an entry as a record holds it (`baselines' of a run, binary
%% keys): `regressed' when its time is significantly slower or an exact count grew (what
%% the gate reads), else `inconclusive', `improved', `no change'; `no match' for a run
%% the baseline does not have.
-spec record_word(#{binary() => term()}) -> string().
record_word(#{<<"match">> := <<"none">>}) ->
    "no match";
record_word(E) ->
    Grew = lists:member(<<"regressed">>, [V || #{<<"verdict">> := V} <- maps:get(<<"counts">>, E, [])]),
    case {maps:get(<<"verdict">>, E, null), maps:get(<<"significant">>, E, false)} of
        _ when Grew -> "regressed";
        {<<"slower">>, true} -> "regressed";
        {<<"inconclusive">>, _} -> "inconclusive";
        {<<"faster">>, true} -> "improved";
        _ -> "no change"
    end.

%% @doc An entry as a record holds it, for people: the verdict as the command line words
%% it, and each exact count that changed (`; regressed: 808 -> 1008 bytes per call').
-spec record_text(#{binary() => term()}) -> binary().
record_text(#{<<"match">> := <<"none">>}) ->
    <<"no runner with this label or code">>;
record_text(E) ->
    Counts = [[<<"; ">>, V, <<": ">>, count_text(C)]
              || #{<<"verdict">> := V} = C <- maps:get(<<"counts">>, E, []), V =/= <<"no_change">>],
    unicode:characters_to_binary([maps:get(<<"text">>, E, <<>>) | Counts]).

%% @doc An exact count of both runs, for people: "1600 -> 3200 bytes per call
%% (+100.0%)", and why a change is inconclusive.
%% Takes a count as the record holds it (binary keys) too.
-spec count_text(count() | #{binary() => term()}) -> unicode:chardata().
count_text(#{<<"count">> := Key, <<"baseline">> := Old, <<"run">> := New, <<"change_pct">> := Change,
             <<"verdict">> := Verdict}) ->
    count_text(#{count => Key, baseline => Old, run => New, change_pct => undefined_null(Change),
                 verdict => count_verdict(Verdict)});
count_text(#{count := Key, baseline := Old, run := New, change_pct := Change} = Count) ->
    What = case Key of
               ?BYTES_PER_ITERATION -> "bytes";
               ?REDUCTIONS_PER_ITERATION -> "reductions";
               Other -> Other   % a count of a newer release, by its name
           end,
    Pct = case Change of
              undefined -> "";
              _ -> [" (", erlperf_units:change(Change), ")"]
          end,
    Why = case Count of
              #{verdict := inconclusive} -> ", counts differ between OTP releases";
              #{} -> ""
          end,
    io_lib:format("~ts -> ~ts ~s per call~ts~s", [erlperf_units:number(Old), erlperf_units:number(New),
                                                   What, Pct, Why]).

%% @doc What differs between the compared runs' systems, as the end of a verdict's
%% line: "; OTP 25 -> 27, schedulers 2 -> 8" (empty when nothing does).
-spec environment_text(entry()) -> unicode:chardata().
environment_text(#{environment := [_ | _] = Differences}) ->
    ["; ", lists:join(", ", [[environment_name(K), " ", value_text(Old), " -> ", value_text(New)]
                             || {K, Old, New} <- Differences])];
environment_text(_Entry) ->
    "".

%% A count's verdict as a record holds it (an unknown word: as no change).
count_verdict(<<"regressed">>) -> regressed;
count_verdict(<<"improved">>) -> improved;
count_verdict(<<"inconclusive">>) -> inconclusive;
count_verdict(_) -> no_change.

undefined_null(null) -> undefined;
undefined_null(V) -> V.

environment_name(<<"otp_release">>) -> "OTP";
environment_name(<<"erlperf">>) -> "erlperf";
environment_name(<<"schedulers">>) -> "schedulers";
environment_name(<<"emu_flavor">>) -> "emulator";
environment_name(<<"cpu">>) -> "CPU".

value_text(V) when is_binary(V) -> erlperf_name:text(V);
value_text(V) -> erlperf_units:value(V).

%% @doc One line for an error of {@link load/1}.
-spec format_error({baseline, file:filename(), erlperf_schema:reason()}) -> string().
format_error({baseline, File, Reason}) ->
    flat("baseline ~ts: ~ts", [File, erlperf_schema:format_error(Reason)]).

%%--------------------------------------------------------------------
%% Internal functions

entry(File, Run0, #{?RUNS := BaseRuns} = Base, Stat) ->
    case match(Run0, BaseRuns) of
        {none, _} ->
            #{file => File, match => none};
        {How, BaseRun0} ->
            Footing = erlperf_comparable:footing(BaseRun0, Run0),
            {BaseRun, Run} = on_footing(Footing, BaseRun0, Run0),
            Better = case maps:get(?MODE, Run) of
                         <<"timed">> -> lower;
                         _ -> higher
                     end,
            Computes = erlperf_record:computes(BaseRun) andalso erlperf_record:computes(Run),
            Interference = {erlperf_record:host_load(BaseRun, Computes),
                            erlperf_record:host_load(Run, Computes)},
            Paired = paired(BaseRun, Run, Stat),
            Turns = Paired andalso is_map_key(?SEQUENTIAL, Run),
            Referenced = not Paired andalso Computes andalso not quiet(Interference)
                andalso busy_alike(Interference)
                andalso erlperf_reference:ratios(BaseRun0) =/= undefined
                andalso erlperf_reference:ratios(Run0) =/= undefined,
            Figure = if
                         %% the versions took turns sample by sample: each pair of
                         %% samples shares the host's state, which the wall clock keeps
                         %% better than a scaling of each sample
                         Turns -> wall;
                         %% code that computes, each run taking turns with the same
                         %% reference workload, on a host about as busy in both runs
                         %% (not quiet): the ratio of each pair of samples keeps what the
                         %% code changed, the host's time-sharing cancelled. On a quiet
                         %% host the reference's own variation from run to run would
                         %% only add to the benchmark's; across a change of load, code
                         %% that allocates slowed 30% more than the reference did (the
                         %% others share caches and memory, not only CPUs)
                         Referenced -> reference;
                         true -> figure(Computes, Interference, [BaseRun, Run])
                     end,
            {Test, {RunNoise, Source}} =
                case Paired of
                    %% fork I of each version side by side in time: the pair shares the
                    %% host's state, no run noise between them; turns taken sample by
                    %% sample pair round by round
                    true when Turns -> {ratio, {0, paired}};
                    true -> {paired, {0, paired}};
                    %% each fork's median ratio to the reference, under load: now and
                    %% then a fork the host's time slices struck apart from the rest
                    %% (10-18% off where the others are within 2%), which Welch's test
                    %% lets widen the interval; Yuen's trims it
                    false when Figure =:= reference ->
                        {yuen, run_noise(Figure, {Computes, element(2, Interference)}, Run, Stat)};
                    false -> {welch, run_noise(Figure, {Computes, element(2, Interference)}, Run, Stat)}
                end,
            %% the ratios to the reference are of the runs' own samples, whatever their
            %% sample durations
            {BaseSamples, RunSamples} =
                case Referenced of
                    true -> {run_samples(BaseRun0, Figure), run_samples(Run0, Figure)};
                    false -> {run_samples(BaseRun, Figure), run_samples(Run, Figure)}
                end,
            Cmp0 = erlperf_stat:compare_runs(BaseSamples, RunSamples,
                                             (maps:with([confidence, noise], Stat))#{
                                               test => Test, better => Better,
                                               run_noise => RunNoise, looks => looks(Run)}),
            Environment = environment(maps:get(system, Stat, #{}), maps:get(?SYSTEM, Base, #{})),
            %% runs of different kinds (an open load and a closed one) compare in
            %% nothing: their verdict is inconclusive, options differ
            Counts = case erlperf_comparable:same_kind(BaseRun0, Run0) of
                         true -> counts(BaseRun, Run, Environment);
                         false -> []
                     end,
            Cmp1 = inconclusive(Cmp0#{figure => Figure, interference => Interference,
                                     computes => Computes,
                                     taken => max_share([BaseRun, Run]),
                                     waited => {waited(BaseRun), waited(Run)},
                                     time_ns => {maps:get(?ITERATION_NS, BaseRun, null),
                                                 maps:get(?ITERATION_NS, Run, null)},
                                     run_noise_source => Source, environment => Environment,
                                     footing => Footing},
                               Stat),
            Cmp = same_code(Cmp1, {BaseRun0, Run0}, Environment, Counts),
            (maps:with([verdict, change_pct, ci_pct, significant, basis, reason], Cmp))#{
              file => File, match => How, comparison => Cmp, figure => Figure,
              interference => Interference, environment => Environment,
              options => options(Footing),
              counts => Counts}
    end.

%% The looks of a run measured until decided (beside its baseline, or until its
%% comparison with one decided): its interval holds over all of them; any other
%% comparison is one look.
looks(#{?SEQUENTIAL := #{<<"looks">> := Looks}}) when is_integer(Looks), Looks >= 1 ->
    Looks;
looks(_Run) ->
    1.

%% The runs as their samples compare (see erlperf_comparable): as they are, or both in
%% calls per second when only their sample durations differ. Runs whose settings differ
%% are compared as they are, and the comparison is then inconclusive (inconclusive/2).
on_footing({per_second, _Durations}, BaseRun, Run) ->
    {erlperf_comparable:per_second(BaseRun), erlperf_comparable:per_second(Run)};
on_footing(_Footing, BaseRun, Run) ->
    {BaseRun, Run}.

%% The settings of the two runs that differ.
options({per_second, {Old, New}}) -> [{<<"sample_duration">>, Old, New}];
options({incomparable, Differences}) -> Differences;
options(per_sample) -> [].

%% Runs whose forks were taken in pairs, side by side (`paired', `--against'), with as
%% many forks each: their fork means are compared pair by pair.
paired(BaseRun, Run, #{paired := true}) ->
    Forks = length(erlperf_record:fork_sizes(Run)),
    Forks > 1 andalso Forks =:= length(erlperf_record:fork_sizes(BaseRun));
paired(_BaseRun, _Run, _Stat) ->
    false.

%% The figure a comparison across runs reads: the samples as they would have been
%% without the host's other programs (`cpu') when both runs have them, both kept their
%% scheduler threads busy (code that computes) and the host's load was about the same
%% in both (the scaling takes out the waiting, not the caches and cores the other
%% programs share); else the wall-clock samples, which load only ever lowers (see
%% inconclusive/2).
figure(Computes, Interference, Runs) ->
    case Computes andalso not load_changed(Interference)
        andalso lists:all(fun (R) -> is_map_key(?CPU_SAMPLES, R) end, Runs) of
        true -> cpu;
        false -> wall
    end.

%% Two busy runs' loads alike enough to compare on the reference (or not measured).
busy_alike({A, B}) when is_number(A), is_number(B) -> abs(B - A) =< ?REFERENCE_LOAD_CHANGE;
busy_alike(_Interference) -> true.

load_changed({A, B}) when is_number(A), is_number(B) -> abs(B - A) > ?LOAD_CHANGE;
load_changed(_Interference) -> false.

%% Both runs on a quiet host: the others' load at most ?LOAD_CHANGE in each (measured).
quiet({A, B}) when is_number(A), is_number(B) -> A =< ?LOAD_CHANGE andalso B =< ?LOAD_CHANGE;
quiet(_Interference) -> false.

%% The run noise of the comparison and where it comes from: given (`--run-noise'), or
%% estimated from the spread of the benchmark's earlier runs when there are enough of
%% them (`history'), else the default.
run_noise(_Figure, _Load, _Run, #{given_run_noise := Given}) when is_number(Given) ->
    {Given, given};
run_noise(Figure, Load, Run, Stat) ->
    case history_noise(Figure, Load, maps:get(history, Stat, #{}), Run) of
        undefined -> {maps:get(run_noise, Stat, 0), default};
        R -> {R, history}
    end.

%% Run noise from the benchmark's earlier runs under about the same load as this one
%% (oldest first, the previous run last):
%% the spread of consecutive runs' means, robustly (the median absolute difference of
%% consecutive means, over ?MAD_NORMAL, a standard deviation for normal run noise; one
%% step in the history moves it little), in percent of their median; `undefined' with
%% fewer than ?HISTORY_MIN runs. Earlier runs of other settings are left out, those of
%% another sample duration scaled to this run's (see erlperf_comparable).
history_noise(Figure, {Computes, Load}, History, Run) ->
    Name = maps:get(?LABEL, Run),
    Means = [M || R <- maps:get({Name, params(Run)}, History, []),
                  Figure =:= reference
                      orelse similar_load(Load, erlperf_record:host_load(R, Computes)),
                  M <- [history_mean(R, Run, Figure)], M =/= undefined],
    case length(Means) >= ?HISTORY_MIN of
        true ->
            Recent = lists:nthtail(max(0, length(Means) - ?HISTORY_MAX), Means),
            Diffs = [abs(B - A) || {A, B} <- lists:zip(lists:droplast(Recent), tl(Recent))],
            Median = erlperf_stat:median(Recent),
            case Median == 0 of
                true -> undefined;
                false -> min(?MAX_RUN_NOISE, 100 * middle(Diffs) / ?MAD_NORMAL / abs(Median))
            end;
        false ->
            undefined
    end.

%% Runs under about the same load as this one (either not measured: taken).
similar_load(A, B) when is_number(A), is_number(B) -> abs(A - B) =< ?LOAD_CHANGE;
similar_load(_A, _B) -> true.

%% An earlier run's mean per sample of this run's duration (`undefined': its settings
%% differ, or it lacks the figure).
history_mean(Earlier, Run, Figure) ->
    case {erlperf_comparable:footing(Earlier, Run), figure_mean(Earlier, Figure)} of
        {_Footing, undefined} -> undefined;
        %% a ratio to the reference measured in the same samples: whatever their duration
        {{per_second, _}, Mean} when Figure =:= reference -> Mean;
        {per_sample, Mean} -> Mean;
        {{per_second, {Then, Now}}, Mean} -> Mean * Now / Then;
        {{incomparable, _}, _Mean} -> undefined
    end.

figure_mean(#{?CPU_SAMPLES := [_ | _] = Cpu}, cpu) -> erlperf_stat:mean(Cpu);
figure_mean(_Run, cpu) -> undefined;
figure_mean(#{?SAMPLES := [_ | _] = Values}, wall) -> erlperf_stat:mean(Values);
figure_mean(_Run, wall) -> undefined;
figure_mean(Run, reference) ->
    case erlperf_reference:ratios(Run) of
        [_ | _] -> erlperf_stat:mean(erlperf_reference:fork_medians(Run));
        _ -> undefined
    end.

%% The median, the two middle values' mean for an even count (R's type 7).
middle(Values) ->
    element(2, erlperf_stat:quartiles(Values)).

%% The largest share of the scheduler threads' time the host's other programs took in
%% the runs (`undefined' when none measured it).
max_share(Runs) ->
    %% the load of code that waits is the share alone
    case [S || R <- Runs, S <- [erlperf_record:host_load(R, false)], is_number(S)] of
        [] -> undefined;
        Shares -> float(lists:max(Shares))
    end.

%% A verdict the evidence cannot carry is inconclusive, with the reason: the runs'
%% settings differ, so that their samples measured different things (no change is
%% given: it would be the settings', not the code's); too few samples to test; a change
%% in the direction the host's load moved it (slower when the load rose by more than
%% ?LOAD_CHANGE, faster when it fell: load only ever slows code, so a change against it
%% stands); a change of the CPU figure measured on a saturated host (the others took
%% ?SATURATED of the schedulers' time or more, in either run); or an interval too wide
%% to tell (a gate's change within it, or wider than ?TOO_WIDE_PCT points).
inconclusive(#{footing := {incomparable, Differences}} = Cmp, _Stat) ->
    Cmp#{verdict := inconclusive, significant := false, change_pct := undefined,
         ci_pct := undefined, reason => {options_differ, Differences}};
inconclusive(#{p := undefined} = Cmp, _Stat) ->
    Cmp#{verdict := inconclusive, significant := false, reason => too_few_samples};
inconclusive(#{significant := true, verdict := Verdict, figure := cpu, taken := Taken} = Cmp, _Stat)
  when is_float(Taken), Taken >= ?SATURATED ->
    Cmp#{verdict := inconclusive, significant := false, reason => {saturated, Taken},
         verdict_without => Verdict};
inconclusive(#{significant := true, figure := reference} = Cmp, _Stat) ->
    Cmp;
inconclusive(#{significant := true, verdict := Verdict, interference := {A, B}} = Cmp, _Stat)
  when is_number(A), is_number(B) ->
    case explained(Cmp, Verdict, A, B) of
        true -> Cmp#{verdict := inconclusive, significant := false, reason => {load_changed, A, B},
                     verdict_without => Verdict};
        false -> Cmp
    end;
inconclusive(#{significant := false, ci_pct := {Lo, Hi}} = Cmp, Stat) ->
    Gate = maps:get(gate, Stat, none),
    Slower = case maps:get(better, Cmp) of
                 higher -> -Lo;
                 lower -> Hi
             end,
    case Hi - Lo > ?TOO_WIDE_PCT orelse (is_number(Gate) andalso Slower > Gate) of
        true -> Cmp#{verdict := inconclusive, reason => {too_wide, Lo, Hi}};
        false -> Cmp
    end;
inconclusive(Cmp, _Stat) ->
    Cmp.

%% A time verdict on the same code: the same fingerprint in both runs
%% (erlperf_fingerprint: byte for byte the same code, runtime and erlperf), in the same
%% environment and settings, with no exact count changed, is no change: whatever moved
%% its time (the host), it was not the code. An inconclusive one keeps its reason, a
%% significant one the verdict the time alone gave (`{moved, Verdict}'), one of no
%% difference says the time agrees (`agrees').
same_code(#{verdict := Verdict} = Cmp, {#{?FINGERPRINT := F}, #{?FINGERPRINT := F}}, [], Counts) ->
    Why = case Verdict of
              inconclusive -> maps:get(reason, Cmp, too_few_samples);
              no_difference -> agrees;
              _ -> {moved, Verdict}
          end,
    Unchanged = lists:all(fun (#{verdict := V}) -> V =:= no_change end, Counts),
    case Why of
        {options_differ, _} -> Cmp;
        _ when Unchanged -> Cmp#{verdict := no_difference, significant := false, reason => {same_code, Why}};
        _ -> Cmp
    end;
same_code(Cmp, _Runs, _Environment, _Counts) ->
    Cmp.

%% Whether the host's load, which rose (fell) from A to B by more than ?LOAD_CHANGE,
%% can explain a slowdown (speedup): code that computes, one whose interval reaches the
%% ratio of the CPU left to it, (1 - B) / (1 - A); code that waits (its wall-clock time depends on how soon a CPU takes it
%% back, not on a share of the CPUs), one whose time per call changed by no more than
%% what waiting for a CPU added to it changed (see waited/1); without those figures,
%% any. Beyond that it stands.
explained(#{computes := true} = Cmp, slower, A, B) when B - A > ?LOAD_CHANGE ->
    A >= 1 orelse element(2, ratio_bounds(Cmp)) >= (1 - B) / (1 - A);
explained(#{computes := true} = Cmp, faster, A, B) when A - B > ?LOAD_CHANGE ->
    A >= 1 orelse element(1, ratio_bounds(Cmp)) =< (1 - B) / (1 - A);
explained(#{waited := {W0, W1}} = Cmp, Verdict, A, B) when is_number(W0), is_number(W1) ->
    %% code that waits: what waiting for a CPU added to a call (its share of the wall
    %% clock times the time of a call) against how much the time of a call changed
    Moved = case Verdict of
                slower -> B - A > ?LOAD_CHANGE;
                faster -> A - B > ?LOAD_CHANGE
            end,
    Moved andalso waited_explains(Cmp, Verdict, W0, W1);
explained(_Cmp, slower, A, B) ->
    B - A > ?LOAD_CHANGE;
explained(_Cmp, faster, A, B) ->
    A - B > ?LOAD_CHANGE.

%% Whether the change of what waiting added to a call (?WAIT_MARGIN times it) reaches
%% the least change of the time of a call the interval allows.
waited_explains(#{time_ns := {T0, T1}} = Cmp, Verdict, W0, W1) when is_number(T0), is_number(T1) ->
    {Lo, Hi} = ratio_bounds(Cmp),
    case Verdict of
        slower -> T0 * (1 / max(Hi, 1.0e-300) - 1) =< ?WAIT_MARGIN * (W1 - W0);
        faster -> T1 * (Lo - 1) =< ?WAIT_MARGIN * (W0 - W1)
    end;
waited_explains(_Cmp, _Verdict, _W0, _W1) ->
    true.

%% What waiting for a CPU added to a call of a run, nanoseconds: the scheduler threads'
%% run-queue wait over the wall-clock time, times the time of a call (`undefined' when
%% not measured).
waited(#{?INTERFERENCE := #{<<"wait_ns">> := Wait, <<"wall_ns">> := Wall},
         ?ITERATION_NS := Ns}) when is_number(Wait), is_number(Wall), Wall > 0, is_number(Ns) ->
    Wait / Wall * Ns;
waited(_Run) ->
    undefined.

%% The interval of the ratio of throughputs (the run's over the baseline's).
ratio_bounds(#{ci_pct := {Lo, Hi}, better := higher}) ->
    {1 + Lo / 100, 1 + Hi / 100};
ratio_bounds(#{ci_pct := {Lo, Hi}, better := lower}) when Lo > -100, Hi > -100 ->
    {1 / (1 + Hi / 100), 1 / (1 + Lo / 100)};
ratio_bounds(#{change_pct := Change, better := Better}) when is_number(Change), Change > -100 ->
    R = case Better of
            higher -> 1 + Change / 100;
            lower -> 1 / (1 + Change / 100)
        end,
    {R, R};
ratio_bounds(_Cmp) ->
    %% nothing to bound it: as explained
    {0.0, 1.0e300}.

%% What differs between the systems of the two records: OTP release, erlperf version,
%% schedulers, emulator flavour, CPU model (`[{Key, Baseline, Now}]').
environment(System, BaseSystem) ->
    [{Key, Old, New} || Key <- ?ENVIRONMENT,
                        New <- [maps:get(Key, System, undefined)], Old <- [maps:get(Key, BaseSystem, undefined)],
                        New =/= undefined, Old =/= undefined, New =/= Old].

%% The exact counts per call of both runs, each compared: a count changed when it
%% moved by more than ?COUNT_TOLERANCE_PCT percent and ?COUNT_TOLERANCE_ABS per call;
%% across OTP releases a change is inconclusive (the compiler and the runtime change
%% the counts of unchanged code).
counts(#{<<"counts">> := Base}, #{<<"counts">> := New}, Environment) ->
    Release = lists:keymember(<<"otp_release">>, 1, Environment),
    [count(Key, Old, Now, Release)
     || Key <- [?BYTES_PER_ITERATION, ?REDUCTIONS_PER_ITERATION],
        Old <- [maps:get(Key, Base, null)], Now <- [maps:get(Key, New, null)],
        is_number(Old), is_number(Now)];
counts(_BaseRun, _Run, _Environment) ->
    [].

count(Key, Old, Now, Release) ->
    Change = case Old == 0 of
                 true when Now == 0 -> 0.0;
                 true -> undefined;
                 false -> 100 * (Now - Old) / abs(Old)
             end,
    Changed = abs(Now - Old) > max(?COUNT_TOLERANCE_ABS, ?COUNT_TOLERANCE_PCT / 100 * abs(Old)),
    Verdict = if
                  not Changed -> no_change;
                  Release -> inconclusive;
                  Now > Old -> regressed;
                  true -> improved
              end,
    #{count => Key, baseline => Old, run => Now, change_pct => Change, verdict => Verdict}.

match(Run, AllBaseRuns) ->
    Label = maps:get(?LABEL, Run),
    Code = maps:get(?CODE, Run, null),
    BaseRuns = [B || B <- AllBaseRuns, params(B) =:= params(Run)],
    case [B || B <- BaseRuns, maps:get(?LABEL, B, undefined) =:= Label] of
        [B | _] -> {label, B};
        [] ->
            case [B || B <- BaseRuns, Code =/= null, maps:get(?CODE, B, undefined) =:= Code] of
                [B | _] -> {code, B};
                [] -> {none, undefined}
            end
    end.

%% A sweep's combination (none: records of erlperf before sweeps have no `params').
params(Run) ->
    maps:get(?PARAMS, Run, #{}).

run_samples(Run, cpu) ->
    {maps:get(?CPU_SAMPLES, Run), erlperf_record:fork_sizes(Run)};
run_samples(Run, wall) ->
    {maps:get(?SAMPLES, Run), erlperf_record:fork_sizes(Run)};
run_samples(Run, reference) ->
    case erlperf_record:fork_sizes(Run) of
        [_] = One ->
            {erlperf_reference:ratios(Run), One};
        _Forks ->
            Medians = erlperf_reference:fork_medians(Run),
            {Medians, [1 || _ <- Medians]}
    end.

entry_text(#{match := none}) ->
    "no runner with this label or code";
entry_text(#{comparison := Comparison}) ->
    erlperf_verdict:text(Comparison).

flat(Format, Args) ->
    lists:flatten(io_lib:format(Format, Args)).
