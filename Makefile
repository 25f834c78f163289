# analyze: one non-recursive Makefile. Objects go under build/, dependencies via -MMD.
# Targets: all run test asan refcheck fuzz bench install clean deps format.

PKGS     := libelf libdw libzstd libxxhash libtraceevent
# capstone's headers only: lib/capstone.c loads the library when it first disassembles
CFLAGS_ONLY_PKGS := capstone
DEB_PKGS := build-essential pkg-config libelf-dev libdw-dev libzstd-dev libxxhash-dev \
            libcapstone-dev libtraceevent-dev libcriterion-dev libipt-dev libiberty-dev chromium \
            scdoc mandoc
BENCH_PKGS := linux-perf zstd clang binutils
PKGS_NEEDED ?= $(DEB_PKGS)
CC       ?= cc
O        ?= build
PREFIX   ?= /usr/local

WARN     := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
CFLAGS   ?= -O2 -g
ALL_CFLAGS = $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -I. -MMD -MP
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) $(CFLAGS_ONLY_PKGS) 2>/dev/null)
# The packages' libraries (and what libdw pulls in) link statically: the dynamic loader's work
# for eleven shared objects (mapping, relocating, faulting in their pages) was most of a small
# `analyze tasks` run and 0.6 MB of its RSS. libc stays shared, and libipt (no archive); libm
# is linked for the tools only if they need it (--as-needed: analyze itself needs none).
# libiberty (perf's demangler) has no pkg-config file and only an archive.
PKG_LIBS   = -Wl,-Bstatic $(shell pkg-config --libs --static $(PKGS) 2>/dev/null | \
               sed 's/-pthread//g; s/-lpthread//g') -liberty -Wl,-Bdynamic
# libipt (Intel PT) has no pkg-config file
LDLIBS   += $(PKG_LIBS) -Wl,--as-needed -lipt -lpthread -lm -Wl,--no-as-needed

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC  := $(sort $(wildcard lib/*.c lib/*/*.c readers/*.c readers/*/*.c machine/*.c symtab/*.c) \
              $(wildcard analyzer/*/*.c))
MAIN_SRC := analyzer/main.c
LIB_OBJ  := $(LIB_SRC:%.c=$(O)/%.o)
MAIN_OBJ := $(MAIN_SRC:%.c=$(O)/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c tests/unit/*/test_*.c))
UNIT_BIN := $(O)/tests/unit-tests
TOOLS_SRC := $(sort $(wildcard tools/*.c))
TOOLS_BIN := $(TOOLS_SRC:%.c=$(O)/%)

# The default build makes ./analyze; checking builds (O=build/asan...) keep theirs in $(O).
BIN      := $(if $(filter build,$(O)),analyze,$(O)/analyze)
TEST_ENV := ANALYZE=$(abspath $(BIN)) BYTESWAP=$(abspath $(O)/tools/perf-byteswap) \
            ANALYZE_SYMBOL_CACHE=$(abspath $(O))/test-symbol-cache

.PHONY: all run test checks asan-checks refcheck-checks asan refcheck bench install clean deps format unit golden check-bad tools \
        fuzz fuzz-build check-fuzz check-sweep check-flamegraph check-record check-layers check-progress \
        check-parallel \
        check-help man check-man check-symcache check-annotate-spelling
all: $(BIN) tools man

# The version: git's description of the commit built (a clean clone's CI has git), written to
# $(O)/version.h only when it changes, so that main.o alone is rebuilt then.
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
$(O)/version.h: FORCE
	@mkdir -p $(dir $@)
	$(Q)v='#define ANALYZE_VERSION "$(VERSION)"'; [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" >$@
$(MAIN_OBJ): $(O)/version.h
$(MAIN_OBJ): ALL_CFLAGS += -I$(O)
FORCE:

$(BIN): $(MAIN_OBJ) $(O)/libanalyze.a
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/libanalyze.a: $(LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

tools: $(TOOLS_BIN)
$(O)/tools/%: tools/%.c $(O)/libanalyze.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libanalyze.a $(LDLIBS)

# Manual pages: each command's analyzer/.../NAME.1.scd beside its code, rendered by scdoc into
# $(O)/man/NAME.1. scdoc starts a paragraph after every heading and before every indented
# block's end, which mandoc -Tlint warns of: the awk drops those and moves the latter after
# the .RE (the rendering is the same).
MAN_SRC   := $(sort $(wildcard analyzer/*.1.scd analyzer/*/*.1.scd))
MAN_PAGES := $(patsubst %.scd,$(O)/man/%,$(notdir $(MAN_SRC)))
MAN_UNPP  := /^\.P$$/ { if (last !~ /^\.(SH|SS|TH|P)( |$$)/) pend = 1; next } \
             /^\.RE$$/ { print; last = $$0; next } \
             { if (pend && $$0 !~ /^\.(SH|SS|P)( |$$)/ && $$0 != "") print ".P"; pend = 0; \
               print; if ($$0 != "") last = $$0 }
