%%% @doc Tests of baseline comparison and the regression gate, on records built here.
-module(erlperf_baseline_tests).

-include_lib("eunit/include/eunit.hrl").

run(Label, Code, Mode, Samples) ->
    #{<<"label">> => Label, <<"code">> => Code, <<"mode">> => Mode, <<"samples">> => Samples}.

record(Runs) ->
    #{<<"version">> => 1, <<"runs">> => Runs}.

base() ->
    record([run(<<"a">>, <<"x().">>, <<"continuous">>, [1000, 1010, 990, 1005, 995]),
            run(<<"b">>, <<"y().">>, <<"continuous">>, [500, 505, 495, 502, 498])]).

same_code_passes_test() ->
    Rows = erlperf_baseline:compare([{"base.json", base()}], base(), #{}),
    [#{label := <<"a">>, baselines := [#{match := label, verdict := no_difference}]},
     #{label := <<"b">>, baselines := [#{match := label, verdict := no_difference}]}] = Rows,
    ?assertEqual([], erlperf_baseline:regressions(Rows, 0)).

slower_by_half_fails_the_gate_test() ->
    Now = record([run(<<"a">>, <<"x().">>, <<"continuous">>, [500, 505, 495, 502, 498])]),
    Rows = erlperf_baseline:compare([{"base.json", base()}], Now, #{}),
    [#{baselines := [#{verdict := slower, significant := true, change_pct := Change}]}] = Rows,
    ?assert(abs(Change + 50) < 1, Change),
    ?assertMatch([{<<"a">>, [#{file := "base.json"}]}], erlperf_baseline:regressions(Rows, 10)),
    %% a gate wider than the change lets it pass
    ?assertEqual([], erlperf_baseline:regressions(Rows, 60)).

faster_is_no_regression_test() ->
    Now = record([run(<<"b">>, <<"y().">>, <<"continuous">>, [1000, 1010, 990, 1005, 995])]),
    Rows = erlperf_baseline:compare([{"base.json", base()}], Now, #{}),
    [#{baselines := [#{verdict := faster}]}] = Rows,
    ?assertEqual([], erlperf_baseline:regressions(Rows, 0)).

timed_lower_is_better_test() ->
    Base = record([run(<<"t">>, <<"z().">>, <<"timed">>, [100, 101, 99, 100])]),
    Now = record([run(<<"t">>, <<"z().">>, <<"timed">>, [200, 202, 198, 200])]),
    [#{baselines := [#{verdict := slower, significant := true}]}] =
        erlperf_baseline:compare([{"t.json", Base}], Now, #{}).

match_by_code_then_none_test() ->
    Now = record([run(<<"renamed">>, <<"y().">>, <<"continuous">>, [500, 505, 495, 502, 498]),
                  run(<<"new">>, <<"w().">>, <<"continuous">>, [1, 2, 3])]),
    [#{baselines := [#{match := code, verdict := no_difference}]},
     #{baselines := [#{match := none}]}] = Rows =
        erlperf_baseline:compare([{"base.json", base()}], Now, #{}),
    Text = unicode:characters_to_list(erlperf_baseline:format(Rows)),
    ?assertNotEqual(nomatch, string:find(Text, "new against base.json: no runner with this label or code")).

several_baselines_in_order_test() ->
    Old = record([run(<<"a">>, <<"x().">>, <<"continuous">>, [2000, 2010, 1990, 2005, 1995])]),
    [#{baselines := [#{file := "old.json", verdict := slower}, #{file := "base.json", verdict := no_difference}]}] =
        erlperf_baseline:compare([{"old.json", Old}, {"base.json", base()}],
                                 record([run(<<"a">>, <<"x().">>, <<"continuous">>,
                                             [1000, 1010, 990, 1005, 995])]), #{}).

load_errors_test() ->
    Dir = filename:join(["/tmp", "erlperf_baseline_tests_" ++ os:getpid()]),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Missing = filename:join(Dir, "missing.json"),
    ?assertMatch({error, {baseline, _, enoent}}, erlperf_baseline:load(Missing)),
    NotRecord = filename:join(Dir, "array.json"),
    ok = file:write_file(NotRecord, <<"[1, 2]">>),
    ?assertMatch({error, {baseline, _, {record, _}}}, erlperf_baseline:load(NotRecord)),
    Newer = filename:join(Dir, "newer.json"),
    ok = file:write_file(Newer, <<"{\"version\": 99, \"runs\": []}">>),
    ?assertMatch({error, {baseline, _, {newer_version, 99}}}, erlperf_baseline:load(Newer)),
    Broken = filename:join(Dir, "broken.json"),
    ok = file:write_file(Broken, <<"{\"version\": ">>),
    {error, Reason} = erlperf_baseline:load(Broken),
    ?assertMatch("baseline " ++ _, erlperf_baseline:format_error(Reason)),
    [ok = file:delete(F) || F <- [NotRecord, Newer, Broken]],
    ok = file:del_dir(Dir).

%% Every error load/1 returns reads as a sentence naming the file (doc/api.md quotes the
%% first two), never as a term.
format_error_test_() ->
    Text = fun (Why) -> erlperf_baseline:format_error({baseline, "base.json", Why}) end,
    {error, JsonError} = erlperf_json:decode(<<"{\"version\": ">>),
    [?_assertEqual("baseline base.json: no such file or directory", Text(enoent)),
     ?_assertEqual("baseline base.json: field runs[0].samples is not a non-empty list",
                   Text({record, {<<"runs[0].samples">>, "a non-empty list"}})),
     ?_assertEqual("baseline base.json: a --perf-test results.json, not a benchmark record (--save writes one)",
                   Text({record, perf_test_results})),
     ?_assertEqual("baseline base.json: written by a newer erlperf (record version 2)",
                   Text({newer_version, 2})),
     ?_assertEqual("baseline base.json: " ++ erlperf_json:format_error(JsonError), Text(JsonError)),
     ?_assertEqual(nomatch, string:find(Text(JsonError), "{"))].

%% Sweeps: a runner matches the baseline's runner of the same label and parameters;
%% rows are named with the combination, in the order of the record's parameters.
sweep(Runs) ->
    (record(Runs))#{<<"options">> => #{<<"params">> => [#{<<"name">> => <<"N">>, <<"values">> => [10, 100]},
                                                       #{<<"name">> => <<"S">>, <<"values">> => [<<"a">>]}]}}.

swept(N, Samples) ->
    (run(<<"lists:seq(1, N).">>, <<"lists:seq(1, N).">>, <<"continuous">>, Samples))#{
        <<"params">> => #{<<"N">> => N, <<"S">> => <<"a">>}}.

sweep_matches_params_test() ->
    Base = sweep([swept(10, [1000, 1010, 990, 1005, 995]), swept(100, [100, 101, 99, 100, 100])]),
    %% the same figures under the other combination: each matches its own
    Now = sweep([swept(100, [100, 101, 99, 100, 100]), swept(10, [500, 505, 495, 502, 498])]),
    [#{name := <<"lists:seq(1, N). (N=100, S=a)">>, baselines := [#{match := label, verdict := no_difference}]},
     #{name := <<"lists:seq(1, N). (N=10, S=a)">>, baselines := [#{match := label, verdict := slower}]}] =
        Rows = erlperf_baseline:compare([{"base.json", Base}], Now, #{}),
    ?assertMatch([{<<"lists:seq(1, N). (N=10, S=a)">>, [_]}], erlperf_baseline:regressions(Rows, 10)),
    Text = unicode:characters_to_list(erlperf_baseline:format(Rows)),
    ?assertNotEqual(nomatch, string:find(Text, "lists:seq(1, N). (N=10, S=a) against base.json: ")).

sweep_without_match_test() ->
    %% a record of no sweep has no runner with these parameters, nor has another combination
    Plain = record([run(<<"lists:seq(1, N).">>, <<"lists:seq(1, N).">>, <<"continuous">>, [1, 2, 3])]),
    Other = sweep([swept(1000, [1, 2, 3])]),
    Now = sweep([swept(10, [1, 2, 3])]),
    [#{baselines := [#{match := none}, #{match := none}]}] =
        erlperf_baseline:compare([{"plain.json", Plain}, {"other.json", Other}], Now, #{}).
