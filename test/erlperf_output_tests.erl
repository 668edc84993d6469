%%% @doc Tests of the results record and its CSV and Markdown writers, on reports built
%%% from real runs' shapes (see erlperf_report_tests for the builders' origin).
-module(erlperf_output_tests).

-include_lib("eunit/include/eunit.hrl").

%% Two runners, the second slower, as erlperf:compare/2 returns them with report => full.
reports() ->
    reports(<<"rand:uniform().">>, <<"rand:uniform(1000).">>).

reports(LabelA, LabelB) ->
    A = report(LabelA, [1000, 1010, 990, 1000]),
    B = report(LabelB, [500, 510, 490, 500]),
    erlperf_comparison:annotate([A, B], 95).

report(Label, Values) ->
    Summary = erlperf_stat:summary(Values),
    #{version => 1, mode => continuous, label => Label, concurrency => 1,
      code => #{runner => unicode:characters_to_list(Label)},
      run_options => #{compare => parallel, sample_duration => 1000, samples => 4,
                       concurrency => 1, confidence => 95, progress => fun (_) -> ok end},
      sleep => sleep, warnings => [],
      system => #{os => {unix, linux}, cpu => "Test CPU", schedulers => 2},
      result => Summary#{values => Values, samples => [0, 1, 2, 3, 4], time => 4000000,
                         overdue => 0, iteration_time => 1.0e9 / erlperf_stat:mean(Values),
                         qps => erlperf_stat:mean(Values)}}.

record_test() ->
    #{<<"version">> := 1, <<"compare">> := <<"parallel">>, <<"runs">> := [A, B],
      <<"system">> := #{<<"os">> := <<"unix:linux">>, <<"cpu">> := <<"Test CPU">>},
      <<"options">> := Options} = erlperf_record:from_reports(reports()),
    %% funs are left out of the options
    ?assertNot(is_map_key(<<"progress">>, Options)),
    ?assertMatch(#{<<"label">> := <<"rand:uniform().">>, <<"samples">> := [1000, 1010, 990, 1000],
                   <<"average">> := 1000.0, <<"ci95">> := [_, _], <<"qps">> := 1000.0,
                   %% each run's own (a suite's benchmarks have their own options)
                   <<"sample_duration">> := 1000}, A),
    ?assertNot(is_map_key(<<"comparison">>, A)),
    #{<<"comparison">> := #{<<"against">> := <<"rand:uniform().">>, <<"change_pct">> := Change,
                            <<"significant">> := true, <<"verdict">> := <<"slower">>,
                            <<"test">> := <<"paired">>}} = B,
    ?assert(abs(Change + 50.0) < 1.0e-9, Change).

%% With a profile (eprof's figures of `lists:seq(1, 100)', cprof's count-only entry):
%% "profile" in the run, functions named as text, an unknown time null; JSON round trip.
record_profile_test() ->
    [A, B] = reports(),
    Profile = #{tool => eprof, duration_ms => 1000, workers => 1, total_calls => 8042460,
                total_us => 1068709,
                functions => [#{calls => 7467998, mfa => {lists, seq_loop, 3},
                                percent => 83.21161326422815, time_us => 889290},
                              #{calls => 287231, mfa => {erlperf_job_3, 'erlperf timed_loop', 1},
                                percent => 14.00493492615857, time_us => 149672}]},
    Cprof = Profile#{tool => cprof, total_us => undefined,
                     functions => [#{calls => 723, mfa => garbage_collect, percent => 1.5,
                                     time_us => undefined}]},
    Record = erlperf_record:from_reports([A#{profile => Profile}, B#{profile => Cprof}]),
    {ok, #{<<"runs">> := [RunA, RunB]}} = erlperf_json:decode(erlperf_json:encode(Record)),
    ?assertEqual(#{<<"tool">> => <<"eprof">>, <<"duration_ms">> => 1000, <<"workers">> => 1,
                   <<"total_calls">> => 8042460, <<"total_us">> => 1068709,
                   <<"functions">> =>
                       [#{<<"function">> => <<"lists:seq_loop/3">>, <<"calls">> => 7467998,
                          <<"time_us">> => 889290, <<"percent">> => 83.21161326422815},
                        #{<<"function">> => <<"erlperf_job_3:'erlperf timed_loop'/1">>,
                          <<"calls">> => 287231, <<"time_us">> => 149672,
                          <<"percent">> => 14.00493492615857}]},
                 maps:get(<<"profile">>, RunA)),
    ?assertMatch(#{<<"tool">> := <<"cprof">>, <<"total_us">> := null,
                   <<"functions">> := [#{<<"function">> := <<"garbage_collect">>,
                                         <<"time_us">> := null}]},
                 maps:get(<<"profile">>, RunB)),
    %% no profile, no key
    #{<<"runs">> := [Plain, _]} = erlperf_record:from_reports(reports()),
    ?assertNot(is_map_key(<<"profile">>, Plain)).

