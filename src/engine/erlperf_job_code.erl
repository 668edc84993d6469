%%% @doc The generated module of a job: its fresh name, generating and loading it (with the
%%% modules it calls), calling its roles, purging it, and its source text.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>generated module</b>: `erlperf_job_N', compiled by {@link erlperf_codegen}
%%%       from a code map; one per job, loaded by its controller and purged when the job
%%%       stops.</li>
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
%%% ok = erlperf_job_code:load(Module, Gen),
%%% {ok, 42} = erlperf_job_code:call(init, undefined, Module, Roles, Context),
%%% ok = erlperf_job_code:unload(Module).
%%% '''
%%%
%%% Cost and safety: one module per job, named from `erlang:unique_integer/1' (an atom
%%% per job, never reused). Loading also loads the modules the code calls by name, so
%%% that the first samples do not time code loading. {@link unload/1} deletes and purges
%%% the module: a process still running its code is killed, so the job stops its
%%% workers first.
-module(erlperf_job_code).

%% API: called by erlperf_job (all) and erlperf_job_measurer (init_runner/4, guarded/2).
-export([generate/1, load/2, unload/1, call/5, init_runner/4, guarded/2, text/1]).
%% API: called by erlperf to tell generated code in a crash's stack.
-export([is_generated/1]).

%% Prefix of a generated module's name; a unique integer follows.
-define(PREFIX, "erlperf_job_").
%% The file name the generated code is loaded under (it has no file).
-define(FILENAME, "erlperf_generated").

%%--------------------------------------------------------------------
%% API

%% @doc Generates and compiles the code map into a module with a fresh name, not loaded.
-spec generate(erlperf_codegen:code_map()) ->
    {ok, module(), erlperf_codegen:generated()} | {error, term()}.
generate(Code) ->
    Module = list_to_atom(?PREFIX ++ integer_to_list(erlang:unique_integer([positive]))),
    case erlperf_codegen:generate(Code, Module) of
        {ok, Gen} -> {ok, Module, Gen};
        {error, _} = Error -> Error
    end.

%% @doc Whether `Module' is a generated one (`erlperf_job_' and a number).
-spec is_generated(module()) -> boolean().
is_generated(Module) ->
    case lists:split(min(length(?PREFIX), length(atom_to_list(Module))), atom_to_list(Module)) of
        {?PREFIX, [_ | _] = Digits} -> lists:all(fun (C) -> C >= $0 andalso C =< $9 end, Digits);
        _ -> false
    end.

%% @doc Loads the generated module, then the modules its code calls by name (a NIF
%% library such as crypto's takes tens of milliseconds to load, much more on a busy
%% machine). A called module that cannot be loaded is left to fail in the role that
%% calls it.
-spec load(module(), erlperf_codegen:generated()) -> ok.
load(Module, #{binary := Bin, forms := Forms}) ->
    {module, Module} = code:load_binary(Module, ?FILENAME, Bin),
    _ = [code:ensure_loaded(M) || M <- lists:usort(called_modules(Forms, []))],
    ok.

%% @doc Deletes and purges the module (a process running its code is killed).
-spec unload(module()) -> ok.
unload(Module) ->
    _ = code:delete(Module),
    _ = code:purge(Module),
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

called_modules({remote, _, {atom, _, M}, {atom, _, _}}, Acc) ->
    [M | Acc];
called_modules(Tuple, Acc) when is_tuple(Tuple) ->
    called_modules(tuple_to_list(Tuple), Acc);
called_modules(List, Acc) when is_list(List) ->
    lists:foldl(fun called_modules/2, Acc, List);
called_modules(_Other, Acc) ->
    Acc.
