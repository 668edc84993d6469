# Reference values for test/erlperf_stat_tests.erl, computed with R's own functions
# (qt, pt, qnorm, pbeta, t.test, wilcox.test, quantile, aov), independently of erlperf_stat.
#
#   Rscript test/erlperf_stat_SUITE_data/reference.R > test/erlperf_stat_SUITE_data/reference.txt
#
# Written with R 4.2.2. Output: Erlang terms, numbers with 17 significant digits (enough
# to give back the same double), pasted into the test module.

erl1 <- function(v) {
  s <- sprintf("%.17g", v)
  if (!grepl("[.]", s)) s <- if (grepl("e", s)) sub("e", ".0e", s) else paste0(s, ".0")
  s
}
erl <- function(x) paste(sapply(x, erl1), collapse = ", ")
int <- function(x) paste(format(x, scientific = FALSE, trim = TRUE), collapse = ", ")
out <- function(...) cat(..., "\n", sep = "")

# ---- data sets (the same literals are in the test module) ----
small <- c(1520, 1498, 1534)                                  # n = 3
ties <- c(12, 15, 15, 11, 18, 15, 12, 20, 14, 12)             # n = 10, with ties
# n = 30, skewed (log-normal), and a second one about 8% higher (n = 25):
set.seed(20240501)
skewed <- round(rlnorm(30, log(1000), 0.5))
skewed2 <- round(rlnorm(25, log(1080), 0.5))
outl <- c(101, 99, 100, 102, 98, 100, 103, 97, 101, 99, 100, 104, 96, 100,
          112, 88, 130, 60, 250, 1, 91)                       # n = 21, outliers
fences <- c(0, 4, 4, 4, 8, 8, 8, 14, 20)                      # 14 and 20 on fences
# paired: the same 12 instants, B about 2% slower than A; and a pair with no difference
pa <- c(1020, 998, 1011, 1034, 987, 1003, 1019, 995, 1008, 1026, 1001, 990)
pb <- pa - c(18, 25, 9, 30, 12, 21, 15, 27, 8, 22, 19, 14)
pc <- pa + c(3, -4, 6, -2, -5, 1, 4, -3, 2, -6, 5, -1)
ties2 <- c(14, 16, 15, 19, 17, 15, 21, 18, 16, 20, 14, 22)    # n = 12, ties with `ties'

out("%% data")
out("{data, skewed, [", int(skewed), "]}.")
out("{data, skewed2, [", int(skewed2), "]}.")
out("{data, pb, [", int(pb), "]}.")
out("{data, pc, [", int(pc), "]}.")

out("%% qt(p, df)")
for (df in c(1, 2, 5, 10, 30, 100, 1000))
  for (p in c(0.95, 0.975, 0.995))
    out("{qt, ", erl(p), ", ", erl(df), ", ", erl(qt(p, df)), "}.")
for (df in c(2.5, 7.3, 17.68, 1e5))
  for (p in c(0.001, 0.3, 0.9))
    out("{qt, ", erl(p), ", ", erl(df), ", ", erl(qt(p, df)), "}.")

out("%% pt(t, df)")
for (df in c(1, 3, 12.5, 100))
  for (t in c(-6, -1.25, 0.3, 2.2))
    out("{pt, ", erl(t), ", ", erl(df), ", ", erl(pt(t, df)), "}.")

out("%% qnorm(p)")
for (p in c(1e-12, 0.001, 0.02, 0.025, 0.3, 0.5, 0.75, 0.975, 0.999999))
  out("{qnorm, ", erl(p), ", ", erl(qnorm(p)), "}.")

out("%% pbeta(x, a, b)")
for (ab in list(c(0.5, 0.5), c(2, 3), c(15, 0.5), c(0.5, 40), c(200, 300)))
  for (x in c(0.01, 0.4, 0.6, 0.99))
    out("{pbeta, ", erl(x), ", ", erl(ab[1]), ", ", erl(ab[2]), ", ", erl(pbeta(x, ab[1], ab[2])), "}.")

