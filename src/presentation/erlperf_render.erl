%%% @doc Renders results records as self-contained HTML reports: a micro-benchmark record
%%% (`--save', `--format json', see `doc/formats.md') as one page
%%% ({@link erlperf_html_bench}), a performance test's `results.json' (see
%%% `doc/perf-testing.md') as a front page with a page per function and per process
%%% ({@link erlperf_html_perf}). Pages hold their charts as inline SVG and load nothing:
%%% they open from disk, print, and follow the reader's light or dark scheme.
%%%
%%% Example:
%%% ```
%%% {ok, ["perf/index.html" | _]} = erlperf_render:render("perf/results.json", "perf"),
%%% {ok, ["bench.html"]} = erlperf_render:render("bench.json", "bench.html").
%%% '''
-module(erlperf_render).

%% API: called by the command line (--render, --html) and erlperf_output.
-export([render/2, format_error/1]).

%%--------------------------------------------------------------------
%% API

%% @doc Renders a record (a decoded map, or a JSON file holding one) into `Out': for a
%% benchmark record, a file (`Out' ending in `.html') or a directory (the page is
%% `report.html' there); for a performance test, a directory (`index.html' and the
%% pages it links to). Files are written atomically; returns them, the main page first.
%% A file is read with {@link erlperf_schema:read/2}, a map checked with
%% {@link erlperf_schema:check/2}: either is a record or a performance test's results.
-spec render(map() | file:filename(), file:filename()) ->
    {ok, [file:filename()]} | {error, term()}.
render(Record, Out) when is_map(Record) ->
    case erlperf_schema:check(any, Record) of
        ok -> write(Record, unicode:characters_to_list(Out));
        {error, Reason} -> {error, {render, Reason}}
    end;
render(File, Out) ->
    Name = unicode:characters_to_list(File),
    case erlperf_schema:read(Name, any) of
        {ok, Record} -> write(Record, unicode:characters_to_list(Out));
        {error, Reason} -> {error, {render, Name, Reason}}
    end.

%% @doc Text for the reasons this module returns.
-spec format_error({render, erlperf_schema:reason()} | {render, string(), erlperf_schema:reason()}
                   | {write, file:filename(), term()}) -> string().
format_error({render, Reason}) ->
    erlperf_schema:format_error(Reason);
format_error({render, File, Reason}) ->
    lists:flatten(io_lib:format("~ts: ~ts", [File, erlperf_schema:format_error(Reason)]));
format_error({write, _, _} = Reason) ->
    erlperf_output:format_error(Reason).

%%--------------------------------------------------------------------
%% Internal functions

%% A checked record's pages, by its kind.
-spec write(erlperf_schema:benchmark_record() | erlperf_schema:perf_results(), string()) ->
    {ok, [file:filename()]} | {error, term()}.
write(Record, Out) ->
    {ok, Kind} = erlperf_schema:kind(Record),
    write(Kind, Record, Out).

-spec write(benchmark | perf_test, map(), string()) -> {ok, [file:filename()]} | {error, term()}.
write(benchmark, Record, Out) ->
    File = case string:lowercase(filename:extension(Out)) of
               ".html" -> Out;
               _ -> filename:join(Out, "report.html")
           end,
    write_all([{File, erlperf_html_bench:render(Record)}]);
write(perf_test, Record, Out) ->
    write_all([{filename:join(Out, Name), Page} || {Name, Page} <- erlperf_html_perf:render(Record)]).

-spec write_all([{file:filename(), iodata()}]) -> {ok, [file:filename()]} | {error, term()}.
write_all([{First, _} | _] = Pages) ->
    case filelib:ensure_dir(First) of
        ok ->
            case [E || {F, Page} <- Pages, E <- [erlperf_file:write_atomic(F, Page)], E =/= ok] of
                [] -> {ok, [F || {F, _} <- Pages]};
                [Error | _] -> Error
            end;
        {error, Reason} ->
            {error, {write, First, Reason}}
    end.
