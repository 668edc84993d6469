%%% @doc The README's examples, run as a reader would run them, on whatever OTP release
%%% the suite runs on (CI runs it on 25, 27 and 29).
%%%
%%% Every command of the README's indented code blocks that starts with `./erlperf'
%%% runs in one scratch directory, in the README's order (a later example may read a file
%%% an earlier one saved); its exit status and the shape of its output are checked as
%%% {@link erlperf_doc_examples} says. `erlperf_docs_SUITE' does the same for `doc/'.
-module(erlperf_readme_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, init_per_suite/1, end_per_suite/1]).
-export([examples_found/0, examples_found/1, examples_run/0, examples_run/1]).

suite() ->
    [{timetrap, {minutes, 20}}].

all() ->
    [examples_found, examples_run].

init_per_suite(Config) ->
    erlperf_test_lib:with_escript(Config).

end_per_suite(_Config) ->
    ok.

%%--------------------------------------------------------------------
%% Cases

examples_found() ->
    [{doc, "The README's examples are found: the first is the quick start's, exit statuses are read"}].
examples_found(Config) when is_list(Config) ->
    Examples = examples(),
    ?assert(length(Examples) >= 15, Examples),
    ?assertMatch(#{command := "./erlperf 'rand:uniform().' -c 4" ++ _, status := 0, shown := []},
                 hd(Examples)),
    %% the regression gate's example is followed by `echo $?' showing 3
    ?assert(lists:any(fun (#{command := Command, status := Status}) ->
                              Status =:= 3 andalso string:find(Command, "--fail-on-regression") =/= nomatch
                      end, Examples), Examples),
    %% a continued command is one command
    ?assert(lists:any(fun (#{command := Command}) ->
                              string:find(Command, "--init_runner 'rand:seed(exsss).' 'r() -> rand:uniform().'")
                                  =/= nomatch
                      end, Examples), Examples),
    %% output goes on past an empty line: the profile's table under the benchmark's
    ?assert(lists:any(fun (#{command := Command, shown := Shown}) ->
                              string:find(Command, "--profile eprof") =/= nomatch andalso
                                  lists:member("", Shown) andalso
                                  lists:any(fun (L) -> lists:prefix("Function ", L) end, Shown)
                      end, Examples), Examples).

examples_run() ->
    [{doc, "Every README example exits as shown and prints every figure-free line shown"}].
examples_run(Config) when is_list(Config) ->
    Dir = erlperf_doc_examples:scratch_dir(Config, "readme"),
    Failures = [{Command, Why} || #{command := Command} = Example <- examples(),
                                  Why <- [erlperf_doc_examples:check(Dir, Example)], Why =/= ok],
    ?assertEqual([], Failures).

%%--------------------------------------------------------------------
%% Helpers

examples() ->
    erlperf_doc_examples:examples(filename:join(erlperf_test_lib:root(), "README.md")).

