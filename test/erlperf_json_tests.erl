%%% @doc Tests of `erlperf_json': RFC 8259 examples, escapes, Unicode, numbers, the
%%% pretty layout, one case per class of malformed input (with its offset), hostile
%%% input, and PropEr properties (round trip; no crash on corrupted documents). On OTP 27
%%% and later, also compares the results with OTP's `json' module.
%%%
%%% PropEr is Debian's `erlang-proper', called directly (see erlperf_stat_prop_tests):
%%% when it is missing the property test FAILS, saying what to install.
-module(erlperf_json_tests).

-include_lib("eunit/include/eunit.hrl").

%% Runs per property.
-define(NUMTESTS, 300).
%% Seconds allowed for each property.
-define(PROP_TIMEOUT_S, 360).
%% Seconds allowed for the linear-work check (decodes about 11 MB).
-define(LINEAR_TIMEOUT_S, 120).
%% Elements of the small and the large array in the linear-work check.
-define(SMALL, 100000).
-define(LARGE, 1000000).
%% Largest accepted reductions ratio for 10x the elements: linear is 10, quadratic 100.
%% The garbage collections charged to the decoder vary from run to run (ratios of 17.6
%% and above 20 were seen for the same code, with other tests running beside it).
-define(MAX_RATIO, 40).
%% Process dictionary key holding the counter of the property being built.

%%--------------------------------------------------------------------
%% Helpers

enc(Term) -> iolist_to_binary(erlperf_json:encode(Term)).
enc(Term, Options) -> iolist_to_binary(erlperf_json:encode(Term, Options)).
dec(Json) -> {ok, Term} = erlperf_json:decode(Json), Term.
err(Json) -> {error, {json, Detail}} = erlperf_json:decode(Json), Detail.

%% Strict equality: also tells 0.0 from -0.0 (=:= does not on OTP 25 and 26).
same(A, B) when is_float(A), is_float(B) -> <<A/float>> =:= <<B/float>>;
same(A, B) when is_list(A), is_list(B), length(A) =:= length(B) ->
    lists:all(fun ({X, Y}) -> same(X, Y) end, lists:zip(A, B));
same(A, B) when is_map(A), is_map(B) ->
    maps:keys(A) =:= maps:keys(B) andalso
        lists:all(fun (K) -> same(maps:get(K, A), maps:get(K, B)) end, maps:keys(A));
same(A, B) -> A =:= B.

%%--------------------------------------------------------------------
%% Documentation and RFC 8259

doc_example_test() ->
    %% the example of the module documentation, verbatim
    Json = erlperf_json:encode(#{name => <<"rand">>, qps => 1200, p99 => 1.5, ok => true}),
    <<"{\"name\":\"rand\",\"ok\":true,\"p99\":1.5,\"qps\":1200}">> = iolist_to_binary(Json),
    {ok, #{<<"qps">> := 1200, <<"ok">> := true}} = erlperf_json:decode(Json),
    {error, {json, {unexpected_end, 5}}} = erlperf_json:decode(<<"[1, 2">>).

-define(RFC_IMAGE, <<"{
      \"Image\": {
          \"Width\":  800,
          \"Height\": 600,
          \"Title\":  \"View from 15th Floor\",
          \"Thumbnail\": {
              \"Url\":    \"http://www.example.com/image/481989943\",
              \"Height\": 125,
              \"Width\":  100
          },
          \"Animated\" : false,
          \"IDs\": [116, 943, 234, 38793]
        }
    }">>).

-define(RFC_PLACES, <<"[
      {
         \"precision\": \"zip\",
         \"Latitude\":  37.7668,
         \"Longitude\": -122.3959,
         \"Address\":   \"\",
         \"City\":      \"SAN FRANCISCO\",
         \"State\":     \"CA\",
         \"Zip\":       \"94107\",
         \"Country\":   \"US\"
      },
      {
         \"precision\": \"zip\",
         \"Latitude\":  37.371991,
         \"Longitude\": -122.026020,
         \"Address\":   \"\",
         \"City\":      \"SUNNYVALE\",
         \"State\":     \"CA\",
         \"Zip\":       \"94085\",
         \"Country\":   \"US\"
      }
    ]">>).

