%%% @doc The `./erlperf' examples of a Markdown page, found and run as a reader would run
%%% them (shared by `erlperf_readme_SUITE' and `erlperf_docs_SUITE').
%%%
%%% An example is a command of an indented code block that starts with `./erlperf' (after
%%% an optional `$ ' prompt and optional `NAME=value' environment assignments); a line
%%% ending in `\' continues on the next. The indented lines under it, up to the next
%%% command, are what the page shows it printing (an empty line followed by more indented
%%% lines is part of them). A following `$ echo $?' and its line give the exit status the
%%% page promises; without one it is 0.
%%%
%%% Checked for each example run through `sh' in a scratch directory holding the escript
%%% and the repository's `examples/':
%%% <ul>
%%%   <li>the exit status;</li>
%%%   <li>the shape of the output: every line shown that holds no figure (no digit: table
%%%       headers, notes, messages) is printed, its words in the same order. Lines with
%%%       figures vary from run to run and machine to machine, and are not compared.</li>
%%% </ul>
-module(erlperf_doc_examples).

-export([examples/1, scratch_dir/2, check/2, shell/2]).

-export_type([example/0]).

%% Longest an example may go without printing (the performance test of httpd prints a
%% line a size, about 15 s apart).
-define(EXAMPLE_TIMEOUT_MS, 480000).
%% Lines of its output a failed example shows in the failure (all of it is in the log):
%% those saying what failed, else its last lines.
-define(TAIL_LINES, 8).

%% A command, the exit status the page shows, the lines it shows printed, and the line
%% of the page the command starts on.
-type example() :: #{command := string(), status := non_neg_integer(), shown := [string()],
                     line := pos_integer()}.

%% @doc The examples of a Markdown file, in order, each command once (a command shown
%% twice runs once, with the lines shown the first time).
-spec examples(file:filename()) -> [example()].
examples(File) ->
    {ok, Text} = file:read_file(File),
    Lines = string:split(unicode:characters_to_list(Text), "\n", all),
    dedup(parse(lists:zip(lists:seq(1, length(Lines)), Lines), [])).

%% @doc A fresh directory under the suite's `priv_dir' with `./erlperf' (the escript
%% under test) and `examples/' (the repository's) in it.
-spec scratch_dir(list(), string()) -> file:filename().
scratch_dir(Config, Name) ->
    Dir = filename:join(proplists:get_value(priv_dir, Config), Name),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    ok = file:make_symlink(proplists:get_value(escript, Config), filename:join(Dir, "erlperf")),
    ok = file:make_symlink(filename:join(erlperf_test_lib:root(), "examples"),
                           filename:join(Dir, "examples")),
    Dir.

%% @doc Runs an example in `Dir': `ok', or what differs from the page.
-spec check(file:filename(), example()) -> ok | map().
check(Dir, #{command := Command, status := Status, shown := Shown}) ->
    {Got, Out} = shell(Dir, Command),
    ct:log("~ts~nexit ~p~n~ts", [Command, Got, Out]),
    OutWords = [words(L) || L <- string:split(Out, "\n", all)],
    Missing = [L || L <- Shown, not has_digit(L), words(L) =/= [], not lists:member(words(L), OutWords)],
    case {Got, Missing} of
        {Status, []} -> ok;
        _ -> #{exit => Got, expected_exit => Status, lines_missing => Missing,
               output => telling(Out, ?TAIL_LINES)}
    end.

%% @doc Runs a command line through `sh' in `Dir': its exit status (or `timeout') and its
%% output, standard error included.
-spec shell(file:filename(), string()) -> {non_neg_integer() | timeout, string()}.
shell(Dir, Command) ->
    Port = open_port({spawn_executable, "/bin/sh"},
                     [exit_status, stderr_to_stdout, binary, {cd, Dir}, {args, ["-c", Command]},
                      {env, erlperf_test_lib:escript_env([])}]),
    collect(Port, []).

%%--------------------------------------------------------------------
%% Internal functions

