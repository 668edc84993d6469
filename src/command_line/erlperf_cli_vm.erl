%%% @doc Prepares the escript's VM for a command-line run: the code path (`-pa'), the
%%% modules every benchmark loads (read ahead, in one go) and, for `--nodes', Erlang
%%% distribution. Called by {@link erlperf_cli} and {@link erlperf_perf_cli} before
%%% anything runs; errors come back as `{error, Reason}' for {@link format_error/1}.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>preload</b>: reading erlperf's modules and what generating a runner's module
%%%       needs of stdlib, and preparing them together ({@link erlperf_loader}), before the
%%%       engine's first job (which would load them one by one along the whole code
%%%       path).</li>
%%%   <li><b>hidden client node</b>: with `--nodes' this VM becomes a hidden node named
%%%       `erlperf_cli_<OS pid>' that connects out but does not listen, so it needs no epmd
%%%       of its own; the cookie is the default one (`~/.erlang.cookie'), never given on
%%%       a command line.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% ok = erlperf_cli_vm:preload(),
%%% ok = erlperf_cli_vm:add_paths(["_build/default/lib/mylib/ebin"]),
%%% ok = erlperf_cli_vm:distribution(['bench@host']).
%%% '''
%%% The VM's log (crash reports of the code under test, its own `logger' calls, the VM's
%%% reports) goes to standard error (`log_to_stderr/0'), so that standard output holds
%%% only what was asked for: the table, or the `--format' it names.
%%%
%%% Cost: `preload/0' loads about 25 modules, in about half the time loading them on
%%% demand takes (the compiler's 45 load only when a runner is compiled, not when its
%%% module comes from {@link erlperf_compile_cache}); `distribution/1' starts
%%% `net_kernel' only when nodes are given and this VM is not distributed yet.
-module(erlperf_cli_vm).

%% API: called by erlperf_cli and erlperf_perf_cli
-export([preload/0, compile_cache/0, add_paths/1, distribution/1, log_to_stderr/0, format_error/1]).
%% API: the exit status when standard output closes (erlperf_cli documents it).
-export([closed_output_status/0, output_closed/0]).
%% Internal export: the watcher of standard output, spawned by log_to_stderr/0.
-export([watch_user/1]).

-export_type([reason/0]).

%% The exit status when standard output is closed under erlperf (its reader, such as
%% `head', went): a program killed by SIGPIPE reports 128 + 13 in a shell.
-define(CLOSED_OUTPUT_STATUS, 141).
%% The modules of OTP's standard I/O whose reports of a closed standard output are
%% dropped (user_sup's supervisor_bridge up to OTP 25, user_drv from OTP 26 on).
-define(STANDARD_IO_MODULES, [supervisor_bridge, user_sup, user, user_drv, prim_tty, group]).
%% The default handler's settings kept when it is moved to standard error.
-define(KEPT_HANDLER_KEYS, [level, filters, filter_default, formatter]).

%% What generating a module needs of stdlib (the compiler's own needs load on a cache miss).
-define(STDLIB_MODULES, [erl_scan, erl_parse, erl_anno, erl_internal, io_lib_format]).
%% erlperf's own modules that every benchmark run needs, from the facade to the table.
-define(RUN_MODULES, [erlperf, erlperf_forks, erlperf_local, erlperf_comparison, erlperf_sampler,
                      erlperf_job, erlperf_job_code, erlperf_job_counters, erlperf_job_measurer,
                      erlperf_codegen, erlperf_interference, erlperf_stat, erlperf_system,
                      erlperf_record, erlperf_output, erlperf_report, erlperf_table, erlperf_units,
                      erlperf_terminal, erlperf_cli_outcome]).

%% A `-pa' directory that is not one; distribution that would not start.
-type reason() :: {code_path, Dir :: string()} | {distribution, term()}.

%%--------------------------------------------------------------------
%% API

%% @doc Loads the modules a benchmark run needs ahead of the engine, in one batch (see
%% {@link erlperf_loader}): erlperf's own and what generating a module needs of stdlib.
%% The compiler's modules load only when a runner is compiled, not when its module comes
%% from the cache ({@link erlperf_compile_cache}).
-spec preload() -> ok.
preload() ->
    erlperf_loader:load([{stdlib, ?STDLIB_MODULES} | ?RUN_MODULES]).

%% @doc Turns on the cache of compiled runners ({@link erlperf_compile_cache}) in its
%% default directory, unless `ERLPERF_CACHE=off' or the application's environment
%% names a directory already.
-spec compile_cache() -> ok.
compile_cache() ->
    case erlperf_compile_cache:dir() =:= off andalso erlperf_compile_cache:default_dir() of
        false -> ok;
        off -> ok;
        Dir -> application:set_env(erlperf, compile_cache, Dir, [{persistent, true}])
    end.

%% @doc Adds each `-pa' directory to the front of the code path, in order; stops at the
%% first that is not a directory.
-spec add_paths([string()]) -> ok | {error, reason()}.
add_paths([]) ->
    ok;
add_paths([Dir | Dirs]) ->
    case code:add_patha(Dir) of
        true -> add_paths(Dirs);
        {error, _} -> {error, {code_path, Dir}}
    end.

%% @doc Makes this VM a hidden client node when `Nodes' are to be reached and it is not
%% distributed yet: long names when any node's host has a dot, else short names.
-spec distribution([node()]) -> ok | {error, reason()}.
distribution([_ | _] = Nodes) when node() =:= nonode@nohost ->
    Domain = case lists:any(fun is_long_name/1, Nodes) of
                 true -> longnames;
                 false -> shortnames
             end,
    Name = list_to_atom("erlperf_cli_" ++ os:getpid()),
    case net_kernel:start(Name, #{name_domain => Domain, dist_listen => false}) of
        {ok, _} -> ok;
        {error, Reason} -> {error, {distribution, Reason}}
    end;
distribution(_Nodes) ->
    ok.

%% @doc Moves the default logger handler from standard output to standard error.
-spec log_to_stderr() -> ok.
log_to_stderr() ->
    ok = watch_output(),
    case logger:get_handler_config(default) of
        {ok, #{module := logger_std_h, config := #{type := standard_io}} = Handler} ->
            ok = logger:remove_handler(default),
            logger:add_handler(default, logger_std_h,
                               (maps:with(?KEPT_HANDLER_KEYS, Handler))#{config => #{type => standard_error}});
        _ ->
            ok  % already elsewhere, or no default handler: nothing goes to stdout
    end.

%% @doc The exit status when standard output closes before erlperf is done: the VM
%% halts at once, silently, with this status.
-spec closed_output_status() -> pos_integer().
closed_output_status() ->
    ?CLOSED_OUTPUT_STATUS.

%% @doc Whether standard output has closed under this run: its process (`user') has
%% ended. A write that failed then is not an error of erlperf's: the run ends with
%% {@link closed_output_status/0}.
-spec output_closed() -> boolean().
output_closed() ->
    case whereis(user) of
        undefined -> true;
        User -> not is_process_alive(User)
    end.

%% @doc The line (without `erlperf: ') for a reason of this module.
-spec format_error(reason()) -> string().
format_error({code_path, Dir}) ->
    "-pa: " ++ Dir ++ " is not a directory";
format_error({distribution, Reason}) ->
    lists:flatten(io_lib:format("cannot start Erlang distribution for --nodes: ~0tp", [Reason])).

%%--------------------------------------------------------------------
%% Internal functions

%% Standard output closed (the `user' process ends, with `epipe'): halt at once and
%% silently, as a program killed by SIGPIPE would, rather than let the VM report every
%% process that fails to write. The watcher runs at the highest priority, so that it
%% halts before those reports are written.
-spec watch_output() -> ok.
watch_output() ->
    %% OTP's standard I/O reports the closed output before the watcher can halt: those
    %% reports are dropped (a test of the command line piped into `head' checks on every
    %% release that nothing reaches standard error)
    _ = logger:add_primary_filter(erlperf_closed_output, {fun closed_output_report/2, []}),
    case whereis(user) of
        undefined ->
            ok;
        User ->
            _ = spawn_opt(?MODULE, watch_user, [User], [{priority, max}]),
            ok
    end.

%% @private
%% The watcher of standard output's process: halts when it ends.
-spec watch_user(pid()) -> no_return().
watch_user(User) ->
    Ref = erlang:monitor(process, User),
    receive
        {'DOWN', Ref, process, User, _} ->
            _ = logger:set_primary_config(level, none),
            erlang:halt(?CLOSED_OUTPUT_STATUS, [{flush, false}])
    end.

-spec closed_output_report(logger:log_event(), term()) -> logger:filter_return().
closed_output_report(#{msg := Msg, meta := #{mfa := {Module, _, _}}}, _Extra) ->
    case lists:member(Module, ?STANDARD_IO_MODULES) andalso mentions_epipe(Msg) of
        true -> stop;
        false -> ignore
    end;
closed_output_report(_Event, _Extra) ->
    ignore.

%% OTP 25 reports it as a supervisor report (`{reason, epipe}'), OTP 26 and later as
%% "Writer crashed (epipe)".
mentions_epipe({report, #{report := Report}}) when is_list(Report) ->
    lists:member({reason, epipe}, Report);
mentions_epipe({_Format, Args}) when is_list(Args) ->
    lists:member(epipe, Args);
mentions_epipe(_Msg) ->
    false.

-spec is_long_name(node()) -> boolean().
is_long_name(Node) ->
    case string:split(atom_to_list(Node), "@") of
        [_, Host] -> lists:member($., Host);
        _ -> false
    end.
