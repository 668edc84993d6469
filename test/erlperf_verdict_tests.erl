%%% @doc eunit tests of `erlperf_verdict': the words of comparisons, those
%%% `erlperf_stat:compare/3' makes of the data sets of its reference tests (whose figures
%%% `erlperf_stat_tests' checks against R) and comparisons made by hand.
-module(erlperf_verdict_tests).

-include_lib("eunit/include/eunit.hrl").
-include("erlperf_stat_data.hrl").

text_test_() ->
    %% without a noise floor unless given
    Text = fun (A, B, Opts) -> iolist_to_binary(erlperf_verdict:text(
                                                  erlperf_stat:compare(A, B, maps:merge(#{noise => 0}, Opts)))) end,
    Made = fun (Map) -> iolist_to_binary(erlperf_verdict:text(
                            maps:merge(#{test => welch, confidence => 95, better => higher,
                                         p => 0.01, significant => true}, Map))) end,
    %% change and interval from compare_reference(), rounded to one decimal
    [?_assertEqual(<<"45.4% faster (95% CI 7.2..91.9%)">>, Text(?SKEWED, ?SKEWED2, #{})),
     ?_assertEqual(<<"45.4% slower (95% CI 7.2..91.9%)">>,
                   Text(?SKEWED, ?SKEWED2, #{better => lower})),
     ?_assertEqual(<<"1.8% slower (95% CI 1.4..2.3%)">>, Text(?PA, ?PB, #{test => paired})),
     ?_assertEqual(<<"1.8% slower (95% CI 0.6..3.0%)">>, Text(?PA, ?PB, #{})),
     ?_assertEqual(<<"1.8% faster (95% CI 1.4..2.3%)">>,
                   Text(?PA, ?PB, #{test => paired, better => lower})),
     ?_assertEqual(<<"no significant difference (99% CI -3.7..51.3%)">>,
                   Text(?TIES, ?TIES2, #{confidence => 99})),
     %% a change the test finds but that may be within the noise floor is called that
     ?_assertEqual(<<"a significant change within the 2% noise floor: 1.8% slower (95% CI 1.4..2.3%)">>,
                   Text(?PA, ?PB, #{test => paired, noise => 2})),
     ?_assertEqual(<<"a significant change within the 1.5% noise floor: 1.8% slower (95% CI 0.6..3.0%)">>,
                   Text(?PA, ?PB, #{noise => 1.5})),
     ?_assertEqual(<<"no significant difference (99.9% CI -4.0..0.4%)">>,
                   Text(?PA, ?PB, #{confidence => 99.9})),
     ?_assertEqual(<<"no significant difference (p = 0.216)">>,
                   Text(?SMALL, ?SMALL2, #{test => mann_whitney})),
     %% too little evidence is not evidence of no difference
     ?_assertEqual(<<"inconclusive: too few samples to tell">>, Text([1], [2], #{})),
     ?_assertEqual(<<"faster (p < 0.001)">>, Text([0, 0, 0, 0], [5, 6, 5, 6], #{})),
     %% small changes keep two significant digits; no "-0.0"
     ?_assertEqual(<<"0.042% faster (99.5% CI 0.011..0.073%)">>,
                   Made(#{verdict => faster, change_pct => 0.0421, ci_pct => {0.011, 0.073},
                          confidence => 99.5})),
     %% one precision for the change and its interval: 2 digits of the largest
     ?_assertEqual(<<"0.09% faster (95% CI 0.07..0.12%)">>,
                   Made(#{verdict => faster, change_pct => 0.091, ci_pct => {0.07, 0.12}})),
     ?_assertEqual(<<"slower (p = 0.010)">>,
                   Made(#{verdict => slower, change_pct => undefined, ci_pct => undefined})),
     ?_assertEqual(<<"no significant difference (95% CI 0.0..2.0%)">>,
                   Made(#{verdict => no_difference, significant => false, change_pct => 1.0,
                          ci_pct => {-0.04, 2.0}}))].

%% The basis a comparison was made on, inside the parentheses, whatever the detail.
basis_test_() ->
    Made = fun (Map) -> iolist_to_binary(erlperf_verdict:text(
                            maps:merge(#{test => paired, confidence => 95, better => higher,
                                         p => 0.01, significant => true, verdict => slower,
                                         change_pct => -2.0, ci_pct => {-2.2, -1.9}}, Map))) end,
    [?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%, 5 forks)">>,
                   Made(#{basis => forks, forks => 5})),
     ?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%, one run)">>, Made(#{basis => single_run})),
     ?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%)">>, Made(#{})),
     ?_assertEqual(<<"slower (p = 0.010, 3 forks)">>,
                   Made(#{basis => forks, forks => 3, change_pct => undefined, ci_pct => undefined})),
     ?_assertEqual(<<"no significant difference (too few samples to test, one run)">>,
                   Made(#{basis => single_run, verdict => no_difference, significant => false,
                          p => undefined, ci_pct => undefined})),
     ?_assertEqual(<<"a significant change within the 3% noise floor: 2.0% slower (95% CI 1.9..2.2%, 2 forks)">>,
                   Made(#{basis => forks, forks => 2, verdict => no_difference, significant => false,
                          within_noise => true, noise => 3})),
     ?_assertEqual(<<"inconclusive: too few samples to tell (one run)">>,
                   Made(#{basis => single_run, verdict => inconclusive, significant => false,
                          p => undefined, ci_pct => undefined, reason => too_few_samples})),
     %% what was compared and where the run noise came from
     ?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%, CPU time, 5 forks, run noise 2.3% from earlier runs)">>,
                   Made(#{basis => forks, forks => 5, figure => cpu, run_noise => 2.345,
                          run_noise_source => history})),
     ?_assertEqual(<<"inconclusive: the host's load changed between the runs enough to explain it (load "
                     "3%, then 47%); 2.0% slower (95% CI 1.9..2.2%, 5 forks)">>,
                   Made(#{basis => forks, forks => 5, verdict => inconclusive, significant => false,
                          reason => {load_changed, 0.03, 0.47}, verdict_without => slower})),
     ?_assertEqual(<<"inconclusive: an interval too wide to tell (95% CI -40.0..30.0%, 5 forks)">>,
                   Made(#{basis => forks, forks => 5, verdict => inconclusive, significant => false,
                          reason => {too_wide, -40.0, 30.0}, change_pct => -5.0,
                          ci_pct => {-40.0, 30.0}})),
     %% a comparison of two runs says the run noise it took
     ?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%, 5 forks, run noise 1.5%)">>,
                   Made(#{basis => forks, forks => 5, run_noise => 1.5})),
     ?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%, one run, run noise 1%)">>,
                   Made(#{basis => single_run, run_noise => 1})),
     ?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%, one run)">>,
                   Made(#{basis => single_run, run_noise => 0})),
     %% runs of other sample durations, compared per second
     ?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%, 5 forks, run noise 1%, per second: "
                     "sample_duration 100 -> 200 ms)">>,
                   Made(#{basis => forks, forks => 5, run_noise => 1,
                          footing => {per_second, {100, 200}}})),
     %% runs of other settings: no change given, each setting that differs named
     ?_assertEqual(<<"inconclusive: options differ: concurrency 1 -> 4, "
                     "sample_duration 100 -> 200 ms">>,
                   Made(#{basis => forks, forks => 5, verdict => inconclusive, significant => false,
                          change_pct => undefined, ci_pct => undefined,
                          reason => {options_differ, [{<<"concurrency">>, 1, 4},
                                                      {<<"sample_duration">>, 100, 200}]}}))].

%% A table's verdict column names the runner compared with, and says the same as the line.
against_test_() ->
    Made = fun (Map) -> iolist_to_binary(erlperf_verdict:against(
                            maps:merge(#{test => paired, confidence => 95, better => higher,
                                         p => 0.01, significant => true, verdict => slower,
                                         change_pct => -2.0, ci_pct => {-2.2, -1.9},
                                         basis => forks, forks => 5}, Map), "`a`")) end,
    [?_assertEqual(<<"2.0% slower than `a` (95% CI 1.9..2.2%, 5 forks)">>, Made(#{})),
     ?_assertEqual(<<"0.042% faster than `a` (99% CI 0.011..0.073%, 5 forks)">>,
                   Made(#{verdict => faster, change_pct => 0.0421, ci_pct => {0.011, 0.073},
                          confidence => 99})),
     ?_assertEqual(<<"no significant difference from `a`">>,
                   Made(#{verdict => no_difference, significant => false})),
     %% within the noise floor: no difference, as the table's other rows
     ?_assertEqual(<<"no significant difference from `a`">>,
                   Made(#{verdict => no_difference, significant => false, within_noise => true,
                          noise => 3})),
     ?_assertEqual(<<"inconclusive against `a`: too few samples to tell (one run)">>,
                   Made(#{verdict => inconclusive, significant => false, p => undefined,
                          ci_pct => undefined, reason => too_few_samples, basis => single_run}))].

%% What an interval knows, and the run noise it took.
labels_test_() ->
    [?_assertEqual("one run", erlperf_verdict:interval_label(1)),
     ?_assertEqual("5 forks", erlperf_verdict:interval_label(5)),
     ?_assertEqual("run noise 1%", erlperf_verdict:run_noise_label(1.0)),
     ?_assertEqual("run noise 2.3%", erlperf_verdict:run_noise_label(2.345)),
     ?_assertEqual("run noise 0.05%", erlperf_verdict:run_noise_label(0.05)),
     ?_assertEqual("run noise 0.0012%", erlperf_verdict:run_noise_label(0.00123))].

%% Each setting that differs, as an inconclusive verdict names it.
options_differ_test_() ->
    Text = fun (Difference) ->
                   Cmp = #{test => welch, confidence => 95, better => higher, noise => 1,
                           within_noise => false, p => undefined, significant => false,
                           verdict => inconclusive, change_pct => undefined, ci_pct => undefined,
                           reason => {options_differ, [Difference]}},
                   iolist_to_binary(erlperf_verdict:text(Cmp))
           end,
    [?_assertEqual(<<"inconclusive: options differ: mode continuous -> timed">>,
                   Text({<<"mode">>, <<"continuous">>, <<"timed">>})),
     ?_assertEqual(<<"inconclusive: options differ: loop 1000 -> 10 calls">>,
                   Text({<<"loop">>, 1000, 10})),
     ?_assertEqual(<<"inconclusive: options differ: rate none -> 5000/s">>,
                   Text({<<"rate">>, null, 5000})),
     ?_assertEqual(<<"inconclusive: options differ: rate 1000/s -> 2000/s">>,
                   Text({<<"rate">>, 1000, 2000}))].

%% A comparison of a run measured until decided: its interval holds over all the looks
%% planned, and says so; one look is any other interval.
looks_test_() ->
    Cmp = fun (Map) -> maps:merge(#{test => ratio, confidence => 95, better => higher,
                                    p => 0.001, significant => true, verdict => slower,
                                    change_pct => -2.0, ci_pct => {-2.2, -1.9},
                                    basis => forks, forks => 16}, Map)
          end,
    Text = fun (Map) -> iolist_to_binary(erlperf_verdict:text(Cmp(Map))) end,
    [?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%, 16 forks, sequential over 4 looks)">>,
                   Text(#{looks => 4})),
     ?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%, 16 forks)">>, Text(#{looks => 1})),
     ?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%, 16 forks)">>, Text(#{})),
     ?_assertEqual(<<"no significant difference (95% CI -1.2..2.1%, 8 forks, sequential over 3 "
                     "looks)">>,
                   Text(#{looks => 3, forks => 8, verdict => no_difference, significant => false,
                          p => 0.4, change_pct => 0.4, ci_pct => {-1.2, 2.1}})),
     %% before the run noise of a comparison with a baseline
     ?_assertEqual(<<"2.0% slower (95% CI 1.9..2.2%, 16 forks, sequential over 4 looks, run noise "
                     "1%)">>,
                   Text(#{looks => 4, run_noise => 1})),
     %% a table's verdict column says the same
     ?_assertEqual(<<"2.0% slower than `a` (95% CI 1.9..2.2%, 16 forks, sequential over 4 looks)">>,
                   iolist_to_binary(erlperf_verdict:against(Cmp(#{looks => 4}), "`a`")))].