out("%% t.test(x, conf.level)$conf.int")
sets <- list(small = small, ties = ties, skewed = skewed, outliers = outl, fences = fences)
for (name in names(sets))
  for (c in c(50, 90, 95, 99, 99.9)) {
    ci <- t.test(sets[[name]], conf.level = c / 100)$conf.int
    out("{ci, ", name, ", ", erl(c), ", {", erl(ci[1]), ", ", erl(ci[2]), "}}.")
  }

out("%% quantile(x, type = 7) at 0.25, 0.5, 0.75; Tukey's fences and counts")
for (name in names(sets)) {
  x <- sets[[name]]
  q <- quantile(x, c(0.25, 0.5, 0.75), type = 7, names = FALSE)
  iqr <- q[3] - q[1]
  f <- c(q[1] - 3 * iqr, q[1] - 1.5 * iqr, q[3] + 1.5 * iqr, q[3] + 3 * iqr)
  counts <- c(sum(x < f[1]), sum(x >= f[1] & x < f[2]), sum(x > f[3] & x <= f[4]), sum(x > f[4]))
  out("{outliers, ", name, ", {", erl(q), "}, {", erl(f), "}, {", int(counts), "}}.")
}

# Fieller's interval of mean(b) / mean(a), less 1, in percent: the two roots of
# g(r) = (mb - r ma)^2 - t^2 (vb - 2 r cab + r^2 va), found by root search (uniroot) on
# either side of mb / ma, where g is negative.
fieller_pct <- function(ma, mb, va, vb, cab, t) {
  g <- function(r) (mb - r * ma)^2 - t^2 * (vb - 2 * r * cab + r^2 * va)
  r0 <- mb / ma
  width <- 1
  while (g(r0 - width) <= 0 || g(r0 + width) <= 0) width <- width * 2
  lo <- uniroot(g, c(r0 - width, r0), tol = 1e-15)$root
  hi <- uniroot(g, c(r0, r0 + width), tol = 1e-15)$root
  100 * (c(lo, hi) - 1)
}

cmp <- function(name, a, b, conf) {
  alpha <- 1 - conf / 100
  ma <- mean(a)
  pct <- function(v) 100 * v / abs(ma)
  w <- t.test(b, a, conf.level = conf / 100)
  wci <- fieller_pct(ma, mean(b), var(a) / length(a), var(b) / length(b), 0,
                     qt(1 - alpha / 2, w$parameter))
  out("{compare, welch, ", name, ", ", erl(conf), ", ", erl(pct(mean(b) - ma)), ", {", erl(wci),
      "}, ", erl(w$p.value), ", ", erl(w$statistic), ", ", erl(w$parameter), "}.")
  if (length(a) == length(b)) {
    n <- length(a)
    p <- t.test(b, a, paired = TRUE, conf.level = conf / 100)
    pci <- fieller_pct(ma, mean(b), var(a) / n, var(b) / n, cov(a, b) / n, qt(1 - alpha / 2, n - 1))
    out("{compare, paired, ", name, ", ", erl(conf), ", ", erl(pct(mean(b - a))), ", {", erl(pci),
        "}, ", erl(p$p.value), ", ", erl(p$statistic), ", ", erl(p$parameter), "}.")
  }
  m <- wilcox.test(b, a, exact = FALSE, correct = TRUE)
  na <- length(a); nb <- length(b); n <- na + nb
  d <- sort(outer(b, a, "-"))
  hl <- median(d)
  k <- floor(na * nb / 2 - qnorm(1 - alpha / 2) * sqrt(na * nb * (n + 1) / 12))
  ci <- if (k >= 1) paste0("{", erl(pct(c(d[k], d[na * nb + 1 - k]))), "}") else "undefined"
  # z as wilcox.test computes it (tie and continuity corrections)
  nties <- table(c(a, b))
  z <- m$statistic - na * nb / 2
  sigma <- sqrt((na * nb / 12) * ((n + 1) - sum(nties^3 - nties) / (n * (n - 1))))
  z <- (z - sign(z) * 0.5) / sigma
  out("{compare, mann_whitney, ", name, ", ", erl(conf), ", ", erl(pct(hl)), ", ", ci, ", ",
      erl(m$p.value), ", ", erl(z), ", ", erl(hl), "}.")
}
out("%% comparisons of A and B: {compare, Test, Name, Confidence, ChangePct, CiPct, P, Statistic, Df | HL}")
cmp("skewed", skewed, skewed2, 95)
cmp("skewed", skewed, skewed2, 90)
cmp("ties", ties, ties2, 95)
cmp("ties", ties, ties2, 99)
cmp("paired", pa, pb, 95)
cmp("paired", pa, pb, 99.9)
cmp("paired_none", pa, pc, 95)
cmp("small", small, c(1490, 1502, 1511, 1480), 95)

