%%% @doc Whether the command line's standard output or standard error is a terminal
%%% (progress lines are rewritten in place and colour is used only there).
%%%
%%% From OTP 26 on, `io:getopts(standard_io)' says of each of stdout and stderr whether
%%% it is a terminal (`stdout', `stderr'). `standard_error''s own `terminal' option is not
%%% to be trusted: missing on OTP 27, `false' even on a terminal on OTP 29. OTP 25 says
%%% neither, so on Linux the file descriptor's target is read from `/proc/self/fd'
%%% instead; elsewhere, then: not a terminal.
%%%
%%% Example:
%%% ```
%%% Progress = erlperf_terminal:is_terminal(stderr).
%%% '''
-module(erlperf_terminal).

%% API: called by erlperf_cli and erlperf_perf_cli.
-export([is_terminal/1]).

%% @doc Whether `stdout' or `stderr' is a terminal.
-spec is_terminal(stdout | stderr) -> boolean().
is_terminal(Stream) ->
    case proplists:get_value(Stream, io:getopts(standard_io)) of
        Bool when is_boolean(Bool) -> Bool;
        _ -> proc_fd_is_tty(Stream)
    end.

-spec proc_fd_is_tty(stdout | stderr) -> boolean().
proc_fd_is_tty(Stream) ->
    Fd = case Stream of stdout -> "1"; stderr -> "2" end,
    case file:read_link("/proc/self/fd/" ++ Fd) of
        {ok, "/dev/pts/" ++ _} -> true;
        {ok, "/dev/tty" ++ _} -> true;
        {ok, "/dev/console"} -> true;
        _ -> false
    end.
