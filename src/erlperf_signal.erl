%%% @doc SIGTERM for the command line: instead of OTP's default (a graceful `init:stop()',
%%% exit status 0 and an info report on standard output), a function of the command
%%% line's is called, which says in one line that the run did not finish and halts
%%% with status 143 (128 + 15).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>signal handler</b>: the `gen_event' handler of OTP's `erl_signal_server'
%%%       that receives the signals set to `handle' with `os:set_signal/2'. OTP installs
%%%       `erl_signal_handler'; {@link install/1} swaps it for this module, and
%%%       {@link uninstall/0} puts it back.</li>
%%% </ul>
%%%
%%% SIGINT (Ctrl-C) is the emulator's break signal, not one OTP hands to Erlang: under
%%% the escript it ends the VM at once with status 130 (128 + 2). Either way, everything
%%% a run made in this VM (jobs, generated modules, trace patterns) goes with it, and
%%% peer nodes stop when their control connection closes.
%%%
%%% Example:
%%% ```
%%% ok = erlperf_signal:install(fun (sigterm) -> erlang:halt(143) end).
%%% '''
-module(erlperf_signal).
-behaviour(gen_event).

%% API: called by the command lines (erlperf_cli, erlperf_perf_cli)
-export([install/1, uninstall/0, exit_status/1]).

%% gen_event callbacks
-export([init/1, handle_event/2, handle_call/2]).

-define(SERVER, erl_signal_server).
-define(DEFAULT_HANDLER, erl_signal_handler).

%%--------------------------------------------------------------------
%% API

%% @doc Calls `OnSignal(sigterm)' (in the signal server's process) when SIGTERM arrives,
%% instead of OTP's default handler.
-spec install(fun((sigterm) -> any())) -> ok.
install(OnSignal) when is_function(OnSignal, 1) ->
    ok = os:set_signal(sigterm, handle),
    case gen_event:swap_handler(?SERVER, {?DEFAULT_HANDLER, swap}, {?MODULE, OnSignal}) of
        ok -> ok;
        {error, _NoDefault} -> gen_event:add_handler(?SERVER, ?MODULE, OnSignal)
    end.

%% @doc Puts OTP's default handler back.
-spec uninstall() -> ok.
uninstall() ->
    _ = gen_event:delete_handler(?SERVER, ?MODULE, uninstall),
    case lists:member(?DEFAULT_HANDLER, gen_event:which_handlers(?SERVER)) of
        true -> ok;
        false -> gen_event:add_handler(?SERVER, ?DEFAULT_HANDLER, [])
    end.

%% @doc The conventional exit status after a signal: 128 + its number.
-spec exit_status(sigterm | sigint) -> 143 | 130.
exit_status(sigterm) -> 128 + 15;
exit_status(sigint) -> 128 + 2.

%%--------------------------------------------------------------------
%% gen_event callbacks

%% @private
-spec init({fun((sigterm) -> any()), term()} | fun((sigterm) -> any())) -> {ok, fun((sigterm) -> any())}.
init({OnSignal, _FromDefault}) ->
    {ok, OnSignal};
init(OnSignal) ->
    {ok, OnSignal}.

%% @private
-spec handle_event(term(), fun((sigterm) -> any())) -> {ok, fun((sigterm) -> any())}.
handle_event(sigterm, OnSignal) ->
    _ = OnSignal(sigterm),
    {ok, OnSignal};
handle_event(_Other, OnSignal) ->
    {ok, OnSignal}.

%% @private
-spec handle_call(term(), fun((sigterm) -> any())) -> {ok, ok, fun((sigterm) -> any())}.
handle_call(_Request, OnSignal) ->
    {ok, ok, OnSignal}.
