%% HTML reports from real runs: the escript's --html and --render, the performance test's
%% report, the SVG against the record, hostile text, and every page in a real browser
%% (headless chromium: no console message, no network request, a screenshot).
-module(erlperf_render_SUITE).

-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, init_per_suite/1, end_per_suite/1]).
-export([bench_page/0, bench_page/1, rate_page/0, rate_page/1, sweep_page/0, sweep_page/1, baseline_page/0, baseline_page/1,
         perf_pages/0, perf_pages/1, hostile_text/0, hostile_text/1, render_cli/0, render_cli/1,
         html_output/0, html_output/1]).

-define(config(K, C), proplists:get_value(K, C)).
-define(QUICK, ["-s", "5", "-d", "50"]).

suite() ->
    [{timetrap, {minutes, 5}}].

all() ->
    [bench_page, sweep_page, baseline_page, perf_pages, hostile_text, render_cli, html_output,
     rate_page].

init_per_suite(Config) ->
    Browser = case erlperf_browser:find() of
                  {ok, Path} -> Path;
                  {skip, Why} -> {none, Why}
              end,
    [{browser, Browser} | Config].

end_per_suite(_Config) ->
    ok.

%%--------------------------------------------------------------------
%% Cases

bench_page() ->
    [{doc, "--html on a run of two runners with --memory and --latency: a page whose samples chart has one point per sample of each runner, one throughput bar per runner; it loads cleanly in a browser"}].