vpath %.1.scd $(sort $(dir $(MAN_SRC)))
man: $(MAN_PAGES)
$(O)/man/%.1: %.1.scd
	@mkdir -p $(dir $@)
	@echo "  SCDOC   $<"
	$(Q)scdoc < $< > $@.tmp && awk '$(MAN_UNPP)' $@.tmp > $@.awk.tmp && mv $@.awk.tmp $@ && \
	  rm -f $@.tmp

$(UNIT_BIN): $(UNIT_SRC) $(O)/libanalyze.a
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) -o $@ $(UNIT_SRC) $(O)/libanalyze.a $(LDLIBS) -lcriterion

# Installs the Debian packages the build and the tests need (as root), or says how.
deps:
	@missing=""; for p in $(PKGS_NEEDED); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing) >/dev/null || \
	      { echo "deps: apt-get install failed:$$missing" >&2; exit 1; }; \
	  else \
	    echo "deps: missing packages; run: sudo apt-get install -y$$missing" >&2; exit 1; \
	  fi; \
	fi

run: deps
	$(Q)$(MAKE) --no-print-directory all
	./analyze --buildid-dir tests/fixtures/buildid-cache report -i tests/fixtures/burn/perf.data \
	  --kallsyms tests/fixtures/burn/kallsyms

# Every test: unit tests, golden tests against perf's output, bad input; then the same suite
# under ASan/UBSan/LSan and under the reference-count checker.
test: deps
	$(Q)$(MAKE) --no-print-directory checks
	$(Q)$(MAKE) --no-print-directory asan
	$(Q)$(MAKE) --no-print-directory refcheck

# golden, check-bad and check-sweep each keep about one CPU busy (one run at a time): two of
# them at a time, each one's output printed whole when it ends. The rest one by one, as
# before: record samples what it runs, and progress needs its runs to be short.
checks: all $(UNIT_BIN)
	$(Q)$(MAKE) --no-print-directory check-layers unit
	$(Q)$(MAKE) --no-print-directory -j2 --output-sync=target golden check-bad check-sweep
	$(Q)$(MAKE) --no-print-directory check-fuzz check-flamegraph check-record check-progress \
	  check-parallel check-symcache check-man check-help check-options check-annotate-spelling

# The checking builds run what exercises their checks. ASan: all but the manual's checks
# (documents, rendered and linted: no code of ours runs). refcheck (references held at
# exit, gets and puts after the last): the runs through the model; the sweep's cut and
# changed inputs go through the same error paths under ASan and LSan, and the rest
# (flamegraph's SVG, record, the progress line, the options' table) hold no references.
asan-checks: all $(UNIT_BIN)
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)$(MAKE) --no-print-directory -j2 --output-sync=target golden check-bad check-sweep
	$(Q)$(MAKE) --no-print-directory check-fuzz check-flamegraph check-record check-progress \
	  check-parallel check-symcache check-options
refcheck-checks: all $(UNIT_BIN)
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)$(MAKE) --no-print-directory -j2 --output-sync=target golden check-bad
	$(Q)$(MAKE) --no-print-directory check-fuzz check-parallel check-symcache

unit: $(UNIT_BIN)
	$(UNIT_BIN) --jobs 2

# the checking builds make golden's and bad-input's runs in one process (tools/batch, see
# tests/runner.sh); the default build runs ./analyze each time
RUNNER_ENV := $(if $(filter build,$(O)),,RUNNER=$(abspath $(O)/tools/batch))
golden: $(BIN) tools
	$(TEST_ENV) $(RUNNER_ENV) tests/golden.sh

check-bad: $(BIN) tools
	$(TEST_ENV) $(RUNNER_ENV) tests/bad-input.sh

