# Reference values of erlperf_stat's `ratio' test (compare_runs/3 of runs measured until
# decided) for test/erlperf_stat_tests.erl, computed independently of erlperf_stat:
# Python's math and statistics, and SciPy's Student t distribution (Debian's
# python3-scipy, 1.10.1).
#
#   python3 test/erlperf_stat_SUITE_data/ratio_reference.py \
#     | diff - test/erlperf_stat_SUITE_data/ratio_reference.txt
#
# The test: 5 forks of 4 samples, A's and B's sample i of a fork taken in the same
# round. Each fork's statistic is the median, by nearest rank (rank ceil(n / 2), the
# lower middle of an even count), of log(B(i) / A(i)); then a one-sample t test and
# interval of the 5 statistics at alpha / looks (Bonferroni over the planned looks).
# The change is 100 * (exp(mean) - 1) percent, the interval's bounds transformed alike.
import math
import statistics

from scipy import stats

# the same literals are in the test module (?RATIO_A, ?RATIO_B, ?RATIO_C)
A = [1000, 1012, 995, 1006, 1020, 1031, 1015, 1024, 990, 1003, 985, 998,
     1010, 1008, 1016, 1002, 1005, 1019, 997, 1011]
# about 2% lower in every round
B = [981, 990, 978, 985, 1001, 1012, 990, 1009, 972, 987, 968, 975,
     985, 991, 994, 983, 988, 996, 981, 990]
# about the same: one fork up, four down by less than 0.5%
C = [1003, 1008, 999, 1001, 1012, 1036, 1010, 1027, 994, 998, 989, 1001,
     1006, 1013, 1012, 1007, 1001, 1022, 999, 1006]
SIZE = 4


def lower_median(xs):
    return sorted(xs)[math.ceil(len(xs) / 2) - 1]


def fork_statistics(a, b):
    return [lower_median([math.log(y / x) for x, y in zip(a[i:i + SIZE], b[i:i + SIZE])])
            for i in range(0, len(a), SIZE)]


def pct(log_ratio):
    return 100 * (math.exp(log_ratio) - 1)


def ratio(a, b, alpha):
    f = fork_statistics(a, b)
    n = len(f)
    mean = statistics.fmean(f)
    sd = statistics.stdev(f)
    se = sd / math.sqrt(n)
    t = mean / se
    q = stats.t.ppf(1 - alpha / 2, n - 1)
    return [("forks", f), ("mean", mean), ("sd", sd), ("statistic", t), ("df", n - 1),
            ("qt", q), ("p", 2 * stats.t.sf(abs(t), n - 1)), ("change_pct", pct(mean)),
            ("ci_pct", (pct(mean - q * se), pct(mean + q * se)))]


for name, b in [("B", B), ("C", C)]:
    for looks in [1, 3]:
        print(f"{name} against A, looks {looks}: alpha = 0.05 / {looks}")
        for key, value in ratio(A, b, 0.05 / looks):
            print(f"  {key} {value!r}")
