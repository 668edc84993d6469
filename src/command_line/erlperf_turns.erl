%%% @doc In a version node of `--against' ({@link erlperf_against}): a benchmark run
%%% whose turns the controlling node gives, so that two versions, each in a node of its
%%% own, take turns sample by sample and see the same drift of the host.
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>run</b>: a process of this node calling `erlperf:benchmark/3' (or
%%%       `erlperf:sweep/2') with `compare => interleaved' and a `turn_gate': its one job
%%%       runs only when told to, for one sample at a time ({@link erlperf_sampler}).</li>
%%%   <li><b>turn</b>: the controlling node's call of {@link turn/1}: the run takes one
%%%       sample (a warmup sample first, when the options ask for them) and the call
%%%       returns when the job is suspended again.</li>
%%% </ul>
%%% The controlling node reaches this module over `peer:call/5' only (version nodes have
%%% no distribution), so each call is synchronous: a turn of the current version, then
%%% one of the revision, and so on.
%%%
%%% Example (in a node, as erlperf_against calls it):
%%% ```
%%% Run = erlperf_turns:start(benchmark, [[#{runner => "rand:uniform()."}],
%%%                                       #{samples => 2, sample_duration => 100,
%%%                                         report => full}, undefined]),
%%% ok = erlperf_turns:turn(Run), ok = erlperf_turns:turn(Run),
%%% {ok, [#{result := _}]} = erlperf_turns:result(Run).
%%% '''
%%% Cost and safety: nothing in the runner loop; the run's sampler waits for each turn in
%%% a receive. A run that crashed or ended answers every later turn with `ended'.
-module(erlperf_turns).

%% API: called over peer:call by erlperf_against, in a version node.
-export([start/2, turn/1, result/1]).

-export_type([run/0, outcome/0]).

-type run() :: pid().
%% What the run's erlperf call returned, or what it raised.
-type outcome() :: {ok, [erlperf:report()]} | {error, {atom(), term(), list()}}.

%%--------------------------------------------------------------------
%% API

%% @doc Starts a run of `erlperf:Function(Args)' (`benchmark': code maps, run options,
%% concurrency options; `sweep': code maps and sweep options), its samples taken as
%% turns. The run does not depend on the caller (a peer:call's process ends with the
%% call): it lives until its result is taken, or the node halts.
-spec start(benchmark | sweep, [term()]) -> run().
start(Function, [Codes, Opts | Rest]) when Function =:= benchmark; Function =:= sweep ->
    spawn(fun () ->
                  Gated = Opts#{compare => interleaved, turn_gate => fun gate/1},
                  Outcome = try {ok, apply(erlperf, Function, [Codes, Gated | Rest])}
                            catch Class:Reason:Stack -> {error, {Class, Reason, Stack}}
                            end,
                  %% a turn under way when the run crashed ends with it
                  _ = [From ! {Ref, ended} || {From, Ref} <- [erase(?MODULE)]],
                  serve(Outcome)
          end).

%% @doc One turn of the run: returns once its sample is taken (`ok'), or `ended' when
%% the run has ended (it crashed, or took all its samples).
-spec turn(run()) -> ok | ended.
turn(Run) ->
    request(Run, go).

%% @doc The run's outcome, once it has ended.
-spec result(run()) -> outcome().
result(Run) ->
    request(Run, result).

%%--------------------------------------------------------------------
%% Internal functions

request(Run, What) ->
    Ref = monitor(process, Run),
    Run ! {?MODULE, What, self(), Ref},
    receive
        {Ref, Reply} ->
            demonitor(Ref, [flush]),
            Reply;
        {'DOWN', Ref, process, Run, _Why} when What =:= go ->
            %% its result taken, or killed: either way no turn is left
            ended;
        {'DOWN', Ref, process, Run, Why} ->
            {error, {exit, Why, []}}
    end.

%% The sampler's gate: wait to be told to take a turn; then say it was taken.
gate(start) ->
    receive
        {?MODULE, go, From, Ref} -> put(?MODULE, {From, Ref})
    end;
gate({done, _Iterations, _Time}) ->
    {From, Ref} = erase(?MODULE),
    From ! {Ref, ok}.

%% The run has ended: every turn asked for now is `ended'; the result is given once.
serve(Outcome) ->
    receive
        {?MODULE, go, From, Ref} ->
            From ! {Ref, ended},
            serve(Outcome);
        {?MODULE, result, From, Ref} ->
            From ! {Ref, Outcome}
    end.
