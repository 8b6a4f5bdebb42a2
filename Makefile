# Every entry point of the project.  Each part adds its binaries, C unit tests
# and targets through a fragment (each program's folder: dltar/dltar.mk,
# httpd/httpd.mk, ...; lib/lib.mk, mk/*.mk, harness/*.mk, ...), so parts can
# grow without touching this file.
SHELL := $(or $(shell command -v bash),/bin/bash)
.DEFAULT_GOAL := all

CC ?= cc
OPT ?= -O2 -g
WARN := -Wall -Wextra -Werror
CPPFLAGS += -D_GNU_SOURCE -Ilib
# Debian 13's libowfat-dev keeps its headers in /usr/include/libowfat/.
CPPFLAGS += $(if $(wildcard /usr/include/libowfat/io.h),-I/usr/include/libowfat)
LDLIBS ?= -lowfat -lz
# Where binaries and objects go; the sanitizer and static builds use their own.
BIN ?= bin
B ?= build/default

# Filled in by the fragments:
#   BINS += NAME           and NAME_SRCS := the .c files of bin/NAME
#   CTESTS += NAME         and NAME_test_SRCS := tests/c/NAME_test.c + its code
BINS :=
CTESTS :=

objs = $(patsubst %.c,$(B)/%.o,$(1))

include $(sort $(filter-out build/%,$(wildcard */*.mk)))

define bin_rule
$(BIN)/$(1): $(call objs,$($(1)_SRCS)) | $(BIN)
	$$(CC) $$(OPT) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
define ctest_rule
$(B)/tests/$(1)_test: $(call objs,$($(1)_test_SRCS))
	@mkdir -p $$(@D)
	$$(CC) $$(OPT) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach b,$(BINS),$(eval $(call bin_rule,$(b))))
$(foreach t,$(CTESTS),$(eval $(call ctest_rule,$(t))))

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/c $(WARN) $(OPT) -MMD -MP -c -o $@ $<

-include $(shell find $(B) -name '*.d' 2>/dev/null)

$(BIN):
	mkdir -p $@

.PHONY: help all ctests ctest-list bin-list asan-ctests asan-bins deps deps-check test lint bench static clean demo
all: deps-check $(addprefix $(BIN)/,$(BINS))

ctests: $(addprefix $(B)/tests/,$(addsuffix _test,$(CTESTS)))

# The C tests tests/run.sh runs: these, not whatever an older tree left in
# build/*/tests.
ctest-list:
	@echo $(CTESTS)

# The tools `make all` builds (tests/tools-cli.bats checks each one).
bin-list:
	@echo $(BINS)

SAN := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
asan-ctests:
	$(MAKE) --no-print-directory B=build/asan BIN=build/asan/bin OPT="$(SAN)" ctests

# The tools themselves under ASan+UBSan, for tests/asan-tools.bats.
asan-bins:
	$(MAKE) --no-print-directory B=build/asan BIN=build/asan/bin OPT="$(SAN)" \
	  $(addprefix build/asan/bin/,$(BINS))

# Debian packages, in groups (harness/deps.sh groups): each target below
# needs only its own groups and installs what is missing of them (apt-get
# update first); cheap when all is there.  `make deps`: every group.
# deps-check is the build group (what `make all` needs); hosts without
# dpkg run make with -o deps-check (the playbooks do).
deps:
	harness/deps.sh install

deps-check:
	@harness/deps.sh ensure build

# deps-GROUPS: `$(call deps,g1 g2)` in a recipe ensures those groups.
deps = @harness/deps.sh ensure $(1)
TEST_DEPS := build static fuzz cross test peers fs harness playbooks plots micro profile

# Every suite: C unit tests, the same under ASan+UBSan, a few seconds of each
# fuzz target, bats (with the tools built under ASan+UBSan), lint.
# The last line printed is "N passed, N failed[, N skipped]".
# Everything the suites run is built first, TEST_JOBS (the CPUs) at a time,
# and once: the static tools too (tests/static.bats checks them).
# A fuzz target or static build that fails is a failure its suite counts
# (its binary is missing), not a stopped test run.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test: test-deps
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) test-build
	@tests/run.sh

# The sanitizer build's tests and tools in one make, so that -j never
# builds an object of build/asan twice at once.
.PHONY: test-build asan-all static-for-test fuzz-for-test
test-build: all ctests asan-all bsdpaths cross-for-test static-for-test fuzz-for-test
asan-all:
	$(MAKE) --no-print-directory B=build/asan BIN=build/asan/bin OPT="$(SAN)" \
	  ctests $(addprefix build/asan/bin/,$(BINS))
static-for-test:
	-@$(MAKE) --no-print-directory static
fuzz-for-test:
	-@$(MAKE) --no-print-directory fuzz-build

.PHONY: test-deps
test-deps:
	$(call deps,$(TEST_DEPS))

lint:
	$(call deps,test playbooks)
	@tests/run.sh lint

# Side-by-side comparisons against the peers (GNU tar, bsdtar, nginx, wrk).
bench: all
	$(call deps,peers)
	@tests/bench/run.sh

clean:
	rm -rf bin build

# `make help`: the targets and the settings that matter most (mk/help.txt).
help:
	@cat mk/help.txt

# A goal that is no target is one line, with the nearest target when one is
# near (mk/nearest.awk), and exit 2:
#   Makefile:N: *** no target 'tset' (did you mean 'test'? make help lists them).  Stop.
# A file a rule needs but that is missing is said so.  make_targets: every
# target of the makefiles without a / or . (make -p, running nothing).
make_targets = $(MAKE) --no-print-directory -pRrq -f $(firstword $(MAKEFILE_LIST)) 2>/dev/null | \
  awk -F: '/^\# Not a target/ { no = 1; next } /^[a-z][a-z0-9_+-]*:([^=]|$$)/ && !no { print $$1 } { no = 0 }' | sort -u
did_you_mean = $(shell $(make_targets) | awk -v want='$(subst ','',$(1))' -f harness/common/dist.awk -f mk/nearest.awk)
.DEFAULT:
	$(if $(filter $@,$(MAKECMDGOALS)),$(error no target '$@' ($(if $(call did_you_mean,$@),did you mean '$(call did_you_mean,$@)'? )make help lists them)),$(error no file '$@', which a target needs))
