%%% @doc Results in every output format, to standard output or to files: text tables
%%% ({@link erlperf_report}), JSON (the complete record, {@link erlperf_record}), CSV
%%% ({@link erlperf_csv}) and Markdown ({@link erlperf_markdown}).
%%%
%%% Files are written atomically: to `FILE.tmp.OSPID' first, then renamed over `FILE',
%%% so that a reader (or a CI job comparing against a baseline) never sees half a file,
%%% and an interrupted run leaves the previous file as it was.
%%%
%%% Example:
%%% ```
%%% Reports = erlperf:compare(["rand:uniform().", "rand:uniform(1000)."], #{report => full}),
%%% ok = erlperf_output:write("results.json", json, Reports),
%%% io:put_chars(erlperf_output:format(markdown, Reports, #{})).
%%% '''
-module(erlperf_output).

%% API: called by the command line.
-export([format/3, write/3, format_from_extension/1, format_error/1]).

-export_type([format/0]).

-type format() :: text | json | csv | markdown.

%%--------------------------------------------------------------------
%% API

%% @doc Full reports in a format; `Options' are the text table's (see
%% {@link erlperf_report:options()}).
-spec format(format(), [erlperf:report(), ...], erlperf_report:options()) -> unicode:chardata().
format(text, Reports, Options) ->
    erlperf_report:format(Reports, Options);
format(json, Reports, _Options) ->
    [erlperf_json:encode(erlperf_record:from_reports(Reports), #{pretty => true}), $\n];
format(csv, Reports, _Options) ->
    erlperf_csv:format(erlperf_record:from_reports(Reports));
format(markdown, Reports, _Options) ->
    erlperf_markdown:format(erlperf_record:from_reports(Reports)).

%% @doc Writes full reports to `File' in a format, atomically.
-spec write(file:filename(), format(), [erlperf:report(), ...]) -> ok | {error, {write, string(), term()}}.
write(File, Format, Reports) ->
    Text = unicode:characters_to_binary(format(Format, Reports, #{colour => false})),
    Tmp = lists:flatten([File, ".tmp.", os:getpid()]),
    case file:write_file(Tmp, Text) of
        ok ->
            case file:rename(Tmp, File) of
                ok -> ok;
                {error, Reason} -> _ = file:delete(Tmp), {error, {write, File, Reason}}
            end;
        {error, Reason} ->
            {error, {write, File, Reason}}
    end.

%% @doc The format a file name's extension asks for.
-spec format_from_extension(file:filename()) -> {ok, format()} | error.
format_from_extension(File) ->
    case string:lowercase(filename:extension(File)) of
        ".json" -> {ok, json};
        ".csv" -> {ok, csv};
        ".md" -> {ok, markdown};
        ".markdown" -> {ok, markdown};
        ".txt" -> {ok, text};
        _ -> error
    end.

%% @doc One line for a write error.
-spec format_error({write, string(), term()}) -> string().
format_error({write, File, Reason}) ->
    lists:flatten(io_lib:format("cannot write ~ts: ~ts", [File, file:format_error(Reason)])).
