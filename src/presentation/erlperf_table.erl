%%% @doc Plain text tables as a terminal shows them: cells aligned in terminal columns,
%%% not characters (East Asian wide and fullwidth characters take two columns, combining
%%% marks none; see `char_width/1'), text cut to a width without splitting a character.
%%% Pure: returns character data. Used by the text report ({@link erlperf_report}) and
%%% the performance test's console summary ({@link erlperf_perf_results}).
%%%
%%% Example:
%%% ```
%%% "Function  Calls\nlists:seq     12\n" =
%%%     lists:flatten(erlperf_table:columns(["Function", "Calls"], [["lists:seq", "12"]])).
%%% '''
-module(erlperf_table).

%% API: called by erlperf_report and erlperf_perf_results.
-export([columns/2, line/4, bold/2, right/2, slice/2, text_width/1]).

-define(BOLD, "\e[1m").
-define(RESET, "\e[0m").

%%--------------------------------------------------------------------
%% API

%% @doc A plain table: the first column left-aligned, the others right-aligned, two
%% spaces apart, a line per row under the header.
-spec columns([unicode:chardata()], [[unicode:chardata()]]) -> unicode:chardata().
columns(Header, Rows) ->
    Lists = [[unicode:characters_to_list(Cell) || Cell <- Row] || Row <- [Header | Rows]],
    Widths = [lists:max([text_width(lists:nth(I, Row)) || Row <- Lists])
              || I <- lists:seq(1, length(Header))],
    [[columns_line(Row, Widths), "\n"] || Row <- Lists].

%% @doc A line of a table with a first column `FirstWidth' terminal columns wide (its
%% text cut to fit), then `Cells' right-aligned in `Widths'; no trailing spaces.
-spec line(non_neg_integer(), string(), [string()], [non_neg_integer()]) -> string().
line(FirstWidth, First, Cells, Widths) ->
    Cut = slice(First, FirstWidth),
    Padded = Cut ++ lists:duplicate(FirstWidth - text_width(Cut), $\s),
    Line = lists:append([Padded | [right(Cell, W) || {Cell, W} <- lists:zip(Cells, Widths)]]),
    lists:reverse(lists:dropwhile(fun (C) -> C =:= $\s end, lists:reverse(Line))).

%% @doc Text in bold (ANSI) when `Colour' is true.
-spec bold(unicode:chardata(), boolean()) -> unicode:chardata().
bold(Text, true) -> [?BOLD, Text, ?RESET];
bold(Text, false) -> Text.

%% @doc Text cut to at most `Width' terminal columns. A wide character that does not fit is
%% left out whole (the line is padded instead); combining marks stay with the
%% character before them. ASCII text (one column a character) takes the fast path.
-spec slice(string(), non_neg_integer()) -> string().
slice(Text, Width) ->
    case is_ascii(Text) of
        true -> lists:sublist(Text, Width);
        false -> slice_wide(Text, Width)
    end.

-spec slice_wide(string(), non_neg_integer()) -> string().
slice_wide([C | Rest], Width) ->
    case char_width(C) of
        W when W =< Width -> [C | slice_wide(Rest, Width - W)];
        _TooWide -> []
    end;
slice_wide([], _Width) ->
    [].

%% @doc How many terminal columns `Text' takes.
-spec text_width(string()) -> non_neg_integer().
text_width(Text) ->
    case is_ascii(Text) of
        true -> length(Text);
        false -> lists:sum([char_width(C) || C <- Text])
    end.

%% Terminal columns of one code point: 0 for combining marks and zero-width
%% characters, 2 for East Asian wide and fullwidth characters (Unicode's
%% EastAsianWidth.txt W and F, main blocks only), 1 for the rest. An approximation of
%% wcwidth(3) that needs no Unicode tables (the string module's take a while to load,
%% and it counts grapheme clusters, not columns).
-spec char_width(char()) -> 0..2.
char_width(C) when C < 16#300 -> 1;
char_width(C) when C =< 16#36F -> 0;                       % combining diacritical marks
char_width(C) when C >= 16#483, C =< 16#489 -> 0;          % combining Cyrillic
char_width(C) when C >= 16#1100, C =< 16#115F -> 2;        % Hangul Jamo leading consonants
char_width(C) when C >= 16#1160, C =< 16#11FF -> 0;        % Hangul Jamo vowels and finals
char_width(C) when C >= 16#1AB0, C =< 16#1AFF -> 0;        % combining marks extended
char_width(C) when C >= 16#1DC0, C =< 16#1DFF -> 0;        % combining marks supplement
char_width(C) when C >= 16#200B, C =< 16#200F -> 0;        % zero width space, joiners, marks
char_width(C) when C >= 16#20D0, C =< 16#20FF -> 0;        % combining marks for symbols
char_width(C) when C >= 16#3099, C =< 16#309A -> 0;        % combining kana voiced marks
char_width(C) when C >= 16#2E80, C =< 16#303E -> 2;        % CJK radicals, symbols, punctuation
char_width(C) when C >= 16#3041, C =< 16#4DBF -> 2;        % kana, Bopomofo, CJK extension A
char_width(C) when C >= 16#4E00, C =< 16#A4CF -> 2;        % CJK unified ideographs, Yi
char_width(C) when C >= 16#A960, C =< 16#A97F -> 2;        % Hangul Jamo extended A
char_width(C) when C >= 16#AC00, C =< 16#D7A3 -> 2;        % Hangul syllables
char_width(C) when C >= 16#F900, C =< 16#FAFF -> 2;        % CJK compatibility ideographs
char_width(C) when C >= 16#FE00, C =< 16#FE0F -> 0;        % variation selectors
char_width(C) when C >= 16#FE10, C =< 16#FE19 -> 2;        % vertical forms
char_width(C) when C >= 16#FE20, C =< 16#FE2F -> 0;        % combining half marks
char_width(C) when C >= 16#FE30, C =< 16#FE6F -> 2;        % CJK compatibility, small forms
char_width(C) when C >= 16#FF00, C =< 16#FF60 -> 2;        % fullwidth forms
char_width(C) when C >= 16#FFE0, C =< 16#FFE6 -> 2;        % fullwidth signs
char_width(C) when C >= 16#1F300, C =< 16#1F64F -> 2;      % pictographs, emoticons
char_width(C) when C >= 16#1F900, C =< 16#1F9FF -> 2;      % supplemental pictographs
char_width(C) when C >= 16#20000, C =< 16#3FFFD -> 2;      % CJK extensions B and later
char_width(_C) -> 1.

-spec is_ascii(string()) -> boolean().
is_ascii(Text) ->
    lists:all(fun (C) -> is_integer(C) andalso C < 128 end, Text).

%% @doc Text right-aligned in `Width' characters.
-spec right(string(), non_neg_integer()) -> string().
right(Text, Width) ->
    lists:duplicate(max(0, Width - length(Text)), $\s) ++ Text.

%%--------------------------------------------------------------------
%% Internal functions

columns_line([First | Rest], [W | Ws]) ->
    [First, lists:duplicate(W - text_width(First), $\s)
     | [["  ", right(Cell, Width)] || {Cell, Width} <- lists:zip(Rest, Ws)]].
