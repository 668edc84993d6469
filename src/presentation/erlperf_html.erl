%%% @doc The frame of an HTML report: one self-contained document (inline CSS, inline SVG
%%% charts, no JavaScript, nothing loaded from the network), and the pieces pages are
%%% made of: sections, tables, links. Pure: returns iodata.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>page</b>: a complete document, `<!DOCTYPE html>' to `</html>', that opens
%%%       from disk. A Content-Security-Policy meta element (`default-src 'none';
%%%       style-src 'unsafe-inline'; img-src data:') keeps the browser from loading
%%%       anything else, and the stylesheet follows `prefers-color-scheme' and prints
%%%       in black on white.</li>
%%%   <li><b>cell</b>: text (escaped), a number (right-aligned), or `{raw, IoData}' for
%%%       markup the caller built (a chart, a link) and vouches for.</li>
%%% </ul>
%%%
%%% Every piece of text given to these functions is escaped (`&', `<', `>', `"', `'''
%%% and line breaks, by {@link erlperf_name:html_escape/1}); bytes that are not UTF-8 are
%%% shown as U+FFFD. A name is given as {@link erlperf_name:text/1} writes it.
%%%
%%% Example:
%%% ```
%%% Body = erlperf_html:section(<<"Runs">>,
%%%     erlperf_html:table([<<"Code">>, <<"QPS">>], [[<<"rand:uniform().">>, 1.2e7]])),
%%% ok = file:write_file("report.html", erlperf_html:page(<<"Benchmark">>, Body)).
%%% '''
-module(erlperf_html).

%% API: called by the report modules (erlperf_html_bench, erlperf_html_perf, erlperf_svg).
-export([escape/1, page/2, table/2, section/2, link/2]).

-export_type([text/0, cell/0, row/0]).

%% Text shown to the reader: characters, or something printed as text.
-type text() :: unicode:chardata() | number() | atom().
%% A table cell.
-type cell() :: text() | {raw, iodata()}.
%% A table row: its cells, or `{Class, Cells}' for a row with a CSS class
%% (`<<"regression">>', `<<"best">>', `<<"faster">>', `<<"failed">>').
-type row() :: [cell()] | {binary(), [cell()]}.

%% The replacement character shown for bytes that are not UTF-8.
-define(REPLACEMENT, 16#FFFD).

%% Only these link schemes are kept; any other (`javascript:', `data:') becomes `#'.
-define(LINK_SCHEMES, ["http", "https"]).

%%--------------------------------------------------------------------
%% API

%% @doc `Text' with `&', `<', `>', `"' and `'' escaped and line breaks as character
%% references (see {@link erlperf_name:html_escape/1}), safe in element content and in
%% quoted attribute values.
-spec escape(text()) -> binary().
escape(N) when is_number(N) ->
    list_to_binary(erlperf_units:exact(N));
escape(Text) ->
    erlperf_name:html_escape(Text).

%% @doc A complete, self-contained document titled `Title' around `Body' (iodata built
%% with this module and {@link erlperf_svg}).
-spec page(Title :: text(), Body :: iodata()) -> iodata().
page(Title, Body) ->
    ["<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
     "style-src 'unsafe-inline'; img-src data:\">\n",
     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
     "<meta name=\"generator\" content=\"erlperf\">\n",
     "<title>", escape(Title), "</title>\n<style>\n", css(), "</style>\n</head>\n<body>\n",
     "<h1>", escape(Title), "</h1>\n", Body, "\n</body>\n</html>\n"].

