%%% @doc Match specifications of the tracing agents, built as data (pure): the
%%% "caller not known yet" guard of the process discoverer, and the hook on `erlang:trace/3'
%%% that lets the system under test take a process over from the tracer agent.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>known tree</b>: a guard expression that is true when the calling process
%%%       (`{self}') is one of a set of pids. The pids are sorted and laid out as a
%%%       balanced binary search tree of nested `orelse'/`andalso' tests, so the guard
%%%       costs about log2(N) pid comparisons for N pids (paper, section 3.4.1), not N.</li>
%%%   <li><b>discovery spec</b>: a match specification for a meta trace pattern that sends
%%%       a message only when the caller is not in the known tree.</li>
%%%   <li><b>trace hook spec</b>: the match specification for a meta trace pattern on
%%%       `erlang:trace/3'. When the caller turns tracing on for a pid that is not in the
%%%       "foreign" tree, the action `{trace, Pid, [call], []}' removes our `call' flag
%%%       (and with it our tracer) from that pid before the BIF body runs, so the caller's
%%%       own tracer can be set.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% MS = erlperf_agent_ms:discovery_spec([self()]),
%%% 1 = erlang:trace_pattern({m, f, 1}, MS, [{meta, Discoverer}]).
%%% '''
%%% Cost: building is linear in the number of pids; the VM compiles the specification
%%% on every `erlang:trace_pattern/3' call (about 0.5 s for 100,000 pids on a laptop),
%%% which is why the discoverer rebuilds once per batch of discoveries.
-module(erlperf_agent_ms).

%% API: called by erlperf_agent_discoverer, erlperf_agent_tracer, erlperf_agent_impact
%% and the agents' bench.
-export([known_guard/1, discovery_spec/1, trace_hook_spec/1]).

%% @doc The guard expression that is true when the calling process is one of `Pids'
%% (`false' for no pids). Duplicates are ignored.
-spec known_guard([pid()]) -> false | tuple().
known_guard(Pids) ->
    Sorted = list_to_tuple(lists:usort(Pids)),
    tree(Sorted, 1, tuple_size(Sorted)).

%% @doc A meta trace match specification sending a message for callers not in `Pids'.
-spec discovery_spec([pid()]) -> [{'_', [tuple() | true], []}].
discovery_spec([]) ->
    [{'_', [true], []}];
discovery_spec(Pids) ->
    [{'_', [{'not', known_guard(Pids)}], []}].

%% @doc The match specification of the `erlang:trace/3' hook. Every call is reported;
%% calls turning tracing on for a single pid that is not in `Foreign' (a process some
%% other tracer owns) first remove our `call' flag from that pid.
-spec trace_hook_spec([pid()]) -> [{list(), list(), list()}].
trace_hook_spec(Foreign) ->
    Guard = case Foreign of
                [] -> [{is_pid, '$1'}];
                _ -> [{is_pid, '$1'}, {'not', replace_self('$1', known_guard(Foreign))}]
            end,
    [{['$1', true, '_'], Guard, [{trace, '$1', [call], []}]},
     {'_', [], []}].

%%--------------------------------------------------------------------
%% Internal functions

%% A balanced search tree over the sorted tuple T, elements L..H.
-spec tree(tuple(), pos_integer(), non_neg_integer()) -> false | tuple().
tree(_T, L, H) when L > H ->
    false;
tree(T, L, H) ->
    M = (L + H) div 2,
    P = element(M, T),
    {'orelse', {'=:=', {self}, P},
     {'orelse', {'andalso', {'<', {self}, P}, tree(T, L, M - 1)},
                {'andalso', {'>', {self}, P}, tree(T, M + 1, H)}}}.

%% The same tree testing another term (a match variable) instead of the caller.
-spec replace_self(atom(), term()) -> term().
replace_self(Var, {self}) ->
    Var;
replace_self(Var, T) when is_tuple(T) ->
    list_to_tuple([replace_self(Var, E) || E <- tuple_to_list(T)]);
replace_self(_Var, T) ->
    T.
