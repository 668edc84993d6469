%%% @doc Tests of erlperf_profile's pure parts: reading each tool's data into entries,
%%% ranking the top functions, naming functions, the tools of this release and the error
%%% texts. The tool data below is what the tools returned while profiling a worker
%%% looping over `lists:seq(1, 100)' (cut to a few functions; pids made up).
-module(erlperf_profile_tests).

-include_lib("eunit/include/eunit.hrl").

%%--------------------------------------------------------------------
%% Reading the tools' data

eprof_merges_processes_test() ->
    %% eprof:dump/0: per process, {MFA, {Calls, Microseconds}}
    Dump = [{list_to_pid("<0.79.0>"), [{{lists, seq_loop, 3}, {8273175, 916513}},
                                       {{lists, seq, 2}, {318199, 35815}}]},
            {list_to_pid("<0.80.0>"), [{{lists, seq, 2}, {1, 5}},
                                       {{erlperf_job_2, 'erlperf loop', 1}, {318199, 102856}}]}],
    ?assertEqual([{{erlperf_job_2, 'erlperf loop', 1}, 318199, 102856},
                  {{lists, seq, 2}, 318200, 35820},
                  {{lists, seq_loop, 3}, 8273175, 916513}],
                 erlperf_profile:from_eprof(Dump)).

fprof_analysis_test() ->
    %% file:consult/1 of an analysis written with {callers, false}, {details, false}:
    %% milliseconds, pseudo-functions `suspend' and `undefined' left out
    Terms = [{analysis_options, [{callers, false}, {sort, acc}, {totals, true}, {details, false}]},
             [{totals, 64056, 220.616, 219.041}],
             {{lists, seq_loop, 3}, 58793, 199.814, 193.807},
             {{erlperf_job_2, 'erlperf loop', 1}, 2261, 220.616, 12.555},
             {{lists, seq, 2}, 2261, 207.632, 7.91},
             {garbage_collect, 723, 4.769, 4.769},
             {undefined, 0, 0.0, 0.0},
             {suspend, 18, 1.575, 0.0}],
    Entries = erlperf_profile:from_fprof(Terms),
    %% in term order: atoms before tuples
    ?assertEqual([garbage_collect, {erlperf_job_2, 'erlperf loop', 1}, {lists, seq, 2},
                  {lists, seq_loop, 3}], [Fn || {Fn, _, _} <- Entries]),
    [?assert(abs(Us - Expected) < 1.0e-6, {Fn, Us})
     || {{Fn, _, Us}, Expected} <- lists:zip(Entries, [4769, 12555, 7910, 193807])],
    ?assertEqual([723, 2261, 2261, 58793], [C || {_, C, _} <- Entries]).

cprof_counts_only_test() ->
    Analysis = {43663115,
                [{lists, 42103710, [{{lists, seq_loop, 3}, 40544311}, {{lists, seq, 2}, 1559397},
                                    {{lists, keyfind, 3}, 2}]},
                 {timer, 1, [{{timer, sleep, 1}, 1}]}]},
    ?assertEqual([{{lists, keyfind, 3}, 2, undefined}, {{lists, seq, 2}, 1559397, undefined},
                  {{lists, seq_loop, 3}, 40544311, undefined}, {{timer, sleep, 1}, 1, undefined}],
                 erlperf_profile:from_cprof(Analysis)).

tprof_merges_processes_test() ->
    %% tprof:collect/0 with type => call_time: {M, F, A, [{Pid, Calls, Microseconds}]}
    Collected = {call_time, [{lists, seq_loop, 3, [{list_to_pid("<0.79.0>"), 100, 900},
                                                   {list_to_pid("<0.80.0>"), 50, 600}]},
                             {lists, seq, 2, [{list_to_pid("<0.79.0>"), 4, 40}]}]},
    ?assertEqual([{{lists, seq, 2}, 4, 40}, {{lists, seq_loop, 3}, 150, 1500}],
                 erlperf_profile:from_tprof(Collected)).

%%--------------------------------------------------------------------
%% Ranking

