%%% @doc Tests of erlperf_profile's pure parts: reading each tool's data into entries,
%%% ranking the top functions, naming functions, the tools of this release and the error
%%% texts. The tool data below is what the tools returned while profiling a profile
%%% worker of `lists:seq(1, 100)' (erlperf_job:profile_workers/2); cprof's is cut to a
%%% few modules.
-module(erlperf_profile_tests).

-include_lib("eunit/include/eunit.hrl").

%%--------------------------------------------------------------------
%% Reading the tools' data

%% eprof:dump/0 of one profile worker of `lists:seq(1, 100)', for a second.
eprof_dump() ->
    [{list_to_pid("<0.80.0>"),
      [{{lists, seq_loop, 3}, {3301218, 857340}},
       {{lists, seq, 2}, {126970, 41004}},
       {{erlperf_job_2, 'erlperf timed_loop', 1}, {126970, 229463}}]}].

eprof_test() ->
    ?assertEqual([{{erlperf_job_2, 'erlperf timed_loop', 1}, 126970, 229463},
                  {{lists, seq, 2}, 126970, 41004},
                  {{lists, seq_loop, 3}, 3301218, 857340}],
                 erlperf_profile:from_eprof(eprof_dump())).

eprof_merges_processes_test() ->
    %% two workers: their figures add up
    Second = [{list_to_pid("<0.81.0>"), [{{lists, seq, 2}, {30, 10}}]}],
    ?assertMatch([_, {{lists, seq, 2}, 127000, 41014}, _],
                 erlperf_profile:from_eprof(eprof_dump() ++ Second)).

%% file:consult/1 of fprof's analysis (written with {callers, false}, {details, false}) of
%% the same worker, for 200 ms: milliseconds.
fprof_analysis() ->
    [{analysis_options, [{callers, false}, {sort, acc}, {totals, true}, {details, false}]},
     [{totals, 35933, 231.33, 228.46}],
     {{erlperf_job_2, 'erlperf timed_loop', 1}, 1269, 231.33, 15.58},
     {{erlperf_job_2, 'erlperf timed', 3}, 0, 231.111, 0.0},
     {{lists, seq, 2}, 1268, 215.504, 7.575},
     {{lists, seq_loop, 3}, 32979, 208.148, 200.176},
     {garbage_collect, 407, 5.129, 5.129},
     {suspend, 10, 2.87, 0.0},
     {undefined, 0, 0.0, 0.0}].

fprof_test() ->
    %% microseconds of own time; pseudo-functions but garbage_collect left out; in term
    %% order (atoms before tuples)
    Entries = erlperf_profile:from_fprof(fprof_analysis()),
    ?assertEqual([garbage_collect, {erlperf_job_2, 'erlperf timed', 3},
                  {erlperf_job_2, 'erlperf timed_loop', 1}, {lists, seq, 2}, {lists, seq_loop, 3}],
                 [Fn || {Fn, _, _} <- Entries]),
    ?assertEqual([407, 0, 1269, 1268, 32979], [C || {_, C, _} <- Entries]),
    [?assert(abs(Us - Expected) < 1.0e-6, {Fn, Us})
     || {{Fn, _, Us}, Expected} <- lists:zip(Entries, [5129, 0, 15580, 7575, 200176])],
    %% the function neither called nor taking time is not listed; the total is fprof's
    {35923, Total, Top} = erlperf_profile:top(Entries, 15),
    ?assert(abs(Total - 228460) < 1.0e-6, Total),
    ?assertEqual([{lists, seq_loop, 3}, {erlperf_job_2, 'erlperf timed_loop', 1}, {lists, seq, 2},
                  garbage_collect], [Fn || #{mfa := Fn} <- Top]).

%% cprof:analyse/0 while the same worker ran for a second (the last modules are the
%% shell that started the count, and a profile session's: cprof counts every process;
%% the session's own calls are left out).
cprof_test() ->
    Analysis = {34818165,
                [{lists, 33574608, [{{lists, seq_loop, 3}, 32331091}, {{lists, seq, 2}, 1243504},
                                    {{lists, foldl_1, 3}, 6}, {{lists, foldl, 3}, 3},
                                    {{lists, reverse, 1}, 2}, {{lists, keyfind, 3}, 2}]},
                 {erlperf_job_2, 1243504, [{{erlperf_job_2, 'erlperf timed_loop', 1}, 1243504}]},
                 {erlang, 4, [{{erlang, trace_pattern, 3}, 2},
                              {{erlang, ensure_tracer_module_loaded, 2}, 2}]},
                 {erlperf_profile, 2, [{{erlperf_profile, collect, 2}, 1},
                                       {{erlperf_profile, watch, 4}, 1}]},
                 {timer, 1, [{{timer, sleep, 1}, 1}]}]},
    Entries = erlperf_profile:from_cprof(Analysis),
    ?assertEqual(10, length(Entries)),
    ?assert(lists:all(fun ({_, _, Time}) -> Time =:= undefined end, Entries)),
    {Calls, undefined, [First, Second, Third | _]} = erlperf_profile:top(Entries, 15),
    ?assertEqual(33574608 + 1243504 + 4 + 1, Calls),   % the modules kept, not erlperf_profile
    ?assertEqual(#{mfa => {lists, seq_loop, 3}, calls => 32331091, time_us => undefined,
                   percent => 100 * 32331091 / Calls}, First),
    %% same count: by name
    ?assertMatch([#{mfa := {erlperf_job_2, 'erlperf timed_loop', 1}}, #{mfa := {lists, seq, 2}}],
                 [Second, Third]).

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
    {3555158, 1127807, [First, Second, Third]} =
        erlperf_profile:top(erlperf_profile:from_eprof(eprof_dump()), 15),
    ?assertEqual(#{mfa => {lists, seq_loop, 3}, calls => 3301218, time_us => 857340,
                   percent => 100 * 857340 / 1127807}, First),
    ?assertMatch(#{mfa := {erlperf_job_2, 'erlperf timed_loop', 1}}, Second),
    ?assertMatch(#{mfa := {lists, seq, 2}}, Third).

%%--------------------------------------------------------------------
%% Names, tools, errors

function_name_test_() ->
    [?_assertEqual("lists:seq_loop/3", erlperf_units:function_name({lists, seq_loop, 3})),
     ?_assertEqual("erlperf_job_2:'erlperf loop'/1",
                   erlperf_units:function_name({erlperf_job_2, 'erlperf loop', 1})),
     ?_assertEqual("erlperf_job_2:'erlperf timed_loop'/1",
                   erlperf_units:function_name({erlperf_job_2, 'erlperf timed_loop', 1})),
     ?_assertEqual("'Elixir.Enum':map/2", erlperf_units:function_name({'Elixir.Enum', map, 2})),
     ?_assertEqual("garbage_collect", erlperf_units:function_name(garbage_collect))].

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
    ?assertError({invalid_option, profile, tprof}, erlperf_profile:profile(tprof, self(), 1)).
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
