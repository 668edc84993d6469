%%% @doc Performance testing of whole systems: runs a load generator (see
%%% {@link erlperf_load_generator}) over growing sizes with tracing agents on the test
%%% nodes, and returns (and writes) the results record.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>test</b>, <b>run</b>, <b>size</b>, <b>test nodes</b>, <b>trace patterns</b>:
%%%       as in {@link erlperf_load_generator}.</li>
%%%   <li><b>agents</b>: the standard ones of {@link erlperf_agents} (tracer, process
%%%       discoverer, metrics collector) and the user's custom agents
%%%       ({@link erlperf_custom_agent}), on every test node for the length of a run.</li>
%%%   <li><b>impact</b>: the agents' own cost per traced call, measured on each test node
%%%       after the load ({@link erlperf_agents:impact/2}) and subtracted from the call
%%%       times (`compensate', on by default); both raw and compensated times are kept.</li>
%%%   <li><b>host</b>: the process that runs the load generator's callbacks, one per test,
%%%       linked to the caller; test nodes started by {@link erlperf_perf_node:start/1}
%%%       inside callbacks are linked to it.</li>
%%% </ul>
%%%
%%% The flow (the seed's Fig. 1): `test_setup/0'; for each size: `setup_run/1', the
%%% agents start on each test node (standard, then custom), `start_load/2', the load runs
%%% `get_load_duration/0' milliseconds, `stop_load/1', the custom agents' results, the
%%% standard agents' results, the impact benchmark, the agents are removed,
%%% `teardown_run/1'; then `test_teardown/1', requirements and baseline, and the record is
%%% written to `OUT_DIR/<test name>-<timestamp>/results.json' and `results.term', with the
%%% HTML report beside them (`index.html' and its pages, drawn by {@link erlperf_render}).
%%%
%%% A step that fails (raises, returns something else than the behaviour says, takes
%%% longer than `timeout', a test node goes down) fails its run: the run is recorded with
%%% the reason, the agents are removed and `teardown_run/1' still runs (with `[]' when
%%% `setup_run/1' failed), then the next size runs. `test_teardown/1' always runs. Test
%%% nodes that {@link erlperf_perf_node} started and that are still up at the end are
%%% stopped.
%%%
%%% {@link abort/2} stops a test early (the command line does on SIGTERM): the run going
%%% on fails, its agents are removed, `teardown_run/1' and `test_teardown/1' run with at
%%% most `?ABORT_TIMEOUT_MS' each, test nodes are stopped, no other size runs and nothing
%%% is written; {@link run/2} returns `{error, {aborted, Why}}'.
%%%
%%% Example:
%%% ```
%%% %% the record's keys: -include_lib("erlperf/src/model/erlperf_schema.hrl").
%%% {ok, Record} = erlperf_perf_test:run("examples/httpd_load_gen.erl", #{out_dir => "perf"}),
%%% #{?RUNS := Runs, ?REQUIREMENTS := Requirements} = Record.
%%% '''
%%% Cost and safety: the agents trace every call of the target functions on the test
%%% nodes (see {@link erlperf_agents} for what that costs); nothing runs on the
%%% controlling node but the callbacks. Whatever way a test ends, the agents leave
%%% nothing on the test nodes (they also remove themselves when this process or this
%%% node goes away).
-module(erlperf_perf_test).

%% API
-export([run/2, abort/2, defaults/0, format_error/1]).

%% Internal export: the host process runs callbacks (spawned by this module).
-export([host/0]).

-export_type([options/0, event/0]).

-include("model/erlperf_schema.hrl").

%% What to use when a test node cannot be reached.
-define(START_HINT, "start test nodes with erlperf_perf_node:start/1: this node does not "
                    "listen for Erlang distribution and its cookie is its own").
%% The progress reports "how long the load still runs" this often.
-define(TICK_MS, 1000).
%% Longest the custom agents' calls on a test node may take.
-define(AGENT_RPC_TIMEOUT_MS, 30000).
%% Longest a teardown callback may take once the test is aborted.
-define(ABORT_TIMEOUT_MS, 5000).
%% Longest wait for the host to stop when asked to (shutdown) before it is killed.
-define(HOST_STOP_MS, 1000).

%% Options (defaults in defaults/0, from the option registry erlperf_options):
%% - out_dir: where the test's directory is made;
%% - custom_agents: custom agent modules or source files (.erl);
%% - baseline: a results.json of an earlier test, or its decoded record, or none;
%% - tolerance: percent worse than the baseline that still passes;
%% - interval: milliseconds between two metrics samples (at most 4294967295);
%% - compensate: subtract the impact benchmark's cost per call;
%% - timeout: milliseconds a callback may take (at most 4294967295);
%% - progress: a fun called with each event(), or none;
%% - write: write the record to out_dir.
-type options() :: #{out_dir => file:filename(),
                     custom_agents => [module() | file:filename()],
                     baseline => none | file:filename() | map(),
                     tolerance => number(),
                     interval => pos_integer(),
                     compensate => boolean(),
                     timeout => pos_integer(),
                     progress => none | fun((event()) -> term()),
                     write => boolean()}.

-type size() :: erlperf_load_generator:test_size().
-type step() :: setup_run | start_agents | start_load | stop_load | collect | impact
              | remove_agents | teardown_run.
-type event() :: {test, Name :: string(), SizeLabel :: atom(), [size()]}
               | {step, size(), step()}
               | {load, size(), RemainingMs :: non_neg_integer()}
               | {run_ended, size(), ok | {failed, string()}}
               | {step_failed, step() | test_setup | test_teardown | report, string()}.

-record(test, {module :: module(),
               name :: string(),
               options :: map(),
               agents :: [module()],
               patterns :: [erlperf_load_generator:trace_pattern()]}).

-record(run, {size :: size(),
              nodes = [] :: [node()],
              info = [] :: term(),
              error = none :: none | string(),
              results = #{} :: #{node() => map()},
              custom = #{} :: #{binary() => #{binary() => term()}},
              impact = #{} :: #{node() => #{counting := float(), discovering := float()}},
              duration_ms = 0 :: non_neg_integer(),
              %% an open load's figures (erlperf_perf_rate), when stop_load/1 returned them
              rate = none :: none | map()}).

%%--------------------------------------------------------------------
%% API

%% @doc The default options (from the option registry, `erlperf_options').
-spec defaults() -> options().
defaults() ->
    erlperf_options:defaults(perf_test).

%% @doc Runs the performance test of a load generator: a module (or its name), or an
%% `.erl' file that is compiled first. Returns the results record (see
%% `doc/perf-testing.md'), also when runs failed or requirements were not met (look at
%% each run's `status' and each requirement's `pass'); with `write' (the default) the
%% record also has `<<"dir">>', where `results.json', `results.term' and the HTML report
%% were written, and `<<"report">>', the report's `index.html' (missing when the report
%% could not be drawn: the `progress' fun is told why). `{error, _}' when the test could
%% not start or finish: a file that does not compile, a module that is not a load
%% generator or has no trace pattern, a bad baseline, a failing `test_setup/0', results
%% that cannot be written, {@link abort/2}. Everything the user gives is checked before
%% anything is started.
-spec run(module() | file:filename(), options()) -> {ok, map()} | {error, term()}.
run(LoadGen, Options) when is_map(Options) ->
    Opts = erlperf_options:check(perf_test, Options),
    try
        Module = ok(erlperf_perf_load:load_generator(LoadGen)),
        Patterns = ok(patterns(Module)),
        Name = test_name(Module),
        Agents = [ok(erlperf_perf_load:custom_agent(A)) || A <- maps:get(custom_agents, Opts)],
        Baseline = ok(baseline(maps:get(baseline, Opts))),
        ok = ok(erlperf_perf_node:ensure_distributed()),
        Test = #test{module = Module, name = Name, options = Opts, agents = Agents,
                     patterns = Patterns},
        Record = with_host(fun () -> test(Test) end),
        ok = ok(not_aborted()),
        finish(Record, Test, Baseline)
    catch
        throw:{?MODULE, Reason} -> {error, Reason}
    after
        clear_abort()
    end.

%% @doc Asks the test that `Runner' (the process in {@link run/2}) runs to stop early:
%% see the module's description. `Why' comes back in `{error, {aborted, Why}}'.
-spec abort(pid(), term()) -> ok.
abort(Runner, Why) when is_pid(Runner) ->
    Runner ! {?MODULE, abort, Why},
    ok.

%% @doc Text for the reasons {@link run/2} returns.
-spec format_error(term()) -> string().
format_error({load_generator, _, _} = Reason) ->
    erlperf_perf_load:format_error(Reason);
format_error({custom_agent, _, _} = Reason) ->
    erlperf_perf_load:format_error(Reason);
format_error({test_setup, Reason}) ->
    "test_setup/0 failed: " ++ Reason;
format_error({baseline, File, Reason}) ->
    lists:flatten(io_lib:format("baseline ~ts: ~ts", [File, erlperf_schema:format_error(Reason)]));
format_error({trace_patterns, Reason}) ->
    "get_trace_patterns/0: " ++ Reason;
format_error({aborted, Why}) ->
    lists:flatten(io_lib:format("the test was stopped (~0tp)", [Why]));
format_error({write, _, _} = Reason) ->
    erlperf_output:format_error(Reason);
format_error({distribution, _} = Reason) ->
    erlperf_perf_node:format_error(Reason).

%%--------------------------------------------------------------------
%% Options


-spec ok({ok, T} | ok | {error, term()}) -> T | ok.
ok(ok) -> ok;
ok({ok, Value}) -> Value;
ok({error, Reason}) -> throw({?MODULE, Reason}).

-spec baseline(none | file:filename() | map()) -> {ok, none | map()} | {error, term()}.
baseline(none) -> {ok, none};
baseline(Record) when is_map(Record) -> {ok, Record};
baseline(File) -> erlperf_perf_results:read(File).

-spec patterns(module()) -> {ok, [erlperf_load_generator:trace_pattern()]} | {error, term()}.
patterns(Module) ->
    try Module:get_trace_patterns() of
        [] ->
            {error, {trace_patterns, "returned [], name at least one function to trace"}};
        Patterns when is_list(Patterns) ->
            case [P || P <- Patterns, not is_pattern(P)] of
                [] -> {ok, Patterns};
                [Bad | _] -> {error, {trace_patterns, io_lib:format("not a pattern: ~0tp", [Bad])}}
            end;
        Other ->
            {error, {trace_patterns, lists:flatten(io_lib:format("not a list: ~0tp", [Other]))}}
    catch
        Class:Reason ->
            {error, {trace_patterns, lists:flatten(io_lib:format("~p:~0tp", [Class, Reason]))}}
    end.

%% A trace pattern with at least one name (doc/perf-testing.md: wildcards, not all three).
-spec is_pattern(term()) -> boolean().
is_pattern(Pattern) ->
    erlperf_load_generator:is_trace_pattern(Pattern) andalso Pattern =/= {'_', '_', '_'}.

%%--------------------------------------------------------------------
%% The test

-spec test(#test{}) -> map().
test(#test{module = Mod, name = Name} = Test) ->
    {Label, Sizes} = test_sizes(Mod),
    progress(Test, {test, Name, Label, Sizes}),
    Started = erlang:system_time(millisecond),
    case call(Test, test_setup, []) of
        {ok, {ok, TestInfo}} ->
            Runs = try run_sizes(Test, Sizes)
                   after teardown_test(Test, TestInfo)
                   end,
            record(Test, Name, Label, Sizes, Started, Runs);
        Failed ->
            _ = erlperf_perf_node:stop_all(),
            ok = ok(not_aborted()),
            throw({?MODULE, {test_setup, failure(Failed, "{ok, TestInfo}")}})
    end.

%% The runs, in order, until the test is aborted.
-spec run_sizes(#test{}, [size()]) -> [map()].
run_sizes(_Test, []) ->
    [];
run_sizes(Test, [Size | Sizes]) ->
    case not_aborted() of
        ok -> [run_size(Test, Size) | run_sizes(Test, Sizes)];
        {error, _} -> []
    end.

-spec teardown_test(#test{}, term()) -> ok.
teardown_test(Test, TestInfo) ->
    case call(Test, test_teardown, [TestInfo]) of
        {ok, ok} -> ok;
        Failed -> progress(Test, {step_failed, test_teardown, failure(Failed, "ok")})
    end,
    erlperf_perf_node:stop_all().

%% The test's name: a string (it names the results' directory and titles the report).
-spec test_name(module()) -> string().
test_name(Mod) ->
    Name = callback_value(fun () -> Mod:get_test_name() end, "get_test_name/0"),
    case io_lib:printable_unicode_list(Name) andalso Name =/= [] of
        true -> Name;
        false ->
            bad_callback("get_test_name/0", io_lib:format("expected a string, got ~0tP", [Name, 10]))
    end.

-spec test_sizes(module()) -> {atom(), [size()]}.
test_sizes(Mod) ->
    case callback_value(fun () -> Mod:get_test_sizes() end, "get_test_sizes/0") of
        {Label, [_ | _] = Sizes} when is_atom(Label) ->
            case lists:all(fun (S) -> is_integer(S) andalso S >= 0 end, Sizes) of
                true -> {Label, Sizes};
                false -> bad_callback("get_test_sizes/0", "sizes must be non-negative integers")
            end;
        Other ->
            bad_callback("get_test_sizes/0", io_lib:format("expected {Label, [Size, ...]}, got ~0tp", [Other]))
    end.

-spec callback_value(fun(() -> T), string()) -> T.
callback_value(Fun, Name) ->
    try Fun()
    catch Class:Reason -> bad_callback(Name, io_lib:format("~p:~0tp", [Class, Reason]))
    end.

-spec bad_callback(string(), io_lib:chars()) -> no_return().
bad_callback(Name, Text) ->
    throw({?MODULE, {load_generator, callback, lists:flatten([Name, ": ", Text])}}).

%%--------------------------------------------------------------------
%% A run

-spec run_size(#test{}, size()) -> map().
run_size(Test, Size) ->
    Run0 = #run{size = Size},
    Run = steps(Test, [setup_run, start_agents, start_load, wait, stop_load, collect, impact],
                Run0),
    Cleaned = teardown_run(Test, remove_agents(Test, Run)),
    Status = case Cleaned#run.error of
                 none -> ok;
                 Error -> {failed, Error}
             end,
    progress(Test, {run_ended, Size, Status}),
    erlperf_perf_results:run(Cleaned#run.size, Status, Cleaned#run.nodes,
                             #{results => Cleaned#run.results, impact => Cleaned#run.impact,
                               custom => Cleaned#run.custom,
                               duration_ms => Cleaned#run.duration_ms, rate => Cleaned#run.rate,
                               compensate => maps:get(compensate, Test#test.options)}).

%% Runs steps until one fails; the failure goes into the run.
-spec steps(#test{}, [atom()], #run{}) -> #run{}.
steps(_Test, [], Run) ->
    Run;
steps(Test, [Step | Steps], #run{size = Size} = Run) ->
    _ = [progress(Test, {step, Size, Step}) || Step =/= wait],
    case not_aborted() =:= ok andalso step(Step, Test, Run) of
        {ok, Next} -> steps(Test, Steps, Next);
        {error, Text} -> Run#run{error = lists:flatten(io_lib:format("~ts: ~ts", [Step, Text]))};
        false -> Run#run{error = lists:flatten(io_lib:format("~ts: not run: the test was stopped", [Step]))}
    end.

-spec step(atom(), #test{}, #run{}) -> {ok, #run{}} | {error, string()}.
step(setup_run, Test, #run{size = Size} = Run) ->
    case call(Test, setup_run, [Size]) of
        {ok, {run_started, Nodes}} when is_list(Nodes) ->
            connect_nodes(Nodes, Run#run{nodes = Nodes, info = Nodes});
        Other ->
            {error, failure(Other, "{run_started, [Node]}") ++ peer_hint(Other)}
    end;
step(start_agents, #test{patterns = Patterns, options = Opts} = Test, #run{nodes = Nodes} = Run) ->
    AgentOpts = #{patterns => Patterns, interval => maps:get(interval, Opts)},
    each_node(fun (Node) ->
                      case erlperf_agents:start(Node, AgentOpts) of
                          ok -> start_custom(Test, Node, Run#run.size);
                          {error, Reason} -> {error, erlperf_agents:format_error(Reason)}
                      end
              end, Nodes, Run);
step(start_load, Test, #run{nodes = Nodes, size = Size} = Run) ->
    case call(Test, start_load, [Nodes, Size]) of
        {ok, {load_started, Info}} -> {ok, Run#run{info = Info, duration_ms = erlang:monotonic_time(millisecond)}};
        {ok, {already_started, Pid}} -> {ok, Run#run{info = Pid, duration_ms = erlang:monotonic_time(millisecond)}};
        Other -> {error, failure(Other, "{load_started, RunInfo}")}
    end;
step(wait, #test{module = Mod} = Test, #run{size = Size, nodes = Nodes} = Run) ->
    case call(Test, get_load_duration, []) of
        {ok, Ms} when is_integer(Ms), Ms > 0 -> wait_load(Test, Size, Nodes, Ms, Run);
        Other -> {error, failure(Other, "a positive integer (" ++ atom_to_list(Mod) ++ ")")}
    end;
step(stop_load, Test, #run{info = Info, duration_ms = Started} = Run) ->
    Duration = erlang:monotonic_time(millisecond) - Started,
    case call(Test, stop_load, [Info]) of
        {ok, {load_stopped, #{erlperf_rate := #{response := _} = Rate} = Info2}} ->
            {ok, Run#run{info = Info2, duration_ms = Duration, rate = Rate}};
        {ok, {load_stopped, Info2}} -> {ok, Run#run{info = Info2, duration_ms = Duration}};
        Other -> {error, failure(Other, "{load_stopped, RunInfo}")}
    end;
step(collect, Test, #run{nodes = Nodes} = Run) ->
    Custom = stop_custom(Test, Nodes),
    Collected = [{Node, erlperf_agents:collect(Node)} || Node <- Nodes],
    case [{N, R} || {N, {error, R}} <- Collected] of
        [] ->
            {ok, Run#run{custom = Custom, results = maps:from_list([{N, R} || {N, {ok, R}} <- Collected])}};
        [{Node, Reason} | _] ->
            {error, io_lib:format("~ts: ~ts", [Node, erlperf_agents:format_error(Reason)])}
    end;
step(impact, #test{options = #{compensate := false}}, Run) ->
    {ok, Run};
step(impact, _Test, #run{nodes = Nodes, results = Results} = Run) ->
    Impacts = [{Node, erlperf_agents:impact(Node, maps:get(active_max, maps:get(Node, Results)))}
               || Node <- Nodes],
    case [{N, R} || {N, {error, R}} <- Impacts] of
        [] -> {ok, Run#run{impact = maps:from_list([{N, I} || {N, {ok, I}} <- Impacts])}};
        [{Node, Reason} | _] ->
            {error, io_lib:format("~ts: ~ts", [Node, erlperf_agents:format_error(Reason)])}
    end.

-spec connect_nodes([term()], #run{}) -> {ok, #run{}} | {error, string()}.
connect_nodes(Nodes, Run) ->
    case [N || N <- Nodes, not (is_atom(N) andalso net_kernel:connect_node(N))] of
        [] -> {ok, Run};
        Down -> {error, io_lib:format("cannot connect to test node(s) ~0tp (~ts)", [Down, ?START_HINT])}
    end.

%% setup_run/1 failed in OTP's peer (most likely a peer started with Erlang distribution
%% as its control connection, which needs a controlling node that listens), or could not
%% reach a node it started (one with a cookie of its own).
-spec peer_hint(call_result() | term()) -> string().
peer_hint({raised, _Class, Reason, Stack}) ->
    case lists:keymember(peer, 1, Stack) orelse mentions(Reason, noconnection) of
        true -> " (" ++ ?START_HINT ++ ")";
        false -> ""
    end;
peer_hint(_) ->
    "".

-spec mentions(term(), atom()) -> boolean().
mentions(Atom, Atom) -> true;
mentions(Tuple, Atom) when is_tuple(Tuple) -> mentions(tuple_to_list(Tuple), Atom);
mentions([H | T], Atom) -> mentions(H, Atom) orelse mentions(T, Atom);
mentions(_, _Atom) -> false.

-spec each_node(fun((node()) -> ok | {error, string()}), [node()], #run{}) ->
    {ok, #run{}} | {error, string()}.
each_node(_Fun, [], Run) ->
    {ok, Run};
each_node(Fun, [Node | Nodes], Run) ->
    case Fun(Node) of
        ok -> each_node(Fun, Nodes, Run);
        {error, Text} -> {error, io_lib:format("~ts: ~ts", [Node, Text])}
    end.

%% Waits the load duration, telling how long is left every ?TICK_MS; a test node that
%% goes down ends the wait and fails the run.
-spec wait_load(#test{}, size(), [node()], pos_integer(), #run{}) -> {ok, #run{}} | {error, string()}.
wait_load(Test, Size, Nodes, Ms, Run) ->
    _ = [monitor_node(N, true) || N <- Nodes],
    Deadline = erlang:monotonic_time(millisecond) + Ms,
    try tick(Test, Size, Deadline) of
        ok -> {ok, Run};
        {nodedown, Node} -> {error, io_lib:format("test node ~ts went down during the load", [Node])};
        aborted -> {error, "the test was stopped during the load"}
    after
        _ = [monitor_node(N, false) || N <- Nodes],
        flush_nodedown()
    end.

-spec tick(#test{}, size(), integer()) -> ok | {nodedown, node()} | aborted.
tick(Test, Size, Deadline) ->
    case Deadline - erlang:monotonic_time(millisecond) of
        Left when Left =< 0 ->
            ok;
        Left ->
            progress(Test, {load, Size, Left}),
            receive
                {nodedown, Node} -> {nodedown, Node};
                {?MODULE, abort, Why} -> put({?MODULE, aborted}, Why), aborted
            after min(Left, ?TICK_MS) -> tick(Test, Size, Deadline)
            end
    end.

-spec flush_nodedown() -> ok.
flush_nodedown() ->
    receive {nodedown, _} -> flush_nodedown()
    after 0 -> ok
    end.

%% Agents go whatever happened before; a node that is down has nothing left to remove.
-spec remove_agents(#test{}, #run{}) -> #run{}.
remove_agents(#test{agents = Agents} = Test, #run{nodes = Nodes, size = Size} = Run) ->
    progress(Test, {step, Size, remove_agents}),
    _ = stop_custom(Test, Nodes),
    _ = [erlperf_perf_node:remove_mod(A, N) || N <- Nodes, A <- Agents],
    _ = [erlperf_agents:remove(N) || N <- Nodes],
    Run.

-spec teardown_run(#test{}, #run{}) -> #run{}.
teardown_run(#test{} = Test, #run{info = Info, size = Size} = Run) ->
    progress(Test, {step, Size, teardown_run}),
    case call(Test, teardown_run, [Info]) of
        {ok, run_ended} ->
            Run;
        Other ->
            Text = "teardown_run: " ++ failure(Other, "run_ended"),
            Run#run{error = case Run#run.error of none -> Text; E -> E ++ "; " ++ Text end}
    end.

%%--------------------------------------------------------------------
%% Custom agents: configured here, started and stopped on the test nodes.

-spec start_custom(#test{}, node(), size()) -> ok | {error, string()}.
start_custom(#test{agents = Agents, module = Mod}, Node, Size) ->
    lists:foldl(
      fun (Agent, ok) ->
              try
                  ok = ok(erlperf_perf_node:inject_mod(Agent, Node)),
                  Config = Agent:get_config(Node, Mod, Size),
                  case erpc:call(Node, Agent, start, [Config], ?AGENT_RPC_TIMEOUT_MS) of
                      {ok, _Pid} -> ok;
                      ignore -> ok;
                      Other -> {error, io_lib:format("custom agent ~ts: start/1 returned ~0tp", [Agent, Other])}
                  end
              catch
                  throw:{?MODULE, Reason} ->
                      {error, erlperf_perf_node:format_error(Reason)};
                  Class:Reason ->
                      {error, io_lib:format("custom agent ~ts: ~p:~0tp", [Agent, Class, Reason])}
              end;
          (_, Error) ->
              Error
      end, ok, Agents).

%% The custom agents' results, processed, by agent and node; an agent that is not
%% running (never started, already stopped) gives none.
-spec stop_custom(#test{}, [node()]) -> #{binary() => #{binary() => term()}}.
stop_custom(#test{agents = Agents}, Nodes) ->
    maps:from_list(
      [{atom_to_binary(A), maps:from_list([{atom_to_binary(N), R} || N <- Nodes,
                                           {ok, R} <- [custom_results(A, N)]])}
       || A <- Agents]).

-spec custom_results(module(), node()) -> {ok, term()} | none.
custom_results(Agent, Node) ->
    try erpc:call(Node, Agent, get_results_and_stop, [], ?AGENT_RPC_TIMEOUT_MS) of
        {ok, Results} -> {ok, Agent:process_results(Node, Results)};
        _ -> none
    catch
        _:_ -> none
    end.

%%--------------------------------------------------------------------
%% The host: runs the load generator's callbacks, with a timeout.

-spec with_host(fun(() -> T)) -> T.
with_host(Fun) ->
    ok = new_host(),
    try Fun()
    after stop_host()
    end.

%% The host exits with `shutdown' (so that the `peer' processes linked to it stop their
%% nodes without a crash report), or is killed when it does not within ?HOST_STOP_MS (a
%% callback that traps exits).
-spec stop_host() -> ok.
stop_host() ->
    case erase(?MODULE) of
        undefined ->
            ok;
        Host ->
            unlink(Host),
            Ref = monitor(process, Host),
            exit(Host, shutdown),
            receive {'DOWN', Ref, process, Host, _} -> ok
            after ?HOST_STOP_MS ->
                    exit(Host, kill),
                    receive {'DOWN', Ref, process, Host, _} -> ok end
            end
    end.

