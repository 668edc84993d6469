%%% @doc How figures and terms are written for people: counts, times, sizes and rates
%%% with their units, percentages, parameter values and function names. Every output
%%% (text tables, Markdown, CSV, HTML, the VM logs, progress lines, error text) writes
%%% them with these functions, so that one figure reads the same everywhere. Pure: no
%%% I/O, no state; a leaf module every layer may call.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>count</b>: at most five digits before a unit: `Ki', `Mi', `Gi', `Ti'
%%%       (powers of 1000).</li>
%%%   <li><b>time</b>: nanoseconds scaled to `ns', `us', `ms', `s' (five digits at
%%%       most; one decimal below 10 ns).</li>
%%%   <li><b>size</b>: bytes in `Kb', `Mb', `Gb', `Tb' (powers of 1024).</li>
%%%   <li><b>rate</b>: bytes per second with three significant digits: `B/s', `KB/s',
%%%       `MB/s', `GB/s', `TB/s' (powers of 1000).</li>
%%%   <li><b>value</b>: a parameter value as Erlang source text (`10', `foo',
%%%       `"abc"'); in the results record numbers stay numbers and other terms become
%%%       that text (`record_value/1').</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% "148 Ki" = erlperf_units:count(148000),
%%% "77 ns" = erlperf_units:time(77),
%%% "N=10, S=foo" = erlperf_units:combination([{'N', 10}, {'S', foo}]),
%%% "lists:seq/2" = erlperf_units:function_name({lists, seq, 2}).
%%% '''
-module(erlperf_units).

%% API: called by every output, the monitors, the command line and the sweep's errors.
-export([count/1, time/1, size/1, rate/1, number/1, percent/1]).
-export([value/1, record_value/1, record_text/1, combination/1, function_name/1]).

%% A number is scaled to the next unit once it reaches this many (keeps 5 digits).
-define(SCALE_LIMIT, 100000).
%% Times below this many nanoseconds are written with one decimal.
-define(DECIMAL_BELOW_NS, 10).
%% A rate of bytes is scaled to the next unit once it would round to this many.
-define(RATE_LIMIT, 999.5).

%%--------------------------------------------------------------------
%% API: figures

%% @doc A count: `463', `80502', `148 Ki', `13031 Ki', `161 Mi'.
-spec count(number()) -> string().
count(N) ->
    scale(N, 1, 1000, ["", " Ki", " Mi", " Gi", " Ti"]).

%% @doc Nanoseconds: `3.2 ns', `77 ns', `6735 ns', `2161 us', `149 ms', `200 s'.
-spec time(number()) -> string().
time(Ns) when Ns < ?DECIMAL_BELOW_NS, Ns > 0, Ns /= round(Ns) ->
    float_to_list(Ns / 1, [{decimals, 1}]) ++ " ns";
time(Ns) ->
    scale(Ns, 1, 1000, [" ns", " us", " ms", " s"]).

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
number(N) -> float_to_list(N / 1, [{decimals, 1}]).

%% @doc A percentage with one decimal: `12.5%'.
-spec percent(number()) -> string().
percent(P) ->
    float_to_list(P / 1, [{decimals, 1}]) ++ "%".

%%--------------------------------------------------------------------
%% API: terms

%% @doc A parameter value as Erlang text: `10', `0.5', `foo', `"abc"', `<<"ab">>'.
-spec value(term()) -> string().
value(Value) -> lists:flatten(io_lib:format("~0tp", [Value])).

%% @doc A parameter value in the results record: a number as it is, another term as its
%% Erlang text.
-spec record_value(term()) -> number() | binary().
record_value(V) when is_number(V) -> V;
record_value(V) -> unicode:characters_to_binary(io_lib:format("~0tp", [V])).

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

%% @doc "module:function/arity", atoms quoted where Erlang source would quote them;
%% a pseudo-function (fprof's `garbage_collect') as it is.
-spec function_name(mfa() | atom()) -> string().
function_name({M, F, A}) -> lists:flatten(io_lib:format("~tw:~tw/~b", [M, F, A]));
function_name(Pseudo) when is_atom(Pseudo) -> atom_to_list(Pseudo).

%%--------------------------------------------------------------------
%% Internal functions

-spec rate(number(), [string()]) -> string().
rate(N, [_Unit | Units]) when Units =/= [], abs(N) >= ?RATE_LIMIT ->
    rate(N / 1000, Units);
rate(N, [Unit | _]) ->
    significant(N) ++ " " ++ Unit.

%% Three significant digits (whole numbers from 100).
-spec significant(number()) -> string().
significant(N) when abs(N) >= 99.95 -> integer_to_list(round(N));
significant(N) when abs(N) >= 9.995 -> float_to_list(N / 1, [{decimals, 1}]);
significant(N) -> float_to_list(N / 1, [{decimals, 2}]).

%% N / Divisor in the first unit that keeps it under ?SCALE_LIMIT, each unit Step times
%% the previous one.
-spec scale(number(), pos_integer(), pos_integer(), [string()]) -> string().
scale(N, Divisor, _Step, [Unit]) ->
    integer_to_list(round(N / Divisor)) ++ Unit;
scale(N, Divisor, Step, [Unit | Units]) ->
    case abs(round(N / Divisor)) < ?SCALE_LIMIT of
        true -> integer_to_list(round(N / Divisor)) ++ Unit;
        false -> scale(N, Divisor * Step, Step, Units)
    end.
