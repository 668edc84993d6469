%%% @doc Property tests of `erlperf_stat' invariants, run with PropEr when it is installed.
%%%
%%% PropEr is optional (Debian's `erlang-proper'): the module calls it at run time,
%%% without including its header, so it compiles everywhere; when `proper' is not in the
%%% code path the properties are reported as one passing "skipped" test.
-module(erlperf_stat_prop_tests).

-include_lib("eunit/include/eunit.hrl").

%% Runs per property: enough to find counterexamples, fast enough for `make test'.
-define(NUMTESTS, 300).
%% Relative tolerance for sums of floats in a different order.
-define(EPS, 1.0e-9).

proper_test_() ->
    case code:which(proper) of
        non_existing ->
            {"PropEr is not installed: properties skipped", ?_assert(true)};
        _ ->
            {timeout, 120,
             [{atom_to_list(Name), ?_assert(check(Name, Prop))} || {Name, Prop} <- properties()]}
    end.

properties() ->
    [{mean_within_range, prop_mean_within_range()},
     {stddev_non_negative, prop_stddev_non_negative()},
     {percentiles_are_samples, prop_percentiles_are_samples()},
     {percentile_monotone, prop_percentile_monotone()},
     {summary_ordered, prop_summary_ordered()},
     {order_invariant, prop_order_invariant()},
     {shift_invariant_stddev, prop_shift_invariant_stddev()},
     {constant_has_no_spread, prop_constant_has_no_spread()},
     {mean_linear, prop_mean_linear()}].

check(Name, Prop) ->
    case proper:quickcheck(Prop, [{numtests, ?NUMTESTS}, quiet]) of
        true -> true;
        Other -> {Name, Other, proper:counterexample()}
    end.

%%--------------------------------------------------------------------
%% Generators (proper_types, called directly)

samples() ->
    proper_types:non_empty(proper_types:list(proper_types:oneof(
        [proper_types:integer(-1000000, 1000000), proper_types:float(-1.0e6, 1.0e6)]))).

positive_samples() ->
    proper_types:non_empty(proper_types:list(proper_types:integer(1, 1000000000))).

percent() ->
    proper_types:oneof([proper_types:integer(1, 100), proper_types:float(0.001, 100.0)]).

forall(Type, Fun) ->
    proper:forall(Type, Fun).

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

%% Equal up to rounding errors proportional to the largest magnitude involved.
close(A, B, S) ->
    abs(A - B) =< ?EPS * max(1.0, lists:max([abs(X) || X <- S])).
