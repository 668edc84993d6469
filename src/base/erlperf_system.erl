%%% @doc Describes the machine and runtime a benchmark ran on (for full reports).
%%%
%%% The keys erlperf 2.3 documents: `os' (`erlang:system_info(os_type)', such as
%%% `{unix, linux}'), `system_version' (the VM banner), `emu_type', `emu_flavor' and
%%% `dynamic_trace' (as `erlang:system_info/1' gives them) and `cpu' (the model name).
%%% This project adds `os_name' (family, name and kernel version, as text), `vm' (the
%%% banner, trimmed), `otp_release' and `schedulers' (online).
%%%
%%% Also names the directory for temporary files, as the OS tells it (`temp_dir/0').
%%%
%%% Reads `/proc/cpuinfo' on Linux and `sysctl' on macOS/BSD for the CPU model; falls back
%%% to the architecture string. Cost: one file read or one short OS command per call, and
%%% a read of `erlperf.app' while the application is not loaded (for the version).
-module(erlperf_system).

-export([info/0, temp_dir/0, version/0]).

%% Internal export: reading the version from an application resource file, tested on its own.
-export([app_vsn/1]).

-export_type([info/0]).

-type info() :: #{os := {unix | win32, atom()}, system_version := string(),
                  emu_type := atom(), emu_flavor := atom(), dynamic_trace := atom(),
                  cpu := string(), os_name := string(), vm := string(),
                  otp_release := string(), schedulers := pos_integer(), erlperf := string()}.

%% @doc OS, CPU model, VM banner and flavour, OTP release, online schedulers and
%% erlperf's version.
-spec info() -> info().
info() ->
    Version = erlang:system_info(system_version),
    #{os => erlang:system_info(os_type),
      system_version => Version,
      emu_type => erlang:system_info(emu_type),
      emu_flavor => erlang:system_info(emu_flavor),
      dynamic_trace => erlang:system_info(dynamic_trace),
      cpu => cpu_model(),
      os_name => os_name(),
      vm => trim(Version),
      otp_release => erlang:system_info(otp_release),
      schedulers => erlang:system_info(schedulers_online),
      erlperf => version()}.

%% @doc The directory for temporary files: `$TMPDIR', `$TEMP' or `$TMP', else `/tmp'.
-spec temp_dir() -> file:filename().
temp_dir() ->
    hd([D || D <- [os:getenv("TMPDIR"), os:getenv("TEMP"), os:getenv("TMP"), "/tmp"], is_list(D), D =/= ""]).

os_name() ->
    {Family, Name} = os:type(),
    Version = case os:version() of
                  {Ma, Mi, Re} -> io_lib:format("~b.~b.~b", [Ma, Mi, Re]);
                  V -> V
              end,
    lists:flatten(io_lib:format("~s:~s ~s", [Family, Name, Version])).

cpu_model() ->
    case file:read_file("/proc/cpuinfo") of
        {ok, Bin} ->
            model_from_cpuinfo(binary:split(Bin, <<"\n">>, [global]));
        {error, _} ->
            sysctl_model()
    end.

model_from_cpuinfo([]) ->
    erlang:system_info(system_architecture);
model_from_cpuinfo([Line | Rest]) ->
    case binary:split(Line, <<":">>) of
        [Key, Value] ->
            case trim(unicode:characters_to_list(Key)) of
                K when K =:= "model name"; K =:= "Model"; K =:= "cpu model" ->
                    trim(unicode:characters_to_list(Value));
                _ -> model_from_cpuinfo(Rest)
            end;
        _ ->
            model_from_cpuinfo(Rest)
    end.

sysctl_model() ->
    case os:find_executable("sysctl") of
        false -> erlang:system_info(system_architecture);
        _ -> trim(os:cmd("sysctl -n machdep.cpu.brand_string 2>/dev/null || sysctl -n hw.model"))
    end.

%% Leading and trailing white space off (by hand: the string module would load its
%% Unicode tables, which costs the command line's start-up time).
trim(Text) ->
    Blank = fun (C) -> C =:= $\s orelse C =:= $\t orelse C =:= $\n orelse C =:= $\r end,
    lists:reverse(lists:dropwhile(Blank, lists:reverse(lists:dropwhile(Blank, Text)))).

%% @doc erlperf's version (the application's `vsn'), or "unknown". When the application
%% is not loaded (the escript loads it only with `-v'), the `vsn' is read from
%% `erlperf.app' beside this module without loading the application, which would load
%% `epp' (90 KB of code the command line has no other use for) to tell the file's
%% encoding.
-spec version() -> string().
version() ->
    case application:get_key(erlperf, vsn) of
        {ok, Vsn} -> Vsn;
        undefined -> app_file_vsn()
    end.

%% The `vsn' of the `.app' file in this module's directory, read through the code loader
%% (it may be in an escript's archive); else as loading the application finds it.
app_file_vsn() ->
    case code:which(?MODULE) of
        Beam when is_list(Beam) ->
            App = filename:join(filename:dirname(Beam), "erlperf.app"),
            case erl_prim_loader:get_file(App) of
                {ok, Bin, _} ->
                    case app_vsn(Bin) of
                        {ok, Vsn} -> Vsn;
                        error -> loaded_vsn()
                    end;
                error ->
                    loaded_vsn()
            end;
        _ ->
            loaded_vsn()  % cover-compiled, or loaded from a binary
    end.

%% @private The `vsn' of erlperf's application resource file, given as its text; `error'
%% when the text is not that file's.
-spec app_vsn(binary()) -> {ok, string()} | error.
app_vsn(Bin) ->
    try
        {ok, Tokens, _} = erl_scan:string(unicode:characters_to_list(Bin)),
        {ok, {application, erlperf, Keys}} = erl_parse:parse_term(Tokens),
        {vsn, Vsn} = lists:keyfind(vsn, 1, Keys),
        true = io_lib:printable_unicode_list(Vsn),
        {ok, Vsn}
    catch
        error:_ -> error
    end.

loaded_vsn() ->
    _ = application:load(erlperf),
    case application:get_key(erlperf, vsn) of
        {ok, Vsn} -> Vsn;
        undefined -> "unknown"
    end.
