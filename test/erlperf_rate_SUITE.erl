%%% @doc Tests of open load (`rate' runs, erlperf_rate): the schedule holds its rate,
%%% response times count the wait behind a stalled call (coordinated omission) where
%%% service times do not, the pool grows or is capped, a crash, a call that never returns
%%% and bad options end cleanly, and the Poisson schedule is what it claims.
-module(erlperf_rate_SUITE).

-include_lib("stdlib/include/assert.hrl").
-include_lib("common_test/include/ct.hrl").

%% common_test callbacks
-export([suite/0, all/0, groups/0]).

%% gen_server callbacks: the server of ramp_knee/1, 5 ms a call.
-export([init/1, handle_call/3, handle_cast/2]).
%% logger handler callback: the events of crash_among_several/1.
-export([log/2]).

%% Test cases
-export([even_rate/0, even_rate/1, coordinated_omission/0, coordinated_omission/1,
         pool_grows/0, pool_grows/1, pool_capped/0, pool_capped/1, crash/0, crash/1,
         unfinished/0, unfinished/1, bad_options/0, bad_options/1, record/0, record/1,
         poisson_schedule/0, poisson_schedule/1, even_schedule/0, even_schedule/1,
         ramp_knee/0, ramp_knee/1, ramp_without_slo/0, ramp_without_slo/1,
         ring_full/0, ring_full/1, crash_among_several/0, crash_among_several/1]).

%% How long a process left behind is waited for.
-define(SETTLE_MS, 5000).

suite() ->
    [{timetrap, {seconds, 120}}].

all() ->
    [{group, schedule}, {group, runs}].

groups() ->
    [{schedule, [parallel], [even_schedule, poisson_schedule, bad_options]},
     %% one at a time: each holds a rate on the machine
     {runs, [], [even_rate, coordinated_omission, pool_grows, pool_capped, crash, unfinished,
                 record, ramp_knee, ramp_without_slo, ring_full, crash_among_several]}].

%%--------------------------------------------------------------------
%% The schedule

even_schedule() ->
    [{doc, "Even arrivals: call I is due at T0 + I / rate, with no drift from rounding"}].
even_schedule(Config) when is_list(Config) ->
    {Starts, _} = erlperf_rate:arrivals({even, 1.0e9 / 3}, 1000, 30001),
    ?assertEqual(1000, hd(Starts)),
    ?assertEqual(1000 + 10000000000000, lists:last(Starts)),
    ?assertEqual([333333333, 333333334], lists:usort(gaps(Starts))).

poisson_schedule() ->
    [{doc, "Poisson arrivals: exponential gaps of mean 1 / rate (mean within 1%, the share "
           "of gaps above the mean e^-1 within 0.01), the same schedule for the same seed"}].
poisson_schedule(Config) when is_list(Config) ->
    Mean = 1.0e6,
    Arrival = fun (Seed) -> {poisson, Mean, rand:seed_s(exsss, Seed), 0} end,
    {Starts, _} = erlperf_rate:arrivals(Arrival(42), 0, 100000),
    Gaps = gaps([0 | Starts]),
    Avg = lists:sum(Gaps) / length(Gaps),
    ?assert(abs(Avg / Mean - 1) < 0.01, Avg),
    Above = length([G || G <- Gaps, G > Mean]) / length(Gaps),
    ?assert(abs(Above - math:exp(-1)) < 0.01, Above),
    ?assert(lists:all(fun (G) -> G >= 0 end, Gaps)),
    ?assertEqual(element(1, erlperf_rate:arrivals(Arrival(42), 0, 100)),
                 element(1, erlperf_rate:arrivals(Arrival(42), 0, 100))),
    ?assertNotEqual(element(1, erlperf_rate:arrivals(Arrival(42), 0, 100)),
                    element(1, erlperf_rate:arrivals(Arrival(43), 0, 100))).

bad_options() ->
    [{doc, "A rate of 0, below, above the limit or not a number, an unknown arrival, and a "
           "rate with what it cannot go with: refused before anything starts"}].
bad_options(Config) when is_list(Config) ->
    Run = fun (Opts) -> catch_error(fun () -> erlperf:run("ok.", Opts) end) end,
    [?assertMatch({error, {invalid_option, rate, Bad}}, Run(#{rate => Bad}))
     || Bad <- [0, -5, 1000001, 1.5, <<"10k">>, fast, [10, 0], []]],
    ?assertMatch({error, {invalid_option, arrival, uniform}}, Run(#{rate => 10, arrival => uniform})),
    ?assertEqual("invalid value for option rate: 2000000 is above the limit of 1000000 calls a "
                 "second (one process hands out every call)",
                 erlperf:format_error({invalid_option, rate, 2000000})),
    [?assertMatch({error, {incompatible_options, rate, 10, What}}, Run(Opts#{rate => 10}))
     || {What, Opts} <- [{sample_duration, #{sample_duration => {timed, 100}}},
                         {latency, #{latency => true}}, {cv, #{cv => 0.1}},
                         {{compare, interleaved}, #{compare => interleaved}},
                         {forks, #{forks => 3}}]],
    ?assertMatch({error, {incompatible_options, rate, 10, concurrency_estimation}},
                 catch_error(fun () -> erlperf:run("ok.", #{rate => 10}, #{}) end)),
    ?assertEqual("rate (10 calls a second) cannot be combined with concurrency estimation: an "
                 "open load holds the rate whatever the concurrency",
                 erlperf:format_error({incompatible_options, rate, 10, concurrency_estimation})),
    %% what is measured after a closed loop's run, or before it: an open load has none
    [?assertMatch({error, {incompatible_options, rate, 10, What}}, Run(Opts#{rate => 10}))
     || {What, Opts} <- [{memory, #{memory => true}}, {profile, #{profile => eprof}},
                         {warmup, #{warmup => 1}}]],
    ?assertMatch({error, {incompatible_options, rate, 10, bytes}},
                 catch_error(fun () -> erlperf:sweep(["lists:seq(1, N)."],
                                                     #{rate => 10, params => [{'N', [1]}],
                                                       bytes => "N"})
                             end)),
    ?assertEqual("rate (10 calls a second) cannot be combined with memory: an open load measures "
                 "its calls' times, not their cost (run without --rate for it)",
                 erlperf:format_error({incompatible_options, rate, 10, memory})).

%%--------------------------------------------------------------------
%% Runs

even_rate() ->
    [{doc, "timer:sleep(1) at 500 a second for 3 s: 1500 calls due, all accounted for "
           "(started or skipped), at least 90% started (1% on a quiet machine: make bench and "
           "doc/cli.md; CI shares two cores among three releases), service and response "
           "medians of a sleep (1 to 10 ms: a sleep ends on the timer's millisecond ticks, "
           "later on a loaded machine)"}].
even_rate(Config) when is_list(Config) ->
    Check = leak_check(),
    #{result := #{rate := Rate, values := Values}, concurrency := Workers} =
        erlperf:run("timer:sleep(1).", #{rate => 500, report => full}),
    #{started := Started, skipped := Skipped, completed := Completed, achieved := Achieved,
      service := Service, response := Response, workers := Workers,
      unfinished := Unfinished} = Rate,
    ?assertEqual(1500, Started + Skipped),
    ?assert(Achieved >= 0.9 * 500, Rate),
    %% the samples count the calls that returned during the run; the last may return after
    ?assertEqual(Completed, Started - Unfinished),
    ?assert(lists:sum(Values) =< Completed andalso lists:sum(Values) >= Completed - Workers,
            {Values, Completed}),
    [?assert(P50 >= 1000000 andalso P50 =< 10000000, {Which, P50})
     || {Which, H} <- [{service, Service}, {response, Response}],
        P50 <- [erlperf_histogram:percentile(H, 50)]],
    Check().

coordinated_omission() ->
    [{doc, "One call in 100 stalls 50 ms, at 1000 a second with one worker: the calls due "
           "during a stall wait for it, so the response-time p90 is tens of milliseconds (as "
           "a queue of the schedule computes it, its other calls' cost fitted to the late "
           "calls counted; only a floor on a saturated host), while the service-time p90 is "
           "under a millisecond"}].
coordinated_omission(Config) when is_list(Config) ->
    Runner = "r() -> N = case get(calls) of undefined -> 1; C -> C + 1 end, put(calls, N), "
             "case N rem 100 of 0 -> timer:sleep(50); _ -> ok end.",
    #{result := #{rate := Rate}} =
        erlperf:run(Runner, #{rate => 1000, concurrency => 1, report => full}),
    #{service := Service, response := Response, started := Started, late := Late} = Rate,
    ServiceP90 = erlperf_histogram:percentile(Service, 90),
    ResponseP90 = erlperf_histogram:percentile(Response, 90),
    ?assert(ServiceP90 < 1000000, {service_p90, ServiceP90}),
    ?assert(ResponseP90 > 20000000, {response_p90, ResponseP90}),
    %% The schedule's queue: calls 1 ms apart, one server, every 100th call taking the
    %% stall. The stall is the median of the stalled calls' service times (they are the
    %% slowest 1%: p99.5), which a sleep of 50 ms ending on a later tick lengthens. The
    %% other calls cost next to nothing on a quiet host; on a loaded one the worker loses
    %% the CPU between and within them, so the queue behind a stall drains more slowly.
    %% That cost is not guessed: it is the one at which the queue has as many late calls
    %% as the run counted (a count independent of the response histogram).
    Stall = erlperf_histogram:percentile(Service, 99.5),
    Cost = fit_cost(Started, Stall, Late),
    {Responses, ModelLate} = queue(Started, 1000000, Stall, Cost),
    Expected = erlperf_histogram:percentile(erlperf_histogram:from_values(Responses), 90),
    Model = #{response_p90 => ResponseP90, expected => Expected, stall => Stall,
              cost => Cost, late => Late, model_late => ModelLate, started => Started},
    ct:pal("queue model: ~p", [Model]),
    %% Near a full server (the stall and 99 calls taking 95 ms of every 100), a small
    %% error in the cost moves the p90 a lot, and a host that loaded runs the worker in
    %% bursts no cost describes: the queue is then a floor, not an estimate.
    Busy = Stall + 99 * Cost,
    case abs(ModelLate - Late) =< Started div 100 andalso Busy < 95000000 of
        true ->
            ?assert(abs(ResponseP90 - Expected) =< 0.25 * Expected, Model);
        false ->
            %% the worker ran in bursts (three test legs on two cores): the model's
            %% cost fits no call, and only the stall's own wait is sure to be in the p90
            ?assert(ResponseP90 >= Stall / 2, Model),
            {comment, "host saturated: the queue model is a floor"}
    end.

pool_grows() ->
    [{doc, "Calls of 10 ms at 500 a second need 5 workers at least: without a cap the pool "
           "grows to them, and calls start on time"}].
pool_grows(Config) when is_list(Config) ->
    #{result := #{rate := Rate}} =
        erlperf:run("timer:sleep(10).", #{rate => 500, report => full, samples => 2}),
    #{workers := Workers, started := Started, skipped := Skipped} = Rate,
    ?assert(Workers >= 5, Rate),
    ?assertEqual(1000, Started + Skipped),
    ?assert(Skipped =< 10, Rate).

pool_capped() ->
    [{doc, "Calls of 10 ms at 500 a second with -c 2: two workers serve 200 a second; the "
           "calls behind them are late, those still queued at the end skipped, and the "
           "text says so"}].
pool_capped(Config) when is_list(Config) ->
    [Report] = erlperf:benchmark(["timer:sleep(10)."],
                                 #{rate => 500, concurrency => 2, report => full, samples => 2},
                                 undefined),
    #{result := #{rate := #{workers := 2, started := Started, skipped := Skipped, late := Late}}} = Report,
    ?assertEqual(1000, Started + Skipped),
    ?assert(Started < 600, Started),
    ?assert(Late > Started div 2, {Late, Started}),
    Text = lists:flatten(io_lib:format("~ts", [erlperf_report:format([Report], #{})])),
    ?assertNotEqual(nomatch, string:find(Text, "calls of timer:sleep(10). due during the run never "
                                               "started"), Text).

crash() ->
    [{doc, "A runner crashing on its 10th call: the crash is raised, nothing is left"}].
crash(Config) when is_list(Config) ->
    Check = leak_check(),
    Runner = "r() -> N = case get(calls) of undefined -> 1; C -> C + 1 end, put(calls, N), "
             "N < 10 orelse erlang:error(tenth).",
    ?assertMatch({error, {crashed, runner, {error, tenth, _}}},
                 catch_error(fun () -> erlperf:run(Runner, #{rate => 100, concurrency => 1}) end)),
    Check().

unfinished() ->
    [{doc, "A call that never returns, one worker: it is unfinished, the calls behind it "
           "skipped; the run ends, nothing is left"}].
unfinished(Config) when is_list(Config) ->
    Check = leak_check(),
    #{result := #{rate := Rate}} =
        erlperf:run("receive after infinity -> ok end.",
                    #{rate => 10, concurrency => 1, samples => 1, report => full}),
    ?assertMatch(#{started := 1, unfinished := 1, skipped := 9, completed := 0}, Rate),
    ?assertEqual(0, erlperf_histogram:count(maps:get(response, Rate))),
    Check().

record() ->
    [{doc, "The record of a rate run holds the pacing figures, the times in microseconds "
           "and the histograms, which the schema accepts, read back to the same percentiles"}].
record(Config) when is_list(Config) ->
    Reports = erlperf:benchmark(["rand:uniform()."], #{rate => 2000, report => full, samples => 1},
                                undefined),
    #{<<"runs">> := [#{<<"rate">> := Rate}]} = Record = erlperf_record:from_reports(Reports),
    ?assertEqual(ok, erlperf_schema:check(benchmark, Record)),
    #{<<"target">> := 2000, <<"arrival">> := <<"even">>, <<"started">> := Started,
      <<"response_histogram">> := #{<<"buckets">> := Buckets, <<"count">> := Count},
      <<"response_us">> := #{<<"p99">> := P99}} = Rate,
    ?assertEqual(Count, lists:sum([N || [_, N] <- Buckets])),
    ?assert(Started >= 1800, Started),
    [#{result := #{rate := #{response := H}}}] = Reports,
    ?assertEqual(erlperf_histogram:percentile(H, 99) / 1000, P99),
    %% written and read back as JSON, the same
    {ok, Back} = erlperf_json:decode(erlperf_json:encode(Record)),
    ?assertEqual(ok, erlperf_schema:check(benchmark, Back)).

ramp_knee() ->
    [{doc, "A gen_server that takes 5 ms a call (200 calls a second at most), called at a "
           "ramp 50..800 with p99 =< 500 ms (which 50 a second holds however busy the host): "
           "the rates below its capacity hold, the first above does not and ends the ramp; every report names the highest that held "
           "(the knee), the text says it, and the HTML chart, loaded in Chromium, marks it"}].
ramp_knee(Config) when is_list(Config) ->
    Server = #{init => fun () -> {ok, Pid} = gen_server:start(?MODULE, [], []), Pid end,
               init_runner => fun (Pid) -> Pid end,
               runner => fun (Pid) -> gen_server:call(Pid, slow) end,
               done => fun (Pid) -> gen_server:stop(Pid) end,
               label => "slow server"},
    Reports = erlperf:benchmark([Server],
                                #{rate => [50, 100, 200, 400, 800], samples => 1,
                                  slo => [{99, 500000000}], report => full}, undefined),
    Rates = [maps:get(rate, R) || #{result := R} <- Reports],
    Targets = [T || #{target := T} <- Rates],
    ?assertMatch([50 | _], Targets),
    %% the ramp stops at the first rate that did not hold: the last one, and only it
    [#{held := false} = Last | HeldFirst] = lists:reverse(Rates),
    ?assert(lists:all(fun (#{held := H}) -> H end, HeldFirst), Rates),
    ?assert(maps:get(target, Last) >= 100, Last),
    Knee = lists:max([T || #{target := T, held := true} <- Rates]),
    ?assertEqual([Knee], lists:usort([K || #{knee := K} <- Rates])),
    Text = lists:flatten(io_lib:format("~ts", [erlperf_report:format(Reports, #{})])),
    Line = io_lib:format("slow server: p99 =< ~ts held up to ~b calls a second (the knee); ~b did "
                         "not hold", [erlperf_units:time(500000000), Knee, maps:get(target, Last)]),
    ?assertNotEqual(nomatch, string:find(Text, lists:flatten(Line)), Text),
    %% the page: response time against rate, the knee marked, in a real browser
    Page = filename:join(?config(priv_dir, Config), "ramp_knee.html"),
    ok = file:write_file(Page, erlperf_html_bench:render(erlperf_record:from_reports(Reports))),
    Marker = iolist_to_binary(["knee ", erlperf_svg:format_number(Knee), "/s"]),
    {ok, Html} = file:read_file(Page),
    ?assertNotEqual(nomatch, binary:match(Html, Marker)),
    case erlperf_browser:find() of
        {skip, Why} ->
            {comment, Why};
        {ok, Chromium} ->
            Shot = filename:join(?config(priv_dir, Config), "ramp_knee.png"),
            ?assertMatch(#{exit := 0, console := [], requests := [], screenshot := true},
                         erlperf_browser:load(Chromium, Page, Shot)),
            Dom = erlperf_browser:dom(Chromium, Page),
            ?assertNotEqual(nomatch, binary:match(Dom, <<"Response time against rate">>)),
            ?assertNotEqual(nomatch, binary:match(Dom, Marker))
    end.

ramp_without_slo() ->
    [{doc, "A ramp without objectives runs every rate, and nothing is marked"}].
ramp_without_slo(Config) when is_list(Config) ->
    Reports = erlperf:benchmark(["rand:uniform()."], #{rate => [100, 200], samples => 1,
                                                       report => full}, undefined),
    ?assertEqual([100, 200], [T || #{result := #{rate := #{target := T}}} <- Reports]),
    ?assertEqual([], [R || #{result := #{rate := #{knee := _}}} = R <- Reports]),
    ?assertMatch({error, {incompatible_options, slo, _, no_rate}},
                 catch_error(fun () -> erlperf:run("ok.", #{slo => [{99, 1000}]}) end)),
    ?assertMatch({error, {invalid_option, slo, _}},
                 catch_error(fun () -> erlperf:run("ok.", #{rate => 10, slo => [{101, 1000}]}) end)),
    ?assertMatch({error, {invalid_option, rate, []}},
                 catch_error(fun () -> erlperf:run("ok.", #{rate => []}) end)).

ring_full() ->
    [{doc, "A call that never returns, one worker, 300,000 calls due in half a second: the "
           "ring of released calls fills (262,144), the calls due beyond are skipped, and every "
           "call due is counted once, started or skipped"}].
ring_full(Config) when is_list(Config) ->
    #{result := #{rate := Rate}} =
        erlperf:run("receive after infinity -> ok end.",
                    #{rate => 600000, concurrency => 1, samples => 1, sample_duration => 500,
                      report => full}),
    ?assertMatch(#{started := 1, unfinished := 1, skipped := 299999, completed := 0}, Rate).

crash_among_several() ->
    [{doc, "One runner of two crashing at a rate: the crash names it, and the pacer logs "
           "nothing of its own"}].
crash_among_several(Config) when is_list(Config) ->
    Check = leak_check(),
    ok = logger:add_handler(?MODULE, ?MODULE, #{config => self()}),
    Outcome = try catch_error(fun () -> erlperf:benchmark(["ok.", "erlang:error(boom)."],
                                                           #{rate => 100, samples => 1,
                                                             sample_duration => 100},
                                                           undefined)
                              end)
              after logger:remove_handler(?MODULE)
              end,
    ?assertMatch({error, {crashed, {runner, _}, {error, boom, _}}}, Outcome),
    {error, {crashed, {runner, Label}, _}} = Outcome,
    ?assertEqual("erlang:error(boom).", unicode:characters_to_list(Label)),
    %% the VM's report of a process that ended with an error goes through the logger's
    %% proxy: what it had been sent is handled before it answers
    _ = sys:get_state(logger_proxy),
    ?assertEqual([], [E || {Level, _} = E <- flush_logged(),
                           logger:compare_levels(Level, error) =/= lt]),
    Check().

%%--------------------------------------------------------------------
%% The logger handler of crash_among_several/1: every event to the test's process.

log(#{msg := Msg, level := Level}, #{config := Pid}) ->
    Pid ! {logged, Level, Msg}.

flush_logged() ->
    receive {logged, Level, Msg} -> [{Level, Msg} | flush_logged()]
    after 0 -> []
    end.

%%--------------------------------------------------------------------
%% The server of ramp_knee/1

init([]) ->
    {ok, nil}.

handle_call(slow, _From, State) ->
    timer:sleep(5),
    {reply, ok, State}.

handle_cast(_Msg, State) ->
    {noreply, State}.

%%--------------------------------------------------------------------
%% Helpers

gaps([_]) -> [];
gaps([A, B | Rest]) -> [B - A | gaps([B | Rest])].

%% Response times of a one-server queue: calls due Period apart, every 100th taking
%% Stall, the others nothing.
%% The responses and the number of late calls (started more than a millisecond after
%% their intended start) of a queue of `Calls' calls `Period' ns apart on one server,
%% every 100th call taking `Stall' ns and the others `Cost'.
queue(Calls, Period, Stall, Cost) ->
    {Responses, {_, Late}} =
        lists:mapfoldl(fun (I, {Free, Late}) ->
                               Due = I * Period,
                               Start = max(Due, Free),
                               End = Start + case I rem 100 of 0 -> Stall; _ -> Cost end,
                               {End - Due, {End, Late + if Start - Due > 1000000 -> 1; true -> 0 end}}
                       end, {0, 0}, lists:seq(1, Calls)),
    {Responses, Late}.

%% The cost of the calls that do not stall at which the queue has `Late' late calls
%% (bisection: late calls grow with the cost), at most a period (then no call is on time).
fit_cost(Calls, Stall, Late) ->
    fit_cost(Calls, Stall, Late, 0, 1000000, 20).

fit_cost(_Calls, _Stall, _Late, Low, _High, 0) ->
    Low;
fit_cost(Calls, Stall, Late, Low, High, Steps) ->
    Mid = (Low + High) div 2,
    case queue(Calls, 1000000, Stall, Mid) of
        {_, ModelLate} when ModelLate >= Late -> fit_cost(Calls, Stall, Late, Low, Mid, Steps - 1);
        _ -> fit_cost(Calls, Stall, Late, Mid, High, Steps - 1)
    end.

catch_error(Fun) ->
    try {ok, Fun()} catch error:Reason -> {error, Reason} end.

leak_check() ->
    Before = lists:sort(processes()),
    Own = process_info(self(), [monitors, links, message_queue_len]),
    fun () ->
            Settled = erlperf_test_lib:wait_for(fun () -> lists:sort(processes()) -- Before =:= [] end,
                                                ?SETTLE_MS),
            ?assert(Settled, {processes_left, lists:sort(processes()) -- Before}),
            ?assertEqual(Own, process_info(self(), [monitors, links, message_queue_len])),
            ?assertEqual([], [M || {M, _} <- code:all_loaded(), erlperf_job_code:is_generated(M)])
    end.
