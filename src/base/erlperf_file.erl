%%% @doc Files written whole or not at all. A file is written to `FILE.tmp.OSPID' first,
%%% then renamed over `FILE', so that a reader (or a CI job comparing against a baseline)
%%% never sees half a file, and an interrupted run leaves the previous file as it was. A
%%% symbolic link is followed (the file it points to is replaced, the link stays), as
%%% `cp' and most editors do.
%%%
%%% Example:
%%% ```
%%% ok = erlperf_file:write_atomic("results.json", <<"{}">>).
%%% '''
-module(erlperf_file).

%% API: called by every module that writes a file.
-export([write_atomic/2]).

%% Links followed before a name is taken to loop.
-define(MAX_LINKS, 40).

%%--------------------------------------------------------------------
%% API

%% @doc Writes `Bytes' to `File' atomically: to `FILE.tmp.OSPID' first, then renamed
%% over `File'; the temporary file is removed when the rename fails. `File' may be a
%% string or a binary (as Elixir passes it). A symbolic link is followed: the file it
%% points to is replaced and the link is kept (the temporary file is made beside the
%% link's target).
-spec write_atomic(file:name_all(), iodata()) -> ok | {error, {write, string(), term()}}.
write_atomic(File, Bytes) ->
    Name = name(File),
    case Name =:= "" orelse target(Name, ?MAX_LINKS) of
        true -> {error, {write, Name, enoent}};
        {ok, Target} -> replace(Name, Target, Bytes);
        {error, Reason} -> {error, {write, Name, Reason}}
    end.

%%--------------------------------------------------------------------
%% Internal functions

%% A file name as a flat string: binaries are UTF-8 (or, when not, raw bytes).
-spec name(file:name_all()) -> string().
name(File) when is_binary(File) ->
    case unicode:characters_to_list(File) of
        Name when is_list(Name) -> Name;
        _ -> binary_to_list(File)
    end;
name(File) ->
    filename:flatten(File).

%% The file a name stands for: itself, or what its chain of links ends at.
-spec target(string(), non_neg_integer()) -> {ok, string()} | {error, eloop}.
target(_Name, 0) ->
    {error, eloop};
target(Name, Links) ->
    case file:read_link(Name) of
        {ok, Link} -> target(filename:join(filename:dirname(Name), Link), Links - 1);
        {error, _NotALink} -> {ok, Name}
    end.

-spec replace(string(), string(), iodata()) -> ok | {error, {write, string(), term()}}.
replace(Name, Target, Bytes) ->
    %% unique to this VM (its pid) and to this write in it
    Tmp = Target ++ ".tmp." ++ os:getpid() ++ "." ++ integer_to_list(erlang:unique_integer([positive])),
    case file:write_file(Tmp, Bytes) of
        ok ->
            case file:rename(Tmp, Target) of
                ok -> ok;
                {error, Reason} -> _ = file:delete(Tmp), {error, {write, Name, Reason}}
            end;
        {error, Reason} ->
            _ = file:delete(Tmp),
            {error, {write, Name, Reason}}
    end.
