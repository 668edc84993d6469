%%% @doc Turns a benchmark definition (a code map) into a compiled module.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>role</b>: one of `init', `init_runner', `runner', `done'.</li>
%%%   <li><b>callable</b>: how a role is given: source text, a fun, `{M, F, A}' or a list
%%%       of `{M, F, A}' (replayed in order, one iteration calls each).</li>
%%%   <li><b>context</b>: a tuple of the funs given as callables; generated code reaches a
%%%       fun callable through it, because funs cannot be literals in generated code.</li>
%%%   <li><b>inlined fun</b>: a fun callable that the generated code does not call as a
%%%       fun. An external fun (`fun lists:seq/2', Elixir's `&Enum.sum/1') is a remote
%%%       call, as `{M, F, A}' is. An interpreted fun (made by `erl_eval': the Erlang shell,
%%%       `erl -eval', Elixir's `Code.eval_string', IEx, `elixir -e', `.exs' scripts)
%%%       carries its clauses (`erl_eval:fun_data/1'): they are compiled into the generated
%%%       module as a function of its own, its bound variables given their values as source
%%%       text's bindings are, so that a call costs what compiled code costs rather than
%%%       an interpretation (a microsecond or more). An interpreted fun whose values cannot
%%%       be literals (pids, funs), or which calls functions of the shell, stays a fun and
%%%       gets an `{interpreted, Role}' warning.</li>
%%%   <li><b>binding</b>: a value given for a variable of source text (the code map's
%%%       `bindings', `#{'N' => 100}'; parameter sweeps set it, see {@link erlperf_sweep}).
%%%       An expression sequence that uses the variable is compiled as if it started with
%%%       `N = 100,'; in function definitions, each clause body that uses it starts with
%%%       that match and its guards get the value itself. A variable in a function head
%%%       cannot be bound (it is the function's own argument): an error. The compiler
%%%       propagates the constant, so the loop is the one written with the literal.</li>
%%% </ul>
%%%
%%% Every role is compiled into one generated module, with the runner inlined into the
%%% worker loops: the loop is what a person would write by hand
%%% (`loop(0) -> done; loop(N) -> Work, loop(N - 1)'), so the harness adds nothing per
%%% iteration. Workers count in the loop variable; at the end of each batch the loop
%%% calls `erlperf_job:publish/0', which credits the next batch to the worker's counter
%%% and sizes it from how long the last one took (see {@link erlperf_job}).
%%%
%%% A third loop, `erlperf latency', is used only to measure per-call latency
%%% ({@link erlperf_latency}): it reads the monotonic clock before and after each call
%%% and writes the difference into an `atomics' array, slot by slot, until the array is
%%% full or a deadline has passed. It is a function of its own: the continuous and timed
%%% loops stay as they are.
%%%
%%% The module is compiled to assembly first and the worker loop compared with a
%%% reference loop compiled beside it, `erlperf reference', which is the same loop with
%%% no runner at all. When the two are the same instructions (labels renumbered, line
%%% and type annotations left out), the compiler removed the benchmarked code as dead (a
%%% literal, or a call without side effects whose result is unused) and a
%%% `{dead_code, runner}' warning is returned. The check names no instruction: it holds
%%% whatever instructions a release's compiler emits (the assembly is not a documented
%%% format; `erlperf_codegen_tests' check it on every supported release).
%%%
%%% Example:
%%% ```
%%% {ok, Gen} = erlperf_codegen:generate(#{runner => "rand:uniform()."}, erlperf_job_1),
%%% #{module := erlperf_job_1, binary := Bin} = Gen.
%%% '''
%%% This module is pure: it compiles, it does not load anything.
-module(erlperf_codegen).

%% API, called by erlperf_job
-export([generate/2, check/1, source/1, label/1, format_error/1]).
%% API, called by erlperf_job_code: compiling in two steps, so that a compiled module can
%% be kept and used again (erlperf_compile_cache).
-export([prepare/1, compile/2, restore/4, rename/2, digest/1, forms_calls/1]).

%% Internal export: the command line looks for calls that would stop its VM.
-export([calls/1]).

%% Internal exports: parameter sweeps (erlperf_sweep) find and check variables.
-export([variables/1, is_variable/1, is_literal/1]).

%% Internal export: erlperf_codegen_tests read the loops the compiler made.
-export([loops/1]).

-export_type([role/0, callable/0, code_map/0, generated/0, warning/0, error_detail/0]).
-export_type([prepared/0]).

-type role() :: init | init_runner | runner | done.
-type mfargs() :: {module(), atom(), [term()]}.
-type callable() :: string() | binary() | fun() | mfargs() | [mfargs()].
-type code_map() :: #{runner := callable(), init => callable(), init_runner => callable(),
                      done => callable(), label => string() | binary(),
                      bindings => #{atom() => term()}}.
-type warning() :: {dead_code, role()}
                 | {interpreted, role()}
                 | {compiler, role(), Line :: non_neg_integer(), Column :: non_neg_integer(), string()}.
-type error_detail() :: {parse, non_neg_integer(), non_neg_integer(), string()}
                      | {compile, [{non_neg_integer(), non_neg_integer(), string()}]}
                      | {arity, non_neg_integer(), string()}
                      | {bad_callable, term()}
                      | {bad_bindings, term()}
                      | {bound_in_head, atom(), non_neg_integer(), non_neg_integer()}.
-type generated() :: #{module := module(),
                       binary := binary(),
                       forms := [erl_parse:abstract_form()],
                       context := tuple(),
                       arity := 0..2,
                       roles := [role()],
                       warnings := [warning()],
                       label := binary()}.

%% Generated names, quoted so that they cannot clash with user functions.
-define(CALL, 'erlperf call').
-define(RUN, 'erlperf run').
-define(TIMED, 'erlperf timed').
-define(LOOP, 'erlperf loop').
-define(TIMED_LOOP, 'erlperf timed_loop').
-define(LATENCY, 'erlperf latency').
-define(LATENCY_LOOP, 'erlperf latency_loop').
%% the worker loop without the runner, compiled only to be compared with the real one
-define(REFERENCE, 'erlperf reference').
-define(ROLES, [init, init_runner, runner, done]).
-define(ANNO, erl_anno:new(0)).
%% The compiler's options for a generated module.
-define(COMPILE_OPTS, [return_errors, return_warnings, binary, no_spawn_compiler_process]).

%% What one role compiles to, before it is put into the module.
-record(role, {
    name :: role(),
    arity :: 0..2,
    %% functions defined by the user's source, renamed
    forms = [] :: [erl_parse:abstract_form()],
    %% expressions making a call, given the argument variables
    call :: fun(([erl_parse:abstract_expr()]) -> [erl_parse:abstract_expr()]),
    fun_value :: fun() | undefined,
    %% an interpreted fun kept as a fun
    interpreted = false :: boolean(),
    inlined = false :: boolean(),
    %% source text: the expressions (inlined) or the functions, before bindings
    exprs = [] :: [erl_parse:abstract_expr()]
}).

%% The module's name in prepared forms, until compile/2 or restore/4 names it.
-define(UNNAMED, 'erlperf unnamed').

%% A code map's module before it is compiled: the forms and what compiling them reports.
-record(prepared, {
    forms :: [erl_parse:abstract_form()],
    context :: tuple(),
    roles :: [#role{}],
    label :: binary()
}).

-opaque prepared() :: #prepared{}.

%%--------------------------------------------------------------------
%% API

%% @doc Generates and compiles a module named `Module' for the code map.
-spec generate(code_map(), module()) -> {ok, generated()} | {error, {bad_code, role(), error_detail()}}.
generate(Code, Module) ->
    case prepare(Code) of
        {ok, Prepared} -> compile(Prepared, Module);
        {error, _} = Error -> Error
    end.

