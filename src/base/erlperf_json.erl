%%% @doc JSON text for results and saved files: encodes terms to RFC 8259 JSON and
%%% decodes JSON back to terms, the same way on every supported OTP release (25 and up).
%%%
%%% Pure functions, no processes. `encode/1,2' writes the term; `decode/1' reads a
%%% document and returns `{error, {json, Detail}}' for malformed input, and
%%% `format_error/1' renders that reason as one line for the user.
%%%
%%% Example:
%%% ```
%%% Json = erlperf_json:encode(#{name => <<"rand">>, qps => 1200, p99 => 1.5, ok => true}),
%%% <<"{\"name\":\"rand\",\"ok\":true,\"p99\":1.5,\"qps\":1200}">> = iolist_to_binary(Json),
%%% {ok, #{<<"qps">> := 1200, <<"ok">> := true}} = erlperf_json:decode(Json),
%%% {error, {json, {unexpected_end, 5}}} = erlperf_json:decode(<<"[1, 2">>).
%%% '''
%%%
%%% == Encoding (Erlang -> JSON) ==
%%% <ul>
%%% <li>map -> object. Keys may be atoms, binaries (UTF-8) or strings (lists of code
%%%     points); they are converted to binaries and written in sorted order (by code
%%%     point), so the same map always gives the same text. Two keys that convert to the
%%%     same text (`a' and `<<"a">>') are an error.</li>
%%% <li>list -> array. A charlist such as `"abc"' is an array of integers, not a
%%%     string: strings are binaries. (`[]' could otherwise be either, and every
%%%     list of integers survives the round trip.)</li>
%%% <li>binary -> string; it must be valid UTF-8.</li>
%%% <li>`true', `false', `null' -> literals; any other atom -> string.</li>
%%% <li>integer -> number; float -> number in the shortest form that reads back to the
%%%     same float (`float_to_binary(F, [short])': `0.1', `1.0e300', `-0.0').</li>
%%% <li>anything else (tuples, pids, improper lists...) -> `erlang:error({invalid_json,
%%%     Term})' naming the smallest offending term; callers convert such values first.</li>
%%% </ul>
%%% Strings escape `"', `\' and control characters: `\b', `\f', `\n', `\r', `\t' in
%%% their short form, the other characters below U+0020 as `\u00XX' (lowercase hex).
%%% Everything else, including non-ASCII, is written as UTF-8.
%%%
%%% Options (`encode/2'):
%%% <ul>
%%% <li>`pretty' (default `false'): two-space indentation, one array element or object
%%%     member per line, `": "' after keys, no trailing newline (a file writer adds it).
%%%     Empty containers stay `[]' and `{}'.</li>
%%% <li>`html_safe' (default `false'): also escape `<', `>', `&' and U+2028, U+2029
%%%     (`\u003c', `\u003e', `\u0026', `\u2028', `\u2029'), so the text can be embedded
%%%     in an HTML `<script>' element.</li>
%%% </ul>
%%%
%%% == Decoding (JSON -> Erlang) ==
%%% object -> map with binary keys (a duplicate key is an error); array -> list;
%%% string -> binary (UTF-8, `\uXXXX' escapes and surrogate pairs decoded);
%%% number without fraction or exponent -> integer (`-0' -> `0'); other numbers ->
%%% float (`-0.0' keeps its sign, `1e3' -> `1.0e3', values below the smallest float
%%% round to `0.0', values beyond the largest are an error); `true', `false', `null'
%%% -> atoms. Whitespace is space, tab, CR, LF; one leading UTF-8 byte order mark is
%%% skipped (RFC 8259, section 8.1). Anything after the value is an error.
%%%
%%% Round trip: `decode(encode(T))' returns `{ok, T}' (`-0.0' included) for every term
%%% built from maps with binary keys, lists, binaries, integers, floats, `true',
%%% `false' and `null', as long as it is within the decoder's limits (encode does not
%%% check them).
%%%
%%% Limits, for hostile input: nesting deeper than `?MAX_DEPTH' (512) arrays and
%%% objects is rejected before anything deeper is read; a number longer than
%%% `?MAX_NUMBER_LENGTH' (4096) characters is rejected, because converting a decimal
%%% integer takes time quadratic in its length (a 10 MB number would take hours).
%%% The decoder's work is otherwise linear in the input size. For documents of many
%%% megabytes, most of the time goes to garbage collection of the growing result in
%%% the calling process (about 1.7 s for 10 MB and a million values, 0.4 s in a process
%%% spawned with a `min_heap_size' that fits the result).
%%%
%%% Memory: a decoded string without escapes is a part of the input binary
%%% (`binary_part/3'), so keeping it keeps the whole input; `binary:copy/1' what is
%%% kept for long.
%%%
%%% Errors carry the 0-based byte offset of the problem in the input (see
%%% `decode_error()').
%%%
%%% == Why no `json' module on OTP 27+ ==
%%% This module uses its own code on every release. OTP 27's `json:decode/1' has no
%%% nesting limit and its errors carry no offset, `json:encode/1' writes map keys in
%%% map order and `json:format/1' uses a different layout (short arrays on one line),
%%% and neither has `html_safe'. Wrapping them would leave only number and string
%%% formatting to OTP, and two code paths could write different bytes for the same
%%% term: a file saved on OTP 25 must be byte-identical to one saved on OTP 28.
%%% The tests compare the results with `json' when they run on OTP 27 or later.
-module(erlperf_json).

%% API: erlperf_cli and the report writers encode, --baseline decodes.
-export([encode/1, encode/2, decode/1, format_error/1]).

-export_type([json/0, encodable/0, encode_options/0, decode_error/0]).

%% Deepest nesting of arrays and objects decode/1 accepts. Results nest 4 or 5 levels;
%% the limit stops a hostile document from building an arbitrarily deep term.
-define(MAX_DEPTH, 512).
%% Longest number (in characters, sign and exponent included) decode/1 converts.
%% binary_to_integer/1 is quadratic: 4096 digits take well under a millisecond.
-define(MAX_NUMBER_LENGTH, 4096).

-define(IS_WS(C), (C =:= $\s orelse C =:= $\n orelse C =:= $\r orelse C =:= $\t)).
-define(IS_DIGIT(C), (C >= $0 andalso C =< $9)).

%% A decoded JSON value.
-type json() :: #{binary() => json()} | [json()] | binary() | integer() | float()
              | boolean() | null.

%% A term encode/1 accepts (see the mapping in the module documentation).
-type encodable() :: #{atom() | binary() | string() => encodable()} | [encodable()]
                   | binary() | atom() | integer() | float().

%% `pretty': indented, one member per line (default false).
%% `html_safe': also escape `<', `>', `&', U+2028, U+2029 (default false).
-type encode_options() :: #{pretty => boolean(), html_safe => boolean()}.

%% Offsets are 0-based byte positions in the (flattened) input.
-type offset() :: non_neg_integer().
-type decode_error() ::
    {unexpected_end, offset()} |              % input ends inside a value
    {unexpected_byte, byte(), offset()} |     % syntax error
    {trailing_data, offset()} |               % something after the value
    {invalid_number, offset()} |              % leading zero, "1.", "1e", "-"
    {number_too_long, offset()} |             % over ?MAX_NUMBER_LENGTH characters
    {number_out_of_range, offset()} |         % beyond the largest float
    {control_character, byte(), offset()} |   % unescaped byte below 16#20 in a string
    {invalid_escape, offset()} |              % \x, \u12G4
    {lone_surrogate, offset()} |              % \uD800 without its low half, or \uDC00
    {invalid_utf8, offset()} |                % bytes of a string that are not UTF-8
    {duplicate_key, binary(), offset()} |     % a key seen before in the same object
    {too_deep, offset()}.                     % more than ?MAX_DEPTH levels

%%--------------------------------------------------------------------
%% API

%% @doc Compact JSON text for `Term', keys sorted. Same as `encode(Term, #{})'.
-spec encode(Term :: encodable()) -> iodata().
encode(Term) ->
    encode(Term, #{}).

%% @doc JSON text for `Term' with options (see `encode_options()').
%% Raises `{invalid_json, Part}' for a part of `Term' JSON cannot represent and
%% `{invalid_option, Key, Value}' for an unknown option or a non-boolean value.
-spec encode(Term :: encodable(), Options :: encode_options()) -> iodata().
encode(Term, Options) when is_map(Options) ->
    #{pretty := Pretty, html_safe := Html} = maps:fold(fun check_option/3, defaults(), Options),
    Indent = case Pretty of true -> <<"\n">>; false -> compact end,
    encode_value(Term, Indent, Html).

%% @doc Decodes one JSON document (a value, optionally surrounded by whitespace).
%% Input that is not iodata raises `badarg'.
-spec decode(Json :: iodata()) -> {ok, json()} | {error, {json, decode_error()}}.
decode(Json) ->
    Bin = iolist_to_binary(Json),
    try document(Bin) of
        Term -> {ok, Term}
    catch
        throw:{?MODULE, Detail} -> {error, {json, Detail}}
    end.

%% @doc One line of text for a `decode/1' error.
-spec format_error({json, decode_error()}) -> string().
format_error({json, Detail}) ->
    {Text, Args} = error_text(Detail),
    lists:flatten(io_lib:format("invalid JSON: " ++ Text, Args)).

%%--------------------------------------------------------------------
%% Options

defaults() ->
    #{pretty => false, html_safe => false}.

check_option(Key, Value, Acc) when is_boolean(Value), is_map_key(Key, Acc) ->
    Acc#{Key := Value};
check_option(Key, Value, _Acc) ->
    erlang:error({invalid_option, Key, Value}).

%%--------------------------------------------------------------------
%% Encoding. Indent is `compact' or the newline and spaces before a line at the
%% current level; Html is the html_safe option.

encode_value(true, _, _) -> <<"true">>;
encode_value(false, _, _) -> <<"false">>;
encode_value(null, _, _) -> <<"null">>;
encode_value(Atom, _, Html) when is_atom(Atom) -> quoted(atom_to_binary(Atom, utf8), Atom, Html);
encode_value(Bin, _, Html) when is_binary(Bin) -> quoted(Bin, Bin, Html);
encode_value(Int, _, _) when is_integer(Int) -> integer_to_binary(Int);
encode_value(Float, _, _) when is_float(Float) -> float_to_binary(Float, [short]);
encode_value(List, Indent, Html) when is_list(List) -> array(List, Indent, Html);
encode_value(Map, Indent, Html) when is_map(Map) -> object(Map, Indent, Html);
encode_value(Other, _, _) -> erlang:error({invalid_json, Other}).

array([], _, _) ->
    <<"[]">>;
array(List, Indent, Html) ->
    Inner = deeper(Indent),
    container($[, elements(List, List, Inner, Html), Indent, Inner, $]).

elements([Elem | Tail], List, Indent, Html) ->
    [encode_value(Elem, Indent, Html) | elements(Tail, List, Indent, Html)];
elements([], _List, _, _) ->
    [];
elements(_Improper, List, _, _) ->
    erlang:error({invalid_json, List}).

object(Map, _, _) when map_size(Map) =:= 0 ->
    <<"{}">>;
object(Map, Indent, Html) ->
    Sorted = lists:keysort(1, [{key(Key), Value} || {Key, Value} <- maps:to_list(Map)]),
    ok = unique_keys(Sorted, Map),
    Inner = deeper(Indent),
    Colon = case Indent of compact -> $:; _ -> <<": ">> end,
    Members = [[quoted(Key, Key, Html), Colon, encode_value(Value, Inner, Html)]
               || {Key, Value} <- Sorted],
    container(${, Members, Indent, Inner, $}).

%% Open, items separated by commas (and line breaks when pretty), close.
container(Open, Items, compact, compact, Close) ->
    [Open, join(Items, $,), Close];
container(Open, Items, Indent, Inner, Close) ->
    [Open, Inner, join(Items, [$,, Inner]), Indent, Close].

join([First | Rest], Sep) ->
    [First | [[Sep, Item] || Item <- Rest]].

deeper(compact) -> compact;
deeper(Indent) -> <<Indent/binary, "  ">>.

key(Key) when is_binary(Key) ->
    Key;
key(Key) when is_atom(Key) ->
    atom_to_binary(Key, utf8);
key(Key) when is_list(Key) ->
    case lists:all(fun is_integer/1, Key) andalso unicode:characters_to_binary(Key) of
        Bin when is_binary(Bin) -> Bin;
        _ -> erlang:error({invalid_json, Key})
    end;
key(Key) ->
    erlang:error({invalid_json, Key}).

unique_keys([{Key, _}, {Key, _} | _], Map) -> erlang:error({invalid_json, Map});
unique_keys([_ | Rest], Map) -> unique_keys(Rest, Map);
unique_keys([], _Map) -> ok.

%% A quoted, escaped string. Term is what the caller passed, for the error.
quoted(Bin, Term, Html) ->
    [$", escape(Bin, Bin, 0, 0, [], Html, Term), $"].

%% Copies runs of bytes that need no escape as parts of Orig: Start is where the
%% current run begins, Len its length so far.
escape(<<C, Rest/binary>>, Orig, Start, Len, Acc, false, Term)
  when C >= 16#20, C < 16#80, C =/= $", C =/= $\\ ->
    escape(Rest, Orig, Start, Len + 1, Acc, false, Term);
escape(<<C, Rest/binary>>, Orig, Start, Len, Acc, true, Term)
  when C >= 16#20, C < 16#80, C =/= $", C =/= $\\, C =/= $<, C =/= $>, C =/= $& ->
    escape(Rest, Orig, Start, Len + 1, Acc, true, Term);
escape(<<C, Rest/binary>>, Orig, Start, Len, Acc, Html, Term) when C < 16#80 ->
    Acc1 = [Acc, binary_part(Orig, Start, Len), escape_char(C)],
    escape(Rest, Orig, Start + Len + 1, 0, Acc1, Html, Term);
escape(<<C/utf8, Rest/binary>>, Orig, Start, Len, Acc, true, Term)
  when C =:= 16#2028; C =:= 16#2029 ->
    Acc1 = [Acc, binary_part(Orig, Start, Len), escape_char(C)],
    escape(Rest, Orig, Start + Len + 3, 0, Acc1, true, Term);
escape(<<C/utf8, Rest/binary>>, Orig, Start, Len, Acc, Html, Term) ->
    escape(Rest, Orig, Start, Len + utf8_size(C), Acc, Html, Term);
escape(<<>>, Orig, 0, _Len, [], _Html, _Term) ->
    Orig;
escape(<<>>, Orig, Start, Len, Acc, _Html, _Term) ->
    [Acc, binary_part(Orig, Start, Len)];
escape(_NotUtf8, _Orig, _Start, _Len, _Acc, _Html, Term) ->
    erlang:error({invalid_json, Term}).

escape_char($") -> <<"\\\"">>;
escape_char($\\) -> <<"\\\\">>;
escape_char($\b) -> <<"\\b">>;
escape_char($\f) -> <<"\\f">>;
escape_char($\n) -> <<"\\n">>;
escape_char($\r) -> <<"\\r">>;
escape_char($\t) -> <<"\\t">>;
escape_char(C) -> <<"\\u", (nibble(C bsr 12)), (nibble(C bsr 8)), (nibble(C bsr 4)), (nibble(C))>>.

nibble(N) -> element((N band 15) + 1, {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $a, $b, $c, $d, $e, $f}).

utf8_size(C) when C < 16#800 -> 2;
utf8_size(C) when C < 16#10000 -> 3;
utf8_size(_) -> 4.

%%--------------------------------------------------------------------
%% Decoding, in continuation-passing style: no function returns the rest of the
%% input, and every function that receives it starts by matching it, so the compiler
%% passes the match state along instead of building a sub-binary for every value.
%% Each function takes the rest of the input, the whole input (Orig, for
%% binary_part/3), the offset of the rest in Orig, the stack of open containers and
%% how many there are (Depth). Stack frames, innermost first:
%%   [array, Elements | _]        in an array; Elements so far, last first
%%   [key, KeyPos, Members | _]   the string just read is a key (its `"' at KeyPos)
%%   [object, Key, Members | _]   the value being read belongs to Key
%% Errors are thrown as {?MODULE, Detail} and caught in decode/1.

document(<<16#EF, 16#BB, 16#BF, Rest/binary>> = Orig) ->
    value(Rest, Orig, 3, [], 0);
document(Orig) ->
    value(Orig, Orig, 0, [], 0).

value(<<C, Rest/binary>>, Orig, Pos, Stack, Depth) when ?IS_WS(C) ->
    value(Rest, Orig, Pos + 1, Stack, Depth);
value(<<$", Rest/binary>>, Orig, Pos, Stack, Depth) ->
    string(Rest, Orig, Pos + 1, Pos + 1, [], Stack, Depth);
value(<<$-, Rest/binary>>, Orig, Pos, Stack, Depth) ->
    int_digits(Rest, Orig, Pos, 1, Stack, Depth);
value(<<D, _/binary>> = Bin, Orig, Pos, Stack, Depth) when ?IS_DIGIT(D) ->
    int_digits(Bin, Orig, Pos, 0, Stack, Depth);
value(<<C, _/binary>>, _Orig, Pos, _Stack, Depth)
  when (C =:= $[ orelse C =:= ${), Depth >= ?MAX_DEPTH ->
    fail({too_deep, Pos});
value(<<$[, Rest/binary>>, Orig, Pos, Stack, Depth) ->
    array_start(Rest, Orig, Pos + 1, Stack, Depth + 1);
value(<<${, Rest/binary>>, Orig, Pos, Stack, Depth) ->
    object_start(Rest, Orig, Pos + 1, Stack, Depth + 1);
value(<<"true", Rest/binary>>, Orig, Pos, Stack, Depth) ->
    after_value(Rest, Orig, Pos + 4, true, Stack, Depth);
value(<<"false", Rest/binary>>, Orig, Pos, Stack, Depth) ->
    after_value(Rest, Orig, Pos + 5, false, Stack, Depth);
value(<<"null", Rest/binary>>, Orig, Pos, Stack, Depth) ->
    after_value(Rest, Orig, Pos + 4, null, Stack, Depth);
value(<<$t, _/binary>> = Bin, _Orig, Pos, _Stack, _Depth) ->
    mismatch(Bin, <<"true">>, Pos);
value(<<$f, _/binary>> = Bin, _Orig, Pos, _Stack, _Depth) ->
    mismatch(Bin, <<"false">>, Pos);
value(<<$n, _/binary>> = Bin, _Orig, Pos, _Stack, _Depth) ->
    mismatch(Bin, <<"null">>, Pos);
value(Bin, _Orig, Pos, _Stack, _Depth) ->
    unexpected(Bin, Pos).

%% The error for a literal that is not `Word': at its first wrong byte.
mismatch(<<C, Rest/binary>>, <<C, Word/binary>>, Pos) -> mismatch(Rest, Word, Pos + 1);
mismatch(Bin, _Word, Pos) -> unexpected(Bin, Pos).

%% The error for the byte at Pos (or the end of input).
-spec unexpected(binary(), offset()) -> no_return().
unexpected(<<>>, Pos) -> fail({unexpected_end, Pos});
unexpected(<<C, _/binary>>, Pos) -> fail({unexpected_byte, C, Pos}).

-spec fail(decode_error()) -> no_return().
fail(Detail) ->
    throw({?MODULE, Detail}).

%% After a value (or a key): whitespace, then what the innermost container expects.
after_value(<<C, Rest/binary>>, Orig, Pos, Value, Stack, Depth) when ?IS_WS(C) ->
    after_value(Rest, Orig, Pos + 1, Value, Stack, Depth);
after_value(<<$,, Rest/binary>>, Orig, Pos, Value, [array, Elements | Stack], Depth) ->
    value(Rest, Orig, Pos + 1, [array, [Value | Elements] | Stack], Depth);
after_value(<<$], Rest/binary>>, Orig, Pos, Value, [array, Elements | Stack], Depth) ->
    after_value(Rest, Orig, Pos + 1, lists:reverse(Elements, [Value]), Stack, Depth - 1);
after_value(<<$,, Rest/binary>>, Orig, Pos, Value, [object, Key, Members | Stack], Depth) ->
    object_key(Rest, Orig, Pos + 1, Members#{Key => Value}, Stack, Depth);
after_value(<<$}, Rest/binary>>, Orig, Pos, Value, [object, Key, Members | Stack], Depth) ->
    after_value(Rest, Orig, Pos + 1, Members#{Key => Value}, Stack, Depth - 1);
after_value(<<$:, Rest/binary>>, Orig, Pos, Key, [key, KeyPos, Members | Stack], Depth) ->
    case is_map_key(Key, Members) of
        true -> fail({duplicate_key, Key, KeyPos});
        false -> value(Rest, Orig, Pos + 1, [object, Key, Members | Stack], Depth)
    end;
after_value(<<>>, _Orig, _Pos, Value, [], _Depth) ->
    Value;
after_value(_Trailing, _Orig, Pos, _Value, [], _Depth) ->
    fail({trailing_data, Pos});
after_value(Bin, _Orig, Pos, _Value, _Stack, _Depth) ->
    unexpected(Bin, Pos).

%% After `[': `]' or the first element.
array_start(<<C, Rest/binary>>, Orig, Pos, Stack, Depth) when ?IS_WS(C) ->
    array_start(Rest, Orig, Pos + 1, Stack, Depth);
array_start(<<$], Rest/binary>>, Orig, Pos, Stack, Depth) ->
    after_value(Rest, Orig, Pos + 1, [], Stack, Depth - 1);
array_start(Bin, Orig, Pos, Stack, Depth) ->
    value(Bin, Orig, Pos, [array, [] | Stack], Depth).

%% After `{': `}' or the first key.
object_start(<<C, Rest/binary>>, Orig, Pos, Stack, Depth) when ?IS_WS(C) ->
    object_start(Rest, Orig, Pos + 1, Stack, Depth);
object_start(<<$}, Rest/binary>>, Orig, Pos, Stack, Depth) ->
    after_value(Rest, Orig, Pos + 1, #{}, Stack, Depth - 1);
object_start(Bin, Orig, Pos, Stack, Depth) ->
    object_key(Bin, Orig, Pos, #{}, Stack, Depth).

%% A key: after `{' or after a `,' in an object (no trailing comma).
object_key(<<C, Rest/binary>>, Orig, Pos, Members, Stack, Depth) when ?IS_WS(C) ->
    object_key(Rest, Orig, Pos + 1, Members, Stack, Depth);
object_key(<<$", Rest/binary>>, Orig, Pos, Members, Stack, Depth) ->
    string(Rest, Orig, Pos + 1, Pos + 1, [], [key, Pos, Members | Stack], Depth);
object_key(Bin, _Orig, Pos, _Members, _Stack, _Depth) ->
    unexpected(Bin, Pos).

%% Strings: Start is where the current run of unescaped bytes begins in Orig, Acc the
%% decoded text before it (iodata). A string without escapes is a part of the input.
string(<<C, Rest/binary>>, Orig, Pos, Start, Acc, Stack, Depth)
  when C >= 16#20, C < 16#80, C =/= $", C =/= $\\ ->
    string(Rest, Orig, Pos + 1, Start, Acc, Stack, Depth);
string(<<$", Rest/binary>>, Orig, Pos, Start, Acc, Stack, Depth) ->
    Run = binary_part(Orig, Start, Pos - Start),
    Value = case Acc of [] -> Run; _ -> iolist_to_binary([Acc, Run]) end,
    after_value(Rest, Orig, Pos + 1, Value, Stack, Depth);
string(<<$\\, Rest/binary>>, Orig, Pos, Start, Acc, Stack, Depth) ->
    unescape(Rest, Orig, Pos, [Acc, binary_part(Orig, Start, Pos - Start)], Stack, Depth);
string(<<C, _/binary>>, _Orig, Pos, _Start, _Acc, _Stack, _Depth) when C < 16#20 ->
    fail({control_character, C, Pos});
string(<<C/utf8, Rest/binary>>, Orig, Pos, Start, Acc, Stack, Depth) ->
    string(Rest, Orig, Pos + utf8_size(C), Start, Acc, Stack, Depth);
string(<<>>, _Orig, Pos, _Start, _Acc, _Stack, _Depth) ->
    fail({unexpected_end, Pos});
string(_NotUtf8, _Orig, Pos, _Start, _Acc, _Stack, _Depth) ->
    fail({invalid_utf8, Pos}).

%% The escape after the backslash at Pos; the string goes on after it.
unescape(<<C, Rest/binary>>, Orig, Pos, Acc, Stack, Depth)
  when C =:= $"; C =:= $\\; C =:= $/; C =:= $b; C =:= $f; C =:= $n; C =:= $r; C =:= $t ->
    string(Rest, Orig, Pos + 2, Pos + 2, [Acc, unescape_char(C)], Stack, Depth);
unescape(<<$u, A, B, C, D, Rest/binary>>, Orig, Pos, Acc, Stack, Depth) ->
    case hex(A, B, C, D, Pos) of
        High when High >= 16#D800, High =< 16#DBFF ->
            low_surrogate(Rest, Orig, Pos, High, Acc, Stack, Depth);
        Low when Low >= 16#DC00, Low =< 16#DFFF ->
            fail({lone_surrogate, Pos});
        Char ->
            string(Rest, Orig, Pos + 6, Pos + 6, [Acc, <<Char/utf8>>], Stack, Depth)
    end;
unescape(<<$u, Short/binary>>, _Orig, Pos, _Acc, _Stack, _Depth) ->
    truncated(Short, Pos);
unescape(<<>>, _Orig, Pos, _Acc, _Stack, _Depth) ->
    fail({unexpected_end, Pos + 1});
unescape(_, _Orig, Pos, _Acc, _Stack, _Depth) ->
    fail({invalid_escape, Pos}).

unescape_char($b) -> $\b;
unescape_char($f) -> $\f;
unescape_char($n) -> $\n;
unescape_char($r) -> $\r;
unescape_char($t) -> $\t;
unescape_char(C) -> C.

%% After \uD800-\uDBFF at Pos: the low half must follow as \uDC00-\uDFFF.
low_surrogate(<<"\\u", A, B, C, D, Rest/binary>>, Orig, Pos, High, Acc, Stack, Depth) ->
    case hex(A, B, C, D, Pos + 6) of
        Low when Low >= 16#DC00, Low =< 16#DFFF ->
            Char = 16#10000 + ((High - 16#D800) bsl 10) + (Low - 16#DC00),
            string(Rest, Orig, Pos + 12, Pos + 12, [Acc, <<Char/utf8>>], Stack, Depth);
        _ ->
            fail({lone_surrogate, Pos})
    end;
low_surrogate(<<"\\u", Short/binary>>, _Orig, Pos, _High, _Acc, _Stack, _Depth) ->
    truncated(Short, Pos + 6);
low_surrogate(_, _Orig, Pos, _High, _Acc, _Stack, _Depth) ->
    fail({lone_surrogate, Pos}).

%% Input ends inside the \u escape at Pos (fewer than 4 bytes follow the `u');
%% a non-hex digit before the end is reported first.
-spec truncated(binary(), offset()) -> no_return().
truncated(Short, Pos) ->
    _ = [hex_digit(C, Pos) || <<C>> <= Short],
    fail({unexpected_end, Pos + 2 + byte_size(Short)}).

%% The four hex digits of the \u escape at Pos.
hex(A, B, C, D, Pos) ->
    (hex_digit(A, Pos) bsl 12) bor (hex_digit(B, Pos) bsl 8)
        bor (hex_digit(C, Pos) bsl 4) bor hex_digit(D, Pos).

hex_digit(C, _) when C >= $0, C =< $9 -> C - $0;
hex_digit(C, _) when C >= $a, C =< $f -> C - $a + 10;
hex_digit(C, _) when C >= $A, C =< $F -> C - $A + 10;
hex_digit(_, Pos) -> fail({invalid_escape, Pos}).

%% Numbers: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, scanned to find where
%% it ends and its kind, then converted by the BIFs. Start: offset of the number;
%% Len: bytes scanned so far.
int_digits(<<$0, D, _/binary>>, _Orig, Start, _Len, _Stack, _Depth) when ?IS_DIGIT(D) ->
    fail({invalid_number, Start});
int_digits(<<D, Rest/binary>>, Orig, Start, Len, Stack, Depth) when ?IS_DIGIT(D) ->
    int_more(Rest, Orig, Start, Len + 1, Stack, Depth);
int_digits(_, _Orig, Start, _Len, _Stack, _Depth) ->
    fail({invalid_number, Start}).

int_more(<<D, Rest/binary>>, Orig, Start, Len, Stack, Depth) when ?IS_DIGIT(D) ->
    int_more(Rest, Orig, Start, Len + 1, Stack, Depth);
int_more(<<$., D, Rest/binary>>, Orig, Start, Len, Stack, Depth) when ?IS_DIGIT(D) ->
    fraction(Rest, Orig, Start, Len + 2, Stack, Depth);
int_more(<<$., _/binary>>, _Orig, Start, _Len, _Stack, _Depth) ->
    fail({invalid_number, Start});
int_more(<<E, Rest/binary>>, Orig, Start, Len, Stack, Depth) when E =:= $e; E =:= $E ->
    %% no fraction: binary_to_float/1 needs one, inserted after the Len bytes
    exponent(Rest, Orig, Start, Len + 1, {no_fraction, Len}, Stack, Depth);
int_more(Rest, Orig, Start, Len, Stack, Depth) ->
    after_value(Rest, Orig, Start + Len, number(integer, Orig, Start, Len), Stack, Depth).

fraction(<<D, Rest/binary>>, Orig, Start, Len, Stack, Depth) when ?IS_DIGIT(D) ->
    fraction(Rest, Orig, Start, Len + 1, Stack, Depth);
fraction(<<E, Rest/binary>>, Orig, Start, Len, Stack, Depth) when E =:= $e; E =:= $E ->
    exponent(Rest, Orig, Start, Len + 1, float, Stack, Depth);
fraction(Rest, Orig, Start, Len, Stack, Depth) ->
    after_value(Rest, Orig, Start + Len, number(float, Orig, Start, Len), Stack, Depth).

exponent(<<S, D, Rest/binary>>, Orig, Start, Len, Kind, Stack, Depth)
  when (S =:= $+ orelse S =:= $-), ?IS_DIGIT(D) ->
    exponent_more(Rest, Orig, Start, Len + 2, Kind, Stack, Depth);
exponent(<<D, Rest/binary>>, Orig, Start, Len, Kind, Stack, Depth) when ?IS_DIGIT(D) ->
    exponent_more(Rest, Orig, Start, Len + 1, Kind, Stack, Depth);
exponent(_, _Orig, Start, _Len, _Kind, _Stack, _Depth) ->
    fail({invalid_number, Start}).

exponent_more(<<D, Rest/binary>>, Orig, Start, Len, Kind, Stack, Depth) when ?IS_DIGIT(D) ->
    exponent_more(Rest, Orig, Start, Len + 1, Kind, Stack, Depth);
exponent_more(Rest, Orig, Start, Len, Kind, Stack, Depth) ->
    after_value(Rest, Orig, Start + Len, number(Kind, Orig, Start, Len), Stack, Depth).

%% The number of Len bytes at Start.
number(_Kind, _Orig, Start, Len) when Len > ?MAX_NUMBER_LENGTH ->
    fail({number_too_long, Start});
number(Kind, Orig, Start, Len) ->
    convert(Kind, binary_part(Orig, Start, Len), Start).

convert(integer, Token, _Start) ->
    binary_to_integer(Token);
convert(float, Token, Start) ->
    to_float(Token, Start);
convert({no_fraction, IntLen}, Token, Start) ->
    <<Int:IntLen/binary, Exp/binary>> = Token,
    to_float(<<Int/binary, ".0", Exp/binary>>, Start).

to_float(Token, Start) ->
    try binary_to_float(Token)
    catch error:badarg -> fail({number_out_of_range, Start})
    end.

%%--------------------------------------------------------------------
%% Error text

error_text({unexpected_end, Pos}) ->
    {"unexpected end of input at byte ~b", [Pos]};
error_text({unexpected_byte, C, Pos}) when C >= 16#21, C < 16#7F ->
    {"unexpected character '~c' at byte ~b", [C, Pos]};
error_text({unexpected_byte, C, Pos}) ->
    {"unexpected byte 0x~2.16.0B at byte ~b", [C, Pos]};
error_text({trailing_data, Pos}) ->
    {"unexpected data after the value at byte ~b", [Pos]};
error_text({invalid_number, Pos}) ->
    {"malformed number at byte ~b", [Pos]};
error_text({number_too_long, Pos}) ->
    {"number at byte ~b is longer than ~b characters", [Pos, ?MAX_NUMBER_LENGTH]};
error_text({number_out_of_range, Pos}) ->
    {"number at byte ~b is too large for a float", [Pos]};
error_text({control_character, C, Pos}) ->
    {"unescaped control character 0x~2.16.0B in a string at byte ~b", [C, Pos]};
error_text({invalid_escape, Pos}) ->
    {"invalid escape sequence at byte ~b", [Pos]};
error_text({lone_surrogate, Pos}) ->
    {"\\u escape at byte ~b is half of a UTF-16 surrogate pair", [Pos]};
error_text({invalid_utf8, Pos}) ->
    {"invalid UTF-8 at byte ~b", [Pos]};
error_text({duplicate_key, Key, Pos}) ->
    {"duplicate key ~ts at byte ~b", [iolist_to_binary(encode(Key)), Pos]};
error_text({too_deep, Pos}) ->
    {"nesting deeper than ~b levels at byte ~b", [?MAX_DEPTH, Pos]}.
