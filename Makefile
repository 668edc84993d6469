# erlperf build entry points. `make run` and `make test` are the quick start.
REBAR ?= rebar3

.PHONY: all compile escript run install uninstall test test-all test-otp browser eunit ct dialyzer xref \
        check bench bench-calibration bench-suites bench-busy bench-power bench-httpd bench-rate doc prereq-build prereq-test clean

all: escript

# Prerequisites, as "what to look for:Debian package" pairs: commands on the PATH, and
# modules of Erlang/OTP applications. Building needs erl with the compiler and rebar3;
# the tests also need common_test, dialyzer, xref, edoc, eunit, PropEr and Elixir (mix erlperf
# and the Elixir API are tested with the real mix and elixir).
BUILD_COMMANDS = erl:erlang-base $(REBAR):rebar3
BUILD_MODULES = compile:erlang-base
TEST_COMMANDS = ct_run:erlang-common-test dialyzer:erlang-dialyzer elixir:elixir mix:elixir
TEST_MODULES = xref:erlang-tools edoc:erlang-edoc eunit:erlang-eunit proper:erlang-proper

# $(call prereq,KIND,COMMANDS,MODULES): installs the Debian packages of what is missing
# when run as root with apt-get; otherwise names them on one line and fails.
define prereq
@missing=""; \
for c in $(2); do \
  command -v $${c%%:*} >/dev/null 2>&1 || missing="$$missing $${c#*:}"; \
done; \
if command -v erl >/dev/null 2>&1; then \
  for m in $(3); do \
    erl -noshell -eval "halt(case code:which($${m%%:*}) of non_existing -> 1; _ -> 0 end)." \
      || missing="$$missing $${m#*:}"; \
  done; \
