%%% erlperf from Elixir, with the real `mix' and `elixir': a Mix project in a temporary
%%% directory with a path dependency on a copy of this repository (compiled by Mix from
%%% mix.exs: no rebar3, no MIX_REBAR3), then
%%% <ul>
%%%   <li>`mix erlperf' with two Elixir implementations and two named inputs, memory and a
%%%       comparison, in Benchee's layout; the suite files of bench/ (.exs), each run
%%%       compared with the previous one;</li>
%%%   <li>`Erlperf.run/2' with inputs, keyword options and results as maps;</li>
%%%   <li>no hidden cost: `&Mod.f/0' and a `fn' of `mix run -e' compiled into the loop,
%%%       and a `fn' that cannot be compiled named in a note;</li>
%%%   <li>keyword options and string paths in the Erlang API;</li>
%%%   <li>hostile input: Elixir that does not compile, an unknown option: one line, exit 2.</li>
%%%   <li>a Benchee user's script: Benchee's README example with `Erlperf' for `Benchee',
%%%       every section printed; Benchee's options with Benchee's meaning (floats of
%%%       seconds, hooks, pre-check, save and load, formatters), ArgumentError for an
%%%       unknown option or one erlperf cannot honour; a job's exception in Elixir's terms;
%%%       `mix erlperf --help' in Elixir's terms.</li>
%%% </ul>
%%% Skipped, saying why, without Elixir (apt-get install elixir).
-module(erlperf_elixir_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).
-export([inputs_cli/0, inputs_cli/1, suites/0, suites/1, api/0, api/1, inlined/0, inlined/1,
         interpreted_note/0, interpreted_note/1, erlang_api/0, erlang_api/1, hostile/0, hostile/1]).
-export([benchee_readme/0, benchee_readme/1, benchee_options/0, benchee_options/1,
         job_errors/0, job_errors/1, hooks/0, hooks/1, save_load_formatters/0, save_load_formatters/1,
         short_time/0, short_time/1, task_help/0, task_help/1,
         no_call_returned/0, no_call_returned/1]).

%% Longest one mix command may take (the first compiles erlperf).
-define(MIX_TIMEOUT_MS, 240000).
%% Environment variables of this node that would change what Mix or the VM does.
-define(UNSET, ["ERL_LIBS", "ERL_FLAGS", "ERL_AFLAGS", "ERL_ZFLAGS", "MIX_ENV", "MIX_TARGET",
                "MIX_EXS", "MIX_BUILD_PATH", "MIX_DEPS_PATH", "MIX_REBAR3", "GITHUB_ACTIONS"]).

suite() ->
    [{timetrap, {minutes, 10}}].

all() ->
    [{group, mix}].

%% The cases share one project; each run of its suites is compared with the one before.
groups() ->
    [{mix, [], [inputs_cli, suites, api, inlined, interpreted_note, erlang_api, hostile,
                benchee_readme, benchee_options, job_errors, hooks, save_load_formatters,
                short_time, task_help, no_call_returned]}].

init_per_suite(Config) ->
    case {os:find_executable("mix"), os:find_executable("elixir")} of
        {false, _} ->
            {skip, "no mix on this machine (apt-get install elixir)"};
        {_, false} ->
            {skip, "no elixir on this machine (apt-get install elixir)"};
        {Mix, _} ->
            Priv = ?config(priv_dir, Config),
            Home = filename:join(Priv, "home"),
            ok = filelib:ensure_dir(filename:join(Home, "x")),
            ok = copy_erlperf(filename:join(Priv, "erlperf")),
            Project = filename:join(Priv, "app"),
            ok = copy_tree(filename:join(?config(data_dir, Config), "app"), Project),
            With = [{mix, Mix}, {home, Home}, {project, Project} | Config],
            %% the dependency is compiled by Mix itself (mix.exs), without rebar3
            {0, Out, _} = mix(With, ["compile"]),
            ct:log("~ts", [Out]),
            With
    end.

end_per_suite(_Config) ->
    ok.

%%--------------------------------------------------------------------
%% mix erlperf

inputs_cli() ->
    [{doc, "mix erlperf: two Elixir implementations, two named inputs, memory: a section per "
           "input in Benchee's layout, with ips, average, deviation, median, 99th %, a comparison "
           "with erlperf's interval and verdict, and memory usage"}].
inputs_cli(Config) ->
    {0, Out, Err} = mix(Config, ["erlperf", "fn input -> Enum.flat_map(input, &[&1, &1]) end",
                                 "--label", "flat_map",
                                 "fn input -> input |> Enum.map(&[&1, &1]) |> List.flatten() end",
                                 "--label", "map.flatten",
                                 "--input", "small=Enum.to_list(1..100)",
                                 "--input", "large=Enum.to_list(1..10_000)",
                                 "--memory", "-s", "4", "-d", "100"]),
    ?assertEqual("", Err),
    [?assertNotEqual(nomatch, string:find(Out, Text), Text)
     || Text <- ["Elixir 1.", "##### With input small #####", "##### With input large #####",
                 "ips", "average", "deviation", "median", "99th %", "Comparison:",
                 "Memory usage statistics:", "x memory usage"]],
    %% each input compares the two, the slower one with its interval and what it knows
    Slower = [L || L <- lines(Out), string:find(L, "x slower +") =/= nomatch],
    ?assertEqual(2, length(Slower), Out),
    [?assertMatch({match, _}, re:run(L, "\\((no significant difference, )?95% CI [0-9.]+x\\.\\.([0-9.]+x|∞), [0-9]+ forks\\)$", [unicode]))
     || L <- Slower],
    %% flat_map makes fewer cons cells than map then flatten: map.flatten is compared
    %% with it in each input's memory section
    Sections = tl(string:split(Out, "##### With input ", all)),
    ?assertEqual(2, length(Sections)),
    [?assertMatch([_], [L || L <- lines(S), lists:prefix("map.flatten", L),
                             string:find(L, "x memory usage +") =/= nomatch], S) || S <- Sections],
    %% erlperf's tables on request
    {0, Table, _} = mix(Config, ["erlperf", "Enum.sum(1..100)", "--format", "text", "-s", "2", "-d", "50"]),
    ?assertMatch([_ | _], [L || L <- lines(Table), lists:prefix("Code", L)]).

suites() ->
    [{doc, "mix erlperf without a runner runs the suite files of bench/ (Elixir), stores each run "
           "and compares it with the previous one"}].
suites(Config) ->
    {0, First, _} = mix(Config, ["erlperf"]),
    ?assertNotEqual(nomatch, string:find(First, "sum100: first run, nothing to compare with"), First),
    {0, Second, _} = mix(Config, ["erlperf"]),
    ?assertNotEqual(nomatch, string:find(Second, "sum100: "), Second),
    ?assertNotEqual(nomatch, string:find(Second, "against the previous run"), Second),
    Runs = filelib:wildcard(filename:join([?config(project, Config), "_build", "erlperf", "runs", "*.json"])),
    ?assertEqual(2, length(Runs)).

%%--------------------------------------------------------------------
%% Erlperf.run/2

api() ->
    [{doc, "Erlperf.run/2: jobs as a map of names, inputs, keyword options, results as maps "
           "with string names, fastest first within each input, the slower compared"}].
api(Config) ->
    Script = "r = Erlperf.run(%{\"sum\" => fn input -> Enum.sum(input) end,\n"
             "                  \"reduce\" => fn input -> Enum.reduce(input, 0, &+/2) end},\n"
             "                inputs: [{\"ten\", Enum.to_list(1..10)}, {\"thousand\", Enum.to_list(1..1000)}],\n"
             "                samples: 4, sample_duration: 100, memory: true, print: false)\n"
             "for x <- r, do: IO.puts(Enum.join([x.name, x.input, x.ips > 0, is_number(x.memory_bytes),\n"
             "                                    x.comparison == nil, is_number(x.median_ns)], \" \"))\n",
    {0, Out, _} = mix(Config, ["run", "-e", Script]),
    Results = [string:lexemes(L, " ") || L <- lines(Out)],
    ?assertEqual(4, length(Results), Out),
    ?assertEqual(["ten", "ten", "thousand", "thousand"], [I || [_, I | _] <- Results]),
    %% one fastest (no comparison) per input, every figure there
    ?assertEqual(2, length([x || [_, _, _, _, "true", _] <- Results]), Out),
    [?assertMatch([_, _, "true", "true", _, "true"], R) || R <- Results],
    ?assertEqual(["reduce", "reduce", "sum", "sum"], lists:sort([N || [N | _] <- Results])).

%%--------------------------------------------------------------------
%% No hidden cost

inlined() ->
    [{doc, "&Mod.f/0 is a remote call in the generated loop, and so is the body of a fn "
           "written in mix run -e: no fun in the job's context, nothing interpreted"}].
inlined(Config) ->
    Script = "for {name, job} <- [capture: &App.Work.sum100/0, eval: fn -> App.Work.sum100() end] do\n"
             "  {:ok, g} = :erlperf_codegen.generate(%{runner: job}, :elixir_suite_gen)\n"
             "  source = IO.iodata_to_binary(:erlperf_codegen.source(g))\n"
             "  IO.puts(\"#{name} #{tuple_size(g.context)} #{length(g.warnings)} \"\n"
             "          <> \"#{String.contains?(source, \"'Elixir.App.Work':sum100()\")} \"\n"
             "          <> :erlperf_codegen.label(%{runner: job}))\n"
             "end\n",
    {0, Out, _} = mix(Config, ["run", "-e", Script]),
    ?assert(lists:member("capture 0 0 true &App.Work.sum100/0", lines(Out)), Out),
    ?assertMatch([_], [L || L <- lines(Out), lists:prefix("eval 0 0 true ", L)]).

interpreted_note() ->
    [{doc, "A fn of mix run -e holding a pid cannot be compiled: it is called as an "
           "interpreted fun, and the report says so with what interpreting costs"}].
interpreted_note(Config) ->
    Script = "pid = self()\n"
             "r = :erlperf.benchmark([fn -> send(pid, :x) end], %{report: :full, samples: 2, sample_duration: 50}, :undefined)\n"
             "IO.puts(:erlperf_cli.format(r, %{viewport_width: :infinity}))\n",
    {0, Out, _} = mix(Config, ["run", "-e", Script]),
    [Note] = [L || L <- lines(Out), lists:prefix("Note: the runner of ", L)],
    ?assertNotEqual(nomatch, string:find(Note, "is an interpreted fun"), Note),
    ?assertMatch({match, _}, re:run(Note, "a call of an empty one costs [0-9.]+ [nuμ]?s more", [unicode])).

%%--------------------------------------------------------------------
%% Erlang API from Elixir

erlang_api() ->
    [{doc, "erlperf's Erlang API takes Elixir's keyword lists and string paths"}].
erlang_api(Config) ->
    Script = "q = :erlperf.run(&App.Work.sum100/0, samples: 2, sample_duration: 50)\n"
             "{q2, c} = :erlperf.run({App.Work, :sum100, []}, [samples: 1, sample_duration: 50], max: 2)\n"
             "reports = :erlperf.compare([&App.Work.sum100/0], report: :full, samples: 2, sample_duration: 50)\n"
             ":ok = :erlperf_output.write(\"out.json\", :json, reports)\n"
             "IO.puts(\"#{is_integer(q) and q > 0} #{is_integer(q2)} #{c in [1, 2]} #{File.exists?(\"out.json\")}\")\n",
    {0, Out, _} = mix(Config, ["run", "-e", Script]),
    ?assert(lists:member("true true true true", lines(Out)), Out).

%%--------------------------------------------------------------------
%% Hostile input

hostile() ->
    [{doc, "Elixir that does not compile, an unknown option, a --input that does not compile: "
           "one line on stderr, exit 2, nothing on stdout"}].
hostile(Config) ->
    [begin
         {2, Out, Err} = mix(Config, ["erlperf" | Args]),
         ?assertEqual("", Out, Args),
         ?assertMatch([_], lines(Err), Args),
         ?assertNotEqual(nomatch, string:find(Err, Text), {Args, Err})
     end || {Args, Text} <- [{["Enum.sum(1..100"], "erlperf: runner Enum.sum(1..100: "},
                             {["Enum.sum(1..100)", "--bogus"], "erlperf: unknown option --bogus"},
                             {["fn input -> input end", "--input", "x=Enum.to_list(1.."],
                              "erlperf: --input x: "}]].

%%--------------------------------------------------------------------
%% A Benchee user's script

benchee_readme() ->
    [{doc, "Benchee's README example with Erlperf for Benchee (two inputs, time: 2, memory_time: 1, "
           "reduction_time: 1, warmup: 0.5): the system, the configuration, progress, statistics, "
           "comparison, memory and reductions"}].
benchee_readme(Config) ->
    Script = "list = Enum.to_list(1..10_000)\n"
             "map_fun = fn i -> [i, i * i] end\n"
             "Erlperf.run(\n"
             "  %{\"flat_map\" => fn input -> Enum.flat_map(input, map_fun) end,\n"
             "    \"map.flatten\" => fn input -> input |> Enum.map(map_fun) |> List.flatten() end},\n"
             "  inputs: %{\"Small\" => Enum.to_list(1..1_000), \"Bigger\" => list},\n"
             "  time: 2, memory_time: 1, reduction_time: 1, warmup: 0.5)\n",
    ok = file:write_file(filename:join(?config(project, Config), "readme.exs"), Script),
    {0, Out, Err} = mix(Config, ["run", "readme.exs"]),
    ?assertEqual("", Err),
    %% in this order
    Expected = ["Operating System: Linux", "CPU Information: ", "Number of Available Cores: ",
                "Available memory: ", "Elixir 1.", "Erlang 2", "JIT enabled: ",
                "Configuration:", "warmup: 500 ms, time: 2 s (20 samples of 100 ms)",
                "memory and reductions per call: measured", "inputs: Bigger, Small",
                "Estimated total run time: ",
                "Benchmarking flat_map, map.flatten with input Bigger ...",
                "Benchmarking flat_map, map.flatten with input Small ...",
                "##### With input Bigger #####", "ips", "average", "deviation", "median", "99th %",
                "Comparison:", "Memory usage statistics:", "Reduction count statistics:",
                "##### With input Small #####", "Comparison:", "Memory usage statistics:",
                "Reduction count statistics:", "ips and average: erlperf's loop"],
    lists:foldl(fun (Text, Rest) ->
                        case string:find(Rest, Text) of
                            nomatch -> ct:fail({missing, Text, Out});
                            Found -> string:slice(Found, string:length(Text))
                        end
                end, Out, Expected),
    %% map.flatten makes more cons cells, and calls more functions, than flat_map
    [?assertMatch([_, _], [L || L <- lines(Out), lists:prefix("map.flatten", L),
                                string:find(L, What) =/= nomatch], What)
     || What <- ["x memory usage +", "x reduction count +"]].

benchee_options() ->
    [{doc, "Benchee's options: seconds as floats; an unknown option and one erlperf cannot honour "
           "raise ArgumentError saying so (the unknown one listing the known); a bad value names "
           "what is expected"}].
benchee_options(Config) ->
    Script = "try_run = fn opts ->\n"
             "  try do\n"
             "    r = Erlperf.run(%{\"sum\" => fn -> Enum.sum(1..10) end}, [print: false] ++ opts)\n"
             "    IO.puts(\"ok #{length(r)} #{match?([%Erlperf.Scenario{}], r)}\")\n"
             "  rescue\n"
             "    e in ArgumentError -> IO.puts(\"ArgumentError: \" <> e.message)\n"
             "  end\n"
             "end\n"
             "try_run.(warmup: 0.1, time: 0.3)\n"
             "try_run.(bogus: 1)\n"
             "try_run.(exclude_outliers: true)\n"
             "try_run.(measure_function_call_overhead: true)\n"
             "try_run.(time: -1)\n"
             "try_run.(percentiles: [50, 75])\n"
             "try_run.(unit_scaling: :largest)\n"
             "try_run.(formatters: [Benchee.Formatters.HTML])\n"
             "try_run.(samples: \"x\")\n",
    {0, Out, _} = mix(Config, ["run", "-e", Script]),
    [Ok, Unknown, Outliers, Overhead, Time, Percentiles, Scaling, Html, Samples] = lines(Out),
    ?assertEqual("ok 1 true", Ok),
    ?assertMatch("ArgumentError: unknown option :bogus; the options are " ++ _, Unknown),
    [?assertNotEqual(nomatch, string:find(Unknown, O), O)
     || O <- [":warmup", ":time", ":memory_time", ":reduction_time", ":inputs", ":before_each", ":forks"]],
    ?assertMatch("ArgumentError: option :exclude_outliers is Benchee's, and erlperf has no such thing: " ++ _, Outliers),
    ?assertMatch("ArgumentError: option :measure_function_call_overhead is Benchee's" ++ _, Overhead),
    ?assertEqual("ArgumentError: invalid value for option :time: -1; expected a number of seconds above 0", Time),
    ?assertMatch("ArgumentError: invalid value for option :percentiles: [50, 75]; expected a list of the "
                 "percentiles measured: 50, 90, 99, 99.9", Percentiles),
    ?assertMatch("ArgumentError: invalid value for option :unit_scaling: :largest; expected :best" ++ _, Scaling),
    ?assertMatch("ArgumentError: invalid value for option :formatters: " ++ _, Html),
    ?assertNotEqual(nomatch, string:find(Html, "a :file for :html"), Html),
    %% erlperf's own options are checked before anything runs, in Elixir's terms
    ?assertMatch("ArgumentError: invalid value for option :samples: \"x\"; expected erlperf's samples: " ++ _, Samples).

job_errors() ->
    [{doc, "A job that raises: Erlperf.JobError naming the job and the input, the exception by its "
           "message; a missing module points at mix compile; mix erlperf says the same in one line"}].
job_errors(Config) ->
    Script = "for {name, job} <- [{\"boom\", fn _ -> raise \"boom\" end}, {\"gone\", fn _ -> NoSuch.Module.f() end}] do\n"
             "  try do\n"
             "    Erlperf.run(%{name => job}, inputs: [{\"one\", 1}], print: false, time: 0.3, warmup: 0)\n"
             "  rescue\n"
             "    e in Erlperf.JobError -> IO.puts(\"#{e.job}|#{e.input}|\" <> Exception.message(e))\n"
             "  end\n"
             "end\n",
    {0, Out, _} = mix(Config, ["run", "-e", Script]),
    [Boom, Gone] = lines(Out),
    ?assertEqual("boom|one|job \"boom\" with input \"one\" failed: (RuntimeError) boom", Boom),
    ?assertMatch("gone|one|job \"gone\" with input \"one\" failed: (UndefinedFunctionError) function "
                 "NoSuch.Module.f/0 is undefined (module NoSuch.Module is not available)" ++ _, Gone),
    ?assertNotEqual(nomatch, string:find(Gone, "mix compile"), Gone),
    %% the command line
    {1, _, Err} = mix(Config, ["erlperf", "raise \"boom\"", "-s", "1", "-d", "50"]),
    ?assertNotEqual(nomatch, string:find(Err, "RuntimeError: boom"), Err),
    ?assertEqual(nomatch, string:find(Err, "__exception__"), Err),
    {1, _, Missing} = mix(Config, ["erlperf", "NoSuch.Module.f()", "-s", "1", "-d", "50"]),
    ?assertNotEqual(nomatch, string:find(Missing, "undefined function NoSuch.Module.f/0 (module NoSuch.Module "
                                                  "is not available: compile it with mix compile"), Missing).

hooks() ->
    [{doc, "before_scenario's result is the job's input, after_scenario gets it; before_each and "
           "after_each run around every call, their cost measured and printed; pre_check: :all_same "
           "refuses jobs that return different values"}].
hooks(Config) ->
    Script = "c = :counters.new(4, [:atomics])\n"
             "r = Erlperf.run(%{\"len\" => fn l -> length(l) end},\n"
             "  inputs: [{\"ten\", 10}], time: 0.3, warmup: 0, print: %{configuration: false, benchmarking: false},\n"
             "  pre_check: true,\n"
             "  before_scenario: fn n -> :counters.add(c, 3, 1); Enum.to_list(1..n) end,\n"
             "  after_scenario: fn l -> :persistent_term.put(:torn_down, true); IO.puts(\"after_scenario #{length(l)}\") end,\n"
             "  before_each: fn l -> :counters.add(c, 1, 1); if :persistent_term.get(:torn_down, false), do: :counters.add(c, 4, 1); l end,\n"
             "  after_each: fn n -> :counters.add(c, 2, n) end)\n"
             "calls = :counters.get(c, 1)\n"
             "IO.puts(\"calls #{calls > 100} #{abs(:counters.get(c, 2) - 10 * calls) <= 10 * 100}\")\n"
             "IO.puts(\"before_scenario #{:counters.get(c, 3)}, calls after after_scenario #{:counters.get(c, 4)}\")\n"
             "try do\n"
             "  Erlperf.run(%{\"a\" => fn -> 1 end, \"b\" => fn -> 2 end}, pre_check: :all_same, print: false)\n"
             "rescue\n"
             "  e in ArgumentError -> IO.puts(e.message)\n"
             "end\n",
    {0, Out, _} = mix(Config, ["run", "-e", Script]),
    ?assert(lists:member("after_scenario 10", lines(Out)), Out),
    %% after_each gets the job's result (10) for each before_each (a call cut short by the
    %% end of a sample is the exception)
    ?assert(lists:member("calls true true", lines(Out)), Out),
    %% Benchee's order: before_scenario once (the pre-check takes its input too), and
    %% nothing calls the job once after_scenario ran (the hooks measured alone neither)
    ?assert(lists:member("before_scenario 1, calls after after_scenario 0", lines(Out)), Out),
    ?assertEqual(nomatch, string:find(Out, "Operating System"), Out),
    ?assertMatch([_], [L || L <- lines(Out), lists:prefix("Per-call hooks (:before_each, :after_each)", L)]),
    ?assertMatch([_], [L || L <- lines(Out), lists:prefix("  len with input ten: ", L),
                            lists:suffix(" a call", L)]),
    ?assert(lists:member("pre_check: :all_same, but the jobs return different values: a returns 1; b returns 2",
                         lines(Out)), Out).

save_load_formatters() ->
    [{doc, "save: [path:, tag:] writes the run's record; load: compares a run with it; formatters "
           "write erlperf's HTML and JSON where Benchee's formatters were named"}].
save_load_formatters(Config) ->
    Script = "job = %{\"sum\" => fn -> Enum.sum(1..100) end}\n"
             "Erlperf.run(job, time: 0.5, warmup: 0, print: false, save: [path: \"saved.json\", tag: \"first\"])\n"
             "Erlperf.run(job, time: 0.5, warmup: 0, load: \"saved.json\", print: %{configuration: false},\n"
             "  formatters: [{Benchee.Formatters.HTML, file: \"out.html\"}, {Benchee.Formatters.JSON, file: \"out.json\"},\n"
             "               Benchee.Formatters.Console])\n",
    {0, Out, _} = mix(Config, ["run", "-e", Script]),
    Project = ?config(project, Config),
    {ok, Saved} = erlperf_json:decode(element(2, file:read_file(filename:join(Project, "saved.json")))),
    ?assertMatch(#{<<"tag">> := <<"first">>, <<"runs">> := [#{<<"label">> := <<"sum">>}]}, Saved),
    %% saved to be compared, as the command line's -o x.json: in forks, with exact counts
    #{<<"runs">> := [#{<<"forks">> := #{<<"sizes">> := Sizes}, <<"counts">> := #{<<"reductions_per_iteration">> := _}}]} = Saved,
    ?assert(length(Sizes) > 1, Sizes),
    ?assertMatch([_], [L || L <- lines(Out), lists:prefix("sum against saved.json: ", L)]),
    {ok, Json} = erlperf_json:decode(element(2, file:read_file(filename:join(Project, "out.json")))),
    ?assertMatch(#{<<"runs">> := [#{<<"baselines">> := [_]}]}, Json),
    {ok, Html} = file:read_file(filename:join(Project, "out.html")),
    ?assertMatch({match, _}, re:run(Html, "<svg")).

short_time() ->
    [{doc, "time: 1 is 10 samples: a job a hundred times slower is called slower, not "
           "inconclusive, on a loaded host too (CI's three legs at once); "
           "print: true and profile_after"}].
short_time(Config) ->
    %% (Enum.sum of a range is a formula: lists are summed)
    Script = "[_, slow] = Erlperf.run(%{\"ten\" => fn -> :lists.sum(:lists.seq(1, 10)) end,\n"
             "                          \"thousand\" => fn -> :lists.sum(:lists.seq(1, 1000)) end},\n"
             "                        time: 1, warmup: 0, print: false)\n"
             "IO.puts(\"#{slow.name} #{slow.comparison.verdict} #{slow.comparison.significant}\")\n",
    {0, Out, _} = mix(Config, ["run", "-e", Script]),
    ?assert(lists:member("thousand slower true", lines(Out)), Out),
    %% print: true prints it all; profile_after: the profile after the statistics
    {0, Profiled, _} = mix(Config, ["run", "-e", "Erlperf.run(%{\"seq\" => fn -> :lists.seq(1, 10) end}, "
                                    "time: 0.3, warmup: 0, print: true, profile_after: :cprof)"]),
    [?assertNotEqual(nomatch, string:find(Profiled, Text), Text)
     || Text <- ["Configuration:", "Benchmarking seq ...", "ips", "cprof", "lists:seq"]].

task_help() ->
    [{doc, "mix erlperf --help speaks of Elixir code and lists erlperf's options"}].
task_help(Config) ->
    {0, Out, _} = mix(Config, ["erlperf", "--help"]),
    ?assertMatch("Usage: mix erlperf " ++ _, Out),
    ?assertNotEqual(nomatch, string:find(Out, "CODE is an Elixir expression"), Out),
    ?assertNotEqual(nomatch, string:find(Out, "--init_runner"), Out),
    ?assertNotEqual(nomatch, string:find(Out, "Erlperf.run/2"), Out),
    ?assertEqual(nomatch, string:find(Out, "source text ending in '.'"), Out).

no_call_returned() ->
    [{doc, "A job slower than the run (no call returned): Benchee's layout printed, the figures "
           "there is none of nil (not :null, which Elixir takes for true); a :time beyond "
           "erlperf's samples: an ArgumentError before anything runs; a job that never returns, "
           "with memory_time: Erlperf.JobError naming it after the bound"}].
no_call_returned(Config) ->
    Script = "[s] = Erlperf.run(%{\"slow\" => fn -> Process.sleep(1000) end},\n"
             "                  sample_duration: 100, samples: 2, latency: false,\n"
             "                  print: %{configuration: false, benchmarking: false})\n"
             "figures = [s.average_ns, s.median_ns, s.memory_bytes, s.reductions]\n"
             "IO.puts(\"figures #{inspect(figures)} #{s.ips}\")\n"
             "try do\n"
             "  Erlperf.run(%{\"x\" => fn -> :ok end}, time: 1.0e308, print: false)\n"
             "rescue\n"
             "  e in ArgumentError -> IO.puts(e.message)\n"
             "end\n"
             "try do\n"
             "  Erlperf.run(%{\"stuck\" => fn -> receive do after :infinity -> :ok end end},\n"
             "              time: 0.2, warmup: 0, memory_time: 1, print: false)\n"
             "rescue\n"
             "  e in Erlperf.JobError -> IO.puts(\"#{e.job}|\" <> Exception.message(e))\n"
             "end\n",
    {0, Out, _} = mix(Config, ["run", "-e", Script]),
    %% a job that never returns: its memory batch given up after the bound, the job named
    ?assertMatch([_], [L || "stuck|job \"stuck\" failed: " ++ Rest = L <- lines(Out),
                            string:find(Rest, "a call did not return within 2 s") =/= nomatch]),
    ?assertMatch([_], [L || "slow " ++ _ = L <- lines(Out)]),
    ?assert(lists:member("figures [nil, nil, nil, nil] 0.0", lines(Out)), Out),
    ?assert(lists:member("invalid value for option :time: 1.0e308; expected at most "
                         "429496729.5 seconds (4294967295 samples of 100 ms, erlperf's limit)",
                         lines(Out)), Out).

%%--------------------------------------------------------------------
%% Helpers

lines(Text) ->
    string:lexemes(Text, "\n").

%% Runs mix in the project: exit status, stdout and stderr (apart).
mix(Config, Args) ->
    Home = ?config(home, Config),
    Err = filename:join(Home, "stderr"),
    Env = [{"HOME", Home}, {"MIX_HOME", filename:join(Home, ".mix")},
           {"HEX_HOME", filename:join(Home, ".hex")}, {"HEX_OFFLINE", "1"}, {"LANG", "C.UTF-8"}
           | [{Name, false} || Name <- ?UNSET]],
    Port = open_port({spawn_executable, "/bin/sh"},
                     [exit_status, binary, {cd, ?config(project, Config)},
                      {args, ["-c", "exec \"$0\" \"$@\" 2>\"" ++ Err ++ "\"", ?config(mix, Config) | Args]},
                      {env, Env}]),
    {Status, Out} = collect(Port, []),
    {ok, ErrBin} = file:read_file(Err),
    ErrText = unicode:characters_to_list(ErrBin),
    ct:log("mix ~p~nexit ~b~n--- stdout~n~ts~n--- stderr~n~ts", [Args, Status, Out, ErrText]),
    {Status, Out, ErrText}.

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Data | Acc]);
        {Port, {exit_status, Status}} -> {Status, unicode:characters_to_list(lists:reverse(Acc))}
    after ?MIX_TIMEOUT_MS ->
        {os_pid, Pid} = erlang:port_info(Port, os_pid),
        _ = os:cmd("kill -9 " ++ integer_to_list(Pid)),
        error({timeout, unicode:characters_to_list(lists:reverse(Acc))})
    end.

%% What Mix needs of erlperf to build it: mix.exs, src/ and lib/.
copy_erlperf(To) ->
    Root = erlperf_test_lib:root(),
    ok = filelib:ensure_dir(filename:join(To, "x")),
    {ok, _} = file:copy(filename:join(Root, "mix.exs"), filename:join(To, "mix.exs")),
    ok = copy_tree(filename:join(Root, "src"), filename:join(To, "src")),
    copy_tree(filename:join(Root, "lib"), filename:join(To, "lib")).

copy_tree(From, To) ->
    case filelib:is_dir(From) of
        true ->
            ok = filelib:ensure_dir(filename:join(To, "x")),
            {ok, Names} = file:list_dir(From),
            lists:foreach(fun (N) -> ok = copy_tree(filename:join(From, N), filename:join(To, N)) end, Names);
        false ->
            {ok, _} = file:copy(From, To),
            ok
    end.
