%%% @doc Statistics over samples: pure functions, no processes.
%%%
%%% `stddev/1' is the sample standard deviation (divides by N - 1); percentiles use the
%%% nearest-rank method on the sorted samples, so they are always one of the samples.
%%%
%%% Example:
%%% ```
%%% #{average := 2.5, median := 2} = erlperf_stat:summary([1, 2, 3, 4]).
%%% '''
-module(erlperf_stat).

-export([summary/1, mean/1, stddev/1, median/1, percentile/2, cv/1]).

-export_type([summary/0]).

-type summary() :: #{average := float(), min := number(), max := number(),
                     stddev := float(), median := number(), p99 := number(),
                     samples := [number()]}.

%% @doc Average, min, max, standard deviation, median and 99th percentile of samples.
-spec summary([number(), ...]) -> summary().
summary(Samples) ->
    Sorted = lists:sort(Samples),
    #{average => mean(Samples), min => hd(Sorted), max => lists:last(Sorted),
      stddev => stddev(Samples), median => nearest_rank(Sorted, 50),
      p99 => nearest_rank(Sorted, 99), samples => Samples}.

%% @doc Arithmetic mean.
-spec mean([number(), ...]) -> float().
mean(Samples) ->
    lists:sum(Samples) / length(Samples).

%% @doc Sample standard deviation; 0.0 for fewer than two samples.
-spec stddev([number(), ...]) -> float().
stddev([_]) ->
    0.0;
stddev(Samples) ->
    Mean = mean(Samples),
    SumSq = lists:foldl(fun (X, Acc) -> Acc + (X - Mean) * (X - Mean) end, 0.0, Samples),
    math:sqrt(SumSq / (length(Samples) - 1)).

%% @doc Median, by nearest rank (the lower middle for an even count).
-spec median([number(), ...]) -> number().
median(Samples) ->
    nearest_rank(lists:sort(Samples), 50).

%% @doc The `P'th percentile, for P above 0 and at most 100, by nearest rank.
-spec percentile([number(), ...], number()) -> number().
percentile(Samples, P) when P > 0, P =< 100 ->
    nearest_rank(lists:sort(Samples), P).

%% @doc Coefficient of variation: standard deviation over mean (0.0 when the mean is 0).
-spec cv([number(), ...]) -> float().
cv(Samples) ->
    case mean(Samples) of
        Mean when Mean == 0 -> 0.0;
        Mean -> stddev(Samples) / abs(Mean)
    end.

nearest_rank(Sorted, P) ->
    Rank = max(1, ceil(P * length(Sorted) / 100)),
    lists:nth(Rank, Sorted).
