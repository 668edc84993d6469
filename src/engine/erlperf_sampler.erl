%%% @doc The sampling layer: owns time for every benchmark, whichever node it runs on.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>reading</b>: one read of a job's counter through its handle
%%%       ({@link erlperf_job:sample_status/1}): the iterations started so far and how
%%%       many workers are overdue.</li>
%%%   <li><b>sample</b>: what one period adds. Continuous mode reads every job at the
%%%       same instant once per `sample_duration'; a sample's value is the iterations
%%%       between two readings, normalised to the nominal period with the measured time.
%%%       Timed mode: the microseconds one worker takes for `N' iterations.</li>
%%%   <li><b>window</b>: the last `samples' samples. With `cv', sampling goes on until
%%%       every job's window varies less than `cv', or the cap is reached.</li>
%%%   <li><b>overdue</b>: a sample ending while one of the job's workers had been in its
%%%       batch far longer than its last batch took (the runner's cost per call jumped,
%%%       or it blocks): the count may be ahead of the calls completed by up to one
%%%       batch. Such samples are counted in the run.</li>
%%%   <li><b>turn</b> (interleaved runs): one job runs alone for a sample, the others'
%%%       workers suspended; jobs take turns, sample by sample, so that they see the same
%%%       drift of the machine and never compete.</li>
%%%   <li><b>precise waiting</b>: when the timer wakes the sampler late (lock contention,
%%%       overloaded schedulers), it busy-waits the last `?BUSY_MARGIN_MS' before each
%%%       deadline for the rest of the run, and says so (`sleep => busy_wait'). Never in
%%%       turns: a turn is normalised with its measured time, and spinning would take
%%%       from the job whose turn it is.</li>
%%%   <li><b>stall</b>: the sampler woken more than half a period late. The late sample
%%%       spans the stall (its value is normalised with its measured time); the next
%%%       reading is a period after it: missed deadlines are not caught up.</li>
%%% </ul>
%%%
%%% Example (jobs started by the caller, see {@link erlperf_local}):
%%% ```
%%% {ok, Pid} = erlperf_job:start(#{runner => "rand:uniform()."}),
%%% ok = erlperf_job:set_concurrency(Pid, 1),
%%% Job = #{pid => Pid, handle => erlperf_job:handle(Pid), monitor => monitor(process, Pid)},
%%% [#{values := [_, _, _]}] = erlperf_sampler:continuous([Job], #{samples => 3,
%%%     sample_duration => 1000, warmup => 0, cv => undefined}).
%%% '''
%%% Cost and safety: runs in the calling process, which should run at `high' priority;
%%% a reading costs one `atomics:get/2' per worker and no message, and on Linux a read
%%% of the scheduler threads' `schedstat' files ({@link erlperf_interference}): never
%%% in the runner loop. A job that stops
%%% during the run raises its crash reason in the caller; the caller stops the jobs.
-module(erlperf_sampler).

%% API, called by erlperf_local
-export([continuous/2, timed/2, estimate/3, interleaved/2]).
%% API: what a job's 'DOWN' reason means, raised (erlperf_rate's pacer watches jobs too).
-export([job_down/1]).
%% API: a run of samples counted elsewhere (erlperf_local, of an open load's calls).
-export([counted/2]).

-export_type([job/0, options/0, run/0, progress/0]).

-type job() :: #{pid := pid(), handle := erlperf_job:handle(), monitor := reference(),
                 atom() => term()}.
-type options() :: #{samples := pos_integer(),
                     sample_duration := pos_integer() | {timed, pos_integer()},
                     warmup := non_neg_integer(),
                     cv := number() | undefined,
                     progress => fun((progress()) -> any()),
                     atom() => term()}.
-type progress() :: {warmup, pos_integer(), non_neg_integer()}
                  | {sample, pos_integer(), pos_integer(), float()}
                  | {concurrency, pos_integer()}.
