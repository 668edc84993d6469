%%% @doc Tests of the report tables: units, column layout, sorting by score, Rel, notes,
%%% width cutting, colour and display width.
%%%
%%% Every report below is a full report from one of this project's own command line runs
%%% on its 2-core CI machine: the figures are what erlperf:benchmark/3 returned during
%%% the `./erlperf ...' run named above the fixture (read with a call trace), and the
%%% expected lines are the table that run printed. Only the wide-character tables differ
%%% from what their runs printed: those runs predate the display-width fix, which is
%%% what they test.
-module(erlperf_report_tests).

-include_lib("eunit/include/eunit.hrl").

%%--------------------------------------------------------------------
%% Report builders: full reports as erlperf:benchmark/3 returns them (report => full)

%% Run: what the command line set (concurrency, samples, sample_duration, warmup, the
%% defaults otherwise), what the run found (sleep, warnings), the runner when the label
%% is not its source text, and qps and relative, which erlperf adds when comparing
%% several codes. Figures: the run's result, less what follows from its values.
continuous(Label, Run, Figures) ->
    report(continuous, Label, Run, Figures).

timed(Label, Run, Figures) ->
    report(timed, Label, Run, Figures).

report(Mode, Label, Run, #{values := Values, stddev := StdDev} = Figures) ->
    Concurrency = maps:get(concurrency, Run, 1),
    Options = maps:with([samples, sample_duration, warmup], Run),
    {Best, Worst} = case Mode of
                        continuous -> {lists:max(Values), lists:min(Values)};
                        timed -> {lists:min(Values), lists:max(Values)}
                    end,
    Report = #{version => 1, mode => Mode, label => Label, concurrency => Concurrency,
               code => #{runner => maps:get(runner, Run, unicode:characters_to_list(Label))},
               run_options => maps:merge(#{compare => parallel, concurrency => Concurrency,
                                           cv => undefined, priority => high, report => full,
                                           confidence => 95, noise => 1, run_noise => 1.0, memory => false, counts => false,
                                           latency => false, verdicts => false,
                                           profile => undefined, forks => 1, rate => undefined,
                                           arrival => even, slo => undefined, budget => undefined,
                                           sample_duration => 1000, samples => 3, warmup => 0},
                                         Options),
               sleep => maps:get(sleep, Run, sleep), warnings => maps:get(warnings, Run, []),
               system => system(),
               result => Figures#{min => lists:min(Values), max => lists:max(Values),
                                  qps => per_second(Mode, maps:get(average, Figures),
                                                    maps:get(sample_duration, Options, 1000)),
                                  best => Best, worst => Worst, variance => StdDev * StdDev,
                                  ci => erlperf_stat:confidence_interval(Values, 95),
                                  confidence => 95, outliers => erlperf_stat:outliers(Values)}},
    maps:merge(Report, maps:with([qps, relative], Run)).

%% Iterations per second from the average sample: per sample duration (milliseconds), or
%% microseconds per N iterations.
per_second(timed, Us, {timed, N}) -> N * 1.0e6 / Us;
per_second(continuous, Average, Ms) -> Average * 1000 / Ms.

%% `system' of every run below (erlperf_system on the CI machine, OTP 25).
system() ->
    Vm = "Erlang/OTP 25 [erts-13.1.5] [source] [64-bit] [smp:2:2] [ds:2:2:10] "
         "[async-threads:1] [jit:ns]",
    #{os => {unix, linux}, os_name => "unix:linux 6.18.44", cpu => "AMD EPYC", vm => Vm,
      system_version => Vm ++ "\n", emu_type => opt, emu_flavor => jit,
      dynamic_trace => none, otp_release => "25", schedulers => 2, erlperf => "3.0.0"}.

text(Reports, Options) ->
    unicode:characters_to_list(erlperf_report:format(Reports, Options)).

lines(Reports, Options) ->
    string:split(string:trim(text(Reports, Options), trailing, "\n"), "\n", all).

%% Terminal columns of a line made of the characters these tests use: CJK ideographs
%% and fullwidth Latin letters take 2, the combining acute accent none, the rest 1.
columns(Line) ->
    lists:sum([if C >= 16#4E00, C =< 16#9FFF -> 2;
                  C >= 16#FF01, C =< 16#FF5E -> 2;
                  C =:= 16#301 -> 0;
                  true -> 1
               end || C <- Line]).

%%--------------------------------------------------------------------
%% The builders follow the real shape

%% Same keys at every level as reports of a real (short) run, and continuous mode's raw
%% counter readings are one more than its values.
%% Figures of a run that only some platforms measure (Linux: the scheduler threads'
%% times, erlperf_interference).
-define(PLATFORM_KEYS, [interference, cpu_values]).

