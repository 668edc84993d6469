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
%%% to the architecture string. Cost: one file read or one short OS command per call.
-module(erlperf_system).

-export([info/0, temp_dir/0, version/0]).

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

%% @doc erlperf's version (the application's `vsn'), or "unknown".
-spec version() -> string().
version() ->
    _ = application:load(erlperf),
    case application:get_key(erlperf, vsn) of
        {ok, Vsn} -> Vsn;
        undefined -> "unknown"
    end.
