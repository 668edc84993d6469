%%% @doc Writes a results record ({@link erlperf_record}) as CSV: a header line, then one
%%% line per run (RFC 4180: comma-separated, CRLF line ends, a field holding a comma, a
%%% double quote or a line break is quoted, its quotes doubled). Names (labels, code,
%%% the runner compared with, parameters' names and values) are written by
%%% {@link erlperf_name:csv/1}: one with a line break or that begins with `::' is quoted
%%% with visible escapes, so that no line of the file begins with `::'. Pure: returns
%%% iodata.
%%%
%%% A sweep's record ({@link erlperf_sweep}) has a column per parameter after `code',
%%% named as the parameter, and `bytes_processed_per_iteration', `bytes_per_second'
%%% (empty without bytes) and `best' at the end.
%%%
%%% Example:
%%% ```
%%% Reports = erlperf:compare(["rand:uniform().", "rand:uniform(1000)."], #{report => full}),
%%% io:put_chars(erlperf_csv:format(erlperf_record:from_reports(Reports))).
%%% '''
-module(erlperf_csv).

%% API: called by the command line.
-export([format/1, columns/0, latency_columns/0, rate_columns/0]).
%% API: erlperf_trend writes the history's table with it.
-export([table/2]).

-include("model/erlperf_schema.hrl").

%% A sweep's columns at the end.
-define(SWEEP, [bytes_processed_per_iteration, bytes_per_second, best]).
%% Whole floats below this are written with all their digits (1000000.0).
-define(PLAIN_LIMIT, 1.0e15).
%% The latency columns that hold a figure of the run's `latency_us', and its key.
-define(LATENCY_FIGURES, [{latency_p50_us, ?P50}, {latency_p90_us, ?P90},
                          {latency_p99_us, ?P99}, {latency_p999_us, ?P999},
                          {latency_max_us, <<"max">>}, {latency_average_us, <<"average">>},
                          {latency_stddev_us, ?STDDEV}]).

%% The open-load columns, and where each is read: a field of the run's `rate', or a
%% figure of one of its summaries (microseconds).
-define(RATE_FIGURES,
        [{rate_target, <<"target">>}, {rate_achieved, <<"achieved">>}, {rate_started, <<"started">>},
         {rate_late, <<"late">>}, {rate_skipped, <<"skipped">>}, {rate_unfinished, <<"unfinished">>},
         {rate_workers, <<"workers">>}, {rate_held, <<"held">>}, {rate_knee, <<"knee">>}]
        ++ [{list_to_atom(binary_to_list(<<S/binary, "_", F/binary, "_us">>)), {<<S/binary, "_us">>, F}}
            || S <- [<<"response">>, <<"service">>],
               F <- ?PERCENTILES ++ [<<"average">>]]).

%%--------------------------------------------------------------------
%% API

%% @doc The CSV text of a record.
-spec format(erlperf_record:results()) -> iodata().
format(#{?RUNS := Runs} = Record) ->
    Latency = [C || lists:any(fun (Run) -> is_map_key(<<"latency_calls">>, Run) end, Runs),
                    C <- latency_columns()],
    Rate = [C || lists:any(fun (Run) -> is_map_key(<<"rate">>, Run) end, Runs), C <- rate_columns()],
    Columns = record_columns(Record) ++ Latency ++ Rate,
    [line([header(C) || C <- Columns]) | [line([cell(column(C, Run)) || C <- Columns]) || Run <- Runs]].

%% @doc A CSV table: a header line, then a line per row; each cell `null', a boolean, a
%% number or a binary (written by {@link erlperf_name:csv/1}).
-spec table([binary()], [[null | boolean() | number() | binary()]]) -> iodata().
table(Header, Rows) ->
    [line([cell(H) || H <- Header]) | [line([cell(C) || C <- Row]) || Row <- Rows]].

%% @doc The latency columns, after the others when any run was timed call by call
%% (`--latency'): the calls timed, then the figures in microseconds.
-spec latency_columns() -> [atom()].
latency_columns() ->
    [latency_calls | [C || {C, _} <- ?LATENCY_FIGURES]].

%% @doc The open-load columns, after the others when any run was at a rate (`--rate'):
%% the pacing figures, then the response and service times in microseconds.
-spec rate_columns() -> [atom()].
rate_columns() ->
    [C || {C, _} <- ?RATE_FIGURES].

%% @doc The columns, in order: one per figure of a run (`doc/formats.md').
-spec columns() -> [atom()].
columns() ->
    [label, code, mode, concurrency, samples, average, stddev, median, p99, min, max,
     ci95_lo, ci95_hi, outliers, iteration_ns, qps, against, change_pct, ci95_pct_lo,
     ci95_pct_hi, significant].

%%--------------------------------------------------------------------
%% Internal functions

%% A sweep's record: its parameters after code, its figures at the end.
record_columns(#{?OPTIONS := #{?PARAMS := _}} = Record) ->
    [Label, Code | Rest] = columns(),
    [Label, Code | [{param, N} || N <- erlperf_record:param_names(Record)]] ++ Rest ++ ?SWEEP;
record_columns(_Record) ->
    columns().

header({param, Name}) -> erlperf_name:csv(Name);
header(Column) -> atom_to_binary(Column).

column({param, Name}, #{?PARAMS := Params}) -> maps:get(Name, Params, null);
column(samples, #{?SAMPLES := S}) -> length(S);
column(ci95_lo, Run) -> bound(1, maps:get(<<"ci95">>, Run, null));
column(ci95_hi, Run) -> bound(2, maps:get(<<"ci95">>, Run, null));
column(outliers, #{<<"outliers">> := O}) ->
    lists:sum([maps:get(K, O) || K <- [<<"low_mild">>, <<"low_severe">>, <<"high_mild">>,
                                       <<"high_severe">>]]);
column(against, Run) -> comparison(<<"against">>, Run);
column(change_pct, Run) -> comparison(<<"change_pct">>, Run);
column(ci95_pct_lo, Run) -> bound(1, comparison(<<"ci95_pct">>, Run));
column(ci95_pct_hi, Run) -> bound(2, comparison(<<"ci95_pct">>, Run));
column(significant, Run) -> comparison(<<"significant">>, Run);
column(Key, Run) ->
    case {lists:keyfind(Key, 1, ?LATENCY_FIGURES), lists:keyfind(Key, 1, ?RATE_FIGURES)} of
        {{_, Figure}, _} -> latency(Figure, maps:get(<<"latency_us">>, Run, null));
        {false, {_, Where}} -> rate(Where, maps:get(<<"rate">>, Run, null));
        {false, false} -> maps:get(atom_to_binary(Key), Run, null)
    end.

rate(_Where, null) -> null;
rate({Summary, Figure}, Rate) -> maps:get(Figure, maps:get(Summary, Rate));
rate(Field, Rate) -> maps:get(Field, Rate, null).

latency(Figure, #{} = Figures) -> maps:get(Figure, Figures);
latency(_Figure, null) -> null.

comparison(Key, #{?COMPARISON := C}) -> maps:get(Key, C, null);
comparison(_Key, _Run) -> null.

bound(I, [_, _] = Interval) -> lists:nth(I, Interval);
bound(_I, null) -> null.

cell(null) -> <<>>;
cell(true) -> <<"true">>;
cell(false) -> <<"false">>;
cell(F) when is_float(F), F == trunc(F), abs(F) < ?PLAIN_LIMIT ->
    %% 1000.0, not 1.0e3 (the shortest form): what a spreadsheet user expects
    <<(integer_to_binary(trunc(F)))/binary, ".0">>;
cell(N) when is_number(N) -> list_to_binary(erlperf_units:exact(N));
cell(Text) when is_binary(Text) -> erlperf_name:csv(Text).

line(Cells) ->
    [lists:join($,, Cells), "\r\n"].
