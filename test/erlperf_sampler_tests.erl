%%% @doc eunit tests of `erlperf_sampler': a sampler stalled for several periods (the
%%% VM or the machine did not run it) takes its next reading a period after it wakes,
%%% not one reading per missed deadline.
-module(erlperf_sampler_tests).

-include_lib("eunit/include/eunit.hrl").

%% The sample period (ms), the samples of the run, and how long the sampler is stalled:
%% four periods and a half, so that four deadlines pass while it cannot run.
-define(PERIOD_MS, 100).
-define(SAMPLES, 8).
-define(STALL_MS, 450).

stall_test_() ->
    {timeout, 60, fun stall/0}.

%% The sampler runs in a process of its own, suspended after its second sample for
%% ?STALL_MS. Each sample's progress call, right after its reading, stamps the time: a
%% reading a period after the one before gives stamps a period apart; readings catching
%% up on missed deadlines would give stamps microseconds apart, and samples of no
%% iterations.
stall() ->
    {ok, Pid} = erlperf_job:start(#{runner => {rand, uniform, []}}),
    try
        ok = erlperf_job:set_concurrency(Pid, 1),
        Job = #{pid => Pid, handle => erlperf_job:handle(Pid), monitor => monitor(process, Pid)},
        Test = self(),
        Progress = fun ({sample, _, _, _}) -> Test ! {sample, self(), erlang:monotonic_time()};
                       (_) -> ok
                   end,
        Options = #{samples => ?SAMPLES, sample_duration => ?PERIOD_MS, warmup => 0,
                    cv => undefined, progress => Progress},
        {Sampler, Mon} = spawn_monitor(
                           fun () ->
                                   process_flag(priority, high),
                                   Test ! {run, erlperf_sampler:continuous([Job], Options)}
                           end),
        Stamps = stamps(Sampler, 1, []),
        [#{values := Values, samples := Counts}] = receive {run, R} -> R end,
        receive {'DOWN', Mon, process, Sampler, normal} -> ok end,
        Gaps = [erlang:convert_time_unit(B - A, native, millisecond)
                || {A, B} <- lists:zip(lists:droplast(Stamps), tl(Stamps))],
        ?debugFmt("gaps between readings (ms): ~w; values ~w", [Gaps, [round(V) || V <- Values]]),
        %% the second gap spans the stall; the three readings after it are three periods
        %% later (caught-up deadlines: all at once). Half of that: a stamp taken late (the
        %% machine did not run the sampler between its reading and its progress call)
        %% moves the stamps, not the readings.
        [_, Stall, A, B, C | _] = Gaps,
        ?assert(Stall >= ?STALL_MS, Gaps),
        ?assert(A + B + C >= 3 * ?PERIOD_MS div 2, Gaps),
        ?assertEqual(?SAMPLES, length(Values)),
        ?assertEqual(?SAMPLES + 1, length(Counts)),
        %% every sample counted iterations: the runner ran in each
        ?assert(lists:all(fun (V) -> V > 0 end, Values), Values)
    after
        erlperf_job:stop(Pid)
    end.

%% Stamps of the sampler's progress messages, oldest first; the sampler is suspended
%% for ?STALL_MS once the second arrives.
stamps(Sampler, N, Acc) when N =< ?SAMPLES ->
    receive
        {sample, Sampler, Stamp} ->
            _ = N =:= 2 andalso suspend_for(Sampler, ?STALL_MS),
            stamps(Sampler, N + 1, [Stamp | Acc])
    after 30000 ->
        error({no_sample, N})
    end;
stamps(_Sampler, _N, Acc) ->
    lists:reverse(Acc).

suspend_for(Pid, Ms) ->
    true = erlang:suspend_process(Pid),
    timer:sleep(Ms),
    true = erlang:resume_process(Pid).
