# cpu-extender: a Kubernetes scheduler extender in C.
#
#   make            release build: build/release/cpu-extender
#   make run        install missing Debian packages (as root), build, serve on 127.0.0.1:8888
#   make manifests IMAGE=registry/cpu-extender:tag   the image, in every manifest and the chart
#   make test       unit + end-to-end tests and the fuzz corpus, then all again under ASan+UBSan
#   make test-cluster  the same binary against a real kube-apiserver, kube-scheduler and etcd
#                   of Kubernetes 1.37.2 (Go modules) and 1.20.2 (Debian's source);
#                   K8S_VERSIONS="1.37.2" for one (tests/cluster/run.sh)
#   make check      lint (clang-format, cppcheck, rooms, headers, the map) + test
#   make SAN=1 test only the sanitizer variant
#   make bench      replay benchmark, writes docs/performance.md (bench/run.sh)
#   make soak       10 minutes at 80 % of capacity with reloads and scrapes (bench/soak.sh)
#   make bench-scheduler  kube-scheduler's pods/s (1.37.2 and 1.20.2) with and without the
#                   extender on tests/cluster's control plane (bench/scheduler.sh)
#   make bench-placement  how hot kube-scheduler leaves the nodes, with and without the
#                   extender on usage, with the real metrics-server (bench/placement.sh)
#   make build/release/bench-sim   the simulation engine's driver (bench/sim_engine.c)
#   make test-oracle  scoring/ against Kubernetes v1.37.2's own code, 1 000 000 random
#                   cases (tests/oracle; Go 1.26 at /usr/local/go, test-only;
#                   ORACLE_SEED, ORACLE_CASES)
#   make fuzz       libFuzzer targets (tests/fuzz/fuzz.mk)
#   make image      the container image with podman (scripts/build-image.sh)
#   make test-ship  test-image (the image, run read-only as 65532) and
#                   test-monitoring (Prometheus, rules, dashboard, usage from Prometheus); root
#   make install PREFIX=/usr/local [DESTDIR=...]

PREFIX  ?= /usr/local
# The Kubernetes releases test-cluster and bench-scheduler run, newest first
# (tests/cluster/k8s.sh knows how to build each).
K8S_VERSIONS ?= 1.37.2 1.20.2
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
CC      ?= cc
WERROR  ?= -Werror
PKGS     = libmicrohttpd libcjson gnutls libcurl yaml-0.1

ifeq ($(SAN),1)
VARIANT  = san
OPTFLAGS = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
           -fno-omit-frame-pointer -U_FORTIFY_SOURCE
SANLD    = -fsanitize=address,undefined
else
VARIANT  = release
OPTFLAGS = -O2 -g -D_FORTIFY_SOURCE=2
SANLD    =
endif
B := build/$(VARIANT)

WARN = -Wall -Wextra $(WERROR) -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
       -Wvla -Wpointer-arith -Wundef -Wimplicit-fallthrough -Wcast-qual
HARDEN = -fstack-protector-strong -fstack-clash-protection -fPIE
DEPCFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
DEPLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -I. -I$(B)/gen $(OPTFLAGS) $(WARN) $(HARDEN) \
             -ffp-contract=off -MMD -MP $(DEPCFLAGS) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = -pie -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack $(SANLD) $(LDFLAGS)
LIBS = $(DEPLIBS) -lpthread -lm

