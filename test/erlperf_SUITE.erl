%%% @doc Tests of the `erlperf' API: callables, modes, options, errors and reliability.
%%%
%%% Groups:
%%% <ul>
%%%   <li>`callables' (parallel): every callable form x runner arity x init/init_runner/done
%%%       combination; the roles record what they received in a named public ets table.</li>
%%%   <li>`errors' (parallel): rejected code, options and `format_error/1'.</li>
%%%   <li>`modes' (sequential, they measure): continuous, timed, concurrency estimation,
%%%       compare, benchmark, time and the run options.</li>
%%%   <li>`reliability' (sequential): crashes, hanging runners, leaks, 100,000 workers.</li>
%%%   <li>`application': `start/2' (needs the application).</li>
%%%   <li>`memory' (sequential): `memory => true', the cost per call in `result.cost'.</li>
%%%   <li>`sweep' (sequential): `sweep/2,3', parameters bound in source text.</li>
%%%   <li>`latency' (sequential): `latency => true', calls timed one by one in
%%%       `result.latency'.</li>
%%% </ul>
-module(erlperf_SUITE).

-include_lib("stdlib/include/assert.hrl").
-include_lib("common_test/include/ct.hrl").

%% common_test callbacks
-export([suite/0, all/0, groups/0, init_per_group/2, end_per_group/2,
         init_per_testcase/2, end_per_testcase/2]).

%% Case documentation (Common Test reads Case() -> [{doc, ...}]).
-export([form_bare/0, form_clauses/0, form_fun/0, form_mfa/0, form_replay/0, mixed_forms/0,
         clause_name_and_helpers/0, mfa_non_literal_args/0, label_option/0,
         runner1_without_init_runner/0, runner2_without_init_runner/0, runner_arity3/0,
         init_runner1_without_init/0, done1_without_init/0, init_arity1/0,
         rejected_before_start/0, parse_error/0, parse_error_multiline/0, missing_dot/0,
         scan_error/0, compile_error/0, compile_error_role_line/0, bad_callable/0,
         dead_code_warning/0, invalid_run_options/0, invalid_concurrency_options/0,
         format_error_shapes/0, format_error_pg2/0, continuous_basic/0, continuous_extended/0,
         continuous_full/0, timed_basic/0, timed_full/0, sleep_plausible/0,
         concurrency_doubles/0, squeeze_basic/0, squeeze_serialised/0, squeeze_max/0,
         squeeze_threshold/0, squeeze_full/0, squeeze_extended/0, compare/0, compare_one/0,
         benchmark_several/0, benchmark_several_squeeze/0, time/0, run_mfa/0, warmup/0, cv_met/0,
         cv_always_ends/0, cv_timed/0, samples_one/0, priority/0, progress/0,
         progress_concurrency/0, runner_crash/0, stopping_code/0, runner_erases_state/0, runner_crash_classes/0,
         runner_crash_later/0, init_crash/0, init_runner_crash/0, done_crash/0, crash_named/0, hanging_runner/0,
         no_leak_success/0, no_leak_failures/0, no_leak_timed_and_squeeze/0, no_files_written/0,
         workers_100k/0, start_job/0]).

%% Callables given as {M, F, A} by the cases below.
-export([cb/2]).

%% callables
-export([form_bare/1, form_clauses/1, form_fun/1, form_mfa/1, form_replay/1,
         mixed_forms/1, clause_name_and_helpers/1, mfa_non_literal_args/1,
         label_option/1]).
%% errors
-export([runner1_without_init_runner/1, runner2_without_init_runner/1, runner_arity3/1,
         init_runner1_without_init/1, done1_without_init/1, init_arity1/1,
         rejected_before_start/1, parse_error/1, parse_error_multiline/1,
         missing_dot/1, scan_error/1, compile_error/1, compile_error_role_line/1,
         bad_callable/1, dead_code_warning/1, invalid_run_options/1,
         invalid_concurrency_options/1, format_error_shapes/1, format_error_pg2/1]).
%% modes
-export([continuous_basic/1, continuous_extended/1, continuous_full/1, timed_basic/1,
         timed_full/1, sleep_plausible/1, concurrency_doubles/1, squeeze_basic/1,
         squeeze_serialised/1, squeeze_max/1, squeeze_threshold/1, squeeze_full/1,
         squeeze_extended/1, compare/1, compare_one/1, benchmark_several/1,
         benchmark_several_squeeze/1, time/1, run_mfa/1, warmup/1, cv_met/1,
         cv_always_ends/1, cv_timed/1, samples_one/1, priority/1, progress/1,
         progress_concurrency/1]).
%% reliability
-export([runner_crash/1, stopping_code/1, runner_crash_classes/1, runner_crash_later/1, runner_erases_state/1,
         init_crash/1,
         init_runner_crash/1, done_crash/1, crash_named/1, hanging_runner/1, no_leak_success/1,
         no_leak_failures/1, no_leak_timed_and_squeeze/1, no_files_written/1,
         workers_100k/1]).
%% application
-export([start_job/1]).

%% Test cases: erlperf 2.3's documented behaviour
-export([legacy_timed/0, legacy_timed/1, compare_parallel/0, compare_parallel/1,
         compare_sequential/0, compare_sequential/1, invalid_compare/0, invalid_compare/1,
         overdue_reported/0, overdue_reported/1, compare_interleaved/0, compare_interleaved/1,
         interleaved_timed/0, interleaved_timed/1]).

%% Test cases: evidence (intervals, outliers, verdicts)
-export([evidence_one/0, evidence_one/1, verdict_parallel/0, verdict_parallel/1,
         verdict_sequential_timed/0, verdict_sequential_timed/1, confidence_option/0,
         confidence_option/1]).

%% Test cases: cost per call (memory => true)
-export([memory_seq/0, memory_seq/1, memory_ok/0, memory_ok/1, memory_tuple/0, memory_tuple/1,
         memory_runner1/0, memory_runner1/1, memory_runner2/0, memory_runner2/1,
         memory_fun/0, memory_fun/1, memory_timed/0, memory_timed/1,
         memory_gc_retry/0, memory_gc_retry/1, memory_off/0, memory_off/1,
         memory_crash/0, memory_crash/1, memory_no_leak/0, memory_no_leak/1,
         memory_method/0, memory_method/1, memory_methods_agree/0, memory_methods_agree/1,
         memory_traced_removed/0, memory_traced_removed/1]).

%% Test cases: parameter sweeps (sweep/2,3)
-export([sweep_runs/0, sweep_runs/1, sweep_two_params/0, sweep_two_params/1,
         sweep_compare/0, sweep_compare/1, sweep_timed_bytes/0, sweep_timed_bytes/1,
         sweep_squeeze/0, sweep_squeeze/1, sweep_isolated/0, sweep_isolated/1,
         sweep_errors/0, sweep_errors/1, sweep_bindings/0, sweep_bindings/1]).
%% Test cases: per-call latency (latency => true)
-export([latency_full/0, latency_full/1, latency_fast/0, latency_fast/1,
         latency_callables/0, latency_callables/1, latency_runner1/0, latency_runner1/1,
         latency_runner2/0, latency_runner2/1, latency_compare/0, latency_compare/1,
         latency_with_memory/0, latency_with_memory/1, latency_off/0, latency_off/1,
         latency_crash/0, latency_crash/1, latency_unfinished/0, latency_unfinished/1,
         latency_no_leak/0, latency_no_leak/1]).

%% Short samples keep the suite fast; cases that need more say so.
%% a function call, not a literal: OTP 27 warns of updates to a literal map
-define(FAST, (fast())).
-define(SHORT_MS, 100).
%% How long leak checks wait for processes to exit (the wait ends as soon as they have).
-define(SETTLE_MS, 10000).
%% Samples of runs that a crash must end: far longer than stopping a job takes, so that
%% a run that ends before its first sample ended because of the crash.
-define(LONG_SAMPLE_MS, 60000).
%% Calls of the timed runs that check the calls a runner gets.
-define(TIMED_CALLS, 3).
%% Microseconds the serialised server works per request: far above message passing costs.
-define(SERVER_WORK_US, 50).

%%--------------------------------------------------------------------
%% common_test callbacks

suite() ->
    [{timetrap, {seconds, 120}}].

all() ->
    [{group, callables}, {group, errors}, {group, modes}, {group, reliability},
     {group, application}, {group, compat}, {group, evidence}, {group, memory}, {group, sweep},
     {group, latency}].

groups() ->
    [{callables, [parallel],
      [form_bare, form_clauses, form_fun, form_mfa, form_replay, mixed_forms,
       clause_name_and_helpers, mfa_non_literal_args, label_option]},
     {errors, [parallel],
      [runner1_without_init_runner, runner2_without_init_runner, runner_arity3,
       init_runner1_without_init, done1_without_init, init_arity1, rejected_before_start,
       parse_error, parse_error_multiline, missing_dot, scan_error, compile_error,
       compile_error_role_line, bad_callable, dead_code_warning, invalid_run_options,
       invalid_concurrency_options, format_error_shapes, format_error_pg2]},
     {modes, [],
      [continuous_basic, continuous_extended, continuous_full, timed_basic, timed_full,
       sleep_plausible, concurrency_doubles, squeeze_basic, squeeze_serialised, squeeze_max,
       squeeze_threshold, squeeze_full, squeeze_extended, compare, compare_one,
       benchmark_several, benchmark_several_squeeze, time, run_mfa, warmup, cv_met,
       cv_always_ends, cv_timed, samples_one, priority, progress, progress_concurrency]},
     {reliability, [],
      [runner_crash, stopping_code, runner_crash_classes, runner_crash_later, runner_erases_state, init_crash,
       init_runner_crash,
       done_crash, crash_named, hanging_runner, no_leak_success, no_leak_failures,
       no_leak_timed_and_squeeze, no_files_written, workers_100k]},
     {application, [], [start_job]},
     {compat, [], [legacy_timed, compare_parallel, compare_sequential, invalid_compare,
                   overdue_reported, compare_interleaved, interleaved_timed]},
     {evidence, [], [evidence_one, verdict_parallel, verdict_sequential_timed, confidence_option]},
     {memory, [], [memory_seq, memory_ok, memory_tuple, memory_runner1, memory_runner2, memory_fun,
                    memory_timed, memory_gc_retry, memory_off, memory_crash, memory_no_leak,
                   memory_method, memory_methods_agree, memory_traced_removed]},
     {sweep, [], [sweep_runs, sweep_two_params, sweep_compare, sweep_timed_bytes, sweep_squeeze,
                  sweep_isolated, sweep_errors, sweep_bindings]},
     {latency, [], [latency_full, latency_fast, latency_callables, latency_runner1, latency_runner2,
                    latency_compare, latency_with_memory, latency_off, latency_crash,
                    latency_unfinished, latency_no_leak]}].

init_per_group(application, Config) ->
    case code:which(erlperf_app) =/= non_existing andalso code:which(erlperf_job_sup) =/= non_existing of
        true ->
            {ok, Started} = application:ensure_all_started(erlperf),
            [{started, Started} | Config];
        false ->
            {skip, "erlperf_app/erlperf_job_sup not built yet: start/2 needs the application"}
    end;
init_per_group(_Group, Config) ->
    Config.

end_per_group(application, Config) ->
    _ = [application:stop(App) || App <- lists:reverse(proplists:get_value(started, Config, []))],
    ok;
end_per_group(_Group, _Config) ->
    no_modules_left().

init_per_testcase(_Case, Config) ->
    Config.

%% Every sequential case must leave no generated module behind; cases of a parallel
%% group are checked together, at the end of the group.
end_per_testcase(_Case, Config) ->
    case lists:member(parallel, proplists:get_value(tc_group_properties, Config, [])) of
        true -> ok;
        false -> no_modules_left()
    end.

no_modules_left() ->
    case erlperf_test_lib:wait_for(fun () -> job_modules() =:= [] end, ?SETTLE_MS) of
        true -> ok;
        false -> {fail, {modules_left, job_modules()}}
    end.

%%--------------------------------------------------------------------
%% Callables: the matrix
%%
%% Every role records what it received in a public named ets table T:
%%   init          -> {init, none, ControllerPid}, returns 1000
%%   init_runner/0 -> {init_runner, none, WorkerPid}, returns 1001
%%   init_runner/1 -> {init_runner, 1000, WorkerPid} (crashes unless given 1000), returns 1001
%%   runner/0      -> bumps `calls'
%%   runner/1      -> crashes unless given 1001, bumps `calls'
%%   runner/2      -> crashes unless given 1001 and State =:= 1000 + calls so far, returns State + 1
%%   done/0, /1    -> {done, none | 1000, ControllerPid}
%% A crash makes the run raise, so a wrong argument fails the case.

form_bare() ->
    [{doc, "Bare expressions for every role (arity 0 only)."}].
form_bare(Config) when is_list(Config) ->
    matrix(fun (_Role, _Arity) -> bare end).

form_clauses() ->
    [{doc, "Function clauses with helpers, every arity and combination."}].
form_clauses(Config) when is_list(Config) ->
    matrix(fun (_Role, _Arity) -> clauses end).

form_fun() ->
    [{doc, "Funs, every arity and combination."}].
form_fun(Config) when is_list(Config) ->
    matrix(fun (_Role, _Arity) -> 'fun' end).

form_mfa() ->
    [{doc, "{M, F, A} for every role (arity 0 only)."}].
form_mfa(Config) when is_list(Config) ->
    matrix(fun (_Role, _Arity) -> mfa end).

form_replay() ->
    [{doc, "[{M, F, A}] replay for every role (arity 0 only)."}].
form_replay(Config) when is_list(Config) ->
    matrix(fun (_Role, _Arity) -> replay end).

mixed_forms() ->
    [{doc, "Roles of one job given in different forms, every combination."}].
mixed_forms(Config) when is_list(Config) ->
    %% rotate the forms over the roles, so that each role meets each form
    Forms = [bare, clauses, 'fun', mfa, replay],
    [matrix(fun (Role, Arity) ->
                 Pos = (index(Role) + Shift) rem length(Forms),
                 case lists:nth(Pos + 1, Forms) of
                     F when Arity > 0, F =/= clauses -> 'fun';
                     F -> F
                 end
             end) || Shift <- lists:seq(0, length(Forms) - 1)],
    ok.

clause_name_and_helpers() ->
    [{doc, "Several clauses, any entry name, helpers with clashing names in each role: each role "
           "gets its right arguments (a timed run makes exactly the calls asked for)."}].
clause_name_and_helpers(Config) when is_list(Config) ->
    T = new_table(),
    Code = #{init => src("whatever_name() -> helper(2). helper(X) -> X * 500.", T),
             init_runner => src("the_setup(N) when N > 0 -> helper(N); the_setup(_) -> erlang:error(neg).\n"
                                "helper(N) -> N + 1.", T),
             runner => src("loop_body(1001, Acc) -> helper(Acc, 1);\n"
                           "loop_body(_, _) -> erlang:error(bad_init).\n"
                           "helper(Acc, Inc) -> ets:update_counter(~w, calls, Inc), Acc + Inc.", T)},
    Result = erlperf:run(Code, ?FAST),
    ?assert(is_integer(Result) andalso Result >= 0, Result),
    %% timed mode makes exactly the calls asked for: each got its right arguments
    true = ets:insert(T, {calls, 0}),
    ?assert(is_integer(erlperf:run(Code, #{sample_duration => {timed, ?TIMED_CALLS}, samples => 1}))),
    ?assertEqual(?TIMED_CALLS, ets:lookup_element(T, calls, 2)).

mfa_non_literal_args() ->
    [{doc, "{M, F, A} whose arguments are not literals (a pid) runs, or is rejected as bad code."}].
mfa_non_literal_args(Config) when is_list(Config) ->
    Result = try erlperf:run({erlang, is_process_alive, [self()]}, ?FAST)
             catch error:Reason -> {error, Reason}
             end,
    ?assertMatch(R when is_integer(R) orelse
                        element(1, R) =:= error andalso
                        element(1, element(2, R)) =:= bad_code, Result).

label_option() ->
    [{doc, "The label key names the job in the full report; default is the runner text."}].
label_option(Config) when is_list(Config) ->
    ?assertMatch(#{label := <<"my job">>},
                 erlperf:run(#{runner => "ok.", label => "my job"}, ?FAST#{report => full})),
    ?assertMatch(#{label := <<"erlang:phash2(1).">>},
                 erlperf:run(<<"erlang:phash2(1).">>, ?FAST#{report => full})).

%%--------------------------------------------------------------------
%% Errors

runner1_without_init_runner() ->
    [{doc, "runner/1 without init_runner is rejected, for source and fun."}].
runner1_without_init_runner(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, runner, {arity, 1, _}},
                     erlperf:run(#{runner => "r(X) -> X."}, ?FAST)),
    ?assertException(error, {bad_code, runner, {arity, 1, _}},
                     erlperf:run(#{runner => fun (X) -> X end, init => "1."}, ?FAST)).

runner2_without_init_runner() ->
    [{doc, "runner/2 without init_runner is rejected."}].
runner2_without_init_runner(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, runner, {arity, 2, _}},
                     erlperf:run(fun (_, S) -> S end, ?FAST)),
    ?assertException(error, {bad_code, runner, {arity, 2, _}},
                     erlperf:run("r(_, S) -> S.", ?FAST)).

runner_arity3() ->
    [{doc, "A runner of arity 3 is rejected, even with init_runner."}].
runner_arity3(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, runner, {arity, 3, _}},
                     erlperf:run(#{runner => "r(A, B, C) -> {A, B, C}.", init_runner => "1."}, ?FAST)),
    ?assertException(error, {bad_code, runner, {arity, 3, _}},
                     erlperf:run(#{runner => fun (A, B, C) -> {A, B, C} end, init_runner => "1."}, ?FAST)).

init_runner1_without_init() ->
    [{doc, "init_runner/1 without init is rejected."}].
init_runner1_without_init(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, init_runner, {arity, 1, _}},
                     erlperf:run(#{runner => "ok.", init_runner => "ir(X) -> X."}, ?FAST)),
    ?assertException(error, {bad_code, init_runner, {arity, 1, _}},
                     erlperf:run(#{runner => "ok.", init_runner => fun (X) -> X end}, ?FAST)).

done1_without_init() ->
    [{doc, "done/1 without init is rejected."}].
done1_without_init(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, done, {arity, 1, _}},
                     erlperf:run(#{runner => "ok.", done => "d(X) -> X."}, ?FAST)),
    ?assertException(error, {bad_code, done, {arity, 1, _}},
                     erlperf:run(#{runner => "ok.", done => fun (X) -> X end}, ?FAST)).

init_arity1() ->
    [{doc, "init takes no arguments."}].
init_arity1(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, init, {arity, 1, _}},
                     erlperf:run(#{runner => "ok.", init => fun (X) -> X end}, ?FAST)).

rejected_before_start() ->
    [{doc, "Rejected code starts nothing: init never runs, no process, no module."}].
rejected_before_start(Config) when is_list(Config) ->
    Self = self(),
    Init = fun () -> Self ! init_ran end,
    Bad = [#{init => Init, runner => fun (X) -> X end},
           #{init => Init, runner => "r(A, B, C) -> {A, B, C}.", init_runner => "1."},
           #{init => Init, runner => "ok.", done => 42},
           #{init => Init, runner => "foo(."}],
    [?assertException(error, {bad_code, _, _}, erlperf:run(Code, ?FAST)) || Code <- Bad],
    receive init_ran -> ct:fail(init_ran) after 0 -> ok end,
    %% a good job afterwards still works (the inits above did not run either)
    ?assert(erlperf:run(#{init => Init, runner => "ok."}, ?FAST) >= 0),
    receive init_ran -> ok after 0 -> ct:fail(init_not_run) end.

parse_error() ->
    [{doc, "A syntax error gives line and column."}].
parse_error(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, runner, {parse, 1, 5, "syntax error before: '.'"}},
                     erlperf:run("foo(.", ?FAST)).

parse_error_multiline() ->
    [{doc, "Line and column count from the start of the role's text."}].
parse_error_multiline(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, runner, {parse, 2, 7, _}},
                     erlperf:run("ok,\n  foo(.", ?FAST)),
    ?assertException(error, {bad_code, init, {parse, 3, 1, _}},
                     erlperf:run(#{runner => "ok.", init => "i() ->\n  ok\n)."}, ?FAST)).

missing_dot() ->
    [{doc, "Source without the final period is a parse error at the last token."}].
missing_dot(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, runner, {parse, 1, 14, _}},
                     erlperf:run("rand:uniform()", ?FAST)).

scan_error() ->
    [{doc, "A scanner error (unterminated string) is a parse error with a location."}].
scan_error(Config) when is_list(Config) ->
    %% the column is the scanner's (the quote up to OTP 28, the next character from 29)
    Error = try erlperf:run("\"abc.", ?FAST), no_error
            catch error:Reason -> Reason
            end,
    ?assertMatch({bad_code, runner, {parse, 1, Column, "unterminated string" ++ _}}
                   when Column >= 1, Error).

compile_error() ->
    [{doc, "A compile error gives line and column of the role's text."}].
compile_error(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, runner, {compile, [{1, 8, "variable 'Y' is unbound"}]}},
                     erlperf:run("r() -> Y.", ?FAST)),
    ?assertException(error, {bad_code, runner, {compile, [{2, 5, "variable 'Y' is unbound"}]}},
                     erlperf:run("r() ->\n    Y.", ?FAST)).

compile_error_role_line() ->
    [{doc, "A compile error in init names init, with its own line numbers; a bare expression's error is reported once."}].
compile_error_role_line(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, init, {compile, [{2, 3, "variable 'Z' is unbound"}]}},
                     erlperf:run(#{runner => "ok.", init => "i() ->\n  Z."}, ?FAST)),
    %% the runner expression is inlined into two loops; the user wrote one error
    ?assertException(error, {bad_code, runner, {compile, [{1, 1, "variable 'X' is unbound"}]}},
                     erlperf:run("X + 1.", ?FAST)).

bad_callable() ->
    [{doc, "Something that is not a callable is rejected as bad_callable."}].
bad_callable(Config) when is_list(Config) ->
    ?assertException(error, {bad_code, runner, {bad_callable, 42}}, erlperf:run(42, ?FAST)),
    ?assertException(error, {bad_code, init, {bad_callable, {1, 2}}},
                     erlperf:run(#{runner => "ok.", init => {1, 2}}, ?FAST)),
    ?assertException(error, {invalid_option, code, #{init := "ok."}},
                     erlperf:run(#{init => "ok."}, ?FAST)).

dead_code_warning() ->
    [{doc, "A runner the compiler removes is flagged dead_code; a real call is not."}].
dead_code_warning(Config) when is_list(Config) ->
    Warnings = fun (Code) -> maps:get(warnings, erlperf:run(Code, ?FAST#{report => full})) end,
    ?assertEqual([{dead_code, runner}], Warnings("erlang:node().")),
    ?assertEqual([{dead_code, runner}], Warnings("ok.")),
    ?assertEqual([], Warnings("erlang:phash2(1).")),
    ?assertEqual([], Warnings({erlang, phash2, [1]})).

invalid_run_options() ->
    [{doc, "Each bad run option raises {invalid_option, Key, Value} before starting."}].
invalid_run_options(Config) when is_list(Config) ->
    Bad = [{concurrency, 0}, {concurrency, two}, {samples, 0}, {samples, 1.5},
           {sample_duration, 0}, {sample_duration, {timed, 0}}, {sample_duration, {other, 1}},
           {warmup, -1}, {cv, 0}, {cv, -0.1}, {cv, high}, {report, short}, {priority, urgent},
           {progress, fun (_, _) -> ok end}, {nodes, []}, {no_such_option, 1}],
    [?assertException(error, {invalid_option, Key, Value}, erlperf:run("ok.", #{Key => Value}))
     || {Key, Value} <- Bad],
    ?assertException(error, {invalid_option, run_options, [samples]}, erlperf:run("ok.", [samples])).

invalid_concurrency_options() ->
    [{doc, "Each bad concurrency option raises {invalid_option, Key, Value}."}].
invalid_concurrency_options(Config) when is_list(Config) ->
    Bad = [{min, 0}, {step, 0}, {max, 0}, {threshold, 0}, {threshold, 1.0}, {other, 1}],
    [?assertException(error, {invalid_option, Key, Value}, erlperf:run("ok.", ?FAST, #{Key => Value}))
     || {Key, Value} <- Bad],
    ?assertException(error, {invalid_option, max, 2}, erlperf:run("ok.", ?FAST, #{min => 3, max => 2})).

format_error_shapes() ->
    [{doc, "format_error/1 renders every reason shape as one line."}].
format_error_shapes(Config) when is_list(Config) ->
    Reasons = [{invalid_option, samples, 0},
               {bad_code, runner, {parse, 1, 5, "syntax error before: '.'"}},
               {bad_code, init, {compile, [{2, 3, "variable 'Z' is unbound"}]}},
               {bad_code, runner, {arity, 3, "a runner takes 0, 1 or 2 arguments"}},
               {bad_code, runner, {bad_callable, 42}},
               {crashed, runner, {error, badarg, [{erlang, atom_to_list, [1], []}]}},
               {crashed, init, {throw, oops, []}},
               {crashed, done, {exit, {deep, [nested, "text\nwith newline"]}, []}},
               {something, unexpected}],
    [begin
         Text = erlperf:format_error(R),
         ?assert(io_lib:printable_unicode_list(Text), {R, Text}),
         ?assertEqual(nomatch, string:find(Text, "\n"), {R, Text}),
         ?assert(length(Text) > 5, {R, Text})
     end || R <- Reasons],
    ?assertNotEqual(nomatch, string:find(erlperf:format_error(hd(Reasons)), "samples")),
    ?assertNotEqual(nomatch, string:find(erlperf:format_error(lists:nth(2, Reasons)), "line 1")),
    ?assertNotEqual(nomatch, string:find(erlperf:format_error(lists:nth(2, Reasons)), "column 5")),
    ?assertNotEqual(nomatch, string:find(erlperf:format_error(lists:nth(3, Reasons)), "init")),
    ?assertNotEqual(nomatch, string:find(erlperf:format_error(lists:nth(6, Reasons)), "badarg")),
    %% Elixir's: an exception by its name and message (its module not loaded here: the
    %% struct's message field), a missing module in Elixir's notation with Mix's remedy
    Raised = #{'__exception__' => true, '__struct__' => 'Elixir.RuntimeError', message => <<"boom">>},
    ?assertEqual("runner of 'j' crashed: RuntimeError: boom",
                 erlperf:format_error({crashed, {runner, <<"j">>}, {error, Raised, []}})),
    Odd = #{'__exception__' => true, '__struct__' => 'Elixir.Odd', reason => 42},
    ?assertEqual("runner crashed: Odd: #{reason => 42}",
                 erlperf:format_error({crashed, runner, {error, Odd, []}})),
    Missing = erlperf:format_error({crashed, runner, {error, undef, [{'Elixir.No.Such', f, [1], []}]}}),
    ?assertEqual("runner crashed: undefined function No.Such.f/1 (module No.Such is not available: "
                 "compile it with mix compile, or add the dependency that has it to mix.exs)", Missing),
    ?assertNotEqual(nomatch, string:find(erlperf:format_error({crashed, runner, {error, undef, [{no_such, f, [], []}]}}),
                                         "no_such:f/0 (module no_such is not available: add its directory with -pa")).

format_error_pg2() ->
    [{doc, "A runner calling the removed pg2:join/2 crashes, and the text mentions pg2."}].
format_error_pg2(Config) when is_list(Config) ->
    Reason = try erlperf:run({pg2, join, [group, self]}, ?FAST#{sample_duration => 1000, samples => 10}), no_error
             catch error:R -> R
             end,
    ?assertMatch({crashed, runner, {error, undef, [{pg2, join, _, _} | _]}}, Reason),
    Text = erlperf:format_error(Reason),
    ?assertNotEqual(nomatch, string:find(Text, "pg2:join/2")),
    ?assertNotEqual(nomatch, string:find(Text, "pg ")),
    ?assertEqual(nomatch, string:find(Text, "\n")).

%%--------------------------------------------------------------------
%% Modes

continuous_basic() ->
    [{doc, "Continuous mode, basic report: an integer, iterations per sample."}].
continuous_basic(Config) when is_list(Config) ->
    Result = erlperf:run("rand:uniform().", #{sample_duration => ?SHORT_MS}),
    ?assert(is_integer(Result) andalso Result >= 0, Result).

continuous_extended() ->
    [{doc, "Extended report: the list of `samples' integers."}].
