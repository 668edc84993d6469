%%% @doc Results in every output format, to standard output or to files, each drawn
%%% from one results record ({@link erlperf_record}): text tables
%%% ({@link erlperf_report}), JSON (the complete record, {@link erlperf_record}), CSV
%%% ({@link erlperf_csv}), Markdown ({@link erlperf_markdown}), an HTML page with
%%% charts ({@link erlperf_html_bench}), Benchee's layout ({@link erlperf_benchee}) and
%%% the formats of benchmark history services ({@link erlperf_trackers}).
%%%
%%% Files are written atomically ({@link erlperf_file}): a reader never sees half a file,
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
-export([format/3, render/3, write/3, write/4, write_record/4,
         format_from_extension/1, format_error/1]).
%% API: the names of the formats and the extensions, for the command line's options,
%% help and errors.
-export([formats/0, extensions/0]).

-export_type([format/0]).

-type format() :: text | json | csv | markdown | html | benchee | 'github-action-benchmark' | bencher.

%% Every format, as `--format' names it.
-define(FORMATS, [text, json, csv, markdown, html, benchee, 'github-action-benchmark', bencher]).
%% A file's extension (in any case) and the format it asks for.
-define(EXTENSIONS, [{".json", json}, {".csv", csv}, {".md", markdown}, {".markdown", markdown},
                     {".txt", text}, {".html", html}, {".htm", html}]).

%%--------------------------------------------------------------------
%% API

%% @doc Full reports in a format: their record (see {@link render/3}).
%% `Options' are the text table's (see {@link erlperf_report:options()}) and
%% `baselines': the rows of {@link erlperf_baseline:compare/3}, printed under the table
%% and added to the record; Benchee's layout also takes {@link erlperf_benchee:options()}.
-spec format(format(), [erlperf:report(), ...], map()) -> unicode:chardata().
format(Format, Reports, Options) ->
    Record = erlperf_record:from_reports(Reports),
    render(Format, erlperf_record:with_baselines(Record, maps:get(baselines, Options, [])), Options).

%% @doc A results record in a format; `Options' as {@link format/3}'s (the record
%% holds the baselines' comparisons already).
-spec render(format(), erlperf_record:results(), map()) -> unicode:chardata().
render(text, Record, Options) ->
    [erlperf_report:render(Record, maps:without([baselines], Options)),
     baseline_lines(maps:get(baselines, Options, []))];
render(json, Record, _Options) ->
    [erlperf_json:encode(Record, #{pretty => true}), $\n];
render(csv, Record, _Options) ->
    erlperf_csv:format(Record);
render(markdown, Record, _Options) ->
    erlperf_markdown:format(Record);
render(html, Record, _Options) ->
    erlperf_html_bench:render(Record);
render('github-action-benchmark', Record, _Options) ->
    erlperf_trackers:github_action_benchmark(Record);
render(bencher, Record, _Options) ->
    erlperf_trackers:bencher(Record);
render(benchee, Record, Options) ->
    [erlperf_benchee:format(Record, maps:with([system, percentiles], Options)),
     baseline_lines(maps:get(baselines, Options, []))].

%% @doc Writes full reports to `File' in a format, atomically.
-spec write(file:name_all(), format(), [erlperf:report(), ...]) -> ok | {error, {write, string(), term()}}.
write(File, Format, Reports) ->
    write(File, Format, Reports, #{}).

%% @doc {@link write/3} with `baselines' (see {@link format/3}).
-spec write(file:name_all(), format(), [erlperf:report(), ...], map()) ->
    ok | {error, {write, string(), term()}}.
write(File, Format, Reports, Options) ->
    Record = erlperf_record:from_reports(Reports),
    write_record(File, Format, erlperf_record:with_baselines(Record, maps:get(baselines, Options, [])),
                 Options).

%% @doc Writes a results record to `File' in a format, atomically; `Options' as
%% {@link render/3}'s.
-spec write_record(file:name_all(), format(), erlperf_record:results(), map()) ->
    ok | {error, {write, string(), term()}}.
write_record(File, Format, Record, Options) ->
    erlperf_file:write_atomic(File, unicode:characters_to_binary(render(Format, Record, Options#{colour => false}))).

%% The lines under a table: none without baselines (and erlperf_baseline, 30 KB, is not
%% loaded for nothing: a one-shot command line pays for every module it loads).
-spec baseline_lines([erlperf_baseline:row()]) -> unicode:chardata().
baseline_lines([]) -> [];
baseline_lines(Rows) -> erlperf_baseline:format(Rows).

%% @doc The format a file name's extension asks for.
-spec format_from_extension(file:filename()) -> {ok, format()} | error.
format_from_extension(File) ->
    case lists:keyfind(string:lowercase(filename:extension(File)), 1, ?EXTENSIONS) of
        {_, Format} -> {ok, Format};
        false -> error
    end.

%% @doc Every format, in the order help and errors list them.
-spec formats() -> [format(), ...].
formats() ->
    ?FORMATS.

%% @doc Every file extension a format is known by, with its format.
-spec extensions() -> [{string(), format()}, ...].
extensions() ->
    ?EXTENSIONS.

%% @doc One line for a write error.
-spec format_error({write, string(), term()}) -> string().
format_error({write, File, Reason}) ->
    lists:flatten(io_lib:format("cannot write ~ts: ~ts", [File, file:format_error(Reason)])).
