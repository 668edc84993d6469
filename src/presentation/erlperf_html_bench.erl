%%% @doc The HTML report of a micro-benchmark: one self-contained page drawn from a results
%%% record (`--save', `--format json'; see doc/formats.md), decoded with
%%% {@link erlperf_json:decode/1}. Pure: returns iodata; the measuring code knows nothing
%%% of it.
%%%
%%% The page shows, in order, what the record holds:
%%% <ul>
%%%   <li><b>throughput</b>: a bar per run (iterations per second) with the whisker of its
%%%       95% interval and the verdict against the fastest beside it;</li>
%%%   <li><b>samples over time</b>: one line per run, a point per sample, so that drift and
%%%       warm-up show;</li>
%%%   <li><b>latency</b> (`--latency'): p50, p90, p99, p99.9 and max per run;</li>
%%%   <li><b>memory per call</b> (`--memory'): heap bytes, reductions and CPU time per call;</li>
%%%   <li><b>sweep</b> (`--param'): throughput (and bytes/s with `--bytes') against each
%%%       parameter, one line per runner and value of the other parameters, the best run
%%%       ringed;</li>
%%%   <li><b>baselines</b> (`--baseline'): the change of each runner against each baseline
%%%       with its 95% interval; a <b>regression</b> (significantly slower) is red;</li>
%%%   <li>concurrency steps (`-q') and profiles (`--profile') when present, the system and
%%%       the options.</li>
%%% </ul>
%%% Every piece of text from the record (code, labels, parameter values, file names) is
%%% escaped, line breaks too; names (labels, parameters, file names) are written by
%%% {@link erlperf_name:text/1} first (one line, quoted when they hold a control
%%% character or begin with `::').
%%%
%%% Example:
%%% ```
%%% {ok, Json} = file:read_file("results.json"),
%%% {ok, Record} = erlperf_json:decode(Json),
%%% ok = file:write_file("results.html", erlperf_html_bench:render(Record)).
%%% '''
-module(erlperf_html_bench).

%% API: called by erlperf_render.
-export([render/1]).
%% API: the chart of response times against the rate offered, for erlperf_html_perf too.
-export([response_chart/3]).

-include("model/erlperf_schema.hrl").

%% The longest title made of runner labels, characters.
-define(MAX_TITLE, 80).
%% Latency figures, in the order drawn, with their names on the x axis.
-define(DRAWN, [{K, axis_name(K)} || K <- ?PERCENTILES]).

%%--------------------------------------------------------------------
%% API

%% @doc The page of a benchmark record (decoded JSON, binary keys).
-spec render(erlperf_record:results()) -> iodata().
render(#{?RUNS := Runs} = Record) when is_list(Runs) ->
    Names = erlperf_record:param_names(Record),
    Named = [{name(Run, Names), Run} || Run <- Runs],
    erlperf_html:page(title(Runs),
                      [summary(Record, Named, Names),
                       throughput(Named),
                       samples(Record, Named),
                       latency(Named),
                       open_load(Named),
                       memory(Named),
                       host(Named),
                       sweep(Named, Names),
                       baselines(Named),
                       steps(Named),
                       profiles(Named),
                       system(Record)]).

%%--------------------------------------------------------------------
%% Internal functions: sections

title(Runs) ->
    Labels = lists:usort([erlperf_name:text(L) || #{?LABEL := L} <- Runs]),
    Text = unicode:characters_to_list(lists:join(", ", Labels)),
    ["Benchmark: ", case length(Text) > ?MAX_TITLE of
                        true -> [lists:sublist(Text, ?MAX_TITLE - 3), "..."];
                        false -> Text
                    end].

summary(Record, Named, Names) ->
    Sweep = Names =/= [],
    Header = [<<"Runner">>, <<"Code">>] ++ [erlperf_name:text(N) || N <- Names]
        ++ [<<"Mode">>, <<"Concurrency">>, <<"Samples">>, <<"Throughput (per second)">>,
            <<"95% CI">>, <<"Time per iteration">>, <<"Verdict">>]
        ++ [<<"Best">> || Sweep],
    Rows = [{row_class(Run), summary_row(Run, Names, Sweep, compared(Named))} || {_, Run} <- Named],
    erlperf_html:section(<<"Runs">>,
                         [compare_note(Record), erlperf_html:table(Header, Rows)]).

summary_row(#{?LABEL := Label} = Run, Names, Sweep, Compared) ->
    Params = maps:get(?PARAMS, Run, #{}),
    [erlperf_name:text(Label), code(maps:get(?CODE, Run, <<>>))]
        ++ [param_text(maps:get(N, Params, null)) || N <- Names]
        ++ [maps:get(?MODE, Run, <<>>), maps:get(?CONCURRENCY, Run, <<>>),
            length(maps:get(?SAMPLES, Run, [])), count(figure(?QPS, Run)),
            qps_interval(Run), time_ns(figure(?ITERATION_NS, Run)), verdict(Run, Compared)]
        ++ [case maps:get(<<"best">>, Run, false) of true -> <<"yes">>; false -> <<>> end
            || Sweep].

compare_note(#{?COMPARE := Compare}) ->
    ["<p class=\"note\">Runners measured: ", erlperf_html:escape(Compare), ".</p>\n"];
compare_note(_Record) ->
    [].

throughput(Named) ->
    Compared = compared(Named),
    Bars = [bar(Name, Run, Qps, Compared)
            || {Name, #{?QPS := Qps} = Run} <- Named, is_number(Qps)],
    section_if(Bars =/= [], <<"Throughput">>,
               erlperf_svg:bar_chart(Bars, #{title => <<"Throughput, with 95% intervals">>,
                                             x_label => <<"iterations per second">>})).

bar(Name, Run, Qps, Compared) ->
    Interval = case erlperf_record:qps_bounds(Run) of
                   {Lo, Hi} -> #{lo => Lo, hi => Hi};
                   none -> #{}
               end,
    Class = row_class(Run),
    Interval#{label => Name, value => Qps, note => verdict(Run, Compared),
              class => case Class of <<>> -> <<"runner">>; _ -> Class end}.

samples(Record, Named) ->
    Series = [#{name => Name, points => lists:zip(lists:seq(1, length(S)), S)}
              || {Name, #{?SAMPLES := S}} <- Named, S =/= []],
    Timed = lists:any(fun ({_, R}) -> maps:get(?MODE, R, <<>>) =:= <<"timed">> end, Named),
    YLabel = case Timed of
                 true -> <<"microseconds per sample">>;
                 false -> [<<"iterations per sample">>, sample_duration(Record)]
             end,
    section_if(Series =/= [], <<"Samples over time">>,
               erlperf_svg:line_chart(Series, #{title => <<"Samples in the order taken">>,
                                                x_label => <<"sample">>, y_label => YLabel,
                                                x_scale => linear, y_scale => linear,
                                                x_format => fun erlperf_svg:format_whole/1})).

sample_duration(#{?OPTIONS := #{<<"sample_duration">> := Ms}}) when is_integer(Ms) ->
    [" (", integer_to_list(Ms), " ms)"];
sample_duration(_Record) ->
    [].

latency(Named) ->
    Measured = [{Name, L} || {Name, #{<<"latency_us">> := #{} = L}} <- Named],
    Series = [#{name => Name,
                points => [{I, maps:get(K, L)}
                           || {I, {K, _}} <- enumerate(?DRAWN), is_number(maps:get(K, L, null))]}
              || {Name, L} <- Measured],
    Names = [Text || {_, Text} <- ?DRAWN],
    XFormat = fun (X) when X == round(X), X >= 1, X =< length(Names) ->
                      lists:nth(round(X), Names);
                  (_) -> <<>>
              end,
    Table = erlperf_html:table([<<"Runner">> | Names] ++ [<<"average">>, <<"calls">>],
                               [[Name | [erlperf_units:us(maps:get(K, L, null)) || {K, _} <- ?DRAWN]]
                                ++ [erlperf_units:us(maps:get(<<"average">>, L, null)), calls(Name, Named)]
                                || {Name, L} <- Measured]),
    section_if(Measured =/= [], <<"Latency per call">>,
               [erlperf_svg:line_chart(Series, #{title => <<"Latency percentiles">>,
                                                 x_label => <<"percentile">>,
                                                 y_label => <<"latency, microseconds">>,
                                                 x_scale => linear, x_format => XFormat}),
                Table]).

%% Open load: per runner, a chart of the response-time percentiles against the rate
%% offered (each rate of a ramp), the knee marked when objectives were given, and a
%% table of every rate: what was achieved, late and skipped, and the times.
open_load(Named) ->
    Runs = [{erlperf_name:text(Label), Run}
            || {_, #{?LABEL := Label, <<"rate">> := _} = Run} <- Named],
    Labels = lists:usort([L || {L, _} <- Runs]),
    Charts = [rate_chart(L, [R || {L1, R} <- Runs, L1 =:= L]) || L <- Labels],
    Table = erlperf_html:table(
              [<<"Runner">>, <<"rate">>, <<"achieved">>, <<"late">>, <<"skipped">>, <<"held">>]
              ++ [<<"response ", T/binary>> || {_, T} <- ?DRAWN] ++ [<<"service p50">>, <<"service p99">>],
              [[Label, T, round(A), L, S, held_text(Rate)]
               ++ [erlperf_units:us(maps:get(K, Response, null)) || {K, _} <- ?DRAWN]
               ++ [erlperf_units:us(maps:get(K, Service, null)) || K <- [?P50, ?P99]]
               || {Label, #{<<"rate">> := #{<<"target">> := T, <<"achieved">> := A, <<"late">> := L,
                                            <<"skipped">> := S, <<"response_us">> := Response,
                                            <<"service_us">> := Service} = Rate}} <- Runs]),
    section_if(Runs =/= [], <<"Open load">>,
               [Charts, Table,
                <<"<p class=\"note\">Response time: from the moment each call was due (the "
                  "schedule's), so the wait behind slow calls counts; service time: from its "
                  "actual start.</p>\n">>]).

rate_chart(Label, Runs) ->
    Knee = hd([K || #{<<"rate">> := Rate} <- [hd(Runs)], K <- [maps:get(<<"knee">>, Rate, null)]]),
    response_chart([<<"Response time against rate: ">>, Label],
                   [{T, Us} || #{<<"rate">> := #{<<"target">> := T, <<"response_us">> := Us}} <- Runs],
                   Knee).

%% @doc A line chart of response-time percentiles (p50 to p99.9, microseconds as a
%% record holds them) against the calls a second offered, a line per percentile; the
%% knee (`null': none) marked.
-spec response_chart(unicode:chardata(), [{number(), map()}], number() | null) -> iodata().
response_chart(Title, Points, Knee) ->
    Series = [#{name => Text,
                points => [{X, V} || {X, Us} <- Points, is_number(X), is_map(Us),
                                     V <- [maps:get(K, Us, null)], is_number(V)]}
              || {K, Text} <- ?DRAWN, K =/= <<"max">>],
    Marker = [#{x => Knee, label => [<<"knee ">>, erlperf_svg:format_number(Knee), <<"/s">>],
                class => <<"faster">>} || is_number(Knee)],
    erlperf_svg:line_chart(Series, #{title => Title,
                                     x_label => <<"calls per second offered">>,
                                     y_label => <<"response time">>,
                                     y_format => fun erlperf_units:us/1,
                                     x_markers => Marker}).

held_text(#{<<"held">> := true}) -> <<"yes">>;
held_text(#{<<"held">> := false}) -> <<"no">>;
held_text(_Rate) -> <<"-">>.

calls(Name, Named) ->
    {Name, Run} = lists:keyfind(Name, 1, Named),
    figure(<<"latency_calls">>, Run).

memory(Named) ->
    Measured = [{Name, Run} || {Name, Run} <- Named, is_map_key(?BYTES_PER_ITERATION, Run)],
    Bars = [#{label => Name, value => B, class => <<"runner">>}
            || {Name, #{?BYTES_PER_ITERATION := B}} <- Measured, is_number(B)],
    Chart = case Bars of
                [] -> [];
                _ -> erlperf_svg:bar_chart(Bars, #{title => <<"Heap allocated per call">>,
                                                   x_label => <<"bytes per call">>})
            end,
    Table = erlperf_html:table([<<"Runner">>, <<"Bytes per call">>, <<"Reductions per call">>,
                                <<"CPU time per call">>],
                               [[Name, number(maps:get(?BYTES_PER_ITERATION, Run, null)),
                                 number(maps:get(?REDUCTIONS_PER_ITERATION, Run, null)),
                                 time_ns(maps:get(<<"cpu_ns_per_iteration">>, Run, null))]
                                || {Name, Run} <- Measured]),
    section_if(Measured =/= [], <<"Memory per call">>, [Chart, Table]).

%% What the host's other programs took during each run (see erlperf_interference), the
%% throughput per second of wall-clock time and of CPU time, and the exact counts per
%% call, when the runs have them.
host(Named) ->
    Measured = [{Name, Run} || {Name, Run} <- Named,
                               is_map_key(?INTERFERENCE, Run) orelse is_map_key(<<"counts">>, Run)],
    Share = fun (Run, Key) ->
                    case maps:get(Key, maps:get(?INTERFERENCE, Run, #{}), null) of
                        V when is_number(V) -> iolist_to_binary([integer_to_list(round(100 * V)), "%"]);
                        _ -> <<"-">>
                    end
            end,
    Count = fun (Run, Key) -> number(maps:get(Key, maps:get(<<"counts">>, Run, #{}), null)) end,
    Table = erlperf_html:table([<<"Runner">>, <<"Host's CPUs kept busy by others">>,
                                <<"Scheduler threads' time taken">>, <<"Per second (wall clock)">>,
                                <<"Per second of CPU time">>, <<"Bytes per call">>,
                                <<"Reductions per call">>],
                               [[Name, Share(Run, <<"others">>), Share(Run, <<"share">>),
                                 count(maps:get(?QPS, Run, null)), count(maps:get(<<"cpu_qps">>, Run, null)),
                                 Count(Run, ?BYTES_PER_ITERATION), Count(Run, ?REDUCTIONS_PER_ITERATION)]
                                || {Name, Run} <- Measured]),
    section_if(Measured =/= [], <<"The host and exact counts">>, [Table]).

%% Sweeps: a chart per parameter with more than one value.
sweep(_Named, []) ->
    [];
sweep(Named, Names) ->
    Runs = [Run || {_, Run} <- Named],
    Bytes = lists:any(fun (R) -> is_number(maps:get(<<"bytes_per_second">>, R, null)) end, Runs),
    Charts = [[sweep_chart(P, Names, Runs, ?QPS, <<"iterations per second">>),
               [sweep_chart(P, Names, Runs, <<"bytes_per_second">>, <<"bytes per second">>)
                || Bytes]]
              || P <- Names, length(values(P, Runs)) > 1],
    Best = [Name || {Name, #{<<"best">> := true}} <- Named],
    erlperf_html:section(<<"Sweep">>,
                         [Charts,
                          [["<p class=\"note\">Best: ", erlperf_html:escape(lists:join(", ", Best)),
                            " (ringed).</p>\n"] || Best =/= []]]).

sweep_chart(Param, Names, Runs, Key, Unit) ->
    Values = values(Param, Runs),
    Others = Names -- [Param],
    %% a line per runner and values of the other parameters
    Groups = group([{name(Run, Others), Run} || Run <- Runs,
                                        is_number(maps:get(Key, Run, null))]),
    Series = [sweep_series(Name, Group, Param, Values, Key) || {Name, Group} <- Groups],
    Numeric = lists:all(fun erlang:is_number/1, Values),
    XFormat = case Numeric of
                  true -> fun erlperf_svg:format_number/1;
                  false -> fun (X) -> category(X, Values) end
              end,
    erlperf_svg:line_chart(Series, #{title => [Unit, " against ", Param],
                                     x_label => Param, y_label => Unit,
                                     x_scale => case Numeric of true -> auto; false -> linear end,
                                     x_format => XFormat}).

sweep_series(Name, Group, Param, Values, Key) ->
    Points = lists:keysort(1, [{x(Run, Param, Values), maps:get(Key, Run)} || Run <- Group]),
    Error = case Key of
                ?QPS -> [{x(Run, Param, Values), Lo, Hi}
                         || Run <- Group, {Lo, Hi} <- [erlperf_record:qps_bounds(Run)]];
                _ -> []
            end,
    #{name => Name, points => Points, error => Error,
      marked => [{x(Run, Param, Values), maps:get(Key, Run)}
                 || #{<<"best">> := true} = Run <- Group]}.

%% The x of a run: its value of the parameter, or the value's position when the values
%% are not all numbers.
x(#{?PARAMS := Params}, Param, Values) ->
    V = maps:get(Param, Params),
    case lists:all(fun erlang:is_number/1, Values) of
        true -> V;
        false -> index(V, Values, 1)
    end.

index(V, [V | _], N) -> N;
index(V, [_ | Rest], N) -> index(V, Rest, N + 1).

category(X, Values) when X == round(X), X >= 1 ->
    case round(X) =< length(Values) of
        true -> param_text(lists:nth(round(X), Values));
        false -> <<>>
    end;
category(_X, _Values) ->
    <<>>.

%% The distinct values of a parameter, in the order first met.
values(Param, Runs) ->
    lists:foldl(fun (#{?PARAMS := #{} = P}, Acc) when is_map_key(Param, P) ->
                        V = maps:get(Param, P),
                        case lists:member(V, Acc) of true -> Acc; false -> Acc ++ [V] end;
                    (_, Acc) -> Acc
                end, [], Runs).

%% [{Key, Item}] grouped by key, groups in the order first met.
group(Pairs) ->
    Keys = lists:foldl(fun ({K, _}, Acc) ->
                               case lists:member(K, Acc) of true -> Acc; false -> Acc ++ [K] end
                       end, [], Pairs),
    [{K, [V || {K1, V} <- Pairs, K1 =:= K]} || K <- Keys].

baselines(Named) ->
    Entries = [{Name, E} || {Name, #{?BASELINES := Es}} <- Named, E <- Es],
    Bars = [baseline_bar(Name, E) || {Name, #{<<"change_pct">> := C} = E} <- Entries,
                                     is_number(C)],
    Chart = case Bars of
                [] -> [];
                _ -> erlperf_svg:bar_chart(Bars, #{title => <<"Change against the baselines">>,
                                                   x_label => <<"change of throughput, %">>,
                                                   format => fun percent/1})
            end,
    Rows = [{baseline_class(E), [Name, erlperf_name:text(maps:get(<<"file">>, E, <<>>)),
                                 maps:get(<<"match">>, E, <<>>),
                                 pct(maps:get(<<"change_pct">>, E, null)),
                                 [pct_interval(maps:get(<<"ci95_pct">>, E, null)),
                                  basis_text(maps:get(<<"interval">>, E, null))],
                                 baseline_verdict(E)]}
            || {Name, E} <- Entries],
    section_if(Entries =/= [], <<"Against the baselines">>,
               [Chart, erlperf_html:table([<<"Runner">>, <<"Baseline">>, <<"Matched by">>,
                                           <<"Change">>, <<"95% CI">>, <<"Verdict">>], Rows)]).

%% What a baseline comparison's interval knows.
basis_text(<<"forks">>) -> <<" (forks)">>;
basis_text(<<"single_run">>) -> <<" (one run each)">>;
basis_text(_Unknown) -> <<>>.

baseline_bar(Name, #{<<"change_pct">> := C} = E) ->
    Interval = case figure(<<"ci95_pct">>, E) of
                   [Lo, Hi] when is_number(Lo), is_number(Hi) -> #{lo => Lo, hi => Hi};
                   _ -> #{}
               end,
    Interval#{label => [Name, " against ", erlperf_name:text(maps:get(<<"file">>, E, <<>>))],
              value => C,
              class => case baseline_class(E) of <<>> -> <<"runner">>; Class -> Class end,
              note => baseline_verdict(E)}.

baseline_class(E) ->
    case erlperf_baseline:record_word(E) of
        "regressed" -> <<"regression">>;
        "improved" -> <<"faster">>;
        "inconclusive" -> <<"inconclusive">>;
        _ -> <<>>
    end.

%% The verdict as the record words it (records of older releases: from the fields), and
%% each exact count that changed.
baseline_verdict(#{<<"text">> := _} = E) ->
    erlperf_baseline:record_text(E);
baseline_verdict(#{<<"match">> := <<"none">>}) ->
    <<"no matching runner in the baseline">>;
baseline_verdict(#{<<"verdict">> := <<"slower">>, <<"significant">> := true}) ->
    <<"regression: significantly slower">>;
baseline_verdict(#{<<"verdict">> := <<"faster">>, <<"significant">> := true}) ->
    <<"significantly faster">>;
baseline_verdict(_Entry) ->
    <<"no significant difference">>.

%% Concurrency mode: throughput at each concurrency tried.
steps(Named) ->
    Series = [#{name => Name,
                points => [{C, Q} || #{?CONCURRENCY := C, ?QPS := Q} <- Steps,
                                     is_number(Q)],
                marked => [{C, Q} || #{?CONCURRENCY := C, ?QPS := Q} <- Steps,
                                     C =:= maps:get(<<"best_concurrency">>, Run, none)]}
              || {Name, #{<<"steps">> := Steps} = Run} <- Named, is_list(Steps)],
    section_if(Series =/= [], <<"Concurrency">>,
               erlperf_svg:line_chart(Series, #{title => <<"Throughput against concurrency">>,
                                                x_label => <<"workers">>, x_format => fun erlperf_svg:format_whole/1,
                                                y_label => <<"iterations per second">>})).

profiles(Named) ->
    Tables = [[<<"<h3>">>, erlperf_html:escape([Name, " (", maps:get(<<"tool">>, P, <<>>), ")"]),
               <<"</h3>\n">>, profile_table(maps:get(<<"functions">>, P, []))]
              || {Name, #{<<"profile">> := #{} = P}} <- Named],
    section_if(Tables =/= [], <<"Profiles">>, Tables).

%% tprof's profiles have bytes per call too.
profile_table(Functions) ->
    Memory = Functions =/= [] andalso lists:all(fun (F) -> is_map_key(<<"bytes_per_call">>, F) end, Functions),
    Extra = fun (F) -> [number(maps:get(<<"bytes_per_call">>, F, null)) || Memory] end,
    erlperf_html:table([<<"Function">>, <<"Calls">>, <<"Own time">>, <<"%">>]
                       ++ [<<"Bytes per call">> || Memory],
                       [[code(maps:get(<<"function">>, F, <<>>)), figure(<<"calls">>, F),
                         erlperf_units:us(maps:get(<<"time_us">>, F, null)), pct(maps:get(<<"percent">>, F, null))
                         | Extra(F)]
                        || F <- Functions]).

system(Record) ->
    Pairs = fun (Key) -> [[K, scalar(V)] || {K, V} <- lists:sort(maps:to_list(maps:get(Key, Record, #{})))] end,
    erlperf_html:section(<<"System and options">>,
                         [erlperf_html:table([<<"System">>, <<>>], Pairs(?SYSTEM)),
                          erlperf_html:table([<<"Option">>, <<>>], Pairs(?OPTIONS))]).

%%--------------------------------------------------------------------
%% Internal functions: pieces

section_if(false, _Title, _Content) -> [];
section_if(true, Title, Content) -> erlperf_html:section(Title, Content).

%% A run's name in charts: its label, and in a sweep its parameters (as erlperf_name
%% writes names: one line, quoted when it holds a control character).
name(Run, Names) ->
    erlperf_name:text(erlperf_record:run_name(Run, Names)).

row_class(#{?BASELINES := Entries} = Run) ->
    case [E || E <- Entries, baseline_class(E) =:= <<"regression">>] of
        [] -> best_class(Run);
        _ -> <<"regression">>
    end;
row_class(Run) ->
    best_class(Run).

best_class(#{<<"best">> := true}) -> <<"best">>;
best_class(_Run) -> <<>>.

qps_interval(Run) ->
    case erlperf_record:qps_interval(Run) of
        none -> <<"-">>;
        Text -> Text
    end.

%% Whether any run was compared with another (else no run is "the fastest").
compared(Named) ->
    lists:any(fun ({_, Run}) -> is_map_key(?COMPARISON, Run) end, Named).

verdict(#{?COMPARISON := #{<<"against">> := Against}} = Run) ->
    erlperf_verdict:against(erlperf_record:comparison(Run), erlperf_name:text(Against));
verdict(_Fastest) ->
    <<"fastest">>.

%% A run without a comparison is the fastest when others were compared with it (in a
%% sweep: the fastest of its combination).
verdict(#{?COMPARISON := _} = Run, _Compared) -> verdict(Run);
verdict(Run, true) -> verdict(Run);
verdict(_Run, false) -> <<>>.

code(Code) ->
    {raw, ["<code>", erlperf_html:escape(Code), "</code>"]}.

param_text(null) -> <<"-">>;
param_text(Value) -> erlperf_name:text(erlperf_units:record_text(Value)).

figure(Key, Map) ->
    case maps:get(Key, Map, null) of
        null -> <<"-">>;
        V -> V
    end.

count(N) when is_number(N) -> erlperf_units:count(N);
count(_) -> <<"-">>.

time_ns(N) when is_number(N) -> erlperf_units:time(N);
time_ns(_) -> <<"-">>.

number(N) when is_number(N) -> erlperf_units:number(N);
number(_) -> <<"-">>.

pct(N) when is_number(N) -> erlperf_units:percent(N);
pct(_) -> <<"-">>.

pct_interval([Lo, Hi]) when is_number(Lo), is_number(Hi) ->
    [erlperf_units:percent(Lo), "..", erlperf_units:percent(Hi)];
pct_interval(_) ->
    <<"-">>.

percent(N) -> [erlperf_svg:format_number(N), "%"].



%% Options and system figures: numbers and text as they are, anything else as JSON.
scalar(V) when is_binary(V); is_number(V) -> V;
scalar(null) -> <<"-">>;
scalar(V) -> erlperf_json:encode(V).

enumerate(List) ->
    lists:zip(lists:seq(1, length(List)), List).

%% A percentile's name on a chart's axis.
axis_name(?P999) -> <<"p99.9">>;
axis_name(Key) -> Key.
