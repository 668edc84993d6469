%%% @doc Records read back from files: every saved record of the test data passes and
%%% reads back, the broken, foreign and newer ones users reach are refused naming the
%%% field or the version, by every reader alike, and a fuzz of mutated records and random
%%% bytes never gets past the check to crash a reader (the HTML pages, the text, CSV and
%%% Markdown tables, a --baseline comparison).
-module(erlperf_schema_tests).

-include_lib("eunit/include/eunit.hrl").

%% Mutations tried on each saved record; the seed is fixed so a failure repeats.
-define(MUTATIONS, 250).
-define(SEED, {20, 11, 2026}).
%% Random byte strings tried as files.
-define(BYTE_STRINGS, 200).
-define(TIMEOUT_S, 240).

%%--------------------------------------------------------------------
%% Saved records pass

saved_records_pass_test() ->
    [?assertEqual({File, ok}, {File, erlperf_schema:check(Kind, read(File))})
     || {Kind, File} <- fixtures()].

%%--------------------------------------------------------------------
%% What users reach

hostile_cases_test_() ->
    Bench = read(bench_fixture("memory_latency.json")),
    Perf = read(perf_fixture("httpd.json")),
    [Run | _] = maps:get(<<"runs">>, Bench),
    Cases = [{"samples empty", benchmark, Bench#{<<"runs">> := [Run#{<<"samples">> := []}]},
              "field runs[0].samples is not a non-empty list"},
             {"samples a string", benchmark, Bench#{<<"runs">> := [Run#{<<"samples">> := <<"x">>}]},
              "field runs[0].samples is not a non-empty list"},
             {"a sample a string", benchmark, Bench#{<<"runs">> := [Run#{<<"samples">> := [1, <<"x">>]}]},
              "field runs[0].samples[1] is not a number"},
             {"system null", benchmark, Bench#{<<"system">> := null},
              "field system is not an object"},
             {"no runs", benchmark, Bench#{<<"runs">> := []},
              "field runs is not a non-empty list"},
             {"version a string", benchmark, Bench#{<<"version">> := <<"1">>},
              "field version is not a positive integer"},
             {"label missing", benchmark, Bench#{<<"runs">> := [maps:remove(<<"label">>, Run)]},
              "field runs[0].label is not present"},
             {"latency a list", benchmark, Bench#{<<"runs">> := [Run#{<<"latency_us">> := [1]}]},
              "field runs[0].latency_us is not null or an object"},
             {"not an object", benchmark, [1, 2], "not an object"},
             {"perf results as a benchmark", benchmark, Perf,
              "a --perf-test results.json, not a benchmark record (--save writes one)"},
             {"benchmark as perf results", perf_test, Bench,
              "a benchmark record, not a --perf-test results.json"},
             {"perf runs an object", perf_test, Perf#{<<"runs">> := #{}},
              "field runs is not a list"}],
    [{Name, ?_assertEqual(Text, format(erlperf_schema:check(Kind, Record)))}
     || {Name, Kind, Record, Text} <- Cases].

format({error, Reason}) -> erlperf_schema:format_error(Reason);
format(ok) -> ok.

