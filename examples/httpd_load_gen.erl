%%% @doc Example load generator: OTP's own web server (inets `httpd') on a test node,
%%% under load from concurrent HTTP/1.1 clients.
%%%
%%% Run it from the repository root (each size takes `get_load_duration()', a whole test
%%% well under a minute):
%%% ```
%%% ./erlperf --perf-test examples/httpd_load_gen.erl
%%% '''
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>size</b>: the number of concurrent clients (`get_test_sizes/0').</li>
%%%   <li><b>client</b>: a process on the controlling node with one keep-alive
%%%       connection; it sends `GET /index.html', reads the whole response, and sends
%%%       the next request only then (a closed loop: no queue builds up anywhere). A
%%%       connection the server closes is opened again.</li>
%%%   <li><b>served</b>: responses with status 200 and the whole body read; `errors'
%%%       counts the failed connects, sends and reads.</li>
%%%   <li><b>document root</b>: a temporary directory (`$TMPDIR', else `/tmp') with one
%%%       small page, made by `test_setup/0' and removed by `test_teardown/1'.</li>
%%% </ul>
%%%
%%% A run: `setup_run/1' starts a test node, inets and an httpd bound to 127.0.0.1 on a
%%% free port; `start_load/2' starts the clients; `stop_load/1' stops them and returns
%%% how many requests were served; `teardown_run/1' stops the node (httpd goes with it).
%%%
%%% Calling the callbacks by hand (as the test suite does):
%%% ```
%%% {ok, Test} = httpd_load_gen:test_setup(),
%%% {run_started, [Node]} = httpd_load_gen:setup_run(2),
%%% {load_started, Run} = httpd_load_gen:start_load([Node], 2),
%%% %% ... until httpd_load_gen:served(Run) is high enough
%%% {load_stopped, #{served := Served}} = httpd_load_gen:stop_load(Run),
%%% run_ended = httpd_load_gen:teardown_run(Run),
%%% ok = httpd_load_gen:test_teardown(Test).
%%% '''
%%%
%%% Cost and safety: the clients and the server share this machine's cores, so the
%%% figures are those of a loaded host, not of a server alone. The server listens on
%%% 127.0.0.1 only. Each client monitors the process that started it (the flow) and
%%% closes its connection and exits when that process goes, so no client outlives a
%%% failed test; `stop_load/1' kills a client that does not stop within
%%% `?STOP_TIMEOUT_MS'.
-module(httpd_load_gen).
-behaviour(erlperf_load_generator).

%% erlperf_load_generator callbacks: called by erlperf_perf_test.
-export([get_test_name/0, get_test_sizes/0, get_load_duration/0, get_trace_patterns/0,
         test_setup/0, setup_run/1, start_load/2, stop_load/1, teardown_run/1,
         test_teardown/1, get_requirements/1]).

%% Internal exports: the server and the client, called by this module, by the test suite
%% and by bench/erlperf_bench_httpd.erl.
-export([doc_root/0, make_doc_root/0, start_httpd/2, httpd_port/1, traced_modules/0,
         connect/1, get/2, served/1]).

%% Internal export: the client process.
-export([client/3]).

%% Milliseconds of load per size.
-define(LOAD_MS, 3000).
%% Size of the page the clients fetch, in bytes.
-define(PAGE_BYTES, 1024).
%% Longest wait for a connection, or for a response once the request is sent.
-define(CONNECT_TIMEOUT_MS, 5000).
-define(RESPONSE_TIMEOUT_MS, 5000).
%% Pause of a client after a failed connect, before it tries again.
-define(RETRY_MS, 100).
%% Longest wait for a client to stop before it is killed.
-define(STOP_TIMEOUT_MS, 5000).
%% The page path the clients fetch.
-define(PAGE, <<"/index.html">>).

%% Indexes in the counters of a run.
-define(SERVED, 1).
-define(ERRORS, 2).

-type run_info() :: #{node := node(), port := inet:port_number(),
                      clients := [pid()], counters := counters:counters_ref(),
                      served => non_neg_integer(), errors => non_neg_integer()}.

%%--------------------------------------------------------------------
%% erlperf_load_generator callbacks

-spec get_test_name() -> string().
get_test_name() ->
    "inets httpd, concurrent keep-alive clients".

-spec get_test_sizes() -> {clients, [pos_integer()]}.
get_test_sizes() ->
    {clients, [1, 2, 4, 8]}.

-spec get_load_duration() -> pos_integer().
get_load_duration() ->
    ?LOAD_MS.

%% @doc The request path of httpd: the connection process, the request parser, the
%% response writer and the modules a GET of a static file goes through.
-spec get_trace_patterns() -> [erlperf_load_generator:trace_pattern()].
get_trace_patterns() ->
    [{M, '_', '_'} || M <- traced_modules()].

