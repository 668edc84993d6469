%%% @doc Tests of the `profile' run option (erlperf_profile) through the API: the report's
%%% profile for every tool this release has, every kind of runner and mode, isolation,
%%% and that nothing is left behind (trace patterns, tracers, servers, processes, files)
%%% after a run, a runner crashing mid-profile, or a caller exiting mid-profile.
%%%
%%% Every case is sequential: the tools set trace patterns on every function of the node,
%%% so two profiles at once would find the tracing busy (which `busy' tests).
-module(erlperf_profile_SUITE).

-include_lib("stdlib/include/assert.hrl").
-include_lib("common_test/include/ct.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).

-export([report_shape/0, report_shape/1, callables/0, callables/1,
         several_runners/0, several_runners/1, modes/0, modes/1, isolated/0, isolated/1,
         basic_result/0, basic_result/1, no_leftovers/0, no_leftovers/1,
         runner_crash/0, runner_crash/1, caller_exit/0, caller_exit/1, busy/0, busy/1,
         invalid/0, invalid/1, tprof/0, tprof/1]).

%% A short run: the profile takes its own time after it.
%% a function call, not a literal: OTP 27 warns of updates to a literal map
-define(FAST, (fast())).
%% How long cleanup checks wait for processes to exit (a bounded poll).
-define(SETTLE_MS, 5000).
%% Registered names of the tools' servers (fprof_server is fprof's; fprof starts dbg).
-define(SERVERS, [eprof, fprof_server, dbg, tprof]).

suite() ->
    [{timetrap, {seconds, 120}}].

all() ->
    [{group, profile}].

groups() ->
    [{profile, [], [report_shape, callables, several_runners, modes, isolated, basic_result,
                    no_leftovers, runner_crash, caller_exit, busy, invalid, tprof]}].

%% fprof's files go to a directory of the suite's own, checked empty afterwards.
init_per_suite(Config) ->
    Tmp = filename:join(?config(priv_dir, Config), "tmp"),
    ok = file:make_dir(Tmp),
    Old = os:getenv("TMPDIR"),
    true = os:putenv("TMPDIR", Tmp),
    [{tmp, Tmp}, {old_tmpdir, Old} | Config].

end_per_suite(Config) ->
    _ = case ?config(old_tmpdir, Config) of
            false -> os:unsetenv("TMPDIR");
            Old -> os:putenv("TMPDIR", Old)
        end,
    ok.

%%--------------------------------------------------------------------
%% Helpers

%% Short runs: one sample of 50 ms.
fast() -> #{sample_duration => 50, samples => 1}.

