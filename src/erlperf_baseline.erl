%%% @doc Baselines and the regression gate: a run compared, runner by runner, with saved
%%% results records ({@link erlperf_record}, written by `--save').
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>baseline</b>: a saved record, from an earlier run (another commit, another
%%%       release). Several can be given: each is a column of the comparison.</li>
%%%   <li><b>match</b>: a runner of the run and one of a baseline with the same label, or,
%%%       when no label matches, the same code; in a sweep ({@link erlperf_sweep}) the
%%%       parameters must be the same as well (`params', compared as the record holds
%%%       them). A runner without a match is reported as such, never guessed.</li>
%%%   <li><b>name</b>: how a row is shown: its label, and in a sweep its combination,
%%%       `lists:seq(1, N). (N=10)'.</li>
%%%   <li><b>change</b>: the runner against the baseline's, with Welch's test (the two
%%%       were measured at different times: nothing pairs them): their fork means when
%%%       both ran in forks (the interval then knows how runs vary), else their samples
%%%       (an interval of single runs, labelled "one run": it knows only the variation
%%%       within each run). Throughput (continuous) higher is better; time (timed) lower
%%%       is better.</li>
%%%   <li><b>regression</b>: a runner significantly slower than a baseline, by more than
%%%       the gate's percentage (the change's point estimate).</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% {ok, Base} = erlperf_baseline:load("before.json"),
%%% Record = erlperf_record:from_reports(erlperf:compare(["rand:uniform()."], #{report => full})),
%%% [#{label := <<"rand:uniform().">>, baselines := [#{verdict := _}]}] =
%%%     erlperf_baseline:compare([{"before.json", Base}], Record, #{}).
%%% '''
-module(erlperf_baseline).

%% API: called by the command line and users.
-export([load/1, compare/3, regressions/2, format/1, format_error/1]).

-export_type([entry/0, row/0]).

%% One baseline's verdict for one runner.
-type entry() :: #{file := string(), match := label | code | none,
                   verdict => faster | slower | no_difference,
                   change_pct => float() | undefined,
                   ci_pct => {float(), float()} | undefined,
                   significant => boolean(),
                   basis => forks | single_run,
                   comparison => erlperf_stat:comparison()}.
-type row() :: #{label := binary(), name := binary(), baselines := [entry()]}.

-define(CONFIDENCE, 95).

%%--------------------------------------------------------------------
%% API

%% @doc Reads a saved record.
-spec load(file:filename()) -> {ok, erlperf_record:results()} | {error, term()}.
load(File) ->
    case file:read_file(File) of
        {ok, Bin} ->
            case erlperf_json:decode(Bin) of
                {ok, Record} -> checked(File, Record);
                {error, Reason} -> {error, {baseline, File, Reason}}
            end;
        {error, Reason} ->
            {error, {baseline, File, Reason}}
    end.

%% @doc Compares every runner of `Record' with each baseline, in order.
%% `Options': `#{confidence => Percent, noise => Percent, run_noise => Percent}' [95, 0,
%% 0]: the interval's confidence, the noise floor, and the run noise (see {@link
%% erlperf_stat:compare/3}): a baseline is another run, and the two differ by the run
%% noise of each beyond what their samples show.
-spec compare([{file:filename(), erlperf_record:results()}], erlperf_record:results(), map()) -> [row()].
compare(Baselines, #{<<"runs">> := Runs} = Record, Options) ->
    Stat = #{test => welch, confidence => maps:get(confidence, Options, ?CONFIDENCE),
             noise => maps:get(noise, Options, 0), run_noise => maps:get(run_noise, Options, 0)},
    Names = erlperf_record:param_names(Record),
    [#{label => maps:get(<<"label">>, Run), name => erlperf_record:run_name(Run, Names),
       baselines => [entry(File, Run, Base, Stat) || {File, Base} <- Baselines]}
     || Run <- Runs].

