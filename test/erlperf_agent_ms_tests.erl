%%% @doc The agents' match specifications, run by the VM's own match specification engine
%%% (`erlang:match_spec_test/3'): known pids match, unknown ones do not.
-module(erlperf_agent_ms_tests).

-include_lib("eunit/include/eunit.hrl").

%% Tree sizes tested, and pids not in the tree tried against each.
-define(SIZES, [0, 1, 2, 7, 1000]).
-define(UNKNOWN, 50).
%% Known pids tried against a large tree.
-define(TRIED, 100).

%% Processes that wait for a match specification, test it against themselves as the
%% caller (`{self}' is the process running erlang:match_spec_test/3), and reply.
pids(N) ->
    [spawn(fun evaluator/0) || _ <- lists:seq(1, N)].

evaluator() ->
    receive
        {test, From, Spec} ->
            From ! {result, self(), erlang:match_spec_test([x], Spec, trace)},
            evaluator();
        stop ->
            ok
    end.

%% Whether the discovery spec over Tree stays silent (no message) for the caller Pid.
silent_for(Pid, Spec) ->
    Pid ! {test, self(), Spec},
    receive
        {result, Pid, {ok, Result, [], []}} -> Result =:= false
    end.

stop(Pids) ->
    [P ! stop || P <- Pids].

%% Each test compiles the spec once per pid tried (match_spec_test/3 compiles it): with
%% 1000 pids that is seconds on a loaded machine, hence the timeout and, past ?TRIED
%% known pids, an even spread of them (the smallest and the largest always among them).
match_spec_test_() ->
    [{integer_to_list(N) ++ " pids",
      {timeout, 120,
       fun () ->
               Known = lists:sort(pids(N)),
               Unknown = pids(?UNKNOWN),
               Spec = erlperf_agent_ms:discovery_spec(Known),
               [?assert(silent_for(P, Spec)) || P <- spread(Known)],
               [?assertNot(silent_for(P, Spec)) || P <- Unknown],
               stop(Known ++ Unknown)
       end}} || N <- ?SIZES].

spread(Pids) when length(Pids) =< ?TRIED ->
    Pids;
spread(Pids) ->
    Step = (length(Pids) - 1) / (?TRIED - 1),
    [lists:nth(1 + round(I * Step), Pids) || I <- lists:seq(0, ?TRIED - 1)].

%% Every pid compared against a tree of 1000 sorted pids takes at most one path of
%% about log2(1000) = 10 levels: the guard is nested no deeper than 3 per level.
depth_test() ->
    Pids = pids(1000),
    Guard = erlperf_agent_ms:known_guard(Pids),
    stop(Pids),
    ?assert(depth(Guard) =< 3 * 11 + 2, depth(Guard)).

depth({'orelse', A, B}) -> 1 + max(depth(A), depth(B));
depth({'andalso', A, B}) -> 1 + max(depth(A), depth(B));
depth(_) -> 0.

empty_test() ->
    ?assertEqual(false, erlperf_agent_ms:known_guard([])),
    ?assertEqual([{'_', [true], []}], erlperf_agent_ms:discovery_spec([])).

%% The hook's foreign tree is the same tree over the traced pid instead of the caller.
hook_tree_test() ->
    Foreign = pids(7),
    [{['$1', true, '_'], [{is_pid, '$1'}, {'not', Tree}], _}, _] =
        erlperf_agent_ms:trace_hook_spec(Foreign),
    [{'_', [{'not', SelfTree}], []}] = erlperf_agent_ms:discovery_spec(Foreign),
    ?assertEqual(SelfTree, replace('$1', {self}, Tree)),
    stop(Foreign).

replace(From, To, From) -> To;
replace(From, To, T) when is_tuple(T) -> list_to_tuple([replace(From, To, E) || E <- tuple_to_list(T)]);
replace(_From, _To, T) -> T.

%% Calls that do not turn tracing on for one pid only report (no action).
hook_reports_only_test() ->
    Spec = erlperf_agent_ms:trace_hook_spec([self()]),
    [?assertMatch({ok, true, [], []}, erlang:match_spec_test(Args, Spec, trace))
     || Args <- [[self(), false, [call]], [all, true, [call]], [new, true, [send]],
                 [self(), true, [send]]]].
