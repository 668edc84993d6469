%%% @doc Loads the user's modules of a performance test: a load generator (see
%%% {@link erlperf_load_generator}) and custom agents (see {@link erlperf_custom_agent}),
%%% given as modules on the code path (or their names) or as `.erl' files compiled in
%%% memory. Checks that each exports its behaviour's callbacks, and keeps the object code
%%% so that {@link erlperf_perf_node:inject_mod/2} can put the module on test nodes.
%%% A file whose module would replace one of OTP's sticky modules or one of erlperf's
%%% own is refused before it is loaded.
%%%
%%% Example:
%%% ```
%%% {ok, httpd_load_gen} = erlperf_perf_load:load_generator("examples/httpd_load_gen.erl").
%%% '''
-module(erlperf_perf_load).

%% API: called by erlperf_perf_test.
-export([load_generator/1, custom_agent/1, format_error/1]).

-type reason() :: {load_generator | custom_agent, term(), term()}.

%% The longest atom, hence module name, the VM accepts (characters).
-define(MAX_ATOM_CHARS, 255).

%%--------------------------------------------------------------------
%% API

%% @doc A load generator, loaded and checked.
-spec load_generator(module() | file:filename()) -> {ok, module()} | {error, reason()}.
load_generator(What) ->
    load(load_generator, What, required(erlperf_load_generator)).

%% @doc A custom agent, loaded and checked.
-spec custom_agent(module() | file:filename()) -> {ok, module()} | {error, reason()}.
custom_agent(What) ->
    load(custom_agent, What, required(erlperf_custom_agent)).

%% @doc Text for the reasons this module returns.
-spec format_error(reason()) -> string().
format_error({Kind, What, {compile, Errors}}) ->
    lists:flatten([io_lib:format("~ts ~ts does not compile:~n", [kind(Kind), What]),
                   [[format_compile(File, E), $\n] || {File, Es} <- Errors, E <- Es]]);
format_error({Kind, What, {missing_callbacks, Missing}}) ->
    lists:flatten(io_lib:format("~ts ~ts does not export ~ts",
                                [kind(Kind), What, lists:join(", ", [io_lib:format("~ts/~b", [F, A]) || {F, A} <- Missing])]));
format_error({Kind, What, {not_found, Why}}) ->
    lists:flatten(io_lib:format("~ts ~ts: ~ts", [kind(Kind), What, Why]));
format_error({Kind, What, {module_taken, Module}}) ->
    lists:flatten(io_lib:format("~ts ~ts: its module ~ts would replace OTP's or erlperf's own; rename it",
                                [kind(Kind), What, Module]));
format_error({load_generator, callback, Text}) ->
    "load generator: " ++ Text.

%%--------------------------------------------------------------------
%% Internal functions

-spec kind(load_generator | custom_agent) -> string().
kind(load_generator) -> "load generator";
kind(custom_agent) -> "custom agent".

%% Required callbacks: the behaviour's, without its optional ones.
-spec required(module()) -> [{atom(), arity()}].
required(Behaviour) ->
    Behaviour:behaviour_info(callbacks) -- Behaviour:behaviour_info(optional_callbacks).

-spec load(atom(), module() | file:filename(), [{atom(), arity()}]) ->
    {ok, module()} | {error, reason()}.
load(Kind, Module, Callbacks) when is_atom(Module) ->
    case code:ensure_loaded(Module) of
        {module, Module} -> check(Kind, Module, Callbacks);
        {error, Why} -> {error, {Kind, Module, {not_found, io_lib:format("cannot load the module (~p)", [Why])}}}
    end;
load(Kind, File, Callbacks) ->
    Name = unicode:characters_to_list(File),
    case filelib:is_regular(Name) of
        true -> compile_and_load(Kind, Name, Callbacks);
        false -> load_by_name(Kind, Name, Callbacks)
    end.

%% Not a file: a module's name, unless it reads as a file name.
-spec load_by_name(atom(), string(), [{atom(), arity()}]) -> {ok, module()} | {error, reason()}.
load_by_name(Kind, Name, Callbacks) ->
    case is_module_name(Name) of
        true ->
            case load(Kind, list_to_atom(Name), Callbacks) of
                {error, {Kind, _, {not_found, _}}} -> {error, {Kind, Name, {not_found, "no such file or module"}}};
                Loaded -> Loaded
            end;
        false ->
            {error, {Kind, Name, {not_found, "no such file"}}}
    end.

-spec is_module_name(string()) -> boolean().
is_module_name(Name) ->
    Name =/= "" andalso length(Name) =< ?MAX_ATOM_CHARS andalso filename:extension(Name) =:= ""
        andalso not lists:member($/, Name).

-spec compile_and_load(atom(), string(), [{atom(), arity()}]) -> {ok, module()} | {error, reason()}.
compile_and_load(Kind, File, Callbacks) ->
    Include = [{i, filename:dirname(File)}],
    case compile:file(File, [binary, return_errors, debug_info | Include]) of
        {ok, Module, Binary} ->
            case is_taken(Module) of
                false -> load_binary(Kind, File, Module, Binary, Callbacks);
                true -> {error, {Kind, File, {module_taken, Module}}}
            end;
        {error, Errors, _Warnings} ->
            {error, {Kind, File, {compile, Errors}}}
    end.

-spec load_binary(atom(), string(), module(), binary(), [{atom(), arity()}]) ->
    {ok, module()} | {error, reason()}.
load_binary(Kind, File, Module, Binary, Callbacks) ->
    Path = filename:absname(filename:rootname(File) ++ ".beam"),
    case code:load_binary(Module, Path, Binary) of
        {module, Module} ->
            ok = erlperf_perf_node:remember_object_code(Module, Path, Binary),
            check(Kind, Module, Callbacks);
        {error, Why} ->
            {error, {Kind, File, {not_found, io_lib:format("cannot load the module (~p)", [Why])}}}
    end.

%% A module of OTP's sticky directories (kernel, stdlib, compiler) or of erlperf.
-spec is_taken(module()) -> boolean().
is_taken(Module) ->
    Own = case application:get_key(erlperf, modules) of
              {ok, Modules} -> Modules;
              undefined -> []
          end,
    code:is_sticky(Module) orelse lists:member(Module, Own).

-spec check(atom(), module(), [{atom(), arity()}]) -> {ok, module()} | {error, reason()}.
check(Kind, Module, Callbacks) ->
    case [C || {F, A} = C <- Callbacks, not erlang:function_exported(Module, F, A)] of
        [] -> {ok, Module};
        Missing -> {error, {Kind, Module, {missing_callbacks, Missing}}}
    end.

-spec format_compile(string(), term()) -> iolist().
format_compile(File, {Location, Mod, Desc}) ->
    Where = case Location of
                {Line, Col} -> io_lib:format("~ts:~b:~b", [File, Line, Col]);
                Line when is_integer(Line) -> io_lib:format("~ts:~b", [File, Line]);
                _ -> File
            end,
    [Where, ": ", Mod:format_error(Desc)].
