%%% @doc Property tests of `erlperf_stat' invariants, run with PropEr.
%%%
%%% PropEr is Debian's `erlang-proper' (installed by `make prereq' and `.ci/run'; it
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
%% Seconds allowed for all the properties together.
-define(TIMEOUT_S, 120).
%% Process dictionary key holding the counter of the property being built.
-define(COUNTER, '$erlperf_prop_counter').

proper_test_() ->
    case code:which(proper) of
        non_existing ->
            {"PropEr is installed",
             ?_test(erlang:error({proper_missing, "apt-get install erlang-proper "
                                                  "(make prereq does)"}))};
        _ ->
            {timeout, ?TIMEOUT_S,
             [{atom_to_list(Name), ?_assertEqual({Name, ?NUMTESTS}, check(Name, Prop))}
              || {Name, Prop} <- properties()]}
    end.

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
     {mean_linear, fun prop_mean_linear/0}].

%% {Name, cases checked} when the property holds; the counterexample when it does not.
check(Name, Build) ->
    Counter = counters:new(1, []),
    put(?COUNTER, Counter),
    Prop = Build(),
    erase(?COUNTER),
    case proper:quickcheck(Prop, [{numtests, ?NUMTESTS}, quiet]) of
        true -> {Name, counters:get(Counter, 1)};
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

%% proper:forall/2, counting the cases checked.
forall(Type, Fun) ->
    Counter = get(?COUNTER),
    proper:forall(Type, fun (Value) -> ok = counters:add(Counter, 1, 1), Fun(Value) end).

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
