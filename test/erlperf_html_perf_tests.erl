%%% Tests of the performance-test report, on real records of `./erlperf --perf-test'
%%% (test/erlperf_html_perf_tests_data/, see its README): the httpd example (sizes 1 and 8
%%% kept), the invariants example with the invariant checker, and the deterministic test
%%% with a failed run. Charts are read back with erlperf_html_test_lib and counted against
%%% the record.
-module(erlperf_html_perf_tests).

-include_lib("eunit/include/eunit.hrl").

-define(RECORDS, ["httpd", "invariants", "det_failed"]).
-define(HOSTILE, <<"<script>alert(\"x\")</script>'&">>).
%% Rendering the httpd record and reading every chart back takes 0.2-0.8 s on a quiet
%% machine; eunit's 5 s default, once exceeded, ends the whole run, so the tests that
%% render a whole record take a minute.
-define(RENDER_TIMEOUT_S, 60).

%%--------------------------------------------------------------------
%% Every page of every record

pages_test_() ->
    per_record(fun pages/1).

%% A test of each record, under the rendering timeout.
per_record(Test) ->
    [{Name, {timeout, ?RENDER_TIMEOUT_S, fun () -> Test(record(Name)) end}} || Name <- ?RECORDS].

pages(Record) ->
    Pages = erlperf_html_perf:render(Record),
    Files = [F || {F, _} <- Pages],
    ?assertMatch([{"index.html", _} | _], Pages),
    ?assertEqual(length(Files), length(lists:usort(Files))),
    Runs = maps:get(<<"runs">>, Record),
    Mfas = lists:usort([M || #{<<"functions">> := Fs} <- Runs, #{<<"mfa">> := M} <- Fs]),
    Names = lists:usort([N || #{<<"processes">> := Ps} <- Runs, #{<<"name">> := N} <- Ps]),
    ?assertEqual(["index.html" | [page("function", N) || N <- lists:seq(1, length(Mfas))]
                  ++ [page("process", N) || N <- lists:seq(1, length(Names))]], Files),
    %% each function and process has its own page, titled by it
    [?assert(has(proplists:get_value(page("function", N), Pages), ["<h1>Function ", Mfa, "</h1>"]), Mfa)
     || {Mfa, N} <- lists:zip(Mfas, lists:seq(1, length(Mfas)))],
    [?assert(has(proplists:get_value(page("process", N), Pages),
                 ["<h1>Process ", erlperf_html:escape(Name), "</h1>"]), Name)
     || {Name, N} <- lists:zip(Names, lists:seq(1, length(Names)))],
    lists:foreach(
      fun ({File, Html}) ->
              ok = erlperf_html_test_lib:assert_page(Html),
              _ = erlperf_html_test_lib:svgs(Html),          % every chart is well-formed XML
              [?assert(lists:member(Href, Files), {File, Href}) || Href <- hrefs(Html)]
      end, Pages),
    %% every function and process page is reached from the front page
    Index = proplists:get_value("index.html", Pages),
    ?assertEqual(lists:usort(tl(Files)), lists:usort(hrefs(Index)) -- ["index.html"]).

%%--------------------------------------------------------------------
%% The front page

front_page_test_() ->
    per_record(fun front_page/1).

front_page(#{<<"runs">> := Runs} = Record) ->
    Index = index(Record),
    %% a row per size, with its status and the reason of a failed run
    [?assert(has(Index, [case S of <<"ok">> -> "<tr>"; _ -> "<tr class=\"failed\">" end,
                         "<td class=\"num\">", integer_to_list(Size), "</td><td>", S, "</td><td>",
                         case E of null -> "-"; _ -> erlperf_html:escape(E) end, "</td>"]), Size)
     || #{<<"size">> := Size, <<"status">> := S, <<"error">> := E} <- Runs],
    %% every requirement, with pass or FAIL
    Reqs = maps:get(<<"requirements">>, Record),
    [?assert(has(Index, [integer_to_list(Size), "</td><td>", Kind, "</td><td>",
                         erlperf_html:escape(Subject), "</td>"]), Subject)
     || #{<<"size">> := Size, <<"requirement">> := Kind, <<"subject">> := Subject} <- Reqs],
    Passed = length([R || #{<<"pass">> := true} = R <- Reqs]),
    ?assertEqual(Passed, count(Index, "<span class=\"pass\">pass</span>")),
    ?assertEqual(length(Reqs) - Passed, count(Index, "<span class=\"fail\">FAIL</span>")).

failed_run_test() ->
    #{<<"runs">> := Runs} = Record = record("det_failed"),
    ?assertMatch([_], [R || #{<<"status">> := <<"failed">>} = R <- Runs]),   % the record is what we think
    Index = index(Record),
    ?assert(has(Index, "start_load: error:{injected,start_load,2} in det_load_gen:fail_if/2")),
    %% the failed size has no point on the charts drawn across sizes
    [Time] = [S || {<<"Time per call">>, S} <- charts(Index)],
    ?assertEqual([{"det_load_gen:work/1", [1, 3]}], [{N, [X || {X, _} <- Ps]} || {N, Ps} <- Time]).

%% The top functions' charts: a point per size where the function was called, per
%% function; the most time-consuming function among them.
top_functions_test_() ->
    per_record(fun top_functions/1).

top_functions(#{<<"runs">> := Runs} = Record) ->
    Ok = [R || #{<<"status">> := <<"ok">>} = R <- Runs],
    Totals = [{Size, totals(R)} || #{<<"size">> := Size} = R <- Ok],
    Called = lists:usort([M || {_, T} <- Totals, {M, {C, _}} <- maps:to_list(T), C > 0]),
    Charts = charts(index(Record)),
    [Time] = [S || {<<"Time per call">>, S} <- Charts],
    [Calls] = [S || {<<"Calls">>, S} <- Charts],
    ?assertEqual(min(6, length(Called)), length(Time)),
    ?assertEqual([N || {N, _} <- Time], [N || {N, _} <- Calls]),
    lists:foreach(
      fun ({Name, Points}) ->
              Mfa = unicode:characters_to_binary(Name),
              Expected = [{Size, C} || {Size, #{Mfa := {C, _}}} <- Totals, C > 0],
              ?assertEqual(Expected, proplists:get_value(Name, Calls)),
              ?assertEqual([{S, T / C} || {S, #{Mfa := {C, T}}} <- Totals, C > 0],
                           [{S, float(Y)} || {S, Y} <- Points])
      end, Time),
    {_, Most} = lists:max([{lists:sum([T || {_, #{M := {_, T}}} <- Totals]), M} || M <- Called]),
    ?assert(lists:member(unicode:characters_to_list(Most), [N || {N, _} <- Time]), Most).

%%--------------------------------------------------------------------
%% Function and process pages

function_pages_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun function_pages/0}.

function_pages() ->
    #{<<"runs">> := Runs} = Record = record("httpd"),
    Pages = erlperf_html_perf:render(Record),
    Mfas = lists:usort([M || #{<<"functions">> := Fs} <- Runs, #{<<"mfa">> := M} <- Fs]),
    lists:foreach(
      fun ({Mfa, N}) ->
              Html = proplists:get_value(page("function", N), Pages),
              %% every process that called it, at every size
              [?assert(has(Html, ["<td>", erlperf_html:escape(Pid), "</td>"]), {Mfa, Pid})
               || #{<<"functions">> := Fs} <- Runs, #{<<"mfa">> := M, <<"per_process">> := Pps} <- Fs,
                  M =:= Mfa, #{<<"pid">> := Pid} <- Pps],
              %% calls across sizes: a point per size where it was called
              [Calls] = [S || {<<"Calls">>, S} <- charts(Html)],
              ?assertEqual([{unicode:characters_to_list(Mfa),
                             [{Size, C} || #{<<"size">> := Size} = R <- Runs,
                                           {C, _} <- [maps:get(Mfa, totals(R), {0, 0})], C > 0]}],
                           Calls)
      end, lists:zip(Mfas, lists:seq(1, length(Mfas)))).

process_pages_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun process_pages/0}.

process_pages() ->
    #{<<"runs">> := Runs} = Record = record("httpd"),
    Pages = erlperf_html_perf:render(Record),
    Names = lists:usort([N || #{<<"processes">> := Ps} <- Runs, #{<<"name">> := N} <- Ps]),
    lists:foreach(
      fun ({Name, N}) ->
              Html = proplists:get_value(page("process", N), Pages),
              Mine = [{Size, P} || #{<<"size">> := Size, <<"processes">> := Ps} <- Runs,
                                   #{<<"name">> := Nm} = P <- Ps, Nm =:= Name],
              [?assert(has(Html, ["<td>", erlperf_html:escape(Pid), "</td>"]), {Name, Pid}) || {_, #{<<"pid">> := Pid}} <- Mine],
              %% memory over time: a series per size where a process of the name had samples,
              %% the sum of its processes' samples at each time
              Memory = lists:append([S || {<<"Memory">>, S} <- charts(Html)]),   % none without samples
              Sizes = lists:usort([Size || {Size, #{<<"memory">> := [_ | _]}} <- Mine]),
              ?assertEqual(length(Sizes), length(Memory)),
              lists:foreach(
                fun ({Size, {_, Points}}) ->
                        Sum = lists:foldl(fun ([T, V], A) -> A#{T => maps:get(T, A, 0) + V} end, #{},
                                          lists:append([M || {S, #{<<"memory">> := M}} <- Mine, S =:= Size])),
                        ?assertEqual(lists:sort(maps:to_list(Sum)), Points)
                end, lists:zip(Sizes, Memory))
      end, lists:zip(Names, lists:seq(1, length(Names)))).

%%--------------------------------------------------------------------
%% Custom agents

custom_agent_tables_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun custom_agent_tables/0}.

custom_agent_tables() ->
    #{<<"runs">> := Runs} = Record = record("invariants"),
    Index = index(Record),
    ?assert(has(Index, "<h2>Custom agent: invariant_checker_agent</h2>")),
    Results = [{Size, R} || #{<<"size">> := Size, <<"custom_agents">> := #{<<"invariant_checker_agent">> := ByNode}} <- Runs,
                            R <- maps:values(ByNode)],
    ?assertEqual(3, length(Results)),
    %% its text line, and its two tables merged across sizes: a row per size, a row per
    %% size and invariant
    [?assert(has(Index, ["<td>", erlperf_html:escape(Text), "</td>"])) || {_, #{<<"text">> := Text}} <- Results],
    ?assertEqual(3, rows_of(Index, "Checks")),
    ?assertEqual(lists:sum([length(I) || {_, #{<<"invariants">> := I}} <- Results]), rows_of(Index, "Invariants")),
    [?assert(has(Index, ["<tr><td class=\"num\">", integer_to_list(Size), "</td><td class=\"num\">",
                         integer_to_list(Checks), "</td>"]))
     || {Size, #{<<"checks">> := Checks}} <- Results].

custom_agent_series_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun custom_agent_series/0}.

custom_agent_series() ->
    %% the real record, with the violations over time the agent reports when an
    %% invariant fails, at two sizes
    Series = fun (Points) -> #{<<"title">> => <<"Violations over time">>,
                               <<"x_label">> => <<"time (ms)">>, <<"y_label">> => <<"violations">>,
                               <<"series">> => [#{<<"name">> => <<"store_up">>, <<"points">> => Points}]} end,
    Record = with_report(record("invariants"),
                         fun (1) -> #{<<"series">> => [Series([[100, 1], [200, 2]])]};
                             (16) -> #{<<"series">> => [Series([[40, 1], [80, 2], [120, 3], [bad]])]};
                             (_) -> #{}
                         end),
    [Chart] = [S || {<<"Violations over time">>, S} <- charts(index(Record))],
    ?assertEqual([{"clients 1: store_up", [{100, 1}, {200, 2}]},
                  {"clients 16: store_up", [{40, 1}, {80, 2}, {120, 3}]}], Chart).

%% A result with no report and no text is shown as JSON; a report of the wrong shape
%% draws what it can and never breaks the page.
custom_agent_raw_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun custom_agent_raw/0}.

custom_agent_raw() ->
    Record = with_report(record("invariants"),
                         fun (1) -> #{<<"tables">> => <<"not a list">>, <<"series">> => [#{}, 3]};
                             (4) -> [1, 2];
                             (_) -> #{<<"tables">> => [#{<<"rows">> => [[#{<<"a">> => 1}], 2]}]}
                         end),
    Index = index(Record),
    ok = erlperf_html_test_lib:assert_page(Index),
    ?assert(has(Index, "<pre>[1,2]</pre>")),
    ?assert(has(Index, "<td>{&quot;a&quot;:1}</td>")).

%%--------------------------------------------------------------------
%% Hostile text

%% `<script>', quotes and an ampersand in every field a person or a system under test
%% chooses: escaped on every page, in tables, headings, links, chart titles and legends.
hostile_test_() ->
    {timeout, ?RENDER_TIMEOUT_S, fun hostile_pages/0}.

