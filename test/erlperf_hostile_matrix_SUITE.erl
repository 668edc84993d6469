%%% @doc A matrix of hostile inputs, generated from lists, run through the real escript:
%%% every rule of `erlperf_options:rules()' broken on the command line; every way a runner
%%% fails (crash, throw, exit, hang, slow, a growing mailbox, a crashing init_runner) in
%%% every mode; suite files that fail in every way; and store entries, baselines and
%%% records to render damaged in every way. Each cell checks one contract: the run ends
%%% within a bound, its exit status is 0 (success), 1 (a benchmark failed), 2 (usage) or 3
%%% (regression gate) as the cell expects, a failure is said in exactly one `erlperf: '
%%% line naming the runner, the benchmark or the option, and nothing is ever a stack
%%% trace or a raw term dump. The API cells also check that no generated job module and
%%% no process is left behind.
%%%
%%% Cells are not functions of their own: each group's cells are generated from lists
%%% ({@link cells/1}) and named `Group__Detail' (`runner_failures' cells are
%%% `Failure__Mode', `damaged_files' cells `Damage__Consumer'), so a failure says which;
%%% `'$handle_undefined_function'/2' runs the cell of a name (and gives its doc line).
%%% Matrix size (init_per_suite logs it): option_conflicts 43 (every rule of
%%% erlperf_options:rules(): all have command-line names, none is skipped),
%%% runner_failures 7 x 11 = 77, api_failures 6, suite_failures 13, damaged_files
%%% 13 x 4 = 52: 191 cells, about 70-90 s on a 2-core host.
-module(erlperf_hostile_matrix_SUITE).

-include_lib("stdlib/include/assert.hrl").
-include_lib("common_test/include/ct.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1, init_per_group/2,
         end_per_group/2, '$handle_undefined_function'/2]).

%% Longest a cell's run may take, by what it waits for: a usage error or a short run
%% (a VM's start and stop, and a loaded test host's slack); a run that meets a call that
%% does not return (2 s after the run, erlperf_stuck_SUITE); a timed sample, init or done
%% without progress for 10 s; a damaged file of 50 MB.
-define(QUICK_MS, 20000).
-define(STUCK_MS, 20000).
-define(NO_PROGRESS_MS, 30000).
-define(FILE_MS, 30000).
%% Texts that would betray a stack trace or a raw Erlang term dump.
-define(TRACES, ["** exception", "stacktrace", "{badmatch", "{case_clause", "function_clause",
                 "=ERROR REPORT", "=CRASH REPORT", "erl_eval", "Runtime terminating"]).
%% The runner that never returns.
-define(HANG, "receive after infinity -> ok end.").
%% The runner measured beside the failing one.
-define(OTHER, "rand:uniform().").
%% Size of the big damaged file (bytes).
-define(BIG_BYTES, 50000000).

suite() ->
    [{timetrap, {minutes, 4}}].

all() ->
    [{group, G} || G <- groups_in_order()].

groups_in_order() ->
    [option_conflicts, runner_failures, api_failures, suite_failures, damaged_files].

%% runner_failures: one parallel subgroup per failure (its modes at once: a few VMs on a
%% small host); the others' cells one after another, or all at once when they only wait.
groups() ->
    [{option_conflicts, [parallel], names(option_conflicts)},
     {runner_failures, [], [{group, F} || F <- failures()]},
     {api_failures, [], names(api_failures)},
     {suite_failures, [parallel], names(suite_failures)},
     %% the 50 MB files one at a time
     {damaged_files, [], [{group, damaged_files_cells} | [N || N <- names(damaged_files), big(N)]]},
     {damaged_files_cells, [parallel], [N || N <- names(damaged_files), not big(N)]}]
    ++ [{F, [parallel], [cell_name([F, M]) || M <- modes()]} || F <- failures()].

big(Name) -> lists:prefix("big", atom_to_list(Name)).

init_per_suite(Config) ->
    ct:log("matrix: ~p cells, ~p",
           [lists:sum([length(cells(G)) || G <- groups_in_order()]),
            [{G, length(cells(G))} || G <- groups_in_order()]]),
    case erlperf_test_lib:with_escript(Config) of
        {skip, _} = Skip -> Skip;
        With -> [{work, work_dir(With)} | With]
    end.

end_per_suite(_Config) ->
    ok.

init_per_group(option_conflicts, Config) ->
    %% written once, before the cells run at once
    [{conflict_suite, conflict_suite(Config)}, {conflict_baseline, conflict_baseline(Config)}
     | Config];
init_per_group(runner_failures, Config) ->
    %% a saved run of ok., for --baseline
    Base = filename:join(?config(work, Config), "base.json"),
    {0, _} = erlperf_test_lib:escript(["ok.", "-d", "50", "-s", "2", "--save", Base], []),
    [{baseline, Base} | Config];
init_per_group(damaged_files, Config) ->
    Dir = filename:join(?config(work, Config), "damaged"),
    Suite = write_suite(Dir, "matrix_good_bench",
                        "benchmarks() -> [#{name => \"good\", runner => \"ok.\", "
                        "options => #{samples => 2, sample_duration => 20}}].\n"),
    Store = filename:join(Dir, "good_store"),
    {0, _} = erlperf_test_lib:escript(["--suite", Suite, "--store", Store], []),
    [Entry] = filelib:wildcard(filename:join([Store, "runs", "*.json"])),
    {ok, Bin} = file:read_file(Entry),
    {ok, Map} = erlperf_json:decode(Bin),
    Record = filename:join(Dir, "good_record.json"),
    {0, _} = erlperf_test_lib:escript(["ok.", "-d", "20", "-s", "2", "--save", Record], []),
    {ok, RecBin} = file:read_file(Record),
    {ok, RecMap} = erlperf_json:decode(RecBin),
    [{good_suite, Suite}, {good_store, Store}, {good_entry, Map}, {good_record, RecMap}
     | Config];
init_per_group(_Group, Config) ->
    Config.

end_per_group(damaged_files, Config) ->
    %% the 50 MB files are generated, never kept
    Big = filelib:wildcard(filename:join([?config(work, Config), "**", "*big*"])),
    _ = [file:delete(F) || F <- Big],
    ok;
end_per_group(_Group, _Config) ->
    ok.

%% Runs the cell of a generated name; a test case's info (`Case()') is empty.
'$handle_undefined_function'(Name, []) ->
    case find_cell(Name) of
        {ok, {Group, {_, Spec}}} ->
            [{doc, lists:flatten(io_lib:format("~s: ~0tp", [Group, Spec]))}];
        error -> erlang:error(undef, [Name])
    end;
