%%% @doc How a command line ends: its outputs written, the regression gate applied, and
%%% every error as one line on stderr with the exit status of its kind. Shared by the
%%% benchmark's command line ({@link erlperf_cli}) and the suites' ({@link
%%% erlperf_suite_cli}).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>reason</b>: what went wrong, in the shape its module gives it (`{args, _}'
%%%       from {@link erlperf_args}, `{usage, Text}', `{write, File, _}', an engine error
%%%       of {@link erlperf:format_error/1}); its shape says its exit status.</li>
%%%   <li><b>internal error</b>: a reason no module explains: a bug, whose class, reason
%%%       and stack go to a file in the temporary directory for the report.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% 2 = erlperf_cli_outcome:fail({usage, "no code to benchmark"}).
%%% '''
-module(erlperf_cli_outcome).

%% API: called by erlperf_cli and erlperf_suite_cli
-export([fail/1, format_error/1, known/3, gate/2, write_outputs/2, compare_options/1,
         interference_note/2, benchmark_failed/3]).

-include("model/erlperf_schema.hrl").

%% Ends the line of a command-line mistake.
-define(HINT, " (see 'erlperf --help')").

%%--------------------------------------------------------------------
%% Outputs and the gate

%% @doc The options of {@link erlperf_baseline:compare/3} from a command line: its
%% confidence, noise floor, the default run noise, the run noise it gave (`--run-noise':
%% no estimate then), the gate, and with `--against' the pairing of forks.
-spec compare_options(#{run_options := map(), gate := number() | none, _ => _}) ->
          erlperf_baseline:options().
compare_options(#{run_options := Run, gate := Gate} = Parsed) ->
    (maps:with([confidence, noise, run_noise], maps:merge(erlperf:defaults(), Run)))#{
      gate => Gate,
      given_run_noise => maps:get(run_noise, Run, none),
      %% --against takes each version's forks in pairs, side by side
      paired => maps:is_key(against, Parsed)}.

%% @doc --fail-on-regression: exit 3, saying which runner regressed against which
%% baseline (its time, beyond the gate's percentage, or an exact count per call). An
%% inconclusive verdict is a warning on stderr, and fails the gate too with
%% `--fail-on-inconclusive'.
-spec gate(#{gate := number() | none, _ => _},  [erlperf_baseline:row()]) -> non_neg_integer().
gate(#{gate := none} = Parsed, Rows) ->
    ok = erlperf_github:report(Rows, none, maps:get(fail_on_inconclusive, Parsed, false)),
    erlperf_args:exit_code(success);
gate(#{gate := Percent} = Parsed, Rows) ->
    ok = erlperf_github:report(Rows, Percent, maps:get(fail_on_inconclusive, Parsed, false)),
    Regressions = erlperf_gate:regressions(Rows, Percent),
    _ = [io:put_chars(standard_error, ["erlperf: regression: ", Line, "\n"])
         || {Name, Entries} <- Regressions, E <- Entries, Line <- regression_lines(Name, E, Percent)],
    Inconclusive = [{Name, E} || #{name := Name, baselines := Entries} <- Rows,
                                 #{verdict := inconclusive} = E <- Entries],
    Fails = maps:get(fail_on_inconclusive, Parsed, false),
    _ = [io:put_chars(standard_error,
                      io_lib:format("erlperf: ~s: ~ts against ~ts: ~ts~n",
                                    [case Fails of true -> "inconclusive"; false -> "warning" end,
                                     erlperf_name:text(Name), erlperf_name:text(File),
                                     erlperf_verdict:text(C)]))
         || {Name, #{file := File, comparison := C}} <- Inconclusive],
    case lists:any(fun (E) -> erlperf_gate:fails(E, Percent, Fails) end,
                   [E || #{baselines := Entries} <- Rows, E <- Entries]) of
        false -> erlperf_args:exit_code(success);
        true -> erlperf_args:exit_code(gate_failed)
    end.

%% What regressed beyond the gate: the time, and each exact count (the name and the
%% baseline written by erlperf_name: one line each, never one that begins with `::').
regression_lines(Name0, #{file := File0} = E, Percent) ->
    {Name, File} = {erlperf_name:text(Name0), erlperf_name:text(File0)},
    Time = case erlperf_gate:time_regressed(E, Percent) of
               true ->
                   [io_lib:format("~ts is ~s slower than in ~ts (limit ~s%)",
                                  [Name, erlperf_units:percent(abs(maps:get(change_pct, E))), File,
                                   erlperf_units:setting(Percent)])];
               false ->
                   []
           end,
    Counts = [io_lib:format("~ts allocates or reduces more per call than in ~ts: ~ts ~s -> ~s "
                            "(limit ~s%)",
                            [Name, File, count_name(K), erlperf_units:number(Old),
                             erlperf_units:number(New), erlperf_units:setting(Percent)])
              || #{count := K, baseline := Old, run := New} <- erlperf_gate:counts_regressed(E, Percent)],
    Time ++ Counts.

count_name(?BYTES_PER_ITERATION) -> "bytes per call";
count_name(?REDUCTIONS_PER_ITERATION) -> "reductions per call".

%% @doc Verdicts across runs (rows with a matched baseline) on a platform where the
%% host's interference cannot be measured: one line on stderr says so (the verdicts
%% then know nothing of the load).
-spec interference_note(erlperf_record:results(), [erlperf_baseline:row()]) -> ok.
interference_note(#{?RUNS := Runs}, Rows) ->
    Verdicts = [E || #{baselines := Entries} <- Rows, #{match := M} = E <- Entries, M =/= none],
    case Verdicts =:= [] orelse lists:any(fun (R) -> is_map_key(?INTERFERENCE, R) end, Runs) of
        true ->
            ok;
        false ->
            Host = erlperf_interference:open(),
            Available = erlperf_interference:available(Host),
            ok = erlperf_interference:close(Host),
            case Available of
                ok -> ok;
                {unavailable, Reason} ->
                    io:put_chars(standard_error, ["erlperf: note: ", erlperf_interference:format_unavailable(Reason),
                                                  "; verdicts across runs cannot tell the host's load\n"])
            end
    end.

%% @doc -o and --save; the first file that cannot be written fails the run.
-spec write_outputs(#{outputs := [{file:filename(), erlperf_output:format()}], _ => _}, {erlperf_record:results(), [erlperf_baseline:row()]}) -> ok | {error, term()}.
write_outputs(#{outputs := Outputs}, {Record, Rows}) ->
    case [E || {File, Format} <- Outputs,
               E <- [erlperf_output:write_record(File, Format, Record, #{baselines => Rows})], E =/= ok] of
        [] -> ok;
        [{error, _} = Error | _] -> Error
    end.

%%--------------------------------------------------------------------
%% Errors: one line on stderr, the exit status of the reason's shape

%% @doc Says what went wrong on stderr, in one line, and returns the exit status.
-spec fail(term()) -> non_neg_integer().
fail(Reason) ->
    Hint = case Reason of
               {args, _} -> ?HINT;
               _ -> []
           end,
    io:put_chars(standard_error, ["erlperf: ", one_line(format_error(Reason)), Hint, "\n"]),
    erlperf_args:exit_code(outcome(Reason)).

%% An error is one line on stderr, whatever the text it quotes (code, a file name): a
%% CI runner reads a carriage return as a line break too.
-spec one_line(unicode:chardata()) -> unicode:chardata().
one_line(Text) ->
    case unicode:characters_to_list(Text) of
        Chars when is_list(Chars) ->
            [case C of
                 $\n -> $\s;
                 $\r -> $\s;
                 _ -> C
             end || C <- Chars];
        _NotCharacters ->
            string:replace(Text, "\n", " ", all)
    end.

%% The exit status of every reason of both command lines, classified once.
-spec outcome(term()) -> erlperf_args:outcome().
outcome({internal, _, _, _}) -> benchmark_failed;
outcome({failed, _Text}) -> benchmark_failed;
outcome({perf_test, {Tag, _, _}}) when Tag =:= load_generator; Tag =:= custom_agent;
                                       Tag =:= baseline -> usage;
outcome({perf_test, {trace_patterns, _}}) -> usage;
outcome({perf_test, _}) -> benchmark_failed;
outcome({suite_file, _}) -> usage;
outcome({classified, Outcome, _Text}) -> Outcome;
outcome({render, _}) -> usage;
outcome({render, _, _}) -> usage;
outcome({args, _}) -> usage;
outcome({usage, _}) -> usage;
outcome({code_path, _}) -> usage;
outcome({bad_code, _, _}) -> usage;
outcome({stops_vm, _, _}) -> usage;
outcome({invalid_option, _, _}) -> usage;
outcome({incompatible_options, _, _, _}) -> usage;
outcome({sweep, _}) -> usage;
outcome(_Crashed) -> benchmark_failed.

%% @doc A reason the engine explains, or an internal error: a bug, whose details (class,
%% reason, stack) are written to a file for the report.
-spec known(error | exit | throw, term(), [tuple()]) -> term().
known(Class, Reason, Stack) ->
    case erlperf:is_known_error(Reason) of
        true ->
            Reason;
        false ->
            File = filename:join(erlperf_system:temp_dir(), "erlperf-crash-" ++ os:getpid() ++ ".txt"),
            Details = io_lib:format("erlperf ~ts, OTP ~ts~n~p:~p~n~p~n",
                                    [erlperf_args:version(), erlang:system_info(otp_release),
                                     Class, Reason, Stack]),
            {internal, Reason, File, erlperf_file:write_atomic(File, Details)}
    end.

%% @doc A suite benchmark's failure, as one line without its `erlperf: ' prefix: its
%% name (erlperf_name), where it ran (`[]', or `" in REV"' of `--against'), and why; the
%% name said once when the reason's text begins with it (a runner's label may be the
%% benchmark's name).
-spec benchmark_failed(erlperf_name:name(), unicode:chardata(), term()) -> unicode:chardata().
benchmark_failed(Name0, Where, Why) ->
    Name = erlperf_name:text(Name0),
    Text = format_error(Why),
    Reason = case string:prefix(Text, [Name, ": "]) of
                 nomatch -> Text;
                 Rest -> Rest
             end,
    [Name, Where, ": ", Reason].

%% @doc A reason raised while parsing, preparing or benchmarking, as one line.
-spec format_error(term()) -> string().
format_error({internal, Reason, File, Written}) ->
    Where = case Written of
                ok -> "details in " ++ File;
                {error, _} -> "no details written (" ++ File ++ " could not be written)"
            end,
    lists:flatten(io_lib:format("internal error (a bug in erlperf; please report it with the "
                                "details): ~0tP; ~ts", [Reason, 6, Where]));
format_error({args, Reason}) ->
    erlperf_args:format_error(Reason);
format_error({stuck, Label, Samples}) ->
    lists:flatten(io_lib:format("~ts: no call returned during the run (~ts, a call still in "
                                "progress at its end): nothing was measured",
                                [erlperf_name:text(Label), [integer_to_list(Samples), " sample", [$s || Samples =/= 1]]]));
format_error({usage, Text}) ->
    lists:flatten(Text);
format_error({failed, Text}) ->
    lists:flatten(Text);
format_error({perf_test, Reason}) ->
    erlperf_perf_test:format_error(Reason);
format_error({suite_file, Reason}) ->
    erlperf_suite:format_error(Reason);
format_error({classified, _Outcome, Text}) ->
    lists:flatten(Text);
format_error({render, _} = Reason) ->
    erlperf_render:format_error(Reason);
format_error({render, _, _} = Reason) ->
    erlperf_render:format_error(Reason);
format_error({write, _File, _Reason} = Reason) ->
    erlperf_output:format_error(Reason);
format_error({Tag, _} = Reason) when Tag =:= code_path; Tag =:= distribution ->
    erlperf_cli_vm:format_error(Reason);
format_error(Reason) ->
    erlperf:format_error(Reason).

