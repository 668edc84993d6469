%%% @doc Runs each benchmark in a fresh node of its own (the `isolation' run option, `-i').
%%%
%%% Glossary (as in OTP's `peer'):
%%% <ul>
%%%   <li><b>origin node</b>: this node, the one calling {@link benchmark/3};</li>
%%%   <li><b>peer node</b>: a new Erlang VM, started for one benchmark and stopped after
%%%       it, so that benchmarks cannot disturb each other (loaded code, registered
%%%       processes, ETS tables, memory, schedulers);</li>
%%%   <li><b>control connection</b>: the peer's standard input and output, owned by a
%%%       process linked to the caller of {@link benchmark/3}.</li>
%%% </ul>
%%% Each code runs in its own peer node, all at the same time (`compare => parallel', the
%%% default) or one after another (`sequential'); results come back in order.
%%% Errors raised in a peer (for example `{crashed, init, {error, undef, Stack}}') are
%%% raised again in the caller, with the same class and reason.
%%%
%%% Example:
%%% ```
%%% [A, B] = erlperf:benchmark(["rand:uniform().", "rand:uniform(1000)."],
%%%                            #{isolation => #{}}, undefined).
%%% '''
%%%
%%% How the peer is started:
%%% <ul>
%%%   <li>It is connected over its standard I/O (`peer' with `connection => standard_io'),
%%%       not over Erlang distribution: neither node needs `epmd', a node name or a
%%%       cookie, and the origin does not become distributed. The peer is given
%%%       `-kernel inet_dist_use_interface {127,0,0,1}' so that if the benchmarked code
%%%       starts distribution anyway, it listens on the loopback interface only.</li>
%%%   <li>It gets every code path of the origin outside the OTP installation (`-pa'),
%%%       and the origin's `ERL_LIBS'.</li>
%%%   <li>The erlperf modules a run needs are sent to it as object code
%%%       (`code:get_object_code/1'), so that it works when erlperf runs from an escript
%%%       archive, or from a directory the peer cannot see: `erlperf_local' and every
%%%       erlperf module its code names, transitively (read from the modules' atom
%%%       tables, a superset of what they call); never the command line, reports or
%%%       performance testing.</li>
%%%   <li>Run options that are funs (`progress') are removed before they are sent.
%%%       Codes that are funs are sent as they are: the module defining them must exist
%%%       in the peer (shell funs work, since `erl_eval' does).</li>
%%% </ul>
%%%
%%% Cost and safety: one VM start (about a second) per code. The control process is
%%% linked to the caller and the peer halts as soon as its standard input closes, so
%%% the peer goes away whenever the caller does: normal return, exception, exit signal,
%%% the origin VM halting, or its OS process being killed (`kill -9').
-module(erlperf_isolation).

%% API: called by erlperf:benchmark/3 for the `isolation' run option.
-export([benchmark/3, format_error/1]).

%% Internal export: erlperf_cluster ships the code its load nodes need.
-export([object_code/1]).

%% Milliseconds a peer node gets to boot.
-define(BOOT_TIMEOUT_MS, 30000).
%% Milliseconds a peer gets to load one module.
-define(LOAD_TIMEOUT_MS, 15000).
%% A benchmark runs as long as its options say (samples, squeeze steps): no time limit.
-define(RUN_TIMEOUT, infinity).
%% Kernel flag binding Erlang distribution to the loopback interface, should it start.
-define(LOOPBACK_ONLY, ["-kernel", "inet_dist_use_interface", "{127,0,0,1}"]).

%%--------------------------------------------------------------------
%% API

%% @doc Runs each code with {@link erlperf_local:benchmark/3} in a fresh peer node of its
%% own, and returns the full reports in order. With `compare => parallel' (the default)
%% the peers run at the same time, otherwise one after another.
-spec benchmark([erlperf_job:code_map()], erlperf:run_options(),
                erlperf:concurrency_options() | undefined) -> [erlperf:report()].
benchmark(Codes, RunOptions, ConcurrencyOptions) when is_list(Codes), is_map(RunOptions) ->
    Options = maps:filter(fun (_Key, Value) -> not is_function(Value) end, RunOptions),
    Modules = object_code([erlperf_local]),
    Start = start_options(),
    Runs = [fun () ->
                    named(Code, Codes,
                          fun () -> run(Start, Modules, [[Code], Options, ConcurrencyOptions]) end)
            end || Code <- Codes],
    case maps:get(compare, RunOptions, parallel) of
        parallel -> lists:append(parallel(Runs));
        sequential -> lists:append([Run() || Run <- Runs])
    end.

%% @doc Readable text for the errors raised by {@link benchmark/3} itself.
-spec format_error(term()) -> string().
format_error({peer_start, Reason}) ->
    lists:flatten(io_lib:format("cannot start an isolated node: ~0tp", [Reason]));
format_error({peer_load, Module, Reason}) ->
    lists:flatten(io_lib:format("cannot load ~ts into an isolated node: ~0tp", [Module, Reason]));
format_error({peer_down, _Reason}) ->
    "the isolated node stopped before the run finished (does the code halt or stop the VM?)";
format_error(Reason) ->
    lists:flatten(io_lib:format("~0tp", [Reason])).

%%--------------------------------------------------------------------
%% Internal functions

%% A crash of one code among several names it (each peer runs one code: its own crash
%% names none).
named(_Code, [_], Run) ->
    Run();
named(Code, _Codes, Run) ->
    try Run()
    catch error:{crashed, Role, Detail} when is_atom(Role) ->
            erlang:error({crashed, {Role, erlperf_codegen:label(Code)}, Detail})
    end.

run(Start, Modules, [Codes, Options, Conc]) ->
    Peer = start_peer(Start),
    try
        ok = load(Peer, Modules),
        try peer:call(Peer, erlperf_local, benchmark, [Codes, Options, Conc], ?RUN_TIMEOUT)
        catch exit:{Reason, {gen_server, call, _}} -> erlang:error({peer_down, Reason})
        end
    after
        stop_peer(Peer)
    end.

%% Runs the funs at the same time, each in a process linked to the caller (so that its
%% peer goes when the caller does); returns their results in order, or raises the
%% first failure as it was raised.
parallel(Funs) ->
    Caller = self(),
    Tagged = [{make_ref(), Fun} || Fun <- Funs],
    _ = [spawn_link(fun () -> Caller ! {Ref, outcome(Fun)} end) || {Ref, Fun} <- Tagged],
    Outcomes = [receive {Ref, Outcome} -> Outcome end || {Ref, _} <- Tagged],
    [case Outcome of
         {ok, Result} -> Result;
         {raised, Class, Reason, Stack} -> erlang:raise(Class, Reason, Stack)
     end || Outcome <- Outcomes].

outcome(Fun) ->
    try {ok, Fun()}
    catch Class:Reason:Stack -> {raised, Class, Reason, Stack}
    end.

start_peer(Start) ->
    case peer:start_link(Start) of
        {ok, Peer} -> Peer;
        {ok, Peer, _Node} -> Peer;
        {error, Reason} -> erlang:error({peer_start, Reason})
    end.

%% peer:stop/1 closes the control connection; the peer halts when it sees that. The
%% link goes first, so that a caller trapping exits gets no 'EXIT' message from it.
stop_peer(Peer) ->
    true = unlink(Peer),
    receive {'EXIT', Peer, _} -> ok after 0 -> ok end,
    try peer:stop(Peer)
    catch exit:_ -> ok  % the control process is already gone: so is the peer
    end.

start_options() ->
    Env = case os:getenv("ERL_LIBS") of
              false -> [];
              Libs -> [{"ERL_LIBS", Libs}]
          end,
    #{connection => standard_io,
      wait_boot => ?BOOT_TIMEOUT_MS,
      args => code_path_args() ++ ?LOOPBACK_ONLY,
      env => Env}.

%% Code paths of the origin that the peer would not have: those outside the OTP
%% installation, and existing on disk (paths inside an escript archive are not).
code_path_args() ->
    Root = filename:absname(code:root_dir()),
    Paths = [filename:absname(P) || P <- code:get_path(), P =/= "."],
    case [P || P <- Paths, not lists:prefix(Root ++ "/", P), filelib:is_dir(P)] of
        [] -> [];
        Extra -> ["-pa" | Extra]
    end.

%% @private
%% Object code of the erlperf modules that running `Roots' can reach: the roots and
%% every erlperf module named in the atom table of one reached, in the order found.
-spec object_code([module()]) -> [{module(), binary(), file:filename()}].
object_code(Roots) ->
    reach(Roots, #{}, []).

reach([], _Seen, Acc) ->
    lists:reverse(Acc);
reach([M | Rest], Seen, Acc) when is_map_key(M, Seen) ->
    reach(Rest, Seen, Acc);
reach([M | Rest], Seen, Acc) ->
    case code:get_object_code(M) of
        {M, Binary, _File} = Code ->
            {ok, {M, [{imports, Imports}]}} = beam_lib:chunks(Binary, [imports]),
            Named = [A || {A, _, _} <- Imports, A =/= M, is_erlperf_module(A)],
            reach(Named ++ Rest, Seen#{M => true}, [Code | Acc]);
        error ->
            reach(Rest, Seen#{M => true}, Acc)
    end.

%% erlperf's modules have this prefix; generated job modules (erlperf_job_N) exist in
%% memory only, and get_object_code/1 finds no other.
is_erlperf_module(Atom) ->
    lists:prefix("erlperf", atom_to_list(Atom)).

load(Peer, Modules) ->
    Triples = [{Module, FileName, Binary} || {Module, Binary, FileName} <- Modules],
    case peer:call(Peer, code, atomic_load, [Triples], ?LOAD_TIMEOUT_MS) of
        ok -> ok;
        {error, [{Module, Reason} | _]} -> erlang:error({peer_load, Module, Reason})
    end.