'$handle_undefined_function'(Name, [Config]) when is_list(Config) ->
    case find_cell(Name) of
        {ok, {Group, Cell}} -> run_cell(Group, Cell, Config);
        error -> erlang:error(undef, [Name, Config])
    end;
'$handle_undefined_function'(Name, Args) ->
    erlang:error(undef, [Name | Args]).

find_cell(Name) ->
    case [{G, C} || G <- groups_in_order(), C <- cells(G), element(1, C) =:= Name] of
        [Found] -> {ok, Found};
        [] -> error
    end.

names(Group) ->
    [element(1, C) || C <- cells(Group)].

cell_name(Parts) ->
    list_to_atom(lists:flatten(lists:join("__", [to_list(P) || P <- Parts]))).

to_list(A) when is_atom(A) -> atom_to_list(A);
to_list(L) when is_list(L) -> L.

%%--------------------------------------------------------------------
%% The matrix: each cell `{Name, Spec}'

-spec cells(atom()) -> [{atom(), term()}].
cells(option_conflicts) ->
    [{cell_name([option_conflicts, rule_name(R)]), R} || R <- expressible_rules()];
cells(runner_failures) ->
    [{cell_name([F, M]), {F, M}} || F <- failures(), M <- modes()];
cells(api_failures) ->
    [{cell_name([api, F]), F} || F <- [crash, throw, exit, hang_counts, hang_timed, init_runner]];
cells(suite_failures) ->
    [{cell_name([suite, K]), K} || {K, _, _} <- suite_kinds()];
cells(damaged_files) ->
    [{cell_name([D, C]), {D, C}} || D <- damages(), C <- [history, suite, baseline, render]].

%%--------------------------------------------------------------------
%% 1. option_conflicts

%% Every rule whose options all have a command-line name. Rules that cannot be
%% expressed: none today (every key of rules() has a name); a rule on a key without
%% one (priority, counts, progress, ...) would be left out here, and counted in the log.
expressible_rules() ->
    [R || R <- erlperf_options:rules(), lists:all(fun has_name/1, rule_keys(R))].

rule_keys({needs, A, Bs}) -> [A | Bs];
rule_keys({excludes, A, B}) -> [key(A), key(B)];
rule_keys({excludes, A, B, _Why}) -> [key(A), key(B)].

key({K, _V}) -> K;
key(K) -> K.

has_name(Key) ->
    [] =/= [N || #{key := K, names := [_ | _] = N} <- erlperf_options:all(), K =:= Key].

rule_name({needs, A, _}) -> "needs_" ++ atom_to_list(A);
rule_name({excludes, A, B}) -> "excludes_" ++ part(A) ++ "_" ++ part(B);
rule_name({excludes, A, B, _}) -> rule_name({excludes, A, B}).

part({K, V}) -> atom_to_list(K) ++ "_" ++ atom_to_list(V);
part(K) -> atom_to_list(K).

%% The option as the command line gives it, with a valid value.
option_args(Given, Config) ->
    {Key, Value} = case Given of {K, V} -> {K, V}; K -> {K, undefined} end,
    [Opt | _] = [O || #{key := K2, names := [_ | _]} = O <- erlperf_options:all(), K2 =:= Key],
    #{names := [Name | _], arg := Arg} = Opt,
    [Name | arg_value(Key, Arg, Value, Config)].

arg_value(_Key, flag, _, _) -> [];
arg_value(_Key, no_flag, _, _) -> [];
arg_value(_Key, _Arg, V, _) when V =/= undefined -> [atom_to_list(V)];
arg_value(suites, _, _, Config) -> [?config(conflict_suite, Config)];
arg_value(baselines, _, _, Config) -> [?config(conflict_baseline, Config)];
arg_value(store, _, _, Config) -> [filename:join(?config(work, Config), "conflict_store")];
arg_value(loop, _, _, _) -> ["10"];
arg_value(_Key, count, _, _) -> ["2"];
arg_value(_Key, non_neg_count, _, _) -> ["1"];
arg_value(compare, choice, _, _) -> ["sequential"];
arg_value(arrival, choice, _, _) -> ["poisson"];
arg_value(_Key, choice, _, _) -> ["never"];
arg_value(_Key, ratio, _, _) -> ["0.1"];
arg_value(_Key, percent, _, _) -> ["90"];
arg_value(_Key, noise, _, _) -> ["1"];
arg_value(_Key, code, _, _) -> ["ok."];
arg_value(_Key, text, _, _) -> ["x"];
arg_value(_Key, regex, _, _) -> ["x"];
arg_value(_Key, name, _, _) -> ["nightly"];
arg_value(_Key, dir, _, Config) -> [?config(work, Config)];
arg_value(_Key, nodes, _, _) -> ["a@localhost"];
arg_value(_Key, output_format, _, _) -> ["json"];
arg_value(_Key, out_file, _, Config) -> [filename:join(?config(work, Config), "conflict.json")];
arg_value(_Key, file, _, Config) -> [filename:join(?config(work, Config), "conflict_out.json")];
arg_value(_Key, gate, _, _) -> ["5"];
arg_value(_Key, param, _, _) -> ["N=1,2"];
arg_value(_Key, bytes, _, _) -> ["N"];
arg_value(_Key, profiler, _, _) -> [atom_to_list(hd(erlperf_options:profilers()))];
arg_value(_Key, forks, _, _) -> ["2"];
arg_value(_Key, input, _, _) -> ["a=1."];
arg_value(_Key, revision, _, _) -> ["HEAD"];
arg_value(_Key, rates, _, _) -> ["100"];
arg_value(_Key, slo, _, _) -> ["p99=5ms"].

conflict_suite(Config) ->
    write_suite(filename:join(?config(work, Config), "conflict"), "matrix_conflict_bench",
                "benchmarks() -> [#{name => \"c\", runner => \"ok.\"}].\n").

conflict_baseline(Config) ->
    File = filename:join(?config(work, Config), "conflict_baseline.json"),
    {0, _} = erlperf_test_lib:escript(["ok.", "-d", "20", "-s", "2", "--save", File], []),
    File.

%% The command line that breaks the rule: the runner ok. (unless a suite or the history
%% is asked for, which take none) and the options.
rule_args({needs, A, _Bs}, Config) ->
    with_runner([A], option_args(A, Config));
rule_args({excludes, A, B}, Config) ->
    with_runner([key(A), key(B)], option_args(A, Config) ++ option_args(B, Config));
rule_args({excludes, A, B, _}, Config) ->
    rule_args({excludes, A, B}, Config).

with_runner(Keys, Args) ->
    case lists:member(suites, Keys) orelse lists:member(history, Keys) of
        true -> Args;
        false -> ["ok." | Args]
    end.

%% Names the line may use for the rule's options: any of their command-line names.
rule_names(Rule) ->
    lists:append([Names || K <- rule_keys(Rule),
                           #{key := K2, names := Names} <- erlperf_options:all(), K2 =:= K]).

run_conflict(Rule, Config) ->
    Args = rule_args(Rule, Config),
    {Status, Out, Ms} = timed(Args),
    contract(Out, Ms, ?QUICK_MS),
    ?assertEqual(2, Status, {Rule, Args}),
    Line = one_error(Out),
    ?assert(lists:any(fun (N) -> string:find(Line, N) =/= nomatch end,
                      lists:delete("-pa", rule_names(Rule))), {Line, Rule}).

%%--------------------------------------------------------------------
%% 2. runner_failures

failures() ->
    [crash, throw, exit, hang, slow, flood, init_runner].

modes() ->
    [plain, two_runners, timed, rate, memory, latency, profile, save, baseline, squeeze, isolated].

%% The failing runner's code, and its extra options (which go before the mode's).
failure(crash) -> {"erlang:error(boom).", []};
failure(throw) -> {"throw(x).", []};
failure(exit) -> {"exit(bye).", []};
failure(hang) -> {?HANG, []};
failure(slow) -> {"timer:sleep(200).", []};
failure(flood) -> {"self() ! x.", []};
failure(init_runner) -> {"ok.", ["--init_runner", "erlang:binary_to_atom(1)."]}.

%% A mode's command line after the runners.
mode_args(plain, _) -> short();
mode_args(two_runners, _) -> short();
mode_args(timed, _) -> ["-l", "10", "-s", "1"];
mode_args(rate, _) -> ["--rate", "100", "-d", "100", "-s", "1"];
mode_args(memory, _) -> ["--memory" | short()];
mode_args(latency, _) -> ["--latency" | short()];
mode_args(profile, _) -> ["--profile", atom_to_list(hd(erlperf_options:profilers())) | short()];
mode_args(save, Config) -> ["--save", filename:join(?config(work, Config), "saved.json") | short()];
mode_args(baseline, Config) -> ["--baseline", ?config(baseline, Config) | short()];
mode_args(squeeze, _) -> ["-q", "--max", "2" | short()];
mode_args(isolated, _) -> ["-i" | short()].

short() -> ["-d", "50", "-s", "1"].

%% A call that never returns is told from a slow one once it has run 100 ms
%% (erlperf_job_counters' overdue floor): a hang's run takes two samples of 100 ms (as in
%% erlperf_stuck_SUITE; two of 50 ms sit on the floor, and end either way). In a run
%% shorter than that a hang is a call that has not returned yet: the table shows 0, exit 0.
samples(hang, Args) ->
    longer(Args);
samples(_Failure, Args) ->
    Args.

longer(["-s", "1" | Rest]) -> ["-s", "2" | longer(Rest)];
longer(["-d", "50" | Rest]) -> ["-d", "100" | longer(Rest)];
longer([A | Rest]) -> [A | longer(Rest)];
longer([]) -> [].

%% What the cell expects: the exit statuses allowed, and the bound.
%% slow: 200 ms a call, in one sample of 50 ms (the documented bound: a run that ends
%% with a call in progress for longer than 100 ms, when a loaded host stretches the
%% sample, says no call returned: exit 1, its one line).
expected(slow, _Mode) -> {[0, 1], ?QUICK_MS};
expected(flood, _Mode) -> {[0, 1], ?QUICK_MS};
expected(hang, timed) -> {[1], ?NO_PROGRESS_MS};
expected(hang, _Mode) -> {[1], ?STUCK_MS};
expected(_Failure, _Mode) -> {[1], ?QUICK_MS}.

run_runner_failure({Failure, Mode}, Config) ->
    {Code, Extra} = failure(Failure),
    Runners = case Mode of two_runners -> [Code, ?OTHER]; _ -> [Code] end,
    %% a file of its own per cell: cells of a failure run at once
    Work = filename:join(?config(work, Config), atom_to_list(Failure)),
    ok = filelib:ensure_dir(filename:join(Work, "x")),
    Args = Runners ++ Extra ++ samples(Failure, mode_args(Mode, [{work, Work} | Config])),
    {Allowed, Bound} = expected(Failure, Mode),
    {Status, Out, Ms} = timed(Args),
    contract(Out, Ms, Bound),
    ?assert(lists:member(Status, Allowed), {Status, Allowed}),
    case Status of
        0 -> ?assertEqual([], errors(Out));
        1 ->
            Line = one_error(Out),
            ?assertNotEqual(nomatch, string:find(Line, Code), Code),
            Failure =:= slow andalso
                ?assertNotEqual(nomatch, string:find(Line, "no call returned"), Line)
    end,
    %% the other runner's results are still printed
    Mode =:= two_runners andalso
        ?assertNotEqual([], [L || L <- string:lexemes(Out, "\n"), lists:prefix(?OTHER, L)]).

%%--------------------------------------------------------------------
%% API cells: the same failures through erlperf:run/2, in this VM: an error erlperf
%% explains in one line, nothing left behind.

run_api(Failure, _Config) ->
    Before = {generated(), length(processes())},
    {Code, Opts} = api_case(Failure),
    T0 = erlang:monotonic_time(millisecond),
    Reason = try erlperf:run(Code, Opts) of R -> {returned, R} catch error:E -> E end,
    Ms = erlang:monotonic_time(millisecond) - T0,
    ?assert(Ms < ?NO_PROGRESS_MS, Ms),
    Text = erlperf:format_error(Reason),
    ?assert(io_lib:printable_unicode_list(Text), Reason),
    ?assertEqual(nomatch, string:find(Text, "\n"), Text),
    contract(Text, 0, 1),
    ?assertEqual(element(1, Before), generated()),
    ?assert(erlperf_test_lib:wait_for(fun () -> length(processes()) =< element(2, Before) + 2 end,
                                      5000), {length(processes()), Before}).

api_case(crash) -> {"erlang:error(boom).", short_api()};
api_case(throw) -> {"throw(x).", short_api()};
api_case(exit) -> {"exit(bye).", short_api()};
api_case(hang_counts) -> {?HANG, (short_api())#{counts => true}};
api_case(hang_timed) -> {?HANG, #{sample_duration => {timed, 10}, samples => 1}};
api_case(init_runner) ->
    {#{runner => "ok.", init_runner => "erlang:binary_to_atom(1)."}, short_api()}.

short_api() -> #{sample_duration => 50, samples => 1}.

generated() ->
    lists:sort([M || {M, _} <- code:all_loaded(), is_generated(atom_to_list(M))]).

is_generated("erlperf_job_" ++ Rest) -> not lists:member(Rest, ["code", "counters", "measurer"]);
is_generated(_) -> false.

%%--------------------------------------------------------------------
%% 3. suite_failures

%% {Kind, the suite's body after its -export, the name the one line must hold}.
suite_kinds() ->
    Opts = "options => #{samples => 2, sample_duration => 20}",
    [{crash, "benchmarks() -> [#{name => \"boom_bench\", runner => \"erlang:error(boom).\", "
             ++ Opts ++ "}].\n", "boom_bench"},
     {hang, "benchmarks() -> [#{name => \"hang_bench\", runner => \"" ?HANG "\", "
            ++ Opts ++ "}].\n", "hang_bench"},
     {bad_option, "benchmarks() -> [#{name => \"badopt_bench\", runner => \"ok.\", "
                  "options => #{samples => -1}}].\n", "badopt_bench"},
     %% beside a good benchmark: only the bad one fails (the good one is run and stored)
     {bad_option_beside_good, "benchmarks() -> [#{name => \"badopt2_bench\", runner => \"ok.\", "
                              "options => #{sample_duration => 0}},\n"
                              "  #{name => \"good_bench\", runner => \"ok.\", " ++ Opts ++ "}].\n",
      "badopt2_bench"},
     {unknown_option, "benchmarks() -> [#{name => \"unknown_bench\", runner => \"ok.\", "
                      "options => #{no_such_option => 1}}].\n", "unknown_bench"},
     {not_a_list, "benchmarks() -> not_a_list.\n", module},
     {not_maps, "benchmarks() -> [1, {a, b}].\n", module},
     {duplicate_names, "benchmarks() -> [#{name => \"dup\", runner => \"ok.\", " ++ Opts ++ "},\n"
                       "  #{name => \"dup\", runner => \"ok.\", " ++ Opts ++ "}].\n", "dup"},
     %% a name with a line break is accepted, and written quoted on one line
     %% (erlperf_name): only its failure is a failure
     {newline_name, "benchmarks() -> [#{name => \"new\\nline\", runner => \"ok.\", "
                    ++ Opts ++ "}].\n", ok},
     {newline_name_crash, "benchmarks() -> [#{name => \"bad\\nname\", "
                          "runner => \"erlang:error(boom).\", "
                          ++ Opts ++ "}].\n", "\"bad\\nname\""},
     {missing_runner, "benchmarks() -> [#{name => \"norunner\"}].\n", "norunner"},
     {benchmarks_crash, "benchmarks() -> erlang:error(oops).\n", module},
     {no_compile, "benchmarks() -> [#{name => \"x\", runner => \n", module}].

run_suite_failure(Kind, Config) ->
    {Kind, Body, Named} = lists:keyfind(Kind, 1, suite_kinds()),
    Module = "matrix_" ++ atom_to_list(Kind) ++ "_bench",
    Dir = filename:join([?config(work, Config), "suites", atom_to_list(Kind)]),
    File = write_suite(Dir, Module, Body),
    {Status, Out, Ms} = timed(["--suite", File, "--store", filename:join(Dir, "store")]),
    contract(Out, Ms, ?STUCK_MS),
    case Named of
        ok ->
            ?assertEqual(0, Status),
            ?assertEqual([], errors(Out)),
            ?assertNotEqual(nomatch, string:find(Out, "\"new\\nline\"")),
            ?assertEqual([], [L || L <- lines(Out), lists:prefix("line", L)]);
        _ ->
            ?assert(lists:member(Status, [1, 2]), Status),
            Line = one_error(Out),
            Name = case Named of module -> Module; _ -> Named end,
            ?assertNotEqual(nomatch, string:find(Line, Name), {Line, Name}),
            Kind =:= bad_option_beside_good andalso
                ?assertMatch({[#{<<"record">> :=
                                     #{<<"runs">> := [#{<<"label">> := <<"good_bench">>}]}}], []},
                             erlperf_store:runs(filename:join(Dir, "store")))
    end.

%%--------------------------------------------------------------------
%% 4. damaged_files

damages() ->
    [empty, truncated, not_json, json_array, number_for_string, string_for_number,
     missing_keys, huge_float, huge_integer, deep_nesting, invalid_utf8, big, big_truncated].

%% Damages that leave a valid file (an integer of 30 digits; a valid record beside 50 MB
%% of an unknown key): read as any record may be (exit 0, no warning), or refused in one
%% line. 1e308 is refused (erlperf_schema's largest figure: arithmetic on it overflowed).
valid_damage(D) -> lists:member(D, [huge_integer, big]).

%% The damaged bytes, from a good entry (or record) map.
damaged(empty, _Good) -> <<>>;
damaged(truncated, Good) ->
    Bin = encode(Good),
    binary:part(Bin, 0, byte_size(Bin) div 2);
damaged(not_json, _Good) -> <<"this is not JSON {">>;
damaged(json_array, _Good) -> <<"[1, 2, 3]">>;
damaged(number_for_string, Good) -> encode(in_run(Good, fun (R) -> R#{<<"label">> := 12345} end));
damaged(string_for_number, Good) ->
    encode(in_run(Good, fun (R) -> R#{<<"average">> := <<"twelve">>} end));
damaged(missing_keys, Good) ->
    encode(in_record(Good, fun (R) -> maps:without([<<"runs">>, <<"system">>], R) end));
damaged(huge_float, Good) -> number_text(Good, <<"1e308">>);
damaged(huge_integer, Good) -> number_text(Good, <<"123456789012345678901234567890">>);
damaged(deep_nesting, _Good) ->
    N = 10000,
    iolist_to_binary([binary:copy(<<"[">>, N), binary:copy(<<"]">>, N)]);
damaged(invalid_utf8, Good) ->
    Marked = encode(in_run(Good, fun (R) -> R#{<<"label">> := <<"BADUTF8">>} end)),
    binary:replace(Marked, <<"BADUTF8">>, <<16#ff, 16#fe, 16#c3>>);
damaged(big, Good) ->
    %% the good map with a 50 MB string beside it: valid, and big
    padded(Good);
damaged(big_truncated, Good) ->
    %% the same, cut short inside the string: 50 MB of a broken file
    binary:part(padded(Good), 0, ?BIG_BYTES).

padded(Good) ->
    <<"{", Rest/binary>> = encode(Good),
    iolist_to_binary([<<"{\"padding\": \"">>, binary:copy(<<"x">>, ?BIG_BYTES), <<"\", ">>, Rest]).

encode(Map) -> iolist_to_binary(erlperf_json:encode(Map)).

%% The record's figures (its samples, average, qps) written as Text: a number JSON takes,
%% but past what a float holds, or an integer of 30 digits.
number_text(Good, Text) ->
    Mark = 424242424242,
    Marked = in_run(Good, fun (#{<<"samples">> := Samples} = R) ->
                                  R#{<<"samples">> := [Mark || _ <- Samples], <<"average">> := Mark,
                                     <<"qps">> := Mark}
                          end),
    binary:replace(encode(Marked), integer_to_binary(Mark), Text, [global]).

%% The record (a store entry holds it under `record'), its first run changed by Fun.
in_run(Good, Fun) ->
    in_record(Good, fun (#{<<"runs">> := [Run | Runs]} = R) ->
                            R#{<<"runs">> := [Fun(Run) | Runs]}
                    end).

in_record(#{<<"record">> := Record} = Entry, Fun) -> Entry#{<<"record">> := Fun(Record)};
in_record(Record, Fun) -> Fun(Record).

run_damaged({Damage, Consumer}, Config) ->
    Dir = filename:join([?config(work, Config), "damaged",
                         atom_to_list(Damage) ++ "_" ++ atom_to_list(Consumer)]),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    {Args, File} = damaged_run(Damage, Consumer, Dir, Config),
    {Status, Out, Ms} = timed(Args),
    contract(Out, Ms, ?FILE_MS),
    _ = file:delete(File),
    case Status of
        0 ->
            valid_damage(Damage) orelse skipped(Out, Consumer, File);
        2 ->
            one_error(Out);
        _ ->
            ?assert(false, {exit, Status})
    end.

%% The entry skipped, said in one warning line naming it (the history of a store and a
%% suite run read the store).
skipped(Out, Consumer, File) ->
    ?assert(lists:member(Consumer, [history, suite]), Consumer),
    [Warning] = [L || L <- lines(Out), lists:prefix("erlperf: warning: ", L)],
    ?assertNotEqual(nomatch, string:find(Warning, filename:basename(File)), Warning),
    ?assertEqual([], errors(Out)).

%% The command line of a consumer of a damaged file, and the file.
damaged_run(Damage, Consumer, Dir, Config) when Consumer =:= history; Consumer =:= suite ->
    Store = filename:join(Dir, "store"),
    ok = copy_store(?config(good_store, Config), Store),
    File = filename:join([Store, "runs", "zzzz_" ++ atom_to_list(Damage) ++ ".json"]),
    ok = file:write_file(File, damaged(Damage, ?config(good_entry, Config))),
    case Consumer of
        history -> {["--history", "--store", Store, "-o", filename:join(Dir, "h.html")], File};
        suite -> {["--suite", ?config(good_suite, Config), "--store", Store], File}
    end;
damaged_run(Damage, Consumer, Dir, Config) ->
    File = filename:join(Dir, atom_to_list(Damage) ++ ".json"),
    ok = file:write_file(File, damaged(Damage, ?config(good_record, Config))),
    case Consumer of
        baseline -> {["ok.", "-d", "20", "-s", "2", "--baseline", File], File};
        render -> {["--render", File, "-o", filename:join(Dir, "r.html")], File}
    end.

copy_store(From, To) ->
    [Entry] = filelib:wildcard(filename:join([From, "runs", "*.json"])),
    Dest = filename:join([To, "runs", filename:basename(Entry)]),
    ok = filelib:ensure_dir(Dest),
    {ok, _} = file:copy(Entry, Dest),
    ok.

%%--------------------------------------------------------------------
%% The contract

run_cell(option_conflicts, {_, Rule}, Config) -> run_conflict(Rule, Config);
run_cell(runner_failures, {_, Cell}, Config) -> run_runner_failure(Cell, Config);
run_cell(api_failures, {_, Cell}, Config) -> run_api(Cell, Config);
run_cell(suite_failures, {_, Cell}, Config) -> run_suite_failure(Cell, Config);
run_cell(damaged_files, {_, Cell}, Config) -> run_damaged(Cell, Config).

%% Within the bound, and no trace or term dump in the output.
contract(Out, Ms, Bound) ->
    ?assert(Ms < Bound, {Ms, Bound}),
    [?assertEqual(nomatch, string:find(Out, T), T) || T <- ?TRACES],
    ok.

%% The one error line (a line beginning `erlperf: ' that is not a warning).
one_error(Out) ->
    case errors(Out) of
        [Line] -> Line;
        Lines -> erlang:error({not_one_error_line, Lines})
    end.

errors(Out) ->
    [L || L <- lines(Out), lists:prefix("erlperf: ", L), not lists:prefix("erlperf: warning: ", L)].

lines(Text) ->
    string:lexemes(Text, "\n").

%% The escript's status, output and how long it took (milliseconds).
timed(Args) ->
    T0 = erlang:monotonic_time(millisecond),
    {Status, Out} = erlperf_test_lib:escript(Args, []),
    {Status, Out, erlang:monotonic_time(millisecond) - T0}.

work_dir(Config) ->
    Dir = filename:join(?config(priv_dir, Config), "matrix"),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Dir.

%% A suite file of Module with Body (its functions), in Dir.
write_suite(Dir, Module, Body) ->
    File = filename:join(Dir, Module ++ ".erl"),
    ok = filelib:ensure_dir(File),
    ok = file:write_file(File, ["-module(", Module, ").\n-behaviour(erlperf_suite).\n"
                                "-compile([nowarn_export_all, export_all]).\n", Body]),
    File.
