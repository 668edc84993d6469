%%% @doc The results store of a project: every suite run kept as a JSON file, with
%%% where it came from (commit, OTP release, machine), and named baselines.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>store</b>: a directory, `_build/erlperf' by default (`--store DIR'):
%%%       `runs/' holds one file per suite run, `baselines/' one per named baseline.</li>
%%%   <li><b>entry</b>: what a file holds, a JSON object with the keys `store_version'
%%%       (1), `time' (RFC 3339, UTC), `commit' (an object of `sha' and `dirty', or
%%%       `null' outside git), `otp', `erts', `erlperf' (versions), `machine' (`host',
%%%       `arch', `cores', `schedulers'), `suites' (the files run) and `record' (the
%%%       results record, {@link erlperf_record}); read back as a map of binary keys.</li>
%%%   <li><b>run file</b>: `runs/<time>-<OS pid>-<n>.json': names sort by time, and two
%%%       runs at once (two processes, or two runs of one) never pick the same name.
%%%       Every file is written atomically (a temporary file renamed over it), so a
%%%       reader sees a whole entry or none.</li>
%%%   <li><b>baseline</b>: `baselines/NAME.json', an entry saved under a name
%%%       (`--save-baseline NAME'), replaced atomically when saved again.</li>
%%% </ul>
%%%
%%% A file that cannot be read back ({@link erlperf_schema:read/2}: not JSON, not an
%%% entry, a record of the wrong shape, or written by a newer erlperf) is reported and
%%% skipped, never removed or rewritten: `runs/1' returns the readable entries and the
%%% problems.
%%%
%%% Example:
%%% ```
%%% Entry = erlperf_store:entry(Record, ["bench"]),
%%% {ok, _File} = erlperf_store:save_run("_build/erlperf", Entry),
%%% {Entries, []} = erlperf_store:runs("_build/erlperf").
%%% '''
-module(erlperf_store).

%% API: called by the command line (erlperf_suite_cli)
-export([entry/2, save_run/2, runs/1, save_baseline/3, baseline/2, valid_name/1, max_name/0,
         format_error/1, version/0]).

-export_type([entry/0, problem/0]).

-include("model/erlperf_schema.hrl").

-type entry() :: erlperf_schema:entry().
%% A file skipped, and why.
-type problem() :: {store, file:filename(), erlperf_schema:reason()}.

%% How long `git' may take to say which commit the tree is at (milliseconds).
-define(GIT_TIMEOUT_MS, 5000).

%% The longest baseline name: its file (NAME.json) and the file written first beside it
%% (NAME.json.tmp.PID) stay within the 255 bytes a file name may have.
-define(MAX_NAME, 200).

%%--------------------------------------------------------------------
%% API

%% @doc An entry for a suite run's record, with the commit of the current directory's
%% git tree (when `git' is there and the directory is in a repository), the release and
%% the machine.
-spec entry(erlperf_record:results(), [file:filename()]) -> entry().
entry(Record, Suites) ->
    #{?STORE_VERSION => ?STORE_ENTRY_LAYOUT,
      ?TIME => now_text(),
      ?COMMIT => commit(),
      <<"otp">> => list_to_binary(erlang:system_info(otp_release)),
      <<"erts">> => list_to_binary(erlang:system_info(version)),
      <<"erlperf">> => list_to_binary(erlperf_system:version()),
      <<"machine">> => machine(),
      <<"suites">> => [unicode:characters_to_binary(S) || S <- Suites],
      ?RECORD => Record}.

%% @doc Adds a run to the store (its directories are made when missing).
-spec save_run(file:filename(), entry()) -> {ok, file:filename()} | {error, term()}.
save_run(Dir, Entry) ->
    Stamp = [C || C <- binary_to_list(maps:get(?TIME, Entry)), C =/= $:, C =/= $-],
    Name = io_lib:format("~s-~s-~b.json", [Stamp, os:getpid(), erlang:unique_integer([positive])]),
    write(filename:join([Dir, "runs", lists:flatten(Name)]), Entry).

%% @doc The readable runs of the store, oldest first, and the files skipped. A store
%% that does not exist yet has no runs.
-spec runs(file:filename()) -> {[entry()], [problem()]}.
runs(Dir) ->
    Files = lists:sort(filelib:wildcard(filename:join([Dir, "runs", "*.json"]))),
    Read = [{F, read(F)} || F <- Files],
    {[E || {_, {ok, E}} <- Read], [P || {_, {error, P}} <- Read]}.

%% @doc Saves an entry as the baseline `Name' (see {@link valid_name/1}).
-spec save_baseline(file:filename(), string(), entry()) -> {ok, file:filename()} | {error, term()}.
save_baseline(Dir, Name, Entry) ->
    write(baseline_file(Dir, Name), Entry).

%% @doc Reads the baseline `Name'. `{error, {store, File, enoent}}' when there is none.
-spec baseline(file:filename(), string()) -> {ok, entry()} | {error, problem()}.
baseline(Dir, Name) ->
    read(baseline_file(Dir, Name)).

%% @doc A baseline name: letters, digits, `.', `_', `-' (it names a file), not
%% starting with `.', at most ?MAX_NAME characters.
-spec valid_name(string()) -> boolean().
valid_name([First | _] = Name) when First =/= $., length(Name) =< ?MAX_NAME ->
    lists:all(fun (C) -> (C >= $a andalso C =< $z) orelse (C >= $A andalso C =< $Z)
                             orelse (C >= $0 andalso C =< $9) orelse C =:= $. orelse C =:= $_
                             orelse C =:= $- end, Name);
valid_name(_) ->
    false.

%% @doc The longest baseline name {@link valid_name/1} takes.
-spec max_name() -> pos_integer().
max_name() ->
    ?MAX_NAME.

%% @doc One line for an error or a skipped file (its name as erlperf_name writes names).
-spec format_error(term()) -> string().
format_error({store, File, {json, _} = Reason}) ->
    text("~ts is corrupted (~ts): skipped",
         [erlperf_name:text(File), erlperf_schema:format_error(Reason)]);
format_error({store, File, {record, _} = Reason}) ->
    text("~ts holds a broken record (~ts): skipped",
         [erlperf_name:text(File), erlperf_schema:format_error(Reason)]);
format_error({store, File, Reason}) ->
    text("~ts: ~ts: skipped", [erlperf_name:text(File), erlperf_schema:format_error(Reason)]);
format_error({write, _, _} = Reason) ->
    erlperf_output:format_error(Reason).

%% @doc The entry format version this erlperf writes.
-spec version() -> pos_integer().
version() ->
    ?STORE_ENTRY_LAYOUT.

%%--------------------------------------------------------------------
%% Files

baseline_file(Dir, Name) ->
    filename:join([Dir, "baselines", Name ++ ".json"]).

write(File, Entry) ->
    case filelib:ensure_dir(File) of
        ok ->
            case erlperf_file:write_atomic(File, erlperf_json:encode(Entry)) of
                ok -> {ok, File};
                {error, _} = Error -> Error
            end;
        {error, Reason} ->
            {error, {write, File, Reason}}
    end.

read(File) ->
    case erlperf_schema:read(File, store_entry) of
        {ok, Entry} -> {ok, Entry};
        {error, Reason} -> {error, {store, File, Reason}}
    end.

%%--------------------------------------------------------------------
%% Where a run came from

now_text() ->
    list_to_binary(calendar:system_time_to_rfc3339(os:system_time(microsecond),
                                                   [{unit, microsecond}, {offset, "Z"}])).

machine() ->
    {ok, Host} = inet:gethostname(),
    #{<<"host">> => list_to_binary(Host),
      <<"arch">> => list_to_binary(erlang:system_info(system_architecture)),
      <<"cores">> => erlang:system_info(logical_processors_available),
      <<"schedulers">> => erlang:system_info(schedulers_online)}.

%% The commit the current directory's tree is at, and whether it has changes to
%% tracked files; null outside a repository or without git.
commit() ->
    case git(["rev-parse", "HEAD"]) of
        {ok, Sha} when byte_size(Sha) >= 40 ->
            Dirty = case git(["status", "--porcelain", "--untracked-files=no"]) of
                        {ok, <<>>} -> false;
                        _ -> true
                    end,
            #{<<"sha">> => binary:part(Sha, 0, 40), <<"dirty">> => Dirty};
        _ ->
            null
    end.

git(Args) ->
    case os:find_executable("git") of
        false ->
            error;
        Git ->
            Port = open_port({spawn_executable, Git},
                             [{args, Args}, binary, exit_status, stderr_to_stdout, hide]),
            collect(Port, [])
    end.

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Data | Acc]);
        {Port, {exit_status, 0}} -> {ok, string:trim(iolist_to_binary(lists:reverse(Acc)))};
        {Port, {exit_status, _}} -> error
    after ?GIT_TIMEOUT_MS ->
        close(Port),
        error
    end.

%% Closes a port that may have closed itself meanwhile.
close(Port) ->
    try port_close(Port) catch error:badarg -> ok end.

text(Format, Args) ->
    lists:flatten(io_lib:format(Format, Args)).
