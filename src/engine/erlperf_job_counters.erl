%%% @doc A job's counters: the ETS table behind its sampling handle, holding one
%%% `atomics' counter per worker position and the number of running workers, and reading
%%% them without a message to the controller.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>position</b>: a worker's place, 1 to the concurrency. Each position owns an
%%%       `atomics' array on cache lines of its own (see `erlperf_job_counters.hrl'):
%%%       slot 1 counts the iterations of every worker that ever held the position, slot
%%%       2 is when its worker last published, slot 3 how long its current batch should
%%%       take (native units), slot 4 the size of that batch. Stopping workers keeps
%%%       their counts; a new worker at that position adds to it, so the total never
%%%       goes down and needs no bookkeeping.</li>
%%%   <li><b>running</b>: how many positions have a worker; the positions above hold
%%%       the counts of stopped workers.</li>
%%%   <li><b>overdue</b>: a running worker whose batch has run much longer than it
%%%       should have at the last batch's pace (see {@link status/1}).</li>
%%% </ul>
%%% The controller creates the table and the counters and sets the running count
%%% (`erlperf_job'); workers write their counters (`erlperf_job:publish/0'); anyone
%%% holding the handle reads them (`erlperf_job:sample/1', `erlperf_job:sample_status/1':
%%% erlperf_sampler, erlperf_monitor).
%%%
%%% Example (in the controller, then anywhere):
%%% ```
%%% Table = erlperf_job_counters:new(),
%%% Counter = erlperf_job_counters:counter(Table, 1),
%%% _ = atomics:add(Counter, 1, 10),
%%% ok = erlperf_job_counters:set_running(Table, 1),
%%% 10 = erlperf_job_counters:total(Table).
%%% '''
%%%
%%% Cost and safety: one protected ETS table per job (owned by its controller, gone
%%% with it) and 16 integers (128 bytes) per position ever used. Reading takes no lock
%%% and sends no message; once the table is gone, the readers return `undefined'.
-module(erlperf_job_counters).

-include("erlperf_job_counters.hrl").

%% API: called by erlperf_job (the controller: new/0, counter/2, set_running/2; the
%% handle's readers: total/1, status/1).
-export([new/0, counter/2, set_running/2, total/1, status/1]).

%% Integers per position: 128 bytes, so that whatever the array's alignment no two
%% positions share a cache line.
-define(SLOTS, 16).
%% ETS key of the number of running workers, beside the {Position, Counter} rows.
-define(CONCURRENCY_KEY, concurrency).
%% A worker is overdue when its batch has run this many times longer than it should
%% have, and at least ?OVERDUE_MIN_MS (a scheduler time slice or two is no news).
-define(OVERDUE_FACTOR, 4).
-define(OVERDUE_MIN_MS, 100).
%% The longest a busy process runs before the scheduler switches to the next one (4000
%% reductions; well under a millisecond for most code).
-define(TIME_SLICE_MS, 1).

%%--------------------------------------------------------------------
%% API

%% @doc A new table, owned by the caller, with no worker running.
-spec new() -> ets:tid().
new() ->
    Table = ets:new(erlperf_job, [protected, set, {read_concurrency, true}]),
    ok = set_running(Table, 0),
    Table.

%% @doc The counter of a position, created the first time the position is used.
-spec counter(ets:tid(), pos_integer()) -> atomics:atomics_ref().
counter(Table, Position) ->
    case ets:lookup(Table, Position) of
        [{_, Ref}] ->
            Ref;
        [] ->
            Ref = atomics:new(?SLOTS, [{signed, true}]),
            true = ets:insert(Table, {Position, Ref}),
            Ref
    end.

%% @doc Records that positions 1 to `N' have a running worker.
-spec set_running(ets:tid(), non_neg_integer()) -> ok.
set_running(Table, N) ->
    true = ets:insert(Table, {?CONCURRENCY_KEY, N}),
    ok.

%% @doc The iterations started at every position (`undefined' once the table is gone).
-spec total(ets:tid()) -> non_neg_integer() | undefined.
total(Table) ->
    try
        lists:foldl(fun (Ref, Acc) -> Acc + atomics:get(Ref, ?COUNT) end, 0,
                    ets:select(Table, [{{'$1', '$2'}, [{is_integer, '$1'}], ['$2']}]))
    catch error:badarg ->
        undefined
    end.

%% @doc The total, how many running workers are overdue (their batch has taken much
%% longer than the last one did: the runner's cost per call jumped, or the worker is
%% blocked or waiting for a scheduler) and how many calls those workers have been
%% credited with in their current batch: the total may be ahead of the calls completed
%% by that. `undefined' once the table is gone.
-spec status(ets:tid()) ->
    {non_neg_integer(), non_neg_integer(), non_neg_integer()} | undefined.
status(Table) ->
    try
        [{_, N}] = ets:lookup(Table, ?CONCURRENCY_KEY),
        Now = erlang:monotonic_time(),
        %% busy workers beyond the schedulers wait their turn: up to a time slice for
        %% every worker ahead of them in the run queue
        Queue = N div erlang:system_info(schedulers_online),
        Min = erlang:convert_time_unit(max(?OVERDUE_MIN_MS, Queue * ?TIME_SLICE_MS), millisecond, native),
        Running = ets:select(Table, [{{'$1', '$2'}, [{is_integer, '$1'}, {'=<', '$1', N}], ['$2']}]),
        Overdue = [atomics:get(Ref, ?BATCH) || Ref <- Running, overdue(Ref, Now, Min)],
        case total(Table) of
            undefined -> undefined;
            Total -> {Total, length(Overdue), lists:sum(Overdue)}
        end
    catch error:badarg ->
        undefined
    end.

%%--------------------------------------------------------------------
%% Internal functions

overdue(Ref, Now, Min) ->
    Running = Now - atomics:get(Ref, ?PUBLISHED),
    Running > max(Min, ?OVERDUE_FACTOR * atomics:get(Ref, ?EXPECTED)).
