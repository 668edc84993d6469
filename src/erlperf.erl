%%% @doc The benchmarking API: runs jobs, takes samples on schedule, builds reports.
%%%
%%% Modes:
%%% <ul>
%%%   <li><b>continuous</b> (default): workers loop for `samples' periods of
%%%       `sample_duration' ms; each sample is the iterations done in one period,
%%%       normalised to the nominal period with the measured time.</li>
%%%   <li><b>timed</b> (`sample_duration => {timed, N}'): each sample is the time one
%%%       worker takes for N iterations.</li>
%%%   <li><b>concurrency estimation</b> (`run/3', `benchmark/3' with concurrency options):
%%%       continuous runs with more and more workers, until throughput stops growing for
%%%       `threshold' steps; the best run is reported.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% 1> erlperf:run("rand:uniform().").
%%% 14823432
%%% 2> erlperf:compare(["rand:uniform().", {crypto, strong_rand_bytes, [2]}], #{}).
%%% [14917465,1797152]
%%% 3> erlperf:run({code, is_loaded, [local_udp]}, #{warmup => 1}, #{max => 50}).
%%% {1665180,6}
%%% '''
%%%
%%% Jobs of one call run one after another, never at the same time, so that they do not
%%% compete for schedulers. Every job is stopped, and its module unloaded, before the call
%%% returns or raises. The calling process samples at `priority' (default `high') for the
%%% duration of the call. When the timer wakes the sampler late, it switches to a busy
%%% wait before each deadline and flags the report (`sleep => busy_wait').
-module(erlperf).

%% API
-export([run/1, run/2, run/3, compare/2, benchmark/3, start/2, time/2, format_error/1]).

%% Internal exports: default options, shared with the command line; result shapes,
%% shared with erlperf_cluster (which adds up full reports of several nodes).
-export([defaults/0, concurrency_defaults/0, shape/3]).

-export_type([code/0, run_options/0, concurrency_options/0, report/0, result/0]).

-type code() :: erlperf_job:code_map() | erlperf_job:callable().
-type run_options() :: #{concurrency => pos_integer(),
                         samples => pos_integer(),
                         sample_duration => pos_integer() | {timed, pos_integer()},
                         warmup => non_neg_integer(),
                         cv => float() | undefined,
                         report => basic | extended | full,
                         priority => erlang:priority_level(),
                         isolation => #{},
                         nodes => [node()],
                         progress => fun((progress()) -> any())}.
-type concurrency_options() :: #{min => pos_integer(), step => pos_integer(),
                                 max => pos_integer(), threshold => pos_integer()}.
-type progress() :: {warmup, pos_integer(), pos_integer()}
                  | {sample, pos_integer(), pos_integer(), float()}
                  | {concurrency, pos_integer()}.
-type report() :: #{version := 1, mode := continuous | timed | concurrency, atom() => term()}.
-type result() :: non_neg_integer() | [non_neg_integer()]
                | {non_neg_integer() | [non_neg_integer()], pos_integer()} | report().

%% Samples taken at most in cv mode: max(?CV_MIN_CAP, ?CV_CAP_FACTOR * samples).
-define(CV_MIN_CAP, 20).
-define(CV_CAP_FACTOR, 10).
%% The sampler counts as late when it wakes more than this many ms, or this fraction of
%% the sample duration, after the deadline; it then busy-waits for the rest of the run.
-define(LATE_MS, 2).
-define(LATE_FRACTION, 0.02).
%% In busy-wait mode the sampler sleeps until this many ms before the deadline.
-define(BUSY_MARGIN_MS, 2).
-define(FORMAT_DEPTH, 12).

%%--------------------------------------------------------------------
%% API

%% @doc Runs a benchmark with the default options.
-spec run(code()) -> result().
run(Code) ->
    run(Code, #{}).

%% @doc Runs a benchmark with the given run options.
-spec run(code(), run_options()) -> result().
run(Code, RunOptions) ->
    benchmark([Code], RunOptions, undefined).

%% @doc `run(Module, Function, Args)' benchmarks `{Module, Function, Args}';
%% `run(Code, RunOptions, ConcurrencyOptions)' estimates concurrency.
-spec run(code() | module(), run_options() | atom(), concurrency_options() | [term()]) -> result().
run(Module, Function, Args) when is_atom(Module), is_atom(Function), is_list(Args) ->
    run({Module, Function, Args});
run(Code, RunOptions, ConcurrencyOptions) when is_map(RunOptions), is_map(ConcurrencyOptions) ->
    benchmark([Code], RunOptions, ConcurrencyOptions).

%% @doc Runs several benchmarks, one after another, with the same options.
-spec compare([code()], run_options()) -> [result()].
compare(Codes, RunOptions) when is_list(Codes) ->
    case benchmark(Codes, RunOptions, undefined) of
        Results when length(Codes) > 1 -> Results;
        Result -> [Result]
    end.

%% @doc Runs benchmarks; one result for one code, a list for several.
-spec benchmark([code()], run_options(), concurrency_options() | undefined) -> result() | [result()].
benchmark([_ | _] = Codes, RunOptions, ConcurrencyOptions) ->
    Opts = run_options(RunOptions),
    Conc = concurrency_options(ConcurrencyOptions),
    %% concurrency estimation compares throughputs: it needs continuous mode
    case {Opts, Conc} of
        {#{sample_duration := {timed, _} = Timed}, #{}} ->
            erlang:error({invalid_option, sample_duration, Timed});
        _ ->
            ok
    end,
    CodeMaps = [code_map(C) || C <- Codes],
    _ = [case erlperf_codegen:check(C) of ok -> ok; {error, Reason} -> erlang:error(Reason) end
         || C <- CodeMaps],
    Results = relative(dispatch(CodeMaps, RunOptions, Opts, Conc)),
    case Results of
        [One] when length(Codes) =:= 1 -> One;
        Many -> Many
    end;
benchmark(Codes, _RunOptions, _ConcurrencyOptions) ->
    erlang:error({invalid_option, code, Codes}).

%% @doc Starts a job that runs until stopped (`erlperf_job:stop/1') with `Concurrency'
%% workers, under the application's supervisor.
-spec start(code(), non_neg_integer()) -> pid().
start(Code, Concurrency) when is_integer(Concurrency), Concurrency >= 0 ->
    {ok, _} = application:ensure_all_started(erlperf),
    case supervisor:start_child(erlperf_job_sup, [code_map(Code)]) of
        {ok, Job} ->
            ok = erlperf_job:set_concurrency(Job, Concurrency),
            Job;
        {error, Reason} ->
            erlang:error(Reason)
    end.

%% @doc Microseconds taken by `Count' iterations of the runner, like `timer:tc/3'.
-spec time(code(), pos_integer()) -> non_neg_integer().
time(Code, Count) when is_integer(Count), Count > 0 ->
    with_job(code_map(Code), fun (Job, _Mon) -> erlperf_job:measure(Job, Count) div 1000 end).

%% @doc Renders an error raised by this module's functions as one line of text.
-spec format_error(term()) -> string().
format_error({invalid_option, Key, Value}) ->
    flat("invalid value for option ~ts: ~0tP", [Key, Value, ?FORMAT_DEPTH]);
format_error({bad_code, Role, Detail}) ->
    flat("~ts: ~ts", [Role, erlperf_codegen:format_error(Detail)]);
format_error({crashed, Role, {Class, Reason, Stack}}) ->
    flat("~ts crashed: ~ts", [Role, format_crash(Class, Reason, Stack)]);
format_error({Tag, _} = Reason) when Tag =:= nodedown; Tag =:= erpc ->
    erlperf_cluster:format_error(Reason);
format_error({load_failed, _, _, _} = Reason) ->
    erlperf_cluster:format_error(Reason);
format_error({peer_start, _} = Reason) ->
    erlperf_isolation:format_error(Reason);
format_error({peer_load, _, _} = Reason) ->
    erlperf_isolation:format_error(Reason);
format_error(Other) ->
    flat("~0tP", [Other, ?FORMAT_DEPTH]).

%% @doc Default run options.
-spec defaults() -> run_options().
defaults() ->
    #{concurrency => 1, samples => 3, sample_duration => 1000, warmup => 0,
      cv => undefined, report => basic, priority => high}.