top_by_time_test() ->
    Entries = [{{a, f, 0}, 10, 100}, {{b, f, 0}, 1, 700}, {{c, f, 0}, 5, 200}, {{d, f, 0}, 0, 0}],
    {Calls, Us, Top} = erlperf_profile:top(Entries, 2),
    ?assertEqual({16, 1000}, {Calls, Us}),
    %% shares are of the total, not of the functions listed; unused functions left out
    ?assertEqual([#{mfa => {b, f, 0}, calls => 1, time_us => 700, percent => 70.0},
                  #{mfa => {c, f, 0}, calls => 5, time_us => 200, percent => 20.0}], Top).

top_ties_are_stable_test() ->
    %% same time: more calls first, then by name
    Entries = [{{z, f, 0}, 1, 50}, {{a, f, 0}, 1, 50}, {{m, f, 0}, 2, 50}],
    {_, _, Top} = erlperf_profile:top(Entries, 10),
    ?assertEqual([{m, f, 0}, {a, f, 0}, {z, f, 0}], [Fn || #{mfa := Fn} <- Top]).

top_by_calls_without_times_test() ->
    %% cprof: no times, so calls rank and share
    Entries = [{{a, f, 0}, 25, undefined}, {{b, f, 0}, 75, undefined}, {{c, f, 0}, 0, undefined}],
    ?assertEqual({100, undefined,
                  [#{mfa => {b, f, 0}, calls => 75, time_us => undefined, percent => 75.0},
                   #{mfa => {a, f, 0}, calls => 25, time_us => undefined, percent => 25.0}]},
                 erlperf_profile:top(Entries, 5)).

top_of_nothing_test() ->
    ?assertEqual({0, 0, []}, erlperf_profile:top([], 15)),
    %% a function taking time without a completed call still counts (fprof)
    ?assertMatch({0, 10, [#{mfa := garbage_collect, percent := 100.0}]},
                 erlperf_profile:top([{garbage_collect, 0, 10}], 15)).

top_real_eprof_test() ->
    %% the eprof dump above: lists:seq_loop/3 first, with most of the time
    Entries = erlperf_profile:from_eprof([{list_to_pid("<0.79.0>"),
                                          [{{lists, seq_loop, 3}, {8273175, 916513}},
                                           {{lists, seq, 2}, {318199, 35815}},
                                           {{erlperf_job_2, 'erlperf loop', 1}, {318199, 102856}}]}]),
    {_, 1055184, [First, Second, Third]} = erlperf_profile:top(Entries, 15),
    ?assertMatch(#{mfa := {lists, seq_loop, 3}, calls := 8273175}, First),
    ?assertEqual(100 * 916513 / 1055184, maps:get(percent, First)),
    ?assertMatch(#{mfa := {erlperf_job_2, 'erlperf loop', 1}}, Second),
    ?assertMatch(#{mfa := {lists, seq, 2}}, Third).

%%--------------------------------------------------------------------
%% Names, tools, errors

function_name_test_() ->
    [?_assertEqual("lists:seq_loop/3", erlperf_profile:function_name({lists, seq_loop, 3})),
     ?_assertEqual("erlperf_job_2:'erlperf loop'/1",
                   erlperf_profile:function_name({erlperf_job_2, 'erlperf loop', 1})),
     ?_assertEqual("'Elixir.Enum':map/2", erlperf_profile:function_name({'Elixir.Enum', map, 2})),
     ?_assertEqual("garbage_collect", erlperf_profile:function_name(garbage_collect))].

-if(?OTP_RELEASE >= 27).
tools_test() ->
    ?assertEqual([eprof, fprof, cprof, tprof], erlperf_profile:tools()),
    ?assertEqual("eprof, fprof, cprof or tprof", erlperf_profile:choices()).
-else.
tools_test() ->
    %% tprof is refused, saying why
    ?assertEqual([eprof, fprof, cprof], erlperf_profile:tools()),
    ?assertEqual("eprof, fprof or cprof (tprof needs OTP 27 or later; this is OTP "
                 ++ integer_to_list(?OTP_RELEASE) ++ ")", erlperf_profile:choices()),
    ?assertError({invalid_option, profile, tprof}, erlperf_profile:profile(tprof, self())).
-endif.

format_error_test_() ->
    Pid = list_to_pid("<0.80.0>"),
    [?_assertEqual("cannot profile with fprof: module dbg of OTP's runtime_tools application "
                   "cannot be loaded (some systems package it separately)",
                   erlperf_profile:format_error({profiler_missing, fprof, dbg})),
     ?_assertEqual("cannot profile with eprof: module eprof of OTP's tools application "
                   "cannot be loaded (some systems package it separately)",
                   erlperf_profile:format_error({profiler_missing, eprof, eprof})),
     ?_assertEqual("cannot profile with fprof: fprof is running already",
                   erlperf_profile:format_error({profiler_busy, fprof, {running, fprof_server}})),
     ?_assertEqual("cannot profile with eprof: another tool has set call_count trace patterns",
                   erlperf_profile:format_error({profiler_busy, eprof, {on_load, call_count}})),
     ?_assertEqual("cannot profile with fprof: process <0.80.0> is traced already "
                   "(one tracer per process)",
                   erlperf_profile:format_error({profiler_busy, fprof, {traced, Pid}})),
     ?_assertEqual("profiling with eprof failed: {error,badarg}",
                   erlperf_profile:format_error({profile_failed, eprof, {error, badarg}})),
     %% the facade hands these over
     ?_assertEqual("cannot profile with eprof: eprof is running already",
                   erlperf:format_error({profiler_busy, eprof, {running, eprof}})),
     ?_assertEqual("invalid value for option profile: bogus (the profilers are "
                   ++ erlperf_profile:choices() ++ ")",
                   erlperf:format_error({invalid_option, profile, bogus}))].
