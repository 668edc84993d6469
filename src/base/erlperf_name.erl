%%% @doc How a name a user gave (a runner's label or source code, a suite's benchmark, a
%%% sweep's combination, a baseline's file or store name, a performance test's or load
%%% generator's name, or any such text read back from a stored run or a saved record)
%%% is written in each output. Every output writes names with these functions only:
%%% names come from repositories, so from pull requests, and a name must never start
%%% a line that a CI runner reads as a command, nor break the table it sits in.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>plain name</b>: one with no control character and that does not begin
%%%       with `::' (after any white space). It is written exactly as it is, in any
%%%       script (`сортировка', `lists:seq(1, 10).').</li>
%%%   <li><b>control character</b>: C0 (U+0000..U+001F: line feed, carriage return,
%%%       tab, escape...), DEL, C1 (U+0080..U+009F), the line and paragraph separators
%%%       (U+2028, U+2029), the marks and overrides that reorder text on screen
%%%       (U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) and the byte order mark
%%%       (U+FEFF). A byte that is not UTF-8 is treated as one too.</li>
%%%   <li><b>quoted name</b>: any other name is written between double quotes, with
%%%       `\"' and `\\' for a quote and a backslash, `\n', `\r', `\t' for those three
%%%       and `\xNN' (`\x{NNNN}' above U+00FF) for other control characters and bytes
%%%       that are not UTF-8: `"L\n::warning::injected"' is one line that begins with
%%%       a quote. GitHub Actions reads a line that begins with `::' after white space
%%%       as a workflow command (`::warning::', `::add-mask::'): no name written here
%%%       can begin one.</li>
%%% </ul>
%%%
%%% The outputs:
%%% <ul>
%%%   <li>{@link text/1}: text lines and tables (a terminal, a log, stderr).</li>
%%%   <li>{@link markdown/1}: a code span in a Markdown table cell (`|' escaped, a
%%%       backtick replaced by `''); {@link markdown_text/1} for other text in a cell
%%%       (`<' escaped as well: no HTML starts there).</li>
%%%   <li>{@link html/1}: HTML text (`&', `<', `>', `"', `'' as entities);
%%%       {@link html_escape/1} for other text, whose line breaks become character
%%%       references, so that no text of a page starts a line of its source.</li>
%%%   <li>{@link csv/1}: a CSV field (RFC 4180): every text field of erlperf's CSV is
%%%       written so.</li>
%%% </ul>
%%% Data outputs that must give names back as they are (JSON, the results store) do not
%%% use this module: JSON escapes every control character in strings.
%%%
%%% Example:
%%% ```
%%% "lists:seq(1, 10)." = erlperf_name:text(<<"lists:seq(1, 10).">>),
%%% "\"L\\n::warning::injected\"" = erlperf_name:text(<<"L\n::warning::injected">>),
%%% <<"`a\\|b`">> = iolist_to_binary(erlperf_name:markdown(<<"a|b">>)),
%%% <<"&lt;script&gt;">> = erlperf_name:html(<<"<script>">>).
%%% '''
%%% Pure: no I/O, no state; a leaf module every layer may call.
-module(erlperf_name).

%% API: called by every output that writes a name (text, verdicts, annotations, Markdown,
%% HTML, CSV, Benchee's layout, the history, the performance test's reports).
-export([text/1, markdown/1, html/1, csv/1]).
%% API: the escaping of each output for text that is not a name (erlperf_markdown and
%% erlperf_html call them: one home for each output's escaping).
-export([markdown_text/1, html_escape/1]).

-export_type([name/0]).

%% A name: characters (UTF-8 in binaries; a byte that is not UTF-8 is written as
%% `\xNN'), or an atom.
-type name() :: unicode:chardata() | atom().

%%--------------------------------------------------------------------
%% API

%% @doc A name on one line of text: a plain name as it is, any other quoted (see the
%% glossary).
-spec text(name()) -> string().
text(Name) ->
    Chars = characters(Name),
    case lists:any(fun is_control/1, Chars) orelse commandlike(Chars) of
        true -> [$" | lists:append([quoted(C) || C <- Chars])] ++ [$"];
        false -> Chars
    end.

%% @doc A name as a code span in a Markdown table cell: its {@link text/1}, a backtick
%% replaced by `'' (no span can hold one portably), `|' escaped so that it does not end
%% the cell.
-spec markdown(name()) -> unicode:chardata().
markdown(Name) ->
    ["`", lists:append([span_char(C) || C <- text(Name)]), "`"].

%% @doc A name in HTML (element content or a quoted attribute value): its
%% {@link text/1}, escaped.
-spec html(name()) -> binary().
html(Name) ->
    html_escape(text(Name)).

%% @doc A name as a CSV field: its {@link text/1}, quoted when it holds a comma, a
%% double quote or a line break (a quoted name holds a double quote).
-spec csv(name()) -> unicode:chardata().
csv(Name) ->
    csv_field(unicode:characters_to_binary(text(Name))).

%% @doc Text that is not a name in a Markdown table cell: `|' escaped, a backtick
%% replaced by `'', `<' as `&lt;' (no HTML tag or comment can start), each control
%% character (a line break among them) a space.
-spec markdown_text(name()) -> string().
markdown_text(Text) ->
    lists:append([cell_char(C) || C <- characters(Text)]).

%% @doc Text that is not a name in HTML: `&', `<', `>', `"' and `'' escaped, line
%% feeds and carriage returns as character references (`&#10;', which a browser shows
%% as the character itself, in `<pre>' too); bytes that are not UTF-8 as U+FFFD.
-spec html_escape(name()) -> binary().
html_escape(Text) ->
    << <<(html_char(C))/binary>> || C <- characters(Text) >>.

%% A CSV field (RFC 4180): as it is, or between double quotes, its quotes doubled, when
%% it holds a comma, a double quote or a line break.
csv_field(Text) ->
    case binary:match(Text, [<<",">>, <<"\"">>, <<"\n">>, <<"\r">>]) of
        nomatch -> Text;
        _ -> [$", binary:replace(Text, <<"\"">>, <<"\"\"">>, [global]), $"]
    end.

%%--------------------------------------------------------------------
%% Internal functions

%% The code points of a name; a byte that is not UTF-8 is `{byte, B}', an integer that
%% is no code point (in a list) U+FFFD.
-spec characters(name()) -> [char() | {byte, byte()}].
characters(Atom) when is_atom(Atom) ->
    atom_to_list(Atom);
characters(Text) ->
    case unicode:characters_to_list(Text) of
        List when is_list(List) -> List;
        {_Error, Good, Rest} -> Good ++ invalid(Rest)
    end.

%% What follows the first character that is not valid: it, then the rest.
invalid(<<B, More/binary>>) -> [{byte, B} | characters(More)];
invalid(<<>>) -> [];
invalid([]) -> [];
invalid([[] | Rest]) -> invalid(Rest);
invalid([[First | More] | Rest]) -> invalid([First, More | Rest]);
invalid([<<>> | Rest]) -> invalid(Rest);
invalid([<<B, More/binary>> | Rest]) -> [{byte, B} | characters([More | Rest])];
invalid([_NoCodePoint | Rest]) -> [16#FFFD | characters(Rest)].

-spec is_control(char() | {byte, byte()}) -> boolean().
is_control({byte, _}) -> true;
is_control(C) when C < 16#20 -> true;
is_control(C) when C >= 16#7F, C =< 16#9F -> true;
is_control(C) when C =:= 16#200E; C =:= 16#200F; C =:= 16#2028; C =:= 16#2029 -> true;
is_control(C) when C >= 16#202A, C =< 16#202E -> true;
is_control(C) when C >= 16#2066, C =< 16#2069 -> true;
is_control(16#FEFF) -> true;
is_control(_C) -> false.

%% Whether a name (of no control character) begins with `::' after white space: what a
%% CI runner reads as a command at the start of a line.
commandlike([C | Rest]) when C =:= $\s; C =:= 16#A0; C =:= 16#1680; C =:= 16#202F;
                             C =:= 16#205F; C =:= 16#3000 ->
    commandlike(Rest);
commandlike([C | Rest]) when C >= 16#2000, C =< 16#200A ->
    commandlike(Rest);
commandlike([$:, $: | _]) ->
    true;
commandlike(_Chars) ->
    false.

-spec quoted(char() | {byte, byte()}) -> string().
quoted($") -> "\\\"";
quoted($\\) -> "\\\\";
quoted($\n) -> "\\n";
quoted($\r) -> "\\r";
quoted($\t) -> "\\t";
quoted({byte, B}) -> hex(B);
quoted(C) ->
    case is_control(C) of
        true -> hex(C);
        false -> [C]
    end.

hex(C) when C =< 16#FF -> lists:flatten(io_lib:format("\\x~2.16.0B", [C]));
hex(C) -> lists:flatten(io_lib:format("\\x{~4.16.0B}", [C])).

%% A character of a name (no control character) in a code span, and of other text in a
%% cell.
span_char($`) -> "'";
span_char($|) -> "\\|";
span_char(C) -> [C].

cell_char($<) -> "&lt;";
cell_char(C) ->
    case is_control(C) of
        true -> " ";
        false -> span_char(C)
    end.

html_char($&) -> <<"&amp;">>;
html_char($<) -> <<"&lt;">>;
html_char($>) -> <<"&gt;">>;
html_char($") -> <<"&quot;">>;
html_char($') -> <<"&#39;">>;
html_char($\n) -> <<"&#10;">>;
html_char($\r) -> <<"&#13;">>;
html_char({byte, _}) -> <<16#FFFD/utf8>>;
html_char(C) -> <<C/utf8>>.
