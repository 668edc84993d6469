%%% @doc The shape of a benchmark results record read back from a file (`--save',
%%% `--format json'): every field that a reader of the record (the text tables, CSV,
%%% Markdown, HTML, a `--baseline' comparison) takes from it, with the type it must have.
%%% A record that passes can be rendered and compared; one that does not is refused
%%% with the first field that is wrong, so that a hand-edited or foreign file is a clear
%%% usage error, never a crash half-way through a report. Pure.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>path</b>: where a field is, as text: `runs[2].samples[0]' (runs counted
%%%       from 0).</li>
%%%   <li><b>perf-test results</b>: the `results.json' of `--perf-test' (it has
%%%       `load_generator'); it is not a benchmark record, and the reason says so.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% 1> erlperf_record_check:check(#{<<"version">> => 1, <<"runs">> => []}).
%%% {error,{<<"runs">>,"a non-empty list"}}
%%% 2> erlperf_record_check:format_error({<<"runs">>, "a non-empty list"}).
%%% "field runs is not a non-empty list"
%%% '''
-module(erlperf_record_check).

%% API: called by erlperf_baseline (--baseline), erlperf_perf_results (a performance
%% test's --baseline) and erlperf_render (--render)
-export([check/1, check/2, format_error/1]).

-export_type([reason/0]).

%% The first wrong field: its path, and what it should have been; or a record of the
%% other kind.
-type reason() :: {Path :: binary(), Expected :: string()} | perf_test_results
                | benchmark_record.
%% A benchmark's record, or a performance test's results.
-type kind() :: benchmark | perf_test.

%% A field's type.
-type type() :: int | pos_int | non_neg_int | number | text | bool | null | any
              | interval | {enum, [binary()]} | {list, type()} | {nonempty, type()}
              | {map_of, type()} | {fields, [field()]} | {either, [type()]}.
-type field() :: {required | optional, binary(), type()}
               | {together, [binary()]}.   % all of these, or none

%%--------------------------------------------------------------------
%% API

%% @doc `ok' when the decoded JSON value is a benchmark record this version reads;
%% else the first wrong field.
-spec check(term()) -> ok | {error, reason()}.
check(Record) ->
    check(benchmark, Record).

