%%% @doc eunit tests of `erlperf_units': the figures every output shares (counts, times,
%%% sizes and rates are also tested on the figures of real runs in `erlperf_report_tests',
%%% function names in `erlperf_profile_tests').
-module(erlperf_units_tests).

-include_lib("eunit/include/eunit.hrl").

%% A chart's count takes the table's unit (count/1), with the significant digits asked.
count_digits_test_() ->
    [?_assertEqual(Expected, erlperf_units:count(N, 4))
     || {N, Expected} <- [{0, "0"}, {1500, "1500"}, {25000, "25000"}, {99999, "99999"},
                          {0.25, "0.25"}, {999.99, "1000"}, {-3.5, "-3.5"},
                          {148500, "148.5 Ki"}, {1.5e6, "1500 Ki"}, {12345678.9, "12346 Ki"},
                          {2.0e9, "2000 Mi"}, {-250000, "-250 Ki"}]].

%% The unit is always the table's: the chart and the table of one figure agree.
count_unit_agrees_test_() ->
    Unit = fun (Text) -> lists:dropwhile(fun (C) -> C =/= $\s end, Text) end,
    [?_assertEqual(Unit(erlperf_units:count(N)), Unit(erlperf_units:count(N, 4)))
     || N <- [1, 99999, 100000, 148474.1, 13031365.4, 99999499, 160744366, 2.0e11]].

count_range_test() ->
    ?assertEqual("1671 Ki..4102 Ki", erlperf_units:count_range(1671234.5, 4101987)),
    ?assertEqual("489..506", erlperf_units:count_range(489.2, 506)).

significant_test_() ->
    [?_assertEqual(Expected, erlperf_units:significant(N, Digits))
     || {N, Digits, Expected} <- [{0, 2, "0"}, {0.0, 4, "0"}, {2.345, 2, "2.3"}, {12345, 2, "12345"},
                                  {0.0123, 2, "0.012"}, {0.5, 3, "0.5"}, {9.99, 2, "10"},
                                  {-0.25, 4, "-0.25"}]].

fixed_test_() ->
    [?_assertEqual(Expected, erlperf_units:fixed(N, Decimals))
     || {N, Decimals, Expected} <- [{12.5, 2, "12.50"}, {0.0012, 3, "0.001"}, {3, 1, "3.0"},
                                    {-0.04, 1, "0.0"}, {-0.0, 2, "0.00"}, {-1.25, 1, "-1.3"},
                                    {7.0, 0, "7"}]].

percent_and_change_test_() ->
    [?_assertEqual("12.5%", erlperf_units:percent(12.46)),
     ?_assertEqual("0.0%", erlperf_units:percent(-0.04)),
     ?_assertEqual("+12.5%", erlperf_units:change(12.46)),
     ?_assertEqual("-3.0%", erlperf_units:change(-3)),
     ?_assertEqual("0.0%", erlperf_units:change(0.04)),
     ?_assertEqual("0.0%", erlperf_units:change(-0.04)),
     ?_assertEqual("+0.1%", erlperf_units:change(0.06)),
     ?_assertEqual("47%", erlperf_units:share(0.468)),
     ?_assertEqual("0%", erlperf_units:share(0))].

p_value_test_() ->
    [?_assertEqual("0.216", erlperf_units:p_value(0.2157)),
     ?_assertEqual("0.010", erlperf_units:p_value(0.01)),
     ?_assertEqual("0.001", erlperf_units:p_value(0.001)),
     ?_assertEqual("< 0.001", erlperf_units:p_value(0.000999)),
     ?_assertEqual("< 0.001", erlperf_units:p_value(0.0))].

%% The record's own text: read back, the same number.
exact_test_() ->
    F = 567207.1594294325,
    [?_assertEqual("10", erlperf_units:exact(10)),
     ?_assertEqual("0.1", erlperf_units:exact(0.1)),
     ?_assertEqual("1.0e300", erlperf_units:exact(1.0e300)),
     ?_assertEqual(F, list_to_float(erlperf_units:exact(F)))].

setting_test_() ->
    [?_assertEqual(Expected, erlperf_units:setting(N))
     || {N, Expected} <- [{95, "95"}, {20.0, "20"}, {99.9, "99.9"}, {0.25, "0.25"}, {0.001, "0.001"}]].

%% Microseconds as a record holds them: scaled as nanoseconds are; no figure is `-'.
us_test_() ->
    [?_assertEqual(Expected, erlperf_units:us(Us))
     || {Us, Expected} <- [{0.0032, "3.2 ns"}, {1.5, "1500 ns"}, {2161, "2161 us"}, {149000, "149 ms"},
                           {200.0e6, "200 s"}, {null, "-"}, {undefined, "-"}]].

duration_test_() ->
    [?_assertEqual("5 s", erlperf_units:duration(5000)),
     ?_assertEqual("1500 ms", erlperf_units:duration(1500)),
     ?_assertEqual("200 ms", erlperf_units:duration(200))].

%% Trace patterns are written as function names, the wildcard as `_'.
function_name_pattern_test_() ->
    [?_assertEqual("lists:seq/_", erlperf_units:function_name({lists, seq, '_'})),
     ?_assertEqual("lists:_/_", erlperf_units:function_name({lists, '_', '_'})),
     ?_assertEqual("_:seq/2", erlperf_units:function_name({'_', seq, 2})),
     ?_assertEqual("'Elixir.Enum':map/_", erlperf_units:function_name({'Elixir.Enum', map, '_'})),
     ?_assertEqual("sut_named", erlperf_units:function_name(sut_named))].

value_test_() ->
    [?_assertEqual("foo", erlperf_units:value(foo)),
     ?_assertEqual("\"abc\"", erlperf_units:value("abc")),
     ?_assertEqual("{a,<<\"b\">>}", erlperf_units:value({a, <<"b">>})),
     ?_assertEqual("'Elixir.Enum'", erlperf_units:value('Elixir.Enum'))].