fi; \
missing=$$(echo $$missing | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/ $$//'); \
if [ -n "$$missing" ]; then \
  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
    echo "installing $(1) prerequisites: $$missing"; \
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null || exit 1; \
  else \
    sudo=""; [ "$$(id -u)" = "0" ] || sudo="sudo "; \
    echo "missing $(1) prerequisites: $$missing (install them: $${sudo}apt-get install $$missing)" >&2; exit 1; \
  fi; \
fi
endef

# Building: erl (with the compiler) and rebar3.
prereq-build:
	$(call prereq,build,$(BUILD_COMMANDS),$(BUILD_MODULES))

# Testing: the build's prerequisites and the test tools.
prereq-test: prereq-build
	$(call prereq,test,$(TEST_COMMANDS),$(TEST_MODULES))

# The browser the report tests load pages in (Debian's chromium); without it (not root,
# no apt-get) those checks are skipped with a message.
browser:
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing: chromium"; \
	    (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium || \
	     (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)) >/dev/null \
	      || echo "chromium could not be installed: browser checks of HTML reports will be skipped"; \
	  else \
	    echo "no chromium (apt-get install chromium): browser checks of HTML reports will be skipped"; \
	  fi; \
	fi

compile: prereq-build
	$(REBAR) compile

escript: prereq-build
	$(REBAR) escriptize
	cp _build/default/bin/erlperf ./erlperf

run: escript
	./erlperf 'rand:uniform().'

# The escript as $(PREFIX)/bin/erlperf (staged under $(DESTDIR) when set).
PREFIX ?= /usr/local
install: escript
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 erlperf $(DESTDIR)$(PREFIX)/bin/erlperf

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/erlperf

eunit: prereq-test
	$(REBAR) eunit

# `make ct SUITE=erlperf_rebar3_SUITE' runs one suite (or several, comma-separated).
ct: prereq-test escript
	$(REBAR) ct $(if $(SUITE),--suite $(SUITE))

dialyzer: prereq-test
	$(REBAR) dialyzer

xref: prereq-test
	$(REBAR) xref

test: prereq-test escript browser
	$(REBAR) as ci compile
	@# every check runs whatever an earlier one found, so that one run reports all
	@failed=""; for step in eunit ct xref dialyzer edoc; do \
	  echo "rebar3 $$step"; $(REBAR) $$step || failed="$$failed $$step"; \
	done; \
	if [ -n "$$failed" ]; then echo "make test: failed:$$failed" >&2; exit 1; fi

# The whole suite on every supported release, as CI runs it: this machine's OTP here, the
# others in Debian root filesystems under _build/otp (made with debootstrap, reused; needs
# root). `make test-otp OTP=29' runs one release; TARGETS="ct" other targets there.
OTP ?= 29
TARGETS ?= test
test-all:
	bash .ci/otp 25 27 29

test-otp:
	bash .ci/otp $(OTP) -- $(TARGETS)

# API reference from the EDoc comments, into _build/edoc.
doc: prereq-test
	$(REBAR) edoc

check: test

# Self-measurements: harness overhead, empty runner, scaling, start-up, the calibration
# of intervals and verdicts, the process discoverer's cost against the number of known
# processes, and the agents' slowdown of an httpd (see bench/; the httpd bench uses
# examples/httpd_load_gen.erl).
bench: escript
	mkdir -p _build/bench
	erlc -pa _build/default/lib/erlperf/ebin -o _build/bench bench/*.erl examples/httpd_load_gen.erl
	erl -noshell -pa _build/default/lib/erlperf/ebin -pa _build/bench \
	    -eval 'erlperf_bench:main(), erlperf_bench_calibration:main(), erlperf_bench_suites:main(), erlperf_bench_busy:main(), erlperf_bench_power:main(), erlperf_bench_agents:main(), erlperf_bench_httpd:main(), erlperf_bench_rate:main(), halt(0).'

# The calibration of intervals and verdicts alone (part of `make bench'; about 11 minutes).
bench-calibration: compile
	mkdir -p _build/bench
	erlc -pa _build/default/lib/erlperf/ebin -o _build/bench bench/erlperf_bench_calibration.erl
	erl -noshell -pa _build/default/lib/erlperf/ebin -pa _build/bench \
	    -eval 'erlperf_bench_calibration:main(), halt(0).'

# Suite runs against the previous run alone: unchanged code, a planted 2x slowdown
# (part of `make bench'; about a minute).
bench-suites: escript
	mkdir -p _build/bench
	erlc -pa _build/default/lib/erlperf/ebin -o _build/bench bench/erlperf_bench_suites.erl
	erl -noshell -pa _build/default/lib/erlperf/ebin -pa _build/bench \
	    -eval 'erlperf_bench_suites:main(), halt(0).'

# Verdicts on a busy host alone: unchanged suite runs with the load changing between
# them, planted changes found under load (part of `make bench'; a few minutes).
bench-busy: escript
	mkdir -p _build/bench
	erlc -pa _build/default/lib/erlperf/ebin -o _build/bench bench/erlperf_bench_suites.erl bench/erlperf_bench_busy.erl
	erl -noshell -pa _build/default/lib/erlperf/ebin -pa _build/bench \
	    -eval 'erlperf_bench_busy:main(), halt(0).'

# The power of verdicts measured until decided alone: a change in time alone found, and
# identical code called different, in one run and with --against, quiet and busy (part of
# `make bench'; about 25 minutes).
bench-power: escript
	mkdir -p _build/bench
	erlc -pa _build/default/lib/erlperf/ebin -o _build/bench bench/erlperf_bench_busy.erl bench/erlperf_bench_suites.erl bench/erlperf_bench_power.erl
	erl -noshell -pa _build/default/lib/erlperf/ebin -pa _build/bench \
	    -eval 'erlperf_bench_power:main($(or $(TRIALS),5)), halt(0).'

# The agents' slowdown of an httpd alone (part of `make bench').
bench-httpd: escript
	mkdir -p _build/bench
	erlc -pa _build/default/lib/erlperf/ebin -o _build/bench bench/erlperf_bench_httpd.erl examples/httpd_load_gen.erl
	erl -noshell -pa _build/default/lib/erlperf/ebin -pa _build/bench \
	    -eval 'erlperf_bench_httpd:main(), halt(0).'

# The open-load generator: the highest rate it holds within 1%, against the closed loop.
bench-rate: compile
	mkdir -p _build/bench
	erlc -pa _build/default/lib/erlperf/ebin -o _build/bench bench/erlperf_bench_rate.erl
	erl -noshell -pa _build/default/lib/erlperf/ebin -pa _build/bench \
	    -eval 'erlperf_bench_rate:main(), halt(0).'

clean:
	$(REBAR) clean
	rm -rf _build ./erlperf
