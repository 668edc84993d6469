%%% @doc Node chores of a performance test: making the controlling node distributed,
%%% starting and stopping test nodes, and putting modules on them.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>controlling node</b>: the node running {@link erlperf_perf_test} (the
%%%       `./erlperf' escript, or the user's shell).</li>
%%%   <li><b>test node</b>: a node where the system under test runs. {@link start/1}
%%%       starts one with `peer', on loopback, with this node's cookie and code paths.
%%%       A node started another way must listen (the controlling node does not) and
%%%       must be given this node's cookie (`erlang:get_cookie()') without a command
%%%       line: `peer:call(Peer, erlang, set_cookie, [erlang:get_cookie()])' over a
%%%       `connection => standard_io' control connection does it. `peer:start/1' with
%%%       Erlang distribution as the control connection cannot work here.</li>
%%%   <li><b>control connection</b>: the test node's standard input and output, owned by
%%%       a `peer' process on this node (as in OTP's `peer').</li>
%%% </ul>
%%%
%%% Example (in a load generator):
%%% ```
%%% setup_run(_Size) ->
%%%     {ok, Node} = erlperf_perf_node:start(#{name => sut}),
%%%     ok = erlperf_perf_node:inject_mod(?MODULE, Node),
%%%     {run_started, [Node]}.
%%% teardown_run(_RunInfo) ->
%%%     ok = erlperf_perf_node:stop_all(),
%%%     run_ended.
%%% '''
%%% Safety: {@link ensure_distributed/0} listens nowhere (a hidden node that only connects
%%% out, so no epmd is needed for it) and takes a fresh random cookie; test nodes listen
%%% on 127.0.0.1 only and are controlled over their standard input, so they halt when the
%%% controlling node goes, however it goes (`kill -9' included). A test node is linked to
%%% the process that started it (in a test, the process running the load generator's
%%% callbacks), so it also goes when that process exits.
%%%
%%% Secrets: the cookie is never on a command line (where `ps' and `/proc/PID/cmdline'
%%% show it to every local user) nor in a reason this module returns. A test node boots
%%% with the user's own cookie (`~/.erlang.cookie', as any node started without
%%% `-setcookie'), then gets this node's cookie over its control connection before this
%%% node connects to it.
-module(erlperf_perf_node).

%% API: called by load generators and by erlperf_perf_test.
-export([ensure_distributed/0, start/1, stop/1, stop_all/0, started/0,
         inject_mod/2, remove_mod/2, remember_object_code/3, format_error/1]).

-export_type([start_options/0]).

%% How long a test node may take to start and connect.
-define(START_TIMEOUT_MS, 30000).
%% How long an RPC that puts or removes a module may take.
-define(RPC_TIMEOUT_MS, 15000).

%% Options of start/1:
%% - name: the node's name before the `@' (default: a fresh random one);
%% - args: more arguments for `erl' (default none);
%% - paths: code paths to add (default: every path of this node outside OTP's lib
%%   directory, so the test node can load what this node can).
-type start_options() :: #{name => atom() | string(),
                           args => [string()],
                           paths => [file:filename()]}.

%% @doc Makes this node distributed if it is not: a hidden node named
%% `erlperf_perf_<os pid>_<n>@127.0.0.1' that does not listen, with a fresh random cookie.
%% A node that is already distributed is left as it is.
-spec ensure_distributed() -> ok | {error, {distribution, term()}}.
ensure_distributed() when node() =/= nonode@nohost ->
    ok;
ensure_distributed() ->
    Name = list_to_atom(lists:concat(["erlperf_perf_", os:getpid(), "_",
                                      erlang:unique_integer([positive]), "@127.0.0.1"])),
    case net_kernel:start(Name, #{name_domain => longnames, dist_listen => false,
                                  hidden => true}) of
        {ok, _} ->
            true = erlang:set_cookie(random_cookie()),
            ok;
        {error, Reason} ->
            {error, {distribution, Reason}}
    end.

%% @doc Starts a test node on loopback with this node's cookie and connects to it.
%% Makes this node distributed first when it is not.
-spec start(start_options()) -> {ok, node()} | {error, {test_node, term()}}.
start(Options) when is_map(Options) ->
    _ = [erlang:error({invalid_option, K, V}) || {K, V} <- maps:to_list(Options),
                                                  not lists:member(K, [name, args, paths])],
    case ensure_distributed() of
        ok -> start_peer(Options);
        {error, Reason} -> {error, {test_node, Reason}}
    end.

%% @doc Stops a test node that {@link start/1} started; other nodes are left alone.
-spec stop(node()) -> ok.
stop(Node) ->
    case persistent_term:get({?MODULE, node, Node}, undefined) of
        undefined ->
            ok;
        Peer ->
            _ = persistent_term:erase({?MODULE, node, Node}),
            stop_peer(Peer)
    end.

-spec stop_peer(pid()) -> ok.
stop_peer(Peer) ->
    try peer:stop(Peer)
    catch exit:_ -> ok   % its control process is gone: so is the node
    end.

%% @doc Stops every test node {@link start/1} started and that is still up.
-spec stop_all() -> ok.
stop_all() ->
    lists:foreach(fun stop/1, started()).

%% @doc The test nodes {@link start/1} started that were not stopped yet.
-spec started() -> [node()].
started() ->
    [Node || {{?MODULE, node, Node}, _} <- persistent_term:get()].

