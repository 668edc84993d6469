%%% @doc Waiting on code that may never return: the one rule by which a wait on a
%%% user's code (a timed sample, `init', `done') tells slow code from stuck code. The
%%% processes running the code are watched while the wait lasts; when their reductions
%%% (the work the VM counts for every function call, message and BIF) have not moved for
%%% ?STUCK_MS milliseconds, the code is stuck: a call blocked in a `receive' that no
%%% message will end, a deadlock, a call to a process that never answers (the processes
%%% a watched one monitors, as a call does its server, are watched with it). Code that
%%% computes, however slowly, or that sleeps and wakes (`timer:sleep/1' in a loop)
%%% keeps its reductions moving and is waited for.
%%%
%%% A call that computes forever (an endless loop) is not stuck by this rule: it is
%%% ended by the caller's own limit (a CI job's timeout, Ctrl-C).
-module(erlperf_progress).

-export([await/2, request/2, stuck_ms/0, reductions/1, with_callees/1]).

%% Milliseconds with no reductions in the watched processes after which a wait ends.
-define(STUCK_MS, 10000).
%% The reductions a watched process may gain in a poll without progress: reading its
%% monitors (with_callees/1) is a signal it handles, one reduction.
-define(READ_REDUCTIONS, 2).
%% How often the watched processes are read while waiting, milliseconds.
-define(POLL_MS, 500).

%%--------------------------------------------------------------------
%% API

%% @doc Waits for `Receive(Timeout)' to give `{ok, Result}' (it returns `timeout'
%% when nothing came within `Timeout' milliseconds), while the processes `Watched()'
%% returns show progress. Returns `{ok, Result}', or `stuck' once their reductions have
%% not moved for {@link stuck_ms/0} (the caller then stops them).
-spec await(fun((non_neg_integer()) -> {ok, Result} | timeout), fun(() -> [pid()])) ->
    {ok, Result} | stuck.
await(Receive, Watched) ->
    await(Receive, Watched, undefined, now_ms()).

%% @doc {@link await/2} of the reply to a gen_server request
%% (`gen_server:send_request/2'): `{reply, Reply}' or `{error, {Reason, Server}}' as
%% `gen_server:wait_response/2' gives them, or `stuck'.
-spec request(term(), fun(() -> [pid()])) -> {reply, term()} | {error, term()} | stuck.
request(Request, Watched) ->
    Receive = fun (Timeout) ->
                      case gen_server:wait_response(Request, Timeout) of
                          timeout -> timeout;
                          Response -> {ok, Response}
                      end
              end,
    case await(Receive, Watched) of
        {ok, Response} -> Response;
        stuck -> stuck
    end.

%% @doc Milliseconds without progress after which code is stuck.
-spec stuck_ms() -> pos_integer().
stuck_ms() ->
    ?STUCK_MS.

%% @doc The reductions the live processes of `Pids' have run, summed.
-spec reductions([pid()]) -> non_neg_integer().
reductions(Pids) ->
    lists:sum([R || P <- Pids, {reductions, R} <- [erlang:process_info(P, reductions)]]).

%% @doc `Pids' and the local processes they monitor, but the caller (the watcher,
%% whose own reads move its reductions; a job's controller monitors its owner): a
%% process blocked in a call (`gen_server:call/3' monitors its server) progresses while
%% the server works.
-spec with_callees([pid()]) -> [pid()].
with_callees(Pids) ->
    Pids ++ [M || P <- Pids, {monitors, Ms} <- [erlang:process_info(P, monitors)],
                  {process, M} <- Ms, is_pid(M), node(M) =:= node(), M =/= self()].

%%--------------------------------------------------------------------
%% Internal functions

await(Receive, Watched, Last, Since) ->
    case Receive(?POLL_MS) of
        {ok, _} = Done ->
            Done;
        timeout ->
            Now = now_ms(),
            Pids = Watched(),
            Reductions = reductions(Pids),
            Moved = Last =:= undefined orelse Reductions - Last > ?READ_REDUCTIONS * length(Pids),
            if
                Moved -> await(Receive, Watched, Reductions, Now);
                Now - Since >= ?STUCK_MS -> stuck;
                true -> await(Receive, Watched, Reductions, Since)
            end
    end.

now_ms() ->
    erlang:monotonic_time(millisecond).