%% @doc A table: a header row and the rows, every cell escaped unless `{raw, IoData}'.
%% Numbers are right-aligned.
-spec table(Header :: [cell()], Rows :: [row()]) -> iodata().
table(Header, Rows) ->
    ["<table>\n<thead><tr>", [["<th>", cell_content(H), "</th>"] || H <- Header],
     "</tr></thead>\n<tbody>\n", [row(R) || R <- Rows], "</tbody>\n</table>\n"].

%% @doc A section with a heading.
-spec section(Title :: text(), Content :: iodata()) -> iodata().
section(Title, Content) ->
    ["<section>\n<h2>", escape(Title), "</h2>\n", Content, "</section>\n"].

%% @doc A link. `Href' is a relative path or an http(s) address; anything else
%% (`javascript:', `data:') is replaced by `#'.
-spec link(Href :: unicode:chardata(), Text :: text()) -> iodata().
link(Href, Text) ->
    ["<a href=\"", escape(safe_href(Href)), "\">", escape(Text), "</a>"].

%%--------------------------------------------------------------------
%% Internal functions

row({Class, Cells}) ->
    ["<tr class=\"", escape(Class), "\">", [cell(C) || C <- Cells], "</tr>\n"];
row(Cells) ->
    ["<tr>", [cell(C) || C <- Cells], "</tr>\n"].

cell(N) when is_number(N) -> ["<td class=\"num\">", escape(N), "</td>"];
cell(C) -> ["<td>", cell_content(C), "</td>"].

cell_content({raw, IoData}) -> IoData;
cell_content(Text) -> escape(Text).

%% The code points of Text; bytes that are not UTF-8 become U+FFFD, one each.
characters(Text) ->
    case unicode:characters_to_list(Text) of
        List when is_list(List) -> List;
        {Error, Good, Rest} when Error =:= error; Error =:= incomplete ->
            Good ++ [?REPLACEMENT | characters(skip_byte(iolist_to_binary(Rest)))]
    end.

skip_byte(<<_, Rest/binary>>) -> Rest;
skip_byte(<<>>) -> <<>>.

safe_href(Href) ->
    Text = characters(Href),
    case string:split(Text, ":") of
        [Scheme, _] ->
            case lists:member(string:lowercase(Scheme), ?LINK_SCHEMES) of
                true -> Text;
                false when Scheme =/= [] -> relative_or_hash(Scheme, Text);
                false -> "#"
            end;
        [_] -> Text
    end.

%% "dir/a:b.html" has a colon after a slash: a relative path, not a scheme.
relative_or_hash(Scheme, Text) ->
    case lists:any(fun (C) -> C =:= $/ orelse C =:= $? orelse C =:= $# end, Scheme) of
        true -> Text;
        false -> "#"
    end.

%% The stylesheet: light colours, dark ones under prefers-color-scheme, black on white
%% in print. Chart series take their colour from .series-N.
css() ->
    <<":root{--fg:#1d2330;--bg:#ffffff;--muted:#5b6474;--grid:#e3e6eb;--axis:#8a93a3;"
      "--panel:#f5f7fa;--bad:#c62828;--bad-bg:#fdecea;--good:#2e7d32;--good-bg:#e8f5e9;"
      "--link:#1a5fb4;--s0:#1f77b4;--s1:#e4572e;--s2:#2ca02c;--s3:#9467bd;--s4:#d4a017;"
      "--s5:#17becf;--s6:#e377c2;--s7:#7f7f7f}\n"
      "@media (prefers-color-scheme: dark){:root{--fg:#e6e8ec;--bg:#15181e;--muted:#9aa3b2;"
      "--grid:#2b313b;--axis:#6b7482;--panel:#1e232b;--bad:#ff6b6b;--bad-bg:#3a1f22;"
      "--good:#6fcf74;--good-bg:#1d3320;--link:#8ab4f8;--s0:#6cb4ee;--s1:#ff8a65;"
      "--s2:#7ed67e;--s3:#c39bf0;--s4:#f2c94c;--s5:#5fd8e6;--s6:#f59ad6;--s7:#b0b0b0}}\n"
      "body{font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",sans-serif;color:var(--fg);"
      "background:var(--bg);margin:0 auto;padding:1em 1.5em;max-width:1100px}\n"
      "h1{font-size:1.6em;margin:.3em 0 .6em}h2{font-size:1.25em;margin:1.4em 0 .5em;"
      "border-bottom:1px solid var(--grid);padding-bottom:.2em}h3{font-size:1.05em}\n"
      "a{color:var(--link)}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;"
      "font-size:.95em}pre{background:var(--panel);padding:.6em;overflow-x:auto}\n"
      "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.95em}"
      "th,td{border:1px solid var(--grid);padding:.25em .6em;text-align:left;"
      "vertical-align:top}th{background:var(--panel)}td.num{text-align:right;"
      "font-variant-numeric:tabular-nums}\n"
      "tr.regression td,tr.failed td,.fail{background:var(--bad-bg);color:var(--bad)}"
      "tr.best td,tr.faster td,.pass{background:var(--good-bg);color:var(--good)}\n"
      "tr.inconclusive td{background:var(--warn-bg,#fff6d6);color:var(--warn,#7a5b00)}\n"
      "p.note,.muted{color:var(--muted)}\n"
      "svg.chart{display:block;max-width:100%;height:auto;margin:.5em 0 1.2em;"
      "font-family:system-ui,sans-serif}\n"
      "svg.chart text{fill:var(--fg);font-size:11px}svg.chart .title{font-size:13px;"
      "font-weight:600}svg.chart .axis-label,svg.chart .note{fill:var(--muted)}\n"
      "svg.chart .axis-line{stroke:var(--axis)}"
      "svg.chart .grid{stroke:var(--grid)}svg.chart .zero{stroke:var(--fg);"
      "stroke-dasharray:3 2}\n"
      "svg.chart .line{fill:none;stroke-width:1.8}svg.chart .point{stroke:var(--bg);"
      "stroke-width:1}svg.chart .whisker{stroke:var(--fg);stroke-width:1.2}\n"
      "svg.chart .marked{fill:none;stroke:var(--fg);stroke-width:2}\n"
      "svg.chart .marker{stroke:var(--axis);stroke-width:1.5;stroke-dasharray:5 3}"
      "svg.chart .x-marker.regression .marker{stroke:var(--bad)}"
      "svg.chart .x-marker.regression text{fill:var(--bad)}"
      "svg.chart .x-marker.faster .marker{stroke:var(--good)}"
      "svg.chart .x-marker.faster text{fill:var(--good)}\n"
      "svg.chart .bar{fill:var(--s0)}svg.chart .bar.regression{fill:var(--bad)}"
      "svg.chart .bar.best,svg.chart .bar.faster{fill:var(--good)}"
      "svg.chart .bar-row.regression .label{fill:var(--bad);font-weight:600}\n"
      "svg.chart .series-0{--c:var(--s0)}svg.chart .series-1{--c:var(--s1)}"
      "svg.chart .series-2{--c:var(--s2)}svg.chart .series-3{--c:var(--s3)}"
      "svg.chart .series-4{--c:var(--s4)}svg.chart .series-5{--c:var(--s5)}"
      "svg.chart .series-6{--c:var(--s6)}svg.chart .series-7{--c:var(--s7)}\n"
      "svg.chart .series .line{stroke:var(--c)}svg.chart .series .point,"
      "svg.chart .legend .swatch{fill:var(--c)}svg.chart .series .whisker{stroke:var(--c)}\n"
      "@media print{:root{--fg:#000;--bg:#fff;--muted:#333;--grid:#ccc;--panel:#f2f2f2}"
      "body{max-width:none;padding:0;font-size:11pt}a{color:#000}"
      "section,svg.chart,table{break-inside:avoid}}\n">>.