# The product's rooms, from the one file that names them (docs/architecture.md).
ROOMS    := $(shell awk '!/^\#/ && NF { print $$1 }' scripts/architecture.rules)
LIB_SRCS  = $(filter-out cli/main.c,$(foreach r,$(ROOMS),$(wildcard $(r)/*.c)))
LIB_OBJS  = $(LIB_SRCS:%.c=$(B)/obj/%.o)
MAIN_OBJ  = $(B)/obj/cli/main.o
TEST_SRCS = $(filter-out tests/fuzz/% tests/cluster/% tests/oracle/% tests/monitoring/%,$(wildcard tests/*.c tests/*/*.c tests/*/*/*.c))
TEST_OBJS = $(TEST_SRCS:%.c=$(B)/obj/%.o)
BIN       = $(B)/cpu-extender
TEST_BIN  = $(B)/run-tests
SUPPORT_OBJS = $(B)/obj/tests/support/fixtures.o $(B)/obj/tests/support/http_client.o
BENCH_BINS = $(B)/bench-gen $(B)/bench-driver $(B)/bench-once $(B)/bench-apiserver $(B)/bench-sim \
             $(B)/bench-sim-gen
CLUSTER_TOOLS = $(B)/cluster-informer-probe $(B)/cluster-yaml2json

.PHONY: all run test test-one test-cluster fixtures-check check lint lint-deps install clean deps test-deps bench soak \
        manifests \
        bench-scheduler bench-placement test-oracle \
        screenshot image test-image test-monitoring test-ship ship-deps

all: $(BIN)

# What building and running need (make run), and what only the tests need:
# Check, curl and openssl (the tests' client and certificates), headless
# Chromium (the /debug page), groff (the man page) and, for the commands of
# the docs, ip, pkill and unshare (a network and PID namespace of their own).
# DEPS_DRY_RUN=1: print the packages that would be installed, install
# nothing (tests/e2e/run_packages.sh).
RUN_PACKAGES  = scripts/debian-packages.txt
TEST_PACKAGES = scripts/debian-packages-test.txt
DEPS_DRY_RUN ?=
deps:
	@if [ -n "$(DEPS_DRY_RUN)" ]; then scripts/install-deps.sh --dry-run $(RUN_PACKAGES); \
	else pkg-config --exists $(PKGS) || scripts/install-deps.sh $(RUN_PACKAGES) || \
	    { echo "install the packages in $(RUN_PACKAGES)" >&2; exit 1; }; fi

test-deps: deps
	@if [ -n "$(DEPS_DRY_RUN)" ]; then scripts/install-deps.sh --dry-run $(TEST_PACKAGES); \
	else scripts/install-deps.sh $(TEST_PACKAGES) || \
	    { echo "install the packages in $(TEST_PACKAGES)" >&2; exit 1; }; fi

# The cpu-extender image as pushed, written in one step into every file that
# names it: the kustomization's images:, the Deployment, the kubeadm patch
# (which kustomize never reads) and the Helm chart's values
# (scripts/set-image.sh):
#   make manifests IMAGE=registry.example.com/cpu-extender:0.1.0
manifests:
	@case "$(origin IMAGE)" in command\ line|environment*) ;; \
	*) echo "make manifests: name the image you pushed: make manifests IMAGE=registry/cpu-extender:tag" >&2; exit 2 ;; \
	esac
	@scripts/set-image.sh '$(IMAGE)' .

# VERSION plus the commit (git describe); GIT_DESCRIBE=... gives the commit
# where there is no .git (the image build: scripts/build-image.sh).
GIT_DESCRIBE ?=
$(B)/gen/version.h: FORCE
	@mkdir -p $(@D)
	@d='$(GIT_DESCRIBE)'; [ -n "$$d" ] || d=$$(git describe --always --dirty 2>/dev/null); \
	 v=$$(cat VERSION)$${d:+-$$d}; \
	 echo "#define CPU_EXTENDER_VERSION \"$$v\"" > $@.tmp; \
	 cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

$(B)/obj/%.o: %.c | $(B)/gen/version.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/obj/tests/%.o: tests/%.c | $(B)/gen/version.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) -c -o $@ $<

$(MAIN_OBJ): $(B)/gen/version.h

$(BIN): $(MAIN_OBJ) $(LIB_OBJS)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS)

$(TEST_BIN): $(TEST_OBJS) $(LIB_OBJS)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS) $$(pkg-config --libs check)

$(B)/bench-gen: $(B)/obj/bench/gen.o
	$(CC) -o $@ $^ $(ALL_LDFLAGS)

# The input of simulate at scale, as kubectl prints it (bench/sim_gen.c).
$(B)/bench-sim-gen: $(B)/obj/bench/sim_gen.o
	$(CC) -o $@ $^ $(ALL_LDFLAGS)

$(B)/bench-driver: $(B)/obj/bench/driver.o $(B)/obj/bench/measure.o $(B)/obj/bench/raw.o $(SUPPORT_OBJS) $(LIB_OBJS)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS) $$(pkg-config --libs check)

$(B)/bench-once: $(B)/obj/bench/once.o $(B)/obj/bench/measure.o $(SUPPORT_OBJS) $(LIB_OBJS)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS) $$(pkg-config --libs check)

# The simulation engine alone: placement/ and scoring/ only, no decoding (bench/sim_engine.c).
$(B)/bench-sim: $(B)/obj/bench/sim_engine.o $(filter $(B)/obj/scoring/% $(B)/obj/placement/%,$(LIB_OBJS))
	$(CC) -o $@ $^ $(ALL_LDFLAGS) -lpthread -lm

# The differential test against Kubernetes' own code (tests/oracle/README.md):
# the C side is scoring/ and placement/ alone behind a line protocol; the Go side is the
# kube-scheduler v1.37.2 plugins and helpers, pinned by tests/oracle/go.mod
# and go.sum. Go is needed by this target only; its build cache stays outside
# the clone, and a first build fetches the modules from the Go module proxy
# and compiles for about 5 minutes on 2 cores.
GO             ?= /usr/local/go/bin/go
ORACLE_GOCACHE ?= $(HOME)/.cache/cpu-extender/go-build
ORACLE_GOENV    = GOFLAGS=-mod=readonly GOCACHE=$(ORACLE_GOCACHE) GOTOOLCHAIN=local

