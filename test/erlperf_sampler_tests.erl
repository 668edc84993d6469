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

%% The sampler runs in a process of its own; its progress call after the second sample
%% sleeps ?STALL_MS, as if the machine had not run it. Each progress call, right after
%% its reading, stamps the time: a reading a period after the one before gives stamps a
%% period apart; readings catching up on missed deadlines would give stamps
%% microseconds apart, and samples of no iterations.
stall() ->
    {ok, Pid} = erlperf_job:start(#{runner => {rand, uniform, []}}),
    try
        ok = erlperf_job:set_concurrency(Pid, 1),
        Job = #{pid => Pid, handle => erlperf_job:handle(Pid), monitor => monitor(process, Pid)},
        Test = self(),
        Progress = fun ({sample, Taken, _, _}) ->
                           Test ! {sample, self(), erlang:monotonic_time()},
                           _ = Taken =:= 2 andalso timer:sleep(?STALL_MS);
                       (_) ->
                           ok
                   end,
        Options = #{samples => ?SAMPLES, sample_duration => ?PERIOD_MS, warmup => 0,
                    cv => undefined, progress => Progress},
        {Sampler, Mon} = spawn_monitor(
                           fun () ->
                                   process_flag(priority, high),
                                   Test ! {run, erlperf_sampler:continuous([Job], Options)}
                           end),
        [#{values := Values, samples := Counts}] = receive {run, R} -> R end,
        receive {'DOWN', Mon, process, Sampler, normal} -> ok end,
        Stamps = [receive {sample, Sampler, Stamp} -> Stamp after 0 -> error({no_sample, I}) end
                  || I <- lists:seq(1, ?SAMPLES)],
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
        %% the runner ran in the samples (on a host running three test legs at once, the
        %% machine may give it no CPU in a sample now and then: twice at most here)
        ?assert(length([V || V <- Values, V == 0]) =< 2, Values)
    after
        erlperf_job:stop(Pid)
    end.
