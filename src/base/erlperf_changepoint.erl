%%% @doc Steps in a benchmark's history: pure statistics, no processes, no I/O.
%%%
%%% A history is one value per stored run of the same benchmark, in time order (its
%%% throughput, say), each optionally with its 95% interval. `steps/2' finds where the
%%% level of the series changed for real (a commit made the code faster or slower), and
%%% ignores what the runs' noise does on its own, such as a run now and then a few
%%% percent slow.
%%%
%%% Glossary:
%%% <dl>
%%% <dt>point</dt><dd>one run's value (a positive number), or `{Value, Low, High}' with
%%%   its 95% interval. The interval is read as a normal one: the run's standard error,
%%%   relative to its value, is `(High - Low) / (2 · 1.96 · Value)'.</dd>
%%% <dt>segment</dt><dd>consecutive points between two steps (or an end of the series).
%%%   Every segment holds at least `min_segment' points (2 by default, at least 2).</dd>
%%% <dt>step</dt><dd>a change of level between two adjacent segments, named by `at', the
%%%   1-based index of the first point after it. `before' and `after' are the segments'
%%%   geometric means (the exponential of the mean logarithm: a step is a ratio; with
%%%   runs a percent or two apart it differs from the arithmetic mean by about 0.01%).
%%%   `change_pct' is `100 · (after / before - 1)'; `ci_pct' its `1 - α' interval;
%%%   `p' the p value of the step's own test (not adjusted for the search).</dd>
%%% <dt>stretch</dt><dd>consecutive points of a segment tested against the rest of it:
%%%   a step up and a step back down (a regression that a later commit fixed), or the
%%%   other way round.</dd>
%%% <dt>α</dt><dd>the `alpha' option, 0.01 by default: the chance that a series with no
%%%   step is given one (family-wise over the whole series, for normal noise).</dd>
%%% <dt>noise floor</dt><dd>the `noise' option, percent (1.0 by default): a step is
%%%   called only when its whole interval lies beyond ±noise. Runs of identical code
%%%   differ by about a percent (code placement, scheduling), so smaller steps, however
%%%   certain, are not marked.</dd>
%%% </dl>
%%%
%%% Method. Values are taken as logarithms, so that a step is a ratio whatever the
%%% benchmark's scale. Two stages:
%%% <ol>
%%% <li>Segmentation (binary segmentation with stretches, as circular binary segmentation
%%%   does, Olshen et al. 2004). A segment of L of the series' N points is tested at level
%%%   α·L/N. Its candidates are every single split, and (for L up to 100) every inner
%%%   stretch, leaving at least `min_segment' points in each part. A candidate's
%%%   statistic is the pooled two-sample t of its two sides (stretch against rest); the
%%%   best candidate has the largest. Under the null (a flat
%%%   segment, independent normal noise) the largest t depends only on L and
%%%   `min_segment', not on the level or the scale of the values, so its p value is
%%%   computed exactly by a Monte Carlo test: R series of L standard normal values are
%%%   drawn and p = (1 + E) / (1 + R), E of them reaching the observed largest t. That
%%%   accounts for the many candidates exactly, where Bonferroni (the candidates' count
%%%   times the best one's own p value) would throw away most of the power. Each
%%%   candidate's t has Student's distribution with L - 2 degrees of freedom, so when the
%%%   best one's own p value is already above the level, or Bonferroni's bound below it,
%%%   the test is decided without drawing. Single splits are tested at 4/5 of the level;
%%%   inner stretches, only when no single split is significant, at the remaining 1/5.
%%%   A significant split or stretch is cut, and each part is tested again. The segments
%%%   left flat once the real steps are cut are disjoint, so their levels add up to at
%%%   most α; a flat series is tested once, at α.</li>
%%% <li>Confirmation. Each step is tested between the two segments around it with two
%%%   t-tests on the logarithms: pooled, with the residual variance of all segments about
%%%   their means (R's `lm(log(value) ~ segment)'), and Welch's, with each segment's own
%%%   variance (R's `t.test'). The one with the wider `1 - α' interval is reported: the
%%%   pooled variance keeps two segments of three runs that happen to be close from
%%%   looking precise, Welch's keeps a segment of two slow runs from borrowing the small
%%%   noise of the others. Every variance is at least the mean of the points' own squared
%%%   standard errors, when they have intervals: a run's value varies at least as much
%%%   as its own measurement. A step whose interval does not lie beyond the noise floor
%%%   is dropped, the weakest (largest p) first; its two segments merge and the remaining
%%%   steps are tested again.</li>
%%% </ol>
%%% A lone slow run is not a step: it would need a segment of its own, shorter than
%%% `min_segment', and a segment of two with it in is too spread to pass the
%%% confirmation.
%%%
%%% Measured (the tests, 1000 simulated histories each, noise 1.7% between runs,
%%% defaults): a step is called in 0.3-0.5% of flat histories of 12 and 30 runs, and in
%%% 0.7-1.2% when a tenth of the runs are 3-10% slow. A 5% step in the middle of 12 runs
%%% is found, at its place, in 60% of the histories: 12 runs hold little evidence at that
%%% size (even a t-test told where the step is rejects at 1% in only 93% of them); a 9%
%%% step in 98%, a 10% one in 99% (the rest are put one run off: a run next to the step
%%% whose noise took it past the middle). The largest t test is exact for normal noise
%%% only: with one-run slowdowns, two slow runs next to each other look like a short
%%% stretch, which the confirmation usually drops.
%%%
%%% The Monte Carlo draws come from a fixed seed, so a history always gives the same
%%% steps. Cost: a test draws R = ⌈10 / level⌉ - 1 series (999 at level 0.01, at most
%%% 100,000), and only when the two bounds above do not decide; it stops as soon as the
%%% p value cannot fall below the level. A draw costs O(L) for single splits and up to
%%% O(L²) for stretches (bounds skip most of them). A history of 100 runs takes 20 ms on
%%% average, at worst about 0.3 s (measured with one-run slowdowns, where the tests are
%%% closest to their level); longer segments are cut by single splits first.
%%%
%%% Errors: `{invalid_point, P}' for a point that is not a positive number or a
%%% `{Value, Low, High}' of numbers with `0 < Value' and `Low =< Value =< High';
%%% `{invalid_option, Key, Value}' for an unknown option or a bad value (`alpha' in
%%% (0, 1), `min_segment' an integer of at least 2, `noise' a number of at least 0).
%%%
%%% Example:
%%% ```
%%% Flat = [100, 101, 99, 100, 102, 100],
%%% [#{at := 7, change_pct := Pct}] =
%%%     erlperf_changepoint:steps(Flat ++ [90, 91, 89, 90, 91, 90]),
%%% true = Pct < -9,
%%% [] = erlperf_changepoint:steps(Flat ++ Flat).
%%% '''
-module(erlperf_changepoint).

%% API: called by the history pages (HTML and text).
-export([steps/1, steps/2]).

-export_type([point/0, options/0, step/0]).

%% A run's value, optionally with its 95% interval.
-type point() :: number() | {number(), Low :: number(), High :: number()}.

%% `alpha': the family-wise false-alarm rate of the whole series (0.01).
%% `min_segment': a step needs at least this many runs on each side, at least 2 (2).
%% `noise': percent; steps whose interval reaches within ±noise are not called (1.0).
-type options() :: #{alpha => float(), min_segment => pos_integer(), noise => number()}.

%% A step before the point `at' (1-based): the segments' geometric means before and
%% after it, the change in percent, its `1 - alpha' interval, and the p value of the
%% step's test (not adjusted for the search).
-type step() :: #{at := pos_integer(), before := float(), 'after' := float(),
                  change_pct := float(), ci_pct := {float(), float()}, p := float()}.

