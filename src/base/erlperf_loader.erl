%%% @doc Loading modules in one batch. Loaded on demand, one by one, each module is
%%% looked up along the whole code path (an escript's archive first) and prepared in
%%% turn. Read straight from their applications' directories and prepared together
%%% (`code:prepare_loading/1' prepares on every scheduler at once), a list of modules
%%% loads in about half that time. Modules missing from an OTP release are skipped; one
%%% that cannot be prepared loads on demand later.
%%%
%%% {@link compiler/0} loads what the compiler's passes need for a generated module:
%%% about 45 modules (2 MB of BEAM), loaded only when a module is compiled (a run whose
%%% modules all come from {@link erlperf_compile_cache} loads none of them).
%%%
%%% Example:
%%% ```
%%% ok = erlperf_loader:load([{stdlib, [erl_scan, erl_parse]}, erlperf_job]),
%%% ok = erlperf_loader:compiler().
%%% '''
-module(erlperf_loader).

%% API: called by the engine before it compiles, and by the command line as it starts.
-export([load/1, compiler/0]).

%% Modules the compiler's passes load for a generated module (OTP 25-29; missing ones
%% are skipped).
-define(COMPILER_MODULES,
        [compile, v3_core, sys_core_fold, sys_core_alias, sys_core_bsm, core_lib, cerl,
         cerl_clauses, cerl_trees, v3_kernel, beam_kernel_to_ssa, beam_core_to_ssa, beam_ssa,
         beam_ssa_opt, beam_ssa_type, beam_ssa_bool, beam_ssa_bsm, beam_ssa_bc_size,
         beam_ssa_dead, beam_ssa_recv, beam_ssa_share, beam_ssa_throw, beam_ssa_pre_codegen,
         beam_ssa_codegen, beam_ssa_alias, beam_ssa_ss, beam_ssa_destructive_update,
         beam_call_types, beam_types, beam_digraph, beam_a, beam_block, beam_jump, beam_clean,
         beam_trim, beam_flatten, beam_z, beam_validator, beam_asm, beam_dict, beam_opcodes,
         beam_utils, erl_bifs]).
%% What the compiler needs of stdlib (the linter and what it uses).
-define(COMPILER_STDLIB_MODULES, [erl_expand_records, sets, sofs, digraph, digraph_utils,
                                  erl_lint, erl_internal, otp_internal, orddict, ordsets]).

%%--------------------------------------------------------------------
%% API

%% @doc Loads the modules not loaded yet, in one batch: `{App, Modules}' are read from
%% the application's `ebin' directory, a bare module name is found along the code path.
-spec load([{atom(), [module()]} | module()]) -> ok.
load(Wanted) ->
    Batch = lists:append([from_app(W) || W <- Wanted]),
    load_all([X || X <- Batch, not erlang:module_loaded(module_name(X))]).

%% @doc Loads the compiler's modules unless they are loaded already.
-spec compiler() -> ok.
compiler() ->
    case erlang:module_loaded(compile) of
        true -> ok;
        false -> load([{compiler, ?COMPILER_MODULES}, {stdlib, ?COMPILER_STDLIB_MODULES}])
    end.

%%--------------------------------------------------------------------
%% Internal functions

from_app({App, Modules}) ->
    case code:lib_dir(App) of
        Dir when is_list(Dir) ->
            Ebin = filename:join(Dir, "ebin"),
            [{M, File, Bin} || M <- Modules, not erlang:module_loaded(M),
                               File <- [filename:join(Ebin, atom_to_list(M) ++ ".beam")],
                               {ok, Bin} <- [file:read_file(File)]];
        _ ->
            []
    end;
from_app(Module) when is_atom(Module) ->
    [Module].

-spec load_all([module() | {module(), file:filename(), binary()}]) -> ok.
load_all([]) ->
    ok;
load_all(Modules) ->
    case code:prepare_loading(Modules) of
        {ok, Prepared} ->
            _ = code:finish_loading(Prepared),
            ok;
        {error, Failed} ->
            %% one that cannot be prepared (not found, on_load) loads on demand
            Bad = [M || {M, _} <- Failed],
            load_all([X || X <- Modules, not lists:member(module_name(X), Bad)])
    end.

module_name({M, _File, _Bin}) -> M;
module_name(M) -> M.
