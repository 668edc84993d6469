%%% @doc Tests of erlperf_github: what a run writes under GitHub Actions, on rows built
%%% by erlperf_baseline from records made here.
-module(erlperf_github_tests).

-include_lib("eunit/include/eunit.hrl").

run(Label, Samples, Reductions) ->
    #{<<"label">> => Label, <<"code">> => <<Label/binary, "().">>, <<"mode">> => <<"continuous">>,
      <<"samples">> => Samples,
      <<"counts">> => #{<<"bytes_per_iteration">> => 0.0, <<"reductions_per_iteration">> => Reductions}}.

record(Runs) ->
    #{<<"version">> => 1, <<"runs">> => Runs}.

-define(SAMPLES, [1000, 1010, 990, 1005, 995]).

%% Under GitHub Actions (the environment set for the call): what goes to the job summary.
with_actions(Fun) ->
    Summary = filename:join("/tmp", "erlperf_github_tests_" ++ os:getpid()),
    _ = file:delete(Summary),
    Old = {os:getenv("GITHUB_ACTIONS"), os:getenv("GITHUB_STEP_SUMMARY")},
    os:putenv("GITHUB_ACTIONS", "true"),
    os:putenv("GITHUB_STEP_SUMMARY", Summary),
    try
        Fun(),
        case file:read_file(Summary) of
            {ok, Bin} -> unicode:characters_to_list(Bin);
            {error, enoent} -> none
        end
    after
        _ = file:delete(Summary),
        [case V of false -> os:unsetenv(K); _ -> os:putenv(K, V) end
         || {K, V} <- lists:zip(["GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"], tuple_to_list(Old))]
    end.

nothing_compared_writes_nothing_test() ->
    ?assertEqual(none, with_actions(fun () -> ok = erlperf_github:report([], 10, false) end)).

new_runner_and_count_regression_test() ->
    Base = record([run(<<"a">>, ?SAMPLES, 100.0)]),
    %% a: same time, twice the reductions; b: no baseline has it
    Now = record([run(<<"a">>, ?SAMPLES, 200.0), run(<<"b">>, ?SAMPLES, 10.0)]),
    Rows = erlperf_baseline:compare([{"base.json", Base}], Now, #{}),
    Summary = with_actions(fun () -> ok = erlperf_github:report(Rows, none, false) end),
    ?assertMatch("### erlperf: 0 failed, 1 to look at, 0 as before, 1 new\n" ++ _, Summary),
    [_Heading, _, _Header, _Rule, A, B | _] = string:split(Summary, "\n", all),
    ?assertMatch("| ⚠️ | `a` | `base.json` | " ++ _, A),
    ?assertNotEqual(nomatch, string:find(A, "regressed: 100 -> 200 reductions"), A),
    ?assertMatch("| 🆕 | `b` | `base.json` | " ++ _, B).

%% A runner named with a line break and a workflow command, a baseline named with `|':
%% the summary's row keeps its four columns, the names quoted in code spans.
hostile_names_test() ->
    Name = <<"L\n::warning::injected">>,
    Base = record([run(Name, ?SAMPLES, 100.0)]),
    Now = record([run(Name, ?SAMPLES, 200.0)]),
    Rows = erlperf_baseline:compare([{"a|b.json", Base}], Now, #{}),
    Summary = with_actions(fun () -> ok = erlperf_github:report(Rows, none, false) end),
    [_Heading, _, Header, _Rule, Row | _] = string:split(Summary, "\n", all),
    ?assertMatch("| ⚠️ | `\"L\\n::warning::injected\"` | `a\\|b.json` | " ++ _, Row),
    Pipes = fun (L) -> length([C || {P, C} <- lists:zip(lists:droplast([$\s | L]), L),
                                    C =:= $|, P =/= $\\])
            end,
    ?assertEqual(Pipes(Header), Pipes(Row)),
    ?assertEqual([], [L || L <- string:split(Summary, "\n", all), lists:prefix("::", L)]).
