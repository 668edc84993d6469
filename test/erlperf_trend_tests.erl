%%% @doc Tests of the history's formats (page, text, Markdown, CSV, JSON) on built histories: a step's marker at its
%%% run only, the points and whiskers against the input, hostile and non-UTF-8 text,
%%% `undefined' as null, an empty store, one point, a long history's size, bad input.
-module(erlperf_trend_tests).

-include_lib("eunit/include/eunit.hrl").
-include_lib("stdlib/include/assert.hrl").

-define(HOSTILE, <<"<script>&\"">>).

%%--------------------------------------------------------------------
%% CSV and Markdown

%% A line per point of every benchmark (all runs, not the latest 30), parsed back: the
%% values as given, the step's change at its point only, empty cells where not measured.
csv_test() ->
    H = history(),
    [Header | Lines] = string:split(unicode:characters_to_list(erlperf_trend:csv(H)), "\r\n", all),
    ?assertEqual("benchmark,run,time,commit,dirty,otp,qps,ci95_lo,ci95_hi,interval,change_pct,"
                 "step_change_pct,bytes,reductions,load", Header),
    Rows = [string:split(L, ",", all) || L <- Lines, L =/= ""],
    ?assertEqual(12 + 6 + 12, length(Rows)),
    Rand = [R || ["rand:uniform()." | _] = R <- Rows],
    ?assertEqual([V || #{value := V} <- maps:get(points, hd(maps:get(benchmarks, H)))],
                 [list_to_float(lists:nth(7, R)) || R <- Rand]),
    ?assertEqual(["", "", "", "", "", "", "-10.2", "", "", "", "", ""], [lists:nth(12, R) || R <- Rand]),
    ?assertEqual("-10.0", lists:nth(11, lists:nth(7, Rand))),
    ?assertEqual(["true"], [lists:nth(5, R) || R <- Rand, lists:nth(2, R) =:= "6"]),
    %% no commit outside git, no interval for a single run without one
    [Flat1 | _] = [R || ["flat" | _] = R <- Rows],
    ?assertMatch(["flat", "1", _, "", "false", "25", "2000000.0", "", "", "single_run" | _], Flat1).

csv_hostile_test() ->
    #{benchmarks := [B | Rest]} = H = history(),
    Csv = iolist_to_binary(erlperf_trend:csv(H#{benchmarks := [B#{name := <<"a,\"b\"\nc">>} | Rest]})),
    %% one field on one line: the name as text writes it (quoted, `\n' visible), CSV-quoted
    ?assertNotEqual(nomatch, binary:match(Csv, <<"\"\"\"a,\\\"\"b\\\"\"\\nc\"\"\",1,">>), Csv).

