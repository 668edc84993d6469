%%% @doc Evidence for full reports: each runner's confidence interval and outliers, and a
%%% verdict for every runner but the fastest against the fastest. Pure: it reads and
%%% returns report maps (see {@link erlperf:report()}).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>fastest</b>: the report with the highest throughput (continuous and
%%%       concurrency modes) or the shortest time (timed mode); ties keep the first.</li>
%%%   <li><b>test</b>: how two runners are compared ({@link erlperf_stat:compare_runs/3}):
%%%       forked runs ({@link erlperf_forks}) by their fork means, `paired' (fork I of
%%%       every runner ran side by side, or one right after the other); single runs by
%%%       their samples, `paired' when taken at the same instants (`compare =>
%%%       parallel') or in the same rounds (`interleaved') and as many, `welch'
%%%       otherwise (`sequential', or different sample counts).</li>
%%%   <li><b>interval</b>: a runner's `ci', of its fork means when forked
%%%       ({@link erlperf_stat:interval/3}).</li>
%%%   <li><b>comparison</b>: what the other report gets: `#{against => Label, change_pct,
%%%       ci_pct, significant, verdict, test, p, confidence}'; the change is the other
%%%       runner's throughput (or time) against the fastest's, in percent.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% Reports = erlperf:compare(["rand:uniform().", "rand:uniform(1000)."], #{report => full}),
%%% [#{result := #{ci := {_, _}}}, _] = Reports,
%%% [_ | Others] = [R || #{comparison := _} = R <- Reports].
%%% '''
-module(erlperf_comparison).

%% API: called by erlperf:benchmark/3 on full reports, and by erlperf_local on the
%% steps of a concurrency estimation.
-export([annotate/2, plateau/2, decided/1, decided/2]).

-export_type([stat_options/0]).

%% How runners are compared: the confidence of intervals and verdicts, the noise floor
%% of verdicts, and the run noise of each runner's interval (percent; see
%% erlperf_stat:compare/3 and erlperf_stat:interval/4).
%% `looks': the verdicts are one of so many planned looks at a run measured until decided
%% (see erlperf_stat:compare/3).
-type stat_options() :: #{confidence => number(), noise => number(), run_noise => number(),
                          looks => pos_integer()}.

%% Confidence when none is given, percent.

%%--------------------------------------------------------------------
%% API

%% @doc Adds `ci', `confidence' and `outliers' to every report's result, and a
%% `comparison' to every report but the fastest (when there are several). `Stat':
%% `#{confidence => Percent, noise => Percent, run_noise => Percent}' [95, 0, 0], or the
%% confidence alone. Run noise widens each runner's interval, never a verdict: runners
%% compared here ran in one run, and share its state.
-spec annotate([erlperf:report()], stat_options() | number()) -> [erlperf:report()].
annotate(Reports, Confidence) when is_number(Confidence) ->
    %% a bare confidence, as erlperf 2.x took it: no noise floor
    annotate(Reports, #{confidence => Confidence, noise => 0});
annotate(Reports, Stat) ->
    Confidence = maps:get(confidence, Stat, erlperf_options:default(confidence)),
    RunNoise = maps:get(run_noise, Stat, 0),
    Described = [describe(R, Confidence, RunNoise) || R <- Reports],
    case Described of
        [_, _ | _] -> against_fastest(Described, Stat#{confidence => Confidence});
        _ -> Described
    end.

%% @doc The steps of a concurrency estimation, `{Concurrency, Values}' in the order
%% run: returns `{Chosen, Best}'. `Best' has the highest average (the first of equals);
%% `Chosen' is the smallest concurrency whose throughput is not significantly below the
%% best's (Welch's test with `Stat': the steps ran one after another). With fewer than
%% two samples a step there is no evidence either way, and `Chosen' is `Best'.
-spec plateau([{pos_integer(), [number(), ...]}, ...], stat_options()) ->
    {Chosen :: pos_integer(), Best :: pos_integer()}.