hostile_pages() ->
    Record = hostile(record("invariants")),
    Pages = erlperf_html_perf:render(Record),
    lists:foreach(
      fun ({File, Html}) ->
              ?assertMatch({File, nomatch}, {File, re:run(iolist_to_binary(Html), "<script", [caseless])}),
              ok = erlperf_html_test_lib:assert_page(Html),
              _ = erlperf_html_test_lib:svgs(Html),
              ?assert(is_binary(unicode:characters_to_binary(Html)), File),
              ?assertMatch({match, _}, re:run(File, "^(index|function-[0-9]+|process-[0-9]+)\\.html$"))
      end, Pages),
    Index = proplists:get_value("index.html", Pages),
    Escaped = erlperf_html:escape(?HOSTILE),
    %% the test's name, a function, a process, an error, a requirement, the agent's name,
    %% table title, column and cell, all there, escaped
    ?assert(count(Index, Escaped) >= 10, count(Index, Escaped)),
    [Time] = [S || {<<"Time per call">>, S} <- charts(Index)],
    ?assert(lists:member(unicode:characters_to_list(hostile_mfa()), [N || {N, _} <- Time])),
    [Custom] = [S || {T, S} <- charts(Index), T =:= ?HOSTILE],
    ?assertMatch([{_, [{1, 2}]} | _], Custom),
    ?assert(has(Index, ["<h2>Performance test: ", Escaped]) orelse has(Index, ["<h1>Performance test: ", Escaped])).

