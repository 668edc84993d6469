%%% @doc A fingerprint of the code a benchmark runs: when two runs of a suite's benchmark
%%% have the same one, the code they ran is byte for byte the same, and a time verdict
%%% the host's load left inconclusive can say "no change" (see erlperf_baseline).
%%%
%%% Glossary:
%%% <dl>
%%%   <dt>project fingerprint</dt><dd>({@link project/0}) the checksums of every module a
%%%       run can reach outside OTP's own: each `.beam' file in the code path's
%%%       directories outside OTP's root (a rebar3 or Mix project's code and its
%%%       dependencies), each module loaded from elsewhere (the suite files, compiled from
%%%       source), and each native library (`.so', `.dll', `.dylib') in those
%%%       applications' `priv' directories; with the runtime's version (`erts'), the OTP
%%%       release, the architecture, the emulator flavour and erlperf's version (for its
%%%       own modules, `erlperf' and `erlperf_*', whichever a run loads). A module's
%%%       checksum is its code's (`beam_lib:md5/1'), not its compile information, so a
%%%       rebuild of the same source elsewhere has the same one.</dd>
%%%   <dt>benchmark fingerprint</dt><dd>({@link benchmark/2}) the project's with the
%%%       benchmark's code map (its source text, `{M, F, A}' calls and funs, a fun by its
%%%       module, name or index and checksum, and its captured values; processes, ports
%%%       and references in it count as alike).</dd>
%%% </dl>
%%% Not seen: code reached through a path added at run time, files or tables the code
%%% reads, and OTP's own modules beyond its release and runtime version.
%%%
%%% ```
%%% P = erlperf_fingerprint:project(),
%%% <<_:32/binary>> = erlperf_fingerprint:benchmark(P, #{runner => "lists:seq(1, 10)."}).
%%% '''
%%% Cost: one read of each `.beam' file and native library in the project's code path
%%% (tens of milliseconds for a few hundred modules), once a suite run.
-module(erlperf_fingerprint).

%% API
-export([project/0, project/1, benchmark/2]).

-export_type([project/0]).

-opaque project() :: binary().

%% Native libraries, by extension.
-define(NATIVE, "**/*.{so,dll,dylib}").

%%--------------------------------------------------------------------
%% API

%% @doc The project fingerprint of this node's code path and loaded modules.
-spec project() -> project().
project() ->
    project(erlperf_system:version()).

%% @doc The same, with erlperf's version given (a node of a version under `--against'
%% runs erlperf's modules shipped from the node that started it).
-spec project(string()) -> project().
project(Harness) ->
    Root = code:root_dir(),
    Dirs = [D || D <- code:get_path(), outside_otp(Root, D), D =/= "."],
    FromPath = lists:append([beams(D) || D <- Dirs]),
    InPath = maps:from_list(FromPath),
    Loaded = [{M, erlang:get_module_info(M, md5)}
              || {M, File} <- code:all_loaded(), not is_map_key(M, InPath),
                 not own(M), loaded_outside_otp(Root, File)],
    Native = lists:append([native(D) || D <- lists:usort([filename:dirname(D) || D <- Dirs])]),
    Runtime = [erlang:system_info(K) || K <- [version, otp_release, system_architecture, emu_flavor]],
    erlang:md5(term_to_binary({lists:sort(FromPath ++ Loaded), lists:sort(Native), Runtime, Harness})).

%% @doc The benchmark fingerprint of a code map (or any term holding code) in a project,
%% as 32 hexadecimal digits.
-spec benchmark(project(), term()) -> binary().
benchmark(Project, Code) ->
    Digest = erlang:md5(term_to_binary({Project, normalised(Code)})),
    list_to_binary([io_lib:format("~2.16.0b", [B]) || <<B>> <= Digest]).

%%--------------------------------------------------------------------
%% Internal functions

%% erlperf's own modules (named erlperf or erlperf_*): its version stands for them
%% (which of them a run loads depends on its output options, not on the code measured).
own(Module) ->
    case atom_to_list(Module) of
        "erlperf" -> true;
        "erlperf_" ++ _ -> true;
        _ -> false
    end.

outside_otp(Root, Dir) ->
    not lists:prefix(filename:absname(Root), filename:absname(Dir)).

loaded_outside_otp(Root, File) when is_list(File) -> outside_otp(Root, File);
%% preloaded and cover-compiled modules: OTP's, or not comparable
loaded_outside_otp(_Root, _File) -> false.

%% The modules of a directory's `.beam' files, each with its code's checksum (files
%% that are not valid modules are left out: the code server would not load them either).
beams(Dir) ->
    case file:list_dir(Dir) of
        {ok, Files} ->
            [{M, Md5} || F <- lists:sort(Files), filename:extension(F) =:= ".beam",
                         {ok, {M, Md5}} <- [beam_lib:md5(filename:join(Dir, F))],
                         not own(M)];
        {error, _} ->
            []
    end.

%% The native libraries of an application directory's `priv', each with its checksum.
native(AppDir) ->
    Priv = filename:join(AppDir, "priv"),
    [{F, erlang:md5(Bin)} || F <- filelib:wildcard(?NATIVE, Priv),
                             {ok, Bin} <- [file:read_file(filename:join(Priv, F))]].

%% The code map as a term whose encoding depends only on the code: a fun by what it
%% runs, processes and the like alike.
normalised(F) when is_function(F) ->
    case erlang:fun_info(F, type) of
        {type, external} ->
            {external, erlang:fun_info(F, module), erlang:fun_info(F, name), erlang:fun_info(F, arity)};
        {type, local} ->
            {env, Env} = erlang:fun_info(F, env),
            {local, erlang:fun_info(F, module), erlang:fun_info(F, new_index),
             erlang:fun_info(F, new_uniq), normalised(Env)}
    end;
normalised(T) when is_pid(T); is_port(T); is_reference(T) ->
    elsewhere;
normalised(L) when is_list(L) ->
    normalised_list(L);
normalised(T) when is_tuple(T) ->
    list_to_tuple(normalised_list(tuple_to_list(T)));
normalised(M) when is_map(M) ->
    maps:from_list(normalised_list(maps:to_list(M)));
normalised(T) ->
    T.

%% A list, improper ones too.
normalised_list([H | T]) -> [normalised(H) | normalised_list(T)];
normalised_list([]) -> [];
normalised_list(Tail) -> normalised(Tail).