# every fixture file (and each file of a data directory) cut at every byte of its header and
# features (and every 97th of its data) and with bytes changed, run in-process through report
# and script (tools/sweep.c)
SWEEP_FILES = $(wildcard tests/fixtures/*/perf.data)
check-sweep: tools
	$(O)/tools/sweep --quiet $(SWEEP_FILES)

# -h, --help (the manual pages through man), help CMD, --version
check-help: $(BIN) man
	$(TEST_ENV) MAN_DIR=$(O)/man tests/help.sh

# perf's options, each in the manual's table, taken with a test or refused with a reason
check-options: $(BIN)
	$(TEST_ENV) tests/options.sh

# annotate's disassembler against objdump -d over the fixtures' binaries, libc and ld.so:
# the lines that differ, counted (tests/annotate-spelling.sh; skipped without objdump)
check-annotate-spelling: tools
	DISASM=$(abspath $(O)/tools/disasm-text) tests/annotate-spelling.sh

# the progress line under a pseudo-terminal: drawn, cleared, never in the output
check-progress: $(BIN)
	$(TEST_ENV) tests/progress.sh

# report's parallel run taken where it answers as the streaming path would, given up where not
check-parallel: $(BIN)
	$(TEST_ENV) tests/parallel.sh

# the symbol index end to end: concurrent cold runs, damaged and foreign index files, an
# unwritable cache, symbol-cache and --clear, where the cache goes, a tiny cap
check-symcache: $(BIN)
	$(TEST_ENV) tests/symcache.sh

# analyze record against perf record's files and perf's reading of ours (records at test
# time; skips where perf_event_open is not allowed)
check-record: $(BIN)
	$(TEST_ENV) tests/record.sh

# what the fuzzers found, replayed through the commands
check-fuzz: $(BIN)
	$(TEST_ENV) tests/fuzz/replay.sh

# analyze flamegraph's SVG in headless Chromium (the default build; the checking builds write
# and check the SVG without the browser)
check-flamegraph: $(BIN)
	$(TEST_ENV) CHROMIUM=$(if $(filter build,$(O)),chromium,0) tests/flamegraph.sh

# every manual page linted (mandoc, man --warnings), installed and found by man (tests/man.sh)
check-man: $(MAN_PAGES)
	$(Q)MAKE="$(MAKE)" PREFIX=$(PREFIX) tests/man.sh $(MAN_PAGES)

# The layers: what the files of each folder may include besides their own folder's headers
# (tests/check-layers.sh checks it; *_internal.h stays in its folder). analyzer/* is every
# command's folder: each may use the shared engines, none another command's.
comma := ,
space := $(subst ,, )
ENGINES := analyzer/cli analyzer/output analyzer/hist analyzer/itrace analyzer/passes
MODEL   := lib,readers,symtab,machine
LAYERS  := lib:lib readers:lib,readers symtab:lib machine:lib,readers,symtab \
           analyzer/cli:$(MODEL) analyzer/output:$(MODEL),analyzer/cli \
           analyzer/hist:$(MODEL),analyzer/cli analyzer/itrace:$(MODEL),analyzer/cli \
           analyzer/passes:$(MODEL) \
           analyzer/*:$(MODEL),$(subst $(space),$(comma),$(ENGINES)),analyzer/commands.h \
           analyzer:lib,symtab,analyzer/cli,analyzer/commands.h
check-layers:
	$(Q)tests/check-layers.sh --self-test $(foreach l,$(LAYERS),'$(l)')
	$(Q)tests/check-layers.sh $(foreach l,$(LAYERS),'$(l)')

SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
asan:
	$(Q)LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan-suppressions.txt:print_suppressions=0 \
	  $(MAKE) --no-print-directory O=build/asan CFLAGS="-O1 -g $(SAN_FLAGS)" \
	  LDFLAGS="$(SAN_FLAGS)" asan-checks

refcheck:
	$(Q)$(MAKE) --no-print-directory O=build/refcheck CFLAGS="-O1 -g -DREFCHECK" refcheck-checks

# libFuzzer targets (tests/fuzz/fuzz_*.c) with ASan and UBSan, built by clang into
# build/fuzz/; `make fuzz` runs each for FUZZ_SECONDS (tests/fuzz/run.sh, see tests/FUZZING.md).
FUZZ_PKGS := clang
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
fuzz-build:
	$(Q)$(MAKE) --no-print-directory deps PKGS_NEEDED="$(DEB_PKGS) $(FUZZ_PKGS)"
	$(Q)$(MAKE) --no-print-directory O=build/fuzz CC=clang \
	  CFLAGS="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" build/fuzz/libanalyze.a
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BIN)
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h build/fuzz/libanalyze.a
	@echo "  CC      $@"
	$(Q)clang -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) $(ALL_CFLAGS) $(PKG_CFLAGS) -o $@ $< \
	  build/fuzz/libanalyze.a $(LDLIBS)
fuzz: fuzz-build
	tests/fuzz/run.sh

bench:
	$(Q)$(MAKE) --no-print-directory deps PKGS_NEEDED="$(DEB_PKGS) $(BENCH_PKGS)"
	$(Q)$(MAKE) --no-print-directory all tools
	bench/run.sh
	bench/model.sh
	bench/callchain.sh
	bench/scaling.sh
	bench/dwarf.sh
	bench/symbols.sh
	bench/report_keys.sh
	bench/annotate.sh

install: $(BIN) $(MAN_PAGES)
	install -D -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/analyze
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man1

format:
	clang-format -i $(wildcard */*.c */*.h)

clean:
	rm -rf build analyze

-include $(shell find $(O) -name '*.d' 2>/dev/null)