%% @doc Default concurrency estimation options.
-spec concurrency_defaults() -> concurrency_options().
concurrency_defaults() ->
    #{min => 1, step => 1, max => erlang:system_info(process_limit) - 1000, threshold => 3}.

%%--------------------------------------------------------------------
%% Options

run_options(Opts) when is_map(Opts) ->
    maps:fold(fun check_option/3, defaults(), Opts);
run_options(Opts) ->
    erlang:error({invalid_option, run_options, Opts}).

check_option(Key, Value, Acc) ->
    case valid_option(Key, Value) of
        true -> Acc#{Key => Value};
        false -> erlang:error({invalid_option, Key, Value})
    end.

valid_option(concurrency, N) -> is_integer(N) andalso N > 0;
valid_option(samples, N) -> is_integer(N) andalso N > 0;
valid_option(sample_duration, {timed, N}) -> is_integer(N) andalso N > 0;
valid_option(sample_duration, N) -> is_integer(N) andalso N > 0;
valid_option(warmup, N) -> is_integer(N) andalso N >= 0;
valid_option(cv, undefined) -> true;
valid_option(cv, V) -> is_number(V) andalso V > 0;
valid_option(report, R) -> lists:member(R, [basic, extended, full]);
valid_option(priority, P) -> lists:member(P, [low, normal, high, max]);
valid_option(isolation, I) -> is_map(I);
valid_option(nodes, Nodes) -> is_list(Nodes) andalso Nodes =/= [] andalso lists:all(fun is_atom/1, Nodes);
valid_option(progress, F) -> is_function(F, 1);
valid_option(_, _) -> false.