%% What one run of one job gives: `samples' raw readings (continuous: the counter,
%% `samples + 1' of them; timed: integer microseconds), `values' the per-sample values
%% (iterations per `sample_duration', or microseconds), `time' the measured span (us).
%% `interference': per sample, what the host's other programs took of the VM's
%% scheduler threads ({@link erlperf_interference}; read at the sample's readings).
-type run() :: #{samples := [non_neg_integer()], values := [number()],
                 time := non_neg_integer(), sleep := sleep | busy_wait,
                 overdue := non_neg_integer(), cv_met => boolean(),
                 interference => [erlperf_interference:figures()]}.

%% Samples taken at most in cv mode: max(?CV_MIN_CAP, ?CV_CAP_FACTOR * samples).
-define(CV_MIN_CAP, 20).
-define(CV_CAP_FACTOR, 10).
%% The sampler counts as late when it wakes more than this many ms, or this fraction of
%% the sample duration, after the deadline; it then busy-waits for the rest of the run.
-define(LATE_MS, 2).
-define(LATE_FRACTION, 0.02).
%% A sample is flagged when its overdue workers hold more than this share of its
%% iterations (a few workers waiting for a scheduler among thousands are no news).
-define(OVERDUE_SHARE, 0.01).
%% Samples shorter than this (ms) go without the host's interference: its reads cost
%% about 0.2 ms each.
-define(HOST_MIN_MS, 20).
%% In busy-wait mode the sampler sleeps until this many ms before the deadline.
-define(BUSY_MARGIN_MS, 2).

%%--------------------------------------------------------------------
%% API

%% @doc A continuous run of samples counted elsewhere: `Values' per sample (an open
%% load's calls returned in each, see erlperf_rate) over `TimeNs' nanoseconds; the
%% counter's readings follow from the counts, and no sample was overdue. No timer was
%% found too coarse (`sleep'): the pacer polls the clock by design, which says nothing
%% of the timer.
-spec counted([non_neg_integer()], non_neg_integer()) -> run().
counted(Values, TimeNs) ->
    {Readings, _Total} = lists:mapfoldl(fun (V, Sum) -> {Sum + V, Sum + V} end, 0, Values),
    #{values => Values, samples => Readings, time => TimeNs div 1000, overdue => 0,
      sleep => sleep}.

%% @doc Continuous mode: reads all jobs at the same instants, once per
%% `sample_duration', after `warmup' discarded samples. Returns one run per job.
-spec continuous([job(), ...], options()) -> [run()].
continuous(Jobs, #{sample_duration := Ms} = Opts) ->
    with_host(Ms, fun (Host) -> continuous(Jobs, Opts, Host) end).

continuous(Jobs, #{sample_duration := Ms, warmup := Warmup} = Opts, Host) ->
    Period = erlang:convert_time_unit(Ms, millisecond, native),
    Now = erlang:monotonic_time(),
    Clock = #{origin => Now, tick => 0, period => Period, sleep => sleep, host => Host},
    First = {Now, read_all(Jobs), host_read(Host)},
    {Clock1, Start} = lists:foldl(
        fun (I, {C, _Last}) ->
            {C1, Reading} = next_reading(Jobs, C),
            notify(Opts, {warmup, I, Warmup}),
            {C1, Reading}
        end, {Clock, First}, lists:seq(1, Warmup)),
    sample_loop(Jobs, Opts, Clock1, [Start]).

%% @doc Timed mode: each job measures `samples' times how long `N' iterations take, all
%% jobs at once, one worker each. Returns one run per job.
-spec timed([job(), ...], options()) -> [run()].
timed([Job], Opts) ->
    [timed_run(Job, Opts)];
timed(Jobs, Opts) ->
    Quiet = maps:remove(progress, Opts),
    Self = self(),
    Proxies = [spawn_monitor(fun () -> Self ! {self(), timed_run(Job, Quiet)} end) || Job <- Jobs],
    [receive
         {Pid, Run} -> erlang:demonitor(Ref, [flush]), Run;
         {'DOWN', Ref, process, Pid, Reason} -> job_down(Reason)
     end || {Pid, Ref} <- Proxies].

%% @doc Concurrency estimation: continuous runs of one job with `min', `min + step', ...
%% workers, until `threshold' steps in a row bring no gain over the best, or `max' is
%% reached. Returns every step's run, in the order tried (which step to report is the
%% caller's choice: see erlperf_comparison:plateau/2).
-spec estimate(job(), options(), #{min := pos_integer(), step := pos_integer(),
                                   max := pos_integer(), threshold := pos_integer(),
                                   atom() => term()}) ->
    [{pos_integer(), run()}].
estimate(Job, Opts, #{min := Min} = Conc) ->
    estimate(Job, Opts, Conc, Min, undefined, 0, []).

%% @doc Interleaved runs: jobs (with their workers started and suspended) take turns,
%% one sample each per round, the others suspended. Continuous mode reads a job at the
%% start and the end of its turn; timed mode measures one sample per turn. Returns one
%% run per job; `samples' (continuous) are the job's counter before its first turn and
%% after each turn.
-spec interleaved([job(), ...], options()) -> [run()].
interleaved(Jobs, #{sample_duration := {timed, _}} = Opts) ->
    interleaved_timed(Jobs, Opts);
interleaved(Jobs, #{sample_duration := Ms} = Opts) ->
    with_host(Ms, fun (Host) -> interleaved(Jobs, Opts, Host) end).

interleaved(Jobs, #{sample_duration := Ms, warmup := Warmup} = Opts, Host) ->
    Period = erlang:convert_time_unit(Ms, millisecond, native),
    Clock = #{period => Period, sleep => sleep, host => Host,
              gate => maps:get(turn_gate, Opts, none)},
    Clock1 = lists:foldl(fun (I, C) ->
                             {_, C1} = take_turns(Jobs, C),
                             notify(Opts, {warmup, I, Warmup}),
                             C1
                         end, Clock, lists:seq(1, Warmup)),
    turns(Jobs, Opts, Clock1, []).

%%--------------------------------------------------------------------
%% Interleaved mode

%% Rounds are kept newest first, each a list of turns {Start, End} per job, where Start
%% and End are {Time, Reading}.
turns(Jobs, #{samples := N} = Opts, Clock, Rounds) ->
    {Round, NewClock} = take_turns(Jobs, Clock),
    All = [Round | Rounds],
    Taken = length(All),
    _ = is_map_key(progress, Opts)
        andalso notify(Opts, {sample, min(Taken, N), N,
                              erlperf_stat:mean(turn_values(lists:sublist(All, N), 1, Clock))}),
    Windows = fun () -> [turn_values(lists:sublist(All, N), I, Clock) || I <- lists:seq(1, length(Jobs))] end,
    case enough(Taken, Windows, Opts) of
        {true, Met} -> turn_runs(Jobs, lists:reverse(lists:sublist(All, N)), NewClock, Opts, Met);
        false -> turns(Jobs, Opts, NewClock, All)
    end.

%% A round: one turn per job (resume it, read, wait a period, read, suspend it), the jobs
%% in a random order (a fixed order would let anything periodic on the host, at the
%% round's period, fall on the same job's turns every time); the turns come back in the
%% jobs' order.
take_turns(Jobs, Clock) ->
    Shuffled = lists:sort([{rand:uniform(), I, Job} || {I, Job} <- lists:enumerate(Jobs)]),
    {Turns, NewClock} = lists:mapfoldl(fun ({_, I, Job}, C) ->
                                               {Turn, C1} = turn(Job, C),
                                               {{I, Turn}, C1}
                                       end, Clock, Shuffled),
    {[Turn || {_, Turn} <- lists:sort(Turns)], NewClock}.

turn(#{pid := Pid} = Job,
     #{period := Period, sleep := Sleep, host := Host, gate := Gate} = Clock) ->
    _ = Gate =:= none orelse Gate(start),
    ok = erlperf_job:resume(Pid),
    Start = erlang:monotonic_time(),
    First = read(Job),
    Host0 = host_read(Host),
    %% a turn's value is normalised with its measured time: the sampler sleeps, never
    %% spins (spinning on the scheduler of the job whose turn it is would take up to
    %% ?BUSY_MARGIN_MS of that job's turn, and not of the others': measured, 7.8% between
    %% two copies of the same code in 50 ms turns)
    sleep_until(Start + Period, [Job]),
    End = erlang:monotonic_time(),
    Last = read(Job),
    Host1 = host_read(Host),
    ok = erlperf_job:suspend(Pid),
    _ = Gate =:= none orelse Gate({done, element(1, Last) - element(1, First), End - Start}),
    {{{Start, First}, {End, Last}, host_delta(Host0, Host1)}, Clock#{sleep := Sleep}}.

%% The I-th job's values, oldest round first (Rounds newest first).
turn_values(Rounds, I, #{period := Period}) ->
    [(element(1, C1) - element(1, C0)) * Period / max(1, T1 - T0)
     || Round <- lists:reverse(Rounds), {{T0, C0}, {T1, C1}, _Host} <- [lists:nth(I, Round)]].

turn_runs(Jobs, Rounds, #{sleep := Sleep} = Clock, Opts, Met) ->
    [begin
         Turns = [lists:nth(I, Round) || Round <- Rounds],
         {{_, {First, _, _}}, _, _} = hd(Turns),
         cv_flag(Opts, Met,
                 #{samples => [First | [element(1, C) || {_, {_, C}, _} <- Turns]],
                   values => turn_values(lists:reverse(Rounds), I, Clock),
                   time => erlang:convert_time_unit(lists:sum([T1 - T0 || {{T0, _}, {T1, _}, _} <- Turns]),
                                                    native, microsecond),
                   sleep => Sleep,
                   overdue => length([P || {{_, {C0, _, _}}, {_, {C1, _, P}}, _} <- Turns,
                                           P > ?OVERDUE_SHARE * max(1, C1 - C0)]),
                   interference => interference([H || {_, _, H} <- Turns])})
     end || I <- lists:seq(1, length(Jobs))].

%% Timed mode, interleaved: one measurement of each job per round.
interleaved_timed(Jobs, #{sample_duration := {timed, Count}, warmup := Warmup} = Opts) ->
    _ = [begin _ = [measure(Pid, Count) || #{pid := Pid} <- Jobs], notify(Opts, {warmup, I, Warmup}) end
         || I <- lists:seq(1, Warmup)],
    timed_rounds(Jobs, Count, Opts, []).

%% Rounds newest first, each the microseconds of every job.
timed_rounds(Jobs, Count, #{samples := N} = Opts, Acc) ->
    All = [[measure(Pid, Count) / 1000 || #{pid := Pid} <- Jobs] | Acc],
    Taken = length(All),
    Window = lists:reverse(lists:sublist(All, N)),
    Series = [[lists:nth(I, Round) || Round <- Window] || I <- lists:seq(1, length(Jobs))],
    _ = is_map_key(progress, Opts)
        andalso notify(Opts, {sample, min(Taken, N), N, erlperf_stat:mean(hd(Series))}),
    case enough(Taken, fun () -> Series end, Opts) of
        {true, Met} ->
            [cv_flag(Opts, Met, #{samples => [round(U) || U <- Us], values => Us,
                                  time => round(lists:sum(Us)), sleep => sleep, overdue => 0})
             || Us <- Series];
        false ->
            timed_rounds(Jobs, Count, Opts, All)
    end.

%%--------------------------------------------------------------------
%% Continuous mode

%% Readings are kept newest first; the run is the last `samples + 1' of them.
sample_loop(Jobs, #{samples := N} = Opts, Clock, Readings) ->
    {NewClock, Reading} = next_reading(Jobs, Clock),
    All = [Reading | Readings],
    Taken = length(All) - 1,
    _ = is_map_key(progress, Opts)
        andalso notify(Opts, {sample, min(Taken, N), N, running_mean(All, N, Clock)}),
    Windows = fun () ->
                  Window = lists:reverse(lists:sublist(All, N + 1)),
                  [values(Window, I, Clock) || I <- lists:seq(1, length(Jobs))]
              end,
    case enough(Taken, Windows, Opts) of
        {true, Met} -> runs(Jobs, lists:sublist(All, N + 1), NewClock, Opts, Met);
        false -> sample_loop(Jobs, Opts, NewClock, All)
    end.

%% Whether sampling stops after Taken samples: once there are `samples' of them, and in
%% cv mode once every job's window (Windows() computes them) varies less than `cv', or
%% at the cap. A window of no iterations (a runner the machine did not run) varies by
%% nothing and tells nothing: it does not meet the goal. Returns {true, CvMet} or false.
enough(Taken, _Windows, #{samples := N}) when Taken < N ->
    false;
enough(_Taken, _Windows, #{cv := undefined}) ->
    {true, true};
enough(Taken, Windows, #{samples := N, cv := Cv}) ->
    Met = lists:all(fun (Values) -> erlperf_stat:mean(Values) > 0 andalso erlperf_stat:cv(Values) =< Cv end,
                    Windows()),
    case Met orelse Taken >= max(?CV_MIN_CAP, ?CV_CAP_FACTOR * N) of
        true -> {true, Met};
        false -> false
    end.

runs(Jobs, NewestFirst, #{sleep := Sleep} = Clock, Opts, Met) ->
    Window = lists:reverse(NewestFirst),
    {Start, _, _} = hd(Window),
    {End, _, _} = lists:last(Window),
    Time = erlang:convert_time_unit(End - Start, native, microsecond),
    Hosts = [H || {_, _, H} <- Window],
    Interference = interference([host_delta(H0, H1) || {H0, H1} <- lists:zip(lists:droplast(Hosts), tl(Hosts))]),
    [cv_flag(Opts, Met,
             #{samples => [element(1, lists:nth(I, Counts)) || {_, Counts, _} <- Window],
               values => values(Window, I, Clock), time => Time, sleep => Sleep,
               overdue => overdue(Window, I), interference => Interference})
     || I <- lists:seq(1, length(Jobs))].

%% Samples of the I-th job that ended with overdue workers credited with more than
%% ?OVERDUE_SHARE of the sample's iterations.
overdue([_ | _] = Window, I) ->
    Counts = [lists:nth(I, C) || {_, C, _} <- Window],
    length([S || {{C0, _, _}, {C1, _, Pending} = S} <- lists:zip(lists:droplast(Counts), tl(Counts)),
                 Pending > ?OVERDUE_SHARE * max(1, C1 - C0)]).

%% Per-sample values of the I-th job: iterations per nominal period.
values([{_, _, _} = First | Rest], I, #{period := Period}) ->
    {Values, _} = lists:mapfoldl(
        fun ({T, Counts, _} = R, {T0, Counts0, _}) ->
            C = element(1, lists:nth(I, Counts)),
            C0 = element(1, lists:nth(I, Counts0)),
            {{C - C0, T - T0}, R}
        end, First, Rest),
    [Delta * Period / max(1, Dt) || {Delta, Dt} <- Values].

%% The mean of the first job's window so far, for progress.
running_mean(NewestFirst, N, Clock) ->
    erlperf_stat:mean(values(lists:reverse(lists:sublist(NewestFirst, N + 1)), 1, Clock)).

cv_flag(#{cv := undefined}, _Met, Run) -> Run;
cv_flag(_Opts, Met, Run) -> Run#{cv_met => Met}.

%% Waits for the next deadline, then reads all jobs. Deadlines are a period apart from
%% the first reading (no drift from wake-up delays), until the sampler is woken more
%% than half a period late (the VM or the machine stalled it): the next deadline is then
%% a period after this reading, not the deadlines it missed, which would give readings
%% microseconds apart (samples of a few iterations, scaled up to a period, or none).
next_reading(Jobs, #{origin := Origin, tick := Tick, period := Period, sleep := Sleep,
                      host := Host} = Clock) ->
    Deadline = Origin + (Tick + 1) * Period,
    NewSleep = wait_until(Deadline, Period, Sleep, Jobs),
    Now = erlang:monotonic_time(),
    Reading = {Now, read_all(Jobs), host_read(Host)},
    Next = case Now - Deadline > Period div 2 of
               true -> Clock#{origin := Now, tick := 0};
               false -> Clock#{tick := Tick + 1}
           end,
    {Next#{sleep := NewSleep}, Reading}.

read_all(Jobs) ->
    [read(Job) || Job <- Jobs].

%% A job that died in the meantime raises its crash.
read(#{handle := Handle, monitor := Mon}) ->
    case erlperf_job:sample_status(Handle) of
        undefined -> receive {'DOWN', Mon, process, _, Reason} -> job_down(Reason) end;
        Status -> Status
    end.

wait_until(Deadline, Period, sleep, Jobs) ->
    sleep_until(Deadline, Jobs),
    Late = erlang:convert_time_unit(erlang:monotonic_time() - Deadline, native, microsecond),
    Allowed = max(?LATE_MS * 1000,
                  ?LATE_FRACTION * erlang:convert_time_unit(Period, native, microsecond)),
    case Late > Allowed of
        true -> busy_wait;
        false -> sleep
    end;
wait_until(Deadline, _Period, busy_wait, Jobs) ->
    sleep_until(Deadline - erlang:convert_time_unit(?BUSY_MARGIN_MS, millisecond, native), Jobs),
    spin_until(Deadline),
    busy_wait.

sleep_until(Deadline, Jobs) ->
    Ms = erlang:convert_time_unit(Deadline - erlang:monotonic_time(), native, millisecond),
    Monitors = maps:from_list([{Mon, Pid} || #{monitor := Mon, pid := Pid} <- Jobs]),
    receive
        {'DOWN', Mon, process, _, Reason} when is_map_key(Mon, Monitors) -> job_down(Reason)
    after max(0, Ms) ->
        ok
    end.

spin_until(Deadline) ->
    case erlang:monotonic_time() >= Deadline of
        true -> ok;
        false -> spin_until(Deadline)
    end.

%% @doc Raises what the 'DOWN' reason of a job means: its crash (`{crashed, Role,
%% Detail}') or `{job_stopped, Reason}'.
-spec job_down(term()) -> no_return().
job_down({shutdown, {crashed, _, _} = Crash}) -> erlang:error(Crash);
job_down({{shutdown, {crashed, _, _} = Crash}, _}) -> erlang:error(Crash);
job_down({{crashed, _, _} = Crash, _Stack}) -> erlang:error(Crash);
job_down({{job_stopped, _} = Stopped, _Stack}) -> erlang:error(Stopped);
job_down({{call_not_returned, _, _, _} = Stuck, _Stack}) -> erlang:error(Stuck);
job_down(Reason) -> erlang:error({job_stopped, Reason}).

%%--------------------------------------------------------------------
%% Timed mode

timed_run(#{pid := Pid}, #{sample_duration := {timed, Count}, warmup := Warmup} = Opts) ->
    _ = [begin _ = measure(Pid, Count), notify(Opts, {warmup, I, Warmup}) end
         || I <- lists:seq(1, Warmup)],
    {Taken, Met} = with_host(timed, fun (Host) -> timed_samples(Pid, Count, Host, Opts, []) end),
    Us = [U || {U, _} <- Taken],
    cv_flag(Opts, Met, #{samples => [round(U) || U <- Us], values => Us,
                         time => round(lists:sum(Us)), sleep => sleep, overdue => 0,
                         interference => interference([H || {_, H} <- Taken])}).

%% Samples newest first, each {Microseconds, Interference}.
timed_samples(Pid, Count, Host, #{samples := N} = Opts, Acc) ->
    Host0 = host_read(Host),
    Us = measure(Pid, Count) / 1000,
    All = [{Us, host_delta(Host0, host_read(Host))} | Acc],
    Taken = length(All),
    Values = fun (Samples) -> [U || {U, _} <- Samples] end,
    _ = is_map_key(progress, Opts)
        andalso notify(Opts, {sample, min(Taken, N), N, erlperf_stat:mean(Values(lists:sublist(All, N)))}),
    Window = lists:reverse(lists:sublist(All, N)),
    case enough(Taken, fun () -> [Values(Window)] end, Opts) of
        {true, Met} -> {Window, Met};
        false -> timed_samples(Pid, Count, Host, Opts, All)
    end.

measure(Pid, Count) ->
    try erlperf_job:measure_ns(Pid, Count)
    catch exit:{Reason, {gen_server, call, _}} -> job_down(Reason)
    end.

%%--------------------------------------------------------------------
%% Concurrency estimation

estimate(#{pid := Pid} = Job, Opts, #{step := Step, max := Max, threshold := Threshold} = Conc,
         C, Best, Misses, History) ->
    notify(Opts, {concurrency, C}),
    ok = erlperf_job:set_concurrency(Pid, C),
    [Run] = continuous([Job], Opts),
    NewHistory = [{C, Run} | History],
    {NewBest, NewMisses} = better({C, Run}, Best, Misses),
    case NewMisses >= Threshold orelse C + Step > Max of
        true ->
            lists:reverse(NewHistory);
        false ->
            estimate(Job, Opts, Conc, C + Step, NewBest, NewMisses, NewHistory)
    end.

better(Step, undefined, _Misses) ->
    {Step, 0};
better({_, #{values := New}} = Step, {_, #{values := Old}} = Best, Misses) ->
    case erlperf_stat:mean(New) > erlperf_stat:mean(Old) of
        true -> {Step, 0};
        false -> {Best, Misses + 1}
    end.

%%--------------------------------------------------------------------
%% The host's interference (erlperf_interference), read by this process at every
%% reading; not for samples shorter than ?HOST_MIN_MS, whose reads would cost a
%% noticeable share of a sample.

%% Fun(Host) with the host's handle (`none': not read), closed after whatever happens.
%% Timed mode's samples are read whatever their length (a sample is one batch, already
%% timed apart from the reads); interleaved timed mode's are not read.
with_host(Duration, Fun) ->
    Host = case Duration of
               timed -> erlperf_interference:open();
               Ms when Ms >= ?HOST_MIN_MS -> erlperf_interference:open();
               _ -> none
           end,
    try Fun(Host)
    after host_close(Host)
    end.

host_read(none) -> none;
host_read(Host) -> erlperf_interference:read(Host).

host_delta(none, none) -> none;
host_delta(Earlier, Later) -> erlperf_interference:delta(Earlier, Later).

host_close(none) -> ok;
host_close(Host) -> erlperf_interference:close(Host).

%% The figures of every sample, or none (not read).
interference(Figures) ->
    case lists:member(none, Figures) of
        true -> [];
        false -> Figures
    end.

%%--------------------------------------------------------------------
%% Internal

notify(#{progress := Fun}, Event) ->
    try Fun(Event) catch _:_ -> ok end,
    ok;
notify(_Opts, _Event) ->
    ok.
