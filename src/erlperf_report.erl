%%% @doc Formats full benchmark reports as the text tables the command line prints.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>format</b>: `basic' (Code, concurrency, QPS, Time), `extended' (Code,
%%%       concurrency, Samples, Avg, StdDev, Median, P99, Iteration) or `full' (the
%%%       extended table preceded by `OS', `CPU' and `VM' lines). `auto' picks `extended'
%%%       when any report holds at least `?EXTENDED_FROM_SAMPLES' samples, else `basic'.</li>
%%%   <li><b>score</b>: what rows are ranked by: the average sample (iterations per sample
%%%       duration) in continuous and concurrency mode, the inverse of the average sample
%%%       time in timed mode. Rows are
%%%       sorted by score, highest first; with more than one row the `Rel' column shows
%%%       each score relative to the highest (100%).</li>
%%% </ul>
%%%
%%% Numbers keep at most five digits before a unit: counts use `Ki', `Mi', `Gi' (powers
%%% of 1000), times use `ns', `us', `ms', `s', sizes `Kb', `Mb', `Gb' (powers of 1024).
%%% The VM logs (`erlperf_file_log', `erlperf_cluster_monitor') use the same units.
%%%
%%% Example:
%%% ```
%%% Report = erlperf:benchmark([#{runner => "rand:uniform()."}], #{report => full}, undefined),
%%% io:put_chars(erlperf_report:format([Report], #{format => auto})).
%%% '''
%%% This module is pure: it returns iodata and performs no I/O.
-module(erlperf_report).

%% API, called by erlperf_cli
-export([format/2, resolve_format/2, format_count/1, format_time/1, format_size/1]).

-export_type([format/0, options/0]).

-type format() :: basic | extended | full.
-type options() :: #{format => format() | auto,       % [auto]
                     width => pos_integer() | infinity, % terminal width [infinity]
                     colour => boolean()}.             % ANSI bold header [false]

%% Reports with at least this many samples default to the extended format.
-define(EXTENDED_FROM_SAMPLES, 10).
%% A number is scaled to the next unit once it reaches this many (keeps 5 digits).
-define(SCALE_LIMIT, 100000).
%% Times below this many nanoseconds are printed with one decimal.
-define(DECIMAL_BELOW_NS, 10).
%% The Code column is never cut narrower than this, whatever the terminal width.
-define(MIN_CODE_WIDTH, 12).
%% Width of the concurrency column ("||"): basic and extended tables.
-define(BASIC_CONC_WIDTH, 11).
-define(EXTENDED_CONC_WIDTH, 7).

-define(TIMER_NOTE, "Timer accuracy problem detected, results may be inaccurate").
-define(BOLD, "\e[1m").
-define(RESET, "\e[0m").

-type report() :: map().
-type column() :: {Header :: string(), MinWidth :: non_neg_integer()}.

%%--------------------------------------------------------------------
%% API

%% @doc Formats full reports (as returned with `report => full') into a table.
-spec format([report()], options()) -> iodata().
format([], _Options) ->
    [];
format(Reports, Options) ->
    Format = resolve_format(maps:get(format, Options, auto), Reports),
    Sorted = sort_by_score(Reports),
    [system_lines(Format, hd(Reports)),
     timer_note(Reports),
     table(Format, Sorted, Options),
     dead_code_notes(Sorted),
     overdue_notes(Sorted)].

%% @doc Resolves `auto' to `basic' or `extended' from the number of samples collected.
-spec resolve_format(format() | auto, [report()]) -> format().
resolve_format(auto, Reports) ->
    Counts = [length(maps:get(values, Result, [])) || #{result := Result} <- Reports],
    case lists:max([0 | Counts]) >= ?EXTENDED_FROM_SAMPLES of
        true -> extended;
        false -> basic
    end;
resolve_format(Format, _Reports) ->
    Format.

%% @doc Formats a count: `64021', `241 Ki', `53893 Ki', `120 Mi'.
-spec format_count(number()) -> string().
format_count(N) ->
    scale(N, 1, 1000, ["", " Ki", " Mi", " Gi", " Ti"]).

%% @doc Formats nanoseconds: `57 ns', `4129 ns', `707 us', `554 ms', `200 s'.
-spec format_time(number()) -> string().
format_time(Ns) when Ns < ?DECIMAL_BELOW_NS, Ns > 0, Ns /= round(Ns) ->
    float_to_list(Ns / 1, [{decimals, 1}]) ++ " ns";
format_time(Ns) ->
    scale(Ns, 1, 1000, [" ns", " us", " ms", " s"]).

%% @doc Formats bytes in powers of 1024: `24737 Kb', `512 Mb', `3 Gb'.
-spec format_size(number()) -> string().
format_size(Bytes) ->
    scale(Bytes, 1024, 1024, [" Kb", " Mb", " Gb", " Tb"]).

%%--------------------------------------------------------------------
%% Internal functions

%% N / Divisor in the first unit that keeps it under ?SCALE_LIMIT, each unit Step times
%% the previous one.
-spec scale(number(), pos_integer(), pos_integer(), [string()]) -> string().
scale(N, Divisor, _Step, [Unit]) ->
    integer_to_list(round(N / Divisor)) ++ Unit;
scale(N, Divisor, Step, [Unit | Units]) ->
    case abs(round(N / Divisor)) < ?SCALE_LIMIT of
        true -> integer_to_list(round(N / Divisor)) ++ Unit;
        false -> scale(N, Divisor * Step, Step, Units)
    end.

-spec system_lines(format(), report()) -> iodata().
system_lines(full, #{system := System}) ->
    [io_lib:format("~-5s~ts~n", [Name ++ ":", maps:get(Key, System, "unknown")])
     || {Name, Key} <- [{"OS", os_name}, {"CPU", cpu}, {"VM", vm}]] ++ ["\n"];
system_lines(_Format, _Report) ->
    [].

-spec timer_note([report()]) -> iodata().
timer_note(Reports) ->
    case lists:any(fun (R) -> maps:get(sleep, R, sleep) =:= busy_wait end, Reports) of
        true -> [?TIMER_NOTE, "\n\n"];
        false -> []
    end.

-spec dead_code_notes([report()]) -> iodata().
dead_code_notes(Reports) ->
    [io_lib:format("Note: the compiler removed the benchmarked code of ~ts (~s); "
                   "the figures measure an empty loop~n", [label(R), Role])
     || R <- Reports, {dead_code, Role} <- maps:get(warnings, R, [])].

%% Samples that ended while a worker of the job had run far longer than its batches
%% usually take: the runner's cost per call jumped, or it blocked.
-spec overdue_notes([report()]) -> iodata().
overdue_notes(Reports) ->
    [io_lib:format("Note: ~b of ~b samples of ~ts ended while a worker was taking much "
                   "longer than before: its calls are counted when they start~n",
                   [N, length(Values), label(R)])
     || #{result := #{overdue := N, values := Values}} = R <- Reports, N > 0].

-spec table(format(), [report()], options()) -> iodata().
table(Format, Reports, Options) ->
    Columns = columns(Format, length(Reports) > 1),
    Best = score(hd(Reports)),
    Rows = [cells(Format, R, Best, length(Reports) > 1) || R <- Reports],
    Widths = widths(Columns, Rows),
    CodeWidth = code_width(Reports, lists:sum(Widths), maps:get(width, Options, infinity)),
    Header = line(CodeWidth, "Code", [H || {H, _} <- Columns], Widths),
    [bold(Header, maps:get(colour, Options, false)), "\n" |
     [[line(CodeWidth, label(R), Row, Widths), "\n"] || {R, Row} <- lists:zip(Reports, Rows)]].

-spec columns(format(), boolean()) -> [column()].
columns(basic, Rel) ->
    [{"||", ?BASIC_CONC_WIDTH}, {"QPS", 11}, {"Time", 11}] ++ rel_column(Rel, 6);
columns(_Extended, Rel) ->
    [{"||", ?EXTENDED_CONC_WIDTH}, {"Samples", 10}, {"Avg", 10}, {"StdDev", 9},
     {"Median", 10}, {"P99", 9}, {"Iteration", 11}] ++ rel_column(Rel, 7).

-spec rel_column(boolean(), pos_integer()) -> [column()].
rel_column(true, Width) -> [{"Rel", Width}];
rel_column(false, _Width) -> [].

%% Each column is as wide as its nominal width, or its widest cell plus a space.
-spec widths([column()], [[string()]]) -> [pos_integer()].
widths(Columns, Rows) ->
    [lists:max([Min, length(H) + 1 | [length(lists:nth(I, Row)) + 1 || Row <- Rows]])
     || {I, {H, Min}} <- lists:zip(lists:seq(1, length(Columns)), Columns)].

-spec cells(format(), report(), float(), boolean()) -> [string()].
cells(basic, R, Best, Rel) ->
    [concurrency(R), format_count(qps(R)), time_cell(R)]
        ++ rel_cell(Rel, R, Best);
cells(_Extended, #{result := Result} = R, Best, Rel) ->
    Value = value_formatter(R),
    [concurrency(R), integer_to_list(length(maps:get(values, Result))),
     Value(maps:get(average, Result)), stddev(Result),
     Value(maps:get(median, Result)), Value(maps:get(p99, Result)),
     time_cell(R)] ++ rel_cell(Rel, R, Best).

-spec rel_cell(boolean(), report(), float()) -> [string()].
rel_cell(false, _R, _Best) -> [];
rel_cell(true, _R, Best) when Best == 0 -> ["-"];
rel_cell(true, R, Best) -> [integer_to_list(round(100 * score(R) / Best)) ++ "%"].

%% Timed-mode samples are microseconds per sample; continuous ones are iteration counts.
-spec value_formatter(report()) -> fun((number()) -> string()).
value_formatter(#{mode := timed}) -> fun (Us) -> format_time(Us * 1000) end;
value_formatter(_Report) -> fun format_count/1.

-spec stddev(map()) -> string().
stddev(#{average := Avg}) when Avg == 0 -> "-";
stddev(#{average := Avg, stddev := StdDev}) ->
    float_to_list(100 * StdDev / Avg, [{decimals, 2}]) ++ "%".

-spec concurrency(report()) -> string().
concurrency(R) -> integer_to_list(maps:get(concurrency, R, 1)).

%% `infinity' when no iteration completed (the engine reports no finite time then).
-spec iteration_time(report()) -> number() | infinity.
iteration_time(#{result := Result}) -> maps:get(iteration_time, Result, infinity).

-spec time_cell(report()) -> string().
time_cell(R) ->
    case iteration_time(R) of
        infinity -> "-";
        Ns -> format_time(Ns)
    end.

%% Iterations per sample duration for the whole job (timed mode: per second).
-spec qps(report()) -> float().
qps(#{mode := timed} = R) ->
    case iteration_time(R) of
        T when T == infinity; T == 0 -> 0.0;
        T -> 1.0e9 / T
    end;
qps(#{result := #{average := Avg}}) ->
    float(Avg).

%% What rows are ranked by: throughput, or the inverse of the average time (timed mode).
-spec score(report()) -> float().
score(#{mode := timed, result := #{average := Avg}}) when Avg == 0 -> 0.0;
score(#{mode := timed, result := #{average := Avg}}) -> 1.0 / Avg;
score(R) -> qps(R).

-spec sort_by_score([report()]) -> [report()].
sort_by_score(Reports) ->
    lists:sort(fun (A, B) -> score(A) >= score(B) end, Reports).

-spec label(report()) -> string().
label(R) ->
    Text = unicode:characters_to_list(maps:get(label, R, <<>>)),
    [printable(C) || C <- Text].

-spec printable(char()) -> char().
printable(C) when C < $\s -> $\s;
printable(C) -> C.

%% The Code column fits the longest label, cut so the line fits the terminal.
-spec code_width([report()], non_neg_integer(), pos_integer() | infinity) -> pos_integer().
code_width(Reports, Rest, Width) ->
    Longest = lists:max([length("Code") | [length(label(R)) || R <- Reports]]),
    case Width of
        infinity -> Longest;
        _ -> max(min(Longest, Width - Rest), min(Longest, ?MIN_CODE_WIDTH))
    end.

-spec line(pos_integer(), string(), [string()], [pos_integer()]) -> string().
line(CodeWidth, Code, Cells, Widths) ->
    Cut = slice(Code, CodeWidth),
    Padded = Cut ++ lists:duplicate(CodeWidth - text_length(Cut), $\s),
    lists:append([Padded | [right(Cell, W) || {Cell, W} <- lists:zip(Cells, Widths)]]).

%% ASCII text is cut and measured by hand; the string module (grapheme clusters) is
%% loaded only for other text, as its Unicode tables take a while to load.
-spec slice(string(), non_neg_integer()) -> string().
slice(Text, Width) ->
    case is_ascii(Text) of
        true -> lists:sublist(Text, Width);
        false -> string:slice(Text, 0, Width)
    end.

-spec text_length(string()) -> non_neg_integer().
text_length(Text) ->
    case is_ascii(Text) of
        true -> length(Text);
        false -> string:length(Text)
    end.

-spec is_ascii(string()) -> boolean().
is_ascii(Text) ->
    lists:all(fun (C) -> is_integer(C) andalso C < 128 end, Text).

-spec right(string(), pos_integer()) -> string().
right(Text, Width) ->
    lists:duplicate(max(0, Width - length(Text)), $\s) ++ Text.

-spec bold(string(), boolean()) -> iodata().
bold(Text, true) -> [?BOLD, Text, ?RESET];
bold(Text, false) -> Text.