report_shape_test_() ->
    {timeout, 30,
     fun () ->
             %% the fixtures are single runs (forks => auto would fork these)
             Real = erlperf:benchmark(["rand:uniform().", "rand:uniform(10)."],
                                      #{report => full, sample_duration => 10, samples => 2,
                                        forks => 1}, undefined),
             RealTimed = erlperf:benchmark(["rand:uniform().", "rand:uniform(10)."],
                                           #{report => full, samples => 2, forks => 1,
                                             sample_duration => {timed, 1000}}, undefined),
             [assert_same_shape(R, B) || R <- Real, B <- rand_crypto()],
             [assert_same_shape(R, B) || R <- RealTimed, B <- timed_mfa()],
             [?assertEqual(length(V) + 1, length(S))
              || #{result := #{samples := S, values := V}} <- Real ++ rand_crypto()],
             [?assertEqual(length(V), length(S))
              || #{result := #{samples := S, values := V}} <- RealTimed ++ timed_mfa()]
     end}.

%% (only runners slower than the fastest have a comparison)
assert_same_shape(Real, Built) ->
    ?assertEqual(keys(Real) -- [comparison], keys(Built) -- [comparison]),
    [?assertEqual({Key, keys(maps:get(Key, Real)) -- ?PLATFORM_KEYS},
                  {Key, keys(maps:get(Key, Built)) -- ?PLATFORM_KEYS})
     || Key <- [result, system, run_options, code]],
    #{system := #{os := {Family, Name}}} = Built,
    ?assertMatch(#{system := #{os := {Family, Name}}}, Real).

keys(Map) ->
    lists:sort(maps:keys(Map)).

verdict_lines_test() ->
    Fast = continuous(<<"fast.">>, #{}, figures([1000, 1010, 990, 1000])),
    Slow = continuous(<<"slow.">>, #{}, figures([500, 510, 490, 500])),
    Annotated = erlperf_comparison:annotate([Fast, Slow], 95),
    Extended = text(Annotated, #{format => extended}),
    ?assertNotEqual(nomatch, string:find(Extended, "slow. against fast.: 50.0% slower (95% CI")),
    %% basic tables stay as erlperf 2.3 prints them
    ?assertEqual(nomatch, string:find(text(Annotated, #{format => basic}), "against")).

%% The record of `./erlperf 'timer:sleep(1).' -q --max 3 --threshold 5 -d 200 -s 3
%% --noise 99 --format json' (its figures; the keys the table reads): within a 99% noise
%% floor, concurrency 1 is reported and the best step, 3, is named under the table. Its
%% throughput is in the QPS column's unit, iterations per 200 ms sample (239), not per
%% second (1195): the line reads against the table.
squeeze_line_per_sample_test() ->
    Step = fun (C, Avg, Qps) -> #{<<"concurrency">> => C, <<"average">> => Avg, <<"qps">> => Qps} end,
    Run = #{<<"label">> => <<"timer:sleep(1).">>, <<"code">> => <<"timer:sleep(1).">>,
            <<"mode">> => <<"concurrency">>, <<"concurrency">> => 1, <<"best_concurrency">> => 3,
            <<"steps">> => [Step(1, 73.52776702213139, 367.63883511065694),
                            Step(2, 162.0198765046136, 810.0993825230679),
                            Step(3, 239.04526940899498, 1195.226347044975)],
            <<"samples">> => [54.012100600958135, 86.56556766885896, 80.00563279657705],
            <<"average">> => 73.52776702213139, <<"qps">> => 367.63883511065694,
            <<"iteration_ns">> => 2720060.8436782975, <<"sleep">> => <<"sleep">>, <<"overdue">> => 0,
            <<"params">> => #{}},
    Record = #{<<"version">> => 1, <<"compare">> => <<"parallel">>,
               <<"options">> => #{<<"sample_duration">> => 200}, <<"runs">> => [Run]},
    ?assertEqual(["Code                    ||        QPS       Time",
                  "timer:sleep(1).          1         74    2720 us",
                  "timer:sleep(1).: highest throughput at concurrency 3 (239), not significantly above "
                  "concurrency 1"],
                 string:split(string:trim(erlperf_report:render(Record, #{}), trailing, "\n"), "\n", all)).

parallel_note_test() ->
    Fast = continuous(<<"fast.">>, #{}, figures([1000, 1010, 990, 1000])),
    Near = continuous(<<"near.">>, #{}, figures([970, 979, 960, 970])),
    Far = continuous(<<"far.">>, #{}, figures([500, 510, 490, 500])),
    Note = "Note: these runners ran in parallel",
    Stat = #{confidence => 95, noise => 1},
    %% 3% slower, paired, significant: the CPUs may be the cause
    Close = text(erlperf_comparison:annotate([Fast, Near], Stat), #{format => extended}),
    ?assertNotEqual(nomatch, string:find(Close, "near. against fast.: 3.0% slower"), Close),
    ?assertNotEqual(nomatch, string:find(Close, Note), Close),
    ?assertNotEqual(nomatch, string:find(Close, "--compare interleaved -d 50 -s 100"), Close),
    %% 50% slower: no CPU does that
    ?assertEqual(nomatch, string:find(text(erlperf_comparison:annotate([Fast, Far], Stat),
                                           #{format => extended}), Note)),
    %% taking turns, or within the floor: no note
    Turns = [R#{run_options => O#{compare => interleaved}} || #{run_options := O} = R <- [Fast, Near]],
    ?assertEqual(nomatch, string:find(text(erlperf_comparison:annotate(Turns, Stat),
                                           #{format => extended}), Note)),
    ?assertEqual(nomatch, string:find(text(erlperf_comparison:annotate([Fast, Near], Stat#{noise => 5}),
                                           #{format => extended}), Note)).

%% A run measured until decided says how long it took and why it stopped, under the
%% verdicts: every verdict decided, or the budget spent. (Figures made by hand: the
%% line reads the record's `sequential', whatever the samples.)
sequential_line_test() ->
    Fast = continuous(<<"fast.">>, #{}, figures([1000, 1010, 990, 1000])),
    Slow = continuous(<<"slow.">>, #{}, figures([500, 510, 490, 500])),
    Stat = #{confidence => 95, noise => 1},
    Measured = fun (Sequential, Format) ->
                       Runs = [R#{sequential => Sequential} || R <- [Fast, Slow]],
                       lines(erlperf_comparison:annotate(Runs, Stat), #{format => Format})
               end,
    Decided = #{look => 3, looks => 4, forks => 16, elapsed_ms => 17600, budget_ms => 30000,
                stopped => decided},
    Spent = Decided#{look => 4, forks => 19, elapsed_ms => 30412, stopped => budget},
    ?assertEqual(["Measured until decided: 17.6 s in 16 forks; every verdict decided at look 3 "
                  "of 4"], [L || L <- Measured(Decided, extended), lists:prefix("Measured", L)]),
    ?assertEqual(["Measured until decided: 30.4 s in 19 forks; the budget of 30 s spent at look "
                  "4 of 4 with a verdict undecided"],
                 [L || L <- Measured(Spent, full), lists:prefix("Measured", L)]),
    %% under the verdict lines
    Lines = Measured(Decided, extended),
    {Before, _} = lists:splitwith(fun (L) -> not lists:prefix("Measured", L) end, Lines),
    ?assert(lists:any(fun (L) -> string:find(L, "slow. against fast.: ") =/= nomatch end,
                      Before), Lines),
    %% not measured until decided: no such line
    ?assertEqual([], [L || L <- lines(erlperf_comparison:annotate([Fast, Slow], Stat),
                                      #{format => extended}),
                           string:find(L, "Measured") =/= nomatch]),
    %% a basic table (what `auto' picks for it) has the verdicts and the line too, and the
    %% QPS column per second
    Basic = Measured(Decided, basic),
    ?assertMatch(["Code" ++ _ | _], Basic),
    ?assert(lists:any(fun (L) -> string:find(L, "slow. against fast.: ") =/= nomatch end, Basic),
            Basic),
    ?assertEqual(1, length([L || L <- Basic, lists:prefix("Measured until decided: 17.6 s", L)])),
    ?assertEqual(Basic, Measured(Decided, auto)).

figures(Values) ->
    Summary = erlperf_stat:summary(Values),
    Summary#{values => Values, samples => lists:seq(0, length(Values)), time => 1000000,
             overdue => 0, iteration_time => 1.0e9 / erlperf_stat:mean(Values)}.

%%--------------------------------------------------------------------
%% Units (figures of the runs below)

format_count_test_() ->
    [?_assertEqual(Expected, erlperf_units:count(N))
     || {N, Expected} <- [{0, "0"}, {462.7588241633398, "463"}, {80502.37124605106, "80502"},
                          {99999, "99999"}, {100000, "100 Ki"},
                          {148474.11611619114, "148 Ki"}, {13031365.448705437, "13031 Ki"},
                          {99999499, "99999 Ki"}, {99999500, "100 Mi"},
                          {160744366, "161 Mi"}, {2.0e11, "200 Gi"}]].

format_time_test_() ->
    [?_assertEqual(Expected, erlperf_units:time(Ns))
     || {Ns, Expected} <- [{0, "0 ns"}, {3, "3 ns"}, {3.1953293238894993, "3.2 ns"},
                           {76.73792926276518, "77 ns"},
                           {6735.180691141018, "6735 ns"}, {99999, "99999 ns"},
                           {100000, "100 us"}, {2160952.850133076, "2161 us"},
                           {148572367.75, "149 ms"}, {200.0e9, "200 s"}]].

format_size_test_() ->
    [?_assertEqual(Expected, erlperf_units:size(Bytes))
     || {Bytes, Expected} <- [{0, "0 Kb"}, {900 * 1024, "900 Kb"}, {99999 * 1024, "99999 Kb"},
                              {100000 * 1024, "98 Mb"}, {62 * 1024 * 1024, "63488 Kb"},
                              {200 * 1024 * 1024, "200 Mb"},
                              {3 * 1024 * 1024 * 1024 * 1024, "3072 Gb"}]].

%%--------------------------------------------------------------------
%% Tables, as the runs printed them

basic_single_test() ->
    ?assertEqual(["Code                    ||        QPS       Time",
                  "rand:uniform().          1   13031 Ki      77 ns"],
                 lines(rand(), #{})).

basic_concurrency_test() ->
    ?assertEqual(["Code                    ||        QPS       Time",
                  "rand:uniform().          4   11101 Ki     360 ns"],
                 lines(rand_c4(), #{format => basic})).

%% Given slowest first: sorted by score, Rel relative to the fastest.
basic_rel_sorted_test() ->
    ?assertEqual(["Code                    ||        QPS       Time   Rel",
                  "timer:sleep(1).          1        463    2161 us  100%",
                  "timer:sleep(2).          1        310    3225 us   67%"],
                 lines(lists:reverse(sleeps()), #{})).

extended_rel_test() ->
    ?assertEqual(
       ["Timer accuracy problem detected, results may be inaccurate",
        "",
        "Code                             ||   Samples       Avg   StdDev    Median      P99  Iteration    Rel",
        "rand:uniform().                   1        10   4884 Ki   12.17%   4769 Ki  5780 Ki     205 ns   100%",
        "crypto:strong_rand_bytes(2).      1        10    148 Ki    2.39%    147 Ki   156 Ki    6735 ns     3%"],
       lines(lists:reverse(rand_crypto()), #{})).

%% Timed mode: the averages are microseconds per sample, the lower one ranks first.
extended_timed_test() ->
    ?assertEqual(
       ["Code                    ||   Samples       Avg   StdDev    Median      P99  Iteration    Rel",
        "rand:uniform(1000).      1        20    149 ms   15.32%    153 ms   180 ms     149 ns   100%",
        "rand:uniform().          1        20    167 ms   44.36%    171 ms   340 ms     167 ns    89%"],
       lines(lists:reverse(timed_rand()), #{})).

basic_timed_test() ->
    ?assertEqual(["Code                      ||        QPS       Time   Rel",
                  "rand:uniform().            1    9069 Ki     110 ns  100%",
                  "{rand,uniform,[]}          1    8943 Ki     112 ns   99%"],
                 lines(timed_mfa(), #{})).

timer_note_test() ->
    ?assertEqual(
       ["Timer accuracy problem detected, results may be inaccurate",
        "",
        "Code                         ||   Samples       Avg   StdDev    Median      P99  Iteration",
        "erlang:unique_integer().     50        10  15705 Ki   11.30%  15799 Ki 18014 Ki     318 ns"],
       lines(unique_c50(), #{})),
    [Report] = unique_c50(),
    ?assertEqual(nomatch, string:find(text([Report#{sleep => sleep}], #{}), "Timer")).

%%--------------------------------------------------------------------
%% Formats: the Samples column and auto count values, not raw counter readings

%% 11 raw readings, 10 values: 10 samples, and auto picks extended.
samples_counted_from_values_test() ->
    [#{result := #{samples := Readings, values := Values}}] = Reports = unique_c50(),
    ?assertEqual({11, 10}, {length(Readings), length(Values)}),
    ?assertEqual(extended, erlperf_report:resolve_format(auto, erlperf_record:from_reports(Reports))),
    [_Note, _Blank, _Header, Row] = lines(Reports, #{}),
    ?assertMatch(["erlang:unique_integer().", "50", "10" | _], string:lexemes(Row, " ")).

%% 10 raw readings, 9 values: below the threshold, so basic; extended shows 9 samples.
nine_values_stay_basic_test() ->
    [#{result := #{samples := Readings, values := Values}}] = Reports = rand_9(),
    ?assertEqual({10, 9}, {length(Readings), length(Values)}),
    ?assertEqual(basic, erlperf_report:resolve_format(auto, erlperf_record:from_reports(Reports))),
    ?assertEqual(["Timer accuracy problem detected, results may be inaccurate",
                  "",
                  "Code                    ||        QPS       Time",
                  "rand:uniform().          1     754 Ki     133 ns"],
                 lines(Reports, #{})),
    [_Note, _Blank, _Header, Row] = lines(Reports, #{format => extended}),
    ?assertMatch(["rand:uniform().", "1", "9" | _], string:lexemes(Row, " ")).

auto_format_test_() ->
    Three = rand(),
    Ten = tl(rand_crypto()),
    [?_assertEqual(basic, erlperf_report:resolve_format(auto, erlperf_record:from_reports(Three))),
     ?_assertEqual(extended, erlperf_report:resolve_format(auto, erlperf_record:from_reports(Ten))),
     ?_assertEqual(extended, erlperf_report:resolve_format(auto, erlperf_record:from_reports(Three ++ Ten))),
     ?_assertEqual(basic, erlperf_report:resolve_format(basic, erlperf_record:from_reports(Ten))),
     ?_assertEqual(full, erlperf_report:resolve_format(full, erlperf_record:from_reports(Three))),
     ?_assertMatch(["Code", "||", "QPS", "Time"],
                   string:lexemes(lists:nth(3, lines(Ten, #{format => basic})), " ")),
     ?_assertMatch(["Code", "||", "Samples", "Avg", "StdDev", "Median", "P99", "Iteration"],
                   string:lexemes(hd(lines(Three, #{format => extended})), " "))].

full_test() ->
    ?assertEqual(
       ["OS:  unix:linux 6.18.44",
        "CPU: AMD EPYC",
        "VM:  Erlang/OTP 25 [erts-13.1.5] [source] [64-bit] [smp:2:2] [ds:2:2:10] [async-threads:1] [jit:ns]",
        "",
        "Code                ||   Samples       Avg   StdDev    Median      P99  Iteration",
        "rand:uniform().      1         3   9594 Ki    3.25%   9566 Ki  9919 Ki     104 ns"],
       lines(rand_full(), #{format => full})).

%%--------------------------------------------------------------------
%% Notes

dead_code_note_test() ->
    ?assertEqual(
       ["Timer accuracy problem detected, results may be inaccurate",
        "",
        "Code           ||        QPS       Time",
        "1 + 1.          1   31296 Ki     3.2 ns",
        "Note: the compiler removed the benchmarked code of 1 + 1. (runner); the figures measure an empty loop"],
       lines(dead(), #{})),
    [Report] = dead(),
    ?assertEqual(nomatch, string:find(text([Report#{warnings => []}], #{}), "Note")).

%% A run whose worker blocks for 400 ms once a second: 3 of its 10 samples ended while
%% the worker was blocked. The note names the label.
overdue_note_test() ->
    ?assertEqual(
       ["Timer accuracy problem detected, results may be inaccurate",
        "",
        "Code                                                                                ||   Samples       Avg   StdDev    Median      P99  Iteration",
        "erlang:system_time(millisecond) rem 1000 > 990 andalso timer:sleep(400) =:= ok.      1        10    332 Ki   76.83%    401 Ki   606 Ki     301 ns",
        "Note: 3 of 10 samples of erlang:system_time(millisecond) rem 1000 > 990 andalso timer:sleep(400) =:= ok. ended while a worker had been in one call far longer than expected (calls are counted when they start)"],
       lines(sleepy(), #{})).

%% erlperf:benchmark([#{runner => "lists:seq(1, 100)."}], #{report => full,
%% profile => eprof}, undefined) (what `./erlperf 'lists:seq(1, 100).' --profile eprof'
%% asks for).
seq_profiled() ->
    R = continuous(<<"lists:seq(1, 100).">>, #{},
                   #{values => [3066261.613329055, 3264070.0430751815, 2335270.382744525],
                     average => 2888534.013049587, stddev => 489241.7880592472,
                     median => 3066261.613329055, p99 => 3264070.0430751815,
                     samples => [1, 3066416, 6330298, 8668962], time => 3001445, overdue => 0,
                     iteration_time => 346.19637348297795}),
    Profile = #{tool => eprof, duration_ms => 1000, workers => 1, total_calls => 8042460,
                total_us => 1068709,
                functions => [#{calls => 7467998, mfa => {lists, seq_loop, 3},
                                percent => 83.21161326422815, time_us => 889290},
                              #{calls => 287231, mfa => {erlperf_job_3, 'erlperf timed_loop', 1},
                                percent => 14.00493492615857, time_us => 149672},
                              #{calls => 287231, mfa => {lists, seq, 2},
                                percent => 2.783451809613281, time_us => 29747}]},
    R#{profile => Profile, run_options => (maps:get(run_options, R))#{profile => eprof}}.

profile_lines_test() ->
    ?assertEqual(
       ["Code                       ||        QPS       Time",
        "lists:seq(1, 100).          1    2889 Ki     346 ns",
        "",
        "Profile (eprof, 1 s, runner lists:seq(1, 100).)",
        "Function                                Calls  % of time  Per call",
        "lists:seq_loop/3                      7467998      83.2%    119 ns",
        "erlperf_job_3:'erlperf timed_loop'/1   287231      14.0%    521 ns",
        "lists:seq/2                            287231       2.8%    104 ns"],
       lines([seq_profiled()], #{})).

%% The same code profiled with cprof (first and fourth functions): calls only, counted
%% in every process.
profile_cprof_lines_test() ->
    #{profile := Eprof} = R = seq_profiled(),
    Cprof = Eprof#{tool => cprof, total_us => undefined, total_calls => 52255479,
                   functions => [#{calls => 48522931, mfa => {lists, seq_loop, 3},
                                   percent => 92.85711647576707, time_us => undefined},
                                 #{calls => 2, mfa => {erlang, ensure_tracer_module_loaded, 2},
                                   percent => 3.827349855505104e-6, time_us => undefined}]},
    ?assertEqual(
       ["Profile (cprof, 1 s, calls in all processes, runner lists:seq(1, 100).)",
        "Function                                 Calls  % of calls",
        "lists:seq_loop/3                      48522931       92.9%",
        "erlang:ensure_tracer_module_loaded/2         2        0.0%"],
       lists:nthtail(3, lines([R#{profile := Cprof}], #{}))).

%% fprof: 200 ms, several workers traced, garbage collection as a pseudo-function; a
%% function without a completed call has no time per call.
profile_fprof_lines_test() ->
    #{profile := Eprof} = R = seq_profiled(),
    Fprof = Eprof#{tool => fprof, duration_ms => 200, workers => 4,
                   functions => [#{calls => 723, mfa => garbage_collect, percent => 2.2,
                                   time_us => 4769.0},
                                 #{calls => 0, mfa => {lists, seq_loop, 3}, percent => 1.0,
                                   time_us => 2000.0}]},
    ?assertEqual(
       ["Profile (fprof, 200 ms, 4 workers, runner lists:seq(1, 100).)",
        "Function          Calls  % of time  Per call",
        "garbage_collect     723       2.2%   6596 ns",
        "lists:seq_loop/3      0       1.0%         -"],
       lists:nthtail(3, lines([R#{profile := Fprof}], #{}))).

%% A runner that blocks: nothing called while profiled, said in words.
profile_nothing_called_test() ->
    #{profile := Eprof} = R = seq_profiled(),
    ?assertEqual(["Profile (eprof, 1 s, runner lists:seq(1, 100).)",
                  "No function was called during the profile (the runner blocks, or waits)"],
                 lists:nthtail(3, lines([R#{profile := Eprof#{functions => [], total_calls => 0,
                                                               total_us => 0}}], #{}))).

no_overdue_no_note_test() ->
    [#{result := Result} = Report] = sleepy(),
    Text = text([Report#{result := Result#{overdue := 0}}], #{}),
    ?assertEqual(nomatch, string:find(Text, "Note")),
    ?assertEqual(nomatch, string:find(text(rand(), #{}), "Note")).

%%--------------------------------------------------------------------
%% Width, colour, labels

%% COLUMNS=60: both labels cut to what is left of 60 columns.
cut_to_width_test() ->
    Lines = lines(sums(), #{width => 60}),
    ?assertEqual(["Timer accuracy problem detected, results may be inaccurate",
                  "",
                  "Code                          ||        QPS       Time   Rel",
                  "lists:sum(lists:seq(1          1     934 Ki     107 ns  100%",
                  "lists:sum(lists:seq(1          1      80502    1242 ns    9%"],
                 Lines),
    ?assert(lists:all(fun (L) -> length(L) =< 60 end, Lines)),
    %% uncut without a width
    [#{label := Long} | _] = sums(),
    ?assertNotEqual(nomatch, string:find(text(sums(), #{}), binary_to_list(Long))).

%% COLUMNS=10: the Code column keeps its 12 columns however narrow the terminal.
narrow_terminal_keeps_code_test() ->
    ?assertEqual(["Code                 ||        QPS       Time",
                  "rand:uniform          1    1372 Ki      73 ns"],
                 lines(rand_million(), #{width => 10})).

colour_test() ->
    ?assertEqual("\e[1mCode                    ||        QPS       Time\e[0m\n"
                 "rand:uniform().          1   13031 Ki      77 ns\n",
                 text(rand(), #{colour => true})),
    ?assertEqual(nomatch, string:find(text(rand(), #{colour => false}), "\e[")),
    ?assertEqual(nomatch, string:find(text(rand(), #{}), "\e[")).

%% A label with a newline (multi-line code) is shown quoted on its one line, the newline
%% visible (erlperf_name): no line of the table begins with what follows it.
control_characters_in_label_test() ->
    ?assertEqual(["Code                            ||        QPS       Time",
                  "\"rand:uniform(\\n  10).\"          1    1657 Ki      60 ns"],
                 lines(newline(), #{})).

%% No iteration completed: no time, and no Rel when the best score is 0.
no_iterations_test() ->
    ?assertEqual(
       ["Timer accuracy problem detected, results may be inaccurate",
        "",
        "Code                                      ||        QPS       Time   Rel",
        "timer:sleep(infinity).                     1          0          -     -",
        "receive after infinity -> ok end.          1          0          -     -",
        "Note: 3 of 3 samples of timer:sleep(infinity). ended while a worker had been in one call far longer than expected (calls are counted when they start)",
        "Note: 3 of 3 samples of receive after infinity -> ok end. ended while a worker had been in one call far longer than expected (calls are counted when they start)"],
       lines(blocked(), #{})).

%% A cell wider than its column (not from a run: 123456 workers) widens the column.
wide_values_stay_aligned_test() ->
    [Report] = rand(),
    [Header, Row] = lines([Report#{concurrency => 123456}], #{}),
    ?assertEqual(length(Header), length(Row)),
    ?assertMatch(["rand:uniform().", "123456" | _], string:lexemes(Row, " ")).

%% Wide characters take two terminal columns: the row of a label with them is as wide
%% as the header and the ASCII row. (The run, before the fix, printed it 3 columns too
%% wide.)
wide_characters_test() ->
    Lines = lines(wide(), #{}),
    ?assertEqual(["Timer accuracy problem detected, results may be inaccurate",
                  "",
                  "Code                             ||        QPS       Time   Rel",
                  "lists:reverse(\"日本語\").          1    1172 Ki      85 ns  100%",
                  "lists:reverse(\"abc\").             1    1157 Ki      86 ns   99%"],
                 Lines),
    [_Note, _Blank | Table] = Lines,
    ?assertEqual([63, 63, 63], [columns(L) || L <- Table]).

%% Cut inside the wide characters: one that does not fit whole is left out and the
%% column padded.
wide_characters_cut_test() ->
    Lines = lines(wide(), #{width => 55}),
    ?assertEqual(["Timer accuracy problem detected, results may be inaccurate",
                  "",
                  "Code                     ||        QPS       Time   Rel",
                  "lists:reverse(\"           1    1172 Ki      85 ns  100%",
                  "lists:reverse(\"a          1    1157 Ki      86 ns   99%"],
                 Lines),
    [_Note, _Blank | Table] = Lines,
    ?assertEqual([55, 55, 55], [columns(L) || L <- Table]),
    [?assertEqual([W, W, W], [columns(L) || L <- tl(tl(lines(wide(), #{width => W})))])
     || W <- [56, 57]].

%% A combining mark takes no column, fullwidth letters two each.
combining_and_fullwidth_test() ->
    Lines = lines(combining(), #{}),
    ?assertEqual(["Timer accuracy problem detected, results may be inaccurate",
                  "",
                  "Code                             ||        QPS       Time   Rel",
                  "lists:reverse(\"cafe\x{301}\").            1    2574 Ki      39 ns  100%",
                  "lists:reverse(\"ＡＢＣ\").          1    1335 Ki      75 ns   52%"],
                 Lines),
    [_Note, _Blank | Table] = Lines,
    ?assertEqual([63, 63, 63], [columns(L) || L <- Table]).

empty_test() ->
    ?assertEqual([], erlperf_report:format([], #{})).

%%--------------------------------------------------------------------
%% Sweeps: the sleeps() fixture as the sweep `'timer:sleep(N).' --param N=1,2' would
%% report it (erlperf_sweep adds params, best and, with --bytes, the bytes figures)

sweep_sleeps(Bytes) ->
    [One, Two] = sleeps(),
    [R#{label => <<"timer:sleep(N).">>, params => [{'N', N}], best => Best}
         #{bytes_processed => Bytes(N), bytes_per_second => Bytes(N) * Qps}
     || {N, Best, #{qps := Qps} = R} <- [{2, false, Two}, {1, true, One}]].

%% Kept in combination order (the slower first), a column per parameter, the best marked.
sweep_basic_test() ->
    Reports = [maps:without([bytes_processed, bytes_per_second], R)
               || R <- sweep_sleeps(fun (N) -> N end)],
    ?assertEqual(["Code               N         ||        QPS       Time   Rel Best",
                  "timer:sleep(N).    2          1        310    3225 us   67%",
                  "timer:sleep(N).    1          1        463    2161 us  100%    *"],
                 lines(Reports, #{format => basic})).

%% With bytes, Bytes/s follows the time, and Rel and Best go by it.
sweep_bytes_test() ->
    Reports = sweep_sleeps(fun (N) -> 1000 * N * N end),
    ?assertEqual(["Code               N     ||   Samples       Avg   StdDev    Median      P99  Iteration    Rel    Bytes/s Best",
                  "timer:sleep(N).    2      1         3       310    3.87%       304      324    3225 us   100%  1.24 MB/s",
                  "timer:sleep(N).    1      1         3       463    4.07%       455      484    2161 us    37%   463 KB/s    *"],
                 lines(Reports, #{format => extended})).

%% Verdicts and notes name the combination.
sweep_verdict_lines_test() ->
    Fast = continuous(<<"fast.">>, #{}, figures([1000, 1010, 990, 1000])),
    Slow = continuous(<<"slow.">>, #{}, figures([500, 510, 490, 500])),
    Annotated = [R#{params => [{'N', 10}, {'S', "a b"}], best => false}
                 || R <- erlperf_comparison:annotate([Fast, Slow#{overdue => 1}], 95)],
    Text = text(Annotated, #{format => extended}),
    ?assertNotEqual(nomatch, string:find(Text, "slow. against fast. (N=10, S=\"a b\"): 50.0% slower (95% CI"),
                    Text),
    [Header | _] = lines(Annotated, #{format => extended}),
    ?assertMatch(["Code", "N", "S", "||" | _], string:lexemes(Header, " ")).

format_rate_test_() ->
    [?_assertEqual(Expected, erlperf_units:rate(N))
     || {N, Expected} <- [{0, "0.00 B/s"}, {5, "5.00 B/s"}, {12.34, "12.3 B/s"}, {512, "512 B/s"},
                          {999.4, "999 B/s"}, {999.5, "1.00 KB/s"}, {1500, "1.50 KB/s"},
                          {98.2e6, "98.2 MB/s"}, {103439005.0212053, "103 MB/s"},
                          {3.07e9, "3.07 GB/s"}, {5.0e15, "5000 TB/s"}]].

%%--------------------------------------------------------------------
%% Fixtures: full reports of this project's runs (see the module doc)

%% from `./erlperf 'rand:uniform().'`
%% on this project's 2-core CI machine
rand() ->
    [continuous(<<"rand:uniform().">>,
         #{},
         #{samples => [38310, 12930903, 25754408, 39134517],
           values => [12903027.44604112, 12810837.618141506, 13380231.281933686],
           average => 13031365.448705437, stddev => 305622.75485894404,
           median => 12903027.44604112, p99 => 13380231.281933686,
           iteration_time => 76.73792926276518, time => 3000170, overdue => 0})].

%% from `./erlperf 'rand:uniform().' -c 4`
%% on this project's 2-core CI machine
rand_c4() ->
    [continuous(<<"rand:uniform().">>,
         #{concurrency => 4},
         #{samples => [523761, 9952602, 21860288, 33865384],
           values => [9402646.777514562, 11940716.05051746, 11959131.460922152],
           average => 11100831.429651393, stddev => 1470699.8729856159,
           median => 11940716.05051746, p99 => 11959131.460922152,
           iteration_time => 360.3333701037576, time => 3003863, overdue => 0})].

%% from `./erlperf 'rand:uniform().' 'crypto:strong_rand_bytes(2).' --samples 10 --warmup 1`
%% on this project's 2-core CI machine
rand_crypto() ->
    [continuous(<<"rand:uniform().">>,
         #{samples => 10, warmup => 1, sleep => busy_wait, qps => 4883838.746761983,
           relative => 1.0},
         #{samples => [5186016, 9599577, 13860900, 18260980, 23030443, 28370544, 32514245,
                       38167554, 43937307, 48743780, 54243336],
           values => [4191393.974475283, 4477655.451441431, 4419125.871276215,
                      4769428.168866083, 5338658.2169395555, 4144819.8609629082,
                      5643302.482267425, 5780046.470898303, 4785982.114308479, 5287974.856184149],
           average => 4883838.746761983, stddev => 594362.1696935284,
           median => 4769428.168866083, p99 => 5780046.470898303,
           iteration_time => 204.75696513587934, time => 10044674, overdue => 0}),
     continuous(<<"crypto:strong_rand_bytes(2).">>,
         #{samples => 10, warmup => 1, sleep => busy_wait, qps => 148474.11611619114,
           relative => 0.03040110941718345},
         #{samples => [131121, 282513, 426528, 573372, 720847, 869655, 1016064, 1161266,
                       1310721, 1459776, 1622421],
           values => [143771.32582596276, 151326.13740834425, 147479.61842550238,
                      147473.92299794033, 148767.79520581005, 146448.53260978975,
                      144944.98832987808, 149721.63371778757, 148419.55089485584,
                      156387.6557460404],
           average => 148474.11611619114, stddev => 3544.43287705321,
           median => 147479.61842550238, p99 => 156387.6557460404,
           iteration_time => 6735.180691141018, time => 10044674, overdue => 0})].

%% from `./erlperf 'rand:uniform(1000).' 'rand:uniform().' -l 1M -s 20`
%% on this project's 2-core CI machine
timed_rand() ->
    [timed(<<"rand:uniform(1000).">>,
         #{samples => 20, sample_duration => {timed, 1000000}, qps => 6730726.683192407,
           relative => 1.0},
         #{samples => [120727, 108503, 137246, 154147, 180435, 128713, 126879, 162345, 166615,
                       148625, 153406, 175023, 145270, 155987, 156233, 170433, 151419, 162637,
                       171609, 95196],
           values => [120726.794, 108502.984, 137246.289, 154146.665, 180434.609, 128712.828,
                      126879.115, 162345.321, 166614.967, 148624.707, 153406.091, 175023.241,
                      145269.923, 155986.889, 156233.126, 170432.828, 151419.269, 162637.393,
                      171608.694, 95195.622],
           average => 148572.36775, stddev => 22765.230343334766, median => 153406.091,
           p99 => 180434.609, iteration_time => 148.57236775, time => 2971447, overdue => 0}),
     timed(<<"rand:uniform().">>,
         #{samples => 20, sample_duration => {timed, 1000000}, qps => 5980802.457238049,
           relative => 0.8885819821168751},
         #{samples => [220033, 193504, 139886, 191614, 170653, 146874, 239725, 180218, 166956,
                       171297, 172571, 160857, 171702, 340189, 305220, 110756, 68215, 74715,
                       54140, 64908],
           values => [220033.1, 193504.129, 139885.877, 191613.951, 170652.554, 146873.65,
                      239725.053, 180218.32, 166956.003, 171297.234, 172571.227, 160856.522,
                      171701.59, 340189.374, 305220.389, 110755.779, 68215.387, 74714.655,
                      54140.011, 64908.064],
           average => 167201.64344999997, stddev => 74177.8030372912, median => 170652.554,
           p99 => 340189.374, iteration_time => 167.20164344999998, time => 3344033,
           overdue => 0})].

%% from `./erlperf 'timer:sleep(1).' 'timer:sleep(2).'`
%% on this project's 2-core CI machine
%% ./erlperf 'timer:sleep(1).' 'rand:uniform().' --latency -d 200 (the run's reports
%% given to erlperf_report:format/2 from the same node)
latencies() ->
    [continuous(<<"timer:sleep(1).">>,
         #{qps => 377.2025195798557, relative => 3.217612196781094e-5},
         #{samples => [1, 87, 181, 228],
           values => [86.1255797077719, 93.52122696307907, 46.6747050770624],
           average => 75.44050391597114, stddev => 25.184862253180086,
           median => 86.1255797077719, p99 => 93.52122696307907,
           iteration_time => 2651095.759153048, time => 602126, overdue => 0,
           latency => #{average => 2080635.056133056, calls => 481, max => 5652234,
                        min => 1185334, p50 => 1999998, p90 => 2255461, p99 => 4851217,
                        p999 => 5652234, stddev => 539119.4677083285, timer_ns => 80,
                        unfinished => false}}),
     continuous(<<"rand:uniform().">>,
         #{qps => 11723057.239688795, relative => 1.0},
         #{samples => [1, 2545103, 5433764, 7056060],
           values => [2548818.4321559267, 2873948.0957488827, 1611067.8159084683],
           average => 2344611.447937759, stddev => 655737.7674078717,
           median => 2548818.4321559267, p99 => 2873948.0957488827,
           iteration_time => 85.3019804948548, time => 602126, overdue => 0,
           latency => #{average => 137.96323, calls => 100000, max => 2817927, min => 29,
                        p50 => 40, p90 => 60, p99 => 431, p999 => 602,
                        stddev => 11864.891056066921, timer_ns => 80, unfinished => false}})].

sleeps() ->
    [continuous(<<"timer:sleep(1).">>,
         #{qps => 462.7588241633398, relative => 1.0},
         #{samples => [1, 450, 906, 1389],
           values => [449.1787345069626, 454.8293951246915, 484.26834285836526],
           average => 462.7588241633398, stddev => 18.840834302729963,
           median => 454.8293951246915, p99 => 484.26834285836526,
           iteration_time => 2160952.850133076, time => 2999556, overdue => 0}),
     continuous(<<"timer:sleep(2).">>,
         #{qps => 310.0618117908129, relative => 0.6700289559067825},
         #{samples => [1, 303, 608, 931],
           values => [302.1202178643713, 304.21702963383973, 323.8481878742277],
           average => 310.0618117908129, stddev => 11.98529428233444,
           median => 304.21702963383973, p99 => 323.8481878742277,
           iteration_time => 3225163.377019362, time => 2999556, overdue => 0})].

%% from `./erlperf '{rand,uniform,[]}' 'rand:uniform().' -l 1M`
%% on this project's 2-core CI machine
timed_mfa() ->
    [timed(<<"{rand,uniform,[]}">>,
         #{sample_duration => {timed, 1000000}, runner => {rand, uniform, []},
           qps => 8942790.2788066, relative => 0.9860902498584901},
         #{samples => [108194, 115232, 112041], values => [108193.507, 115231.636, 112040.624],
           average => 111821.92233333334, stddev => 3524.1577390083344, median => 112040.624,
           p99 => 115231.636, iteration_time => 111.82192233333333, time => 335466,
           overdue => 0}),
     timed(<<"rand:uniform().">>,
         #{sample_duration => {timed, 1000000}, qps => 9068936.92548927, relative => 1.0},
         #{samples => [106604, 110020, 114176], values => [106603.617, 110019.657, 114176.248],
           average => 110266.50733333333, stddev => 3792.345762300738, median => 110019.657,
           p99 => 114176.248, iteration_time => 110.26650733333332, time => 330800,
           overdue => 0})].

%% from `./erlperf 'erlang:unique_integer().' -c 50 -s 10 -d 100`
%% on this project's 2-core CI machine
unique_c50() ->
    [continuous(<<"erlang:unique_integer().">>,
         #{concurrency => 50, samples => 10, sample_duration => 100, sleep => busy_wait},
         #{samples => [3383469, 18283932, 33632348, 51832726, 66859441, 83817092, 100256597,
                       117823021, 134250758, 144477831, 160744366],
           values => [14324597.836914502, 15331658.803560885, 16273477.076712964,
                      15642455.710383793, 18014168.852878034, 17484953.446717806,
                      16306127.029256696, 15798781.200880468, 11608385.428244323,
                      16266534.837334651],
           average => 15705114.022288416, stddev => 1774516.7614905513,
           median => 15798781.200880468, p99 => 18014168.852878034,
           iteration_time => 318.367634447231, time => 1000000, overdue => 0})].

%% from `./erlperf 'erlang:system_time(millisecond) rem 1000 > 990 andalso
%%   timer:sleep(400) =:= ok.' -d 100 -s 10`
%% on this project's 2-core CI machine
sleepy() ->
    [continuous(<<"erlang:system_time(millisecond) rem 1000 > 990 andalso "
                  "timer:sleep(400) =:= ok.">>,
         #{samples => 10, sample_duration => 100, sleep => busy_wait},
         #{samples => [45489, 249728, 249728, 249728, 249728, 646340, 1146389, 1720473, 2246426,
                       2791829, 3332522],
           values => [204581.01034986248, 0.0, 0.0, 0.0, 400991.7400526246, 480696.24142467865,
                      605915.5172122271, 499792.01662757073, 586383.047770087, 540693.9678422024],
           average => 331905.35412792524, stddev => 255000.1569442819,
           median => 400991.7400526246, p99 => 605915.5172122271,
           iteration_time => 301.2907106085951, time => 1000000, overdue => 3})].

%% from `./erlperf 'rand:uniform().' -r full`
%% on this project's 2-core CI machine
rand_full() ->
    [continuous(<<"rand:uniform().">>,
         #{},
         #{samples => [20801, 9586496, 19531935, 28804553],
           values => [9565804.3562754, 9919461.527293324, 9296885.604712667],
           average => 9594050.496093797, stddev => 312247.6231379024, median => 9565804.3562754,
           p99 => 9919461.527293324, iteration_time => 104.23126294854801, time => 2999997,
           overdue => 0})].

%% from `./erlperf '1 + 1.' -d 100`
%% on this project's 2-core CI machine
dead() ->
    [continuous(<<"1 + 1.">>,
         #{sample_duration => 100, sleep => busy_wait, warnings => [{dead_code, runner}]},
         #{samples => [1090955, 36546972, 66842555, 95715623],
           values => [35743051.21535439, 29005985.58278505, 29137999.432237737],
           average => 31295678.743459057, stddev => 3852103.106348676,
           median => 29137999.432237737, p99 => 35743051.21535439,
           iteration_time => 3.1953293238894993, time => 302733, overdue => 0})].

%% from `COLUMNS=60 ./erlperf 'lists:sum(lists:seq(1, 10)) + lists:sum(lists:seq(1, 20)) +
%%   lists:sum(lists:seq(1, 30)).' 'lists:sum(lists:seq(1, 10)).' -d 100`
%% on this project's 2-core CI machine
sums() ->
    [continuous(<<"lists:sum(lists:seq(1, 10)) + lists:sum(lists:seq(1, 20)) + "
                  "lists:sum(lists:seq(1, 30)).">>,
         #{sample_duration => 100, sleep => busy_wait, qps => 805023.7124605105,
           relative => 0.0861830818854481},
         #{samples => [10227, 100479, 178778, 260677],
           values => [84251.83063735317, 78315.97890422643, 78939.30419657356],
           average => 80502.37124605106, stddev => 3262.049647121825,
           median => 78939.30419657356, p99 => 84251.83063735317,
           iteration_time => 1242.1994340310239, time => 310849, overdue => 0}),
     continuous(<<"lists:sum(lists:seq(1, 10)).">>,
         #{sample_duration => 100, sleep => busy_wait, qps => 9340855.477070585, relative => 1.0},
         #{samples => [171382, 1214339, 2155994, 3076021],
           values => [973618.717879293, 941859.1950734919, 886778.7301683902],
           average => 934085.5477070584, stddev => 43938.799044132764,
           median => 941859.1950734919, p99 => 973618.717879293,
           iteration_time => 107.05657554115304, time => 310849, overdue => 0})].

%% from `COLUMNS=10 ./erlperf 'rand:uniform(1000000).' -d 100`
%% on this project's 2-core CI machine
rand_million() ->
    [continuous(<<"rand:uniform(1000000).">>,
         #{sample_duration => 100},
         #{samples => [4302, 1414368, 3076501, 4123921],
           values => [1423200.6763459768, 1646117.054732469, 1047044.2262976241],
           average => 1372120.6524586899, stddev => 302785.30359394196,
           median => 1423200.6763459768, p99 => 1646117.054732469,
           iteration_time => 72.87988838358417, time => 300085, overdue => 0})].

%% from `./erlperf $'rand:uniform(\n  10).' -d 100`
%% on this project's 2-core CI machine
newline() ->
    [continuous(<<"rand:uniform(\n  10).">>,
         #{sample_duration => 100},
         #{samples => [57296, 1900309, 3396172, 5036739],
           values => [1847739.0175172745, 1481599.7283115287, 1640286.2978058564],
           average => 1656541.6812115533, stddev => 183610.111083981,
           median => 1640286.2978058564, p99 => 1847739.0175172745,
           iteration_time => 60.36672734178502, time => 300724, overdue => 0})].

%% from `./erlperf 'rand:uniform().' -s 9 -d 100`
%% on this project's 2-core CI machine
rand_9() ->
    [continuous(<<"rand:uniform().">>,
         #{samples => 9, sample_duration => 100, sleep => busy_wait},
         #{samples => [60219, 1241753, 1946443, 2323599, 2853316, 3729064, 4731091, 5585065,
                       6209292, 6862984],
           values => [1152048.9544410852, 723193.5877444133, 367774.8290817686,
                      543582.6519270911, 864403.0044634389, 1015354.389412267,
                      853973.9060628703, 624226.3008665431, 637545.8578781415],
           average => 753567.0535419576, stddev => 243343.42079714086,
           median => 723193.5877444133, p99 => 1152048.9544410852,
           iteration_time => 132.70219223355699, time => 902533, overdue => 0})].

%% from `./erlperf 'timer:sleep(infinity).' 'receive after infinity -> ok end.' -d 100`
%% on this project's 2-core CI machine
blocked() ->
    [continuous(<<"timer:sleep(infinity).">>,
         #{sample_duration => 100, sleep => busy_wait, qps => 0.0, relative => 0.0},
         #{samples => [1, 1, 1, 1], values => [0.0, 0.0, 0.0], average => 0.0, stddev => 0.0,
           median => 0.0, p99 => 0.0, iteration_time => infinity, time => 300000, overdue => 3}),
     continuous(<<"receive after infinity -> ok end.">>,
         #{sample_duration => 100, sleep => busy_wait, qps => 0.0, relative => 0.0},
         #{samples => [1, 1, 1, 1], values => [0.0, 0.0, 0.0], average => 0.0, stddev => 0.0,
           median => 0.0, p99 => 0.0, iteration_time => infinity, time => 300000, overdue => 3})].

%% from `./erlperf 'lists:reverse("日本語").' 'lists:reverse("abc").' -d 100`
%% on this project's 2-core CI machine
wide() ->
    [continuous(<<"lists:reverse(\"日本語\")."/utf8>>,
         #{sample_duration => 100, sleep => busy_wait, qps => 11723141.736463683,
           relative => 1.0},
         #{samples => [635840, 1857686, 3195911, 4163797],
           values => [1228739.2517772554, 1281540.6868925928, 1006662.5822692568],
           average => 1172314.1736463683, stddev => 145867.52613891463,
           median => 1228739.2517772554, p99 => 1281540.6868925928,
           iteration_time => 85.30136566459808, time => 300010, overdue => 0}),
     continuous(<<"lists:reverse(\"abc\").">>,
         #{sample_duration => 100, sleep => busy_wait, qps => 11565628.698393501,
           relative => 0.9865639227426337},
         #{samples => [502237, 1799017, 2915461, 3969665],
           values => [1304096.0046681082, 1069153.8497914132, 1096438.7550585293],
           average => 1156562.8698393502, stddev => 128493.71937242392,
           median => 1096438.7550585293, p99 => 1304096.0046681082,
           iteration_time => 86.46309042749252, time => 300010, overdue => 0})].

%% from `./erlperf $'lists:reverse("cafe\u0301").' 'lists:reverse("ＡＢＣ").' -d 100`
%% on this project's 2-core CI machine
combining() ->
    [continuous(<<"lists:reverse(\"cafe\x{301}\")."/utf8>>,
         #{sample_duration => 100, sleep => busy_wait, qps => 25743162.61074567, relative => 1.0},
         #{samples => [192058, 3223556, 5808456, 8405546],
           values => [2638908.7350025945, 2586323.3313189247, 2497716.7169021806],
           average => 2574316.2610745667, stddev => 71357.71714192248,
           median => 2586323.3313189247, p99 => 2638908.7350025945,
           iteration_time => 38.84526602735989, time => 318800, overdue => 0}),
     continuous(<<"lists:reverse(\"\x{FF21}\x{FF22}\x{FF23}\")."/utf8>>,
         #{sample_duration => 100, sleep => busy_wait, qps => 13353236.793493256,
           relative => 0.5187100355695756},
         #{samples => [161357, 1831686, 3073107, 4435071],
           values => [1454015.7336168948, 1242104.5674065808, 1309850.7370245012],
           average => 1335323.6793493256, stddev => 108227.7168019667,
           median => 1309850.7370245012, p99 => 1454015.7336168948,
           iteration_time => 74.88820991231717, time => 318800, overdue => 0})].

%%--------------------------------------------------------------------
%% Latency (--latency): a second table, rows in the throughput table's order

%% The throughput table of latencies(), as the run printed it.
latencies_throughput() ->
    ["Code                    ||        QPS       Time   Rel",
     "rand:uniform().          1    2345 Ki      85 ns  100%",
     "timer:sleep(1).          1         75    2651 us    0%"].

latency_table_test() ->
    ?assertEqual(
       latencies_throughput() ++
       ["",
        "Latency           Calls      ips   Average  Deviation    Median       P90       P99     P99.9       Max",
        "rand:uniform().  100000  7248 Ki    138 ns   8600.04%     40 ns     60 ns    431 ns    602 ns   2818 us",
        "timer:sleep(1).     481      481   2081 us     25.91%   2000 us   2255 us   4851 us   5652 us   5652 us"],
       lines(latencies(), #{})).

%% Without latency figures the tables are as before (no second table).
no_latency_table_test() ->
    Plain = [R#{result => maps:remove(latency, Result)} || #{result := Result} = R <- latencies()],
    ?assertEqual(latencies_throughput(), lines(Plain, #{})).

%% A call that never returned: no figures when none returned, and a note.
latency_unfinished_test() ->
    [Sleep, Rand] = latencies(),
    #{result := Result} = Sleep,
    Stuck = Sleep#{label => <<"stuck.">>,
                   result => Result#{latency => #{calls => 0, timer_ns => 80, unfinished => true}}},
    Lines = lines([Stuck, Rand], #{}),
    ?assertEqual(["Latency           Calls      ips   Average  Deviation    Median       P90       P99     P99.9       Max",
                  "rand:uniform().  100000  7248 Ki    138 ns   8600.04%     40 ns     60 ns    431 ns    602 ns   2818 us",
                  "stuck.                0        -         -          -         -         -         -         -         -",
                  "Note: a call of stuck. had not returned when latency timing ended; it is not in the figures"],
                 lists:nthtail(4, Lines)).

%% The host's interference in the record: the share and CPU time summed over the
%% samples, other programs' share of the host's CPUs from the summed ticks, the samples
%% with the waiting taken out, and the note under the table once it is 10% or more.
interference_record_test() ->
    Figure = fun (Cpu, Wait, Idle) ->
                     #{wall_ns => 100000000, cpu_ns => Cpu, wait_ns => Wait, busy_cpu_ns => Cpu,
                       busy_wait_ns => Wait, share => Wait / (Cpu + Wait), pressure => 0.5, steal => 0.0,
                       host_ticks => 20, host_idle => Idle, cpus => 2}
             end,
    %% two samples of 0.1 s: ran 0.05 s and waited 0.05 s each; the host's 2 CPUs idle
    %% 4 ticks of 40 (90% busy), this VM 0.1 s of 0.4 s (25%): others 65%
    Figures = [Figure(50000000, 50000000, 2), Figure(50000000, 50000000, 2)],
    Report = continuous(<<"x().">>, #{samples => 2, sample_duration => 100},
                          (figures([1000, 1000]))#{interference => Figures, cpu_values => [2000.0, 2000.0]}),
    #{<<"runs">> := [Run]} = erlperf_record:from_reports([Report]),
    #{<<"interference">> := I, <<"cpu_samples">> := [2000.0, 2000.0]} = Run,
    ?assertEqual(0.5, maps:get(<<"share">>, I)),
    ?assert(abs(maps:get(<<"others">>, I) - 0.65) < 1.0e-9, I),
    ?assertEqual([0.5, 0.5], maps:get(<<"samples">>, I)),
    ?assertEqual(1.0, maps:get(<<"demand">>, I)),
    ?assertEqual(ok, erlperf_schema:check(benchmark, erlperf_record:from_reports([Report]))),
    Text = text([Report], #{format => extended}),
    ?assertNotEqual(nomatch, string:find(Text, "Note: other programs kept 65% of the host's CPUs busy and took "
                                               "50% of the schedulers' time during the run\n")).
