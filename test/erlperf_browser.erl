%%% @doc A real browser for the report tests: Debian's `chromium', headless, loads a page
%%% from disk, takes a screenshot, and tells what the page wrote to its console and which
%%% network requests it made (from chromium's own network log).
%%%
%%% Background requests of the browser itself (component updates and the like) are not
%%% the page's: a request is the page's when its network isolation key is the page's
%%% origin (`file://').
-module(erlperf_browser).

-export([find/0, load/3]).

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
%% returns the console lines and the page's network requests (URLs other than file:).
-spec load(string(), file:filename(), file:filename()) ->
    #{console := [binary()], requests := [binary()], exit := integer(), screenshot := boolean()}.
load(Chromium, Page, Shot) ->
    Tmp = filename:join(filename:dirname(Shot), "chromium-" ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = filelib:ensure_dir(filename:join(Tmp, "x")),
    NetLog = filename:join(Tmp, "netlog.json"),
    Args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--no-default-browser-check",
            "--user-data-dir=" ++ filename:join(Tmp, "profile"),
            "--enable-logging=stderr", "--v=0", "--log-net-log=" ++ NetLog,
            "--window-size=" ++ ?WINDOW, "--screenshot=" ++ Shot,
            "file://" ++ filename:absname(Page)],
    Port = open_port({spawn_executable, Chromium},
                     [{args, Args}, exit_status, stderr_to_stdout, binary, {line, 65536}]),
    {Status, Lines} = collect(Port, []),
    ct:log("chromium ~ts: exit ~b~n~ts", [Page, Status, lists:join("\n", Lines)]),
    Console = [L || L <- Lines, binary:match(L, <<":CONSOLE">>) =/= nomatch],
    #{console => Console, requests => page_requests(NetLog), exit => Status,
      screenshot => filelib:is_regular(Shot)}.

collect(Port, Acc) ->
    receive
        {Port, {data, {_, Line}}} -> collect(Port, [Line | Acc]);
        {Port, {exit_status, Status}} -> {Status, lists:reverse(Acc)}
    after ?LOAD_TIMEOUT_MS ->
        {os_pid, Pid} = erlang:port_info(Port, os_pid),
        _ = os:cmd("kill -9 " ++ integer_to_list(Pid)),
        error({chromium_timeout, lists:reverse(Acc)})
    end.

%% URL requests started for a file:// page, other than file: URLs.
page_requests(NetLog) ->
    {ok, Bin} = file:read_file(NetLog),
    {ok, #{<<"constants">> := #{<<"logEventTypes">> := Types}, <<"events">> := Events}} =
        erlperf_json:decode(Bin),
    Start = maps:get(<<"URL_REQUEST_START_JOB">>, Types),
    [Url || #{<<"type">> := T, <<"params">> := #{<<"url">> := Url} = P} <- Events, T =:= Start,
            binary:match(maps:get(<<"network_isolation_key">>, P, <<>>), <<"file://">>) =/= nomatch,
            binary:part(Url, 0, min(5, byte_size(Url))) =/= <<"file:">>].
