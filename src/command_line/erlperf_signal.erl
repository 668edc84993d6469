%%% @doc Operating-system signals for the command line: while installed, a signal the
%%% runtime hands to Erlang calls a given fun instead of OTP's default handling (for
%%% SIGTERM, `init:stop()', which would take distribution and the code server away from
%%% a command still running).
%%%
%%% Glossary:
%%% <ul>
%%%   <li><b>signal server</b>: `erl_signal_server', the Kernel's event manager for OS
%%%       signals; its default handler is `erl_signal_handler'. While installed, this
%%%       module is its handler instead, and keeps the default's handling of the signals
%%%       it was not asked for (SIGUSR1 and SIGQUIT halt the VM).</li>
%%%   <li><b>exit status</b>: a command stopped by a signal exits with 128 + the
%%%       signal's number (143 for SIGTERM, 130 for SIGINT), as shells report a process
%%%       killed by it.</li>
%%% </ul>
%%%
%%% Example:
%%% ```
%%% Self = self(),
%%% {ok, Handled} = erlperf_signal:install([sigterm, sigint], fun (S) -> Self ! {signal, S} end),
%%% try run() after erlperf_signal:uninstall() end.
%%% '''
%%% Limits: the runtime of OTP 25 to 29 never hands SIGINT to Erlang (`os:set_signal/2'
%%% refuses it); an escript runs with the break handler disabled (`+B'), so SIGINT halts
%%% the VM at once with status 130. {@link install/2} returns the signals it could take
%%% over. The fun runs in the signal server: it must return quickly (send a message).
-module(erlperf_signal).
-behaviour(gen_event).

%% API: called by erlperf_perf_cli (and the benchmark command line).
-export([install/2, uninstall/0, exit_status/1, name/1]).

%% gen_event callbacks: called by erl_signal_server.
-export([init/1, handle_event/2, handle_call/2, handle_info/2, terminate/2]).

-export_type([signal/0]).

%% The Kernel's event manager of OS signals, and its default handler.
-define(SERVER, erl_signal_server).
-define(DEFAULT_HANDLER, erl_signal_handler).

-type signal() :: sigint | sigterm.

-record(state, {handled :: [signal()],
                notify :: fun((signal()) -> term())}).

%%--------------------------------------------------------------------
%% API

%% @doc Takes over `Signals': each one the runtime hands to Erlang calls `Notify' with
%% its name instead of OTP's default handling, until {@link uninstall/0}. Returns the
%% signals taken over (SIGINT never is, see the module's limits). Installing again
%% replaces the signals and the fun.
-spec install([signal()], fun((signal()) -> term())) -> {ok, [signal()]}.
install(Signals, Notify) when is_list(Signals), is_function(Notify, 1) ->
    ok = uninstall(),
    Handled = [S || S <- lists:usort(Signals), handle(S)],
    State = #state{handled = Handled, notify = Notify},
    ok = swap({?DEFAULT_HANDLER, []}, {?MODULE, State}),
    {ok, Handled}.

%% @doc Gives the signals back to OTP's default handler. `ok' when nothing is installed.
-spec uninstall() -> ok.
uninstall() ->
    case lists:member(?MODULE, gen_event:which_handlers(?SERVER)) of
        true -> swap({?MODULE, []}, {?DEFAULT_HANDLER, []});
        false -> ok
    end.

%% @doc The exit status of a command stopped by `Signal': 128 + its number.
-spec exit_status(signal()) -> 130 | 143.
exit_status(sigint) -> 130;
exit_status(sigterm) -> 143.

%% @doc The signal's usual name (`"SIGTERM"'), for messages.
-spec name(signal()) -> string().
name(Signal) ->
    string:uppercase(atom_to_list(Signal)).

%%--------------------------------------------------------------------
%% gen_event callbacks

%% @private Installed by install/2 (swapped in: `{State, _TerminateResult}').
-spec init({#state{}, term()}) -> {ok, #state{}}.
init({#state{} = State, _Old}) ->
    {ok, State}.

%% @private A signal: the fun for those taken over, OTP's default for the others.
-spec handle_event(atom(), #state{}) -> {ok, #state{}}.
handle_event(Signal, #state{handled = Handled, notify = Notify} = State) ->
    case lists:member(Signal, Handled) of
        true -> notify(Notify, Signal);
        false -> default(Signal)
    end,
    {ok, State}.

%% @private
-spec handle_call(term(), #state{}) -> {ok, {error, unknown_call}, #state{}}.
handle_call(_Request, State) ->
    {ok, {error, unknown_call}, State}.

%% @private
-spec handle_info(term(), #state{}) -> {ok, #state{}}.
handle_info(_Info, State) ->
    {ok, State}.

%% @private Swapped out: SIGTERM, the only signal taken over, stays handed to Erlang,
%% as OTP's default handler expects.
-spec terminate(term(), #state{}) -> ok.
terminate(_Reason, #state{}) ->
    ok.

%%--------------------------------------------------------------------
%% Internal functions

%% Asks the runtime to hand `Signal' to the signal server; false when it refuses (SIGINT
%% on every supported release: the refusal is a badarg of the BIF, not a missing
%% function, so no release check can replace this catch).
-spec handle(signal()) -> boolean().
handle(Signal) ->
    try os:set_signal(Signal, handle) of
        ok -> true
    catch
        error:badarg -> false
    end.

%% A fun that fails must not take the handler (and the signals) away.
-spec notify(fun((signal()) -> term()), signal()) -> ok.
notify(Notify, Signal) ->
    try
        _ = Notify(Signal),
        ok
    catch
        _:_ -> ok
    end.

%% OTP's default handling (erl_signal_handler) of the signals not taken over.
-spec default(atom()) -> ok.
default(sigusr1) -> erlang:halt("Received SIGUSR1");
default(sigquit) -> erlang:halt();
default(sigterm) -> init:stop();
default(_Other) -> ok.

-spec swap({module(), term()}, {module(), term()}) -> ok.
swap(Old, New) ->
    ok = gen_event:swap_handler(?SERVER, Old, New).
