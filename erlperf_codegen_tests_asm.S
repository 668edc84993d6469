{module, erlperf_codegen_tests_asm}.  %% version = 0

{exports, [{'erlperf call',3},
           {'erlperf run',3},
           {'erlperf timed',3},
           {module_info,0},
           {module_info,1}]}.

{attributes, []}.

{labels, 17}.


{function, 'erlperf call', 3, 2}.
  {label,1}.
    {line,[]}.
    {func_info,{atom,erlperf_codegen_tests_asm},{atom,'erlperf call'},3}.
  {label,2}.
    {test_heap,3,1}.
    {put_tuple2,{x,0},{list,[{atom,undefined_role},{x,0}]}}.
    {call_ext_only,1,{extfunc,erlang,error,1}}.


{function, 'erlperf run', 3, 4}.
  {label,3}.
    {line,[]}.
    {func_info,{atom,erlperf_codegen_tests_asm},{atom,'erlperf run'},3}.
  {label,4}.
    {call_only,1,{f,6}}. % 'erlperf loop'/1


{function, 'erlperf loop', 1, 6}.
  {label,5}.
    {line,[]}.
    {func_info,{atom,erlperf_codegen_tests_asm},{atom,'erlperf loop'},1}.
  {label,6}.
    {test,is_eq_exact,{f,7},[{x,0},{integer,0}]}.
    {allocate,0,0}.
    {call_ext,0,{extfunc,erlperf_job,publish,0}}.
    {call_last,1,{f,6},0}. % 'erlperf loop'/1
  {label,7}.
    {allocate,1,1}.
    {move,{x,0},{y,0}}.
    {move,{literal,[a,"b",{c,1.5}]},{x,1}}.
    {move,{atom,foo},{x,0}}.
    {line,[{location,"runner",1}]}.
    {call_ext,2,{extfunc,lists,member,2}}.
    {line,[]}.
    {gc_bif,'-',{f,0},0,[{y,0},{integer,1}],{x,0}}.
    {call_last,1,{f,6},1}. % 'erlperf loop'/1


{function, 'erlperf timed', 3, 9}.
  {label,8}.
    {line,[]}.
    {func_info,{atom,erlperf_codegen_tests_asm},{atom,'erlperf timed'},3}.
  {label,9}.
    {allocate,1,1}.
    {move,{x,0},{y,0}}.
    {call_ext,0,{extfunc,erlang,monotonic_time,0}}.
    {swap,{y,0},{x,0}}.
    {call,1,{f,11}}. % 'erlperf timed_loop'/1
    {'%',{var_info,{x,0},[{type,{t_atom,[ok]}}]}}.
    {call_ext,0,{extfunc,erlang,monotonic_time,0}}.
    {gc_bif,'-',{f,0},1,[{x,0},{y,0}],{x,0}}.
    {move,{atom,nanosecond},{x,2}}.
    {move,{atom,native},{x,1}}.
    {call_ext_last,3,{extfunc,erlang,convert_time_unit,3},1}.


{function, 'erlperf timed_loop', 1, 11}.
  {label,10}.
    {line,[]}.
    {func_info,{atom,erlperf_codegen_tests_asm},{atom,'erlperf timed_loop'},1}.
  {label,11}.
    {test,is_eq_exact,{f,12},[{x,0},{integer,0}]}.
    {move,{atom,ok},{x,0}}.
    return.
  {label,12}.
    {allocate,1,1}.
    {move,{x,0},{y,0}}.
    {move,{literal,[a,"b",{c,1.5}]},{x,1}}.
    {move,{atom,foo},{x,0}}.
    {line,[{location,"runner",1}]}.
    {call_ext,2,{extfunc,lists,member,2}}.
    {line,[]}.
    {gc_bif,'-',{f,0},0,[{y,0},{integer,1}],{x,0}}.
    {call_last,1,{f,11},1}. % 'erlperf timed_loop'/1


{function, module_info, 0, 14}.
  {label,13}.
    {line,[]}.
    {func_info,{atom,erlperf_codegen_tests_asm},{atom,module_info},0}.
  {label,14}.
    {move,{atom,erlperf_codegen_tests_asm},{x,0}}.
    {call_ext_only,1,{extfunc,erlang,get_module_info,1}}.


{function, module_info, 1, 16}.
  {label,15}.
    {line,[]}.
    {func_info,{atom,erlperf_codegen_tests_asm},{atom,module_info},1}.
  {label,16}.
    {move,{x,0},{x,1}}.
    {move,{atom,erlperf_codegen_tests_asm},{x,0}}.
    {call_ext_only,2,{extfunc,erlang,get_module_info,2}}.