-spec new_host() -> ok.
new_host() ->
    put(?MODULE, spawn_link(?MODULE, host, [])),
    ok.

%% @private The host's loop.
-spec host() -> no_return().
host() ->
    receive
        {call, From, Ref, M, F, A} ->
            Result = try {ok, erlang:apply(M, F, A)}
                     catch Class:Reason:Stack -> {raised, Class, Reason, Stack}
                     end,
            From ! {Ref, Result},
            host()
    end.

-type call_result() :: {ok, term()} | {raised, atom(), term(), list()} | {timeout, pos_integer()}
                     | {host_down, term()}.

%% Calls a callback in the host, for at most `timeout' milliseconds (at most
%% ?ABORT_TIMEOUT_MS once the test is aborted, an abort arriving meanwhile included).
-spec call(#test{}, atom(), list()) -> call_result().
call(#test{module = Mod, options = #{timeout := Timeout}}, Fun, Args) ->
    Host = get(?MODULE),
    Ref = monitor(process, Host),
    Host ! {call, self(), Ref, Mod, Fun, Args},
    Now = erlang:monotonic_time(millisecond),
    Limit = case not_aborted() of
                ok -> Timeout;
                {error, _} -> min(Timeout, ?ABORT_TIMEOUT_MS)
            end,
    await(Host, Ref, Now, Now + Limit).

-spec await(pid(), reference(), integer(), integer()) -> call_result().
await(Host, Ref, Started, Deadline) ->
    receive
        {Ref, Result} ->
            demonitor(Ref, [flush]),
            Result;
        {'DOWN', Ref, process, Host, Reason} ->
            ok = new_host(),
            {host_down, Reason};
        {?MODULE, abort, Why} ->
            put({?MODULE, aborted}, Why),
            Abort = erlang:monotonic_time(millisecond) + ?ABORT_TIMEOUT_MS,
            await(Host, Ref, Started, min(Deadline, Abort))
    after max(0, Deadline - erlang:monotonic_time(millisecond)) ->
            demonitor(Ref, [flush]),
            %% the callback hangs: a new host runs the next ones (the old one's
            %% links take the nodes it started)
            stop_host(),
            ok = new_host(),
            {timeout, max(1, Deadline - Started)}
    end.

%% `ok' until the test is aborted (an abort waiting in the mailbox is taken now), then
%% the error run/2 returns.
-spec not_aborted() -> ok | {error, {aborted, term()}}.
not_aborted() ->
    case get({?MODULE, aborted}) of
        undefined ->
            receive {?MODULE, abort, Why} -> put({?MODULE, aborted}, Why), {error, {aborted, Why}}
            after 0 -> ok
            end;
        Why ->
            {error, {aborted, Why}}
    end.

