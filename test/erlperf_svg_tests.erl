%%% @doc Tests of the chart module: ticks, scales, escaping, and charts whose points and
%%% bars are counted back from the SVG (parsed as XML).
-module(erlperf_svg_tests).

-include_lib("eunit/include/eunit.hrl").
-include_lib("stdlib/include/assert.hrl").

-define(EVIL, <<"<script>alert(\"x\")</script> & 'q'">>).

%%--------------------------------------------------------------------
%% nice_ticks/3

unit_range_test() ->
    Ticks = erlperf_svg:nice_ticks(0, 1, 7),
    ?assertEqual([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], [float(T) || T <- Ticks]),
    %% decimal steps are exact: 0.6 is the float closest to 0.6, not 0.6000000000000001
    ?assert(lists:member(0.6, Ticks)).

whole_step_test() ->
    ?assertEqual([0, 2, 4, 6, 8], erlperf_svg:nice_ticks(0, 7.3, 7)),
    ?assertEqual([0, 1, 2, 3, 4, 5, 6, 7, 8], erlperf_svg:nice_ticks(0, 7.3, 10)).

wide_linear_test() ->
    ?assertEqual([0, 200000, 400000, 600000, 800000, 1000000],
                 erlperf_svg:nice_ticks(3, 1.0e6, 7)).

negative_range_test() ->
    ?assertEqual([-4, -3, -2, -1, 0, 1, 2], erlperf_svg:nice_ticks(-3.2, 1.1, 7)),
    ?assertEqual([-100, -80, -60, -40, -20, 0], erlperf_svg:nice_ticks(-95.5, -3, 7)),
    %% reversed ends are the same range
    ?assertEqual(erlperf_svg:nice_ticks(-3.2, 1.1, 7), erlperf_svg:nice_ticks(1.1, -3.2, 7)).

single_value_test() ->
    Ticks = erlperf_svg:nice_ticks(5, 5, 7),
    ?assert(hd(Ticks) < 5 andalso lists:last(Ticks) > 5),
    ?assertEqual([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], [float(T) || T <- erlperf_svg:nice_ticks(0, 0, 7)]),
    Neg = erlperf_svg:nice_ticks(-2.5e6, -2.5e6, 7),
    ?assert(hd(Neg) < -2.5e6 andalso lists:last(Neg) > -2.5e6).

