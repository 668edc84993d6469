%%% @doc Example custom agent: checks, every few milliseconds of a run, invariants the
%%% load generator states about each test node, and reports how often each one failed
%%% and by how much.
%%%
%%% Run it with a load generator that defines `get_invariants/2' (from the repository
%%% root):
%%% ```
%%% ./erlperf --perf-test examples/invariants_load_gen.erl \
%%%     --custom-agents examples/invariant_checker_agent.erl
%%% '''
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>invariant</b>: `{Name, {M, F, Args}, Op, Limit}', from
%%%       `LoadModule:get_invariants(Node, Size)': it holds when
%%%       `apply(M, F, Args) Op Limit', with `Op' one of `==', `=<', `>=', `<', `>'
%%%       (Erlang's own comparison: `==' takes `1' and `1.0' as equal, and every term
%%%       compares with every other). Names are atoms, unique on a node.</li>
%%%   <li><b>check</b>: one evaluation of every invariant of a node, every
%%%       `get_load_duration() div ?CHECKS_PER_RUN' milliseconds (at least
%%%       `?MIN_INTERVAL_MS').</li>
%%%   <li><b>violation</b>: a check where the invariant did not hold; its
%%%       <b>worst</b> value is the largest value seen for `=<' and `<', the smallest for
%%%       `>=' and `>', the first one for `=='.</li>
%%%   <li><b>error</b>: a check where `apply(M, F, Args)' raised, or took longer than
%%%       `?CHECK_TIMEOUT_MS' (then it is killed). An error is not a violation.</li>
%%% </ul>
%%%
%%% `process_results/2' returns a summary with a `report' for the HTML report (the
%%% convention of {@link erlperf_custom_agent}): a table of the checks, a table of the
%%% invariants (violations, worst value, errors, last error) and, when an invariant was
%%% violated, a chart of its violations over time.
%%%
%%% Where each callback runs: `get_config/3' and `process_results/2' on the controlling
%%% node; `start/1' and `get_results_and_stop/0' on each test node, where the agent is a
%%% `gen_server' registered as `invariant_checker_agent'.
%%%
%%% By hand (as the test suite does), with a test node `Node' set up by the load
%%% generator:
%%% ```
%%% ok = erlperf_perf_node:inject_mod(invariant_checker_agent, Node),
%%% Config = invariant_checker_agent:get_config(Node, invariants_load_gen, 4),
%%% {ok, _} = erpc:call(Node, invariant_checker_agent, start, [Config]),
%%% %% ... the load runs ...
%%% {ok, Raw} = erpc:call(Node, invariant_checker_agent, get_results_and_stop, []),
%%% #{checks := _, violated := [], invariants := [_ | _]} =
%%%     invariant_checker_agent:process_results(Node, Raw).
%%% '''
%%%
%%% Cost and safety: each check spawns one short-lived process per invariant on the test
%%% node (so that an invariant that crashes or hangs cannot take the agent with it), and
%%% the agent keeps counts, and for a violated invariant the time of each violation (one
%%% per check: about `?CHECKS_PER_RUN' per run): its memory does not grow with the length
%%% of the run. An invariant's function runs on the test node as often as the checks; a
%%% costly one (a full table scan) slows the system under test as much. The agent
%%% watches the controlling node and stops when it goes.
-module(invariant_checker_agent).
-behaviour(erlperf_custom_agent).
-behaviour(gen_server).

%% erlperf_custom_agent callbacks: get_config/3 and process_results/2 called by
%% erlperf_perf_test on the controlling node; start/1 and get_results_and_stop/0 over
%% erpc on the test nodes.
-export([get_config/3, process_results/2, start/1, get_results_and_stop/0]).

%% gen_server callbacks.
-export([init/1, handle_call/3, handle_cast/2, handle_info/2]).

%% Internal export: checks made so far on this node (for tests and for watching a run).
-export([checks_made/0]).

%% Internal export: the process evaluating one invariant's function, spawned by a check.
-export([evaluate/3]).

-export_type([invariant/0, config/0]).

%% Checks per run (the interval is the load duration divided by this)...
-define(CHECKS_PER_RUN, 50).
%% ...but never more often than this.
-define(MIN_INTERVAL_MS, 10).
%% Longest time an invariant's function may take before it is killed and an error
%% recorded.
-define(CHECK_TIMEOUT_MS, 1000).
%% Longest wait for the agent's results: a check in progress may take the longest
%% check time.
-define(CALL_TIMEOUT_MS, (?CHECK_TIMEOUT_MS + 10000)).

-type op() :: '==' | '=<' | '>=' | '<' | '>'.
-type invariant() :: {Name :: atom(), {module(), atom(), [term()]}, op(), Limit :: term()}.

%% The agent's configuration (get_config/3 makes it):
%% - invariants: what to check;
%% - interval: milliseconds between checks;
%% - check_timeout: longest run of one invariant's function (default ?CHECK_TIMEOUT_MS);
%% - controller: the node to watch; the agent stops when it goes (default: none).
-type config() :: #{invariants := [invariant()], interval := pos_integer(),
                    check_timeout => pos_integer(), controller => node()}.

%% What one invariant did in a run, kept by the agent; `history' holds
%% `[T_ms, ViolationsSoFar]' for each violation, newest first (T_ms since the agent
%% started).
-type tally() :: #{name := atom(), mfa := mfa(), op := op(), limit := term(),
                   violations := non_neg_integer(), worst := {value, term()} | none,
                   errors := non_neg_integer(), last_error := term(),
                   history := [[non_neg_integer()]]}.

-record(state, {invariants :: [invariant()],
                interval :: pos_integer(),
                check_timeout :: pos_integer(),
                checks = 0 :: non_neg_integer(),
                tallies :: #{atom() => tally()},
                started :: integer()}).

%%--------------------------------------------------------------------
%% erlperf_custom_agent callbacks

%% @doc The invariants of `LoadModule' for `TestNode' at this size (none when it has no
%% `get_invariants/2'), checked for shape here, before anything starts.
-spec get_config(node(), module(), erlperf_load_generator:test_size()) -> config().
get_config(TestNode, LoadModule, TestSize) ->
    _ = code:ensure_loaded(LoadModule),
    Invariants = case erlang:function_exported(LoadModule, get_invariants, 2) of
                     true -> LoadModule:get_invariants(TestNode, TestSize);
                     false -> []
                 end,
    ok = validate(Invariants),
    #{invariants => Invariants, controller => node(),
      interval => max(?MIN_INTERVAL_MS, LoadModule:get_load_duration() div ?CHECKS_PER_RUN)}.

%% @doc Starts the agent on this node; `ignore' when there is nothing to check.
-spec start(config()) -> {ok, pid()} | ignore | {error, term()}.
start(#{invariants := Invariants, interval := Interval} = Config)
  when is_list(Invariants), is_integer(Interval), Interval > 0 ->
    ok = validate(Invariants),
    gen_server:start({local, ?MODULE}, ?MODULE, Config, []).

%% @doc Stops the agent and returns its counts (`not_running' when it never started).
-spec get_results_and_stop() -> {ok, #{checks := non_neg_integer(),
                                       duration_ms := non_neg_integer(),
                                       invariants := [tally()]} | not_running}.
get_results_and_stop() ->
    try gen_server:call(?MODULE, stop, ?CALL_TIMEOUT_MS)
    catch exit:{noproc, _} -> {ok, not_running}
    end.

%% @doc The summary of a node's run, as data any report can show (JSON-ready: values
%% other than numbers, atoms and UTF-8 binaries are printed into binaries): the checks
%% made, and per invariant the violations with the worst value and the errors with the
%% last one. `violated' and `failed' list the names of the invariants that had
%% violations and errors; `text' says it in one line; `report' shows it as tables and,
%% when there were violations, their count over time (see {@link erlperf_custom_agent}).
-spec process_results(node(), term()) -> map().
process_results(TestNode, {ok, Raw}) ->
    process_results(TestNode, Raw);
process_results(TestNode, not_running) ->
    summary(TestNode, 0, 0, []);
process_results(TestNode, #{checks := Checks, duration_ms := Ms, invariants := Tallies}) ->
    summary(TestNode, Checks, Ms, Tallies).

%% @doc Checks made so far by the agent on this node.
-spec checks_made() -> non_neg_integer().
checks_made() ->
    gen_server:call(?MODULE, checks_made, ?CALL_TIMEOUT_MS).

%%--------------------------------------------------------------------
%% gen_server callbacks

-spec init(config()) -> {ok, #state{}} | ignore.
init(#{invariants := []}) ->
    ignore;
init(#{invariants := Invariants, interval := Interval} = Config) ->
    _ = case maps:get(controller, Config, node()) of
            Node when Node =:= node() -> true;
            Node -> erlang:monitor_node(Node, true)
        end,
    _ = erlang:send_after(Interval, self(), check),
    {ok, #state{invariants = Invariants, interval = Interval,
                check_timeout = maps:get(check_timeout, Config, ?CHECK_TIMEOUT_MS),
                tallies = maps:from_list([{Name, tally(Inv)} || {Name, _, _, _} = Inv <- Invariants]),
                started = erlang:monotonic_time(millisecond)}}.

-spec handle_call(stop | checks_made, gen_server:from(), #state{}) ->
    {stop, normal, {ok, map()}, #state{}} | {reply, non_neg_integer(), #state{}}.
handle_call(stop, _From, #state{invariants = Invariants, tallies = Tallies} = State) ->
    Results = #{checks => State#state.checks,
                duration_ms => erlang:monotonic_time(millisecond) - State#state.started,
                invariants => [maps:get(Name, Tallies) || {Name, _, _, _} <- Invariants]},
    {stop, normal, {ok, Results}, State};
handle_call(checks_made, _From, State) ->
    {reply, State#state.checks, State}.

-spec handle_cast(term(), #state{}) -> {noreply, #state{}}.
handle_cast(_Msg, State) ->
    {noreply, State}.

-spec handle_info(term(), #state{}) -> {noreply, #state{}} | {stop, normal, #state{}}.
handle_info(check, #state{invariants = Invariants, tallies = Tallies} = State) ->
    T = erlang:monotonic_time(millisecond) - State#state.started,
    Values = check(Invariants, State#state.check_timeout),
    _ = erlang:send_after(State#state.interval, self(), check),
    {noreply, State#state{checks = State#state.checks + 1,
                          tallies = lists:foldl(fun (V, Acc) -> record(V, T, Acc) end,
                                                Tallies, Values)}};
handle_info({nodedown, _Controller}, State) ->
    {stop, normal, State};
handle_info(_Other, State) ->
    {noreply, State}.

%%--------------------------------------------------------------------
%% Internal functions: checking

validate(Invariants) when is_list(Invariants) ->
    lists:foreach(fun validate_one/1, Invariants),
    Names = [element(1, I) || I <- Invariants],
    case Names -- lists:usort(Names) of
        [] -> ok;
        [Dup | _] -> erlang:error({invalid_invariant, {duplicate_name, Dup}})
    end;
validate(Other) ->
    erlang:error({invalid_invariants, Other}).

validate_one({Name, {M, F, A}, Op, _Limit})
  when is_atom(Name), is_atom(M), is_atom(F), is_list(A) ->
    case lists:member(Op, ['==', '=<', '>=', '<', '>']) of
        true -> ok;
        false -> erlang:error({invalid_invariant, {op, Name, Op}})
    end;
validate_one(Other) ->
    erlang:error({invalid_invariant, Other}).

tally({Name, {M, F, A}, Op, Limit}) ->
    #{name => Name, mfa => {M, F, length(A)}, op => Op, limit => Limit, violations => 0,
      worst => none, errors => 0, last_error => none, history => []}.

%% Runs every invariant's function in a process of its own, at once; returns
%% [{Name, {value, V} | {error, Reason}}] once all have answered or the time is up.
check(Invariants, Timeout) ->
    Deadline = erlang:monotonic_time(millisecond) + Timeout,
    Running = [{spawn_monitor(?MODULE, evaluate, [M, F, A]), Inv}
               || {_, {M, F, A}, _, _} = Inv <- Invariants],
    [{Inv, outcome(Pid, MRef, Deadline)} || {{Pid, MRef}, Inv} <- Running].

%% @private Runs an invariant's function and exits with the outcome: exit/1 writes no
%% error report, so an invariant that fails at every check does not flood the test
%% node's log.
-spec evaluate(module(), atom(), [term()]) -> no_return().
evaluate(M, F, A) ->
    exit(try {?MODULE, value, erlang:apply(M, F, A)}
         catch Class:Reason -> {?MODULE, error, {Class, Reason}}
         end).

outcome(Pid, MRef, Deadline) ->
    Left = max(0, Deadline - erlang:monotonic_time(millisecond)),
    receive
        {'DOWN', MRef, process, Pid, {?MODULE, value, Value}} -> {value, Value};
        {'DOWN', MRef, process, Pid, {?MODULE, error, Reason}} -> {error, Reason};
        {'DOWN', MRef, process, Pid, Reason} -> {error, Reason}
    after Left ->
        exit(Pid, kill),
        receive {'DOWN', MRef, process, Pid, _} -> {error, timeout} end
    end.

record({{Name, _, _, _}, {error, Reason}}, _T, Tallies) ->
    #{errors := N} = Tally = maps:get(Name, Tallies),
    Tallies#{Name := Tally#{errors := N + 1, last_error := Reason}};
record({{Name, _, Op, Limit}, {value, Value}}, T, Tallies) ->
    case holds(Value, Op, Limit) of
        true ->
            Tallies;
        false ->
            #{violations := N, worst := Worst, history := History} = Tally = maps:get(Name, Tallies),
            Tallies#{Name := Tally#{violations := N + 1, worst := worse(Op, Worst, Value),
                                    history := [[T, N + 1] | History]}}
    end.

holds(V, '==', L) -> V == L;
holds(V, '=<', L) -> V =< L;
holds(V, '>=', L) -> V >= L;
holds(V, '<', L) -> V < L;
holds(V, '>', L) -> V > L.

worse(_Op, none, Value) -> {value, Value};
worse('==', Worst, _Value) -> Worst;
worse(Op, {value, W}, Value) when Op =:= '=<'; Op =:= '<' -> {value, max(W, Value)};
worse(_Op, {value, W}, Value) -> {value, min(W, Value)}.

%%--------------------------------------------------------------------
%% Internal functions: the summary

summary(Node, Checks, Ms, Tallies) ->
    Invariants = [summary_of(T) || T <- Tallies],
    Violated = [N || #{name := N, violations := V} <- Tallies, V > 0],
    Failed = [N || #{name := N, errors := E} <- Tallies, E > 0],
    #{node => Node, checks => Checks, duration_ms => Ms, invariants => Invariants,
      violated => Violated, failed => Failed,
      text => text(Node, Checks, Tallies),
      report => report(Checks, Ms, Invariants, Violated, Failed, Tallies)}.

%% The summary as the HTML report draws it: text as binaries, points as [T_ms, N].
report(Checks, Ms, Invariants, Violated, Failed, Tallies) ->
    Names = fun ([]) -> <<"none">>;
                (L) -> iolist_to_binary(lists:join(<<", ">>, [atom_to_binary(N) || N <- L]))
            end,
    Tables = [#{title => <<"Checks">>,
                columns => [<<"checks">>, <<"duration (ms)">>, <<"violated">>, <<"failed">>],
                rows => [[Checks, Ms, Names(Violated), Names(Failed)]]},
              #{title => <<"Invariants">>,
                columns => [<<"invariant">>, <<"function">>, <<"holds when">>, <<"violations">>,
                            <<"worst">>, <<"errors">>, <<"last error">>],
                rows => [[atom_to_binary(Name), Mfa, printed("value ~ts ~0tp", [Op, Limit]), V,
                          Worst, E, LastError]
                         || {#{name := Name, mfa := Mfa, op := Op, violations := V, worst := Worst,
                               errors := E, last_error := LastError},
                             #{limit := Limit}} <- lists:zip(Invariants, Tallies)]}],
    Series = [#{name => atom_to_binary(Name), points => lists:reverse(History)}
              || #{name := Name, history := [_ | _] = History} <- Tallies],
    #{tables => Tables,
      series => case Series of
                    [] -> [];
                    _ -> [#{title => <<"Violations over time">>,
                            x_label => <<"time since the agent started (ms)">>,
                            y_label => <<"violations so far">>, series => Series}]
                end}.

summary_of(#{name := Name, mfa := {M, F, A}, op := Op, limit := Limit, violations := V,
             worst := Worst, errors := E, last_error := LastError}) ->
    #{name => Name, mfa => printed("~ts:~ts/~b", [M, F, A]), op => atom_to_binary(Op),
      limit => json_value(Limit), violations => V, errors => E,
      worst => case Worst of {value, W} -> json_value(W); none -> null end,
      last_error => case E of 0 -> null; _ -> printed("~0tp", [LastError]) end}.

text(Node, Checks, Tallies) ->
    Parts = [text_of(T) || T <- Tallies],
    iolist_to_binary([printed("~b invariants checked ~b times on ~ts",
                              [length(Tallies), Checks, Node]),
                      [[<<"; ">>, P] || P <- Parts]]).

text_of(#{name := Name, violations := 0, errors := 0}) ->
    printed("~ts held", [Name]);
text_of(#{name := Name, op := Op, limit := Limit, violations := V, worst := Worst, errors := E}) ->
    Violations = case Worst of
                     {value, W} -> printed("~ts violated ~b times (worst ~0tp, expected ~ts ~0tp)",
                                           [Name, V, W, Op, Limit]);
                     none -> printed("~ts", [Name])
                 end,
    case E of
        0 -> Violations;
        _ -> printed("~ts, ~b errors", [Violations, E])
    end.

json_value(V) when is_number(V); is_atom(V) -> V;
json_value(V) when is_binary(V) ->
    case unicode:characters_to_binary(V) of
        V -> V;
        _ -> printed("~0p", [V])
    end;
json_value(V) -> printed("~0tp", [V]).

printed(Format, Args) ->
    unicode:characters_to_binary(io_lib:format(Format, Args)).
