%%% @doc Helpers shared by the test suites: bounded polling and a capturing io device.
-module(erlperf_test_lib).

-export([wait_for/2, capture/0]).

%% @doc Polls `Pred' until it holds (true) or `Ms' milliseconds pass (false). A bounded
%% poll, not synchronisation: it re-checks every 5 ms.
-spec wait_for(fun(() -> boolean()), non_neg_integer()) -> boolean().
wait_for(Pred, Ms) ->
    wait_until(Pred, erlang:monotonic_time(millisecond) + Ms).

wait_until(Pred, Deadline) ->
    case Pred() of
        true -> true;
        false ->
            case erlang:monotonic_time(millisecond) >= Deadline of
                true -> false;
                false -> receive after 5 -> wait_until(Pred, Deadline) end
            end
    end.

%% @doc An io device, linked to the caller, that sends the caller `{log_line, Line}' for
%% each line printed to it.
-spec capture() -> pid().
capture() ->
    Self = self(),
    spawn_link(fun () -> capture_loop(Self) end).

capture_loop(Owner) ->
    receive
        {io_request, From, ReplyAs, {put_chars, _Encoding, Chars}} ->
            Text = unicode:characters_to_list(Chars),
            _ = [Owner ! {log_line, L} || L <- string:lexemes(Text, "\n")],
            From ! {io_reply, ReplyAs, ok},
            capture_loop(Owner);
        {io_request, From, ReplyAs, _Other} ->
            From ! {io_reply, ReplyAs, {error, request}},
            capture_loop(Owner)
    end.
