%%% @doc A results record in the formats of benchmark history services, so that their
%%% charts, alerts and pull request comments follow erlperf's runs:
%%% <ul>
%%%   <li><b>github-action-benchmark</b> (`--format github-action-benchmark'): the JSON
%%%       list its `customSmallerIsBetter' tool reads, one entry per run and figure:
%%%       `name', `unit', `value', and `range' (half the width of the 95% interval) and
%%%       `extra' (throughput, samples, workers, the verdict) as text. A run's time per
%%%       call in `ns'; with `--memory', bytes and reductions per call, each an entry of
%%%       its own (`NAME - bytes per call').</li>
%%%   <li><b>Bencher</b> (`--format bencher'): the Bencher Metric Format, an object
%%%       of benchmark names, each of measures (`latency', nanoseconds per call, and
%%%       `throughput', calls a second, Bencher's own; `bytes' and `reductions' per call
%%%       with `--memory'), each measure's `value' with `lower_value' and `upper_value'
%%%       from the 95% interval.</li>
%%% </ul>
%%% A run's name is its label, with its parameters in a sweep (`lists:seq(1, N). (N=10)').
%%%
%%% An open load (`--rate') measures no time per call: a run's figures are its calls'
%%% response times (from when each was due) and the rate it achieved, under the name
%%% `NAME at R/s' (each rate of a ramp its own benchmark). github-action-benchmark gets
%%% `NAME at R/s - response p50' and `- response p99' (unit `ns', the pacing in `extra');
%%% Bencher gets `throughput' (calls started a second, the rate achieved) and the measures
%%% `response-p50' and `response-p99' (nanoseconds). A rate at which no call returned
%%% has no response time.
%%% Pure: returns iodata.
%%%
%%% Example:
%%% ```
%%% Record = erlperf_record:from_reports(erlperf:compare(["ok."], #{report => full})),
%%% io:put_chars(erlperf_trackers:bencher(Record)).
%%% '''
-module(erlperf_trackers).

%% API: called by erlperf_output.
-export([github_action_benchmark/1, bencher/1]).

-include("model/erlperf_schema.hrl").

%%--------------------------------------------------------------------
%% API

%% @doc The record as github-action-benchmark's `customSmallerIsBetter' JSON.
-spec github_action_benchmark(erlperf_record:results()) -> iodata().
github_action_benchmark(#{?RUNS := Runs} = Record) ->
    Entries = lists:append([case R of
                                #{<<"rate">> := Rate} -> open_entries(name(R, Record), Rate);
                                #{} -> entries(name(R, Record), R)
                            end || R <- Runs]),
    [erlperf_json:encode(Entries, #{pretty => true}), $\n].

%% @doc The record in the Bencher Metric Format.
-spec bencher(erlperf_record:results()) -> iodata().
bencher(#{?RUNS := Runs} = Record) ->
    Benchmarks = maps:from_list([case R of
                                     #{<<"rate">> := Rate} -> open_measures(name(R, Record), Rate);
                                     #{} -> {name(R, Record), measures(R)}
                                 end || R <- Runs]),
    [erlperf_json:encode(Benchmarks, #{pretty => true}), $\n].

%%--------------------------------------------------------------------
%% Internal functions

%% A run's name with its own parameters (a suite's runs have different ones), in the
%% record's order of them where it has one.
name(Run, Record) ->
    Declared = erlperf_record:param_names(Record),
    Own = lists:sort(maps:keys(maps:get(?PARAMS, Run, #{}))),
    erlperf_record:run_name(Run, Declared ++ (Own -- Declared)).

entries(Name, Run) ->
    Time = case time_bounds(Run) of
               {Ns, Lo, Hi} ->
                   [#{<<"name">> => Name, <<"unit">> => <<"ns">>, <<"value">> => Ns,
                      <<"range">> => unicode:characters_to_binary(["± ", erlperf_units:fixed((Hi - Lo) / 2, 2)]),
                      <<"extra">> => extra(Run)}];
               {Ns} ->
                   [#{<<"name">> => Name, <<"unit">> => <<"ns">>, <<"value">> => Ns, <<"extra">> => extra(Run)}];
               none ->
                   []
           end,
    Time ++ [#{<<"name">> => unicode:characters_to_binary([Name, " - ", What, " per call"]), <<"unit">> => Unit,
               <<"value">> => V}
             || {Key, What, Unit} <- per_call(), V <- [maps:get(Key, Run, null)], is_number(V)].

measures(Run) ->
    Latency = case time_bounds(Run) of
                  {Ns, Lo, Hi} -> #{<<"latency">> => #{<<"value">> => Ns, <<"lower_value">> => Lo,
                                                       <<"upper_value">> => Hi}};
                  {Ns} -> #{<<"latency">> => #{<<"value">> => Ns}};
                  none -> #{}
              end,
    Throughput = case {maps:get(?QPS, Run, null), erlperf_record:qps_bounds(Run)} of
                     {Q, {QLo, QHi}} when is_number(Q) ->
                         #{<<"throughput">> => #{<<"value">> => Q, <<"lower_value">> => QLo,
                                                 <<"upper_value">> => QHi}};
                     {Q, none} when is_number(Q) -> #{<<"throughput">> => #{<<"value">> => Q}};
                     _ -> #{}
                 end,
    PerCall = maps:from_list([{Measure, #{<<"value">> => V}}
                              || {Key, Measure, _} <- per_call(), V <- [maps:get(Key, Run, null)],
                                 is_number(V)]),
    maps:merge(maps:merge(Latency, Throughput), PerCall).

%% An open load's run: its response-time percentiles, the pacing in `extra'.
open_entries(Name, Rate) ->
    At = at_rate(Name, Rate),
    [#{<<"name">> => unicode:characters_to_binary([At, " - response ", Key]),
       <<"unit">> => <<"ns">>, <<"value">> => Ns, <<"extra">> => pacing(Rate)}
     || {Key, Ns} <- response_ns(Rate)].

%% An open load's run in the Bencher Metric Format: the rate achieved, the response times.
open_measures(Name, #{<<"achieved">> := Achieved} = Rate) ->
    Times = maps:from_list([{<<"response-", Key/binary>>, #{<<"value">> => Ns}}
                            || {Key, Ns} <- response_ns(Rate)]),
    {at_rate(Name, Rate), Times#{<<"throughput">> => #{<<"value">> => Achieved}}}.

%% `NAME at R/s': each rate of a ramp is a benchmark of its own.
at_rate(Name, #{<<"target">> := Target}) ->
    unicode:characters_to_binary([Name, " at ", erlperf_units:setting(Target), "/s"]).

%% The response times' median and p99 in nanoseconds (none when no call returned).
response_ns(#{<<"response_us">> := Us}) ->
    [{Key, Value * 1000} || Key <- [?P50, ?P99], Value <- [maps:get(Key, Us, null)],
                            is_number(Value)].

pacing(#{<<"target">> := Target, <<"achieved">> := Achieved, <<"late">> := Late,
         <<"skipped">> := Skipped, <<"workers">> := Workers}) ->
    unicode:characters_to_binary(
      ["open load: ", erlperf_units:setting(Target), " calls a second due, ",
       erlperf_units:count(Achieved), " started a second, ", integer_to_list(Late), " late, ",
       integer_to_list(Skipped), " skipped, ", workers(Workers)]).

%% The cost per call a run may have: its key, its measure's name, its unit.
per_call() ->
    [{?BYTES_PER_ITERATION, <<"bytes">>, <<"bytes">>},
     {?REDUCTIONS_PER_ITERATION, <<"reductions">>, <<"reductions">>}].

%% The time per call and its 95% interval (from the throughput's: the slowest time is
%% the lowest throughput's), or the time alone.
time_bounds(#{?ITERATION_NS := Ns} = Run) when is_number(Ns), Ns > 0 ->
    case {maps:get(?QPS, Run, null), erlperf_record:qps_bounds(Run)} of
        {Q, {QLo, QHi}} when is_number(Q), QLo > 0, QHi > 0 -> {Ns, Ns * Q / QHi, Ns * Q / QLo};
        _ -> {Ns}
    end;
time_bounds(_Run) ->
    none.

extra(Run) ->
    Verdict = case erlperf_record:comparison(Run) of
                  none -> [];
                  Comparison -> ["; against the fastest: ", erlperf_verdict:text(Comparison)]
              end,
    unicode:characters_to_binary([erlperf_units:count(maps:get(?QPS, Run, 0)), " calls a second, ",
                      integer_to_list(length(maps:get(?SAMPLES, Run, []))), " samples, ",
                      workers(maps:get(<<"concurrency">>, Run, 1)) | Verdict]).

workers(1) -> "1 worker";
workers(N) -> [integer_to_list(N), " workers"].
