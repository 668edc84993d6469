%%% @doc How a comparison's verdict is worded for people: the line the text report, the
%%% regression gate and the suites print, the text the results record keeps for each
%%% baseline (`baselines[].text'), and the verdict column of the Markdown and HTML
%%% tables. {@link erlperf_stat} decides (numbers and atoms only); this module says it,
%%% with the figures written by {@link erlperf_units}. In the model layer because the
%%% record holds these words; pure.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>verdict line</b>: `12.3% slower (95% CI 10.1..14.5%, 5 forks)': a slower or
%%%       faster change and its interval as magnitudes in that direction, a change with
%%%       no significant difference signed (B - A); with a precision of two significant
%%%       digits of the largest of them (one decimal at least), the same for the whole
%%%       line. Without an interval, the p value (`p = 0.216', `p < 0.001').</li>
%%%   <li><b>interval label</b>: what an interval knows, inside the parentheses: `one
%%%       run' (only the variation within that run) or `5 forks', then `CPU time' when the
%%%       host's load was taken out, and the run noise a comparison of two runs took
%%%       (`run noise 1.5%', `from earlier runs' when estimated from a history; `forks
%%%       paired' when forks were taken in pairs), and `per second: sample_duration 100 ->
%%%       200 ms' when runs of other sample durations were compared per second.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% Cmp = erlperf_stat:compare([100, 102, 101, 99], [90, 91, 89, 92], #{test => welch}),
%%% <<"10.0% slower (95% CI 7.8..12.0%)">> = iolist_to_binary(erlperf_verdict:text(Cmp)),
%%% <<"10.0% slower than a (95% CI 7.8..12.0%)">> = iolist_to_binary(erlperf_verdict:against(Cmp, "a")).
%%% '''
-module(erlperf_verdict).

%% API: called by the results record, the baselines, the text report, the Markdown and
%% HTML tables, and the command line's gate and suites.
-export([text/1, against/2, interval_label/1, run_noise_label/1]).

%% A run noise below this (percent) is written with two significant digits, from it with
%% one decimal.
-define(NOISE_ONE_DECIMAL, 0.1).

%%--------------------------------------------------------------------
%% API

%% @doc One line for people: "12.3% slower (95% CI 10.1..14.5%)", "4.0% faster (...)",
%% "no significant difference (95% CI -1.2..2.0%)"; with a `basis', the interval says
%% what it knows: "(95% CI 10.1..14.5%, 5 forks)", "(..., one run)". A slower or faster
%% change and its interval are given as magnitudes in that direction; no difference,
%% signed (B - A).
-spec text(erlperf_stat:comparison()) -> iodata().
text(#{verdict := inconclusive} = Comparison) ->
    ["inconclusive: ", reason_text(reason(Comparison), Comparison)];
text(#{verdict := no_difference, reason := {same_code, {moved, Verdict}}} = Comparison) ->
    ["the same code (its fingerprint unchanged, no exact count changed); its time moved, "
     "not by the code: ", text(maps:remove(reason, Comparison#{verdict := Verdict, significant := true}))];
text(#{verdict := no_difference, reason := {same_code, agrees}} = Comparison) ->
    ["the same code (its fingerprint unchanged, no exact count changed); its time alone agrees: ",
     text(maps:remove(reason, Comparison))];
text(#{verdict := no_difference, reason := {same_code, Why}} = Comparison) ->
    ["the same code (its fingerprint unchanged, no exact count changed); its time alone could not tell: ",
     reason_text(Why, Comparison)];
text(#{verdict := no_difference, within_noise := true, noise := Noise} = Comparison) ->
    case erlperf_stat:direction(Comparison) of
        no_difference ->
            ["no significant difference", detail(Comparison, 1), ", within the ",
             erlperf_units:setting(Noise), "% noise floor"];
        Verdict ->
            ["a significant change within the ", erlperf_units:setting(Noise), "% noise floor: ",
             text(Comparison#{verdict := Verdict, within_noise := false})]
    end;
text(#{verdict := no_difference} = Comparison) ->
    ["no significant difference", detail(Comparison, 1)];
text(#{verdict := Verdict} = Comparison) ->
    Sign = sign(Comparison),
    [magnitude(Comparison, Sign), atom_to_list(Verdict), detail(Comparison, Sign)].

%% @doc A runner's verdict against the runner `Against' it was compared with (its name,
%% as the caller writes it), for a table's verdict column: "12.3% slower than X (95% CI
%% 10.1..14.5%, 5 forks)", "no significant difference from X", "inconclusive against X:
%% too few samples to tell".
-spec against(erlperf_stat:comparison(), iodata()) -> iodata().
against(#{verdict := inconclusive} = Comparison, Against) ->
    ["inconclusive against ", Against, ": ", reason_text(reason(Comparison), Comparison)];
against(#{verdict := Verdict, significant := true} = Comparison, Against)
  when Verdict =:= faster; Verdict =:= slower ->
    Sign = sign(Comparison),
    [magnitude(Comparison, Sign), atom_to_list(Verdict), " than ", Against, detail(Comparison, Sign)];
against(_Comparison, Against) ->
    ["no significant difference from ", Against].

%% @doc What an interval of so many forks knows: `"one run"' (only the variation within
%% that run), `"5 forks"'.
-spec interval_label(pos_integer()) -> string().
interval_label(1) -> "one run";
interval_label(Forks) -> integer_to_list(Forks) ++ " forks".

%% @doc The run noise an interval took, percent of the mean: `"run noise 1.5%"',
%% `"run noise 0.05%"'.
-spec run_noise_label(number()) -> string().
run_noise_label(R) ->
    "run noise " ++ noise(R) ++ "%".

%%--------------------------------------------------------------------
%% Internal functions

reason(Comparison) ->
    case maps:get(reason, Comparison, undefined) of
        undefined -> too_few_samples;
        Reason -> Reason
    end.

%% +1 when the verdict's direction is B higher than A, -1 when lower.
sign(#{verdict := faster, better := higher}) -> 1;
sign(#{verdict := slower, better := lower}) -> 1;
sign(_Comparison) -> -1.

%% The change's magnitude in the verdict's direction, when there is one.
magnitude(#{change_pct := undefined}, _Sign) -> [];
magnitude(#{change_pct := Change} = Comparison, Sign) ->
    [erlperf_units:fixed(Sign * Change, decimals(Comparison)), "% "].

%% " (95% CI 7.8..12.0%, 5 forks)": the interval or the p value, and what was compared.
detail(Comparison, Sign) ->
    [" (", interval_or_p(Comparison, Sign), basis(Comparison), ")"].

interval_or_p(#{ci_pct := {Low, High}, confidence := Confidence} = Comparison, Sign) ->
    Decimals = decimals(Comparison),
    [Lo, Hi] = lists:sort([Sign * Low, Sign * High]),
    [erlperf_units:setting(Confidence), "% CI ", erlperf_units:fixed(Lo, Decimals), "..",
     erlperf_units:fixed(Hi, Decimals), "%"];
interval_or_p(#{p := undefined}, _Sign) ->
    "too few samples to test";
interval_or_p(#{p := P}, _Sign) ->
    case erlperf_units:p_value(P) of
        [$< | _] = Below -> ["p ", Below];
        Shown -> ["p = ", Shown]
    end.

%% What the interval knows: the variation between forks, or within one run; what was
%% compared (CPU time, when the host's interference was taken out; calls per second, when
%% the runs' sample durations differ).
basis(#{basis := forks, forks := Forks} = C) ->
    [figure_text(C), ", ", interval_label(Forks), looks_text(C), run_noise_text(C),
     footing_text(C)];
basis(#{basis := single_run} = C) ->
    [figure_text(C), ", ", interval_label(1), run_noise_text(C), footing_text(C)];
basis(#{} = C) ->
    [figure_text(C), run_noise_text(C), footing_text(C)].

%% A sequential test's interval holds over all its looks.
looks_text(#{looks := Looks}) when Looks > 1 ->
    [", sequential over ", integer_to_list(Looks), " looks"];
looks_text(#{}) -> "".

figure_text(#{figure := cpu}) -> ", CPU time";
figure_text(#{figure := reference}) -> ", relative to a reference workload";
figure_text(#{}) -> "".

%% Runs of other sample durations, compared per second (erlperf_baseline).
footing_text(#{footing := {per_second, {Old, New}}}) ->
    [", per second: ", options_text([{<<"sample_duration">>, Old, New}])];
footing_text(#{}) -> "".

%% Run noise, when a comparison of two runs took some, and where an estimate came from.
run_noise_text(#{run_noise_source := paired}) -> ", forks paired";
run_noise_text(#{run_noise := R} = C) when R > 0 ->
    [", ", run_noise_label(R), noise_source_text(maps:get(run_noise_source, C, default))];
run_noise_text(#{}) -> "".

noise_source_text(history) -> " from earlier runs";
noise_source_text(_Source) -> "".

noise(R) when R == trunc(R) -> erlperf_units:setting(R);
noise(R) when R >= ?NOISE_ONE_DECIMAL -> erlperf_units:fixed(R, 1);
noise(R) -> erlperf_units:significant(R, 2).

%% An inconclusive verdict's reason, with what the comparison measured.
reason_text(too_few_samples, Comparison) ->
    case iolist_to_binary(basis(Comparison)) of
        <<", ", Basis/binary>> -> ["too few samples to tell (", Basis, ")"];
        _ -> "too few samples to tell"
    end;
reason_text({load_changed, A, B}, #{verdict_without := Without} = Comparison) ->
    ["the host's load changed between the runs enough to explain it (load ",
     erlperf_units:share(A), ", then ", erlperf_units:share(B), "); ",
     text(Comparison#{verdict := Without})];
reason_text({saturated, Taken}, #{verdict_without := Without} = Comparison) ->
    ["the host was saturated (its other programs took ", erlperf_units:share(Taken),
     " of the schedulers' time), too busy for a time verdict: ", text(Comparison#{verdict := Without})];
reason_text({too_wide, _Lo, _Hi}, Comparison) ->
    ["an interval too wide to tell", detail(Comparison, 1)];
reason_text({options_differ, Differences}, _Comparison) ->
    ["options differ: ", options_text(Differences)].

%% The settings of two runs that differ (see erlperf_comparable), for people:
%% "concurrency 1 -> 4, sample_duration 100 -> 200 ms".
-spec options_text([erlperf_comparable:difference()]) -> iodata().
options_text(Differences) ->
    lists:join(", ", [option_text(Key, Old, New) || {Key, Old, New} <- Differences]).

option_text(<<"sample_duration">>, Old, New) ->
    ["sample_duration ", option_value(Old), " -> ", option_value(New), " ms"];
option_text(<<"loop">>, Old, New) ->
    ["loop ", option_value(Old), " -> ", option_value(New), " calls"];
option_text(<<"rate">>, Old, New) ->
    ["rate ", rate_value(Old), " -> ", rate_value(New)];
option_text(Key, Old, New) ->
    [erlperf_name:text(Key), " ", option_value(Old), " -> ", option_value(New)].

rate_value(null) -> "none";
rate_value(Rate) -> [option_value(Rate), "/s"].

option_value(V) when is_number(V) -> erlperf_units:setting(V);
option_value(V) when is_binary(V) -> erlperf_name:text(V);
option_value(V) -> erlperf_units:value(V).

%% Decimals enough to show two significant digits of the largest magnitude among the
%% change and its interval, 1 at least: one precision for the whole line.
decimals(#{change_pct := Change, ci_pct := Ci}) ->
    Values = [V || V <- [Change | case Ci of {Lo, Hi} -> [Lo, Hi]; undefined -> [] end],
                   V =/= undefined],
    case lists:max([0.0 | [abs(V) || V <- Values]]) of
        Max when Max >= 1; Max == 0 -> 1;
        Max when Max >= 0.1 -> 2;
        Max when Max >= 0.01 -> 3;
        _ -> 4
    end.
