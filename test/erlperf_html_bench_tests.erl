%%% @doc Tests of the benchmark page, drawn from real records in
%%% test/erlperf_html_bench_tests_data/ (written by ./erlperf --format json, commands in
%%% its README): the charts' bars, points and whiskers are counted against the record.
-module(erlperf_html_bench_tests).

-include_lib("eunit/include/eunit.hrl").
-include_lib("stdlib/include/assert.hrl").

-define(EVIL, <<"<script>alert(\"x\")</script> & 'q'">>).
%% Seconds each test may take: each renders a record and parses its charts (tens of ms
%% here, far more on a loaded machine, where eunit's 5 s default would end the run).
-define(RENDER_TIMEOUT_S, 60).

%%--------------------------------------------------------------------
%% Two runners with --memory and --latency

throughput_bars_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun throughput_bars/0}.

throughput_bars() ->
    #{<<"runs">> := Runs} = Record = record("memory_latency.json"),
    Charts = charts(Record),
    {_, Doc} = lists:keyfind("Throughput, with 95% intervals", 1, Charts),
    Bars = erlperf_html_test_lib:bars(Doc),
    ?assertEqual([Qps || #{<<"qps">> := Qps} <- Runs], [V || {V, _, _} <- Bars]),
    %% the whiskers are the 95% interval of the average, scaled to one second
    Expected = [{Lo * Q / A, Hi * Q / A}
                || #{<<"ci95">> := [Lo, Hi], <<"qps">> := Q, <<"average">> := A} <- Runs],
    ?assertEqual(Expected, erlperf_html_test_lib:whiskers(Doc)),
    %% the verdict beside each bar: the fastest, and the other's against it
    [{_, _, First}, {_, _, Second}] = Bars,
    ?assertNotEqual(nomatch, string:find(First, "fastest")),
    ?assertNotEqual(nomatch, string:find(Second, "rand:uniform().")).

samples_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun samples/0}.

samples() ->
    #{<<"runs">> := Runs} = Record = record("memory_latency.json"),
    {_, Doc} = lists:keyfind("Samples in the order taken", 1, charts(Record)),
    ?assertEqual([{binary_to_list(L), lists:zip(lists:seq(1, length(S)), S)}
                  || #{<<"label">> := L, <<"samples">> := S} <- Runs],
                 erlperf_html_test_lib:series(Doc)),
    ?assertEqual(8, length(lists:append([S || #{<<"samples">> := S} <- Runs]))).

latency_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun latency/0}.

latency() ->
    #{<<"runs">> := Runs} = Record = record("memory_latency.json"),
    {_, Doc} = lists:keyfind("Latency percentiles", 1, charts(Record)),
    Keys = [<<"p50">>, <<"p90">>, <<"p99">>, <<"p999">>, <<"max">>],
    ?assertEqual([{binary_to_list(L), [{I, maps:get(K, Lat)} || {I, K} <- lists:zip([1, 2, 3, 4, 5], Keys)]}
                  || #{<<"label">> := L, <<"latency_us">> := Lat} <- Runs],
                 erlperf_html_test_lib:series(Doc)),
    %% the figures in a table as well, in their unit as the text tables write them
    Page = iolist_to_binary(erlperf_html_bench:render(Record)),
    [#{<<"latency_us">> := #{<<"p999">> := P999}} | _] = Runs,
    ?assertNotEqual(nomatch, binary:match(Page, list_to_binary([">", erlperf_units:time(P999 * 1000), "<"]))).

%% Tables write figures as the text tables do: no raw floats.
memory_table_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun memory_table/0}.

memory_table() ->
    #{<<"runs">> := [#{<<"cpu_ns_per_iteration">> := Cpu} | _]} = Record = record("memory_latency.json"),
    Page = iolist_to_binary(erlperf_html_bench:render(Record)),
    ?assertNotEqual(nomatch, binary:match(Page, list_to_binary([">", erlperf_units:time(Cpu), "<"]))),
    ?assertEqual(nomatch, binary:match(Page, float_to_binary(Cpu / 1, [short]))).

memory_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun memory/0}.

memory() ->
    #{<<"runs">> := Runs} = Record = record("memory_latency.json"),
    {_, Doc} = lists:keyfind("Heap allocated per call", 1, charts(Record)),
    ?assertEqual([B || #{<<"bytes_per_iteration">> := B} <- Runs],
                 [V || {V, _, _} <- erlperf_html_test_lib:bars(Doc)]).

no_sweep_no_baseline_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun no_sweep_no_baseline/0}.

no_sweep_no_baseline() ->
    Record = record("memory_latency.json"),
    Titles = [T || {T, _} <- charts(Record)],
    ?assertEqual(["Throughput, with 95% intervals", "Samples in the order taken",
                  "Latency percentiles", "Heap allocated per call"], Titles),
    Page = iolist_to_binary(erlperf_html_bench:render(Record)),
    ok = erlperf_html_test_lib:assert_page(Page),
    ?assertEqual(nomatch, binary:match(Page, [<<"<h2>Sweep">>, <<"<h2>Against the baselines">>])).

%%--------------------------------------------------------------------
%% Sweeps

sweep_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun sweep/0}.

sweep() ->
    #{<<"runs">> := Runs} = Record = record("sweep.json"),
    Charts = charts(Record),
    {_, Bars} = lists:keyfind("Throughput, with 95% intervals", 1, Charts),
    ?assertEqual(length(Runs), length(erlperf_html_test_lib:bars(Bars))),
    [Best] = [R || #{<<"best">> := true} = R <- Runs],
    #{<<"params">> := #{<<"N">> := BestN}} = Best,
    {_, Qps} = lists:keyfind("iterations per second against N", 1, Charts),
    ?assertEqual([{"lists:seq(1, N).", [{N, Q} || #{<<"params">> := #{<<"N">> := N}, <<"qps">> := Q} <- Runs]}],
                 erlperf_html_test_lib:series(Qps)),
    ?assertEqual([{"lists:seq(1, N).", [{BestN, maps:get(<<"qps">>, Best)}]}],
                 erlperf_html_test_lib:marked(Qps)),
    ?assertEqual(length(Runs), length(erlperf_html_test_lib:whiskers(Qps))),
    {_, Bytes} = lists:keyfind("bytes per second against N", 1, Charts),
    ?assertEqual([{"lists:seq(1, N).", [{N, B} || #{<<"params">> := #{<<"N">> := N},
                                                   <<"bytes_per_second">> := B} <- Runs]}],
                 erlperf_html_test_lib:series(Bytes)),
    ?assertEqual([{"lists:seq(1, N).", [{BestN, maps:get(<<"bytes_per_second">>, Best)}]}],
                 erlperf_html_test_lib:marked(Bytes)),
    %% N spans two decades: a log axis
    ?assert(lists:member("20", x_ticks(Qps))),
    %% the best run's row is marked in the table
    Page = iolist_to_binary(erlperf_html_bench:render(Record)),
    ?assertEqual(1, length(binary:matches(Page, <<"<tr class=\"best\">">>))).

%% Two parameters: against each, one line per value of the other.
sweep_two_params_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun sweep_two_params/0}.

sweep_two_params() ->
    #{<<"runs">> := Runs} = Record = record("sweep_two_params.json"),
    Charts = charts(Record),
    {_, ByN} = lists:keyfind("iterations per second against N", 1, Charts),
    {_, ByM} = lists:keyfind("iterations per second against M", 1, Charts),
    Qps = fun (N, M) -> hd([Q || #{<<"params">> := #{<<"N">> := N1, <<"M">> := M1}, <<"qps">> := Q}
                                     <- Runs, N1 =:= N, M1 =:= M]) end,
    ?assertEqual([{"lists:seq(1, N * M). (M=1)", [{10, Qps(10, 1)}, {100, Qps(100, 1)}]},
                  {"lists:seq(1, N * M). (M=2)", [{10, Qps(10, 2)}, {100, Qps(100, 2)}]}],
                 erlperf_html_test_lib:series(ByN)),
    ?assertEqual([{"lists:seq(1, N * M). (N=10)", [{1, Qps(10, 1)}, {2, Qps(10, 2)}]},
                  {"lists:seq(1, N * M). (N=100)", [{1, Qps(100, 1)}, {2, Qps(100, 2)}]}],
                 erlperf_html_test_lib:series(ByM)),
    [#{<<"params">> := #{<<"N">> := BN, <<"M">> := BM}}] = [R || #{<<"best">> := true} = R <- Runs],
    ?assertEqual([{BN, Qps(BN, BM)}], lists:append([P || {_, P} <- erlperf_html_test_lib:marked(ByN)])),
    ?assertEqual([{BM, Qps(BN, BM)}], lists:append([P || {_, P} <- erlperf_html_test_lib:marked(ByM)])),
    %% no bytes given: no bytes/s chart
    ?assertEqual(false, lists:keyfind("bytes per second against N", 1, Charts)).

%% Parameter values that are not numbers: placed in the order given, named on the axis.
sweep_text_values_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun sweep_text_values/0}.

sweep_text_values() ->
    #{<<"runs">> := Runs, <<"options">> := Options} = Record = record("sweep.json"),
    Names = #{10 => <<"small">>, 100 => <<"'medium'">>, 1000 => ?EVIL},
    Text = Record#{<<"runs">> := [R#{<<"params">> := #{<<"N">> => maps:get(N, Names)}}
                                  || #{<<"params">> := #{<<"N">> := N}} = R <- Runs],
                   <<"options">> := Options#{<<"params">> := [#{<<"name">> => <<"N">>,
                                                                <<"values">> => maps:values(Names)}]}},
    Charts = charts(Text),
    {_, Qps} = lists:keyfind("iterations per second against N", 1, Charts),
    ?assertMatch([{_, [{1, _}, {2, _}, {3, _}]}], erlperf_html_test_lib:series(Qps)),
    ?assertEqual(["small", "'medium'", binary_to_list(?EVIL)], [L || L <- x_ticks(Qps), L =/= ""]).

%%--------------------------------------------------------------------
%% Baselines

baseline_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun baseline/0}.

baseline() ->
    #{<<"runs">> := Runs} = Record = record("baseline.json"),
    {_, Doc} = lists:keyfind("Change against the baselines", 1, charts(Record)),
    Entries = [E || #{<<"baselines">> := Es} <- Runs, E <- Es],
    Bars = erlperf_html_test_lib:bars(Doc),
    ?assertEqual([C || #{<<"change_pct">> := C} <- Entries], [V || {V, _, _} <- Bars]),
    ?assertEqual([{Lo, Hi} || #{<<"ci95_pct">> := [Lo, Hi]} <- Entries],
                 erlperf_html_test_lib:whiskers(Doc)),
    %% a regression (significantly slower) is highlighted, the others are not
    Regression = [lists:member("regression", Classes) || {_, Classes, _} <- Bars],
    ?assertEqual([V =:= <<"slower">> andalso S || #{<<"verdict">> := V, <<"significant">> := S} <- Entries],
                 Regression),
    ?assert(lists:member(true, Regression)),
    %% values on both sides of zero: a zero line
    Page = iolist_to_binary(erlperf_html_bench:render(Record)),
    ?assertEqual(1, length(binary:matches(Page, <<"class=\"zero\"">>))),
    %% in the tables: the run's row and the baseline's row
    ?assertEqual(2, length(binary:matches(Page, <<"<tr class=\"regression\">">>))).

%%--------------------------------------------------------------------
%% Concurrency mode, profiles, timed mode, a single sample

squeeze_profile_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun squeeze_profile/0}.

squeeze_profile() ->
    #{<<"runs">> := [#{<<"label">> := Label, <<"steps">> := Steps, <<"best_concurrency">> := Best,
                       <<"profile">> := #{<<"functions">> := Functions}}]} = Record =
        record("squeeze_profile.json"),
    {_, Doc} = lists:keyfind("Throughput against concurrency", 1, charts(Record)),
    ?assertEqual([{binary_to_list(Label), [{C, Q} || #{<<"concurrency">> := C, <<"qps">> := Q} <- Steps]}],
                 erlperf_html_test_lib:series(Doc)),
    ?assertMatch([{_, [{Best, _}]}], erlperf_html_test_lib:marked(Doc)),
    Page = iolist_to_binary(erlperf_html_bench:render(Record)),
    [#{<<"function">> := Top} | _] = Functions,
    ?assertNotEqual(nomatch, binary:match(Page, <<"<code>", (erlperf_html:escape(Top))/binary, "</code>">>)),
    %% one runner: nobody is "the fastest"
    ?assertEqual(nomatch, binary:match(Page, <<"fastest">>)).

timed_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun timed/0}.

timed() ->
    #{<<"runs">> := [#{<<"samples">> := Samples}]} = Record = record("timed.json"),
    {_, Doc} = lists:keyfind("Samples in the order taken", 1, charts(Record)),
    ?assertMatch([{_, Points}] when length(Points) =:= length(Samples),
                 erlperf_html_test_lib:series(Doc)),
    Page = iolist_to_binary(erlperf_html_bench:render(Record)),
    ?assertNotEqual(nomatch, binary:match(Page, <<"microseconds per sample">>)).

one_sample_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun one_sample/0}.

one_sample() ->
    #{<<"runs">> := [#{<<"samples">> := [Sample], <<"ci95">> := null, <<"qps">> := Qps}]} = Record =
        record("one_sample.json"),
    Charts = charts(Record),
    {_, Bars} = lists:keyfind("Throughput, with 95% intervals", 1, Charts),
    %% no interval, so no whisker
    ?assertMatch([{Qps, _, _}], erlperf_html_test_lib:bars(Bars)),
    ?assertEqual([], erlperf_html_test_lib:whiskers(Bars)),
    {_, Samples} = lists:keyfind("Samples in the order taken", 1, Charts),
    ?assertMatch([{_, [{1, Sample}]}], erlperf_html_test_lib:series(Samples)).

%% Absent figures (null) anywhere a run may have them.
nulls_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun nulls/0}.

nulls() ->
    #{<<"runs">> := [Run | _]} = Record = record("memory_latency.json"),
    Nulls = Run#{<<"qps">> := null, <<"ci95">> := null, <<"iteration_ns">> := null,
                 <<"latency_us">> := null, <<"bytes_per_iteration">> := null},
    Page = iolist_to_binary(erlperf_html_bench:render(Record#{<<"runs">> := [Nulls]})),
    ok = erlperf_html_test_lib:assert_page(Page),
    Titles = [T || {T, _} <- charts(Record#{<<"runs">> := [Nulls]})],
    ?assertEqual(["Samples in the order taken"], Titles).

%%--------------------------------------------------------------------
%% Escaping: text from the record in every place it is shown

escape_test_() ->
    [{File, fun () -> escaped(evil(record(File))) end}
     || File <- ["memory_latency.json", "sweep.json", "sweep_two_params.json", "baseline.json",
                 "squeeze_profile.json", "timed.json", "one_sample.json"]].

escaped(Record) ->
    Page = iolist_to_binary(erlperf_html_bench:render(Record)),
    ok = erlperf_html_test_lib:assert_page(Page),
    ?assertEqual(nomatch, binary:match(Page, [<<"<script">>, <<"\"x\"">>, <<"'q'">>])),
    ?assertNotEqual(nomatch, binary:match(Page, erlperf_html:escape(?EVIL))),
    %% every chart is well-formed XML, and has the text back
    Docs = erlperf_html_test_lib:svgs(Page),
    ?assert(length(Docs) >= 2),
    Names = [N || D <- Docs, {N, _} <- erlperf_html_test_lib:series(D)],
    ?assert(lists:all(fun (N) -> string:find(N, binary_to_list(?EVIL)) =/= nomatch end, Names)).

%% Every text of a record made hostile: labels, code, parameter names and values, baseline
%% files, system and option values, profile functions.
evil(#{<<"runs">> := Runs, <<"system">> := System} = Record) ->
    Options = maps:get(<<"options">>, Record),
    Record#{<<"runs">> := [evil_run(R) || R <- Runs],
            <<"system">> := maps:map(fun (_, V) when is_binary(V) -> ?EVIL; (_, V) -> V end, System),
            <<"compare">> => ?EVIL,
            <<"options">> := case Options of
                                 #{<<"params">> := Ps} ->
                                     Options#{<<"params">> := [P#{<<"name">> := evil_name(N)}
                                                               || #{<<"name">> := N} = P <- Ps],
                                              <<"bytes">> => ?EVIL};
                                 _ -> Options#{<<"report">> => ?EVIL}
                             end}.

evil_run(#{<<"label">> := L, <<"params">> := Params} = Run) ->
    Baselines = [E#{<<"file">> := ?EVIL} || E <- maps:get(<<"baselines">>, Run, [])],
    Run#{<<"label">> := <<(?EVIL)/binary, L/binary>>, <<"code">> := ?EVIL,
         <<"params">> := maps:from_list([{evil_name(K), V} || {K, V} <- maps:to_list(Params)]),
         <<"baselines">> => Baselines,
         <<"profile">> => #{<<"tool">> => ?EVIL, <<"functions">> =>
                                [#{<<"function">> => ?EVIL, <<"calls">> => 1, <<"time_us">> => 2,
                                   <<"percent">> => 100.0}]},
         <<"comparison">> => maps:get(<<"comparison">>, Run, #{<<"against">> => ?EVIL})}.

evil_name(Name) -> <<(?EVIL)/binary, Name/binary>>.

%%--------------------------------------------------------------------
%% Helpers

record(File) ->
    Dir = filename:join(filename:dirname(?FILE), "erlperf_html_bench_tests_data"),
    {ok, Json} = file:read_file(filename:join(Dir, File)),
    {ok, Record} = erlperf_json:decode(Json),
    Record.

%% [{Title, Doc}] of the charts of the record's page.
charts(Record) ->
    [{erlperf_html_test_lib:title(D), D}
     || D <- erlperf_html_test_lib:svgs(erlperf_html_bench:render(Record))].

x_ticks(Doc) ->
    [G] = [G || G <- erlperf_html_test_lib:elements(Doc, g),
                erlperf_html_test_lib:attr(class, G) =:= "axis x-axis"],
    [erlperf_html_test_lib:texts(T) || T <- erlperf_html_test_lib:elements(G, text),
                                       erlperf_html_test_lib:attr(class, T) =:= "tick"].
