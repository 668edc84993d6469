%%% The regression gate's one rule: which verdicts fail it, and how each is reported.
-module(erlperf_gate_tests).

-include_lib("eunit/include/eunit.hrl").

slower(Change) -> #{match => label, verdict => slower, significant => true, change_pct => Change, counts => []}.
counts(Change) ->
    #{match => label, verdict => no_difference, significant => false, change_pct => 0.0,
      counts => [#{count => <<"bytes_per_iteration">>, verdict => regressed, baseline => 8, run => 16,
                   change_pct => Change}]}.
inconclusive() -> #{match => label, verdict => inconclusive, significant => false, counts => []}.
same() -> #{match => label, verdict => no_difference, significant => false, change_pct => 0.5, counts => []}.

%% {Entry, Gate, FailsInconclusive, Fails, Level}
table() ->
    [{slower(-20.0), 10, false, true, error},
     {slower(-5.0), 10, false, false, warning},
     {slower(-20.0), none, false, false, warning},
     %% a slowdown exactly at the gate passes it
     {slower(-10.0), 10, false, false, warning},
     {counts(100.0), 10, false, true, error},
     {counts(5.0), 10, false, false, warning},
     %% a count from nothing: no percentage, always beyond the gate
     {counts(undefined), 10, false, true, error},
     {counts(100.0), none, false, false, warning},
     {inconclusive(), 10, false, false, warning},
     {inconclusive(), 10, true, true, error},
     {inconclusive(), none, false, false, warning},
     {same(), 10, true, false, none},
     {#{match => none}, 10, true, false, new},
     %% faster is never a regression
     {(slower(-20.0))#{verdict := faster, change_pct := 20.0}, 10, false, false, none}].

gate_test_() ->
    [{lists:flatten(io_lib:format("~p ~p ~p", [E, G, F])),
      ?_test(begin
                 ?assertEqual(Fails, erlperf_gate:fails(E, G, F)),
                 ?assertEqual(Level, erlperf_gate:level(E, G, F))
             end)}
     || {E, G, F, Fails, Level} <- table()].

regressions_test() ->
    Rows = [#{name => <<"a">>, baselines => [slower(-20.0), same()]},
            #{name => <<"b">>, baselines => [same()]},
            #{name => <<"c">>, baselines => [counts(50.0)]}],
    ?assertEqual([{<<"a">>, [slower(-20.0)]}, {<<"c">>, [counts(50.0)]}], erlperf_gate:regressions(Rows, 10)),
    ?assertEqual([], erlperf_gate:regressions(Rows, none)),
    ?assertEqual([{<<"c">>, [counts(50.0)]}], erlperf_gate:regressions(Rows, 30)).
