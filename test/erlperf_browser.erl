%%% @doc A real browser for the report tests: Debian's `chromium', headless, loads a page
%%% from disk, takes a screenshot, and tells what the page wrote to its console and which
%%% network requests it made (from chromium's own network log).
%%%
%%% Background requests of the browser itself (component updates and the like) are not
%%% the page's: a request is the page's when its network isolation key is the page's
%%% origin (`file://').
-module(erlperf_browser).

-export([find/0, load/3, dom/2]).

%% Longest a page load with its screenshot may take.
-define(LOAD_TIMEOUT_MS, 90000).
%% Window size of the screenshots.
-define(WINDOW, "1200,1600").

%% @doc The chromium executable, or why there is none.
-spec find() -> {ok, string()} | {skip, string()}.
find() ->
    case [P || N <- ["chromium", "chromium-browser"], P <- [os:find_executable(N)], P =/= false] of
        [Path | _] -> {ok, Path};
        [] -> {skip, "no chromium on this machine (make test or .ci/run installs Debian's chromium)"}
    end.

%% @doc Loads `Page' (a file) in headless chromium, writes a screenshot to `Shot', and
%% returns the page's console lines and its network requests (URLs other than file:).
%% The browser's own pages' console lines (`source: chrome://...': a loaded machine's
%% chromium warns of a slow network from its internal UI) are not the page's.
-spec load(string(), file:filename(), file:filename()) ->
    #{console := [binary()], requests := [binary()], exit := integer(), screenshot := boolean()}.
load(Chromium, Page, Shot) ->
    Tmp = scratch(filename:dirname(Shot)),
    NetLog = filename:join(Tmp, "netlog.json"),
    Args = headless(Tmp) ++ ["--enable-logging=stderr", "--v=0", "--log-net-log=" ++ NetLog,
                             "--window-size=" ++ ?WINDOW, "--screenshot=" ++ Shot,
                             "file://" ++ filename:absname(Page)],
    Port = open_port({spawn_executable, Chromium},
                     [{args, Args}, exit_status, stderr_to_stdout, binary, {line, 65536}]),
    {Status, Lines} = collect(Port, []),
    ct:log("chromium ~ts: exit ~b~n~ts", [Page, Status, lists:join("\n", Lines)]),
    Console = [L || L <- Lines, binary:match(L, <<":CONSOLE">>) =/= nomatch,
                    binary:match(L, <<"source: chrome://">>) =:= nomatch],
    #{console => Console, requests => page_requests(NetLog), exit => Status,
      screenshot => filelib:is_regular(Shot)}.

%% @doc The document chromium built from `Page' (a file), serialised once loaded
%% (`--dump-dom'): what the browser parsed, not the file's bytes. Its log (stderr) is
%% dropped by the shell that starts it.
-spec dom(string(), file:filename()) -> binary().
dom(Chromium, Page) ->
    Tmp = scratch(filename:dirname(filename:absname(Page))),
    Args = headless(Tmp) ++ ["--dump-dom", "file://" ++ filename:absname(Page)],
    Port = open_port({spawn_executable, "/bin/sh"},
                     [{args, ["-c", "exec \"$0\" \"$@\" 2>/dev/null", Chromium | Args]},
                      exit_status, binary, stream]),
    {0, Dom} = collect_stream(Port, []),
    Dom.

%% A fresh directory for one browser's profile and logs, under Dir.
scratch(Dir) ->
    Tmp = filename:join(Dir, "chromium-" ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = filelib:ensure_dir(filename:join(Tmp, "x")),
    Tmp.

%% Headless, with its own profile, and none of the browser's own background traffic.
headless(Tmp) ->
    ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
     "--disable-background-networking", "--disable-component-update", "--disable-sync",
     "--disable-default-apps", "--no-default-browser-check",
     "--user-data-dir=" ++ filename:join(Tmp, "profile")].

collect_stream(Port, Acc) ->
    receive
        {Port, {data, Bytes}} -> collect_stream(Port, [Acc | Bytes]);
        {Port, {exit_status, Status}} -> {Status, iolist_to_binary(Acc)}
    after ?LOAD_TIMEOUT_MS -> timed_out(Port, iolist_to_binary(Acc))
    end.

collect(Port, Acc) ->
    receive
        {Port, {data, {_, Line}}} -> collect(Port, [Line | Acc]);
        {Port, {exit_status, Status}} -> {Status, lists:reverse(Acc)}
    after ?LOAD_TIMEOUT_MS -> timed_out(Port, lists:reverse(Acc))
    end.

%% A browser that did not finish in time is killed, and the test fails with what it wrote.
timed_out(Port, Got) ->
    {os_pid, Pid} = erlang:port_info(Port, os_pid),
    _ = os:cmd("kill -9 " ++ integer_to_list(Pid)),
    error({chromium_timeout, Got}).

%% URL requests started for a file:// page, other than file: URLs.
page_requests(NetLog) ->
    {ok, Bin} = file:read_file(NetLog),
    {ok, #{<<"constants">> := #{<<"logEventTypes">> := Types}, <<"events">> := Events}} =
        erlperf_json:decode(Bin),
    Start = maps:get(<<"URL_REQUEST_START_JOB">>, Types),
    [Url || #{<<"type">> := T, <<"params">> := #{<<"url">> := Url} = P} <- Events, T =:= Start,
            binary:match(maps:get(<<"network_isolation_key">>, P, <<>>), <<"file://">>) =/= nomatch,
            binary:part(Url, 0, min(5, byte_size(Url))) =/= <<"file:">>].
