%%% @doc Tests of the cache of compiled runners (`erlperf_compile_cache') and of jobs
%%% that use it (`erlperf_job_code'): a round trip, every kind of damaged entry read as
%%% a miss, a directory that cannot be written, pruning, the same code in two jobs at
%%% once, and a cached module that behaves as a compiled one.
-module(erlperf_compile_cache_tests).

-include_lib("eunit/include/eunit.hrl").
-include_lib("kernel/include/file.hrl").

%% A fresh directory for one test, removed after it.
with_dir(Test) ->
    {setup,
     fun () ->
             Dir = filename:join(erlperf_system:temp_dir(),
                                 "erlperf_cache_" ++ integer_to_list(erlang:unique_integer([positive]))),
             ok = filelib:ensure_dir(filename:join(Dir, "x")),
             Dir
     end,
     fun (Dir) -> file:del_dir_r(Dir) end,
     fun (Dir) -> Test(Dir) end}.

%% The cache turned on in a fresh directory for a test of jobs.
with_cache(Test) ->
    with_dir(fun (Dir) ->
                     {setup,
                      fun () -> application:set_env(erlperf, compile_cache, Dir) end,
                      fun (_) -> application:unset_env(erlperf, compile_cache) end,
                      fun (_) -> Test(Dir) end}
             end).

digest(Code) ->
    {ok, Prepared} = erlperf_codegen:prepare(Code),
    erlperf_codegen:digest(Prepared).

entry(Dir) ->
    [File] = filelib:wildcard(filename:join(Dir, "*.job")),
    File.

%%--------------------------------------------------------------------
%% The store

round_trip_test_() ->
    with_dir(fun (Dir) ->
                     D = digest(#{runner => "lists:seq(1, 10)."}),
                     [?_assertEqual(miss, erlperf_compile_cache:fetch(Dir, D)),
                      ?_test(begin
                                 ok = erlperf_compile_cache:store(Dir, D, <<"object">>, [{dead_code, runner}]),
                                 ?assertEqual({ok, <<"object">>, [{dead_code, runner}]},
                                              erlperf_compile_cache:fetch(Dir, D)),
                                 %% written whole: no temporary file stays
                                 ?assertEqual([entry(Dir)], filelib:wildcard(filename:join(Dir, "*")))
                             end)]
             end).

%% The digest follows the code, not the module name or the run: the same code twice is
%% one digest, other code (a binding's value too) another.
digest_test_() ->
    [?_assertEqual(digest(#{runner => "ok."}), digest(#{runner => "ok."})),
     ?_assertNotEqual(digest(#{runner => "ok."}), digest(#{runner => "nok."})),
     ?_assertNotEqual(digest(#{runner => "lists:seq(1, N).", bindings => #{'N' => 1}}),
                      digest(#{runner => "lists:seq(1, N).", bindings => #{'N' => 2}})),
     ?_assertEqual(16, byte_size(digest(#{runner => "ok."})))].

%% A damaged entry is a miss, never a crash: cut short, its code changed, another
%% digest's entry under this name, not an entry at all, an empty file.
damaged_entry_test_() ->
    with_dir(fun (Dir) ->
                     D = digest(#{runner => "ok."}),
                     Other = digest(#{runner => "nok."}),
                     Damaged = fun (Change) ->
                                       ok = erlperf_compile_cache:store(Dir, D, <<"object code">>, []),
                                       File = entry(Dir),
                                       {ok, Bytes} = file:read_file(File),
                                       ok = file:write_file(File, Change(Bytes)),
                                       erlperf_compile_cache:fetch(Dir, D)
                               end,
                     Flip = fun (Bytes) ->
                                    %% one bit of the object code's first byte ("o")
                                    [{Pos, _}] = binary:matches(Bytes, <<"object code">>),
                                    <<Head:Pos/binary, C, Tail/binary>> = Bytes,
                                    <<Head/binary, (C bxor 1), Tail/binary>>
                            end,
                     Swapped = fun (Bytes) ->
                                       {T, V, _, Sum, Bin, W} = binary_to_term(Bytes),
                                       term_to_binary({T, V, Other, Sum, Bin, W})
                               end,
                     [?_assertEqual(miss, Damaged(fun (B) -> binary:part(B, 0, byte_size(B) - 3) end)),
                      ?_assertEqual(miss, Damaged(Flip)),
                      ?_assertEqual(miss, Damaged(Swapped)),
                      ?_assertEqual(miss, Damaged(fun (_) -> <<"not an entry">> end)),
                      ?_assertEqual(miss, Damaged(fun (_) -> term_to_binary({1, 2, 3}) end)),
                      ?_assertEqual(miss, Damaged(fun (_) -> <<>> end))]
             end).

%% A directory that cannot be made (a file is in the way): storing is no error, and
%% nothing is found.
unwritable_test_() ->
    with_dir(fun (Dir) ->
                     Blocked = filename:join(Dir, "file"),
                     ok = file:write_file(Blocked, <<>>),
                     Cache = filename:join(Blocked, "cache"),
                     D = digest(#{runner => "ok."}),
                     [?_assertEqual(ok, erlperf_compile_cache:store(Cache, D, <<"x">>, [])),
                      ?_assertEqual(miss, erlperf_compile_cache:fetch(Cache, D))]
             end).

%% Past 1,000 entries a store removes the oldest, down to 750.
prune_test_() ->
     with_dir(fun (Dir) ->
                      {timeout, 60, ?_test(begin
                                 Digests = [erlang:md5(integer_to_binary(I)) || I <- lists:seq(1, 1000)],
                                 _ = [ok = erlperf_compile_cache:store(Dir, D, <<"x">>, []) || D <- Digests],
                                 %% ages: the first stored is the oldest
                                 Now = erlang:system_time(second),
                                 _ = [ok = file:write_file_info(F, #file_info{mtime = Now - 2000 + I, atime = Now - 2000 + I},
                                                             [{time, posix}])
                                      || {I, D} <- lists:zip(lists:seq(1, 1000), Digests),
                                         F <- [filename:join(Dir, hex(D) ++ ".job")]],
                                 ?assertEqual(1000, length(filelib:wildcard(filename:join(Dir, "*.job")))),
                                 Last = erlang:md5(<<"last">>),
                                 ok = erlperf_compile_cache:store(Dir, Last, <<"x">>, []),
                                 Kept = filelib:wildcard(filename:join(Dir, "*.job")),
                                 ?assertEqual(750, length(Kept)),
                                 {Old, Young} = lists:split(251, Digests),
                                 ?assertEqual([], [D || D <- Old, erlperf_compile_cache:fetch(Dir, D) =/= miss]),
                                 ?assertEqual([], [D || D <- [Last | Young],
                                                        erlperf_compile_cache:fetch(Dir, D) =:= miss])
                             end)}
              end).

%% the reference: OTP's upper-case hexadecimal, lowered
hex(Digest) ->
    string:lowercase(binary_to_list(binary:encode_hex(Digest))).

hex_test_() ->
    [?_assertEqual(hex(D), erlperf_compile_cache:hex(D))
     || D <- [<<>>, <<0>>, <<255, 1, 16>>, erlang:md5(<<"x">>), random_bytes()]].

random_bytes() ->
    list_to_binary([rand:uniform(256) - 1 || _ <- lists:seq(1, 64)]).

%% ERLPERF_CACHE: a directory, or off (also empty); unset, the user's cache directory.
default_dir_test() ->
    Old = os:getenv("ERLPERF_CACHE"),
    try
        os:putenv("ERLPERF_CACHE", "/some/dir"),
        ?assertEqual("/some/dir", erlperf_compile_cache:default_dir()),
        os:putenv("ERLPERF_CACHE", "off"),
        ?assertEqual(off, erlperf_compile_cache:default_dir()),
        os:putenv("ERLPERF_CACHE", ""),
        ?assertEqual(off, erlperf_compile_cache:default_dir()),
        os:unsetenv("ERLPERF_CACHE"),
        ?assertEqual(filename:basedir(user_cache, "erlperf"), erlperf_compile_cache:default_dir())
    after
        case Old of
            false -> os:unsetenv("ERLPERF_CACHE");
            _ -> os:putenv("ERLPERF_CACHE", Old)
        end
    end.

%%--------------------------------------------------------------------
%% Jobs with the cache on

%% The first job compiles and keeps the module, the second finds it: the same name,
%% object code and warnings, and it runs.
job_from_cache_test_() ->
    with_cache(fun (Dir) ->
                       ?_test(begin
                                  Code = #{runner => "ok."},
                                  {ok, M, First} = erlperf_job_code:generate(Code),
                                  ?assertEqual("erlperf_job_" ++ hex(digest(Code)), atom_to_list(M)),
                                  ?assertEqual(1, length(filelib:wildcard(filename:join(Dir, "*.job")))),
                                  {ok, M, Second} = erlperf_job_code:generate(Code),
                                  ?assertEqual(maps:remove(context, First), maps:remove(context, Second)),
                                  ?assertEqual([{dead_code, runner}], maps:get(warnings, Second)),
                                  Job = erlperf_job_started(Code),
                                  ?assertMatch(#{module := M}, erlperf_job:info(Job)),
                                  ok = erlperf_job:set_concurrency(Job, 1),
                                  ok = erlperf_job:set_concurrency(Job, 0),
                                  ok = erlperf_job:stop(Job),
                                  ?assertNot(erlang:module_loaded(M))
                              end)
               end).

%% A damaged entry is compiled again and written again.
job_damaged_entry_test_() ->
    with_cache(fun (Dir) ->
                       ?_test(begin
                                  Code = #{runner => "lists:seq(1, 3)."},
                                  {ok, M, #{binary := Bin}} = erlperf_job_code:generate(Code),
                                  [File] = filelib:wildcard(filename:join(Dir, "*.job")),
                                  ok = file:write_file(File, <<"garbage">>),
                                  {ok, M, #{binary := Bin}} = erlperf_job_code:generate(Code),
                                  ?assertMatch({ok, Bin, []},
                                               erlperf_compile_cache:fetch(Dir, digest(Code)))
                              end)
               end).

%% Two jobs of the same code at once: the second gets a module of its own, so that
%% stopping the first leaves the second running.
same_code_twice_test_() ->
    with_cache(fun (_Dir) ->
                       ?_test(begin
                                  Code = #{runner => "lists:seq(1, 5)."},
                                  A = erlperf_job_started(Code),
                                  B = erlperf_job_started(Code),
                                  #{module := MA} = erlperf_job:info(A),
                                  #{module := MB} = erlperf_job:info(B),
                                  ?assertNotEqual(MA, MB),
                                  ?assert(erlperf_job_code:is_generated(MB)),
                                  ok = erlperf_job:set_concurrency(B, 1),
                                  ok = erlperf_job:stop(A),
                                  ?assertNot(erlang:module_loaded(MA)),
                                  Before = erlperf_job:sample(B),
                                  timer:sleep(50),
                                  ?assert(erlperf_job:sample(B) > Before),
                                  ok = erlperf_job:stop(B),
                                  ?assertNot(erlang:module_loaded(MB)),
                                  %% the name is free again: a third job takes it
                                  C = erlperf_job_started(Code),
                                  ?assertMatch(#{module := MA}, erlperf_job:info(C)),
                                  ok = erlperf_job:stop(C)
                              end)
               end).

%% A job killed before it could unload leaves its module loaded: the next job of the
%% same code takes the name back (no second compile), and unloads it.
killed_job_test_() ->
    with_cache(fun (_Dir) ->
                       ?_test(begin
                                  Code = #{runner => "lists:seq(1, 6)."},
                                  A = erlperf_job_started(Code),
                                  #{module := M} = erlperf_job:info(A),
                                  Mon = monitor(process, A),
                                  unlink(A),
                                  exit(A, kill),
                                  receive {'DOWN', Mon, process, A, _} -> ok end,
                                  ?assert(erlang:module_loaded(M)),
                                  B = erlperf_job_started(Code),
                                  ?assertMatch(#{module := M}, erlperf_job:info(B)),
                                  ok = erlperf_job:stop(B),
                                  ?assertNot(erlang:module_loaded(M))
                              end)
               end).

%% An entry that holds another module's object code (its checksum right): the job
%% compiles its own, and runs.
foreign_entry_test_() ->
    with_cache(fun (Dir) ->
                       ?_test(begin
                                  Code = #{runner => "lists:seq(1, 4)."},
                                  {ok, Prepared} = erlperf_codegen:prepare(#{runner => "lists:seq(1, 40)."}),
                                  {ok, #{binary := Other}} = erlperf_codegen:compile(Prepared, erlperf_foreign_entry),
                                  ok = erlperf_compile_cache:store(Dir, digest(Code), Other, []),
                                  Job = erlperf_job_started(Code),
                                  ok = erlperf_job:set_concurrency(Job, 1),
                                  Before = erlperf_job:sample(Job),
                                  timer:sleep(50),
                                  ?assert(erlperf_job:sample(Job) > Before),
                                  ok = erlperf_job:stop(Job),
                                  ?assertNot(erlang:module_loaded(erlperf_foreign_entry))
                              end)
               end).

%% A directory writable by all is not read: another user could have put code there.
untrusted_dir_test_() ->
    with_dir(fun (Dir) ->
                     ?_test(begin
                                Digest = digest(#{runner => "ok."}),
                                ok = erlperf_compile_cache:store(Dir, Digest, <<"bin">>, []),
                                ?assertMatch({ok, <<"bin">>, []}, erlperf_compile_cache:fetch(Dir, Digest)),
                                ok = file:change_mode(Dir, 8#777),
                                ?assertEqual(miss, erlperf_compile_cache:fetch(Dir, Digest)),
                                ok = file:change_mode(Dir, 8#755),
                                ?assertMatch({ok, <<"bin">>, []}, erlperf_compile_cache:fetch(Dir, Digest))
                            end)
             end).

erlperf_job_started(Code) ->
    {ok, Job} = erlperf_job:start(Code),
    Job.
