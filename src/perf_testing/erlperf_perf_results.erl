%%% @doc The results record of a performance test ({@link erlperf_perf_test}): built from
%%% what the agents measured, written as `results.json' and `results.term', read back as
%%% a baseline, and summarised for the console. The record's fields are documented in
%%% `doc/perf-testing.md'; its keys are binaries, so that a record read back from JSON and
%%% one just made are alike.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>raw time</b>: microseconds the `call_time' trace counted in a function
%%%       (`time_us_raw').</li>
%%%   <li><b>compensated time</b>: the raw time less the impact benchmark's cost per call
%%%       times the calls, never below 0 (`time_us'); the calls made while the
%%%       discoverer discovered (`calls_discovering') at the discovering cost
%%%       (`impact_us_per_call'), the others at the counting cost
%%%       (`impact_counting_us_per_call'). Equal to the raw time when compensation is
%%%       off.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% {ok, Record} = erlperf_perf_results:read("erlperf_results/httpd-20261122T140000/results.json"),
%%% io:put_chars(erlperf_perf_results:summary(Record)).
%%% '''
-module(erlperf_perf_results).

%% API: called by erlperf_perf_test and the command line.
-export([run/4, record/1, write/2, read/1, summary/1, version/0, mfa_text/1]).

%% Internal export: JSON-able terms (also used by the requirements).
-export([jsonable/1]).

-include("model/erlperf_schema.hrl").

%% How many functions the console summary lists (the most time-consuming, last run).
-define(TOP_FUNCTIONS, 5).
%% Decimals of the text summary's figures (microseconds per call, measured values).
-define(DECIMALS, 3).

%%--------------------------------------------------------------------
%% API

%% @doc The record's version.
-spec version() -> pos_integer().
version() ->
    ?PERF_RESULTS_LAYOUT.

%% @doc One run of the record, from what the agents returned on each node (see
%% {@link erlperf_agents:collect/1}), the impact per node, and the custom agents' results.
-spec run(non_neg_integer(), ok | {failed, string()}, [node()], map()) -> map().
run(Size, Status, Nodes, #{results := Results, impact := Impact, custom := Custom,
                           duration_ms := Duration, compensate := Compensate} = Collected) ->
    PerNode = [{N, maps:get(N, Results), impact(N, Impact, Compensate)}
               || N <- Nodes, is_map_key(N, Results)],
    {StatusText, Error} = case Status of
                              ok -> {<<"ok">>, null};
                              {failed, Text} -> {<<"failed">>, unicode:characters_to_binary(Text)}
                          end,
    #{?SIZE => Size,
      ?STATUS => StatusText,
      <<"error">> => Error,
      <<"nodes">> => [atom_to_binary(N) || N <- Nodes],
      <<"duration_ms">> => Duration,
      <<"functions">> => lists:append([functions(N, R, I) || {N, R, I} <- PerNode]),
      <<"processes">> => lists:append([processes(N, R) || {N, R, _} <- PerNode]),
      <<"node_metrics">> => maps:from_list([{atom_to_binary(N), node_metrics(R)} || {N, R, _} <- PerNode]),
      <<"discovery_by_node">> => maps:from_list([{atom_to_binary(N), maps:get(discovery, R, [])}
                                                 || {N, R, _} <- PerNode]),
      <<"conflicts">> => lists:append([conflicts(N, R) || {N, R, _} <- PerNode]),
      <<"reloads">> => lists:append([reloads(N, R) || {N, R, _} <- PerNode]),
      <<"impact_us_per_call">> => mean_impact(discovering, Impact),
      <<"impact_us_per_call_by_node">> => by_node(discovering, Impact),
      <<"impact_counting_us_per_call">> => mean_impact(counting, Impact),
      <<"impact_counting_us_per_call_by_node">> => by_node(counting, Impact),
      <<"custom_agents">> => Custom,
      %% an open load's figures (erlperf_perf_rate), as a benchmark record's run has them
      <<"rate">> => case maps:get(rate, Collected, none) of
                        none -> null;
                        Rate -> maps:get(<<"rate">>, erlperf_record:rate_fields(Rate))
                    end}.

%% @doc The whole record, from the test's description and its runs (requirements are
%% added by {@link erlperf_perf_test}).
-spec record(map()) -> map().
record(#{test := Name, module := Mod, size_label := Label, sizes := Sizes, started := Started,
         patterns := Patterns, options := Options, runs := Runs}) ->
    #{?VERSION => ?PERF_RESULTS_LAYOUT,
      <<"test">> => unicode:characters_to_binary(Name),
      ?LOAD_GENERATOR => atom_to_binary(Mod),
      ?SIZE_LABEL => atom_to_binary(Label),
      <<"sizes">> => Sizes,
      ?STARTED => iso8601(Started),
      ?SYSTEM => system(),
      ?TRACE_PATTERNS => [pattern_text(P) || P <- Patterns],
      ?OPTIONS => maps:from_list([{atom_to_binary(K), V} || {K, V} <- maps:to_list(Options)]),
      ?RUNS => Runs,
      ?REQUIREMENTS => []}.

%% @doc Writes `results.json' and `results.term' into a new directory
%% `OutDir/<test name>-<timestamp>', each atomically. Returns the directory.
-spec write(file:filename(), map()) -> {ok, file:filename()} | {error, {write, string(), term()}}.
write(OutDir, #{<<"test">> := Name, ?STARTED := Started} = Record) ->
    Dir = filename:join(OutDir, unique_dir(OutDir, [safe_name(Name), "-", compact_time(Started)])),
    Json = [erlperf_json:encode(jsonable(Record), #{pretty => true}), $\n],
    Term = io_lib:format("%% erlperf performance test results, version ~b~n~tp.~n",
                         [?PERF_RESULTS_LAYOUT, Record]),
    case filelib:ensure_dir(filename:join(Dir, "x")) of
        ok ->
            case erlperf_file:write_atomic(filename:join(Dir, "results.json"), Json) of
                ok ->
                    case erlperf_file:write_atomic(filename:join(Dir, "results.term"),
                                                     unicode:characters_to_binary(Term)) of
                        ok -> {ok, Dir};
                        Error -> Error
                    end;
                Error ->
                    Error
            end;
        {error, Reason} ->
            {error, {write, unicode:characters_to_list(Dir), Reason}}
    end.

%% @doc Reads a record written by {@link write/2} (its `results.json'), as a baseline;
%% the reason is {@link erlperf_schema:read/2}'s, text by {@link erlperf_schema:format_error/1}.
-spec read(file:filename()) ->
    {ok, erlperf_schema:perf_results()} | {error, {baseline, string(), erlperf_schema:reason()}}.
read(File) ->
    Name = unicode:characters_to_list(File),
    case erlperf_schema:read(Name, perf_test) of
        {ok, Record} -> {ok, Record};
        {error, Reason} -> {error, {baseline, Name, Reason}}
    end.

%% @doc The console summary: a line per size (status, calls, time per call, processes),
%% the most time-consuming functions of the last run that succeeded, and requirements.
-spec summary(map()) -> unicode:chardata().
summary(#{?RUNS := Runs, ?SIZE_LABEL := Label} = Record) ->
    %% names and messages from the test's modules, written as every output writes names
    Header = [erlperf_name:text(Label), <<"status">>, <<"calls">>, <<"us/call">>, <<"us/call raw">>,
              <<"processes">>, <<"error">>],
    Rows = [size_row(Run) || Run <- Runs],
    [erlperf_table:columns(Header, Rows),
     open_load(Label, Runs),
     top_functions(lists:reverse([R || #{?STATUS := <<"ok">>} = R <- Runs])),
     custom_texts(Runs),
     requirements(maps:get(?REQUIREMENTS, Record, [])),
     case Record of
         #{<<"dir">> := Dir} -> ["results: ", Dir, "\n"];
         _ -> []
     end].

%% With an open load (erlperf_perf_rate): per size, the rate achieved, late and skipped
%% calls, and the response times (from when each call was due) and service times.
open_load(Label, Runs) ->
    case [{Size, Rate} || #{?SIZE := Size, <<"rate">> := #{} = Rate} <- Runs] of
        [] ->
            [];
        Loaded ->
            Header = [erlperf_name:text(Label), <<"achieved/s">>, <<"late">>, <<"skipped">>,
                      <<"response p50">>,
                      ?P99, <<"max">>, <<"service p50">>, ?P99],
            Rows = [[integer_to_binary(I) || I <- [Size, round(A), L, S]]
                    ++ [erlperf_units:us(maps:get(K, R)) || K <- [?P50, ?P99, <<"max">>]]
                    ++ [erlperf_units:us(maps:get(K, Sv)) || K <- [?P50, ?P99]]
                    || {Size, #{<<"achieved">> := A, <<"late">> := L, <<"skipped">> := S,
                                <<"response_us">> := R, <<"service_us">> := Sv}} <- Loaded],
            ["\nOpen load, response time from when each call was due:\n",
             erlperf_table:columns(Header, Rows)]
    end.

%% @doc An MFA as the record holds it, `m:f/a' ({@link erlperf_units:function_name/1}:
%% the benchmarks' profiles write function names the same way); a registered name (of a
%% process) as it is.
-spec mfa_text(mfa() | atom()) -> binary().
mfa_text(MFA) ->
    unicode:characters_to_binary(erlperf_units:function_name(MFA)).

%% @doc A term that {@link erlperf_json:encode/1} takes: pids, references, ports, funs and
%% tuples become their printed form. The record's own lists stay arrays (a sample
%% `[310, 49]' is a time and a count, not the string "\x{132}1"); in what custom agents
%% returned (under `custom_agents'), printable lists become strings, except in a
%% `report' (see {@link erlperf_custom_agent}), whose points are lists of numbers.
-spec jsonable(term()) -> erlperf_json:encodable().
jsonable(Term) ->
    jsonable(Term, record).

%%--------------------------------------------------------------------
%% Internal functions

%% Mode `record': lists are arrays; `agent': printable lists are strings.
-spec jsonable(term(), record | agent) -> erlperf_json:encodable().
jsonable(M, Mode) when is_map(M) ->
    maps:from_list([{key(K), jsonable(V, mode(key(K), Mode))} || {K, V} <- maps:to_list(M)]);
jsonable([], _Mode) ->
    [];
jsonable(L, agent) when is_list(L) ->
    case io_lib:printable_unicode_list(L) of
        true -> unicode:characters_to_binary(L);
        false -> proper(L, agent)
    end;
jsonable(L, record) when is_list(L) ->
    proper(L, record);
jsonable(X, _Mode) when is_binary(X) ->
    case unicode:characters_to_binary(X) of
        B when is_binary(B) -> B;
        _ -> printed(X)
    end;
jsonable(X, _Mode) when is_atom(X); is_integer(X); is_float(X) ->
    X;
jsonable(X, _Mode) ->
    printed(X).

%% The mode of a map value under Key.
-spec mode(binary() | atom(), record | agent) -> record | agent.
mode(<<"custom_agents">>, record) -> agent;
mode(report, agent) -> record;
mode(<<"report">>, agent) -> record;
mode(_, Mode) -> Mode.

-spec proper(list(), record | agent) -> list().
proper([H | T], Mode) when is_list(T) -> [jsonable(H, Mode) | proper(T, Mode)];
proper([H | T], Mode) -> [jsonable(H, Mode), printed(T)];
proper([], _Mode) -> [].

-spec printed(term()) -> binary().
printed(X) ->
    unicode:characters_to_binary(erlperf_units:value(X)).

-spec key(term()) -> binary() | atom().
key(K) when is_atom(K); is_binary(K) -> K;
key(K) -> printed(K).

-type impact() :: #{counting := float(), discovering := float()}.

-spec impact(node(), #{node() => impact()}, boolean()) -> impact().
impact(_Node, _Impact, false) -> #{counting => 0.0, discovering => 0.0};
impact(Node, Impact, true) -> maps:get(Node, Impact, #{counting => 0.0, discovering => 0.0}).

-spec mean_impact(counting | discovering, #{node() => impact()}) -> float() | null.
mean_impact(_Kind, Impact) when map_size(Impact) =:= 0 -> null;
mean_impact(Kind, Impact) -> lists:sum([maps:get(Kind, I) || I <- maps:values(Impact)]) / map_size(Impact).

-spec by_node(counting | discovering, #{node() => impact()}) -> #{binary() => float()}.
by_node(Kind, Impact) ->
    maps:from_list([{atom_to_binary(N), maps:get(Kind, I)} || {N, I} <- maps:to_list(Impact)]).

-spec functions(node(), map(), impact()) -> [map()].
functions(Node, #{functions := Functions}, Impact) ->
    [begin
         Time = compensated(F, Impact),
         #{<<"mfa">> => mfa_text(MFA), <<"node">> => atom_to_binary(Node),
           <<"calls">> => Calls, <<"calls_discovering">> => discovering_calls(F),
           <<"time_us">> => Time, <<"time_us_raw">> => Raw,
           <<"time_per_call_us">> => per_call(Time, Calls),
           <<"per_process">> => [#{<<"pid">> => pid_text(Pid), <<"calls">> => C,
                                   <<"calls_discovering">> => discovering_calls(P),
                                   <<"time_us">> => compensated(P, Impact), <<"time_us_raw">> => T}
                                 || #{pid := Pid, calls := C, time_us := T} = P <- PerProcess]}
     end || #{mfa := MFA, calls := Calls, time_us := Raw, per_process := PerProcess} = F <- Functions].

%% The calls of a function or process entry made while discovering (all of them when
%% the agents did not say).
-spec discovering_calls(#{calls := non_neg_integer(), calls_discovering => non_neg_integer(),
                          _ => _}) -> non_neg_integer().
discovering_calls(#{calls := Calls} = Entry) ->
    maps:get(calls_discovering, Entry, Calls).

%% The raw time of a function or process entry less the impact of each of its calls.
-spec compensated(#{calls := non_neg_integer(), time_us := non_neg_integer(),
                    calls_discovering => non_neg_integer(), _ => _}, impact()) ->
          non_neg_integer().
compensated(#{calls := Calls, time_us := Raw} = Entry,
            #{counting := Counting, discovering := Discovering}) ->
    D = discovering_calls(Entry),
    max(0, round(Raw - Discovering * D - Counting * (Calls - D))).

-spec per_call(number(), non_neg_integer()) -> float() | null.
per_call(_Time, 0) -> null;
per_call(Time, Calls) -> Time / Calls.

-spec processes(node(), map()) -> [map()].
processes(Node, #{processes := Processes}) ->
    [#{<<"pid">> => pid_text(Pid), <<"name">> => mfa_text(Name), <<"node">> => atom_to_binary(Node),
       <<"found_by">> => mfa_text(FoundBy),
       <<"exited">> => case Exited of false -> null; T -> T end,
       <<"memory">> => Memory, <<"reductions">> => Reductions,
       <<"message_queue_len">> => Queue}
     || #{pid := Pid, name := Name, found_by := FoundBy, exited := Exited, memory := Memory,
          reductions := Reductions, message_queue_len := Queue} <- Processes].

-spec node_metrics(map()) -> map().
node_metrics(#{node_metrics := Metrics, active_max := Active}) ->
    maps:put(<<"active_max">>, Active,
             maps:from_list([{atom_to_binary(K), V} || {K, V} <- maps:to_list(Metrics)])).

-spec conflicts(node(), map()) -> [map()].
conflicts(Node, #{conflicts := Conflicts}) ->
    [#{<<"node">> => atom_to_binary(Node), <<"kind">> => atom_to_binary(Kind),
       <<"caller">> => pid_text(Caller), <<"detail">> => Detail}
     || #{kind := Kind, caller := Caller, detail := Detail} <- Conflicts].

-spec reloads(node(), map()) -> [map()].
reloads(Node, #{reloads := Reloads}) ->
    [#{<<"node">> => atom_to_binary(Node), <<"module">> => atom_to_binary(M), <<"t_ms">> => T}
     || #{module := M, t_ms := T} <- Reloads].

-spec pid_text(pid()) -> binary().
pid_text(Pid) ->
    list_to_binary(pid_to_list(Pid)).

-spec pattern_text(erlperf_load_generator:trace_pattern()) -> binary().
pattern_text(Pattern) ->
    unicode:characters_to_binary(erlperf_units:function_name(Pattern)).

-spec system() -> map().
system() ->
    #{otp_release := Otp, cpu := Cpu, os_name := Os, schedulers := Schedulers} = erlperf_system:info(),
    #{<<"otp_release">> => list_to_binary(Otp), <<"cpu">> => unicode:characters_to_binary(Cpu),
      <<"os">> => unicode:characters_to_binary(Os), <<"schedulers">> => Schedulers,
      <<"node">> => atom_to_binary(node())}.

-spec iso8601(integer()) -> binary().
iso8601(Ms) ->
    list_to_binary(calendar:system_time_to_rfc3339(Ms, [{unit, millisecond}, {offset, "Z"}])).

%% 2026-11-22T14:00:00.123Z -> 20261122T140000
-spec compact_time(binary()) -> string().
compact_time(Iso) ->
    [C || C <- lists:sublist(binary_to_list(Iso), 19), C =/= $-, C =/= $:].

%% A test name fit for a directory name: letters, digits, `-', `_' and `.'; at most 64.
-spec safe_name(binary()) -> string().
safe_name(Name) ->
    Safe = [case C of
                C when C >= $a, C =< $z; C >= $A, C =< $Z; C >= $0, C =< $9; C =:= $-; C =:= $_ -> C;
                _ -> $_
            end || C <- unicode:characters_to_list(Name)],
    case lists:sublist(Safe, 64) of
        [] -> "test";
        S -> S
    end.

%% Two tests started in the same second get `-2', `-3'...
-spec unique_dir(file:filename(), iodata()) -> string().
unique_dir(OutDir, Base) ->
    unique_dir(OutDir, lists:flatten(Base), 1).

-spec unique_dir(file:filename(), string(), pos_integer()) -> string().
unique_dir(OutDir, Base, N) ->
    Name = case N of 1 -> Base; _ -> Base ++ "-" ++ integer_to_list(N) end,
    case filelib:is_file(filename:join(OutDir, Name)) of
        true -> unique_dir(OutDir, Base, N + 1);
        false -> Name
    end.

-spec size_row(map()) -> [unicode:chardata()].
size_row(#{?SIZE := Size, ?STATUS := Status, <<"functions">> := Functions,
           <<"processes">> := Processes, <<"error">> := Error}) ->
    Calls = lists:sum([C || #{<<"calls">> := C} <- Functions]),
    Time = lists:sum([T || #{<<"time_us">> := T} <- Functions]),
    Raw = lists:sum([T || #{<<"time_us_raw">> := T} <- Functions]),
    [integer_to_binary(Size), Status, integer_to_binary(Calls), number(per_call(Time, Calls)),
     number(per_call(Raw, Calls)), integer_to_binary(length(Processes)),
     case Error of null -> <<>>; E -> erlperf_name:text(E) end].

-spec top_functions([map()]) -> unicode:chardata().
top_functions([]) ->
    [];
top_functions([#{?SIZE := Size, <<"functions">> := Functions} | _]) ->
    Sorted = lists:reverse(lists:keysort(1, [{T, F} || #{<<"time_us">> := T} = F <- Functions])),
    Top = [F || {_, F} <- lists:sublist(Sorted, ?TOP_FUNCTIONS)],
    case Top of
        [] ->
            [];
        _ ->
            Rows = [[erlperf_name:text(M), erlperf_name:text(N), integer_to_binary(C),
                     integer_to_binary(T), number(P)]
                    || #{<<"mfa">> := M, <<"node">> := N, <<"calls">> := C, <<"time_us">> := T,
                         <<"time_per_call_us">> := P} <- Top],
            [io_lib:format("~nMost time, size ~b:~n", [Size]),
             erlperf_table:columns([<<"function">>, <<"node">>, <<"calls">>, <<"us">>, <<"us/call">>], Rows)]
    end.

%% Custom agents' results that hold a `text' (a map key `text' or <<"text">>): a line each.
-spec custom_texts([map()]) -> unicode:chardata().
custom_texts(Runs) ->
    Lines = [io_lib:format("size ~b, ~ts: ~ts~n",
                           [Size, erlperf_name:text(Agent), erlperf_name:text(Text)])
             || #{?SIZE := Size, <<"custom_agents">> := Custom} <- Runs,
                {Agent, ByNode} <- lists:sort(maps:to_list(Custom)),
                {_Node, Result} <- lists:sort(maps:to_list(ByNode)),
                Text <- [T || is_map(Result), T <- [maps:get(text, Result, maps:get(<<"text">>, Result, none))],
                              is_binary(T) orelse (is_list(T) andalso io_lib:printable_unicode_list(T))]],
    case Lines of
        [] -> [];
        _ -> ["\nCustom agents:\n" | Lines]
    end.

-spec requirements([map()]) -> unicode:chardata().
requirements([]) ->
    [];
requirements(Requirements) ->
    Rows = [[integer_to_binary(S), erlperf_name:text(R), erlperf_name:text(Subj), number(L),
             number(M),
             case P of true -> <<"pass">>; false -> <<"FAIL">> end]
            || #{?SIZE := S, <<"requirement">> := R, <<"subject">> := Subj, <<"limit">> := L,
                 <<"measured">> := M, <<"pass">> := P} <- Requirements],
    ["\nRequirements:\n",
     erlperf_table:columns([<<"size">>, <<"requirement">>, <<"subject">>, <<"limit">>, <<"measured">>, <<"result">>], Rows)].

-spec number(number() | null) -> iodata().
number(null) -> <<"-">>;
number(X) when is_integer(X) -> integer_to_binary(X);
number(X) -> erlperf_units:fixed(X, ?DECIMALS).
