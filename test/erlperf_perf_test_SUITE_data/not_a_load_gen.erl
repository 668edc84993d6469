-module(not_a_load_gen).
-export([get_test_name/0]).
get_test_name() -> "half".