%% @doc What every size must meet (exit status 3 otherwise): a response handled in at
%% most 10 ms of the handler's own time (some 30 us on a quiet machine; traced times grow
%% when other work shares the CPUs, and a gate must not fail on a busy machine), the
%% test node under 512 MB.
-spec get_requirements(erlperf_load_generator:test_size()) -> [erlperf_load_generator:requirement()].
get_requirements(_Clients) ->
    [{max_time_per_call_us, {mod_get, send_response, 4}, 10000},
     {max_node_memory, all, 512 * 1024 * 1024}].

%% @doc Makes the document root (one page) in a temporary directory.
-spec test_setup() -> {ok, #{doc_root := file:filename()}}.
test_setup() ->
    {ok, #{doc_root => make_doc_root()}}.

%% @doc Starts a test node running httpd on a free port of 127.0.0.1.
-spec setup_run(erlperf_load_generator:test_size()) -> {run_started, [node()]}.
setup_run(_Clients) ->
    {ok, Node} = erlperf_perf_node:start(#{name => peer:random_name(?MODULE)}),
    try
        {ok, _Port} = start_httpd(Node, doc_root()),
        {run_started, [Node]}
    catch
        Class:Reason:Stack ->
            ok = erlperf_perf_node:stop(Node),
            erlang:raise(Class, Reason, Stack)
    end.

%% @doc Starts `Clients' client processes on this node.
-spec start_load([node()], erlperf_load_generator:test_size()) -> {load_started, run_info()}.
start_load([Node], Clients) ->
    {ok, Port} = httpd_port(Node),
    Counters = counters:new(2, [write_concurrency]),
    Owner = self(),
    Pids = [spawn(?MODULE, client, [Owner, Port, Counters]) || _ <- lists:seq(1, Clients)],
    {load_started, #{node => Node, port => Port, clients => Pids, counters => Counters}}.

%% @doc Stops the clients; the run info gets `served' and `errors'.
-spec stop_load(run_info() | term()) -> {load_stopped, run_info()} | {error, not_started}.
stop_load(#{clients := Pids, counters := Counters} = Run) ->
    ok = stop_clients(Pids),
    {load_stopped, Run#{clients := [], served => counters:get(Counters, ?SERVED),
                        errors => counters:get(Counters, ?ERRORS)}};
stop_load(_) ->
    {error, not_started}.

%% @doc Stops the test node (and clients left by a failed `stop_load/1'). After a failed
%% step it gets the nodes of `setup_run/1', `[]' when `setup_run/1' itself failed.
-spec teardown_run(run_info() | [node()]) -> run_ended.
teardown_run(#{node := Node, clients := Pids}) ->
    ok = stop_clients(Pids),
    teardown_run([Node]);
teardown_run(Nodes) when is_list(Nodes) ->
    lists:foreach(fun erlperf_perf_node:stop/1, Nodes),
    run_ended.

%% @doc Removes the document root.
-spec test_teardown(#{doc_root := file:filename()} | term()) -> ok.
test_teardown(_TestInfo) ->
    _ = file:del_dir_r(doc_root()),
    ok.

%%--------------------------------------------------------------------
%% Internal exports: the server

%% @doc The document root of this node's tests: one directory per OS process.
-spec doc_root() -> file:filename().
doc_root() ->
    Tmp = hd([D || D <- [os:getenv("TMPDIR"), "/tmp"], is_list(D), D =/= ""]),
    filename:join(Tmp, "erlperf_httpd_load_gen_" ++ os:getpid()).

%% @doc Makes {@link doc_root/0} with `htdocs/index.html' of `?PAGE_BYTES' bytes.
-spec make_doc_root() -> file:filename().
make_doc_root() ->
    Root = doc_root(),
    Page = filename:join([Root, "htdocs", "index.html"]),
    ok = filelib:ensure_dir(Page),
    ok = file:write_file(Page, page()),
    Root.

%% @doc Starts inets and an httpd serving `DocRoot/htdocs' on `Node', on a free port of
%% 127.0.0.1, and loads the modules of the trace patterns there.
-spec start_httpd(node(), file:filename()) -> {ok, inet:port_number()}.
start_httpd(Node, DocRoot) ->
    {ok, _} = erpc:call(Node, application, ensure_all_started, [inets]),
    %% nodelay: httpd writes the headers and the body separately; with Nagle's algorithm
    %% the body waits for the client's delayed ACK, 40 ms a request on Linux
    Config = [{port, 0}, {bind_address, {127, 0, 0, 1}}, {server_name, "localhost"},
              {socket_type, {ip_comm, [{nodelay, true}]}},
              {server_root, DocRoot}, {document_root, filename:join(DocRoot, "htdocs")},
              {modules, [mod_alias, mod_get, mod_head]}],
    {ok, _Pid} = erpc:call(Node, inets, start, [httpd, Config]),
    ok = erpc:call(Node, code, ensure_modules_loaded, [traced_modules()]),
    httpd_port(Node).

%% @doc The port of the httpd running on `Node'.
-spec httpd_port(node()) -> {ok, inet:port_number()} | {error, no_httpd}.
httpd_port(Node) ->
    Ports = [proplists:get_value(port, Info)
             || {httpd, _, Info} <- erpc:call(Node, inets, services_info, [])],
    case Ports of
        [Port | _] -> {ok, Port};
        [] -> {error, no_httpd}
    end.

%% @doc The modules of the trace patterns.
-spec traced_modules() -> [module()].
traced_modules() ->
    [httpd_request_handler, httpd_request, httpd_response, httpd_socket, httpd_util,
     mod_alias, mod_get, mod_head].

%%--------------------------------------------------------------------
%% Internal exports: the client

%% @doc A passive binary connection to the server on 127.0.0.1.
-spec connect(inet:port_number()) -> {ok, gen_tcp:socket()} | {error, term()}.
connect(Port) ->
    gen_tcp:connect({127, 0, 0, 1}, Port, [binary, {active, false}, {nodelay, true}],
                    ?CONNECT_TIMEOUT_MS).

%% @doc One HTTP/1.1 GET on a keep-alive connection: the body of a 200 response.
-spec get(gen_tcp:socket(), binary()) -> {ok, binary()} | {error, term()}.
get(Sock, Path) ->
    Request = [<<"GET ">>, Path, <<" HTTP/1.1\r\nHost: localhost\r\n\r\n">>],
    case gen_tcp:send(Sock, Request) of
        ok -> response(Sock);
        {error, _} = Error -> Error
    end.

%% @doc Requests served so far in a run.
-spec served(run_info()) -> non_neg_integer().
served(#{counters := Counters}) ->
    counters:get(Counters, ?SERVED).

%% @doc A client: requests until told to stop or until `Owner' goes.
-spec client(pid(), inet:port_number(), counters:counters_ref()) -> ok.
client(Owner, Port, Counters) ->
    MRef = erlang:monitor(process, Owner),
    client_loop(MRef, Port, undefined, Counters).

%%--------------------------------------------------------------------
%% Internal functions

page() ->
    Line = <<"erlperf example page served by inets httpd\n">>,
    binary:part(binary:copy(Line, ?PAGE_BYTES div byte_size(Line) + 1), 0, ?PAGE_BYTES).

client_loop(MRef, Port, Sock, Counters) ->
    receive
        stop ->
            close(Sock);
        {'DOWN', MRef, process, _, _} ->
            close(Sock)
    after 0 ->
        client_step(MRef, Port, Sock, Counters)
    end.

client_step(MRef, Port, undefined, Counters) ->
    case connect(Port) of
        {ok, Sock} ->
            client_loop(MRef, Port, Sock, Counters);
        {error, _} ->
            counters:add(Counters, ?ERRORS, 1),
            receive
                stop -> ok;
                {'DOWN', MRef, process, _, _} -> ok
            after ?RETRY_MS ->
                client_loop(MRef, Port, undefined, Counters)
            end
    end;
client_step(MRef, Port, Sock, Counters) ->
    case get(Sock, ?PAGE) of
        {ok, _Body} ->
            counters:add(Counters, ?SERVED, 1),
            client_loop(MRef, Port, Sock, Counters);
        {error, _} ->
            counters:add(Counters, ?ERRORS, 1),
            _ = gen_tcp:close(Sock),
            client_loop(MRef, Port, undefined, Counters)
    end.

close(undefined) -> ok;
close(Sock) -> gen_tcp:close(Sock).

response(Sock) ->
    case recv(Sock, http_bin, 0) of
        {ok, {http_response, _, 200, _}} -> headers(Sock, undefined);
        {ok, Other} -> {error, {unexpected, Other}};
        {error, _} = Error -> Error
    end.

%% after the status line, the socket reads header lines (httph_bin) by itself
headers(Sock, Length) ->
    case gen_tcp:recv(Sock, 0, ?RESPONSE_TIMEOUT_MS) of
        {ok, {http_header, _, 'Content-Length', _, Value}} ->
            headers(Sock, binary_to_integer(Value));
        {ok, {http_header, _, _, _, _}} ->
            headers(Sock, Length);
        {ok, http_eoh} when is_integer(Length), Length > 0 ->
            recv(Sock, raw, Length);
        {ok, Other} ->
            {error, {unexpected, Other}};
        {error, _} = Error ->
            Error
    end.

recv(Sock, Packet, Length) ->
    case inet:setopts(Sock, [{packet, Packet}]) of
        ok -> gen_tcp:recv(Sock, Length, ?RESPONSE_TIMEOUT_MS);
        {error, _} = Error -> Error
    end.

stop_clients(Pids) ->
    Refs = [{erlang:monitor(process, Pid), Pid} || Pid <- Pids],
    _ = [Pid ! stop || Pid <- Pids],
    lists:foreach(fun wait_down/1, Refs).

wait_down({MRef, Pid}) ->
    receive
        {'DOWN', MRef, process, Pid, _} -> ok
    after ?STOP_TIMEOUT_MS ->
        exit(Pid, kill),
        receive {'DOWN', MRef, process, Pid, _} -> ok end
    end.
