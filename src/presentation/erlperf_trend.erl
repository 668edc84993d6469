%%% @doc The history of a project's benchmarks, drawn from the runs a store keeps: each
%%% benchmark's throughput over the runs and the steps found in it, as one self-contained
%%% HTML page, as text for a terminal, as Markdown, as CSV, or as JSON. Pure: returns iodata or character
%%% data; the caller reads the store and finds the steps.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>store</b>: where the runs of a project are kept (a directory); the history
%%%       names it, and counts its <b>runs</b>, numbered from 1, oldest first.</li>
%%%   <li><b>point</b>: one benchmark's throughput in one run (iterations per second),
%%%       with its 95% interval when the run had one, the run's time, commit and OTP
%%%       release. A benchmark need not be in every run: its points are the runs it is in,
%%%       in order.</li>
%%%   <li><b>short commit</b>: what a point is labelled by: the commit's first 7
%%%       characters, with `+' when the working tree had uncommitted changes; the date
%%%       (`2026-11-25') when the run was not made in a git checkout.</li>
%%%   <li><b>step</b>: a lasting change of a benchmark's throughput, found by the caller:
%%%       the points before it and from its point `at' (a 1-based index into that
%%%       benchmark's points) on differ by `change_pct' percent, with a 95% interval and
%%%       a p-value.</li>
%%%   <li><b>change</b>: a point's throughput against the benchmark's previous point, in
%%%       percent.</li>
%%% </ul>
%%%
%%% The page, in order: a summary (the store, runs, benchmarks and steps found, a row per
%%% benchmark, and every step); then per benchmark a chart of throughput over the runs
%%% (x: runs, labelled by short commit; whiskers: 95% intervals; a dashed line at each
%%% step, labelled with its change and interval, red for slower, green for faster) and a
%%% table of the runs (run, time, commit, OTP, throughput, interval, change, step). A
%%% chart shows at most the latest 120 points and a table the latest 30 (the text too),
%%% so that a long history stays a page of reasonable size; the page says so
%%% when it leaves points out, and the summary lists every step. Every piece of text from
%%% the history (names, commits, times, the store) is written by {@link erlperf_name}: in
%%% text, Markdown and CSV one with a control character, a byte that is not UTF-8 or a
%%% leading `::' is quoted with visible escapes (`"a\xFFb"'); in the page and JSON bytes
%%% that are not UTF-8 show as U+FFFD.
%%%
%%% Input is checked before anything is drawn: a history that is not of the documented
%%% shape (a missing key, a value of the wrong type, a run outside `1..runs', points not in
%%% increasing order of run, a step whose `at' is not in `2..length(points)') is a
%%% programmer's error, `erlang:error({invalid_history, What})' (see `invalid()').
%%%
%%% Example:
%%% ```
%%% Point = fun (Run, Qps) ->
%%%                 #{run => Run, time => <<"2026-11-25T08:00:00Z">>,
%%%                   commit => <<"0123456789abcdef">>, dirty => false, otp => <<"25">>,
%%%                   value => Qps, low => Qps * 0.98, high => Qps * 1.02, interval => forks}
%%%         end,
%%% History = #{store => <<"bench/history">>, runs => 3,
%%%             benchmarks => [#{name => <<"rand:uniform().">>,
%%%                              points => [Point(1, 1.0e7), Point(2, 1.0e7), Point(3, 9.0e6)],
%%%                              steps => [#{at => 3, before => 1.0e7, 'after' => 9.0e6,
%%%                                          change_pct => -10.0, ci_pct => {-12.0, -8.0},
%%%                                          p => 0.001}]}]},
%%% ok = file:write_file("history.html", erlperf_trend:html(History)),
%%% io:put_chars(erlperf_trend:text(History)).
%%% '''
-module(erlperf_trend).

%% API: called by the command line (`erlperf --history').
-export([html/1, text/1, markdown/1, csv/1, json/1]).

-export_type([history/0, benchmark/0, point/0, step/0, invalid/0]).

-type point() :: #{run := pos_integer(),               % 1-based index of the stored run
                   time := binary(),                   % RFC 3339 UTC
                   commit := binary() | undefined,     % full git SHA; undefined outside git
                   dirty := boolean(),                 % the working tree had changes
                   otp := binary(),                    % <<"25">>
                   value := number(),                  % iterations per second
                   low := number() | undefined,        % its 95% interval
                   high := number() | undefined,
                   interval := forks | single_run,     % what the interval knows
                   %% exact counts per call, and the host's load (0..1), when the run has them
                   bytes => number() | undefined,
                   reductions => number() | undefined,
                   load => number() | undefined}.
%% `at': the 1-based index into the benchmark's points of the first point after the step.
-type step() :: #{at := pos_integer(), before := number(), 'after' := number(),
                  change_pct := number(), ci_pct := {number(), number()}, p := number()}.
-type benchmark() :: #{name := binary(), points := [point()], steps := [step()]}.
-type history() :: #{store := binary(), runs := non_neg_integer(), benchmarks := [benchmark()]}.
%% What is wrong with a history: `{history, H}' (its own keys), `{benchmark, B}',
%% `{point, Name, P}', `{order, Name, Runs}' (points not in increasing order of run, or a
%% run above the history's `runs'), `{step, Name, S}'.
-type invalid() :: {history, term()} | {benchmark, term()} | {point, binary(), term()}
                 | {order, binary(), [term()]} | {step, binary(), term()}.

%% The layout of the JSON document (its `version' key).
-define(VERSION, 1).
%% The most points a chart draws (the latest ones): about 7 pixels a run across the chart.
-define(CHART_POINTS, 120).
%% The most runs a table of runs lists (the latest ones), on the page and in the text.
-define(TABLE_ROWS, 30).
%% Width of a chart, pixels (the page is at most 1100 wide).
-define(CHART_WIDTH, 860).
%% Pixels of the chart's plot (its width less the axis' margins), of a character of a
%% tick label, and between two labels: how many labels the x axis has room for.
-define(PLOT_WIDTH, 760).
-define(CHAR_WIDTH, 6.5).
-define(LABEL_GAP, 10).
%% The x axis reaches this share of the shown runs' span (half a run at least) beyond
%% the first and the last, so that their whiskers and labels stay inside the chart.
-define(X_PAD, 0.025).
%% Characters of a commit's SHA in a short commit; characters of a date (YYYY-MM-DD).
-define(SHORT_COMMIT, 7).
-define(DATE, 10).

%%--------------------------------------------------------------------
%% API

%% @doc One self-contained HTML page: summary, then a chart and a table per benchmark.
-spec html(history()) -> iodata().
html(History) ->
    #{benchmarks := Benchmarks} = check(History),
    Numbered = lists:zip(lists:seq(1, length(Benchmarks)), Benchmarks),
    erlperf_html:page(<<"Benchmark history">>,
                      [summary(History, Numbered) | [benchmark(N, B) || {N, B} <- Numbered]]).

%% @doc Text for a terminal: a line of totals, then per benchmark a table of its latest
%% runs and a line per step (`name: step at run 7 (abc1234): -10.2% (95% CI
%% -12.0..-8.4%)'), or `name: no steps'. Ends with a newline.
-spec text(history()) -> unicode:chardata().
text(History) ->
    #{benchmarks := Benchmarks} = check(History),
    [text_totals(History) | [text_benchmark(B) || B <- Benchmarks]].

%% @doc Markdown: a line of totals, then per benchmark a heading, a table of its latest
%% runs (the text's columns) and a line per step. Ends with a newline.
-spec markdown(history()) -> unicode:chardata().
markdown(History) ->
    #{benchmarks := Benchmarks} = check(History),
    ["## ", text_totals(History) | [markdown_benchmark(B) || B <- Benchmarks]].

%% @doc CSV: a line per point of every benchmark, every run (not only the latest), with
%% the step that starts at it (`step_change_pct', empty elsewhere); numbers unformatted.
-spec csv(history()) -> iodata().
csv(History) ->
    #{benchmarks := Benchmarks} = check(History),
    Header = [<<"benchmark">>, <<"run">>, <<"time">>, <<"commit">>, <<"dirty">>, <<"otp">>,
              <<"qps">>, <<"ci95_lo">>, <<"ci95_hi">>, <<"interval">>, <<"change_pct">>,
              <<"step_change_pct">>, <<"bytes">>, <<"reductions">>, <<"load">>],
    erlperf_csv:table(Header, lists:append([csv_rows(B) || B <- Benchmarks])).

%% @doc The history as a JSON document (`doc/formats.md', History): every point and step,
%% `undefined' as `null', with a `version'. Ends with a newline.
-spec json(history()) -> iodata().
json(History) ->
    #{store := Store, runs := Runs, benchmarks := Benchmarks} = check(History),
    [erlperf_json:encode(#{version => ?VERSION, store => utf8(Store), runs => Runs,
                           benchmarks => [json_benchmark(B) || B <- Benchmarks]},
                         #{pretty => true}), $\n].

%%--------------------------------------------------------------------
%% Internal functions: the page

summary(#{store := Store, runs := Runs, benchmarks := Benchmarks}, Numbered) ->
    Steps = [{N, B, S} || {N, #{steps := Ss} = B} <- Numbered, S <- Ss],
    Totals = erlperf_html:table([<<"Store">>, <<"Runs">>, <<"Benchmarks">>, <<"Steps found">>],
                                [[erlperf_name:text(Store), Runs, length(Benchmarks),
                                  length(Steps)]]),
    erlperf_html:section(<<"Summary">>, [Totals | summary_body(Runs, Numbered, Steps)]).

summary_body(0, _Numbered, _Steps) ->
    [note(<<"The store holds no runs yet: there is no history to show.">>)];
summary_body(_Runs, [], _Steps) ->
    [note(<<"The stored runs hold no benchmarks.">>)];
summary_body(_Runs, Numbered, Steps) ->
    [erlperf_html:table([<<"Benchmark">>, <<"Runs">>, <<"Latest throughput (per second)">>,
                         <<"Steps">>],
                        [overview_row(N, B) || {N, B} <- Numbered]),
     steps_table(Steps)].

overview_row(N, #{name := Name, points := Points, steps := Steps}) ->
    Latest = case Points of
                 [] -> <<"-">>;
                 _ -> erlperf_units:count(maps:get(value, lists:last(Points)))
             end,
    [{raw, anchor_link(N, Name)}, length(Points), Latest, length(Steps)].

steps_table([]) ->
    note(<<"No steps found.">>);
steps_table(Steps) ->
    erlperf_html:table([<<"Benchmark">>, <<"Run">>, <<"Commit">>, <<"Before">>, <<"After">>,
                        <<"Change">>, <<"p">>],
                       [{direction(S), [{raw, anchor_link(N, Name)}, run_of(S, Points),
                                         commit_cell(lists:nth(At, Points)),
                                         erlperf_units:count(Before), erlperf_units:count(After),
                                         change_text(S), erlperf_units:p_value(P)]}
                        || {N, #{name := Name, points := Points},
                            #{at := At, before := Before, 'after' := After, p := P} = S} <- Steps]).

benchmark(N, #{name := Name, points := Points} = B) ->
    Content = case Points of
                  [] -> note(<<"No stored run holds this benchmark.">>);
                  _ -> [window_note(length(Points)), chart(B), runs_table(B)]
              end,
    ["<div id=\"", anchor(N), "\">\n", erlperf_html:section(erlperf_name:text(Name), Content),
     "</div>\n"].

window_note(Count) when Count > ?CHART_POINTS ->
    note(io_lib:format("~b runs: the chart shows the latest ~b, the table the latest ~b; "
                       "the summary lists every step.", [Count, ?CHART_POINTS, ?TABLE_ROWS]));
window_note(Count) when Count > ?TABLE_ROWS ->
    note(io_lib:format("~b runs: the table lists the latest ~b.", [Count, ?TABLE_ROWS]));
window_note(_Count) ->
    [].

chart(#{name := Name, points := Points, steps := Steps}) ->
    {First, Shown} = latest(Points, ?CHART_POINTS),
    Labels = maps:from_list([{R, short(P)} || #{run := R} = P <- Shown]),
    Series = #{name => erlperf_name:text(Name),
               points => [{R, V} || #{run := R, value := V} <- Shown],
               error => [{R, L, H} || #{run := R} = P <- Shown, {L, H} <- [bounds(P)]]},
    Markers = [#{x => run_of(S, Points), label => change_text(S), class => direction(S)}
               || #{at := At} = S <- Steps, At >= First],
    erlperf_svg:line_chart([Series],
                           #{title => <<"Throughput over the stored runs">>,
                             x_label => <<"run, by commit (+: uncommitted changes)">>,
                             y_label => <<"iterations per second">>,
                             width => ?CHART_WIDTH, x_markers => Markers,
                             x_ticks => x_ticks([R || #{run := R} <- Shown], maps:values(Labels)),
                             x_format => fun (X) -> tick_label(X, Labels) end}).

%% Every shown run when their labels fit, else evenly spaced ones; and a blank tick beyond
%% each end.
x_ticks(Runs, Labels) ->
    Room = ?PLOT_WIDTH / (lists:max([iolist_size(L) || L <- Labels]) * ?CHAR_WIDTH + ?LABEL_GAP),
    Every = ceil(length(Runs) / max(2, floor(Room))),
    Labelled = [R || {I, R} <- lists:zip(lists:seq(0, length(Runs) - 1), Runs), I rem Every =:= 0],
    Pad = max(0.5, (lists:last(Runs) - hd(Runs)) * ?X_PAD),
    [hd(Runs) - Pad | Labelled] ++ [lists:last(Runs) + Pad].

%% Ticks on shown runs are labelled by short commit; the others stay blank.
tick_label(X, Labels) when X == round(X) -> maps:get(round(X), Labels, <<>>);
tick_label(_X, _Labels) -> <<>>.

runs_table(#{points := Points, steps := Steps}) ->
    Extras = extras(Points),
    erlperf_html:table([<<"Run">>, <<"Time">>, <<"Commit">>, <<"OTP">>,
                        <<"Throughput (per second)">>, <<"95% CI">>, <<"Change">>, <<"Step">>]
                       ++ [H || Extras, H <- [<<"Bytes per call">>, <<"Reductions per call">>, <<"Host load">>]],
                       [runs_row(Row, Extras) || Row <- table_rows(Points, Steps)]).

runs_row({P, Change, none}, Extras) ->
    runs_cells(P, Change, <<>>, Extras);
runs_row({P, Change, Step}, Extras) ->
    {direction(Step), runs_cells(P, Change, change_text(Step), Extras)}.

runs_cells(#{run := Run, time := Time, otp := Otp, value := Value} = P, Change, Step, Extras) ->
    [Run, Time, commit_cell(P), Otp, erlperf_units:count(Value), interval_text(P),
     change_pct(Change), Step | [iolist_to_binary(C) || C <- extra_cells(P, Extras)]].

commit_cell(#{commit := undefined}) ->
    <<"-">>;
commit_cell(#{commit := Commit} = P) ->
    {raw, ["<code title=\"", erlperf_html:escape(Commit), "\">", erlperf_html:escape(short(P)),
           "</code>"]}.

anchor(N) -> ["benchmark-", integer_to_list(N)].

anchor_link(N, Name) -> erlperf_html:link(["#", anchor(N)], erlperf_name:text(Name)).

note(Text) -> ["<p class=\"note\">", erlperf_html:escape(Text), "</p>\n"].

%%--------------------------------------------------------------------
%% Internal functions: text

text_totals(#{store := Store, runs := 0}) ->
    ["History of ", erlperf_name:text(Store), ": no runs stored yet\n"];
text_totals(#{store := Store, runs := Runs, benchmarks := Benchmarks}) ->
    Steps = lists:sum([length(S) || #{steps := S} <- Benchmarks]),
    ["History of ", erlperf_name:text(Store), ": ", count(Runs, "run"), ", ",
     count(length(Benchmarks), "benchmark"), ", ", count(Steps, "step"), "\n"].

text_benchmark(#{name := Name, points := Points, steps := Steps}) ->
    Rows = table_rows(Points, Steps),
    Extras = extras(Points),
    Shown = case length(Rows) < length(Points) of
                true -> io_lib:format(" (the latest ~b of ~b runs)",
                                      [length(Rows), length(Points)]);
                false -> []
            end,
    ["\n", erlperf_name:text(Name), Shown, "\n",
     [erlperf_table:columns(table_header(Extras),
                            [text_row(R, Extras) || R <- Rows]) || Rows =/= []],
     text_steps(erlperf_name:text(Name), Points, Steps)].

text_row({#{run := Run, time := Time, otp := Otp, value := Value} = P, Change, _Step}, Extras) ->
    [integer_to_list(Run), erlperf_name:text(Time), commit_text(P), erlperf_name:text(Otp),
     erlperf_units:count(Value), interval_text(P), change_pct(Change) | extra_cells(P, Extras)].

%% The columns of a table of runs (text and Markdown), with the exact counts and the
%% host's load when any point has them.
table_header(Extras) ->
    ["Run", "Time", "Commit", "OTP", "Throughput", "95% CI", "Change"]
        ++ [H || Extras, H <- ["Bytes", "Reductions", "Load"]].

%% Whether any point has exact counts or the host's load (stores of older releases have
%% none: their tables stay as they were).
extras(Points) ->
    lists:any(fun (P) -> lists:any(fun (K) -> maps:get(K, P, undefined) =/= undefined end,
                                   [bytes, reductions, load]) end, Points).

%% The exact counts per call and the host's load of a point ("-" where not measured).
extra_cells(_P, false) ->
    [];
extra_cells(P, true) ->
    [case maps:get(K, P, undefined) of
         undefined -> "-";
         V when K =:= load -> [integer_to_list(round(100 * V)), "%"];
         V -> erlperf_units:number(V)
     end || K <- [bytes, reductions, load]].

text_steps(Name, _Points, []) ->
    [Name, ": no steps\n"];
text_steps(Name, Points, Steps) ->
    [[Name, ": step at run ", integer_to_list(run_of(S, Points)), " (",
      erlperf_name:text(short(lists:nth(At, Points))), "): ", change_text(S), "\n"]
     || #{at := At} = S <- Steps].

commit_text(#{commit := undefined}) -> "-";
commit_text(P) -> erlperf_name:text(short(P)).

count(1, Noun) -> ["1 ", Noun];
count(N, Noun) -> [integer_to_list(N), " ", Noun, "s"].

%%--------------------------------------------------------------------
%% Internal functions: Markdown and CSV

markdown_benchmark(#{name := Name, points := Points, steps := Steps}) ->
    Rows = table_rows(Points, Steps),
    Extras = extras(Points),
    Header = table_header(Extras),
    Align = ["---:", "---", "---", "---"] ++ ["---:" || _ <- lists:seq(5, length(Header))],
    ["\n### ", erlperf_name:markdown(Name), "\n\n",
     [erlperf_markdown:table(Header, Align,
                             [[erlperf_name:markdown_text(C) || C <- text_row(R, Extras)]
                              || R <- Rows]) || Rows =/= []],
     "\n", text_steps(erlperf_name:markdown(Name), Points, Steps)].

csv_rows(#{name := Name, points := Points, steps := Steps}) ->
    At = maps:from_list([{I, C} || #{at := I, change_pct := C} <- Steps]),
    [[utf8(Name), Run, utf8(Time), csv_text(Commit), Dirty, utf8(Otp), Value,
      csv_number(maps:get(low, P)), csv_number(maps:get(high, P)), atom_to_binary(Interval),
      csv_number(Change), csv_number(maps:get(I, At, null)) |
      [csv_number(maps:get(K, P, undefined)) || K <- [bytes, reductions, load]]]
     || {I, #{run := Run, time := Time, commit := Commit, dirty := Dirty, otp := Otp,
              value := Value, interval := Interval} = P, Change}
            <- lists:zip3(lists:seq(1, length(Points)), Points, changes(Points))].

csv_text(undefined) -> null;
csv_text(Text) -> utf8(Text).

csv_number(N) when is_number(N) -> N;
csv_number(_None) -> null.

%%--------------------------------------------------------------------
%% Internal functions: JSON

json_benchmark(#{name := Name, points := Points, steps := Steps}) ->
    #{name => utf8(Name), points => [json_point(P) || P <- Points],
      steps => [json_step(S, Points) || S <- Steps]}.

json_point(#{run := Run, time := Time, commit := Commit, dirty := Dirty, otp := Otp,
             value := Value, low := Low, high := High, interval := Interval} = P) ->
    maps:merge(
      #{run => Run, time => utf8(Time), commit => null_or(Commit, fun utf8/1), dirty => Dirty,
      otp => utf8(Otp), value => Value, low => null_or(Low, fun id/1),
      high => null_or(High, fun id/1), interval => Interval},
      %% exact counts and the host's load, where the run has them
      maps:filter(fun (_K, V) -> V =/= undefined end, maps:with([bytes, reductions, load], P))).

json_step(#{at := At, before := Before, 'after' := After, change_pct := Change,
            ci_pct := {Lo, Hi}, p := P} = S, Points) ->
    #{at => At, run => run_of(S, Points), before => Before, 'after' => After,
      change_pct => Change, ci_pct => [Lo, Hi], p => P}.

null_or(undefined, _Fun) -> null;
null_or(Value, Fun) -> Fun(Value).

id(Value) -> Value.

%% A binary as valid UTF-8: each byte that is not part of a character becomes U+FFFD.
utf8(Bin) ->
    case unicode:characters_to_binary(Bin) of
        Valid when is_binary(Valid) -> Valid;
        _Invalid -> << <<(replace(C))/utf8>> || C <- utf8_codes(Bin, []) >>
    end.

utf8_codes(<<C/utf8, Rest/binary>>, Acc) -> utf8_codes(Rest, [C | Acc]);
utf8_codes(<<_Byte, Rest/binary>>, Acc) -> utf8_codes(Rest, [invalid | Acc]);
utf8_codes(<<>>, Acc) -> lists:reverse(Acc).

replace(invalid) -> 16#FFFD;
replace(C) -> C.

%%--------------------------------------------------------------------
%% Internal functions: figures and labels

%% The rows of a table of runs: the latest ?TABLE_ROWS points, each with its change
%% against the point before it and the step that starts at it.
table_rows(Points, Steps) ->
    At = maps:from_list([{I, S} || #{at := I} = S <- Steps]),
    Rows = [{P, C, maps:get(I, At, none)}
            || {I, P, C} <- lists:zip3(lists:seq(1, length(Points)), Points, changes(Points))],
    element(2, latest(Rows, ?TABLE_ROWS)).

%% {Index of the first kept, the last Max items}.
latest(List, Max) when length(List) > Max ->
    {length(List) - Max + 1, lists:nthtail(length(List) - Max, List)};
latest(List, _Max) ->
    {1, List}.

changes([]) ->
    [];
changes([_ | Later] = Points) ->
    [none | [change(Prev, V)
             || {#{value := Prev}, #{value := V}} <- lists:zip(lists:droplast(Points), Later)]].

change(Prev, _Value) when Prev == 0 -> none;
change(Prev, Value) -> (Value - Prev) * 100 / Prev.

change_pct(none) -> "-";
change_pct(Pct) -> erlperf_units:change(Pct).

%% `-10.2% (95% CI -12.0..-8.4%)'
change_text(#{change_pct := Change, ci_pct := {Lo, Hi}}) ->
    lists:flatten([erlperf_units:change(Change), " (95% CI ", erlperf_units:fixed(Lo, 1), "..",
                   erlperf_units:percent(Hi), ")"]).

%% Slower is a regression of throughput.
direction(#{change_pct := Change}) when Change < 0 -> <<"regression">>;
direction(_Step) -> <<"faster">>.

run_of(#{at := At}, Points) ->
    maps:get(run, lists:nth(At, Points)).

bounds(#{low := Low, high := High}) when is_number(Low), is_number(High) -> {Low, High};
bounds(_Point) -> none.

interval_text(P) ->
    case bounds(P) of
        {Low, High} -> [erlperf_units:count_range(Low, High), basis(maps:get(interval, P))];
        none -> "-"
    end.

basis(forks) -> " (forks)";
basis(single_run) -> " (one run)".

%% The short commit: 7 characters of the SHA, + for uncommitted changes; the date without
%% a commit.
short(#{commit := undefined, time := Time}) ->
    binary:part(Time, 0, min(?DATE, byte_size(Time)));
short(#{commit := Commit, dirty := Dirty}) ->
    [binary:part(Commit, 0, min(?SHORT_COMMIT, byte_size(Commit))), ["+" || Dirty]].

%%--------------------------------------------------------------------
%% Internal functions: checking the input

check(#{store := Store, runs := Runs, benchmarks := Benchmarks} = History)
  when is_binary(Store), is_integer(Runs), Runs >= 0, is_list(Benchmarks) ->
    _ = [check_benchmark(B, Runs) || B <- Benchmarks],
    History;
check(History) ->
    invalid({history, History}).

check_benchmark(#{name := Name, points := Points, steps := Steps}, Runs)
  when is_binary(Name), is_list(Points), is_list(Steps) ->
    _ = [invalid({point, Name, P}) || P <- Points, not is_point(P)],
    RunNumbers = [R || #{run := R} <- Points],
    _ = [invalid({order, Name, RunNumbers})
         || not increasing(RunNumbers) orelse lists:max([0 | RunNumbers]) > Runs],
    [invalid({step, Name, S}) || S <- Steps, not is_step(S, length(Points))];
check_benchmark(Benchmark, _Runs) ->
    invalid({benchmark, Benchmark}).

is_point(#{run := Run, time := Time, commit := Commit, dirty := Dirty, otp := Otp,
           value := Value, low := Low, high := High, interval := Interval}) ->
    is_integer(Run) andalso Run > 0 andalso is_binary(Time) andalso is_boolean(Dirty)
        andalso (is_binary(Commit) orelse Commit =:= undefined) andalso is_binary(Otp)
        andalso is_number(Value) andalso lists:all(fun number_or_undefined/1, [Low, High])
        andalso (Interval =:= forks orelse Interval =:= single_run);
is_point(_Other) ->
    false.

is_step(#{at := At, before := Before, 'after' := After, change_pct := Change,
          ci_pct := {Lo, Hi}, p := P}, Count) ->
    is_integer(At) andalso At >= 2 andalso At =< Count
        andalso lists:all(fun erlang:is_number/1, [Before, After, Change, Lo, Hi, P]);
is_step(_Other, _Count) ->
    false.

number_or_undefined(V) -> is_number(V) orelse V =:= undefined.

increasing([A, B | Rest]) -> A < B andalso increasing([B | Rest]);
increasing(_Short) -> true.

-spec invalid(invalid()) -> no_return().
invalid(What) ->
    erlang:error({invalid_history, What}).