%% The command line's readers refuse a broken file with the file's name and the field.
readers_name_file_and_field_test() ->
    Dir = temp_dir(),
    Bench = read(bench_fixture("memory_latency.json")),
    [Run | _] = maps:get(<<"runs">>, Bench),
    File = filename:join(Dir, "broken.json"),
    ok = file:write_file(File, erlperf_json:encode(Bench#{<<"runs">> := [Run#{<<"samples">> := []}]})),
    {error, Baseline} = erlperf_baseline:load(File),
    ?assertEqual("baseline " ++ File ++ ": field runs[0].samples is not a non-empty list",
                 erlperf_baseline:format_error(Baseline)),
    {error, Render} = erlperf_render:render(File, Dir),
    ?assertEqual(File ++ ": field runs[0].samples is not a non-empty list",
                 erlperf_render:format_error(Render)),
    ?assertEqual([], filelib:wildcard(filename:join(Dir, "*.html"))),
    ok = file:del_dir_r(Dir).

%% One reader for every kind: each saved file of the test data reads back as itself and
%% as `any', and a store's entry holding it reads back as an entry.
read_test() ->
    Dir = temp_dir(),
    Entry = filename:join(Dir, "entry.json"),
    [begin
         Value = read(File),
         ?assertEqual({File, {ok, Value}}, {File, erlperf_schema:read(File, Kind)}),
         ?assertEqual({File, {ok, Value}}, {File, erlperf_schema:read(File, any)}),
         ?assertEqual({ok, Kind}, erlperf_schema:kind(Value))
     end || {Kind, File} <- fixtures()],
    Bench = read(bench_fixture("timed.json")),
    ok = file:write_file(Entry, erlperf_json:encode(entry(Bench))),
    ?assertEqual({ok, entry(Bench)}, erlperf_schema:read(Entry, store_entry)),
    ok = file:del_dir_r(Dir).

%% What a reader refuses before the fields, and the reason's text (without the file).
read_errors_test_() ->
    Dir = temp_dir(),
    File = filename:join(Dir, "file.json"),
    Bench = read(bench_fixture("timed.json")),
    Perf = read(perf_fixture("httpd.json")),
    %% the file holds Value (none: there is no file)
    Read = fun (Kind, Value) ->
                   _ = file:delete(File),
                   _ = [ok = file:write_file(File, Value) || Value =/= none],
                   {error, Reason} = erlperf_schema:read(File, Kind),
                   {Reason, erlperf_schema:format_error(Reason)}
           end,
    Json = fun erlperf_json:encode/1,
    Cases = [{"missing", benchmark, none, {enoent, "no such file or directory"}},
             {"not JSON", benchmark, <<"{\"version\": ">>, {{json, '_'}, '_'}},
             {"not a record", any, Json([1, 2]),
              {not_a_record, "not an erlperf results record (a --save/--format json record "
                             "or a --perf-test results.json)"}},
             {"no known field", any, Json(#{<<"a">> => 1}), {not_a_record, '_'}},
             {"a newer record", benchmark, Json(Bench#{<<"version">> := 2}),
              {{newer_version, benchmark, 2}, "written by a newer erlperf (record version 2; this one reads 1)"}},
             {"a newer record, as any", any, Json(Bench#{<<"version">> := 2}),
              {{newer_version, benchmark, 2}, '_'}},
             {"newer perf results", perf_test, Json(Perf#{<<"version">> := 3}),
              {{newer_version, perf_test, 3}, "written by a newer erlperf (record version 3; this one reads 1)"}},
             {"a version as text", benchmark, Json(Bench#{<<"version">> := <<"2">>}),
              {{record, {<<"version">>, "a positive integer"}}, "field version is not a positive integer"}},
             {"a newer entry", store_entry, Json((entry(Bench))#{<<"store_version">> := 99}),
              {{newer_version, store_entry, 99}, "written by a newer erlperf (store version 99; this one reads 1)"}},
             {"an entry without time", store_entry, Json(maps:remove(<<"time">>, entry(Bench))),
              {not_an_entry, "not a results store entry"}},
             {"a record as an entry", store_entry, Json(Bench), {not_an_entry, '_'}},
             {"an entry of a newer record", store_entry, Json(entry(Bench#{<<"version">> := 2})),
              {{newer_version, benchmark, 2}, '_'}},
             {"an entry of a broken record", store_entry, Json(entry(Bench#{<<"runs">> := []})),
              {{record, {<<"runs">>, "a non-empty list"}}, "field runs is not a non-empty list"}}],
    {setup, fun () -> ok end, fun (_) -> file:del_dir_r(Dir) end,
     [{Name, fun () ->
                     Got = Read(Kind, Value),
                     ?assert(matches(Expected, Got), {Expected, Got})
             end} || {Name, Kind, Value, Expected} <- Cases]}.

%% A pattern of the cases above: '_' matches anything.
matches('_', _) -> true;
matches(T, V) when is_tuple(T), is_tuple(V), tuple_size(T) =:= tuple_size(V) ->
    lists:all(fun ({A, B}) -> matches(A, B) end, lists:zip(tuple_to_list(T), tuple_to_list(V)));
matches(T, V) -> T =:= V.

%% The four readers name the file and say the same reason: a record of a newer erlperf.
readers_refuse_a_newer_layout_test() ->
    Dir = temp_dir(),
    Bench = read(bench_fixture("timed.json")),
    Perf = read(perf_fixture("httpd.json")),
    Newer = " written by a newer erlperf (record version 2; this one reads 1)",
    File = filename:join(Dir, "newer.json"),
    ok = file:write_file(File, erlperf_json:encode(Bench#{<<"version">> := 2})),
    {error, Baseline} = erlperf_baseline:load(File),
    ?assertEqual("baseline " ++ File ++ ":" ++ Newer, erlperf_baseline:format_error(Baseline)),
    {error, Render} = erlperf_render:render(File, Dir),
    ?assertEqual(File ++ ":" ++ Newer, erlperf_render:format_error(Render)),
    PerfFile = filename:join(Dir, "perf.json"),
    ok = file:write_file(PerfFile, erlperf_json:encode(Perf#{<<"version">> := 2})),
    {error, PerfBaseline} = erlperf_perf_results:read(PerfFile),
    ?assertEqual("baseline " ++ PerfFile ++ ":" ++ Newer, erlperf_perf_test:format_error(PerfBaseline)),
    Runs = filename:join(Dir, "runs"),
    ok = filelib:ensure_dir(filename:join(Runs, "x")),
    Stored = filename:join(Runs, "1.json"),
    ok = file:write_file(Stored, erlperf_json:encode(entry(Bench#{<<"version">> := 2}))),
    {[], [Problem]} = erlperf_store:runs(Dir),
    ?assertEqual(Stored ++ ":" ++ Newer ++ ": skipped", erlperf_store:format_error(Problem)),
    ?assertEqual([], filelib:wildcard(filename:join(Dir, "*.html"))),
    ok = file:del_dir_r(Dir).

%%--------------------------------------------------------------------
%% Fuzz

mutated_records_test_() ->
    {timeout, ?TIMEOUT_S,
     fun () ->
             _ = rand:seed(exsss, ?SEED),
             Outcomes = [mutate_and_read(Kind, read(File)) || {Kind, File} <- fixtures(),
                                                             _ <- lists:seq(1, ?MUTATIONS)],
             %% both outcomes happen: the fuzz reaches the readers and the check
             ?assert(lists:member(read, Outcomes)),
             ?assert(lists:member(refused, Outcomes))
     end}.

random_bytes_test_() ->
    {timeout, ?TIMEOUT_S,
     fun () ->
             _ = rand:seed(exsss, ?SEED),
             Dir = temp_dir(),
             File = filename:join(Dir, "random.json"),
             Valid = iolist_to_binary(erlperf_json:encode(read(bench_fixture("one_sample.json")))),
             [begin
                  ok = file:write_file(File, Bytes),
                  {error, B} = erlperf_baseline:load(File),
                  ?assert(io_lib:char_list(erlperf_baseline:format_error(B))),
                  {error, R} = erlperf_render:render(File, Dir),
                  ?assert(io_lib:char_list(erlperf_render:format_error(R)))
              end || Bytes <- [random_bytes() || _ <- lists:seq(1, ?BYTE_STRINGS)]
                               ++ [binary:part(Valid, 0, N) || N <- cuts(byte_size(Valid))]],
             ok = file:del_dir_r(Dir)
     end}.

%% A record with one field replaced or removed: refused with a readable reason, or read
%% by every reader without a crash.
mutate_and_read(Kind, Record) ->
    Mutated = mutate(Record),
    case erlperf_schema:check(Kind, Mutated) of
        ok ->
            try readers(Kind, Mutated)
            catch C:R:S -> erlang:error({reader_crashed, Mutated, C, R, S})
            end,
            read;
        {error, Reason} ->
            Text = erlperf_schema:format_error(Reason),
            ?assert(io_lib:char_list(Text)),
            refused
    end.

readers(benchmark, Record) ->
    _ = erlperf_html_bench:render(Record),
    _ = [erlperf_output:render(Format, Record, #{}) || Format <- [text, csv, markdown, json]],
    Rows = erlperf_baseline:compare([{"fuzz.json", Record}], Record, #{}),
    _ = erlperf_baseline:format(Rows),
    _ = erlperf_gate:regressions(Rows, 5),
    ok;
readers(perf_test, Record) ->
    _ = erlperf_html_perf:render(Record),
    _ = erlperf_perf_results:summary(Record),
    ok.

%% One random place of the value: a field replaced by a random JSON value, a field
%% removed, or a list element replaced.
mutate(Value) when is_map(Value), map_size(Value) > 0 ->
    Keys = maps:keys(Value),
    Key = lists:nth(rand:uniform(length(Keys)), Keys),
    case rand:uniform(4) of
        1 -> Value#{Key := random_json(2)};
        2 -> maps:remove(Key, Value);
        _ -> Value#{Key := mutate(maps:get(Key, Value))}
    end;
mutate([_ | _] = List) ->
    I = rand:uniform(length(List)),
    {Before, [E | After]} = lists:split(I - 1, List),
    case rand:uniform(3) of
        1 -> Before ++ [random_json(2) | After];
        _ -> Before ++ [mutate(E) | After]
    end;
mutate(_Scalar) ->
    random_json(2).

random_json(Depth) ->
    case rand:uniform(case Depth of 0 -> 6; _ -> 8 end) of
        1 -> null;
        2 -> rand:uniform(3) =:= 1;
        3 -> rand:uniform(2000) - 1000;
        4 -> (rand:uniform() - 0.5) * 1.0e6;
        5 -> <<"x">>;
        6 -> 0;
        7 -> [random_json(Depth - 1) || _ <- lists:seq(1, rand:uniform(3) - 1)];
        8 -> #{<<"a">> => random_json(Depth - 1)}
    end.

random_bytes() ->
    crypto_free_bytes(rand:uniform(64)).

crypto_free_bytes(N) ->
    << <<(rand:uniform(256) - 1)>> || _ <- lists:seq(1, N) >>.

%% Prefixes of a valid record: a file cut off while written.
cuts(Size) ->
    [0, 1, Size div 3, Size div 2, Size - 1].

%%--------------------------------------------------------------------
%% Helpers

fixtures() ->
    [{benchmark, bench_fixture(F)} || F <- ["baseline.json", "memory_latency.json", "one_sample.json",
                                            "squeeze_profile.json", "sweep.json",
                                            "sweep_two_params.json", "timed.json"]]
        ++ [{perf_test, perf_fixture(F)} || F <- ["det_failed.json", "httpd.json", "invariants.json"]].

bench_fixture(Name) ->
    filename:join(data_dir("erlperf_html_bench_tests_data"), Name).

perf_fixture(Name) ->
    filename:join(data_dir("erlperf_html_perf_tests_data"), Name).

data_dir(Dir) ->
    filename:join(filename:dirname(?FILE), Dir).

%% A store's entry of a record, as erlperf_store writes it.
entry(Record) ->
    #{<<"store_version">> => 1, <<"time">> => <<"2026-11-25T08:00:00Z">>, <<"commit">> => null,
      <<"record">> => Record}.

read(File) ->
    {ok, Bin} = file:read_file(File),
    {ok, Map} = erlperf_json:decode(Bin),
    Map.

temp_dir() ->
    Dir = filename:join(filename:basedir(user_cache, "erlperf_tests"),
                        "schema_" ++ os:getpid() ++ "_" ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Dir.

%% A number past 1.0e75 (JSON takes 1e308) is refused, naming the field: arithmetic on
%% it overflowed (badarith) in --render and --history.
huge_figure_test() ->
    #{<<"runs">> := [Run | Runs]} = Record = read(bench_fixture("one_sample.json")),
    Huge = Record#{<<"runs">> := [Run#{<<"average">> := 1.0e308} | Runs]},
    {error, Reason} = erlperf_schema:check(benchmark, Huge),
    ?assertEqual("field runs[0].average is not a number of magnitude at most 1.0e75",
                 erlperf_schema:format_error(Reason)),
    Big = Record#{<<"runs">> := [Run#{<<"average">> := 123456789012345678901234567890} | Runs]},
    ?assertEqual(ok, erlperf_schema:check(benchmark, Big)).
