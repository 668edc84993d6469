%%% @doc The regression gate (`--fail-on-regression PCT', `--fail-on-inconclusive'):
%%% which verdicts against a baseline fail it, and how loudly each verdict is reported.
%%% The one home of that rule: the exit status (erlperf_cli_outcome), the
%%% `erlperf: regression:' lines, GitHub's annotations and job summary (erlperf_github)
%%% all ask this module; and when the gate's decision is settled, so that a run measured
%%% until decided may stop ({@link decided/2}).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>gate</b>: a percentage, or `none' (no gate: nothing fails).</li>
%%%   <li><b>time regressed</b>: the time verdict is significantly slower by more than
%%%       the gate's percentage.</li>
%%%   <li><b>count regressed</b>: an exact count (bytes, reductions per call) regressed
%%%       by more than the gate's percentage (or from nothing: a change without a
%%%       percentage).</li>
%%%   <li><b>fails</b>: time or a count regressed; or, when inconclusive verdicts fail
%%%       the gate too, the verdict is inconclusive.</li>
%%%   <li><b>level</b>: how a verdict is reported: `error' when it fails the gate,
%%%       `warning' for an inconclusive verdict that does not, a significant slowdown
%%%       or a regressed count within the gate (or with no gate), `new' when no run of
%%%       the baseline matched, else `none'.</li>
%%% </ul>
%%%
%%% Pure: no I/O.
-module(erlperf_gate).

-include("model/erlperf_schema.hrl").

-export([time_regressed/2, counts_regressed/2, regressed/2, fails/3, level/3, regressions/2,
         decided/2, decided/3]).

-export_type([gate/0, level/0]).

-type gate() :: number() | none.
-type level() :: error | warning | new | none.

%%--------------------------------------------------------------------
%% API

%% @doc Whether the entry's time regressed beyond the gate.
-spec time_regressed(erlperf_baseline:entry(), gate()) -> boolean().
time_regressed(#{verdict := slower, significant := true, change_pct := Change}, Percent)
  when is_number(Percent), is_number(Change) ->
    abs(Change) > Percent;
time_regressed(_Entry, _Gate) ->
    false.

%% @doc The entry's exact counts that regressed beyond the gate.
-spec counts_regressed(erlperf_baseline:entry(), gate()) -> [map()].
counts_regressed(#{counts := Counts}, Percent) when is_number(Percent) ->
    [C || #{verdict := regressed, change_pct := Change} = C <- Counts,
          Change =:= undefined orelse Change > Percent];
counts_regressed(_Entry, _Gate) ->
    [].

%% @doc Whether the entry regressed beyond the gate: its time or an exact count.
-spec regressed(erlperf_baseline:entry(), gate()) -> boolean().
regressed(Entry, Gate) ->
    time_regressed(Entry, Gate) orelse counts_regressed(Entry, Gate) =/= [].

%% @doc Whether the entry fails the gate, inconclusive verdicts failing it when
%% `FailsInconclusive' (`--fail-on-inconclusive').
-spec fails(erlperf_baseline:entry(), gate(), boolean()) -> boolean().
fails(_Entry, none, _FailsInconclusive) ->
    false;
fails(#{verdict := inconclusive}, _Percent, true) ->
    true;
fails(Entry, Percent, _FailsInconclusive) ->
    regressed(Entry, Percent).

%% @doc How the entry is reported (see the glossary).
-spec level(erlperf_baseline:entry(), gate(), boolean()) -> level().
level(Entry, Gate, FailsInconclusive) ->
    case fails(Entry, Gate, FailsInconclusive) of
        true -> error;
        false -> unfailed_level(Entry)
    end.

%% @doc The rows with an entry that regressed beyond the gate, by name, and those
%% entries.
-spec regressions([erlperf_baseline:row()], gate()) -> [{binary(), [erlperf_baseline:entry()]}].
regressions(Rows, Gate) ->
    [{Name, Bad} || #{name := Name, baselines := Entries} <- Rows,
                     Bad <- [[E || E <- Entries, regressed(E, Gate)]], Bad =/= []].

%% Measuring until decided: whether more samples could change what the gate says.

%% @doc Whether every verdict of rows compared with `Options' (those of
%% {@link erlperf_baseline:compare/3}) is decided, so that measuring longer would not change what it
%% says; never an inconclusive one. With a `gate', the interval of the slowdown lies
%% wholly past the gate or wholly within it (the gate passes or fails whatever more
%% samples show); without one, a significant change, or none with an interval inside the
%% noise floor both ways.
-spec decided([erlperf_baseline:row()], erlperf_baseline:options()) -> boolean().
decided(Rows, Options) ->
    Noise = maps:get(noise, Options, erlperf_options:default(noise)),
    Gate = maps:get(gate, Options, none),
    lists:all(fun (E) -> decided_entry(E, Gate, Noise) end,
              [E || #{baselines := Entries} <- Rows, #{match := M} = E <- Entries, M =/= none]).

%% @doc {@link decided/2} of the rows of `Record' (in its runs' order), where a run with
%% nothing to compare with is decided when the interval of its mean (at the options'
%% confidence, of its forks' variation alone) lies within the noise floor both ways: a
%% run that will be the next one's baseline is measured as closely as its budget allows.
-spec decided([erlperf_baseline:row()], erlperf_record:results(), erlperf_baseline:options()) -> boolean().
decided(Rows, #{?RUNS := Runs}, Options) ->
    Noise = maps:get(noise, Options, erlperf_options:default(noise)),
    Confidence = maps:get(confidence, Options, erlperf_options:default(confidence)),
    lists:all(fun ({#{baselines := Entries} = Row, Run}) ->
                      case [E || #{match := M} = E <- Entries, M =/= none] of
                          [] -> precise(Run, Confidence, Noise);
                          _ -> decided([Row], Options)
                      end
              end, lists:zip(Rows, Runs)).

precise(#{?SAMPLES := [_, _ | _] = Values, ?AVERAGE := Mean} = Run, Confidence, Noise)
  when Mean > 0 ->
    case erlperf_stat:interval(Values, erlperf_record:fork_sizes(Run), Confidence) of
        {Lo, Hi} -> 100 * (Hi - Lo) / 2 / Mean =< Noise;
        undefined -> false
    end;
precise(_Run, _Confidence, _Noise) ->
    false.

decided_entry(#{verdict := inconclusive}, _Gate, _Noise) ->
    false;
decided_entry(#{ci_pct := {Lo, Hi}, comparison := #{better := Better}}, Gate, _Noise)
  when is_number(Gate) ->
    {Least, Most} = case Better of
                        higher -> {-Hi, -Lo};
                        lower -> {Lo, Hi}
                    end,
    Least > Gate orelse Most < Gate;
decided_entry(#{significant := true}, none, _Noise) ->
    true;
decided_entry(#{ci_pct := {Lo, Hi}}, none, Noise) ->
    Lo >= -Noise andalso Hi =< Noise;
decided_entry(#{}, _Gate, _Noise) ->
    false.

%%--------------------------------------------------------------------
%% Internal functions

unfailed_level(#{match := none}) -> new;
unfailed_level(#{verdict := inconclusive}) -> warning;
unfailed_level(#{verdict := slower, significant := true}) -> warning;
unfailed_level(#{counts := Counts}) ->
    case lists:any(fun (#{verdict := V}) -> V =:= regressed end, Counts) of
        true -> warning;
        false -> none
    end;
unfailed_level(_Entry) -> none.