all_equal_values_test() ->
    %% a chart whose points all have one value still has an axis with distinct ticks
    Svg = erlperf_svg:line_chart([#{name => <<"flat">>, points => [{1, 7}, {2, 7}, {3, 7}]}], #{}),
    [Doc] = erlperf_html_test_lib:svgs(Svg),
    ?assertEqual([{"flat", [{1, 7}, {2, 7}, {3, 7}]}], erlperf_html_test_lib:series(Doc)),
    Labels = tick_labels(Doc, "y-axis"),
    ?assertEqual(length(Labels), length(lists:usort(Labels))),
    ?assert(length(Labels) >= 2).

ticks_properties_test_() ->
    Ranges = [{0, 1}, {0, 7.3}, {-3.2, 1.1}, {3, 1.0e6}, {1.0e6, 1000003}, {0.001, 0.0013},
              {-1.0e9, 5.0e8}, {17, 18}, {123456, 987654321}],
    [{lists:flatten(io_lib:format("~p..~p", [Min, Max])),
      fun () ->
              Ticks = erlperf_svg:nice_ticks(Min, Max, 7),
              ?assert(length(Ticks) >= 2 andalso length(Ticks) =< 7),
              ?assert(hd(Ticks) =< Min andalso lists:last(Ticks) >= Max),
              ?assertEqual(Ticks, lists:usort(Ticks)),
              Steps = lists:usort([round((B - A) / step(Ticks) * 1000)
                                   || {A, B} <- lists:zip(lists:droplast(Ticks), tl(Ticks))]),
              ?assertEqual([1000], Steps),
              ?assert(is_nice(step(Ticks)))
      end} || {Min, Max} <- Ranges].

step([A, B | _]) -> B - A.

%% 1, 2 or 5 times a power of ten.
is_nice(Step) ->
    Mantissa = Step / math:pow(10, floor(math:log10(Step))),
    lists:any(fun (M) -> abs(Mantissa - M) < 1.0e-6 end, [1, 2, 5, 10]).

%%--------------------------------------------------------------------
%% log_ticks/2

log_decades_test() ->
    ?assertEqual([1, 10, 100, 1000, 10000, 100000, 1000000], erlperf_svg:log_ticks(3, 1.0e6)),
    ?assertEqual([1, 10, 100, 1000], erlperf_svg:log_ticks(1, 1000)).

log_few_decades_test() ->
    ?assertEqual([10, 20, 50, 100, 200, 500, 1000], erlperf_svg:log_ticks(10, 1000)),
    ?assertEqual([0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1], erlperf_svg:log_ticks(0.0015, 0.07)).

log_many_decades_test() ->
    Ticks = erlperf_svg:log_ticks(1, 1.0e30),
    ?assert(length(Ticks) =< 12),
    ?assert(hd(Ticks) =< 1 andalso lists:last(Ticks) >= 1.0e30 * (1 - 1.0e-9)).

log_single_value_test() ->
    Ticks = erlperf_svg:log_ticks(50, 50),
    ?assert(hd(Ticks) =< 50 andalso lists:last(Ticks) >= 50 andalso length(Ticks) >= 2).

%%--------------------------------------------------------------------
%% scale/3, auto_scale/1

linear_scale_test() ->
    S = erlperf_svg:scale(linear, {0, 10}, {100, 300}),
    ?assertEqual(100.0, float(S(0))),
    ?assertEqual(300.0, float(S(10))),
    ?assertEqual(200.0, float(S(5))),
    %% reversed pixels (a y axis): still monotonic, decreasing
    Y = erlperf_svg:scale(linear, {-5, 5}, {300, 20}),
    ?assertEqual(300.0, float(Y(-5))),
    ?assertEqual(20.0, float(Y(5))),
    ?assert(monotonic([Y(V) || V <- lists:seq(-5, 5)], fun erlang:'>'/2)).

log_scale_test() ->
    S = erlperf_svg:scale(log, {1, 1000}, {0, 300}),
    ?assert(abs(S(1)) < 1.0e-9),
    ?assert(abs(S(1000) - 300) < 1.0e-9),
    ?assert(abs(S(10) - 100) < 1.0e-9),
    ?assert(abs(S(100) - 200) < 1.0e-9),
    ?assert(monotonic([S(V) || V <- [1, 2, 5, 10, 50, 99, 1000]], fun erlang:'<'/2)),
    %% values a log scale cannot show go to its low end
    ?assertEqual(0.0, S(0)),
    ?assertEqual(0.0, S(-3)).

empty_domain_scale_test() ->
    S = erlperf_svg:scale(linear, {4, 4}, {0, 100}),
    ?assertEqual(50.0, float(S(4))),
    %% 1 and 1.0 are one point too
    L = erlperf_svg:scale(log, {1, 1.0}, {0, 100}),
    ?assertEqual(50.0, float(L(1))),
    ?assertError({invalid_domain, log, {0, 10}}, erlperf_svg:scale(log, {0, 10}, {0, 100})).

auto_scale_test() ->
    ?assertEqual(log, erlperf_svg:auto_scale([1, 10, 100])),
    ?assertEqual(log, erlperf_svg:auto_scale([0.5, 50.0])),
    ?assertEqual(linear, erlperf_svg:auto_scale([1, 99])),
    ?assertEqual(linear, erlperf_svg:auto_scale([0, 10, 1000])),
    ?assertEqual(linear, erlperf_svg:auto_scale([-1, 1000])),
    ?assertEqual(linear, erlperf_svg:auto_scale([])).

monotonic(List, Order) ->
    lists:all(fun ({A, B}) -> Order(A, B) end, lists:zip(lists:droplast(List), tl(List))).

%%--------------------------------------------------------------------
%% format_number/1: counts in the tables' units (Ki, Mi: powers of 1000), 4 digits

format_number_test() ->
    F = fun (N) -> lists:flatten(erlperf_svg:format_number(N)) end,
    ?assertEqual(["0", "1500", "25000", "1500 Ki", "0.25", "1000", "-3.5", "12346 Ki", "2000 Mi"],
                 [F(N) || N <- [0, 1500, 25000, 1.5e6, 0.25, 999.99, -3.5, 12345678.9, 2.0e9]]).

%%--------------------------------------------------------------------
%% line_chart/2

point_counts_test() ->
    A = [{X, X * X * 1.5} || X <- lists:seq(1, 37)],
    B = [{X, 100 - X} || X <- lists:seq(1, 5)],
    Svg = erlperf_svg:line_chart([#{name => <<"a">>, points => A},
                                  #{name => <<"b">>, points => B}],
                                 #{title => <<"t">>, x_label => <<"x">>, y_label => <<"y, ms">>}),
    [Doc] = erlperf_html_test_lib:svgs(Svg),
    ?assertEqual([{"a", A}, {"b", B}], erlperf_html_test_lib:series(Doc)),
    Text = iolist_to_binary(Svg),
    ?assertEqual(42, count(Text, <<"class=\"point\"">>)),
    %% a legend when more than one series, colours by class
    ?assertMatch([_], erlperf_html_test_lib:elements(Doc, g) -- non_legend(Doc)),
    ?assertEqual(1, count(Text, <<"class=\"series series-0\"">>)),
    ?assertEqual(1, count(Text, <<"class=\"series series-1\"">>)),
    ?assertMatch({match, _}, re:run(Text, "^<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 640 ")),
    ?assertMatch({match, _}, re:run(Text, "role=\"img\" class=\"chart\"")),
    ?assert(binary:match(Text, <<"y, ms">>) =/= nomatch).

single_series_no_legend_test() ->
    Svg = erlperf_svg:line_chart([#{name => <<"only">>, points => [{1, 2}, {2, 3}]}], #{}),
    ?assertEqual(nomatch, binary:match(iolist_to_binary(Svg), <<"class=\"legend\"">>)).

non_legend(Doc) ->
    [G || G <- erlperf_html_test_lib:elements(Doc, g),
          erlperf_html_test_lib:attr(class, G) =/= "legend"].

marked_and_error_test() ->
    Points = [{10, 5.0e6}, {100, 2.0e6}, {1000, 3.0e5}],
    Svg = erlperf_svg:line_chart([#{name => <<"s">>, points => Points, marked => [{1000, 3.0e5}],
                                    error => [{100, 1.5e6, 2.5e6}]}], #{}),
    [Doc] = erlperf_html_test_lib:svgs(Svg),
    %% marked points are rings, not more points
    ?assertEqual([{"s", Points}], erlperf_html_test_lib:series(Doc)),
    ?assertEqual([{"s", [{1000, 3.0e5}]}], erlperf_html_test_lib:marked(Doc)),
    ?assertEqual([{1.5e6, 2.5e6}], erlperf_html_test_lib:whiskers(Doc)),
    %% x spans three decades: a log axis with the decades as ticks
    ?assertEqual(["10", "20", "50", "100", "200", "500", "1000"], tick_labels(Doc, "x-axis")).

x_markers_test() ->
    Svg = erlperf_svg:line_chart([#{name => <<"s">>, points => [{1, 10}, {2, 11}, {3, 5}]}],
                                 #{x_scale => linear,
                                   x_markers => [#{x => 3, label => <<"-50% <&>">>, class => <<"regression">>},
                                                 #{x => 5, label => "later"}]}),
    [Doc] = erlperf_html_test_lib:svgs(Svg),
    Markers = [G || G <- erlperf_html_test_lib:elements(Doc, g),
                    lists:member("x-marker", string:lexemes(erlperf_html_test_lib:attr(class, G), " "))],
    ?assertEqual([{3, "x-marker regression"}, {5, "x-marker "}],
                 [{erlperf_html_test_lib:number(erlperf_html_test_lib:attr('data-x', G)),
                   erlperf_html_test_lib:attr(class, G)} || G <- Markers]),
    %% the label is text (escaped), and the x axis reaches the marker beyond the points
    ?assertNotEqual(nomatch, string:find(erlperf_html_test_lib:texts(hd(Markers)), "-50% <&>")),
    ?assertNotEqual(nomatch, binary:match(iolist_to_binary(Svg), <<"-50% &lt;&amp;&gt;">>)),
    ?assert(lists:member("5", tick_labels(Doc, "x-axis"))),
    ?assertError({invalid_option, x_markers, [#{x := a}]},
                 erlperf_svg:line_chart([], #{x_markers => [#{x => a, label => <<>>}]})),
    ?assertError({invalid_option, x_markers, [#{colour := red}]},
                 erlperf_svg:line_chart([], #{x_markers => [#{x => 1, label => <<>>, colour => red}]})).

given_x_ticks_test() ->
    Format = fun (X) when X == round(X) -> ["run ", integer_to_list(round(X))]; (_) -> <<>> end,
    Svg = erlperf_svg:line_chart([#{name => <<"s">>, points => [{1, 10}, {2, 11}, {4, 5}]}],
                                 #{x_ticks => [4, 0.5, 2, 4.5], x_format => Format}),
    [Doc] = erlperf_html_test_lib:svgs(Svg),
    ?assertEqual(["", "run 2", "run 4", ""], tick_labels(Doc, "x-axis")),
    ?assertError({invalid_option, x_ticks, []}, erlperf_svg:line_chart([], #{x_ticks => []})).

log_y_axis_test() ->
    Svg = erlperf_svg:line_chart([#{name => <<"s">>, points => [{1, 3}, {2, 3.0e6}]}],
                                 #{y_scale => auto}),
    [Doc] = erlperf_html_test_lib:svgs(Svg),
    ?assertEqual(["1", "10", "100", "1000", "10000", "100 Ki", "1000 Ki", "10000 Ki"], tick_labels(Doc, "y-axis")).

custom_format_test() ->
    Svg = erlperf_svg:line_chart([#{name => <<"s">>, points => [{1, 1}, {3, 2}]}],
                                 #{x_format => fun (X) -> ["#", erlperf_svg:format_number(X)] end}),
    [Doc] = erlperf_html_test_lib:svgs(Svg),
    ?assert(lists:all(fun ("#" ++ _) -> true; (_) -> false end, tick_labels(Doc, "x-axis"))).

tick_labels(Doc, Axis) ->
    [G] = [G || G <- erlperf_html_test_lib:elements(Doc, g),
                erlperf_html_test_lib:attr(class, G) =:= "axis " ++ Axis],
    [erlperf_html_test_lib:texts(T) || T <- erlperf_html_test_lib:elements(G, text),
                                       erlperf_html_test_lib:attr(class, T) =:= "tick"].

empty_chart_test() ->
    [Doc] = erlperf_html_test_lib:svgs(erlperf_svg:line_chart([], #{title => <<"nothing">>})),
    ?assertEqual([], erlperf_html_test_lib:series(Doc)),
    [Doc2] = erlperf_html_test_lib:svgs(erlperf_svg:line_chart([#{name => <<"e">>, points => []}], #{})),
    ?assertEqual([{"e", []}], erlperf_html_test_lib:series(Doc2)).

%%--------------------------------------------------------------------
%% bar_chart/2

bar_whiskers_test() ->
    Bars = [#{label => <<"fast">>, value => 1.2e7, lo => 1.1e7, hi => 1.3e7, class => <<"best">>,
              note => <<"fastest">>},
            #{label => <<"slow">>, value => 9000000, lo => 8.5e6, hi => 9.6e6,
              note => <<"25% slower">>},
            #{label => <<"bare">>, value => 100}],
    Svg = erlperf_svg:bar_chart(Bars, #{title => <<"QPS">>, x_label => <<"iterations/s">>}),
    [Doc] = erlperf_html_test_lib:svgs(Svg),
    ?assertMatch([{1.2e7, ["bar", "best"], "fast" ++ _}, {9000000, ["bar"], "slow" ++ _},
                  {100, ["bar"], "bare" ++ _}], erlperf_html_test_lib:bars(Doc)),
    ?assertEqual([{1.1e7, 1.3e7}, {8.5e6, 9.6e6}], erlperf_html_test_lib:whiskers(Doc)),
    Text = iolist_to_binary(Svg),
    ?assertEqual(3, count(Text, <<"class=\"bar ">>)),
    ?assertEqual(6, count(Text, <<"class=\"whisker\"">>)),
    ?assert(binary:match(Text, <<"25% slower">>) =/= nomatch),
    %% no zero line: every value is above zero
    ?assertEqual(nomatch, binary:match(Text, <<"class=\"zero\"">>)),
    %% bars are as long as their values, from the same origin
    [_, _, _] = Rects = [R || R <- erlperf_html_test_lib:elements(Doc, rect)],
    [W1, W2, W3] = [erlperf_html_test_lib:number(erlperf_html_test_lib:attr(width, R)) || R <- Rects],
    ?assert(W1 > W2 andalso W2 > W3),
    ?assert(abs(W2 / W1 - 0.75) < 0.01).

empty_bar_chart_test() ->
    [Doc] = erlperf_html_test_lib:svgs(erlperf_svg:bar_chart([], #{title => <<"none">>})),
    ?assertEqual([], erlperf_html_test_lib:bars(Doc)).

zero_line_test() ->
    Svg = erlperf_svg:bar_chart([#{label => <<"down">>, value => -12.5, lo => -20, hi => -5,
                                   class => <<"regression">>},
                                 #{label => <<"up">>, value => 3.0, lo => -1.0, hi => 7.0}],
                                #{x_label => <<"change, %">>}),
    Text = iolist_to_binary(Svg),
    ?assertEqual(1, count(Text, <<"class=\"zero\"">>)),
    [Doc] = erlperf_html_test_lib:svgs(Svg),
    ?assertMatch([{-12.5, ["bar", "regression"], _}, {3.0, ["bar"], _}],
                 erlperf_html_test_lib:bars(Doc)).

invalid_options_test() ->
    S = [#{name => <<"s">>, points => [{1, 1}]}],
    ?assertError({invalid_option, colour, red}, erlperf_svg:line_chart(S, #{colour => red})),
    ?assertError({invalid_option, width, 0}, erlperf_svg:line_chart(S, #{width => 0})),
    ?assertError({invalid_option, y_scale, sqrt}, erlperf_svg:line_chart(S, #{y_scale => sqrt})),
    ?assertError({invalid_option, height, 100},
                 erlperf_svg:bar_chart([#{label => <<"a">>, value => 1}], #{height => 100})),
    ?assertError({invalid_option, title, 42},
                 erlperf_svg:bar_chart([#{label => <<"a">>, value => 1}], #{title => 42})).

%%--------------------------------------------------------------------
%% Escaping: every text of a chart

escape_line_chart_test() ->
    Svg = erlperf_svg:line_chart([#{name => ?EVIL, points => [{1, 1}, {2, 2}]},
                                  #{name => <<"b&b">>, points => [{1, 2}]}],
                                 #{title => ?EVIL, x_label => ?EVIL, y_label => ?EVIL}),
    assert_escaped(Svg),
    [Doc] = erlperf_html_test_lib:svgs(Svg),
    %% read back as XML, the text is the original
    ?assertEqual(unicode:characters_to_list(?EVIL), erlperf_html_test_lib:title(Doc)),
    ?assertMatch([{"<script>alert(\"x\")</script> & 'q'", _}, {"b&b", _}],
                 erlperf_html_test_lib:series(Doc)).

escape_bar_chart_test() ->
    Svg = erlperf_svg:bar_chart([#{label => ?EVIL, value => 1, note => ?EVIL, class => <<"a\"b">>}],
                                #{title => ?EVIL, x_label => ?EVIL}),
    assert_escaped(Svg),
    [Doc] = erlperf_html_test_lib:svgs(Svg),
    [{1, _, Label}] = erlperf_html_test_lib:bars(Doc),
    %% the label, the note, and the label in the bar's tooltip
    ?assertEqual(3, count(unicode:characters_to_binary(Label), <<"<script>">>)).

assert_escaped(Svg) ->
    Text = iolist_to_binary(Svg),
    ?assertEqual(nomatch, binary:match(Text, [<<"<script">>, <<"\"x\"">>, <<"'q'">>, <<"& ">>])),
    ?assert(binary:match(Text, <<"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;">>)
            =/= nomatch).

count(Text, Pattern) ->
    length(binary:matches(Text, Pattern)).
