%%% @doc How names are written in each output (erlperf_name): reference cases written by
%%% hand, and the promise for every name: no line break, no line that begins with `::',
%%% no cell a `|' ends, no HTML a name starts.
-module(erlperf_name_tests).

-include_lib("eunit/include/eunit.hrl").

%% Names a pull request could hold: a workflow command after a line break, one at the
%% start, after white space, after a carriage return alone, after the separators of
%% Unicode, with table and HTML syntax, and control characters.
-define(HOSTILE, [<<"L\n::warning::injected">>, <<"::error::lead">>, <<"  ::add-mask::x">>,
                  <<"a\r::warning::cr">>, <<"a", 16#2028/utf8, "::warning::ls">>,
                  <<16#3000/utf8, "::warning::ideographic space">>, <<"a|b|c">>, <<"50%">>,
                  <<"<script>alert(1)</script>">>, <<"tab\there">>, <<"bell\a\e[31mred">>,
                  <<"del", 127, "c1", 16#85/utf8>>, <<"not utf8 ", 255, 254>>, <<"`code`">>,
                  <<"back\\slash \"quoted\"">>, <<"|">>, <<"\n">>, <<>>]).

%%--------------------------------------------------------------------
%% Text

plain_names_unchanged_test_() ->
    [?_assertEqual(Expected, erlperf_name:text(Name))
     || {Name, Expected} <- [{<<"lists:seq(1, 10).">>, "lists:seq(1, 10)."},
                             {"sort 1000", "sort 1000"},
                             {<<"сортировка"/utf8>>, [16#441, 16#43E, 16#440, 16#442, 16#438, 16#440,
                                                       16#43E, 16#432, 16#43A, 16#430]},
                             {<<"a|b %25 <x> `y` \"q\" \\">>, "a|b %25 <x> `y` \"q\" \\"},
                             {<<"Elixir::Type x::y">>, "Elixir::Type x::y"},
                             {<<" : :not a command">>, " : :not a command"},
                             {'Elixir.Enum', "Elixir.Enum"},
                             %% no code point (a surrogate) in a list: U+FFFD
                             {[$a, 16#D800, $b], [$a, 16#FFFD, $b]},
                             {<<>>, ""}]].

quoted_names_test_() ->
    [?_assertEqual(Expected, erlperf_name:text(Name))
     || {Name, Expected} <- [{<<"L\n::warning::injected">>, "\"L\\n::warning::injected\""},
                             {<<"::error::lead">>, "\"::error::lead\""},
                             {<<"  ::x">>, "\"  ::x\""},
                             {<<16#A0/utf8, "::x">>, [$", 16#A0, $:, $:, $x, $"]},
                             {<<"a\r\tb">>, "\"a\\r\\tb\""},
                             {<<"say \"hi\"\n\\">>, "\"say \\\"hi\\\"\\n\\\\\""},
                             {<<"esc\e[31m">>, "\"esc\\x1B[31m\""},
                             {<<"nul", 0>>, "\"nul\\x00\""},
                             {<<"del", 127>>, "\"del\\x7F\""},
                             {<<"c1", 16#9B/utf8>>, "\"c1\\x9B\""},
                             {<<"ls", 16#2028/utf8, "ps", 16#2029/utf8>>, "\"ls\\x{2028}ps\\x{2029}\""},
                             {<<"rlo", 16#202E/utf8>>, "\"rlo\\x{202E}\""},
                             {<<"bom", 16#FEFF/utf8>>, "\"bom\\x{FEFF}\""},
                             {<<"bad ", 255, "!">>, "\"bad \\xFF!\""},
                             {<<"cut ", 16#D0>>, "\"cut \\xD0\""},
                             {[<<"deep ">>, ["list\n"]], "\"deep list\\n\""}]].

%% Whatever the name: one line, and no line that begins with `::' after white space.
text_is_one_safe_line_test_() ->
    [?_test(?assert(one_safe_line(erlperf_name:text(N)), N)) || N <- ?HOSTILE].

%%--------------------------------------------------------------------
%% Markdown

markdown_test_() ->
    [?_assertEqual(<<"`lists:seq(1, 10).`">>, md(<<"lists:seq(1, 10).">>)),
     ?_assertEqual(<<"`a\\|b`">>, md(<<"a|b">>)),
     ?_assertEqual(<<"`'x'`">>, md(<<"`x`">>)),
     ?_assertEqual(<<"`<script>`">>, md(<<"<script>">>)),
     ?_assertEqual(<<"`\"L\\n::warning::injected\"`">>, md(<<"L\n::warning::injected">>)),
     ?_assertEqual(<<"`\"a\\\\\\|b\\n\"`">>, md(<<"a\\|b\n">>)),
     ?_assertEqual(<<"a \\| 'b' c &lt;i>"/utf8>>,
                   unicode:characters_to_binary(erlperf_name:markdown_text(<<"a | `b`\nc <i>">>)))].

%% In a table row, a name is one cell: the row keeps the header's unescaped `|'.
markdown_cell_test_() ->
    Row = fun (Cell) -> unicode:characters_to_binary(["| ", Cell, " | x |"]) end,
    [?_test(begin
                ?assertEqual(3, pipes(Row(erlperf_name:markdown(N))), N),
                ?assertEqual(3, pipes(Row(erlperf_name:markdown_text(N))), N),
                ?assert(one_safe_line(unicode:characters_to_list(Row(erlperf_name:markdown(N)))), N)
            end)
     || N <- ?HOSTILE].

%%--------------------------------------------------------------------
%% HTML

html_test_() ->
    [?_assertEqual(<<"lists:seq(1, 10).">>, erlperf_name:html(<<"lists:seq(1, 10).">>)),
     ?_assertEqual(<<"&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;">>,
                   erlperf_name:html(<<"<script>alert('x') & \"y\"</script>">>)),
     ?_assertEqual(<<"&quot;L\\n::warning::injected&quot;">>, erlperf_name:html(<<"L\n::warning::injected">>)),
     %% other text keeps its line breaks as character references, bytes that are not
     %% UTF-8 as U+FFFD
     ?_assertEqual(<<"a&#10;b&#13;&lt;"/utf8>>, erlperf_name:html_escape(<<"a\nb\r<">>)),
     ?_assertEqual(<<"a", 16#FFFD/utf8, "b">>, erlperf_name:html_escape(<<"a", 255, "b">>))].

html_has_no_markup_test_() ->
    [?_test(?assertEqual(nomatch, re:run(erlperf_name:html(N), "[<>\n\r]", [unicode]), N))
     || N <- ?HOSTILE].

%%--------------------------------------------------------------------
%% CSV

csv_test_() ->
    [?_assertEqual(<<"plain">>, csv(<<"plain">>)),
     ?_assertEqual(<<"\"a,b\"">>, csv(<<"a,b">>)),
     ?_assertEqual(<<"\"say \"\"hi\"\"\"">>, csv(<<"say \"hi\"">>)),
     ?_assertEqual(<<"\"\"\"L\\n::warning::injected\"\"\"">>, csv(<<"L\n::warning::injected">>)),
     ?_assertEqual(<<"\"\"\"::x\"\"\"">>, csv(<<"::x">>))].

%% A field reads back (RFC 4180) as the name's text, on one line.
csv_round_trip_test_() ->
    [?_test(?assertEqual(unicode:characters_to_binary(erlperf_name:text(N)), unquote(csv(N)), N))
     || N <- ?HOSTILE].

%%--------------------------------------------------------------------
%% Helpers

md(Name) ->
    unicode:characters_to_binary(erlperf_name:markdown(Name)).

csv(Name) ->
    unicode:characters_to_binary(erlperf_name:csv(Name)).

%% No line break a CI runner splits lines at, and no line that begins with `::' once
%% its leading white space is trimmed.
one_safe_line(Text) ->
    not lists:any(fun (C) -> C =:= $\n orelse C =:= $\r end, Text)
        andalso not lists:prefix("::", string:trim(Text, leading, [$\s, 16#A0, 16#3000, 16#2028])).

%% `|' not escaped by a backslash.
pipes(Row) ->
    length(binary:matches(Row, <<"|">>)) - length(binary:matches(Row, <<"\\|">>)).

unquote(<<$", Rest/binary>>) ->
    Inner = binary:part(Rest, 0, byte_size(Rest) - 1),
    nomatch = binary:match(binary:replace(Inner, <<"\"\"">>, <<>>, [global]), <<"\"">>),
    binary:replace(Inner, <<"\"\"">>, <<"\"">>, [global]);
unquote(Field) ->
    nomatch = binary:match(Field, [<<",">>, <<"\"">>, <<"\n">>, <<"\r">>]),
    Field.
