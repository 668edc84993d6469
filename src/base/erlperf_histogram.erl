%%% @doc A histogram of durations with log-linear buckets: bounded memory for any number
%%% of values, relative error at most 1/128 (0.8%), exact merging. Workers record into a
%%% shared recorder (`counters', no process between them); a snapshot is a plain map
%%% that can be sent between nodes, merged, stored and read for percentiles.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>bucket</b>: values 0..255 have a bucket each; above, every power of two is
%%%       split into 128 buckets of equal width (the values from 2^k to 2^(k+1) - 1 in
%%%       steps of 2^(k-7)). A value is in exactly one bucket, known from the value alone,
%%%       so two histograms merge by adding their counts.</li>
%%%   <li><b>recorder</b>: the mutable side, `counters' arrays shared by the processes
%%%       that record into it ({@link new/0}, {@link record/2}).</li>
%%%   <li><b>snapshot</b>: the immutable side ({@link snapshot/1}): `count', `sum',
%%%       exact `min' and `max', and the counts of the buckets that hold any.</li>
%%%   <li><b>percentile</b>: by nearest rank (the value of rank ceil(P/100 x count)), read
%%%       as the highest value of its bucket, capped by the exact maximum: never below
%%%       the exact percentile, above it by 0.8% at most (and by nothing for values
%%%       under 256).</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% R = erlperf_histogram:new(),
%%% ok = erlperf_histogram:record(R, 1500),
%%% ok = erlperf_histogram:record(R, 2600),
%%% S = erlperf_histogram:snapshot(R),
%%% #{p50 := 1503, max := 2600} = erlperf_histogram:percentiles(S, [p50, max]).
%%% '''
%%% Cost: a recorder is ?BUCKETS counters (about 42 KB), 2 more and 2 atomics;
%%% recording is a few integer operations, three `counters:add/3' and two reads of
%%% the extremes (a compare-and-swap when a value is a new minimum or maximum). Values above ?MAX_VALUE (about 39 hours in nanoseconds) are
%%% recorded as ?MAX_VALUE.
-module(erlperf_histogram).

%% API: the recorder (erlperf_rate's workers), snapshots (erlperf_rate, the outputs).
-export([new/0, record/2, snapshot/1]).
-export([empty/0, from_values/1, merge/2, count/1, percentile/2, percentiles/2,
         summary/1, valid/1]).
%% Internal exports: bucket arithmetic, tested on its own.
-export([bucket/1, bounds/1]).

-export_type([recorder/0, snapshot/0, percentile_key/0]).

%% Bits of a bucket's position within its power of two: 2^?BITS buckets below 2^?BITS,
%% then 2^(?BITS - 1) per power of two.
-define(BITS, 8).
-define(SUB, (1 bsl ?BITS)).
-define(HALF, (1 bsl (?BITS - 1))).
%% The largest value kept as it is (2^47 - 1 ns is about 39 hours).
-define(MAX_VALUE, ((1 bsl 47) - 1)).
%% Buckets up to ?MAX_VALUE.
-define(BUCKETS, (((47 - ?BITS) + 1) * ?HALF + ?HALF)).
%% The recorder's extra counters (after the buckets): count and sum; and its atomics:
%% min and max.
-define(COUNT, (?BUCKETS + 1)).
-define(SUM, (?BUCKETS + 2)).
-define(MIN, 1).
-define(MAX, 2).

-opaque recorder() :: {counters:counters_ref(), atomics:atomics_ref()}.
%% `buckets': bucket index => count, for buckets with a count above 0.
-type snapshot() :: #{count := non_neg_integer(), sum := non_neg_integer(),
                      min := non_neg_integer() | undefined,
                      max := non_neg_integer() | undefined,
                      buckets := #{non_neg_integer() => pos_integer()}}.
%% p50 is the median, p999 the 99.9th percentile.
-type percentile_key() :: p50 | p75 | p90 | p95 | p99 | p999 | p9999 | max | min.

%%--------------------------------------------------------------------
%% API

%% @doc A recorder with nothing recorded.
-spec new() -> recorder().
new() ->
    Extremes = atomics:new(2, [{signed, false}]),
    ok = atomics:put(Extremes, ?MIN, ?MAX_VALUE + 1),
    {counters:new(?SUM, [write_concurrency]), Extremes}.

%% @doc Records a value (negative ones as 0).
-spec record(recorder(), integer()) -> ok.
record({Ref, Extremes}, Value) ->
    V = min(max(Value, 0), ?MAX_VALUE),
    ok = counters:add(Ref, bucket(V) + 1, 1),
    ok = counters:add(Ref, ?COUNT, 1),
    ok = counters:add(Ref, ?SUM, V),
    _ = extreme(Extremes, ?MIN, V, atomics:get(Extremes, ?MIN)),
    _ = extreme(Extremes, ?MAX, V, atomics:get(Extremes, ?MAX)),
    ok.

%% @doc What the recorder holds now. Recording may go on meanwhile: a snapshot taken
%% then may miss the last values' extremes or counts, never mix values.
-spec snapshot(recorder()) -> snapshot().
snapshot({Ref, Extremes}) ->
    Buckets = maps:from_list([{I - 1, N} || I <- lists:seq(1, ?BUCKETS),
                                            N <- [counters:get(Ref, I)], N > 0]),
    Count = lists:sum(maps:values(Buckets)),
    case Count of
        0 -> empty();
        _ -> #{count => Count, sum => counters:get(Ref, ?SUM), buckets => Buckets,
               min => min(atomics:get(Extremes, ?MIN), ?MAX_VALUE),
               max => atomics:get(Extremes, ?MAX)}
    end.

%% @doc The snapshot of no values.
-spec empty() -> snapshot().
empty() ->
    #{count => 0, sum => 0, min => undefined, max => undefined, buckets => #{}}.

%% @doc The snapshot of a list of values, as if recorded one by one.
-spec from_values([integer()]) -> snapshot().
from_values(Values) ->
    Ref = new(),
    _ = [record(Ref, V) || V <- Values],
    snapshot(Ref).

%% @doc Two snapshots as one: the same as recording both sets of values into one.
-spec merge(snapshot(), snapshot()) -> snapshot().
merge(#{count := 0}, B) ->
    B;
merge(A, #{count := 0}) ->
    A;
merge(#{count := C1, sum := S1, min := Lo1, max := Hi1, buckets := B1},
      #{count := C2, sum := S2, min := Lo2, max := Hi2, buckets := B2}) ->
    Buckets = maps:fold(fun (I, N, Acc) -> maps:update_with(I, fun (M) -> M + N end, N, Acc) end,
                        B1, B2),
    #{count => C1 + C2, sum => S1 + S2, min => min(Lo1, Lo2), max => max(Hi1, Hi2),
      buckets => Buckets}.

%% @doc How many values the snapshot holds.
-spec count(snapshot()) -> non_neg_integer().
count(#{count := Count}) ->
    Count.

%% @doc The `P'th percentile (above 0, at most 100) by nearest rank, read as the highest value
%% of its bucket and at most the maximum; `undefined' for an empty snapshot.
-spec percentile(snapshot(), number()) -> non_neg_integer() | undefined.
percentile(#{count := 0}, _P) ->
    undefined;
percentile(#{count := Count, max := Max, min := Min, buckets := Buckets}, P) when P > 0, P =< 100 ->
    Rank = max(1, ceil_int(P * Count / 100)),
    {_, High} = bounds(at_rank(lists:sort(maps:to_list(Buckets)), Rank)),
    max(Min, min(High, Max)).

%% @doc Named percentiles (and `min', `max'); an empty snapshot has none (`undefined').
-spec percentiles(snapshot(), [percentile_key()]) -> #{percentile_key() => non_neg_integer() | undefined}.
percentiles(Snapshot, Keys) ->
    maps:from_list([{Key, key(Snapshot, Key)} || Key <- Keys]).

%% @doc `count', `average' (exact), `min', p50, p90, p99, p999 and `max': what reports show.
-spec summary(snapshot()) -> #{atom() => number() | undefined}.
summary(#{count := Count, sum := Sum} = Snapshot) ->
    Average = case Count of
                  0 -> undefined;
                  _ -> Sum / Count
              end,
    (percentiles(Snapshot, [min, p50, p90, p99, p999, max]))#{count => Count, average => Average}.

%% @doc Whether a term is a snapshot (as read back from a record or another node).
-spec valid(term()) -> boolean().
valid(#{count := Count, sum := Sum, min := Min, max := Max, buckets := Buckets})
  when is_integer(Count), Count >= 0, is_integer(Sum), Sum >= 0, is_map(Buckets) ->
    Valid = fun (I, N) -> is_integer(I) andalso I >= 0 andalso I < ?BUCKETS andalso
                              is_integer(N) andalso N > 0 end,
    lists:all(fun ({I, N}) -> Valid(I, N) end, maps:to_list(Buckets)) andalso
        lists:sum(maps:values(Buckets)) =:= Count andalso
        (Count =:= 0 andalso Min =:= undefined andalso Max =:= undefined orelse
         is_integer(Min) andalso is_integer(Max) andalso 0 =< Min andalso Min =< Max);
valid(_) ->
    false.

%%--------------------------------------------------------------------
%% Internal exports

%% @private
%% The bucket of a value, 0 =< Value =< ?MAX_VALUE.
-spec bucket(non_neg_integer()) -> non_neg_integer().
bucket(V) when V < ?SUB ->
    V;
bucket(V) ->
    Shift = msb(V) + 1 - ?BITS,
    Shift * ?HALF + (V bsr Shift).

%% @private
%% The lowest and highest value of a bucket.
-spec bounds(non_neg_integer()) -> {non_neg_integer(), non_neg_integer()}.
bounds(I) when I < ?SUB ->
    {I, I};
bounds(I) ->
    Shift = I div ?HALF - 1,
    M = I rem ?HALF + ?HALF,
    {M bsl Shift, ((M + 1) bsl Shift) - 1}.

%%--------------------------------------------------------------------
%% Internal functions

key(#{min := Min}, min) -> Min;
key(#{max := Max}, max) -> Max;
key(Snapshot, p50) -> percentile(Snapshot, 50);
key(Snapshot, p75) -> percentile(Snapshot, 75);
key(Snapshot, p90) -> percentile(Snapshot, 90);
key(Snapshot, p95) -> percentile(Snapshot, 95);
key(Snapshot, p99) -> percentile(Snapshot, 99);
key(Snapshot, p999) -> percentile(Snapshot, 99.9);
key(Snapshot, p9999) -> percentile(Snapshot, 99.99).

at_rank([{I, N} | _], Rank) when Rank =< N -> I;
at_rank([{_, N} | Rest], Rank) -> at_rank(Rest, Rank - N).

ceil_int(X) ->
    T = trunc(X),
    case X > T of
        true -> T + 1;
        false -> T
    end.

%% The position of the highest set bit (V >= 1).
msb(V) -> msb(V, 0).

msb(V, N) when V >= 1 bsl 16 -> msb(V bsr 16, N + 16);
msb(V, N) when V >= 1 bsl 4 -> msb(V bsr 4, N + 4);
msb(V, N) when V >= 2 -> msb(V bsr 1, N + 1);
msb(_V, N) -> N.

%% Lowers the minimum (raises the maximum) to V when V is beyond it, retrying while
%% other processes change it meanwhile.
extreme(Extremes, Ix, V, Seen) when Ix =:= ?MIN, V < Seen; Ix =:= ?MAX, V > Seen ->
    case atomics:compare_exchange(Extremes, Ix, Seen, V) of
        ok -> ok;
        Now -> extreme(Extremes, Ix, V, Now)
    end;
extreme(_Extremes, _Ix, _V, _Seen) ->
    ok.
