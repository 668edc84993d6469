%%% @doc Tests of `erlperf_rebar3:arguments/1': the erlperf command line a `rebar3
%%% erlperf' command line asks for. erlperf_rebar3_SUITE runs the command in rebar3.
-module(erlperf_rebar3_tests).

-include_lib("eunit/include/eunit.hrl").

suite_by_default_test_() ->
    [?_assertEqual(["--suite", "bench"], erlperf_rebar3:arguments([])),
     ?_assertEqual(["--suite", "bench", "--fail-on-regression", "20"],
                   erlperf_rebar3:arguments(["--fail-on-regression", "20"])),
     ?_assertEqual(["--suite", "bench", "--filter", "sum", "--samples", "3"],
                   erlperf_rebar3:arguments(["--filter", "sum", "--", "--samples", "3"]))].

given_suite_test_() ->
    [?_assertEqual(["--suite", "bench/a.erl", "--store", "s"],
                   erlperf_rebar3:arguments(["--suite", "bench/a.erl", "--store", "s"])),
     ?_assertEqual(["--suite=other"], erlperf_rebar3:arguments(["--suite=other"])),
     ?_assertEqual(["--baseline", "b", "--suite", "x"],
                   erlperf_rebar3:arguments(["--baseline", "b", "--", "--suite", "x"]))].

%% A command line erlperf reads without `--suite': runner code, the history, the help,
%% the version.
whole_command_line_test_() ->
    [?_assertEqual(["my_app:work()."], erlperf_rebar3:arguments(["--", "my_app:work()."])),
     ?_assertEqual(["my_app:work()."], erlperf_rebar3:arguments(["my_app:work()."])),
     ?_assertEqual(["my_app:work().", "-c", "4"],
                   erlperf_rebar3:arguments(["--", "my_app:work().", "-c", "4"])),
     ?_assertEqual(["-h"], erlperf_rebar3:arguments(["-h"])),
     ?_assertEqual(["--version"], erlperf_rebar3:arguments(["--", "--version"])),
     ?_assertEqual(["--history"], erlperf_rebar3:arguments(["--", "--history"])),
     ?_assertEqual(["--history", "--format", "json"],
                   erlperf_rebar3:arguments(["--", "--history", "--format", "json"]))].

%% Only the first `--' separates: a later one is erlperf's.
separator_test_() ->
    [?_assertEqual(["--suite", "s", "--"], erlperf_rebar3:arguments(["--", "--suite", "s", "--"])),
     ?_assertEqual(["--suite", "bench"], erlperf_rebar3:arguments(["--"]))].
