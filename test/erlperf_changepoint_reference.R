# Reference values for test/erlperf_changepoint_tests.erl, computed with R's own
# functions (t.test, lm, confint, pt, qt, qnorm), independently of erlperf_changepoint.
#
#   Rscript test/erlperf_changepoint_reference.R
#
# Written with R 4.2.2. Output: Erlang terms, numbers with 17 significant digits (enough
# to give back the same double), pasted into the test module.
#
# For each series: the split chosen (the single split with the largest pooled t, each
# side at least 2 runs; for the bump, the stretch against the rest with the largest
# pooled t), and for every step between adjacent segments the two tests on log values:
# pooled (the residual variance of the model of segment means, lm(log(y) ~ segment)) and
# Welch's (t.test), the one with the wider interval reported.

erl1 <- function(v) {
  s <- sprintf("%.17g", v)
  if (!grepl("[.]", s)) s <- if (grepl("e", s)) sub("e", ".0e", s) else paste0(s, ".0")
  s
}
out <- function(...) cat(..., "\n", sep = "")

# ---- data sets (the same literals are in the test module) ----
a <- c(1012, 998, 1005, 991, 1003, 1009, 925, 931, 918, 926, 935, 921)     # -8% at 7
b <- c(1040, 975, 1010, 960, 1030, 990, 1102, 1098, 1105, 1100, 1097, 1103) # noisy, then tight
cc <- c(1003, 985, 1017, 996, 1021, 979, 1008, 992, 1011, 1082, 1081, 1083) # +8% at 10
d <- c(1001, 990, 1012, 995, 1098, 1110, 1092, 1105, 1101, 1003, 991, 1008, 997, 1012, 989)
# e: values with their 95% intervals (+-1%): the intervals are wider than the spread
e <- c(1000, 1000, 1001, 1000, 1050, 1051, 1050, 1050)
elow <- e * 0.99
ehigh <- e * 1.01

# The best single split: the `at' (first point after it) with the largest pooled t.
best_split <- function(y, ms = 2) {
  n <- length(y)
  ts <- sapply((ms + 1):(n - ms + 1), function(at)
    abs(t.test(y[at:n], y[1:(at - 1)], var.equal = TRUE)$statistic))
  ((ms + 1):(n - ms + 1))[which.max(ts)]
}
# The best inner stretch: c(first, first after) of the stretch with the largest pooled t
# against the rest.
best_stretch <- function(y, ms = 2) {
  n <- length(y)
  best <- c(0, 0, 0)
  for (i in (ms + 1):(n - 2 * ms + 1)) for (j in (i + ms):(n - ms + 1)) {
    inside <- i:(j - 1)
    t <- abs(t.test(y[inside], y[-inside], var.equal = TRUE)$statistic)
    if (t > best[1]) best <- c(t, i, j)
  }
  best[2:3]
}

pct <- function(l) 100 * (exp(l) - 1)

# A step between segment k and k + 1 of y (edges: first index of each segment, then
# length + 1): both tests, the wider reported.
step <- function(name, y, edges, k, alpha) {
  seg <- factor(rep(seq_along(head(edges, -1)), diff(edges)))
  ly <- log(y)
  before <- ly[seg == k]
  after <- ly[seg == k + 1]
  fit <- lm(ly ~ relevel(seg, ref = as.character(k)))
  coef_name <- paste0("relevel(seg, ref = as.character(k))", k + 1)
  est <- coef(summary(fit))[coef_name, ]
  pooled_ci <- confint(fit, coef_name, level = 1 - alpha)
  welch <- t.test(after, before, conf.level = 1 - alpha)
  pooled_width <- pooled_ci[2] - pooled_ci[1]
  welch_width <- welch$conf.int[2] - welch$conf.int[1]
  if (pooled_width >= welch_width) {
    test <- "pooled"; ci <- pooled_ci; p <- est[["Pr(>|t|)"]]
  } else {
    test <- "welch"; ci <- welch$conf.int; p <- welch$p.value
  }
  out("{step, ", name, ", ", erl1(alpha), ", ", edges[k + 1], ", ", erl1(exp(mean(before))), ", ",
      erl1(exp(mean(after))), ", ", erl1(100 * (exp(mean(after)) / exp(mean(before)) - 1)), ", {",
      erl1(pct(ci[1])), ", ", erl1(pct(ci[2])), "}, ", erl1(p), ", ", test, "}.")
}

