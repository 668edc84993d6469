%%% @doc How figures and terms are written for people: counts, times, sizes and rates
%%% with their units, percentages and changes, p values, settings, parameter values and
%%% function names. Every output (text tables, Markdown, CSV, HTML and its charts, the VM
%%% logs, progress lines, verdicts, error text) writes them with these functions, so that
%%% one figure reads the same everywhere. Pure: no I/O, no state; a leaf module every
%%% layer may call.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>count</b>: at most five digits before a unit: `Ki', `Mi', `Gi', `Ti'
%%%       (powers of 1000). A chart's ticks and bars take the same units with a number
%%%       of significant digits (`count/2'), so that a chart reads like its table. An
%%%       interval of counts is `1671 Ki..4102 Ki'.</li>
%%%   <li><b>time</b>: nanoseconds scaled to `ns', `us', `ms', `s' (five digits at
%%%       most; one decimal below 10 ns).</li>
%%%   <li><b>duration</b>: milliseconds someone set (how long a profile watched): whole
%%%       seconds in `s', else `ms'.</li>
%%%   <li><b>size</b>: bytes in `Kb', `Mb', `Gb', `Tb' (powers of 1024).</li>
%%%   <li><b>rate</b>: bytes per second with three significant digits: `B/s', `KB/s',
%%%       `MB/s', `GB/s', `TB/s' (powers of 1000).</li>
%%%   <li><b>fixed</b>: a figure with a set number of decimals, never `-0.0' (a value
%%%       that rounds to zero has no sign); <b>significant</b>: at most so many
%%%       significant digits (never fewer than the whole part has), no trailing zeros.</li>
%%%   <li><b>percent</b>: one decimal and `%'; a <b>change</b> is a percent with its
%%%       sign, `+' for a rise (a change that rounds to zero has none); a <b>share</b>
%%%       (a fraction of 1) is a whole percent.</li>
%%%   <li><b>p value</b>: three decimals; below 0.001, `< 0.001'.</li>
%%%   <li><b>exact</b>: a number with all its digits, as the results record writes it
%%%       (integers as they are, floats in their shortest round-trip form: `0.1',
%%%       `1.0e300'); a <b>setting</b> (a confidence, a limit in percent) the same, but
%%%       a whole number without its `.0': `95', `20', `99.9'.</li>
%%%   <li><b>value</b>: a term as Erlang source text on one line (`10', `foo',
%%%       `"abc"', a pid); in the results record a parameter value that is a number
%%%       stays a number and other terms become that text (`record_value/1').</li>
%%%   <li><b>function name</b>: `module:function/arity', atoms quoted where Erlang
%%%       source quotes them (``'Elixir.Enum':map/2''); in a trace pattern the wildcard
%%%       is `_'. Profiles, the results of performance tests and their trace patterns
%%%       all write function names so.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% "148 Ki" = erlperf_units:count(148000),
%%% "148.5 Ki" = erlperf_units:count(148500, 4),
%%% "77 ns" = erlperf_units:time(77),
%%% "+12.5%" = erlperf_units:change(12.46),
%%% "< 0.001" = erlperf_units:p_value(0.0002),
%%% "N=10, S=foo" = erlperf_units:combination([{'N', 10}, {'S', foo}]),
%%% "lists:seq/2" = erlperf_units:function_name({lists, seq, 2}).
%%% '''
-module(erlperf_units).

%% API: called by every output, the monitors, the command line, the verdicts and the
%% sweep's errors.
-export([count/1, count/2, count_range/2, time/1, us/1, duration/1, elapsed/1, size/1, rate/1,
         number/1, fixed/2,
         significant/2, percent/1, share/1, change/1, p_value/1, exact/1, setting/1]).
-export([value/1, record_value/1, record_text/1, combination/1, function_name/1]).

%% A number is scaled to the next unit once it reaches this many (keeps 5 digits).
-define(SCALE_LIMIT, 100000).
%% Times below this many nanoseconds are written with one decimal.
-define(DECIMAL_BELOW_NS, 10).
%% A rate of bytes is scaled to the next unit once it would round to this many.
-define(RATE_LIMIT, 999.5).
%% A p value below this is written as `< 0.001'; others with this many decimals.
-define(P_SHOWN_MIN, 0.001).
-define(P_DECIMALS, 3).
%% The units of a count, each 1000 times the previous one.
-define(COUNT_UNITS, ["", " Ki", " Mi", " Gi", " Ti"]).

%%--------------------------------------------------------------------
%% API: figures

%% @doc A count: `463', `80502', `148 Ki', `13031 Ki', `161 Mi'.
-spec count(number()) -> string().
count(N) ->
    scale(N, 1, 1000, ?COUNT_UNITS).

%% @doc A count for a chart's tick or bar: the unit `count/1' gives it, with at most
%% `Digits' significant digits (`significant/2'): `1500', `0.25', `148.5 Ki', `250 Mi'
%% (`count/1': `1500', `0', `149 Ki', `250 Mi').
-spec count(number(), pos_integer()) -> string().
count(N, Digits) ->
    {Divisor, Unit} = unit(N, 1, 1000, ?COUNT_UNITS),
    significant(N / Divisor, Digits) ++ Unit.

%% @doc An interval of counts: `1671 Ki..4102 Ki'.
-spec count_range(number(), number()) -> string().
count_range(Lo, Hi) ->
    count(Lo) ++ ".." ++ count(Hi).

%% @doc Nanoseconds: `3.2 ns', `77 ns', `6735 ns', `2161 us', `149 ms', `200 s'.
-spec time(number()) -> string().
time(Ns) when Ns < ?DECIMAL_BELOW_NS, Ns > 0, Ns /= round(Ns) ->
    fixed(Ns, 1) ++ " ns";
time(Ns) ->
    scale(Ns, 1, 1000, [" ns", " us", " ms", " s"]).

%% @doc Microseconds, as a results record holds times (latency, response and service
%% times, profiles): `time/1' of them; `-' for what is not a number (`null': no call
%% gave that figure).
-spec us(term()) -> string().
us(Us) when is_number(Us) -> time(Us * 1000);
us(_NoFigure) -> "-".

%% @doc Milliseconds someone set, such as how long a profile watched: `5 s', `1500 ms'.
-spec duration(non_neg_integer()) -> string().
duration(Ms) when Ms rem 1000 =:= 0 -> integer_to_list(Ms div 1000) ++ " s";
duration(Ms) -> integer_to_list(Ms) ++ " ms".

%% @doc Milliseconds a run took, as seconds with one decimal: `18.3 s', `0.4 s'.
-spec elapsed(non_neg_integer()) -> string().
elapsed(Ms) ->
    fixed(Ms / 1000, 1) ++ " s".

%% @doc Bytes in powers of 1024: `900 Kb', `63488 Kb', `200 Mb', `3072 Gb'.
-spec size(number()) -> string().
size(Bytes) ->
    scale(Bytes, 1024, 1024, [" Kb", " Mb", " Gb", " Tb"]).

%% @doc Bytes per second: `512 B/s', `1.50 KB/s', `98.2 MB/s', `3.07 GB/s'.
-spec rate(number()) -> string().
rate(BytesPerSecond) ->
    rate(BytesPerSecond, ["B/s", "KB/s", "MB/s", "GB/s", "TB/s"]).

%% @doc A figure with no unit: whole numbers without decimals, others with one
%% (`12', `0.4', `1046.5').
-spec number(number()) -> string().
number(N) when N == round(N) -> integer_to_list(round(N));
number(N) -> fixed(N, 1).

%% @doc A figure with `Decimals' decimals: `12.50', `0.001'; `0.00' for what rounds to
%% zero, never `-0.00'.
-spec fixed(number(), non_neg_integer()) -> string().
fixed(N, Decimals) ->
    case float_to_list(N / 1, [{decimals, Decimals}]) of
        [$- | Digits] = Text ->
            case lists:all(fun (C) -> C =:= $0 orelse C =:= $. end, Digits) of
                true -> Digits;
                false -> Text
            end;
        Text ->
            Text
    end.

%% @doc A figure with at most `Digits' significant digits, but all of its whole part,
%% trailing zeros dropped: `1500', `12345', `0.25', `2.3' (of 2.345 with 2).
-spec significant(number(), pos_integer()) -> string().
significant(N, _Digits) when N == 0 ->
    "0";
significant(N, Digits) ->
    Text = fixed(N, max(0, Digits - 1 - floor(math:log10(abs(N))))),
    case lists:member($., Text) of
        true -> string:trim(string:trim(Text, trailing, "0"), trailing, ".");
        false -> Text
    end.

%% @doc A percentage with one decimal: `12.5%', `0.0%'.
-spec percent(number()) -> string().
percent(P) ->
    fixed(P, 1) ++ "%".

%% @doc A share (a fraction of 1, such as a host's load) as a whole percentage: `47%'.
-spec share(number()) -> string().
share(Fraction) ->
    integer_to_list(round(100 * Fraction)) ++ "%".

%% @doc A change in percent with its sign: `+12.5%', `-3.0%'; `0.0%' for a change that
%% rounds to zero.
-spec change(number()) -> string().
change(Pct) ->
    case percent(Pct) of
        "0.0%" = Text -> Text;
        [$- | _] = Text -> Text;
        Text -> [$+ | Text]
    end.

%% @doc A p value: `0.216', `0.010'; below 0.001, `< 0.001'.
-spec p_value(number()) -> string().
p_value(P) when P < ?P_SHOWN_MIN -> "< " ++ setting(?P_SHOWN_MIN);
p_value(P) -> fixed(P, ?P_DECIMALS).

%% @doc A number with all its digits, as the results record (and its JSON) writes it:
%% `10', `0.1', `1.0e300'; read back, it is the same number.
-spec exact(number()) -> string().
exact(N) when is_integer(N) -> integer_to_list(N);
exact(F) when is_float(F) -> float_to_list(F, [short]).

%% @doc A setting as someone would write it (a confidence, a noise floor, a limit in
%% percent): `95', `20' (of 20.0), `99.9', `0.25'.
-spec setting(number()) -> string().
setting(N) when N == trunc(N) -> integer_to_list(trunc(N));
setting(N) -> exact(N).

%%--------------------------------------------------------------------
%% API: terms

%% @doc A term as Erlang text on one line: `10', `0.5', `foo', `"abc"', `<<"ab">>',
%% `<0.90.0>'.
-spec value(term()) -> string().
value(Value) -> lists:flatten(io_lib:format("~0tp", [Value])).

%% @doc A parameter value in the results record: a number as it is, another term as its
%% Erlang text.
-spec record_value(term()) -> number() | binary().
record_value(V) when is_number(V) -> V;
record_value(V) -> unicode:characters_to_binary(value(V)).

%% @doc The text of a parameter value read from a results record (see
%% `record_value/1'): `10', `foo'.
-spec record_text(number() | binary()) -> string().
record_text(N) when is_number(N) -> value(N);
record_text(Text) when is_binary(Text) -> unicode:characters_to_list(Text).

%% @doc `N=10, S=foo': a combination of parameter values as text.
-spec combination([{atom(), term()}]) -> string().
combination(Combination) ->
    unicode:characters_to_list(lists:join(", ", [[atom_to_list(N), $=, value(V)]
                                                 || {N, V} <- Combination])).

%% @doc "module:function/arity", atoms quoted where Erlang source would quote them
%% (``'Elixir.Enum':map/2''); in a trace pattern, the wildcard ```'_'''' as `_'
%% (`lists:seq/_'); a pseudo-function (fprof's `garbage_collect') or a registered
%% process name as it is.
-spec function_name({module() | '_', atom() | '_', arity() | '_'} | atom()) -> string().
function_name({M, F, A}) -> lists:flatten([name_part(M), $:, name_part(F), $/, arity_part(A)]);
function_name(Name) when is_atom(Name) -> atom_to_list(Name).

%%--------------------------------------------------------------------
%% Internal functions

-spec name_part(atom()) -> string().
name_part('_') -> "_";
name_part(Atom) -> lists:flatten(io_lib:format("~tw", [Atom])).

-spec arity_part(arity() | '_') -> string().
arity_part('_') -> "_";
arity_part(A) -> integer_to_list(A).

-spec rate(number(), [string()]) -> string().
rate(N, [_Unit | Units]) when Units =/= [], abs(N) >= ?RATE_LIMIT ->
    rate(N / 1000, Units);
rate(N, [Unit | _]) ->
    three_digits(N) ++ " " ++ Unit.

%% Three significant digits, trailing zeros kept (whole numbers from 100).
-spec three_digits(number()) -> string().
three_digits(N) when abs(N) >= 99.95 -> integer_to_list(round(N));
three_digits(N) when abs(N) >= 9.995 -> fixed(N, 1);
three_digits(N) -> fixed(N, 2).

%% N / Divisor, rounded, in the unit unit/4 picks.
-spec scale(number(), pos_integer(), pos_integer(), [string()]) -> string().
scale(N, Divisor, Step, Units) ->
    {D, Unit} = unit(N, Divisor, Step, Units),
    integer_to_list(round(N / D)) ++ Unit.

%% The first unit that keeps N / Divisor under ?SCALE_LIMIT, each unit Step times the
%% previous one, and its divisor.
-spec unit(number(), pos_integer(), pos_integer(), [string()]) -> {pos_integer(), string()}.
unit(_N, Divisor, _Step, [Unit]) ->
    {Divisor, Unit};
unit(N, Divisor, Step, [Unit | Units]) ->
    case abs(round(N / Divisor)) < ?SCALE_LIMIT of
        true -> {Divisor, Unit};
        false -> unit(N, Divisor * Step, Step, Units)
    end.