plateau(Steps, Stat) ->
    {Best, BestValues} = first_highest(fun ({_, V}) -> erlperf_stat:mean(V) end, Steps),
    Options = maps:with([confidence, noise], Stat#{test => welch, better => higher}),
    Close = [C || {C, V} <- lists:keysort(1, Steps), length(V) > 1, length(BestValues) > 1,
                  maps:get(verdict, erlperf_stat:compare(BestValues, V, Options)) =/= slower],
    {hd(Close ++ [Best]), Best}.

%% @doc Whether every verdict of annotated reports is decided: a significant change, or
%% no significant difference with an interval inside the noise floor (a change as small
%% as the floor, or smaller, is ruled out either way).
-spec decided([erlperf:report()]) -> boolean().
decided(Reports) ->
    decided(Reports, noise).

%% @doc Whether every verdict of annotated reports is decided against `Margin' percent
%% (`noise': each comparison's noise floor): a significant change, or no significant
%% difference with an interval inside ±Margin.
-spec decided([erlperf:report()], number() | noise) -> boolean().
decided(Reports, Margin) ->
    lists:all(fun (#{comparison := C}) -> decided_one(C, Margin);
                  (#{}) -> true
              end, Reports).

decided_one(#{significant := true}, _Margin) ->
    true;
decided_one(#{verdict := no_difference, noise := Noise} = C, noise) ->
    decided_one(C, Noise);
decided_one(#{verdict := no_difference, ci_pct := {Lo, Hi}}, Margin) ->
    Lo >= -Margin andalso Hi =< Margin;
decided_one(#{}, _Margin) ->
    false.

%%--------------------------------------------------------------------
%% Internal functions

%% The element of the highest score; the first of equals.
first_highest(Score, [First | Rest]) ->
    {_, Best} = lists:foldl(fun (E, {Top, _} = Acc) ->
                                    case Score(E) of
                                        S when S > Top -> {S, E};
                                        _ -> Acc
                                    end
                            end, {Score(First), First}, Rest),
    Best.

describe(#{result := #{values := Values} = Result} = Report, Confidence, RunNoise) ->
    Report#{result => Result#{ci => erlperf_stat:interval(Values, sizes(Result), Confidence, RunNoise),
                              confidence => Confidence,
                              outliers => erlperf_stat:outliers(Values)}}.

%% Samples per fork; a single run is one fork.
sizes(#{forks := #{sizes := Sizes}}) -> Sizes;
sizes(#{values := Values}) -> [length(Values)].

against_fastest(Reports, Stat) ->
    Fastest = fastest(Reports),
    #{label := Label, result := Base} = Fastest,
    [case R =:= Fastest of
         true -> R;
         false -> R#{comparison => compare(Label, Base, R, Stat)}
     end || R <- Reports].

%% Forked runs are compared fork by fork: the fork means of the two, paired (fork I of
%% both ran side by side, or one right after the other); a single run sample by sample.
compare(Label, BaseResult, #{result := Result} = Report, Stat) ->
    #{values := Base} = BaseResult,
    #{values := Values} = Result,
    Test = case sizes(Result) of
               %% measured until decided: the runners took turns, round by round
               [_, _ | _] when is_map_key(sequential, Report) -> ratio;
               [_, _ | _] -> paired;
               _ -> test(Report, Base, Values)
           end,
    Options = (maps:with([confidence, noise, looks], Stat))#{test => Test,
                                                            better => better(Report)},
    Comparison = erlperf_stat:compare_runs({Base, sizes(BaseResult)}, {Values, sizes(Result)},
                                           Options),
    Comparison#{against => Label}.

%% Samples taken at the same instants (parallel) or in the same rounds (interleaved)
%% pair up; otherwise they are independent.
test(#{run_options := #{compare := Compare}}, Base, Values)
  when (Compare =:= parallel orelse Compare =:= interleaved), length(Base) =:= length(Values),
       length(Values) > 1 ->
    paired;
test(_Report, _Base, _Values) ->
    welch.

better(#{mode := timed}) -> lower;
better(_Report) -> higher.

fastest(Reports) ->
    first_highest(fun score/1, Reports).

score(#{mode := timed, result := #{average := Avg}}) when Avg == 0 -> 0.0;
score(#{mode := timed, result := #{average := Avg}}) -> 1.0 / Avg;
score(#{result := #{average := Avg}}) -> float(Avg).