# ---- nearest-rank percentiles and the latency summary ----
# Data sets made by formula, so that the tests build the same ones without literals:
#   spread: (i * 7919) mod 10007 for i = 1..5000 (distinct values)
#   heavy:  floor(10^6 / (((i * 7919) mod 10007) + 1)) for i = 1..3000 (heavy tail, ties)
#   big:    (i * 7919) mod 10007 for i = 1..41000 (99.9% of 41000 is the whole rank 40959)
spread <- ((1:5000) * 7919) %% 10007
heavy <- floor(1e6 / (((1:3000) * 7919) %% 10007 + 1))
big <- ((1:41000) * 7919) %% 10007
probs <- c(0.5, 0.9, 0.99, 0.999, 1)
out("%% quantile(x, type = 1) at 0.5, 0.9, 0.99, 0.999, 1 (nearest rank)")
psets <- list(small = small, ties = ties, skewed = skewed, outliers = outl, fences = fences,
              spread = spread, heavy = heavy, big = big)
for (name in names(psets))
  out("{type1, ", name, ", {", int(quantile(psets[[name]], probs, type = 1, names = FALSE)), "}}.")
# a latency summary: the spans of `heavy' less the median (type 1) of some empty spans,
# at least 0; its count, min, mean, sd and the percentiles above
empty <- c(80, 70, 90, 80, 100, 60, 85)
calls <- pmax(0, heavy - quantile(empty, 0.5, type = 1, names = FALSE))
out("%% latency summary of heavy less the median of empty spans {80, 70, 90, 80, 100, 60, 85}")
out("{latency, heavy, ", quantile(empty, 0.5, type = 1, names = FALSE), ", ", length(calls), ", ",
    min(calls), ", ", erl(mean(calls)), ", ", erl(sd(calls)), ", {",
    int(quantile(calls, probs, type = 1, names = FALSE)), "}}.")

# ---- samples in forks: variance components, the forked interval, paired fork means ----
# Each data set is its samples fork after fork and the forks' sizes (the same literals
# are in the test module).
fsets <- list(
  balanced = list(y = c(1012, 1030, 998, 1021, 1105, 1093, 1120, 1098, 987, 1003, 979, 995,
                        1050, 1041, 1066, 1039, 1010, 1025, 1002, 1018), n = rep(4, 5)),
  balanced_b = list(y = c(990, 1001, 985, 1004, 1080, 1071, 1092, 1077, 970, 981, 962, 977,
                          1022, 1030, 1019, 1035, 995, 988, 1001, 990), n = rep(4, 5)),
  unbalanced = list(y = c(502, 498, 510, 530, 526, 489, 495), n = c(3, 2, 2)),
  unbalanced_b = list(y = c(509, 505, 515, 541, 533, 497, 500), n = c(3, 2, 2)),
  uneven = list(y = c(20.5, 21.1, 19.8, 20.9, 23.4, 18.7, 21.5, 22.0, 20.2), n = c(4, 1, 1, 3)),
  singles = list(y = c(300, 310, 295, 305), n = rep(1, 4)),
  clipped = list(y = c(10, 20, 30, 11, 19, 29, 12, 21, 28), n = c(3, 3, 3)))

fork_means <- function(s) as.vector(tapply(s$y, rep(seq_along(s$n), s$n), mean))

