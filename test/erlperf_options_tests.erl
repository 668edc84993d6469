%%% @doc Tests of the option registry (`erlperf_options') and of the front ends derived
%%% from it: random option sets, valid and out of range, go through the registry, the
%%% command line's parser (both grammars) and the facade, which must agree; every rule
%%% is refused while parsing in the user's words; rebar3's and Mix's entries read the
%%% registry. The properties run with PropEr (see erlperf_stat_prop_tests).
-module(erlperf_options_tests).

-include_lib("eunit/include/eunit.hrl").

%% Runs per property.
-define(NUMTESTS, 300).
-define(TIMEOUT_S, 120).

%%--------------------------------------------------------------------
%% The registry

table_test_() ->
    All = erlperf_options:all(),
    Named = [N || #{names := Names} <- All, N <- Names],
    [%% every option has a key, a scope, a type and help; a default is in its range
     ?_assertEqual([], [K || #{key := K, scope := S, type := T, help := H} <- All,
                             not (is_atom(K) andalso is_atom(S) andalso T =/= undefined
                                  andalso H =/= "")]),
     ?_assertEqual([], [{K, D} || #{key := K, type := T, default := D} <- All,
                                  not erlperf_options:valid_type(T, D), not is_list(D)]),
     %% a name means one option per grammar: benchmark and perf test have -pa, -h alike
     ?_assertEqual([], [N || N <- lists:usort(Named),
                             length([O || #{names := Ns, scope := S} = O <- All,
                                          lists:member(N, Ns), not perf(S)]) > 1]),
     %% options on the command line say how their text is read
     ?_assertEqual([], [K || #{key := K, names := [_ | _]} = O <- All, not is_map_key(arg, O)]),
     %% rules name options of the registry
     ?_assertEqual([], [R || R <- erlperf_options:rules(), K <- rule_keys(R),
                             not lists:member(K, [Key || #{key := Key} <- All])])].

defaults_test_() ->
    [?_assertEqual(erlperf_options:defaults(run), erlperf:defaults()),
     ?_assertEqual(erlperf_options:defaults(concurrency), erlperf:concurrency_defaults()),
     ?_assertEqual(erlperf_options:defaults(perf_test), erlperf_perf_test:defaults()),
     ?_assertEqual(95, erlperf_options:default(confidence)),
     %% the command line shows the registry's defaults in its help
     ?_assertNotEqual(nomatch, string:find(lists:flatten(erlperf_args:help()),
                                           "--confidence PCT")),
     ?_assertEqual(erlperf_options:profilers(), erlperf_profile:tools())].

valid_test_() ->
    [?_assert(erlperf_options:valid(run, samples, 10)),
     ?_assertNot(erlperf_options:valid(run, samples, 0)),
     ?_assertNot(erlperf_options:valid(run, samples, erlperf_options:limit(samples) + 1)),
     ?_assert(erlperf_options:valid(run, sample_duration, {timed, 5})),
     ?_assert(erlperf_options:valid(run, sample_duration, undefined)),
     ?_assertNot(erlperf_options:valid(run, sample_duration, {timed, 0})),
     ?_assert(erlperf_options:valid(run, forks, auto)),
     ?_assertNot(erlperf_options:valid(run, forks, manual)),
     ?_assertNot(erlperf_options:valid(run, confidence, 100)),
     ?_assert(erlperf_options:valid(run, noise, 0)),
     ?_assertNot(erlperf_options:valid(run, loop, 10)),          % the command line's alone
     ?_assertNot(erlperf_options:valid(run, no_such_option, 1)),
     ?_assert(erlperf_options:valid(perf_test, progress, none)),
     ?_assertNot(erlperf_options:valid(run, progress, none)),
     ?_assertNot(erlperf_options:valid(perf_test, timeout, erlperf_options:limit(ms) + 1))].

%%--------------------------------------------------------------------
%% Front ends

%% Each rule refused while parsing, naming the options as the user typed them.
rules_test_() ->
    [{lists:flatten(io_lib:format("~0p", [R])),
      ?_assertEqual({error, {cannot_combine, names(A), names(B)}},
                    erlperf_args:parse(rule_args(A, B)))}
     || {excludes, A, B} = R <- erlperf_options:rules()]
    ++ [{lists:flatten(io_lib:format("~0p", [R])),
         ?_assertEqual({error, {cannot_combine, names(A), names(B), ": " ++ Why}},
                       erlperf_args:parse(rule_args(A, B)))}
        || {excludes, A, B, Why} = R <- erlperf_options:rules()]
    ++ [{lists:flatten(io_lib:format("~0p", [R])),
         ?_assertMatch({error, {needs, _, _}}, erlperf_args:parse(["ok." | example(K)]))}
        || {needs, K, _} = R <- erlperf_options:rules(), not lists:member(K, [against])].

%% What the engine itself refuses is refused by the facade with the same rule.
facade_rules_test_() ->
    [?_assertError({incompatible_options, profile, eprof, nodes},
                   erlperf:run("ok.", #{profile => eprof, nodes => [a@h]})),
     ?_assertError({incompatible_options, compare, interleaved, isolation},
                   erlperf:compare(["ok.", "ok."], #{compare => interleaved, isolation => #{}}))].

rebar3_test_() ->
    Specs = erlperf_options:rebar3(),
    [?_assertEqual(lists:sort([suites, filter, store, baselines, save_baseline, against,
                               fail_on_regression]), lists:sort([K || {K, _, _, _, _} <- Specs])),
     %% each is an option of erlperf's own command line, as rebar3 hands it on
     [?_assertNotMatch({error, {unknown_option, _, _}},
                       erlperf_args:parse(["--suite", "bench", "--" ++ Long, "x"]))
      || {_, _, Long, _, _} <- Specs]].

project_test_() ->
    [?_assertEqual(["--suite", "bench"], erlperf_args:project([])),
     ?_assertEqual(["--suite", "bench", "--fail-on-regression", "5"],
                   erlperf_args:project(["--fail-on-regression", "5"])),
     ?_assertEqual(["Enum.sum(1..10)", "--memory"], erlperf_args:project(["Enum.sum(1..10)", "--memory"])),
     ?_assertEqual(["--suite", "x"], erlperf_args:project(["--suite", "x"])),
     ?_assertEqual(["--history"], erlperf_args:project(["--history"])),
     ?_assertEqual(["-h"], erlperf_args:project(["-h"]))].

%%--------------------------------------------------------------------
%% Properties

proper_test_() ->
    erlperf_test_lib:with_proper(
      fun () ->
              [{atom_to_list(Name),
                {timeout, ?TIMEOUT_S, ?_assertEqual({Name, ?NUMTESTS}, check(Name, Prop))}}
               || {Name, Prop} <- [{valid_sets_agree, fun prop_valid_sets_agree/0},
                                   {concurrency_sets_agree, fun prop_concurrency_sets_agree/0},
                                   {perf_test_sets_agree, fun prop_perf_test_sets_agree/0},
                                   {out_of_range_refused, fun prop_out_of_range_refused/0}]]
      end).

check(Name, Build) ->
    erlperf_test_lib:prop_check(Name, Build, ?NUMTESTS).

%% Random valid run options, written on the command line with any of their names, parse
%% into the same run options; the registry and the facade accept them.
prop_valid_sets_agree() ->
    erlperf_test_lib:prop_forall(option_set(run, run_keys()),
        fun (Set) ->
                {ok, #{run_options := Run}} = erlperf_args:parse(["ok." | render(Set)]),
                Expected = maps:from_list([{K, V} || {K, _Name, V} <- Set]),
                same(Expected, Run) andalso
                    lists:all(fun ({K, _, V}) -> erlperf_options:valid(run, K, V) end, Set)
        end).

prop_concurrency_sets_agree() ->
    erlperf_test_lib:prop_forall(option_set(concurrency, [min, step, max, threshold]),
        fun (Set) ->
                Args = ["ok.", "-q" | render(Set)],
                Expected = maps:merge(erlperf_options:defaults(concurrency),
                                      maps:from_list([{K, V} || {K, _, V} <- Set])),
                case erlperf_args:parse(Args) of
                    {ok, #{concurrency_options := Conc}} ->
                        same(maps:from_list([{K, V} || {K, _, V} <- Set]), Conc);
                    {error, _} ->
                        false
                end andalso
                    lists:all(fun ({K, V}) -> erlperf_options:valid(concurrency, K, V) end,
                              maps:to_list(Expected))
        end).

prop_perf_test_sets_agree() ->
    erlperf_test_lib:prop_forall(option_set(perf_test, [tolerance, interval, timeout]),
        fun (Set) ->
                {ok, #{options := Opts}} =
                    erlperf_args:parse_perf_test(["--perf-test", "gen.erl" | render(Set)]),
                same(maps:from_list([{K, V} || {K, _, V} <- Set]), Opts) andalso
                    lists:all(fun ({K, _, V}) -> erlperf_options:valid(perf_test, K, V) end, Set)
        end).

%% A value out of its option's range: the command line refuses it naming the option as
%% typed, the facade with the API key and the value.
prop_out_of_range_refused() ->
    Keys = [concurrency, samples, sample_duration, warmup, confidence, noise, run_noise, cv],
    erlperf_test_lib:prop_forall(
      proper_types:bind(proper_types:elements(Keys),
                        fun (Key) -> {Key, proper_types:elements(names(run, Key)), bad_value(Key)} end,
                        false),
        fun ({Key, Name, Value}) ->
                {error, Reason} = erlperf_args:parse(["ok.", Name, text(Value)]),
                Line = erlperf_args:format_error(Reason),
                lists:prefix(Name ++ ":", Line) andalso
                    not erlperf_options:valid(run, Key, Value) andalso
                    refused_by_facade(Key, Value)
        end).

refused_by_facade(Key, Value) ->
    try erlperf:run("ok.", #{Key => Value}) of
        _ -> false
    catch error:{invalid_option, Key, Value} -> true
    end.

%%--------------------------------------------------------------------
%% Generators

%% Run options the command line and the API share, with values of the same meaning.
run_keys() ->
    [concurrency, sample_duration, samples, warmup, cv, compare, forks, confidence, noise,
     run_noise, memory, latency, profile].

%% A list of distinct options of Keys, each `{Key, Name, Value}'.
option_set(Scope, Keys) ->
    proper_types:bind(proper_types:list(proper_types:elements(Keys)),
                      fun (Picked) ->
                              [{K, proper_types:elements(names(Scope, K)), good_value(Scope, K)}
                               || K <- lists:usort(Picked)]
                      end, false).

good_value(Scope, Key) ->
    {ok, #{type := Type}} = erlperf_options:find(Scope, Key),
    of_type(Type).

of_type({int, Min, Limit}) ->
    proper_types:oneof([proper_types:integer(Min, min(1000, erlperf_options:limit(Limit))),
                        proper_types:integer(Min, erlperf_options:limit(Limit))]);
of_type({number, {gt, 0}, {lt, 100}}) -> proper_types:float(0.01, 99.99);
of_type({number, {ge, 0}, {lt, 100}}) -> proper_types:float(0.0, 99.99);
of_type({number, _Low, none}) -> proper_types:float(0.001, 1.0e6);
of_type({one_of, Atoms}) -> proper_types:elements(Atoms);
of_type(boolean) -> true;
of_type({value, Term}) -> Term;
of_type({either, Types}) ->
    proper_types:oneof([of_type(T) || T <- Types, not is_tuple(T) orelse element(1, T) =/= timed,
                                      T =/= {value, undefined}]).

bad_value(Key) ->
    case option(Key) of
        #{type := {number, {gt, 0}, {lt, 100}}} ->
            proper_types:oneof([proper_types:float(100.0, 1.0e6), proper_types:float(-1.0e6, 0.0)]);
        #{type := {number, {ge, 0}, {lt, 100}}} ->
            proper_types:oneof([proper_types:float(100.0, 1.0e6), proper_types:float(-1.0e6, -0.001)]);
        #{type := {either, _}} when Key =:= cv ->
            proper_types:float(-1.0e6, 0.0);
        #{type := Type} ->
            {int, Min, Limit} = hd([T || {int, _, _} = T <- [Type | either(Type)]]),
            proper_types:oneof([proper_types:integer(-1000, Min - 1),
                                proper_types:integer(erlperf_options:limit(Limit) + 1,
                                                     erlperf_options:limit(Limit) + 1000)])
    end.

either({either, Types}) -> Types;
either(_Type) -> [].

%%--------------------------------------------------------------------
%% Helpers

render(Set) ->
    lists:append([case V of
                      true -> [Name];
                      _ -> [Name, text(V)]
                  end || {_K, Name, V} <- Set]).

text(V) when is_integer(V), V > 0, V rem 1000 =:= 0 -> integer_to_list(V div 1000) ++ "K";
text(V) when is_integer(V) -> integer_to_list(V);
text(V) when is_float(V) -> float_to_list(V, [short]);
text(V) when is_atom(V) -> atom_to_list(V).

%% The same options, numbers compared by value (the command line reads 5 as 5.0 where
%% the API takes either).
same(Expected, Got) ->
    lists:sort(maps:keys(Expected)) =:= lists:sort(maps:keys(Got)) andalso
        lists:all(fun (K) -> maps:get(K, Expected) == maps:get(K, Got) end, maps:keys(Expected)).

option(Key) ->
    [O] = [O || #{key := K, scope := S} = O <- erlperf_options:all(), K =:= Key, not perf(S)],
    O.

names(Scope, Key) ->
    {ok, #{names := Names}} = erlperf_options:find(Scope, Key),
    Names.

perf(Scope) -> Scope =:= perf_test orelse Scope =:= perf_cli.

rule_keys({needs, K, Ks}) -> [K | Ks];
rule_keys({excludes, A, B}) -> [key(A), key(B)];
rule_keys({excludes, A, B, _Why}) -> [key(A), key(B)].

key({K, _}) -> K;
key(K) -> K.

%% An option's names as erlperf_args writes them in errors.
names({Key, Value}) -> names(Key) ++ " " ++ atom_to_list(Value);
names(Key) ->
    #{names := Names} = option(Key),
    lists:flatten(lists:join("/", [N || N <- Names, N =/= "--isolation", N =/= "--sample_duration"])).

%% A command line giving both options of a rule (with a runner, or the suite they need;
%% --history takes neither).
rule_args(A, B) ->
    Args = example(A) ++ example(B),
    Suite = lists:member("--suite", Args),
    NeedsSuite = lists:any(fun (K) -> lists:member(key(K), [against, save_baseline, filter]) end, [A, B]),
    History = lists:member("--history", Args),
    if Suite -> Args;
       NeedsSuite -> ["--suite", "bench" | Args];
       History -> Args;
       true -> ["ok." | Args]
    end.

example({Key, Value}) -> [hd(names(benchmark_scope(Key), Key)), atom_to_list(Value)];
example(Key) ->
    #{names := [Name | _], arg := Arg} = option(Key),
    case Arg of
        flag -> [Name];
        count -> [Name, "10"];
        non_neg_count -> [Name, "1"];
        rates -> [Name, "10"];
        ratio -> [Name, "0.1"];
        forks -> [Name, "3"];
        choice -> [Name, atom_to_list(hd(element(2, maps:get(type, option(Key)))))];
        slo -> [Name, "p99=5ms"];
        param -> [Name, "N=1,2"];
        input -> [Name, "a=1"];
        bytes -> [Name, "8"];
        nodes -> [Name, "a@h"];
        profiler -> [Name, "eprof"];
        gate -> [Name, "5"];
        name -> [Name, "base"];
        _ -> [Name, "x"]
    end.

benchmark_scope(Key) ->
    #{scope := Scope} = option(Key),
    Scope.
