%%% @doc Writes a results record ({@link erlperf_record}) as a Markdown table, ready for a
%%% pull-request comment: one row per run with throughput, time per iteration, the 95%
%%% interval of the throughput and the verdict against the fastest; when calls were
%%% timed one by one (`--latency'), their p50, p90, p99, p99.9 and max before the
%%% verdict. Pure: returns iodata.
%%%
%%% Names from the user (code, labels, baselines) are written by
%%% {@link erlperf_name:markdown/1}, other text (parameter values, verdicts) by
%%% {@link erlperf_name:markdown_text/1}: `|' cannot end a cell, backticks cannot end a
%%% code span, and no line break or `::' can start a line.
%%%
%%% A sweep's record ({@link erlperf_sweep}) gets a column per parameter after Code,
%%% `Bytes/s' when bytes were given, and `Best' (`yes' on the best run); verdicts are
%%% within a combination, so a run alone in its combination has none (`-').
%%%
%%% Example:
%%% ```
%%% Reports = erlperf:compare(["rand:uniform().", "rand:uniform(1000)."], #{report => full}),
%%% io:put_chars(erlperf_markdown:format(erlperf_record:from_reports(Reports))).
%%% '''
-module(erlperf_markdown).

%% API: called by the command line.
-export([format/1]).
%% API: erlperf_trend writes the history's tables with it.
-export([table/3]).

-include("model/erlperf_schema.hrl").

%%--------------------------------------------------------------------
%% API

%% @doc The Markdown table of a record.
-spec format(erlperf_record:results()) -> unicode:chardata().
format(#{?RUNS := [#{<<"rate">> := _} | _] = Runs}) ->
    rate_table(Runs);
format(#{?RUNS := Runs} = Record) ->
    Sweep = is_map_key(?PARAMS, maps:get(?OPTIONS, Record, #{})),
    Names = erlperf_record:param_names(Record),
    Bytes = lists:any(fun (R) -> is_map_key(<<"bytes_per_second">>, R) end, Runs),
    Latency = lists:any(fun (R) -> is_map_key(<<"latency_calls">>, R) end, Runs),
    LatencyHeader = ["Latency p50", "p90", "p99", "p99.9", "max"],
    Header = ["Code"] ++ [erlperf_name:markdown_text(N) || N <- Names]
        ++ ["Concurrency", "Throughput (per second)", "95% CI", "Time"]
        ++ ["Bytes/s" || Bytes] ++ [H || Latency, H <- LatencyHeader] ++ ["Verdict"]
        ++ ["Best" || Sweep],
    Align = ["---"] ++ ["---:" || _ <- Names] ++ ["---:", "---:", "---:", "---:"]
        ++ ["---:" || Bytes] ++ ["---:" || Latency, _ <- LatencyHeader] ++ ["---"]
        ++ [":---:" || Sweep],
    Shown = #{names => Names, bytes => Bytes, latency => Latency, sweep => Sweep},
    [row(Header), row(Align) | [row(cells(R, Shown, Runs)) || R <- Runs]]
        ++ baselines(Runs, Names).

%% The verdicts against baselines (or previous runs), when the record has them: a table
%% after the results, a row per runner and baseline, the exact counts that changed.
baselines(Runs, Names) ->
    Rows = [[code(erlperf_record:run_name(R, Names)), code(maps:get(<<"file">>, E)),
             erlperf_baseline:record_word(E),
             erlperf_name:markdown_text(erlperf_baseline:record_text(E))]
            || #{?BASELINES := Es} = R <- Runs, E <- Es],
    case Rows of
        [] -> [];
        _ -> ["\n", row(["Code", "Against", "Verdict", "Details"]), row(["---", "---", "---", "---"])
              | [row(Cells) || Cells <- Rows]]
    end.

%%--------------------------------------------------------------------
%% Internal functions

%% At a rate: a row per runner and rate, the pacing, then the response-time percentiles
%% (from each call's intended start) and the service-time median and p99 (from its
%% actual start); `Held' when objectives were given.
rate_table(Runs) ->
    Held = lists:any(fun (#{<<"rate">> := R}) -> is_map_key(<<"held">>, R) end, Runs),
    Header = ["Code", "Rate", "Achieved", "Late", "Skipped", "Response p50", "p90", "p99", "p99.9",
              "max", "Service p50", "Service p99"] ++ ["Held" || Held],
    Align = ["---" | lists:duplicate(length(Header) - 1 - length(["" || Held]), "---:")] ++ [":---:" || Held],
    Rows = [[code(Label), erlperf_units:count(T), erlperf_units:count(A), integer_to_list(L),
             integer_to_list(S)]
            ++ [erlperf_units:us(maps:get(K, Response)) || K <- ?PERCENTILES]
            ++ [erlperf_units:us(maps:get(K, Service)) || K <- [?P50, ?P99]]
            ++ [case maps:get(<<"held">>, Rate, null) of true -> "yes"; false -> "no"; null -> "-" end
                || Held]
            || #{?LABEL := Label, <<"rate">> := #{<<"target">> := T, <<"achieved">> := A, <<"late">> := L,
                                                   <<"skipped">> := S, <<"response_us">> := Response,
                                                   <<"service_us">> := Service} = Rate} <- Runs],
    table(Header, Align, Rows).


cells(#{?LABEL := Label, ?CONCURRENCY := C} = Run,
      #{names := Names, bytes := Bytes, latency := Latency, sweep := Sweep}, Runs) ->
    Params = maps:get(?PARAMS, Run, #{}),
    [code(Label)] ++ [param(maps:get(N, Params, null)) || N <- Names]
        ++ [integer_to_list(C), per_second(maps:get(?QPS, Run, null)), interval(Run),
            time(maps:get(?ITERATION_NS, Run, null))]
        ++ [rate(maps:get(<<"bytes_per_second">>, Run, null)) || Bytes]
        ++ [Cell || Latency, Cell <- latency(maps:get(<<"latency_us">>, Run, null))]
        ++ [case Sweep andalso alone(Run, Runs) of
                true -> "-";
                false -> verdict(Run)
            end]
        ++ [case maps:get(<<"best">>, Run, false) of true -> "yes"; false -> "" end || Sweep].

%% A run of a sweep that no other runner shares its combination with.
alone(#{?PARAMS := Params}, Runs) ->
    length([R || #{?PARAMS := P} = R <- Runs, P =:= Params]) =:= 1.

param(null) -> "-";
param(Value) -> erlperf_name:markdown_text(erlperf_units:record_text(Value)).

rate(null) -> "-";
rate(BytesPerSecond) -> erlperf_units:rate(BytesPerSecond).

%% The percentiles of calls timed one by one (microseconds in the record).
latency(#{} = Figures) ->
    [erlperf_units:us(maps:get(K, Figures)) || K <- ?PERCENTILES];
latency(null) ->
    lists:duplicate(5, "-").

%% The throughput's interval (per second).
interval(Run) ->
    case erlperf_record:qps_interval(Run) of
        none -> "-";
        Text -> Text
    end.

verdict(#{?COMPARISON := #{<<"against">> := Against}} = Run) ->
    erlperf_verdict:against(erlperf_record:comparison(Run), code(Against));
verdict(_Fastest) ->
    "fastest".

per_second(null) -> "-";
per_second(Qps) -> erlperf_units:count(Qps).

time(null) -> "-";
time(Ns) -> erlperf_units:time(Ns).

%% @doc A table: its header cells, their alignments (`---', `---:'), its rows of cells
%% (cells are written as they are: escape names with {@link erlperf_name:markdown/1},
%% other text with {@link erlperf_name:markdown_text/1}).
-spec table([iodata()], [iodata()], [[iodata()]]) -> iodata().
table(Header, Align, Rows) ->
    [row(Header), row(Align) | [row(R) || R <- Rows]].

%% A name in a code span (see erlperf_name).
code(Name) ->
    erlperf_name:markdown(Name).

row(Cells) ->
    ["| ", lists:join(" | ", Cells), " |\n"].
