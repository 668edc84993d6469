%%% @doc The HTML report of a performance test: the pages drawn from a results record of
%%% {@link erlperf_perf_test} (`results.json' decoded by {@link erlperf_json:decode/1}, or
%%% the record `erlperf_perf_test:run/2' returns). Pure: returns the pages' file names and
%%% contents; the caller writes them into one directory (the links between pages are
%%% relative).
%%%
%%% Pages:
%%% <ul>
%%%   <li>`index.html': the test, the system, a row per size (status and the reason of a
%%%       failed run, functions detected, processes discovered), the requirements with
%%%       pass or fail, the top functions' time per call and calls across sizes, the top
%%%       processes' peak memory and reductions across sizes, the test nodes' memory,
%%%       process count and scheduler utilisation over time, what the custom agents
%%%       reported, and the list of every function and process with links to their
%%%       pages.</li>
%%%   <li>`function-N.html', one per target function that was called (`m:f/a', all test
%%%       nodes together): its calls and time per call across sizes, and for each size
%%%       its nodes and the processes that called it.</li>
%%%   <li>`process-N.html', one per process name: the processes of that name at each
%%%       size, and their memory, reductions and message queue length over time, one
%%%       series per size.</li>
%%% </ul>
%%% `N' counts from 1 in the sorted order of the names.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>process name</b>: as in the record, a registered name, else the initial
%%%       call `m:f/a'. Several processes may share one (a handler per connection); a
%%%       process page sums their samples taken at the same moment, per size and test
%%%       node.</li>
%%%   <li><b>top functions</b>: the `?TOP_FUNCTIONS' functions with the most
%%%       (compensated) time over all sizes; <b>top processes</b>: the `?TOP_PROCESSES'
%%%       names with the highest peak memory (or the most reductions).</li>
%%%   <li><b>peak memory</b> of a name at a size: the highest memory sample of any one
%%%       process of that name (what `max_process_memory' checks); its <b>reductions</b>:
%%%       the last sample of each process of that name, summed.</li>
%%%   <li><b>custom agent report</b>: the `report' a custom agent's `process_results/2'
%%%       may return (see {@link erlperf_custom_agent}): tables and series, drawn per
%%%       agent with the size (and the node, when there are several) added.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% {ok, Bytes} = file:read_file("erlperf_results/my_test-20261122T140000/results.json"),
%%% {ok, Record} = erlperf_json:decode(Bytes),
%%% [ok = file:write_file(filename:join("report", Name), Html)
%%%  || {Name, Html} <- erlperf_html_perf:render(Record)].
%%% '''
%%% Every text taken from the record (test name, functions, processes, nodes, reasons,
%%% what custom agents returned) is escaped; values of an unexpected type are shown as
%%% printed text, never dropped into the markup.
-module(erlperf_html_perf).

%% API: called by erlperf_render.
-export([render/1]).

-export_type([page/0]).

-include("model/erlperf_schema.hrl").

%% A page: its file name (relative to the report's directory) and its document.
-type page() :: {file:filename(), iodata()}.

%% Functions drawn on the front page's charts.
-define(TOP_FUNCTIONS, 6).
%% Process names drawn on the front page's charts.
-define(TOP_PROCESSES, 6).
%% Longest table of processes calling a function at one size; the rest are counted.
-define(MAX_ROWS, 200).
%% Longest printed form of a custom agent's result without a report or a text, in bytes.
-define(MAX_RAW_BYTES, 20000).
%% Figures from this magnitude are shown with ?DECIMALS decimals (enough for
%% microseconds), smaller ones with ?SMALL_DIGITS significant digits.
-define(SMALL, 0.01).
-define(DECIMALS, 3).
-define(SMALL_DIGITS, 4).

%%--------------------------------------------------------------------
%% API

%% @doc The pages of the report: `index.html' first, then a page per function and per
%% process name.
-spec render(map()) -> [page()].
render(Record0) when is_map(Record0) ->
    Record = normalise(Record0),
    Runs = [R || R <- list(?RUNS, Record), is_map(R)],
    Ctx = #{record => Record, runs => Runs,
            label => text(maps:get(?SIZE_LABEL, Record, <<"size">>)),
            functions => numbered(lists:usort([key(maps:get(<<"mfa">>, F, null))
                                               || R <- Runs, F <- maps_in(<<"functions">>, R)])),
            processes => numbered(lists:usort([key(maps:get(<<"name">>, P, null))
                                               || R <- Runs, P <- maps_in(<<"processes">>, R)]))},
    [{"index.html", index(Ctx)}
     | [{function_file(N), function_page(Mfa, Ctx)} || {Mfa, N} <- by_number(maps:get(functions, Ctx))]
       ++ [{process_file(N), process_page(Name, Ctx)} || {Name, N} <- by_number(maps:get(processes, Ctx))]].

%%--------------------------------------------------------------------
%% The front page

index(#{record := Record} = Ctx) ->
    Title = ["Performance test: ", name(maps:get(<<"test">>, Record, <<"unnamed">>))],
    erlperf_html:page(Title,
                      [test_info(Ctx), system_info(Record), runs(Ctx), open_load(Ctx), requirements(Ctx),
                       top_functions(Ctx), top_processes(Ctx), node_metrics(Ctx),
                       custom_agents(Ctx), function_list(Ctx), process_list(Ctx),
                       conflicts(Ctx), reloads(Ctx)]).

%% Runs of an open load (erlperf_perf_rate): the response-time percentiles against the
%% rate the run's load offered (its `target'), and a table of each run's figures.
open_load(#{runs := Runs, label := Label}) ->
    case [{Size, Rate} || #{<<"rate">> := #{} = Rate} = R <- Runs, Size <- [maps:get(?SIZE, R, null)]] of
        [] ->
            [];
        Loaded ->
            Figure = fun (K, Rate) -> maps:get(K, Rate, null) end,
            Rows = [[text(Size), text(Figure(<<"target">>, Rate)), text(round_number(Figure(<<"achieved">>, Rate))),
                     text(Figure(<<"late">>, Rate)), text(Figure(<<"skipped">>, Rate))]
                    ++ [erlperf_units:us(maps:get(K, response(Rate), null)) || K <- [?P50, ?P99, ?P999, <<"max">>]]
                    || {Size, Rate} <- Loaded],
            Chart = erlperf_html_bench:response_chart(
                      <<"Response time against rate">>,
                      [{Figure(<<"target">>, Rate), response(Rate)} || {_, Rate} <- Loaded], null),
            erlperf_html:section(<<"Open load">>,
                                 [Chart,
                                  erlperf_html:table([Label, <<"rate">>, <<"achieved">>, <<"late">>,
                                                      <<"skipped">>, <<"response p50">>, ?P99,
                                                      <<"p99.9">>, <<"max">>], Rows),
                                  para(<<"Response time: from when each call was due, so the wait "
                                         "behind slow calls counts.">>)])
    end.

response(#{<<"response_us">> := #{} = Us}) -> Us;
response(_Rate) -> #{}.

round_number(N) when is_number(N) -> round(N);
round_number(Other) -> Other.

test_info(#{record := R, label := Label}) ->
    Rows = [[<<"test">>, name(maps:get(<<"test">>, R, null))],
            [<<"load generator">>, text(maps:get(?LOAD_GENERATOR, R, null))],
            [<<"sizes">>, [Label, ": ", join([text(S) || S <- list(<<"sizes">>, R)], ", ")]],
            [<<"started">>, text(maps:get(?STARTED, R, null))],
            [<<"trace patterns">>, join([text(P) || P <- list(?TRACE_PATTERNS, R)], ", ")],
            [<<"options">>, text(maps:get(?OPTIONS, R, null))],
            [<<"record version">>, text(maps:get(?VERSION, R, null))]]
        ++ [[<<"results">>, text(Dir)] || #{<<"dir">> := Dir} <- [R]],
    erlperf_html:section(<<"Test">>, erlperf_html:table([<<"">>, <<"">>], Rows)).

system_info(Record) ->
    case maps:get(?SYSTEM, Record, #{}) of
        System when is_map(System) ->
            Rows = [[text(K), text(V)] || {K, V} <- lists:sort(maps:to_list(System))],
            erlperf_html:section(<<"System">>, erlperf_html:table([<<"">>, <<"">>], Rows));
        Other ->
            erlperf_html:section(<<"System">>, para(text(Other)))
    end.

runs(#{runs := Runs, label := Label}) ->
    Header = [Label, <<"status">>, <<"error">>, <<"load ms">>, <<"test nodes">>,
              <<"functions detected">>, <<"processes discovered">>, <<"calls">>,
              <<"µs per call"/utf8>>, <<"agents' µs per call, discovering"/utf8>>,
              <<"agents' µs per call, dormant"/utf8>>],
    Rows = [run_row(R) || R <- Runs],
    erlperf_html:section(<<"Runs">>, erlperf_html:table(Header, Rows)).

run_row(Run) ->
    Totals = function_totals(Run),
    {Calls, Time} = maps:fold(fun (_, {C, T}, {C0, T0}) -> {C0 + C, T0 + T} end, {0, 0}, Totals),
    Cells = [cell(maps:get(?SIZE, Run, null)), text(maps:get(?STATUS, Run, null)),
             text(maps:get(<<"error">>, Run, null)), cell(maps:get(<<"duration_ms">>, Run, null)),
             join([text(N) || N <- list(<<"nodes">>, Run)], ", "), map_size(Totals),
             length(maps_in(<<"processes">>, Run)), Calls, per_call_cell(Time, Calls),
             cell(maps:get(<<"impact_us_per_call">>, Run, null)),
             cell(maps:get(<<"impact_counting_us_per_call">>, Run, null))],
    case ok(Run) of
        true -> Cells;
        false -> {<<"failed">>, Cells}
    end.

requirements(#{record := Record, label := Label}) ->
    case maps_in(?REQUIREMENTS, Record) of
        [] ->
            erlperf_html:section(<<"Requirements">>, para(<<"The test states no requirements.">>));
        Reqs ->
            Passed = length([R || #{<<"pass">> := true} = R <- Reqs]),
            Header = [Label, <<"requirement">>, <<"subject">>, <<"limit">>, <<"measured">>,
                      <<"result">>, <<"note">>],
            Rows = [requirement_row(R) || R <- Reqs],
            erlperf_html:section(<<"Requirements">>,
                                 [para(io_lib:format("~b of ~b passed.", [Passed, length(Reqs)])),
                                  erlperf_html:table(Header, Rows)])
    end.

requirement_row(Req) ->
    Pass = maps:get(<<"pass">>, Req, false) =:= true,
    Cells = [cell(maps:get(K, Req, null)) || K <- [?SIZE, <<"requirement">>, <<"subject">>,
                                                    <<"limit">>, <<"measured">>]]
        ++ [{raw, verdict(Pass)}, text(maps:get(<<"note">>, Req, null))],
    case Pass of
        true -> Cells;
        false -> {<<"failed">>, Cells}
    end.

verdict(true) -> <<"<span class=\"pass\">pass</span>">>;
verdict(false) -> <<"<span class=\"fail\">FAIL</span>">>.

top_functions(#{runs := Runs, label := Label} = Ctx) ->
    PerRun = [{maps:get(?SIZE, R, null), function_totals(R)} || R <- Runs, ok(R)],
    Ranked = lists:reverse(lists:keysort(2, maps:to_list(
        lists:foldl(fun ({_, Totals}, Acc) ->
                            maps:fold(fun (Mfa, {_, T}, A) -> A#{Mfa => maps:get(Mfa, A, 0) + T} end,
                                      Acc, Totals)
                    end, #{}, PerRun)))),
    Top = [Mfa || {Mfa, _} <- lists:sublist(Ranked, ?TOP_FUNCTIONS)],
    Series = fun (Y) -> [#{name => Mfa,
                           points => [{S, Y(C, T)} || {S, #{Mfa := {C, T}}} <- PerRun,
                                                      is_number(S), C > 0]} || Mfa <- Top] end,
    Note = io_lib:format("The ~b functions with the most time over all sizes (time per call after "
                         "the agents' cost is taken out); every function has a page, listed below.",
                         [length(Top)]),
    erlperf_html:section(<<"Top functions">>,
                         [para(Note),
                          chart(<<"top-time">>, Series(fun (C, T) -> T / C end),
                                #{title => <<"Time per call">>, x_label => Label,
                                  y_label => <<"time per call (µs)"/utf8>>}),
                          chart(<<"top-calls">>, Series(fun (C, _) -> C end),
                                #{title => <<"Calls">>, x_label => Label, y_label => <<"calls">>}),
                          top_links(Top, Ctx)]).

top_links([], _Ctx) ->
    [];
top_links(Mfas, #{functions := Index}) ->
    ["<p>", join([function_link(Mfa, Index) || Mfa <- Mfas], ", "), "</p>\n"].

top_processes(#{runs := Runs, label := Label}) ->
    PerRun = [{maps:get(?SIZE, R, null), process_peaks(R)} || R <- Runs, ok(R)],
    Draw = fun (Pick, Title, YLabel, Id, Format) ->
                   Best = lists:foldl(fun ({_, Peaks}, Acc) ->
                                              maps:fold(fun (N, P, A) -> A#{N => max(Pick(P), maps:get(N, A, 0))} end,
                                                        Acc, Peaks)
                                      end, #{}, PerRun),
                   Top = [N || {N, _} <- lists:sublist(lists:reverse(lists:keysort(2, maps:to_list(Best))),
                                                       ?TOP_PROCESSES)],
                   Series = [#{name => N, points => [{S, Pick(P)} || {S, #{N := P}} <- PerRun, is_number(S)]}
                             || N <- Top],
                   chart(Id, Series, #{title => Title, x_label => Label, y_label => YLabel,
                                       y_format => Format})
           end,
    erlperf_html:section(<<"Top processes">>,
                         [para(<<"Peak memory: the highest sample of any one process of the name; "
                                 "reductions: the last sample of each process of the name, summed.">>),
                          Draw(fun ({M, _}) -> M end, <<"Peak memory">>, <<"memory (bytes)">>,
                               <<"top-memory">>, fun erlperf_svg:format_number/1),
                          Draw(fun ({_, R}) -> R end, <<"Reductions">>, <<"reductions">>,
                               <<"top-reductions">>, fun erlperf_svg:format_number/1)]).

%% #{Name => {PeakMemory, Reductions}} of a run.
process_peaks(Run) ->
    lists:foldl(fun (P, Acc) ->
                        Name = key(maps:get(<<"name">>, P, null)),
                        {M0, R0} = maps:get(Name, Acc, {0, 0}),
                        M = lists:max([0 | [V || {_, V} <- samples(<<"memory">>, P)]]),
                        R = case samples(<<"reductions">>, P) of [] -> 0; S -> element(2, lists:last(S)) end,
                        Acc#{Name => {max(M0, M), R0 + R}}
                end, #{}, maps_in(<<"processes">>, Run)).

node_metrics(#{runs := Runs} = Ctx) ->
    Charts = [{<<"memory_total">>, <<"Test node memory">>, <<"memory (bytes)">>, fun erlperf_svg:format_number/1},
              {<<"process_count">>, <<"Test node processes">>, <<"processes">>,
               fun erlperf_svg:format_number/1},
              {<<"scheduler_utilisation">>, <<"Scheduler utilisation">>, <<"utilisation (0..1)">>,
               fun erlperf_svg:format_number/1}],
    Series = fun (Metric) ->
                     [#{name => series_name(Ctx, Size, Node, Multi), points => samples(Metric, M)}
                      || Run <- Runs, ok(Run),
                         Size <- [maps:get(?SIZE, Run, null)],
                         Metrics <- [maps:get(<<"node_metrics">>, Run, #{})], is_map(Metrics),
                         Multi <- [map_size(Metrics) > 1],
                         {Node, M} <- lists:sort(maps:to_list(Metrics)), is_map(M)]
             end,
    erlperf_html:section(<<"Test nodes">>,
                         [chart(<<"node-", Metric/binary>>, Series(Metric),
                                #{title => Title, x_label => <<"time since the agents started (ms)">>,
                                  y_label => YLabel, y_format => Format, x_scale => linear})
                          || {Metric, Title, YLabel, Format} <- Charts]).

function_list(#{runs := Runs, label := Label, functions := Index}) ->
    PerRun = [{R, function_totals(R)} || R <- Runs],
    Header = [<<"function">> | [[Label, " ", text(maps:get(?SIZE, R, null)), ": calls, µs per call"]
                                || {R, _} <- PerRun]],
    Rows = [[{raw, function_link(Mfa, Index)}
             | [case Totals of
                    #{Mfa := {C, T}} when C > 0 -> [integer_to_binary(C), ", ", num(T / C)];
                    #{Mfa := {C, _}} -> integer_to_binary(C);
                    _ -> <<"-">>
                end || {_, Totals} <- PerRun]]
            || {Mfa, _} <- by_number(Index)],
    erlperf_html:section(<<"Functions">>, erlperf_html:table(Header, Rows)).

process_list(#{runs := Runs, label := Label, processes := Index}) ->
    Counts = [{R, lists:foldl(fun (P, A) -> N = key(maps:get(<<"name">>, P, null)),
                                             A#{N => maps:get(N, A, 0) + 1} end,
                              #{}, maps_in(<<"processes">>, R))} || R <- Runs],
    Header = [<<"process">> | [[Label, " ", text(maps:get(?SIZE, R, null)), ": processes"]
                               || {R, _} <- Counts]],
    Rows = [[{raw, process_link(Name, Index)} | [maps:get(Name, C, 0) || {_, C} <- Counts]]
            || {Name, _} <- by_number(Index)],
    erlperf_html:section(<<"Processes">>, erlperf_html:table(Header, Rows)).

conflicts(#{runs := Runs, label := Label}) ->
    Rows = [[cell(maps:get(?SIZE, R, null)) | [text(maps:get(K, C, null))
                                                    || K <- [<<"node">>, <<"kind">>, <<"caller">>, <<"detail">>]]]
            || R <- Runs, C <- maps_in(<<"conflicts">>, R)],
    optional_table(<<"Tracing conflicts">>, [Label, <<"node">>, <<"kind">>, <<"caller">>, <<"detail">>], Rows).

reloads(#{runs := Runs, label := Label}) ->
    Rows = [[cell(maps:get(?SIZE, R, null)) | [cell(maps:get(K, C, null))
                                                    || K <- [<<"node">>, <<"module">>, <<"t_ms">>]]]
            || R <- Runs, C <- maps_in(<<"reloads">>, R)],
    optional_table(<<"Modules reloaded">>, [Label, <<"node">>, <<"module">>, <<"ms">>], Rows).

optional_table(_Title, _Header, []) -> [];
optional_table(Title, Header, Rows) -> erlperf_html:section(Title, erlperf_html:table(Header, Rows)).

%%--------------------------------------------------------------------
%% Custom agents

custom_agents(#{runs := Runs} = Ctx) ->
    Agents = lists:usort([A || R <- Runs, {A, _} <- pairs(<<"custom_agents">>, R)]),
    [custom_agent(Agent, I, Ctx) || {Agent, I} <- lists:zip(Agents, lists:seq(1, length(Agents)))].

custom_agent(Agent, I, #{runs := Runs, label := Label} = Ctx) ->
    Results = [{maps:get(?SIZE, R, null), Node, Result}
               || R <- Runs, {A, ByNode} <- pairs(<<"custom_agents">>, R), A =:= Agent,
                  is_map(ByNode), {Node, Result} <- lists:sort(maps:to_list(ByNode))],
    Multi = length(lists:usort([{S, N} || {S, N, _} <- Results])) > length(lists:usort([S || {S, _, _} <- Results])),
    Prefix = fun (Size, Node) -> [cell(Size) | [text(Node) || Multi]] end,
    PrefixHeader = [Label | [<<"node">> || Multi]],
    Texts = [Prefix(S, N) ++ [text(T)] || {S, N, #{<<"text">> := T}} <- Results],
    Reports = [{S, N, Rep} || {S, N, #{<<"report">> := Rep}} <- Results, is_map(Rep)],
    Raw = [{S, N, Res} || {S, N, Res} <- Results, not is_map(Res) orelse
                                                      not (is_map_key(<<"text">>, Res) orelse is_map_key(<<"report">>, Res))],
    erlperf_html:section(["Custom agent: ", text(Agent)],
                         [case Texts of
                              [] -> [];
                              _ -> erlperf_html:table(PrefixHeader ++ [<<"summary">>], Texts)
                          end,
                          report_tables(Reports, Prefix, PrefixHeader),
                          report_series(Reports, I, Ctx, Multi),
                          [["<h3>", erlperf_html:escape([Label, " ", text(S) | [[", ", text(N)] || Multi]]),
                            "</h3>\n<pre>", erlperf_html:escape(raw_text(Res)), "</pre>\n"]
                           || {S, N, Res} <- Raw]]).

%% The report's tables, those with the same title and columns at every size merged into one.
report_tables(Reports, Prefix, PrefixHeader) ->
    Tables = [{{text(maps:get(<<"title">>, T, <<>>)), [text(C) || C <- list(<<"columns">>, T)]},
               [Prefix(S, N) ++ [cell(V) || V <- Row] || Row <- list(<<"rows">>, T), is_list(Row)]}
              || {S, N, Rep} <- Reports, T <- maps_in(<<"tables">>, Rep)],
    [["<h3>", erlperf_html:escape(Title), "</h3>\n", erlperf_html:table(PrefixHeader ++ Columns, Rows)]
     || {{Title, Columns}, Rows} <- grouped(Tables)].

%% The report's series, one chart per title and axes, a series per size (and node).
report_series(Reports, I, Ctx, Multi) ->
    Charts = [{list_to_tuple([text(maps:get(K, Spec, <<>>)) || K <- [<<"title">>, <<"x_label">>, <<"y_label">>]]),
               [#{name => [series_name(Ctx, S, N, Multi), ": ", text(maps:get(<<"name">>, One, <<>>))],
                  points => points(maps:get(<<"points">>, One, []))}
                || One <- maps_in(<<"series">>, Spec)]}
              || {S, N, Rep} <- Reports, Spec <- maps_in(<<"series">>, Rep)],
    Groups = grouped(Charts),
    [chart(iolist_to_binary(io_lib:format("custom-~b-~b", [I, J])), Series,
           #{title => Title, x_label => X, y_label => Y})
     || {J, {{Title, X, Y}, Series}} <- lists:zip(lists:seq(1, length(Groups)), Groups)].

%% [{Key, Value}] -> [{Key, [Value]}], keys in the order they first appear.
grouped(Pairs) ->
    Keys = lists:foldl(fun ({K, _}, Acc) -> case lists:member(K, Acc) of
                                                true -> Acc;
                                                false -> [K | Acc]
                                            end end, [], Pairs),
    [{K, lists:append([V || {K1, V} <- Pairs, K1 =:= K])} || K <- lists:reverse(Keys)].

raw_text(Term) ->
    Text = iolist_to_binary(text(Term)),
    case byte_size(Text) > ?MAX_RAW_BYTES of
        true -> [string:slice(Text, 0, ?MAX_RAW_BYTES), <<"\n...">>];
        false -> Text
    end.

%%--------------------------------------------------------------------
%% Function pages

function_page(Mfa, #{runs := Runs, label := Label} = Ctx) ->
    PerRun = [{R, [F || F <- maps_in(<<"functions">>, R), key(maps:get(<<"mfa">>, F, null)) =:= Mfa]}
              || R <- Runs],
    Totals = [{maps:get(?SIZE, R, null), function_totals(R)} || {R, _} <- PerRun, ok(R)],
    Series = fun (Y) -> [#{name => Mfa, points => [{S, Y(C, T)} || {S, #{Mfa := {C, T}}} <- Totals,
                                                                   is_number(S), C > 0]}] end,
    erlperf_html:page(["Function ", Mfa],
                      [back(),
                       chart(<<"function-calls">>, Series(fun (C, _) -> C end),
                             #{title => <<"Calls">>, x_label => Label, y_label => <<"calls">>}),
                       chart(<<"function-time">>, Series(fun (C, T) -> T / C end),
                             #{title => <<"Time per call">>, x_label => Label,
                               y_label => <<"time per call (µs)"/utf8>>}),
                       [function_size(R, Fs, Ctx) || {R, Fs} <- PerRun, Fs =/= []]]).

function_size(Run, Functions, #{label := Label, processes := Index}) ->
    Names = pid_names(Run),
    NodeRows = [[text(maps:get(<<"node">>, F, null)) | numbers(F)] || F <- Functions],
    Callers = lists:reverse(lists:keysort(1, [{maps:get(<<"time_us">>, P, 0), Node, P}
                                              || F <- Functions, Node <- [maps:get(<<"node">>, F, null)],
                                                 P <- maps_in(<<"per_process">>, F)])),
    {Shown, Hidden} = lists:split(min(?MAX_ROWS, length(Callers)), Callers),
    ProcRows = [[text(maps:get(<<"pid">>, P, null)),
                 case maps:find({key(Node), key(maps:get(<<"pid">>, P, null))}, Names) of
                     {ok, Name} -> {raw, process_link(Name, Index)};
                     error -> <<"-">>
                 end | numbers(P)] || {_, Node, P} <- Shown],
    Numbers = [<<"calls">>, <<"time (µs)"/utf8>>, <<"raw time (µs)"/utf8>>, <<"µs per call"/utf8>>],
    erlperf_html:section([Label, " ", text(maps:get(?SIZE, Run, null))],
                         [erlperf_html:table([<<"node">> | Numbers], NodeRows),
                          erlperf_html:table([<<"process">>, <<"name">> | Numbers], ProcRows),
                          case Hidden of
                              [] -> [];
                              _ -> para(io_lib:format("~b more processes not shown.", [length(Hidden)]))
                          end]).

numbers(M) ->
    Calls = maps:get(<<"calls">>, M, 0),
    Time = maps:get(<<"time_us">>, M, 0),
    [cell(Calls), cell(Time), cell(maps:get(<<"time_us_raw">>, M, null)), per_call_cell(Time, Calls)].

%% #{{Node, Pid} => Name} of a run's discovered processes.
pid_names(Run) ->
    maps:from_list([{{key(maps:get(<<"node">>, P, null)), key(maps:get(<<"pid">>, P, null))},
                     key(maps:get(<<"name">>, P, null))} || P <- maps_in(<<"processes">>, Run)]).

%%--------------------------------------------------------------------
%% Process pages

process_page(Name, #{runs := Runs, label := Label} = Ctx) ->
    PerRun = [{R, [P || P <- maps_in(<<"processes">>, R), key(maps:get(<<"name">>, P, null)) =:= Name]}
              || R <- Runs],
    Metrics = [{<<"memory">>, <<"Memory">>, <<"memory (bytes)">>, fun erlperf_svg:format_number/1},
               {<<"reductions">>, <<"Reductions">>, <<"reductions (total so far)">>,
                fun erlperf_svg:format_number/1},
               {<<"message_queue_len">>, <<"Message queue">>, <<"messages">>,
                fun erlperf_svg:format_number/1}],
    erlperf_html:page(["Process ", Name],
                      [back(),
                       para(<<"Processes of the same name at a size are summed, sample by sample "
                              "(per test node).">>),
                       [chart(<<"process-", Metric/binary>>, process_series(Metric, PerRun, Ctx),
                              #{title => Title, x_label => <<"time since the agents started (ms)">>,
                                y_label => YLabel, y_format => Format, x_scale => linear})
                        || {Metric, Title, YLabel, Format} <- Metrics],
                       erlperf_html:section(<<"Processes">>,
                                            erlperf_html:table([Label, <<"node">>, <<"pid">>, <<"found by">>,
                                                                <<"exited (ms)">>, <<"peak memory (bytes)">>,
                                                                <<"reductions">>, <<"longest queue">>],
                                                               [process_row(R, P, Ctx) || {R, Ps} <- PerRun, P <- Ps]))]).

process_series(Metric, PerRun, Ctx) ->
    [begin
         Mine = [P || P <- Ps, key(maps:get(<<"node">>, P, null)) =:= Node],
         Sum = lists:foldl(fun (P, Acc) ->
                                   lists:foldl(fun ({T, V}, A) -> A#{T => maps:get(T, A, 0) + V} end,
                                               Acc, samples(Metric, P))
                           end, #{}, Mine),
         Name = case length(Mine) of
                    1 -> series_name(Ctx, maps:get(?SIZE, R, null), Node, Multi);
                    K -> [series_name(Ctx, maps:get(?SIZE, R, null), Node, Multi),
                          io_lib:format(" (~b processes)", [K])]
                end,
         #{name => Name, points => lists:sort(maps:to_list(Sum))}
     end || {R, Ps} <- PerRun, Ps =/= [],
            Nodes <- [lists:usort([key(maps:get(<<"node">>, P, null)) || P <- Ps])],
            Multi <- [length(Nodes) > 1], Node <- Nodes].

process_row(Run, P, #{functions := Index}) ->
    FoundBy = key(maps:get(<<"found_by">>, P, null)),
    [cell(maps:get(?SIZE, Run, null)), text(maps:get(<<"node">>, P, null)),
     text(maps:get(<<"pid">>, P, null)),
     case Index of
         #{FoundBy := _} -> {raw, function_link(FoundBy, Index)};
         _ -> FoundBy
     end,
     cell(maps:get(<<"exited">>, P, null)),
     max_sample(<<"memory">>, P), last_sample(<<"reductions">>, P), max_sample(<<"message_queue_len">>, P)].

max_sample(Metric, P) ->
    case samples(Metric, P) of
        [] -> <<"-">>;
        S -> lists:max([V || {_, V} <- S])
    end.

last_sample(Metric, P) ->
    case samples(Metric, P) of
        [] -> <<"-">>;
        S -> element(2, lists:last(S))
    end.

%%--------------------------------------------------------------------
%% Pieces

%% A chart in a box with an id (tests and readers find it by the id); a note instead of an
%% empty chart.
chart(Id, Series0, Options) ->
    case [S || #{points := [_ | _]} = S <- Series0] of
        [] ->
            ["<div class=\"chart-box\" id=\"", Id, "\">",
             para(["No data for ", erlperf_html:escape(maps:get(title, Options, <<>>)), "."]), "</div>\n"];
        Series ->
            ["<div class=\"chart-box\" id=\"", Id, "\">", erlperf_svg:line_chart(Series, whole_x(Series, Options)),
             "</div>\n"]
    end.

%% Sizes (and other integer x values) get tick labels at whole numbers only.
whole_x(Series, Options) ->
    case lists:all(fun ({X, _}) -> is_integer(X); (_) -> false end,
                   [P || #{points := Points} <- Series, P <- Points]) of
        true -> maps:merge(#{x_format => fun erlperf_svg:format_whole/1}, Options);
        false -> Options
    end.

%% "clients 8", or "clients 8, node@host" when a size has several test nodes.
series_name(#{label := Label}, Size, Node, Multi) ->
    [Label, " ", text(Size) | [[", ", text(Node)] || Multi]].

back() ->
    ["<p>", erlperf_html:link(<<"index.html">>, <<"Back to the test">>), "</p>\n"].

para(Text) ->
    ["<p class=\"note\">", erlperf_html:escape(Text), "</p>\n"].

function_link(Mfa, Index) ->
    erlperf_html:link(function_file(maps:get(Mfa, Index)), Mfa).

process_link(Name, Index) ->
    erlperf_html:link(process_file(maps:get(Name, Index)), Name).

function_file(N) -> "function-" ++ integer_to_list(N) ++ ".html".

process_file(N) -> "process-" ++ integer_to_list(N) ++ ".html".

%% Sorted keys -> #{Key => N}, N from 1.
numbered(Keys) ->
    maps:from_list(lists:zip(Keys, lists:seq(1, length(Keys)))).

%% #{Key => N} -> [{Key, N}] in the order of N.
by_number(Index) ->
    lists:keysort(2, maps:to_list(Index)).

%% #{Mfa => {Calls, TimeUs}} of a run, all test nodes together.
function_totals(Run) ->
    lists:foldl(fun (F, Acc) ->
                        Mfa = key(maps:get(<<"mfa">>, F, null)),
                        {C0, T0} = maps:get(Mfa, Acc, {0, 0}),
                        Acc#{Mfa => {C0 + number(maps:get(<<"calls">>, F, 0)),
                                     T0 + number(maps:get(<<"time_us">>, F, 0))}}
                end, #{}, maps_in(<<"functions">>, Run)).

per_call_cell(_Time, 0) -> <<"-">>;
per_call_cell(Time, Calls) -> cell(Time / Calls).

ok(Run) -> maps:get(?STATUS, Run, null) =:= <<"ok">>.

%% Samples [[T, V], ...] as [{T, V}]; anything else is left out.
samples(Key, Map) ->
    points(maps:get(Key, Map, [])).

points(List) when is_list(List) ->
    [{X, Y} || [X, Y] <- List, is_number(X), is_number(Y)];
points(_) ->
    [].

%% A table cell: numbers stay numbers (right-aligned), the rest is text.
cell(I) when is_integer(I) -> I;
cell(F) when is_float(F), F == 0; is_float(F), abs(F) >= ?SMALL -> round(F * 1000) / 1000;
cell(F) when is_float(F) -> {raw, num(F)};
cell(Other) -> text(Other).

%% A float with 3 decimals (enough for microseconds), or 4 significant digits when smaller.
num(I) when is_integer(I) -> integer_to_binary(I);
num(F) when F == 0; abs(F) >= ?SMALL -> list_to_binary(erlperf_units:fixed(F, ?DECIMALS));
num(F) -> list_to_binary(erlperf_units:significant(F, ?SMALL_DIGITS)).

number(N) when is_number(N) -> N;
number(_) -> 0.

%% Text of a value from the record: strings as they are, numbers and atoms printed, other
%% JSON values as JSON, other terms (pids in a record that was not read from JSON) printed.
text(B) when is_binary(B) -> B;
text(null) -> <<"-">>;
text(N) when is_number(N) -> num(N);
text(A) when is_atom(A) -> atom_to_binary(A);
text(Other) ->
    try iolist_to_binary(erlperf_json:encode(Other))
    catch error:_ -> unicode:characters_to_binary(erlperf_units:value(Other))
    end.

%% The test's name, as every output writes names (erlperf_name).
name(Name) when is_binary(Name) -> erlperf_name:text(Name);
name(Other) -> text(Other).

%% A value as a map key: its text.
key(V) -> iolist_to_binary(text(V)).

list(Key, Map) ->
    case maps:get(Key, Map, []) of
        L when is_list(L) -> L;
        _ -> []
    end.

maps_in(Key, Map) ->
    [M || M <- list(Key, Map), is_map(M)].

pairs(Key, Map) ->
    case maps:get(Key, Map, #{}) of
        M when is_map(M) -> lists:sort(maps:to_list(M));
        _ -> []
    end.

join([], _Sep) -> [];
join([H | T], Sep) -> [H | [[Sep, X] || X <- T]].

%% Atom keys (a record made in memory, a custom agent's own map) as binaries, as in a
%% record read from JSON.
normalise(M) when is_map(M) ->
    maps:from_list([{case K of
                         _ when is_atom(K), K =/= null, K =/= true, K =/= false -> atom_to_binary(K);
                         _ -> K
                     end, normalise(V)} || {K, V} <- maps:to_list(M)]);
normalise(L) when is_list(L) ->
    try [normalise(E) || E <- L]
    catch error:_ -> L   % an improper list is left as it is (shown printed)
    end;
normalise(X) ->
    X.
