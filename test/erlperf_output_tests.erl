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
                         overdue => 0, iteration_time => 1.0e9 / erlperf_stat:mean(Values)}}.

record_test() ->
    #{<<"version">> := 1, <<"compare">> := <<"parallel">>, <<"runs">> := [A, B],
      <<"system">> := #{<<"os">> := <<"unix:linux">>, <<"cpu">> := <<"Test CPU">>},
      <<"options">> := Options} = erlperf_record:from_reports(reports()),
    %% funs are left out of the options
    ?assertNot(is_map_key(<<"progress">>, Options)),
    ?assertMatch(#{<<"label">> := <<"rand:uniform().">>, <<"samples">> := [1000, 1010, 990, 1000],
                   <<"average">> := 1000.0, <<"ci95">> := [_, _], <<"qps">> := 1000.0}, A),
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
    %% a label with a comma, a quote and a line break stays one field
    Hostile = <<"x = \"a,b\",\n ok.">>,
    Text = iolist_to_binary(erlperf_csv:format(erlperf_record:from_reports(reports(Hostile, <<"b">>)))),
    ?assertNotEqual(nomatch, binary:match(Text, <<"\"x = \"\"a,b\"\",\n ok.\"">>)),
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
    %% cannot end the row
    [_, _, RowA, _] = md_lines(reports(<<"a | `b`\nc.">>, <<"d.">>)),
    ?assertMatch(<<"| `a \\| 'b' c.` | 1 |", _/binary>>, RowA).

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
