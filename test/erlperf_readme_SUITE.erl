%%% @doc The README's examples, run as a reader would run them, on whatever OTP release
%%% the suite runs on (CI runs it on 25, 27 and 29).
%%%
%%% Every command of the README's indented code blocks that starts with `./erlperf'
%%% (after an optional `$ ' prompt; a line ending in `\' continues on the next) runs through
%%% `sh' in a scratch directory holding the escript and the repository's `examples/', in
%%% the README's order (a later example may read a file an earlier one saved). Checked:
%%% <ul>
%%%   <li>the exit status: the one a following `$ echo $?' shows, else 0;</li>
%%%   <li>the shape of the output: every line shown under the command that holds no figure
%%%       (no digit: table headers, notes, section titles) is printed, its words in the same
%%%       order. Lines with figures vary from run to run and machine to machine, and are
%%%       not compared.</li>
%%% </ul>
-module(erlperf_readme_SUITE).

-include_lib("common_test/include/ct.hrl").
-include_lib("stdlib/include/assert.hrl").

-export([suite/0, all/0, init_per_suite/1, end_per_suite/1]).
-export([examples_found/0, examples_found/1, examples_run/0, examples_run/1]).

%% Longest an example may go without printing (the performance test of httpd prints a
%% line a size, about 15 s apart).
-define(EXAMPLE_TIMEOUT_MS, 300000).

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
    ?assertMatch({"./erlperf 'rand:uniform().' -c 4" ++ _, 0, []}, hd(Examples)),
    %% the regression gate's example is followed by `echo $?' showing 3
    ?assert(lists:any(fun ({Command, Status, _}) ->
                              Status =:= 3 andalso string:find(Command, "--fail-on-regression") =/= nomatch
                      end, Examples), Examples),
    %% a continued command is one command
    ?assert(lists:any(fun ({Command, _, _}) ->
                              string:find(Command, "--init_runner 'rand:seed(exsss).' 'r() -> rand:uniform().'")
                                  =/= nomatch
                      end, Examples), Examples).

examples_run() ->
    [{doc, "Every README example exits as shown and prints every figure-free line shown"}].
examples_run(Config) when is_list(Config) ->
    Dir = filename:join(?config(priv_dir, Config), "readme"),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    ok = file:make_symlink(?config(escript, Config), filename:join(Dir, "erlperf")),
    ok = file:make_symlink(filename:join(erlperf_test_lib:root(), "examples"), filename:join(Dir, "examples")),
    Failures = [{Command, Why} || {Command, Status, Shown} <- examples(),
                                  Why <- [check(Dir, Command, Status, Shown)], Why =/= ok],
    ?assertEqual([], Failures).

%%--------------------------------------------------------------------
%% Helpers

%% {Command, ExitStatus, LinesShown} for each example, in order, each command once.
examples() ->
    {ok, Text} = file:read_file(filename:join(erlperf_test_lib:root(), "README.md")),
    %% a line of spaces inside a block is part of it: only an empty line ends one
    Lines = string:split(unicode:characters_to_list(Text), "\n", all),
    dedup(parse(Lines, [])).

parse([], Acc) ->
    lists:reverse(Acc);
parse(["    " ++ Code | Rest] = Lines, Acc) ->
    case command_start(Code) of
        {ok, First} ->
            {Command, AfterCommand} = continued(string:trim(First, trailing), Rest),
            {Shown, AfterShown} = lists:splitwith(fun is_output/1, AfterCommand),
            {Status, Next} = exit_status(AfterShown),
            parse(Next, [{Command, Status, [strip(L) || L <- Shown]} | Acc]);
        none ->
            parse(tl(Lines), Acc)
    end;
parse([_ | Rest], Acc) ->
    parse(Rest, Acc).

command_start("$ ./erlperf" ++ _ = Code) -> {ok, tl(tl(Code))};
command_start("./erlperf" ++ _ = Code) -> {ok, Code};
command_start(_) -> none.

%% A line ending in a backslash goes on in the next one.
continued(Line, Rest) ->
    case lists:suffix("\\", string:trim(Line, trailing)) of
        true ->
            ["    " ++ Next | After] = Rest,
            Head = string:trim(lists:droplast(string:trim(Line, trailing)), trailing),
            continued(Head ++ " " ++ string:trim(Next, both), After);
        false ->
            {Line, Rest}
    end.

%% Output shown under a command: indented lines that are not another command.
is_output("    $ " ++ _) -> false;
is_output("    ./erlperf" ++ _) -> false;
is_output("    " ++ _) -> true;
is_output(_) -> false.

exit_status(["    $ echo $?" ++ _, "    " ++ Status | Rest]) -> {list_to_integer(string:trim(Status)), Rest};
exit_status(Rest) -> {0, Rest}.

strip("    " ++ Line) -> Line.

%% The same command shown twice (the performance test) runs once.
dedup(Examples) ->
    {Kept, _} = lists:foldl(fun ({Command, _, _} = E, {Acc, Seen}) ->
                                    case lists:member(Command, Seen) of
                                        true -> {Acc, Seen};
                                        false -> {[E | Acc], [Command | Seen]}
                                    end
                            end, {[], []}, Examples),
    lists:reverse(Kept).

%% `ok', or what differs from the README.
check(Dir, Command, Status, Shown) ->
    {Got, Out} = shell(Dir, Command),
    ct:log("~ts~nexit ~p~n~ts", [Command, Got, Out]),
    OutWords = [words(L) || L <- string:split(Out, "\n", all)],
    Missing = [L || L <- Shown, not has_digit(L), words(L) =/= [], not lists:member(words(L), OutWords)],
    case {Got, Missing} of
        {Status, []} -> ok;
        _ -> #{exit => Got, expected_exit => Status, lines_missing => Missing}
    end.

shell(Dir, Command) ->
    Port = open_port({spawn_executable, "/bin/sh"},
                     [exit_status, stderr_to_stdout, binary, {cd, Dir}, {args, ["-c", Command]},
                      {env, [{"COLUMNS", false}, {"NO_COLOR", false}]}]),
    collect(Port, []).

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
