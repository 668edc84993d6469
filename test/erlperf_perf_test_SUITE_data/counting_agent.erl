%% A custom agent for the tests: counts the processes of its test node every 50 ms.
-module(counting_agent).
-behaviour(erlperf_custom_agent).

-export([get_config/3, process_results/2, start/1, get_results_and_stop/0]).
-export([loop/2]).

get_config(_Node, LoadModule, Size) ->
    #{size => Size, load_module => LoadModule}.

process_results(Node, #{samples := Samples, size := Size}) ->
    #{node => Node, size => Size, checks => length(Samples)}.

start(#{size := Size}) ->
    Pid = spawn(?MODULE, loop, [Size, []]),
    true = register(?MODULE, Pid),
    {ok, Pid}.

get_results_and_stop() ->
    Ref = monitor(process, ?MODULE),
    ?MODULE ! {stop, self()},
    receive
        {results, Results} -> demonitor(Ref, [flush]), {ok, Results};
        {'DOWN', Ref, _, _, Reason} -> {error, Reason}
    end.

loop(Size, Samples) ->
    receive
        {stop, From} -> From ! {results, #{size => Size, samples => Samples}}
    after 50 ->
        loop(Size, [erlang:system_info(process_count) | Samples])
    end.
