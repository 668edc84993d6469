%%% @doc Compiled runner modules kept between runs, so that a run of code compiled before
%%% loads its module without loading or running the compiler (about a third of a bare
%%% VM's start, for a command line that runs for a fraction of a second).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>digest</b>: what the compiled module depends on, hashed
%%%       (`erlperf_codegen:digest/1'): the generated forms, the compiler's options and
%%%       version, the OTP release and emulator, erlperf's code generator. Anything else
%%%       changed is another digest, another entry: an entry never goes stale.</li>
%%%   <li><b>entry</b>: one file, `DIGEST.job' in the cache directory, holding the module's
%%%       object code and the warnings compiling it gave, with the digest and a checksum
%%%       of the code. A file that cannot be read, decoded or checked is a miss (and is
%%%       written again): a corrupt entry costs a compile, never a failed run.</li>
%%% </ul>
%%%
%%% The cache is off unless the application environment's `compile_cache' names a
%%% directory; the command line sets it to {@link default_dir/0}. Entries are written
%%% atomically ({@link erlperf_file}), so that runs at the same time never read half an
%%% entry; a directory that cannot be made or written is no cache. When a store leaves
%%% more than 1,000 entries, the oldest are removed down to 750.
%%%
%%% Example:
%%% ```
%%% ok = erlperf_compile_cache:store("cache", Digest, Bin, []),
%%% {ok, Bin, []} = erlperf_compile_cache:fetch("cache", Digest).
%%% '''
-module(erlperf_compile_cache).

%% API: called by erlperf_job_code, and by the command line to turn it on.
-export([dir/0, default_dir/0, fetch/2, store/4, hex/1]).

-include_lib("kernel/include/file.hrl").

%% The environment variable that names another directory, or `off'.
-define(ENV, "ERLPERF_CACHE").
%% An entry's first element, and its layout's version.
-define(TAG, erlperf_compile_cache).
-define(VERSION, 1).
-define(EXTENSION, ".job").
%% More entries than this after a store: the oldest go, down to ?KEEP.
-define(MAX_ENTRIES, 1000).
-define(KEEP, 750).
-define(HEX_DIGITS, {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $a, $b, $c, $d, $e, $f}).

%%--------------------------------------------------------------------
%% API

%% @doc The cache directory in use: the application environment's `compile_cache', or
%% `off' (the default).
-spec dir() -> file:filename() | off.
dir() ->
    case application:get_env(erlperf, compile_cache) of
        {ok, Dir} when is_list(Dir), Dir =/= [] -> Dir;
        _ -> off
    end.

%% @doc The command line's cache directory: `$ERLPERF_CACHE' when set (`off' or empty:
%% no cache), else the user's cache directory (`filename:basedir(user_cache, "erlperf")':
%% `$XDG_CACHE_HOME/erlperf' or `~/.cache/erlperf' on Linux).
-spec default_dir() -> file:filename() | off.
default_dir() ->
    case os:getenv(?ENV) of
        false -> user_cache();
        "off" -> off;
        "" -> off;
        Dir -> Dir
    end.

%% @doc The object code and warnings kept for a digest, or `miss'. A directory that
%% others may write to (not the user's own, or writable by all) is not read: what it
%% holds would be loaded and run.
-spec fetch(file:filename(), binary()) -> {ok, binary(), [erlperf_codegen:warning()]} | miss.
fetch(Dir, Digest) ->
    case trusted(Dir) andalso file:read_file(entry(Dir, Digest)) of
        {ok, Data} -> decode(Data, Digest);
        _ -> miss
    end.

%% @doc Keeps the object code and warnings for a digest; a failure to write is ignored
%% (the next run compiles again).
-spec store(file:filename(), binary(), binary(), [erlperf_codegen:warning()]) -> ok.
store(Dir, Digest, Bin, Warnings) ->
    Entry = term_to_binary({?TAG, ?VERSION, Digest, erlang:md5(Bin), Bin, Warnings}),
    File = entry(Dir, Digest),
    case filelib:ensure_dir(File) =:= ok andalso erlperf_file:write_atomic(File, Entry) of
        ok -> prune(Dir);
        _ -> ok
    end.

%% @doc A digest in lowercase hexadecimal: its entry's name, and its module's (without
%% `string', whose Unicode tables cost a short run tens of milliseconds to load).
-spec hex(binary()) -> string().
hex(Digest) ->
    [element(N + 1, ?HEX_DIGITS) || <<N:4>> <= Digest].

%%--------------------------------------------------------------------
%% Internal functions

entry(Dir, Digest) ->
    filename:join(Dir, hex(Digest) ++ ?EXTENSION).

%% The user's cache directory; `off' when the system cannot tell it (no HOME).
user_cache() ->
    try filename:basedir(user_cache, "erlperf")
    catch error:_ -> off
    end.

%% Whether the directory is the user's (its owner this process's user, where Linux tells
%% it) and not writable by all.
trusted(Dir) ->
    case file:read_file_info(Dir) of
        {ok, #file_info{type = directory, uid = Owner, mode = Mode}} ->
            Mode band 8#002 =:= 0 andalso
                case file:read_file_info("/proc/self") of
                    {ok, #file_info{uid = Me}} -> Owner =:= Me;
                    {error, _} -> true
                end;
        _ ->
            false
    end.


decode(Data, Digest) ->
    try binary_to_term(Data, [safe]) of
        {?TAG, ?VERSION, Digest, Sum, Bin, Warnings} when is_binary(Bin), is_list(Warnings) ->
            case erlang:md5(Bin) of
                Sum -> {ok, Bin, Warnings};
                _ -> miss
            end;
        _ ->
            miss
    catch
        error:badarg -> miss
    end.

%% The oldest entries removed when there are too many (by modification time: an entry
%% is written once).
prune(Dir) ->
    Entries = [filename:join(Dir, F) || F <- filelib:wildcard("*" ++ ?EXTENSION, Dir)],
    case length(Entries) > ?MAX_ENTRIES of
        true ->
            Aged = lists:sort([{Time, F} || F <- Entries, {ok, Time} <- [mtime(F)]]),
            {Old, _} = lists:split(max(0, length(Aged) - ?KEEP), Aged),
            _ = [file:delete(F) || {_, F} <- Old],
            ok;
        false ->
            ok
    end.

mtime(File) ->
    case file:read_file_info(File, [{time, posix}]) of
        {ok, #file_info{mtime = Time}} -> {ok, Time};
        {error, _} -> error
    end.
