%%% @doc Tests of `erlperf_sweep''s pure parts: reading `--param' values, combinations,
%%% option checks, and the orchestration of `run/3' with a measuring fun that returns
%%% built reports (nothing is benchmarked here: erlperf_SUITE and erlperf_cli_SUITE run
%%% real sweeps).
-module(erlperf_sweep_tests).

-include_lib("eunit/include/eunit.hrl").

%%--------------------------------------------------------------------
%% --param NAME=V1,V2,...

parse_param_test_() ->
    Good = [{"N=10,100,1000", {'N', [10, 100, 1000]}},
            {"N=1", {'N', [1]}},
            {"Size= 1 , 2 ", {'Size', [1, 2]}},
            {"F=-1.5,0.25,1.0e3", {'F', [-1.5, 0.25, 1.0e3]}},
            %% commas inside brackets and quotes do not separate values
            {"L=[1,2],[3],[]", {'L', [[1, 2], [3], []]}},
            {"S=a,\"b,c\",<<\"d,e\">>,'f,g'", {'S', [a, "b,c", <<"d,e">>, 'f,g']}},
            {"T={a,1},#{k => [1,2]},{}", {'T', [{a, 1}, #{k => [1, 2]}, {}]}},
            {"B=<<1,2>>,<<>>", {'B', [<<1, 2>>, <<>>]}},
            %% 1 and 1.0 are different values
            {"X=1,1.0", {'X', [1, 1.0]}},
            {"_Pool=1", {'_Pool', [1]}},
            {"Ärger=ü", {'Ärger', ['ü']}}],
    [?_assertEqual({ok, Expected}, erlperf_sweep:parse_param(Text)) || {Text, Expected} <- Good].

parse_param_error_test_() ->
    Bad = [{"n=1", "'n' is not a variable name"},
           {"_=1", "'_' is not a variable name"},
           {"N M=1", "'N M' is not a variable name"},
           {"=1", "'' is not a variable name"},
           {"N", "'N' is not NAME=V1,V2,..."},
           {"", "'' is not NAME=V1,V2,..."},
           {"N=", "N has no values"},
           {"N=  ", "N has no values"},
           {"N=1,,2", "N: empty value in '1,,2'"},
           {"N=1,", "N: empty value in '1,'"},
           {"N=,1", "N: empty value in ',1'"},
           {"N=foo(", "N: 'foo(' is not an Erlang term"},
           {"N=1, foo(), 2", "N: 'foo()' is not an Erlang term"},
           {"N=X", "N: 'X' is not an Erlang term"},
           {"N=1 + 2", "N: '1 + 2' is not an Erlang term"},
           {"N=[1,2", "N: '[1,2' is not an Erlang term"},
           {"N=\"abc", "N: '\"abc': unterminated string"},
           {"N=1,2,1", "N: value 1 is given twice"},
           {"N=a,'a'", "N: value a is given twice"}],
    [{Text, fun () ->
                    {error, Message} = erlperf_sweep:parse_param(Text),
                    ?assert(lists:prefix(Expected, Message), {Text, Message}),
                    one_line(Message)
            end} || {Text, Expected} <- Bad].

parse_bytes_test_() ->
    [?_assertMatch({ok, [_]}, erlperf_sweep:parse_bytes("N * 8")),
     ?_assertMatch({ok, [_]}, erlperf_sweep:parse_bytes(<<"N * 8.">>)),
     ?_assertMatch({ok, [_, _]}, erlperf_sweep:parse_bytes("B = N * 8, B + 1")),
     ?_assertEqual({error, "empty expression"}, erlperf_sweep:parse_bytes("  ")),
     ?_assertMatch({error, "syntax error" ++ _}, erlperf_sweep:parse_bytes("N *")),
     ?_assertMatch({error, "unterminated" ++ _}, erlperf_sweep:parse_bytes("\"N"))].

%%--------------------------------------------------------------------
%% Combinations

combinations_test_() ->
    [?_assertEqual([[]], erlperf_sweep:combinations([])),
     ?_assertEqual([[{'N', 1}], [{'N', 2}]], erlperf_sweep:combinations([{'N', [1, 2]}])),
     %% the first parameter changes slowest
     ?_assertEqual([[{'P', a}, {'N', 1}], [{'P', a}, {'N', 2}], [{'P', a}, {'N', 3}],
                    [{'P', b}, {'N', 1}], [{'P', b}, {'N', 2}], [{'P', b}, {'N', 3}]],
                   erlperf_sweep:combinations([{'P', [a, b]}, {'N', [1, 2, 3]}])),
     ?_assertEqual(2 * 3 * 4, length(erlperf_sweep:combinations([{'A', [1, 2]}, {'B', [1, 2, 3]},
                                                                  {'C', [1, 2, 3, 4]}])))].

bound_codes_test() ->
    Codes = [#{runner => "lists:seq(1, N)."}, #{runner => {erlang, node, []}}],
    ?assertEqual(Codes, erlperf_sweep:bound_codes(Codes, [])),
    ?assertEqual([#{runner => "lists:seq(1, N).", bindings => #{'N' => 1}},
                  #{runner => {erlang, node, []}, bindings => #{'N' => 1}},
                  #{runner => "lists:seq(1, N).", bindings => #{'N' => 2}},
                  #{runner => {erlang, node, []}, bindings => #{'N' => 2}}],
                 erlperf_sweep:bound_codes(Codes, [{'N', [1, 2]}])).

%%--------------------------------------------------------------------
%% Options

options_test_() ->
    Opts = fun (Extra) -> erlperf_sweep:options(maps:merge(#{params => [], bytes => undefined}, Extra)) end,
    [?_assertEqual({#{params => [{'N', [1, 2]}], bytes => undefined}, #{samples => 2}},
                   Opts(#{params => [{'N', [1, 2]}], samples => 2})),
     %% a map's parameters go in the order of their names
     ?_assertEqual({#{params => [{'A', [x]}, {'B', [1]}], bytes => "A"}, #{report => full}},
                   Opts(#{params => #{'B' => [1], 'A' => [x]}, bytes => "A", report => full})),
     ?_assertMatch({#{bytes := 8}, _}, Opts(#{bytes => 8})),
     ?_assertMatch({#{bytes := <<"N * 8">>}, _}, Opts(#{bytes => <<"N * 8">>}))].

bad_options_test_() ->
    Opts = fun (Extra) -> erlperf_sweep:options(maps:merge(#{params => [], bytes => undefined}, Extra)) end,
    BadParams = [{#{params => 'N'}, 'N'},
                 {#{params => [n]}, n},
                 {#{params => [{n, [1]}]}, {n, [1]}},
                 {#{params => [{'N', []}]}, {'N', []}},
                 {#{params => [{'N', 1}]}, {'N', 1}},
                 {#{params => [{'N', [1 | 2]}]}, {'N', [1 | 2]}},
                 {#{params => [{'N', [1, 1]}]}, {'N', [1, 1]}},
                 {#{params => [{'N', [self()]}]}, {'N', [self()]}},
                 {#{params => [{'N', [1]}, {'N', [2]}]}, {'N', [1]}},
                 {#{params => #{"N" => [1]}}, {"N", [1]}}],
    [?_assertError({invalid_option, params, Bad}, Opts(Options)) || {Options, Bad} <- BadParams] ++
    [?_assertError({invalid_option, bytes, Bad}, Opts(#{bytes => Bad}))
     || Bad <- [-1, bytes, "N *", <<"">>, [x]]] ++
    [?_assertError({invalid_option, report, basic}, Opts(#{report => basic})),
     ?_assertError({sweep, {too_many_combinations, 100 * 101}},
                   Opts(#{params => [{'A', lists:seq(1, 100)}, {'B', lists:seq(1, 101)}]}))].

%%--------------------------------------------------------------------
%% run/3 with a measuring fun: each bound runner's "throughput" is 1000 / N per ms

run_test() ->
    Reports = run(["lists:seq(1, N).", "lists:duplicate(N, x)."], [{'N', [1, 10]}], undefined),
    %% combination by combination, runners in order; measured once per combination
    ?assertEqual([[{'N', 1}], [{'N', 10}]], measured()),
    ?assertEqual([{<<"lists:seq(1, N).">>, [{'N', 1}]}, {<<"lists:duplicate(N, x).">>, [{'N', 1}]},
                  {<<"lists:seq(1, N).">>, [{'N', 10}]}, {<<"lists:duplicate(N, x).">>, [{'N', 10}]}],
                 [{L, P} || #{label := L, params := P} <- Reports]),
    ?assertEqual([1.0e6, 1.0e6, 1.0e5, 1.0e5], [Q || #{qps := Q} <- Reports]),
    %% the first of the fastest is the best
    ?assertEqual([true, false, false, false], [B || #{best := B} <- Reports]),
    [#{run_options := Options} | _] = Reports,
    ?assertEqual(#{sample_duration => 1000, params => [{'N', [1, 10]}]}, Options),
    ?assertNot(lists:any(fun (R) -> is_map_key(bytes_per_second, R) end, Reports)).

run_bytes_test() ->
    %% 1000 / N per ms, N * 8 bytes: bytes per second are the same, the first is best;
    %% 4 * N * N bytes make the last one best
    Same = run(["lists:seq(1, N)."], [{'N', [1, 10]}], "N * 8"),
    ?assertEqual([{8, 8.0e6, true}, {80, 8.0e6, false}],
                 [{B, Bps, Best} || #{bytes_processed := B, bytes_per_second := Bps, best := Best} <- Same]),
    #{run_options := #{bytes := "N * 8"}} = hd(Same),
    Square = run(["lists:seq(1, N)."], [{'N', [1, 10]}], <<"4 * N * N">>),
    ?assertEqual([false, true], [Best || #{best := Best} <- Square]),
    ?assertEqual([4.0e6, 4.0e7], [Bps || #{bytes_per_second := Bps} <- Square]),
    %% a number, and no parameters at all: one combination
    [#{params := [], bytes_processed := 100, bytes_per_second := Bps, best := true}] =
        run(["ok."], [], 100),
    ?assertEqual(1.0e8, Bps),
    ?assertEqual([[{'N', 1}], [{'N', 10}], [{'N', 1}], [{'N', 10}], []], measured()).

run_errors_test_() ->
    %% every error is raised before the first combination runs
    Errors = [{["lists:seq(1, N)."], [{'N', [1]}, {'M', [1]}], undefined, {sweep, {unused, 'M'}}},
              {[{lists, seq, [1, 2]}], [{'N', [1]}], undefined, {sweep, {unused, 'N'}}},
              {["r(N) -> N."], [{'N', [1]}], undefined, {bad_code, runner, {bound_in_head, 'N', 1, 3}}},
              {["lists:seq(1, N)."], [{'N', [1, a]}], "N * 2",
               {sweep, {bytes, "N * 2", [{'N', a}], {error, badarith}}}},
              {["lists:seq(1, N)."], [{'N', [1, -2]}], "N",
               {sweep, {bytes, "N", [{'N', -2}], {value, -2}}}},
              {["lists:seq(1, N)."], [{'N', [1]}], "{N}",
               {sweep, {bytes, "{N}", [{'N', 1}], {value, {1}}}}}],
    [?_test(begin
                ?assertError(Reason, run(Runners, Params, Bytes)),
                ?assertEqual([], measured())
            end) || {Runners, Params, Bytes, Reason} <- Errors].

%% A runner using no parameter (a fun, an {M, F, A}, text without the variable) runs in
%% every combination, beside those that use it.
reference_runner_test() ->
    Reports = run(["lists:seq(1, N).", {erlang, node, []}], [{'N', [1, 2]}], undefined),
    ?assertEqual([[{'N', 1}], [{'N', 1}], [{'N', 2}], [{'N', 2}]], [P || #{params := P} <- Reports]),
    ?assertEqual([[{'N', 1}], [{'N', 2}]], measured()).

%%--------------------------------------------------------------------
%% Text

text_test_() ->
    [?_assertEqual("N=10, S=foo, T=\"a b\", B=<<\"x\">>, F=0.5",
                   erlperf_units:combination([{'N', 10}, {'S', foo}, {'T', "a b"}, {'B', <<"x">>}, {'F', 0.5}])),
     ?_assertEqual("", erlperf_units:combination([])),
     ?_assertEqual([10, <<"foo">>, <<"[1,2]">>, 0.5],
                   [erlperf_units:record_value(V) || V <- [10, foo, [1, 2], 0.5]]),
     ?_assertEqual(["10", "foo", "0.5"], [erlperf_units:record_text(V) || V <- [10, <<"foo">>, 0.5]]),
     ?_assertEqual(<<"'a b'">>, erlperf_units:record_value('a b')),
     ?_assertEqual(<<"\"ü\""/utf8>>, erlperf_units:record_value("ü"))].

format_error_test_() ->
    Reasons = [{{sweep, {unused, 'N'}}, ["parameter N is not used", "{M, F, A}"]},
               {{sweep, {too_many_combinations, 20000}}, ["20000 combinations", "at most 10000"]},
               {{sweep, {bytes, "N * 2", [{'N', a}], {error, badarith}}},
                ["'N * 2' failed with N=a: error:badarith"]},
               {{sweep, {bytes, 8.5, [], {value, x}}}, ["8.5 gave x"]},
               {{sweep, {bytes, <<"N">>, [{'N', -2}], {value, -2}}},
                ["'N' gave -2 with N=-2, not a non-negative number"]}],
    [?_test(begin
                Text = erlperf:format_error(Reason),
                one_line(Text),
                [?assertNotEqual(nomatch, string:find(Text, W), {Text, W}) || W <- Words]
            end) || {Reason, Words} <- Reasons].

%%--------------------------------------------------------------------
%% Helpers

%% Runs a sweep of runners with a measuring fun that reports, for each bound runner,
%% 1000 / N iterations per 1000 ms sample (N from its bindings, 1 without), and tells
%% this process each combination it measured.
run(Runners, Params, Bytes) ->
    {Sweep, _} = erlperf_sweep:options(#{params => Params, bytes => Bytes}),
    Self = self(),
    Measure = fun (Bound) ->
                      Self ! {measured, maps:get(bindings, hd(Bound), #{})},
                      [report(C) || C <- Bound]
              end,
    erlperf_sweep:run([#{runner => R} || R <- Runners], Sweep, Measure).

report(Code) ->
    N = maps:get('N', maps:get(bindings, Code, #{}), 1),
    #{mode => continuous, label => erlperf_codegen:label(Code), code => Code,
      run_options => #{sample_duration => 1000},
      result => #{average => 1000000 / N, qps => 1.0e6 / N}}.

measured() ->
    receive {measured, Bindings} -> [lists:sort(maps:to_list(Bindings)) | measured()]
    after 0 -> []
    end.

one_line(Text) ->
    ?assert(io_lib:printable_unicode_list(Text), Text),
    ?assertEqual(nomatch, string:find(Text, "\n"), Text).