$(B)/oracle-driver: $(B)/obj/tests/oracle/driver/driver.o $(filter $(B)/obj/scoring/% $(B)/obj/placement/%,$(LIB_OBJS))
	$(CC) -o $@ $^ $(ALL_LDFLAGS) -lm

$(B)/oracle: tests/oracle/go.mod tests/oracle/go.sum $(wildcard tests/oracle/*.go)
	@mkdir -p $(@D)
	cd tests/oracle && $(ORACLE_GOENV) $(GO) build -o $(CURDIR)/$@ .

test-oracle: deps $(B)/oracle-driver $(B)/oracle
	$(B)/oracle -driver $(B)/oracle-driver

$(B)/bench-apiserver: $(B)/obj/bench/apiserver.o $(B)/obj/tests/support/fake_apiserver.o $(LIB_OBJS)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS)

# The fake cluster, node exporters and silent stand-in of test_usage_prometheus.sh.
$(B)/prom-cluster: $(B)/obj/tests/monitoring/prom_cluster.o $(B)/obj/tests/support/fake_apiserver.o \
                   $(LIB_OBJS)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS)

$(B)/cluster-informer-probe: $(B)/obj/tests/cluster/informer_probe.o $(LIB_OBJS)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS)

$(B)/cluster-yaml2json: $(B)/obj/tests/cluster/yaml2json.o $(B)/obj/tests/support/yaml_doc.o \
                        $(B)/obj/tests/support/fixtures.o $(B)/obj/base/file.o $(B)/obj/base/err.o
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS) $$(pkg-config --libs check)

# The replay benchmark: generated and captured bodies against the release
# binary, side by side with the scan floor and the handler in-process;
# writes docs/performance.md.
bench: deps
	$(MAKE) all $(BENCH_BINS)
	bench/run.sh $(B)

# The soak: SOAK_SECONDS (600) at 80 % of the capacity it measures first,
# NodeList filter and NodeNames prioritize at once, the config reloaded every
# 15 s, /metrics every second; fails on a 5xx, RSS or descriptor growth.
# The figures are in docs/reliability.md ("Soak").
soak: deps
	$(MAKE) all $(B)/bench-gen $(B)/bench-driver
	bench/soak.sh $(B)

# kube-scheduler with and without the extender, side by side on the control
# plane of tests/cluster (its cache of Kubernetes binaries; root the first
# time, as test-cluster), for each release in K8S_VERSIONS: 100 and 5000
# nodes, NodeNames and NodeLists. About 15 minutes a release; prints the
# tables of docs/performance.md's "kube-scheduler's throughput" and writes
# build/bench/scheduler-VERSION.md.
bench-scheduler: deps
	$(MAKE) all $(B)/cluster-yaml2json
	for v in $(K8S_VERSIONS); do K8S_VERSION=$$v bench/scheduler.sh $(B) || exit 1; done
	bench/scheduler_doc.sh $(K8S_VERSIONS)

# Placement quality: how hot kube-scheduler leaves 50 nodes whose usage is
# not their pods' requests, without the extender and with it on requests,
# usage, a usage window, target and a usage threshold, on the newest release
# of K8S_VERSIONS with the real metrics-server (tests/cluster's pipeline).
# About 22 minutes (measured); prints the table, writes build/bench/placement.md and
# puts it in docs/performance.md's "Placement quality" (bench/placement_doc.sh).
bench-placement: deps
	$(MAKE) all $(B)/cluster-yaml2json
	K8S_VERSION=$(firstword $(K8S_VERSIONS)) bench/placement.sh $(B)
	bench/placement_doc.sh

# docs/debug-page.png: the /debug page after the README's examples, and
# docs/simulate-page.png: simulate --html on examples/cluster; by hand.
screenshot: all
	scripts/debug-screenshot.sh $(BIN) docs/debug-page.png
	scripts/simulate-screenshot.sh $(BIN) docs/simulate-page.png

# Request-only, whatever the shell has (KUBECONFIG, ~/.kube/config, in-cluster
# variables): the README's examples answer as shown.
# The explain page is on: it listens on loopback only. For a cluster:
# $(BIN) --kubeconfig ~/.kube/config --debug-endpoints
run: deps
	$(MAKE) all
	env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME=/nonexistent $(BIN) --debug-endpoints

# The suite runs twice: release, then ASan+UBSan (leaks fail the run).
# run-tests lists the tests it skipped after its summary; with
# TESTS_NO_SKIP=1 (.ci/run exports it) a skip that CI can run fails
# it. The SAN=1 run skips the RSS and cgroup tests by design.
test: test-deps
	$(MAKE) test-one
	$(MAKE) SAN=1 test-one

# The captured kube-scheduler requests the tests read, checked before any
# test runs: a missing or changed file stops the run with its name.
fixtures-check:
	@cd tests/fixtures/captured && sha256sum --quiet --strict -c SHA256SUMS || \
	    { echo "tests/fixtures/captured: a captured request is missing or changed" >&2; exit 1; }

test-one: fixtures-check $(BIN) $(TEST_BIN) $(B)/bench-apiserver
	TEST_BINARY=$(BIN) \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    $(TEST_BIN)
	tests/e2e/readme_curl.sh $(BIN)
	tests/e2e/readme_simulate.sh $(BIN)
	tests/e2e/manpage.sh $(BIN)
	tests/e2e/standalone.sh
	tests/e2e/log_keys.sh
	tests/e2e/doc_commands.sh $(BIN) $(B)/bench-apiserver
	tests/e2e/unprivileged.sh $(BIN)
	tests/e2e/run_packages.sh
	$(MAKE) --no-print-directory fuzz-replay

# The suite against a real control plane on loopback, once for each release
# in K8S_VERSIONS (newest first): 1.37.2 built from Go modules and 1.20.2
# from Debian's source, each into a cache outside the clone the first time
# (root, for apt-get), then reused. tests/cluster/k8s.sh. Every release runs
# even when one fails; the target fails if any did.
test-cluster: deps
	$(MAKE) all $(CLUSTER_TOOLS)
	@rc=0; for v in $(K8S_VERSIONS); do \
	    echo "== make test-cluster: Kubernetes $$v"; \
	    K8S_VERSION=$$v tests/cluster/run.sh $(B) || rc=1; \
	done; exit $$rc

# The image and what ships beside it (root: podman, mmdebstrap, chroot,
# prometheus). .ci/run runs test-ship after test.
IMAGE ?= localhost/cpu-extender:$(shell cat VERSION)
ship-deps:
	@scripts/install-deps.sh scripts/debian-packages-ship.txt || \
	    { echo "install the packages in scripts/debian-packages-ship.txt" >&2; exit 1; }

# The Containerfile with podman; the base is chosen in scripts/build-image.sh
# (BASE_IMAGE=... to name one). Cold: about 2 minutes (the Debian base with
# mmdebstrap, then both stages); warm: seconds.
image: ship-deps
	IMAGE=$(IMAGE) scripts/build-image.sh

test-image: image $(BIN)
	tests/image/test_image.sh $(BIN) $(IMAGE)

# A real Prometheus scrapes the service; promtool checks the rules and
# their unit tests; the dashboard's queries run against what it scraped.
# Then Prometheus scrapes test exporters and the service reads its usage
# from it (usageProvider: prometheus).
test-monitoring: ship-deps $(BIN) $(B)/bench-apiserver $(B)/prom-cluster
	tests/monitoring/test_monitoring.sh $(B)
	tests/monitoring/test_usage_prometheus.sh $(B)

test-ship: test-image test-monitoring

# Formatting, static analysis, and the architecture (which room may
# include which, symbol prefixes, no two files calling each other).
C_FILES = $(shell git ls-files -co --exclude-standard '*.c' '*.h' 2>/dev/null)
# The linters (clang-format, cppcheck) are not in every machine
# image: scripts/debian-packages-dev.txt.
lint-deps:
	@scripts/install-deps.sh scripts/debian-packages-dev.txt || \
	    { echo "install the packages in scripts/debian-packages-dev.txt" >&2; exit 1; }

lint: lint-deps $(BIN)
	clang-format --dry-run -Werror $(C_FILES)
	cppcheck -q --enable=warning,style,performance,portability --std=c11 --library=posix \
	    --inline-suppr --suppress=missingIncludeSystem --error-exitcode=1 -I. \
	    $(ROOMS)
	scripts/lint-architecture.sh $(B)/obj
	CFLAGS="-I$(B)/gen $(DEPCFLAGS)" scripts/lint-headers.sh
	scripts/lint-map.sh

check: lint test

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/cpu-extender
	install -D -m 0644 docs/cpu-extender.1 $(DESTDIR)$(MANDIR)/man1/cpu-extender.1

clean:
	rm -rf build

# libFuzzer targets and corpus replay (make fuzz, fuzz-replay): tests/fuzz/fuzz.mk
-include tests/fuzz/fuzz.mk

-include $(shell find build -name '*.d' 2>/dev/null)
