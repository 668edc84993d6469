%%% @doc Parameter sweeps: the same benchmark run once per combination of parameter
%%% values, each value bound to a variable of the source text.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>parameter</b>: a variable of source text (`N') and the values it takes
%%%       (`[10, 100, 1000]'), any literal terms. It is bound in every source-text role
%%%       (runner, init, init_runner, done) that mentions it (see the code map's
%%%       `bindings' in {@link erlperf_codegen}); funs and `{M, F, A}' cannot take one.</li>
%%%   <li><b>combination</b>: one value of each parameter, `[{'N', 10}, {'P', 2}]'. The
%%%       combinations are the cartesian product, the first parameter changing slowest,
%%%       as nested loops in the order the parameters are given.</li>
%%%   <li><b>bytes</b>: bytes processed per iteration: an Erlang expression of the
%%%       parameters (`"N * 8"'), or a number. With it every run gets bytes per second
%%%       (iterations per second times bytes per iteration).</li>
%%%   <li><b>best</b>: the run with the highest throughput, or the highest bytes per
%%%       second when `bytes' is given; ties go to the first.</li>
%%% </ul>
%%%
%%% The runners of one combination run together, as one call of
%%% {@link erlperf:benchmark/3} would run them, and are compared with each other (a
%%% `comparison' against the fastest of that combination); combinations run one after
%%% another and are never compared with each other: `best' ranks them. A runner that
%%% uses no parameter (a fun, an `{M, F, A}', or text without the variables) runs
%%% unchanged in every combination, a reference for the others. Every parameter must be
%%% used by some source text.
%%%
%%% Reports get `params' (the combination), `qps' (iterations per second, all
%%% workers), `best', and with `bytes' also `bytes_processed' (per iteration) and
%%% `bytes_per_second'; their `run_options' hold the sweep's `params' (and `bytes').
%%%
%%% Example:
%%% ```
%%% [#{params := [{'N', 10}], qps := _, bytes_processed := 80, bytes_per_second := _},
%%%  #{params := [{'N', 1000}], bytes_processed := 8000, best := _}] =
%%%     erlperf:sweep(["lists:seq(1, N)."], #{params => [{'N', [10, 1000]}], bytes => "N * 8"}).
%%% '''
%%% Cost: each combination is a whole benchmark (`warmup' plus `samples' times
%%% `sample_duration', for every runner unless they run in parallel), so a sweep takes
%%% as many times longer as there are combinations; more than `?MAX_COMBINATIONS'
%%% combinations are refused before anything runs. Everything that can be checked
%%% (the parameters, every bound code map, the bytes of every combination) is checked
%%% before the first combination starts.
-module(erlperf_sweep).

%% API: called by erlperf:sweep/3.
-export([options/1, run/3, format_error/1]).

%% Internal exports: the command line (parsing, -v) and the output formats.
-export([parse_param/1, parse_bytes/1, combinations/1, bound_codes/2, check_combinations/1]).

-export_type([params/0, combination/0, bytes/0, sweep/0]).

%% Parameters in the order given, each with its values.
-type params() :: [{atom(), [term(), ...]}].
-type combination() :: [{atom(), term()}].
-type bytes() :: string() | binary() | number().
-type sweep() :: #{params := params(), bytes := bytes() | undefined}.
-type measure() :: fun(([erlperf_job:code_map(), ...]) -> [erlperf:report()]).

%% More combinations than this are refused: each one is a whole benchmark.
-define(MAX_COMBINATIONS, 10000).
%% Depth of terms printed in error text.
-define(FORMAT_DEPTH, 10).

%%--------------------------------------------------------------------
%% API

%% @doc Splits complete options (sweep defaults filled in) into the sweep's and the run
%% options. Raises `{invalid_option, params | bytes | report, Bad}': parameters that
%% are not `[{Name, Values}]' or `#{Name => Values}' (variable names, non-empty lists
%% of distinct literal terms; a map's parameters are taken in the order of their
%% names), bytes that are not an expression or a non-negative number, a `report' other
%% than `full' (a sweep always returns full reports).
-spec options(map()) -> {sweep(), map()}.
options(#{params := Params, bytes := Bytes} = Options) ->
    case Options of
        #{report := Report} when Report =/= full -> erlang:error({invalid_option, report, Report});
        #{} -> ok
    end,
    Valid = params(Params),
    ok = check_bytes(Bytes),
    ok = check_count(Valid),
    {#{params => Valid, bytes => Bytes}, maps:without([params, bytes], Options)}.

%% @doc Runs every combination with `Measure' (which runs bound code maps together and
%% returns their full reports, in order) and returns all the reports, combination by
%% combination, each annotated (see the module's documentation). Raises
%% `{sweep, Reason}' for a parameter used nowhere or bytes that cannot be computed, and
%% `{bad_code, Role, Detail}' for a parameter in a function head; both before running.
-spec run([erlperf_job:code_map(), ...], sweep(), measure()) -> [erlperf:report()].
run(CodeMaps, #{params := Params} = Sweep, Measure) ->
    ok = check_used(Params, CodeMaps),
    Plans = [plan(CodeMaps, Combination, Sweep) || Combination <- combinations(Params)],
    mark_best(lists:append([[annotate(R, Combination, Bytes, Sweep) || R <- Measure(Bound)]
                            || {Combination, Bound, Bytes} <- Plans])).

%% @doc Renders a `{sweep, Reason}' error as one line.
-spec format_error({sweep, term()}) -> string().
format_error({sweep, {unused, Name}}) ->
    flat("parameter ~ts is not used: no source text (runner, init, init_runner or done) has "
         "the variable ~ts; funs and {M, F, A} cannot take parameters", [Name, Name]);
format_error({sweep, {too_many_combinations, Count}}) ->
    flat("~b combinations of parameter values: at most ~b (each is a whole benchmark)",
         [Count, ?MAX_COMBINATIONS]);
format_error({sweep, {bytes, Expr, Combination, {value, Value}}}) ->
    flat("bytes expression ~ts gave ~0tP~ts, not a non-negative number",
         [text(Expr), Value, ?FORMAT_DEPTH, with(Combination)]);
format_error({sweep, {bytes, Expr, Combination, {Class, Reason}}}) ->
    flat("bytes expression ~ts failed~ts: ~ts:~0tP",
         [text(Expr), with(Combination), Class, Reason, ?FORMAT_DEPTH]).

%%--------------------------------------------------------------------
%% Internal exports

%% @doc Reads `NAME=V1,V2,...': a variable name, then Erlang terms separated by commas
%% outside brackets and quotes (`N=[1,2],[3]' is two lists, `S="a,b",c' a string and an
%% atom).
-spec parse_param(string()) -> {ok, {atom(), [term(), ...]}} | {error, string()}.
parse_param(Text) ->
    case lists:splitwith(fun (C) -> C =/= $= end, Text) of
        {NameText, "=" ++ Values} ->
            case variable(NameText) of
                {ok, Name} -> param_values(Name, Values);
                error -> {error, flat("'~ts' is not a variable name (a capital letter first: N, Size)",
                                      [NameText])}
            end;
        _ ->
            {error, flat("'~ts' is not NAME=V1,V2,...", [Text])}
    end.

%% @doc Parses a bytes expression (the final `.' may be left out).
-spec parse_bytes(string() | binary()) -> {ok, [erl_parse:abstract_expr()]} | {error, string()}.
parse_bytes(Text) ->
    case erl_scan:string(unicode:characters_to_list(Text)) of
        {ok, [], _} ->
            {error, "empty expression"};
        {ok, Tokens, End} ->
            Dotted = case lists:last(Tokens) of
                         {dot, _} -> Tokens;
                         _ -> Tokens ++ [{dot, End}]
                     end,
            case erl_parse:parse_exprs(Dotted) of
                {ok, Exprs} -> {ok, Exprs};
                {error, {_, Mod, Desc}} -> {error, flat("~ts", [Mod:format_error(Desc)])}
            end;
        {error, {_, Mod, Desc}, _} ->
            {error, flat("~ts", [Mod:format_error(Desc)])}
    end.

%% @doc Every combination of values, the first parameter changing slowest; `[[]]' (one
%% combination, no parameters) for none.
-spec combinations(params()) -> [combination()].
combinations([]) ->
    [[]];
combinations([{Name, Values} | Rest]) ->
    Tails = combinations(Rest),
    [[{Name, V} | Tail] || V <- Values, Tail <- Tails].

%% @doc The code maps of every combination, with the values bound.
-spec bound_codes([erlperf_job:code_map()], params()) -> [erlperf_job:code_map()].
bound_codes(CodeMaps, Params) ->
    [bind(C, Combination) || Combination <- combinations(Params), C <- CodeMaps].

%%--------------------------------------------------------------------
%% Options

params(Map) when is_map(Map) ->
    params(lists:sort(maps:to_list(Map)));
params(List) when is_list(List) ->
    lists:foreach(fun check_param/1, List),
    Names = [N || {N, _} <- List],
    case Names -- lists:uniq(Names) of
        [] -> List;
        [Twice | _] -> erlang:error({invalid_option, params, lists:keyfind(Twice, 1, List)})
    end;
params(Other) ->
    erlang:error({invalid_option, params, Other}).

check_param({Name, [_ | _] = Values} = Param) ->
    Valid = try
                erlperf_codegen:is_variable(Name) andalso lists:all(fun erlperf_codegen:is_literal/1, Values)
                    andalso lists:uniq(Values) =:= Values
            catch
                error:_ -> false    % an improper list
            end,
    Valid orelse erlang:error({invalid_option, params, Param}),
    ok;
check_param(Param) ->
    erlang:error({invalid_option, params, Param}).

check_bytes(undefined) ->
    ok;
check_bytes(N) when is_number(N), N >= 0 ->
    ok;
check_bytes(Text) when is_binary(Text); is_list(Text) ->
    case (try parse_bytes(Text) catch error:_ -> {error, not_text} end) of
        {ok, _} -> ok;
        {error, _} -> erlang:error({invalid_option, bytes, Text})
    end;
check_bytes(Other) ->
    erlang:error({invalid_option, bytes, Other}).

check_count(Params) ->
    case check_combinations(Params) of
        ok -> ok;
        {error, Reason} -> erlang:error(Reason)
    end.

%% @doc Whether parameters give at most ?MAX_COMBINATIONS combinations (counted, never
%% listed): the command line checks each `--param' as it reads it.
-spec check_combinations(params()) -> ok | {error, {sweep, {too_many_combinations, pos_integer()}}}.
check_combinations(Params) ->
    case lists:foldl(fun ({_, Values}, Acc) -> Acc * length(Values) end, 1, Params) of
        Count when Count =< ?MAX_COMBINATIONS -> ok;
        Count -> {error, {sweep, {too_many_combinations, Count}}}
    end.

%%--------------------------------------------------------------------
%% Running

check_used(Params, CodeMaps) ->
    Used = lists:append([erlperf_codegen:variables(C) || C <- CodeMaps]),
    case [Name || {Name, _} <- Params, not lists:member(Name, Used)] of
        [] -> ok;
        [Unused | _] -> erlang:error({sweep, {unused, Unused}})
    end.

%% A combination's code maps, checked, and its bytes per iteration.
plan(CodeMaps, Combination, Sweep) ->
    Bound = [bind(C, Combination) || C <- CodeMaps],
    _ = [case erlperf_codegen:check(C) of ok -> ok; {error, Reason} -> erlang:error(Reason) end
         || C <- Bound],
    {Combination, Bound, bytes(Sweep, Combination)}.

bind(Code, []) ->
    Code;
bind(Code, Combination) ->
    Code#{bindings => maps:merge(maps:get(bindings, Code, #{}), maps:from_list(Combination))}.

bytes(#{bytes := undefined}, _Combination) ->
    undefined;
bytes(#{bytes := N}, _Combination) when is_number(N) ->
    N;
bytes(#{bytes := Expr}, Combination) ->
    {ok, Exprs} = parse_bytes(Expr),
    Bindings = lists:foldl(fun ({N, V}, B) -> erl_eval:add_binding(N, V, B) end,
                           erl_eval:new_bindings(), Combination),
    Result = try erl_eval:exprs(Exprs, Bindings) of
                 {value, Value, _} -> {value, Value}
             catch
                 Class:Reason -> {Class, Reason}
             end,
    case Result of
        {value, Bytes} when is_number(Bytes), Bytes >= 0 -> Bytes;
        Failed -> erlang:error({sweep, {bytes, Expr, Combination, Failed}})
    end.

annotate(#{run_options := RunOptions} = Report, Combination, Bytes, #{params := Params} = Sweep) ->
    Options = case Sweep of
                  #{bytes := undefined} -> RunOptions#{params => Params};
                  #{bytes := Expr} -> RunOptions#{params => Params, bytes => Expr}
              end,
    #{result := #{qps := Qps}} = Report,
    Annotated = Report#{params => Combination, run_options => Options, qps => Qps},
    case Bytes of
        undefined -> Annotated;
        _ -> Annotated#{bytes_processed => Bytes, bytes_per_second => Bytes * Qps}
    end.

%% The first report of the highest score is the best.
mark_best(Reports) ->
    Best = lists:max([score(R) || R <- Reports]),
    {Marked, _Found} = lists:mapfoldl(fun (R, Found) ->
                                              IsBest = not Found andalso score(R) == Best,
                                              {R#{best => IsBest}, Found orelse IsBest}
                                      end, false, Reports),
    Marked.

score(#{bytes_per_second := BytesPerSecond}) -> BytesPerSecond;
score(#{qps := Qps}) -> Qps.

%%--------------------------------------------------------------------
%% Parsing parameters

variable(Text) ->
    case erl_scan:string(Text) of
        {ok, [{var, _, Name}], _} when Name =/= '_' -> {ok, Name};
        _ -> error
    end.

param_values(Name, Text) ->
    case erl_scan:string(Text, {1, 1}, [text, return_white_spaces]) of
        {ok, Tokens, _} ->
            case [T || T <- Tokens, not is_white(T)] of
                [] -> {error, flat("~ts has no values (~ts=V1,V2,...)", [Name, Name])};
                _ -> terms(Name, Text, split_values(Tokens, 0, [], []), [])
            end;
        {error, {_, Mod, Desc}, _} ->
            {error, flat("~ts: '~ts': ~ts", [Name, Text, Mod:format_error(Desc)])}
    end.

terms(Name, _Text, [], Acc) ->
    Values = lists:reverse(Acc),
    case Values -- lists:uniq(Values) of
        [] -> {ok, {Name, Values}};
        [Twice | _] -> {error, flat("~ts: value ~ts is given twice", [Name, erlperf_units:value(Twice)])}
    end;
terms(Name, Text, [Group | Rest], Acc) ->
    case [T || T <- Group, not is_white(T)] of
        [] ->
            {error, flat("~ts: empty value in '~ts' (values are separated by commas)", [Name, Text])};
        Tokens ->
            case erl_parse:parse_term(Tokens ++ [{dot, {1, 1}}]) of
                {ok, Term} ->
                    terms(Name, Text, Rest, [Term | Acc]);
                {error, _} ->
                    Source = string:trim(lists:append([erl_scan:text(T) || T <- Group])),
                    {error, flat("~ts: '~ts' is not an Erlang term", [Name, Source])}
            end
    end.

is_white(Token) ->
    erl_scan:category(Token) =:= white_space.

%% Token groups between commas outside brackets.
split_values([], _Depth, Group, Acc) ->
    lists:reverse([lists:reverse(Group) | Acc]);
split_values([{',', _} | Rest], 0, Group, Acc) ->
    split_values(Rest, 0, [], [lists:reverse(Group) | Acc]);
split_values([{Open, _} = T | Rest], Depth, Group, Acc)
  when Open =:= '('; Open =:= '['; Open =:= '{'; Open =:= '<<' ->
    split_values(Rest, Depth + 1, [T | Group], Acc);
split_values([{Close, _} = T | Rest], Depth, Group, Acc)
  when Close =:= ')'; Close =:= ']'; Close =:= '}'; Close =:= '>>' ->
    split_values(Rest, max(0, Depth - 1), [T | Group], Acc);
split_values([T | Rest], Depth, Group, Acc) ->
    split_values(Rest, Depth, [T | Group], Acc).

%%--------------------------------------------------------------------
%% Helpers

with([]) -> "";
with(Combination) -> " with " ++ erlperf_units:combination(Combination).

text(Expr) when is_number(Expr) -> flat("~p", [Expr]);
text(Expr) -> flat("'~ts'", [Expr]).

flat(Format, Args) ->
    lists:flatten(io_lib:format(Format, Args)).
