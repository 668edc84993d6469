%%% @doc The slowdown erlperf's agents impose on a real system (`make bench'; the
%%% experiment of PerformERL's Fig. 6, with OTP's inets httpd in place of cowboy).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>configuration</b>: `plain' (no agents) or `agents' (the standard agents of
%%%       {@link erlperf_agents} on the server's node, tracing every function of every
%%%       `httpd*' and `mod_*' module loaded there).</li>
%%%   <li><b>trial</b>: a fresh test node running httpd (examples/httpd_load_gen.erl
%%%       starts it), the agents started or not, then one client on this node sends
%%%       `Count' requests one after another (the next when the previous response has
%%%       been read whole), then the node is stopped. The clock runs from a request's
%%%       send (its connect, for `per_request') to its last body byte.</li>
%%%   <li><b>connection</b>: `keep_alive' (one connection for all requests: one handler
%%%       process, discovered once) or `per_request' (a new connection per request: a
%%%       new handler process each time, each to be discovered).</li>
%%% </ul>
%%%
%%% For each connection kind and each of its counts in `?COUNTS', `?TRIALS' trials of each
%%% configuration alternate (plain, agents, plain, ...); the figure of a configuration is
%%% the mean response time over all its requests, and the slowdown is agents over plain.
%%% The start is the mean of the first `?FIRST' requests of every trial (of every count):
%%% what a run pays while the agents are still discovering the server's processes.
%%%
%%% Goal: a slowdown of at most 1.3 in the steady state (the largest count). The paper
%%% measured 6 at the start, settling at 2, for PerformERL on cowboy.
%%%
%%% Cost: about five minutes, both cores busy (server and client share the machine). A
%%% trial's node is stopped before the next starts; the document root is removed at the
%%% end.
-module(erlperf_bench_httpd).

-export([main/0]).

%% Requests per trial, by connection kind (a new connection per request costs more with
%% the agents: fewer requests keep the bench within minutes).
-define(COUNTS, #{keep_alive => [100, 1000, 10000], per_request => [100, 1000]}).
%% Trials of each configuration per count.
-define(TRIALS, 5).
%% Requests that make "the start".
-define(FIRST, 10).
%% The slowdown goal in the steady state.
-define(GOAL, 1.3).
%% The page the client fetches.
-define(PAGE, <<"/index.html">>).

%% @doc Runs every trial and prints the figures.
-spec main() -> ok.
main() ->
    ok = erlperf_perf_node:ensure_distributed(),
    Root = httpd_load_gen:make_doc_root(),
    try
        io:format("httpd under agents: mean response time, ~b trials per configuration, "
                  "one sequential client~n", [?TRIALS]),
        lists:foreach(fun (Conn) -> connection(Conn, Root) end, [keep_alive, per_request])
    after
        _ = file:del_dir_r(Root)
    end.

%%--------------------------------------------------------------------
%% Internal functions

connection(Conn, Root) ->
    Counts = maps:get(Conn, ?COUNTS),
    io:format("  ~s connection~n    requests    plain us    agents us   slowdown~n", [Conn]),
    Results = [count(Conn, Root, Count) || Count <- Counts],
    {Steady, _, _} = lists:last(Results),
    %% the first requests of every trial, whatever its count
    PlainFirst = mean(lists:append([P || {_, P, _} <- Results])),
    AgentsFirst = mean(lists:append([A || {_, _, A} <- Results])),
    io:format("    start (first ~b requests of each of ~b trials): plain ~.1f us, agents ~.1f us, "
              "slowdown ~.2f~n",
              [?FIRST, ?TRIALS * length(Counts), PlainFirst, AgentsFirst, AgentsFirst / PlainFirst]),
    io:format("    steady state (~b requests): slowdown ~.2f (goal: at most ~.1f) ~s~n",
              [lists:last(Counts), Steady, ?GOAL,
               case Steady =< ?GOAL of true -> "met"; false -> "MISSED" end]).

%% The slowdown at this count, and the first requests' times of each configuration.
count(Conn, Root, Count) ->
    Trials = lists:append([[trial(plain, Conn, Root, Count), trial(agents, Conn, Root, Count)]
                           || _ <- lists:seq(1, ?TRIALS)]),
    Plain = [Times || {plain, Times} <- Trials],
    Agents = [Times || {agents, Times} <- Trials],
    {P, A} = {mean(lists:append(Plain)), mean(lists:append(Agents))},
    io:format("    ~8b  ~10.1f   ~10.1f   ~8.2f~n", [Count, P, A, A / P]),
    {A / P, lists:append([lists:sublist(T, ?FIRST) || T <- Plain]),
     lists:append([lists:sublist(T, ?FIRST) || T <- Agents])}.

%% One trial: response times in microseconds, in request order.
trial(Config, Conn, Root, Count) ->
    {ok, Node} = erlperf_perf_node:start(#{name => peer:random_name(?MODULE)}),
    try
        {ok, Port} = httpd_load_gen:start_httpd(Node, Root),
        ok = agents(Config, Node),
        {Config, requests(Conn, Port, Count)}
    after
        ok = erlperf_agents:remove(Node),
        ok = erlperf_perf_node:stop(Node)
    end.

agents(plain, _Node) ->
    ok;
agents(agents, Node) ->
    Modules = [M || {M, _} <- erpc:call(Node, code, all_loaded, []), inets_httpd(M)],
    ok = erlperf_agents:start(Node, #{patterns => [{M, '_', '_'} || M <- lists:sort(Modules)]}).

inets_httpd(Module) ->
    Name = atom_to_list(Module),
    lists:prefix("httpd", Name) orelse lists:prefix("mod_", Name).

requests(keep_alive, Port, Count) ->
    {ok, Sock} = httpd_load_gen:connect(Port),
    Times = [timed(fun () -> {ok, _} = httpd_load_gen:get(Sock, ?PAGE) end)
             || _ <- lists:seq(1, Count)],
    ok = gen_tcp:close(Sock),
    Times;
requests(per_request, Port, Count) ->
    %% the clock includes the connect: a new client's whole wait
    [timed(fun () ->
                   {ok, Sock} = httpd_load_gen:connect(Port),
                   {ok, _} = httpd_load_gen:get(Sock, ?PAGE),
                   ok = gen_tcp:close(Sock)
           end) || _ <- lists:seq(1, Count)].

%% Microseconds Fun takes.
timed(Fun) ->
    T0 = erlang:monotonic_time(),
    _ = Fun(),
    erlang:convert_time_unit(erlang:monotonic_time() - T0, native, nanosecond) / 1000.

mean(Values) ->
    lists:sum(Values) / length(Values).