concurrency_options(undefined) ->
    undefined;
concurrency_options(Opts) when is_map(Opts) ->
    Merged = maps:merge(concurrency_defaults(), Opts),
    maps:foreach(fun check_concurrency_option/2, Merged),
    #{min := Min, max := Max} = Merged,
    Min =< Max orelse erlang:error({invalid_option, max, Max}),
    Merged;
concurrency_options(Opts) ->
    erlang:error({invalid_option, concurrency_options, Opts}).

check_concurrency_option(Key, Value) ->
    lists:member(Key, [min, step, max, threshold]) andalso is_integer(Value) andalso Value > 0
        orelse erlang:error({invalid_option, Key, Value}).

code_map(#{runner := _} = Code) -> Code;
code_map(Code) when is_map(Code) -> erlang:error({invalid_option, code, Code});
code_map(Callable) -> #{runner => Callable}.

%%--------------------------------------------------------------------
%% Where to run

dispatch(CodeMaps, RunOptions, #{nodes := Nodes}, Conc) ->
    erlperf_cluster:benchmark(Nodes, CodeMaps, maps:remove(nodes, RunOptions), Conc);
dispatch(CodeMaps, RunOptions, #{isolation := _}, Conc) ->
    erlperf_isolation:benchmark(CodeMaps, maps:remove(isolation, RunOptions), Conc);
dispatch(CodeMaps, _RunOptions, #{priority := Priority, report := Report} = Opts, Conc) ->
    %% only a full report shows the system (reading it may start a shell on some OSes)
    System = case Report of
                 full -> erlperf_system:info();
                 _ -> #{}
             end,
    Old = process_flag(priority, Priority),
    try
        [shape(measure(CodeMap, Opts, Conc, System), Opts, Conc) || CodeMap <- CodeMaps]
    after
        process_flag(priority, Old)
    end.

%% Starts a job, runs Fun, and stops the job whatever happens.
with_job(CodeMap, Fun) ->
    case erlperf_job:start(CodeMap) of
        {ok, Job} ->
            Mon = erlang:monitor(process, Job),
            try
                Fun(Job, Mon)
            catch
                exit:{{shutdown, {crashed, _, _} = Crash}, _} -> erlang:error(Crash)
            after
                stop_job(Job, Mon)
            end;
        {error, Reason} ->
            erlang:error(Reason)
    end.

%% A job that stopped by itself before this (a runner crash not seen yet by the sampler,
%% in a short run) reports its reason here, rather than its crash being lost.
stop_job(Job, Mon) ->
    case (try erlperf_job:stop(Job) catch exit:_ -> gone end) of
        ok ->
            erlang:demonitor(Mon, [flush]),
            ok;
        {error, Crash} ->
            erlang:demonitor(Mon, [flush]),
            erlang:error(Crash);
        gone ->
            %% the DOWN is here already, unless the sampler took it (and raised it)
            receive {'DOWN', Mon, process, _, Reason} -> job_down(Reason)
            after 0 -> ok
            end
    end.

%%--------------------------------------------------------------------
%% Measuring

measure(CodeMap, Opts, Conc, System) ->
    with_job(CodeMap, fun (Job, Mon) ->
        Info = erlperf_job:info(Job),
        Report = run_mode(Job, Mon, Opts, Conc),
        Report#{version => 1, label => maps:get(label, Info),
                warnings => maps:get(warnings, Info), system => System,
                run_options => maps:remove(progress, Opts)}
    end).

run_mode(Job, Mon, #{sample_duration := {timed, _}} = Opts, undefined) ->
    timed(Job, Mon, Opts);
run_mode(Job, Mon, #{concurrency := C} = Opts, undefined) ->
    ok = erlperf_job:set_concurrency(Job, C),
    (continuous(Job, Mon, Opts))#{concurrency => C};
run_mode(Job, Mon, Opts, #{min := Min} = Conc) ->
    squeeze(Job, Mon, Opts, Conc, Min, undefined, 0, []).

%% Concurrency estimation: more workers until `threshold' steps bring no gain.
squeeze(Job, Mon, Opts, #{step := Step, max := Max, threshold := Threshold} = Conc,
        C, Best, Misses, History) ->
    notify(Opts, {concurrency, C}),
    ok = erlperf_job:set_concurrency(Job, C),
    Run = (continuous(Job, Mon, Opts))#{concurrency => C},
    NewHistory = [{C, maps:get(result, Run)} | History],
    {NewBest, NewMisses} = better(Run, Best, Misses),
    case NewMisses >= Threshold orelse C + Step > Max of
        true ->
            NewBest#{mode => concurrency, concurrency_options => Conc,
                     history => lists:reverse(NewHistory)};
        false ->
            squeeze(Job, Mon, Opts, Conc, C + Step, NewBest, NewMisses, NewHistory)
    end.

better(Run, undefined, _) -> {Run, 0};
better(#{result := #{average := New}} = Run, #{result := #{average := Old}}, _) when New > Old -> {Run, 0};
better(_Run, Best, Misses) -> {Best, Misses + 1}.

continuous(Job, Mon, #{sample_duration := Duration, concurrency := _} = Opts) ->
    Period = erlang:convert_time_unit(Duration, millisecond, native),
    Start = erlang:monotonic_time(),
    First = sample(Job, Mon),
    {Samples, Time, Sleep, CvMet} = collect(Job, Mon, Opts, Period, {Start, First}),
    Concurrency = erlperf_job:concurrency(Job),
    Summary = erlperf_stat:summary(Samples),
    Average = maps:get(average, Summary),
    IterationNs = iteration_time(Duration * 1000000 * Concurrency, Average),
    cv_flag(Opts, CvMet, #{mode => continuous, sleep => Sleep,
                           result => Summary#{time => Time, iteration_time => IterationNs}}).

iteration_time(_Ns, Average) when Average == 0 -> infinity;
iteration_time(Ns, Average) -> Ns / Average.

cv_flag(#{cv := undefined}, _CvMet, Report) -> Report;
cv_flag(_Opts, CvMet, Report) -> Report#{cv_met => CvMet}.

%% Takes warmup and measured samples on schedule; returns the kept samples, the measured
%% time (us), how the sampler waited and whether the cv target was met.
collect(Job, Mon, #{warmup := Warmup} = Opts, Period, Origin) ->
    State = #{job => Job, mon => Mon, period => Period, sleep => sleep,
              last => Origin, origin => Origin, tick => 0},
    WarmState = lists:foldl(
        fun (I, S) -> {_, S1} = next_sample(S), notify(Opts, {warmup, I, Warmup}), S1 end,
        State, lists:seq(1, Warmup)),
    #{last := {MeasureStart, _}} = WarmState,
    {Samples, #{last := {End, _}, sleep := Sleep}, CvMet} = sampled(fun next_sample/1, WarmState, Opts, []),
    {Samples, erlang:convert_time_unit(End - MeasureStart, native, microsecond), Sleep, CvMet}.

%% Takes samples with Take (State -> {Value, NewState}) until there are `samples' of
%% them and, in cv mode, their coefficient of variation is within the target or the cap
%% is reached. Returns the last `samples' values, oldest first, the final state and
%% whether the cv target was met (true without a target).
sampled(Take, State, #{samples := N} = Opts, Acc) ->
    {Value, NewState} = Take(State),
    NewAcc = [Value | Acc],
    %% the running mean costs a pass over the samples: only for a progress callback
    _ = is_map_key(progress, Opts)
        andalso notify(Opts, {sample, length(NewAcc), N, erlperf_stat:mean(NewAcc)}),
    case enough(NewAcc, Opts) of
        {done, Window, Met} -> {Window, NewState, Met};
        more -> sampled(Take, NewState, Opts, NewAcc)
    end.

enough(Acc, #{samples := N, cv := Cv}) ->
    Taken = length(Acc),
    Window = lists:sublist(Acc, N),
    if
        Taken < N -> more;
        Cv =:= undefined -> {done, lists:reverse(Window), true};
        true ->
            Met = erlperf_stat:cv(Window) =< Cv,
            case Met orelse Taken >= max(?CV_MIN_CAP, ?CV_CAP_FACTOR * N) of
                true -> {done, lists:reverse(Window), Met};
                false -> more
            end
    end.

%% Waits for the next deadline, reads the counter, normalises to the nominal period.
next_sample(#{job := Job, mon := Mon, period := Period, origin := {Origin, _},
              last := {LastTime, LastCount}, tick := Tick, sleep := Sleep} = State) ->
    Deadline = Origin + (Tick + 1) * Period,
    NewSleep = wait_until(Deadline, Period, Sleep, Mon),
    Now = erlang:monotonic_time(),
    Count = sample(Job, Mon),
    Value = (Count - LastCount) * Period / max(1, Now - LastTime),
    {Value, State#{last := {Now, Count}, tick := Tick + 1, sleep := NewSleep}}.

wait_until(Deadline, Period, sleep, Mon) ->
    sleep_until(Deadline, Mon),
    Late = erlang:convert_time_unit(erlang:monotonic_time() - Deadline, native, microsecond),
    case Late > max(?LATE_MS * 1000, ?LATE_FRACTION * erlang:convert_time_unit(Period, native, microsecond)) of
        true -> busy_wait;
        false -> sleep
    end;
wait_until(Deadline, _Period, busy_wait, Mon) ->
    sleep_until(Deadline - erlang:convert_time_unit(?BUSY_MARGIN_MS, millisecond, native), Mon),
    spin_until(Deadline),
    busy_wait.

sleep_until(Deadline, Mon) ->
    Ms = erlang:convert_time_unit(Deadline - erlang:monotonic_time(), native, millisecond),
    receive
        {'DOWN', Mon, process, _, Reason} -> job_down(Reason)
    after max(0, Ms) ->
        ok
    end.

spin_until(Deadline) ->
    case erlang:monotonic_time() >= Deadline of
        true -> ok;
        false -> spin_until(Deadline)
    end.

%% Reads the job's counter; a job that died in the meantime raises its crash.
sample(Job, Mon) ->
    try erlperf_job:sample(Job)
    catch exit:_ ->
        receive {'DOWN', Mon, process, _, Reason} -> job_down(Reason) end
    end.

-spec job_down(term()) -> no_return().
job_down({shutdown, {crashed, _, _} = Crash}) -> erlang:error(Crash);
job_down(Reason) -> erlang:error({job_stopped, Reason}).

timed(Job, _Mon, #{sample_duration := {timed, Count}, warmup := Warmup} = Opts) ->
    _ = [begin _ = erlperf_job:measure(Job, Count), notify(Opts, {warmup, I, Warmup}) end
         || I <- lists:seq(1, Warmup)],
    Measure = fun (none) -> {erlperf_job:measure(Job, Count) / 1000, none} end,
    {Samples, none, CvMet} = sampled(Measure, none, Opts, []),
    Summary = erlperf_stat:summary(Samples),
    cv_flag(Opts, CvMet,
            #{mode => timed, sleep => sleep, concurrency => 1,
              result => Summary#{time => round(lists:sum(Samples)),
                                 iteration_time => maps:get(average, Summary) * 1000 / Count}}).

notify(#{progress := Fun}, Event) ->
    try Fun(Event) catch _:_ -> ok end,
    ok;
notify(_Opts, _Event) ->
    ok.

%%--------------------------------------------------------------------
%% Result shapes

%% Full reports of several jobs get `qps' (iterations per second, all workers) and
%% `relative' (qps as a fraction of the fastest job's).
relative([_, _ | _] = Results) ->
    case lists:all(fun is_map/1, Results) of
        true ->
            WithQps = [R#{qps => qps(R)} || R <- Results],
            Max = lists:max([Q || #{qps := Q} <- WithQps]),
            [R#{relative => case Max == 0 of true -> 0.0; false -> Q / Max end}
             || #{qps := Q} = R <- WithQps];
        false ->
            Results
    end;
relative(Results) ->
    Results.

qps(#{mode := timed, result := #{average := Us}, run_options := #{sample_duration := {timed, N}}}) ->
    case Us == 0 of true -> 0.0; false -> N * 1.0e6 / Us end;
qps(#{result := #{average := Avg}, run_options := #{sample_duration := Ms}}) ->
    Avg * 1000 / Ms.

%% @private
%% A full report in the shape `report' asks for.
-spec shape(report(), #{report := basic | extended | full, atom() => term()},
            concurrency_options() | undefined) -> result().
shape(Report, #{report := full}, _Conc) ->
    Report;
shape(#{result := #{average := Avg}, concurrency := C}, #{report := basic}, #{}) ->
    {round(Avg), C};
shape(#{result := #{samples := Samples}, concurrency := C}, #{report := extended}, #{}) ->
    {[round(S) || S <- Samples], C};
shape(#{result := #{average := Avg}}, #{report := basic}, undefined) ->
    round(Avg);
shape(#{result := #{samples := Samples}}, #{report := extended}, undefined) ->
    [round(S) || S <- Samples].

%%--------------------------------------------------------------------
%% Error text

format_crash(error, undef, [{M, F, Args, _} | _]) ->
    Arity = if is_list(Args) -> length(Args); true -> Args end,
    Hint = case M of
               pg2 -> " (pg2 was removed in OTP 24; use pg instead)";
               _ -> case code:which(M) of
                        non_existing -> flat(" (module ~ts is not available: add its directory with -pa "
                                             "or ERL_LIBS)", [M]);
                        _ -> ""
                    end
           end,
    flat("undefined function ~ts:~ts/~b~ts", [M, F, Arity, Hint]);
format_crash(error, erlperf_state_erased, _Stack) ->
    "the runner erased the process dictionary key '$erlperf_publish', where the worker loop "
    "keeps its counter";
format_crash(Class, Reason, Stack) ->
    flat("~ts:~0tP~ts", [Class, Reason, ?FORMAT_DEPTH, where(Stack)]).

where([{M, F, Args, Loc} | _]) when is_atom(M) ->
    Arity = if is_list(Args) -> length(Args); true -> Args end,
    Generated = lists:prefix("erlperf_job_", atom_to_list(M)),
    case proplists:get_value(line, Loc) of
        Line when Generated, is_integer(Line) -> flat(" at line ~b", [Line]);
        _ when Generated -> "";
        undefined -> flat(" in ~ts:~ts/~b", [M, F, Arity]);
        Line -> flat(" in ~ts:~ts/~b, line ~b", [M, F, Arity, Line])
    end;
where(_) ->
    "".

flat(Format, Args) ->
    lists:flatten(io_lib:format(Format, Args)).