bench_page(Config) ->
    {Html, Json} = files(Config, "bench"),
    {0, _} = erlperf_test_lib:escript(["rand:uniform().", "rand:uniform(1000).", "--memory", "--latency",
                                       "--html", Html, "--save", Json | ?QUICK], []),
    Page = read(Html),
    #{<<"runs">> := Runs} = record(Json),
    [?assert(lists:member(length(S), series_counts(Page, L)), {L, length(S), series_counts(Page, L)})
     || #{<<"label">> := L, <<"samples">> := S} <- Runs],
    [Throughput] = [Svg || Svg <- binary:split(Page, <<"<svg">>, [global]),
                           binary:match(Svg, <<"<title>Throughput">>) =/= nomatch],
    ?assertEqual(length(Runs), count(Throughput, <<"<rect class=\"bar ">>)),
    browse(Config, Html, "bench").

rate_page() ->
    [{doc, "--html on a ramp with objectives (sleeps of 10 ms, two workers: 200 calls a second "
           "at most; p99 =< 500 ms, which 50 a second holds however busy the host): the open-load chart has a point per rate tried for each percentile and "
           "the knee marked at the highest rate held; in a real browser the page loads cleanly "
           "and its DOM holds the chart and the marker"}].
rate_page(Config) ->
    {Html, Json} = files(Config, "rate"),
    {0, _} = erlperf_test_lib:escript(["timer:sleep(10).", "--rate", "50..800", "-c", "2", "--slo", "p99=500ms",
                                       "-s", "1", "--html", Html, "-o", Json], []),
    Page = read(Html),
    #{<<"runs">> := Runs} = record(Json),
    Knee = hd([K || #{<<"rate">> := #{<<"knee">> := K}} <- Runs]),
    ?assert(is_integer(Knee), Runs),
    [Chart] = [Svg || Svg <- binary:split(Page, <<"<svg">>, [global]),
                      binary:match(Svg, <<"<title>Response time against rate">>) =/= nomatch],
    ?assert(lists:member(length(Runs), series_counts(Chart, <<"p99">>)), series_counts(Chart, <<"p99">>)),
    Marker = iolist_to_binary(["knee ", erlperf_svg:format_number(Knee), "/s"]),
    ?assertNotEqual(nomatch, binary:match(Chart, Marker)),
    browse(Config, Html, "rate"),
    case ?config(browser, Config) of
        {none, _} -> ok;
        Chromium ->
            Dom = erlperf_browser:dom(Chromium, Html),
            ?assertNotEqual(nomatch, binary:match(Dom, <<"Open load">>)),
            ?assertNotEqual(nomatch, binary:match(Dom, Marker))
    end.

sweep_page() ->
    [{doc, "A sweep's page: throughput against N with one point per value, the best point marked"}].
sweep_page(Config) ->
    {Html, Json} = files(Config, "sweep"),
    {0, _} = erlperf_test_lib:escript(["lists:seq(1, N).", "--param", "N=10,100,1000", "--bytes", "N * 8",
                                       "--html", Html, "--save", Json | ?QUICK], []),
    Page = read(Html),
    ?assert(lists:member(3, series_counts(Page, <<"lists:seq(1, N).">>)), series_counts(Page, <<"lists:seq(1, N).">>)),
    ?assert(count(Page, <<"marked">>) >= 1),
    browse(Config, Html, "sweep").

baseline_page() ->
    [{doc, "Against a baseline, a runner made slower (by orders of magnitude: a sleep of 100 ms "
           "instead of rand:uniform(), in samples long enough to even out a loaded machine's "
           "stalls) is highlighted as a regression"}].
baseline_page(Config) ->
    {Html, Json} = files(Config, "baseline"),
    Samples = ["-s", "5", "-d", "200"],
    {0, _} = erlperf_test_lib:escript(["rand:uniform().", "--label", "work", "--save", Json | Samples], []),
    {_, _} = erlperf_test_lib:escript(["timer:sleep(100).", "--label", "work", "--baseline", Json,
                                       "--html", Html | Samples], []),
    Page = read(Html),
    ?assert(count(Page, <<"regression">>) >= 1),
    browse(Config, Html, "baseline").

perf_pages() ->
    [{doc, "--perf-test writes index.html beside results.json, with a page per function and per process; every link resolves; the functions chart has a point per size; every page loads cleanly"}].
perf_pages(Config) ->
    Dir = filename:join(?config(priv_dir, Config), "perf"),
    {0, Out} = erlperf_test_lib:escript(["--perf-test", det(Config), "--out-dir", Dir], [{"DET_SIZES", "1,2,3"}]),
    {match, [Index]} = re:run(Out, "report: (.*index\\.html)", [{capture, all_but_first, list}]),
    Pages = filelib:wildcard(filename:join(filename:dirname(Index), "*.html")),
    ?assert(length(Pages) >= 3, Pages),
    [?assert(filelib:is_regular(filename:join(filename:dirname(Index), binary_to_list(H))), {P, H})
     || P <- Pages, H <- links(read(P))],
    ?assert(lists:member(3, series_counts(read(Index), <<"det_load_gen:work/1">>)),
            series_counts(read(Index), <<"det_load_gen:work/1">>)),
    [browse(Config, P, "perf-" ++ filename:basename(P, ".html")) || P <- Pages].

hostile_text() ->
    [{doc, "Labels, code, test names and error reasons holding markup and quotes are escaped in every page"}].
hostile_text(Config) ->
    Evil = "<script>alert('x')</script>\"&",
    {Html, _} = files(Config, "hostile"),
    {0, _} = erlperf_test_lib:escript(["rand:uniform().", "--label", Evil, "--html", Html | ?QUICK], []),
    no_markup(read(Html)),
    shown_escaped(read(Html)),
    Dir = filename:join(?config(priv_dir, Config), "hostile-perf"),
    {1, Out} = erlperf_test_lib:escript(["--perf-test", det(Config), "--out-dir", Dir],
                                        [{"DET_SIZES", "1,2"}, {"DET_NAME", Evil}, {"DET_FAIL", "start_load:2"}]),
    {match, [Index]} = re:run(Out, "report: (.*index\\.html)", [{capture, all_but_first, list}]),
    [no_markup(read(P)) || P <- filelib:wildcard(filename:join(filename:dirname(Index), "*.html"))],
    shown_escaped(read(Index)),
    ?assertNotEqual(nomatch, binary:match(read(Index), <<"injected">>)),
    browse(Config, Index, "hostile-perf").

render_cli() ->
    [{doc, "--render turns a saved record into a report (beside it, or in -o DIR); bad input is a usage error in one line"}].
render_cli(Config) ->
    {_, Json} = files(Config, "render"),
    {0, _} = erlperf_test_lib:escript(["rand:uniform().", "--save", Json | ?QUICK], []),
    Dir = filename:join(?config(priv_dir, Config), "rendered"),
    {0, Out} = erlperf_test_lib:escript(["--render", Json, "-o", Dir], []),
    ?assertMatch({match, _}, re:run(Out, "report: .*rendered/report\\.html")),
    ?assert(filelib:is_regular(filename:join(Dir, "report.html"))),
    {2, Missing} = erlperf_test_lib:escript(["--render", Json ++ ".missing"], []),
    ?assertMatch({match, _}, re:run(Missing, "no such file")),
    NotRecord = filename:join(?config(priv_dir, Config), "not_record.json"),
    ok = file:write_file(NotRecord, <<"{\"a\": 1}">>),
    {2, Bad} = erlperf_test_lib:escript(["--render", NotRecord], []),
    ?assertMatch({match, _}, re:run(Bad, "not an erlperf results record")).

html_output() ->
    [{doc, "--format html writes the page to standard output, -o FILE.html to a file; an unwritable --html path fails the run in one line (exit 1); --help tells of --html and --render"}].
html_output(Config) ->
    {0, Out} = erlperf_test_lib:escript(["rand:uniform().", "--format", "html" | ?QUICK], []),
    ?assertMatch("<!DOCTYPE html>" ++ _, Out),
    ?assertNotEqual(nomatch, string:find(Out, "</html>")),
    {Html, _} = files(Config, "dash_o"),
    {0, _} = erlperf_test_lib:escript(["rand:uniform().", "-o", Html | ?QUICK], []),
    ?assertMatch(<<"<!DOCTYPE html>", _/binary>>, read(Html)),
    {1, Bad} = erlperf_test_lib:escript(["rand:uniform().", "--html", "/nonexistent/dir/r.html" | ?QUICK], []),
    ?assertMatch({match, _}, re:run(Bad, "cannot write /nonexistent/dir/r.html")),
    {0, Help} = erlperf_test_lib:escript(["--help"], []),
    ?assertMatch({match, _}, re:run(Help, "--html FILE")),
    ?assertMatch({match, _}, re:run(Help, "--render RESULTS.json")).

%%--------------------------------------------------------------------
%% Helpers

files(Config, Name) ->
    Dir = ?config(priv_dir, Config),
    {filename:join(Dir, Name ++ ".html"), filename:join(Dir, Name ++ ".json")}.

det(Config) ->
    %% the suites' directory (this suite's data directory need not exist)
    Tests = filename:dirname(filename:dirname(?config(data_dir, Config) ++ "x")),
    filename:join([Tests, "erlperf_perf_test_SUITE_data", "det_load_gen.erl"]).

read(File) ->
    {ok, Bin} = file:read_file(File),
    Bin.

record(File) ->
    {ok, Record} = erlperf_json:decode(read(File)),
    Record.

count(Page, Pattern) ->
    length(binary:matches(Page, Pattern)).

%% Points in each series group named Name (a series may appear in several charts).
series_counts(Page, Name) ->
    Escaped = iolist_to_binary(erlperf_html:escape(Name)),
    Groups = binary:split(Page, <<"<g class=\"series series-">>, [global]),
    [count(hd(binary:split(G, <<"</g>">>)), <<"class=\"point">>)
     || G <- tl(Groups), binary:match(G, <<"data-series=\"", Escaped/binary, "\"">>) =/= nomatch].

links(Page) ->
    {ok, Re} = re:compile("href=\"([^\"#]+)\""),
    case re:run(Page, Re, [global, {capture, all_but_first, binary}]) of
        {match, Hrefs} -> lists:usort([H || [H] <- Hrefs]);
        nomatch -> []
    end.

no_markup(Page) ->
    ?assertEqual(nomatch, binary:match(Page, [<<"<script">>, <<"<SCRIPT">>])).

shown_escaped(Page) ->
    ?assertNotEqual(nomatch, binary:match(Page, <<"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;">>)).

%% In a real browser: no console message (a blocked load is one), no network request, a
%% screenshot.
browse(Config, Page, Name) ->
    case ?config(browser, Config) of
        {none, Why} ->
            %% the page's own checks ran; the browser's are skipped, and the case says so
            ct:comment("browser checks skipped: " ++ Why);
        Chromium ->
            Shot = filename:join(?config(priv_dir, Config), Name ++ ".png"),
            Result = erlperf_browser:load(Chromium, Page, Shot),
            ?assertMatch(#{exit := 0, console := [], requests := [], screenshot := true}, Result, Page)
    end.