%% A record made in memory (erlperf_perf_test:run/2 returns it): pids rather than their
%% text, and a custom agent's own map with atom keys.
in_memory_record_test() ->
    #{<<"runs">> := [Run | Runs]} = Record = record("det_failed"),
    [#{<<"per_process">> := [PP | _]} = F | _] = maps:get(<<"functions">>, Run),
    Run2 = Run#{<<"functions">> := [F#{<<"per_process">> := [PP#{<<"pid">> := self()}]}],
                <<"custom_agents">> := #{<<"my_agent">> =>
                                             #{<<"n@h">> => #{text => <<"fine">>,
                                                              report => #{tables => [#{title => <<"T">>, columns => [a],
                                                                                       rows => [[{x, self()}]]}]}}}}},
    Index = index(Record#{<<"runs">> := [Run2 | Runs]}),
    ?assert(has(Index, "<td>fine</td>")),
    ?assert(has(Index, ["<td>", erlperf_html:escape(io_lib:format("{x,~p}", [self()])), "</td>"])).

%% Nothing to draw: no runs, or only failed ones.
empty_test() ->
    ?assertMatch([{"index.html", _}], erlperf_html_perf:render(#{})),
    #{<<"runs">> := Runs} = Record = record("det_failed"),
    Failed = [R || #{<<"status">> := <<"failed">>} = R <- Runs],
    Index = index(Record#{<<"runs">> := Failed}),
    ok = erlperf_html_test_lib:assert_page(Index),
    ?assertEqual([], erlperf_html_test_lib:svgs(Index)),
    ?assert(has(Index, "No data for Time per call.")).

%%--------------------------------------------------------------------
%% Helpers

record(Name) ->
    {ok, Bytes} = file:read_file(filename:join([data_dir(), Name ++ ".json"])),
    {ok, Record} = erlperf_json:decode(Bytes),
    Record.

%% The data directory, next to this module's source (rebar3 copies test/ into _build).
data_dir() ->
    Here = filename:dirname(code:which(?MODULE)),
    hd([D || D <- [filename:join(Here, "erlperf_html_perf_tests_data"),
                   filename:join(["test", "erlperf_html_perf_tests_data"])], filelib:is_dir(D)]).

index(Record) ->
    {"index.html", Html} = hd(erlperf_html_perf:render(Record)),
    iolist_to_binary(Html).

page(Kind, N) -> Kind ++ "-" ++ integer_to_list(N) ++ ".html".

%% [{Title, [{SeriesName, Points}]}] of a page's charts.
charts(Html) ->
    [{unicode:characters_to_binary(erlperf_html_test_lib:title(Doc)), erlperf_html_test_lib:series(Doc)}
     || Doc <- erlperf_html_test_lib:svgs(Html)].

hrefs(Html) ->
    {match, Found} = case re:run(iolist_to_binary(Html), "href=\"([^\"]*)\"", [global, {capture, [1], list}]) of
                         nomatch -> {match, []};
                         M -> M
                     end,
    [H || [H] <- Found].

has(Html, Part) ->
    binary:match(iolist_to_binary(Html), iolist_to_binary(Part)) =/= nomatch.

count(Html, Part) ->
    length(binary:matches(iolist_to_binary(Html), iolist_to_binary(Part))).

%% Rows of the table after the heading <h3>Title</h3>.
rows_of(Html, Title) ->
    [_, After] = binary:split(Html, iolist_to_binary(["<h3>", Title, "</h3>"])),
    [Table | _] = binary:split(After, <<"</table>">>),
    count(Table, "<tr>") - 1.

%% #{Mfa => {Calls, TimeUs}} of a run.
totals(#{<<"functions">> := Fs}) ->
    lists:foldl(fun (#{<<"mfa">> := M, <<"calls">> := C, <<"time_us">> := T}, A) ->
                        {C0, T0} = maps:get(M, A, {0, 0}),
                        A#{M => {C0 + C, T0 + T}}
                end, #{}, Fs).

%% The record with each invariant checker result's report (or whole result, when the
%% fun returns something other than a map) replaced, by size.
with_report(#{<<"runs">> := Runs} = Record, Report) ->
    Record#{<<"runs">> := [R#{<<"custom_agents">> := #{<<"invariant_checker_agent">> =>
                                                           maps:map(fun (_, Res) -> case Report(Size) of
                                                                                        New when is_map(New) -> Res#{<<"report">> => New};
                                                                                        Other -> Other
                                                                                    end end, ByNode)}}
                           || #{<<"size">> := Size, <<"custom_agents">> := #{<<"invariant_checker_agent">> := ByNode}} = R <- Runs]}.

hostile_mfa() ->
    <<"m:", (?HOSTILE)/binary, "/1">>.

%% Hostile text in the test name, the size label, a function (and what found a process),
%% process names (one not UTF-8), nodes, an error, a requirement, the system, and a custom
%% agent's name, text and report.
hostile(#{<<"runs">> := Runs} = Record) ->
    H = ?HOSTILE,
    Mfa = hostile_mfa(),
    Report = #{<<"tables">> => [#{<<"title">> => H, <<"columns">> => [H, <<"n">>], <<"rows">> => [[H, 1]]}],
               <<"series">> => [#{<<"title">> => H, <<"x_label">> => H, <<"y_label">> => H,
                                  <<"series">> => [#{<<"name">> => H, <<"points">> => [[1, 2]]}]}]},
    Run = fun (#{<<"functions">> := [F | Fs], <<"processes">> := [P | Ps], <<"size">> := Size} = R) ->
                  R#{<<"functions">> := [F#{<<"mfa">> := Mfa, <<"node">> := H} | Fs],
                     <<"processes">> := [P#{<<"name">> := H, <<"found_by">> := Mfa,
                                            <<"pid">> := <<"<0.1.0>", H/binary>>},
                                         P#{<<"name">> := <<"not UTF-8 ", 255, H/binary>>} | Ps],
                     <<"status">> := case Size of 1 -> <<"failed">>; _ -> <<"ok">> end,
                     <<"error">> := H, <<"nodes">> := [H],
                     <<"custom_agents">> := #{H => #{H => #{<<"text">> => H, <<"report">> => Report}}}}
          end,
    Record#{<<"test">> := H, <<"size_label">> := H, <<"load_generator">> := H,
            <<"system">> := #{H => H}, <<"trace_patterns">> := [H],
            <<"runs">> := [Run(R) || R <- Runs],
            <<"requirements">> := [#{<<"size">> => 1, <<"requirement">> => H, <<"subject">> => H,
                                     <<"limit">> => 1, <<"measured">> => null, <<"pass">> => false,
                                     <<"note">> => H}]}.
