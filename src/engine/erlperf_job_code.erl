%%% @doc The generated module of a job: its fresh name, generating and loading it (with the
%%% modules it calls), calling its roles, purging it, and its source text.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>generated module</b>: compiled by {@link erlperf_codegen} from a code map;
%%%       one per job, loaded by its controller and purged when the job stops. Its name is
%%%       `erlperf_job_' and the code's digest when {@link erlperf_compile_cache} is on
%%%       (the same code, the same name, run after run), `erlperf_job_N' (a unique
%%%       integer) when it is off.</li>
%%%   <li><b>claim</b>: the controller registers under its module's name while the module
%%%       is loaded, so that two jobs of the same code at once never share (and purge)
%%%       one module: the second compiles its own under a fresh name.</li>
%%%   <li><b>role</b>: `init', `init_runner', `runner' or `done'. `init' and `done' run in
%%%       the controller ({@link call/5}); `init_runner' in each worker before its loop
%%%       ({@link init_runner/4}); the runner in the loops that the worker bodies call
%%%       under {@link guarded/2}.</li>
%%%   <li><b>crash</b>: a role that raises is reported as
%%%       `{crashed, Role, {Class, Reason, Stack}}': {@link call/5} returns it in an
%%%       error, {@link guarded/2} makes it the worker's exit reason, which the
%%%       controller turns into the job's stop reason.</li>
%%% </ul>
%%%
%%% Example (what a job's controller does with it):
%%% ```
%%% {ok, Module, #{context := Context, roles := Roles} = Gen} =
%%%     erlperf_job_code:generate(#{runner => "ok.", init => "42."}),
%%% {Module, _} = erlperf_job_code:load(Module, Gen),
%%% {ok, 42} = erlperf_job_code:call(init, undefined, Module, Roles, Context),
%%% ok = erlperf_job_code:unload(Module).
%%% '''
%%%
%%% Cost and safety: one module per job (an atom per distinct code, or per job without
%%% the cache). A module from the cache costs no compiler: neither loading its 45
%%% modules nor running it. Loading also loads the modules the code calls by name, so
%%% that the first samples do not time code loading. {@link unload/1} deletes and purges
%%% the module: a process still running its code is killed, so the job stops its
%%% workers first.
-module(erlperf_job_code).

%% API: called by erlperf_job (all) and erlperf_job_measurer (init_runner/4, guarded/2).
-export([generate/1, load/2, unload/1, call/5, init_runner/4, guarded/2, text/1]).
%% API: called by erlperf to tell generated code in a crash's stack.
-export([is_generated/1]).

%% Prefix of a generated module's name; a digest (in hex) or a unique integer follows.
-define(PREFIX, "erlperf_job_").
%% The file name the generated code is loaded under (it has no file).
-define(FILENAME, "erlperf_generated").

%%--------------------------------------------------------------------
%% API

%% @doc Generates the code map's module, not loaded: from {@link erlperf_compile_cache}
%% when it is on and holds it (named `erlperf_job_' and the digest), else compiled (under
%% that name, and kept, when the cache is on; under a fresh one, when it is off).
-spec generate(erlperf_codegen:code_map()) ->
    {ok, module(), erlperf_codegen:generated()} | {error, term()}.
generate(Code) ->
    case erlperf_codegen:prepare(Code) of
        {ok, Prepared} -> generate(Prepared, erlperf_compile_cache:dir());
        {error, _} = Error -> Error
    end.

%% @doc Whether `Module' is a generated one (`erlperf_job_' and a number or a digest).
-spec is_generated(module()) -> boolean().
is_generated(Module) ->
    case lists:split(min(length(?PREFIX), length(atom_to_list(Module))), atom_to_list(Module)) of
        {?PREFIX, [_ | _] = Hex} -> lists:all(fun is_hex/1, Hex);
        _ -> false
    end.

%% @doc Loads the generated module, then the modules its code calls by name (a NIF
%% library such as crypto's takes tens of milliseconds to load, much more on a busy
%% machine). A called module that cannot be loaded is left to fail in the role that
%% calls it. The calling process claims the module's name (registers under it) until
%% {@link unload/1}: when another job holds the name already (the same code twice),
%% the module is compiled again under a fresh name, returned.
-spec load(module(), erlperf_codegen:generated()) -> {module(), erlperf_codegen:generated()}.
load(Module, Gen) ->
    case claim(Module) of
        true ->
            install(Module, Gen);
        false ->
            ok = erlperf_loader:compiler(),
            Fresh = fresh_name(),
            install(Fresh, erlperf_codegen:rename(Gen, Fresh))
    end.

