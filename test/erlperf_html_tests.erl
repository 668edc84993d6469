%%% @doc Tests of the page frame: escaping, the document's head (charset, content-security
%%% policy, colour schemes, print), tables, sections and links.
-module(erlperf_html_tests).

-include_lib("eunit/include/eunit.hrl").
-include_lib("stdlib/include/assert.hrl").

-define(EVIL, <<"<script>alert(\"x\")</script> & 'q'">>).
-define(EVIL_ESCAPED, <<"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;">>).

escape_test() ->
    ?assertEqual(?EVIL_ESCAPED, erlperf_html:escape(?EVIL)),
    ?assertEqual(<<"a&amp;amp;b">>, erlperf_html:escape("a&amp;b")),
    ?assertEqual(<<"plain">>, erlperf_html:escape(plain)),
    ?assertEqual(<<"42">>, erlperf_html:escape(42)),
    ?assertEqual(<<"0.1">>, erlperf_html:escape(0.1)),
    %% no text starts a line of the page's source (a line that begins with `::' is a
    %% workflow command where CI prints the page)
    ?assertEqual(<<"a&#10;::warning::x&#13;">>, erlperf_html:escape("a\n::warning::x\r")),
    %% chardata of any shape, and characters beyond ASCII kept as they are
    ?assertEqual(<<"µs &lt;1"/utf8>>, erlperf_html:escape([<<"µs"/utf8>>, " ", [$<, "1"]])).

escape_invalid_utf8_test() ->
    %% bytes that are not UTF-8 are shown as U+FFFD, one each, the rest kept
    ?assertEqual(<<"a", 16#FFFD/utf8, "b&lt;", 16#FFFD/utf8>>,
                 erlperf_html:escape(<<"a", 255, "b<", 16#C3>>)).

page_test() ->
    Page = iolist_to_binary(erlperf_html:page(?EVIL, <<"<p>body</p>">>)),
    ok = erlperf_html_test_lib:assert_page(Page),
    ?assertNotEqual(nomatch, binary:match(Page, <<"<title>", ?EVIL_ESCAPED/binary, "</title>">>)),
    ?assertNotEqual(nomatch, binary:match(Page, <<"<h1>", ?EVIL_ESCAPED/binary, "</h1>">>)),
    ?assertMatch({match, _}, re:run(Page, "Content-Security-Policy\" content=\"default-src 'none'; "
                                          "style-src 'unsafe-inline'; img-src data:\"")),
    ?assertMatch({match, _}, re:run(Page, "@media \\(prefers-color-scheme: dark\\)")),
    ?assertMatch({match, _}, re:run(Page, "@media print")),
    ?assert(binary:match(Page, <<"<p>body</p>">>) =/= nomatch),
    %% one document, nothing fetched: no link to a stylesheet, no url() in the CSS
    ?assertEqual(nomatch, binary:match(Page, [<<"<link">>, <<"url(">>, <<"@import">>])),
    ?assertMatch({match, _}, re:run(Page, "</body>\n</html>\n$")).

table_test() ->
    Table = iolist_to_binary(
              erlperf_html:table([?EVIL, <<"n">>],
                                 [[?EVIL, 12],
                                  {<<"regression">>, [<<"a&b">>, {raw, <<"<b>kept</b>">>}]},
                                  [1.5, 'quote\'s']])),
    ?assertEqual(2, count(Table, ?EVIL_ESCAPED)),
    ?assertEqual(nomatch, binary:match(Table, <<"<script">>)),
    ?assert(binary:match(Table, <<"<td class=\"num\">12</td>">>) =/= nomatch),
    ?assert(binary:match(Table, <<"<td class=\"num\">1.5</td>">>) =/= nomatch),
    ?assert(binary:match(Table, <<"<td>quote&#39;s</td>">>) =/= nomatch),
    ?assert(binary:match(Table, <<"<tr class=\"regression\"><td>a&amp;b</td><td><b>kept</b></td></tr>">>)
            =/= nomatch),
    ?assertEqual(3, count(Table, <<"<tr>">>) + count(Table, <<"<tr class">>) - 1).

section_test() ->
    Section = iolist_to_binary(erlperf_html:section(?EVIL, <<"<p>x</p>">>)),
    ?assertEqual(<<"<section>\n<h2>", ?EVIL_ESCAPED/binary, "</h2>\n<p>x</p></section>\n">>, Section).

link_test() ->
    L = fun (Href, Text) -> iolist_to_binary(erlperf_html:link(Href, Text)) end,
    ?assertEqual(<<"<a href=\"function-1.html\">f &amp; g</a>">>, L("function-1.html", "f & g")),
    ?assertEqual(<<"<a href=\"https://example.org/?a=1&amp;b=2\">x</a>">>,
                 L(<<"https://example.org/?a=1&b=2">>, "x")),
    ?assertEqual(<<"<a href=\"dir/a:b.html\">x</a>">>, L("dir/a:b.html", "x")),
    ?assertEqual(<<"<a href=\"#\">x</a>">>, L("javascript:alert(1)", "x")),
    ?assertEqual(<<"<a href=\"#\">x</a>">>, L("JavaScript:alert(1)", "x")),
    ?assertEqual(<<"<a href=\"#\">x</a>">>, L("data:text/html,<script>", "x")),
    ?assertEqual(<<"<a href=\"x&quot; onclick=&quot;y\">&lt;t&gt;</a>">>, L("x\" onclick=\"y", "<t>")).

%% A number is written as the record writes it (erlperf_units:exact/1).
number_test() ->
    ?assertEqual(<<"10">>, erlperf_html:escape(10)),
    ?assertEqual(<<"0.1">>, erlperf_html:escape(0.1)),
    F = 567207.1594294325,
    ?assertEqual(F, binary_to_float(erlperf_html:escape(F))).

count(Text, Pattern) ->
    length(binary:matches(Text, Pattern)).
