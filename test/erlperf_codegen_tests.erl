%%% @doc eunit tests of `erlperf_codegen': parsing, arity rules, dead code detection,
%%% compiler diagnostics, labels, error text, and the generated loops themselves.
%%%
%%% Generated modules are loaded only by `loops_test_', under names of their own, and
%%% purged afterwards.
-module(erlperf_codegen_tests).

-include_lib("eunit/include/eunit.hrl").

%%--------------------------------------------------------------------
%% Parsing

parse_ok_test_() ->
    Good = [#{runner => "rand:uniform()."},
            #{runner => <<"rand:uniform().">>},
            #{runner => "X = 1, X + 1."},
            #{runner => "r() -> ok."},
            #{runner => "r(X) when is_integer(X) -> X; r(_) -> 0.", init_runner => "1."},
            #{runner => "any_name(_, S) -> helper(S). helper(S) -> S + 1.", init_runner => "0."},
            #{runner => fun () -> ok end},
            #{runner => {erlang, phash2, [1]}},
            #{runner => [{erlang, phash2, [1]}, {erlang, phash2, [2]}]},
            #{runner => "ok.", init => "1.", init_runner => "ir(X) -> X.", done => "d(X) -> X."},
            #{runner => "ok.", label => "name"}],
    [?_assertEqual(ok, erlperf_codegen:check(Code)) || Code <- Good].

parse_error_test_() ->
    [?_assertEqual({error, {bad_code, runner, {parse, 1, 5, "syntax error before: '.'"}}},
                   erlperf_codegen:check(#{runner => "foo(."})),
     ?_assertMatch({error, {bad_code, runner, {parse, 2, 7, _}}},
                   erlperf_codegen:check(#{runner => "ok,\n  foo(."})),
     ?_assertMatch({error, {bad_code, runner, {parse, 1, 14, "source must end with a period (.)"}}},
                   erlperf_codegen:check(#{runner => "rand:uniform()"})),
     %% where a scanner error is reported is the scanner's: 1 up to OTP 28, 2 from 29
     ?_assertMatch({error, {bad_code, runner, {parse, 1, C, _}}} when C >= 1,
                   erlperf_codegen:check(#{runner => "\"abc."})),
     ?_assertMatch({error, {bad_code, runner, {parse, 1, 8, _}}},
                   erlperf_codegen:check(#{runner => "x = 1. y."})),
     ?_assertMatch({error, {bad_code, runner, {parse, 1, 12, _}}},
                   erlperf_codegen:check(#{runner => "f(X) -> X. 1."})),
     ?_assertMatch({error, {bad_code, init, {parse, 2, _, _}}},
                   erlperf_codegen:check(#{runner => "ok.", init => "i() ->\n )."})),
     ?_assertMatch({error, {bad_code, done, {parse, _, _, _}}},
                   erlperf_codegen:check(#{runner => "ok.", done => "   "}))].

bad_callable_test_() ->
    [?_assertEqual({error, {bad_code, runner, {bad_callable, 42}}}, erlperf_codegen:check(#{runner => 42})),
     ?_assertEqual({error, {bad_code, runner, {bad_callable, 42}}}, erlperf_codegen:check(42)),
     ?_assertEqual({error, {bad_code, runner, {bad_callable, []}}}, erlperf_codegen:check(#{runner => ""})),
     ?_assertEqual({error, {bad_code, runner, {bad_callable, {a, b, c}}}},
                   erlperf_codegen:check(#{runner => [{a, b, c}]})),
     ?_assertEqual({error, {bad_code, init, {bad_callable, {1, 2}}}},
                   erlperf_codegen:check(#{runner => "ok.", init => {1, 2}})),
     ?_assertEqual({error, {bad_code, runner, {bad_callable, 42}}}, erlperf_codegen:generate(#{runner => 42}, unused))].

%%--------------------------------------------------------------------
%% Arity rules

arity_test_() ->
    Bad = [{#{runner => "r(X) -> X."}, runner, 1},
           {#{runner => fun (X) -> X end, init => "1."}, runner, 1},
           {#{runner => "r(X, Y) -> {X, Y}."}, runner, 2},
           {#{runner => "r(A, B, C) -> {A, B, C}.", init_runner => "1."}, runner, 3},
           {#{runner => fun (A, B, C) -> {A, B, C} end, init_runner => "1."}, runner, 3},
           {#{runner => "ok.", init_runner => "ir(X) -> X."}, init_runner, 1},
           {#{runner => "ok.", init_runner => fun (X, Y) -> {X, Y} end, init => "1."}, init_runner, 2},
           {#{runner => "ok.", done => fun (X) -> X end}, done, 1},
           {#{runner => "ok.", done => "d(X, Y) -> {X, Y}.", init => "1."}, done, 2},
           {#{runner => "ok.", init => "i(X) -> X."}, init, 1}],
    [?_assertMatch({error, {bad_code, Role, {arity, Arity, Why}}} when is_list(Why),
                   erlperf_codegen:check(Code)) || {Code, Role, Arity} <- Bad].

generated_arity_test_() ->
    Arity = fun (Code) -> {ok, #{arity := A}} = erlperf_codegen:generate(Code, erlperf_codegen_tests_arity), A end,
    [?_assertEqual(0, Arity(#{runner => "ok."})),
     ?_assertEqual(0, Arity(#{runner => {erlang, node, []}})),
     ?_assertEqual(0, Arity(#{runner => [{erlang, node, []}]})),
     ?_assertEqual(1, Arity(#{runner => "r(X) -> X.", init_runner => "1."})),
     ?_assertEqual(2, Arity(#{runner => fun (_, S) -> S end, init_runner => "1."})),
     ?_assertEqual(0, Arity(#{runner => fun () -> ok end, init_runner => "1."}))].

%%--------------------------------------------------------------------
%% Generation, warnings, compile errors

generate_test() ->
    {ok, Gen} = erlperf_codegen:generate(#{runner => "erlang:phash2(1).", init => fun () -> 1 end,
                                           done => "d(_) -> ok."}, erlperf_codegen_tests_gen),
    ?assertMatch(#{module := erlperf_codegen_tests_gen, binary := <<_/binary>>, forms := [_ | _],
                   context := {F}, arity := 0, roles := [init, runner, done], warnings := [],
                   label := <<"erlang:phash2(1).">>} when is_function(F, 0), Gen),
    %% pure: nothing is loaded
    ?assertNot(erlang:module_loaded(erlperf_codegen_tests_gen)).

dead_code_test_() ->
    CodeWarnings = fun (Code) ->
                           {ok, #{warnings := W}} = erlperf_codegen:generate(Code, erlperf_codegen_tests_dead),
                           W
                   end,
    Warnings = fun (Runner) -> CodeWarnings(#{runner => Runner}) end,
    [?_assertEqual([{dead_code, runner}], Warnings("erlang:node().")),
     ?_assertEqual([{dead_code, runner}], Warnings("ok.")),
     ?_assertEqual([{dead_code, runner}], Warnings("1 + 2.")),
     ?_assertEqual([{dead_code, runner}], Warnings({erlang, node, []})),
     ?_assertEqual([], Warnings("erlang:phash2(1).")),
     ?_assertEqual([], Warnings("rand:uniform().")),
     ?_assertEqual([], Warnings(fun () -> ok end)),
     ?_assertEqual([], Warnings({erlang, phash2, [1]})),
     ?_assertEqual([], Warnings("r() -> ok.")),
     %% a runner of its own is called, never inlined: not dead, whatever its arity
     ?_assertEqual([], CodeWarnings(#{init_runner => "1.", runner => "r(_) -> ok."})),
     ?_assertEqual([], CodeWarnings(#{init_runner => "1.", runner => "r(_, S) -> S."})),
     %% several calls replayed: dead only when every one is
     ?_assertEqual([{dead_code, runner}], Warnings([{erlang, node, []}, {erlang, self, []}])),
     ?_assertEqual([], Warnings([{erlang, node, []}, {rand, uniform, []}])),
     %% a bound value propagated into a pure expression
     ?_assertEqual([{dead_code, runner}], CodeWarnings(#{runner => "N + 1.", bindings => #{'N' => 1}})),
     %% "no effect" warnings are not repeated as compiler warnings
     ?_assertEqual([{dead_code, runner}], Warnings("erlang:self()."))].

compiler_warning_test_() ->
    Gen = fun (Code) -> {ok, #{warnings := W}} = erlperf_codegen:generate(Code, erlperf_codegen_tests_warn), W end,
    [?_assertEqual([{compiler, runner, 1, 8, "variable 'X' is unused"}],
                   Gen(#{runner => "r() -> X = 1, erlang:phash2(2)."})),
     ?_assertMatch([{compiler, init, 2, 3, "variable 'Y' is unused"}],
                   Gen(#{runner => "erlang:phash2(1).", init => "i() ->\n  Y = 1, ok."}))].

compile_error_test_() ->
    Gen = fun (Code) -> erlperf_codegen:generate(Code, erlperf_codegen_tests_err) end,
    [?_assertEqual({error, {bad_code, runner, {compile, [{1, 8, "variable 'Y' is unbound"}]}}},
                   Gen(#{runner => "r() -> Y."})),
     ?_assertEqual({error, {bad_code, runner, {compile, [{2, 5, "variable 'Y' is unbound"}]}}},
                   Gen(#{runner => "r() ->\n    Y."})),
     ?_assertEqual({error, {bad_code, init, {compile, [{2, 3, "variable 'Z' is unbound"}]}}},
                   Gen(#{runner => "ok.", init => "i() ->\n  Z."})),
     ?_assertMatch({error, {bad_code, done, {compile, [{1, _, _} | _]}}},
                   Gen(#{runner => "ok.", done => "d() -> undefined_local()."})),
     %% the runner is inlined into two loops, but the user wrote one error
     ?_assertEqual({error, {bad_code, runner, {compile, [{1, 1, "variable 'X' is unbound"}]}}},
                   Gen(#{runner => "X + 1."}))].

no_files_written_test() ->
    {ok, Cwd} = file:get_cwd(),
    Dir = filename:join(tmp_dir(), "erlperf_codegen_tests_" ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = file:make_dir(Dir),
    ok = file:set_cwd(Dir),
    try
        {ok, _} = erlperf_codegen:generate(#{runner => "rand:uniform()."}, erlperf_codegen_tests_files),
        {error, _} = erlperf_codegen:generate(#{runner => "r() -> Y."}, erlperf_codegen_tests_files),
        ?assertEqual({ok, []}, file:list_dir(Dir))
    after
        ok = file:set_cwd(Cwd),
        _ = file:del_dir_r(Dir)
    end.

%%--------------------------------------------------------------------
%% The generated loops, loaded and called

%% Each with a timeout of its own (the loops run for real: a loaded machine slows them).
loops_test_() ->
    [{timeout, 60, Test}
     || Test <- [fun runner2_threads_state/0, fun runner1_gets_init_runner/0, fun role_calls/0,
                 fun continuous_publishes/0, fun helpers_do_not_clash/0,
                 fun latency_fills_slots/0, fun latency_stops_at_deadline/0,
                 fun latency_threads_state/0]].

runner2_threads_state() ->
    Self = self(),
    Mod = load(#{init_runner => "10.", runner => fun (10, S) -> Self ! {state, S}, S + 1 end}, erlperf_codegen_tests_r2),
    try
        Ns = Mod:'erlperf timed'(4, 10, context(Mod)),
        ?assert(is_integer(Ns) andalso Ns >= 0),
        ?assertEqual([10, 11, 12, 13], drain(state))
    after
        unload(Mod)
    end.

runner1_gets_init_runner() ->
    Self = self(),
    Mod = load(#{init_runner => "7.", runner => fun (I) -> Self ! {arg, I} end}, erlperf_codegen_tests_r1),
    try
        _ = Mod:'erlperf timed'(3, 7, context(Mod)),
        ?assertEqual([7, 7, 7], drain(arg))
    after
        unload(Mod)
    end.

role_calls() ->
    Mod = load(#{init => "i() -> 5.", init_runner => "ir(X) -> X * 2.", runner => "ok.",
                 done => "d(X) -> {done, X}."}, erlperf_codegen_tests_roles),
    try
        Ctx = context(Mod),
        ?assertEqual(5, Mod:'erlperf call'(init, undefined, Ctx)),
        ?assertEqual(10, Mod:'erlperf call'(init_runner, 5, Ctx)),
        ?assertEqual({done, 5}, Mod:'erlperf call'(done, 5, Ctx)),
        ?assertError({undefined_role, runner}, Mod:'erlperf call'(runner, 5, Ctx))
    after
        unload(Mod)
    end.

continuous_publishes() ->
    Mod = load(#{runner => "erlang:phash2(12345)."}, erlperf_codegen_tests_pub),
    Ref = atomics:new(16, [{signed, true}]),
    try
        Worker = spawn(fun () ->
                           _ = put('$erlperf_publish', {Ref, 1, erlang:monotonic_time()}),
                           Mod:'erlperf run'(1, undefined, context(Mod))
                       end),
        ?assert(erlperf_test_lib:wait_for(fun () -> atomics:get(Ref, 1) > 100000 end, 10000)),
        exit(Worker, kill),
        %% slot 2: when the last batch was credited; 3: how long it should take; 4: its size
        ?assert(atomics:get(Ref, 2) =< erlang:monotonic_time()),
        ?assert(atomics:get(Ref, 3) > 0),
        ?assert(atomics:get(Ref, 4) > 0),
        %% nothing else is written
        ?assertEqual([0], lists:usort([atomics:get(Ref, I) || I <- lists:seq(5, 16)]))
    after
        unload(Mod)
    end.

helpers_do_not_clash() ->
    Mod = load(#{init => "i() -> helper(). helper() -> 1.",
                 init_runner => "ir(X) -> helper(X). helper(X) -> X + 1.",
                 runner => "r(X) -> helper(X). helper(2) -> ok."}, erlperf_codegen_tests_helpers),
    try
        Ctx = context(Mod),
        ?assertEqual(1, Mod:'erlperf call'(init, undefined, Ctx)),
        ?assertEqual(2, Mod:'erlperf call'(init_runner, 1, Ctx)),
        ?assert(is_integer(Mod:'erlperf timed'(10, 2, Ctx)))
    after
        unload(Mod)
    end.

%% The latency loop writes one duration a call, from the last slot down, and returns
%% the slots left: none when the array fills before the deadline.
latency_fills_slots() ->
    Mod = load(#{runner => "erlang:phash2(12345)."}, erlperf_codegen_tests_lat),
    Ref = atomics:new(5, [{signed, true}]),
    try
        [ok = atomics:put(Ref, I, -1) || I <- lists:seq(1, 5)],
        Far = erlang:monotonic_time() + erlang:convert_time_unit(60, second, native),
        ?assertEqual(0, Mod:'erlperf latency'(5, Ref, Far, undefined, context(Mod))),
        ?assert(lists:all(fun (I) -> atomics:get(Ref, I) >= 0 end, lists:seq(1, 5))),
        %% a count below the array's size leaves the first slots alone
        [ok = atomics:put(Ref, I, -1) || I <- lists:seq(1, 5)],
        ?assertEqual(0, Mod:'erlperf latency'(2, Ref, Far, undefined, context(Mod))),
        ?assertEqual([-1, -1, -1], [atomics:get(Ref, I) || I <- lists:seq(3, 5)])
    after
        unload(Mod)
    end.

%% A deadline already past: one call is timed (in the last slot), the rest are left.
latency_stops_at_deadline() ->
    Self = self(),
    Mod = load(#{runner => fun () -> Self ! called end}, erlperf_codegen_tests_lat_deadline),
    Ref = atomics:new(10, [{signed, true}]),
    try
        Past = erlang:monotonic_time() - 1,
        ?assertEqual(9, Mod:'erlperf latency'(10, Ref, Past, undefined, context(Mod))),
        ?assertEqual([called], [M || M <- drain_all()]),
        ?assert(atomics:get(Ref, 10) >= 0)
    after
        unload(Mod)
    end.

%% runner/2: the state threads from call to call, starting from init_runner's result.
latency_threads_state() ->
    Self = self(),
    Mod = load(#{init_runner => "10.", runner => fun (10, S) -> Self ! {state, S}, S + 1 end},
               erlperf_codegen_tests_lat_r2),
    Ref = atomics:new(4, [{signed, true}]),
    try
        Far = erlang:monotonic_time() + erlang:convert_time_unit(60, second, native),
        ?assertEqual(0, Mod:'erlperf latency'(4, Ref, Far, 10, context(Mod))),
        ?assertEqual([10, 11, 12, 13], drain(state))
    after
        unload(Mod)
    end.

drain_all() ->
    receive M -> [M | drain_all()]
    after 0 -> []
    end.

%%--------------------------------------------------------------------
%% Bindings: values of variables in source text

bound_loop_is_literal_loop_test_() ->
    %% the compiler propagates the bound value: the worker loop is the one written by hand
    Same = fun (Bound, Bindings, Literal) ->
                   ?_assertEqual(loop_asm(#{runner => Literal}),
                                 loop_asm(#{runner => Bound, bindings => Bindings}))
           end,
    [Same("lists:seq(1, N).", #{'N' => 100}, "lists:seq(1, 100)."),
     Same("binary:copy(B, N).", #{'B' => <<"ab">>, 'N' => 3}, "binary:copy(<<\"ab\">>, 3)."),
     Same("lists:member(X, L).", #{'X' => foo, 'L' => [a, "b", {c, 1.5}]},
          "lists:member(foo, [a, \"b\", {c, 1.5}]).")].

bound_values_test() ->
    Mod = load(#{init => "i() -> {init, N}.", init_runner => "ir(_) -> S.",
                 runner => "r(X) when X =:= S -> erlang:phash2(X); r(_) -> error(wrong).",
                 done => "d(_) -> {N, S}.", bindings => #{'N' => 7, 'S' => "text"}},
               erlperf_codegen_tests_bound),
    try
        Ctx = context(Mod),
        ?assertEqual({init, 7}, Mod:'erlperf call'(init, undefined, Ctx)),
        ?assertEqual("text", Mod:'erlperf call'(init_runner, x, Ctx)),
        ?assertEqual({7, "text"}, Mod:'erlperf call'(done, x, Ctx)),
        %% the guard sees the value: no function_clause for "text"
        ?assert(is_integer(Mod:'erlperf timed'(3, "text", Ctx)))
    after
        unload(Mod)
    end.

bindings_left_alone_test_() ->
    %% unused bindings, funs and {M, F, A} are compiled as they are, without warnings
    Warnings = fun (Code) ->
                       {ok, #{warnings := W}} = erlperf_codegen:generate(Code#{bindings => #{'N' => 1}},
                                                                         erlperf_codegen_tests_unused),
                       W
               end,
    [?_assertEqual([], Warnings(#{runner => "erlang:phash2(2)."})),
     ?_assertEqual([], Warnings(#{runner => {erlang, phash2, [2]}})),
     ?_assertEqual([], Warnings(#{runner => fun () -> ok end, init => "i() -> 1."}))].

bound_in_head_test_() ->
    [?_assertEqual({error, {bad_code, runner, {bound_in_head, 'N', 1, 3}}},
                   erlperf_codegen:check(#{runner => "r(N) -> N.", init_runner => "1.",
                                           bindings => #{'N' => 1}})),
     ?_assertEqual({error, {bad_code, done, {bound_in_head, 'N', 2, 3}}},
                   erlperf_codegen:check(#{runner => "ok.", init => "1.", done => "d(0) -> ok;\nd(N) -> N.",
                                           bindings => #{'N' => 1}})),
     %% a fun inside the body has arguments of its own (it shadows, as Erlang does)
     ?_assertEqual(ok, erlperf_codegen:check(#{runner => "F = fun (N) -> N end, F(2).",
                                               bindings => #{'N' => 1}}))].

bad_bindings_test_() ->
    Bad = [#{n => 1}, #{'_' => 1}, #{'N' => self()}, #{'N' => [fun erlang:node/0]}, [{'N', 1}],
           #{"N" => 1}],
    [?_assertEqual({error, {bad_code, runner, {bad_bindings, B}}},
                   erlperf_codegen:check(#{runner => "ok.", bindings => B})) || B <- Bad].

variables_test_() ->
    [?_assertEqual(['X', 'N'], erlperf_codegen:variables(#{runner => "X = N, N + X."})),
     ?_assertEqual(['S', 'N'], erlperf_codegen:variables(#{runner => {erlang, node, []},
                                                           init => <<"S.">>, done => "_ = N, _X = 1."})
                               -- ['_X']),
     ?_assertEqual([], erlperf_codegen:variables(#{runner => fun () -> ok end})),
     ?_assertEqual([], erlperf_codegen:variables(#{runner => "\"unterminated."}))].

is_variable_test_() ->
    [?_assert(erlperf_codegen:is_variable(V)) || V <- ['N', 'Size', '_Pool', 'A1', 'Ärger']] ++
    [?_assertNot(erlperf_codegen:is_variable(V)) || V <- [n, '_', 'N M', 'N(', '', "N", 1]].

%%--------------------------------------------------------------------
%% Labels, source, error text

label_test_() ->
    [?_assertEqual(<<"mine">>, erlperf_codegen:label(#{runner => "ok.", label => "mine"})),
     ?_assertEqual(<<"mine">>, erlperf_codegen:label(#{runner => "ok.", label => <<"mine">>})),
     ?_assertEqual(<<"ok.">>, erlperf_codegen:label(#{runner => "ok."})),
     ?_assertEqual(<<"ok.">>, erlperf_codegen:label(#{runner => <<"ok.">>})),
     ?_assertEqual(<<"{erlang,phash2,[1]}">>, erlperf_codegen:label(#{runner => {erlang, phash2, [1]}})),
     ?_assertEqual(<<"[{erlang,phash2,[1]}]">>, erlperf_codegen:label(#{runner => [{erlang, phash2, [1]}]})),
     ?_assertEqual(<<"fun erlang:node/0">>, erlperf_codegen:label(#{runner => fun erlang:node/0})),
     %% an Elixir module's function as Elixir writes its capture
     ?_assertEqual(<<"&Enum.sum/1">>, erlperf_codegen:label(#{runner => fun 'Elixir.Enum':sum/1})),
     %% an interpreted fun by its clauses, on one line
     ?_assertEqual(<<"fun(X) -> lists:seq(1, X + N) end">>,
                   erlperf_codegen:label(#{runner => eval("fun (X) ->\n  lists:seq(1, X + N)\nend.",
                                                          [{'N', 5}])})),
     ?_assertEqual(<<"ünïcode"/utf8>>, erlperf_codegen:label(#{runner => "ok.", label => "ünïcode"}))].

source_test() ->
    Text = lists:flatten(io_lib:format("~ts", [erlperf_codegen:source(#{runner => "erlang:phash2(12345)."})])),
    ?assertNotEqual(nomatch, string:find(Text, "erlang:phash2(12345)")),
    ?assertNotEqual(nomatch, string:find(Text, "-module(")),
    ?assertError({bad_code, runner, {parse, 1, 5, _}}, erlperf_codegen:source(#{runner => "foo(."})).

format_error_test_() ->
    Details = [{{parse, 1, 5, "syntax error before: '.'"}, ["line 1", "column 5", "syntax error"]},
               {{compile, [{2, 3, "variable 'Z' is unbound"}, {4, 1, "other"}]}, ["line 2", "column 3", "'Z'"]},
               {{arity, 3, "a runner takes 0, 1 or 2 arguments"}, ["3", "0, 1 or 2"]},
               {{bad_callable, {1, 2}}, ["{1,2}"]},
               {{bad_callable, "multi\nline"}, ["multi"]},
               {{bad_bindings, #{n => 1}}, ["variable names", "#{n => 1}"]},
               {{bound_in_head, 'N', 2, 3}, ["parameter N", "line 2", "column 3", "function head"]}],
    [{lists:flatten(io_lib:format("~0p", [D])),
      fun () ->
              Text = erlperf_codegen:format_error(D),
              ?assert(io_lib:printable_unicode_list(Text), Text),
              ?assertEqual(nomatch, string:find(Text, "\n")),
              [?assertNotEqual(nomatch, string:find(Text, W), {Text, W}) || W <- Words]
      end} || {D, Words} <- Details].

%%--------------------------------------------------------------------
%% Funs: external funs are remote calls, interpreted funs are compiled

external_fun_test_() ->
    {ok, #{context := Ctx, forms := Forms, warnings := Warnings}} =
        erlperf_codegen:generate(#{runner => fun lists:seq/2, init_runner => "{1, 10}.",
                                   init => fun erlang:node/0}, erlperf_codegen_tests_ext),
    Source = lists:flatten([erl_pp:form(F) || F <- Forms]),
    [%% no fun in the context: the loop calls lists:seq/2 and the init erlang:node/0
     ?_assertEqual({}, Ctx),
     ?_assertEqual([], Warnings),
     ?_assertNotEqual(nomatch, string:find(Source, "lists:seq(")),
     ?_assertNotEqual(nomatch, string:find(Source, "node()")),
     %% and it runs: arity 2 gets the init_runner result and the state
     {timeout, 60,
      ?_assert(is_integer(erlperf:run(#{runner => fun erlang:phash2/1, init_runner => "42."},
                                      #{sample_duration => 20, samples => 1})))}].

interpreted_fun_test_() ->
    Seq = eval("fun () -> lists:seq(1, N) end.", [{'N', 100}]),
    {ok, #{context := Ctx, forms := Forms, warnings := Warnings}} =
        erlperf_codegen:generate(#{runner => Seq}, erlperf_codegen_tests_eval),
    Source = lists:flatten([erl_pp:form(F) || F <- Forms]),
    State = eval("fun (L) -> lists:reverse(L) end.", []),
    [%% compiled: its body inlined into the loop, its binding a match in front of it
     ?_assertEqual({}, Ctx),
     ?_assertEqual([], Warnings),
     ?_assertEqual(nomatch, string:find(Source, "'runner fun'")),
     ?_assertNotEqual(nomatch, string:find(Source, "N = 100")),
     ?_assertNotEqual(nomatch, string:find(Source, "lists:seq(1, N)")),
     %% a fun of arguments: a function of the module
     ?_assertMatch({ok, #{context := {}, forms := [_ | _]}},
                   erlperf_codegen:generate(#{runner => State, init_runner => "[1]."}, erlperf_codegen_tests_state)),
     ?_test(begin
                {ok, #{forms := StateForms}} =
                    erlperf_codegen:generate(#{runner => State, init_runner => "[1]."}, erlperf_codegen_tests_state),
                ?assertNotEqual(nomatch, string:find(lists:flatten([erl_pp:form(F) || F <- StateForms]),
                                                     "'runner fun'(L) ->"))
            end),
     %% it runs, and so does one taking the init_runner result
     {timeout, 60, ?_assert(erlperf:run(Seq, #{sample_duration => 20, samples => 1}) > 0)},
     {timeout, 60,
      ?_assert(erlperf:run(#{runner => State, init_runner => eval("fun () -> [1, 2, 3] end.", [])},
                           #{sample_duration => 20, samples => 1}) > 0)},
     %% a dead body is found as in source text
     ?_assertMatch({ok, #{warnings := [{dead_code, runner}]}},
                   erlperf_codegen:generate(#{runner => eval("fun () -> ok end.", [])}, erlperf_codegen_tests_dead))].

%% Funs erl_eval made that cannot be compiled stay funs, with a warning.
interpreted_left_test_() ->
    Self = self(),
    Pid = eval("fun () -> P ! hello end.", [{'P', Self}]),
    Local = eval("fun () -> shell_only(1) end.", [], {value, fun (shell_only, [X]) -> X end}),
    [?_assertMatch({ok, #{context := {_}, warnings := [{interpreted, runner}]}},
                   erlperf_codegen:generate(#{runner => Pid}, erlperf_codegen_tests_pid)),
     ?_assertMatch({ok, #{context := {_}, warnings := [{interpreted, runner}]}},
                   erlperf_codegen:generate(#{runner => Local}, erlperf_codegen_tests_local)),
     %% an auto-imported BIF is not a shell function
     ?_assertMatch({ok, #{context := {}, warnings := []}},
                   erlperf_codegen:generate(#{runner => eval("fun () -> put(k, 1) end.", [])},
                                            erlperf_codegen_tests_bif)),
     %% a fun of compiled code is called as a fun, and is no interpreted one
     ?_assertMatch({ok, #{context := {_}, warnings := []}},
                   erlperf_codegen:generate(#{runner => fun () -> ok end}, erlperf_codegen_tests_compiled)),
     %% the run says what interpreting costs
     {timeout, 60,
      ?_test(begin
                 #{interpreted_call_ns := Ns, warnings := [{interpreted, runner}]} =
                     erlperf:run(Pid, #{sample_duration => 20, samples => 1, report => full}),
                 ?assert(is_float(Ns) andalso Ns >= 0, Ns),
                 drain(hello)
             end)}].

%%--------------------------------------------------------------------
%% Helpers

%% A fun made by erl_eval from source text, with bindings and a local function handler.
eval(Text, Bindings) ->
    eval(Text, Bindings, none).

eval(Text, Bindings, LocalHandler) ->
    {ok, Tokens, _} = erl_scan:string(Text),
    {ok, [Expr]} = erl_parse:parse_exprs(Tokens),
    Bound = lists:foldl(fun ({K, V}, B) -> erl_eval:add_binding(K, V, B) end, erl_eval:new_bindings(), Bindings),
    {value, Fun, _} = erl_eval:expr(Expr, Bound, LocalHandler),
    Fun.

%% The worker loop's instructions, without line information.
loop_asm(Code) ->
    {ok, #{forms := Forms}} = erlperf_codegen:generate(Code, erlperf_codegen_tests_asm),
    %% to_asm with binary: the assembly is returned, no file is written
    {ok, _, Asm} = compile:noenv_forms(Forms, [to_asm, binary]),
    {Loop, _Reference} = erlperf_codegen:loops(Asm),
    Loop.

load(Code, Mod) ->
    {ok, #{binary := Bin, context := Ctx}} = erlperf_codegen:generate(Code, Mod),
    {module, Mod} = code:load_binary(Mod, "erlperf_codegen_tests", Bin),
    put({context, Mod}, Ctx),
    Mod.

context(Mod) ->
    get({context, Mod}).

unload(Mod) ->
    _ = code:delete(Mod),
    _ = code:purge(Mod),
    ok.

drain(Tag) ->
    receive {Tag, V} -> [V | drain(Tag)]
    after 0 -> []
    end.

tmp_dir() ->
    case os:getenv("TMPDIR") of
        false -> "/tmp";
        Dir -> Dir
    end.
