%% The field names of the JSON files erlperf writes and reads back, each spelled once:
%% a benchmark's results record (doc/formats.md), a performance test's results.json
%% (doc/perf-testing.md) and an entry of the results store (doc/suites.md). Write
%% `#{?RUNS := Runs}', never the binary itself; erlperf_schema checks the shapes these
%% keys make. Included as "model/erlperf_schema.hrl": src/ is on the include path of
%% rebar3 and of Mix.
-ifndef(ERLPERF_SCHEMA_HRL).
-define(ERLPERF_SCHEMA_HRL, true).

%% The layout versions this release writes and reads (the files' `version' and
%% `store_version'); a reader refuses a newer one. A change of meaning or shape bumps it.
-define(RECORD_LAYOUT, 1).
-define(PERF_RESULTS_LAYOUT, 1).
-define(STORE_ENTRY_LAYOUT, 1).

%% Top level of a benchmark's record (erlperf_record) and of a performance test's
%% results (erlperf_perf_results): both have a version, the system, the options and runs.
-define(VERSION, <<"version">>).
-define(SYSTEM, <<"system">>).
-define(OPTIONS, <<"options">>).
-define(RUNS, <<"runs">>).
%% How a benchmark's runners shared the machine.
-define(COMPARE, <<"compare">>).

%% A benchmark's run (one runner).
-define(LABEL, <<"label">>).
-define(CODE, <<"code">>).
-define(MODE, <<"mode">>).
-define(CONCURRENCY, <<"concurrency">>).
-define(SAMPLES, <<"samples">>).
-define(AVERAGE, <<"average">>).
-define(QPS, <<"qps">>).
%% A sweep's combination of a run, and a sweep's parameters in the options.
-define(PARAMS, <<"params">>).
%% A run measured until decided: how it went (erlperf_forks:sequential()).
-define(SEQUENTIAL, <<"sequential">>).
%% A reference workload measured in the same run, taking turns with the benchmark
%% sample by sample: its code and samples (erlperf_reference).
-define(REFERENCE, <<"reference">>).
%% the fingerprint of the code a suite's benchmark ran (erlperf_fingerprint)
-define(FINGERPRINT, <<"fingerprint">>).

%% A run's figures (see doc/formats.md): spelled here once.
-define(ITERATION_NS, <<"iteration_ns">>).
-define(BYTES_PER_ITERATION, <<"bytes_per_iteration">>).
-define(REDUCTIONS_PER_ITERATION, <<"reductions_per_iteration">>).
-define(CPU_SAMPLES, <<"cpu_samples">>).
-define(INTERFERENCE, <<"interference">>).
-define(P50, <<"p50">>).
-define(P90, <<"p90">>).
-define(P99, <<"p99">>).
-define(P999, <<"p999">>).
-define(MEDIAN, <<"median">>).
-define(STDDEV, <<"stddev">>).
%% The percentiles every latency and open-load figure reports, in order, then its maximum.
-define(PERCENTILES, [?P50, ?P90, ?P99, ?P999, <<"max">>]).
%% Against the fastest runner, and against saved baselines.
-define(COMPARISON, <<"comparison">>).
-define(BASELINES, <<"baselines">>).

%% Top level of a performance test's results.
-define(LOAD_GENERATOR, <<"load_generator">>).
-define(STARTED, <<"started">>).
-define(SIZE_LABEL, <<"size_label">>).
-define(TRACE_PATTERNS, <<"trace_patterns">>).
-define(REQUIREMENTS, <<"requirements">>).
%% A performance test's run (one size).
-define(SIZE, <<"size">>).
-define(STATUS, <<"status">>).

%% An entry of the results store (erlperf_store): its layout, when and at which commit
%% the run was made, and its record.
-define(STORE_VERSION, <<"store_version">>).
-define(TIME, <<"time">>).
-define(COMMIT, <<"commit">>).
-define(RECORD, <<"record">>).

-endif.
