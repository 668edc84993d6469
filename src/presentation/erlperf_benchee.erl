%%% @doc Writes a results record ({@link erlperf_record}) the way Benchee prints its
%%% results, for people who read those at once (`--style benchee', and the default of
%%% `mix erlperf' and `Erlperf.run/2'). Pure: returns iodata.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>input</b>: a combination of parameter values of a sweep (`--param', or the
%%%       named inputs of `Erlperf.run/2'); each gets a section of its own, "With input
%%%       N=100", its runs compared within it.</li>
%%%   <li><b>ips</b>: iterations per second of one worker, `1e9 / iteration_ns' (with one
%%%       worker, the throughput); <b>average</b>: the time of one iteration,
%%%       `iteration_ns', from erlperf's loop (no clock read per call).</li>
%%%   <li><b>deviation, median, 99th %</b>: of the calls timed one by one when the run
%%%       timed them (`--latency'): the standard deviation in percent of their average,
%%%       their median and 99th percentile, as Benchee's are; without latency, the
%%%       deviation of the samples (throughput per sample) in percent of their average
%%%       and the median and 99th percentile of the time per iteration over samples.</li>
%%%   <li><b>comparison</b>: each run against the fastest of its input, `N.NNx slower'
%%%       (the fastest's ips over its own) and the extra time per iteration, with
%%%       erlperf's verdict: the interval of the ratio (from the comparison's interval of
%%%       the change) and what it knows (forks, one run), or "no significant
%%%       difference".</li>
%%%   <li><b>memory usage</b>: heap bytes per call (`--memory'), compared the same way
%%%       with the least.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% Reports = erlperf:compare(["lists:seq(1, 100).", "lists:seq(1, 200)."],
%%%                           #{report => full, latency => true, memory => true}),
%%% io:put_chars(erlperf_benchee:format(erlperf_record:from_reports(Reports))).
%%% '''
-module(erlperf_benchee).

%% API: called by the command line and the Elixir API.
-export([format/1, format/2, percentiles/0]).

-export_type([options/0]).

%% `system': the system block first (default true: Erlperf.run/2 prints it before the
%% run); `percentiles': the columns of the calls timed one by one, of 50, 90, 99 and
%% 99.9 (default [50, 99]).
-type options() :: #{system => boolean(), percentiles => [number()]}.

-include("model/erlperf_schema.hrl").

%% Width of the Name column at least, and of each figure column.
-define(NAME_MIN, 16).
-define(COLUMN, 13).
%% The percentile columns when none are asked for (Benchee's).
-define(DEFAULT_PERCENTILES, [50, 99]).
%% Decimals of every figure, as Benchee writes them.
-define(DECIMALS, 2).

%%--------------------------------------------------------------------
%% API

%% @doc The Benchee-style text of a record: the system, then per input the statistics,
%% the comparison and the memory usage.
-spec format(erlperf_record:results()) -> unicode:chardata().
format(Record) ->
    format(Record, #{}).

%% @doc The percentiles of the calls timed one by one that a report can show, with their
%% keys in a record's `latency_us'.
-spec percentiles() -> [{number(), binary()}].
percentiles() ->
    [{50, ?P50}, {90, ?P90}, {99, ?P99}, {99.9, ?P999}].

%% @doc {@link format/1} with options; raises `{invalid_option, percentiles, Value}' for
%% a percentile not among {@link percentiles/0}.
-spec format(erlperf_record:results(), options()) -> unicode:chardata().
format(#{?RUNS := [#{<<"rate">> := _} | _]} = Record, _Options) ->
    %% an open load has no Benchee layout: its own tables (rate, response and service times)
    erlperf_report:render(Record, #{});
format(#{?RUNS := Runs} = Record, Options) ->
    Names = erlperf_record:param_names(Record),
    Inputs = inputs(Runs, Names),
    Width = max(?NAME_MIN, lists:max([string:length(name(R)) || R <- Runs]) + 2),
    Percentiles = maps:get(percentiles, Options, ?DEFAULT_PERCENTILES),
    [] =:= [P || P <- Percentiles, not lists:keymember(P, 1, percentiles())] orelse
        erlang:error({invalid_option, percentiles, Percentiles}),
    [case maps:get(system, Options, true) of
         true -> system(maps:get(?SYSTEM, Record, #{}));
         false -> []
     end,
     [section(Input, Group, Width, length(Inputs) > 1 orelse Names =/= [], Percentiles)
      || {Input, Group} <- Inputs],
     sources(Runs),
     erlperf_report:profiles(Record)].

%%--------------------------------------------------------------------
%% Internal functions

%% Runs grouped by their combination, in the order first seen.
inputs(Runs, Names) ->
    Keys = lists:uniq([input(R, Names) || R <- Runs]),
    [{K, [R || R <- Runs, input(R, Names) =:= K]} || K <- Keys].

input(Run, Names) ->
    Params = maps:get(?PARAMS, Run, #{}),
    case Names of
        %% Erlperf.run/2's named inputs: the name alone, as Benchee shows it
        [<<"input">>] ->
            erlperf_name:text(erlperf_units:record_text(maps:get(<<"input">>, Params, <<>>)));
        _ ->
            lists:join(", ", [erlperf_name:text([N, $=, erlperf_units:record_text(V)])
                              || N <- Names, V <- [maps:get(N, Params, none)], V =/= none])
    end.

%% The system block as Benchee prints it.
system(System) ->
    Lines = [{"Operating System: ", os(System)},
             {"CPU Information: ", maps:get(<<"cpu">>, System, null)},
             {"Number of Available Cores: ", maps:get(<<"schedulers">>, System, null)},
             {"Elixir ", elixir()},
             {"Erlang ", maps:get(<<"otp_release">>, System, null)},
             {"JIT enabled: ", case maps:get(<<"emu_flavor">>, System, null) of
                                   null -> null;
                                   Flavor -> atom_to_list(Flavor =:= <<"jit">>)
                               end}],
    [[[Label, text(Value), "\n"] || {Label, Value} <- Lines, Value =/= null], "\n"].

%% The system's name as Benchee writes it (Linux, macOS), from erlperf's family, name
%% and kernel version (`unix:linux 6.1.0').
os(#{<<"os_name">> := Name}) -> os_name(string:lexemes(Name, ": "));
os(#{<<"os">> := Os}) -> os_name(string:lexemes(Os, ": "));
os(_System) -> null.

os_name([_Family, <<"linux">> | _]) -> <<"Linux">>;
os_name([_Family, <<"darwin">> | _]) -> <<"macOS">>;
os_name([_Family, <<"freebsd">> | _]) -> <<"FreeBSD">>;
os_name([<<"win32">> | _]) -> <<"Windows">>;
os_name([_Family, Name | _]) -> string:titlecase(Name);
os_name([Name]) -> Name;
os_name([]) -> null.

%% The Elixir release of this VM, when Elixir is loaded (never started here).
elixir() ->
    case application:get_key(elixir, vsn) of
        {ok, Vsn} -> Vsn;
        undefined -> null
    end.

section(Input, Runs, Width, Titled, Percentiles) ->
    Title = case Titled of
                true -> ["##### With input ", Input, " #####\n"];
                false -> []
            end,
    %% runs compared with each other (not a suite's benchmarks): fastest first
    case lists:any(fun (R) -> is_map_key(?COMPARISON, R) end, Runs) of
        true ->
            Sorted = lists:sort(fun (A, B) -> ips(A) >= ips(B) end, Runs),
            [Title, statistics(Sorted, Width, Percentiles), comparison(Sorted, Width),
             memory(Sorted, Width), reductions(Sorted, Width), "\n"];
        false ->
            [Title, statistics(Runs, Width, Percentiles), memory(Runs, Width), reductions(Runs, Width), "\n"]
    end.

statistics(Runs, Width, Percentiles) ->
    Header = [pad("Name", Width),
              [lpad(H, ?COLUMN) || H <- ["ips", "average", "deviation" | [percentile_name(P) || P <- Percentiles]]],
              "\n"],
    [Header | [[pad(name(R), Width), lpad(ips_text(ips(R)), ?COLUMN), lpad(time(average(R)), ?COLUMN),
                lpad(deviation(R), ?COLUMN), [lpad(time(percentile(R, P)), ?COLUMN) || P <- Percentiles], "\n"]
               || R <- Runs] ++ gaps(Runs)].

percentile_name(50) -> "median";
percentile_name(P) -> [erlperf_units:value(P), "th %"].

%% Medians (calls timed one by one) far from the averages (erlperf's loop), explained once.
gaps(Runs) ->
    case [[name(R), " ", fixed(Median / Avg), "x"]
          || R <- Runs, Median <- [median(R)], Avg <- [average(R)], is_number(Median),
             is_number(Avg), Avg > 0,
             Median > 2 * Avg orelse Median < Avg / 2] of
        [] ->
            [];
        Far ->
            ["Note: median over average: ", lists:join(", ", Far), ". The median is of calls timed one "
             "by one in a fresh process after the run, where garbage collections fall elsewhere than "
             "in the loop's batches, whose average erlperf compares\n"]
    end.

%% What each column is of: erlperf's loop, and the calls timed one by one when some were.
sources(Runs) ->
    case lists:any(fun (R) -> is_map_key(<<"latency_us">>, R) end, Runs) of
        true -> "ips and average: erlperf's loop, no clock read per call; deviation, median and "
                "percentiles: calls timed one by one after it\n";
        false -> "ips and average: erlperf's loop; deviation, median and percentiles: of its samples\n"
    end.

comparison([_], _Width) ->
    [];
comparison([Fastest | Others], Width) ->
    ["\nComparison:\n", pad(name(Fastest), Width), lpad(ips_text(ips(Fastest)), ?COLUMN), "\n"
     | [[pad(name(R), Width), lpad(ips_text(ips(R)), ?COLUMN), " - ", slower(R, Fastest), "\n"] || R <- Others]].

%% "1.95x slower +416 ns (95% CI 1.90..2.01x, 10 forks)", or "... (no significant
%% difference, 95% CI ...)"; the ratio from the two averages ("∞x slower +-" for a run
%% in which no call returned).
slower(Run, Fastest) ->
    Slower = case {average(Run), average(Fastest)} of
                 {A, F} when is_number(A), is_number(F) ->
                     [ratio(ips(Fastest) / ips(Run)), " slower +", time(A - F)];
                 _ ->
                     ["∞x slower +", time(null)]
             end,
    [Slower, verdict(maps:get(?COMPARISON, Run, none), Run)].

%% The comparison's change interval of the throughput (C% slower: the ratio is
%% 1 / (1 + C/100)), as an interval of "times slower".
verdict(#{<<"verdict">> := <<"inconclusive">>}, _Run) ->
    " (inconclusive: too few samples to tell)";
verdict(#{<<"ci95_pct">> := [Lo, Hi], <<"significant">> := Significant}, Run)
  when is_number(Lo), is_number(Hi), Hi > -100 ->
    %% a change down to -100% or below: the throughput may be 0, infinitely slower
    Far = case Lo > -100 of
              true -> ratio(100 / (100 + Lo));
              false -> "∞"
          end,
    Range = [ratio(100 / (100 + Hi)), "..", Far],
    Basis = erlperf_record:interval_label(Run),
    case Significant of
        true -> [" (95% CI ", Range, ", ", Basis, ")"];
        false -> [" (no significant difference, 95% CI ", Range, ", ", Basis, ")"]
    end;
verdict(#{<<"significant">> := false}, _Run) ->
    " (no significant difference)";
verdict(_Comparison, _Run) ->
    "".

memory(Runs, Width) ->
    case [{R, B} || R <- Runs, B <- [maps:get(?BYTES_PER_ITERATION, R, null)], is_number(B)] of
        [] ->
            [];
        Measured ->
            Least = lists:min([B || {_, B} <- Measured]),
            Sorted = lists:keysort(2, Measured),
            ["\nMemory usage statistics:\n\n", pad("Name", Width), lpad("Memory usage", ?COLUMN), "\n"
             | [[pad(name(R), Width), lpad(bytes(B), ?COLUMN), memory_against(B, Least), "\n"]
                || {R, B} <- Sorted]]
    end.

reductions(Runs, Width) ->
    case [{R, N} || R <- Runs, N <- [maps:get(?REDUCTIONS_PER_ITERATION, R, null)], is_number(N)] of
        [] ->
            [];
        Measured ->
            Least = lists:min([N || {_, N} <- Measured]),
            ["\nReduction count statistics:\n\n", pad("Name", Width), lpad("Reduction count", ?COLUMN + 3), "\n"
             | [[pad(name(R), Width), lpad(count(N), ?COLUMN + 3), count_against(N, Least), "\n"]
                || {R, N} <- lists:keysort(2, Measured)]]
    end.

count_against(N, Least) when N == Least -> "";
count_against(N, Least) when Least == 0 -> [" - +", count(N)];
count_against(N, Least) -> [" - ", ratio(N / Least), " reduction count +", count(N - Least)].

%% A count per call: whole when it is, else with Benchee's decimals.
count(N) when abs(N - round(N)) < 0.005 -> integer_to_list(round(N));
count(N) -> fixed(N).

memory_against(B, Least) when B == Least -> "";
memory_against(B, Least) when Least == 0 -> [" - +", bytes(B)];
memory_against(B, Least) -> [" - ", ratio(B / Least), " memory usage +", bytes(B - Least)].

%% A runner's name, as every text output writes it (erlperf_name).
name(#{?LABEL := Label}) -> erlperf_name:text(Label).

ips(#{?ITERATION_NS := Ns}) when is_number(Ns), Ns > 0 -> 1.0e9 / Ns;
ips(#{?QPS := Qps}) when is_number(Qps) -> float(Qps);
ips(_Run) -> 0.0.

%% The time of one call, nanoseconds; `null' when no call returned in the run.
average(#{?ITERATION_NS := Ns}) when is_number(Ns) -> float(Ns);
average(Run) ->
    case ips(Run) of
        Ips when Ips > 0 -> 1.0e9 / Ips;
        _ -> null
    end.

%% Per call when timed one by one; else over the samples.
deviation(#{<<"latency_us">> := #{?STDDEV := Sd, <<"average">> := Avg}}) when Avg > 0 ->
    percent(100 * Sd / Avg);
deviation(#{?STDDEV := Sd, ?AVERAGE := Avg}) when is_number(Sd), Avg /= 0 ->
    percent(100 * Sd / abs(Avg));
deviation(_Run) ->
    "-".

median(Run) -> percentile(Run, 50).

%% Of the calls timed one by one; else of the samples, as time per iteration.
percentile(#{<<"latency_us">> := Latency}, P) when is_map(Latency) ->
    case maps:get(latency_key(P), Latency, null) of
        V when is_number(V) -> 1000 * V;
        _ -> null
    end;
percentile(Run, 50) -> per_iteration(Run, ?MEDIAN);
percentile(#{?MODE := <<"timed">>} = Run, 99) -> per_iteration(Run, ?P99);
percentile(#{?MODE := <<"timed">>, ?SAMPLES := Samples} = Run, P) ->
    scale_to_iteration(Run, erlperf_stat:percentile(Samples, P));
%% continuous: the slowest P% of samples are the lowest throughput
percentile(#{?SAMPLES := Samples} = Run, P) ->
    scale_to_iteration(Run, erlperf_stat:percentile(Samples, 100 - P));
percentile(_Run, _P) ->
    null.

latency_key(P) ->
    {P, Key} = lists:keyfind(P, 1, percentiles()),
    Key.

per_iteration(Run, Key) ->
    scale_to_iteration(Run, maps:get(Key, Run, null)).

%% A sample's figure as the time of one iteration: the average's iteration time scaled
%% by how the figure stands to the average (throughput: inversely; timed: directly).
scale_to_iteration(#{?AVERAGE := Avg} = Run, Value) when is_number(Value), Value /= 0, Avg /= 0 ->
    case {maps:get(?MODE, Run, <<"continuous">>), average(Run)} of
        {_, null} -> null;
        {<<"timed">>, Time} -> Time * Value / Avg;
        {_, Time} -> Time * Avg / Value
    end;
scale_to_iteration(_Run, _Value) ->
    null.

ips_text(Ips) when Ips >= 1.0e9 -> [fixed(Ips / 1.0e9), " G"];
ips_text(Ips) when Ips >= 1.0e6 -> [fixed(Ips / 1.0e6), " M"];
ips_text(Ips) when Ips >= 1.0e3 -> [fixed(Ips / 1.0e3), " K"];
ips_text(Ips) -> fixed(Ips).

time(null) -> "-";
time(Ns) when abs(Ns) >= 1.0e9 -> [fixed(Ns / 1.0e9), " s"];
time(Ns) when abs(Ns) >= 1.0e6 -> [fixed(Ns / 1.0e6), " ms"];
time(Ns) when abs(Ns) >= 1.0e3 -> [fixed(Ns / 1.0e3), " μs"];
time(Ns) -> [fixed(Ns), " ns"].

bytes(B) when B >= 1048576 -> [fixed(B / 1048576), " MB"];
bytes(B) when B >= 1024 -> [fixed(B / 1024), " KB"];
bytes(B) when B == round(B) -> [integer_to_list(round(B)), " B"];
bytes(B) -> [fixed(B), " B"].

ratio(R) -> [fixed(R), "x"].

percent(P) -> ["±", fixed(P), "%"].

fixed(X) -> erlperf_units:fixed(X, ?DECIMALS).

text(Value) when is_binary(Value) -> Value;
text(Value) when is_integer(Value) -> integer_to_list(Value);
text([C | _] = Value) when is_integer(C) -> Value;
text(Value) -> erlperf_units:value(Value).

pad(Text, Width) -> string:pad(Text, Width).

lpad(Text, Width) -> string:pad(Text, Width, leading).
