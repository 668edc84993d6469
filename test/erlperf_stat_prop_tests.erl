%%% @doc Property tests of `erlperf_stat' invariants, run with PropEr.
%%%
%%% PropEr is Debian's `erlang-proper' (installed by `make prereq-test' and `.ci/run'; it
%%% lives in the OTP library directory, so rebar3 finds it without a dependency). That
%%% package ships no `include/' directory (the header is in `erlang-proper-dev'), so
%%% this module calls `proper' and `proper_types' directly instead of using the
%%% `?FORALL' macros. When PropEr is missing the test FAILS, saying what to install:
%%% a property test that passes without running would hide broken statistics.
%%%
%%% Every property counts the cases it checked; a run that checked fewer than
%%% `?NUMTESTS' fails too, so the properties cannot pass without being executed.
-module(erlperf_stat_prop_tests).

-include_lib("eunit/include/eunit.hrl").

%% Runs per property: enough to find counterexamples, fast enough for `make test'.
-define(NUMTESTS, 300).
%% Relative tolerance for sums of floats in a different order.
-define(EPS, 1.0e-9).
%% Seconds allowed for each property.
-define(TIMEOUT_S, 120).
%% Process dictionary key holding the counter of the property being built.

proper_test_() ->
    erlperf_test_lib:with_proper(
      fun () ->
              %% each its own timeout: a group's would leave each test eunit's 5 s
              [{atom_to_list(Name),
                {timeout, ?TIMEOUT_S, ?_assertEqual({Name, ?NUMTESTS}, check(Name, Prop))}}
               || {Name, Prop} <- properties()]
      end).

%% Property builders, called by check/2 once their counter is in place.
properties() ->
    [{mean_within_range, fun prop_mean_within_range/0},
     {stddev_non_negative, fun prop_stddev_non_negative/0},
     {percentiles_are_samples, fun prop_percentiles_are_samples/0},
     {percentile_monotone, fun prop_percentile_monotone/0},
     {summary_ordered, fun prop_summary_ordered/0},
     {order_invariant, fun prop_order_invariant/0},
     {shift_invariant_stddev, fun prop_shift_invariant_stddev/0},
     {constant_has_no_spread, fun prop_constant_has_no_spread/0},
     {mean_linear, fun prop_mean_linear/0},
     {ci_contains_mean, fun prop_ci_contains_mean/0},
     {ci_wider_with_confidence, fun prop_ci_wider_with_confidence/0},
     {ci_constant_zero_width, fun prop_ci_constant_zero_width/0},
     {t_quantile_inverts_cdf, fun prop_t_quantile_inverts_cdf/0},
     {quartiles_ordered, fun prop_quartiles_ordered/0},
     {outlier_counts_bounded, fun prop_outlier_counts_bounded/0},
     {verdict_symmetric, fun prop_verdict_symmetric/0},
     {paired_verdict_symmetric, fun prop_paired_verdict_symmetric/0},
     {significant_iff_ci_excludes_zero, fun prop_significant_iff_ci_excludes_zero/0},
     {hodges_lehmann_is_median, fun prop_hodges_lehmann_is_median/0}].

check(Name, Build) ->
    erlperf_test_lib:prop_check(Name, Build, ?NUMTESTS).

%%--------------------------------------------------------------------
%% Generators (proper_types, called directly)

samples() ->
    proper_types:non_empty(proper_types:list(proper_types:oneof(
        [proper_types:integer(-1000000, 1000000), proper_types:float(-1.0e6, 1.0e6)]))).

positive_samples() ->
    proper_types:non_empty(proper_types:list(proper_types:integer(1, 1000000000))).

percent() ->
    proper_types:oneof([proper_types:integer(1, 100), proper_types:float(0.001, 100.0)]).

%% At least two samples (a t interval needs two).
two_or_more(Elem) ->
    proper_types:bind({Elem, Elem, proper_types:list(Elem)},
                      fun ({X, Y, Rest}) -> [X, Y | Rest] end, false).

%% Positive samples as erlperf takes them, sometimes with many ties.
sample_value() ->
    proper_types:oneof([proper_types:integer(1, 20), proper_types:integer(1, 1000000),
                        proper_types:float(0.5, 1.0e6)]).

runner_samples() ->
    proper_types:non_empty(proper_types:list(sample_value())).

%% A confidence in percent, in (0, 100).
confidence() ->
    proper_types:oneof([proper_types:integer(1, 99), proper_types:float(0.01, 99.99)]).

%% Lists long enough for the Hodges-Lehmann selection (more than 1024 pairs).
long_samples() ->
    proper_types:bind(proper_types:integer(33, 70),
                      fun (N) -> proper_types:vector(N, sample_value()) end, false).

forall(Type, Fun) ->
    erlperf_test_lib:prop_forall(Type, Fun).

%%--------------------------------------------------------------------
%% Properties

prop_mean_within_range() ->
    forall(samples(), fun (S) ->
        Mean = erlperf_stat:mean(S),
        Slack = ?EPS * max(1.0, lists:max([abs(X) || X <- S])),
        lists:min(S) - Slack =< Mean andalso Mean =< lists:max(S) + Slack
    end).

prop_stddev_non_negative() ->
    forall(samples(), fun (S) -> erlperf_stat:stddev(S) >= 0.0 end).

prop_percentiles_are_samples() ->
    forall({samples(), percent()}, fun ({S, P}) ->
        lists:member(erlperf_stat:percentile(S, P), S) andalso
            lists:member(erlperf_stat:median(S), S)
    end).

prop_percentile_monotone() ->
    forall({samples(), percent(), percent()}, fun ({S, P1, P2}) ->
        {Lo, Hi} = {min(P1, P2), max(P1, P2)},
        erlperf_stat:percentile(S, Lo) =< erlperf_stat:percentile(S, Hi)
    end).

prop_summary_ordered() ->
    forall(samples(), fun (S) ->
        #{min := Min, median := Med, p99 := P99, max := Max, average := Avg,
          samples := Kept} = erlperf_stat:summary(S),
        Min =< Med andalso Med =< P99 andalso P99 =< Max andalso Kept =:= S
            andalso Avg == erlperf_stat:mean(S)
    end).

prop_order_invariant() ->
    forall(samples(), fun (S) ->
        R = lists:reverse(S),
        close(erlperf_stat:mean(S), erlperf_stat:mean(R), S) andalso
            close(erlperf_stat:stddev(S), erlperf_stat:stddev(R), S) andalso
            erlperf_stat:median(S) == erlperf_stat:median(R)
    end).

prop_shift_invariant_stddev() ->
    forall({positive_samples(), proper_types:integer(-1000, 1000)}, fun ({S, C}) ->
        Shifted = [X + C || X <- S],
        close(erlperf_stat:stddev(S), erlperf_stat:stddev(Shifted), S)
    end).

prop_constant_has_no_spread() ->
    forall({proper_types:integer(1, 1000000), proper_types:integer(1, 50)}, fun ({V, N}) ->
        S = lists:duplicate(N, V),
        erlperf_stat:stddev(S) < 1.0e-9 * V andalso erlperf_stat:cv(S) < 1.0e-9
    end).

prop_mean_linear() ->
    forall({positive_samples(), proper_types:integer(1, 1000)}, fun ({S, K}) ->
        close(K * erlperf_stat:mean(S), erlperf_stat:mean([K * X || X <- S]), [K * X || X <- S])
    end).

prop_ci_contains_mean() ->
    forall({samples(), confidence()}, fun ({S, C}) ->
        case erlperf_stat:confidence_interval(S, C) of
            undefined -> length(S) =:= 1;
            {Lo, Hi} -> Mean = erlperf_stat:mean(S), Lo =< Mean andalso Mean =< Hi
        end
    end).

prop_ci_wider_with_confidence() ->
    forall({two_or_more(sample_value()), confidence(), confidence()}, fun ({S, C1, C2}) ->
        {Narrow, Wide} = {min(C1, C2), max(C1, C2)},
        {Lo1, Hi1} = erlperf_stat:confidence_interval(S, Narrow),
        {Lo2, Hi2} = erlperf_stat:confidence_interval(S, Wide),
        %% the t quantile is found to about 1e-15: allow that much
        Hi1 - Lo1 =< (Hi2 - Lo2) * (1 + 1.0e-12)
    end).

prop_ci_constant_zero_width() ->
    forall({proper_types:integer(-1000000, 1000000), proper_types:integer(2, 50), confidence()},
           fun ({V, N, C}) ->
        {Lo, Hi} = erlperf_stat:confidence_interval(lists:duplicate(N, V), C),
        Lo == V andalso Hi == V
    end).

%% The quantile's tail is the asked one, to the tail's own accuracy: Newton stops at
%% 1e-15, but the tail jumps by up to 2e-10 (relative) where its continued fraction
%% changes branch (1e-12 at 5,700 df, growing with df up to 10^7).
prop_t_quantile_inverts_cdf() ->
    Df = proper_types:oneof([proper_types:integer(1, 1000), proper_types:float(0.5, 1.0e8)]),
    forall({proper_types:float(1.0e-6, 0.999999), Df}, fun ({P, D}) ->
        T = erlperf_stat:t_quantile(P, D),
        Tail = min(P, 1 - P),
        (T < 0) =:= (P < 0.5) andalso
            abs(erlperf_stat:t_cdf(-abs(T), D) - Tail) =< 1.0e-9 * Tail
    end).

prop_quartiles_ordered() ->
    forall(samples(), fun (S) ->
        {Q1, Q2, Q3} = erlperf_stat:quartiles(S),
        lists:min(S) =< Q1 andalso Q1 =< Q2 andalso Q2 =< Q3 andalso Q3 =< lists:max(S)
    end).

prop_outlier_counts_bounded() ->
    forall(samples(), fun (S) ->
        #{low_severe := LS, low_mild := LM, high_mild := HM, high_severe := HS,
          low_severe_fence := F1, low_mild_fence := F2, high_mild_fence := F3,
          high_severe_fence := F4, iqr := Iqr} = erlperf_stat:outliers(S),
        Counts = [LS, LM, HM, HS],
        lists:all(fun (C) -> C >= 0 end, Counts) andalso lists:sum(Counts) =< length(S)
            andalso Iqr >= 0 andalso F1 =< F2 andalso F2 =< F3 andalso F3 =< F4
            %% the severe count is exactly what lies beyond the severe fences
            andalso LS + HS =:= length([X || X <- S, X < F1 orelse X > F4])
    end).

%% Swapping A and B: the same p and significance, the opposite direction.
prop_verdict_symmetric() ->
    forall({runner_samples(), runner_samples(), proper_types:oneof([welch, mann_whitney]),
            confidence()}, fun ({A, B, Test, C}) ->
        symmetric(A, B, #{test => Test, confidence => C})
    end).

prop_paired_verdict_symmetric() ->
    forall({two_or_more({sample_value(), sample_value()}), confidence()}, fun ({Pairs, C}) ->
        {A, B} = lists:unzip(Pairs),
        symmetric(A, B, #{test => paired, confidence => C})
    end).

%% (no noise floor: the test alone decides)
symmetric(A, B, Opts0) ->
    Opts = Opts0#{noise => 0},
    #{p := P1, significant := S1, verdict := V1, change_pct := C1} = erlperf_stat:compare(A, B, Opts),
    #{p := P2, significant := S2, verdict := V2, change_pct := C2} = erlperf_stat:compare(B, A, Opts),
    P1 =:= P2 andalso S1 =:= S2 andalso V1 =:= flip(V2) andalso sign(C1) =:= -sign(C2)
        andalso S1 =:= (P1 =/= undefined andalso P1 < 1 - maps:get(confidence, Opts) / 100).

flip(faster) -> slower;
flip(slower) -> faster;
flip(no_difference) -> no_difference;
flip(inconclusive) -> inconclusive.

sign(X) when X > 0 -> 1;
sign(X) when X < 0 -> -1;
sign(_) -> 0.

%% For the t-tests the interval and the test agree: significant iff 0 is outside.
%% Except on the boundary, where rounding decides: small integer samples hit it
%% exactly (n = 2 pairs, df = 1, 50%: q = tan(pi/4) = 1 and t = (d1 + d2)/|d1 - d2|
%% = 1 for differences 0 and 5, so p = alpha), so an end within 1e-9 of the width
%% from 0 may go either way.
prop_significant_iff_ci_excludes_zero() ->
    forall({two_or_more({sample_value(), sample_value()}), proper_types:oneof([welch, paired]),
            confidence()}, fun ({Pairs, Test, C}) ->
        {A, B} = lists:unzip(Pairs),
        #{significant := S, ci_pct := {Lo, Hi}} =
            erlperf_stat:compare(A, B, #{test => Test, confidence => C, noise => 0}),
        S =:= (Lo > 0 orelse Hi < 0) orelse min(abs(Lo), abs(Hi)) =< 1.0e-9 * (Hi - Lo)
    end).

prop_hodges_lehmann_is_median() ->
    forall({long_samples(), long_samples()}, fun ({A, B}) ->
        Sorted = lists:sort([Y - X || X <- A, Y <- B]),
        N = length(Sorted),
        Median = case N rem 2 of
                     1 -> lists:nth((N + 1) div 2, Sorted);
                     0 -> (lists:nth(N div 2, Sorted) + lists:nth(N div 2 + 1, Sorted)) / 2
                 end,
        erlperf_stat:hodges_lehmann(A, B) == Median
    end).

%% Equal up to rounding errors proportional to the largest magnitude involved.
close(A, B, S) ->
    abs(A - B) =< ?EPS * max(1.0, lists:max([abs(X) || X <- S])).