continuous_extended(Config) when is_list(Config) ->
    Samples = erlperf:run("rand:uniform().", #{sample_duration => 50, samples => 4, report => extended}),
    ?assertMatch([_, _, _, _], Samples),
    ?assert(lists:all(fun (S) -> is_integer(S) andalso S >= 0 end, Samples), Samples).

continuous_full() ->
    [{doc, "Full report: every documented key, consistent figures; each value is its "
           "sample's iterations normalised with the sample's measured time, and the "
           "measured times add up to `time'."}].
continuous_full(Config) when is_list(Config) ->
    Report = erlperf:run("rand:uniform().", #{sample_duration => 50, report => full}),
    ?assertMatch(#{version := 1, mode := continuous, label := <<"rand:uniform().">>,
                   concurrency := 1, warnings := [], sleep := S,
                   run_options := #{concurrency := 1, samples := 3, sample_duration := 50,
                                    warmup := 0, cv := undefined, report := full,
                                    priority := high},
                   code := #{runner := "rand:uniform()."},
                   system := #{os := {unix, _}, system_version := [_ | _], emu_type := opt,
                               emu_flavor := _, dynamic_trace := _, cpu := [_ | _],
                               os_name := _, vm := _, otp_release := _, schedulers := _}}
                     when S =:= sleep; S =:= busy_wait, Report),
    ?assertNot(is_map_key(cv_met, Report)),
    ?assertNot(is_map_key(history, Report)),
    #{result := #{average := Avg, min := Min, max := Max, stddev := StdDev, median := Median,
                  p99 := P99, samples := Raw, values := Samples, time := Time,
                  iteration_time := IterNs, best := Best, worst := Worst,
                  variance := Variance, overdue := Overdue}} = Report,
    %% no sample is overdue unless the machine stalled a worker through a reading
    ?assert(is_integer(Overdue) andalso Overdue >= 0 andalso Overdue =< 3, Overdue),
    %% erlperf 2.3: the raw counter, read at the start and after each sample
    ?assertMatch([_, _, _, _], Raw),
    ?assert(lists:all(fun erlang:is_integer/1, Raw) andalso lists:sort(Raw) =:= Raw, Raw),
    %% the values are the differences, normalised to 50 ms with each sample's measured
    %% time: those times, found back from the values, add up to the run's time
    assert_normalised(Raw, Samples, 50000, Time),
    ?assertEqual({Max, Min}, {Best, Worst}),
    ?assert(abs(Variance - StdDev * StdDev) < 1.0e-9 * Variance + 1.0e-9),
    ?assertEqual(3, length(Samples)),
    ?assertEqual(lists:min(Samples), Min),
    ?assertEqual(lists:max(Samples), Max),
    ?assert(is_float(Avg) andalso abs(Avg - lists:sum(Samples) / 3) =< 1.0e-6 * Avg),
    ?assert(is_float(StdDev) andalso StdDev >= 0),
    ?assert(lists:member(Median, Samples) andalso Min =< Median andalso Median =< Max),
    ?assertEqual(Max, P99),
    %% 3 samples of at least 50 ms (less the millisecond a timer may round), in microseconds
    ?assert(Time >= 140000, Time),
    %% no iteration counted (a machine too loaded to run the runner): no time per iteration
    ?assert(Avg == 0 andalso IterNs =:= infinity orelse
            is_float(IterNs) andalso abs(IterNs - 50.0e6 / Avg) < 1.0e-6 * IterNs, {Avg, IterNs}).