%% @doc The module's forms for the code map, not compiled, its name left open (see
%% {@link compile/2} and {@link restore/4}); the forms are the same for the same code.
-spec prepare(code_map()) -> {ok, prepared()} | {error, {bad_code, role(), error_detail()}}.
prepare(#{runner := _} = Code) ->
    try
        Roles = parse_roles(Code),
        ok = check_arities(Roles),
        {Forms, Context} = module_forms(?UNNAMED, Roles),
        {ok, #prepared{forms = Forms, context = Context, roles = Roles, label = label(Code)}}
    catch
        throw:{bad_code, _Role, _Detail} = Reason ->
            {error, Reason}
    end;
prepare(Code) ->
    {error, {bad_code, runner, {bad_callable, Code}}}.

%% @doc Compiles the prepared forms into a module named `Module'.
-spec compile(prepared(), module()) -> {ok, generated()} | {error, {bad_code, role(), error_detail()}}.
compile(#prepared{forms = Forms, context = Context, roles = Roles, label = Label}, Module) ->
    compile_forms(Module, named(Forms, Module), Context, Roles, Label).

%% @doc What {@link compile/2} returns, from the binary and warnings it returned before
%% for the same forms and name (kept by {@link erlperf_compile_cache}), without compiling.
-spec restore(prepared(), module(), binary(), [warning()]) -> generated().
restore(#prepared{forms = Forms, context = Context, roles = Roles, label = Label}, Module, Bin, Warnings) ->
    generated(Module, Bin, named(Forms, Module), Context, Roles, Label, Warnings).

%% @doc The generated module compiled again under another name (one of its name is
%% loaded already); its warnings stay.
-spec rename(generated(), module()) -> generated().
rename(#{forms := Forms} = Gen, Module) ->
    Named = named(Forms, Module),
    {ok, Module, Bin, _Warnings} = compile:noenv_forms(Named, ?COMPILE_OPTS),
    Gen#{module := Module, binary := Bin, forms := Named}.

%% @doc A digest of what the compiled module depends on: the prepared forms, which
%% roles are interpreted funs (the forms of one that could not be inlined are those of
%% a compiled closure; the warnings differ), the compiler's options and version, the
%% OTP release and emulator, and this module's own code (which decides the warnings).
%% The compiler is not loaded to tell its version.
-spec digest(prepared()) -> binary().
digest(#prepared{forms = Forms, roles = Roles}) ->
    Compiler = case code:lib_dir(compiler) of
                   Dir when is_list(Dir) -> filename:basename(Dir);
                   {error, _} -> none
               end,
    Interpreted = [N || #role{name = N, interpreted = true} <- Roles],
    erlang:md5(term_to_binary({Forms, Interpreted, ?COMPILE_OPTS, Compiler,
                               erlang:system_info(otp_release), erlang:system_info(version),
                               ?MODULE:module_info(md5)})).

%% @doc The functions of other modules that forms call by name (`M:F(...)', `fun M:F/A'),
%% as written: an auto-imported BIF (`halt()') is not among them; {@link calls/1} of the
%% compiled module has every call.
-spec forms_calls([erl_parse:abstract_form()]) -> [mfa()].
forms_calls(Forms) ->
    lists:usort(remote_calls(Forms, [])).

%% @doc Checks a code map's syntax and arities without compiling it.
-spec check(code_map()) -> ok | {error, {bad_code, role(), error_detail()}}.
check(#{runner := _} = Code) ->
    try
        ok = check_arities(parse_roles(Code))
    catch
        throw:{bad_code, _Role, _Detail} = Reason ->
            {error, Reason}
    end;
check(Code) ->
    {error, {bad_code, runner, {bad_callable, Code}}}.

%% @doc Returns the source text of the module generated for a code map.
-spec source(code_map() | generated()) -> iodata().
source(#{forms := Forms}) ->
    [erl_pp:form(F) || F <- Forms, not is_file_attribute(F)];
source(#{runner := _} = Code) ->
    case generate(Code, erlperf_source) of
        {ok, Gen} -> source(Gen);
        {error, Reason} -> erlang:error(Reason)
    end.

%% @doc The functions of other modules that a generated module, or a module's object
%% code, calls (its import table, read with `beam_lib': what the compiler made of the
%% code, auto-imported BIFs and `apply' with literal arguments included).
-spec calls(generated() | binary() | file:filename()) -> [mfa()].
calls(#{binary := Binary}) ->
    calls(Binary);
calls(Beam) ->
    case beam_lib:chunks(Beam, [imports]) of
        {ok, {_Module, [{imports, Imports}]}} -> Imports;
        {error, beam_lib, _Reason} -> []
    end.

%% @doc Returns the label for a code map: the `label' key or the runner as given.
-spec label(code_map()) -> binary().
label(#{label := Label}) ->
    unicode:characters_to_binary(Label);
label(#{runner := Runner}) when is_list(Runner), is_integer(hd(Runner)); is_binary(Runner) ->
    unicode:characters_to_binary(Runner);
label(#{runner := Runner}) when is_function(Runner) ->
    fun_label(Runner);
label(#{runner := Runner}) ->
    iolist_to_binary(io_lib:format("~0p", [Runner])).

%% An external fun as its language writes it (`fun lists:seq/2', Elixir's `&Enum.sum/1'),
%% an interpreted one by its clauses as Erlang source, other funs as printed.
fun_label(Fun) ->
    case {erlang:fun_info(Fun, type), erlang:fun_info(Fun, module)} of
        {{type, external}, {module, M}} ->
            {name, F} = erlang:fun_info(Fun, name),
            {arity, A} = erlang:fun_info(Fun, arity),
            case atom_to_binary(M) of
                <<"Elixir.", Alias/binary>> ->
                    iolist_to_binary(io_lib:format("&~ts.~ts/~b", [Alias, F, A]));
                _ ->
                    iolist_to_binary(io_lib:format("~0tp", [Fun]))
            end;
        {_, {module, erl_eval}} ->
            case erl_eval:fun_data(Fun) of
                {fun_data, _, Clauses} ->
                    Text = erl_pp:expr({'fun', ?ANNO, {clauses, Clauses}}, -1, none),
                    %% on one line, whatever erl_pp wrapped
                    unicode:characters_to_binary(string:trim(re:replace(Text, "\\s+", " ", [global, unicode])));
                _ ->
                    iolist_to_binary(io_lib:format("~0p", [Fun]))
            end;
        _ ->
            iolist_to_binary(io_lib:format("~0p", [Fun]))
    end.

%% @doc Renders an error detail as one line of text.
-spec format_error(error_detail()) -> string().
format_error({parse, Line, Col, Msg}) ->
    lists:flatten(io_lib:format("syntax error at line ~b, column ~b: ~ts", [Line, Col, Msg]));
format_error({compile, [{Line, Col, Msg} | _]}) ->
    lists:flatten(io_lib:format("line ~b, column ~b: ~ts", [Line, Col, Msg]));
format_error({arity, Arity, Why}) ->
    lists:flatten(io_lib:format("arity ~b: ~ts", [Arity, Why]));
format_error({bad_callable, Term}) ->
    lists:flatten(io_lib:format("not a callable: ~0tp", [Term]));
format_error({bad_bindings, Term}) ->
    lists:flatten(io_lib:format("bindings must map variable names to literal terms, not ~0tP",
                                [Term, 10]));
format_error({bound_in_head, Name, Line, Col}) ->
    lists:flatten(io_lib:format("parameter ~ts is an argument in a function head (line ~b, column ~b): "
                                "a parameter can be used in clause bodies and guards only",
                                [Name, Line, Col])).

%% @doc The variables that the source-text roles of a code map mention (funs and
%% `{M, F, A}' have none), each once, in the order of the roles.
-spec variables(code_map()) -> [atom()].
variables(Code) ->
    Names = [Name || R <- ?ROLES, Text <- [maps:get(R, Code, none)], is_source(Text),
                     {var, _, Name} <- tokens(Text), Name =/= '_'],
    lists:uniq(Names).

%% @doc True for an atom that is a variable name (`N', `Size', `_Pool'), `_' excepted.
-spec is_variable(term()) -> boolean().
is_variable(Name) when is_atom(Name), Name =/= '_' ->
    case erl_scan:string(atom_to_list(Name)) of
        {ok, [{var, _, Name}], _} -> true;
        _ -> false
    end;
is_variable(_Other) ->
    false.

is_source(Text) when is_binary(Text) -> true;
is_source([C | _]) -> is_integer(C);
is_source(_Other) -> false.

tokens(Text) ->
    case erl_scan:string(unicode:characters_to_list(Text)) of
        {ok, Tokens, _} -> Tokens;
        {error, _, _} -> []
    end.

%%--------------------------------------------------------------------
%% Parsing callables

-spec parse_roles(code_map()) -> [#role{}].
parse_roles(Code) ->
    Bindings = bindings(Code),
    [bind(parse_role(R, maps:get(R, Code)), Bindings) || R <- ?ROLES, is_map_key(R, Code)].

-spec parse_role(role(), term()) -> #role{}.
parse_role(Role, Text) when is_binary(Text) ->
    parse_role(Role, unicode:characters_to_list(Text));
parse_role(Role, [C | _] = Text) when is_integer(C) ->
    parse_source(Role, Text);
parse_role(Role, Fun) when is_function(Fun) ->
    {arity, Arity} = erlang:fun_info(Fun, arity),
    Arity =< 2 orelse bad(Role, {arity, Arity, "a fun callable takes at most 2 arguments"}),
    case erlang:fun_info(Fun, type) of
        {type, external} ->
            {module, M} = erlang:fun_info(Fun, module),
            {name, F} = erlang:fun_info(Fun, name),
            #role{name = Role, arity = Arity,
                  call = fun (Args) -> [{call, ?ANNO, {remote, ?ANNO, {atom, ?ANNO, M}, {atom, ?ANNO, F}}, Args}] end};
        {type, local} ->
            case interpreted(Role, Fun, Arity) of
                #role{} = Compiled -> Compiled;
                Interpreted -> fun_role(Role, Fun, Arity, Interpreted)
            end
    end;
parse_role(Role, {M, F, A} = MFA) when is_atom(M), is_atom(F), is_list(A) ->
    case is_literal(A) of
        true ->
            #role{name = Role, arity = 0, call = fun ([]) -> [remote_call(MFA)] end};
        false ->
            %% pids, ports, references and funs cannot be literals in generated code
            parse_role(Role, fun () -> erlang:apply(M, F, A) end)
    end;
parse_role(Role, [{_, _, _} | _] = List) ->
    _ = [parse_role(Role, MFA) || MFA <- List],
    #role{name = Role, arity = 0, call = fun ([]) -> [remote_call(MFA) || MFA <- List] end};
parse_role(Role, Other) ->
    bad(Role, {bad_callable, Other}).

%% A fun the generated code calls through the context.
fun_role(Role, Fun, Arity, Interpreted) ->
    #role{name = Role, arity = Arity, fun_value = Fun, interpreted = Interpreted,
          call = fun ([FunVar | Args]) -> [{call, ?ANNO, FunVar, Args}] end}.

%% An interpreted fun as a function of the generated module (see the glossary); true
%% when it is interpreted but cannot be compiled, false for a fun of compiled code.
interpreted(Role, Fun, Arity) ->
    case erlang:fun_info(Fun, module) =:= {module, erl_eval} andalso erl_eval:fun_data(Fun) of
        {fun_data, Imported, Clauses} ->
            Bindings = maps:from_list(binding_list(Imported)),
            Name = role_name(Role, 'fun'),
            case maps:fold(fun (_, V, Ok) -> Ok andalso is_literal(V) end, true, Bindings)
                andalso local_calls(Clauses) =:= [] of
                true when Arity =:= 0, length(Clauses) =:= 1, element(4, hd(Clauses)) =:= [] ->
                    %% one clause without guards: its body inlined, as source text's is
                    Body = bind_body(element(5, hd(Clauses)), Bindings),
                    #role{name = Role, arity = 0, inlined = true, exprs = Body, call = fun ([]) -> Body end};
                true ->
                    Function = {function, ?ANNO, Name, Arity, [bind_clause(Role, C, Bindings) || C <- Clauses]},
                    #role{name = Role, arity = Arity, forms = [Function],
                          call = fun (Args) -> [{call, ?ANNO, {atom, ?ANNO, Name}, Args}] end};
                false ->
                    true
            end;
        {named_fun_data, _, _, _} ->
            true;
        _ ->
            erlang:fun_info(Fun, module) =:= {module, erl_eval}
    end.

%% erl_eval's bindings: an orddict, or a map from OTP 25 on.
binding_list(Map) when is_map(Map) -> maps:to_list(Map);
binding_list(List) when is_list(List) -> List.

%% Calls without a module that are not to auto-imported BIFs: the shell's own functions.
local_calls({call, _, {atom, _, Name}, Args} = Call) ->
    case erl_internal:bif(Name, length(Args)) of
        true -> local_calls(Args);
        false -> [Call | local_calls(Args)]
    end;
local_calls(Tuple) when is_tuple(Tuple) -> local_calls(tuple_to_list(Tuple));
local_calls(List) when is_list(List) -> lists:append([local_calls(E) || E <- List]);
local_calls(_Other) -> [].

%% @doc True for a term that can be a literal in generated code: no pid, port,
%% reference or fun inside.
-spec is_literal(term()) -> boolean().
is_literal(T) when is_pid(T); is_port(T); is_reference(T); is_function(T) -> false;
is_literal(T) when is_list(T) -> is_literal_list(T);
is_literal(T) when is_tuple(T) -> is_literal(tuple_to_list(T));
is_literal(T) when is_map(T) -> is_literal(maps:to_list(T));
is_literal(_) -> true.

is_literal_list([H | T]) -> is_literal(H) andalso is_literal_list(T);
is_literal_list([]) -> true;
is_literal_list(Tail) -> is_literal(Tail).

-spec remote_call(mfargs()) -> erl_parse:abstract_expr().
remote_call({M, F, A}) ->
    {call, ?ANNO, {remote, ?ANNO, {atom, ?ANNO, M}, {atom, ?ANNO, F}},
     [erl_parse:abstract(Arg, 0) || Arg <- A]}.

-spec parse_source(role(), string()) -> #role{}.
parse_source(Role, Text) ->
    Tokens = scan(Role, Text),
    case split_forms(Tokens) of
        [First | _] = FormTokens ->
            case is_function_head(First) of
                true -> parse_functions(Role, FormTokens);
                false -> parse_single_expression(Role, FormTokens)
            end
    end.

parse_single_expression(Role, [Single]) ->
    parse_expressions(Role, Single);
parse_single_expression(Role, [_, Second | _]) ->
    bad(Role, parse_detail(hd(Second), "more than one expression; define functions instead")).

%% `name(...) ->' or `name(...) when' starts a function; `name(...).' is a call.
is_function_head([{atom, _, _}, {'(', _} | Rest]) ->
    case skip_group(Rest, 1) of
        [{'->', _} | _] -> true;
        [{'when', _} | _] -> true;
        _ -> false
    end;
is_function_head(_) ->
    false.

skip_group(Tokens, 0) ->
    Tokens;
skip_group([], _Depth) ->
    [];
skip_group([{Open, _} | Rest], Depth) when Open =:= '('; Open =:= '['; Open =:= '{'; Open =:= '<<' ->
    skip_group(Rest, Depth + 1);
skip_group([{Close, _} | Rest], Depth) when Close =:= ')'; Close =:= ']'; Close =:= '}'; Close =:= '>>' ->
    skip_group(Rest, Depth - 1);
skip_group([_ | Rest], Depth) ->
    skip_group(Rest, Depth).

-spec scan(role(), string()) -> [erl_scan:token()].
scan(Role, Text) ->
    case erl_scan:string(Text, {1, 1}) of
        {ok, [], _} ->
            bad(Role, {parse, 1, 1, "empty source"});
        {ok, Tokens, _} ->
            ensure_dot(Role, Tokens);
        {error, {{Line, Col}, Mod, Desc}, _} ->
            bad(Role, {parse, Line, Col, Mod:format_error(Desc)})
    end.

-spec ensure_dot(role(), [erl_scan:token()]) -> [erl_scan:token()].
ensure_dot(Role, Tokens) ->
    case lists:last(Tokens) of
        {dot, _} ->
            Tokens;
        Last ->
            bad(Role, parse_detail(Last, "source must end with a period (.)"))
    end.

-spec split_forms([erl_scan:token()]) -> [[erl_scan:token()]].
split_forms(Tokens) ->
    split_forms(Tokens, [], []).

split_forms([], [], Acc) ->
    lists:reverse(Acc);
split_forms([], Cur, Acc) ->
    lists:reverse([lists:reverse(Cur) | Acc]);
split_forms([{dot, _} = Dot | Rest], Cur, Acc) ->
    split_forms(Rest, [], [lists:reverse([Dot | Cur]) | Acc]);
split_forms([Tok | Rest], Cur, Acc) ->
    split_forms(Rest, [Tok | Cur], Acc).

-spec parse_functions(role(), [[erl_scan:token()]]) -> #role{}.
parse_functions(Role, FormTokens) ->
    Forms = [parse_form(Role, T) || T <- FormTokens],
    [{function, _, Name, Arity, _} | _] = Forms,
    Defined = [{N, A} || {function, _, N, A, _} <- Forms],
    Renamed = [rename(F, Role, Defined) || F <- Forms],
    Target = role_name(Role, Name),
    #role{name = Role, arity = Arity, forms = Renamed,
          call = fun (Args) -> [{call, ?ANNO, {atom, ?ANNO, Target}, Args}] end}.

-spec parse_form(role(), [erl_scan:token()]) -> erl_parse:abstract_form().
parse_form(Role, Tokens) ->
    case erl_parse:parse_form(Tokens) of
        {ok, {function, _, _, _, _} = Form} ->
            Form;
        {ok, _Other} ->
            bad(Role, parse_detail(hd(Tokens), "only function definitions are allowed"));
        {error, {Loc, Mod, Desc}} ->
            bad(Role, location_detail(Loc, Mod:format_error(Desc)))
    end.

-spec parse_expressions(role(), [erl_scan:token()]) -> #role{}.
parse_expressions(Role, Tokens) ->
    case erl_parse:parse_exprs(Tokens) of
        {ok, Exprs} ->
            #role{name = Role, arity = 0, inlined = true, exprs = Exprs,
                  call = fun ([]) -> Exprs end};
        {error, {Loc, Mod, Desc}} ->
            bad(Role, location_detail(Loc, Mod:format_error(Desc)))
    end.

-spec parse_detail(erl_scan:token(), string()) -> error_detail().
parse_detail(Token, Msg) ->
    location_detail(erl_scan:location(Token), Msg).

-spec location_detail(erl_anno:location(), string()) -> error_detail().
location_detail({Line, Col}, Msg) -> {parse, Line, Col, lists:flatten(Msg)};
location_detail(Line, Msg) -> {parse, Line, 0, lists:flatten(Msg)}.

%% Renames the user's functions (and local calls to them) so that the functions of
%% different roles, and the generated ones, never clash.
-spec rename(term(), role(), [{atom(), arity()}]) -> term().
rename({function, A, Name, Arity, Clauses}, Role, Defined) ->
    {function, A, role_name(Role, Name), Arity, rename(Clauses, Role, Defined)};
rename({call, A, {atom, A2, Name}, Args}, Role, Defined) ->
    NewArgs = rename(Args, Role, Defined),
    case lists:member({Name, length(Args)}, Defined) of
        true -> {call, A, {atom, A2, role_name(Role, Name)}, NewArgs};
        false -> {call, A, {atom, A2, Name}, NewArgs}
    end;
rename({'fun', A, {function, Name, Arity}} = Fun, Role, Defined) ->
    case lists:member({Name, Arity}, Defined) of
        true -> {'fun', A, {function, role_name(Role, Name), Arity}};
        false -> Fun
    end;
rename(Tuple, Role, Defined) when is_tuple(Tuple) ->
    list_to_tuple(rename(tuple_to_list(Tuple), Role, Defined));
rename(List, Role, Defined) when is_list(List) ->
    [rename(E, Role, Defined) || E <- List];
rename(Other, _Role, _Defined) ->
    Other.

-spec role_name(role(), atom()) -> atom().
role_name(Role, Name) ->
    list_to_atom(atom_to_list(Role) ++ " " ++ atom_to_list(Name)).

-spec bad(role(), error_detail()) -> no_return().
bad(Role, Detail) ->
    throw({bad_code, Role, Detail}).

%%--------------------------------------------------------------------
%% Bindings

-spec bindings(code_map()) -> #{atom() => term()}.
bindings(#{bindings := Bindings}) when is_map(Bindings) ->
    maps:foreach(fun (Name, Value) ->
                         is_variable(Name) andalso is_literal(Value)
                             orelse bad(runner, {bad_bindings, Bindings})
                 end, Bindings),
    Bindings;
bindings(#{bindings := Bindings}) ->
    bad(runner, {bad_bindings, Bindings});
bindings(_Code) ->
    #{}.

%% Source text gets the values of the variables it uses; funs and {M, F, A} have none.
-spec bind(#role{}, #{atom() => term()}) -> #role{}.
bind(Role, Bindings) when map_size(Bindings) =:= 0 ->
    Role;
bind(#role{inlined = true, exprs = Exprs} = Role, Bindings) ->
    Bound = bind_body(Exprs, Bindings),
    Role#role{exprs = Bound, call = fun ([]) -> Bound end};
bind(#role{name = Name, forms = Forms} = Role, Bindings) ->
    Role#role{forms = [{function, A, F, Arity, [bind_clause(Name, C, Bindings) || C <- Clauses]}
                       || {function, A, F, Arity, Clauses} <- Forms]}.

%% A clause of a function: its own arguments cannot be bound, its guards get the values,
%% its body starts with the matches.
bind_clause(Role, {clause, A, Patterns, Guards, Body}, Bindings) ->
    case [V || {Name, _} = V <- vars(Patterns), is_map_key(Name, Bindings)] of
        [] ->
            {clause, A, Patterns, substitute(Guards, Bindings), bind_body(Body, Bindings)};
        [{Name, Anno} | _] ->
            {Line, Col} = loc(erl_anno:location(Anno)),
            bad(Role, {bound_in_head, Name, Line, Col})
    end.

%% `Name = Value' in front of expressions, for each bound variable they use.
bind_body(Exprs, Bindings) ->
    Used = lists:uniq([Name || {Name, _} <- vars(Exprs), is_map_key(Name, Bindings)]),
    [{match, ?ANNO, {var, ?ANNO, Name}, literal(maps:get(Name, Bindings), ?ANNO)} || Name <- Used]
        ++ Exprs.

substitute({var, A, Name} = Var, Bindings) ->
    case Bindings of
        #{Name := Value} -> literal(Value, A);
        #{} -> Var
    end;
substitute(Tuple, Bindings) when is_tuple(Tuple) ->
    list_to_tuple(substitute(tuple_to_list(Tuple), Bindings));
substitute(List, Bindings) when is_list(List) ->
    [substitute(E, Bindings) || E <- List];
substitute(Other, _Bindings) ->
    Other.

literal(Value, Anno) ->
    erl_parse:abstract(Value, [{line, erl_anno:line(Anno)}, {encoding, unicode}]).

%% Every variable of an abstract syntax tree, with its annotation, in order.
vars({var, Anno, Name}) when is_atom(Name) -> [{Name, Anno}];
vars(Tuple) when is_tuple(Tuple) -> vars(tuple_to_list(Tuple));
vars(List) when is_list(List) -> lists:append([vars(E) || E <- List]);
vars(_Other) -> [].

%%--------------------------------------------------------------------
%% Arity rules

-spec check_arities([#role{}]) -> ok.
check_arities(Roles) ->
    Has = fun (Name) -> lists:keymember(Name, #role.name, Roles) end,
    lists:foreach(fun (R) -> check_arity(R, Has) end, Roles).

check_arity(#role{name = init, arity = 0}, _Has) ->
    ok;
check_arity(#role{name = Role, arity = 1}, Has) when Role =:= init_runner; Role =:= done ->
    Has(init) orelse bad(Role, {arity, 1, "needs init, whose result it receives"}),
    ok;
check_arity(#role{name = Role, arity = 0}, _Has) when Role =:= init_runner; Role =:= done ->
    ok;
check_arity(#role{name = runner, arity = 0}, _Has) ->
    ok;
check_arity(#role{name = runner, arity = Arity}, Has) when Arity =:= 1; Arity =:= 2 ->
    Has(init_runner) orelse bad(runner, {arity, Arity, "needs init_runner, whose result it receives"}),
    ok;
check_arity(#role{name = runner, arity = Arity}, _Has) ->
    bad(runner, {arity, Arity, "a runner takes 0, 1 or 2 arguments"});
check_arity(#role{name = init, arity = Arity}, _Has) ->
    bad(init, {arity, Arity, "init takes no arguments"});
check_arity(#role{name = Role, arity = Arity}, _Has) ->
    bad(Role, {arity, Arity, "takes 0 or 1 argument (the result of init)"}).

%%--------------------------------------------------------------------
%% Module generation

-spec module_forms(module(), [#role{}]) -> {[erl_parse:abstract_form()], tuple()}.
module_forms(Module, Roles) ->
    %% funs go into the context tuple, in role order
    FunRoles = [R || #role{fun_value = F} = R <- Roles, F =/= undefined],
    Context = list_to_tuple([F || #role{fun_value = F} <- FunRoles]),
    Index = maps:from_list(lists:zip([N || #role{name = N} <- FunRoles],
                                     lists:seq(1, length(FunRoles)))),
    Runner = lists:keyfind(runner, #role.name, Roles),
    Loops = loop_forms(Runner, maps:get(runner, Index, none)),
    %% the reference loop is exported: it is never called, and must not be removed
    Exports = [{?CALL, 3}, {?RUN, 3}, {?TIMED, 3}, {?LATENCY, 5}
               | [{?REFERENCE, A} || {function, _, ?REFERENCE, A, _} <- Loops]],
    Header = [{attribute, ?ANNO, file, {"erlperf", 1}},
              {attribute, ?ANNO, module, Module},
              {attribute, ?ANNO, export, Exports}],
    Dispatch = dispatch_forms(Roles, Index),
    User = lists:append([[{attribute, ?ANNO, file, {atom_to_list(N), 1}} | F]
                         || #role{name = N, forms = F} <- Roles, F =/= []]),
    LoopFile = loop_file(Runner),
    {Header ++ Dispatch ++ User ++ [{attribute, ?ANNO, file, {LoopFile, 1}} | Loops], Context}.

%% When the runner is inlined, the loops carry its code: report their warnings as the runner's.
loop_file(#role{inlined = true}) -> "runner";
loop_file(#role{}) -> "erlperf".

%% ?CALL(Role, Arg, Context) runs init, init_runner or done.
-spec dispatch_forms([#role{}], #{role() => pos_integer()}) -> [erl_parse:abstract_form()].
dispatch_forms(Roles, Index) ->
    Clauses = [dispatch_clause(R, Index) || R = #role{name = N} <- Roles, N =/= runner],
    Fallback = {clause, ?ANNO, [var('Role'), var('_'), var('_')], [],
                [{call, ?ANNO, {remote, ?ANNO, {atom, ?ANNO, erlang}, {atom, ?ANNO, error}},
                  [{tuple, ?ANNO, [{atom, ?ANNO, undefined_role}, var('Role')]}]}]},
    [{function, ?ANNO, ?CALL, 3, Clauses ++ [Fallback]}].

dispatch_clause(#role{name = Name, arity = Arity} = Role, Index) ->
    Args = lists:sublist([var('Arg')], Arity),
    ArgPattern = case Arity of 0 -> var('_'); 1 -> var('Arg') end,
    Body = role_call(Role, Args, Index, var('Context')),
    CtxPattern = case maps:is_key(Name, Index) of true -> var('Context'); false -> var('_') end,
    {clause, ?ANNO, [{atom, ?ANNO, Name}, ArgPattern, CtxPattern], [], Body}.

%% Expressions calling a role; a fun is fetched from the context tuple.
role_call(#role{name = Name, call = Call}, Args, Index, Context) ->
    case maps:find(Name, Index) of
        {ok, Pos} ->
            Fun = {call, ?ANNO, {remote, ?ANNO, {atom, ?ANNO, erlang}, {atom, ?ANNO, element}},
                   [{integer, ?ANNO, Pos}, Context]},
            Call([Fun | Args]);
        error ->
            Call(Args)
    end.

%% Continuous entry, loop with publishing, and timed loop.
%% Loop variables: N (iterations left in the batch), then only what the runner needs:
%% F (its fun), I (init_runner's result), A (its state). When a batch is done, the loop
%% asks `erlperf_job:publish/0' for the next batch size: publishing happens there, in
%% ordinary code, once per batch. Only the batch-end clause makes that call, so the
%% iteration clause is the loop a person would write.
-spec loop_forms(#role{}, pos_integer() | none) -> [erl_parse:abstract_form()].
loop_forms(#role{arity = Arity} = Runner, FunPos) ->
    HasFun = FunPos =/= none,
    Extra = [var('F') || HasFun] ++ [var('I') || Arity >= 1] ++ [var('A') || Arity =:= 2],
    Body = runner_body(Runner, Arity),
    Setup = [{match, ?ANNO, var('F'), {call, ?ANNO, remote(erlang, element),
                                         [{integer, ?ANNO, FunPos}, var('Context')]}} || HasFun],
    Init = used(Arity >= 1, 'I'),
    Context = used(HasFun, 'Context'),
    [run_form(Setup, Extra, Init, Context),
     worker_loop(?LOOP, Extra, Body),
     %% the same loop with no runner: a state passes on unchanged
     worker_loop(?REFERENCE, Extra, []),
     timed_form(Setup, Extra, Init, Context),
     {function, ?ANNO, ?TIMED_LOOP, 1 + length(Extra),
      [{clause, ?ANNO, [{integer, ?ANNO, 0} | [var('_') || _ <- Extra]], [], [{atom, ?ANNO, ok}]},
       {clause, ?ANNO, [var('N') | Extra], [],
        Body ++ [{call, ?ANNO, {atom, ?ANNO, ?TIMED_LOOP}, [decrement() | next(Extra)]}]}]}
     | latency_forms(Setup, Extra, Init, Context, Body)].

%% Name(N, Extra...): runs Body N times, then asks for the next batch and goes on.
worker_loop(Name, Extra, Body) ->
    Next = case Body of [] -> Extra; _ -> next(Extra) end,
    {function, ?ANNO, Name, 1 + length(Extra),
     [{clause, ?ANNO, [{integer, ?ANNO, 0} | Extra], [],
       [{call, ?ANNO, {atom, ?ANNO, Name}, [{call, ?ANNO, remote(erlperf_job, publish), []} | Extra]}]},
      {clause, ?ANNO, [var('N') | Extra], [],
       Body ++ [{call, ?ANNO, {atom, ?ANNO, Name}, [decrement() | Next]}]}]}.

%% 'erlperf latency'(Count, Ref, Deadline, InitRunnerResult, Context) -> slots left:
%% times calls one by one into slots Count, Count - 1, ... of the atomics array Ref
%% (native time units), until slot 1 is written or the monotonic clock has passed
%% Deadline. The first call always runs: the loop starts as if the last call had ended
%% at Deadline. The clock is read right before and right after the call; the write and
%% the loop's own work fall outside the timed span.
latency_forms(Setup, Extra, Init, Context, Body) ->
    Done = [[{op, ?ANNO, '=:=', var('N'), {integer, ?ANNO, 0}}],
            [{op, ?ANNO, '>', var('Last'), var('Deadline')}]],
    Time = fun (V) -> {match, ?ANNO, var(V), now_call()} end,
    Put = {call, ?ANNO, remote(atomics, put),
           [var('Ref'), var('N'), {op, ?ANNO, '-', var('T1'), var('T0')}]},
    Next = {call, ?ANNO, {atom, ?ANNO, ?LATENCY_LOOP},
            [decrement(), var('T1'), var('Deadline'), var('Ref') | next(Extra)]},
    [{function, ?ANNO, ?LATENCY, 5,
      [{clause, ?ANNO, [var('Count'), var('Ref'), var('Deadline'), Init, Context], [],
        Setup ++ [{call, ?ANNO, {atom, ?ANNO, ?LATENCY_LOOP},
                   [var('Count'), var('Deadline'), var('Deadline'), var('Ref') | initial(Extra)]}]}]},
     {function, ?ANNO, ?LATENCY_LOOP, 4 + length(Extra),
      [{clause, ?ANNO, [var('N'), var('Last'), var('Deadline'), var('_') | [var('_') || _ <- Extra]],
        Done, [var('N')]},
       {clause, ?ANNO, [var('N'), var('_'), var('Deadline'), var('Ref') | Extra], [],
        [Time('T0') | Body] ++ [Time('T1'), Put, Next]}]}].

%% One iteration. A runner/2 binds the next state to A1.
runner_body(#role{arity = 0} = R, 0) -> call_runner(R, []);
runner_body(#role{} = R, 1) -> call_runner(R, [var('I')]);
runner_body(#role{} = R, 2) ->
    [{match, ?ANNO, var('A1'), hd(call_runner(R, [var('I'), var('A')]))}].

call_runner(#role{fun_value = undefined, call = Call}, Args) -> Call(Args);
call_runner(#role{call = Call}, Args) -> Call([var('F') | Args]).

%% The arguments for the next iteration: the new state replaces the old one.
next(Extra) ->
    [case V =:= var('A') of true -> var('A1'); false -> V end || V <- Extra].

%% The state of a runner/2 starts as init_runner's result.
initial(Extra) ->
    [case V =:= var('A') of true -> var('I'); false -> V end || V <- Extra].

decrement() ->
    {op, ?ANNO, '-', var('N'), {integer, ?ANNO, 1}}.

%% 'erlperf run'(Batch, InitRunnerResult, Context): loops forever, starting with a
%% first batch of Batch iterations (already credited by the worker).
run_form(Setup, Extra, Init, Context) ->
    {function, ?ANNO, ?RUN, 3,
     [{clause, ?ANNO, [var('Batch'), Init, Context], [],
       Setup ++ [{call, ?ANNO, {atom, ?ANNO, ?LOOP}, [var('Batch') | initial(Extra)]}]}]}.

%% 'erlperf timed'(Count, InitRunnerResult, Context) -> nanoseconds for Count iterations.
timed_form(Setup, Extra, Init, Context) ->
    Time = fun (V) -> {match, ?ANNO, var(V), now_call()} end,
    Elapsed = {call, ?ANNO, remote(erlang, convert_time_unit),
               [{op, ?ANNO, '-', var('T1'), var('T0')}, {atom, ?ANNO, native}, {atom, ?ANNO, nanosecond}]},
    {function, ?ANNO, ?TIMED, 3,
     [{clause, ?ANNO, [var('Count'), Init, Context], [],
       Setup ++ [Time('T0'),
                 {call, ?ANNO, {atom, ?ANNO, ?TIMED_LOOP}, [var('Count') | initial(Extra)]},
                 Time('T1'), Elapsed]}]}.

remote(M, F) ->
    {remote, ?ANNO, {atom, ?ANNO, M}, {atom, ?ANNO, F}}.

used(true, Name) -> var(Name);
used(false, _Name) -> var('_').

now_call() ->
    {call, ?ANNO, {remote, ?ANNO, {atom, ?ANNO, erlang}, {atom, ?ANNO, monotonic_time}}, []}.

%% Generated variables carry a prefix, so that inlined user expressions cannot bind them.
var('_') ->
    {var, ?ANNO, '_'};
var(Name) ->
    {var, ?ANNO, list_to_atom("Erlperf" ++ atom_to_list(Name))}.

is_file_attribute({attribute, _, file, _}) -> true;
is_file_attribute(_) -> false.

%%--------------------------------------------------------------------
%% Compilation

compile_forms(Module, Forms, Context, Roles, Label) ->
    case erlang:apply(compile, noenv_forms, [Forms, [to_asm | ?COMPILE_OPTS]]) of
        {ok, Module, Asm, Warnings} ->
            {ok, Module, Bin, _} = assemble(Asm),
            Dead = [{dead_code, runner} || dead_loop(Asm)]
                ++ [{interpreted, N} || #role{name = N, interpreted = true} <- Roles],
            %% the runner is inlined twice (continuous and timed loops): report once
            {ok, generated(Module, Bin, Forms, Context, Roles, Label,
                           Dead ++ compiler_warnings(Warnings))};
        {error, Errors, _Warnings} ->
            {Role, Detail} = compile_errors(Errors),
            {error, {bad_code, Role, Detail}}
    end.

generated(Module, Bin, Forms, Context, Roles, Label, Warnings) ->
    #role{arity = Arity} = lists:keyfind(runner, #role.name, Roles),
    #{module => Module, binary => Bin, forms => Forms, context => Context, arity => Arity,
      roles => [N || #role{name = N} <- Roles], warnings => Warnings, label => Label}.

%% The forms with their module attribute naming `Module'.
named(Forms, Module) ->
    [case F of
         {attribute, Anno, module, _} -> {attribute, Anno, module, Module};
         _ -> F
     end || F <- Forms].

%% Remote calls by name (`M:F(...)' and `fun M:F/A') anywhere in the forms.
remote_calls({call, _, {remote, _, {atom, _, M}, {atom, _, F}}, Args}, Acc) ->
    remote_calls(Args, [{M, F, length(Args)} | Acc]);
remote_calls({'fun', _, {function, {atom, _, M}, {atom, _, F}, {integer, _, A}}}, Acc) ->
    [{M, F, A} | Acc];
remote_calls(Tuple, Acc) when is_tuple(Tuple) ->
    remote_calls(tuple_to_list(Tuple), Acc);
remote_calls(List, Acc) when is_list(List) ->
    lists:foldl(fun remote_calls/2, Acc, List);
remote_calls(_Other, Acc) ->
    Acc.

%% compile's contract types neither assembly output (`to_asm') nor input (`from_asm'):
%% both calls go through apply/3 so that dialyzer does not reject them.
assemble(Asm) ->
    erlang:apply(compile, noenv_forms, [Asm, [from_asm | ?COMPILE_OPTS]]).

compiler_warnings(Warnings) ->
    [{compiler, list_to_atom(File), Line, Col, lists:flatten(Mod:format_error(Desc))}
     || {File, List} <- Warnings, File =/= "erlperf",
        {Loc, Mod, Desc} <- lists:usort(List), not is_no_effect(Desc),
        {Line, Col} <- [loc(Loc)]].

%% "no effect" is reported as dead code already
is_no_effect({ignored, _}) -> true;
is_no_effect(_) -> false.

compile_errors([{File, List} | _]) ->
    Role = case File of "erlperf" -> runner; _ -> list_to_atom(File) end,
    %% the runner is inlined twice (continuous and timed loops): report each error once
    {Role, {compile, lists:usort([begin {L, C} = loc(Loc), {L, C, lists:flatten(Mod:format_error(D))} end
                                  || {Loc, Mod, D} <- List])}}.

loc({Line, Col}) -> {Line, Col};
loc(Line) when is_integer(Line) -> {Line, 0};
loc(none) -> {0, 0}.

%% The runner was compiled away when the worker loop is the reference loop (no runner).
%% The assembly is a tuple whose elements differ between releases (OTP 29 added one);
%% its function list is found by what it holds, each function being
%% `{function, Name, Arity, Entry, Instructions}' on every supported release.
dead_loop(Asm) ->
    {Loop, Reference} = loops(Asm),
    Loop =:= Reference.

%% @private The worker loop's and the reference loop's instructions in a generated
%% module's assembly (`compile' option `to_asm'), normalised.
-spec loops(tuple()) -> {[term()], [term()]}.
loops(Asm) ->
    [Functions] = [E || E <- tuple_to_list(Asm), is_list(E), E =/= [],
                        lists:all(fun (F) -> is_tuple(F) andalso tuple_size(F) =:= 5
                                                 andalso element(1, F) =:= function end, E)],
    Code = maps:from_list([{Name, Is} || {function, Name, _, _, Is} <- Functions]),
    {normal(maps:get(?LOOP, Code)), normal(maps:get(?REFERENCE, Code))}.

%% Instructions with labels numbered from 1 in order of appearance, without line
%% information, type annotations and the function's own name.
normal(Instructions) ->
    Kept = [I || I <- Instructions, not is_annotation(I)],
    {Normal, _} = lists:mapfoldl(fun relabel/2, #{}, Kept),
    Normal.

is_annotation(I) when is_tuple(I) ->
    lists:member(element(1, I), [line, '%', func_info, executable_line, debug_line]);
is_annotation(_) ->
    false.

relabel({label, L}, Map) ->
    {N, Map1} = label_number(L, Map),
    {{label, N}, Map1};
relabel({f, L}, Map) when is_integer(L), L > 0 ->
    {N, Map1} = label_number(L, Map),
    {{f, N}, Map1};
relabel(T, Map) when is_tuple(T) ->
    {Elements, Map1} = lists:mapfoldl(fun relabel/2, Map, tuple_to_list(T)),
    {list_to_tuple(Elements), Map1};
relabel(L, Map) when is_list(L) ->
    lists:mapfoldl(fun relabel/2, Map, L);
relabel(Other, Map) ->
    {Other, Map}.

label_number(L, Map) ->
    case Map of
        #{L := N} -> {N, Map};
        _ -> N = map_size(Map) + 1, {N, Map#{L => N}}
    end.