rfc8259_examples_test() ->
    Image = #{<<"Image">> => #{
        <<"Width">> => 800, <<"Height">> => 600, <<"Title">> => <<"View from 15th Floor">>,
        <<"Thumbnail">> => #{<<"Url">> => <<"http://www.example.com/image/481989943">>,
                             <<"Height">> => 125, <<"Width">> => 100},
        <<"Animated">> => false, <<"IDs">> => [116, 943, 234, 38793]}},
    ?assertEqual(Image, dec(?RFC_IMAGE)),
    [First, Second] = dec(?RFC_PLACES),
    ?assertMatch(#{<<"precision">> := <<"zip">>, <<"Latitude">> := 37.7668,
                   <<"Longitude">> := -122.3959, <<"Address">> := <<>>,
                   <<"City">> := <<"SAN FRANCISCO">>, <<"Zip">> := <<"94107">>}, First),
    ?assertMatch(#{<<"Latitude">> := 37.371991, <<"Longitude">> := -122.02602,
                   <<"City">> := <<"SUNNYVALE">>, <<"Country">> := <<"US">>}, Second),
    %% section 13: scalar texts; section 7: the G clef as a surrogate pair
    ?assertEqual(<<"Hello world!">>, dec(<<"\"Hello world!\"">>)),
    ?assertEqual(42, dec(<<"42">>)),
    ?assertEqual(true, dec(<<"true">>)),
    ?assertEqual(<<16#1D11E/utf8>>, dec(<<"\"\\uD834\\uDD1E\"">>)),
    %% what is decoded encodes back to the same terms
    [?assert(same(T, dec(enc(T)))) || T <- [Image, [First, Second]]].

%%--------------------------------------------------------------------
%% Encoding

encode_mapping_test_() ->
    [?_assertEqual(<<"[true,false,null]">>, enc([true, false, null])),
     ?_assertEqual(<<"[\"undefined\",\"ok\"]">>, enc([undefined, ok])),
     ?_assertEqual(<<"[]">>, enc([])),
     ?_assertEqual(<<"{}">>, enc(#{})),
     ?_assertEqual(<<"\"\"">>, enc(<<>>)),
     %% charlists are arrays of integers, not strings
     ?_assertEqual(<<"[97,98,99]">>, enc("abc")),
     ?_assertEqual(<<"[-1,0,123456789012345678901234567890]">>,
                   enc([-1, 0, 123456789012345678901234567890])),
     %% atom, binary and string keys; sorted by code point, whatever their type
     ?_assertEqual(<<"{\"\\n\":4,\"a\":1,\"b\":2,\"c\":3,\"é\":5}"/utf8>>,
                   enc(#{c => 3, <<"b">> => 2, "a" => 1, "\n" => 4, <<"é"/utf8>> => 5})),
     ?_assertEqual(<<"{\"日本\":true}"/utf8>>, enc(#{[26085, 26412] => true})),
     ?_assertEqual(<<"{\"true\":null}">>, enc(#{true => null}))].

encode_errors_test_() ->
    Pid = self(),
    [?_assertError({invalid_json, {1, 2}}, enc({1, 2})),
     ?_assertError({invalid_json, {a}}, enc(#{a => [1, {a}]})),
     ?_assertError({invalid_json, Pid}, enc([Pid])),
     ?_assertError({invalid_json, <<255>>}, enc(<<255>>)),
     ?_assertError({invalid_json, <<"a", 16#C3>>}, enc([<<"a", 16#C3>>])),
     ?_assertError({invalid_json, <<16#ED, 16#A0, 16#80>>}, enc(<<16#ED, 16#A0, 16#80>>)),
     ?_assertError({invalid_json, <<1:3>>}, enc(<<1:3>>)),
     ?_assertError({invalid_json, [1 | 2]}, enc([1 | 2])),
     ?_assertError({invalid_json, 1}, enc(#{1 => a})),
     ?_assertError({invalid_json, <<255>>}, enc(#{<<255>> => a})),
     ?_assertError({invalid_json, [16#D800]}, enc(#{[16#D800] => a})),
     ?_assertError({invalid_json, [a]}, enc(#{[a] => 1})),
     %% two keys with the same text
     ?_assertError({invalid_json, #{a := 1, <<"a">> := 2}}, enc(#{a => 1, <<"a">> => 2})),
     ?_assertError({invalid_option, indent, 2}, enc(1, #{indent => 2})),
     ?_assertError({invalid_option, pretty, yes}, enc(1, #{pretty => yes}))].

escape_test_() ->
    Controls = [{C, iolist_to_binary(io_lib:format("\"\\u~4.16.0b\"", [C]))}
                || C <- lists:seq(0, 31) -- [$\b, $\t, $\n, $\f, $\r]],
    Short = [{$\b, <<"\"\\b\"">>}, {$\t, <<"\"\\t\"">>}, {$\n, <<"\"\\n\"">>},
             {$\f, <<"\"\\f\"">>}, {$\r, <<"\"\\r\"">>},
             {$", <<"\"\\\"\"">>}, {$\\, <<"\"\\\\\"">>}],
    %% not escaped: slash, DEL, HTML characters unless asked
    Plain = [{C, <<$", C, $">>} || C <- [$/, 16#7F, $<, $>, $&, $']],
    [?_assertEqual(Expected, enc(<<C>>)) || {C, Expected} <- Controls ++ Short ++ Plain] ++
    [?_assertEqual(<<"\"a\\u001fb\\\"c\\\\d\"">>, enc(<<"a", 31, "b\"c\\d">>)),
     ?_assertEqual(<<"{\"\\t\":\"\\u0000\"}">>, enc(#{<<"\t">> => <<0>>}))].

html_safe_test_() ->
    Text = <<"</script><!-- a&b ", 16#2028/utf8, 16#2029/utf8, " é"/utf8>>,
    Safe = <<"\"\\u003c/script\\u003e\\u003c!-- a\\u0026b \\u2028\\u2029 é\""/utf8>>,
    [?_assertEqual(Safe, enc(Text, #{html_safe => true})),
     ?_assertEqual(<<"{\"\\u003ck\\u003e\":[\"\\u0026\"]}">>,
                   enc(#{<<"<k>">> => [<<"&">>]}, #{html_safe => true})),
     ?_assertEqual(<<$", Text/binary, $">>, enc(Text)),
     ?_assertEqual(Text, dec(enc(Text, #{html_safe => true})))].

unicode_test_() ->
    Cases = [{<<"é"/utf8>>, <<"\\u00e9">>}, {<<"日本"/utf8>>, <<"\\u65e5\\u672c">>},
             {<<16#1F600/utf8>>, <<"\\ud83d\\ude00">>}, {<<16#1F600/utf8>>, <<"\\uD83D\\uDE00">>},
             {<<16#10FFFF/utf8>>, <<"\\udbff\\udfff">>}, {<<16#FFFF/utf8>>, <<"\\uffff">>},
             {<<0>>, <<"\\u0000">>}],
    %% written as UTF-8; read from UTF-8 and from \u escapes
    [?_assertEqual(<<$", Bin/binary, $">>, enc(Bin)) || {Bin, _} <- Cases, Bin =/= <<0>>] ++
    [?_assertEqual(Bin, dec(<<$", Bin/binary, $">>)) || {Bin, _} <- Cases, Bin =/= <<0>>] ++
    [?_assertEqual(Bin, dec(<<$", Escaped/binary, $">>)) || {Bin, Escaped} <- Cases] ++
    [?_assertEqual(<<"aé日😀z"/utf8>>, dec(<<"\"a\\u00e9\\u65e5\\ud83d\\ude00z\""/utf8>>))].

decode_escapes_test() ->
    ?assertEqual(<<"\"\\/\b\f\n\r\t">>, dec(<<"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"">>)),
    ?assertEqual(<<"ab\ncd\tef">>, dec(<<"\"ab\\ncd\\tef\"">>)),
    ?assertEqual(#{<<"\n">> => <<"é"/utf8>>}, dec(<<"{\"\\n\":\"\\u00E9\"}">>)).

pretty_test() ->
    Term = #{name => <<"rand">>, runs => [1, 2], stats => #{mean => 1.5, p99 => 2},
             empty => #{}, none => []},
    Expected = <<"{\n"
                 "  \"empty\": {},\n"
                 "  \"name\": \"rand\",\n"
                 "  \"none\": [],\n"
                 "  \"runs\": [\n"
                 "    1,\n"
                 "    2\n"
                 "  ],\n"
                 "  \"stats\": {\n"
                 "    \"mean\": 1.5,\n"
                 "    \"p99\": 2\n"
                 "  }\n"
                 "}">>,
    ?assertEqual(Expected, enc(Term, #{pretty => true})),
    ?assertEqual(<<"[\n  [\n    {\n      \"a\": []\n    }\n  ]\n]">>,
                 enc([[#{a => []}]], #{pretty => true})),
    ?assertEqual(<<"1">>, enc(1, #{pretty => true})),
    ?assertEqual(enc(Term), enc(Term, #{pretty => false, html_safe => false})),
    ?assert(same(dec(enc(Term)), dec(Expected))).

%%--------------------------------------------------------------------
%% Numbers

decode_numbers_test_() ->
    Cases = [{<<"0">>, 0}, {<<"-0">>, 0}, {<<"7">>, 7}, {<<"-12">>, -12},
             {<<"1e3">>, 1.0e3}, {<<"1E3">>, 1.0e3}, {<<"1e+3">>, 1.0e3}, {<<"2e-2">>, 0.02},
             {<<"1.5E-7">>, 1.5e-7}, {<<"0.5">>, 0.5}, {<<"-0.5e1">>, -5.0},
             {<<"0e0">>, 0.0}, {<<"1.0">>, 1.0}, {<<"1E0001">>, 10.0},
             {<<"1e-400">>, 0.0}, {<<"1.7976931348623157e308">>, 1.7976931348623157e308},
             {<<"5e-324">>, 5.0e-324},
             {<<"123456789012345678901234567890">>, 123456789012345678901234567890},
             {<<"-98765432109876543210">>, -98765432109876543210}],
    [?_assert(same(Expected, dec(Json))) || {Json, Expected} <- Cases] ++
    [?_assert(is_integer(dec(<<"-0">>))),
     ?_assert(same(-0.0, dec(<<"-0.0">>))),
     ?_assert(same(-0.0, dec(<<"-0e5">>))),
     ?_assertNot(same(0.0, dec(<<"-0.0">>)))].

float_round_trip_test_() ->
    Cases = [{0.1, <<"0.1">>}, {1 / 3, <<"0.3333333333333333">>}, {1.0e300, <<"1.0e300">>},
             {-0.0, <<"-0.0">>}, {0.0, <<"0.0">>}, {1.0, <<"1.0">>}, {100.0, <<"100.0">>},
             {1.5e-7, <<"1.5e-7">>}, {5.0e-324, <<"5.0e-324">>},
             {1.7976931348623157e308, <<"1.7976931348623157e308">>},
             {2.2250738585072014e-308, <<"2.2250738585072014e-308">>},
             {-123.456, <<"-123.456">>}],
    [?_assertEqual(Text, enc(F)) || {F, Text} <- Cases] ++
    [?_assert(same(F, dec(enc(F)))) || {F, _} <- Cases] ++
    [?_assert(same(Big, dec(enc(Big)))) || Big <- [1 bsl 200, -(1 bsl 200) + 1]].

%%--------------------------------------------------------------------
%% Malformed input: one case per error class, with its offset

decode_errors_test_() ->
    Cases = [
        %% unexpected end
        {<<>>, {unexpected_end, 0}},
        {<<"  \n">>, {unexpected_end, 3}},
        {<<"[1, 2">>, {unexpected_end, 5}},
        {<<"[1,">>, {unexpected_end, 3}},
        {<<"{\"a\":">>, {unexpected_end, 5}},
        {<<"{\"a\"">>, {unexpected_end, 4}},
        {<<"{">>, {unexpected_end, 1}},
        {<<"\"abc">>, {unexpected_end, 4}},
        {<<"\"abc\\">>, {unexpected_end, 5}},
        {<<"\"\\u12">>, {unexpected_end, 5}},
        {<<"\"\\ud83d\\ude">>, {unexpected_end, 11}},
        {<<"tru">>, {unexpected_end, 3}},
        %% syntax
        {<<"[1,]">>, {unexpected_byte, $], 3}},
        {<<"[,1]">>, {unexpected_byte, $,, 1}},
        {<<"{\"a\":1,}">>, {unexpected_byte, $}, 7}},
        {<<"{,}">>, {unexpected_byte, $,, 1}},
        {<<"{a:1}">>, {unexpected_byte, $a, 1}},
        {<<"{\"a\" 1}">>, {unexpected_byte, $1, 5}},
        {<<"{\"a\":1 \"b\":2}">>, {unexpected_byte, $", 7}},
        {<<"{1:2}">>, {unexpected_byte, $1, 1}},
        {<<"[1 2]">>, {unexpected_byte, $2, 3}},
        {<<"[1}">>, {unexpected_byte, $}, 2}},
        {<<"nulx">>, {unexpected_byte, $x, 3}},
        {<<"True">>, {unexpected_byte, $T, 0}},
        {<<"'a'">>, {unexpected_byte, $', 0}},
        {<<"NaN">>, {unexpected_byte, $N, 0}},
        {<<"[Infinity]">>, {unexpected_byte, $I, 1}},
        {<<"+1">>, {unexpected_byte, $+, 0}},
        {<<".5">>, {unexpected_byte, $., 0}},
        {<<"[1,\v2]">>, {unexpected_byte, $\v, 3}},
        {<<"/* c */ 1">>, {unexpected_byte, $/, 0}},
        %% trailing data
        {<<"1 2">>, {trailing_data, 2}},
        {<<"{} x">>, {trailing_data, 3}},
        {<<"[]]">>, {trailing_data, 2}},
        {<<"\"a\"\"b\"">>, {trailing_data, 3}},
        {<<"truex">>, {trailing_data, 4}},
        {<<"1x">>, {trailing_data, 1}},
        {<<"0x10">>, {trailing_data, 1}},
        %% numbers: leading zeros, missing digits
        {<<"01">>, {invalid_number, 0}},
        {<<"00">>, {invalid_number, 0}},
        {<<"[-012]">>, {invalid_number, 1}},
        {<<"1.">>, {invalid_number, 0}},
        {<<"[1.e3]">>, {invalid_number, 1}},
        {<<"1e">>, {invalid_number, 0}},
        {<<"1e+">>, {invalid_number, 0}},
        {<<"[0, 1E-]">>, {invalid_number, 4}},
        {<<"-">>, {invalid_number, 0}},
        {<<"-a">>, {invalid_number, 0}},
        {<<"- 1">>, {invalid_number, 0}},
        {<<"1e400">>, {number_out_of_range, 0}},
        {<<"[-1.5e309]">>, {number_out_of_range, 1}},
        %% strings
        {<<"\"a\tb\"">>, {control_character, $\t, 2}},
        {<<"[\"", 0, "\"]">>, {control_character, 0, 2}},
        {<<"\"\n\"">>, {control_character, $\n, 1}},
        {<<"\"", 31, "\"">>, {control_character, 31, 1}},
        {<<"\"\\x\"">>, {invalid_escape, 1}},
        {<<"\"ab\\U0041\"">>, {invalid_escape, 3}},
        {<<"\"\\'\"">>, {invalid_escape, 1}},
        {<<"\"\\u12g4\"">>, {invalid_escape, 1}},
        {<<"\"\\u1\"">>, {invalid_escape, 1}},
        {<<"\"\\ud800\\u12x4\"">>, {invalid_escape, 7}},
        {<<"\"\\ud800\"">>, {lone_surrogate, 1}},
        {<<"\"\\udc00\"">>, {lone_surrogate, 1}},
        {<<"\"\\uDFFF\"">>, {lone_surrogate, 1}},
        {<<"\"x\\ud800\\u0041\"">>, {lone_surrogate, 2}},
        {<<"\"\\ud800\\ud800\"">>, {lone_surrogate, 1}},
        {<<"\"\\ud800\\n\"">>, {lone_surrogate, 1}},
        {<<"\"\\ud800x\"">>, {lone_surrogate, 1}},
        %% objects
        {<<"{\"a\":1,\"b\":2,\"a\":3}">>, {duplicate_key, <<"a">>, 13}},
        {<<"{\"a\":1,\"\\u0061\":2}">>, {duplicate_key, <<"a">>, 7}},
        {<<"[{}, {\"\":1, \"\":2}]">>, {duplicate_key, <<>>, 12}}],
    [{binary_to_list(Json), ?_assertEqual(Detail, err(Json))} || {Json, Detail} <- Cases].

%% Bytes that are not UTF-8, inside and outside strings.
invalid_utf8_test_() ->
    Bad = [<<16#80>>,                       % continuation byte alone
           <<16#C3>>,                       % truncated 2-byte sequence
           <<16#E6, 16#97>>,                % truncated 3-byte sequence
           <<16#C0, 16#80>>,                % overlong NUL
           <<16#E0, 16#80, 16#AF>>,         % overlong '/'
           <<16#ED, 16#A0, 16#80>>,         % UTF-8 encoded surrogate U+D800
           <<16#F4, 16#90, 16#80, 16#80>>,  % above U+10FFFF
           <<16#F8, 16#88, 16#80, 16#80, 16#80>>,
           <<16#FE>>, <<16#FF>>],
    [?_assertEqual({invalid_utf8, 4}, err(<<"[\"ok", B/binary, "\"]">>)) || B <- Bad] ++
    [?_assertEqual({invalid_utf8, 3}, err(<<"{\"k", B/binary, "\":1}">>)) || B <- Bad] ++
    [?_assertEqual({unexpected_byte, binary:first(B), 1}, err(<<"[", B/binary, "]">>))
     || B <- Bad] ++
    %% a lone BOM is skipped (RFC 8259 8.1), offsets still count it; two are not
    [?_assertEqual([1], dec(<<16#EF, 16#BB, 16#BF, "[1]">>)),
     ?_assertEqual({unexpected_end, 3}, err(<<16#EF, 16#BB, 16#BF>>)),
     ?_assertEqual({unexpected_byte, 16#EF, 3}, err(<<16#EF, 16#BB, 16#BF, 16#EF, 16#BB, 16#BF, "1">>)),
     ?_assertEqual({unexpected_byte, 16#EF, 1}, err(<<" ", 16#EF, 16#BB, 16#BF, "1">>))].

format_error_test_() ->
    Details = [{unexpected_end, 5}, {unexpected_byte, $x, 7}, {unexpected_byte, 16#FF, 7},
               {unexpected_byte, $\n, 7}, {trailing_data, 9}, {invalid_number, 3},
               {number_too_long, 2}, {number_out_of_range, 4}, {control_character, 10, 6},
               {invalid_escape, 8}, {lone_surrogate, 1}, {invalid_utf8, 12},
               {duplicate_key, <<"a\nb"/utf8>>, 3}, {duplicate_key, <<"日本"/utf8>>, 3},
               {too_deep, 512}],
    [?_test(begin
         Text = erlperf_json:format_error({json, D}),
         ?assert(io_lib:char_list(Text)),
         ?assertEqual(nomatch, string:find(Text, "\n")),
         ?assertMatch("invalid JSON: " ++ _, Text),
         Offset = integer_to_list(element(tuple_size(D), D)),
         ?assertMatch({match, _}, re:run(Text, "at byte " ++ Offset ++ "\\b", [unicode]))
     end) || D <- Details] ++
    [?_assertEqual("invalid JSON: unexpected character 'x' at byte 7",
                   erlperf_json:format_error({json, {unexpected_byte, $x, 7}})),
     ?_assertEqual("invalid JSON: unexpected byte 0xFF at byte 7",
                   erlperf_json:format_error({json, {unexpected_byte, 255, 7}})),
     ?_assertEqual("invalid JSON: duplicate key \"a\\nb\" at byte 3",
                   erlperf_json:format_error({json, {duplicate_key, <<"a\nb">>, 3}})),
     ?_assertEqual("invalid JSON: nesting deeper than 512 levels at byte 512",
                   erlperf_json:format_error({json, {too_deep, 512}}))].

%%--------------------------------------------------------------------
%% Hostile input

deep_nesting_test_() ->
    N = 100000,
    Open = binary:copy(<<"[">>, N),
    Closed = <<Open/binary, (binary:copy(<<"]">>, N))/binary>>,
    Objects = binary:copy(<<"{\"a\":">>, N),
    Mixed = binary:copy(<<"[{\"k\":">>, N),
    Nested = fun (Depth) -> <<(binary:copy(<<"[">>, Depth))/binary,
                              (binary:copy(<<"]">>, Depth))/binary>> end,
    [?_assertEqual({too_deep, 512}, err(Open)),
     ?_assertEqual({too_deep, 512}, err(Closed)),
     ?_assertEqual({too_deep, 512 * 5}, err(Objects)),
     ?_assertEqual({too_deep, 256 * 6}, err(Mixed)),
     %% the limit itself: 512 levels are read, 513 are not
     ?_assertEqual(511, depth(dec(Nested(512)))),
     ?_assertEqual({too_deep, 512}, err(Nested(513)))].

depth([]) -> 0;
depth([Inner]) -> 1 + depth(Inner).

long_number_test_() ->
    Digits = fun (N) -> binary:copy(<<"7">>, N) end,
    Huge = <<"[", (Digits(10000000))/binary, "]">>,
    [?_assertEqual(binary_to_integer(Digits(4096)), dec(Digits(4096))),
     ?_assertEqual({number_too_long, 0}, err(Digits(4097))),
     ?_assertEqual({number_too_long, 1}, err(<<"[-1.", (Digits(5000))/binary, "]">>)),
     %% 10 MB of digits: rejected after one linear scan, not converted
     {timeout, 30, ?_assertEqual({number_too_long, 1}, err(Huge))}].

%% Decoding work grows linearly: 10 times the elements cost well under 40 times as
%% many reductions (quadratic would be 100). The large document is about 10 MB.
%%
%% Reductions count the decoder's work and the garbage collection charged to it, and
%% do not depend on the load of the machine. Wall-clock time is printed, not asserted:
%% on a shared 2-core machine the same linear code measured time ratios from 15 to 55
%% between these sizes (page faults on fresh heap memory; heaps above about a million
%% words grow in 20% steps, each a full copy of the growing result), and 2 from 1e6
%% to 2e6 elements, as linear code should.
linear_work_test_() ->
    {timeout, ?LINEAR_TIMEOUT_S, fun () ->
        Small = document(?SMALL),
        Large = document(?LARGE),
        ?assert(byte_size(Large) > 9000000),
        {?SMALL, RSmall, TSmall} = measure(Small),
        {?LARGE, RLarge, TLarge} = measure(Large),
        ?debugFmt("decode ~b elements: ~b reductions, ~b ms; ~b elements (~b MB): "
                  "~b reductions, ~b ms; reductions ratio ~.1f",
                  [?SMALL, RSmall, TSmall div 1000, ?LARGE, byte_size(Large) div 1000000,
                   RLarge, TLarge div 1000, RLarge / RSmall]),
        ?assert(RLarge / RSmall < ?MAX_RATIO)
    end}.

%% {Elements decoded, reductions, microseconds}, in a new process with default settings.
measure(Json) ->
    {Pid, Ref} = spawn_opt(fun () ->
        {reductions, Before} = process_info(self(), reductions),
        {Time, {ok, List}} = timer:tc(erlperf_json, decode, [Json]),
        {reductions, After} = process_info(self(), reductions),
        exit({measured, length(List), After - Before, Time})
    end, [monitor]),
    receive {'DOWN', Ref, process, Pid, {measured, Length, Reds, Time}} -> {Length, Reds, Time} end.

%% An array of N elements mixing the value kinds, about 10 bytes each.
document(N) ->
    Kinds = {<<"1234567">>, <<"\"abcd\\u00e9fg\"">>, <<"-1.5e-3">>, <<"{\"k\":null}">>,
             <<"[true,false]">>, <<"\"日本\""/utf8>>},
    Elements = [element(I rem tuple_size(Kinds) + 1, Kinds) || I <- lists:seq(1, N)],
    iolist_to_binary([$[, lists:join($,, Elements), $]]).

iodata_input_test() ->
    ?assertEqual([1, 2, <<"é"/utf8>>], dec(["[1,", [<<"2,">>, "\"", <<"é"/utf8>>], $", "]"])).

%%--------------------------------------------------------------------
%% OTP 27 and later: the json module of OTP agrees on what both accept.

-if(?OTP_RELEASE >= 27).
otp_json_agrees_test_() ->
    Terms = [#{<<"a">> => [1, -0.0, 0.1, 1.0e300, <<"é😀"/utf8>>, null, true, false]},
             [#{}, [], <<>>, 123456789012345678901234567890, -5, <<"\n\"\\\t", 0>>]],
    Docs = [?RFC_IMAGE, ?RFC_PLACES, <<"[1e3, -0, 0.5E-2, \"\\ud83d\\ude00\\u00e9\\/\"]">>]
        ++ [enc(T, Opts) || T <- Terms, Opts <- [#{}, #{pretty => true}, #{html_safe => true}]],
    [?_assert(same(json:decode(Doc), dec(Doc))) || Doc <- Docs] ++
    [?_assert(same(T, dec(json:encode(T)))) || T <- Terms].
-endif.

%%--------------------------------------------------------------------
%% Properties (PropEr, called directly)

proper_test_() ->
    erlperf_test_lib:with_proper(
      fun () ->
              [{atom_to_list(Name),
                {timeout, ?PROP_TIMEOUT_S, ?_assertEqual({Name, ?NUMTESTS}, check(Name, Prop))}}
               || {Name, Prop} <- properties()]
      end).

properties() ->
    [{round_trip, fun prop_round_trip/0},
     {round_trip_pretty_html, fun prop_round_trip_pretty_html/0},
     {pretty_is_compact_plus_whitespace, fun prop_pretty_is_compact_plus_whitespace/0},
     {corrupted_never_crashes, fun prop_corrupted_never_crashes/0},
     {truncated_is_an_error, fun prop_truncated_is_an_error/0}].

check(Name, Build) ->
    erlperf_test_lib:prop_check(Name, Build, ?NUMTESTS).

forall(Type, Fun) ->
    erlperf_test_lib:prop_forall(Type, Fun).

prop_round_trip() ->
    forall(json_term(), fun (T) -> same(T, dec(erlperf_json:encode(T))) end).

prop_round_trip_pretty_html() ->
    forall(json_term(), fun (T) ->
        same(T, dec(erlperf_json:encode(T, #{pretty => true, html_safe => true})))
    end).

%% Pretty output differs from compact output only by whitespace outside strings.
prop_pretty_is_compact_plus_whitespace() ->
    forall(json_term(), fun (T) ->
        strip(enc(T, #{pretty => true}), false, <<>>) =:= enc(T)
    end).

strip(<<$", Rest/binary>>, InString, Acc) -> strip(Rest, not InString, <<Acc/binary, $">>);
strip(<<$\\, C, Rest/binary>>, true, Acc) -> strip(Rest, true, <<Acc/binary, $\\, C>>);
strip(<<C, Rest/binary>>, false, Acc) when C =:= $\s; C =:= $\n -> strip(Rest, false, Acc);
strip(<<C, Rest/binary>>, InString, Acc) -> strip(Rest, InString, <<Acc/binary, C>>);
strip(<<>>, _, Acc) -> Acc.

%% Any byte replaced anywhere: a value or an error with an offset inside the input.
prop_corrupted_never_crashes() ->
    Corrupted = proper_types:bind({json_term(), proper_types:boolean()},
        fun ({T, Pretty}) ->
            Json = enc(T, #{pretty => Pretty}),
            proper_types:bind({proper_types:integer(0, byte_size(Json) - 1),
                               proper_types:integer(0, 255)},
                fun ({Pos, Byte}) ->
                    <<Before:Pos/binary, _, After/binary>> = Json,
                    <<Before/binary, Byte, After/binary>>
                end, false)
        end, false),
    forall(Corrupted, fun (Json) ->
        case erlperf_json:decode(Json) of
            {ok, _} -> true;
            {error, {json, Detail}} = Error ->
                Offset = element(tuple_size(Detail), Detail),
                Offset =< byte_size(Json) andalso
                    io_lib:char_list(erlperf_json:format_error(element(2, Error)))
        end
    end).

%% Every proper prefix of an array or object is an error, never a crash.
prop_truncated_is_an_error() ->
    Truncated = proper_types:bind(proper_types:non_empty(proper_types:list(json_term())),
        fun (List) ->
            Json = enc(List),
            proper_types:bind(proper_types:integer(0, byte_size(Json) - 1),
                fun (Len) -> binary_part(Json, 0, Len) end, false)
        end, false),
    forall(Truncated, fun (Json) ->
        case erlperf_json:decode(Json) of
            {error, {json, {unexpected_end, Offset}}} -> Offset =:= byte_size(Json);
            {error, {json, _}} -> true
        end
    end).

%%--------------------------------------------------------------------
%% Generators: terms that decode(encode(T)) must give back.

json_term() ->
    proper_types:sized(fun json_term/1).

%% Containers hold at most Size div 2 items of size Size div 4: at PropEr's largest
%% size (42) a term has a few hundred leaves at most.
json_term(Size) when Size < 4 ->
    leaf();
json_term(Size) ->
    Inner = proper_types:lazy(fun () -> json_term(Size div 4) end),
    Items = fun (Item) -> proper_types:resize(Size div 2, proper_types:list(Item)) end,
    proper_types:frequency([
        {4, leaf()},
        {1, Items(Inner)},
        {1, proper_types:bind(Items({json_string(), Inner}), fun maps:from_list/1, false)}]).

leaf() ->
    proper_types:oneof([
        proper_types:integer(),
        proper_types:bind(proper_types:integer(), fun (I) -> I * (1 bsl 70) + 1 end, false),
        json_float(),
        proper_types:boolean(),
        proper_types:exactly(null),
        json_string()]).

%% Any finite float: random bit patterns (NaN and infinities cannot be built) and
%% the usual suspects.
json_float() ->
    proper_types:frequency([
        {3, proper_types:bind(proper_types:integer(0, (1 bsl 64) - 1), fun bits_to_float/1, false)},
        {1, proper_types:float()},
        {1, proper_types:oneof([proper_types:exactly(F) || F <- [0.0, -0.0, 0.1, 1 / 3, 1.0e300,
                                                                5.0e-324, 1.7976931348623157e308]])}]).

bits_to_float(Bits) ->
    case <<Bits:64>> of
        <<F/float>> -> F;
        _NanOrInfinity -> 1.5
    end.

%% Up to 20 code points, whatever the size of the enclosing term.
json_string() ->
    proper_types:bind(proper_types:resize(20, proper_types:list(code_point())),
                      fun unicode:characters_to_binary/1, false).

%% Every plane, controls and the characters that need escapes; no surrogates.
code_point() ->
    proper_types:frequency([
        {6, proper_types:integer(32, 126)},
        {1, proper_types:integer(0, 31)},
        {1, proper_types:oneof([proper_types:exactly(C) || C <- [$", $\\, $/, $<, $>, $&, 16#7F,
                                                                 16#2028, 16#2029, 16#FEFF]])},
        {1, proper_types:integer(16#80, 16#7FF)},
        {1, proper_types:integer(16#800, 16#D7FF)},
        {1, proper_types:integer(16#E000, 16#FFFF)},
        {1, proper_types:integer(16#10000, 16#10FFFF)}]).
