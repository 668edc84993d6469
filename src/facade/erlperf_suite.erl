%%% @doc Benchmark suites: modules that declare their benchmarks as data (the
%%% `erlperf_suite' behaviour), read from source files and compiled in memory, and turned
%%% into what `erlperf:benchmark/3' and `erlperf:sweep/3' run.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>suite</b>: a module with `-behaviour(erlperf_suite)' whose `benchmarks/0'
%%%       returns its benchmarks. Other modules of a suite directory (helpers) are
%%%       compiled and loaded too, and contribute no benchmark.</li>
%%%   <li><b>benchmark</b>: a map: `name' (unique among all suites run together),
%%%       `runner', and optionally `init', `init_runner', `done' (as a code map of
%%%       `erlperf:run/2' takes them), `params' (a sweep: variables of source text and
%%%       their values), `options' (run options of `erlperf:run/2': samples,
%%%       sample_duration, concurrency, memory, latency, ...).</li>
%%%   <li><b>local function</b>: an atom in a role (`runner => work') names a function
%%%       of the suite module. A runner of arity 0 becomes `{Module, Function, []}',
%%%       which the generated loop calls directly (no fun call per iteration); a runner
%%%       of arity 1 gets the `init_runner' result. The other roles likewise: arity 0,
%%%       or 1 to get `init''s result (`init_runner', `done').</li>
%%%   <li><b>Elixir suite</b>: a `.exs' (or `.ex') file defining a module with
%%%       `@behaviour :erlperf_suite' and `benchmarks/0', compiled by Elixir's
%%%       `Code.compile_file/1' when Elixir is loaded in this VM (as it is under `mix
%%%       erlperf'); benchmarks and their options may be keyword lists there.</li>
%%%   <li><b>filter</b>: a regular expression (`re' syntax) a benchmark's name must match
%%%       to run.</li>
%%% </ul>
%%%
%%% Example, `bench/sort_bench.erl':
%%% ```
%%% -module(sort_bench).
%%% -behaviour(erlperf_suite).
%%% -export([benchmarks/0, sort/1, input/0]).
%%% benchmarks() ->
%%%     [#{name => "sort 1000", runner => sort, init_runner => input},
%%%      #{name => "seq", runner => "lists:seq(1, N).", params => #{'N' => [10, 1000]},
%%%        options => #{samples => 6}}].
%%% input() -> [rand:uniform() || _ <- lists:seq(1, 1000)].
%%% sort(L) -> lists:sort(L).
%%% '''
%%% ```
%%% {ok, Suites} = erlperf_suite:load(["bench"]),
%%% {ok, Benchmarks} = erlperf_suite:benchmarks(Suites, #{}).
%%% '''
%%% Safety: loading compiles and loads the suite modules into this VM; a module that
%%% would replace one already loaded from elsewhere (OTP's, erlperf's, the project's)
%%% is refused. `unload/1' removes them again.
-module(erlperf_suite).

%% API: called by the command line (erlperf_suite_cli) and users
-export([load/1, benchmarks/2, unload/1, format_error/1]).

-export_type([benchmark/0, loaded/0, prepared/0]).

%% A benchmark as a suite declares it (see the glossary).
-type role() :: erlperf:code() | atom().
-type benchmark() :: #{name := string() | binary(),
                       runner := role(),
                       init => role(),
                       init_runner => role(),
                       done => role(),
                       params => erlperf_sweep:params() | #{atom() => [term(), ...]},
                       options => erlperf:run_options()}.

-callback benchmarks() -> [benchmark()].

%% Suite modules as loaded: every module compiled, with its source file.
-type loaded() :: [{module(), file:filename()}].
%% A benchmark ready to run: its name, code map, parameters (a sweep when not empty)
%% and run options.
-type prepared() :: #{name := binary(), suite := module(), code := erlperf_job:code_map(),
                      params := erlperf_sweep:params(), options := map()}.

%% The keys of a benchmark map.
-define(KEYS, [name, runner, init, init_runner, done, params, options]).
-define(ROLES, [runner, init, init_runner, done]).

%%--------------------------------------------------------------------
%% API

%% @doc Compiles the `.erl' files given (a directory stands for the `.erl' files in it,
%% in name order, and its `.exs' files when Elixir is loaded) in memory and loads them;
%% an Elixir file is compiled by Elixir (`{suite, File, no_elixir}' when Elixir is not
%% loaded). Include files are looked for beside each
%% file, in `include/' next to its directory, and in the code path (`include_lib').
%% Errors: `{suite, no_files, Paths}', `{suite, File, {compile, Errors}}' (the first
%% errors, as `File:Line: text'), `{suite, File, {clash, Module, LoadedFrom}}',
%% `{suite, File, {stops_vm, MFA}}' (it calls erlang:halt or init:stop),
%% `{suite, File, {read, Reason}}'. Nothing stays loaded after an error.
-spec load([file:filename()]) -> {ok, loaded()} | {error, term()}.
load(Paths) ->
    case lists:append([files(P) || P <- Paths]) of
        [] -> {error, {suite, no_files, Paths}};
        Files -> load_files(Files, [])
    end.

%% @doc The benchmarks of the loaded suites whose name matches `Filter' (`#{filter =>
%% Regex}', default: all), in the order the suites and their lists give them, each
%% checked and made ready to run. Errors: `{suite, Module, {crashed, Class, Reason}}'
%% (benchmarks/0 failed), `{suite, Module, {bad_benchmark, Term, Why}}',
%% `{suite, duplicate, Name}', `{suite, filter, {Regex, Why}}', `{suite, no_suites,
%% Files}' (no module has benchmarks/0), `{suite, none_match, Regex}'.
-spec benchmarks(loaded(), #{filter => string() | undefined}) -> {ok, [prepared()]} | {error, term()}.
benchmarks(Loaded, Options) ->
    try
        Filter = filter(maps:get(filter, Options, undefined)),
        Suites = [{M, F} || {M, F} <- Loaded, erlang:function_exported(M, benchmarks, 0)],
        Suites =/= [] orelse throw({suite, no_suites, [F || {_, F} <- Loaded]}),
        All = lists:append([declared(M) || {M, _} <- Suites]),
        _ = lists:foldl(fun unique/2, #{}, All),
        case [B || #{name := N} = B <- All, matches(Filter, N)] of
            [] -> throw({suite, none_match, maps:get(filter, Options, undefined)});
            Chosen -> {ok, Chosen}
        end
    catch
        throw:{suite, _, _} = Reason -> {error, Reason}
    end.

%% @doc Unloads the modules `load/1' loaded.
-spec unload(loaded()) -> ok.
unload(Loaded) ->
    lists:foreach(fun ({M, _}) -> _ = code:purge(M), _ = code:delete(M), _ = code:purge(M) end,
                  Loaded).

%% @doc One line for an error of this module.
-spec format_error({suite, term(), term()}) -> string().
format_error({suite, no_files, Paths}) ->
    text("--suite: no .erl files in ~ts", [lists:join(", ", Paths)]);
format_error({suite, File, no_elixir}) ->
    text("suite ~ts is an Elixir file: run it with mix erlperf (Elixir is not loaded here)", [File]);
format_error({suite, File, {elixir, Message}}) ->
    text("suite ~ts does not compile: ~ts", [File, Message]);
format_error({suite, File, {read, Reason}}) ->
    text("suite ~ts: ~ts", [File, file:format_error(Reason)]);
format_error({suite, File, {compile, Errors}}) ->
    text("suite ~ts does not compile: ~ts", [File, lists:join("; ", Errors)]);
format_error({suite, File, {stops_vm, MFA}}) ->
    text("suite ~ts calls ~ts, which would stop erlperf's own VM", [File, erlperf_units:function_name(MFA)]);
format_error({suite, File, {clash, Module, From}}) ->
    text("suite ~ts: module ~s is already loaded from ~ts; rename the suite module",
         [File, Module, From]);
format_error({suite, no_suites, Files}) ->
    text("no suite module (-behaviour(erlperf_suite), exporting benchmarks/0) in ~ts",
         [lists:join(", ", Files)]);
format_error({suite, Module, {crashed, Class, Reason}}) ->
    text("suite ~s: benchmarks/0 failed: ~s:~0tP", [Module, Class, Reason, 8]);
format_error({suite, Module, {bad_benchmark, Term, Why}}) ->
    text("suite ~s: ~ts, in ~0tP", [Module, Why, Term, 8]);
format_error({suite, duplicate, Name}) ->
    text("two benchmarks are named ~ts: names must be unique", [Name]);
format_error({suite, filter, {Regex, Why}}) ->
    text("--filter ~ts: not a regular expression (~ts)", [Regex, Why]);
format_error({suite, none_match, Regex}) ->
    text("no benchmark name matches --filter ~ts", [Regex]).

%%--------------------------------------------------------------------
%% Loading

files(Path) ->
    case filelib:is_dir(Path) of
        true ->
            Elixir = [filelib:wildcard(filename:join(Path, "*.exs")) || elixir()],
            lists:sort(filelib:wildcard(filename:join(Path, "*.erl")) ++ lists:append(Elixir));
        false ->
            [Path]
    end.

%% Whether Elixir's compiler is loaded in this VM (it is under Mix, never in the escript).
elixir() ->
    code:is_loaded('Elixir.Code') =/= false orelse
        (code:which('Elixir.Code') =/= non_existing andalso code:ensure_loaded('Elixir.Code') =:= {module, 'Elixir.Code'}).

load_files([], Acc) ->
    {ok, lists:reverse(Acc)};
load_files([File | Rest], Acc) ->
    case lists:member(filename:extension(File), [".exs", ".ex"]) of
        true -> load_elixir(File, Rest, Acc);
        false -> load_erlang(File, Rest, Acc)
    end.

%% Elixir compiles and loads the file's modules itself.
load_elixir(File, Rest, Acc) ->
    case elixir() andalso compile_elixir(File) of
        false ->
            unload(Acc),
            {error, {suite, File, no_elixir}};
        {ok, Modules} ->
            load_files(Rest, lists:reverse([{M, File} || M <- Modules], Acc));
        {error, Reason} ->
            unload(Acc),
            {error, {suite, File, Reason}}
    end.

compile_elixir(File) ->
    case filelib:is_regular(File) of
        true ->
            try elixir(<<"Code">>, compile_file, [unicode:characters_to_binary(File)]) of
                Compiled -> {ok, [M || {M, _Binary} <- Compiled]}
            catch
                error:Exception:_ when is_map(Exception) ->
                    Message = elixir(<<"Exception">>, message, [Exception]),
                    {error, {elixir, binary_to_list(hd(binary:split(Message, <<"\n">>)))}}
            end;
        false ->
            {error, {read, enoent}}
    end.

%% A function of Elixir's, its module named at run time: erlperf needs no Elixir, and its
%% dialyzer and xref do not look for one.
elixir(Module, Function, Args) ->
    erlang:apply(binary_to_atom(<<"Elixir.", Module/binary>>), Function, Args).

load_erlang(File, Rest, Acc) ->
    case compile_file(File) of
        {ok, Module, Binary} ->
            case {clash(Module), erlperf:stopping_calls(Binary)} of
                {none, [MFA | _]} ->
                    unload(Acc),
                    {error, {suite, File, {stops_vm, MFA}}};
                {none, []} ->
                    {module, Module} = code:load_binary(Module, File, Binary),
                    load_files(Rest, [{Module, File} | Acc]);
                {From, _} ->
                    unload(Acc),
                    {error, {suite, File, {clash, Module, From}}}
            end;
        {error, Reason} ->
            unload(Acc),
            {error, {suite, File, Reason}}
    end.

compile_file(File) ->
    case file:read_file_info(File) of
        {ok, _} ->
            Dir = filename:dirname(File),
            Opts = [binary, return_errors, {i, Dir}, {i, filename:join([Dir, "..", "include"])},
                    debug_info],
            case compile:file(File, Opts) of
                {ok, Module, Binary} -> {ok, Module, Binary};
                {ok, Module, Binary, _Warnings} -> {ok, Module, Binary};
                {error, Errors, _Warnings} -> {error, {compile, compile_errors(Errors)}}
            end;
        {error, Reason} ->
            {error, {read, Reason}}
    end.

%% At most three errors, as "file:line: text".
compile_errors(Errors) ->
    Lines = [io_lib:format("~ts:~ts: ~ts", [filename:basename(F), location(Loc), M:format_error(D)])
             || {F, List} <- Errors, {Loc, M, D} <- List],
    [lists:flatten(L) || L <- lists:sublist(Lines, 3)].

location({Line, _Column}) -> integer_to_list(Line);
location(Line) when is_integer(Line) -> integer_to_list(Line);
location(_) -> "?".

%% Where a module of that name is loaded from (or would be, from the code path), unless
%% it is a suite loaded before (its binary was given as a .erl file) or nowhere.
clash(Module) ->
    case code:is_loaded(Module) of
        false ->
            case code:which(Module) of
                File when is_list(File) -> File;
                _NonExisting -> none
            end;
        {file, File} when is_list(File) ->
            case filename:extension(File) of
                ".erl" -> none;
                _ -> File
            end;
        {file, Other} -> io_lib:format("~p", [Other])
    end.

%%--------------------------------------------------------------------
%% Benchmarks

declared(Module) ->
    List = try Module:benchmarks()
           catch Class:Reason -> throw({suite, Module, {crashed, Class, Reason}})
           end,
    is_list(List) orelse throw({suite, Module, {bad_benchmark, List, "benchmarks/0 must return a list"}}),
    [prepare(Module, B) || B <- List].

prepare(Module, [{_, _} | _] = Keywords) ->
    prepare(Module, erlperf:keywords(Keywords));
prepare(Module, #{name := Name, runner := _} = B) ->
    Ctx = {Module, B},
    [] =:= maps:keys(B) -- ?KEYS orelse bad(Ctx, text("unknown keys ~0tp", [maps:keys(B) -- ?KEYS])),
    Label = name(Name, Ctx),
    Code = maps:from_list([{Role, role(Module, Role, V, Ctx)}
                           || Role <- ?ROLES, {ok, V} <- [maps:find(Role, B)]]),
    Options = erlperf:keywords(maps:get(options, B, #{})),
    is_map(Options) orelse bad(Ctx, "options must be a map or a keyword list"),
    #{name => Label, suite => Module, code => Code#{label => Label},
      params => params(maps:get(params, B, []), Ctx), options => Options};
prepare(Module, B) ->
    bad({Module, B}, "a benchmark is a map with name and runner").

-spec bad({module(), term()}, string()) -> no_return().
bad({Module, B}, Why) ->
    throw({suite, Module, {bad_benchmark, B, Why}}).

name(Name, Ctx) ->
    try unicode:characters_to_binary(Name) of
        <<>> -> bad(Ctx, "an empty name");
        Bin when is_binary(Bin) -> Bin;
        _ -> bad(Ctx, "the name is not text")
    catch
        error:badarg -> bad(Ctx, "the name is not text")
    end.

%% A local function as the role's code; anything else is passed on as erlperf takes it.
role(Module, Role, Function, Ctx) when is_atom(Function) ->
    Arities = [A || {F, A} <- Module:module_info(exports), F =:= Function],
    case {Role, lists:sort(Arities)} of
        {_, []} -> bad(Ctx, text("~s => ~s: ~s:~s is not exported", [Role, Function, Module, Function]));
        {_, [0 | _]} -> {Module, Function, []};
        {_, [1 | _]} -> fun Module:Function/1;
        {_, _} -> bad(Ctx, text("~s => ~s: ~s:~s must take 0 or 1 arguments", [Role, Function, Module, Function]))
    end;
role(_Module, _Role, Code, _Ctx) ->
    Code.

params(Params, _Ctx) when is_list(Params) -> Params;
params(Params, _Ctx) when is_map(Params) -> lists:sort(maps:to_list(Params));
params(_Params, Ctx) -> bad(Ctx, "params must be a map or a list of {Variable, Values}").

unique(#{name := Name}, Seen) ->
    is_map_key(Name, Seen) andalso throw({suite, duplicate, Name}),
    Seen#{Name => true}.

filter(undefined) ->
    undefined;
filter(Regex) ->
    case re:compile(Regex, [unicode]) of
        {ok, MP} -> MP;
        {error, {Why, _At}} -> throw({suite, filter, {Regex, Why}})
    end.

matches(undefined, _Name) -> true;
matches(MP, Name) -> re:run(Name, MP, [{capture, none}]) =:= match.

text(Format, Args) ->
    lists:flatten(io_lib:format(Format, Args)).
