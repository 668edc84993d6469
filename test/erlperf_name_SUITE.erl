%%% Names from a pull request through the real escript: labels and suite benchmark names
%%% holding line breaks, workflow commands (`::warning::'), `%', `|', `<script>' and
%%% control characters reach every output (the text table and verdicts, the regression
%%% gate, GitHub Actions' annotations and job summary, Markdown, CSV, JSON, HTML,
%%% Benchee's layout and the history), and none of them starts a line with `::' (but
%%% erlperf's own annotations, which hold the name escaped) or breaks a table.
-module(erlperf_name_SUITE).

-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).
-export([baseline_verdicts/0, baseline_verdicts/1,
         formats/0, formats/1,
         suite_names/0, suite_names/1]).

%% A label that would run a workflow command if printed raw, and how text writes it.
-define(INJECTED, "L\n::warning::injected").
-define(INJECTED_TEXT, "\"L\\n::warning::injected\"").
%% Labels of the runs of every format: the injection, table and HTML syntax, control
%% characters, a command at the start, and plain UTF-8 text (printed as it is).
-define(LABELS, [?INJECTED, "a|b %25 <script>alert(1)</script>", "tab\there\rcr\e[31m\x7f",
                 "::error::lead", [16#441, 16#43E, 16#440, 16#442, $\s, $`, $x, $`]]).
%% Short runs: these cases check where names go, not figures.
-define(QUICK, ["-d", "20", "-s", "2"]).

suite() ->
    [{timetrap, {minutes, 5}}].

all() ->
    [{group, names}].

groups() ->
    [{names, [parallel], [baseline_verdicts, formats, suite_names]}].

init_per_suite(Config) ->
    erlperf_test_lib:with_escript(Config).

end_per_suite(_Config) ->
    ok.

%%--------------------------------------------------------------------
%% Cases

baseline_verdicts() ->
    [{doc, "A label and a baseline file named with a line break and a workflow command, "
           "against a baseline under GitHub Actions: the verdict and regression lines show "
           "them quoted on one line, the annotations hold them escaped, the job summary's "
           "table keeps its columns"}].
baseline_verdicts(Config) ->
    Dir = dir(Config),
    Base = filename:join(Dir, "base\n::warning::file|%.json"),
    Summary = filename:join(Dir, "summary.md"),
    Opts = ["--label", ?INJECTED | ?QUICK],
    {0, _} = erlperf_test_lib:escript(["erlang:make_tuple(100, a)." | Opts] ++ ["--save", Base], []),
    Env = [{"GITHUB_ACTIONS", "true"}, {"GITHUB_STEP_SUMMARY", Summary}],
    %% a fourth more bytes a call: a regression of the exact count, whatever the time
    {3, Out} = erlperf_test_lib:escript(["erlang:make_tuple(125, a)." | Opts]
                                        ++ ["--baseline", Base, "--fail-on-regression", "10"], Env),
    BaseText = "\"" ++ Dir ++ "/base\\n::warning::file|%.json\"",
    ?assertNotEqual(nomatch, string:find(Out, ?INJECTED_TEXT ++ " against " ++ BaseText
                                              ++ ": regressed: 808 -> 1008 bytes per call"), Out),
    ?assertNotEqual(nomatch, string:find(Out, "erlperf: regression: " ++ ?INJECTED_TEXT
                                              ++ " allocates or reduces more per call than in "
                                              ++ BaseText), Out),
    Annotations = annotations(Out),
    ?assertMatch([_ | _], Annotations, Out),
    [?assertNotEqual(nomatch, string:find(A, "::" ++ ?INJECTED_TEXT ++ " against "), A)
     || A <- Annotations],
    ?assertNotEqual(nomatch, string:find(hd(Annotations), "::error title=erlperf%3A \"L\\n%3A%3Awarning"
                                                          "%3A%3Ainjected\" failed the gate::")),
    ok = no_command_lines(Out),
    {ok, Md} = file:read_file(Summary),
    MdText = unicode:characters_to_list(Md),
    ok = no_command_lines(MdText),
    ok = tables_keep_columns(MdText),
    %% in a code span, `|' escaped
    BaseMd = "\"" ++ Dir ++ "/base\\n::warning::file\\|%.json\"",
    ?assertNotEqual(nomatch, string:find(MdText, "| `" ++ ?INJECTED_TEXT ++ "` | `" ++ BaseMd ++ "` | "),
                    MdText).

formats() ->
    [{doc, "Runners labelled with line breaks, workflow commands, `|', `%', `<script>' and control "
           "characters, in every format on standard output: no line starts with `::', Markdown rows "
           "keep their columns, CSV reads back field for field, HTML holds no script, JSON gives the "
           "labels back as they are; a plain UTF-8 label prints as it is"}].
formats(_Config) ->
    Args = lists:append([["ok.", "--label", L] || L <- ?LABELS]) ++ ?QUICK,
    Texts = [text(L) || L <- ?LABELS],
    Run = fun (Format) ->
                  {0, Out} = erlperf_test_lib:escript(Args ++ ["--format", Format], []),
                  ok = no_command_lines(Out),
                  Out
          end,
    Text = Run("text"),
    [?assertNotEqual(nomatch, string:find(Text, T), {T, Text}) || T <- Texts],
    ?assertNotEqual(nomatch, string:find(Text, lists:last(?LABELS))),
    Md = Run("markdown"),
    ok = tables_keep_columns(Md),
    ?assertEqual(length(?LABELS), length([L || L <- lines(Md), lists:prefix("| `", L)])),
    [Header | Rows] = [csv_fields(L) || L <- string:split(Run("csv"), "\r\n", all), L =/= ""],
    ?assertEqual([length(Header)], lists:usort([length(R) || R <- Rows])),
    ?assertEqual(lists:sort(Texts), lists:sort([hd(R) || R <- Rows])),
    {ok, #{<<"runs">> := Runs}} = erlperf_json:decode(unicode:characters_to_binary(Run("json"))),
    ?assertEqual(lists:sort([unicode:characters_to_binary(L) || L <- ?LABELS]),
                 lists:sort([L || #{<<"label">> := L} <- Runs])),
    Html = Run("html"),
    ?assertEqual(nomatch, re:run(Html, "<script", [caseless, unicode])),
    ?assertNotEqual(nomatch, string:find(Html, "&lt;script&gt;alert(1)&lt;/script&gt;")),
    Benchee = Run("benchee"),
    [?assertNotEqual(nomatch, string:find(Benchee, T), {T, Benchee}) || T <- Texts].

suite_names() ->
    [{doc, "A suite whose benchmarks are named with a line break and a workflow command, `|', `%' "
           "and `<script>', and a sweep of such a name: the verdicts against the previous run, the "
           "annotations and job summary under GitHub Actions, and the history in every format "
           "start no line with `::' and keep their tables"}].
suite_names(Config) ->
    Dir = dir(Config),
    Store = filename:join(Dir, "store"),
    File = filename:join(Dir, "hostile_names_bench.erl"),
    Quick = "options => #{samples => 2, sample_duration => 20, forks => 1}",
    ok = file:write_file(File, io_lib:format(
        "-module(hostile_names_bench).~n-export([benchmarks/0]).~n"
        "benchmarks() -> [#{name => ~tp, runner => \"ok.\", ~s},~n"
        "                 #{name => ~tp, runner => \"ok.\", ~s},~n"
        "                 #{name => ~tp, runner => \"ok.\", ~s},~n"
        "                 #{name => ~tp, runner => \"lists:seq(1, N).\", params => #{'N' => [1, 2]}, ~s}].~n",
        ["s\n::warning::suite", Quick, "p|ipe %25 <script>x</script>", Quick, "::error::lead", Quick,
         "w\r::warning::sweep", Quick])),
    {0, First} = erlperf_test_lib:escript(["--suite", File, "--store", Store], []),
    ok = no_command_lines(First),
    ?assertNotEqual(nomatch, string:find(First, "\"s\\n::warning::suite\": first run, nothing to "
                                                "compare with"), First),
    Summary = filename:join(Dir, "summary.md"),
    Env = [{"GITHUB_ACTIONS", "true"}, {"GITHUB_STEP_SUMMARY", Summary}],
    {_, Second} = erlperf_test_lib:escript(["--suite", File, "--store", Store, "--fail-on-regression",
                                            "10", "--fail-on-inconclusive"], Env),
    ok = no_command_lines(Second),
    ?assertNotEqual(nomatch, string:find(Second, "\"w\\r::warning::sweep (N=1)\": "), Second),
    {ok, Md} = file:read_file(Summary),
    ok = no_command_lines(unicode:characters_to_list(Md)),
    ok = tables_keep_columns(unicode:characters_to_list(Md)),
    History = fun (Format) ->
                      {0, Out} = erlperf_test_lib:escript(["--history", "--store", Store, "--format",
                                                           Format, "-o", filename:join(Dir, "h.html")], []),
                      ok = no_command_lines(Out),
                      Out
              end,
    ?assertNotEqual(nomatch, string:find(History("text"), "\"s\\n::warning::suite\"")),
    ok = tables_keep_columns(History("markdown")),
    [Header | Rows] = [csv_fields(L) || L <- string:split(History("csv"), "\r\n", all), L =/= ""],
    ?assertEqual([length(Header)], lists:usort([length(R) || R <- Rows])),
    {ok, _} = erlperf_json:decode(unicode:characters_to_binary(History("json"))),
    {ok, Page} = file:read_file(filename:join(Dir, "h.html")),
    ?assertEqual(nomatch, re:run(Page, "<script", [caseless, unicode])),
    ok = no_command_lines(unicode:characters_to_list(Page)).

%%--------------------------------------------------------------------
%% Helpers

dir(Config) ->
    Dir = filename:join(proplists:get_value(priv_dir, Config),
                        "names_" ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Dir.

%% A name as every text output writes it.
text(Label) ->
    erlperf_name:text(unicode:characters_to_binary(Label)).

%% Lines as a CI runner reads them: a line feed or a carriage return ends one.
lines(Text) ->
    string:lexemes(Text, [$\n, $\r, [$\r, $\n]]).

%% erlperf's own workflow commands: `::error title=erlperf%3A ...' and `::warning ...'.
annotations(Text) ->
    [L || L <- lines(Text), lists:prefix("::error title=erlperf%3A ", L)
                                orelse lists:prefix("::warning title=erlperf%3A ", L)].

%% No line but erlperf's annotations begins with `::' once its white space is trimmed (as
%% GitHub's runner trims it).
no_command_lines(Text) ->
    Commands = [L || L <- lines(Text), lists:prefix("::", string:trim(L, leading))],
    ?assertEqual([], Commands -- annotations(Text), Text),
    ok.

%% Every Markdown table (a run of lines that begin with `|') has as many unescaped `|' in
%% each row as in its header.
tables_keep_columns(Text) ->
    Tables = tables(lines(Text), [], []),
    ?assertNotEqual([], Tables, Text),
    [?assertEqual([pipes(H)], lists:usort([pipes(R) || R <- Rows]), Table)
     || [H | Rows] = Table <- Tables],
    ok.

tables([[$| | _] = L | Rest], Table, Acc) -> tables(Rest, [L | Table], Acc);
tables([_ | Rest], [], Acc) -> tables(Rest, [], Acc);
tables([_ | Rest], Table, Acc) -> tables(Rest, [], [lists:reverse(Table) | Acc]);
tables([], [], Acc) -> lists:reverse(Acc);
tables([], Table, Acc) -> lists:reverse([lists:reverse(Table) | Acc]).

pipes(Line) ->
    length([C || {P, C} <- lists:zip(lists:droplast([$\s | Line]), Line), C =:= $|, P =/= $\\]).

%% The fields of a CSV line (RFC 4180).
csv_fields(Line) ->
    csv_fields(Line, [], [], false).

csv_fields([], Cur, Acc, false) -> lists:reverse([lists:reverse(Cur) | Acc]);
csv_fields([$", $" | Rest], Cur, Acc, true) -> csv_fields(Rest, [$" | Cur], Acc, true);
csv_fields([$" | Rest], Cur, Acc, Quoted) -> csv_fields(Rest, Cur, Acc, not Quoted);
csv_fields([$, | Rest], Cur, Acc, false) -> csv_fields(Rest, [], [lists:reverse(Cur) | Acc], false);
csv_fields([C | Rest], Cur, Acc, Quoted) -> csv_fields(Rest, [C | Cur], Acc, Quoted).