timed_basic() ->
    [{doc, "Timed mode, basic report: average microseconds for N iterations (10 sleeps of "
           "a millisecond take at least 10 ms)."}].
timed_basic(Config) when is_list(Config) ->
    Us = erlperf:run({timer, sleep, [1]}, #{sample_duration => {timed, 10}}),
    ?assert(is_integer(Us) andalso Us >= 9000, Us).

timed_full() ->
    [{doc, "Timed mode, full report: integer samples and float values in microseconds (5 "
           "sleeps of a millisecond take at least 5 ms)."}].
timed_full(Config) when is_list(Config) ->
    Report = erlperf:run({timer, sleep, [1]}, #{sample_duration => {timed, 5}, samples => 4,
                                               report => full}),
    ?assertMatch(#{version := 1, mode := timed, concurrency := 1,
                   run_options := #{sample_duration := {timed, 5}, samples := 4}}, Report),
    #{result := #{samples := Raw, values := Samples, average := Avg, iteration_time := IterNs,
                  time := Time, best := Best, worst := Worst}} = Report,
    ?assertEqual(4, length(Samples)),
    ?assertEqual([round(S) || S <- Samples], Raw),
    ?assertEqual({lists:min(Samples), lists:max(Samples)}, {Best, Worst}),
    ?assert(lists:all(fun (S) -> is_float(S) andalso S >= 4500 end, Samples), Samples),
    %% ns per iteration = us per sample * 1000 / 5
    ?assert(abs(IterNs - Avg * 200) < 1.0e-6 * IterNs, {IterNs, Avg}),
    ?assert(abs(Time - lists:sum(Samples)) =< 1, {Time, Samples}),
    ?assertMatch([_, _, _, _], erlperf:run({timer, sleep, [1]}, #{sample_duration => {timed, 2}, samples => 4,
                                                                report => extended})).

sleep_plausible() ->
    [{doc, "timer:sleep(1) runs at most about once a millisecond: 200 ms samples count at "
           "most 220 calls."}].
