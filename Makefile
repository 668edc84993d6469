# erlperf build entry points. `make run` and `make test` are the quick start.
REBAR ?= rebar3
APT_PACKAGES = rebar3 erlang-common-test erlang-dialyzer erlang-tools erlang-edoc erlang-eunit \
               erlang-proper

.PHONY: all compile escript run test test-all test-otp browser eunit ct dialyzer xref check bench bench-calibration bench-suites bench-httpd doc prereq clean

all: escript

# Install missing build prerequisites from Debian's packages, when possible.
prereq:
	@missing=""; \
	command -v $(REBAR) >/dev/null 2>&1 || missing="$$missing rebar3"; \
	command -v ct_run >/dev/null 2>&1 || missing="$$missing erlang-common-test"; \
	command -v dialyzer >/dev/null 2>&1 || missing="$$missing erlang-dialyzer"; \
	for app in xref:erlang-tools edoc:erlang-edoc eunit:erlang-eunit proper:erlang-proper; do \
	  erl -noshell -eval "halt(case code:which($${app%%:*}) of non_existing -> 1; _ -> 0 end)." \
	    || missing="$$missing $${app#*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES)) >/dev/null || exit 1; \
	  else \
	    echo "missing build prerequisites:$$missing (install: apt-get install $(APT_PACKAGES))" >&2; exit 1; \
	  fi; \
	fi

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

compile: prereq
	$(REBAR) compile

escript: prereq
	$(REBAR) escriptize
	cp _build/default/bin/erlperf ./erlperf

run: escript
	./erlperf 'rand:uniform().'

eunit: prereq
	$(REBAR) eunit

ct: escript
	$(REBAR) ct

dialyzer: prereq
	$(REBAR) dialyzer

xref: prereq
	$(REBAR) xref

test: escript browser
	$(REBAR) as ci compile
	$(REBAR) eunit
	$(REBAR) ct
	$(REBAR) xref
	$(REBAR) dialyzer
	$(REBAR) edoc

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
doc: prereq
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
	    -eval 'erlperf_bench:main(), erlperf_bench_calibration:main(), erlperf_bench_suites:main(), erlperf_bench_agents:main(), erlperf_bench_httpd:main(), halt(0).'

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

# The agents' slowdown of an httpd alone (part of `make bench').
bench-httpd: escript
	mkdir -p _build/bench
	erlc -pa _build/default/lib/erlperf/ebin -o _build/bench bench/erlperf_bench_httpd.erl examples/httpd_load_gen.erl
	erl -noshell -pa _build/default/lib/erlperf/ebin -pa _build/bench \
	    -eval 'erlperf_bench_httpd:main(), halt(0).'

clean:
	$(REBAR) clean
	rm -rf _build ./erlperf