profile(Code, Tool) ->
    profile(Code, Tool, #{}).

profile(Code, Tool, Opts) ->
    [#{profile := Profile}] =
        erlperf:benchmark([Code], maps:merge(?FAST#{report => full, profile => Tool}, Opts), undefined),
    Profile.

names(#{functions := Functions}) ->
    [Fn || #{mfa := Fn} <- Functions].

has_function(Module, Name, Profile) ->
    lists:any(fun ({M, F, _}) -> M =:= Module andalso F =:= Name; (_) -> false end, names(Profile)).

%% Nothing of a profile is left: servers, patterns, tracers, temporary files, and the
%% processes and loaded modules are as before.
clean_check(Config) ->
    Before = lists:sort(processes()),
    fun () ->
            Settled = erlperf_test_lib:wait_for(fun () -> lists:sort(processes()) -- Before =:= [] end,
                                                ?SETTLE_MS),
            ?assert(Settled, {processes_left, lists:sort(processes()) -- Before}),
            ?assertEqual([], leftovers(Config))
    end.

leftovers(Config) ->
    [{server, S} || S <- ?SERVERS, whereis(S) =/= undefined]
        ++ [{on_load, P} || P <- [traced, call_count, call_time],
                            element(2, erlang:trace_info(on_load, P)) =/= false]
        ++ [{pattern, MFA} || MFA <- loaded_functions(), erlang:trace_info(MFA, all) =/= {all, false}]
        ++ [{tracer, P} || P <- processes(), has_tracer(P)]
        ++ [{session, S} || S <- trace_sessions(), S =/= {legacy, default}]
        ++ [{file, F} || F <- element(2, file:list_dir(?config(tmp, Config)))].

%% Trace sessions (OTP 27 and later; tprof traces in one of its own).
-if(?OTP_RELEASE >= 27).
trace_sessions() -> trace:session_info(all).
-else.
trace_sessions() -> [].
-endif.

loaded_functions() ->
    [{M, F, A} || {M, _} <- code:all_loaded(), {F, A} <- M:module_info(functions)].

has_tracer(Pid) ->
    case erlang:trace_info(Pid, tracer) of
        {tracer, []} -> false;
        undefined -> false;
        {tracer, _} -> true
    end.

%% Time tools: own time, most first; cprof: calls, most first.
assert_ranked(#{tool := cprof, functions := Functions}) ->
    Calls = [C || #{calls := C} <- Functions],
    ?assertEqual(lists:reverse(lists:sort(Calls)), Calls);
assert_ranked(#{functions := Functions}) ->
    Times = [T || #{time_us := T} <- Functions],
    ?assertEqual(lists:reverse(lists:sort(Times)), Times).

%%--------------------------------------------------------------------
%% Cases

report_shape() ->
    [{doc, "Every tool of this release: the full report's profile has its documented keys; "
           "lists:seq(1, 100) spends its time in lists:seq_loop/3, listed among the first"}].
report_shape(Config) when is_list(Config) ->
    [begin
         P = profile(#{runner => "lists:seq(1, 100)."}, Tool),
         #{tool := Tool, duration_ms := Ms, workers := 1, total_calls := Calls,
           total_us := TotalUs, functions := Functions} = P,
         %% tprof also watches allocation, and says for how long
         Memory = [memory_ms || Tool =:= tprof],
         ?assertEqual(lists:sort([tool, duration_ms, workers, total_calls, total_us, functions | Memory]),
                      lists:sort(maps:keys(P))),
         ?assert(Ms > 0 andalso Calls > 0, P),
         ?assert(length(Functions) > 0 andalso length(Functions) =< 15, P),
         [?assertEqual(lists:sort([mfa, calls, time_us, percent] ++ [bytes_per_call || Tool =:= tprof]),
                       lists:sort(maps:keys(F))) || F <- Functions],
         ?assert(lists:sum([Pct || #{percent := Pct} <- Functions]) =< 100.0001, P),
         ?assert(lists:member({lists, seq_loop, 3}, lists:sublist(names(P), 3)), P),
         assert_ranked(P),
         case Tool of
             cprof -> ?assertEqual(undefined, TotalUs);
             _ -> ?assert(TotalUs > 0, P)
         end
     end || Tool <- erlperf_profile:tools()].

callables() ->
    [{doc, "A fun, an {M, F, A} and source text with init_runner are profiled alike"}].
callables(Config) when is_list(Config) ->
    [?assert(lists:member({lists, seq_loop, 3}, names(P)), P)
     || P <- [profile(fun () -> lists:seq(1, 100) end, eprof),
              profile({lists, seq, [1, 100]}, eprof),
              profile(#{init_runner => "100.", runner => "r(N) -> lists:seq(1, N)."}, cprof)]].

several_runners() ->
    [{doc, "Several runners: each is profiled in turn, its own functions only"}].
several_runners(Config) when is_list(Config) ->
    [#{label := <<"lists:seq(1, 100).">>, profile := Seq},
     #{label := <<"lists:duplicate(100, a).">>, profile := Dup}] =
        erlperf:benchmark(["lists:seq(1, 100).", "lists:duplicate(100, a)."],
                          ?FAST#{report => full, profile => eprof}, undefined),
    ?assert(has_function(lists, seq_loop, Seq) andalso not has_function(lists, duplicate, Seq), Seq),
    ?assert(has_function(lists, duplicate, Dup) andalso not has_function(lists, seq_loop, Dup), Dup).

modes() ->
    [{doc, "Timed mode, interleaved comparison, more workers and concurrency estimation are profiled"}].
modes(Config) when is_list(Config) ->
    Timed = profile("lists:seq(1, 100).", cprof, #{sample_duration => {timed, 1000}}),
    ?assert(lists:member({lists, seq_loop, 3}, names(Timed)), Timed),
    [#{profile := A}, #{profile := B}] =
        erlperf:compare(["lists:seq(1, 100).", "lists:duplicate(100, a)."],
                        ?FAST#{report => full, compare => interleaved, profile => eprof}),
    ?assert(has_function(lists, seq_loop, A) andalso has_function(lists, duplicate, B), {A, B}),
    ?assertMatch(#{workers := 3}, profile("lists:seq(1, 100).", eprof, #{concurrency => 3})),
    #{concurrency := Best, profile := Squeezed} =
        erlperf:run("lists:seq(1, 100).", ?FAST#{report => full, profile => eprof}, #{max => 2}),
    ?assertEqual(Best, maps:get(workers, Squeezed)).

isolated() ->
    [{doc, "With isolation the profile is taken in the peer node and comes back in the report"}].
isolated(Config) when is_list(Config) ->
    P = profile("lists:seq(1, 100).", cprof, #{isolation => #{}}),
    ?assert(lists:member({lists, seq_loop, 3}, names(P)), P),
    ?assertEqual([], leftovers(Config)).

basic_result() ->
    [{doc, "The basic and extended results stay what they are: the profile is in the full report only"}].
basic_result(Config) when is_list(Config) ->
    ?assert(is_integer(erlperf:run("ok.", ?FAST#{profile => cprof}))).

no_leftovers() ->
    [{doc, "After a profiled run of each tool: no server, trace pattern, tracer, process or file left"}].
no_leftovers(Config) when is_list(Config) ->
    [begin
         Check = clean_check(Config),
         _ = erlperf:compare(["lists:seq(1, 10).", "ok."], ?FAST#{profile => Tool}),
         Check()
     end || Tool <- erlperf_profile:tools()].

runner_crash() ->
    [{doc, "A runner crashing once it is profiled raises {crashed, runner, _} like any runner crash, "
           "and the profile leaves nothing behind"}].
runner_crash(Config) when is_list(Config) ->
    %% traced (eprof, fprof), counted (cprof) or tprof running (from OTP 27 on it traces
    %% in a session of its own, which erlang:trace_info/2 does not show): crash
    Runner = "r() -> case {erlang:trace_info(self(), flags), erlang:trace_info({lists, seq, 2}, call_count), "
             "whereis(tprof)} of "
             "{{flags, []}, {call_count, false}, undefined} -> lists:seq(1, 10); _ -> erlang:error(profiled) end.",
    [begin
         Check = clean_check(Config),
         ?assertError({crashed, runner, {error, profiled, _}},
                      erlperf:run(Runner, ?FAST#{profile => Tool})),
         Check()
     end || Tool <- erlperf_profile:tools()].

caller_exit() ->
    [{doc, "A caller killed mid-profile: the profile session notices, stops the tool and cleans up"}].
caller_exit(Config) when is_list(Config) ->
    Name = caller_exit_test,
    true = register(Name, self()),
    %% the runner tells the case once it is traced, once
    Runner = lists:flatten(io_lib:format(
        "r() -> case erlang:trace_info(self(), flags) of {flags, []} -> ok; "
        "_ -> persistent_term:get(~w, false) orelse begin persistent_term:put(~w, true), ~w ! traced end end.",
        [Name, Name, Name])),
    [begin
         Check = clean_check(Config),
         {Caller, Mon} = spawn_monitor(fun () -> erlperf:run(Runner, ?FAST#{profile => Tool}) end),
         receive traced -> ok end,
         exit(Caller, kill),
         receive {'DOWN', Mon, process, Caller, killed} -> ok end,
         ?assert(erlperf_test_lib:wait_for(fun () -> leftovers(Config) =:= [] end, ?SETTLE_MS),
                 leftovers(Config)),
         Check(),
         persistent_term:erase(Name)
     end || Tool <- [eprof, fprof]],
    true = unregister(Name).

busy() ->
    [{doc, "Tracing in use: a tool's server running, patterns set for modules to load, a traced "
           "process (fprof only: it turns all tracing off) refuse to start with a clear error"}].
busy(Config) when is_list(Config) ->
    Check = clean_check(Config),
    {ok, Eprof} = eprof:start(),
    ?assertError({profiler_busy, cprof, {running, eprof}}, erlperf:run("ok.", ?FAST#{profile => cprof})),
    ?assertEqual(Eprof, whereis(eprof)),
    stopped = eprof:stop(),
    _ = erlang:trace_pattern(on_load, true, [call_count]),
    ?assertError({profiler_busy, eprof, {on_load, call_count}}, erlperf:run("ok.", ?FAST#{profile => eprof})),
    _ = erlang:trace_pattern(on_load, false, [call_count]),
    %% a process traced by this case: fprof refuses, eprof profiles and leaves it traced
    Traced = spawn_link(fun () -> receive stop -> ok end end),
    1 = erlang:trace(Traced, true, ['receive']),
    ?assertError({profiler_busy, fprof, {traced, Traced}}, erlperf:run("ok.", ?FAST#{profile => fprof})),
    _ = profile("lists:seq(1, 10).", eprof),
    ?assertEqual({flags, ['receive']}, erlang:trace_info(Traced, flags)),
    1 = erlang:trace(Traced, false, [all]),
    unlink(Traced),
    Traced ! stop,
    flush_trace(Traced),
    Check().

flush_trace(Pid) ->
    receive {trace, Pid, _, _} -> flush_trace(Pid)
    after 0 -> ok
    end.

invalid() ->
    [{doc, "A tool that does not exist, profile with nodes: errors before anything runs"}].
invalid(Config) when is_list(Config) ->
    ?assertError({invalid_option, profile, bogus}, erlperf:run("ok.", #{profile => bogus})),
    ?assertError({invalid_option, profile, "eprof"}, erlperf:run("ok.", #{profile => "eprof"})),
    %% refused before connecting to any node
    ?assertError({incompatible_options, profile, eprof, nodes},
                 erlperf:run("ok.", #{profile => eprof, nodes => ['nowhere@nohost']})),
    ?assertEqual("profile (eprof) cannot be combined with nodes: a profile is of one node's workers",
                 erlperf:format_error({incompatible_options, profile, eprof, nodes})).

tprof() ->
    [{doc, "tprof: profiled on OTP 27 and later, refused with the reason before"}].
tprof(Config) when is_list(Config) ->
    case lists:member(tprof, erlperf_profile:tools()) of
        true ->
            P = profile("lists:seq(1, 100).", tprof),
            ?assert(lists:member({lists, seq_loop, 3}, names(P)), P),
            ?assertMatch(#{memory_ms := 500}, P),
            %% heap bytes: what lists:seq/2 allocates per call, from its helper's bytes per
            %% call and calls per call of lists:seq/2: 100 cons cells, 1600 bytes
            #{functions := Functions} = P,
            [#{calls := LoopCalls, bytes_per_call := LoopBytes}] =
                [F || #{mfa := {lists, seq_loop, 3}} = F <- Functions],
            [#{calls := SeqCalls, bytes_per_call := SeqBytes}] =
                [F || #{mfa := {lists, seq, 2}} = F <- Functions],
            %% lists:seq/2 allocates nothing itself: its helper does (tprof attributed a
            %% stray word to it once in a run on OTP 29, 0.012 bytes a call)
            ?assert(SeqBytes < 1.0, SeqBytes),
            PerSeq = LoopBytes * LoopCalls / SeqCalls,
            ?assert(abs(PerSeq - 1600) =< 80, {PerSeq, P}),
            ?assertEqual([], leftovers(Config));
        false ->
            ?assertError({invalid_option, profile, tprof}, erlperf:run("ok.", #{profile => tprof})),
            Text = erlperf:format_error({invalid_option, profile, tprof}),
            ?assertNotEqual(nomatch, string:find(Text, "tprof needs OTP 27 or later"), Text)
    end.