# The mean squares between (MSB) and within (MSW) forks are aov's; the between variance is
# max(0, (MSB - MSW) / n0), n0 = (N - sum(n^2) / N) / (F - 1), and undefined without
# residual degrees of freedom (one sample per fork).
out("%% components: {components, Name, {Sizes}, {Means}, MeanOfMeans, Between, Within}")
for (name in names(fsets)) {
  s <- fsets[[name]]
  N <- sum(s$n); F <- length(s$n)
  vc <- if (N > F) {
    a <- anova(aov(y ~ g, data.frame(y = s$y, g = factor(rep(seq_len(F), s$n)))))
    n0 <- (N - sum(s$n^2) / N) / (F - 1)
    c(erl(max(0, (a[["Mean Sq"]][1] - a[["Mean Sq"]][2]) / n0)), erl(a[["Mean Sq"]][2]))
  } else c("undefined", "undefined")
  out("{components, ", name, ", {", int(s$n), "}, {", erl(fork_means(s)), "}, ",
      erl(mean(fork_means(s))), ", ", vc[1], ", ", vc[2], "}.")
}

out("%% t.test(fork means, conf.level)$conf.int: {forked_ci, Name, Confidence, {Lo, Hi}}")
for (name in names(fsets))
  for (c in c(90, 95, 99)) {
    ci <- t.test(fork_means(fsets[[name]]), conf.level = c / 100)$conf.int
    out("{forked_ci, ", name, ", ", erl(c), ", {", erl(ci[1]), ", ", erl(ci[2]), "}}.")
  }

# Fork means of B against A's, paired fork by fork: t.test(B means, A means, paired = TRUE)
# and Fieller's interval as above.
fork_cmp <- function(name, a, b, conf) {
  ma <- fork_means(a); mb <- fork_means(b); n <- length(ma)
  p <- t.test(mb, ma, paired = TRUE, conf.level = conf / 100)
  ci <- fieller_pct(mean(ma), mean(mb), var(ma) / n, var(mb) / n, cov(ma, mb) / n,
                    qt(1 - (1 - conf / 100) / 2, n - 1))
  out("{fork_compare, ", name, ", ", erl(conf), ", ", erl(100 * mean(mb - ma) / abs(mean(ma))),
      ", {", erl(ci), "}, ", erl(p$p.value), ", ", erl(p$statistic), ", ", erl(p$parameter), "}.")
}
out("%% paired fork means: {fork_compare, Name, Confidence, ChangePct, CiPct, P, Statistic, Df}")
fork_cmp("balanced", fsets$balanced, fsets$balanced_b, 95)
fork_cmp("balanced", fsets$balanced, fsets$balanced_b, 99)
fork_cmp("unbalanced", fsets$unbalanced, fsets$unbalanced_b, 95)

# ---- run noise: a known standard deviation of R percent of the mean ----
# A runner's interval: mean +- qt(1 - alpha/2, n - 1) * sqrt(se^2 + k), k = (R/100 * mean)^2
# (the degrees of freedom of the estimated part). The units are the fork means of a
# forked run, or the samples of one run.
rn_ci <- function(u, r, conf) {
  m <- mean(u); se2 <- var(u) / length(u); k <- (r / 100 * m)^2
  h <- qt(1 - (1 - conf / 100) / 2, length(u) - 1) * sqrt(se2 + k)
  c(m - h, m + h)
}
out("%% run noise intervals: {run_noise_ci, Name, R, Confidence, {Lo, Hi}}")
for (name in c("balanced", "unbalanced", "uneven"))
  for (r in c(0.5, 2))
    for (c in c(95, 99))
      out("{run_noise_ci, ", name, ", ", erl(r), ", ", erl(c), ", {",
          erl(rn_ci(fork_means(fsets[[name]]), r, c)), "}}.")
for (r in c(0.5, 2))
  out("{run_noise_ci, skewed_samples, ", erl(r), ", 95, {", erl(rn_ci(skewed, r, 95)), "}}.")

