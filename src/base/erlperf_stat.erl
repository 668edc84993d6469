%%% @doc Statistics over samples: pure functions, no processes, no I/O.
%%%
%%% Describes one runner's samples (summary, confidence interval of the mean,
%%% outliers) and answers "is the difference between two runners real?" (`compare/3').
%%%
%%% Glossary:
%%% <dl>
%%% <dt>sample</dt><dd>one measured value: iterations per sample duration (continuous
%%%   mode, higher is better) or microseconds per sample (timed mode, lower is better).</dd>
%%% <dt>confidence</dt><dd>a percentage in (0, 100), by default the `confidence' option's (erlperf_options); α = 1 - confidence/100.</dd>
%%% <dt>confidence interval of the mean</dt><dd>Student's t interval
%%%   `mean ± t(1 - α/2, n - 1) · s / √n', `s' the sample standard deviation. Undefined
%%%   (`undefined') for one sample: there is no spread to estimate.</dd>
%%% <dt>t(p, df), Φ⁻¹(p)</dt><dd>quantiles of Student's t and of the standard normal
%%%   distribution. The t CDF is computed from the regularized incomplete beta function
%%%   (continued fraction, modified Lentz) and inverted by Newton's method inside a
%%%   bisection bracket; the normal quantile is Acklam's rational approximation refined
%%%   by one Halley step on `math:erfc/1'. On the reference values of the tests they
%%%   agree with R's `qt', `pt', `pbeta' and `qnorm' to 2e-13 (relative; the tests ask
%%%   for 1e-10). Limits: the t tail's relative error grows with the degrees of freedom
%%%   where the continued fraction changes branch (t² near 3): 1e-12 at 10^4, 5e-11 at
%%%   10^6, 2e-10 at 10^7 (measured against 40-digit mpmath); above 10^7 it is
%%%   Abramowitz and Stegun's 26.7.8 approximation, as R's `pt' above 4·10^5. Within
%%%   1e-6 of the median the t quantile keeps about 9 digits (the tail, near 0.5, has
%%%   16 digits, T near 0 far fewer).</dd>
%%% <dt>fork</dt><dd>one of several independent repetitions of a run, each with a fresh
%%%   copy of the code and fresh workers. Samples of one fork share whatever held for that
%%%   fork (where the code was placed, which CPU each worker got, the machine's state at
%%%   the time), so they vary less among themselves than the whole does.</dd>
%%% <dt>forked interval</dt><dd>Student's t interval of the fork means,
%%%   `m ± t(1 - α/2, F - 1) · s / √F', `m' and `s' the mean and standard deviation of the
%%%   F fork means: exact when fork means are normal and independent, whatever the split
%%%   of their variance between and within forks (with unequal fork sizes, nearly so).
%%%   A single run's interval (F = 1) is the t interval of its samples, which only knows
%%%   the variation within that run.</dd>
%%% <dt>run noise</dt><dd>how much whole runs of the same code differ beyond what one run
%%%   shows: the state of the machine over tens of seconds (other programs, the host's
%%%   other tenants, frequency), where the VM placed its own code. Taken as a known
%%%   standard deviation, R percent of the mean (the `run_noise' option; 0 adds nothing).
%%%   An interval of a runner then is `m ± t(1 - α/2, df) · √(se² + (R·m/100)²)', `se' and
%%%   `df' those of its interval above (of the fork means, or of the samples of one run).
%%%   A comparison of two runs (Welch's test) adds (R·mA/100)² and (R·mB/100)² to the
%%%   squared standard errors of the means, in the statistic and in Fieller's interval,
%%%   and keeps the Welch-Satterthwaite degrees of freedom of the estimated parts. Both
%%%   take the degrees of freedom of what was estimated: the known part has more, so
%%%   this is conservative, and an interval only ever widens, and a p value only ever
%%%   grows, with R (Satterthwaite's combined degrees of freedom would narrow a
%%%   three-fork interval as R grows).
%%%   Runners compared within one run share that run's state: their verdicts take no run
%%%   noise.</dd>
%%% <dt>variance components</dt><dd>the one-way random-effects model
%%%   `y(f, i) = μ + a(f) + e(f, i)', estimated by the analysis of variance: with N
%%%   samples in F forks of sizes n(f), MSB = Σ n(f)(ȳ(f) - ȳ)² / (F - 1) and MSW =
%%%   ΣΣ (y(f, i) - ȳ(f))² / (N - F), the within variance is MSW and the between
%%%   variance max(0, (MSB - MSW) / n0), n0 = (N - Σ n(f)² / N) / (F - 1) (the fork size,
%%%   for equal forks); ȳ is the mean of all samples. R's `aov' gives the same mean
%%%   squares.</dd>
%%% <dt>quartiles</dt><dd>Q1, median, Q3 by linear interpolation between order
%%%   statistics, R's `quantile(x, type = 7)': the p-quantile of sorted x(1..n) is
%%%   x(⌊h⌋) + (h - ⌊h⌋)(x(⌊h⌋+1) - x(⌊h⌋)) with h = 1 + (n - 1)p. (`median/1' and
%%%   `percentile/2' keep their nearest-rank definition.)</dd>
%%% <dt>IQR, fences, outliers</dt><dd>IQR = Q3 - Q1 (Tukey). A sample below Q1 - 1.5·IQR
%%%   or above Q3 + 1.5·IQR is a mild outlier; below Q1 - 3·IQR or above Q3 + 3·IQR a
%%%   severe one. The classes do not overlap (a severe outlier is not also counted as
%%%   mild). Outliers are counted, never dropped.</dd>
%%% <dt>baseline A, other B, change</dt><dd>`compare(A, B, Options)' describes B against
%%%   A: `change_pct' is the estimated shift of B in percent of |mean(A)|, positive when B's
%%%   samples are higher.</dd>
%%% <dt>p value, significant</dt><dd>the probability, were there no difference, of a test
%%%   statistic at least as extreme; significant iff p &lt; α.</dd>
%%% <dt>welch</dt><dd>Welch's unequal-variance t-test, Welch-Satterthwaite degrees of
%%%   freedom; the interval is that of mean(B) - mean(A). Needs two samples on each side.</dd>
%%% <dt>yuen</dt><dd>Yuen's test: Welch's on the 20% trimmed means (⌊0.2·n⌋ samples cut
%%%   from each end), each mean's squared standard error (n - 1)·s²w / (h·(h - 1)) with
%%%   s²w the variance of the samples winsorized (each cut sample replaced by the nearest
%%%   kept one) and h = n - 2⌊0.2·n⌋ the samples kept; the degrees of freedom
%%%   Welch-Satterthwaite's with h - 1 for each side. Its change is in percent of A's
%%%   trimmed mean, its interval Fieller's of the trimmed means' ratio. A few samples far
%%%   off (a fork the host interrupted) move it little, where they widen Welch's. With
%%%   fewer than 5 samples a side nothing is cut and it is Welch's test. Run noise is
%%%   added as for Welch.</dd>
%%% <dt>interval in percent</dt><dd>for the t-tests, Fieller's interval of the ratio
%%%   mean(B) / mean(A), less 1: the set of R with (mean(B) - R·mean(A))² ≤
%%%   t²·(vB - 2R·cAB + R²·vA), where vA, vB are the squared standard errors of the means
%%%   and cAB their covariance (paired; 0 for Welch). A ratio is never below 0, so a
%%%   throughput can never be more than 100% lower, however wide the interval; it
%%%   excludes 0% exactly when the test rejects. When mean(A) is not itself clearly away
%%%   from 0 (t²·vA ≥ mean(A)²) the set is unbounded and the interval is the shift's, in
%%%   percent of |mean(A)|.</dd>
%%% <dt>paired</dt><dd>t-test on the differences B(i) - A(i) of samples taken at the same
%%%   instants (same length required); the interval is that of the mean difference.</dd>
%%% <dt>mann_whitney</dt><dd>Mann-Whitney U (Wilcoxon rank-sum), normal approximation
%%%   with tie and continuity corrections, as R's `wilcox.test(exact = FALSE)'. Its
%%%   change is the Hodges-Lehmann shift (the median of all differences B(j) - A(i)); its
%%%   interval is the approximate distribution-free one: the k-th smallest and k-th
%%%   largest of those differences, k = ⌊nA·nB/2 - Φ⁻¹(1 - α/2)·√(nA·nB(nA + nB + 1)/12)⌋
%%%   (no tie correction; rounding down widens it). When k &lt; 1 the samples are too few
%%%   for that confidence and the interval is `undefined'. It is close to, not the same
%%%   as, R's `wilcox.test(conf.int = TRUE)' interval (a root search).</dd>
%%% <dt>noise floor</dt><dd>the `noise' option, percent of A's mean (by default the option's, erlperf_options): a
%%%   change is significant only when the test rejects equality and its interval lies
%%%   entirely outside ±noise (without an interval: the change itself). A rejected but
%%%   smaller change is reported `within_noise'. Runs of identical code differ by about
%%%   a percent (code placement, which scheduler runs which job); this keeps such
%%%   differences from being called real.</dd>
%%% <dt>verdict</dt><dd>`no_difference' unless significant; then `faster' or `slower':
%%%   the sign of the test statistic (B above A for a positive one) read with the
%%%   `better' option (higher samples are better by default). `inconclusive' (with
%%%   `reason => too_few_samples') when there are too few samples to test: too little
%%%   evidence is not evidence of no difference.</dd>
%%% </dl>
%%%
%%% Cost: everything is O(n log n) in the samples, except `compare/3' with
%%% `mann_whitney', O(n log² n): the Hodges-Lehmann shift and its interval select
%%% among the nA·nB differences without building them (Johnson and Mizoguchi).
%%%
%%% `stddev/1' is the sample standard deviation (divides by N - 1); `median/1',
%%% `percentile/2' and `percentiles/2' use the nearest-rank method on the sorted samples
%%% (R's `quantile(x, type = 1)'): the P'th percentile of n samples is the one of rank
%%% ⌈P·n/100⌉ (at least 1), so it is always one of the samples. The product is computed
%%% in floating point less a relative `?RANK_FUZZ' (as R does), so that a rank that is
%%% a whole number stays one (99.9% of 41,000 samples is rank 40,959, not 40,960): exact
%%% for percentiles with up to 4 decimals and up to 10^7 samples.
%%%
%%% Example:
%%% ```
%%% #{average := 2.5, median := 2} = erlperf_stat:summary([1, 2, 3, 4]).
%%% {Lo, Hi} = erlperf_stat:confidence_interval([98, 102, 101, 99], 95).
%%% #{verdict := slower, significant := true} =
%%%     erlperf_stat:compare([100, 102, 101, 99], [90, 91, 89, 92], #{test => welch}).
%%% '''
%%%
%%% Numbers and atoms only: {@link erlperf_verdict} words a comparison for people
%%% (`"10.0% slower (95% CI 7.8..12.0%)"').
-module(erlperf_stat).

%% API: descriptive statistics of one runner's samples.
-export([summary/1, mean/1, stddev/1, median/1, percentile/2, percentiles/2, cv/1,
         confidence_interval/1, confidence_interval/2, quartiles/1, outliers/1]).
%% API: samples taken in forks (independent repetitions of one run).
-export([split/2, components/1, interval/3, interval/4]).
%% API: comparison of two runners' samples (for reports and the command line).
-export([compare/2, compare/3, compare_runs/3, compare_defaults/0, direction/1,
         hodges_lehmann/2]).
%% API: distributions behind the tests above (exported for their tests against R).
-export([t_cdf/2, t_quantile/2, normal_cdf/1, normal_quantile/1, incomplete_beta/3]).

-export_type([summary/0, outliers/0, components/0, run_samples/0, test/0, compare_options/0,
              comparison/0]).

-type summary() :: #{average := float(), min := number(), max := number(),
                     stddev := float(), median := number(), p99 := number(),
                     samples := [number()]}.

%% Tukey's fences and the samples outside them, counted per side and class.
-type outliers() :: #{q1 := float(), median := float(), q3 := float(), iqr := float(),
                      low_severe_fence := float(), low_mild_fence := float(),
                      high_mild_fence := float(), high_severe_fence := float(),
                      low_severe := non_neg_integer(), low_mild := non_neg_integer(),
                      high_mild := non_neg_integer(), high_severe := non_neg_integer()}.

%% Variance components of samples taken in forks (see components/1): the forks, their
%% sizes and means, the mean of the means, and the estimated variances between and
%% within forks (`undefined' when the forks cannot tell: one fork, or one sample each).
-type components() :: #{forks := pos_integer(), sizes := [pos_integer()],
                        means := [float()], mean := float(),
                        between_variance := float() | undefined,
                        within_variance := float() | undefined}.

%% A run's samples, fork after fork, and the forks' sizes (`[length(Values)]' for a
%% single run).
-type run_samples() :: {Values :: [number(), ...], Sizes :: [pos_integer(), ...]}.

-type test() :: welch | yuen | paired | mann_whitney | ratio.

%% Options of compare/3; the defaults are compare_defaults/0.
%% `test': the test (welch). `confidence': percent in (0, 100) (the option's default).
%% `better': which samples are better, `higher' (throughput, continuous mode) or
%% `lower' (time, timed mode) (higher); it only names the verdict. `noise': the noise
%% floor, percent (the option's default). `run_noise': the run noise, percent (0; see the glossary), for
%% `welch' only: the other tests compare samples taken in one run.
%% `looks': the comparison is one of at most so many looks at a run measured until
%% decided (erlperf_forks:until/4); its interval holds at `confidence' over all of them
%% at once (each look's at 1 - α/looks, Bonferroni), so that stopping at the first
%% decided look keeps the error rate α.
-type compare_options() :: #{test => test(), confidence => number(),
                             better => higher | lower, noise => number(),
                             run_noise => number(), looks => pos_integer()}.

%% The result of compare/3. `change_pct' and `ci_pct' are `undefined' when A's mean
%% is 0; `ci_pct' and `p' are `undefined' when there are too few samples to test (then
%% `significant' is false). `statistic' (t, or z for mann_whitney) and `df' (t-tests)
%% are present when finite. `within_noise' is true when the test rejected equality but
%% the change is within the noise floor. `basis' and `forks' are set by compare_runs/3:
%% what was compared (fork means of `forks' forks, or the samples of one run);
%% erlperf_verdict:text/1 shows it.
-type comparison() :: #{test := test(), confidence := number(), better := higher | lower,
                        noise := number(), within_noise := boolean(),
                        %% inconclusive: set by erlperf_baseline, with the reason
                        verdict := faster | slower | no_difference | inconclusive,
                        reason => term(), verdict_without => faster | slower,
                        figure => cpu | wall | reference, run_noise_source => term(),
                        interference => term(), environment => list(), computes => boolean(),
                        waited => term(), time_ns => term(),
                        change_pct := float() | undefined,
                        ci_pct := {float(), float()} | undefined,
                        significant := boolean(), p := float() | undefined,
                        statistic => float(), df => float(),
                        basis => forks | single_run, forks => pos_integer(),
                        run_noise => number(), looks => pos_integer()}.

%% Tukey's multiples of the IQR for mild and severe outliers.
-define(MILD_IQR, 1.5).
-define(SEVERE_IQR, 3.0).
%% Continued fraction of the incomplete beta: stop when a step changes the value by
%% less than this (relative); Lentz's guard against dividing by zero; iteration limit
%% (a safety net: the t tails take under 50 iterations up to df = 10^7).
-define(BETA_EPS, 1.0e-16).
-define(BETA_TINY, 1.0e-300).
-define(BETA_MAX_ITER, 100000).
%% Above this many degrees of freedom the t tail is Abramowitz and Stegun's 26.7.8
%% (R's pt does the same above 4e5): its relative error, c/df², is below 1e-10 for
%% t =< 8 there, while the continued fraction's rounding errors grow with df (2e-10
%% at 1e7, measured against 40-digit mpmath).
-define(T_ASYMPTOTIC_DF, 1.0e7).
%% Newton's method for the t quantile: it stops when the tail is within this (relative)
%% of the target, or the step within this of T (near the median the tail, about 0.5,
%% has only 16 digits, fewer than T); iteration limit (each step that leaves the
%% bracket is replaced by a bisection, 60 of which reach 1 ulp).
-define(QUANTILE_EPS, 1.0e-15).
-define(QUANTILE_MAX_ITER, 200).
%% Above this t (or t/√df), 1 + t² is t² to the last bit, and squaring t could
%% overflow (Erlang raises on an infinite float).
-define(HUGE_T, 1.0e100).
%% Below this argument log Γ is shifted up by the recurrence before Stirling's series.
-define(STIRLING_MIN, 10.0).
%% log √(2π)
-define(LN_SQRT_2PI, 0.9189385332046727).
%% Acklam's normal quantile: the central region is [P_LOW, 1 - P_LOW].
-define(ACKLAM_P_LOW, 0.02425).
%% Halley's refinement needs exp(z²/2) finite: refine only where z²/2 is below this.
-define(MAX_EXP_ARG, 700.0).
%% Nearest rank: ⌈P·n/100⌉ is taken of P·n/100 less this fraction of it, so that a
%% product whose exact value is a whole number is not pushed to the next rank by
%% rounding (a few ulps, 1e-16 relative), while a fractional part of 1e-4 or more (a
%% percentile with 4 decimals) is kept up to 10^8 (R's quantile has such a fuzz too).
-define(RANK_FUZZ, 1.0e-12).
%% Degrees of freedom taken for a variance that is all known (run noise, no spread
%% measured): t is the normal there to 1e-9.
-define(KNOWN_DF, 1.0e9).
%% The share of samples Yuen's test cuts from each end (Wilcox's usual 20%).
-define(TRIM, 0.2).
%% Hodges-Lehmann selection: at most this many candidate differences are sorted.
-define(HL_SORT_LIMIT, 1024).

%%--------------------------------------------------------------------
%% API: one runner's samples

%% @doc Average, min, max, standard deviation, median and 99th percentile of samples.
-spec summary([number(), ...]) -> summary().
summary(Samples) ->
    Sorted = list_to_tuple(lists:sort(Samples)),
    #{average => mean(Samples), min => element(1, Sorted), max => element(tuple_size(Sorted), Sorted),
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
    percentile(Samples, 50).

%% @doc The `P'th percentile, for P above 0 and at most 100, by nearest rank.
-spec percentile([number(), ...], number()) -> number().
percentile(Samples, P) when P > 0, P =< 100 ->
    [Value] = percentiles(Samples, [P]),
    Value.

%% @doc Several percentiles of the same samples, by nearest rank, in the order asked
%% (each P above 0 and at most 100); the samples are sorted once.
-spec percentiles([number(), ...], [number()]) -> [number()].
percentiles([_ | _] = Samples, Ps) ->
    Checked = [percent(P) || P <- Ps],
    Sorted = list_to_tuple(lists:sort(Samples)),
    [nearest_rank(Sorted, P) || P <- Checked].

%% @doc Coefficient of variation: standard deviation over mean (0.0 when the mean is 0).
-spec cv([number(), ...]) -> float().
cv(Samples) ->
    case mean(Samples) of
        Mean when Mean == 0 -> 0.0;
        Mean -> stddev(Samples) / abs(Mean)
    end.

%% @equiv confidence_interval(Samples, 95)
-spec confidence_interval([number(), ...]) -> {float(), float()} | undefined.
confidence_interval(Samples) ->
    confidence_interval(Samples, erlperf_options:default(confidence)).

%% @doc Student's t confidence interval of the mean, `{Low, High}', at `Confidence'
%% percent (in (0, 100)); `undefined' for a single sample. Raises
%% `{invalid_option, confidence, Confidence}' for a confidence out of range.
-spec confidence_interval([number(), ...], Confidence :: number()) ->
          {float(), float()} | undefined.
confidence_interval(Samples, Confidence) ->
    Alpha = alpha(Confidence),
    case length(Samples) of
        1 ->
            undefined;
        N ->
            Mean = mean(Samples),
            Half = t_upper(Alpha / 2, N - 1) * stddev(Samples) / math:sqrt(N),
            {Mean - Half, Mean + Half}
    end.

%% @doc First quartile, median and third quartile by R's type 7 (linear interpolation).
-spec quartiles([number(), ...]) -> {Q1 :: float(), Median :: float(), Q3 :: float()}.
quartiles(Samples) ->
    Sorted = list_to_tuple(lists:sort(Samples)),
    {quantile7(Sorted, 0.25), quantile7(Sorted, 0.5), quantile7(Sorted, 0.75)}.

%% @doc Tukey's fences (1.5 and 3 IQR from the quartiles of `quartiles/1') and the
%% number of samples beyond each, on each side.
-spec outliers([number(), ...]) -> outliers().
outliers(Samples) ->
    {Q1, Median, Q3} = quartiles(Samples),
    Iqr = Q3 - Q1,
    Fences = {Q1 - ?SEVERE_IQR * Iqr, Q1 - ?MILD_IQR * Iqr,
              Q3 + ?MILD_IQR * Iqr, Q3 + ?SEVERE_IQR * Iqr},
    {LowSevereFence, LowMildFence, HighMildFence, HighSevereFence} = Fences,
    Counts = lists:foldl(fun (X, Acc) -> count_outlier(outlier_class(X, Fences), Acc) end,
                         #{low_severe => 0, low_mild => 0, high_mild => 0, high_severe => 0},
                         Samples),
    Counts#{q1 => Q1, median => Median, q3 => Q3, iqr => Iqr,
            low_severe_fence => LowSevereFence, low_mild_fence => LowMildFence,
            high_mild_fence => HighMildFence, high_severe_fence => HighSevereFence}.

%%--------------------------------------------------------------------
%% API: samples in forks

%% @doc Splits samples taken fork after fork into the forks' samples, by the forks'
%% sizes (which add up to the number of samples). Raises `{fork_sizes, Count, Sizes}'
%% (the samples' count and the sizes given) when they do not.
-spec split([number()], [pos_integer()]) -> [[number(), ...]].
split(Values, Sizes) ->
    try split(Values, Sizes, [])
    catch error:fork_sizes -> erlang:error({fork_sizes, length(Values), Sizes})
    end.

%% @doc Variance components of samples taken in forks (one list per fork, none empty):
%% see the glossary. The between variance needs two forks, the within variance a fork
%% with two samples.
-spec components([[number(), ...], ...]) -> components().
components([_ | _] = Forks) ->
    Sizes = [length(F) || F <- Forks],
    Means = [mean(F) || F <- Forks],
    {NF, N} = {length(Forks), lists:sum(Sizes)},
    Within = case N - NF of
                 0 -> undefined;
                 DfW -> lists:sum([squares(F, M) || {F, M} <- lists:zip(Forks, Means)]) / DfW
             end,
    Between = case {NF, Within} of
                  {1, _} ->
                      undefined;
                  {_, undefined} ->
                      undefined;
                  _ ->
                      Grand = lists:sum([lists:sum(F) || F <- Forks]) / N,
                      Msb = lists:sum([S * (M - Grand) * (M - Grand)
                                       || {S, M} <- lists:zip(Sizes, Means)]) / (NF - 1),
                      N0 = (N - lists:sum([S * S || S <- Sizes]) / N) / (NF - 1),
                      max(0.0, (Msb - Within) / N0)
              end,
    #{forks => NF, sizes => Sizes, means => Means, mean => mean(Means),
      between_variance => Between, within_variance => Within}.

%% @doc The confidence interval of samples taken in forks of the given sizes: with
%% several forks the t interval of the fork means (see the glossary), with one fork
%% `confidence_interval(Values, Confidence)'. Sizes that do not add up to the samples
%% raise as in {@link split/2}, one fork's too.
-spec interval([number(), ...], [pos_integer(), ...], number()) -> {float(), float()} | undefined.
interval(Values, [Size], Confidence) when Size =:= length(Values) ->
    confidence_interval(Values, Confidence);
interval(Values, Sizes, Confidence) ->
    confidence_interval(fork_means(Values, Sizes), Confidence).

%% @doc {@link interval/3} with run noise `RunNoise' percent of the mean (see the
%% glossary): what a single run or a forked run can say of the mean of all its runs.
%% `undefined' for one sample of one fork, as without. Raises `{invalid_option,
%% run_noise, RunNoise}' unless RunNoise is at least 0 and below 100.
-spec interval([number(), ...], [pos_integer(), ...], number(), number()) ->
          {float(), float()} | undefined.
interval(Values, Sizes, Confidence, RunNoise) ->
    Units = case Sizes of
                [Size] when Size =:= length(Values) -> Values;
                _ -> fork_means(Values, Sizes)
            end,
    Alpha = alpha(Confidence),
    case {run_noise(RunNoise), Units} of
        {_, [_]} ->
            undefined;
        {Zero, _} when Zero == 0 ->
            confidence_interval(Units, Confidence);
        {R, _} ->
            {Mean, Var, N} = moments(Units),
            Se2 = Var / N,
            Half = t_upper(Alpha / 2, N - 1) * math:sqrt(Se2 + known_variance(R, Mean)),
            {Mean - Half, Mean + Half}
    end.

%%--------------------------------------------------------------------
%% API: two runners

%% @equiv compare(A, B, #{})
-spec compare(A :: [number(), ...], B :: [number(), ...]) -> comparison().
compare(A, B) ->
    compare(A, B, #{}).

%% @doc Compares B's samples against the baseline A's: the change, its confidence
%% interval, the test's p value and the verdict. Swapping A and B flips the direction
%% and keeps `p' and `significant'. Raises `{invalid_option, Key, Value}' for an
%% unknown option or bad value, and `{paired_lengths, LengthA, LengthB}' for a paired
%% test of samples of different lengths.
-spec compare(A :: [number(), ...], B :: [number(), ...], compare_options()) -> comparison().
compare([_ | _] = A, [_ | _] = B, Options) when is_map(Options) ->
    #{test := Test, confidence := Confidence, better := Better} = Opts =
        maps:fold(fun compare_option/3, compare_defaults(), Options),
    Alpha = alpha(Confidence) / maps:get(looks, Opts, 1),
    #{direction := Direction} = Result =
        case maps:get(run_noise, Opts, 0) of
            Zero when Zero == 0 -> run_test(Test, A, B, Alpha);
            R when Test =:= welch -> welch(A, B, Alpha, R);
            R when Test =:= yuen -> yuen(A, B, Alpha, R);
            R -> erlang:error({invalid_option, run_noise, {Test, R}})
        end,
    P = maps:get(p, Result, undefined),
    Rejected = P =/= undefined andalso P < Alpha,
    Base = maps:get(base, Result, mean(A)),
    Change = percent_of(maps:get(shift, Result), Base),
    CiPct = case Result of
                #{ratio_ci := {Low, High}} -> {100 * (Low - 1), 100 * (High - 1)};
                #{} -> percent_of(maps:get(ci, Result, undefined), Base)
            end,
    Significant = Rejected andalso beyond_noise(CiPct, Change, maps:get(noise, Opts)),
    Extra = case P of
                %% too few samples to test: not evidence of no difference
                undefined -> #{reason => too_few_samples};
                _ -> maps:with([statistic, df], Result)
            end,
    Verdict = case P of
                  undefined -> inconclusive;
                  _ -> verdict(Significant, Direction, Better)
              end,
    maps:merge(Extra, Opts#{verdict => Verdict,
                            significant => Significant, p => P,
                            within_noise => Rejected andalso not Significant,
                            change_pct => Change, ci_pct => CiPct}).

%% @doc Compares run B against run A: when both ran in several forks, their fork means
%% (the forks are the independent units), else their samples, with `compare/3' and
%% `Options'. The comparison says which with `basis' (`forks' or `single_run') and,
%% for forks, `forks' (B's count).
-spec compare_runs(A :: run_samples(), B :: run_samples(), compare_options()) -> comparison().
compare_runs({A, [_, _ | _] = Sizes}, {B, Sizes}, #{test := ratio} = Options) ->
    Forks = [median([math:log(Y / X) || {X, Y} <- lists:zip(FA, FB), X > 0, Y > 0])
             || {FA, FB} <- lists:zip(split(A, Sizes), split(B, Sizes)),
                lists:any(fun ({X, Y}) -> X > 0 andalso Y > 0 end, lists:zip(FA, FB))],
    Comparison = case length(Forks) >= 2 of
                     true -> ratio_comparison(Forks, Options);
                     false -> compare(fork_means(A, Sizes), fork_means(B, Sizes),
                                      Options#{test => paired})
                 end,
    Comparison#{basis => forks, forks => length(Sizes)};
compare_runs(A, B, #{test := ratio} = Options) ->
    %% runs not of paired forks: their fork means, or samples, paired when they can be
    compare_runs(A, B, Options#{test => paired});
compare_runs({A, [_, _ | _] = SizesA}, {B, [_, _ | _] = SizesB}, Options) ->
    Comparison = compare(fork_means(A, SizesA), fork_means(B, SizesB), Options),
    Comparison#{basis => forks, forks => length(SizesB)};
compare_runs({A, _SizesA}, {B, _SizesB}, Options) ->
    Comparison = compare(A, B, Options),
    Comparison#{basis => single_run}.

%% @doc Default options of compare/3.
-spec compare_defaults() -> #{test := test(), confidence := number(), better := higher | lower,
                              noise := number()}.
compare_defaults() ->
    #{test => welch, confidence => erlperf_options:default(confidence), better => higher,
      noise => erlperf_options:default(noise)}.

%% @doc The verdict the test's direction gives, the noise floor aside: `faster' or
%% `slower' (by the sign of the statistic, else of the change, read with `better');
%% `no_difference' when there is neither. For a change the test found within the noise
%% floor (`within_noise'), the direction it had.
-spec direction(comparison()) -> faster | slower | no_difference.
direction(#{statistic := T, better := Better}) ->
    verdict(true, sign(T), Better);
direction(#{change_pct := Change, better := Better}) when is_number(Change) ->
    verdict(true, sign(Change), Better);
direction(_Comparison) ->
    no_difference.

%% @doc Hodges-Lehmann shift of B against A: the median of the differences B(j) - A(i)
%% over all pairs (the mean of the two middle ones for an even count). Selects without
%% building all nA·nB differences.
-spec hodges_lehmann(A :: [number(), ...], B :: [number(), ...]) -> float().
hodges_lehmann(A, B) ->
    As = list_to_tuple(lists:sort(A)),
    Bs = list_to_tuple(lists:sort(B)),
    Pairs = tuple_size(As) * tuple_size(Bs),
    case Pairs rem 2 of
        1 -> float(kth_difference((Pairs + 1) div 2, As, Bs));
        0 -> (kth_difference(Pairs div 2, As, Bs) + kth_difference(Pairs div 2 + 1, As, Bs)) / 2
    end.

%%--------------------------------------------------------------------
%% API: distributions

%% @doc Student's t cumulative distribution function at `T' with `Df' (> 0, not
%% necessarily whole) degrees of freedom.
-spec t_cdf(T :: number(), Df :: number()) -> float().
t_cdf(T, Df) when is_number(T), is_number(Df), Df > 0 ->
    case T < 0 of
        true -> t_tail(-T, Df);
        false -> 1 - t_tail(T, Df)
    end.

%% @doc Student's t quantile: the T with `t_cdf(T, Df) = P', P in (0, 1).
-spec t_quantile(P :: number(), Df :: number()) -> float().
t_quantile(P, Df) when is_number(P), P > 0, P < 1, is_number(Df), Df > 0 ->
    if
        P > 0.5 -> t_upper(1 - P, Df);
        P < 0.5 -> -t_upper(P, Df);
        true -> 0.0
    end.

%% @doc Standard normal cumulative distribution function.
-spec normal_cdf(X :: number()) -> float().
normal_cdf(X) when is_number(X) ->
    0.5 * math:erfc(-X / math:sqrt(2)).

%% @doc Standard normal quantile, P in (0, 1): Acklam's approximation refined by a
%% Halley step.
-spec normal_quantile(P :: number()) -> float().
normal_quantile(P) when is_number(P), P > 0, P < 1 ->
    case P > 0.5 of
        true -> -normal_lower(1 - P);
        false -> normal_lower(P)
    end.

%% @doc Regularized incomplete beta function I_X(A, B), X in [0, 1], A, B > 0.
-spec incomplete_beta(X :: number(), A :: number(), B :: number()) -> float().
incomplete_beta(X, A, B) when is_number(X), X >= 0, X =< 1, is_number(A), A > 0,
                              is_number(B), B > 0 ->
    ibeta(X, 1 - X, A, B).

%%--------------------------------------------------------------------
%% Internal functions: descriptive

percent(P) when is_number(P), P > 0, P =< 100 -> P.

%% On a sorted tuple: the sample of rank ⌈P·n/100⌉, at least 1.
nearest_rank(Sorted, P) ->
    Product = P * tuple_size(Sorted) / 100,
    element(max(1, ceil(Product - Product * ?RANK_FUZZ)), Sorted).

%% R's type 7 on a sorted tuple; clamped so rounding never leaves [x(k), x(k+1)].
quantile7(Sorted, P) ->
    H = (tuple_size(Sorted) - 1) * P,
    K = floor(H),
    Low = element(K + 1, Sorted),
    case K + 1 < tuple_size(Sorted) of
        true ->
            High = element(K + 2, Sorted),
            float(min(High, max(Low, Low + (H - K) * (High - Low))));
        false ->
            float(Low)
    end.

outlier_class(X, {LowSevere, _, _, _}) when X < LowSevere -> low_severe;
outlier_class(X, {_, LowMild, _, _}) when X < LowMild -> low_mild;
outlier_class(X, {_, _, _, HighSevere}) when X > HighSevere -> high_severe;
outlier_class(X, {_, _, HighMild, _}) when X > HighMild -> high_mild;
outlier_class(_X, _Fences) -> none.

count_outlier(none, Counts) -> Counts;
count_outlier(Class, Counts) -> maps:update_with(Class, fun (C) -> C + 1 end, Counts).

%% α of a confidence in percent, or the caller's error.
alpha(Confidence) when is_number(Confidence), Confidence > 0, Confidence < 100 ->
    (100 - Confidence) / 100;
alpha(Confidence) ->
    erlang:error({invalid_option, confidence, Confidence}).

%%--------------------------------------------------------------------
%% Internal functions: comparisons

compare_option(test, Test, Acc) when Test =:= welch; Test =:= yuen; Test =:= paired;
                                     Test =:= mann_whitney; Test =:= ratio ->
    Acc#{test => Test};
compare_option(confidence, C, Acc) when is_number(C), C > 0, C < 100 ->
    Acc#{confidence => C};
compare_option(better, Better, Acc) when Better =:= higher; Better =:= lower ->
    Acc#{better => Better};
compare_option(noise, Noise, Acc) when is_number(Noise), Noise >= 0 ->
    Acc#{noise => Noise};
compare_option(run_noise, R, Acc) when is_number(R), R >= 0, R < 100 ->
    Acc#{run_noise => R};
compare_option(looks, K, Acc) when is_integer(K), K >= 1 ->
    Acc#{looks => K};
compare_option(Key, Value, _Acc) ->
    erlang:error({invalid_option, Key, Value}).

%% The `ratio' test of compare_runs/3: a t-test of the forks' statistics, each the
%% median of a fork's log ratios B(i)/A(i) of samples taken in the same round; the
%% change is exp(mean) - 1, its interval the t interval's bounds so transformed.
ratio_comparison(Forks, Options) ->
    #{confidence := Confidence, better := Better} = Opts =
        maps:fold(fun compare_option/3, compare_defaults(), Options),
    Alpha = alpha(Confidence) / maps:get(looks, Opts, 1),
    {Mean, Var, N} = moments(Forks),
    #{ci := {Lo, Hi}, p := P, direction := Direction} = Test =
        t_test(Mean, math:sqrt(Var / N), N - 1, Alpha),
    Pct = fun (L) -> 100 * (math:exp(L) - 1) end,
    CiPct = {Pct(Lo), Pct(Hi)},
    Change = Pct(Mean),
    Rejected = P < Alpha,
    Significant = Rejected andalso beyond_noise(CiPct, Change, maps:get(noise, Opts)),
    maps:merge(maps:with([statistic, df], Test),
               Opts#{test => ratio, verdict => verdict(Significant, Direction, Better),
                     significant => Significant, p => P,
                     within_noise => Rejected andalso not Significant,
                     change_pct => Change, ci_pct => CiPct}).

%% Whether the change (its interval, when there is one) lies outside ±Noise percent.
beyond_noise(_CiPct, _Change, Noise) when Noise == 0 -> true;
beyond_noise({Low, High}, _Change, Noise) -> Low > Noise orelse High < -Noise;
beyond_noise(undefined, undefined, _Noise) -> false;
beyond_noise(undefined, Change, Noise) -> abs(Change) > Noise.

%% #{shift, direction, ci, p, statistic, df}: the shift of B against A (in samples'
%% units), the sign of the effect, and what the test can tell (absent keys: nothing).
run_test(welch, A, B, Alpha) ->
    welch(A, B, Alpha, 0);
run_test(yuen, A, B, Alpha) ->
    yuen(A, B, Alpha, 0);
run_test(paired, A, B, _Alpha) when length(A) =/= length(B) ->
    erlang:error({paired_lengths, length(A), length(B)});
run_test(paired, [_, _ | _] = A, B, Alpha) ->
    {MeanD, VarD, N} = moments(lists:zipwith(fun (X, Y) -> Y - X end, A, B)),
    {MeanA, VarA, N} = moments(A),
    {MeanB, VarB, N} = moments(B),
    Result = t_test(MeanD, math:sqrt(VarD / N), N - 1, Alpha),
    with_ratio(Result, {MeanA, MeanB, VarA / N, VarB / N, covariance(A, B) / N}, N - 1, Alpha);
run_test(mann_whitney, A, B, Alpha) ->
    mann_whitney(A, B, Alpha);
run_test(_Test, A, B, _Alpha) ->
    %% too few samples for a t-test: the shift of the means, nothing more
    Shift = mean(B) - mean(A),
    #{shift => Shift, direction => sign(Shift)}.

%% Welch's test of B against A, with run noise R percent (0: none) added to both
%% means' squared standard errors (see the glossary).
welch([_, _ | _] = A, [_, _ | _] = B, Alpha, R) ->
    {MeanA, VarA, NA} = moments(A),
    {MeanB, VarB, NB} = moments(B),
    means_test({MeanA, VarA / NA, NA - 1}, {MeanB, VarB / NB, NB - 1}, Alpha, R);
welch(A, B, Alpha, _R) ->
    run_test(too_few, A, B, Alpha).

%% Yuen's test of B against A: Welch's on ?TRIM trimmed means, each with the squared
%% standard error of its winsorized variance, run noise R percent (0: none) added as
%% in welch/4. `base': A's trimmed mean, of which the change is a percentage.
yuen(A, B, Alpha, R) when length(A) >= 2, length(B) >= 2 ->
    {MeanA, SqA, HA} = trimmed(A),
    {MeanB, SqB, HB} = trimmed(B),
    (means_test({MeanA, SqA, HA - 1}, {MeanB, SqB, HB - 1}, Alpha, R))#{base => MeanA};
yuen(A, B, Alpha, _R) ->
    run_test(too_few, A, B, Alpha).

%% The t-test of two means, each {Mean, squared standard error, degrees of freedom},
%% with run noise R percent (0: none) added to both squared standard errors.
means_test({MeanA, SqA, DfA}, {MeanB, SqB, DfB}, Alpha, R) ->
    {KnownA, KnownB} = {known_variance(R, MeanA), known_variance(R, MeanB)},
    Se2 = SqA + SqB + KnownA + KnownB,
    %% Welch-Satterthwaite of the estimated parts, (SqA + SqB)² / (SqA²/dfA + SqB²/dfB),
    %% with the shares squared instead of the tiny squares; with none estimated (every
    %% sample equal) but run noise, the normal
    Df = case {SqA + SqB, Se2} of
             {_, Zero} when Zero == 0 -> undefined;
             {Zero, _} when Zero == 0 -> ?KNOWN_DF;
             {Est, _} -> 1 / ((SqA / Est) * (SqA / Est) / DfA + (SqB / Est) * (SqB / Est) / DfB)
         end,
    Result = t_test(MeanB - MeanA, math:sqrt(Se2), Df, Alpha),
    with_ratio(Result, {MeanA, MeanB, SqA + KnownA, SqB + KnownB, 0.0}, Df, Alpha).

%% {Trimmed mean, its squared standard error, samples kept}: ⌊?TRIM·n⌋ samples cut from
%% each end; the squared standard error (n - 1)·s²w / (h·(h - 1)), s²w the variance of
%% the samples winsorized (each cut one replaced by the nearest kept), h those kept.
trimmed(Samples) ->
    N = length(Samples),
    G = floor(?TRIM * N),
    H = N - 2 * G,
    Sorted = lists:sort(Samples),
    Kept = lists:sublist(Sorted, G + 1, H),
    Winsorized = lists:duplicate(G, hd(Kept)) ++ Kept ++ lists:duplicate(G, lists:last(Kept)),
    Sd = stddev(Winsorized),
    {mean(Kept), (N - 1) * Sd * Sd / (H * (H - 1)), H}.

%% The variance of run noise R percent of a mean.
known_variance(R, Mean) ->
    Sd = R / 100 * Mean,
    Sd * Sd.

run_noise(R) when is_number(R), R >= 0, R < 100 -> R;
run_noise(R) -> erlang:error({invalid_option, run_noise, R}).

%% Fieller's interval of mean(B) / mean(A), added to a t-test's result when bounded.
with_ratio(#{ci := _} = Result, Moments, Df, Alpha) when Df =/= undefined ->
    case fieller(Moments, t_upper(Alpha / 2, Df)) of
        undefined -> Result;
        Ratio -> Result#{ratio_ci => Ratio}
    end;
with_ratio(Result, _Moments, _Df, _Alpha) ->
    Result.

%% The roots of R²(mA² - t²vA) - 2R(mA·mB - t²cAB) + (mB² - t²vB) = 0, when mA² > t²vA.
fieller({MeanA, MeanB, VarA, VarB, Cov}, T) ->
    T2 = T * T,
    Quad = MeanA * MeanA - T2 * VarA,
    Lin = MeanA * MeanB - T2 * Cov,
    Const = MeanB * MeanB - T2 * VarB,
    Disc = Lin * Lin - Quad * Const,
    case Quad > 0 andalso Disc >= 0 of
        true -> {(Lin - math:sqrt(Disc)) / Quad, (Lin + math:sqrt(Disc)) / Quad};
        false -> undefined
    end.

%% Sample covariance (divides by N - 1).
covariance(A, B) ->
    {MeanA, MeanB, N} = {mean(A), mean(B), length(A)},
    lists:sum(lists:zipwith(fun (X, Y) -> (X - MeanA) * (Y - MeanB) end, A, B)) / (N - 1).

moments(Samples) ->
    Sd = stddev(Samples),
    {mean(Samples), Sd * Sd, length(Samples)}.

%% A t-test of a shift with standard error Se; a zero Se is certainty either way.
t_test(Shift, Se, _Df, _Alpha) when Se == 0 ->
    #{shift => Shift, direction => sign(Shift), ci => {Shift, Shift},
      p => case Shift == 0 of true -> 1.0; false -> 0.0 end};
t_test(Shift, Se, Df, Alpha) ->
    T = Shift / Se,
    Half = t_upper(Alpha / 2, Df) * Se,
    #{shift => Shift, direction => sign(Shift), ci => {Shift - Half, Shift + Half},
      p => min(1.0, 2 * t_tail(abs(T), Df)), statistic => T, df => float(Df)}.

%% Mann-Whitney U of B (pairs with B above A, ties counting half), normal
%% approximation with tie and continuity corrections, as R's wilcox.test(B, A).
mann_whitney(A, B, Alpha) ->
    {NA, NB} = {length(A), length(B)},
    {RankSumB, Ties} = rank_sum(A, B),
    Excess = RankSumB - NB * (NB + 1) / 2 - NA * NB / 2,
    N = NA + NB,
    Var = NA * NB / 12 * ((N + 1) - Ties / (N * (N - 1))),
    Shift = hodges_lehmann(A, B),
    Result = #{shift => Shift, direction => sign(Excess),
               p => mann_whitney_p(Excess, Var)},
    maps:merge(Result, shift_interval(A, B, Alpha, mann_whitney_z(Excess, Var))).

mann_whitney_z(_Excess, Var) when Var =< 0 ->
    %% every sample equal: no evidence either way
    0.0;
mann_whitney_z(Excess, Var) ->
    (Excess - 0.5 * sign(Excess)) / math:sqrt(Var).

mann_whitney_p(Excess, Var) ->
    math:erfc(abs(mann_whitney_z(Excess, Var)) / math:sqrt(2)).

%% The statistic, and the approximate interval of the shift when k >= 1.
shift_interval(A, B, Alpha, Z) ->
    {NA, NB} = {length(A), length(B)},
    Pairs = NA * NB,
    K = floor(Pairs / 2 + normal_lower(Alpha / 2) * math:sqrt(Pairs * (NA + NB + 1) / 12)),
    Stat = #{statistic => float(Z)},
    case K >= 1 of
        true ->
            As = list_to_tuple(lists:sort(A)),
            Bs = list_to_tuple(lists:sort(B)),
            Stat#{ci => {float(kth_difference(K, As, Bs)),
                         float(kth_difference(Pairs + 1 - K, As, Bs))}};
        false ->
            Stat
    end.

%% Sum of B's mid-ranks in the pooled sample, and the tie term sum(t³ - t).
rank_sum(A, B) ->
    Pooled = lists:sort([{X, a} || X <- A] ++ [{X, b} || X <- B]),
    rank_sum(Pooled, 1, 0.0, 0).

rank_sum([], _Rank, SumB, Ties) ->
    {SumB, Ties};
rank_sum([{X, _} | _] = Pooled, Rank, SumB, Ties) ->
    {Group, Rest} = lists:splitwith(fun ({Y, _}) -> Y == X end, Pooled),
    T = length(Group),
    MidRank = Rank + (T - 1) / 2,
    InB = length([b || {_, b} <- Group]),
    rank_sum(Rest, Rank + T, SumB + InB * MidRank, Ties + T * T * T - T).

sign(X) when X > 0 -> 1;
sign(X) when X < 0 -> -1;
sign(_) -> 0.

verdict(false, _Direction, _Better) -> no_difference;
verdict(true, 1, higher) -> faster;
verdict(true, -1, lower) -> faster;
verdict(true, _Direction, _Better) -> slower.

split([], [], Acc) ->
    lists:reverse(Acc);
split(Values, [Size | Sizes], Acc) when is_integer(Size), Size > 0, length(Values) >= Size ->
    {Fork, Rest} = lists:split(Size, Values),
    split(Rest, Sizes, [Fork | Acc]);
split(_Values, _Sizes, _Acc) ->
    erlang:error(fork_sizes).

fork_means(Values, Sizes) ->
    [mean(F) || F <- split(Values, Sizes)].

%% Sum of squared deviations from M.
squares(Values, M) ->
    lists:foldl(fun (X, Acc) -> Acc + (X - M) * (X - M) end, 0.0, Values).

percent_of(undefined, _Mean) -> undefined;
percent_of(_Value, Mean) when Mean == 0 -> undefined;
percent_of({Low, High}, Mean) -> {percent_of(Low, Mean), percent_of(High, Mean)};
percent_of(Value, Mean) -> 100 * Value / abs(Mean).

%% The k-th smallest (1-based) difference Bs(j) - As(i) of sorted tuples, by
%% Johnson and Mizoguchi's selection: each round takes the weighted median of the
%% middles of the rows' candidate ranges as pivot and discards at least a quarter of
%% the candidates, until few enough remain to sort.
kth_difference(K, As, Bs) ->
    Rows = [{element(I, As), 1, tuple_size(Bs)} || I <- lists:seq(1, tuple_size(As))],
    select(K, Rows, Bs).

select(K, Rows, Bs) ->
    case lists:sum([R - L + 1 || {_, L, R} <- Rows, R >= L]) of
        Candidates when Candidates =< ?HL_SORT_LIMIT ->
            Below = lists:sum([L - 1 || {_, L, _} <- Rows]),
            Sorted = lists:sort([element(J, Bs) - X || {X, L, R} <- Rows, J <- lists:seq(L, R)]),
            lists:nth(K - Below, Sorted);
        Candidates ->
            select_pivot(K, Rows, Bs, weighted_median(Rows, Bs, Candidates))
    end.

select_pivot(K, Rows, Bs, Pivot) ->
    Less = [count_below(Bs, X, Pivot, strict) || {X, _, _} <- Rows],
    NotMore = [count_below(Bs, X, Pivot, inclusive) || {X, _, _} <- Rows],
    case {lists:sum(Less) >= K, lists:sum(NotMore) >= K} of
        {true, _} ->
            select(K, [{X, L, min(R, C)} || {{X, L, R}, C} <- lists:zip(Rows, Less)], Bs);
        {false, true} ->
            Pivot;
        {false, false} ->
            select(K, [{X, max(L, C + 1), R} || {{X, L, R}, C} <- lists:zip(Rows, NotMore)], Bs)
    end.

weighted_median(Rows, Bs, Candidates) ->
    Middles = lists:sort([{element((L + R) div 2, Bs) - X, R - L + 1} || {X, L, R} <- Rows, R >= L]),
    weighted_median(Middles, (Candidates + 1) div 2).

weighted_median([{Value, Weight} | _], Half) when Weight >= Half -> Value;
weighted_median([{_, Weight} | Rest], Half) -> weighted_median(Rest, Half - Weight).

%% How many j have Bs(j) - X below (strict) or at most (inclusive) Pivot: binary search,
%% the differences rising with j.
count_below(Bs, X, Pivot, How) ->
    count_below(Bs, X, Pivot, How, 0, tuple_size(Bs)).

count_below(_Bs, _X, _Pivot, _How, Low, High) when Low =:= High ->
    Low;
count_below(Bs, X, Pivot, How, Low, High) ->
    Mid = (Low + High + 1) div 2,
    D = element(Mid, Bs) - X,
    case D < Pivot orelse (How =:= inclusive andalso D == Pivot) of
        true -> count_below(Bs, X, Pivot, How, Mid, High);
        false -> count_below(Bs, X, Pivot, How, Low, Mid - 1)
    end.

%%--------------------------------------------------------------------
%% Internal functions: distributions

%% The T >= 0 whose upper tail probability is Tail (in (0, 0.5]): Newton's method,
%% kept inside a bracket [Low, High] by bisection.
t_upper(Tail, Df) ->
    Guess = -normal_lower(Tail),
    High = t_bracket(Tail, Df, max(Guess, 1.0)),
    t_newton(Tail, Df, 0.0, High, Guess, ?QUANTILE_MAX_ITER).

%% A High whose tail is below Tail, doubling.
t_bracket(Tail, Df, High) ->
    case t_tail(High, Df) > Tail of
        true -> t_bracket(Tail, Df, 2 * High);
        false -> High
    end.

t_newton(_Tail, _Df, _Low, _High, T, 0) ->
    T;
t_newton(Tail, Df, Low, High, T, Iter) ->
    case t_tail(T, Df) - Tail of
        Excess when abs(Excess) =< ?QUANTILE_EPS * Tail ->
            T;
        Excess when Excess > 0 ->
            t_step(Tail, Df, {T, High}, T, T + Excess / t_density(T, Df), Iter);
        Excess ->
            t_step(Tail, Df, {Low, T}, T, T + Excess / t_density(T, Df), Iter)
    end.

%% Newton's step from T to Next when it stays inside the bracket, else bisection.
t_step(_Tail, _Df, _Bracket, T, Next, _Iter) when abs(Next - T) =< ?QUANTILE_EPS * T ->
    Next;
t_step(Tail, Df, {Low, High}, _T, Next, Iter) when Next > Low, Next < High ->
    t_newton(Tail, Df, Low, High, Next, Iter - 1);
t_step(_Tail, _Df, {Low, High}, _T, _Next, _Iter) when High - Low =< ?QUANTILE_EPS * High ->
    %% the tail's own rounding errors stall Newton: the bracket is the answer
    (Low + High) / 2;
t_step(Tail, Df, {Low, High}, _T, _Next, Iter) ->
    t_newton(Tail, Df, Low, High, (Low + High) / 2, Iter - 1).

%% Upper tail P(t > T) for T >= 0: I_x(df/2, 1/2)/2 with x = df/(df + T²), computed
%% from T/√df so that neither x nor 1 - x loses digits or overflows.
t_tail(T, _Df) when T == 0 ->
    0.5;
t_tail(T, Df) when Df > ?T_ASYMPTOTIC_DF, T > ?HUGE_T ->
    0.0;
t_tail(T, Df) when Df > ?T_ASYMPTOTIC_DF ->
    V = 1 / (4 * Df),
    0.5 * math:erfc(T * (1 - V) / math:sqrt(1 + T * T * 2 * V) / math:sqrt(2));
t_tail(T, Df) ->
    {X, Y} = case T / math:sqrt(Df) of
                 S when S =< 1 -> S2 = S * S, {1 / (1 + S2), S2 / (1 + S2)};
                 S -> U = 1 / S, U2 = U * U, {U2 / (1 + U2), 1 / (1 + U2)}
             end,
    0.5 * ibeta(X, Y, Df / 2, 0.5).

t_density(T, Df) ->
    S = T / math:sqrt(Df),
    %% log(1 + S²), without overflowing S²
    Log = case S > ?HUGE_T of
              true -> 2 * math:log(S);
              false -> log1p(S * S)
          end,
    math:exp(-lbeta(Df / 2, 0.5) - (Df + 1) / 2 * Log) / math:sqrt(Df).

%% I_X(A, B) with Y = 1 - X given too (exact when the caller has it): the continued
%% fraction where it converges fast, else its symmetry 1 - I_Y(B, A).
ibeta(X, _Y, _A, _B) when X == 0 -> 0.0;
ibeta(_X, Y, _A, _B) when Y == 0 -> 1.0;
ibeta(X, Y, A, B) ->
    Front = math:exp(A * log_of(X, Y) + B * log_of(Y, X) - lbeta(A, B)),
    case X < (A + 1) / (A + B + 2) of
        true -> Front * beta_cf(X, A, B) / A;
        false -> 1 - Front * beta_cf(Y, B, A) / B
    end.

%% log(X), X = 1 - Y: from Y when X is near 1.
log_of(X, Y) when X > 0.5 -> log1p(-Y);
log_of(X, _Y) -> math:log(X).

%% Continued fraction of I_x(a, b) (Numerical Recipes' betacf), modified Lentz.
beta_cf(X, A, B) ->
    D = 1 / lentz_guard(1 - (A + B) * X / (A + 1)),
    beta_cf(X, A, B, 1, 1.0, D, D).

beta_cf(_X, _A, _B, M, _C, _D, H) when M > ?BETA_MAX_ITER ->
    H;
beta_cf(X, A, B, M, C0, D0, H0) ->
    Even = M * (B - M) * X / ((A + 2 * M - 1) * (A + 2 * M)),
    {C1, D1} = lentz_step(Even, C0, D0),
    Odd = -(A + M) * (A + B + M) * X / ((A + 2 * M) * (A + 2 * M + 1)),
    {C2, D2} = lentz_step(Odd, C1, D1),
    Delta = C2 * D2,
    H = H0 * C1 * D1 * Delta,
    case abs(Delta - 1) =< ?BETA_EPS of
        true -> H;
        false -> beta_cf(X, A, B, M + 1, C2, D2, H)
    end.

lentz_step(Coef, C, D) ->
    {lentz_guard(1 + Coef / C), 1 / lentz_guard(1 + Coef * D)}.

lentz_guard(V) when abs(V) < ?BETA_TINY -> ?BETA_TINY;
lentz_guard(V) -> V.

%% log B(A, B), keeping digits for large arguments (R's lbeta: Stirling's series for
%% the large ones, the differences of the big terms taken analytically).
lbeta(A, B) ->
    lbeta_ordered(min(A, B), max(A, B)).

lbeta_ordered(P, Q) when P >= ?STIRLING_MIN ->
    Corr = lgammacor(P) + lgammacor(Q) - lgammacor(P + Q),
    -0.5 * math:log(Q) + ?LN_SQRT_2PI + Corr + (P - 0.5) * math:log(P / (P + Q))
        + Q * log1p(-P / (P + Q));
lbeta_ordered(P, Q) when Q >= ?STIRLING_MIN ->
    Corr = lgammacor(Q) - lgammacor(P + Q),
    lgamma(P) + Corr + P - P * math:log(P + Q) + (Q - 0.5) * log1p(-P / (P + Q));
lbeta_ordered(P, Q) ->
    lgamma(P) + lgamma(Q) - lgamma(P + Q).

%% log Γ(X), X > 0: Stirling's series from ?STIRLING_MIN, the recurrence below it.
lgamma(X) when X >= ?STIRLING_MIN ->
    (X - 0.5) * math:log(X) - X + ?LN_SQRT_2PI + lgammacor(X);
lgamma(X) ->
    lgamma_up(X, 1.0).

%% log Γ(Y) = log Γ(Y + 1) - log Y, the factors Y multiplied up in Product.
lgamma_up(Y, Product) when Y >= ?STIRLING_MIN ->
    lgamma(Y) - math:log(Product);
lgamma_up(Y, Product) ->
    lgamma_up(Y + 1, Product * Y).

%% log Γ(X) - Stirling's leading terms, X >= 10: the Bernoulli series to 1/X^13
%% (the next term is below 3e-17 at X = 10).
lgammacor(X) ->
    Z = 1 / (X * X),
    (1 / 12 - Z * (1 / 360 - Z * (1 / 1260 - Z * (1 / 1680 - Z * (1 / 1188
        - Z * (691 / 360360 - Z / 156)))))) / X.

%% log(1 + X) without losing the digits of a small X (Goldberg's correction).
log1p(X) ->
    U = 1 + X,
    case U == 1 of
        true -> X;
        false -> math:log(U) * X / (U - 1)
    end.

%% Normal quantile for P in (0, 0.5]: Acklam's rational approximation (relative error
%% 1.15e-9), then one Halley step on the exact lower tail erfc(-x/√2)/2.
normal_lower(P) ->
    refine_normal(P, acklam(P)).

acklam(P) when P < ?ACKLAM_P_LOW ->
    Q = math:sqrt(-2 * math:log(P)),
    (((((-7.784894002430293e-03 * Q - 3.223964580411365e-01) * Q - 2.400758277161838e+00) * Q
       - 2.549732539343734e+00) * Q + 4.374664141464968e+00) * Q + 2.938163982698783e+00)
        / ((((7.784695709041462e-03 * Q + 3.224671290700398e-01) * Q + 2.445134137142996e+00) * Q
            + 3.754408661907416e+00) * Q + 1);
acklam(P) ->
    Q = P - 0.5,
    R = Q * Q,
    (((((-3.969683028665376e+01 * R + 2.209460984245205e+02) * R - 2.759285104469687e+02) * R
       + 1.383577518672690e+02) * R - 3.066479806614716e+01) * R + 2.506628277459239e+00) * Q
        / (((((-5.447609879822406e+01 * R + 1.615858368580409e+02) * R - 1.556989798598866e+02) * R
             + 6.680131188771972e+01) * R - 1.328068155288572e+01) * R + 1).

refine_normal(P, X) when X * X / 2 < ?MAX_EXP_ARG ->
    E = 0.5 * math:erfc(-X / math:sqrt(2)) - P,
    U = E * math:sqrt(2 * math:pi()) * math:exp(X * X / 2),
    X - U / (1 + X * U / 2);
refine_normal(_P, X) ->
    X.
