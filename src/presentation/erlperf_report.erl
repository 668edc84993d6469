%%% @doc The text tables the command line prints, drawn from a results record
%%% ({@link erlperf_record}), as every other output is.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>format</b>: `basic' (Code, concurrency, QPS, Time), `extended' (Code,
%%%       concurrency, Samples, Avg, StdDev, Median, P99, Iteration) or `full' (the
%%%       extended table preceded by `OS', `CPU' and `VM' lines). `auto' picks `extended'
%%%       when any run holds at least `?EXTENDED_FROM_SAMPLES' samples, else `basic';
%%%       a run measured until decided (`sequential') is `basic', as erlperf 2.3's default
%%%       run, and its verdicts follow the table whatever its format.</li>
%%%   <li><b>QPS column</b>: as erlperf 2.3 defines it, the average sample (iterations
%%%       per sample duration, all workers); in timed mode, iterations per second.</li>
%%%   <li><b>score</b>: what rows are ranked by: the average sample in continuous and
%%%       concurrency mode, the inverse of the average sample time in timed mode. Rows
%%%       are sorted by score, highest first; with more than one row the `Rel' column
%%%       shows each score relative to the highest (100%). With `relative => false'
%%%       (a suite's benchmarks, which are not alternatives of each other) rows keep
%%%       the record's order and there is no `Rel' column.</li>
%%%   <li><b>sweep table</b>: runs of a parameter sweep ({@link erlperf_sweep}) keep
%%%       their order (combination by combination, runners in the order given); a column
%%%       per parameter follows `Code', `Bytes/s' follows the time when bytes were given,
%%%       `Rel' is relative to the best run (by bytes per second when given) and the
%%%       `Best' column marks it with `*'. Verdict and note lines name the combination:
%%%       `lists:seq(1, N). (N=10)'.</li>
%%% </ul>
%%%
%%% Figures are written by {@link erlperf_units}; columns are measured in terminal
%%% columns ({@link erlperf_table}).
%%%
%%% Example:
%%% ```
%%% Report = erlperf:benchmark([#{runner => "rand:uniform()."}], #{report => full}, undefined),
%%% io:put_chars(erlperf_report:format([Report], #{format => auto})).
%%% '''
%%% This module is pure: it returns character data (code points above 255 when a label
%%% has them) and performs no I/O.
-module(erlperf_report).

%% API: called by erlperf_output and erlperf_cli (erlperf 2.3's format/2).
-export([format/2, render/2, resolve_format/2]).
%% API: the Benchee layout (erlperf_benchee) ends with the same profiles.
-export([profiles/1]).

-export_type([format/0, options/0]).

-include("model/erlperf_schema.hrl").

-type format() :: basic | extended | full.
-type options() :: #{format => format() | auto,       % [auto]
                     width => pos_integer() | infinity, % terminal width [infinity]
                     colour => boolean(),              % ANSI bold header [false]
                     relative => boolean()}.           % rows by score, Rel column [true]

%% Runs with at least this many samples default to the extended format.
-define(EXTENDED_FROM_SAMPLES, 10).
%% The Code column is never cut narrower than this, whatever the terminal width.
-define(MIN_CODE_WIDTH, 12).
%% Narrowest parameter column (values are often short numbers: keep them off the Code).
-define(PARAM_WIDTH, 5).
%% Width of the Bytes/s column.
-define(RATE_WIDTH, 11).
%% Width of the concurrency column ("||"): basic and extended tables.
-define(BASIC_CONC_WIDTH, 11).
-define(EXTENDED_CONC_WIDTH, 7).
%% Decimals of the Deviation column (percent of the average).
-define(DEVIATION_DECIMALS, 2).

-define(TIMER_NOTE, "Timer accuracy problem detected, results may be inaccurate").
%% Runners sampled in parallel and found significantly different by less than this many
%% percent get a note: on a shared machine, the CPUs that ran them can differ that much.
-define(PARALLEL_DOUBT_PCT, 5).
%% The host's share of the scheduler threads' time from which a run's note says so.
-define(INTERFERENCE_SHOWN, 0.10).
-define(PARALLEL_NOTE, "Note: these runners ran in parallel, each on its own CPU, and CPUs of one "
        "machine can run a few percent apart for a whole run; to tell such a difference from the "
        "code's, compare them taking turns: --compare interleaved -d 50 -s 100~n").

-type run() :: erlperf_record:run().
-type column() :: {Header :: string(), MinWidth :: non_neg_integer()}.
%% What the table is drawn with: the format, the parameters' names (a sweep's), the
%% options.
-type view() :: #{format := format(), names := [binary()], options := options()}.

%%--------------------------------------------------------------------
%% API

%% @doc The tables of full reports (as returned with `report => full'): the tables of
%% their record. The result is character data: labels outside Latin-1 stay Unicode code
%% points, so write it with `io:put_chars/1' or convert it with
%% `unicode:characters_to_binary/1'.
-spec format([erlperf:report()], options()) -> unicode:chardata().
format([], _Options) ->
    [];
format(Reports, Options) ->
    render(erlperf_record:from_reports(Reports), Options).

%% @doc The tables of a results record.
-spec render(erlperf_record:results(), options()) -> unicode:chardata().
render(#{?RUNS := []}, _Options) ->
    [];
render(#{?RUNS := Runs} = Record, Options) ->
    View = #{format => resolve_format(maps:get(format, Options, auto), Record),
             names => erlperf_record:param_names(Record), options => Options},
    Sorted = case View of
                 #{names := [], options := #{relative := false}} -> Runs;
                 _ when is_map_key(<<"rate">>, hd(Runs)) -> Runs;
                 #{names := []} -> lists:sort(fun (A, B) -> score(A) >= score(B) end, Runs);
                 #{} -> Runs
             end,
    [system_lines(View, Record),
     timer_note(Runs),
     table(View, Sorted),
     verdicts(View, Sorted, Record),
     [Line(View, R) || Line <- [fun forks_line/2, fun search_line/2, fun dead_code_lines/2,
                                fun interpreted_lines/2,
                                fun overdue_line/2, fun cost_line/2],
                   R <- Sorted],
     interference_note(View, Sorted),
     latency_table(View, Sorted),
     [profile(R, P) || #{<<"profile">> := P} = R <- Sorted]].

%% @doc The profiles of a record's runs (`--profile'), each under a line naming it, as
%% the tables end with them.
-spec profiles(erlperf_record:results()) -> unicode:chardata().
profiles(#{?RUNS := Runs}) ->
    [profile(R, P) || #{<<"profile">> := P} = R <- Runs].

%% @doc Resolves `auto' to `basic' or `extended' from the number of samples collected.
-spec resolve_format(format() | auto, erlperf_record:results()) -> format().
resolve_format(auto, #{?RUNS := [#{?SEQUENTIAL := _} | _]}) ->
    %% measured until decided: the table of erlperf 2.3's default run, and the verdicts
    basic;
resolve_format(auto, #{?RUNS := Runs}) ->
    Counts = [length(maps:get(?SAMPLES, R, [])) || R <- Runs],
    case lists:max([0 | Counts]) >= ?EXTENDED_FROM_SAMPLES of
        true -> extended;
        false -> basic
    end;
resolve_format(Format, _Record) ->
    Format.

%%--------------------------------------------------------------------
%% Internal functions: the main table

-spec table(view(), [run()]) -> unicode:chardata().
table(View, [#{<<"rate">> := _} | _] = Runs) ->
    rate_tables(View, Runs);
table(#{format := Format, names := Names, options := Options} = View, Runs) ->
    Rel = length(Runs) > 1 andalso maps:get(relative, Options, true),
    Bytes = lists:any(fun (R) -> is_map_key(<<"bytes_per_second">>, R) end, Runs),
    %% a sweep marks its best run (runs of --input are compared within each input only)
    Sweep = lists:any(fun (R) -> is_map_key(<<"best">>, R) end, Runs),
    Columns = param_columns(Names) ++ columns(Format, Rel)
        ++ [{"Bytes/s", ?RATE_WIDTH} || Bytes] ++ [{"Best", 5} || Sweep],
    Best = lists:max([rank(R) || R <- Runs]),
    Rows = [param_cells(R, Names) ++ cells(Format, R) ++ rel_cell(Rel, R, Best)
            ++ [rate_cell(R) || Bytes] ++ [best_cell(R) || Sweep] || R <- Runs],
    grid("Code", Columns, {Runs, Rows}, View).

%% A header line, then a line per run: its label, then its cells.
-spec grid(string(), [column()], {[run()], [[string()]]}, view()) -> unicode:chardata().
grid(First, Columns, {Runs, Rows}, #{options := Options}) ->
    Widths = widths(Columns, Rows),
    Labels = [label(R) || R <- Runs],
    CodeWidth = code_width(First, Labels, lists:sum(Widths), maps:get(width, Options, infinity)),
    Header = erlperf_table:line(CodeWidth, First, [H || {H, _} <- Columns], Widths),
    [erlperf_table:bold(Header, maps:get(colour, Options, false)), "\n" |
     [[erlperf_table:line(CodeWidth, L, Row, Widths), "\n"] || {L, Row} <- lists:zip(Labels, Rows)]].

-spec columns(format(), boolean()) -> [column()].
columns(basic, Rel) ->
    [{"||", ?BASIC_CONC_WIDTH}, {"QPS", 11}, {"Time", 11}] ++ [{"Rel", 6} || Rel];
columns(_Extended, Rel) ->
    [{"||", ?EXTENDED_CONC_WIDTH}, {"Samples", 10}, {"Avg", 10}, {"StdDev", 9},
     {"Median", 10}, {"P99", 9}, {"Iteration", 11}] ++ [{"Rel", 7} || Rel].

-spec cells(format(), run()) -> [string()].
cells(basic, R) ->
    [concurrency(R), erlperf_units:count(per_sample(R)), time_cell(R)];
cells(_Extended, R) ->
    Value = value_formatter(R),
    [concurrency(R), integer_to_list(length(maps:get(?SAMPLES, R))),
     Value(maps:get(?AVERAGE, R)), deviation(R),
     Value(maps:get(?MEDIAN, R)), Value(maps:get(?P99, R)), time_cell(R)].

%% Sweeps: a column per parameter after Code, in the order given.
-spec param_columns([binary()]) -> [column()].
param_columns(Names) ->
    [{erlperf_name:text(N), ?PARAM_WIDTH} || N <- Names].

-spec param_cells(run(), [binary()]) -> [string()].
param_cells(R, Names) ->
    Params = maps:get(?PARAMS, R, #{}),
    [case Params of
         #{N := V} -> erlperf_name:text(erlperf_units:record_text(V));
         #{} -> "-"
     end || N <- Names].

rate_cell(#{<<"bytes_per_second">> := Bps}) -> erlperf_units:rate(Bps);
rate_cell(_R) -> "-".

best_cell(#{<<"best">> := true}) -> "*";
best_cell(_R) -> "".

-spec rel_cell(boolean(), run(), float()) -> [string()].
rel_cell(false, _R, _Best) -> [];
rel_cell(true, _R, Best) when Best == 0 -> ["-"];
rel_cell(true, R, Best) -> [integer_to_list(round(100 * rank(R) / Best)) ++ "%"].

%% Each column is as wide as its nominal width, or its widest cell plus a space.
-spec widths([column()], [[string()]]) -> [pos_integer()].
widths(Columns, Rows) ->
    [lists:max([Min, length(H) + 1 | [length(lists:nth(I, Row)) + 1 || Row <- Rows]])
     || {I, {H, Min}} <- lists:zip(lists:seq(1, length(Columns)), Columns)].

%% The Code column fits the longest label, cut so the line fits the terminal.
-spec code_width(string(), [string()], non_neg_integer(), pos_integer() | infinity) -> pos_integer().
code_width(First, Labels, Rest, Width) ->
    Longest = lists:max([length(First) | [erlperf_table:text_width(L) || L <- Labels]]),
    case Width of
        infinity -> Longest;
        _ -> max(min(Longest, Width - Rest), min(Longest, ?MIN_CODE_WIDTH))
    end.

%% Timed-mode samples are microseconds per sample; continuous ones are iteration counts.
-spec value_formatter(run()) -> fun((number()) -> string()).
value_formatter(#{?MODE := <<"timed">>}) -> fun erlperf_units:us/1;
value_formatter(_Run) -> fun erlperf_units:count/1.

%% The standard deviation in percent of the average.
-spec deviation(#{binary() => term()}) -> string().
deviation(#{?AVERAGE := Avg}) when Avg == 0 -> "-";
deviation(#{?AVERAGE := Avg, ?STDDEV := StdDev}) ->
    erlperf_units:fixed(100 * StdDev / Avg, ?DEVIATION_DECIMALS) ++ "%".

concurrency(#{?CONCURRENCY := C}) -> integer_to_list(C).

time_cell(#{?ITERATION_NS := Ns}) when is_number(Ns) -> erlperf_units:time(Ns);
time_cell(_R) -> "-".

%% The QPS column: iterations per sample duration (timed mode, and a run measured until
%% decided in turns of its own choosing: per second).
-spec per_sample(run()) -> number().
per_sample(#{?MODE := <<"timed">>, ?QPS := Qps}) when is_number(Qps) -> Qps;
per_sample(#{?SEQUENTIAL := _, ?QPS := Qps}) when is_number(Qps) -> Qps;
per_sample(#{?MODE := <<"timed">>}) -> 0.0;
per_sample(#{?AVERAGE := Avg}) -> Avg.

%% What rows are ranked by: throughput, or the inverse of the average time (timed mode).
-spec score(run()) -> number().
score(#{?MODE := <<"timed">>, ?AVERAGE := Avg}) when Avg == 0 -> 0.0;
score(#{?MODE := <<"timed">>, ?AVERAGE := Avg}) -> 1.0 / Avg;
score(#{?AVERAGE := Avg}) -> Avg.

%% What Rel and the Best marker compare: bytes per second when a sweep has them, else
%% the score.
-spec rank(run()) -> number().
rank(#{<<"bytes_per_second">> := BytesPerSecond}) -> BytesPerSecond;
rank(R) -> score(R).

%%--------------------------------------------------------------------
%% Internal functions: lines under the table

-spec system_lines(view(), erlperf_record:results()) -> unicode:chardata().
system_lines(#{format := full}, Record) ->
    System = maps:get(?SYSTEM, Record, #{}),
    [io_lib:format("~-5s~ts~n", [Name ++ ":", maps:get(Key, System, "unknown")])
     || {Name, Key} <- [{"OS", <<"os_name">>}, {"CPU", <<"cpu">>}, {"VM", <<"vm">>}]] ++ ["\n"];
system_lines(_View, _Record) ->
    [].

-spec timer_note([run()]) -> iodata().
timer_note(Runs) ->
    %% turns of a run measured until decided end on time by design: their sampler waits
    %% precisely, which says nothing of the timer; so does an open load's pacer (records
    %% of erlperf before 3.0.0 say `busy_wait' for it)
    case lists:any(fun (R) -> maps:get(<<"sleep">>, R, <<>>) =:= <<"busy_wait">>
                                  andalso not is_map_key(?SEQUENTIAL, R)
                                  andalso not is_map_key(<<"rate">>, R)
                   end, Runs) of
        true -> [?TIMER_NOTE, "\n\n"];
        false -> []
    end.

%% Extended and full tables, and any table of a run measured until decided: each runner
%% against the fastest, with its interval.
-spec verdicts(view(), [run()], erlperf_record:results()) -> unicode:chardata().
verdicts(#{format := basic} = View, [#{?SEQUENTIAL := _} | _] = Runs, Record) ->
    %% what a run measured until decided is for: its verdicts, under any table
    verdicts(View#{format := extended}, Runs, Record);
verdicts(#{format := basic}, _Runs, _Record) ->
    [];
verdicts(#{names := Names}, Runs, Record) ->
    [[io_lib:format("~ts against ~ts: ~ts~n",
                    [label(R),
                     erlperf_name:text(erlperf_record:run_name(R#{?LABEL => Against}, Names)),
                     erlperf_verdict:text(erlperf_record:comparison(R))])
      || #{?COMPARISON := #{<<"against">> := Against}} = R <- Runs],
     parallel_note(Runs, Record),
     sequential_lines(Runs, Names)].

%% Runs measured until decided: how long each benchmark (each input or combination of
%% parameters) took, and why it stopped.
-spec sequential_lines([run()], [binary()]) -> iodata().
sequential_lines(Runs, Names) ->
    Combinations = lists:usort([maps:get(?PARAMS, R, #{}) || #{?SEQUENTIAL := _} = R <- Runs]),
    [[sequential_line(S), combination_text(P, Names), "\n"]
     || P <- Combinations,
        #{?SEQUENTIAL := S} <- [hd([R || R <- Runs, maps:get(?PARAMS, R, #{}) =:= P])]].

%% " (input=sorted)", or nothing without parameters.
combination_text(Params, Names) ->
    erlperf_name:text(erlperf_record:run_name(#{?LABEL => <<>>, ?PARAMS => Params}, Names)).

-spec sequential_line(map()) -> iodata().
sequential_line(#{<<"forks">> := Forks, <<"elapsed_ms">> := Ms, <<"look">> := Look,
                  <<"looks">> := Looks, <<"budget_ms">> := Budget, <<"stopped">> := Why}) ->
    Spent = [erlperf_units:elapsed(Ms), " in ", integer_to_list(Forks), " forks"],
    Stop = case Why of
               <<"decided">> -> ["every verdict decided at look ", integer_to_list(Look), " of ",
                                 integer_to_list(Looks)];
               _ -> ["the budget of ", erlperf_units:duration(Budget), " spent at look ",
                     integer_to_list(Look), " of ", integer_to_list(Looks),
                     " with a verdict undecided"]
           end,
    ["Measured until decided: ", Spent, "; ", Stop];
sequential_line(_Damaged) ->
    "Measured until decided".

%% A small significant difference between runners sampled in parallel may be the CPUs'.
-spec parallel_note([run()], erlperf_record:results()) -> iodata().
parallel_note(Runs, #{?COMPARE := <<"parallel">>}) ->
    Doubtful = [C || R <- Runs, #{test := paired, significant := true, change_pct := Change,
                                  basis := single_run} = C <- [erlperf_record:comparison(R)],
                     is_number(Change), abs(Change) < ?PARALLEL_DOUBT_PCT],
    case Doubtful of
        [] -> [];
        _ -> io_lib:format(?PARALLEL_NOTE, [])
    end;
parallel_note(_Runs, _Record) ->
    [].

%% Extended and full tables: a forked run's noise, between forks (what a single run's
%% interval cannot see) and within them, as standard deviations in percent of the
%% average; none with one sample a fork (the split needs two).
-spec forks_line(view(), run()) -> unicode:chardata().
forks_line(#{format := Format} = View, #{<<"forks">> := #{<<"sizes">> := Sizes,
                                                          <<"between_sd">> := Between,
                                                          <<"within_sd">> := Within},
                                        ?AVERAGE := Avg} = R)
  when Format =/= basic, Avg /= 0, is_number(Between), is_number(Within) ->
    Each = case lists:usort(Sizes) of
               [One] -> integer_to_list(One);
               [Low | _] = Counts -> io_lib:format("~b-~b", [Low, lists:last(Counts)])
           end,
    io_lib:format("~ts: ~b forks of ~ts samples, standard deviation ~ts between forks, ~ts within~n",
                  [name(View, R), length(Sizes), Each, erlperf_units:percent(100 * Between / abs(Avg)),
                   erlperf_units:percent(100 * Within / abs(Avg))]);
forks_line(_View, _R) ->
    [].

%% Concurrency estimation: the best step, when it is not the one reported, with its
%% average in the QPS column's unit (iterations per sample duration), so that it reads
%% against the table.
-spec search_line(view(), run()) -> unicode:chardata().
search_line(_View, #{<<"best_concurrency">> := Best, ?CONCURRENCY := C, <<"steps">> := Steps} = R)
  when Best =/= C ->
    case [A || #{?CONCURRENCY := S, ?AVERAGE := A} <- Steps, S =:= Best] of
        [Avg | _] ->
            io_lib:format("~ts: highest throughput at concurrency ~b (~ts), not significantly "
                          "above concurrency ~b~n", [label(R), Best, erlperf_units:count(Avg), C]);
        [] ->
            []  % a record read back whose steps lack the best one
    end;
search_line(_View, _R) ->
    [].

-spec dead_code_lines(view(), run()) -> unicode:chardata().
dead_code_lines(View, R) ->
    [io_lib:format("Note: the compiler removed the benchmarked code of ~ts (~ts); "
                   "the figures measure an empty loop~n", [name(View, R), Role])
     || Role <- maps:get(<<"dead_code">>, R, [])].

%% A role left as an interpreted fun: every call of it is interpreted.
-spec interpreted_lines(view(), run()) -> unicode:chardata().
interpreted_lines(View, R) ->
    Cost = case maps:get(<<"interpreted_call_ns">>, R, null) of
               Ns when is_number(Ns) -> io_lib:format(" (a call of an empty one costs ~ts more than compiled "
                                                      "code here, each expression of its body more)",
                                                      [erlperf_units:time(Ns)]);
               _ -> ""
           end,
    [io_lib:format("Note: the ~ts of ~ts is an interpreted fun (erl_eval: a shell, IEx, elixir -e "
                   "or a script made it) that could not be compiled, as it holds a value that cannot "
                   "be a literal (a pid, a fun) or calls the shell's own functions: every call is "
                   "interpreted~ts; define it in a module, or give its code as source text~n",
                   [Role, name(View, R), Cost])
     || Role <- maps:get(<<"interpreted">>, R, [])].

%% Samples that ended while a worker of the job had run far longer than its batches
%% usually take: the runner's cost per call jumped, or it blocked.
-spec overdue_line(view(), run()) -> unicode:chardata().
overdue_line(View, #{<<"overdue">> := N, ?SAMPLES := Values} = R) when N > 0 ->
    io_lib:format("Note: ~b of ~b samples of ~ts ended while a worker had been in one call "
                  "far longer than expected (calls are counted when they start)~n",
                  [N, length(Values), name(View, R)]);
overdue_line(_View, _R) ->
    [].

%% When the host's other programs took a noticeable share of the scheduler threads'
%% time or of the host's CPUs during the runs (see erlperf_interference): one line for
%% all of them, short enough for a narrow table (a range when runs differ), not under a
%% basic table. Each run's figures, and its throughput per CPU-second, are in the record.
-spec interference_note(view(), [run()]) -> unicode:chardata().
interference_note(#{format := basic}, _Runs) ->
    [];
interference_note(_View, Runs) ->
    Figure = fun (Key) -> [V || #{?INTERFERENCE := #{Key := V}} <- Runs, is_number(V)] end,
    {Others, Shares} = {Figure(<<"others">>), Figure(<<"share">>)},
    case lists:any(fun (V) -> V >= ?INTERFERENCE_SHOWN end, Others ++ Shares) of
        true ->
            io_lib:format("Note: other programs kept ~s of the host's CPUs busy and took ~s of the "
                          "schedulers' time during the ~s~n",
                          [range(Others), range(Shares), case Runs of [_] -> "run"; _ -> "runs" end]);
        false ->
            []
    end.

range([]) ->
    "?";
range(Values) ->
    case {erlperf_units:share(lists:min(Values)), erlperf_units:share(lists:max(Values))} of
        {Same, Same} -> Same;
        {Lo, Hi} -> [string:trim(Lo, trailing, "%"), "-", Hi]
    end.

%% With `memory => true': the runner's cost per call (see erlperf_cost).
-spec cost_line(view(), run()) -> unicode:chardata().
cost_line(View, #{?BYTES_PER_ITERATION := B, ?REDUCTIONS_PER_ITERATION := Reds,
                  <<"cpu_ns_per_iteration">> := Cpu, <<"wall_ns_per_iteration">> := Wall} = R) ->
    io_lib:format("~ts: ~s, ~s reductions, ~s CPU / ~s wall per call~n",
                  [name(View, R), cost_bytes(B), erlperf_units:number(Reds), erlperf_units:time(Cpu),
                   erlperf_units:time(Wall)]);
cost_line(_View, _R) ->
    [].

cost_bytes(null) -> "unknown bytes (collections in every batch)";
cost_bytes(Bytes) -> erlperf_units:number(Bytes) ++ " bytes".

%%--------------------------------------------------------------------
%% Internal functions: latency and profiles

%% With `latency => true': each runner's calls timed one by one (see erlperf_latency),
%% in the columns Benchee users know, and a note for a call that never returned.
-spec latency_table(view(), [run()]) -> unicode:chardata().
latency_table(#{names := Names} = View, Runs) ->
    case [R || #{<<"latency_calls">> := _} = R <- Runs] of
        [] ->
            [];
        Timed ->
            %% a sweep's rows are told apart by their parameters
            Rows = [param_cells(R, Names) ++ latency_cells(R) || R <- Timed],
            Columns = param_columns(Names) ++ latency_columns(),
            ["\n", grid("Latency", Columns, {Timed, Rows}, View),
             [io_lib:format("Note: a call of ~ts had not returned when latency timing ended; "
                            "it is not in the figures~n", [label(R)])
              || #{<<"latency_unfinished">> := true} = R <- Timed]]
    end.

-spec latency_columns() -> [column()].
latency_columns() ->
    [{"Calls", 8}, {"ips", 9}, {"Average", 10}, {"Deviation", 11}, {"Median", 10},
     {"P90", 10}, {"P99", 10}, {"P99.9", 10}, {"Max", 10}].

%% The record holds microseconds; the table shows times in their unit.
-spec latency_cells(run()) -> [string()].
latency_cells(#{<<"latency_us">> := null}) ->
    ["0" | lists:duplicate(length(latency_columns()) - 1, "-")];
latency_cells(#{<<"latency_calls">> := Calls, <<"latency_us">> := #{<<"average">> := Avg} = L}) ->
    Ips = case Avg == 0 of
              true -> "-";
              false -> erlperf_units:count(1.0e6 / Avg)
          end,
    Time = fun (K) -> erlperf_units:us(maps:get(K, L)) end,
    [integer_to_list(Calls), Ips, Time(<<"average">>), deviation(L)
     | [Time(K) || K <- ?PERCENTILES]].

%% At a rate (open load): what the pacer offered and achieved, then the response times
%% (from each call's intended start: what a user arriving then waits) and the service
%% times (from its actual start: what the code costs), and notes when calls were
%% skipped or unfinished, or the pacer fell behind.
-spec rate_tables(view(), [run()]) -> unicode:chardata().
rate_tables(#{names := Names} = View, Runs) ->
    Pacing = [{"Rate", 9}, {"Achieved", 10}, {"Workers", 8}, {"Late", 8}, {"Skipped", 8}],
    PacingRows = [param_cells(R, Names) ++ pacing_cells(R) ++ held_cell(R) || R <- Runs],
    Held = [{"Held", 5} || lists:any(fun (#{<<"rate">> := Rate}) -> is_map_key(<<"held">>, Rate) end, Runs)],
    Times = fun (Key) -> [param_cells(R, Names) ++ [erlperf_units:count(T)]
                          ++ rate_time_cells(maps:get(Key, Rate))
                          || #{<<"rate">> := #{<<"target">> := T} = Rate} = R <- Runs]
            end,
    Columns = param_columns(Names) ++ [{"Rate", 9}, {"Calls", 8}, {"Average", 10}, {"Median", 10},
                                       {"P90", 10}, {"P99", 10}, {"P99.9", 10}, {"Max", 10}],
    [grid("Code", param_columns(Names) ++ Pacing ++ Held, {Runs, PacingRows}, View),
     "\nResponse time, from each call's intended start\n",
     grid("Code", Columns, {Runs, Times(<<"response_us">>)}, View),
     "\nService time, from each call's actual start\n",
     grid("Code", Columns, {Runs, Times(<<"service_us">>)}, View),
     [rate_notes(R) || R <- Runs],
     knee_lines(Runs)].

held_cell(#{<<"rate">> := #{<<"held">> := true}}) -> ["yes"];
held_cell(#{<<"rate">> := #{<<"held">> := false}}) -> ["no"];
held_cell(_R) -> [].

%% With objectives: per runner, the highest rate that held them, and the first that did
%% not (which ended the ramp) with what it missed.
knee_lines(Runs) ->
    Labels = lists:usort([label(R) || #{<<"rate">> := #{<<"slo">> := _}} = R <- Runs]),
    [knee_line(L, [R || R <- Runs, label(R) =:= L]) || L <- Labels].

knee_line(Label, [#{<<"rate">> := #{<<"slo">> := Slo, <<"knee">> := Knee}} | _] = Runs) ->
    Objectives = lists:join(", ", [[percentile_name(P), " =< ", erlperf_units:us(Us)]
                                   || #{<<"percentile">> := P, <<"limit_us">> := Us} <- Slo]),
    Held = case Knee of
               null -> "held at no rate tried";
               _ -> io_lib:format("held up to ~ts calls a second (the knee)", [erlperf_units:count(Knee)])
           end,
    Failed = [io_lib:format("; ~ts did not hold (~ts)", [erlperf_units:count(T), missed(Rate)])
              || #{<<"rate">> := #{<<"held">> := false, <<"target">> := T} = Rate} <- Runs],
    io_lib:format("~ts: ~ts ~ts~ts~n", [Label, Objectives, Held, Failed]).

missed(#{<<"missed">> := [], <<"achieved">> := A, <<"skipped">> := S}) ->
    io_lib:format("achieved ~ts a second, ~b skipped", [erlperf_units:count(A), S]);
missed(#{<<"missed">> := Missed}) ->
    lists:join(", ", [[percentile_name(P), " ", case Us of
                                                    null -> "none returned";
                                                    _ -> erlperf_units:us(Us)
                                                end]
                      || #{<<"percentile">> := P, <<"response_us">> := Us} <- Missed]).

percentile_name(P) when P == round(P) -> "p" ++ integer_to_list(round(P));
percentile_name(P) -> "p" ++ erlperf_units:number(P).

pacing_cells(#{<<"rate">> := #{<<"target">> := Target, <<"achieved">> := Achieved,
                               <<"workers">> := Workers, <<"late">> := Late,
                               <<"skipped">> := Skipped}}) ->
    [erlperf_units:count(Target), erlperf_units:count(Achieved), integer_to_list(Workers),
     integer_to_list(Late), integer_to_list(Skipped)].

rate_time_cells(#{<<"count">> := 0}) ->
    ["0", "-", "-", "-", "-", "-", "-"];
rate_time_cells(#{<<"count">> := Count} = Us) ->
    [integer_to_list(Count) | [erlperf_units:us(maps:get(K, Us))
                               || K <- [<<"average">> | ?PERCENTILES]]].

rate_notes(#{<<"rate">> := Rate} = R) ->
    #{<<"behind">> := Behind, <<"unfinished">> := Unfinished, <<"skipped">> := Skipped,
      <<"lateness_us">> := #{?P99 := LateP99}} = Rate,
    [[io_lib:format("Note: the load generator fell behind for ~ts (its own lateness p99 ~ts): "
                    "the load offered was less than the rate; fewer workers, a lower rate or "
                    "another node for the load may help~n",
                    [label(R), erlperf_units:us(LateP99)]) || Behind],
     [io_lib:format("Note: ~b calls of ~ts due during the run never started (no worker was "
                    "free before the end)~n", [Skipped, label(R)]) || Skipped > 0],
     [io_lib:format("Note: ~b calls of ~ts had not returned ~ts after the end; their times "
                    "are not in the figures~n", [Unfinished, label(R), "2 s"]) || Unfinished > 0]].

%% With `profile => Tool': a runner's top functions (see erlperf_profile), under a line
%% naming the tool, how long it watched and what.
-spec profile(run(), map()) -> unicode:chardata().
profile(R, Profile) ->
    ["\n", profile_title(R, Profile), profile_table(Profile)].

profile_title(R, #{<<"tool">> := Tool, <<"duration_ms">> := Ms, <<"workers">> := Workers} = Profile) ->
    Watched = case {Tool, Workers} of
                  {<<"cprof">>, _} -> ", calls in all processes";
                  {_, 1} -> "";
                  {_, N} -> io_lib:format(", ~b workers", [N])
              end,
    Memory = case Profile of
                 #{<<"memory_ms">> := MemoryMs} -> [", then ", erlperf_units:duration(MemoryMs), " for memory"];
                 #{} -> ""
             end,
    io_lib:format("Profile (~ts, ~s~s~s, runner ~ts)~n",
                  [Tool, erlperf_units:duration(Ms), Memory, Watched, label(R)]).

%% cprof counts calls only; the other tools measure own time.
profile_table(#{<<"functions">> := []}) ->
    "No function was called during the profile (the runner blocks, or waits)\n";
profile_table(#{<<"tool">> := <<"cprof">>, <<"functions">> := Functions}) ->
    erlperf_table:columns(["Function", "Calls", "% of calls"],
                          [[Fn, integer_to_list(C), erlperf_units:percent(P)]
                           || #{<<"function">> := Fn, <<"calls">> := C, <<"percent">> := P} <- Functions]);
profile_table(#{<<"memory_ms">> := _, <<"functions">> := Functions}) ->
    erlperf_table:columns(["Function", "Calls", "% of time", "Per call", "Bytes per call"],
                          [function_cells(F) ++ [erlperf_units:number(B)]
                           || #{<<"bytes_per_call">> := B} = F <- Functions]);
profile_table(#{<<"functions">> := Functions}) ->
    erlperf_table:columns(["Function", "Calls", "% of time", "Per call"],
                          [function_cells(F) || F <- Functions]).

function_cells(#{<<"function">> := Fn, <<"calls">> := C, <<"percent">> := P, <<"time_us">> := T}) ->
    [Fn, integer_to_list(C), erlperf_units:percent(P), per_call(T, C)].

per_call(_Us, 0) -> "-";
per_call(Us, Calls) -> erlperf_units:time(Us * 1000 / Calls).

%%--------------------------------------------------------------------
%% Internal functions: names

%% Names as every text output writes them (erlperf_name: one line, never a line that
%% begins with `::').
-spec label(run()) -> string().
label(#{?LABEL := Label}) ->
    erlperf_name:text(Label).

%% The label and, for a run of a sweep, its combination: `lists:seq(1, N). (N=10)'.
-spec name(view(), run()) -> string().
name(#{names := Names}, R) ->
    erlperf_name:text(erlperf_record:run_name(R, Names)).