# Two runs compared (Welch): the known variances of both means are added to the squared
# standard errors, in the statistic and Fieller's interval; the degrees of freedom are
# Welch-Satterthwaite's of the estimated parts.
rn_welch <- function(name, a, b, r, conf) {
  ma <- mean(a); mb <- mean(b)
  sa <- var(a) / length(a); sb <- var(b) / length(b)
  ka <- (r / 100 * ma)^2; kb <- (r / 100 * mb)^2
  tot <- sa + sb + ka + kb
  nu <- (sa + sb)^2 / (sa^2 / (length(a) - 1) + sb^2 / (length(b) - 1))
  t <- (mb - ma) / sqrt(tot)
  p <- 2 * pt(-abs(t), nu)
  ci <- fieller_pct(ma, mb, sa + ka, sb + kb, 0, qt(1 - (1 - conf / 100) / 2, nu))
  out("{run_noise_welch, ", name, ", ", erl(r), ", ", erl(conf), ", ",
      erl(100 * (mb - ma) / abs(ma)), ", {", erl(ci), "}, ", erl(p), ", ", erl(t), ", ", erl(nu), "}.")
}
out("%% Welch with run noise: {run_noise_welch, Name, R, Confidence, ChangePct, CiPct, P, Statistic, Df}")
for (r in c(0.5, 2)) {
  rn_welch("balanced_forks", fork_means(fsets$balanced), fork_means(fsets$balanced_b), r, 95)
  rn_welch("pa_pb", pa, c(1002, 973, 1002, 1004, 975, 982, 1004, 968, 1000, 1004, 982, 976), r, 95)
  rn_welch("skewed", skewed, skewed2, r, 99)
}

# Yuen's test (20% trimmed means, winsorized variances; R's mean(trim = 0.2) cuts
# floor(0.2 n) from each end), run noise added as for Welch. The fork medians of two
# runs' ratios to the reference workload on a busy 2-vCPU host (a few forks far off).
busy_a <- c(0.1587, 0.1559, 0.1582, 0.1573, 0.1495, 0.1562, 0.1546, 0.1528, 0.1621, 0.1602,
            0.1589, 0.1591, 0.1629, 0.1572, 0.1650, 0.1556)
busy_b <- c(0.1460, 0.1413, 0.1542, 0.1476, 0.1447, 0.1471, 0.1513, 0.1485, 0.1465, 0.1425,
            0.1745, 0.1551, 0.1455, 0.1468)
yuen_ref <- function(name, a, b, r, conf) {
  tr <- function(x) {
    n <- length(x); g <- floor(0.2 * n); h <- n - 2 * g; s <- sort(x)
    w <- pmin(pmax(s, s[g + 1]), s[n - g])
    list(m = mean(x, trim = 0.2), d = (n - 1) * var(w) / (h * (h - 1)), h = h)
  }
  ta <- tr(a); tb <- tr(b)
  ka <- (r / 100 * ta$m)^2; kb <- (r / 100 * tb$m)^2
  nu <- (ta$d + tb$d)^2 / (ta$d^2 / (ta$h - 1) + tb$d^2 / (tb$h - 1))
  t <- (tb$m - ta$m) / sqrt(ta$d + tb$d + ka + kb)
  p <- 2 * pt(-abs(t), nu)
  ci <- fieller_pct(ta$m, tb$m, ta$d + ka, tb$d + kb, 0, qt(1 - (1 - conf / 100) / 2, nu))
  out("{yuen, ", name, ", ", erl(r), ", ", erl(conf), ", ",
      erl(100 * (tb$m - ta$m) / abs(ta$m)), ", {", erl(ci), "}, ", erl(p), ", ", erl(t), ", ", erl(nu), "}.")
}
out("%% Yuen: {yuen, Name, R, Confidence, ChangePct, CiPct, P, Statistic, Df}")
yuen_ref("skewed", skewed, skewed2, 0, 95)
yuen_ref("outl_pa", outl, pa / 10, 0, 95)
yuen_ref("pa_pb", pa, pb, 0.5, 95)
yuen_ref("small", small, c(1490, 1475, 1502, 1488), 0, 95)
yuen_ref("busy", busy_a, busy_b, 0, 95)
yuen_ref("busy", busy_a, busy_b, 1, 100 - 5 / 3)
