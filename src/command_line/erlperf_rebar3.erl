%%% @doc rebar3's `erlperf' command: compiles the project, puts its code and its
%%% dependencies' on the code path, and runs erlperf's command line in rebar3's VM, by
%%% default on the benchmark suite files in `bench/'. A rebar3 provider, loaded when a
%%% project names erlperf among its `plugins' (erlperf's `.app' file lists it under
%%% `providers'); nothing else calls it, and it calls rebar3's modules, which only a
%%% rebar3 VM has.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>suite options</b>: the options this command declares to rebar3 (`--suite',
%%%       `--filter', `--store', `--baseline', `--save-baseline', `--against',
%%%       `--fail-on-regression'); rebar3 refuses any other before `--'.</li>
%%%   <li><b>erlperf arguments</b>: the command line handed to erlperf: the arguments as
%%%       given, without the first `--'. `--suite bench' goes first unless they hold
%%%       `--suite' or are a whole command line to erlperf's parser without it: runner
%%%       code (a plain benchmark of the project's code), `--history', `-h' or `--version'.</li>
%%% </ul>
%%%
%%% Example (a project with `{plugins, [erlperf]}' and a suite file in `bench/'):
%%% ```
%%% $ rebar3 erlperf                                # every suite file of bench/
%%% $ rebar3 erlperf --filter sum --fail-on-regression 20
%%% $ rebar3 erlperf -- 'my_app:work().' -c 4       # a plain benchmark of the project's code
%%% '''
%%%
%%% The exit status reaches the shell: 0 ends the command as rebar3's commands end; any
%%% other (1 a benchmark failed, 2 a usage error, 3 a regression) halts the VM with it,
%%% after the output is written. Benchmarks run in rebar3's own VM, with rebar3 loaded;
%%% `-i' (isolated) runs them on a fresh node.
-module(erlperf_rebar3).

%% API: called by rebar3 (init/1 when it loads the plugin, do/1 for `rebar3 erlperf',
%% format_error/1 for do/1's errors)
-export([init/1, do/1, format_error/1]).

%% Internal export: the erlperf arguments of a rebar3 command line (called by do/1;
%% exported for the tests)
-export([arguments/1]).

%% The command's name: `rebar3 erlperf'.
-define(PROVIDER, erlperf).
%% What rebar3 runs before this command (and what that needs): the project compiled.
-define(DEPS, [compile]).

%% rebar3's state (`rebar_state:t()', opaque here: rebar3 is absent from erlperf's own
%% build, so its types are unknown to dialyzer).
-type state() :: term().
%% Why the command failed before erlperf ran.
-type reason() :: {start, Reason :: term()} | {root, file:filename(), file:posix()}.

%%--------------------------------------------------------------------
%% API

%% @doc Registers the `erlperf' command with rebar3.
-spec init(state()) -> {ok, state()}.
init(State) ->
    Provider = providers:create([{name, ?PROVIDER},
                                 {module, ?MODULE},
                                 {bare, true},
                                 {deps, ?DEPS},
                                 {example, "rebar3 erlperf --fail-on-regression 10"},
                                 {opts, opts()},
                                 {short_desc, "Run the project's erlperf benchmark suites."},
                                 {desc, desc()}]),
    {ok, rebar_state:add_provider(State, Provider)}.

%% @doc Runs erlperf's command line on the compiled project: `{ok, State}' when it
%% exits 0, else halts with its exit status.
-spec do(state()) -> {ok, state()} | {error, {module(), reason()}}.
do(State) ->
    ok = code_path(State),
    Args = arguments(rebar_state:command_args(State)),
    case run_in(rebar_state:dir(State), Args) of
        {ok, 0} -> {ok, State};
        {ok, Status} -> halt_with(Status);
        {error, Reason} -> {error, {?MODULE, Reason}}
    end.

%% @doc The text of do/1's errors.
-spec format_error(term()) -> io_lib:chars().
format_error({start, Reason}) ->
    io_lib:format("erlperf could not start: ~0tp", [Reason]);
format_error({root, Dir, Posix}) ->
    io_lib:format("erlperf could not enter the project's directory ~ts: ~ts",
                  [Dir, file:format_error(Posix)]);
format_error(Other) ->
    io_lib:format("~0tp", [Other]).

%%--------------------------------------------------------------------
%% Internal export

%% @doc The erlperf arguments of a rebar3 command line (what follows `rebar3 erlperf'):
%% the arguments without the first `--', after `--suite bench' unless they hold
%% `--suite' or are a whole command line without it (runner code, `-h', `--version').
-spec arguments([string()]) -> [string()].
arguments(CommandArgs) ->
    erlperf_args:project(without_separator(CommandArgs)).

%%--------------------------------------------------------------------
%% Internal functions

%% The suite options, for rebar3's parser and `rebar3 help erlperf' (values are read
%% back from the arguments as given, see arguments/1), from the option registry.
-spec opts() -> [{atom(), undefined, string(), string, string()}].
opts() ->
    erlperf_options:rebar3().

-spec desc() -> string().
desc() ->
    "Compiles the project and runs erlperf on its benchmark suite files (bench/ unless\n"
    "--suite is given), each benchmark compared with its previous stored run.\n"
    "erlperf's other arguments go after `--' (`rebar3 erlperf -- -h' lists them);\n"
    "`rebar3 erlperf -- 'my_app:work().' -c 4' is a plain benchmark of the project's code.\n"
    "Exit status: erlperf's (0 success, 1 a benchmark failed, 2 usage error, 3 regression).".

-spec without_separator([string()]) -> [string()].
without_separator(Args) ->
    case lists:splitwith(fun (A) -> A =/= "--" end, Args) of
        {Before, ["--" | After]} -> Before ++ After;
        {Before, []} -> Before
    end.

%% The project's applications and its dependencies on the code path, the plugins' first
%% (this module's own application may be a dependency too).
-spec code_path(state()) -> ok.
code_path(State) ->
    ok = rebar_paths:set_paths([plugins, deps], State),
    Ebins = [rebar_app_info:ebin_dir(App) || App <- rebar_state:project_apps(State)],
    ok = code:add_pathsz(Ebins).

%% Runs the command line from the project's root (where `bench/' and the default store
%% `_build/erlperf' are), with the erlperf application started (it stays started until
%% rebar3 ends, as in the escript); the directory is restored after.
-spec run_in(file:filename(), [string()]) -> {ok, non_neg_integer()} | {error, reason()}.
run_in(Root, Args) ->
    {ok, Cwd} = file:get_cwd(),
    case file:set_cwd(Root) of
        ok ->
            try started(fun () -> erlperf_cli:run(Args) end)
            after ok = file:set_cwd(Cwd)
            end;
        {error, Posix} ->
            {error, {root, Root, Posix}}
    end.

-spec started(fun(() -> non_neg_integer())) -> {ok, non_neg_integer()} | {error, reason()}.
started(Run) ->
    case application:ensure_all_started(erlperf) of
        {ok, _Started} ->
            {ok, Run()};
        {error, Reason} ->
            {error, {start, Reason}}
    end.

%% A failed run ends rebar3 with erlperf's exit status (rebar3's own errors exit 1).
%% halt/1 writes out what the VM's ports still hold before the VM ends.
-spec halt_with(pos_integer()) -> no_return().
halt_with(Status) ->
    erlang:halt(Status).
