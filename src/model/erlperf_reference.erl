%%% @doc A reference workload measured across time: a fixed piece of code that takes
%%% turns with a benchmark sample by sample in the same run, so that a run compared with
%%% an earlier one (a suite's previous run, a saved baseline) can tell a slower host
%%% from slower code. The host's speed states, its load, and the share of a CPU the run
%%% gets move both alike; the benchmark's samples divided by the reference's, pair by
%%% pair, keep what the code changed.
%%%
%%% The record keeps the reference's code and samples beside the run's
%%% (`reference'); two runs are compared on the ratio only when both measured the same
%%% reference code.
-module(erlperf_reference).

-export([code_map/0, beside/1, ratios/1, fork_medians/1]).

-include("model/erlperf_schema.hrl").

%% The workload: a hash of a list of 64 small integers (a BIF call walking the heap).
-define(INIT, "lists:seq(1, 64).").
-define(RUNNER, "runner(L) -> erlang:phash2(L).").

%%--------------------------------------------------------------------
%% API

%% @doc The reference workload's code map, to be run as a second code taking turns
%% with the benchmark (`compare => interleaved').
-spec code_map() -> erlperf_job:code_map().
code_map() ->
    #{runner => ?RUNNER, init_runner => ?INIT, label => "reference"}.

%% @doc The benchmark's full report of a run of `[Benchmark, Reference]', with the
%% reference's code and samples (`reference'), and no comparison with it.
-spec beside([erlperf:report()]) -> erlperf:report().
beside([#{result := Result} = Benchmark, #{result := #{values := Values}}]) ->
    (maps:remove(comparison, Benchmark))#{
      result => Result,
      reference => #{code => ?INIT ++ " " ++ ?RUNNER, values => Values}}.

%% @doc A record's run's samples divided by its reference's, pair by pair, when it has
%% a reference of this code and as many samples; else `undefined'.
-spec ratios(erlperf_record:run()) -> [float()] | undefined.
ratios(#{?SAMPLES := Values, ?REFERENCE := #{?CODE := Code, ?SAMPLES := Reference}})
  when length(Values) =:= length(Reference) ->
    case Code =:= list_to_binary(?INIT ++ " " ++ ?RUNNER) of
        true -> [V / max(R, 1) || {V, R} <- lists:zip(Values, Reference)];
        false -> undefined
    end;
ratios(_Run) ->
    undefined.

%% @doc The median of each fork's {@link ratios/1}: what a run compared on its reference
%% reads, one figure a fork (a sample the host interrupted on one side spoils one ratio,
%% not the fork's figure; measured on 2 vCPUs, the median ratio of a NIF call to the
%% reference moved 0.1% between a quiet host and one with a busy loop per CPU, the mean
%% ratio 1-2%).
-spec fork_medians(erlperf_record:run()) -> [float()].
fork_medians(Run) ->
    split(ratios(Run), erlperf_record:fork_sizes(Run)).

split([], _Sizes) -> [];
split(Ratios, [Size | Sizes]) ->
    {Fork, Rest} = lists:split(min(Size, length(Ratios)), Ratios),
    [erlperf_stat:median(Fork) | split(Rest, Sizes)].
