%%% @doc The guides in `doc/' say what the program does: their examples are run, on
%%% whatever OTP release the suite runs on (CI runs it on 25, 27 and 29).
%%%
%%% <ul>
%%%   <li><b>Commands.</b> Every `./erlperf' command of `doc/*.md' runs, page by page in a
%%%       scratch directory of its own, in the page's order (`cli.md' in two halves at the
%%%       same time, each in its own directory); its exit status and the shape
%%%       of its output are checked as {@link erlperf_doc_examples} says (the README's are
%%%       run by `erlperf_readme_SUITE'). A command the README shows too, with every
%%%       figure-free line the page shows under it, is left to that suite. Commands the
%%%       test machine cannot run are in `?SKIPPED', each with the reason.</li>
%%%   <li><b>Functions.</b> Every `erlperf...:name(Args)' and `erlperf...:name/Arity' that
%%%       `README.md' and `doc/*.md' mention is an exported function of that arity.</li>
%%%   <li><b>Shell sessions.</b> A code block right under the line `?EVAL_MARK' (an HTML
%%%       comment, not shown on the rendered page) is evaluated in a fresh peer node, as a
%%%       reader would type it into a new shell: blocks of one page in one node, in order.
%%%       Each `N> ' prompt starts an expression; the lines under it, up to the next
%%%       prompt, are the result the page shows. When that text is an Erlang term, the
%%%       result must have its shape: the same atoms, strings, lists, tuples and map keys,
%%%       an integer where it shows an integer, a float where it shows a float (figures
%%%       differ from run to run). A block without prompts is a sequence of expressions
%%%       that must evaluate.</li>
%%% </ul>
-module(erlperf_docs_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, groups/0, init_per_suite/1, end_per_suite/1]).
-export([commands_found/0, commands_found/1, functions_exist/0, functions_exist/1,
         sessions_found/0, sessions_found/1, cli_commands_1/0, cli_commands_1/1,
         cli_commands_2/0, cli_commands_2/1, other_commands/0, other_commands/1,
         sessions/0, sessions/1]).
%% Internal export: runs in the peer node of a page's sessions.
-export([eval_session/1]).

%% The line that marks a code block as a shell session to evaluate.
-define(EVAL_MARK, "<!-- evaluated by erlperf_docs_SUITE -->").

%% Commands of doc/ this suite does not run, and why: `{prefix, P, Why}' skips every
%% command starting with P, `{command, C, Why}' the command C.
-define(SKIPPED_ALWAYS,
        [{prefix, "./erlperf --render RESULTS.json", "a synopsis: RESULTS.json and DIR are placeholders"},
         {prefix, "./erlperf --perf-test FILE", "a synopsis: FILE and the options' values are placeholders"},
         {prefix, "./erlperf 'mymod:f().'", "mymod and myapp stand for the reader's own code"},
         {prefix, "ERL_LIBS=_build/default/lib ./erlperf 'mymod:f().'", "mymod stands for the reader's own code"},
         {prefix, "./erlperf 'rand:uniform().' --nodes load1@host1,load2@host2",
          "needs erlperf nodes running on the hosts host1 and host2"}]).
%% tprof exists from OTP 27 on: the usage error the page shows is that of OTP 25 and 26.
-if(?OTP_RELEASE >= 27).
-define(SKIPPED, [{command, "./erlperf 'ok.' --profile tprof", "shows the usage error of OTP 25 and 26"}
                  | ?SKIPPED_ALWAYS]).
-else.
-define(SKIPPED, ?SKIPPED_ALWAYS).
-endif.

%% Longest a page's sessions may take in the peer node.
-define(SESSION_TIMEOUT_MS, 300000).

suite() ->
    [{timetrap, {minutes, 15}}].

all() ->
    [commands_found, functions_exist, sessions_found, {group, run}].

%% The pages run at the same time: the checks are of shapes, not of figures. cli.md's
%% examples are independent of each other (none reads a file another wrote), so its
%% longest page runs in two halves at the same time.
groups() ->
    [{run, [parallel], [cli_commands_1, cli_commands_2, other_commands, sessions]}].

init_per_suite(Config) ->
    erlperf_test_lib:with_escript(Config).

end_per_suite(_Config) ->
    ok.

%%--------------------------------------------------------------------
%% Cases

commands_found() ->
    [{doc, "The pages' commands are found, with the exit statuses they show, and every entry of "
           "the skip list still names a command (a list that names none hides nothing)"}].
commands_found(Config) when is_list(Config) ->
    All = [E || {_Page, Examples} <- pages(), E <- Examples],
    ?assert(length(All) >= 30, All),
    Cli = proplists:get_value("cli.md", pages()),
    ?assertMatch(#{command := "./erlperf 'rand:uniform().'", status := 0,
                   shown := ["Code " ++ _, "rand:uniform(). " ++ _]}, hd(Cli)),
    %% usage errors show exit status 2; a command with environment assignments is found
    ?assert(lists:any(fun (#{status := S, command := C}) -> S =:= 2 andalso
                              string:find(C, "--param n=1") =/= nomatch end, Cli)),
    ?assert(lists:any(fun (#{command := C}) -> lists:prefix("ERL_LIBS=", C) end, Cli)),
    Unused = [S || S <- ?SKIPPED, not lists:any(fun (E) -> skips(S, E) end, All)],
    ?assertEqual([], Unused).

functions_exist() ->
    [{doc, "Every erlperf function README.md and doc/*.md name (in Erlang's or Elixir's syntax), "
           "with arguments or an arity, is "
           "exported with that arity (or is an exported type: `erlperf:report()')"}].
functions_exist(Config) when is_list(Config) ->
    Files = [filename:join(erlperf_test_lib:root(), "README.md") | doc_files()],
    Named = lists:usort(lists:append([references(F) || F <- Files])),
    ?assert(length(Named) >= 60, Named),
    {ok, Modules} = application:get_key(erlperf, modules),
    Missing = [{M, F, A} || {M, F, A} <- Named,
                            not lists:member(M, Modules) orelse
                                not (exported(M, F, A) orelse exported_type(M, F, A))],
    ?assertEqual([], Missing).

sessions_found() ->
    [{doc, "The marked sessions are found: their expressions and the results shown"}].
sessions_found(Config) when is_list(Config) ->
    Sessions = sessions_of_pages(),
    ?assert(length(lists:append([Blocks || {_, Blocks} <- Sessions])) >= 5, Sessions),
    Readme = proplists:get_value("README.md", Sessions),
    [[{"erlperf:run(\"rand:uniform().\").", "20669889"} | _]] = Readme,
    %% a result that is no term (an elided map) is kept as shown
    ?assert(lists:any(fun ({_, Shown}) -> string:find(Shown, "...") =/= nomatch end, hd(Readme))).

cli_commands_1() ->
    [{doc, "doc/cli.md's 1st, 3rd, 5th... commands exit as shown and print every figure-free line "
           "shown"}].
cli_commands_1(Config) when is_list(Config) ->
    run_pages(Config, ["cli.md"], {1, 2}).

cli_commands_2() ->
    [{doc, "doc/cli.md's 2nd, 4th, 6th... commands exit as shown and print every figure-free line "
           "shown"}].
cli_commands_2(Config) when is_list(Config) ->
    run_pages(Config, ["cli.md"], {2, 2}).

other_commands() ->
    [{doc, "The commands of the other pages of doc/ exit as shown and print every figure-free "
           "line shown"}].
other_commands(Config) when is_list(Config) ->
    run_pages(Config, [filename:basename(F) || F <- doc_files()] -- ["cli.md"], {1, 1}).

sessions() ->
    [{doc, "The marked shell sessions evaluate in a fresh node, each result of the shape shown"}].
sessions(Config) when is_list(Config) ->
    Failures = lists:append([session_failures(Config, Page, Blocks)
                             || {Page, Blocks} <- sessions_of_pages()]),
    ?assertEqual([], Failures).

%%--------------------------------------------------------------------
%% Commands

pages() ->
    [{filename:basename(F), erlperf_doc_examples:examples(F)} || F <- doc_files()].

doc_files() ->
    lists:sort(filelib:wildcard(filename:join([erlperf_test_lib:root(), "doc", "*.md"]))).

%% The examples of these pages, the Nth of every Of (each page in a directory of its own).
run_pages(Config, Names, {Nth, Of}) ->
    Readme = erlperf_doc_examples:examples(filename:join(erlperf_test_lib:root(), "README.md")),
    Failures = [{Page, Command, Why}
                || {Page, Examples} <- pages(), lists:member(Page, Names),
                   Dir <- [erlperf_doc_examples:scratch_dir(Config, lists:concat([filename:rootname(Page), "-", Nth]))],
                   {I, #{command := Command} = Example} <- lists:zip(lists:seq(1, length(Examples)), Examples),
                   (I - Nth) rem Of =:= 0,
                   to_run(Example, Readme),
                   Why <- [erlperf_doc_examples:check(Dir, Example)], Why =/= ok],
    ?assertEqual([], Failures).

%% Not skipped, and not left to the README suite.
to_run(#{command := Command, shown := Shown} = Example, Readme) ->
    case [Why || {_, _, Why} = S <- ?SKIPPED, skips(S, Example)] of
        [Why | _] ->
            ct:log("skipped: ~ts~n(~ts)", [Command, Why]),
            false;
        [] ->
            case [S || #{command := C, shown := S} <- Readme, C =:= Command] of
                [ReadmeShown] ->
                    case [L || L <- figure_free(Shown), not lists:member(L, figure_free(ReadmeShown))] of
                        [] ->
                            ct:log("run by erlperf_readme_SUITE: ~ts", [Command]),
                            false;
                        _Unchecked ->
                            true
                    end;
                [] ->
                    true
            end
    end.

skips({prefix, Prefix, _Why}, #{command := Command}) -> lists:prefix(Prefix, Command);
skips({command, Skipped, _Why}, #{command := Command}) -> Command =:= Skipped.

figure_free(Lines) ->
    [string:lexemes(L, " ") || L <- Lines, not lists:any(fun (C) -> C >= $0 andalso C =< $9 end, L)].

%%--------------------------------------------------------------------
%% Functions named

%% {Module, Function, Arity} of every `erlperf*:f(...)' and `erlperf*:f/N[,M]' in a file.
references(File) ->
    {ok, Text} = file:read_file(File),
    %% Erlang's erlperf:run( and Elixir's :erlperf.run( (a page may name none)
    lists:append([case re:run(Text, Pattern ++ "([a-z][a-zA-Z0-9_]*)(/[0-9]+(?:,[0-9]+)*|\\()",
                              [global, {capture, all_but_first, index}]) of
                       {match, Found} -> lists:append([reference(Text, M, F, A) || [M, F, A] <- Found]);
                       nomatch -> []
                   end || Pattern <- ["\\b(erlperf[a-z0-9_]*):", "(?<![A-Za-z0-9_]):(erlperf[a-z0-9_]*)\\."]]).

%% Offsets are of bytes: the text is UTF-8.
reference(Text, M, F, {AS, _} = A) ->
    Module = binary_to_atom(binary:part(Text, M)),
    Function = binary_to_atom(binary:part(Text, F)),
    case binary_to_list(binary:part(Text, A)) of
        "/" ++ Arities -> [{Module, Function, list_to_integer(N)} || N <- string:lexemes(Arities, ",")];
        "(" -> [{Module, Function, arity(unicode:characters_to_list(binary:part(Text, AS + 1, byte_size(Text) - AS - 1)))}]
    end.

%% Arguments up to the closing parenthesis: commas outside brackets and quotes, plus one.
arity(Text) ->
    case string:trim(Text, leading) of
        ")" ++ _ -> 0;
        _ -> args(Text, [], 1)
    end.

args([$) | _], [], N) -> N;
args([$, | Rest], [], N) -> args(Rest, [], N + 1);
args([Q | Rest], Stack, N) when Q =:= $"; Q =:= $' ->
    args(tl(lists:dropwhile(fun (C) -> C =/= Q end, Rest)), Stack, N);
args([Open | Rest], Stack, N) when Open =:= $(; Open =:= $[; Open =:= ${ ->
    args(Rest, [Open | Stack], N);
args([Close | Rest], [_ | Stack], N) when Close =:= $); Close =:= $]; Close =:= $} ->
    args(Rest, Stack, N);
args([_ | Rest], Stack, N) ->
    args(Rest, Stack, N).

exported(M, F, A) ->
    {module, M} =:= code:ensure_loaded(M) andalso erlang:function_exported(M, F, A).

exported_type(M, T, A) ->
    {ok, {M, [{abstract_code, {raw_abstract_v1, Forms}}]}} = beam_lib:chunks(code:which(M), [abstract_code]),
    lists:member({T, A}, lists:append([Types || {attribute, _, export_type, Types} <- Forms])).

%%--------------------------------------------------------------------
%% Shell sessions

%% [{Page, [Block]}], each block a list of {Expression, ShownResult}.
sessions_of_pages() ->
    Files = [filename:join(erlperf_test_lib:root(), "README.md") | doc_files()],
    [{filename:basename(F), Blocks} || F <- Files, Blocks <- [marked_blocks(F)], Blocks =/= []].

marked_blocks(File) ->
    {ok, Bin} = file:read_file(File),
    blocks(string:split(unicode:characters_to_list(Bin), "\n", all), []).

blocks([], Acc) ->
    lists:reverse(Acc);
blocks([?EVAL_MARK | Rest], Acc) ->
    {Code, After} = code_block(Rest),
    blocks(After, [session(Code) | Acc]);
blocks([_ | Rest], Acc) ->
    blocks(Rest, Acc).

%% A fenced block (```) or an indented one, under the mark (empty lines between).
code_block(["" | Rest]) ->
    code_block(Rest);
code_block(["```" ++ _ | Rest]) ->
    {Code, ["```" ++ _ | After]} = lists:splitwith(fun (L) -> not lists:prefix("```", L) end, Rest),
    {Code, After};
code_block(["    " ++ _ | _] = Lines) ->
    {Code, After} = lists:splitwith(fun ("    " ++ _) -> true; (_) -> false end, Lines),
    {[L || "    " ++ L <- Code], After}.

%% Expressions and what the page shows each return: `N> ' starts one; in a block
%% without prompts, the whole text is one expression sequence, no result shown.
session(Lines) ->
    case lists:any(fun is_prompt/1, Lines) of
        true -> prompts(Lines, []);
        false -> [{string:trim(lists:join("\n", Lines)), ""}]
    end.

prompts([], Acc) ->
    lists:reverse(Acc);
prompts([Line | Rest], Acc) ->
    case is_prompt(Line) of
        true ->
            {match, [Expr0]} = re:run(Line, "^[0-9]+> (.*)$", [unicode, {capture, all_but_first, list}]),
            {Expr, After} = expression(Expr0, Rest),
            {Shown, Next} = lists:splitwith(fun (L) -> not is_prompt(L) end, After),
            Result = [L || L <- Shown, not lists:prefix("%", string:trim(L, leading))],
            prompts(Next, [{Expr, string:trim(lists:join("\n", Result))} | Acc]);
        false ->
            prompts(Rest, Acc)
    end.

is_prompt(Line) ->
    re:run(Line, "^[0-9]+> ") =/= nomatch.

%% An expression goes on, line after line, until it ends with a full stop.
expression(Text, Rest) ->
    case erl_scan:string(Text) of
        {ok, Tokens, _} when Tokens =/= [] ->
            case element(1, lists:last(Tokens)) of
                dot -> {Text, Rest};
                _ -> more(Text, Rest)
            end;
        _ ->
            more(Text, Rest)
    end.

more(Text, [Next | Rest]) ->
    expression(Text ++ "\n" ++ Next, Rest).

%% Runs a page's blocks in a fresh peer node, in the page's order, in a scratch
%% directory; what differs from the page.
session_failures(Config, Page, Blocks) ->
    Dir = filename:join(?config(priv_dir, Config), "session-" ++ filename:rootname(Page)),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    ok = file:make_symlink(filename:join(erlperf_test_lib:root(), "examples"), filename:join(Dir, "examples")),
    Paths = [filename:join(code:lib_dir(erlperf), "ebin"), filename:dirname(code:which(?MODULE)),
             filename:dirname(code:which(erlperf_test_lib))],
    {ok, Peer, _Node} = peer:start_link(#{name => peer:random_name(?FUNCTION_NAME),
                                          connection => standard_io,
                                          args => lists:append([["-pa", P] || P <- lists:usort(Paths)])}),
    try
        ok = peer:call(Peer, file, set_cwd, [Dir]),
        Results = [peer:call(Peer, ?MODULE, eval_session, [[E || {E, _} <- Block]], ?SESSION_TIMEOUT_MS)
                   || Block <- Blocks],
        [{Page, Expr, Why} || {Block, Got} <- lists:zip(Blocks, Results),
                              {{Expr, Shown}, Result} <- lists:zip(Block, Got),
                              Why <- [compare(Shown, Result)], Why =/= ok]
    after
        peer:stop(Peer)
    end.

%% Evaluates the expressions of a block in this process, as the shell would, one after
%% another with the bindings of those before; stops at the first that raises.
-spec eval_session([string()]) -> [{ok, term()} | {raised, term()} | not_run].
eval_session(Exprs) ->
    {Results, _} = lists:mapfoldl(fun eval/2, erl_eval:new_bindings(), Exprs),
    Results.

eval(_Text, failed) ->
    {not_run, failed};
eval(Text, Bindings) ->
    try
        {ok, Tokens, _} = erl_scan:string(Text),
        {ok, Parsed} = erl_parse:parse_exprs(Tokens),
        {value, Value, Next} = erl_eval:exprs(Parsed, Bindings, {value, fun shell_command/2}),
        {{ok, Value}, Next}
    catch
        Class:Reason:Stack -> {{raised, {Class, Reason, lists:sublist(Stack, 3)}}, failed}
    end.

%% The shell's own commands the pages use.
shell_command(flush, []) ->
    receive _ -> shell_command(flush, []) after 0 -> ok end.

%% `ok', or why the result is not what the page shows.
compare(_Shown, {raised, _} = Raised) ->
    Raised;
compare(_Shown, not_run) ->
    not_run;
compare(Shown, {ok, Value}) ->
    case shown_term(Shown) of
        none -> ok;
        {ok, Form} ->
            case shape(Form, Value) of
                true -> ok;
                false -> {shape, Shown, Value}
            end
    end.

%% What the page shows, when it is an Erlang term (not `...', a pid or printed text).
shown_term("") ->
    none;
shown_term(Text) ->
    case erl_scan:string(Text ++ ".") of
        {ok, Tokens, _} ->
            case erl_parse:parse_exprs(Tokens) of
                {ok, [Form]} -> {ok, Form};
                _ -> none
            end;
        _ ->
            none
    end.

%% The value has the shape the page shows: numbers of the same kind, everything else equal.
shape({integer, _, _}, V) -> is_integer(V);
shape({float, _, _}, V) -> is_float(V);
shape({op, _, '-', Number}, V) -> shape(Number, V);
shape({atom, _, A}, V) -> V =:= A;
shape({string, _, S}, V) -> V =:= S;
shape({char, _, C}, V) -> V =:= C;
shape({nil, _}, V) -> V =:= [];
shape({cons, _, H, T}, [VH | VT]) -> shape(H, VH) andalso shape(T, VT);
shape({tuple, _, Es}, V) when is_tuple(V), tuple_size(V) =:= length(Es) ->
    lists:all(fun ({E, X}) -> shape(E, X) end, lists:zip(Es, tuple_to_list(V)));
shape({map, _, Assocs}, V) when is_map(V), map_size(V) =:= length(Assocs) ->
    lists:all(fun ({map_field_assoc, _, K, E}) ->
                      Key = erl_parse:normalise(K),
                      is_map_key(Key, V) andalso shape(E, maps:get(Key, V))
              end, Assocs);
shape({bin, _, _} = Bin, V) -> erl_parse:normalise(Bin) =:= V;
shape(_Form, _V) -> false.
