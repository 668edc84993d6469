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
-export([render/2, kind/1, format_error/1]).

-type kind() :: benchmark | perf_test.

%%--------------------------------------------------------------------
%% API

%% @doc Renders a record (a decoded map, or a JSON file holding one) into `Out': for a
%% benchmark record, a file (`Out' ending in `.html') or a directory (the page is
%% `report.html' there); for a performance test, a directory (`index.html' and the
%% pages it links to). Files are written atomically; returns them, the main page first.
-spec render(map() | file:filename(), file:filename()) ->
    {ok, [file:filename()]} | {error, term()}.
render(Record, Out) when is_map(Record) ->
    case checked(Record) of
        {ok, Kind} -> write(Kind, Record, unicode:characters_to_list(Out));
        {error, Reason} -> {error, {render, Reason}}
    end;
render(File, Out) ->
    case read(File) of
        {ok, Record} ->
            case checked(Record) of
                {ok, Kind} -> write(Kind, Record, unicode:characters_to_list(Out));
                {error, Reason} -> {error, {render, unicode:characters_to_list(File), Reason}}
            end;
        {error, _} = Error ->
            Error
    end.

%% @doc What a decoded record is.
-spec kind(map()) -> {ok, kind()} | {error, {render, not_a_record}}.
kind(#{<<"load_generator">> := _}) -> {ok, perf_test};
kind(#{<<"runs">> := _}) -> {ok, benchmark};
kind(#{<<"version">> := _}) -> {ok, benchmark};
kind(_) -> {error, {render, not_a_record}}.

%% @doc Text for the reasons this module returns.
-spec format_error(term()) -> string().
format_error({render, not_a_record}) ->
    "not an erlperf results record (a --save/--format json record or a --perf-test results.json)";
format_error({render, {record, Reason}}) ->
    erlperf_record_check:format_error(Reason);
format_error({render, File, not_a_record}) ->
    lists:flatten(io_lib:format("~ts: ~ts", [File, format_error({render, not_a_record})]));
format_error({render, File, {record, Reason}}) ->
    lists:flatten(io_lib:format("~ts: ~ts", [File, erlperf_record_check:format_error(Reason)]));
format_error({render, File, {json, _} = Reason}) ->
    lists:flatten(io_lib:format("~ts: ~ts", [File, erlperf_json:format_error(Reason)]));
format_error({render, File, Reason}) ->
    lists:flatten(io_lib:format("~ts: ~ts", [File, file:format_error(Reason)]));
format_error({write, _, _} = Reason) ->
    erlperf_output:format_error(Reason).

%%--------------------------------------------------------------------
%% Internal functions

%% The kind of a record whose fields are what its pages read.
-spec checked(map()) -> {ok, kind()} | {error, not_a_record | {record, erlperf_record_check:reason()}}.
checked(Record) ->
    case kind(Record) of
        {ok, Kind} ->
            case erlperf_record_check:check(Kind, Record) of
                ok -> {ok, Kind};
                {error, Reason} -> {error, {record, Reason}}
            end;
        {error, {render, not_a_record}} ->
            {error, not_a_record}
    end.

-spec read(file:filename()) -> {ok, map()} | {error, term()}.
read(File) ->
    Name = unicode:characters_to_list(File),
    case file:read_file(Name) of
        {ok, Bytes} ->
            case erlperf_json:decode(Bytes) of
                {ok, Record} when is_map(Record) -> {ok, Record};
                {ok, _} -> {error, {render, Name, not_a_record}};
                {error, Reason} -> {error, {render, Name, Reason}}
            end;
        {error, Reason} ->
            {error, {render, Name, Reason}}
    end.

-spec write(kind(), map(), string()) -> {ok, [file:filename()]} | {error, term()}.
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
            case [E || {F, Page} <- Pages, E <- [erlperf_output:write_atomic(F, Page)], E =/= ok] of
                [] -> {ok, [F || {F, _} <- Pages]};
                [Error | _] -> Error
            end;
        {error, Reason} ->
            {error, {write, First, Reason}}
    end.