%% At most N lines of Text that say what failed (an error, a warning, a failed
%% requirement), else its last N lines.
telling(Text, N) ->
    Lines = string:split(string:trim(Text, trailing), "\n", all),
    case [L || L <- Lines, re:run(L, "fail|error|warning|crash", [caseless]) =/= nomatch] of
        [] -> lists:nthtail(max(0, length(Lines) - N), Lines);
        Telling -> lists:sublist(Telling, N)
    end.

parse([], Acc) ->
    lists:reverse(Acc);
parse([{N, "    " ++ Code} | Rest] = Lines, Acc) ->
    case command_start(Code) of
        {ok, First} ->
            {Command, AfterCommand} = continued(string:trim(First, trailing), Rest),
            {Shown, AfterShown} = output(AfterCommand, []),
            {Status, Next} = exit_status(AfterShown),
            parse(Next, [#{command => Command, status => Status, shown => Shown, line => N} | Acc]);
        none ->
            parse(tl(Lines), Acc)
    end;
parse([_ | Rest], Acc) ->
    parse(Rest, Acc).

%% `./erlperf ...', after a prompt and environment assignments (`ERL_LIBS=dir ./erlperf').
command_start("$ " ++ Code) ->
    command_start(Code);
command_start(Code) ->
    case re:run(Code, "^([A-Z_][A-Z0-9_]*=\\S*\\s+)*\\./erlperf(\\s|$)", [unicode]) of
        {match, _} -> {ok, Code};
        nomatch -> none
    end.

%% A line ending in a backslash goes on in the next one.
continued(Line, Rest) ->
    case lists:suffix("\\", string:trim(Line, trailing)) of
        true ->
            [{_, "    " ++ Next} | After] = Rest,
            Head = string:trim(lists:droplast(string:trim(Line, trailing)), trailing),
            continued(Head ++ " " ++ string:trim(Next, both), After);
        false ->
            {Line, Rest}
    end.

%% Output shown under a command: indented lines that are neither another command nor the
%% exit status; an empty line followed by more of them is part of it.
output([{_, "    " ++ Line} | Rest] = Lines, Acc) ->
    case is_output(Line) of
        true -> output(Rest, [Line | Acc]);
        false -> {lists:reverse(Acc), Lines}
    end;
output([{_, ""}, {_, "    " ++ Line} | _] = Lines, Acc) when Acc =/= [] ->
    case is_output(Line) of
        true -> output(tl(Lines), ["" | Acc]);
        false -> {lists:reverse(Acc), Lines}
    end;
output(Lines, Acc) ->
    {lists:reverse(Acc), Lines}.

is_output("$ " ++ _) -> false;
is_output(Line) -> command_start(Line) =:= none.

exit_status([{_, "    $ echo $?" ++ _}, {_, "    " ++ Status} | Rest]) ->
    {list_to_integer(string:trim(Status)), Rest};
exit_status(Rest) ->
    {0, Rest}.

dedup(Examples) ->
    {Kept, _} = lists:foldl(fun (#{command := Command} = E, {Acc, Seen}) ->
                                    case lists:member(Command, Seen) of
                                        true -> {Acc, Seen};
                                        false -> {[E | Acc], [Command | Seen]}
                                    end
                            end, {[], []}, Examples),
    lists:reverse(Kept).

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Data | Acc]);
        {Port, {exit_status, Status}} ->
            {Status, unicode:characters_to_list(iolist_to_binary(lists:reverse(Acc)))}
    after ?EXAMPLE_TIMEOUT_MS ->
        {os_pid, Pid} = erlang:port_info(Port, os_pid),
        _ = os:cmd("kill -9 " ++ integer_to_list(Pid)),
        port_close(Port),
        {timeout, unicode:characters_to_list(iolist_to_binary(lists:reverse(Acc)))}
    end.

has_digit(Line) ->
    lists:any(fun (C) -> C >= $0 andalso C =< $9 end, Line).

words(Line) ->
    string:lexemes(Line, " ").
