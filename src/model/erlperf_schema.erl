%%% @doc The schema of the JSON files erlperf writes and reads back, and their one
%%% reader: a benchmark's results record (`--save', `--format json', {@link erlperf_record}),
%%% a performance test's `results.json' ({@link erlperf_perf_results}) and an entry of the
%%% results store ({@link erlperf_store}), which holds a record. The field names are the
%%% macros of `erlperf_schema.hrl' (`?RUNS' for the key `runs'); this module knows every
%%% field that a reader (the text tables, CSV, Markdown, HTML, a `--baseline' comparison,
%%% the history) takes from a file, with the type it must have. {@link read/2} reads a
%%% file, decodes its JSON, refuses a newer layout and checks the shape: a value that
%%% passes can be rendered and compared; one that does not is refused with the first
%%% field that is wrong, so that a hand-edited, foreign or newer file is a clear usage
%%% error, never a crash half-way through a report. Pure but for reading the file.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>kind</b>: what a file should hold: `benchmark' (a record), `perf_test' (a
%%%       performance test's results), `store_entry' (a store's entry and its record), or
%%%       `any' (a record or a performance test's results, told apart by their fields).</li>
%%%   <li><b>layout version</b>: the `version' of a record and of a performance test's
%%%       results, the `store_version' of an entry (`?RECORD_LAYOUT' and the others in the
%%%       header). This release reads its own layout and older ones (version 1 is the
%%%       first: there is nothing older to upgrade yet) and refuses a newer one.</li>
%%%   <li><b>path</b>: where a field is, as text: `runs[2].samples[0]' (runs counted
%%%       from 0).</li>
%%%   <li><b>perf-test results</b>: the `results.json' of `--perf-test' (it has
%%%       `load_generator'); it is not a benchmark record, and the reason says so.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% 1> erlperf_schema:read("missing.json", benchmark).
%%% {error,enoent}
%%% 2> erlperf_schema:check(benchmark, #{<<"version">> => <<"1">>}).
%%% {error,{record,{<<"version">>,"a positive integer"}}}
%%% 3> erlperf_schema:format_error({record, {<<"version">>, "a positive integer"}}).
%%% "field version is not a positive integer"
%%% 4> erlperf_schema:format_error({newer_version, benchmark, 2}).
%%% "written by a newer erlperf (record version 2; this one reads 1)"
%%% '''
-module(erlperf_schema).

%% API: the one reader of saved files, called by erlperf_baseline (--baseline),
%% erlperf_store (the results store), erlperf_perf_results (a performance test's
%% --baseline) and erlperf_render (--render); the check alone for a record in memory.
-export([read/2, check/2, kind/1, format_error/1]).

-export_type([kind/0, json/0, benchmark_record/0, run/0, perf_results/0, entry/0, reason/0]).

-include("model/erlperf_schema.hrl").

%% The largest magnitude of a number field read back (JSON takes 1e308): its fourth power
%% is still a float (past 1.8e308 Erlang's arithmetic raises badarith), so a statistic or
%% a ratio of figures read from a file never overflows. No figure erlperf writes comes
%% near it (the most iterations of a timed sample are about 5.8e17).
-define(MAX_FIGURE, 1.0e75).
-define(FIGURE_TEXT, "a number of magnitude at most 1.0e75").

%% What a file should hold (see the glossary); `any' is a record or a performance test's
%% results.
-type kind() :: benchmark | perf_test | store_entry.
-type json() :: erlperf_json:json().
%% A benchmark's results record: `?VERSION' (a positive integer), `?RUNS' (a non-empty
%% list of run()), optionally `?SYSTEM', `?OPTIONS' and `?COMPARE' (doc/formats.md).
%% Erlang's types cannot name binary keys: benchmark/0 below lists the fields.
-type benchmark_record() :: #{binary() => json()}.
%% One of a record's runs: `?LABEL', `?MODE', `?SAMPLES', `?AVERAGE', `?QPS',
%% `?CONCURRENCY', `?PARAMS', and the optional fields of run/0 below.
-type run() :: #{binary() => json()}.
%% A performance test's results: `?VERSION', `?LOAD_GENERATOR', `?SIZE_LABEL', `?RUNS'
%% (doc/perf-testing.md).
-type perf_results() :: #{binary() => json()}.
%% A store's entry: `?STORE_VERSION', `?TIME' (RFC 3339), `?RECORD' (a benchmark_record()), and
%% where the run came from (doc/suites.md).
-type entry() :: #{binary() => json()}.
%% Why a file or a value was refused: the file (a `file:read_file/1' reason), its JSON,
%% not a record at all, a newer layout, or the first wrong field of its shape (a path
%% and what the field should have been), or a record of the other kind.
-type reason() :: file:posix() | badarg | terminated | system_limit
                | {json, erlperf_json:decode_error()}
                | not_a_record | not_an_entry
                | {newer_version, kind(), integer()}
                | {record, shape_error()}.
-type shape_error() :: {Path :: binary(), Expected :: string()} | perf_test_results
                     | benchmark_record.

%% A field's type.
-type type() :: int | pos_int | non_neg_int | number | text | bool | null | any
              | interval | {enum, [binary()]} | {list, type()} | {nonempty, type()}
              | {map_of, type()} | {fields, [field()]} | {either, [type()]}.
-type field() :: {required | optional, binary(), type()}
               | {together, [binary()]}.   % all of these, or none

%%--------------------------------------------------------------------
%% API

%% @doc Reads a file of the kind `Kind': its JSON, of a layout this release reads, of
%% the shape its readers take. The value as decoded (binary keys); the reason without
%% the file's name (the caller names it, see {@link format_error/1}).
-spec read(file:filename_all(), kind() | any) ->
    {ok, benchmark_record() | perf_results() | entry()} | {error, reason()}.
read(File, Kind) ->
    case file:read_file(File) of
        {ok, Bytes} ->
            case erlperf_json:decode(Bytes) of
                {ok, Value} -> checked(Kind, Value);
                {error, _} = Error -> Error
            end;
        {error, _} = Error ->
            Error
    end.

%% @doc `ok' when the decoded JSON value is of the kind `Kind', of a layout this release
%% reads, of the shape its readers take; else the first thing wrong.
-spec check(kind() | any, term()) -> ok | {error, reason()}.
check(any, Value) ->
    case kind(Value) of
        {ok, Kind} -> check(Kind, Value);
        error -> {error, not_a_record}
    end;
check(store_entry, #{?STORE_VERSION := V}) when is_integer(V), V > ?STORE_ENTRY_LAYOUT ->
    {error, {newer_version, store_entry, V}};
check(store_entry, #{?STORE_VERSION := V, ?TIME := T, ?RECORD := Record} = Entry)
  when is_integer(V), is_binary(T) ->
    case shape(store_entry, Entry) of
        ok -> check(benchmark, Record);
        {error, _} = Error -> Error
    end;
check(store_entry, _Other) ->
    {error, not_an_entry};
check(benchmark, #{?LOAD_GENERATOR := _}) ->
    {error, {record, perf_test_results}};
check(perf_test, #{?RUNS := _} = Value) when not is_map_key(?LOAD_GENERATOR, Value) ->
    {error, {record, benchmark_record}};
check(Kind, #{?VERSION := V} = Value) when is_integer(V) ->
    case V > layout(Kind) of
        true -> {error, {newer_version, Kind, V}};
        false -> shape(Kind, Value)
    end;
check(Kind, Value) ->
    shape(Kind, Value).

%% @doc What a decoded value holds, from its fields: a performance test's results (it
%% has `?LOAD_GENERATOR'), else a benchmark's record (`?RUNS' or `?VERSION').
-spec kind(term()) -> {ok, benchmark | perf_test} | error.
kind(#{?LOAD_GENERATOR := _}) -> {ok, perf_test};
kind(#{?RUNS := _}) -> {ok, benchmark};
kind(#{?VERSION := _}) -> {ok, benchmark};
kind(_Other) -> error.

%% @doc The reason as text, without the file's name.
-spec format_error(reason()) -> string().
format_error(not_a_record) ->
    "not an erlperf results record (a --save/--format json record or a --perf-test results.json)";
format_error(not_an_entry) ->
    "not a results store entry";
format_error({newer_version, store_entry, V}) ->
    flat("written by a newer erlperf (store version ~b; this one reads ~b)",
         [V, layout(store_entry)]);
format_error({newer_version, Kind, V}) ->
    flat("written by a newer erlperf (record version ~b; this one reads ~b)", [V, layout(Kind)]);
format_error({record, perf_test_results}) ->
    "a --perf-test results.json, not a benchmark record (--save writes one)";
format_error({record, benchmark_record}) ->
    "a benchmark record, not a --perf-test results.json";
format_error({record, {<<>>, Expected}}) ->
    "not " ++ Expected;
format_error({record, {Path, Expected}}) ->
    flat("field ~ts is not ~ts", [Path, Expected]);
format_error({json, _} = Reason) ->
    erlperf_json:format_error(Reason);
format_error(Reason) when is_atom(Reason) ->
    file:format_error(Reason);
format_error(Reason) ->
    flat("~0tp", [Reason]).

%%--------------------------------------------------------------------
%% Reading

-spec checked(kind() | any, json()) -> {ok, json()} | {error, reason()}.
checked(Kind, Value) ->
    case check(Kind, Value) of
        ok -> {ok, Value};
        {error, _} = Error -> Error
    end.

%% The layout version of a kind that this release writes and reads.
-spec layout(kind()) -> pos_integer().
layout(benchmark) -> ?RECORD_LAYOUT;
layout(perf_test) -> ?PERF_RESULTS_LAYOUT;
layout(store_entry) -> ?STORE_ENTRY_LAYOUT.

%% A value of a kind's layout: its fields, then what their types cannot say.
-spec shape(benchmark | perf_test | store_entry, term()) -> ok | {error, {record, shape_error()}}.
shape(Kind, Value) ->
    try
        value(<<>>, Value, {fields, schema(Kind)}),
        consistent(Kind, Value)
    catch throw:{?MODULE, Path, Expected} -> {error, {record, {Path, Expected}}}
    end.

-spec flat(io:format(), [term()]) -> string().
flat(Format, Args) ->
    lists:flatten(io_lib:format(Format, Args)).

%%--------------------------------------------------------------------
%% The schema

-spec schema(benchmark | perf_test | store_entry) -> [field()].
schema(benchmark) -> benchmark();
schema(perf_test) -> perf_test();
schema(store_entry) -> store_entry().

%% A store's entry around its record (erlperf_store; the record is checked as a
%% benchmark's): where the run came from, as the history shows it.
-spec store_entry() -> [field()].
store_entry() ->
    [{optional, ?COMMIT, {either, [null, {fields, [{required, <<"sha">>, text},
                                                   {required, <<"dirty">>, bool}]}]}},
     {optional, <<"otp">>, text},
     {optional, <<"erts">>, text},
     {optional, <<"erlperf">>, text},
     {optional, <<"machine">>, {map_of, {either, [text, number, null]}}},
     {optional, <<"suites">>, {list, text}}].

-spec benchmark() -> [field()].
benchmark() ->
    [{required, ?VERSION, pos_int},
     {required, ?RUNS, {nonempty, {fields, run()}}},
     {optional, ?SYSTEM, {map_of, {either, [text, number, bool, null]}}},
     {optional, ?OPTIONS, {fields, [{optional, ?PARAMS, {list, {fields, param()}}},
                                         {optional, <<"bytes">>, {either, [number, text, null]}}]}},
     {optional, ?COMPARE, text},
     %% a run saved by Erlperf.run/2's `save: [tag: ...]'
     {optional, <<"tag">>, text}].

%% A sweep's parameter in the record's options.
-spec param() -> [field()].
param() ->
    [{required, <<"name">>, text},
     {required, <<"values">>, {nonempty, {either, [number, text]}}}].

-spec run() -> [field()].
run() ->
    Numbers = [{optional, K, number} || K <- [?STDDEV, ?MEDIAN, ?P99, <<"min">>,
                                             <<"max">>, <<"confidence">>, <<"cv_goal">>]],
    [{required, ?LABEL, text},
     {required, ?MODE, {enum, [<<"continuous">>, <<"timed">>, <<"concurrency">>]}},
     {required, ?SAMPLES, {nonempty, number}},
     {required, ?AVERAGE, number},
     {required, ?QPS, number},
     {required, ?CONCURRENCY, pos_int},
     {optional, ?CODE, {either, [text, null]}},
     {optional, <<"counter">>, {list, non_neg_int}},
     {optional, <<"ci95">>, interval},
     {optional, <<"ci">>, interval},
     {optional, <<"interval">>, basis()},
     {optional, <<"run_noise_pct">>, number},
     {optional, <<"forks">>, {fields, [{required, <<"sizes">>, {nonempty, pos_int}},
                                       {required, <<"means">>, {nonempty, number}},
                                       {optional, <<"between_sd">>, {either, [number, null]}},
                                       {optional, <<"within_sd">>, {either, [number, null]}}]}},
     {optional, <<"outliers">>, {fields, [{required, K, number}
                                          || K <- [<<"low_severe">>, <<"low_mild">>, <<"high_mild">>,
                                                   <<"high_severe">>, <<"low_severe_fence">>,
                                                   <<"low_mild_fence">>, <<"high_mild_fence">>,
                                                   <<"high_severe_fence">>, ?MEDIAN, <<"q1">>,
                                                   <<"q3">>, <<"iqr">>]]}},
     {optional, ?ITERATION_NS, {either, [number, null]}},
     {optional, <<"sleep">>, text},
     {optional, <<"overdue">>, non_neg_int},
     {optional, <<"time_us">>, non_neg_int},
     {optional, <<"sample_duration">>,
      {either, [pos_int, {fields, [{required, <<"timed">>, pos_int}]}, null]}},
     {required, ?PARAMS, {map_of, {either, [number, text]}}},
     {together, [<<"best_concurrency">>, <<"steps">>]},
     {optional, <<"dead_code">>, {list, text}},
     {optional, <<"interpreted">>, {list, text}},
     {optional, <<"interpreted_call_ns">>, {either, [number, null]}},
     {optional, <<"cv_met">>, bool},
     {optional, <<"best">>, bool},
     {optional, <<"bytes_processed_per_iteration">>, number},
     {optional, <<"bytes_per_second">>, number},
     {optional, <<"best_concurrency">>, pos_int},
     {optional, <<"steps">>, {list, {fields, [{required, ?CONCURRENCY, pos_int},
                                              {required, ?AVERAGE, number},
                                              {required, ?QPS, number}]}}},
     {optional, ?COMPARISON, {fields, comparison()}},
     {optional, ?BASELINES, {list, {fields, baseline()}}},
     {optional, <<"profile">>, {fields, profile()}},
     {optional, <<"counts">>, {fields, [{required, ?BYTES_PER_ITERATION, {either, [number, null]}},
                                        {required, ?REDUCTIONS_PER_ITERATION, number},
                                        {optional, <<"memory_method">>, text},
                                        {optional, <<"iterations">>, pos_int}]}},
     {optional, ?INTERFERENCE, {fields, [{required, <<"share">>, {either, [number, null]}},
                                              {required, <<"samples">>, {list, {either, [number, null]}}}
                                              | [{optional, K, {either, [number, null]}}
                                                 || K <- [<<"cpu_ns">>, <<"wait_ns">>, <<"wall_ns">>,
                                                          <<"demand">>, <<"pressure">>, <<"steal">>,
                                                          <<"others">>]]]}},
     {optional, ?FINGERPRINT, text},
     {optional, ?CPU_SAMPLES, {nonempty, number}},
     {optional, <<"cpu_qps">>, {either, [number, null]}}
     | Numbers ++ cost() ++ latency() ++ rate()].

-spec cost() -> [field()].
cost() ->
    [{together, [?BYTES_PER_ITERATION, ?REDUCTIONS_PER_ITERATION,
                  <<"cpu_ns_per_iteration">>]},
     {optional, ?BYTES_PER_ITERATION, {either, [number, null]}},
     {optional, <<"memory_method">>, text}
     | [{optional, K, number} || K <- [?REDUCTIONS_PER_ITERATION, <<"cpu_ns_per_iteration">>,
                                      <<"wall_ns_per_iteration">>]]].

-spec latency() -> [field()].
latency() ->
    [{optional, <<"latency_us">>, {either, [null, {fields, [{required, K, number}
                                                           || K <- ?PERCENTILES ++ [<<"min">>, <<"average">>, ?STDDEV]]}]}},
     {together, [<<"latency_us">>, <<"latency_calls">>, <<"latency_timer_us">>,
                 <<"latency_unfinished">>]},
     {optional, <<"latency_calls">>, non_neg_int},
     {optional, <<"latency_timer_us">>, number},
     {optional, <<"latency_unfinished">>, bool}].

%% At a rate: see erlperf_record's rate/1.
-spec rate() -> [field()].
rate() ->
    [{optional, <<"rate">>, rate_fields()}].

%% The fields of a run's `rate' (a benchmark's, and a performance test's run, where it is
%% `null' without an open load).
-spec rate_fields() -> type().
rate_fields() ->
    Summary = {fields, [{required, <<"count">>, non_neg_int}
                        | [{required, K, {either, [number, null]}}
                           || K <- [<<"average">>, <<"min">> | ?PERCENTILES]]]},
    Objective = [{required, <<"percentile">>, number}, {required, <<"limit_us">>, number}],
    Histogram = {fields, [{required, <<"count">>, non_neg_int}, {required, <<"sum">>, non_neg_int},
                          {required, <<"min">>, {either, [non_neg_int, null]}},
                          {required, <<"max">>, {either, [non_neg_int, null]}},
                          {required, <<"buckets">>, {list, {list, non_neg_int}}}]},
    {fields, [{required, <<"target">>, number}, {required, <<"arrival">>, text},
                {required, <<"achieved">>, number}, {required, <<"duration_ms">>, number},
                {required, <<"behind">>, bool}
                | [{required, K, non_neg_int} || K <- [<<"started">>, <<"completed">>, <<"late">>,
                                                        <<"skipped">>, <<"unfinished">>, <<"workers">>]]]
                ++ [{together, [<<"slo">>, <<"missed">>, <<"held">>, <<"knee">>]},
                    {optional, <<"slo">>, {list, {fields, Objective}}},
                    {optional, <<"missed">>, {list, {fields, [{required, <<"response_us">>,
                                                               {either, [number, null]}}
                                                              | Objective]}}},
                    {optional, <<"held">>, bool},
                    {optional, <<"knee">>, {either, [pos_int, null]}}]
                ++ lists:append([[{required, <<N/binary, "_us">>, Summary},
                                  {required, <<N/binary, "_histogram">>, Histogram}]
                                 || N <- [<<"service">>, <<"response">>, <<"lateness">>]])}.

-spec comparison() -> [field()].
comparison() ->
    [{required, <<"against">>, text},
     {optional, <<"test">>, text},
     {optional, <<"interval">>, basis()},
     {optional, <<"change_pct">>, {either, [number, null]}},
     {optional, <<"ci95_pct">>, interval},
     {optional, <<"ci_pct">>, interval},
     {optional, <<"significant">>, bool},
     {optional, <<"significant_at_confidence">>, bool},
     {optional, <<"p">>, {either, [number, null]}},
     {optional, <<"verdict">>, text},
     {optional, <<"verdict_at_confidence">>, text},
     {optional, <<"better">>, text},
     {optional, <<"noise_pct">>, number},
     {optional, <<"confidence">>, number},
     {optional, <<"within_noise">>, bool},
     {optional, <<"within_noise_at_confidence">>, bool},
     {optional, <<"reason">>, {either, [text, null]}}].

-spec baseline() -> [field()].
baseline() ->
    [{required, <<"file">>, text},
     {required, <<"match">>, text},
     {optional, <<"verdict">>, text},
     {optional, <<"change_pct">>, {either, [number, null]}},
     {optional, <<"ci95_pct">>, interval},
     {optional, <<"interval">>, basis()},
     {optional, <<"run_noise_pct">>, number},
     {optional, <<"significant">>, bool},
     {optional, <<"text">>, text},
     {optional, <<"figure">>, {enum, [<<"cpu">>, <<"wall">>, <<"reference">>]}},
     {optional, <<"run_noise_source">>, text},
     {optional, <<"reason">>, {either, [text, null]}},
     {optional, ?INTERFERENCE, {fields, [{required, K, {either, [number, null]}}
                                              || K <- [<<"baseline">>, <<"run">>]]}},
     {optional, <<"environment">>, {list, {fields, [{required, <<"key">>, text},
                                                    {required, <<"baseline">>, {either, [text, number, bool, null]}},
                                                    {required, <<"run">>, {either, [text, number, bool, null]}}]}}},
     %% the settings of the two runs that differ (erlperf_comparable)
     {optional, <<"options">>,
      {list, {fields, [{required, <<"key">>, text}
                       | [{required, K, {either, [text, number, null]}}
                          || K <- [<<"baseline">>, <<"run">>]]]}}},
     {optional, <<"counts">>, {list, {fields, [{required, <<"count">>, text},
                                               {required, <<"baseline">>, number},
                                               {required, <<"run">>, number},
                                               {required, <<"change_pct">>, {either, [number, null]}},
                                               {required, <<"verdict">>, text}]}}}].

%% What an interval knows: the variation between forks, or within one run.
-spec basis() -> type().
basis() ->
    {enum, [<<"forks">>, <<"single_run">>]}.

-spec profile() -> [field()].
profile() ->
    [{required, <<"tool">>, text},
     {required, <<"duration_ms">>, non_neg_int},
     {optional, <<"memory_ms">>, non_neg_int},
     {required, <<"workers">>, non_neg_int},
     {required, <<"total_calls">>, non_neg_int},
     {required, <<"total_us">>, {either, [number, null]}},
     {required, <<"functions">>, {list, {fields, [{required, <<"function">>, text},
                                                 {required, <<"calls">>, non_neg_int},
                                                 {required, <<"time_us">>, {either, [number, null]}},
                                                 {required, <<"percent">>, number},
                                                 {optional, <<"bytes_per_call">>, number}]}}}].

%% A performance test's results.json (erlperf_perf_results).
-spec perf_test() -> [field()].
perf_test() ->
    Series = {list, {list, number}},
    [{required, ?VERSION, pos_int},
     {required, ?LOAD_GENERATOR, text},
     {optional, <<"test">>, text},
     {optional, ?STARTED, text},
     {required, ?SIZE_LABEL, text},
     {optional, <<"sizes">>, {list, non_neg_int}},
     {optional, ?TRACE_PATTERNS, {list, text}},
     {optional, ?OPTIONS, {map_of, any}},
     {optional, ?SYSTEM, {map_of, {either, [text, number, bool, null]}}},
     {optional, ?REQUIREMENTS, {list, {fields, requirement()}}},
     {required, ?RUNS, {list, {fields, perf_run(Series)}}}].

-spec requirement() -> [field()].
requirement() ->
    [{optional, <<"requirement">>, text},
     {optional, <<"subject">>, text},
     {optional, ?SIZE, non_neg_int},
     {optional, <<"limit">>, {either, [number, null]}},
     {optional, <<"measured">>, {either, [number, null]}},
     {optional, <<"pass">>, bool},
     {optional, <<"note">>, {either, [text, null]}}].

-spec perf_run(type()) -> [field()].
perf_run(Series) ->
    Function = [{optional, <<"mfa">>, text}, {optional, <<"node">>, text},
                {optional, <<"calls">>, non_neg_int}, {optional, <<"calls_discovering">>, non_neg_int},
                {optional, <<"time_us">>, number}, {optional, <<"time_us_raw">>, number},
                {optional, <<"time_per_call_us">>, {either, [number, null]}},
                {optional, <<"per_process">>, {list, {map_of, any}}}],
    Process = [{optional, <<"pid">>, text}, {optional, <<"node">>, text},
               {optional, <<"name">>, {either, [text, null]}},
               {optional, <<"found_by">>, {either, [text, null]}},
               {optional, <<"exited">>, any}
               | [{optional, K, Series} || K <- [<<"memory">>, <<"message_queue_len">>,
                                                <<"reductions">>]]],
    Metrics = [{optional, <<"active_max">>, number}
               | [{optional, K, Series} || K <- [<<"memory_total">>, <<"process_count">>,
                                                <<"scheduler_utilisation">>]]],
    [{required, ?SIZE, non_neg_int},
     {required, ?STATUS, text},
     {required, <<"error">>, {either, [text, null]}},
     {optional, <<"duration_ms">>, {either, [number, null]}},
     {optional, <<"nodes">>, {list, text}},
     {required, <<"functions">>, {list, {fields, Function}}},
     {required, <<"processes">>, {list, {fields, Process}}},
     {optional, <<"node_metrics">>, {map_of, {fields, Metrics}}},
     {optional, <<"discovery_by_node">>, {map_of, Series}},
     {optional, <<"impact_us_per_call">>, {either, [number, null]}},
     {optional, <<"impact_counting_us_per_call">>, {either, [number, null]}},
     {optional, <<"impact_us_per_call_by_node">>, {map_of, {either, [number, null]}}},
     {optional, <<"impact_counting_us_per_call_by_node">>, {map_of, {either, [number, null]}}},
     {optional, <<"conflicts">>, {list, {map_of, any}}},
     {optional, <<"reloads">>, {list, {map_of, any}}},
     {optional, <<"custom_agents">>, {map_of, {map_of, any}}},
     {optional, <<"rate">>, {either, [null, rate_fields()]}}].

%%--------------------------------------------------------------------
%% Checking

%% What the fields' types cannot say: in a sweep, every run has every parameter.
-spec consistent(kind(), map()) -> ok.
consistent(benchmark, #{?RUNS := Runs} = Record) ->
    Names = erlperf_record:param_names(Record),
    _ = lists:foldl(fun (#{?PARAMS := Params}, I) ->
                            [throw({?MODULE, <<"runs[", (integer_to_binary(I))/binary, "].params.", N/binary>>,
                                    "present (a parameter of the sweep)"})
                             || N <- Names, not is_map_key(N, Params)],
                            I + 1
                    end, 0, Runs),
    _ = lists:foldl(fun (Run, I) -> forks_consistent(Run, I), cpu_consistent(Run, I), I + 1 end, 0, Runs),
    ok;
consistent(_PerfTestOrEntry, _Value) ->
    ok.

%% A forked run's sizes add up to its samples, and there is a mean per fork.
forks_consistent(#{<<"forks">> := #{<<"sizes">> := Sizes, <<"means">> := Means},
                   ?SAMPLES := Samples}, I) ->
    Path = <<"runs[", (integer_to_binary(I))/binary, "].forks">>,
    lists:sum(Sizes) =:= length(Samples)
        orelse throw({?MODULE, <<Path/binary, ".sizes">>, "adding up to the number of samples"}),
    length(Means) =:= length(Sizes)
        orelse throw({?MODULE, <<Path/binary, ".means">>, "a mean per fork"}),
    ok;
forks_consistent(_Run, _I) ->
    ok.

%% The samples with the host's interference taken out: one per sample.
cpu_consistent(#{?CPU_SAMPLES := Cpu, ?SAMPLES := Samples}, I) ->
    length(Cpu) =:= length(Samples)
        orelse throw({?MODULE, <<"runs[", (integer_to_binary(I))/binary, "].cpu_samples">>,
                      "a value per sample"}),
    ok;
cpu_consistent(_Run, _I) ->
    ok.

-spec value(binary(), term(), type()) -> ok.
value(Path, Value, {fields, Fields}) when is_map(Value) ->
    lists:foreach(fun (Field) -> field(Path, Value, Field) end, Fields);
value(Path, Value, {list, Type}) when is_list(Value) ->
    elements(Path, Value, Type);
value(Path, [_ | _] = Value, {nonempty, Type}) ->
    elements(Path, Value, Type);
value(Path, Value, {map_of, Type}) when is_map(Value) ->
    maps:foreach(fun (K, V) -> value(join(Path, K), V, Type) end, Value);
value(Path, Value, {either, Types}) ->
    lists:any(fun (T) -> matches(Value, T) end, Types) orelse wrong(Path, {either, Types}),
    ok;
value(Path, Value, number) when is_number(Value) ->
    figure(Value) orelse throw({?MODULE, Path, ?FIGURE_TEXT}),
    ok;
value(Path, Value, Type) ->
    matches(Value, Type) orelse wrong(Path, Type),
    ok.

-spec field(binary(), map(), field()) -> ok.
field(Path, Map, {together, Keys}) ->
    case [K || K <- Keys, not is_map_key(K, Map)] of
        Missing when Missing =:= []; length(Missing) =:= length(Keys) -> ok;
        [Key | _] -> throw({?MODULE, join(Path, Key), "present (it goes with " ++
                                binary_to_list(hd(Keys -- [Key])) ++ ")"})
    end;
field(Path, Map, {Presence, Key, Type}) ->
    case Map of
        #{Key := Value} -> value(join(Path, Key), Value, Type);
        #{} when Presence =:= optional -> ok;
        #{} -> throw({?MODULE, join(Path, Key), "present"})
    end.

-spec elements(binary(), list(), type()) -> ok.
elements(Path, List, Type) ->
    _ = lists:foldl(fun (V, I) ->
                            value(<<Path/binary, $[, (integer_to_binary(I))/binary, $]>>, V, Type),
                            I + 1
                    end, 0, List),
    ok.

%% Whether a value is of a type without parts to check.
-spec matches(term(), type()) -> boolean().
matches(V, int) -> is_integer(V);
matches(V, pos_int) -> is_integer(V) andalso V > 0;
matches(V, non_neg_int) -> is_integer(V) andalso V >= 0;
matches(V, number) -> is_number(V) andalso figure(V);
matches(V, text) -> is_binary(V);
matches(V, bool) -> is_boolean(V);
matches(V, null) -> V =:= null;
matches(_V, any) -> true;
matches(null, interval) -> true;
matches([Lo, Hi], interval) -> matches(Lo, number) andalso matches(Hi, number);
matches(V, {enum, Texts}) -> lists:member(V, Texts);
matches(V, {fields, _} = Type) -> is_map(V) andalso checks(V, Type);
matches(V, {list, _} = Type) -> is_list(V) andalso checks(V, Type);
matches(_V, _Type) -> false.

%% Whether a number read back is a figure erlperf can compute with (see ?MAX_FIGURE).
-spec figure(number()) -> boolean().
figure(V) ->
    abs(V) =< ?MAX_FIGURE.

%% A structured alternative of `either': whether its parts check.
-spec checks(term(), type()) -> boolean().
checks(V, Type) ->
    try value(<<>>, V, Type) =:= ok
    catch throw:{?MODULE, _, _} -> false
    end.

-spec wrong(binary(), type()) -> no_return().
wrong(Path, Type) ->
    throw({?MODULE, Path, expected(Type)}).

-spec expected(type()) -> string().
expected(int) -> "an integer";
expected(pos_int) -> "a positive integer";
expected(non_neg_int) -> "a non-negative integer";
expected(number) -> "a number";
expected(text) -> "a string";
expected(bool) -> "true or false";
expected(null) -> "null";
expected(any) -> "anything";
expected(interval) -> "an interval [low, high] or null";
expected({enum, Texts}) -> lists:flatten(lists:join(" or ", [binary_to_list(T) || T <- Texts]));
expected({list, _}) -> "a list";
expected({nonempty, _}) -> "a non-empty list";
expected({map_of, _}) -> "an object";
expected({fields, _}) -> "an object";
expected({either, Types}) -> lists:flatten(lists:join(" or ", [expected(T) || T <- Types])).

-spec join(binary(), binary()) -> binary().
join(<<>>, Key) -> Key;
join(Path, Key) -> <<Path/binary, $., Key/binary>>.
