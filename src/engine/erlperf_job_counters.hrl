%% The counter of one worker position: an `atomics' array written by the position's
%% worker (erlperf_job: the worker body and publish/0) and read through the job's
%% handle (erlperf_job_counters). Slots: iterations, last publication, how long the
%% current batch should take (native units), the size of that batch.
-define(COUNT, 1).
-define(PUBLISHED, 2).
-define(EXPECTED, 3).
-define(BATCH, 4).
