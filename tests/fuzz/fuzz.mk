# libFuzzer targets (tests/fuzz/fuzz_<name>.c) and the replay of their corpus.
# Included by the top-level Makefile, whose variables it uses.
#
#   make fuzz                     build with clang, fuzz each target FUZZ_SECONDS (60) in turn
#   make fuzz FUZZ_TARGETS=args FUZZ_SECONDS=600 FUZZ_FLAGS=-runs=10000000
#   make fuzz-merge               add what the last runs found to the corpus, minimized
#   make fuzz-replay [SAN=1]      gcc replayer of the committed corpus in $(B), no clang needed
#
# fuzz-replay also runs tests/fuzz/regressions/<name>/: inputs that found bugs.
#
# New corpus entries go to build/fuzz/scratch/<name>/ (the committed corpus
# tests/fuzz/corpus/<name>/ is only read); crashes to build/fuzz/crashes/.

FUZZ_TARGETS ?= args nodes quantity config kubeconfig watch
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   ?=
FUZZ_CC      ?= clang
FUZZ_B        = build/fuzz
FUZZ_SRC      = tests/fuzz
FUZZ_ALL      = args nodes quantity config kubeconfig watch

# Per target: longest input and dictionary.
FUZZ_MAXLEN_args     = 4096
FUZZ_MAXLEN_nodes    = 4096
FUZZ_MAXLEN_quantity = 64
FUZZ_MAXLEN_config   = 4096
FUZZ_MAXLEN_kubeconfig = 4096
FUZZ_MAXLEN_watch    = 8192
FUZZ_DICT_args       = -dict=$(FUZZ_SRC)/json.dict
FUZZ_DICT_nodes      = -dict=$(FUZZ_SRC)/json.dict
FUZZ_DICT_config     = -dict=$(FUZZ_SRC)/json.dict
FUZZ_DICT_kubeconfig = -dict=$(FUZZ_SRC)/kubeconfig.dict
FUZZ_DICT_watch      = -dict=$(FUZZ_SRC)/watch.dict

# ALL_CFLAGS's language, include and dependency flags, without the variant's
# optimisation, hardening and FORTIFY flags. Product objects get the warnings
# without -Werror (clang warns where gcc, the gate, does not); the harness
# gets -Werror. base/arena.c poisons released arena memory under either
# compiler's ASan, so the fuzzer sees a use after arena_release().
FUZZ_SAN     = -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS  = $(filter -std=% -D_GNU_SOURCE -I% -ffp-contract=%,$(ALL_CFLAGS)) $(DEPCFLAGS) \
               -g -O1 -fno-omit-frame-pointer $(filter-out $(WERROR),$(WARN)) -MMD -MP
FUZZ_LIBOBJS = $(LIB_SRCS:%.c=$(FUZZ_B)/obj/%.o)

.PHONY: fuzz fuzz-build fuzz-merge fuzz-replay
# Keep the objects that only the pattern rules below name.
.SECONDARY: $(FUZZ_ALL:%=$(FUZZ_B)/obj/$(FUZZ_SRC)/fuzz_%.o) \
            $(FUZZ_ALL:%=$(B)/fuzz-replay/fuzz_%.o) $(B)/fuzz-replay/replay_main.o

$(FUZZ_B)/obj/%.o: %.c | $(B)/gen/version.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c -o $@ $<

$(FUZZ_B)/obj/$(FUZZ_SRC)/%.o: $(FUZZ_SRC)/%.c | $(B)/gen/version.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(WERROR) -DFUZZ_TARGET -fsanitize=fuzzer $(FUZZ_SAN) -c -o $@ $<

$(FUZZ_B)/fuzz_%: $(FUZZ_B)/obj/$(FUZZ_SRC)/fuzz_%.o $(FUZZ_LIBOBJS)
	$(FUZZ_CC) -o $@ $^ -fsanitize=fuzzer $(FUZZ_SAN) $(LIBS)

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_B)/fuzz_%)

# One target at a time, one process each.
fuzz: fuzz-build
	@mkdir -p $(FUZZ_B)/crashes
	@set -e; for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FUZZ_B)/scratch/$$t; \
	    echo "fuzz: fuzz_$$t for $(FUZZ_SECONDS) s"; \
	    ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1} \
	    $(FUZZ_B)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -timeout=10 \
	        -artifact_prefix=$(FUZZ_B)/crashes/$$t- $(FUZZ_FLAGS) \
	        $$(case $$t in args) echo "-max_len=$(FUZZ_MAXLEN_args) $(FUZZ_DICT_args)";; \
	            nodes) echo "-max_len=$(FUZZ_MAXLEN_nodes) $(FUZZ_DICT_nodes)";; \
	            quantity) echo "-max_len=$(FUZZ_MAXLEN_quantity)";; \
	            config) echo "-max_len=$(FUZZ_MAXLEN_config) $(FUZZ_DICT_config)";; \
	            kubeconfig) echo "-max_len=$(FUZZ_MAXLEN_kubeconfig) $(FUZZ_DICT_kubeconfig)";; \
	            watch) echo "-max_len=$(FUZZ_MAXLEN_watch) $(FUZZ_DICT_watch)";; esac) \
	        $(FUZZ_B)/scratch/$$t $(FUZZ_SRC)/corpus/$$t; \
	done

# The committed corpus plus the scratch entries that add coverage edges
# (-merge=1 into a fresh directory, which then replaces the corpus). Edges
# only (-use_counters=0): hit-count features would keep 4x the files.
fuzz-merge: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
	    rm -rf $(FUZZ_B)/merged/$$t; mkdir -p $(FUZZ_B)/merged/$$t $(FUZZ_B)/scratch/$$t; \
	    cp $(FUZZ_SRC)/corpus/$$t/* $(FUZZ_B)/merged/$$t/; \
	    $(FUZZ_B)/fuzz_$$t -merge=1 -use_counters=0 -max_len=$$(case $$t in quantity) echo 64;; \
	            watch) echo $(FUZZ_MAXLEN_watch);; *) echo 4096;; esac) \
	        $(FUZZ_B)/merged/$$t $(FUZZ_B)/scratch/$$t 2>&1 | tail -n 1; \
	    rm -rf $(FUZZ_SRC)/corpus/$$t; cp -r $(FUZZ_B)/merged/$$t $(FUZZ_SRC)/corpus/$$t; \
	done

# The replayer: gcc and the variant's normal flags, objects apart from
# run-tests' (which compiles these files without FUZZ_TARGET, to nothing).
$(B)/fuzz-replay/%.o: $(FUZZ_SRC)/%.c | $(B)/gen/version.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DFUZZ_TARGET -c -o $@ $<

$(B)/fuzz-replay/fuzz_%: $(B)/fuzz-replay/fuzz_%.o $(B)/fuzz-replay/replay_main.o $(LIB_OBJS)
	$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS)

fuzz-replay: $(FUZZ_ALL:%=$(B)/fuzz-replay/fuzz_%)
	@set -e; for t in $(FUZZ_ALL); do \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	        $(B)/fuzz-replay/fuzz_$$t $(FUZZ_SRC)/corpus/$$t \
	            $$(test -d $(FUZZ_SRC)/regressions/$$t && echo $(FUZZ_SRC)/regressions/$$t); \
	done
