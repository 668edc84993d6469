%%% @doc Calibration of erlperf's intervals and verdicts (`make bench-calibration', and
%%% part of `make bench'): do they hold what they claim when the same benchmark is run
%%% again? Every figure is taken twice, for single runs (`forks => 1') and for forked
%%% runs (`forks => ?FORKS'), with the same samples of the same duration per runner, the
%%% two kinds alternating in time (single, forked, single, forked, ...) so that both see
%%% the same machine.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>kind</b>: single (one run, its interval and verdicts from its samples) or
%%%       forked (`?FORKS' forks, interval and verdicts from the fork means, see
%%%       {@link erlperf_forks}).</li>
%%%   <li><b>run average</b>: the `average' of one run's report.</li>
%%%   <li><b>trial</b>: one `erlperf:compare/2' of two runners, `report => full'.</li>
%%%   <li><b>countdown</b>: the runner of the verdict figures, source text
%%%       `runner() -> count(N). count(0) -> ok; count(I) -> count(I - 1).' with N
%%%       ?STEPS, or ?STEPS_MORE (3% more work).</li>
%%% </ul>
%%%
%%% The figures:
%%% <ul>
%%%   <li><b>(a) coverage</b>: ?RUNS runs of `erlang:phash2(12345).' per kind, each in a
%%%       fresh VM (`erl -noshell -eval', spawned through a port, calling
%%%       `erlperf:run/2'), and how many of their 95% intervals hold the mean of the
%%%       ?RUNS run averages of that kind (which stands in for the true mean; its own
%%%       error is the spread over the square root of ?RUNS). Goal: at least 17 of 20.
%%%       If each interval holds the true mean with probability 0.95, the count is
%%%       Binomial(20, 0.95): P(X =&lt; 16) is about 0.016 (P(X =&lt; 17) about 0.075), so
%%%       fewer than 17 is evidence, at about 2%, that the intervals are too narrow for
%%%       the variation between runs. (For other run counts the goal is likewise the
%%%       highest count that honest intervals fall below with probability ?GOAL_ALPHA
%%%       at most.)
%%%       Beside it: the spread of the run averages (standard deviation in percent of
%%%       their mean) and the median half-width of the intervals in percent: intervals
%%%       much narrower than the spread cannot cover. A fresh VM per run puts in
%%%       everything that changes from one run to the next (where the loader places
%%%       code, which CPUs the schedulers get, the state of the host); a single run's
%%%       interval knows only the variation within that run.</li>
%%%   <li><b>(b) false alarms</b>: ?FALSE_ALARM_TRIALS trials per compare mode
%%%       (parallel, sequential, interleaved) and kind of the countdown against itself,
%%%       and how many are called significantly different. Both runners are the same
%%%       source text, so each gets a generated module of its own: where the loader
%%%       puts each copy is part of what a verdict must not mistake for a difference
%%%       (a fork generates and loads its copies again). Goal: at most 1 of 20. A test
%%%       exactly at 5% would call 2 or more of 20 with probability 0.26; the noise
%%%       floor (`noise', 1% by default) makes the verdicts stricter than that, so 2 or
%%%       more points to variation the test does not see.</li>
%%%   <li><b>(c) power</b>: ?POWER_TRIALS trials per mode and kind of the countdown of
%%%       ?STEPS_MORE steps against that of ?STEPS (3% more work), and how many call it
%%%       slower. Goal: every one.</li>
%%% </ul>
%%% Why a countdown for (b) and (c): it is the tightest loop a user measures, all of it
%%% in the generated module, so its speed depends most on the placement of that module
%%% (alignment of the loop, branch prediction): two copies of the same text differ most
%%% there, the hard case for false alarms. `erlang:phash2/1' spends much of its time
%%% in the emulator's C code, shared by both copies, which dilutes that. (b) and (c)
%%% measure the same work, so they are the two error rates of one test. Every figure
%%% prints its trials' changes in percent (b against a; for coverage, each run average
%%% against the mean of the averages, `*' marking an interval that misses it).
%%%
%%% Schedule: per runner ?SAMPLES samples of ?DURATION ms (coverage, parallel and
%%% sequential) or ?TURNS turns of ?TURN_MS ms (interleaved: short turns pair up samples
%%% taken under the same conditions); forked runs split them among the forks.
%%%
%%% Example:
%%% ```
%%% erlperf_bench_calibration:main(#{runs => 3, false_alarm_trials => 3, power_trials => 1}).
%%% '''
%%% Cost: about 11 minutes with the default counts, both cores busy; nothing else
%%% should run meanwhile. The coverage figure starts 2 x ?RUNS VMs, one at a time, each
%%% allowed ?RUN_TIMEOUT_MS (the calibration fails with its output when one exits with
%%% a non-zero status or times out); every trial stops its jobs before the next starts.
-module(erlperf_bench_calibration).

%% API: `make bench' and `make bench-calibration'; main/1 with fewer trials for a
%% quick look.
-export([main/0, main/1]).

-export_type([counts/0]).

%% Trials per figure and kind (see the module doc).
-type counts() :: #{runs => pos_integer(), false_alarm_trials => pos_integer(),
                    power_trials => pos_integer()}.

%% Forks of the forked kind: what `forks => auto' takes for ?SAMPLES and ?TURNS.
-define(FORKS, 10).
%% Fresh-VM runs per kind for the coverage figure, and its runner.
-define(RUNS, 20).
-define(COVERAGE_CODE, "erlang:phash2(12345).").
%% Trials per mode and kind of the false-alarm and power figures.
-define(FALSE_ALARM_TRIALS, 20).
-define(POWER_TRIALS, 5).
%% The countdown's steps, and 3% more.
-define(STEPS, 2000).
-define(STEPS_MORE, 2060).
%% Per runner: samples and their duration (coverage, parallel, sequential), or turns
%% and their duration (interleaved); the same for both kinds.
-define(SAMPLES, 30).
-define(DURATION, 100).
-define(TURNS, 60).
-define(TURN_MS, 50).
%% The coverage goal misses at most this often when intervals hold what they claim.
-define(GOAL_ALPHA, 0.025).
%% How long one fresh-VM run may take.
-define(RUN_TIMEOUT_MS, 60000).
%% The compare modes of the verdict figures.
-define(MODES, [parallel, sequential, interleaved]).

%%--------------------------------------------------------------------
%% API

%% @doc Runs the calibration with the default counts and prints the figures.
-spec main() -> ok.
main() ->
    main(#{}).

%% @doc Runs the calibration with `Counts' (missing ones take the defaults: ?RUNS runs,
%% ?FALSE_ALARM_TRIALS false-alarm trials, ?POWER_TRIALS power trials) and prints the
%% figures and the elapsed time.
-spec main(counts()) -> ok.
main(Counts) ->
    #{runs := Runs, false_alarm_trials := Same, power_trials := More} =
        maps:merge(#{runs => ?RUNS, false_alarm_trials => ?FALSE_ALARM_TRIALS,
                     power_trials => ?POWER_TRIALS}, Counts),
    T0 = erlang:monotonic_time(),
    ?FORKS = erlperf_forks:auto(?SAMPLES),
    ?FORKS = erlperf_forks:auto(?TURNS),
    #{noise := Noise, confidence := Confidence, run_noise := RunNoise} = erlperf:defaults(),
    io:format("calibration: single runs (forks => 1) against ~b forks; per runner ~b samples of ~b ms "
              "(interleaved: ~b turns of ~b ms); ~b% intervals, noise floor ~p%, run noise ~p%~n",
              [?FORKS, ?SAMPLES, ?DURATION, ?TURNS, ?TURN_MS, Confidence, Noise, RunNoise]),
    coverage(Runs, Confidence, RunNoise),
    false_alarms(Same),
    power(More),
    Seconds = erlang:convert_time_unit(erlang:monotonic_time() - T0, native, millisecond) / 1000,
    io:format("calibration elapsed: ~.1f s (~.1f min)~n", [Seconds, Seconds / 60]).

%%--------------------------------------------------------------------
%% (a) Coverage

coverage(Runs, Confidence, RunNoise) ->
    Pairs = [{fresh_run(1), fresh_run(?FORKS)} || _ <- lists:seq(1, Runs)],
    io:format("~-44s ~9s ~9s ~9s ~9s~n",
              ["(a) coverage: phash2, a fresh VM per run", "runs", "covered", "spread %", "half %"]),
    Goal = coverage_goal(Runs, Confidence),
    Kinds = [{1, [S || {{S, _}, _} <- Pairs]}, {?FORKS, [F || {_, {F, _}} <- Pairs]}],
    Loads = [{1, [L || {{_, L}, _} <- Pairs]}, {?FORKS, [L || {_, {_, L}} <- Pairs]}],
    lists:foreach(fun ({Forks, Runs1}) ->
                          [coverage_row(Forks, R, [intervals(Runs1, Confidence, R)], Goal)
                           || R <- lists:usort([0, RunNoise])]
                  end, Kinds),
    lists:foreach(fun ({Forks, Runs1}) -> run_noise_row(Forks, Runs1, Confidence, RunNoise) end, Kinds),
    lists:foreach(fun ({Forks, L}) -> load_row(Forks, L) end, Loads),
    io:format("~-44s ~9s ~9s~n", ["(d) each run against the one before",
                                  "pairs", "different"]),
    lists:foreach(fun ({Forks, Runs1}) ->
                          [across_runs_row(Forks, R, Runs1, Confidence)
                           || R <- lists:usort([0, RunNoise])]
                  end, Kinds).

%% Each run's {Average, Low, High} at Confidence with run noise R.
intervals(Runs, Confidence, R) ->
    [case erlperf_stat:interval(Values, Sizes, Confidence, R) of
         {Lo, Hi} -> {erlperf_stat:mean(Values), Lo, Hi}
     end || {Values, Sizes} <- Runs].

%% The run noise the runs showed: the spread of their averages beyond what their own
%% intervals' standard errors account for, in percent of the mean.
run_noise_row(Forks, Runs, Confidence, Default) ->
    Averages = [erlperf_stat:mean(V) || {V, _} <- Runs],
    Mean = erlperf_stat:mean(Averages),
    Sd = erlperf_stat:stddev(Averages),
    Se2 = erlperf_stat:mean([element(3, own_se(V, S, Confidence)) || {V, S} <- Runs]),
    Beyond = math:sqrt(max(0.0, Sd * Sd - Se2)),
    io:format("  ~-42ts  run noise shown: ~.2f% (spread of the averages ~.2f%, their own "
              "standard error ~.2f%; the default is ~s%)~n",
              [kind(Forks), 100 * Beyond / Mean, 100 * Sd / Mean, 100 * math:sqrt(Se2) / Mean,
               erlperf_units:number(Default)]).

%% The host's load each run measured (erlperf_record:host_load/2: what other programs
%% took of the CPUs), which tells a quiet stretch from a busy one.
load_row(Forks, Loads) ->
    Text = [case L of
                undefined -> "-";
                _ -> io_lib:format("~.1f%", [100 * L])
            end || L <- Loads],
    io:format("  ~-42ts  host load measured per run: ~ts~n", [kind(Forks), lists:join(", ", Text)]).

%% {Mean, Se, Se²} of a run's own interval: of its fork means, or of its samples.
own_se(Values, [_], _Confidence) ->
    se(Values);
own_se(Values, Sizes, _Confidence) ->
    #{means := Means} = erlperf_stat:components(erlperf_stat:split(Values, Sizes)),
    se(Means).

se(Units) ->
    Sd = erlperf_stat:stddev(Units),
    Se = Sd / math:sqrt(length(Units)),
    {erlperf_stat:mean(Units), Se, Se * Se}.

%% Each run against the run before it, as a baseline is compared (Welch's test of fork
%% means or samples, the default noise floor, run noise R): how many are called
%% different, though the code and the machine are the same.
across_runs_row(Forks, R, Runs, Confidence) ->
    #{noise := Noise} = erlperf:defaults(),
    Outcomes = [erlperf_stat:compare_runs(A, B, #{test => welch, confidence => Confidence,
                                                  noise => Noise, run_noise => R})
                || {A, B} <- lists:zip(lists:droplast(Runs), tl(Runs))],
    Changes = [io_lib:format("~.1f%", [C]) || #{change_pct := C} <- Outcomes],
    io:format("  ~-42ts ~9b ~9b  (goal: at most ~b of ~b; changes ~ts)~n",
              [[kind(Forks), noise_text(R)], length(Outcomes),
               length([x || #{significant := true} <- Outcomes]),
               max(1, length(Outcomes) div 20), length(Outcomes), lists:join(", ", Changes)]).

noise_text(R) when R == 0 -> ", own spread";
noise_text(R) -> [", run noise ", erlperf_units:number(R), "%"].

coverage_row(Forks, R, [Results], Goal) ->
    Mean = erlperf_stat:mean([A || {A, _, _} <- Results]),
    Covered = [Lo =< Mean andalso Mean =< Hi || {_, Lo, Hi} <- Results],
    Spread = 100 * erlperf_stat:stddev([A || {A, _, _} <- Results]) / Mean,
    Half = erlperf_stat:median([50 * (Hi - Lo) / A || {A, Lo, Hi} <- Results]),
    Changes = [io_lib:format("~.1f%~ts", [100 * (A / Mean - 1), mark(In)])
               || {{A, _, _}, In} <- lists:zip(Results, Covered)],
    io:format("  ~-42ts ~9b ~9b ~9.2f ~9.2f  (goal: at least ~b of ~b; runs against their "
              "mean: ~ts)~n",
              [[kind(Forks), noise_text(R)], length(Results), length([C || C <- Covered, C]), Spread, Half, Goal,
               length(Results), lists:join(", ", Changes)]).

mark(true) -> "";
mark(false) -> "*".

%% The smallest count of intervals holding the mean that Binomial(Runs, Confidence%)
%% falls below with probability ?GOAL_ALPHA at most (95%: 17 of 20).
coverage_goal(Runs, Confidence) ->
    P = Confidence / 100,
    hd([K || K <- lists:seq(Runs, 0, -1), binomial_cdf(K - 1, Runs, P) =< ?GOAL_ALPHA]).

binomial_cdf(K, _N, _P) when K < 0 -> 0.0;
binomial_cdf(K, N, P) ->
    lists:sum([choose(N, I) * math:pow(P, I) * math:pow(1 - P, N - I) || I <- lists:seq(0, K)]).

choose(N, K) ->
    lists:foldl(fun (I, Acc) -> Acc * (N - K + I) div I end, 1, lists:seq(1, K)).

%% The samples of one run in a fresh VM, and their forks' sizes: {Values, Sizes}.
fresh_run(Forks) ->
    Opts = #{report => full, samples => ?SAMPLES, sample_duration => ?DURATION, forks => Forks},
    Eval = io_lib:format("#{result := #{values := V} = R} = Report = erlperf:run(~0tp, ~0tp), "
                         "S = case R of #{forks := #{sizes := Ss}} -> Ss; _ -> [length(V)] end, "
                         "#{<<\"runs\">> := [Run]} = erlperf_record:from_reports([Report]), "
                         "L = erlperf_record:host_load(Run, true), "
                         "io:format(\"~~n~~w.~~n\", [{calibration, V, S, L}]), halt(0).",
                         [?COVERAGE_CODE, Opts]),
    Ebin = filename:absname(filename:dirname(code:which(erlperf))),
    Port = open_port({spawn_executable, os:find_executable("erl")},
                     [{args, ["-noshell", "-pa", Ebin, "-eval", lists:flatten(Eval)]},
                      exit_status, binary, stderr_to_stdout]),
    Output = collect(Port, []),
    Last = lists:last(string:lexemes(Output, "\n")),
    {ok, Tokens, _} = erl_scan:string(binary_to_list(Last)),
    case erl_parse:parse_term(Tokens) of
        {ok, {calibration, Values, Sizes, Load}} -> {{Values, Sizes}, Load};
        _ -> error({fresh_run_output, Output})
    end.

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Data | Acc]);
        {Port, {exit_status, 0}} -> iolist_to_binary(lists:reverse(Acc));
        {Port, {exit_status, Status}} -> error({fresh_run_failed, Status, lists:reverse(Acc)})
    after ?RUN_TIMEOUT_MS ->
        error({fresh_run_timeout, lists:reverse(Acc)})
    end.

%%--------------------------------------------------------------------
%% (b) False alarms and (c) power

false_alarms(Trials) ->
    io:format("~-44s ~9s ~9s~n", ["(b) false alarms: a countdown against itself", "trials",
                                  "different"]),
    Goal = max(1, Trials div 20),
    lists:foreach(fun (Mode) ->
                          verdict_rows(Mode, countdown(?STEPS), Trials, fun significant/1,
                                       io_lib:format("at most ~b of ~b", [Goal, Trials]))
                  end, ?MODES).

power(Trials) ->
    io:format("~-44s ~9s ~9s~n", [io_lib:format("(c) power: countdown ~b against ~b",
                                                [?STEPS_MORE, ?STEPS]), "trials", "slower"]),
    lists:foreach(fun (Mode) ->
                          verdict_rows(Mode, countdown(?STEPS_MORE), Trials, fun b_slower/1,
                                       io_lib:format("~b of ~b", [Trials, Trials]))
                  end, ?MODES).

%% Trials of a mode, single and forked alternating; a row per kind.
verdict_rows(Mode, B, Trials, Counted, Goal) ->
    Pairs = [{trial(Mode, B, 1), trial(Mode, B, ?FORKS)} || _ <- lists:seq(1, Trials)],
    lists:foreach(
      fun ({Forks, Outcomes}) ->
              Changes = [io_lib:format("~.1f%", [C]) || {_, C} <- Outcomes],
              io:format("  ~-42ts ~9b ~9b  (goal: ~ts; changes ~ts)~n",
                        [io_lib:format("~-12s ~ts", [Mode, kind(Forks)]), length(Outcomes),
                         length([O || O <- Outcomes, Counted(O)]), Goal, lists:join(", ", Changes)])
      end, [{1, [S || {S, _} <- Pairs]}, {?FORKS, [F || {_, F} <- Pairs]}]).

significant({#{significant := Significant}, _}) -> Significant.

b_slower({#{against := <<"a">>, verdict := slower}, _}) -> true;
b_slower(_) -> false.

%% One trial: the countdown of ?STEPS (a) against B (b). Returns the comparison made
%% and b's change against a in percent.
trial(Mode, B, Forks) ->
    Opts = (mode_options(Mode))#{report => full, forks => Forks},
    Reports = erlperf:compare([#{runner => countdown(?STEPS), label => "a"},
                               #{runner => B, label => "b"}], Opts),
    case [{L, C} || #{label := L, comparison := C} <- Reports] of
        [{<<"b">>, #{change_pct := Change} = C}] -> {C, Change};
        %% a against b: b's change against a is the inverse ratio
        [{<<"a">>, #{change_pct := Change} = C}] -> {C, 100 * (100 / (100 + Change) - 1)}
    end.

mode_options(interleaved) ->
    #{compare => interleaved, samples => ?TURNS, sample_duration => ?TURN_MS};
mode_options(Mode) ->
    #{compare => Mode, samples => ?SAMPLES, sample_duration => ?DURATION}.

countdown(Steps) ->
    lists:flatten(io_lib:format("runner() -> count(~b). count(0) -> ok; count(I) -> count(I - 1).", [Steps])).

kind(1) -> "single run";
kind(Forks) -> io_lib:format("~b forks", [Forks]).