%% @doc Loads `Module', as this node has it, on `Node' (the seed's
%% `performerl_lib:inject_mod'). The object code comes from {@link remember_object_code/3}
%% when the module was compiled in memory, else from the code path.
-spec inject_mod(module(), node()) -> ok | {error, {inject, module(), node(), term()}}.
inject_mod(Module, Node) ->
    case object_code(Module) of
        {ok, File, Binary} ->
            try erpc:call(Node, code, load_binary, [Module, File, Binary], ?RPC_TIMEOUT_MS) of
                {module, Module} -> ok;
                {error, Reason} -> {error, {inject, Module, Node, Reason}}
            catch
                Class:Reason -> {error, {inject, Module, Node, {Class, Reason}}}
            end;
        error ->
            {error, {inject, Module, Node, no_object_code}}
    end.

%% @doc Removes `Module' from `Node' (both its current and old code). A node that is
%% down has nothing left to remove.
-spec remove_mod(module(), node()) -> ok.
remove_mod(Module, Node) ->
    try
        _ = erpc:call(Node, code, purge, [Module], ?RPC_TIMEOUT_MS),
        _ = erpc:call(Node, code, delete, [Module], ?RPC_TIMEOUT_MS),
        _ = erpc:call(Node, code, purge, [Module], ?RPC_TIMEOUT_MS),
        ok
    catch
        error:{erpc, _} -> ok
    end.

%% @doc Keeps the object code of a module compiled in memory (a load generator, a custom
%% agent), so that {@link inject_mod/2} can put it on test nodes.
-spec remember_object_code(module(), file:filename(), binary()) -> ok.
remember_object_code(Module, File, Binary) ->
    persistent_term:put({?MODULE, object, Module}, {File, Binary}).

%% @doc Text for the reasons this module returns.
-spec format_error(term()) -> string().
format_error({distribution, Reason}) ->
    lists:flatten(io_lib:format("cannot make this node distributed: ~0tp", [Reason]));
format_error({test_node, {distribution, _} = Reason}) ->
    format_error(Reason);
format_error({test_node, Reason}) ->
    lists:flatten(io_lib:format("cannot start a test node: ~0tp", [Reason]));
format_error({inject, Module, Node, Reason}) ->
    lists:flatten(io_lib:format("cannot load ~ts on ~ts: ~0tp", [Module, Node, Reason])).

%%--------------------------------------------------------------------
%% Internal functions

-spec random_cookie() -> atom().
random_cookie() ->
    list_to_atom(binary_to_list(binary:encode_hex(crypto_free_random(16)))).

%% 16 bytes from rand's strong-enough seed; the crypto application is not required.
-spec crypto_free_random(pos_integer()) -> binary().
crypto_free_random(N) ->
    State = rand:seed_s(exrop, {erlang:monotonic_time(), erlang:unique_integer(),
                                erlang:phash2({node(), os:getpid(), erlang:system_time()})}),
    {Bytes, _} = lists:foldl(fun (_, {Acc, S}) ->
                                     {V, S1} = rand:uniform_s(256, S),
                                     {<<Acc/binary, (V - 1)>>, S1}
                             end, {<<>>, State}, lists:seq(1, N)),
    Bytes.

-spec start_peer(start_options()) -> {ok, node()} | {error, {test_node, term()}}.
start_peer(Options) ->
    Name = maps:get(name, Options, peer:random_name(erlperf_test_node)),
    Paths = maps:get(paths, Options, user_paths()),
    Args = ["-kernel", "inet_dist_use_interface", "{127,0,0,1}",
            "-pa" | Paths] ++ maps:get(args, Options, []),
    Start = #{name => Name, host => "127.0.0.1", longnames => true,
              connection => standard_io, args => Args,
              env => [{"ERL_EPMD_ADDRESS", "127.0.0.1"}],
              wait_boot => ?START_TIMEOUT_MS},
    try peer:start_link(Start) of
        {ok, Peer, Node} -> share_cookie(Peer, Node);
        {error, Reason} -> {error, {test_node, Reason}}
    catch
        Class:Reason -> {error, {test_node, {Class, Reason}}}
    end.

%% Gives the test node this node's cookie over the control connection, then connects.
%% A failure is told without the call's arguments (the cookie).
-spec share_cookie(pid(), node()) -> {ok, node()} | {error, {test_node, term()}}.
share_cookie(Peer, Node) ->
    try peer:call(Peer, erlang, set_cookie, [erlang:get_cookie()], ?RPC_TIMEOUT_MS) of
        true -> connect(Peer, Node)
    catch
        Class:_ ->
            stop_peer(Peer),
            {error, {test_node, {cannot_set_cookie, Node, Class}}}
    end.

-spec connect(pid(), node()) -> {ok, node()} | {error, {test_node, term()}}.
connect(Peer, Node) ->
    case net_kernel:connect_node(Node) of
        true ->
            persistent_term:put({?MODULE, node, Node}, Peer),
            {ok, Node};
        _ ->
            stop_peer(Peer),
            {error, {test_node, {cannot_connect, Node}}}
    end.

-spec user_paths() -> [file:filename()].
user_paths() ->
    Lib = code:lib_dir(),
    [P || P <- code:get_path(), P =/= ".", not lists:prefix(Lib, P), filelib:is_dir(P)].

-spec object_code(module()) -> {ok, file:filename(), binary()} | error.
object_code(Module) ->
    case persistent_term:get({?MODULE, object, Module}, undefined) of
        {File, Binary} ->
            {ok, File, Binary};
        undefined ->
            case code:get_object_code(Module) of
                {Module, Binary, File} -> {ok, File, Binary};
                error -> error
            end
    end.
