%%% @doc Evidence for full reports: each runner's confidence interval and outliers, and a
%%% verdict for every runner but the fastest against the fastest. Pure: it reads and
%%% returns report maps (see {@link erlperf:report()}).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>fastest</b>: the report with the highest throughput (continuous and
%%%       concurrency modes) or the shortest time (timed mode); ties keep the first.</li>
%%%   <li><b>test</b>: how two runners' samples are compared ({@link erlperf_stat:compare/3}):
%%%       `paired' when the samples were taken at the same instants (`compare =>
%%%       parallel') or in the same rounds (`interleaved') and are as many; `welch'
%%%       otherwise (`sequential', or different sample counts).</li>
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

%% API: called by erlperf:benchmark/3 on full reports.
-export([annotate/2]).

%%--------------------------------------------------------------------
%% API

%% @doc Adds `ci', `confidence' and `outliers' to every report's result, and a
%% `comparison' to every report but the fastest (when there are several).
-spec annotate([erlperf:report()], Confidence :: number()) -> [erlperf:report()].
annotate(Reports, Confidence) ->
    Described = [describe(R, Confidence) || R <- Reports],
    case Described of
        [_, _ | _] -> against_fastest(Described, Confidence);
        _ -> Described
    end.

%%--------------------------------------------------------------------
%% Internal functions

describe(#{result := #{values := Values} = Result} = Report, Confidence) ->
    Report#{result => Result#{ci => erlperf_stat:confidence_interval(Values, Confidence),
                              confidence => Confidence,
                              outliers => erlperf_stat:outliers(Values)}}.

against_fastest(Reports, Confidence) ->
    Fastest = fastest(Reports),
    #{label := Label, result := #{values := Base}} = Fastest,
    [case R =:= Fastest of
         true -> R;
         false -> R#{comparison => compare(Label, Base, R, Confidence)}
     end || R <- Reports].

compare(Label, Base, #{result := #{values := Values}} = Report, Confidence) ->
    Options = #{test => test(Report, Base, Values), confidence => Confidence,
                better => better(Report)},
    Comparison = erlperf_stat:compare(Base, Values, Options),
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

fastest([First | Rest]) ->
    lists:foldl(fun (R, Best) ->
                        case score(R) > score(Best) of
                            true -> R;
                            false -> Best
                        end
                end, First, Rest).

score(#{mode := timed, result := #{average := Avg}}) when Avg == 0 -> 0.0;
score(#{mode := timed, result := #{average := Avg}}) -> 1.0 / Avg;
score(#{result := #{average := Avg}}) -> float(Avg).
