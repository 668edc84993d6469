%% The history page in a real browser (headless chromium): it loads from disk with no
%% console message and no network request, and the browser's document holds a chart per
%% benchmark, the step's marker, and a hostile name as text, never as markup.
-module(erlperf_trend_SUITE).

-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, init_per_suite/1, end_per_suite/1]).
-export([page_in_browser/0, page_in_browser/1, empty_page_in_browser/0, empty_page_in_browser/1]).

-define(config(K, C), proplists:get_value(K, C)).
%% A benchmark name a page must show as text.
-define(HOSTILE, <<"<script>alert('x')</script>&\"">>).

suite() ->
    [{timetrap, {minutes, 3}}].

all() ->
    [page_in_browser, empty_page_in_browser].

%% {ok, Chromium} or {skip, Why}, found once for every case.
init_per_suite(Config) ->
    [{browser, erlperf_browser:find()} | Config].

end_per_suite(_Config) ->
    ok.

%%--------------------------------------------------------------------
%% Cases

page_in_browser() ->
    [{doc, "A history of 12 runs and two benchmarks (one named with markup, a step at run 7 in the other) "
           "loads in headless chromium with no console message and no network request; the browser's "
           "document has both charts, one step marker at run 7, and the hostile name as text"}].
page_in_browser(Config) ->
    Page = write(Config, "history.html", history()),
    browse(Config, Page,
           fun (Dom) ->
                   ?assertEqual(2, count(Dom, <<"<svg ">>)),
                   ?assertEqual(1, count(Dom, <<"class=\"x-marker regression\" data-x=\"7\"">>)),
                   ?assertEqual(0, count(Dom, <<"<script">>)),
                   ?assert(count(Dom, <<"&lt;script&gt;alert('x')&lt;/script&gt;&amp;\"">>) >= 2)
           end).

empty_page_in_browser() ->
    [{doc, "The page of an empty store loads cleanly and says that it holds no runs"}].
empty_page_in_browser(Config) ->
    Page = write(Config, "empty.html", #{store => <<"empty">>, runs => 0, benchmarks => []}),
    browse(Config, Page,
           fun (Dom) ->
                   ?assertEqual(0, count(Dom, <<"<svg ">>)),
                   ?assertEqual(1, count(Dom, <<"holds no runs yet">>))
           end).

%%--------------------------------------------------------------------
%% Helpers

write(Config, Name, History) ->
    Page = filename:join(?config(priv_dir, Config), Name),
    ok = file:write_file(Page, erlperf_trend:html(History)),
    Page.

%% The page's own checks always run; the browser's are skipped, visibly, without one.
browse(Config, Page, CheckDom) ->
    {ok, Html} = file:read_file(Page),
    ?assertEqual(nomatch, binary:match(Html, <<"<script">>)),
    case ?config(browser, Config) of
        {skip, Why} ->
            {skip, "browser checks skipped: " ++ Why};
        {ok, Chromium} ->
            Shot = filename:join(?config(priv_dir, Config), filename:basename(Page, ".html") ++ ".png"),
            ?assertMatch(#{exit := 0, console := [], requests := [], screenshot := true},
                         erlperf_browser:load(Chromium, Page, Shot), Page),
            CheckDom(erlperf_browser:dom(Chromium, Page))
    end.

%% 12 runs: `rand:uniform().' 10% slower from run 7, the hostile name steady.
history() ->
    Point = fun (Run, Qps) ->
                    #{run => Run, time => iolist_to_binary(io_lib:format("2026-11-~2..0bT08:00:00Z", [Run])),
                      commit => iolist_to_binary(io_lib:format("~40.16.0b", [Run * 7919])),
                      dirty => Run =:= 3, otp => <<"25">>, value => Qps, low => Qps * 0.99,
                      high => Qps * 1.01, interval => forks}
            end,
    #{store => <<"bench/history">>, runs => 12,
      benchmarks => [#{name => <<"rand:uniform().">>,
                       points => [Point(R, case R < 7 of true -> 1.0e7; false -> 9.0e6 end)
                                  || R <- lists:seq(1, 12)],
                       steps => [#{at => 7, before => 1.0e7, 'after' => 9.0e6, change_pct => -10.0,
                                   ci_pct => {-11.5, -8.6}, p => 1.0e-5}]},
                     #{name => ?HOSTILE, points => [Point(R, 5.0e5) || R <- lists:seq(1, 12)],
                       steps => []}]}.

count(Bin, Pattern) ->
    length(binary:matches(Bin, Pattern)).
