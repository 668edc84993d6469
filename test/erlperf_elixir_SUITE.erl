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
%%% </ul>
%%% Skipped, saying why, without Elixir (apt-get install elixir).
-module(erlperf_elixir_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).
-export([inputs_cli/0, inputs_cli/1, suites/0, suites/1, api/0, api/1, inlined/0, inlined/1,
         interpreted_note/0, interpreted_note/1, erlang_api/0, erlang_api/1, hostile/0, hostile/1]).

%% Longest one mix command may take (the first compiles erlperf).
-define(MIX_TIMEOUT_MS, 240000).
%% Environment variables of this node that would change what Mix or the VM does.
-define(UNSET, ["ERL_LIBS", "ERL_FLAGS", "ERL_AFLAGS", "ERL_ZFLAGS", "MIX_ENV", "MIX_TARGET",
                "MIX_EXS", "MIX_BUILD_PATH", "MIX_DEPS_PATH", "MIX_REBAR3"]).

suite() ->
    [{timetrap, {minutes, 10}}].

all() ->
    [{group, mix}].

%% The cases share one project; each run of its suites is compared with the one before.
groups() ->
    [{mix, [], [inputs_cli, suites, api, inlined, interpreted_note, erlang_api, hostile]}].

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
     || Text <- ["Elixir: ", "##### With input small #####", "##### With input large #####",
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
