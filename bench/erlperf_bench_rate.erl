%%% @doc The open-load generator's measurements of itself (`make bench-rate', and part
%%% of `make bench'): the highest rate it holds within 1% (every call due started, the
%%% achieved rate at least 99% of the target), for `ok.' and for a call of a gen_server,
%%% as a ratio to the closed-loop throughput of the same runner with one worker on the
%%% same VM, measured just before.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>held</b>: a rate run (`rate => R', ?SECONDS s) whose achieved rate is at least
%%%       99% of R with no call skipped (erlperf_local's `held', with an objective no run
%%%       misses: p99 of at most ?LOOSE_S s).</li>
%%%   <li><b>search</b>: rates doubling from ?FIRST_RATE while they hold, then ?REFINE
%%%       steps between the last that held and the first that did not (each a factor
%%%       of 2^(1/2^k) up), the highest held reported.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% erlperf_bench_rate:main().
%%% '''
%%% Cost: about a minute, both cores busy; nothing else should run meanwhile.
-module(erlperf_bench_rate).

-behaviour(gen_server).

%% API: `make bench' and `make bench-rate'.
-export([main/0]).
%% gen_server callbacks: the echo server the gen_server runner calls.
-export([init/1, handle_call/3, handle_cast/2]).

%% Seconds a rate is held for.
-define(SECONDS, 1).
%% The search's first rate, and its refining steps.
-define(FIRST_RATE, 1000).
-define(REFINE, 3).
%% An objective no run misses: held means the rate achieved, every call started.
-define(LOOSE_S, 10).

%% @doc Prints, for `ok.' and a gen_server call, the closed-loop throughput, the highest
%% rate held, and their ratio.
-spec main() -> ok.
main() ->
    io:format("~-44s ~12s ~12s ~8s~n", ["open load (held: within 1%, none skipped)",
                                         "closed /s", "held /s", "ratio"]),
    Echo = #{init => fun () -> {ok, Pid} = gen_server:start(?MODULE, [], []), Pid end,
             init_runner => fun (Pid) -> Pid end,
             runner => fun (Pid) -> gen_server:call(Pid, ping) end,
             done => fun (Pid) -> gen_server:stop(Pid) end},
    lists:foreach(fun ({Label, Code}) -> row(Label, Code) end,
                  [{"  ok.", "ok."}, {"  gen_server:call/2 of an echo server", Echo}]).

%%--------------------------------------------------------------------
%% gen_server callbacks

%% @private
-spec init([]) -> {ok, nil}.
init([]) ->
    {ok, nil}.

%% @private
-spec handle_call(ping, gen_server:from(), nil) -> {reply, pong, nil}.
handle_call(ping, _From, State) ->
    {reply, pong, State}.

%% @private
-spec handle_cast(term(), nil) -> {noreply, nil}.
handle_cast(_Msg, State) ->
    {noreply, State}.

%%--------------------------------------------------------------------
%% Internal functions

row(Label, Code) ->
    Closed = erlperf:run(Code, #{samples => 3, sample_duration => 1000}),
    Held = search(Code, ?FIRST_RATE, undefined),
    io:format("~-44s ~12b ~12b ~8.3f~n", [Label, Closed, Held, Held / Closed]).

%% Doubling while rates hold, then refining between the last held and the first not.
search(Code, Rate, Held) ->
    Limit = erlperf_options:limit(rate),
    case held(Code, Rate) of
        true when Rate * 2 =< Limit -> search(Code, Rate * 2, Rate);
        true when Rate < Limit -> search(Code, Limit, Rate);
        true -> Rate;
        false when Held =:= undefined -> 0;
        false -> refine(Code, Held, Rate, ?REFINE)
    end.

refine(_Code, Held, _Failed, 0) ->
    Held;
refine(Code, Held, Failed, Steps) ->
    Mid = round(math:sqrt(Held * Failed)),
    case held(Code, Mid) of
        true -> refine(Code, Mid, Failed, Steps - 1);
        false -> refine(Code, Held, Mid, Steps - 1)
    end.

held(Code, Rate) ->
    [#{result := #{rate := #{held := Held}}}] =
        erlperf:benchmark([Code], #{rate => Rate, samples => ?SECONDS, sample_duration => 1000,
                                    slo => [{99, ?LOOSE_S * 1000000000}], report => full}, undefined),
    Held.
