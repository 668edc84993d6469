%%% @doc Helpers for the tests of the HTML reports: every chart of a page parsed as XML
%%% (xmerl, which a well-formed SVG must satisfy, so a missed escape fails the parse) and
%%% read back as series, points, bars and whiskers, to be counted against the record.
-module(erlperf_html_test_lib).

-include_lib("xmerl/include/xmerl.hrl").

-export([svgs/1, title/1, series/1, marked/1, bars/1, whiskers/1, number/1, attr/2,
         elements/2, texts/1, assert_page/1]).

%% The charts of a page (iodata), parsed, in order. xmerl reads a list of UTF-8 bytes (a
%% list of code points above 127 fails its parse), so the page is cut as bytes.
svgs(Html) ->
    Text = binary_to_list(iolist_to_binary(Html)),
    [parse(Svg) || Svg <- chunks(Text)].

chunks(Text) ->
    case string:find(Text, "<svg ") of
        nomatch -> [];
        Start ->
            {match, [{End, Len}]} = re:run(Start, "</svg>"),
            [string:slice(Start, 0, End + Len)
             | chunks(string:slice(Start, End + Len))]
    end.

parse(Svg) ->
    {Doc, []} = xmerl_scan:string(Svg, [{quiet, true}]),
    Doc.

%% The chart's title (its <title> child).
title(#xmlElement{content = Content}) ->
    hd([texts(E) || #xmlElement{name = title} = E <- Content]).

%% [{SeriesName, [{X, Y}]}]: the points of each series, in order.
series(Doc) ->
    [{attr('data-series', G), [{number(attr('data-x', C)), number(attr('data-y', C))}
                               || C <- children(G), class(C) =:= "point"]}
     || G <- elements(Doc, g), lists:member("series", string:lexemes(class(G), " "))].

%% [{SeriesName, [{X, Y}]}]: the marked (ringed) points of each series.
marked(Doc) ->
    [{attr('data-series', G), [{number(attr('data-x', C)), number(attr('data-y', C))}
                               || C <- children(G), class(C) =:= "marked"]}
     || G <- elements(Doc, g), lists:member("series", string:lexemes(class(G), " "))].

%% [{Value, Classes, Label}] of the bars, in order.
bars(Doc) ->
    [{number(attr('data-value', R)), string:lexemes(class(R), " "), string:trim(texts(G))}
     || G <- elements(Doc, g), lists:member("bar-row", string:lexemes(class(G), " ")),
        R <- children(G), lists:member("bar", string:lexemes(class(R), " "))].

%% [{Lo, Hi}] of the whiskers of bars and error bars.
whiskers(Doc) ->
    [{number(attr('data-lo', G)), number(attr('data-hi', G))}
     || G <- elements(Doc, g), lists:member(class(G), ["interval", "error"])].

%% Every element named Name, depth first.
elements(#xmlElement{name = Name} = E, Name) ->
    [E | lists:append([elements(C, Name) || C <- children(E)])];
elements(#xmlElement{} = E, Name) ->
    lists:append([elements(C, Name) || C <- children(E)]);
elements(_Other, _Name) ->
    [].

children(#xmlElement{content = Content}) -> [C || #xmlElement{} = C <- Content];
children(_) -> [].

class(E) -> attr(class, E).

attr(Name, #xmlElement{attributes = Attrs}) ->
    case lists:keyfind(Name, #xmlAttribute.name, Attrs) of
        #xmlAttribute{value = V} -> V;
        false -> ""
    end.

%% All the text inside an element, concatenated.
texts(#xmlText{value = V}) -> V;
texts(#xmlElement{content = Content}) -> lists:append([texts(C) || C <- Content]);
texts(_) -> "".

number(Text) ->
    try list_to_integer(Text)
    catch error:badarg -> list_to_float(Text)
    end.

%% The frame every page must have: one document, no script, nothing loaded from outside.
assert_page(Html) ->
    Page = iolist_to_binary(Html),
    {match, _} = re:run(Page, "^<!DOCTYPE html>"),
    {match, _} = re:run(Page, "<meta charset=\"utf-8\">"),
    {match, _} = re:run(Page, "default-src 'none'"),
    nomatch = re:run(Page, "<script", [caseless]),
    nomatch = re:run(Page, "\\s(src|href)=\"(https?:)?//", [caseless]),
    nomatch = re:run(Page, "\\son[a-z]+=", [caseless]),
    ok.
