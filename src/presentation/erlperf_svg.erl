%%% @doc Charts drawn as inline SVG for the HTML reports: line charts (series of points,
%%% with highlighted points and error bars) and horizontal bar charts (with whiskers),
%%% their axes, ticks and legends. Pure: returns iodata; no script, no external file.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>domain</b>: the range of data values an axis shows; <b>range</b>: the pixels
%%%       it spans. A <b>scale</b> maps one onto the other, linearly or by logarithm.</li>
%%%   <li><b>nice ticks</b>: tick values at steps of 1, 2 or 5 times a power of ten,
%%%       covering the data; <b>log ticks</b>: the powers of ten (and their 2 and 5
%%%       multiples when the data span few decades).</li>
%%%   <li><b>series</b>: a named list of `{X, Y}' points drawn as one line; <b>marked</b>
%%%       points (the best of a sweep) get a ring; <b>error</b> bars are `{X, Lo, Hi}'.</li>
%%%   <li><b>whisker</b>: the interval drawn across a bar (a 95% confidence interval).</li>
%%%   <li><b>x marker</b>: a labelled vertical line across a line chart's plot at one x
%%%       (an event between points: a change of level, a new release).</li>
%%% </ul>
%%%
%%% The markup is meant to be counted: each series is a `<g class="series series-N"
%%% data-series="NAME">' holding one `<circle class="point" data-x="X" data-y="Y">' per
%%% point (the numbers written as the record writes them, see {@link erlperf_units:exact/1});
%%% each bar is a `<rect class="bar" data-value="V">' with a `<line class="whisker">' when
%%% it has an interval; each x marker is a `<g class="x-marker CLASS" data-x="X">' holding
%%% its `<line class="marker">' and label. Colours come from CSS classes (`series-0' .. `series-7'), so the
%%% page's stylesheet decides light, dark and print. All text is escaped.
%%%
%%% Example:
%%% ```
%%% Svg = erlperf_svg:line_chart([#{name => <<"qps">>, points => [{1, 10.0}, {2, 12.5}]}],
%%%                              #{title => <<"Throughput">>, x_label => <<"sample">>,
%%%                                y_label => <<"iterations/s">>}),
%%% Page = erlperf_html:page(<<"Report">>, Svg).
%%% '''
-module(erlperf_svg).

%% API: called by the report modules (erlperf_html_bench, erlperf_html_perf).
-export([nice_ticks/3, log_ticks/2, scale/3, auto_scale/1, line_chart/2, bar_chart/2,
         format_number/1, format_whole/1]).

-export_type([series/0, line_options/0, x_marker/0, bar/0, bar_options/0, scale_kind/0]).

-type scale_kind() :: linear | log.
-type point() :: {number(), number()}.
-type series() :: #{name := unicode:chardata(),
                    points := [point()],
                    marked => [point()],                       % drawn as a ring
                    error => [{number(), number(), number()}]}. % {X, Lo, Hi}
-type format() :: fun((number()) -> iodata()).
%% A vertical line across the plot at `x', its label at the top of the plot, and a CSS
%% class (`<<"regression">>', `<<"faster">>') for its colour.
-type x_marker() :: #{x := number(),
                      label := unicode:chardata(),
                      class => binary()}.
%% Line chart options, defaults in ?LINE_DEFAULTS: title, axis labels (with units in the
%% text), scales (`auto': log when all values are positive and span a factor of 100),
%% size in pixels, tick label formats (default format_number/1), vertical markers (none),
%% and the x axis's ticks: `auto' (nice or log ticks over the data), or the tick values,
%% a linear axis from the smallest to the largest (which should cover the data).
-type line_options() :: #{title => unicode:chardata(),
                          x_label => unicode:chardata(),
                          y_label => unicode:chardata(),
                          x_scale => scale_kind() | auto,
                          y_scale => scale_kind() | auto,
                          width => pos_integer(),
                          height => pos_integer(),
                          x_format => format(),
                          y_format => format(),
                          x_markers => [x_marker()],
                          x_ticks => auto | [number(), ...]}.
%% A horizontal bar: its label, value, optional whisker `lo'..`hi', a CSS class
%% (`<<"regression">>', `<<"best">>') and a note written after the label (a verdict).
-type bar() :: #{label := unicode:chardata(),
                 value := number(),
                 lo => number(),
                 hi => number(),
                 class => binary(),
                 note => unicode:chardata()}.
%% Bar chart options: `x_label' names the value axis (with its unit), `format' writes
%% values and ticks. The height follows the number of bars.
-type bar_options() :: #{title => unicode:chardata(),
                         x_label => unicode:chardata(),
                         width => pos_integer(),
                         format => format()}.

-define(LINE_DEFAULTS, #{title => <<>>, x_label => <<>>, y_label => <<>>, x_scale => auto,
                         y_scale => auto, width => 640, height => 320,
                         x_format => fun ?MODULE:format_number/1, y_format => fun ?MODULE:format_number/1,
                         x_markers => [], x_ticks => auto}).
-define(BAR_DEFAULTS, #{title => <<>>, x_label => <<>>, width => 640,
                        format => fun ?MODULE:format_number/1}).

%% The most ticks an axis of a line chart gets (nice steps give between half and all).
-define(MAX_TICKS, 7).
%% Margins around a plot, pixels: left (tick labels, y label), right, top (title),
%% bottom (tick labels, x label).
-define(MARGIN_LEFT, 72).
-define(MARGIN_RIGHT, 20).
-define(MARGIN_TOP, 34).
-define(MARGIN_BOTTOM, 46).
%% One legend line, pixels; x markers' labels alternate between two such lines.
-define(LEGEND_LINE, 16).
%% Height of a bar's row (its text line and the bar), pixels.
-define(BAR_ROW, 34).
-define(BAR_HEIGHT, 14).
%% Above this many decades, log ticks skip decades.
-define(MAX_DECADES, 10).
%% Up to this many decades, log ticks add the 2 and 5 multiples.
-define(FEW_DECADES, 2).
%% Significant digits of numbers written for the reader (more when ticks need them).
-define(DIGITS, 4).
-define(MAX_DIGITS, 15).
%% Series colours cycle through this many CSS classes.
-define(COLOURS, 8).
%% Relative tolerance when comparing logarithms with whole numbers.
-define(LOG_EPSILON, 1.0e-9).
%% Longest label shown in full (characters); longer ones are cut, the whole text in
%% the element's title.
-define(MAX_LABEL, 90).

%%--------------------------------------------------------------------
%% API

%% @doc Tick values at a nice step (1, 2 or 5 times a power of ten) from at or below
%% `Min' to at or above `Max', at most `MaxCount' of them (at least 2). Integers when
%% the step is whole. Equal ends are widened around the value (`[0, 1]' for zero).
-spec nice_ticks(Min :: number(), Max :: number(), MaxCount :: pos_integer()) -> [number()].
nice_ticks(Min, Max, MaxCount) when Min > Max ->
    nice_ticks(Max, Min, MaxCount);
nice_ticks(Same, Same, MaxCount) when Same == 0 ->
    nice_ticks(0, 1, MaxCount);
nice_ticks(Min, Max, MaxCount) when Min == Max ->
    Half = abs(Min) / 10,
    nice_ticks(Min - Half, Max + Half, MaxCount);
nice_ticks(Min, Max, MaxCount) ->
    Count = max(MaxCount, 2),
    Raw = (Max - Min) / (Count - 1),
    Exp = floor(math:log10(Raw)),
    steps(Min, Max, Count, [{M, Exp} || M <- [1, 2, 5]] ++ [{M, Exp + 1} || M <- [1, 2, 5]]
                                     ++ [{1, Exp + 2}]).

%% @doc Ticks of a log axis from `Min' to `Max' (both > 0): the powers of ten around
%% them, with the 2 and 5 multiples when they span at most ?FEW_DECADES decades; every
%% other decade (or fewer) when they span more than ?MAX_DECADES.
-spec log_ticks(Min :: number(), Max :: number()) -> [number()].
log_ticks(Min, Max) when Min > Max ->
    log_ticks(Max, Min);
log_ticks(Min, Max) when Min > 0 ->
    Lo = floor(math:log10(Min) + ?LOG_EPSILON),
    Hi = max(ceil(math:log10(Max) - ?LOG_EPSILON), Lo + 1),
    Decades = Hi - Lo,
    if
        Decades =< ?FEW_DECADES ->
            [power(M, E) || E <- lists:seq(Lo, Hi - 1), M <- [1, 2, 5]] ++ [power(1, Hi)];
        Decades =< ?MAX_DECADES ->
            [power(1, E) || E <- lists:seq(Lo, Hi)];
        true ->
            Stride = ceil(Decades / ?MAX_DECADES),
            Top = Lo + ceil(Decades / Stride) * Stride,
            [power(1, E) || E <- lists:seq(Lo, Top, Stride)]
    end.

%% @doc A function mapping the domain `{DMin, DMax}' onto the pixels `{PMin, PMax}'
%% (either may be reversed: a y axis grows upwards). A log scale maps values at or below
%% zero to `PMin'; an empty domain maps everything to the middle.
-spec scale(scale_kind(), {number(), number()}, {number(), number()}) ->
    fun((number()) -> float()).
scale(_Kind, {DMin, DMax}, {PMin, PMax}) when DMin == DMax ->
    fun (_) -> (PMin + PMax) / 2 end;
scale(linear, {DMin, DMax}, {PMin, PMax}) ->
    K = (PMax - PMin) / (DMax - DMin),
    fun (V) -> PMin + (V - DMin) * K end;
scale(log, {DMin, DMax}, {PMin, PMax}) when DMin > 0, DMax > 0 ->
    L0 = math:log10(DMin),
    K = (PMax - PMin) / (math:log10(DMax) - L0),
    fun (V) when V > 0 -> PMin + (math:log10(V) - L0) * K;
        (_) -> float(PMin)
    end;
scale(log, Domain, _Pixels) ->
    erlang:error({invalid_domain, log, Domain}).

%% @doc `log' when every value is above zero and the largest is at least 100 times the
%% smallest, else `linear'.
-spec auto_scale([number()]) -> scale_kind().
auto_scale([]) ->
    linear;
auto_scale(Values) ->
    Min = lists:min(Values),
    case Min > 0 andalso lists:max(Values) / Min >= 100 of
        true -> log;
        false -> linear
    end.

%% @doc A line chart: one line per series, a point per value, rings on marked points,
%% error bars, axes with ticks and labels, labelled vertical markers (`x_markers'), and a
%% legend when there is more than one series. The x axis spans the markers too.
-spec line_chart([series()], line_options()) -> iodata().
line_chart(Series, Options) ->
    #{width := W, height := H0} = Opts = options(?LINE_DEFAULTS, Options),
    Legend = case length(Series) > 1 of true -> length(Series); false -> 0 end,
    H = H0 + Legend * ?LEGEND_LINE,
    Points = lists:append([points_of(S) || S <- Series]),
    Markers = maps:get(x_markers, Opts),
    XPixels = {?MARGIN_LEFT, W - ?MARGIN_RIGHT},
    {XAxis, XS} = case maps:get(x_ticks, Opts) of
                      auto -> axis(maps:get(x_scale, Opts),
                                   [X || {X, _} <- Points] ++ [X || #{x := X} <- Markers], XPixels);
                      Given -> given_axis(Given, XPixels)
                  end,
    {YAxis, YS} = axis(maps:get(y_scale, Opts), [Y || {_, Y} <- Points],
                       {H0 - ?MARGIN_BOTTOM, ?MARGIN_TOP}),
    Frame = #{x => XS, y => YS, x_ticks => XAxis, y_ticks => YAxis, width => W, height => H0},
    svg(W, H, maps:get(title, Opts),
        [x_axis(Frame, maps:get(x_format, Opts), maps:get(x_label, Opts)),
         y_axis(Frame, maps:get(y_format, Opts), maps:get(y_label, Opts)),
         x_markers(Markers, Frame),
         [series(S, N, XS, YS) || {N, S} <- lists:zip(lists:seq(0, length(Series) - 1), Series)],
         legend(Series, Legend, H0)]).

%% @doc A horizontal bar chart: per bar, a line of text (label, value, note) above the
%% bar, the bar from zero to its value, and the whisker when it has `lo' and `hi'. A
%% value axis at the bottom, and a zero line when values fall on both sides of zero.
-spec bar_chart([bar()], bar_options()) -> iodata().
bar_chart(Bars, Options) ->
    #{width := W, format := Format} = Opts = options(?BAR_DEFAULTS, Options),
    Values = [0 | lists:append([[V | [maps:get(K, B) || K <- [lo, hi], is_map_key(K, B)]]
                                || #{value := V} = B <- Bars])],
    Ticks = nice_ticks(lists:min(Values), lists:max(Values), ?MAX_TICKS),
    Domain = {hd(Ticks), lists:last(Ticks)},
    XS = scale(linear, Domain, {?MARGIN_LEFT div 3, W - ?MARGIN_RIGHT}),
    Bottom = ?MARGIN_TOP + length(Bars) * ?BAR_ROW,
    H = Bottom + ?MARGIN_BOTTOM,
    Zero = case hd(Ticks) < 0 andalso lists:last(Ticks) > 0 of
               true -> vline(<<"zero">>, XS(0), ?MARGIN_TOP, Bottom);
               false -> []
           end,
    Rows = [bar(B, ?MARGIN_TOP + I * ?BAR_ROW, XS, Format)
            || {I, B} <- lists:zip(lists:seq(0, length(Bars) - 1), Bars)],
    svg(W, H, maps:get(title, Opts),
        [value_axis(Ticks, XS, Bottom, Format, maps:get(x_label, Opts), W), Zero, Rows]).

%% @doc A tick label for an axis of counted things (samples, workers, sizes): whole
%% numbers as {@link format_number/1} writes them, nothing between them.
-spec format_whole(number()) -> iodata().
format_whole(N) when N == round(N) -> format_number(round(N));
format_whole(_N) -> <<>>.

%% @doc A number for a tick label or a bar: a count as the tables write it, with at most
%% 4 significant digits ({@link erlperf_units:count/2}: `1500' -> `"1500"', `250000' ->
%% `"250 Ki"', `0.25' -> `"0.25"').
-spec format_number(number()) -> iodata().
format_number(N) ->
    erlperf_units:count(N, ?DIGITS).

%%--------------------------------------------------------------------
%% Internal functions: ticks and scales

%% The options with defaults filled in; an unknown key or a value of the wrong kind is a
%% programmer's error.
options(Defaults, Options) ->
    maps:foreach(fun (K, V) ->
                         case is_map_key(K, Defaults) andalso valid(K, V) of
                             true -> ok;
                             false -> erlang:error({invalid_option, K, V})
                         end
                 end, Options),
    maps:merge(Defaults, Options).

valid(K, V) when K =:= width; K =:= height -> is_integer(V) andalso V > 0;
valid(K, V) when K =:= x_scale; K =:= y_scale -> lists:member(V, [linear, log, auto]);
valid(K, V) when K =:= x_format; K =:= y_format; K =:= format -> is_function(V, 1);
valid(x_markers, V) -> is_list(V) andalso lists:all(fun is_marker/1, V);
valid(x_ticks, V) -> V =:= auto orelse (is_list(V) andalso V =/= [] andalso lists:all(fun erlang:is_number/1, V));
valid(_Text, V) -> is_binary(V) orelse is_list(V).

%% The first candidate step whose ticks fit in Count.
steps(Min, Max, Count, [{M, E} | More]) ->
    Step = power(M, E),
    First = floor(Min / Step - ?LOG_EPSILON),
    Last = ceil(Max / Step + ?LOG_EPSILON),
    Ticks = [tick(K, M, E) || K <- lists:seq(First, Last)],
    Trimmed = trim(Ticks, Min, Max),
    case length(Trimmed) =< Count orelse More =:= [] of
        true -> Trimmed;
        false -> steps(Min, Max, Count, More)
    end.

%% Drops the ticks beyond the first one at or below Min and the first one at or above Max.
trim([_, Next | Rest], Min, Max) when Next =< Min ->
    trim([Next | Rest], Min, Max);
trim(Ticks, _Min, Max) ->
    {Below, Above} = lists:splitwith(fun (T) -> T < Max end, Ticks),
    Below ++ lists:sublist(Above, 1).

%% K steps of M * 10^E, computed so that 0.1 * 3 is 0.3.
tick(K, M, E) when E >= 0 -> K * M * pow10(E);
tick(K, M, E) -> K * M / pow10(-E).

power(M, E) when E >= 0 -> M * pow10(E);
power(M, E) -> M / pow10(-E).

pow10(E) -> pow10(E, 1).
pow10(0, Acc) -> Acc;
pow10(E, Acc) -> pow10(E - 1, Acc * 10).

%% The ticks and scale of an axis over Values.
axis(auto, Values, Pixels) ->
    axis(auto_scale(Values), Values, Pixels);
axis(log, Values, Pixels) ->
    case [V || V <- Values, V > 0] of
        [] ->
            axis(linear, Values, Pixels);
        Positive ->
            Ticks = log_ticks(lists:min(Positive), lists:max(Positive)),
            {{log, Ticks}, scale(log, {hd(Ticks), lists:last(Ticks)}, Pixels)}
    end;
axis(linear, [], Pixels) ->
    axis(linear, [0, 1], Pixels);
axis(linear, Values, Pixels) ->
    Ticks = nice_ticks(lists:min(Values), lists:max(Values), ?MAX_TICKS),
    {{linear, Ticks}, scale(linear, {hd(Ticks), lists:last(Ticks)}, Pixels)}.

%% A linear axis with the caller's ticks.
given_axis(Given, Pixels) ->
    Ticks = lists:usort(Given),
    {{linear, Ticks}, scale(linear, {hd(Ticks), lists:last(Ticks)}, Pixels)}.

%%--------------------------------------------------------------------
%% Internal functions: drawing

svg(W, H, Title, Content) ->
    ["<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ", int(W), " ", int(H),
     "\" width=\"", int(W), "\" height=\"", int(H), "\" role=\"img\" class=\"chart\">\n",
     "<title>", esc(Title), "</title>\n",
     "<text class=\"title\" x=\"", int(W / 2), "\" y=\"18\" text-anchor=\"middle\">",
     esc(Title), "</text>\n", Content, "</svg>\n"].

x_axis(#{x := XS, x_ticks := {_, Ticks}, height := H} = Frame, Format, Label) ->
    Bottom = H - ?MARGIN_BOTTOM,
    Top = ?MARGIN_TOP,
    ["<g class=\"axis x-axis\">\n",
     [[vline(<<"grid">>, XS(T), Top, Bottom),
       text(<<"tick">>, XS(T), Bottom + 15, <<"middle">>, L)]
      || {T, L} <- lists:zip(Ticks, tick_labels(Ticks, Format))],
     hline(<<"axis-line">>, px_left(Frame), px_right(Frame), Bottom),
     text(<<"axis-label">>, (px_left(Frame) + px_right(Frame)) / 2, H - 10, <<"middle">>, Label),
     "</g>\n"].

y_axis(#{y := YS, y_ticks := {_, Ticks}} = Frame, Format, Label) ->
    Left = px_left(Frame),
    Middle = (?MARGIN_TOP + maps:get(height, Frame) - ?MARGIN_BOTTOM) / 2,
    ["<g class=\"axis y-axis\">\n",
     [[hline(<<"grid">>, Left, px_right(Frame), YS(T)),
       text(<<"tick">>, Left - 6, YS(T) + 4, <<"end">>, L)]
      || {T, L} <- lists:zip(Ticks, tick_labels(Ticks, Format))],
     vline(<<"axis-line">>, Left, ?MARGIN_TOP, maps:get(height, Frame) - ?MARGIN_BOTTOM),
     "<text class=\"axis-label\" text-anchor=\"middle\" transform=\"translate(14 ",
     num(Middle), ") rotate(-90)\">", esc(Label), "</text>\n",
     "</g>\n"].

px_left(_Frame) -> ?MARGIN_LEFT.
px_right(#{width := W}) -> W - ?MARGIN_RIGHT.

series(#{name := Name, points := Points} = S, N, XS, YS) ->
    Class = ["series series-", int(N rem ?COLOURS)],
    ["<g class=\"", Class, "\" data-series=\"", esc(Name), "\">\n",
     path(Points, XS, YS),
     [error_bar(E, XS, YS) || E <- maps:get(error, S, [])],
     [["<circle class=\"point\" data-x=\"", erlperf_units:exact(X), "\" data-y=\"",
       erlperf_units:exact(Y), "\" cx=\"", num(XS(X)), "\" cy=\"", num(YS(Y)),
       "\" r=\"3\"><title>", esc(Name), ": ", format_number(X), ", ", format_number(Y),
       "</title></circle>\n"] || {X, Y} <- Points],
     [["<circle class=\"marked\" data-x=\"", erlperf_units:exact(X), "\" data-y=\"",
       erlperf_units:exact(Y), "\" cx=\"", num(XS(X)), "\" cy=\"", num(YS(Y)),
       "\" r=\"7\"><title>", esc(Name), " (best): ", format_number(X), ", ",
       format_number(Y), "</title></circle>\n"] || {X, Y} <- maps:get(marked, S, [])],
     "</g>\n"].

%% Each marker's label starts beside its line, or ends there in the right half of the plot;
%% labels take turns between two lines so that neighbours do not overlap.
x_markers(Markers, #{x := XS, height := H} = Frame) ->
    Middle = (px_left(Frame) + px_right(Frame)) / 2,
    [begin
         Px = XS(X),
         {Dx, Anchor} = case Px > Middle of
                            true -> {-4, <<"end">>};
                            false -> {4, <<"start">>}
                        end,
         ["<g class=\"x-marker ", esc(maps:get(class, M, <<>>)), "\" data-x=\"",
          erlperf_units:exact(X), "\"><title>", esc(Label), "</title>",
          vline(<<"marker">>, Px, ?MARGIN_TOP, H - ?MARGIN_BOTTOM), "\n",
          text(<<"marker-label">>, Px + Dx, ?MARGIN_TOP + 12 + (I rem 2) * ?LEGEND_LINE, Anchor,
               Label),
          "</g>\n"]
     end || {I, #{x := X, label := Label} = M} <- lists:zip(lists:seq(0, length(Markers) - 1),
                                                           Markers)].

is_marker(#{x := X, label := Label} = M) when is_number(X) ->
    (is_binary(Label) orelse is_list(Label)) andalso map_size(maps:without([x, label, class], M)) =:= 0
        andalso is_binary(maps:get(class, M, <<>>));
is_marker(_Other) ->
    false.

path([], _XS, _YS) ->
    [];
path([{X, Y} | Rest], XS, YS) ->
    ["<path class=\"line\" d=\"M", num(XS(X)), " ", num(YS(Y)),
     [[" L", num(XS(X1)), " ", num(YS(Y1))] || {X1, Y1} <- Rest], "\"/>\n"].

error_bar({X, Lo, Hi}, XS, YS) ->
    Px = XS(X),
    ["<g class=\"error\" data-x=\"", erlperf_units:exact(X), "\" data-lo=\"",
     erlperf_units:exact(Lo), "\" data-hi=\"", erlperf_units:exact(Hi), "\">",
     vline(<<"whisker">>, Px, YS(Lo), YS(Hi)), hline(<<"whisker">>, Px - 3, Px + 3, YS(Lo)),
     hline(<<"whisker">>, Px - 3, Px + 3, YS(Hi)), "</g>\n"].

points_of(#{points := Points} = S) ->
    Points ++ maps:get(marked, S, [])
        ++ lists:append([[{X, Lo}, {X, Hi}] || {X, Lo, Hi} <- maps:get(error, S, [])]).

legend(_Series, 0, _H0) ->
    [];
legend(Series, _N, H0) ->
    ["<g class=\"legend\">\n",
     [begin
          Y = H0 + I * ?LEGEND_LINE,
          ["<g class=\"series-", int(I rem ?COLOURS), "\"><rect class=\"swatch\" x=\"",
           int(?MARGIN_LEFT), "\" y=\"", int(Y - 9), "\" width=\"10\" height=\"10\"/>",
           text(<<"legend-label">>, ?MARGIN_LEFT + 16, Y, <<"start">>, Name), "</g>\n"]
      end || {I, #{name := Name}} <- lists:zip(lists:seq(0, length(Series) - 1), Series)],
     "</g>\n"].

bar(#{label := Label, value := V} = B, Top, XS, Format) ->
    Class = maps:get(class, B, <<>>),
    BarTop = Top + ?BAR_ROW - ?BAR_HEIGHT - 4,
    X0 = XS(min(0, V)),
    Width = abs(XS(V) - XS(0)),
    ["<g class=\"bar-row ", esc(Class), "\">\n",
     "<text x=\"", int(?MARGIN_LEFT div 3), "\" y=\"", int(Top + 13), "\">",
     "<tspan class=\"label\">", esc(cut(Label)), "</tspan>",
     "<tspan class=\"value\" dx=\"8\">", esc(Format(V)), "</tspan>",
     case maps:get(note, B, <<>>) of
         <<>> -> [];
         Note -> ["<tspan class=\"note\" dx=\"8\">", esc(Note), "</tspan>"]
     end, "</text>\n",
     "<rect class=\"bar ", esc(Class), "\" data-value=\"", erlperf_units:exact(V), "\" x=\"",
     num(X0), "\" y=\"", int(BarTop), "\" width=\"", num(Width), "\" height=\"",
     int(?BAR_HEIGHT), "\"><title>", esc(Label), ": ", esc(Format(V)), "</title></rect>\n",
     whisker(B, XS, BarTop + ?BAR_HEIGHT / 2),
     "</g>\n"].

whisker(#{lo := Lo, hi := Hi}, XS, Y) ->
    ["<g class=\"interval\" data-lo=\"", erlperf_units:exact(Lo), "\" data-hi=\"",
     erlperf_units:exact(Hi), "\">",
     hline(<<"whisker">>, XS(Lo), XS(Hi), Y), vline(<<"whisker">>, XS(Lo), Y - 5, Y + 5),
     vline(<<"whisker">>, XS(Hi), Y - 5, Y + 5), "</g>\n"];
whisker(_Bar, _XS, _Y) ->
    [].

value_axis(Ticks, XS, Bottom, Format, Label, W) ->
    ["<g class=\"axis x-axis\">\n",
     [[vline(<<"grid">>, XS(T), ?MARGIN_TOP, Bottom),
       text(<<"tick">>, XS(T), Bottom + 15, <<"middle">>, L)]
      || {T, L} <- lists:zip(Ticks, tick_labels(Ticks, Format))],
     hline(<<"axis-line">>, XS(hd(Ticks)), XS(lists:last(Ticks)), Bottom),
     text(<<"axis-label">>, W / 2, Bottom + ?MARGIN_BOTTOM - 10, <<"middle">>, Label),
     "</g>\n"].

vline(Class, X, Y1, Y2) ->
    ["<line class=\"", Class, "\" x1=\"", num(X), "\" y1=\"", num(Y1), "\" x2=\"", num(X),
     "\" y2=\"", num(Y2), "\"/>"].

hline(Class, X1, X2, Y) ->
    ["<line class=\"", Class, "\" x1=\"", num(X1), "\" y1=\"", num(Y), "\" x2=\"", num(X2),
     "\" y2=\"", num(Y), "\"/>"].

text(Class, X, Y, Anchor, Text) ->
    ["<text class=\"", Class, "\" x=\"", num(X), "\" y=\"", num(Y), "\" text-anchor=\"",
     Anchor, "\">", esc(Text), "</text>\n"].

%% Long labels (code) cut to ?MAX_LABEL characters.
cut(Label) ->
    Chars = unicode:characters_to_list(Label),
    case is_list(Chars) andalso length(Chars) > ?MAX_LABEL of
        true -> [lists:sublist(Chars, ?MAX_LABEL - 3), "..."];
        false -> Label
    end.

esc(Text) -> erlperf_html:escape(Text).

int(N) -> integer_to_list(round(N)).

%% Pixel coordinates with one decimal.
num(F) -> float_to_list(float(F), [{decimals, 1}, compact]).

%% Tick labels: Format's, or with the default format as many digits as it takes to tell
%% the ticks apart.
tick_labels(Ticks, Format) ->
    case Format =:= fun ?MODULE:format_number/1 of
        true -> distinct_labels(Ticks, ?DIGITS);
        false -> [Format(T) || T <- Ticks]
    end.

distinct_labels(Ticks, Digits) ->
    Labels = [erlperf_units:count(T, Digits) || T <- Ticks],
    case length(lists:usort(Labels)) =:= length(Labels) orelse Digits >= ?MAX_DIGITS of
        true -> Labels;
        false -> distinct_labels(Ticks, Digits + 1)
    end.