%% A point as the module works with it: the logarithm of its value and the square of
%% its standard error relative to the value (0.0 without an interval).
-type run() :: {Log :: float(), Floor :: float()}.

-define(DEFAULTS, #{alpha => 0.01, min_segment => 2, noise => 1.0}).
%% A point's interval has this confidence (percent of a normal distribution).
-define(POINT_CONFIDENCE, 0.975).
%% A Monte Carlo test draws enough series that this many of them reaching the observed
%% statistic still leave its p value at the level: the test loses little power to
%% chance (with 10, a p value of a fifth of the level is rejected 9 times in 10).
-define(EXCEEDANCES, 10).
%% At most this many series per segment test (a short segment of a very long series is
%% tested at a level that would need more: it is not split).
-define(MAX_DRAWS, 100000).
%% The draws' seed (any fixed one: the same history always gives the same steps).
-define(SEED, {20240501, 17, 4242}).
%% A drawn statistic within this relative distance below the observed one counts as
%% reaching it (rounding must not make a test less conservative).
-define(TIE, 1.0e-9).
%% A segment's level is shared between its single splits (this share) and its inner
%% stretches (the rest): most steps are single, and a stretch's steps are usually large.
-define(SINGLE_SHARE, 0.8).
%% Inner stretches are scanned in segments of at most this many points: a scan costs
%% O(L²) per Monte Carlo draw. Longer segments are cut by single splits first (a long
%% bump is found that way: its sides are long).
-define(MAX_STRETCH_SCAN, 100).

%%--------------------------------------------------------------------
%% API

%% @doc Steps of a series with the default options: `steps(Points, #{})'.
-spec steps([point()]) -> [step()].
steps(Points) ->
    steps(Points, #{}).

%% @doc Steps of a series of runs in time order, in order of `at'.
-spec steps([point()], options()) -> [step()].
steps(Points, Options) when is_list(Points), is_map(Options) ->
    #{alpha := Alpha, min_segment := MinSegment, noise := Noise} = options(Options),
    Runs = list_to_tuple([run(P) || P <- Points]),
    Found = segment(Runs, 1, tuple_size(Runs), {Alpha, MinSegment, tuple_size(Runs)}),
    confirm(lists:usort(Found), Runs, Alpha, Noise).

%%--------------------------------------------------------------------
%% Internal functions: input

options(Options) ->
    _ = [option(Key, Value) || {Key, Value} <- maps:to_list(Options)],
    maps:merge(?DEFAULTS, Options).

option(alpha, A) when is_number(A), A > 0, A < 1 -> ok;
option(min_segment, M) when is_integer(M), M >= 2 -> ok;
option(noise, N) when is_number(N), N >= 0 -> ok;
option(Key, Value) -> erlang:error({invalid_option, Key, Value}).

-spec run(term()) -> run().
run(V) when is_number(V), V > 0 ->
    {math:log(V), 0.0};
run({V, Low, High}) when is_number(V), is_number(Low), is_number(High), V > 0,
                         Low =< V, V =< High ->
    Se = (High - Low) / (2 * erlperf_stat:normal_quantile(?POINT_CONFIDENCE) * V),
    {math:log(V), Se * Se};
run(Point) ->
    erlang:error({invalid_point, Point}).

%%--------------------------------------------------------------------
%% Internal functions: segmentation

%% The `at' of every step found in Runs[First..Last]; Family is {α, min_segment, N}.
segment(Runs, First, Last, {Alpha, MinSegment, N} = Family)
  when Last - First + 1 >= 2 * MinSegment ->
    Length = Last - First + 1,
    Logs = [element(1, element(I, Runs)) || I <- lists:seq(First, Last)],
    Cuts = [First + O || O <- change(Logs, MinSegment, Alpha * Length / N)],
    Cuts ++ lists:append([segment(Runs, A, B, Family) || Cuts =/= [],
                                                         {A, B} <- spans(First, Cuts, Last)]);
segment(_Runs, _First, _Last, _Family) ->
    [].

%% The segments First..Last is cut into before each of Cuts (sorted): [{A, B}], A..B.
spans(First, Cuts, Last) ->
    lists:zip([First | Cuts], [C - 1 || C <- Cuts] ++ [Last]).

%% The offsets (points before each cut) of the best single split of Logs when it is
%% significant at its share of Level, else of the best inner stretch when that is
%% significant at the rest (in a segment of at most ?MAX_STRETCH_SCAN points; a longer
%% one is scanned for single splits only, at the whole level); [] when neither is.
change(Logs, MinSegment, Level) ->
    Length = length(Logs),
    {Sums, _Range, Squares} = cusum(Logs),
    Single = {Length, MinSegment, 0, 0},
    Scans = case Length =< ?MAX_STRETCH_SCAN of
                true -> [{Single, ?SINGLE_SHARE * Level},
                         {{Length, MinSegment, MinSegment, Length - 2 * MinSegment},
                          (1 - ?SINGLE_SHARE) * Level}];
                false -> [{Single, Level}]
            end,
    case Squares > 0 of
        true -> first_significant(Scans, Sums, Squares);
        false -> []
    end.

first_significant([], _Sums, _Squares) ->
    [];
first_significant([{Scan, Level} | Rest], Sums, Squares) ->
    {Best, P, Q} = best(Scan, Sums),
    case Best > 0 andalso significant(Best / Squares, Scan, Level) of
        true -> [O || O <- [P, Q], O > 0];
        false -> first_significant(Rest, Sums, Squares)
    end.

%% Is the largest statistic of a scan, Ratio of the sum of squares, significant at
%% Level? Under the null each candidate's pooled t has Student's t distribution with
%% L - 2 degrees of freedom: the best one's own p value is a lower bound of the test's
%% p value, and the candidates' count times it an upper bound (Bonferroni). Only between
%% the two is the Monte Carlo test needed.
significant(Ratio, {Length, _, _, _} = Scan, Level) ->
    %% the share of the sum of squares between the candidate's two sides
    Between = Length * Ratio,
    Single = case Between < 1 of
                 true -> 2 * erlperf_stat:t_cdf(-math:sqrt((Length - 2) * Between / (1 - Between)),
                                                Length - 2);
                 false -> 0.0
             end,
    Bonferroni = Single * candidates(Scan),
    if
        Single > Level -> false;
        Bonferroni =< Level -> true;
        true -> monte_carlo(Ratio, Scan, Level)
    end.

candidates({Length, MinSegment, PFirst, PLast}) ->
    lists:sum([Length - 2 * MinSegment - P + 1 || P <- lists:seq(PFirst, PLast)]).

%% Partial sums of the deviations from the mean (a tuple: element K + 1 is the sum of
%% the first K), their range and the sum of the squared deviations. Taken from the first
%% value first, so that equal values have no deviation at all (their mean may be an ulp
%% off).
cusum([First | _] = Values) ->
    Shifted = [X - First || X <- Values],
    Mean = lists:sum(Shifted) / length(Values),
    cusum([X - Mean || X <- Shifted], 0.0, 0.0, 0.0, 0.0, [0.0]).

cusum([], _Sum, Min, Max, Squares, Acc) ->
    {list_to_tuple(lists:reverse(Acc)), Max - Min, Squares};
cusum([D | Rest], Sum, Min, Max, Squares, Acc) ->
    Next = Sum + D,
    cusum(Rest, Next, min(Min, Next), max(Max, Next), Squares + D * D, [Next | Acc]).

%% A scan {Length, MinSegment, PFirst, PLast}: its candidates are the stretches of points
%% P+1..Q against the rest of the segment, PFirst =< P =< PLast and
%% P + MinSegment =< Q =< Length - MinSegment. Single splits are P = 0 (a split at Q);
%% inner stretches MinSegment =< P =< Length - 2·MinSegment. The statistic,
%% (S(Q) - S(P))² / (M·(L - M)) with M = Q - P, grows with the pooled t² (the total sum
%% of squares is fixed). The largest, with its P and Q (the first on ties).
best({_, _, PFirst, _} = Scan, Sums) ->
    best(PFirst, Scan, Sums, {0.0, 0, 0}).

best(P, {_, _, _, PLast}, _Sums, Acc) when P > PLast ->
    Acc;
best(P, {_, MinSegment, _, _} = Scan, Sums, Acc) ->
    best(P + 1, Scan, Sums, best_q(P + MinSegment, P, Scan, Sums, Acc)).

best_q(Q, _P, {Length, MinSegment, _, _}, _Sums, Acc) when Q > Length - MinSegment ->
    Acc;
best_q(Q, P, {Length, _, _, _} = Scan, Sums, {Best, _, _} = Acc) ->
    S = statistic(P, Q, Sums, Length),
    Acc1 = case S > Best of
               true -> {S, P, Q};
               false -> Acc
           end,
    best_q(Q + 1, P, Scan, Sums, Acc1).

statistic(P, Q, Sums, Length) ->
    M = Q - P,
    D = element(Q + 1, Sums) - element(P + 1, Sums),
    D * D / (M * (Length - M)).

%% Does any candidate of the scan reach Threshold? Single splits are all tried. Inner
%% stretches are tried in bands of lengths A..2A-1, a band only when a bound lets it:
%% the ends of a stretch shorter than 2A are partial sums in two adjacent blocks of
%% 2A - 1, so they differ by at most the range of that pair of blocks, while M·(L - M)
%% is at least its value at an end of the band.
reaches({_, _, 0, 0} = Scan, Sums, Threshold) ->
    reaches(0, Scan, Sums, Threshold);
reaches({Length, MinSegment, _, _} = Scan, Sums, Threshold) ->
    lists:any(fun ({A, B}) ->
                      Range = pair_range(tuple_to_list(Sums), B),
                      Range * Range >= Threshold * min(A * (Length - A), B * (Length - B))
                          andalso band_reaches(A, B, Scan, Sums, Threshold)
              end, bands(MinSegment, Length - 2 * MinSegment)).

reaches(P, {_, _, _, PLast}, _Sums, _Threshold) when P > PLast ->
    false;
reaches(P, {_, MinSegment, _, _} = Scan, Sums, Threshold) ->
    reaches_q(P + MinSegment, P, Scan, Sums, Threshold)
        orelse reaches(P + 1, Scan, Sums, Threshold).

reaches_q(Q, _P, {Length, MinSegment, _, _}, _Sums, _Threshold) when Q > Length - MinSegment ->
    false;
reaches_q(Q, P, {Length, _, _, _} = Scan, Sums, Threshold) ->
    statistic(P, Q, Sums, Length) >= Threshold
        orelse reaches_q(Q + 1, P, Scan, Sums, Threshold).

%% Stretch lengths A..2A-1, from MinSegment up to Longest.
bands(A, Longest) when A > Longest -> [];
bands(A, Longest) -> [{A, min(2 * A - 1, Longest)} | bands(2 * A, Longest)].

%% The largest range of two adjacent blocks of Size values.
pair_range(Values, Size) ->
    Blocks = [{lists:min(B), lists:max(B)} || B <- blocks(Values, Size)],
    Next = tl(Blocks) ++ [lists:last(Blocks)],
    lists:max([max(High1, High2) - min(Low1, Low2)
               || {{Low1, High1}, {Low2, High2}} <- lists:zip(Blocks, Next)]).

blocks([], _Size) ->
    [];
blocks(Values, Size) ->
    {Block, Rest} = take(Values, Size, []),
    [Block | blocks(Rest, Size)].

take([X | Rest], N, Acc) when N > 0 -> take(Rest, N - 1, [X | Acc]);
take(Rest, _N, Acc) -> {Acc, Rest}.

%% Does a stretch of A..B points reach Threshold?
band_reaches(M, B, _Scan, _Sums, _Threshold) when M > B ->
    false;
band_reaches(M, B, {Length, MinSegment, _, _} = Scan, Sums, Threshold) ->
    lists:any(fun (P) -> statistic(P, P + M, Sums, Length) >= Threshold end,
              lists:seq(MinSegment, Length - MinSegment - M))
        orelse band_reaches(M + 1, B, Scan, Sums, Threshold).

%% The Monte Carlo test: is (1 + E) / (1 + R) =< Level, E of R series of independent
%% standard normal values whose largest statistic, in proportion to their sum of
%% squares, reaches Ratio? Stops as soon as E is too many.
monte_carlo(Ratio, Scan, Level) ->
    Draws = min(?MAX_DRAWS, ceil(?EXCEEDANCES / Level) - 1),
    Allowed = Level * (Draws + 1) - 1,
    draws({Ratio * (1 - ?TIE), Scan}, Draws, Allowed, 0, rand:seed_s(exsss, ?SEED)).

draws(_Test, _Left, Allowed, Reached, _Rand) when Reached > Allowed ->
    false;
draws(_Test, 0, _Allowed, _Reached, _Rand) ->
    true;
draws({Ratio, {Length, MinSegment, _, _} = Scan} = Test, Left, Allowed, Reached, Rand) ->
    {Values, Rand1} = normals(Length, Rand, []),
    {Sums, Range, Squares} = cusum(Values),
    Threshold = Ratio * Squares,
    %% no candidate has M·(L - M) below MinSegment·(L - MinSegment): a series whose
    %% partial sums span less than this cannot reach the threshold
    Hit = Range * Range >= Threshold * MinSegment * (Length - MinSegment)
        andalso reaches(Scan, Sums, Threshold),
    draws(Test, Left - 1, Allowed, Reached + hit(Hit), Rand1).

hit(true) -> 1;
hit(false) -> 0.

normals(0, Rand, Acc) ->
    {Acc, Rand};
normals(N, Rand, Acc) ->
    {X, Rand1} = rand:normal_s(Rand),
    normals(N - 1, Rand1, [X | Acc]).

%%--------------------------------------------------------------------
%% Internal functions: confirmation

%% The steps at Cuts (sorted) whose interval lies beyond the noise floor: the weakest
%% failing one is dropped and the rest described again until all pass.
confirm([], _Runs, _Alpha, _Noise) ->
    [];
confirm(Cuts, Runs, Alpha, Noise) ->
    Segments = [segment_summary(A, B, Runs) || {A, B} <- spans(1, Cuts, tuple_size(Runs))],
    Fit = fit(Segments, tuple_size(Runs)),
    Steps = [describe(At, Before, After, Fit, Alpha)
             || {At, Before, After} <- lists:zip3(Cuts, lists:droplast(Segments), tl(Segments))],
    case [S || S <- Steps, not beyond(S, Noise)] of
        [] ->
            Steps;
        Failing ->
            [#{at := Weakest} | _] = lists:sort(fun (#{p := P1}, #{p := P2}) -> P1 >= P2 end,
                                                Failing),
            confirm(lists:delete(Weakest, Cuts), Runs, Alpha, Noise)
    end.

beyond(#{ci_pct := {Low, High}}, Noise) ->
    Low > Noise orelse High < -Noise.

%% Runs[First..Last]: the count, the mean logarithm, the sum of squared deviations from
%% it, and the sum of the points' squared standard errors.
segment_summary(First, Last, Runs) ->
    Points = [element(I, Runs) || I <- lists:seq(First, Last)],
    N = length(Points),
    Mean = lists:sum([Y || {Y, _} <- Points]) / N,
    {N, Mean, lists:sum([(Y - Mean) * (Y - Mean) || {Y, _} <- Points]),
     lists:sum([F || {_, F} <- Points])}.

%% The model of segment means: the residual variance (at least the points' mean squared
%% standard error) and its degrees of freedom.
fit(Segments, N) ->
    Df = N - length(Segments),
    Residual = lists:sum([S || {_, _, S, _} <- Segments]) / Df,
    Floor = lists:sum([F || {_, _, _, F} <- Segments]) / N,
    {max(Residual, Floor), Df}.

%% The step At between two segments: of the pooled and Welch's t-tests of the difference
%% of their mean logarithms, the one with the wider interval.
describe(At, {N1, Mean1, _, _} = Before, {N2, Mean2, _, _} = After, {Variance, Df}, Alpha) ->
    Diff = Mean2 - Mean1,
    Pooled = t_test(Diff, Variance * (1 / N1 + 1 / N2), Df, Alpha),
    Welch = welch(Diff, Before, After, Alpha),
    {P, Half} = max_by_width(Pooled, Welch),
    #{at => At, before => math:exp(Mean1), 'after' => math:exp(Mean2),
      change_pct => pct(Diff),
      ci_pct => {pct(Diff - Half), pct(Diff + Half)}, p => P}.

max_by_width({_, HalfA} = A, {_, HalfB}) when HalfA >= HalfB -> A;
max_by_width(_A, B) -> B.

%% Welch's test: each segment's own variance (at least its points' mean squared
%% standard error), Welch-Satterthwaite degrees of freedom.
welch(Diff, Before, After, Alpha) ->
    V1 = own_variance(Before),
    V2 = own_variance(After),
    Se2 = V1 + V2,
    Df = case Se2 > 0 of
             true -> Se2 * Se2 / (V1 * V1 / (n(Before) - 1) + V2 * V2 / (n(After) - 1));
             false -> 1
         end,
    t_test(Diff, Se2, Df, Alpha).

%% The squared standard error of a segment's mean.
own_variance({N, _, Squares, Floors}) ->
    max(Squares / (N - 1), Floors / N) / N.

n({N, _, _, _}) -> N.

%% The p value and the interval's half width of a difference with its squared standard
%% error and degrees of freedom.
t_test(Diff, Se2, Df, Alpha) when Se2 > 0 ->
    Se = math:sqrt(Se2),
    {2 * erlperf_stat:t_cdf(-abs(Diff / Se), Df), erlperf_stat:t_quantile(1 - Alpha / 2, Df) * Se};
t_test(Diff, _Se2, _Df, _Alpha) when Diff == 0 ->
    {1.0, 0.0};
t_test(_Diff, _Se2, _Df, _Alpha) ->
    %% no spread and different levels: certain
    {0.0, 0.0}.

pct(Log) ->
    100 * (math:exp(Log) - 1).