%% @doc Deletes and purges the module (a process running its code is killed), and gives
%% up the calling process's claim of its name.
-spec unload(module()) -> ok.
unload(Module) ->
    _ = code:delete(Module),
    _ = code:purge(Module),
    _ = whereis(Module) =:= self() andalso unregister(Module),
    ok.

%% @doc Runs `init' or `done' (when the code defines it; `{ok, undefined}' otherwise)
%% in the calling process, catching a crash.
-spec call(init | done, term(), module(), [erlperf_codegen:role()], tuple()) ->
    {ok, term()} | {error, {crashed, init | done, {atom(), term(), list()}}}.
call(Role, Arg, Module, Roles, Context) ->
    case lists:member(Role, Roles) of
        true ->
            try {ok, Module:'erlperf call'(Role, Arg, Context)}
            catch Class:Reason:Stack -> {error, {crashed, Role, {Class, Reason, Stack}}}
            end;
        false ->
            {ok, undefined}
    end.

%% @doc Runs `init_runner' (when the code defines it, given `init''s result) in a
%% worker; a crash exits the worker (see {@link guarded/2}).
-spec init_runner(boolean(), module(), term(), tuple()) -> term().
init_runner(true, Module, InitResult, Context) ->
    guarded(init_runner, fun () -> Module:'erlperf call'(init_runner, InitResult, Context) end);
init_runner(false, _Module, _InitResult, _Context) ->
    undefined.

%% @doc Runs `Fun' (a role's code) in a worker: a crash exits the worker with reason
%% `{crashed, Role, {Class, Reason, Stack}}'.
-spec guarded(erlperf_codegen:role(), fun(() -> Result)) -> Result.
guarded(Role, Fun) ->
    try Fun()
    catch Class:Reason:Stack -> exit({crashed, Role, {Class, Reason, Stack}})
    end.

%% @doc The generated module's source (see `erlperf_codegen:source/1'), one string per
%% form.
-spec text([unicode:chardata()]) -> [string()].
text(Source) ->
    [unicode:characters_to_list(Form) || Form <- Source].

%%--------------------------------------------------------------------
%% Internal functions

generate(Prepared, off) ->
    compile(Prepared, fresh_name());
generate(Prepared, Dir) ->
    Digest = erlperf_codegen:digest(Prepared),
    Module = list_to_atom(?PREFIX ++ erlperf_compile_cache:hex(Digest)),
    case erlperf_compile_cache:fetch(Dir, Digest) of
        {ok, Bin, Warnings} ->
            {ok, Module, erlperf_codegen:restore(Prepared, Module, Bin, Warnings)};
        miss ->
            case compile(Prepared, Module) of
                {ok, Module, #{binary := Bin, warnings := Warnings}} = Compiled ->
                    ok = erlperf_compile_cache:store(Dir, Digest, Bin, Warnings),
                    Compiled;
                {error, _} = Error ->
                    Error
            end
    end.

compile(Prepared, Module) ->
    ok = erlperf_loader:compiler(),
    case erlperf_codegen:compile(Prepared, Module) of
        {ok, Gen} -> {ok, Module, Gen};
        {error, _} = Error -> Error
    end.

fresh_name() ->
    list_to_atom(?PREFIX ++ integer_to_list(erlang:unique_integer([positive]))).

%% A binary that does not load (a cache entry holding another module's code) is
%% compiled again from the forms.
install(Module, #{binary := Bin, forms := Forms} = Gen0) ->
    Gen = case code:load_binary(Module, ?FILENAME, Bin) of
              {module, Module} ->
                  Gen0;
              {error, _} ->
                  ok = erlperf_loader:compiler(),
                  #{binary := Compiled} = Recompiled = erlperf_codegen:rename(Gen0, Module),
                  {module, Module} = code:load_binary(Module, ?FILENAME, Compiled),
                  Recompiled
          end,
    _ = [code:ensure_loaded(M) || M <- lists:usort([M || {M, _, _} <- erlperf_codegen:forms_calls(Forms)])],
    {Module, Gen}.

%% The module's name registered to the calling process, unless another process holds
%% it. A job registers before it loads its module and unregisters after it purged it,
%% so a module of that name loaded now is left by a job killed before it could unload:
%% it goes.
claim(Module) ->
    try register(Module, self()) of
        true ->
            _ = code:purge(Module),
            _ = code:delete(Module),
            _ = code:purge(Module),
            true
    catch error:badarg ->
            false
    end.

is_hex(C) -> (C >= $0 andalso C =< $9) orelse (C >= $a andalso C =< $f).
