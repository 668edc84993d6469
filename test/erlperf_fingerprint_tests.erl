-module(erlperf_fingerprint_tests).

-include_lib("eunit/include/eunit.hrl").

%% The same code map in the same project: the same fingerprint, however often asked and
%% whichever process made its funs; another code map, another one.
benchmark_test() ->
    P = erlperf_fingerprint:project(),
    Map = #{runner => "lists:seq(1, 10).", init => {lists, seq, [1, 3]}},
    F = erlperf_fingerprint:benchmark(P, Map),
    ?assertMatch(<<_:32/binary>>, F),
    ?assertEqual(F, erlperf_fingerprint:benchmark(erlperf_fingerprint:project(), Map)),
    ?assertNotEqual(F, erlperf_fingerprint:benchmark(P, Map#{runner => "lists:seq(1, 11)."})),
    Other = spawn(fun () -> ok end),
    ?assertEqual(erlperf_fingerprint:benchmark(P, #{runner => capture(self())}),
                 erlperf_fingerprint:benchmark(P, #{runner => capture(Other)})),
    ?assertNotEqual(erlperf_fingerprint:benchmark(P, #{runner => capture(self())}),
                    erlperf_fingerprint:benchmark(P, #{runner => capture(1)})),
    ?assertNotEqual(erlperf_fingerprint:benchmark(P, #{runner => fun (X) -> X end}),
                    erlperf_fingerprint:benchmark(P, #{runner => fun (X) -> {X} end})),
    ?assertNotEqual(erlperf_fingerprint:benchmark(P, #{runner => fun lists:reverse/1}),
                    erlperf_fingerprint:benchmark(P, #{runner => fun lists:sort/1})).

%% The same fun, capturing a value.
capture(Value) ->
    fun (X) -> {X, Value} end.

%% A project module changed on disk changes the project fingerprint; a rebuild of the same
%% source in another directory does not (its compile information differs, not its
%% code); a native library in the application's priv counts; a directory in OTP's root
%% does not.
project_test_() ->
    %% every beam on the code path outside OTP is read, five times: seconds on a loaded
    %% host with Elixir's applications on the path (eunit's default is 5 s)
    {timeout, 120, fun project/0}.

project() ->
    Dir = filename:join(erlperf_system:temp_dir(), "erlperf_fingerprint_" ++ os:getpid()),
    Ebin = filename:join([Dir, "app", "ebin"]),
    Ebin2 = filename:join([Dir, "other", "ebin"]),
    ok = filelib:ensure_dir(filename:join(Ebin, "x")),
    ok = filelib:ensure_dir(filename:join(Ebin2, "x")),
    Src = fun (Body) -> [{attribute, 1, module, fp_probe}, {attribute, 1, export, [{f, 0}]},
                         {function, 1, f, 0, [{clause, 1, [], [], [{integer, 1, Body}]}]}] end,
    Write = fun (D, Body) ->
                    {ok, fp_probe, Bin} = compile:forms(Src(Body), [{source, D}]),
                    ok = file:write_file(filename:join(D, "fp_probe.beam"), Bin)
            end,
    try
        Before = erlperf_fingerprint:project(),
        Write(Ebin, 1),
        true = code:add_patha(Ebin),
        One = erlperf_fingerprint:project(),
        ?assertNotEqual(Before, One),
        ?assertEqual(One, erlperf_fingerprint:project()),
        Write(Ebin, 2),
        Two = erlperf_fingerprint:project(),
        ?assertNotEqual(One, Two),
        %% the same source built elsewhere
        Write(Ebin, 1),
        Write(Ebin2, 1),
        true = code:del_path(Ebin),
        true = code:add_patha(Ebin2),
        ?assertEqual(One, erlperf_fingerprint:project()),
        %% a native library beside it
        Priv = filename:join([Dir, "other", "priv"]),
        ok = filelib:ensure_dir(filename:join(Priv, "x")),
        ok = file:write_file(filename:join(Priv, "fp_probe.so"), <<"v1">>),
        V1 = erlperf_fingerprint:project(),
        ?assertNotEqual(One, V1),
        ok = file:write_file(filename:join(Priv, "fp_probe.so"), <<"v2">>),
        ?assertNotEqual(V1, erlperf_fingerprint:project())
    after
        code:del_path(Ebin),
        code:del_path(Ebin2),
        file:del_dir_r(Dir)
    end.
