-module(erlperf_system_tests).

-include_lib("eunit/include/eunit.hrl").
-include_lib("stdlib/include/assert.hrl").

%% The vsn of the erlperf.app on the code path, read as OTP reads it.
app_file_vsn() ->
    {ok, [{application, erlperf, Keys}]} = file:consult(code:where_is_file("erlperf.app")),
    {vsn, Vsn} = lists:keyfind(vsn, 1, Keys),
    Vsn.

%% The version is the .app file's vsn with the application loaded or not, and reading
%% it does not load the application (which would load epp, as the escript must not).
version_test() ->
    Running = lists:keymember(erlperf, 1, application:which_applications()),
    Loaded = lists:keymember(erlperf, 1, application:loaded_applications()),
    %% not loaded (a running application stays as it is)
    _ = Running orelse application:unload(erlperf),
    ?assertEqual(app_file_vsn(), erlperf_system:version()),
    %% (cover-compiled, the module has no file beside it: the application is loaded)
    ?assertEqual(Running orelse not is_list(code:which(erlperf_system)),
                 lists:keymember(erlperf, 1, application:loaded_applications())),
    %% loaded
    _ = application:load(erlperf),
    ?assertEqual(app_file_vsn(), erlperf_system:version()),
    _ = Loaded orelse application:unload(erlperf),
    ok.

app_vsn_test_() ->
    [?_assertEqual({ok, "1.2.3"},
                   erlperf_system:app_vsn(<<"%% a comment\n{application, erlperf,\n [{description, \"é\"}, {vsn, \"1.2.3\"}]}.\n"/utf8>>)),
     ?_assertEqual(error, erlperf_system:app_vsn(<<"{application, other, [{vsn, \"1\"}]}.">>)),
     ?_assertEqual(error, erlperf_system:app_vsn(<<"{application, erlperf, []}.">>)),
     ?_assertEqual(error, erlperf_system:app_vsn(<<"{application, erlperf, [{vsn, 1}]}.">>)),
     ?_assertEqual(error, erlperf_system:app_vsn(<<"{application, erlperf, [{vsn, \"1\"}]}">>)),
     ?_assertEqual(error, erlperf_system:app_vsn(<<"not a term.">>)),
     ?_assertEqual(error, erlperf_system:app_vsn(<<255, 0>>))].