out("%% best single split (at) and best inner stretch (first, first after)")
for (name in c("a", "b", "cc")) out("{split, ", name, ", ", best_split(get(name)), "}.")
s <- best_stretch(d)
out("{stretch, d, ", s[1], ", ", s[2], "}.")

out("%% {step, Series, Alpha, At, Before, After, ChangePct, {CiLow, CiHigh}, P, WiderTest}")
step("a", a, c(1, 7, 13), 1, 0.01)
step("a", a, c(1, 7, 13), 1, 0.05)
step("b", b, c(1, 7, 13), 1, 0.01)
step("cc", cc, c(1, 10, 13), 1, 0.01)
step("d", d, c(1, 5, 10, 16), 1, 0.01)
step("d", d, c(1, 5, 10, 16), 2, 0.01)

# e: each variance is at least the mean squared relative standard error of its points,
# (High - Low) / (2 qnorm(0.975) Value); R arithmetic on R's pt and qt.
out("%% values with intervals: the variances' floor (R arithmetic on pt, qt, qnorm)")
floor_e <- ((ehigh - elow) / (2 * qnorm(0.975) * e))^2
le <- log(e)
b1 <- le[1:4]; a1 <- le[5:8]
v1 <- max(var(b1), mean(floor_e[1:4])) / 4
v2 <- max(var(a1), mean(floor_e[5:8])) / 4
welch_df <- (v1 + v2)^2 / (v1^2 / 3 + v2^2 / 3)
welch_half <- qt(0.995, welch_df) * sqrt(v1 + v2)
resid <- max((sum((b1 - mean(b1))^2) + sum((a1 - mean(a1))^2)) / 6, mean(floor_e))
pooled_se <- sqrt(resid * (1 / 4 + 1 / 4))
pooled_half <- qt(0.995, 6) * pooled_se
diff <- mean(a1) - mean(b1)
if (pooled_half >= welch_half) {
  test <- "pooled"; half <- pooled_half; p <- 2 * pt(-abs(diff / pooled_se), 6)
} else {
  test <- "welch"; half <- welch_half; p <- 2 * pt(-abs(diff / sqrt(v1 + v2)), welch_df)
}
out("{step, e, ", erl1(0.01), ", 5, ", erl1(exp(mean(b1))), ", ", erl1(exp(mean(a1))), ", ",
    erl1(100 * (exp(mean(a1)) / exp(mean(b1)) - 1)), ", {", erl1(pct(diff - half)), ", ",
    erl1(pct(diff + half)), "}, ", erl1(p), ", ", test, "}.")

# How much 12 runs can tell (quoted in the tests, not compared): with noise 1.7% between
# runs and a 5% step after run 6, the share of series in which the t-test at the known
# split rejects at 1%, and in which the exact largest-t test over all single splits
# (its 99% point from simulated flat series) does.
set.seed(20240502)
n <- 12
max_t <- function(y) max(sapply(3:11, function(at)
  abs(t.test(y[at:n], y[1:(at - 1)], var.equal = TRUE)$statistic)))
critical <- quantile(replicate(20000, max_t(rnorm(n))), 0.99, names = FALSE)
stepped <- function() log(1 + rnorm(n, 0, 0.017)) + log(c(rep(1, 6), rep(1.05, 6)))
known <- mean(replicate(5000, { y <- stepped(); t.test(y[7:12], y[1:6], var.equal = TRUE)$p.value < 0.01 }))
scan <- mean(replicate(5000, max_t(stepped()) > critical))
out("%% power at 1%, 5% step after run 6 of 12, noise 1.7%: known split, largest t of single splits")
out("{power, known_split, ", sprintf("%.3f", known), "}.")
out("{power, largest_t, ", sprintf("%.3f", scan), "}.")