%% Totals as a heading, a heading and a table per benchmark (the latest 30 runs), the
%% steps; a `|' in a name does not break the table.
markdown_test() ->
    #{benchmarks := [B | Rest]} = H = history(),
    Md = unicode:characters_to_list(erlperf_trend:markdown(H#{benchmarks := [B#{name := <<"a|b">>} | Rest]})),
    Lines = string:split(Md, "\n", all),
    ?assertEqual("## History of store/dir: 12 runs, 3 benchmarks, 2 steps", hd(Lines)),
    ?assertEqual(["### `a\\|b`", "### `sparse`", "### `flat`"], [L || "### " ++ _ = L <- Lines]),
    Rows = [L || "| " ++ _ = L <- Lines],
    ?assertEqual(3 * 2 + 12 + 6 + 12, length(Rows)),
    ?assert(lists:all(fun (L) -> length(string:split(L, " | ", all)) =:= 7 end, Rows)),
    ?assert(lists:member("| 7 | 2026-11-07T08:00:00Z | " ++ short_sha(7) ++ " | 25 | 9000 Ki | "
                         "8910 Ki..9090 Ki (forks) | -10.0% |", Rows)),
    ?assert(lists:member("`a\\|b`: step at run 7 (" ++ short_sha(7) ++ "): -10.2% (95% CI -12.0..-8.4%)", Lines)).

%%--------------------------------------------------------------------
%% The page

%% The step of `rand' (at its 7th point, run 7) is marked once, at run 7; the sparse
%% benchmark's step at its 4th point is marked at that point's run, 8; `flat' has none.
markers_test() ->
    Charts = charts(html(history())),
    ?assertEqual([{7, "x-marker regression"}], markers(chart_of("rand:uniform().", Charts))),
    ?assertEqual([{8, "x-marker faster"}], markers(chart_of("sparse", Charts))),
    ?assertEqual([], markers(chart_of("flat", Charts))),
    %% the marker's label: the change and its interval
    [Label] = [erlperf_html_test_lib:texts(T)
               || T <- erlperf_html_test_lib:elements(chart_of("rand:uniform().", Charts), text),
                  erlperf_html_test_lib:attr(class, T) =:= "marker-label"],
    ?assertEqual("-10.2% (95% CI -12.0..-8.4%)", Label).

%% A point per run, whiskers where the run had an interval.
series_test() ->
    #{benchmarks := [#{points := Points} | _]} = history(),
    Doc = chart_of("rand:uniform().", charts(html(history()))),
    ?assertEqual([{"rand:uniform().", [{R, V} || #{run := R, value := V} <- Points]}],
                 erlperf_html_test_lib:series(Doc)),
    ?assertEqual([{L, H} || #{low := L, high := H} <- Points, L =/= undefined],
                 erlperf_html_test_lib:whiskers(Doc)),
    %% the x axis is labelled by short commit, + for a dirty tree
    Ticks = [erlperf_html_test_lib:texts(T) || T <- erlperf_html_test_lib:elements(Doc, text),
                                              erlperf_html_test_lib:attr(class, T) =:= "tick"],
    ?assert(lists:member(short_sha(4), Ticks), Ticks),
    ?assert(lists:member(short_sha(6) ++ "+", Ticks), Ticks).

summary_test() ->
    Page = html(history()),
    [Summary | _] = binary:split(Page, <<"</section>">>),
    %% store, runs, benchmarks, steps found
    ?assertMatch({match, _}, re:run(Summary, "<td>store/dir</td><td class=\"num\">12</td>"
                                             "<td class=\"num\">3</td><td class=\"num\">2</td>")),
    ?assertEqual(2, count(Summary, <<"href=\"#benchmark-">>) - 3),
    ?assertEqual(1, count(Page, <<"id=\"benchmark-1\"">>)).

%% A row per run: run, time, commit, OTP, throughput, interval, change; the step's row
%% is highlighted and says the change.
runs_table_test() ->
    Page = html(history()),
    [_, Rand | _] = binary:split(Page, <<"id=\"benchmark-">>, [global]),
    ?assertEqual(12 + 1, count(Rand, <<"<tr">>)),
    ?assertEqual(1, count(Rand, <<"<tr class=\"regression\">">>)),
    Row7 = hd(tl(binary:split(Rand, <<"<tr class=\"regression\">">>))),
    ?assertMatch({match, _}, re:run(Row7, "^<td class=\"num\">7</td><td>2026-11-07T08:00:00Z</td>"
                                          "<td><code title=\"" ++ sha(7) ++ "\">" ++ short_sha(7)
                                          ++ "</code></td><td>25</td><td>9000 Ki</td>"
                                          "<td>8910 Ki..9090 Ki \\(forks\\)</td><td>-10.0%</td>"
                                          "<td>-10.2% \\(95% CI -12.0..-8.4%\\)</td></tr>")),
    %% the first run has no change; run 6 is dirty
    ?assertMatch({match, _}, re:run(Rand, "<td class=\"num\">1</td><td>2026-11-01T08:00:00Z</td>"
                                          "[^\n]*<td>-</td><td></td></tr>")),
    ?assertNotEqual(nomatch, binary:match(Rand, list_to_binary(short_sha(6) ++ "+</code>"))).

hostile_name_test() ->
    #{benchmarks := [B | Rest]} = H = history(),
    Hostile = H#{benchmarks := [B#{name := ?HOSTILE} | Rest], store := <<"a<b>&'c">>},
    Page = html(Hostile),
    ?assertEqual(nomatch, binary:match(Page, [<<"<script">>, <<"<b>">>])),
    ?assert(count(Page, <<"&lt;script&gt;&amp;&quot;">>) >= 3),
    ?assertNotEqual(nomatch, binary:match(Page, <<"a&lt;b&gt;&amp;&#39;c">>)),
    %% every chart still parses as XML
    ?assertEqual(3, length(charts(Page))),
    {ok, #{<<"benchmarks">> := [#{<<"name">> := Name} | _]}} = erlperf_json:decode(erlperf_trend:json(Hostile)),
    ?assertEqual(?HOSTILE, Name),
    ?assertNotEqual(nomatch, string:find(text(Hostile), "<script>&\": step at run 7")).

%% Bytes that are not UTF-8 and control characters: U+FFFD in JSON; in the page and the
%% text the name quoted with visible escapes (erlperf_name), and no control character
%% reaches a terminal.
not_utf8_test() ->
    #{benchmarks := [B | Rest]} = H = history(),
    Bad = H#{benchmarks := [B#{name := <<"a", 16#FF, "b\e[31m">>} | Rest]},
    ?assertNotEqual(nomatch, binary:match(html(Bad), <<"&quot;a\\xFFb\\x1B[31m&quot;">>)),
    {ok, #{<<"benchmarks">> := [#{<<"name">> := Name} | _]}} = erlperf_json:decode(erlperf_trend:json(Bad)),
    ?assertEqual(<<"a", 16#FFFD/utf8, "b\e[31m">>, Name),
    Text = text(Bad),
    ?assertEqual(nomatch, string:find(Text, "\e")),
    ?assertNotEqual(nomatch, string:find(Text, "\"a\\xFFb\\x1B[31m\"")).

%%--------------------------------------------------------------------
%% Text

text_test() ->
    Text = text(history()),
    ?assertMatch("History of store/dir: 12 runs, 3 benchmarks, 2 steps\n" ++ _, Text),
    ?assertNotEqual(nomatch, string:find(Text, "rand:uniform().: step at run 7 (" ++ short_sha(7)
                                         ++ "): -10.2% (95% CI -12.0..-8.4%)\n")),
    ?assertNotEqual(nomatch, string:find(Text, "sparse: step at run 8 (2026-11-08): +20.0% (95% CI 15.0..25.0%)\n")),
    ?assertNotEqual(nomatch, string:find(Text, "flat: no steps\n")),
    %% a row per run of rand: run, time, commit, OTP, throughput, interval, change
    ?assertMatch({match, _}, re:run(Text, "\n7 +2026-11-07T08:00:00Z +" ++ short_sha(7)
                                          ++ " +25 +9000 Ki +8910 Ki..9090 Ki \\(forks\\) +-10.0%\n")),
    ?assertMatch({match, _}, re:run(Text, "\n6 +2026-11-06T08:00:00Z +" ++ short_sha(6) ++ "\\+ ")).

%%--------------------------------------------------------------------
%% JSON

json_test() ->
    {ok, Json} = erlperf_json:decode(erlperf_trend:json(history())),
    ?assertMatch(#{<<"version">> := 1, <<"store">> := <<"store/dir">>, <<"runs">> := 12,
                   <<"benchmarks">> := [_, _, _]}, Json),
    #{<<"benchmarks">> := [Rand, Sparse, Flat]} = Json,
    #{<<"name">> := <<"rand:uniform().">>, <<"points">> := Points,
      <<"steps">> := [Step]} = Rand,
    ?assertEqual(12, length(Points)),
    ?assertEqual(#{<<"at">> => 7, <<"run">> => 7, <<"before">> => 1.0e7, <<"after">> => 9.0e6,
                   <<"change_pct">> => -10.2, <<"ci_pct">> => [-12.0, -8.4], <<"p">> => 1.0e-4},
                 Step),
    ?assertEqual(#{<<"run">> => 6, <<"time">> => <<"2026-11-06T08:00:00Z">>,
                   <<"commit">> => list_to_binary(sha(6)), <<"dirty">> => true, <<"otp">> => <<"25">>,
                   <<"value">> => 1.0e7, <<"low">> => 1.0e7 * 0.99, <<"high">> => 1.0e7 * 1.01,
                   <<"interval">> => <<"forks">>}, lists:nth(6, Points)),
    ?assertMatch(#{<<"steps">> := [#{<<"at">> := 4, <<"run">> := 8}]}, Sparse),
    #{<<"points">> := [Undefined | _], <<"steps">> := []} = Flat,
    ?assertMatch(#{<<"commit">> := null, <<"low">> := null, <<"high">> := null,
                   <<"interval">> := <<"single_run">>}, Undefined).

%%--------------------------------------------------------------------
%% Edges

empty_history_test() ->
    Empty = #{store => <<"store/dir">>, runs => 0, benchmarks => []},
    Page = html(Empty),
    ?assertMatch(<<"<!DOCTYPE html>", _/binary>>, Page),
    ?assertNotEqual(nomatch, binary:match(Page, <<"holds no runs yet">>)),
    ?assertEqual([], charts(Page)),
    ?assertEqual("History of store/dir: no runs stored yet\n", text(Empty)),
    ?assertEqual({ok, #{<<"version">> => 1, <<"store">> => <<"store/dir">>, <<"runs">> => 0,
                        <<"benchmarks">> => []}},
                 erlperf_json:decode(erlperf_trend:json(Empty))),
    %% runs, but no benchmark; a benchmark without points
    NoBench = html(Empty#{runs := 2}),
    ?assertNotEqual(nomatch, binary:match(NoBench, <<"hold no benchmarks">>)),
    NoPoints = html(Empty#{runs := 2, benchmarks := [#{name => <<"gone">>, points => [], steps => []}]}),
    ?assertNotEqual(nomatch, binary:match(NoPoints, <<"No stored run holds this benchmark">>)),
    ?assertEqual([], charts(NoPoints)),
    ?assertNotEqual(nomatch, string:find(text(Empty#{runs := 2, benchmarks := [#{name => <<"gone">>, points => [], steps => []}]}),
                                         "gone: no steps")).

one_point_test() ->
    One = #{store => <<"s">>, runs => 1,
            benchmarks => [#{name => <<"once">>, points => [point(1, 5.0e5)], steps => []}]},
    [Doc] = erlperf_html_test_lib:svgs(html(One)),
    ?assertEqual([{"once", [{1, 5.0e5}]}], erlperf_html_test_lib:series(Doc)),
    ?assertEqual([{5.0e5 * 0.99, 5.0e5 * 1.01}], erlperf_html_test_lib:whiskers(Doc)),
    ?assertNotEqual(nomatch, string:find(text(One), "once: no steps")),
    {ok, #{<<"benchmarks">> := [#{<<"points">> := [_]}]}} = erlperf_json:decode(erlperf_trend:json(One)).

%% A point without an interval: no whisker, "-" in the table and the text, null in JSON.
undefined_interval_test() ->
    P = (point(2, 3.0e5))#{low := undefined, high := undefined, interval := single_run},
    H = #{store => <<"s">>, runs => 2,
          benchmarks => [#{name => <<"b">>, points => [point(1, 3.0e5), P], steps => []}]},
    [Doc] = erlperf_html_test_lib:svgs(html(H)),
    ?assertEqual([{3.0e5 * 0.99, 3.0e5 * 1.01}], erlperf_html_test_lib:whiskers(Doc)),
    ?assertMatch({match, _}, re:run(html(H), "<td>300 Ki</td><td>-</td><td>0.0%</td>")),
    ?assertMatch({match, _}, re:run(text(H), "\n2 .* 300 Ki +- +0.0%\n")),
    {ok, #{<<"benchmarks">> := [#{<<"points">> := [_, J]}]}} = erlperf_json:decode(erlperf_trend:json(H)),
    ?assertMatch(#{<<"low">> := null, <<"high">> := null}, J).

%% 1000 runs of 20 benchmarks: the page and the text keep to the latest runs (and say
%% so), every step is still listed; the JSON has every point.
long_history_test_() ->
    %% about 1 s on a quiet machine: more than eunit's 5 s default on a loaded one ends the run
    {timeout, 60, fun long_history/0}.

long_history() ->
    Runs = 1000,
    Benchmarks = [#{name => iolist_to_binary(["bench ", integer_to_list(N)]),
                    points => [point(R, 1.0e6 + R) || R <- lists:seq(1, Runs)],
                    steps => [step(500), step(990)]} || N <- lists:seq(1, 20)],
    H = #{store => <<"s">>, runs => Runs, benchmarks => Benchmarks},
    Page = html(H),
    ?assert(byte_size(Page) < 3000000, byte_size(Page)),
    ?assertEqual(20, count(Page, <<"1000 runs: the chart shows the latest 120, the table the latest 30">>)),
    %% every step in the summary; only those in the chart's window marked
    ?assertEqual(40, count(Page, <<"<a href=\"#benchmark-">>) - 20),
    ?assertEqual(20, count(Page, <<"class=\"x-marker ">>)),
    Text = unicode:characters_to_binary(text(H)),
    ?assert(byte_size(Text) < 200000, byte_size(Text)),
    ?assertEqual(20, count(Text, <<"(the latest 30 of 1000 runs)">>)),
    ?assertEqual(40, count(Text, <<": step at run ">>)),
    Json = iolist_to_binary(erlperf_trend:json(H)),
    ?assert(byte_size(Json) < Runs * 20 * 400, byte_size(Json)),
    {ok, #{<<"benchmarks">> := Decoded}} = erlperf_json:decode(Json),
    ?assertEqual([Runs || _ <- Decoded], [length(Ps) || #{<<"points">> := Ps} <- Decoded]).

invalid_input_test_() ->
    #{benchmarks := [B | _]} = H = history(),
    With = fun (Changed) -> H#{benchmarks := [maps:merge(B, Changed)]} end,
    Bad = [H#{runs := -1},
           maps:remove(store, H),
           With(#{name => "not a binary"}),
           With(#{steps => [(step(7))#{at := 1}]}),
           With(#{steps => [(step(7))#{at := 13}]}),
           With(#{steps => [maps:remove(p, step(7))]}),
           With(#{points => lists:reverse(maps:get(points, B))}),
           With(#{points => [(point(1, 1.0))#{value := undefined}]}),
           With(#{points => [(point(1, 1.0))#{interval := other}]}),
           H#{runs := 11}],
    [?_assertError({invalid_history, _}, erlperf_trend:F(Input))
     || Input <- Bad, F <- [html, text, json]] ++
    [?_assertError({invalid_history, {step, <<"rand:uniform().">>, #{at := 1}}},
                   erlperf_trend:html(With(#{steps => [(step(7))#{at := 1}]}))),
     ?_assertError({invalid_history, {order, <<"rand:uniform().">>, _}},
                   erlperf_trend:text(H#{runs := 11}))].

%%--------------------------------------------------------------------
%% Helpers

%% 12 runs. rand:uniform(). is in every run, 10% slower from run 7 (a step at its 7th
%% point), run 6 made with uncommitted changes; sparse is in the even runs only, made
%% outside git, 20% faster from its 4th point (run 8); flat has no step, and its first
%% point no interval.
history() ->
    Rand = [(point(R, case R < 7 of true -> 1.0e7; false -> 9.0e6 end))#{dirty := R =:= 6}
            || R <- lists:seq(1, 12)],
    Sparse = [(point(R, case R < 8 of true -> 1.0e5; false -> 1.2e5 end))#{commit := undefined}
              || R <- lists:seq(2, 12, 2)],
    Flat = [case R of
                1 -> (point(1, 2.0e6))#{commit := undefined, low := undefined, high := undefined,
                                        interval := single_run};
                _ -> point(R, 2.0e6)
            end || R <- lists:seq(1, 12)],
    #{store => <<"store/dir">>, runs => 12,
      benchmarks => [#{name => <<"rand:uniform().">>, points => Rand, steps => [step(7)]},
                     #{name => <<"sparse">>, points => Sparse,
                       steps => [#{at => 4, before => 1.0e5, 'after' => 1.2e5, change_pct => 20.0,
                                   ci_pct => {15.0, 25.0}, p => 0.01}]},
                     #{name => <<"flat">>, points => Flat, steps => []}]}.

point(Run, Value) ->
    #{run => Run, time => list_to_binary(io_lib:format("2026-11-~2..0bT08:00:00Z", [(Run - 1) rem 28 + 1])),
      commit => list_to_binary(sha(Run)), dirty => false, otp => <<"25">>, value => Value,
      low => Value * 0.99, high => Value * 1.01, interval => forks}.

step(At) ->
    #{at => At, before => 1.0e7, 'after' => 9.0e6, change_pct => -10.2, ci_pct => {-12.0, -8.4},
      p => 1.0e-4}.

%% A 40-character SHA per run, different in its first 7 characters.
sha(Run) ->
    lists:flatten(io_lib:format("~7.16.0b", [Run * 4099])) ++ lists:duplicate(33, $a).

short_sha(Run) -> lists:sublist(sha(Run), 7).

html(H) -> iolist_to_binary(erlperf_trend:html(H)).

text(H) -> unicode:characters_to_list(erlperf_trend:text(H)).

charts(Page) ->
    [{erlperf_html_test_lib:attr('data-series', G), Doc}
     || Doc <- erlperf_html_test_lib:svgs(Page),
        G <- erlperf_html_test_lib:elements(Doc, g),
        lists:member("series", string:lexemes(erlperf_html_test_lib:attr(class, G), " "))].

chart_of(Name, Charts) ->
    {Name, Doc} = lists:keyfind(Name, 1, Charts),
    Doc.

markers(Doc) ->
    [{erlperf_html_test_lib:number(erlperf_html_test_lib:attr('data-x', G)),
      erlperf_html_test_lib:attr(class, G)}
     || G <- erlperf_html_test_lib:elements(Doc, g),
        lists:member("x-marker", string:lexemes(erlperf_html_test_lib:attr(class, G), " "))].

count(Bin, Pattern) ->
    length(binary:matches(Bin, Pattern)).

%% Runs with exact counts and the host's load: the history shows them beside the
%% throughput, in the text, the page and the JSON; stores of older releases keep their
%% columns.
counts_and_load_test() ->
    Entry = fun (I, Bytes, Load) ->
                    #{<<"time">> => iolist_to_binary(io_lib:format("2026-11-0~bT08:00:00Z", [I])),
                      <<"commit">> => null, <<"otp">> => <<"25">>,
                      <<"record">> => #{<<"runs">> => [#{<<"label">> => <<"b">>, <<"qps">> => 1000.0,
                                                         <<"counts">> => #{<<"bytes_per_iteration">> => Bytes,
                                                                           <<"reductions_per_iteration">> => 28.0},
                                                         <<"interference">> => #{<<"share">> => Load,
                                                                                 <<"others">> => 0.0}}]}}
            end,
    History = erlperf_series:history(<<"s">>, [Entry(1, 1600.0, 0.02), Entry(2, 3200.0, 0.47)]),
    Text = lists:flatten(io_lib:format("~ts", [erlperf_trend:text(History)])),
    ?assertMatch({match, _}, re:run(Text, "Bytes +Reductions +Load\n")),
    ?assertMatch({match, _}, re:run(Text, " 3200 +28 +47%\n")),
    {ok, #{<<"benchmarks">> := [#{<<"points">> := [_, P2]}]}} = erlperf_json:decode(iolist_to_binary(erlperf_trend:json(History))),
    ?assertMatch(#{<<"bytes">> := 3200.0, <<"reductions">> := 28.0, <<"load">> := 0.47}, P2),
    Page = iolist_to_binary(erlperf_trend:html(History)),
    ?assertNotEqual(nomatch, binary:match(Page, <<"<th>Bytes per call</th>">>)),
    %% no counts anywhere: no such columns
    Old = erlperf_series:history(<<"s">>, [#{<<"time">> => <<"2026-11-01T08:00:00Z">>, <<"commit">> => null,
                                            <<"record">> => #{<<"runs">> => [#{<<"label">> => <<"b">>,
                                                                              <<"qps">> => 1.0}]}}]),
    ?assertEqual(nomatch, string:find(lists:flatten(io_lib:format("~ts", [erlperf_trend:text(Old)])), "Bytes")).