%% @doc The rows with a regression beyond `Percent', by name, and the baselines they
%% regressed against.
-spec regressions([row()], number()) -> [{binary(), [entry()]}].
regressions(Rows, Percent) ->
    [{Name, Bad} || #{name := Name, baselines := Entries} <- Rows,
                     Bad <- [[E || E <- Entries, regression(E, Percent)]], Bad =/= []].

%% @doc Text lines: each runner against each baseline.
-spec format([row()]) -> unicode:chardata().
format(Rows) ->
    [[io_lib:format("~ts against ~ts: ~ts~n", [Name, File, entry_text(E)])
      || #{file := File} = E <- Entries]
     || #{name := Name, baselines := Entries} <- Rows].

%% @doc One line for an error of {@link load/1}.
-spec format_error({baseline, string(), term()}) -> string().
format_error({baseline, File, {newer_version, V}}) ->
    flat("baseline ~ts: written by a newer erlperf (record version ~b)", [File, V]);
format_error({baseline, File, {record, Reason}}) ->
    flat("baseline ~ts: ~ts", [File, erlperf_record_check:format_error(Reason)]);
format_error({baseline, File, {json, _} = Reason}) ->
    flat("baseline ~ts: ~ts", [File, erlperf_json:format_error(Reason)]);
format_error({baseline, File, Reason}) when is_atom(Reason) ->
    flat("baseline ~ts: ~ts", [File, file:format_error(Reason)]);
format_error({baseline, File, Reason}) ->
    flat("baseline ~ts: ~0tp", [File, Reason]).

%%--------------------------------------------------------------------
%% Internal functions

%% A record of this version or older, of the shape a comparison reads.
checked(File, Record) ->
    case {Record, erlperf_record:version()} of
        {#{<<"version">> := V}, Version} when is_integer(V), V > Version ->
            {error, {baseline, File, {newer_version, V}}};
        _ ->
            case erlperf_record_check:check(Record) of
                ok -> {ok, Record};
                {error, Reason} -> {error, {baseline, File, {record, Reason}}}
            end
    end.

entry(File, Run, #{<<"runs">> := BaseRuns}, Stat) ->
    case match(Run, BaseRuns) of
        {none, _} ->
            #{file => File, match => none};
        {How, BaseRun} ->
            Better = case maps:get(<<"mode">>, Run) of
                         <<"timed">> -> lower;
                         _ -> higher
                     end,
            Cmp = erlperf_stat:compare_runs(run_samples(BaseRun), run_samples(Run),
                                            Stat#{better => Better}),
            (maps:with([verdict, change_pct, ci_pct, significant, basis], Cmp))#{
              file => File, match => How, comparison => Cmp}
    end.

match(Run, AllBaseRuns) ->
    Label = maps:get(<<"label">>, Run),
    Code = maps:get(<<"code">>, Run, null),
    BaseRuns = [B || B <- AllBaseRuns, params(B) =:= params(Run)],
    case [B || B <- BaseRuns, maps:get(<<"label">>, B, undefined) =:= Label] of
        [B | _] -> {label, B};
        [] ->
            case [B || B <- BaseRuns, Code =/= null, maps:get(<<"code">>, B, undefined) =:= Code] of
                [B | _] -> {code, B};
                [] -> {none, undefined}
            end
    end.

%% A sweep's combination (none: records of erlperf before sweeps have no `params').
params(Run) ->
    maps:get(<<"params">>, Run, #{}).

run_samples(Run) ->
    {maps:get(<<"samples">>, Run), erlperf_record:fork_sizes(Run)}.

regression(#{verdict := slower, significant := true, change_pct := Change}, Percent)
  when is_number(Change) ->
    abs(Change) > Percent;
regression(_Entry, _Percent) ->
    false.

entry_text(#{match := none}) ->
    "no runner with this label or code";
entry_text(#{comparison := Comparison}) ->
    erlperf_stat:verdict_text(Comparison).

flat(Format, Args) ->
    lists:flatten(io_lib:format(Format, Args)).
