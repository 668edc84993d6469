%%% @doc eunit tests of `erlperf_forks'' pure part: how many forks a run takes
%%% (`auto/1', `resolve/3'), how its samples are split (`sizes/2'), the text of the
%%% errors `resolve/3' raises, and the looks of a run measured until decided (`looks/2').
%%% Real forked runs are in `erlperf_forks_SUITE'.
-module(erlperf_forks_tests).

-include_lib("eunit/include/eunit.hrl").

%% Checked run options, as erlperf:benchmark/3 gives them to resolve/3.
-define(OPTS(Extra), maps:merge(erlperf:defaults(), Extra)).

%% auto/1 for 1..30 samples, worked out from its rule: a fork per sample up to 5, then
%% a fork per two samples, at most 10.
auto_test_() ->
    Expected = [1, 2, 3, 4, 5, 3, 3, 4, 4, 5,
                5, 6, 6, 7, 7, 8, 8, 9, 9, 10,
                10, 10, 10, 10, 10, 10, 10, 10, 10, 10],
    [?_assertEqual({S, F}, {S, erlperf_forks:auto(S)})
     || {S, F} <- lists:zip(lists:seq(1, 30), Expected)].

sizes_test_() ->
    [?_assertEqual([3, 2, 2], erlperf_forks:sizes(7, 3)),
     ?_assertEqual([3, 3], erlperf_forks:sizes(6, 2)),
     ?_assertEqual([7], erlperf_forks:sizes(7, 1)),
     ?_assertEqual([1, 1, 1], erlperf_forks:sizes(3, 3)),
     ?_assertEqual([3, 3, 2, 2], erlperf_forks:sizes(10, 4)),
     ?_assertError(function_clause, erlperf_forks:sizes(2, 3))] ++
        [?_test(check_sizes(S, F)) || S <- lists:seq(1, 30), F <- lists:seq(1, S)].

%% F sizes adding up to S, none empty, the larger ones first, differing by at most 1.
check_sizes(S, F) ->
    Sizes = erlperf_forks:sizes(S, F),
    ?assertEqual({S, F}, {lists:sum(Sizes), length(Sizes)}),
    ?assert(lists:min(Sizes) >= 1 andalso lists:max(Sizes) - lists:min(Sizes) =< 1, Sizes),
    ?assertEqual(lists:reverse(lists:sort(Sizes)), Sizes).

%% forks => auto: forked only when codes are compared in a full report, by one node,
%% without cv or a concurrency estimation.
resolve_auto_test_() ->
    Full = ?OPTS(#{report => full, samples => 10}),
    Conc = erlperf:concurrency_defaults(),
    [?_assertEqual(5, erlperf_forks:resolve(2, Full, undefined)),
     ?_assertEqual(5, erlperf_forks:resolve(3, Full, undefined)),
     ?_assertEqual(3, erlperf_forks:resolve(2, ?OPTS(#{report => full}), undefined)),
     ?_assertEqual(4, erlperf_forks:resolve(2, Full#{samples => 8}, undefined)),
     ?_assertEqual(5, erlperf_forks:resolve(2, Full#{sample_duration => {timed, 100}}, undefined)),
     ?_assertEqual(1, erlperf_forks:resolve(1, Full, undefined)),
     ?_assertEqual(1, erlperf_forks:resolve(2, Full#{report => basic}, undefined)),
     ?_assertEqual(1, erlperf_forks:resolve(2, Full#{report => extended}, undefined)),
     ?_assertEqual(1, erlperf_forks:resolve(2, Full#{nodes => [node()]}, undefined)),
     ?_assertEqual(1, erlperf_forks:resolve(2, Full#{cv => 0.05}, undefined)),
     ?_assertEqual(1, erlperf_forks:resolve(2, Full, Conc)),
     ?_assertEqual(1, erlperf_forks:resolve(2, Full#{samples => 1}, undefined))].

%% An explicit count is taken as it is, or refused with the first conflict.
resolve_count_test_() ->
    Opts = ?OPTS(#{forks => 3, samples => 7}),
    Conc = erlperf:concurrency_defaults(),
    [?_assertEqual(3, erlperf_forks:resolve(1, Opts, undefined)),
     ?_assertEqual(3, erlperf_forks:resolve(2, Opts#{report => full}, undefined)),
     ?_assertEqual(7, erlperf_forks:resolve(1, Opts#{forks => 7}, undefined)),
     %% one fork is a single run: nothing conflicts with it
     ?_assertEqual(1, erlperf_forks:resolve(2, Opts#{forks => 1, nodes => [node()], cv => 0.1}, Conc)),
     ?_assertError({incompatible_options, forks, 8, {samples, 7}},
                   erlperf_forks:resolve(1, Opts#{forks => 8}, undefined)),
     ?_assertError({incompatible_options, forks, 3, concurrency_estimation},
                   erlperf_forks:resolve(1, Opts, Conc)),
     ?_assertError({incompatible_options, forks, 3, nodes},
                   erlperf_forks:resolve(1, Opts#{nodes => [node()]}, undefined)),
     ?_assertError({incompatible_options, forks, 3, cv},
                   erlperf_forks:resolve(1, Opts#{cv => 0.1}, undefined)),
     %% several conflicts: concurrency estimation, nodes, cv, then the samples
     ?_assertError({incompatible_options, forks, 8, nodes},
                   erlperf_forks:resolve(1, Opts#{forks => 8, nodes => [node()], cv => 0.1}, undefined))].

%% Each error is one line of text naming the forks and what they conflict with.
format_error_test_() ->
    Cases = [{{samples, 7}, ["8 forks", "7"]},
             {concurrency_estimation, ["8 forks", "concurrency estimation"]},
             {nodes, ["8 forks", "nodes"]},
             {cv, ["8 forks", "cv"]}],
    [?_test(check_text(erlperf:format_error({incompatible_options, forks, 8, What}), Words))
     || {What, Words} <- Cases] ++
        [?_assert(erlperf:is_known_error({incompatible_options, forks, 8, cv}))].

check_text(Text, Words) ->
    ?assert(io_lib:char_list(Text), Text),
    ?assertEqual(nomatch, string:find(Text, "\n"), Text),
    _ = [?assertNotEqual(nomatch, string:find(Text, W), {Text, W}) || W <- Words],
    ok.

%% The looks of a run measured until decided: after the first look's forks, then twice
%% as many each time, and at the last fork the budget allows (never before the first).
looks_test_() ->
    [?_assertEqual([4, 8, 16, 19], erlperf_forks:looks(19, 4)),
     ?_assertEqual([4, 8, 16], erlperf_forks:looks(16, 4)),
     ?_assertEqual([4, 8, 16, 17], erlperf_forks:looks(17, 4)),
     ?_assertEqual([4, 5], erlperf_forks:looks(5, 4)),
     ?_assertEqual([4], erlperf_forks:looks(4, 4)),
     %% a budget for fewer forks than the first look: the first look all the same
     ?_assertEqual([4], erlperf_forks:looks(3, 4)),
     ?_assertEqual([4], erlperf_forks:looks(1, 4)),
     ?_assertEqual([4, 8, 16, 32, 64, 100], erlperf_forks:looks(100, 4)),
     ?_assertEqual([2, 4, 8, 9], erlperf_forks:looks(9, 2))] ++
        [?_test(check_looks(Max, First)) || Max <- lists:seq(1, 70), First <- [1, 3, 4]].

%% Increasing, from First to the last fork, each look at most twice the one before.
check_looks(Max, First) ->
    Looks = erlperf_forks:looks(Max, First),
    ?assertEqual({First, max(First, Max)}, {hd(Looks), lists:last(Looks)}),
    [?assert(A < B andalso B =< 2 * A, {Max, First, Looks})
     || {A, B} <- lists:zip(lists:droplast(Looks), tl(Looks))],
    ok.

%% until/4 with a run that measures nothing (fake reports, no job): forks of 10 samples,
%% in alternating order; `Decide' asked at the planned looks only, always with the
%% number of looks planned; the run stops at the first look it says yes to, and its
%% reports hold every fork's samples in the codes' order.
until_decided_test() ->
    Looked = fun (Reports, Looks) -> self() ! {look, forks_taken(Reports), Looks},
                                     forks_taken(Reports) >= 8
             end,
    fresh(),
    %% a budget of 1000 s: the forks it allows plan looks at 4, 8, 16 forks and on
    Reports = erlperf_forks:until(codes(), ?OPTS(#{budget => 1000, sample_duration => 10}),
                                  fun fake_run/2, Looked),
    [{look, 4, Looks}, {look, 8, Looks}] = messages(look),
    ?assert(Looks >= 3, Looks),
    %% odd forks in the codes' order, even ones in reverse
    ?assertEqual(lists:append(lists:duplicate(4, [[<<"a">>, <<"b">>], [<<"b">>, <<"a">>]])),
                 [Labels || {fork, Labels, 10} <- messages(fork)]),
    Sequential = #{look => 2, looks => Looks, forks => 8, budget_ms => 1000000,
                   stopped => decided},
    [begin
         Values = [V || F <- lists:seq(1, 8), V <- lists:duplicate(10, Base + F)],
         ?assertMatch(#{label := Label, sequential := #{elapsed_ms := _},
                        run_options := #{samples := 80, forks := 8},
                        result := #{values := Values}}, R),
         ?assertEqual(Sequential, maps:remove(elapsed_ms, maps:get(sequential, R)))
     end || {Label, Base, R} <- lists:zip3([<<"a">>, <<"b">>], [1000, 500], Reports)].

%% Never decided: the run stops when its budget (1 s; forks of 100 ms here) is spent,
%% at a look, having asked at every planned look before.
until_budget_test_() ->
    {timeout, 30, fun () ->
        Slow = fun (Codes, Opts) -> receive after 100 -> fake_run(Codes, Opts) end end,
        Never = fun (Reports, Looks) -> self() ! {look, forks_taken(Reports), Looks}, false end,
        fresh(),
        [#{sequential := S} | _] =
            erlperf_forks:until(codes(), ?OPTS(#{budget => 1, sample_duration => 10}), Slow, Never),
        #{stopped := budget, look := Look, looks := Looks, forks := Forks, budget_ms := 1000} = S,
        Asked = messages(look),
        ?assertEqual(Forks, length(messages(fork))),
        ?assert(Forks >= 4 andalso Forks =< 10, S),
        %% the planned looks before the last fork, and the last fork
        Planned = erlperf_forks:looks(Forks, 4),
        ?assertEqual([{look, F, Looks} || F <- [F || F <- Planned, F < Forks] ++ [Forks]],
                     Asked),
        ?assert(Look =< Looks andalso Look =:= length(Asked), S)
    end}.

codes() ->
    [#{runner => "a.", label => <<"a">>}, #{runner => "b.", label => <<"b">>}].

%% A fork of codes a and b measuring nothing: every sample of fork I is 1000 + I (a) or
%% 500 + I (b), as a continuous run's reports have them.
fake_run(Codes, #{samples := Samples} = Opts) ->
    Fork = case get(fake_fork) of undefined -> 1; F -> F + 1 end,
    put(fake_fork, Fork),
    self() ! {fork, [L || #{label := L} <- Codes], Samples},
    [begin
         Value = case Label of <<"a">> -> 1000 + Fork; <<"b">> -> 500 + Fork end,
         #{label => Label, mode => continuous, concurrency => 1, sleep => sleep,
           run_options => Opts,
           result => #{values => lists:duplicate(Samples, Value),
                       samples => [Value * I || I <- lists:seq(0, Samples)], time => 1000,
                       overdue => 0}}
     end || #{label := Label} <- Codes].

forks_taken([#{result := #{values := Values}} | _]) ->
    length(Values) div 10.

%% No fork counted, no message of a test before (eunit may run tests in one process).
fresh() ->
    erase(fake_fork),
    _ = messages(fork) ++ messages(look),
    ok.

%% The messages of a kind received so far, oldest first.
messages(Tag) ->
    receive
        Message when element(1, Message) =:= Tag -> [Message | messages(Tag)]
    after 0 ->
        []
    end.

%% The first fork of a run discards a sample at least; the others as many as asked.
first_fork_warms_up_test() ->
    Warmups = fun (Opts) ->
                      fresh(),
                      Run = fun (Codes, #{warmup := W} = ForkOpts) ->
                                    self() ! {warmup, W},
                                    fake_run(Codes, ForkOpts)
                            end,
                      _ = erlperf_forks:run(codes(), ?OPTS(Opts#{samples => 6, forks => 3}), Run),
                      _ = messages(fork),
                      [W || {warmup, W} <- messages(warmup)]
              end,
    ?assertEqual([1, 0, 0], Warmups(#{warmup => 0})),
    ?assertEqual([3, 3, 3], Warmups(#{warmup => 3})).

%% Whether a run measures until decided, and for how long: `auto' only for a full
%% report of several codes (or one with a `decide' of its own) that nothing else fixes;
%% seconds given with what cannot go with them are an error.
budget_test_() ->
    Full = ?OPTS(#{report => full, budget => auto}),
    Decide = fun (_Reports, _Looks) -> true end,
    [?_assertEqual(undefined, erlperf_forks:budget(2, ?OPTS(#{}), #{}, undefined, runners)),
     ?_assertEqual(erlperf_options:auto_budget(runners),
                   erlperf_forks:budget(2, Full, #{}, undefined, runners)),
     ?_assertEqual(erlperf_options:auto_budget(against),
                   erlperf_forks:budget(2, Full, #{}, undefined, against)),
     ?_assertEqual(undefined, erlperf_forks:budget(1, Full, #{}, undefined, runners)),
     ?_assertEqual(erlperf_options:auto_budget(runners),
                   erlperf_forks:budget(1, Full#{decide => Decide}, #{}, undefined, runners)),
     ?_assertEqual(undefined, erlperf_forks:budget(2, Full, #{samples => 5}, undefined, runners)),
     ?_assertEqual(undefined,
                   erlperf_forks:budget(2, Full#{report => basic}, #{}, undefined, runners)),
     ?_assertEqual(undefined, erlperf_forks:budget(2, Full, #{forks => 3}, undefined, runners)),
     ?_assertEqual(undefined, erlperf_forks:budget(2, Full, #{}, #{}, runners)),
     ?_assertEqual(12, erlperf_forks:budget(2, Full#{budget => 12}, #{}, undefined, against)),
     ?_assertError({incompatible_options, budget, 12, samples},
                   erlperf_forks:budget(2, Full#{budget => 12}, #{samples => 5}, undefined,
                                        runners)),
     ?_assertError({incompatible_options, budget, 12, one_runner},
                   erlperf_forks:budget(1, Full#{budget => 12}, #{}, undefined, runners))].