csv_test() ->
    [Header, RowA, RowB] = csv_lines(reports()),
    ?assertEqual([atom_to_binary(C) || C <- erlperf_csv:columns()], Header),
    ?assertEqual(length(Header), length(RowA)),
    ?assertMatch([<<"rand:uniform().">>, _, <<"continuous">>, <<"1">>, <<"4">>, <<"1000.0">> | _], RowA),
    Cells = maps:from_list(lists:zip(Header, RowB)),
    ?assertEqual(<<"rand:uniform().">>, maps:get(<<"against">>, Cells)),
    ?assertEqual(<<"true">>, maps:get(<<"significant">>, Cells)),
    ?assertEqual(<<>>, maps:get(<<"against">>, maps:from_list(lists:zip(Header, RowA)))).

csv_quoting_test() ->
    %% a label with a comma, a quote and a line break stays one field, on one line: the
    %% name as text writes it (quoted, `\n' visible), CSV-quoted
    Hostile = <<"x = \"a,b\",\n ok.">>,
    Text = iolist_to_binary(erlperf_csv:format(erlperf_record:from_reports(reports(Hostile, <<"b">>)))),
    ?assertNotEqual(nomatch, binary:match(Text, <<"\"\"\"x = \\\"\"a,b\\\"\",\\n ok.\"\"\"">>), Text),
    [_Header, _A, _B] = csv_lines(reports(Hostile, <<"b">>)).

markdown_test() ->
    [Header, Align, RowA, RowB] = md_lines(reports()),
    ?assertEqual(Header, <<"| Code | Concurrency | Throughput (per second) | 95% CI | Time | Verdict |">>),
    ?assertMatch(<<"| --- |", _/binary>>, Align),
    ?assertMatch(<<"| `rand:uniform().` | 1 | 1000 |", _/binary>>, RowA),
    ?assertNotEqual(nomatch, binary:match(RowA, <<"fastest">>)),
    ?assertNotEqual(nomatch, binary:match(RowB, <<"50.0% slower than `rand:uniform().` (95% CI">>)).

markdown_escaping_test() ->
    %% a pipe cannot end the cell, a backtick cannot end the code span, a line break
    %% cannot end the row (the name is quoted, `\n' visible)
    [_, _, RowA, _] = md_lines(reports(<<"a | `b`\nc.">>, <<"d.">>)),
    ?assertMatch(<<"| `\"a \\| 'b'\\nc.\"` | 1 |", _/binary>>, RowA).

%%--------------------------------------------------------------------
%% Sweeps: two runners, N=10 and N=100, as erlperf:sweep/3 returns them (the measuring
%% fun stands for the benchmark: the first runner does 100000 / N, the second half as
%% many iterations per second)

sweep_reports(Bytes) ->
    {Sweep, _} = erlperf_sweep:options(#{params => [{'N', [10, 100]}, {'S', ["a|b"]}], bytes => Bytes}),
    Measure = fun (Bound) ->
                      Reports = [report(erlperf_codegen:label(C), values(C, I)) || {I, C} <- lists:enumerate(Bound)],
                      erlperf_comparison:annotate(Reports, 95)
              end,
    erlperf_sweep:run([#{runner => "lists:seq(1, N), S."}, #{runner => "lists:duplicate(N, S)."}],
                      Sweep, Measure).

values(#{bindings := #{'N' := N}}, I) ->
    [V / N / I || V <- [100000, 101000, 99000, 100000]].

sweep_record_test() ->
    #{<<"options">> := #{<<"params">> := Params, <<"bytes">> := <<"N * 8">>}, <<"runs">> := Runs} =
        Record = erlperf_record:from_reports(sweep_reports("N * 8")),
    ?assertEqual([#{<<"name">> => <<"N">>, <<"values">> => [10, 100]},
                  #{<<"name">> => <<"S">>, <<"values">> => [<<"\"a|b\"">>]}], Params),
    ?assertEqual([<<"N">>, <<"S">>], erlperf_record:param_names(Record)),
    [A10, B10, A100, B100] = Runs,
    ?assertEqual([10, 10, 100, 100], [N || #{<<"params">> := #{<<"N">> := N}} <- Runs]),
    ?assertEqual([true, false, false, false], [B || #{<<"best">> := B} <- Runs]),
    ?assertEqual([80, 80, 800, 800], [B || #{<<"bytes_processed_per_iteration">> := B} <- Runs]),
    [?assertEqual(Q * B, Bps) || #{<<"qps">> := Q, <<"bytes_processed_per_iteration">> := B,
                                   <<"bytes_per_second">> := Bps} <- Runs],
    %% each runner is compared with the fastest of its own combination
    ?assertNot(is_map_key(<<"comparison">>, A10)),
    ?assertNot(is_map_key(<<"comparison">>, A100)),
    [?assertMatch(#{<<"comparison">> := #{<<"against">> := <<"lists:seq(1, N), S.">>,
                                          <<"change_pct">> := C}} when abs(C + 50) < 1.0e-9, R)
     || R <- [B10, B100]],
    %% the record is JSON as it is, and reads back the same
    ?assertEqual({ok, Record}, erlperf_json:decode(iolist_to_binary(erlperf_json:encode(Record)))),
    %% no bytes: no bytes figures
    [Plain | _] = maps:get(<<"runs">>, erlperf_record:from_reports(sweep_reports(undefined))),
    ?assertEqual([], [K || K <- maps:keys(Plain), binary:match(K, <<"bytes">>) =/= nomatch]).

sweep_csv_test() ->
    [Header | Rows] = csv_lines(sweep_reports("N * 8")),
    [<<"label">>, <<"code">>, <<"N">>, <<"S">>, <<"mode">> | _] = Header,
    ?assertEqual([<<"bytes_processed_per_iteration">>, <<"bytes_per_second">>, <<"best">>],
                 lists:nthtail(length(Header) - 3, Header)),
    Cells = [maps:from_list(lists:zip(Header, R)) || R <- Rows],
    ?assertEqual([{<<"10">>, <<"\"a|b\"">>, <<"80">>, <<"true">>}, {<<"10">>, <<"\"a|b\"">>, <<"80">>, <<"false">>},
                  {<<"100">>, <<"\"a|b\"">>, <<"800">>, <<"false">>}, {<<"100">>, <<"\"a|b\"">>, <<"800">>, <<"false">>}],
                 [{N, S, B, Best} || #{<<"N">> := N, <<"S">> := S, <<"bytes_processed_per_iteration">> := B,
                                      <<"best">> := Best} <- Cells]),
    %% without bytes the columns stay, empty
    [Header, Row | _] = csv_lines(sweep_reports(undefined)),
    ?assertMatch([<<>>, <<>>, <<"true">>], lists:nthtail(length(Row) - 3, Row)).

sweep_markdown_test() ->
    [Header, Align, A10, B10, A100, _B100] = md_lines(sweep_reports("N * 8")),
    ?assertEqual(<<"| Code | N | S | Concurrency | Throughput (per second) | 95% CI | Time | Bytes/s | Verdict | Best |">>,
                 Header),
    ?assertEqual(<<"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | :---: |">>, Align),
    ?assertMatch(<<"| `lists:seq(1, N), S.` | 10 | \"a\\|b\" | 1 | 10000 | ", _/binary>>, A10),
    [?assertNotEqual(nomatch, binary:match(A10, Cell), A10) || Cell <- [<<"| 800 KB/s |">>, <<"| fastest | yes |">>]],
    ?assertNotEqual(nomatch, binary:match(B10, <<"50.0% slower than `lists:seq(1, N), S.`">>), B10),
    ?assertNotEqual(nomatch, binary:match(A100, <<"| fastest |  |">>), A100),
    %% one runner: no verdicts, only the best
    {Sweep, _} = erlperf_sweep:options(#{params => [{'N', [10, 100]}], bytes => undefined}),
    One = erlperf_sweep:run([#{runner => "lists:seq(1, N)."}], Sweep,
                            fun ([C]) -> [report(erlperf_codegen:label(C), values(C, 1))] end),
    [_, _, Row10, Row100] = md_lines(One),
    ?assertMatch(<<"| `lists:seq(1, N).` | 10 | 1 | ", _/binary>>, Row10),
    ?assertNotEqual(nomatch, binary:match(Row10, <<"| - | yes |">>), Row10),
    ?assertNotEqual(nomatch, binary:match(Row100, <<"| - |  |">>), Row100).

%% With latency => true: the first runner timed 1000 calls, the second none (its only
%% call never returned).
latency_reports() ->
    [A, B] = reports(),
    Timed = #{calls => 1000, timer_ns => 40, unfinished => false, average => 1500.0,
              stddev => 250.0, min => 900, p50 => 1400, p90 => 1900, p99 => 2500, p999 => 4100,
              max => 7300},
    [with_latency(A, Timed), with_latency(B, #{calls => 0, timer_ns => 40, unfinished => true})].

with_latency(#{result := Result} = Report, Latency) ->
    Report#{result => Result#{latency => Latency}}.

latency_record_test() ->
    #{<<"runs">> := [A, B]} = erlperf_record:from_reports(latency_reports()),
    ?assertEqual(#{<<"p50">> => 1.4, <<"p90">> => 1.9, <<"p99">> => 2.5, <<"p999">> => 4.1,
                   <<"max">> => 7.3, <<"min">> => 0.9, <<"average">> => 1.5, <<"stddev">> => 0.25},
                 maps:get(<<"latency_us">>, A)),
    ?assertMatch(#{<<"latency_calls">> := 1000, <<"latency_timer_us">> := 0.04,
                   <<"latency_unfinished">> := false}, A),
    ?assertMatch(#{<<"latency_us">> := null, <<"latency_calls">> := 0,
                   <<"latency_unfinished">> := true}, B),
    %% JSON and back: the same record
    Record = erlperf_record:from_reports(latency_reports()),
    ?assertEqual({ok, Record}, erlperf_json:decode(iolist_to_binary(erlperf_json:encode(Record, #{})))),
    %% without latency => true: no latency keys
    #{<<"runs">> := [Plain | _]} = erlperf_record:from_reports(reports()),
    ?assertEqual([], [K || <<"latency", _/binary>> = K <- maps:keys(Plain)]).

latency_csv_test() ->
    [Header, RowA, RowB] = csv_lines(latency_reports()),
    ?assertEqual([atom_to_binary(C) || C <- erlperf_csv:columns() ++ erlperf_csv:latency_columns()],
                 Header),
    A = maps:from_list(lists:zip(Header, RowA)),
    ?assertEqual([<<"1000">>, <<"1.4">>, <<"1.9">>, <<"2.5">>, <<"4.1">>, <<"7.3">>, <<"1.5">>, <<"0.25">>],
                 [maps:get(atom_to_binary(C), A) || C <- erlperf_csv:latency_columns()]),
    B = maps:from_list(lists:zip(Header, RowB)),
    ?assertEqual([<<"0">>, <<>>, <<>>, <<>>, <<>>, <<>>, <<>>, <<>>],
                 [maps:get(atom_to_binary(C), B) || C <- erlperf_csv:latency_columns()]).

latency_markdown_test() ->
    [Header, Align, RowA, RowB] = md_lines(latency_reports()),
    ?assertEqual(<<"| Code | Concurrency | Throughput (per second) | 95% CI | Time | Latency p50 | p90 | "
                   "p99 | p99.9 | max | Verdict |">>, Header),
    ?assertEqual(<<"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |">>, Align),
    ?assertMatch(<<"| `rand:uniform().` | 1 | 1000 | ", _/binary>>, RowA),
    ?assertNotEqual(nomatch, binary:match(RowA, <<" | 1400 ns | 1900 ns | 2500 ns | 4100 ns | 7300 ns | fastest |">>)),
    ?assertNotEqual(nomatch, binary:match(RowB, <<" | - | - | - | - | - | 50.0% slower">>)).

csv_lines(Reports) ->
    Text = iolist_to_binary(erlperf_csv:format(erlperf_record:from_reports(Reports))),
    [fields(L) || L <- binary:split(Text, <<"\r\n">>, [global, trim])].

%% A small RFC 4180 reader, enough for the tests.
fields(Line) ->
    fields(Line, <<>>, [], false).

fields(<<>>, Cur, Acc, _Quoted) -> lists:reverse([Cur | Acc]);
fields(<<"\"\"", Rest/binary>>, Cur, Acc, true) -> fields(Rest, <<Cur/binary, $">>, Acc, true);
fields(<<"\"", Rest/binary>>, Cur, Acc, Quoted) -> fields(Rest, Cur, Acc, not Quoted);
fields(<<",", Rest/binary>>, Cur, Acc, false) -> fields(Rest, <<>>, [Cur | Acc], false);
fields(<<C, Rest/binary>>, Cur, Acc, Quoted) -> fields(Rest, <<Cur/binary, C>>, Acc, Quoted).

md_lines(Reports) ->
    Text = unicode:characters_to_binary(erlperf_markdown:format(erlperf_record:from_reports(Reports))),
    binary:split(Text, <<"\n">>, [global, trim]).

%% One report of a comparison, alone: the runner it was compared with is not in the
%% record, so neither is the comparison; the tables are drawn.
alone_test() ->
    [_Fastest, Slower] = reports(),
    #{<<"runs">> := [Run]} = erlperf_record:from_reports([Slower]),
    ?assertNot(is_map_key(<<"comparison">>, Run)),
    ?assertNotEqual(nomatch, string:find(erlperf_report:format([Slower], #{format => extended}),
                                         "rand:uniform(1000).")).

%% Names from a pull request (a line break and a workflow command, `|', `<script>', a
%% carriage return, an escape, a leading `::') as labels and as a baseline's file, in
%% every format: no line starts with `::', Markdown rows keep their columns, CSV reads
%% back field for field, HTML holds no markup of theirs, JSON gives them back as they are.
hostile_names_every_format_test_() ->
    {A, B} = {<<"L\n::warning::injected">>, <<"::error::x|<script>a\r\e[1m">>},
    Reports = reports(A, B),
    Base = erlperf_record:from_reports(Reports),
    Rows = erlperf_baseline:compare([{"base\n::warning::file|.json", Base}], Base, #{}),
    Out = fun (Format) ->
                  Options = #{format => extended, baselines => Rows},
                  unicode:characters_to_list(erlperf_output:format(Format, Reports, Options))
          end,
    Safe = fun (Text) ->
                   [L || L <- string:lexemes(Text, [$\n, $\r, [$\r, $\n]]),
                         lists:prefix("::", string:trim(L, leading))]
           end,
    [[?_test(?assertEqual([], Safe(Out(F)), F)) || F <- [text, markdown, csv, html, benchee, json]],
     ?_assertNotEqual(nomatch, string:find(Out(text), "\"L\\n::warning::injected\" against "
                                                      "\"base\\n::warning::file|.json\": ")),
     ?_test(begin
                Md = [L || L <- string:split(Out(markdown), "\n", all), lists:prefix("|", L)],
                %% `|' not escaped by a backslash
                Pipes = fun (L) -> length([C || C <- L, C =:= $|])
                                       - (length(string:split(L, "\\|", all)) - 1) end,
                %% the results' table (6 columns) and the baselines' (4), 4 lines each
                [Results, Verdicts] = [[L || L <- Md, Pipes(L) =:= N] || N <- [7, 5]],
                ?assertEqual({8, 4, 4}, {length(Md), length(Results), length(Verdicts)}, Md)
            end),
     ?_test(begin
                Csv = unicode:characters_to_binary(Out(csv)),
                [Header | Lines] = [fields(L) || L <- binary:split(Csv, <<"\r\n">>, [global, trim])],
                ?assertEqual([length(Header), length(Header)], [length(L) || L <- Lines]),
                ?assertEqual([<<"\"L\\n::warning::injected\"">>,
                              <<"\"::error::x|<script>a\\r\\x1B[1m\"">>],
                             [hd(L) || L <- Lines])
            end),
     ?_assertEqual(nomatch, string:find(Out(html), "<script")),
     ?_assertMatch({ok, #{<<"runs">> := [#{<<"label">> := A}, #{<<"label">> := B}]}},
                   erlperf_json:decode(unicode:characters_to_binary(Out(json))))].
