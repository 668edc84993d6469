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
%%%   <li><b>sweep table</b>: reports of a parameter sweep ({@link erlperf_sweep}) keep
%%%       their order (combination by combination, runners in the order given); a column
%%%       per parameter follows `Code', `Bytes/s' follows the time when bytes were given,
%%%       `Rel' is relative to the best run (by bytes per second when given) and the
%%%       `Best' column marks it with `*'. Verdict and note lines name the combination:
%%%       `lists:seq(1, N). (N=10)'.</li>
%%% </ul>
%%%
%%% Numbers keep at most five digits before a unit: counts use `Ki', `Mi', `Gi' (powers
%%% of 1000), times use `ns', `us', `ms', `s', sizes `Kb', `Mb', `Gb' (powers of 1024).
%%% Rates of bytes keep three significant digits: `B/s', `KB/s', `MB/s', `GB/s', `TB/s'
%%% (powers of 1000).
%%% The VM logs (`erlperf_file_log', `erlperf_cluster_monitor') use the same units.
%%%
%%% Columns are measured in terminal columns, not characters: East Asian wide and
%%% fullwidth characters take two columns, combining marks none (see `char_width/1').
%%%
%%% Example:
%%% ```
%%% Report = erlperf:benchmark([#{runner => "rand:uniform()."}], #{report => full}, undefined),
%%% io:put_chars(erlperf_report:format([Report], #{format => auto})).
%%% '''
%%% This module is pure: it returns character data (code points above 255 when a label
%%% has them) and performs no I/O.
-module(erlperf_report).

%% API, called by erlperf_cli
-export([format/2, resolve_format/2, columns_text/2]).

-export_type([format/0, options/0]).

-type format() :: basic | extended | full.
-type options() :: #{format => format() | auto,       % [auto]
                     width => pos_integer() | infinity, % terminal width [infinity]
                     colour => boolean()}.             % ANSI bold header [false]

%% Reports with at least this many samples default to the extended format.
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

-define(TIMER_NOTE, "Timer accuracy problem detected, results may be inaccurate").
%% Runners sampled in parallel and found significantly different by less than this many
%% percent get a note: on a shared machine, the CPUs that ran them can differ that much.
-define(PARALLEL_DOUBT_PCT, 5).
-define(PARALLEL_NOTE, "Note: these runners ran in parallel, each on its own CPU, and CPUs of one "
        "machine can run a few percent apart for a whole run; to tell such a difference from the "
        "code's, compare them taking turns: --compare interleaved -d 50 -s 100~n").

-define(BOLD, "\e[1m").
-define(RESET, "\e[0m").

-type report() :: map().
-type column() :: {Header :: string(), MinWidth :: non_neg_integer()}.

%%--------------------------------------------------------------------
%% API

%% @doc Formats full reports (as returned with `report => full') into a table. The
%% result is character data: labels outside Latin-1 stay Unicode code points, so write
%% it with `io:put_chars/1' or convert it with `unicode:characters_to_binary/1'.
-spec format([report()], options()) -> unicode:chardata().
format([], _Options) ->
    [];
format(Reports, Options) ->
    Format = resolve_format(maps:get(format, Options, auto), Reports),
    Sorted = case is_sweep(Reports) of
                 true -> Reports;
                 false -> sort_by_score(Reports)
             end,
    [system_lines(Format, hd(Reports)),
     timer_note(Reports),
     table(Format, Sorted, Options),
     verdicts(Format, Sorted),
     search_lines(Sorted),
     dead_code_notes(Sorted),
     overdue_notes(Sorted),
     cost_lines(Sorted),
     latency_table(Sorted, Options),
     profile_lines(Sorted)].

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

%%--------------------------------------------------------------------
%% Internal functions

-spec system_lines(format(), report()) -> unicode:chardata().
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

-spec dead_code_notes([report()]) -> unicode:chardata().
dead_code_notes(Reports) ->
    [io_lib:format("Note: the compiler removed the benchmarked code of ~ts (~s); "
                   "the figures measure an empty loop~n", [name(R), Role])
     || R <- Reports, {dead_code, Role} <- maps:get(warnings, R, [])].

%% Extended and full tables: each runner against the fastest, with its interval.
-spec verdicts(format(), [report()]) -> unicode:chardata().
verdicts(basic, _Reports) ->
    [];
verdicts(_Format, Reports) ->
    [[io_lib:format("~ts against ~ts: ~ts~n",
                    [label(R), name(R#{label => Against}), verdict_text(C)])
      || #{comparison := #{against := Against} = C} = R <- Reports],
     parallel_note(Reports)].

%% A small significant difference between runners sampled in parallel may be the CPUs'.
-spec parallel_note([report()]) -> iodata().
parallel_note(Reports) ->
    Doubtful = [R || #{run_options := #{compare := parallel},
                       comparison := #{significant := true, test := paired, change_pct := Change}} = R
                         <- Reports, is_number(Change), abs(Change) < ?PARALLEL_DOUBT_PCT],
    case Doubtful of
        [] -> [];
        _ -> io_lib:format(?PARALLEL_NOTE, [])
    end.

%% Concurrency estimation: the best step, when it is not the one reported.
-spec search_lines([report()]) -> unicode:chardata().
search_lines(Reports) ->
    [io_lib:format("~ts: highest throughput at concurrency ~b (~ts), not significantly above "
                   "concurrency ~b~n", [label(R), Best, erlperf_units:count(qps_of(Best, R)), C])
     || #{mode := concurrency, concurrency := C, best_concurrency := Best} = R <- Reports,
        Best =/= C].

qps_of(Concurrency, #{history := History, run_options := #{sample_duration := Ms}}) ->
    {Concurrency, #{average := Avg}} = lists:keyfind(Concurrency, 1, History),
    Avg * 1000 / Ms.

-spec verdict_text(map()) -> iodata().
verdict_text(Comparison) ->
    erlperf_stat:verdict_text(maps:remove(against, Comparison)).

%% Samples that ended while a worker of the job had run far longer than its batches
%% usually take: the runner's cost per call jumped, or it blocked.
-spec overdue_notes([report()]) -> unicode:chardata().
overdue_notes(Reports) ->
    [io_lib:format("Note: ~b of ~b samples of ~ts ended while a worker had been in one call "
                   "far longer than expected (calls are counted when they start)~n",
                   [N, length(Values), name(R)])
     || #{result := #{overdue := N, values := Values}} = R <- Reports, N > 0].

%% With `memory => true': each runner's cost per call (see erlperf_cost).
-spec cost_lines([report()]) -> unicode:chardata().
cost_lines(Reports) ->
    [io_lib:format("~ts: ~s, ~s reductions, ~s CPU / ~s wall per call~n",
                   [name(R), cost_bytes(B), erlperf_units:number(Reds), erlperf_units:time(Cpu), erlperf_units:time(Wall)])
     || #{result := #{cost := #{bytes_per_iteration := B, reductions_per_iteration := Reds,
                                cpu_ns_per_iteration := Cpu, wall_ns_per_iteration := Wall}}} = R
            <- Reports].

%% With `latency => true': each runner's calls timed one by one (see erlperf_latency),
%% in the columns Benchee users know, and a note for a call that never returned.
-spec latency_table([report()], options()) -> unicode:chardata().
latency_table(Reports, Options) ->
    case [R || #{result := #{latency := _}} = R <- Reports] of
        [] ->
            [];
        Timed ->
            %% a sweep's rows are told apart by their parameters
            Rows = [param_cells(R) ++ latency_cells(L) || #{result := #{latency := L}} = R <- Timed],
            Columns = param_columns(Timed) ++ latency_columns(),
            ["\n", grid("Latency", Columns, {Timed, Rows}, Options),
             [io_lib:format("Note: a call of ~ts had not returned when latency timing ended; "
                            "it is not in the figures~n", [label(R)])
              || #{result := #{latency := #{unfinished := true}}} = R <- Timed]]
    end.

-spec latency_columns() -> [column()].
latency_columns() ->
    [{"Calls", 8}, {"ips", 9}, {"Average", 10}, {"Deviation", 11}, {"Median", 10},
     {"P90", 10}, {"P99", 10}, {"P99.9", 10}, {"Max", 10}].

-spec latency_cells(map()) -> [string()].
latency_cells(#{calls := 0}) ->
    ["0" | lists:duplicate(length(latency_columns()) - 1, "-")];
latency_cells(#{calls := Calls, average := Avg} = L) ->
    Ips = case Avg == 0 of
              true -> "-";
              false -> erlperf_units:count(1.0e9 / Avg)
          end,
    [integer_to_list(Calls), Ips, erlperf_units:time(Avg), stddev(L)
     | [erlperf_units:time(maps:get(K, L)) || K <- [p50, p90, p99, p999, max]]].

cost_bytes(undefined) -> "unknown bytes (collections in every batch)";
cost_bytes(Bytes) -> erlperf_units:number(Bytes) ++ " bytes".

%% With `profile => Tool': each runner's top functions (see erlperf_profile), a table
%% per runner under a line naming the tool, how long it watched and what.
-spec profile_lines([report()]) -> unicode:chardata().
profile_lines(Reports) ->
    [["\n", profile_title(R, Profile), profile_table(Profile)]
     || #{profile := Profile} = R <- Reports].

profile_title(R, #{tool := Tool, duration_ms := Ms, workers := Workers} = Profile) ->
    Watched = case {Tool, Workers} of
                  {cprof, _} -> ", calls in all processes";
                  {_, 1} -> "";
                  {_, N} -> io_lib:format(", ~b workers", [N])
              end,
    Memory = case Profile of
                 #{memory_ms := MemoryMs} -> [", then ", profile_duration(MemoryMs), " for memory"];
                 #{} -> ""
             end,
    io_lib:format("Profile (~s, ~s~s~s, runner ~ts)~n",
                  [Tool, profile_duration(Ms), Memory, Watched, label(R)]).

profile_duration(Ms) when Ms rem 1000 =:= 0 -> integer_to_list(Ms div 1000) ++ " s";
profile_duration(Ms) -> integer_to_list(Ms) ++ " ms".

%% cprof counts calls only; the other tools measure own time.
profile_table(#{functions := []}) ->
    "No function was called during the profile (the runner blocks, or waits)\n";
profile_table(#{tool := cprof, functions := Functions}) ->
    columns_text(["Function", "Calls", "% of calls"],
                 [[erlperf_units:function_name(Fn), integer_to_list(C), erlperf_units:percent(P)]
                  || #{mfa := Fn, calls := C, percent := P} <- Functions]);
profile_table(#{memory_ms := _, functions := Functions}) ->
    columns_text(["Function", "Calls", "% of time", "Per call", "Bytes per call"],
                 [[erlperf_units:function_name(Fn), integer_to_list(C), erlperf_units:percent(P), per_call(T, C),
                   erlperf_units:number(B)]
                  || #{mfa := Fn, calls := C, percent := P, time_us := T, bytes_per_call := B} <- Functions]);
profile_table(#{functions := Functions}) ->
    columns_text(["Function", "Calls", "% of time", "Per call"],
                 [[erlperf_units:function_name(Fn), integer_to_list(C), erlperf_units:percent(P), per_call(T, C)]
                  || #{mfa := Fn, calls := C, percent := P, time_us := T} <- Functions]).

per_call(_Us, 0) -> "-";
per_call(Us, Calls) -> erlperf_units:time(Us * 1000 / Calls).

%% @doc A plain table: the first column left-aligned, the others right-aligned, two
%% spaces apart, a line per row under the header.
-spec columns_text([unicode:chardata()], [[unicode:chardata()]]) -> unicode:chardata().
columns_text(Header, Rows) ->
    Widths = [lists:max([text_width(lists:nth(I, Row)) || Row <- [Header | Rows]])
              || I <- lists:seq(1, length(Header))],
    [[columns_line(Row, Widths), "\n"] || Row <- [Header | Rows]].

columns_line([First | Rest], [W | Ws]) ->
    [First, lists:duplicate(W - text_width(First), $\s)
     | [["  ", right(Cell, Width)] || {Cell, Width} <- lists:zip(Rest, Ws)]].


-spec table(format(), [report()], options()) -> unicode:chardata().
table(Format, Reports, Options) ->
    Rel = length(Reports) > 1,
    Columns = param_columns(Reports) ++ columns(Format, Rel) ++ sweep_columns(Reports),
    Best = lists:max([rank(R) || R <- Reports]),
    Rows = [param_cells(R) ++ cells(Format, R, Best, Rel) ++ sweep_cells(Reports, R) || R <- Reports],
    grid("Code", Columns, {Reports, Rows}, Options).

%% A header line, then a line per report: its label, then its cells.
-spec grid(string(), [column()], {[report()], [[string()]]}, options()) -> unicode:chardata().
grid(First, Columns, {Reports, Rows}, Options) ->
    Widths = widths(Columns, Rows),
    CodeWidth = code_width(First, Reports, lists:sum(Widths), maps:get(width, Options, infinity)),
    Header = line(CodeWidth, First, [H || {H, _} <- Columns], Widths),
    [bold(Header, maps:get(colour, Options, false)), "\n" |
     [[line(CodeWidth, label(R), Row, Widths), "\n"] || {R, Row} <- lists:zip(Reports, Rows)]].

-spec columns(format(), boolean()) -> [column()].
columns(basic, Rel) ->
    [{"||", ?BASIC_CONC_WIDTH}, {"QPS", 11}, {"Time", 11}] ++ rel_column(Rel, 6);
columns(_Extended, Rel) ->
    [{"||", ?EXTENDED_CONC_WIDTH}, {"Samples", 10}, {"Avg", 10}, {"StdDev", 9},
     {"Median", 10}, {"P99", 9}, {"Iteration", 11}] ++ rel_column(Rel, 7).

%% Sweeps: a column per parameter after Code (their names come from the first report:
%% every report of a sweep has the same), Bytes/s with bytes, and the Best marker.
-spec param_columns([report()]) -> [column()].
param_columns([#{params := Params} | _]) -> [{atom_to_list(N), ?PARAM_WIDTH} || {N, _} <- Params];
param_columns(_Reports) -> [].

-spec param_cells(report()) -> [string()].
param_cells(#{params := Params}) ->
    [erlperf_units:value(V) || {_, V} <- Params];
param_cells(_Report) ->
    [].

-spec sweep_columns([report()]) -> [column()].
sweep_columns(Reports) ->
    [{"Bytes/s", ?RATE_WIDTH} || lists:any(fun (R) -> is_map_key(bytes_per_second, R) end, Reports)]
        ++ [{"Best", 5} || is_sweep(Reports)].

-spec sweep_cells([report()], report()) -> [string()].
sweep_cells(Reports, R) ->
    [case R of
         #{bytes_per_second := Bps} -> erlperf_units:rate(Bps);
         #{} -> "-"
     end || lists:any(fun (Any) -> is_map_key(bytes_per_second, Any) end, Reports)]
        ++ [case R of
                #{best := true} -> "*";
                #{} -> ""
            end || is_sweep(Reports)].

-spec is_sweep([report()]) -> boolean().
is_sweep(Reports) ->
    lists:any(fun (R) -> is_map_key(params, R) end, Reports).

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
    [concurrency(R), erlperf_units:count(qps(R)), time_cell(R)]
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
rel_cell(true, R, Best) -> [integer_to_list(round(100 * rank(R) / Best)) ++ "%"].

%% Timed-mode samples are microseconds per sample; continuous ones are iteration counts.
-spec value_formatter(report()) -> fun((number()) -> string()).
value_formatter(#{mode := timed}) -> fun (Us) -> erlperf_units:time(Us * 1000) end;
value_formatter(_Report) -> fun erlperf_units:count/1.

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
        Ns -> erlperf_units:time(Ns)
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

%% What Rel and the Best marker compare: bytes per second when a sweep has them, else
%% the score.
-spec rank(report()) -> float().
rank(#{bytes_per_second := BytesPerSecond}) -> float(BytesPerSecond);
rank(R) -> score(R).

-spec sort_by_score([report()]) -> [report()].
sort_by_score(Reports) ->
    lists:sort(fun (A, B) -> score(A) >= score(B) end, Reports).

-spec label(report()) -> string().
label(R) ->
    Text = unicode:characters_to_list(maps:get(label, R, <<>>)),
    [printable(C) || C <- Text].

%% The label and, for a run of a sweep, its combination: `lists:seq(1, N). (N=10)'.
-spec name(report()) -> string().
name(#{params := [_ | _] = Params} = R) -> label(R) ++ " (" ++ erlperf_units:combination(Params) ++ ")";
name(R) -> label(R).

-spec printable(char()) -> char().
printable(C) when C < $\s -> $\s;
printable(C) -> C.

%% The Code column fits the longest label, cut so the line fits the terminal.
-spec code_width(string(), [report()], non_neg_integer(), pos_integer() | infinity) -> pos_integer().
code_width(First, Reports, Rest, Width) ->
    Longest = lists:max([length(First) | [text_width(label(R)) || R <- Reports]]),
    case Width of
        infinity -> Longest;
        _ -> max(min(Longest, Width - Rest), min(Longest, ?MIN_CODE_WIDTH))
    end.

-spec line(pos_integer(), string(), [string()], [pos_integer()]) -> string().
line(CodeWidth, Code, Cells, Widths) ->
    Cut = slice(Code, CodeWidth),
    Padded = Cut ++ lists:duplicate(CodeWidth - text_width(Cut), $\s),
    Line = lists:append([Padded | [right(Cell, W) || {Cell, W} <- lists:zip(Cells, Widths)]]),
    %% an empty last cell (the Best column) leaves no trailing spaces
    lists:reverse(lists:dropwhile(fun (C) -> C =:= $\s end, lists:reverse(Line))).

%% Text cut to at most Width terminal columns. A wide character that does not fit is
%% left out whole (the line is padded instead); combining marks stay with the
%% character before them. ASCII text (one column a character) takes the fast path.
-spec slice(string(), non_neg_integer()) -> string().
slice(Text, Width) ->
    case is_ascii(Text) of
        true -> lists:sublist(Text, Width);
        false -> slice_wide(Text, Width)
    end.

-spec slice_wide(string(), non_neg_integer()) -> string().
slice_wide([C | Rest], Width) ->
    case char_width(C) of
        W when W =< Width -> [C | slice_wide(Rest, Width - W)];
        _TooWide -> []
    end;
slice_wide([], _Width) ->
    [].

%% How many terminal columns Text takes.
-spec text_width(string()) -> non_neg_integer().
text_width(Text) ->
    case is_ascii(Text) of
        true -> length(Text);
        false -> lists:sum([char_width(C) || C <- Text])
    end.

%% Terminal columns of one code point: 0 for combining marks and zero-width
%% characters, 2 for East Asian wide and fullwidth characters (Unicode's
%% EastAsianWidth.txt W and F, main blocks only), 1 for the rest. An approximation of
%% wcwidth(3) that needs no Unicode tables (the string module's take a while to load,
%% and it counts grapheme clusters, not columns).
-spec char_width(char()) -> 0..2.
char_width(C) when C < 16#300 -> 1;
char_width(C) when C =< 16#36F -> 0;                       % combining diacritical marks
char_width(C) when C >= 16#483, C =< 16#489 -> 0;          % combining Cyrillic
char_width(C) when C >= 16#1100, C =< 16#115F -> 2;        % Hangul Jamo leading consonants
char_width(C) when C >= 16#1160, C =< 16#11FF -> 0;        % Hangul Jamo vowels and finals
char_width(C) when C >= 16#1AB0, C =< 16#1AFF -> 0;        % combining marks extended
char_width(C) when C >= 16#1DC0, C =< 16#1DFF -> 0;        % combining marks supplement
char_width(C) when C >= 16#200B, C =< 16#200F -> 0;        % zero width space, joiners, marks
char_width(C) when C >= 16#20D0, C =< 16#20FF -> 0;        % combining marks for symbols
char_width(C) when C >= 16#3099, C =< 16#309A -> 0;        % combining kana voiced marks
char_width(C) when C >= 16#2E80, C =< 16#303E -> 2;        % CJK radicals, symbols, punctuation
char_width(C) when C >= 16#3041, C =< 16#4DBF -> 2;        % kana, Bopomofo, CJK extension A
char_width(C) when C >= 16#4E00, C =< 16#A4CF -> 2;        % CJK unified ideographs, Yi
char_width(C) when C >= 16#A960, C =< 16#A97F -> 2;        % Hangul Jamo extended A
char_width(C) when C >= 16#AC00, C =< 16#D7A3 -> 2;        % Hangul syllables
char_width(C) when C >= 16#F900, C =< 16#FAFF -> 2;        % CJK compatibility ideographs
char_width(C) when C >= 16#FE00, C =< 16#FE0F -> 0;        % variation selectors
char_width(C) when C >= 16#FE10, C =< 16#FE19 -> 2;        % vertical forms
char_width(C) when C >= 16#FE20, C =< 16#FE2F -> 0;        % combining half marks
char_width(C) when C >= 16#FE30, C =< 16#FE6F -> 2;        % CJK compatibility, small forms
char_width(C) when C >= 16#FF00, C =< 16#FF60 -> 2;        % fullwidth forms
char_width(C) when C >= 16#FFE0, C =< 16#FFE6 -> 2;        % fullwidth signs
char_width(C) when C >= 16#1F300, C =< 16#1F64F -> 2;      % pictographs, emoticons
char_width(C) when C >= 16#1F900, C =< 16#1F9FF -> 2;      % supplemental pictographs
char_width(C) when C >= 16#20000, C =< 16#3FFFD -> 2;      % CJK extensions B and later
char_width(_C) -> 1.

-spec is_ascii(string()) -> boolean().
is_ascii(Text) ->
    lists:all(fun (C) -> is_integer(C) andalso C < 128 end, Text).

-spec right(string(), pos_integer()) -> string().
right(Text, Width) ->
    lists:duplicate(max(0, Width - length(Text)), $\s) ++ Text.

-spec bold(string(), boolean()) -> unicode:chardata().
bold(Text, true) -> [?BOLD, Text, ?RESET];
bold(Text, false) -> Text.