%% @doc `ok' when the decoded JSON value is a record of the kind this version reads.
-spec check(kind(), term()) -> ok | {error, reason()}.
check(benchmark, #{<<"load_generator">> := _}) ->
    {error, perf_test_results};
check(perf_test, #{<<"runs">> := _} = Record) when not is_map_key(<<"load_generator">>, Record) ->
    {error, benchmark_record};
check(Kind, Record) ->
    try
        value(<<>>, Record, {fields, schema(Kind)}),
        consistent(Kind, Record)
    catch throw:{?MODULE, Path, Expected} -> {error, {Path, Expected}}
    end.

%% @doc The reason as text, without the file name.
-spec format_error(reason()) -> string().
format_error(perf_test_results) ->
    "a --perf-test results.json, not a benchmark record (--save writes one)";
format_error(benchmark_record) ->
    "a benchmark record, not a --perf-test results.json";
format_error({<<>>, Expected}) ->
    "not " ++ Expected;
format_error({Path, Expected}) ->
    lists:flatten(io_lib:format("field ~ts is not ~ts", [Path, Expected])).

%%--------------------------------------------------------------------
%% The schema

-spec schema(kind()) -> [field()].
schema(benchmark) -> record();
schema(perf_test) -> perf_test().

-spec record() -> [field()].
record() ->
    [{required, <<"version">>, pos_int},
     {required, <<"runs">>, {nonempty, {fields, run()}}},
     {optional, <<"system">>, {map_of, {either, [text, number, bool, null]}}},
     {optional, <<"options">>, {fields, [{optional, <<"params">>, {list, {fields, param()}}},
                                         {optional, <<"bytes">>, {either, [number, text, null]}}]}},
     {optional, <<"compare">>, text}].

%% A sweep's parameter in the record's options.
-spec param() -> [field()].
param() ->
    [{required, <<"name">>, text},
     {required, <<"values">>, {nonempty, {either, [number, text]}}}].

-spec run() -> [field()].
run() ->
    Numbers = [{optional, K, number} || K <- [<<"stddev">>, <<"median">>, <<"p99">>, <<"min">>,
                                             <<"max">>, <<"confidence">>, <<"cv_goal">>]],
    [{required, <<"label">>, text},
     {required, <<"mode">>, {enum, [<<"continuous">>, <<"timed">>, <<"concurrency">>]}},
     {required, <<"samples">>, {nonempty, number}},
     {required, <<"average">>, number},
     {required, <<"qps">>, number},
     {required, <<"concurrency">>, pos_int},
     {optional, <<"code">>, {either, [text, null]}},
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
                                                   <<"high_severe_fence">>, <<"median">>, <<"q1">>,
                                                   <<"q3">>, <<"iqr">>]]}},
     {optional, <<"iteration_ns">>, {either, [number, null]}},
     {optional, <<"sleep">>, text},
     {optional, <<"overdue">>, non_neg_int},
     {optional, <<"time_us">>, non_neg_int},
     {required, <<"params">>, {map_of, {either, [number, text]}}},
     {together, [<<"best_concurrency">>, <<"steps">>]},
     {optional, <<"dead_code">>, {list, text}},
     {optional, <<"interpreted">>, {list, text}},
     {optional, <<"interpreted_call_ns">>, {either, [number, null]}},
     {optional, <<"cv_met">>, bool},
     {optional, <<"best">>, bool},
     {optional, <<"bytes_processed_per_iteration">>, number},
     {optional, <<"bytes_per_second">>, number},
     {optional, <<"best_concurrency">>, pos_int},
     {optional, <<"steps">>, {list, {fields, [{required, <<"concurrency">>, pos_int},
                                              {required, <<"average">>, number},
                                              {required, <<"qps">>, number}]}}},
     {optional, <<"comparison">>, {fields, comparison()}},
     {optional, <<"baselines">>, {list, {fields, baseline()}}},
     {optional, <<"profile">>, {fields, profile()}},
     {optional, <<"counts">>, {fields, [{required, <<"bytes_per_iteration">>, {either, [number, null]}},
                                        {required, <<"reductions_per_iteration">>, number},
                                        {optional, <<"memory_method">>, text},
                                        {optional, <<"iterations">>, pos_int}]}},
     {optional, <<"interference">>, {fields, [{required, <<"share">>, {either, [number, null]}},
                                              {required, <<"samples">>, {list, {either, [number, null]}}}
                                              | [{optional, K, {either, [number, null]}}
                                                 || K <- [<<"cpu_ns">>, <<"wait_ns">>, <<"wall_ns">>,
                                                          <<"demand">>, <<"pressure">>, <<"steal">>,
                                                          <<"others">>]]]}},
     {optional, <<"cpu_samples">>, {nonempty, number}},
     {optional, <<"cpu_qps">>, {either, [number, null]}}
     | Numbers ++ cost() ++ latency()].

-spec cost() -> [field()].
cost() ->
    [{together, [<<"bytes_per_iteration">>, <<"reductions_per_iteration">>,
                  <<"cpu_ns_per_iteration">>]},
     {optional, <<"bytes_per_iteration">>, {either, [number, null]}},
     {optional, <<"memory_method">>, text}
     | [{optional, K, number} || K <- [<<"reductions_per_iteration">>, <<"cpu_ns_per_iteration">>,
                                      <<"wall_ns_per_iteration">>]]].

-spec latency() -> [field()].
latency() ->
    [{optional, <<"latency_us">>, {either, [null, {fields, [{required, K, number}
                                                           || K <- [<<"p50">>, <<"p90">>, <<"p99">>,
                                                                    <<"p999">>, <<"max">>, <<"min">>,
                                                                    <<"average">>, <<"stddev">>]]}]}},
     {together, [<<"latency_us">>, <<"latency_calls">>, <<"latency_timer_us">>,
                 <<"latency_unfinished">>]},
     {optional, <<"latency_calls">>, non_neg_int},
     {optional, <<"latency_timer_us">>, number},
     {optional, <<"latency_unfinished">>, bool}].

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
     {optional, <<"figure">>, {enum, [<<"cpu">>, <<"wall">>]}},
     {optional, <<"run_noise_source">>, text},
     {optional, <<"reason">>, {either, [text, null]}},
     {optional, <<"interference">>, {fields, [{required, K, {either, [number, null]}}
                                              || K <- [<<"baseline">>, <<"run">>]]}},
     {optional, <<"environment">>, {list, {fields, [{required, <<"key">>, text},
                                                    {required, <<"baseline">>, {either, [text, number, bool, null]}},
                                                    {required, <<"run">>, {either, [text, number, bool, null]}}]}}},
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
    [{required, <<"version">>, pos_int},
     {required, <<"load_generator">>, text},
     {optional, <<"test">>, text},
     {optional, <<"started">>, text},
     {required, <<"size_label">>, text},
     {optional, <<"sizes">>, {list, non_neg_int}},
     {optional, <<"trace_patterns">>, {list, text}},
     {optional, <<"options">>, {map_of, any}},
     {optional, <<"system">>, {map_of, {either, [text, number, bool, null]}}},
     {optional, <<"requirements">>, {list, {fields, requirement()}}},
     {required, <<"runs">>, {list, {fields, perf_run(Series)}}}].

-spec requirement() -> [field()].
requirement() ->
    [{optional, <<"requirement">>, text},
     {optional, <<"subject">>, text},
     {optional, <<"size">>, non_neg_int},
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
    [{required, <<"size">>, non_neg_int},
     {required, <<"status">>, text},
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
     {optional, <<"custom_agents">>, {map_of, {map_of, any}}}].

%%--------------------------------------------------------------------
%% Checking

%% What the fields' types cannot say: in a sweep, every run has every parameter.
-spec consistent(kind(), map()) -> ok.
consistent(benchmark, #{<<"runs">> := Runs} = Record) ->
    Names = erlperf_record:param_names(Record),
    _ = lists:foldl(fun (#{<<"params">> := Params}, I) ->
                            [throw({?MODULE, <<"runs[", (integer_to_binary(I))/binary, "].params.", N/binary>>,
                                    "present (a parameter of the sweep)"})
                             || N <- Names, not is_map_key(N, Params)],
                            I + 1
                    end, 0, Runs),
    _ = lists:foldl(fun (Run, I) -> forks_consistent(Run, I), cpu_consistent(Run, I), I + 1 end, 0, Runs),
    ok;
consistent(perf_test, _Record) ->
    ok.

%% A forked run's sizes add up to its samples, and there is a mean per fork.
forks_consistent(#{<<"forks">> := #{<<"sizes">> := Sizes, <<"means">> := Means},
                   <<"samples">> := Samples}, I) ->
    Path = <<"runs[", (integer_to_binary(I))/binary, "].forks">>,
    lists:sum(Sizes) =:= length(Samples)
        orelse throw({?MODULE, <<Path/binary, ".sizes">>, "adding up to the number of samples"}),
    length(Means) =:= length(Sizes)
        orelse throw({?MODULE, <<Path/binary, ".means">>, "a mean per fork"}),
    ok;
forks_consistent(_Run, _I) ->
    ok.

%% The samples with the host's interference taken out: one per sample.
cpu_consistent(#{<<"cpu_samples">> := Cpu, <<"samples">> := Samples}, I) ->
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
matches(V, number) -> is_number(V);
matches(V, text) -> is_binary(V);
matches(V, bool) -> is_boolean(V);
matches(V, null) -> V =:= null;
matches(_V, any) -> true;
matches(null, interval) -> true;
matches([Lo, Hi], interval) -> is_number(Lo) andalso is_number(Hi);
matches(V, {enum, Texts}) -> lists:member(V, Texts);
matches(V, {fields, _} = Type) -> is_map(V) andalso checks(V, Type);
matches(V, {list, _} = Type) -> is_list(V) andalso checks(V, Type);
matches(_V, _Type) -> false.

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
