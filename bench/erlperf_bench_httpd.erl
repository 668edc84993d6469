%%% @doc The slowdown erlperf's agents impose on a real system (`make bench'; the
%%% experiment of PerformERL's Fig. 6, with OTP's inets httpd in place of cowboy).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>configuration</b>: `plain' (no agents), `agents' (the standard agents of
%%%       {@link erlperf_agents} on the server's node, tracing every function of every
%%%       `httpd*' and `mod_*' module loaded there), or `discovering' (the same with the
%%%       discoverer never dormant, `quiet => infinity': the paper's design, measured at
%%%       the steady state's count only).</li>
%%%   <li><b>trial</b>: two fresh test nodes running httpd (examples/httpd_load_gen.erl
%%%       starts it), one plain and one with the agents; one client on this node sends
%%%       `Count' requests to each, one after another (the next when the previous
%%%       response has been read whole), in blocks of ?BLOCK requests that alternate
%%%       between the two servers (which one goes first alternates too), so that both
%%%       meet the same moods of a shared machine; then the nodes are stopped. The
%%%       clock runs from a request's send (its connect, for `per_request') to its last
%%%       body byte.</li>
%%%   <li><b>connection</b>: `keep_alive' (one connection for all requests: one handler
%%%       process, discovered once) or `per_request' (a new connection per request: a
%%%       new handler process each time, each to be discovered).</li>
%%% </ul>
%%%
%%% For each connection kind and each of its counts in `?COUNTS', `?TRIALS' trials; the
%%% figure of a configuration is the mean response time over all its requests, and the
%%% slowdown is agents over plain.
%%% The start is the mean of the first `?FIRST' requests of every trial (of every count):
%%% what a run pays while the agents are still discovering the server's processes.
%%%
%%% Goals, at the largest count: a slowdown of at most ?GOAL_KEEP_ALIVE with keep-alive
%%% connections, where the server's processes are known after the start, and at most
%%% ?GOAL_PER_REQUEST with a connection per request, where every request starts a
%%% handler process (each of its calls through a discovery pattern sends a message with
%%% its arguments until a rebuild covers it: the discoverer sees the churn and leaves
%%% such processes to the tracer's sweeps). The paper measured 6 at the start, settling
%%% at 2, for PerformERL on cowboy.
%%%
%%% Cost: about five minutes, both cores busy (servers and client share the machine). A
%%% trial's nodes are stopped before the next starts; the document root is removed at the
%%% end.
-module(erlperf_bench_httpd).

-export([main/0]).

%% Requests per trial, by connection kind (a new connection per request costs more with
%% the agents: fewer requests keep the bench within minutes).
-define(COUNTS, #{keep_alive => [100, 1000, 10000], per_request => [100, 1000]}).
%% Requests to one server before the client turns to the other.
-define(BLOCK, 50).
%% Trials per count.
-define(TRIALS, 5).
%% Requests that make "the start".
-define(FIRST, 10).
%% The slowdown goals at the largest count.
-define(GOAL_KEEP_ALIVE, 1.1).
-define(GOAL_PER_REQUEST, 1.3).
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
    Always = case Conn of
                 keep_alive -> [always_discovering(Conn, Root, lists:last(Counts))];
                 per_request -> []
             end,
    %% the first requests of every trial, whatever its count
    PlainFirst = mean(lists:append([P || {_, P, _} <- Results])),
    AgentsFirst = mean(lists:append([A || {_, _, A} <- Results])),
    io:format("    start (first ~b requests of each of ~b trials): plain ~.1f us, agents ~.1f us, "
              "slowdown ~.2f~n",
              [?FIRST, ?TRIALS * length(Counts), PlainFirst, AgentsFirst, AgentsFirst / PlainFirst]),
    {What, Goal} = case Conn of
                       keep_alive -> {"steady state", ?GOAL_KEEP_ALIVE};
                       per_request -> {"a handler process each", ?GOAL_PER_REQUEST}
                   end,
    io:format("    ~s (~b requests): slowdown ~.2f (goal: at most ~.1f) ~s~n",
              [What, lists:last(Counts), Steady, Goal,
               case Steady =< Goal of true -> "met"; false -> "MISSED" end]),
    _ = [io:format("    steady state, discoverer never dormant (the paper's design): slowdown ~.2f~n",
                   [A]) || A <- Always],
    ok.

%% The slowdown at Count with the discoverer always discovering.
always_discovering(Conn, Root, Count) ->
    Trials = [trial(discovering, Conn, Root, Count) || _ <- lists:seq(1, ?TRIALS)],
    mean(lists:append([T || {_, T} <- Trials])) / mean(lists:append([P || {P, _} <- Trials])).

%% The slowdown at this count, and the first requests' times of each configuration.
count(Conn, Root, Count) ->
    Trials = [trial(agents, Conn, Root, Count) || _ <- lists:seq(1, ?TRIALS)],
    {Plain, Agents} = lists:unzip(Trials),
    {P, A} = {mean(lists:append(Plain)), mean(lists:append(Agents))},
    io:format("    ~8b  ~10.1f   ~10.1f   ~8.2f~n", [Count, P, A, A / P]),
    {A / P, lists:append([lists:sublist(T, ?FIRST) || T <- Plain]),
     lists:append([lists:sublist(T, ?FIRST) || T <- Agents])}.

%% One trial: the response times, in request order, of the plain server and of the one
%% under Config.
trial(Config, Conn, Root, Count) ->
    Nodes = [start_server(C, Root) || C <- [plain, Config]],
    try
        Clients = [client(Conn, Port) || {_, Port} <- Nodes],
        [Plain, Traced] = blocks(Conn, Clients, Count, [[], []], 0),
        _ = [close(Client) || Client <- Clients],
        {Plain, Traced}
    after
        _ = [begin
                 ok = erlperf_agents:remove(Node),
                 ok = erlperf_perf_node:stop(Node)
             end || {Node, _} <- Nodes]
    end.

start_server(Config, Root) ->
    {ok, Node} = erlperf_perf_node:start(#{name => peer:random_name(?MODULE)}),
    {ok, Port} = httpd_load_gen:start_httpd(Node, Root),
    ok = agents(Config, Node),
    {Node, Port}.

%% Blocks of requests to each client in turn until each got Left; the times of each
%% client, in request order.
blocks(_Conn, _Clients, 0, Acc, _Turn) ->
    [lists:append(lists:reverse(Blocks)) || Blocks <- Acc];
blocks(Conn, Clients, Left, Acc, Turn) ->
    N = min(?BLOCK, Left),
    Order = case Turn rem 2 of
                0 -> [1, 2];
                1 -> [2, 1]
            end,
    Times = maps:from_list([{I, requests(Conn, lists:nth(I, Clients), N)} || I <- Order]),
    Acc1 = [[maps:get(I, Times) | lists:nth(I, Acc)] || I <- [1, 2]],
    blocks(Conn, Clients, Left - N, Acc1, Turn + 1).

client(keep_alive, Port) ->
    {ok, Sock} = httpd_load_gen:connect(Port),
    {keep_alive, Sock};
client(per_request, Port) ->
    {per_request, Port}.

close({keep_alive, Sock}) ->
    gen_tcp:close(Sock);
close({per_request, _Port}) ->
    ok.

agents(plain, _Node) ->
    ok;
agents(Config, Node) ->
    Modules = [M || {M, _} <- erpc:call(Node, code, all_loaded, []), inets_httpd(M)],
    Quiet = #{agents => #{}, discovering => #{quiet => infinity}},
    ok = erlperf_agents:start(Node, maps:merge(#{patterns => [{M, '_', '_'} || M <- lists:sort(Modules)]},
                                               maps:get(Config, Quiet))).

inets_httpd(Module) ->
    Name = atom_to_list(Module),
    lists:prefix("httpd", Name) orelse lists:prefix("mod_", Name).

requests(keep_alive, {keep_alive, Sock}, Count) ->
    [timed(fun () -> {ok, _} = httpd_load_gen:get(Sock, ?PAGE) end) || _ <- lists:seq(1, Count)];
requests(per_request, {per_request, Port}, Count) ->
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