sleep_plausible(Config) when is_list(Config) ->
    PerSample = erlperf:run("timer:sleep(1).", #{sample_duration => 200, samples => 2}),
    ?assert(is_integer(PerSample) andalso PerSample >= 0 andalso PerSample =< 220, PerSample).

concurrency_doubles() ->
    [{doc, "concurrency => N runs N workers (each runs init_runner), all counted: one worker "
           "of timer:sleep(1) counts at most 220 calls in 200 ms, two at most 440."}].
concurrency_doubles(Config) when is_list(Config) ->
    Opts = #{sample_duration => 200, samples => 2},
    [begin
         T = new_table(),
         Code = #{init_runner => fun () -> ets:insert(T, {self()}) end,
                  runner => fun (_) -> timer:sleep(1) end},
         PerSample = erlperf:run(Code, Opts#{concurrency => N}),
         Workers = [P || {P} <- ets:tab2list(T), is_pid(P)],
         ets:delete(T),
         ?assertEqual(N, length(Workers), Workers),
         ?assert(is_integer(PerSample) andalso PerSample >= 0 andalso PerSample =< N * 220,
                 {N, PerSample})
     end || N <- [1, 2]],
    ok.

squeeze_basic() ->
    [{doc, "run/3 returns {QPS, Concurrency}: a concurrency within max, and the QPS of that "
           "many sleeping workers (each at most 55 calls in 50 ms)."}].
squeeze_basic(Config) when is_list(Config) ->
    {QPS, C} = erlperf:run("timer:sleep(1).", #{sample_duration => 50, samples => 1}, #{max => 4}),
    ?assert(C >= 1 andalso C =< 4, C),
    ?assert(QPS >= 0 andalso QPS =< C * 55, {QPS, C}).

squeeze_serialised() ->
    [{doc, "A runner serialised on one busy process: however many workers a step has, it "
           "counts no more calls than the server answers (one per 50 us), plus one under way "
           "per worker; the search ends."}].
squeeze_serialised(Config) when is_list(Config) ->
    {Server, Runner} = serialised_runner(?SERVER_WORK_US),
    try
        #{concurrency := C, history := History} =
            erlperf:run(Runner, #{sample_duration => 50, samples => 1, report => full}, #{threshold => 1}),
        ?assertEqual(lists:seq(1, length(History)), [Step || {Step, _} <- History]),
        ?assert(lists:keymember(C, 1, History), {C, History}),
        %% 50 ms of answers, 10% for a sample normalised from a timer rounded to the ms
        Ceiling = fun (Workers) -> 1.1 * 50000 / ?SERVER_WORK_US + Workers end,
        [?assert(Avg =< Ceiling(Step), {Step, Avg}) || {Step, #{average := Avg}} <- History]
    after
        exit(Server, kill)
    end.

squeeze_max() ->
    [{doc, "max bounds the concurrency tried; the full report's history has every step."}].
squeeze_max(Config) when is_list(Config) ->
    Report = erlperf:run("timer:sleep(1).", #{sample_duration => 30, samples => 1, report => full},
                         #{min => 2, step => 2, max => 7}),
    #{mode := concurrency, concurrency := C, history := History,
      concurrency_options := #{min := 2, step := 2, max := 7, threshold := 3}} = Report,
    ?assertEqual([2, 4, 6], [Conc || {Conc, _} <- History]),
    ?assert(lists:member(C, [2, 4, 6]), C).

squeeze_threshold() ->
    [{doc, "threshold: the search stops after that many steps without gain."}].
squeeze_threshold(Config) when is_list(Config) ->
    {Server, Runner} = serialised_runner(?SERVER_WORK_US),
    try
        [begin
             #{concurrency := Best, history := History} =
                 erlperf:run(Runner, #{sample_duration => 30, samples => 1, report => full},
                             #{threshold => Threshold}),
             %% steps 1, 2, ... Best, then Threshold steps without gain
             ?assertEqual(lists:seq(1, Best + Threshold), [C || {C, _} <- History]),
             %% the best is the highest average
             Averages = [{Avg, C} || {C, #{average := Avg}} <- History],
             ?assertEqual(Best, element(2, lists:max(Averages)))
         end || Threshold <- [1, 2]],
        ok
    after
        exit(Server, kill)
    end.

squeeze_full() ->
    [{doc, "Concurrency mode full report: mode, best concurrency and result, history."}].
squeeze_full(Config) when is_list(Config) ->
    Report = erlperf:run({timer, sleep, [1]}, #{sample_duration => 30, samples => 2, report => full},
                         #{max => 3}),
    %% every step up to max is tried (threshold 3 cannot be reached in 3 steps); the best
    %% step has the highest average; the one reported is the smallest not significantly
    %% below it, and its run
    ?assertMatch(#{version := 1, mode := concurrency, concurrency := C, best_concurrency := B,
                   result := #{average := _, values := [_, _], samples := [_, _, _]},
                   history := [{1, #{average := _, samples := [_, _, _]}}, {2, _}, {3, _}],
                   concurrency_options := #{min := 1, max := 3, threshold := 3, step := 1},
                   run_options := #{samples := 2, concurrency := C}, system := #{}}
                   when C =< B andalso B =< 3, Report),
    #{concurrency := C, best_concurrency := Best, result := #{average := Avg}, history := History} = Report,
    ?assertMatch({C, #{average := Avg}}, lists:keyfind(C, 1, History)),
    {Best, #{average := Top}} = lists:keyfind(Best, 1, History),
    ?assertEqual(lists:max([A || {_, #{average := A}} <- History]), Top).

squeeze_extended() ->
    [{doc, "Concurrency mode extended report (erlperf 2.3): {{QPS, Best}, [{QPS, C}]} for every step, in order."}].
squeeze_extended(Config) when is_list(Config) ->
    {{QPS, C}, Steps} = erlperf:run({timer, sleep, [1]},
                                    #{sample_duration => 30, samples => 2, report => extended},
                                    #{max => 2}),
    ?assert(C =:= 1 orelse C =:= 2, C),
    ?assertMatch([{Q1, 1}, {Q2, 2}] when is_integer(Q1) andalso is_integer(Q2), Steps),
    ?assertEqual({QPS, C}, lists:keyfind(C, 2, Steps)).

compare() ->
    [{doc, "compare/2 runs each code with the same options and returns the results in "
           "order: rand:uniform() before timer:sleep(10), which counts at most 11 calls in "
           "100 ms."}].
compare(Config) when is_list(Config) ->
    [Fast, Slow] = erlperf:compare(["rand:uniform().", {timer, sleep, [10]}],
                                   #{sample_duration => 100, samples => 2}),
    ?assert(Slow >= 0 andalso Slow =< 11 andalso Fast >= 10 * Slow, {Fast, Slow}),
    [#{label := <<"a">>}, #{label := <<"b">>}] =
        erlperf:compare([#{runner => "ok.", label => "a"}, #{runner => "ok.", label => "b"}],
                        ?FAST#{report => full}).

compare_one() ->
    [{doc, "compare/2 of one code is a list of one result."}].
compare_one(Config) when is_list(Config) ->
    ?assertMatch([R] when is_integer(R), erlperf:compare(["rand:uniform()."], ?FAST)).

benchmark_several() ->
    [{doc, "benchmark/3 with several jobs returns one result per job, in order: each "
           "report has its job's code and label, and a count within what its sleeps allow "
           "in 100 ms."}].
benchmark_several(Config) when is_list(Config) ->
    Six = fun () -> timer:sleep(6) end,
    Codes = [#{runner => "timer:sleep(1).", label => "one"},
             #{runner => {timer, sleep, [3]}, label => "three"},
             #{runner => Six, label => "six"}],
    Reports = erlperf:benchmark(Codes, #{sample_duration => 100, samples => 1, report => full}, undefined),
    ?assertEqual([<<"one">>, <<"three">>, <<"six">>], [L || #{label := L} <- Reports]),
    ?assertMatch([#{code := #{runner := "timer:sleep(1)."}}, #{code := #{runner := {timer, sleep, [3]}}},
                  #{code := #{runner := Six}}], Reports),
    %% 100 ms of sleeps and the one under way, 10% for a timer rounded to the ms
    Averages = [Avg || #{result := #{average := Avg}} <- Reports],
    [?assert(Avg >= 0 andalso Avg =< 1.1 * (100 / Ms + 1), {Ms, Avg})
     || {Ms, Avg} <- lists:zip([1, 3, 6], Averages)],
    ?assertMatch([X, Y] when is_integer(X) andalso is_integer(Y),
                 erlperf:benchmark(["ok.", "rand:uniform()."], ?FAST, undefined)),
    %% erlperf 2.3: a list, also for one code
    ?assertMatch([Z] when is_integer(Z), erlperf:benchmark(["ok."], ?FAST, undefined)),
    ?assertMatch([#{mode := continuous}], erlperf:benchmark(["ok."], ?FAST#{report => full}, undefined)).

benchmark_several_squeeze() ->
    [{doc, "benchmark/3 with several jobs and concurrency options: one {QPS, C} per job, C within max."}].
benchmark_several_squeeze(Config) when is_list(Config) ->
    Result = erlperf:benchmark(["timer:sleep(1).", {timer, sleep, [2]}],
                               #{sample_duration => 30, samples => 1}, #{max => 2}),
    ?assertMatch([{Q1, C1}, {Q2, C2}] when Q1 >= 0 andalso Q2 >= 0 andalso C1 >= 1 andalso C1 =< 2
                                           andalso C2 >= 1 andalso C2 =< 2, Result).

time() ->
    [{doc, "time/2: microseconds taken by N iterations (10 sleeps of a millisecond take at "
           "least 10 ms)."}].
time(Config) when is_list(Config) ->
    Us = erlperf:time({timer, sleep, [1]}, 10),
    ?assert(is_integer(Us) andalso Us >= 9000, Us),
    Fast = erlperf:time("rand:uniform().", 1000),
    ?assert(is_integer(Fast) andalso Fast >= 0, Fast).

run_mfa() ->
    [{doc, "run(M, F, A) with the defaults (3 samples of 1 s): sleeps of a millisecond, at "
           "most 1100 a second."}].
run_mfa(Config) when is_list(Config) ->
    PerSecond = erlperf:run(timer, sleep, [1]),
    ?assert(PerSecond > 0 andalso PerSecond =< 1100, PerSecond).

warmup() ->
    [{doc, "warmup samples are taken, reported as progress and discarded: the readings and "
           "the time are those of the measured samples only."}].
warmup(Config) when is_list(Config) ->
    Self = self(),
    Report = erlperf:run("rand:uniform().", #{sample_duration => 30, samples => 2, warmup => 2,
                                              report => full,
                                              progress => fun (E) -> Self ! {progress, E} end}),
    Events = progress_events(),
    ?assertMatch([{warmup, 1, 2}, {warmup, 2, 2}, {sample, 1, 2, _}, {sample, 2, 2, _}], Events),
    #{result := #{values := Samples, samples := Raw, time := Time},
      run_options := #{warmup := 2}} = Report,
    ?assertEqual(2, length(Samples)),
    ?assertEqual(3, length(Raw)),
    %% time counts only the two measured samples (60 ms on the deadlines' grid; a wake-up
    %% after the warmup late by up to a third of a period on a loaded machine shortens
    %% the first), not the warmup: it is the sum of the samples' own times
    ?assert(Time >= 40000, Time),
    assert_normalised(Raw, Samples, 30000, Time).

cv_met() ->
    [{doc, "cv mode with a target every window meets (three counts vary at most sqrt(3) "
           "times their mean) stops after the first window and reports cv_met => true."}].
cv_met(Config) when is_list(Config) ->
    Self = self(),
    Report = erlperf:run("timer:sleep(1).", #{sample_duration => 50, samples => 3, cv => 2.0,
                                              report => full,
                                              progress => fun (E) -> Self ! {progress, E} end}),
    ?assertMatch(#{cv_met := true, result := #{values := [_, _, _], samples := [_, _, _, _]}}, Report),
    ?assertEqual(3, length(progress_events())).

cv_always_ends() ->
    [{doc, "cv mode with a target no varying window meets ends after max(20, 10 x samples) samples "
           "with cv_met => false; it ends before only on a window that does not vary at all "
           "(on a loaded machine: samples without an iteration), with cv_met => true."}].
cv_always_ends(Config) when is_list(Config) ->
    [cv_ends(Samples, Duration, Cap) || {Samples, Duration, Cap} <- [{2, 20, 20}, {3, 10, 30}]],
    ok.

cv_ends(Samples, Duration, Cap) ->
    Self = self(),
    Report = erlperf:run("rand:uniform().", #{sample_duration => Duration, samples => Samples,
                                              cv => 1.0e-12, report => full,
                                              progress => fun (E) -> Self ! {progress, E} end}),
    #{cv_met := Met, result := #{values := Values, samples := Raw}} = Report,
    ?assertEqual({Samples, Samples + 1}, {length(Values), length(Raw)}),
    Taken = length(progress_events()),
    case Met of
        false -> ?assertEqual(Cap, Taken);
        true -> ?assert(Taken < Cap andalso erlperf_stat:cv(Values) =< 1.0e-12, {Taken, Values})
    end.

cv_timed() ->
    [{doc, "cv in timed mode also ends and reports cv_met."}].
cv_timed(Config) when is_list(Config) ->
    %% each call sleeps a millisecond longer than the one before, so no two samples take
    %% the same time, whatever the clock's resolution (two samples of two timer:sleep(1)
    %% each read 3530.335 us twice on a loaded host)
    Code = #{init => "atomics:new(1, []).", init_runner => "ir(A) -> A.",
             runner => "r(A) -> timer:sleep(atomics:add_get(A, 1, 1))."},
    Report = erlperf:run(Code, #{sample_duration => {timed, 2}, samples => 2,
                                 cv => 1.0e-12, report => full}),
    ?assertMatch(#{mode := timed, cv_met := false, result := #{samples := [_, _]}}, Report).

samples_one() ->
    [{doc, "samples => 1 works in every report and mode."}].
samples_one(Config) when is_list(Config) ->
    Opts = #{sample_duration => 30, samples => 1},
    ?assert(is_integer(erlperf:run("rand:uniform().", Opts))),
    ?assertMatch([S] when is_integer(S), erlperf:run("rand:uniform().", Opts#{report => extended})),
    ?assertMatch(#{result := #{values := [_], samples := [_, _], stddev := +0.0}},
                 erlperf:run("rand:uniform().", Opts#{report => full})),
    ?assertMatch([_], erlperf:run("rand:uniform().", #{sample_duration => {timed, 10}, samples => 1,
                                                      report => extended})),
    ?assertMatch({_, C} when C >= 1, erlperf:run("rand:uniform().", Opts, #{max => 2})).

priority() ->
    [{doc, "The caller samples at `priority' and gets its own priority back."}].
priority(Config) when is_list(Config) ->
    Self = self(),
    Before = element(2, process_info(self(), priority)),
    Progress = fun (_) -> Self ! {prio, element(2, process_info(self(), priority))} end,
    [begin
         _ = erlperf:run("ok.", #{sample_duration => 10, samples => 1, priority => P, progress => Progress}),
         receive {prio, Seen} -> ?assertEqual(P, Seen) after 0 -> ct:fail(no_progress) end,
         ?assertEqual(Before, element(2, process_info(self(), priority)))
     end || P <- [low, normal, high]],
    ?assertMatch(#{run_options := #{priority := low}},
                 erlperf:run("ok.", #{sample_duration => 10, samples => 1, priority => low, report => full})).

progress() ->
    [{doc, "progress receives {sample, I, N, RunningAverage} after each sample; a crashing callback is ignored."}].
progress(Config) when is_list(Config) ->
    Self = self(),
    Result = erlperf:run("rand:uniform().", #{sample_duration => 20, samples => 3, report => extended,
                                              progress => fun (E) -> Self ! {progress, E} end}),
    Events = progress_events(),
    ?assertMatch([{sample, 1, 3, _}, {sample, 2, 3, _}, {sample, 3, 3, _}], Events),
    {sample, 3, 3, Avg} = lists:last(Events),
    ?assert(abs(Avg - lists:sum(Result) / 3) =< 2, {Avg, Result}),
    ?assert(is_integer(erlperf:run("ok.", #{sample_duration => 10, samples => 1,
                                            progress => fun (_) -> erlang:error(oops) end}))).

progress_concurrency() ->
    [{doc, "progress receives {concurrency, C} before each concurrency step."}].
progress_concurrency(Config) when is_list(Config) ->
    Self = self(),
    {_, _} = erlperf:run("timer:sleep(1).", #{sample_duration => 20, samples => 1,
                                             progress => fun (E) -> Self ! {progress, E} end},
                         #{max => 3}),
    ?assertMatch([{concurrency, 1}, {sample, 1, 1, _}, {concurrency, 2}, {sample, 1, 1, _},
                  {concurrency, 3}, {sample, 1, 1, _}], progress_events()).

%%--------------------------------------------------------------------
%% erlperf 2.3's documented behaviour

legacy_timed() ->
    [{doc, "sample_duration => undefined with samples => N: N iterations timed once, in microseconds "
           "(erlperf 2.3): 10 sleeps of a millisecond take at least 10 ms"}].
legacy_timed(Config) when is_list(Config) ->
    Us = erlperf:run({timer, sleep, [1]}, #{sample_duration => undefined, samples => 10}),
    ?assert(is_integer(Us) andalso Us >= 9000, Us),
    ?assertMatch(#{mode := timed, result := #{values := [_]},
                   run_options := #{sample_duration := {timed, 10}, samples := 1}},
                 erlperf:run({timer, sleep, [1]}, #{sample_duration => undefined, samples => 10,
                                                   report => full})).

compare_parallel() ->
    [{doc, "Several codes run at the same time by default: each job's workers see the other's (erlperf 2.3)"}].
compare_parallel(Config) when is_list(Config) ->
    Seen = overlap(#{}),
    ?assertEqual([a_saw_b, b_saw_a], Seen).

compare_sequential() ->
    [{doc, "compare => sequential runs one job after another: they never meet"}].
compare_sequential(Config) when is_list(Config) ->
    ?assertEqual([], overlap(#{compare => sequential})).

invalid_compare() ->
    [{doc, "An unknown compare mode is an invalid option"}].
invalid_compare(Config) when is_list(Config) ->
    ?assertException(error, {invalid_option, compare, sideways},
                     erlperf:compare(["ok.", "ok."], #{compare => sideways})),
    %% turns are taken by suspending workers: isolated nodes cannot
    ?assertException(error, {incompatible_options, compare, interleaved, isolation},
                     erlperf:compare(["ok.", "ok."], #{compare => interleaved, isolation => #{}})),
    ?assertNotEqual(nomatch, string:find(erlperf:format_error(
        {incompatible_options, compare, interleaved, isolation}), "must share one node")).

compare_interleaved() ->
    [{doc, "compare => interleaved: jobs take turns, one sample each, the other suspended: the "
           "job calling changes at most once a turn"}].
compare_interleaved(Config) when is_list(Config) ->
    %% every call notes which job ran last; a change of job is a switch
    Tab = ets:new(turns, [public, set]),
    true = ets:insert(Tab, {switches, 0}),
    Runner = fun (Me) ->
                 fun () ->
                     case ets:lookup(Tab, last) of
                         [{last, Me}] -> ok;
                         _ -> ets:update_counter(Tab, switches, 1), ets:insert(Tab, {last, Me})
                     end
                 end
             end,
    Reports = erlperf:compare([#{runner => Runner(a), label => "a"}, #{runner => Runner(b), label => "b"}],
                              #{compare => interleaved, sample_duration => 50, samples => 3,
                                warmup => 1, report => full, forks => 1}),
    [{switches, Switches}] = ets:lookup(Tab, switches),
    %% 4 rounds (1 warmup) of 2 turns: at most 8 switches (in parallel: thousands)
    ?assert(Switches >= 1 andalso Switches =< 8, Switches),
    [#{run_options := #{compare := interleaved}, result := #{values := [_, _, _], samples := RawA}},
     #{result := #{values := [_, _, _], samples := [_, _, _, _]}}] = Reports,
    ?assertMatch([_, _, _, _], RawA),
    ?assertEqual(lists:sort(RawA), RawA).

interleaved_timed() ->
    [{doc, "compare => interleaved in timed mode: one measurement of each job per round, "
           "the jobs one after the other (5 calls of a, 5 of b, and so on: 6 switches); each "
           "measurement takes at least its sleeps"}].
interleaved_timed(Config) when is_list(Config) ->
    Tab = ets:new(turns, [public, set]),
    true = ets:insert(Tab, [{switches, 0}, {a, 0}, {b, 0}]),
    Runner = fun (Me, Ms) ->
                 fun () ->
                     _ = ets:update_counter(Tab, Me, 1),
                     case ets:lookup(Tab, last) of
                         [{last, Me}] -> ok;
                         _ -> ets:update_counter(Tab, switches, 1), ets:insert(Tab, {last, Me})
                     end,
                     timer:sleep(Ms)
                 end
             end,
    [Fast, Slow] = erlperf:compare([#{runner => Runner(a, 1)}, #{runner => Runner(b, 5)}],
                                   #{compare => interleaved, sample_duration => {timed, 5},
                                     samples => 3, report => extended}),
    ?assertMatch([_, _, _], Fast),
    ?assertMatch([_, _, _], Slow),
    ?assertEqual([{a, 15}, {b, 15}, {switches, 6}],
                 [{K, ets:lookup_element(Tab, K, 2)} || K <- [a, b, switches]]),
    ets:delete(Tab),
    %% microseconds of 5 sleeps of 1 ms and of 5 ms
    ?assert(lists:min(Fast) >= 4500 andalso lists:min(Slow) >= 22500, {Fast, Slow}).

overdue_reported() ->
    [{doc, "Samples ending while workers block far longer than their batches took are counted as overdue: "
           "at least the last of three, whose workers have been blocked for a whole sample"}].
overdue_reported(Config) when is_list(Config) ->
    Gate = atomics:new(1, []),
    Runner = fun () -> case atomics:get(Gate, 1) of 0 -> ok; _ -> receive after 5000 -> ok end end end,
    Block = fun ({sample, 1, _, _}) -> atomics:put(Gate, 1, 1); (_) -> ok end,
    #{result := #{overdue := Overdue, values := [_, _, _]}} =
        erlperf:run(Runner, #{sample_duration => 300, samples => 3, concurrency => 2,
                              report => full, progress => Block}),
    %% the second sample may end before the workers are overdue; the third cannot (a
    %% worker waiting for a loaded machine may make the first overdue too)
    ?assert(Overdue >= 1 andalso Overdue =< 3, Overdue).

evidence_one() ->
    [{doc, "A full report carries the 95% interval of the average (with the run noise) and the outliers; one runner gets no comparison"}].
evidence_one(Config) when is_list(Config) ->
    #{result := #{ci := {Lo, Hi}, confidence := 95, average := Avg, values := Values,
                  outliers := #{low_mild := LM, low_severe := LS, high_mild := HM, high_severe := HS}}} =
        Report = erlperf:run("rand:uniform().", #{sample_duration => 50, samples => 5, report => full}),
    ?assert(Lo =< Avg andalso Avg =< Hi, {Lo, Avg, Hi}),
    %% the interval of the samples, with the default run noise; without it, theirs alone
    #{run_noise := RunNoise} = erlperf:defaults(),
    ?assert(RunNoise > 0),
    ?assertEqual(erlperf_stat:interval(Values, [5], 95, RunNoise), {Lo, Hi}),
    #{result := #{ci := Own, values := OwnValues}} =
        erlperf:run("rand:uniform().", #{sample_duration => 50, samples => 5, report => full,
                                         run_noise => 0}),
    ?assertEqual(erlperf_stat:confidence_interval(OwnValues, 95), Own),
    ?assert(LM + LS + HM + HS =< 5),
    ?assertNot(is_map_key(comparison, Report)),
    %% one sample: no interval
    ?assertMatch(#{result := #{ci := undefined}},
                 erlperf:run("ok.", #{sample_duration => 20, samples => 1, report => full})).

verdict_parallel() ->
    [{doc, "Runners sampled at the same instants are compared to the fastest with a paired test: "
           "a runner sleeping 4 ms is slower than rand:uniform() by orders of magnitude"}].
verdict_parallel(Config) when is_list(Config) ->
    %% 10 forks: on a loaded machine rand:uniform()'s throughput swings from fork to fork,
    %% and 3 fork means (2 degrees of freedom) could not tell even this difference
    [Fast, Slow] = erlperf:compare([#{runner => "rand:uniform().", label => "rand"},
                                    #{runner => "timer:sleep(4).", label => "four"}],
                                   #{sample_duration => 50, samples => 20, report => full}),
    ?assertNot(is_map_key(comparison, Fast)),
    #{comparison := #{against := <<"rand">>, test := paired, significant := true, verdict := slower,
                      change_pct := Change, ci_pct := {Lo, Hi}, confidence := 95}} = Slow,
    ?assert(Change < -30 andalso Lo =< Change andalso Change =< Hi, {Change, Lo, Hi}).

verdict_sequential_timed() ->
    [{doc, "Sequential single runs are compared with Welch's test; in timed mode a longer time is slower: "
           "a sleep of 100 ms takes orders of magnitude longer than a call of rand:uniform(), and "
           "long enough that a loaded machine's stalls do not make its times vary much"}].
verdict_sequential_timed(Config) when is_list(Config) ->
    [_Fast, Slow] = erlperf:compare(["rand:uniform().", "timer:sleep(100)."],
                                    #{sample_duration => {timed, 1}, samples => 5,
                                      compare => sequential, report => full, forks => 1}),
    ?assertMatch(#{comparison := #{test := welch, verdict := slower, significant := true,
                                   better := lower, basis := single_run}}, Slow),
    #{comparison := #{change_pct := Change}} = Slow,
    ?assert(Change > 50, Change).

confidence_option() ->
    [{doc, "confidence sets the level of every interval and verdict; out of (0, 100) it is invalid"}].
confidence_option(Config) when is_list(Config) ->
    [_, #{result := #{confidence := 99}, comparison := #{confidence := 99}}] =
        erlperf:compare(["ok.", "timer:sleep(1)."], #{sample_duration => 30, samples => 3,
                                                       confidence => 99, report => full}),
    ?assertException(error, {invalid_option, confidence, 100},
                     erlperf:run("ok.", #{confidence => 100})),
    ?assertException(error, {invalid_option, confidence, 0},
                     erlperf:run("ok.", #{confidence => 0})).

%% Two jobs whose workers register a name and note when they see the other's.
overlap(Extra) ->
    Tab = ets:new(overlap, [public, set]),
    Job = fun (Me, Other) ->
              #{init_runner => fun () -> register(Me, self()) end,
                runner => fun (_) ->
                              whereis(Other) =/= undefined andalso
                                  ets:insert(Tab, {list_to_atom(lists:concat([Me, "_saw_", Other]))})
                          end}
          end,
    [_, _] = erlperf:compare([Job(a, b), Job(b, a)],
                             maps:merge(#{sample_duration => 50, samples => 2}, Extra)),
    Seen = lists:sort([K || {K} <- ets:tab2list(Tab)]),
    ets:delete(Tab),
    Seen.

%%--------------------------------------------------------------------
%% Reliability

runner_crash() ->
    [{doc, "A crashing runner raises {crashed, runner, _} at once: the run ends before its first sample."}].
runner_crash(Config) when is_list(Config) ->
    ?assertMatch({{error, {crashed, runner, {error, boom, [_ | _]}}}, []},
                 long_run("erlang:error(boom).", #{})).

stopping_code() ->
    [{doc, "Code that would stop the VM (erlang:halt, init:stop, directly or through a module "
           "it calls) is refused by the API before anything starts, with a reason that names it"}].
stopping_code(Config) when is_list(Config) ->
    Jobs = erlperf_job_sup_children(),
    ?assertException(error, {stops_vm, <<"halt().">>, {erlang, halt, 0}}, erlperf:run("halt().")),
    ?assertException(error, {stops_vm, _, {init, stop, 0}},
                     erlperf:compare(["ok.", "init:stop()."], #{samples => 1})),
    ?assertException(error, {stops_vm, _, {erlang, halt, 1}},
                     erlperf:run(#{runner => "ok.", init_runner => "erlang:halt(3)."})),
    ?assertEqual("halt(). calls erlang:halt/0, which would stop erlperf's own VM: run it isolated "
                 "(-i, or isolation => #{})",
                 erlperf:format_error({stops_vm, <<"halt().">>, {erlang, halt, 0}})),
    ?assert(erlperf:is_known_error({stops_vm, <<"halt().">>, {erlang, halt, 0}})),
    ?assertEqual(Jobs, erlperf_job_sup_children()).

runner_erases_state() ->
    [{doc, "A runner erasing the process dictionary stops the run with a named reason."}].
runner_erases_state(Config) when is_list(Config) ->
    Result = catch_error(fun () -> erlperf:run("erase().", #{sample_duration => 100, samples => 3}) end),
    ?assertMatch({error, {crashed, runner, {error, erlperf_state_erased, _}}}, Result),
    {error, Reason} = Result,
    ?assertNotEqual(nomatch, string:find(erlperf:format_error(Reason), "'$erlperf_publish'")).

runner_crash_classes() ->
    [{doc, "throw and exit in a runner are reported with their class, before the first sample."}].
runner_crash_classes(Config) when is_list(Config) ->
    ?assertMatch({{error, {crashed, runner, {throw, oops, _}}}, []},
                 long_run(fun () -> throw(oops) end, #{})),
    ?assertMatch({{error, {crashed, runner, {exit, bye, _}}}, []}, long_run("exit(bye).", #{})).

runner_crash_later() ->
    [{doc, "A runner crashing after many iterations, with 2 workers, stops the run at once (before the "
           "end of the sample it crashed in)."}].
runner_crash_later(Config) when is_list(Config) ->
    T = new_table(),
    Runner = src("r() -> case ets:update_counter(~w, calls, 1) of 100000 -> erlang:error(late); _ -> ok end.", T),
    ?assertMatch({{error, {crashed, runner, {error, late, _}}}, []},
                 long_run(Runner, #{concurrency => 2})).

init_crash() ->
    [{doc, "A crashing init raises {crashed, init, _} before anything is sampled."}].
init_crash(Config) when is_list(Config) ->
    ?assertMatch({{error, {crashed, init, {error, no_init, _}}}, []},
                 long_run(#{runner => "ok.", init => "erlang:error(no_init)."}, #{})).

init_runner_crash() ->
    [{doc, "A crashing init_runner raises {crashed, init_runner, _} before anything is sampled."}].
init_runner_crash(Config) when is_list(Config) ->
    ?assertMatch({{error, {crashed, init_runner, {error, no_ir, _}}}, []},
                 long_run(#{runner => "ok.", init_runner => "erlang:error(no_ir)."}, #{})).

done_crash() ->
    [{doc, "A crashing done raises {crashed, done, _} after the run."}].
done_crash(Config) when is_list(Config) ->
    ?assertException(error, {crashed, done, {error, no_done, _}},
                     erlperf:run(#{runner => "ok.", done => fun () -> erlang:error(no_done) end}, ?FAST)),
    ?assertException(error, {crashed, done, {throw, no_done, _}},
                     erlperf:run(#{runner => "ok.", init => "1.", done => "d(1) -> throw(no_done)."}, ?FAST)).

crash_named() ->
    [{doc, "Among several runners, a crash names its runner whether the run saw it (a runner) or "
           "only the stop did (a done); when all crash, the one named is the one whose crash it is"}].
crash_named(Config) when is_list(Config) ->
    Jobs = erlperf_job_sup_children(),
    ?assertException(error, {crashed, {done, <<"ok.">>}, {error, no_done, _}},
                     erlperf:compare([#{runner => "1.", done => "ok."},
                                      #{runner => "ok.", done => "erlang:error(no_done)."}], ?FAST)),
    {error, {crashed, {runner, Label}, {error, Reason, _}}} =
        catch_error(fun () -> erlperf:compare(["erlang:error(a).", "erlang:error(b)."], ?FAST) end),
    ?assertEqual(iolist_to_binary(io_lib:format("erlang:error(~s).", [Reason])), Label),
    ?assertException(error, {crashed, {runner, <<"1 = 2.">>}, {error, {badmatch, 2}, _}},
                     erlperf:compare(["ok.", "1 = 2."], ?FAST)),
    ?assertEqual(Jobs, erlperf_job_sup_children()).

hanging_runner() ->
    [{doc, "A runner that never returns is stopped at the end of the run: the run returns 0 (the "
           "calls are counted when they start, before the run), nothing is left."}].
hanging_runner(Config) when is_list(Config) ->
    Check = leak_check(),
    Result = catch_error(fun () -> erlperf:run("receive after infinity -> ok end.",
                                               #{sample_duration => 50, samples => 2, concurrency => 3}) end),
    ?assertEqual({ok, 0}, Result),
    Check().

no_leak_success() ->
    [{doc, "After successful runs: no worker, no module, no monitor, link or message left."}].
no_leak_success(Config) when is_list(Config) ->
    Check = leak_check(),
    _ = erlperf:run("rand:uniform().", #{sample_duration => 20, samples => 2, concurrency => 4}),
    _ = erlperf:run(#{init => "1.", init_runner => "ir(X) -> X.", runner => "r(X, S) -> X + S.",
                      done => "d(_) -> ok."}, ?FAST),
    _ = erlperf:compare(["ok.", {erlang, phash2, [1]}], ?FAST),
    _ = erlperf:time("ok.", 100),
    Check().

no_leak_failures() ->
    [{doc, "After failed runs (crashes in every role, bad code): nothing left behind."}].
no_leak_failures(Config) when is_list(Config) ->
    Check = leak_check(),
    Opts = #{sample_duration => 50, samples => 2, concurrency => 2},
    Failing = [#{runner => "erlang:error(boom)."},
               #{runner => "ok.", init => "erlang:error(boom)."},
               #{runner => "ok.", init_runner => "exit(boom)."},
               #{runner => "ok.", done => "throw(boom)."},
               #{runner => "r(X) -> X."},
               #{runner => "foo(."}],
    [?assertMatch({error, _}, (catch_error(fun () -> erlperf:run(Code, Opts) end))) || Code <- Failing],
    ?assertMatch({error, {crashed, runner, _}}, catch_error(fun () -> erlperf:time("erlang:error(x).", 10) end)),
    Check().

no_leak_timed_and_squeeze() ->
    [{doc, "After timed and concurrency-estimation runs, nothing is left behind."}].
no_leak_timed_and_squeeze(Config) when is_list(Config) ->
    Check = leak_check(),
    _ = erlperf:run("rand:uniform().", #{sample_duration => {timed, 1000}}),
    _ = erlperf:run("timer:sleep(1).", #{sample_duration => 20, samples => 1}, #{max => 5}),
    ?assertMatch({error, {crashed, runner, _}},
                 catch_error(fun () -> erlperf:run("erlang:error(x).", #{sample_duration => {timed, 10}}) end)),
    Check().

no_files_written() ->
    [{doc, "Running a benchmark writes no file to the current directory."}].
no_files_written(Config) when is_list(Config) ->
    Dir = filename:join(?config(priv_dir, Config), "cwd"),
    ok = file:make_dir(Dir),
    {ok, Cwd} = file:get_cwd(),
    ok = file:set_cwd(Dir),
    try
        _ = erlperf:run("rand:uniform().", ?FAST),
        _ = erlperf:run(#{runner => "r(_, S) -> S.", init_runner => "1."}, ?FAST),
        ?assertEqual({ok, []}, file:list_dir(Dir))
    after
        ok = file:set_cwd(Cwd)
    end.

workers_100k() ->
    [{doc, "100,000 workers start and stop."}].
workers_100k(Config) when is_list(Config) ->
    Check = leak_check(),
    N = 100000,
    {ok, Job} = erlperf_job:start(#{runner => "receive after infinity -> ok end."}),
    Base = erlang:system_info(process_count),
    ok = erlperf_job:set_concurrency(Job, N),
    ?assertEqual(N, erlperf_job:concurrency(Job)),
    ?assert(erlang:system_info(process_count) >= Base + N),
    ok = erlperf_job:set_concurrency(Job, 0),
    ?assertEqual(0, erlperf_job:concurrency(Job)),
    ?assert(erlang:system_info(process_count) < Base + 100),
    ok = erlperf_job:set_concurrency(Job, N),
    ok = erlperf_job:stop(Job),
    Check().

%%--------------------------------------------------------------------
%% Application

start_job() ->
    [{doc, "start/2 runs a job under the application; set_concurrency/2 and concurrency/1 change and read it."}].
start_job(Config) when is_list(Config) ->
    Job = erlperf:start("rand:uniform().", 2),
    ?assert(is_pid(Job) andalso is_process_alive(Job)),
    ?assertEqual(2, erlperf_job:concurrency(Job)),
    S1 = erlperf_job:sample(Job),
    ?assert(erlperf_test_lib:wait_for(fun () -> erlperf_job:sample(Job) > S1 end, ?SETTLE_MS)),
    ok = erlperf_job:set_concurrency(Job, 5),
    ?assertEqual(5, erlperf_job:concurrency(Job)),
    ok = erlperf_job:set_concurrency(Job, 0),
    ?assertEqual(0, erlperf_job:concurrency(Job)),
    %% the job outlives its caller: it belongs to the application's supervisor
    Self = self(),
    Other = spawn(fun () -> Self ! {job, erlperf:start("ok.", 1)} end),
    Job2 = receive {job, J} -> J after 30000 -> ct:fail(no_job) end,
    Mon = erlang:monitor(process, Other),
    receive {'DOWN', Mon, process, Other, _} -> ok end,
    ?assertEqual(1, erlperf_job:concurrency(Job2)),
    ok = erlperf_job:stop(Job),
    ok = erlperf_job:stop(Job2),
    ?assertNot(is_process_alive(Job)),
    ?assertException(error, {bad_code, runner, {parse, 1, 5, _}}, erlperf:start("foo(.", 1)).

%%--------------------------------------------------------------------
%% Helpers: the matrix

%% Runs every valid combination of roles whose arities the form chooser can express.
%% FormOf(Role, Arity) picks the form of each role.
matrix(FormOf) ->
    Combos = [C || C <- combinations(), expressible(C, FormOf)],
    ?assert(length(Combos) >= 8),
    lists:foreach(fun (Combo) -> run_combo(Combo, FormOf) end, Combos).

%% {Init, InitRunnerArity, RunnerArity, DoneArity}; none = role absent.
combinations() ->
    [{Init, IR, R, D} || Init <- [false, true],
                         IR <- [none, 0, 1], IR =/= 1 orelse Init,
                         R <- [0, 1, 2], R =:= 0 orelse IR =/= none,
                         D <- [none, 0, 1], D =/= 1 orelse Init].

expressible(Combo, FormOf) ->
    lists:all(fun ({Role, Arity}) -> Arity =:= 0 orelse arity_form(FormOf(Role, Arity)) end,
              roles(Combo)).

arity_form(clauses) -> true;
arity_form('fun') -> true;
arity_form(_) -> false.

roles({Init, IR, R, D}) ->
    [{init, 0} || Init] ++ [{init_runner, IR} || IR =/= none] ++ [{runner, R}] ++
        [{done, D} || D =/= none].

%% Each combination runs in continuous mode and in timed mode (the two loops the job
%% generates); timed mode makes exactly the calls asked for.
run_combo(Combo, FormOf) ->
    [run_combo(Combo, FormOf, Options)
     || Options <- [#{sample_duration => 20, samples => 1},
                    #{sample_duration => {timed, ?TIMED_CALLS}, samples => 1}]],
    ok.

run_combo(Combo, FormOf, Options) ->
    T = new_table(),
    Roles = roles(Combo),
    Code = maps:from_list([{Role, callable(FormOf(Role, Arity), Role, Arity, T)} || {Role, Arity} <- Roles]),
    Result = try erlperf:run(Code, Options)
             catch error:Reason -> ct:fail({Combo, Code, Reason})
             end,
    Calls = ets:lookup_element(T, calls, 2),
    ?assert(is_integer(Result) andalso Result >= 0, {Combo, Result}),
    case Options of
        #{sample_duration := {timed, N}} ->
            ?assertEqual(N, Calls, Combo);
        #{sample_duration := Ms} ->
            %% a worker counts a batch of calls when it starts it, a batch at most 4 times
            %% the one before (done): the count is at most 5 times the calls made, and the
            %% first one; the sample is normalised to the nominal 20 ms from at least 19
            %% (the sampler may wake up to 1 ms early: timeouts are whole milliseconds)
            ?assert(Result =< (5 * Calls + 1) * Ms / (Ms - 1), {Combo, Calls, Result})
    end,
    check_records(Combo, T),
    ets:delete(T).

%% What init, init_runner and done recorded.
check_records({Init, IR, _R, D} = Combo, T) ->
    Self = self(),
    InitPid = case ets:lookup(T, init) of
                  [{init, none, P}] when Init, P =/= Self -> P;
                  [] when not Init -> undefined;
                  Other -> ct:fail({Combo, init, Other})
              end,
    case {IR, ets:lookup(T, init_runner)} of
        {none, []} -> ok;
        {0, [{init_runner, none, W}]} when W =/= Self, W =/= InitPid -> ok;
        {1, [{init_runner, 1000, W}]} when W =/= Self, W =/= InitPid -> ok;
        Bad -> ct:fail({Combo, init_runner, Bad})
    end,
    case {D, ets:lookup(T, done)} of
        {none, []} -> ok;
        {0, [{done, none, P2}]} when P2 =/= Self, InitPid =:= undefined orelse P2 =:= InitPid -> ok;
        {1, [{done, 1000, P2}]} when P2 =:= InitPid -> ok;
        Bad2 -> ct:fail({Combo, done, Bad2})
    end.

%% The callable for a role in a form; see the table above the matrix cases.
callable(bare, init, 0, T) -> src("ets:insert(~w, {init, none, self()}), 1000.", T);
callable(bare, init_runner, 0, T) -> src("ets:insert(~w, {init_runner, none, self()}), 1001.", T);
callable(bare, runner, 0, T) -> src("ets:update_counter(~w, calls, 1).", T);
callable(bare, done, 0, T) -> src("ets:insert(~w, {done, none, self()}).", T);
callable(clauses, init, 0, T) ->
    src("setup() -> helper(init). helper(R) -> ets:insert(~w, {R, none, self()}), 1000.", T);
callable(clauses, init_runner, 0, T) ->
    src("prepare() -> helper(1000). helper(X) -> ets:insert(~w, {init_runner, none, self()}), X + 1.", T);
callable(clauses, init_runner, 1, T) ->
    src("prepare(I) -> helper(I).\nhelper(1000 = I) -> ets:insert(~w, {init_runner, I, self()}), 1001.", T);
callable(clauses, runner, 0, T) ->
    src("go() -> helper(1). helper(X) -> ets:update_counter(~w, calls, X).", T);
callable(clauses, runner, 1, T) ->
    src("go(I) -> helper(I). helper(1001) -> ets:update_counter(~w, calls, 1).", T);
callable(clauses, runner, 2, T) ->
    src("go(1001, S) -> helper({S, ets:update_counter(~w, calls, 1)}).\n"
        "helper({S, N}) when S =:= 1000 + N -> S + 1.", T);
callable(clauses, done, 0, T) ->
    src("teardown() -> helper(none). helper(A) -> ets:insert(~w, {done, A, self()}).", T);
callable(clauses, done, 1, T) ->
    src("teardown(I) -> helper(I). helper(A) -> ets:insert(~w, {done, A, self()}).", T);
callable('fun', init, 0, T) -> fun () -> ets:insert(T, {init, none, self()}), 1000 end;
callable('fun', init_runner, 0, T) -> fun () -> ets:insert(T, {init_runner, none, self()}), 1001 end;
callable('fun', init_runner, 1, T) -> fun (1000 = I) -> ets:insert(T, {init_runner, I, self()}), 1001 end;
callable('fun', runner, 0, T) -> fun () -> ets:update_counter(T, calls, 1) end;
callable('fun', runner, 1, T) -> fun (1001) -> ets:update_counter(T, calls, 1) end;
callable('fun', runner, 2, T) ->
    fun (1001, S) ->
            N = ets:update_counter(T, calls, 1),
            S = 1000 + N,
            S + 1
    end;
callable('fun', done, 0, T) -> fun () -> ets:insert(T, {done, none, self()}) end;
callable('fun', done, 1, T) -> fun (I) -> ets:insert(T, {done, I, self()}) end;
callable(mfa, Role, 0, T) -> {?MODULE, cb, [Role, T]};
callable(replay, Role, 0, T) -> [{erlang, phash2, [Role]}, {?MODULE, cb, [Role, T]}].

%% @private Called as {M, F, A} by the generated modules of the matrix.
cb(init, T) -> ets:insert(T, {init, none, self()}), 1000;
cb(init_runner, T) -> ets:insert(T, {init_runner, none, self()}), 1001;
cb(runner, T) -> ets:update_counter(T, calls, 1);
cb(done, T) -> ets:insert(T, {done, none, self()}).

index(init) -> 0;
index(init_runner) -> 1;
index(runner) -> 2;
index(done) -> 3.

%% Source text with the table name filled in (every ~w).
src(Format, T) ->
    N = length(string:split(Format, "~w", all)) - 1,
    lists:flatten(io_lib:format(Format, lists:duplicate(N, T))).

%% A public named table, owned by the case, with the `calls' counter.
new_table() ->
    Name = list_to_atom("erlperf_suite_" ++ integer_to_list(erlang:unique_integer([positive]))),
    Name = ets:new(Name, [named_table, public, set]),
    true = ets:insert(Name, {calls, 0}),
    Name.

%%--------------------------------------------------------------------
%% Helpers: misc

%% Short runs: one sample of 20 ms.
fast() -> #{sample_duration => 20, samples => 1}.

%% A server answering one request at a time, busy for WorkUs per request, and a runner
%% calling it (like a gen_server:call to a busy server).
serialised_runner(WorkUs) ->
    Work = erlang:convert_time_unit(WorkUs, microsecond, native),
    Server = spawn(fun Loop() ->
                           receive {From, Ref} -> spin_until(erlang:monotonic_time() + Work), From ! Ref end,
                           Loop()
                   end),
    Runner = fun () ->
                     Ref = make_ref(),
                     Server ! {self(), Ref},
                     receive Ref -> ok end
             end,
    {Server, Runner}.

spin_until(Deadline) ->
    case erlang:monotonic_time() >= Deadline of
        true -> ok;
        false -> spin_until(Deadline)
    end.

progress_events() ->
    receive {progress, E} -> [E | progress_events()]
    after 0 -> []
    end.

%% Runs Code in samples of ?LONG_SAMPLE_MS: {how it ended, the progress it reported}. A
%% crash must end the run before its first sample.
long_run(Code, Extra) ->
    Self = self(),
    Opts = maps:merge(#{sample_duration => ?LONG_SAMPLE_MS, samples => 10,
                        progress => fun (E) -> Self ! {progress, E} end}, Extra),
    Result = catch_error(fun () -> erlperf:run(Code, Opts) end),
    {Result, progress_events()}.

%% Checks that every value of a continuous run is its sample's iterations normalised to
%% PeriodUs with the sample's own measured time: the times found back from the values
%% add up to the run's Time (microseconds; Raw is the counter read at the start and after
%% each sample). A sample without iterations (value 0) tells nothing of its time: the
%% others then add up to no more than Time.
assert_normalised(Raw, Values, PeriodUs, Time) ->
    Deltas = lists:zipwith(fun (A, B) -> B - A end, lists:droplast(Raw), tl(Raw)),
    ?assertEqual([D =:= 0 || D <- Deltas], [V == 0 || V <- Values], {Raw, Values}),
    Spans = [D * PeriodUs / V || {D, V} <- lists:zip(Deltas, Values), D > 0],
    Slack = 1.0e-6 * Time + length(Spans),
    case length(Spans) =:= length(Deltas) of
        true -> ?assert(abs(lists:sum(Spans) - Time) =< Slack, {Spans, Time});
        false -> ?assert(lists:sum(Spans) =< Time + Slack, {Spans, Time})
    end.

catch_error(Fun) ->
    try {ok, Fun()}
    catch error:Reason -> {error, Reason}
    end.

job_modules() ->
    [M || {M, _} <- code:all_loaded(), is_job_module(atom_to_list(M))].

is_job_module("erlperf_job_" ++ Rest) -> Rest =/= [] andalso lists:all(fun (C) -> C >= $0 andalso C =< $9 end, Rest);
is_job_module(_) -> false.

%% Takes a snapshot now; the returned fun asserts that nothing was left behind since:
%% processes (waiting a bounded time for them to exit), generated modules, and the
%% caller's monitors, links and messages.
leak_check() ->
    Before = lists:sort(processes()),
    Own = own_state(),
    fun () ->
            Settled = erlperf_test_lib:wait_for(fun () -> lists:sort(processes()) -- Before =:= [] end, ?SETTLE_MS),
            Left = [{P, process_info(P, [current_function, initial_call])} || P <- lists:sort(processes()) -- Before],
            ?assert(Settled, {processes_left, Left}),
            ?assertEqual([], job_modules()),
            ?assertEqual(Own, own_state())
    end.

own_state() ->
    process_info(self(), [monitors, monitored_by, links, message_queue_len]).

%%--------------------------------------------------------------------
%% memory: cost per call

%% The cost of one run of Code with memory => true.
cost(Code) ->
    cost(Code, #{}).

cost(Code, Opts) ->
    [#{result := #{cost := Cost}}] =
        erlperf:benchmark([Code], maps:merge(?FAST#{report => full, memory => true}, Opts), undefined),
    Cost.

words(N) ->
    N * erlang:system_info(wordsize).

memory_seq() ->
    [{doc, "lists:seq(1, 100) allocates 100 cons cells: 200 words (1600 bytes on 64-bit), within 5%"}].
memory_seq(Config) when is_list(Config) ->
    #{bytes_per_iteration := Bytes, reductions_per_iteration := Reds, cpu_ns_per_iteration := Cpu,
      wall_ns_per_iteration := Wall, retries := 0} = cost(#{runner => "lists:seq(1, 100)."}),
    ?assert(abs(Bytes - words(200)) =< words(200) * 0.05, Bytes),
    ?assertEqual(words(200) * 1.0, Bytes),
    ?assert(Reds > 0, Reds),
    ?assert(Cpu >= 0 andalso Wall > 0, {Cpu, Wall}).

memory_ok() ->
    [{doc, "ok. allocates nothing and costs no reduction: the harness is subtracted"}].
memory_ok(Config) when is_list(Config) ->
    ?assertMatch(#{bytes_per_iteration := +0.0, reductions_per_iteration := +0.0},
                 cost(#{runner => "ok."})).

memory_tuple() ->
    [{doc, "erlang:make_tuple(10, a) allocates 11 words (88 bytes on 64-bit)"}].
memory_tuple(Config) when is_list(Config) ->
    Bytes = words(11) * 1.0,
    ?assertMatch(#{bytes_per_iteration := Bytes}, cost(#{runner => "erlang:make_tuple(10, a)."})).

memory_runner1() ->
    [{doc, "runner/1: init_runner runs in the cost worker and its result is the argument"}].
memory_runner1(Config) when is_list(Config) ->
    Bytes = words(20) * 1.0,
    ?assertMatch(#{bytes_per_iteration := Bytes},
                 cost(#{init_runner => "10.", runner => "runner(N) -> lists:seq(1, N)."})).

memory_runner2() ->
    [{doc, "runner/2: the state threads from call to call (one cons cell each, kept in the state)"}].
memory_runner2(Config) when is_list(Config) ->
    Bytes = words(2) * 1.0,
    ?assertMatch(#{bytes_per_iteration := Bytes},
                 cost(#{init_runner => "[].", runner => "runner(_, S) -> [a | S]."})).

memory_fun() ->
    [{doc, "A fun runner is measured the same way"}].
memory_fun(Config) when is_list(Config) ->
    Bytes = words(200) * 1.0,
    ?assertMatch(#{bytes_per_iteration := Bytes}, cost(fun () -> lists:seq(1, 100) end)).

memory_timed() ->
    [{doc, "Timed mode reports the cost too"}].
memory_timed(Config) when is_list(Config) ->
    Bytes = words(11) * 1.0,
    ?assertMatch(#{bytes_per_iteration := Bytes},
                 cost(#{runner => "erlang:make_tuple(10, a)."}, #{sample_duration => {timed, 1000}})).

memory_gc_retry() ->
    [{doc, "A runner allocating more than the first heap holds is retried with fewer iterations, and says so"}].
memory_gc_retry(Config) when is_list(Config) ->
    Bytes = words(20000) * 1.0,
    #{bytes_per_iteration := Got, retries := Retries, iterations := N} =
        cost(#{runner => "lists:seq(1, 10000)."}),
    ?assertEqual(Bytes, Got),
    ?assert(Retries > 0 andalso N < 1000, {Retries, N}).

memory_method() ->
    [{doc, "Bytes come from the call_memory trace from OTP 26 on, from heap growth before"}].
memory_method(Config) when is_list(Config) ->
    Method = case ?OTP_RELEASE >= 26 of true -> call_memory; false -> heap end,
    ?assertMatch(#{memory_method := Method, bytes_per_iteration := 1600.0},
                 cost(#{runner => "lists:seq(1, 100)."})).

memory_methods_agree() ->
    [{doc, "OTP 26+: call_memory and heap growth agree to the byte on a list, a map, two binaries, "
      "a message send and a spawned process"}].
memory_methods_agree(Config) when is_list(Config) ->
    case ?OTP_RELEASE >= 26 of
        true -> methods_agree();
        false -> {skip, "the call_memory trace needs OTP 26 or later"}
    end.

methods_agree() ->
    Shapes = [{list, "lists:seq(1, 100)."},
              {map, "maps:from_list([{K, K} || K <- lists:seq(1, 10)])."},
              {binary, "list_to_binary(lists:duplicate(20, $a))."},
              {refc_binary, "<<0:8000>>."},
              {send, #{init_runner => "spawn(fun () -> receive after infinity -> ok end end).",
                       runner => "runner(P) -> P ! {hello, [1, 2, 3]}."}},
              {spawn, "spawn(fun () -> ok end)."}],
    Measured = [{Name, both_methods(Code)} || {Name, Code} <- Shapes],
    ct:pal("bytes per call, {heap, call_memory}: ~p", [Measured]),
    [?assertEqual(Heap, Traced, Name) || {Name, {Heap, Traced}} <- Measured],
    %% what each shape allocates in the caller's heap (64-bit words), whatever the method:
    %% a refc binary's handle but not its data, nothing for a message (it is copied into the
    %% receiver's heap), the fun but not the new process's heap for a spawn
    ?assertEqual([{list, words(200)}, {map, words(94)}, {binary, words(45)}, {refc_binary, words(8)},
                  {send, 0}, {spawn, words(2)}],
                 [{Name, round(Heap)} || {Name, {Heap, _}} <- Measured]).

%% Bytes per call of one job, counted by each method.
both_methods(Code) ->
    {ok, Job} = erlperf_job:start(case is_map(Code) of true -> Code; false -> #{runner => Code} end),
    try
        #{bytes_per_iteration := Heap, memory_method := heap} = erlperf_cost:measure(Job, 1000, heap),
        #{bytes_per_iteration := Traced, memory_method := call_memory} =
            erlperf_cost:measure(Job, 1000, call_memory),
        {Heap, Traced}
    after
        ok = erlperf_job:stop(Job)
    end.

memory_traced_removed() ->
    [{doc, "OTP 26+: the call_memory pattern is removed after the batch; a runner crashing in "
      "the batch stops the job, whose module goes with its pattern"}].
memory_traced_removed(Config) when is_list(Config) ->
    case ?OTP_RELEASE >= 26 of
        true ->
            {ok, Job} = erlperf_job:start(#{runner => "lists:seq(1, 10)."}),
            #{module := Mod} = erlperf_job:info(Job),
            [Arity] = [A || {'erlperf timed_loop', A} <- Mod:module_info(functions)],
            Loop = {Mod, 'erlperf timed_loop', Arity},
            #{traced_words := 200} = erlperf_cost:batch(Job, 10, #{call_memory => true}),
            ?assertEqual({call_memory, false}, erlang:trace_info(Loop, call_memory)),
            ok = erlperf_job:stop(Job),
            {ok, Crashing} = erlperf_job:start(#{runner => "erlang:error(boom)."}),
            #{module := Mod2} = erlperf_job:info(Crashing),
            unlink(Crashing),
            Mon = monitor(process, Crashing),
            ?assertExit(_, erlperf_cost:batch(Crashing, 10, #{call_memory => true})),
            %% the crash stops the job, which unloads its module: no pattern can stay
            receive {'DOWN', Mon, process, Crashing, _} -> ok end,
            ?assertEqual(false, code:is_loaded(Mod2));
        false ->
            {skip, "the call_memory trace needs OTP 26 or later"}
    end.

memory_off() ->
    [{doc, "No cost without memory => true, nor in concurrency estimation; memory must be a boolean"}].
memory_off(Config) when is_list(Config) ->
    measured_after_run_off(memory, cost, 1).

memory_crash() ->
    [{doc, "A runner crashing in a cost worker raises {crashed, runner, _}, like a crash in the run"}].
memory_crash(Config) when is_list(Config) ->
    crash_after_run(memory).

memory_no_leak() ->
    [{doc, "A run with memory => true leaves no process, module, monitor or message behind"}].
memory_no_leak(Config) when is_list(Config) ->
    no_leak_after_run(memory).

%% Without the option, and in concurrency estimation, the result has no Key; Bad is
%% rejected as the option's value.
measured_after_run_off(Option, Key, Bad) ->
    [#{result := R1}] = erlperf:benchmark([#{runner => "ok."}], ?FAST#{report => full}, undefined),
    ?assertNot(is_map_key(Key, R1)),
    [#{result := R2}] = erlperf:benchmark([#{runner => "ok."}], ?FAST#{report => full, Option => true},
                                          #{max => 2}),
    ?assertNot(is_map_key(Key, R2)),
    ?assertError({invalid_option, Option, Bad}, erlperf:run(#{runner => "ok."}, #{Option => Bad})).

%% A runner crashing at its 500th call: after a timed run of 10 calls, in the fresh
%% worker of the measurement the option asks for.
crash_after_run(Option) ->
    T = new_table(),
    Runner = src("r() -> case ets:update_counter(~w, calls, 1) of 500 -> erlang:error(late); _ -> ok end.", T),
    ?assertError({crashed, runner, {error, late, _}},
                 erlperf:run(Runner, #{sample_duration => {timed, 10}, samples => 1, Option => true})).

no_leak_after_run(Option) ->
    Check = leak_check(),
    _ = erlperf:compare(["lists:seq(1, 10).", "ok."], ?FAST#{Option => true, compare => interleaved}),
    _ = erlperf:run("lists:seq(1, 10).", ?FAST#{Option => true, sample_duration => {timed, 100}}),
    Check().

%%--------------------------------------------------------------------
%% Parameter sweeps

sweep_runs() ->
    [{doc, "One full report per value, in order, with params, qps and best; lists:seq(1, N) slows down with N"}].
sweep_runs(Config) when is_list(Config) ->
    Check = leak_check(),
    Reports = erlperf:sweep(["lists:seq(1, N)."], #{params => [{'N', [10, 1000, 100000]}],
                                                    sample_duration => ?SHORT_MS}),
    ?assertEqual([[{'N', 10}], [{'N', 1000}], [{'N', 100000}]], [P || #{params := P} <- Reports]),
    [?assertMatch(#{mode := continuous, label := <<"lists:seq(1, N).">>,
                    code := #{runner := "lists:seq(1, N).", bindings := #{'N' := _}},
                    run_options := #{params := [{'N', [10, 1000, 100000]}], report := full},
                    result := #{ci := _}}, R) || R <- Reports],
    [Q10, Q1000, Q100000] = [Q || #{qps := Q} <- Reports],
    ?assert(Q10 > Q1000 andalso Q1000 > Q100000, {Q10, Q1000, Q100000}),
    ?assertEqual([true, false, false], [B || #{best := B} <- Reports]),
    %% a runner alone in its combination is compared with nothing
    ?assertEqual([], [C || #{comparison := C} <- Reports]),
    Check().

sweep_two_params() ->
    [{doc, "Two parameters: the cartesian product, the first changing slowest; a map is taken in name order"}].
sweep_two_params(Config) when is_list(Config) ->
    Reports = erlperf:sweep(["lists:duplicate(N, X)."], #{params => #{'X' => [a, "b"], 'N' => [1, 2, 3]},
                                                         sample_duration => 10, samples => 1}),
    ?assertEqual([[{'N', N}, {'X', X}] || N <- [1, 2, 3], X <- [a, "b"]],
                 [P || #{params := P} <- Reports]),
    ?assertEqual(1, length([R || #{best := true} = R <- Reports])).

sweep_compare() ->
    [{doc, "Several runners: each combination runs them together, compared within the combination only"}].
sweep_compare(Config) when is_list(Config) ->
    Reports = erlperf:sweep(["lists:seq(1, N).", "lists:seq(1, 2 * N).", {erlang, node, []}],
                            #{params => [{'N', [100, 10000]}], compare => sequential,
                              sample_duration => ?SHORT_MS}),
    ?assertEqual([[{'N', N}] || N <- [100, 10000], _ <- [1, 2, 3]], [P || #{params := P} <- Reports]),
    [Combination1, Combination2] = [lists:sublist(Reports, 1, 3), lists:sublist(Reports, 4, 3)],
    [begin
         %% one fastest per combination, the others compared with it (erlang:node() is)
         ?assertMatch([_], [R || R <- C, not is_map_key(comparison, R)]),
         [?assert(lists:member(A, [L || #{label := L} <- C])) || #{comparison := #{against := A}} <- C],
         [?assertMatch(#{relative := Rel} when Rel > 0, R) || R <- C]
     end || C <- [Combination1, Combination2]],
    %% the reference runner takes no parameter and runs unchanged in both
    [#{code := #{runner := {erlang, node, []}}} = R || R <- [lists:nth(3, Combination1), lists:nth(3, Combination2)]].

sweep_timed_bytes() ->
    [{doc, "Timed mode and bytes: bytes per second are iterations per second times bytes"}].
sweep_timed_bytes(Config) when is_list(Config) ->
    Reports = erlperf:sweep(["binary:copy(B, N)."], #{params => [{'N', [1, 64]}, {'B', [<<"0123456789">>]}],
                                                       bytes => "N * byte_size(B)",
                                                       sample_duration => {timed, 1000}, samples => 3}),
    [#{mode := timed, bytes_processed := 10}, #{mode := timed, bytes_processed := 640}] = Reports,
    [?assert(abs(B * Q - Bps) =< 1.0e-6 * Bps, R)
     || #{qps := Q, bytes_processed := B, bytes_per_second := Bps} = R <- Reports],
    ?assertEqual(1, length([R || #{best := true} = R <- Reports])).

sweep_squeeze() ->
    [{doc, "sweep/3 with concurrency options estimates concurrency for every combination"}].
sweep_squeeze(Config) when is_list(Config) ->
    Reports = erlperf:sweep(["timer:sleep(T)."], #{params => [{'T', [1, 2]}], sample_duration => 20,
                                                   samples => 1}, #{max => 3, threshold => 1}),
    ?assertMatch([#{mode := concurrency, params := [{'T', 1}], history := [_ | _]},
                  #{mode := concurrency, params := [{'T', 2}]}], Reports).

sweep_isolated() ->
    [{doc, "isolation => #{}: each combination's runners compile their bound code in peer nodes"}].
sweep_isolated(Config) when is_list(Config) ->
    Reports = erlperf:sweep(["lists:seq(1, N)."], #{params => [{'N', [1, 10000]}], isolation => #{},
                                                    sample_duration => ?SHORT_MS}),
    [Q1, Q10000] = [Q || #{qps := Q} <- Reports],
    ?assert(Q1 > Q10000, {Q1, Q10000}).

sweep_errors() ->
    [{doc, "Bad sweeps are refused before anything runs; benchmark/3 does not take sweep options"}].
sweep_errors(Config) when is_list(Config) ->
    Check = leak_check(),
    Self = self(),
    Init = fun () -> Self ! init_ran end,
    ?assertError({invalid_option, params, [{'N', [1]}]},
                 erlperf:benchmark(["lists:seq(1, N)."], #{params => [{'N', [1]}]}, undefined)),
    ?assertError({invalid_option, bytes, "8"}, erlperf:run("ok.", #{bytes => "8"})),
    Sweep = fun (Code, Options) -> erlperf:sweep([Code], maps:merge(?FAST, Options)) end,
    Errors = [{#{runner => "lists:seq(1, N).", init => Init}, #{params => [{n, [1]}]},
               {invalid_option, params, {n, [1]}}},
              {#{runner => "lists:seq(1, N).", init => Init}, #{params => [{'N', [1]}], report => basic},
               {invalid_option, report, basic}},
              {#{runner => "lists:seq(1, N).", init => Init}, #{params => [{'N', [1]}], bytes => {x}},
               {invalid_option, bytes, {x}}},
              {#{runner => "ok.", init => Init}, #{params => [{'N', [1]}]}, {sweep, {unused, 'N'}}},
              {#{runner => fun () -> ok end, init => Init}, #{params => [{'N', [1]}]},
               {sweep, {unused, 'N'}}},
              {#{runner => "r(N) -> N.", init_runner => "1.", init => Init}, #{params => [{'N', [1]}]},
               {bad_code, runner, {bound_in_head, 'N', 1, 3}}},
              {#{runner => "lists:seq(1, N).", init => Init}, #{params => [{'N', [1, 2]}], bytes => "1 - N"},
               {sweep, {bytes, "1 - N", [{'N', 2}], {value, -1}}}}],
    [?assertError(Reason, Sweep(Code, Options)) || {Code, Options, Reason} <- Errors],
    ?assertError({invalid_option, code, []}, erlperf:sweep([], #{})),
    ?assertError({invalid_option, run_options, x}, erlperf:sweep(["ok."], x)),
    receive init_ran -> ct:fail(init_ran) after 0 -> ok end,
    Check().

sweep_bindings() ->
    [{doc, "Code maps take bindings directly; without params a sweep is one run (bytes alone)"}].
sweep_bindings(Config) when is_list(Config) ->
    Seq = fun (N) -> erlperf:run(#{runner => "lists:seq(1, N).", bindings => #{'N' => N}}, #{sample_duration => ?SHORT_MS}) end,
    ?assert(Seq(1) > Seq(100000)),
    [#{params := [], bytes_processed := 1024, bytes_per_second := Bps, best := true, qps := Q}] =
        erlperf:sweep(["erlang:md5(<<0:8192>>)."], ?FAST#{bytes => 1024}),
    ?assertEqual(1024 * Q, Bps).

%% latency: calls timed one by one

%% The latency of each code, run together with latency => true.
latencies(Codes, Opts) ->
    Reports = erlperf:benchmark(Codes, maps:merge(?FAST#{report => full, latency => true}, Opts),
                                undefined),
    [L || #{result := #{latency := L}} <- Reports].

%% p50 =< p90 =< p99 =< p99.9 =< max, min =< p50, all figures present.
assert_ordered(#{min := Min, p50 := P50, p90 := P90, p99 := P99, p999 := P999, max := Max} = L) ->
    ?assert(0 =< Min andalso Min =< P50 andalso P50 =< P90 andalso P90 =< P99
            andalso P99 =< P999 andalso P999 =< Max, L).

latency_full() ->
    [{doc, "latency => true with report => full: result.latency holds the calls timed and their distribution"}].
latency_full(Config) when is_list(Config) ->
    #{result := #{latency := L}} =
        erlperf:run("rand:uniform().", ?FAST#{latency => true, report => full}),
    ?assertMatch(#{calls := Calls, timer_ns := T, unfinished := false, average := A, stddev := S}
                   when Calls > 0 andalso is_integer(T) andalso T >= 0 andalso is_float(A)
                        andalso is_float(S), L),
    assert_ordered(L),
    ?assertEqual(lists:sort([calls, timer_ns, unfinished, average, stddev, min, p50, p90, p99,
                             p999, max]), lists:sort(maps:keys(L))),
    %% the run options say so; a basic report is still an integer
    #{run_options := #{latency := true}} =
        erlperf:run("ok.", ?FAST#{latency => true, report => full}),
    ?assert(is_integer(erlperf:run("ok.", ?FAST#{latency => true}))).

latency_fast() ->
    [{doc, "ok. and rand:uniform() take orders of magnitude less time a call at the median "
           "than timer:sleep(1), which takes at least a millisecond"}].
latency_fast(Config) when is_list(Config) ->
    [Ok, Rand, #{p50 := SleepP50} = Sleep] =
        latencies(["ok.", "rand:uniform().", "timer:sleep(1)."], #{compare => sequential}),
    [assert_ordered(L) || L <- [Ok, Rand, Sleep]],
    %% a millisecond, less the timer's cost (subtracted from every call)
    ?assert(SleepP50 >= 900000, Sleep),
    [?assert(P50 < SleepP50 div 100, {L, Sleep}) || #{p50 := P50} = L <- [Ok, Rand]].

latency_callables() ->
    [{doc, "Runners given as {M, F, A}, as a fun and as a list of {M, F, A} are timed"}].
latency_callables(Config) when is_list(Config) ->
    Ls = latencies([{erlang, phash2, [1]}, fun () -> lists:seq(1, 10) end,
                    [{erlang, phash2, [1]}, {lists, seq, [1, 3]}]], #{}),
    ?assertMatch([_, _, _], Ls),
    [begin ?assert(Calls > 0, L), assert_ordered(L) end || #{calls := Calls} = L <- Ls].

latency_runner1() ->
    [{doc, "runner/1: the latency worker runs init_runner and the runner receives its result"}].
latency_runner1(Config) when is_list(Config) ->
    T = new_table(),
    Code = #{init_runner => "ir() -> {init, self()}.",
             runner => src("r({init, P}) -> true = P =:= self(), ets:insert(~w, {P, ok}).", T)},
    %% timed mode: one worker of 10 calls, then the latency worker, a process of its own
    [#{calls := Calls}] = latencies([Code], #{sample_duration => {timed, 10}}),
    ?assert(Calls > 0),
    ?assertEqual(2, length(ets:match(T, {'$1', ok}))).

latency_runner2() ->
    [{doc, "runner/2: the state threads from call to call in the latency worker"}].
latency_runner2(Config) when is_list(Config) ->
    T = new_table(),
    Code = #{init_runner => "0.",
             runner => src("r(_, S) -> ets:insert(~w, {self(), S}), S + 1.", T)},
    [#{calls := Calls}] = latencies([Code], #{sample_duration => {timed, 10}}),
    %% the timed worker's last state is 9; the latency worker's is its calls less one
    ?assertEqual(lists:sort([9, Calls - 1]), lists:sort([S || {P, S} <- ets:tab2list(T), is_pid(P)]),
                 Calls).

latency_compare() ->
    [{doc, "Every compare mode times every runner, in order; timed mode too"}].
latency_compare(Config) when is_list(Config) ->
    Codes = ["lists:seq(1, 10).", "ok."],
    [begin
         Ls = latencies(Codes, Opts),
         ?assertMatch([#{calls := C1}, #{calls := C2}] when C1 > 0 andalso C2 > 0, Ls, Opts),
         [assert_ordered(L) || L <- Ls]
     end || Opts <- [#{compare => parallel}, #{compare => sequential}, #{compare => interleaved},
                     #{compare => interleaved, sample_duration => {timed, 100}},
                     #{sample_duration => {timed, 100}}]].

latency_with_memory() ->
    [{doc, "latency => true and memory => true: both measurements, in one report"}].
latency_with_memory(Config) when is_list(Config) ->
    [#{result := Result}] = erlperf:benchmark([#{runner => "lists:seq(1, 100)."}],
                                              ?FAST#{report => full, latency => true, memory => true},
                                              undefined),
    Bytes = words(200) * 1.0,
    ?assertMatch(#{cost := #{bytes_per_iteration := Bytes}, latency := #{calls := C}} when C > 0,
                 Result).

latency_off() ->
    [{doc, "No latency without latency => true, nor in concurrency estimation; latency must be a boolean"}].
latency_off(Config) when is_list(Config) ->
    measured_after_run_off(latency, latency, sometimes),
    ?assertEqual("invalid value for option latency: sometimes",
                 erlperf:format_error({invalid_option, latency, sometimes})),
    ?assertEqual(false, maps:get(latency, erlperf:defaults())).

latency_crash() ->
    [{doc, "A runner crashing while its calls are timed raises {crashed, runner, _}, like a crash in the run"}].
latency_crash(Config) when is_list(Config) ->
    crash_after_run(latency),
    ?assertMatch("runner crashed: error:late" ++ _,
                 erlperf:format_error({crashed, runner, {error, late, []}})).

latency_unfinished() ->
    [{doc, "A call that never returns: the latency worker is stopped, the calls that returned are kept"}].
latency_unfinished(Config) when is_list(Config) ->
    Check = leak_check(),
    T = new_table(),
    %% 10 calls in the timed run, 10 more in the latency worker, then one that blocks
    Runner = src("r() -> case ets:update_counter(~w, calls, 1) of N when N > 20 -> receive after "
                 "infinity -> ok end; _ -> ok end.", T),
    [L] = latencies([Runner], #{sample_duration => {timed, 10}}),
    ?assertMatch(#{calls := 10, unfinished := true}, L),
    assert_ordered(L),
    Check().

latency_no_leak() ->
    [{doc, "A run with latency => true leaves no process, module, monitor or message behind"}].
latency_no_leak(Config) when is_list(Config) ->
    no_leak_after_run(latency).

%% The jobs running under the application's job supervisor.
erlperf_job_sup_children() ->
    case whereis(erlperf_job_sup) of
        undefined -> [];
        _ -> supervisor:which_children(erlperf_job_sup)
    end.