%% A test that ended leaves no abort behind for the next one in this process.
-spec clear_abort() -> ok.
clear_abort() ->
    _ = erase({?MODULE, aborted}),
    receive {?MODULE, abort, _} -> clear_abort()
    after 0 -> ok
    end.

%% Why a callback did not return what it should have.
-spec failure(call_result() | term(), string()) -> string().
failure({ok, Other}, Expected) ->
    lists:flatten(io_lib:format("expected ~ts, got ~0tp", [Expected, Other]));
failure({raised, Class, Reason, [{M, F, A, _} | _]}, _) ->
    Arity = case A of L when is_list(L) -> length(L); N -> N end,
    lists:flatten(io_lib:format("~p:~0tp in ~ts", [Class, Reason, erlperf_units:function_name({M, F, Arity})]));
failure({raised, Class, Reason, _}, _) ->
    lists:flatten(io_lib:format("~p:~0tp", [Class, Reason]));
failure({timeout, Ms}, _) ->
    lists:flatten(io_lib:format("no answer in ~b ms", [Ms]));
failure({host_down, Reason}, _) ->
    lists:flatten(io_lib:format("the callback process went down: ~0tp", [Reason])).

-spec progress(#test{}, event()) -> ok.
progress(#test{options = #{progress := none}}, _Event) ->
    ok;
progress(#test{options = #{progress := Fun}}, Event) ->
    _ = Fun(Event),
    ok.

%%--------------------------------------------------------------------
%% The record

-spec record(#test{}, string(), atom(), [size()], integer(), [map()]) -> map().
record(#test{module = Mod, patterns = Patterns, options = Opts}, Name, Label, Sizes, Started, Runs) ->
    erlperf_perf_results:record(#{test => Name, module => Mod, size_label => Label, sizes => Sizes,
                                  started => Started, patterns => Patterns,
                                  options => maps:with([interval, compensate, tolerance], Opts),
                                  runs => Runs}).

-spec finish(map(), #test{}, none | map()) -> {ok, map()} | {error, term()}.
finish(Record, #test{module = Mod, options = Opts} = Test, Baseline) ->
    Requirements = erlperf_perf_requirements:evaluate(Mod, Record, Baseline,
                                                      maps:get(tolerance, Opts)),
    Final = Record#{?REQUIREMENTS => Requirements},
    case maps:get(write, Opts) of
        true ->
            case erlperf_perf_results:write(maps:get(out_dir, Opts), Final) of
                {ok, Dir} -> {ok, report(Test, Dir, Final#{<<"dir">> => unicode:characters_to_binary(Dir)})};
                {error, _} = Error -> Error
            end;
        false ->
            {ok, Final}
    end.

%% The HTML report beside results.json; a report that cannot be drawn is told to the
%% progress fun (the results are written all the same).
-spec report(#test{}, file:filename(), map()) -> map().
report(Test, Dir, Record) ->
    case erlperf_render:render(filename:join(Dir, "results.json"), Dir) of
        {ok, [Index | _]} ->
            Record#{<<"report">> => unicode:characters_to_binary(Index)};
        {error, Reason} ->
            progress(Test, {step_failed, report, erlperf_render:format_error(Reason)}),
            Record
    end.
