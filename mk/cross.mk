# `make cross`: the portable tools (CROSS_TOOLS) for every CROSS_TARGETS,
# built with zig's C compiler and the same -Wall -Wextra -Werror, into
# bin/cross/<target>/.  zig comes from PyPI (ziglang, pinned) in a venv,
# build/venv; libowfat and zlib are built for each target from Debian's
# source packages by mk/cross-libs.sh into CROSS_CACHE/<target>/.  They
# and zig's own cache (musl for aarch64 alone takes minutes) live outside
# the checkout, keyed by zig's version, so a fresh clone (CI) reuses them:
# `rm -rf` that directory to rebuild them.  Each BSD target's binaries
# are then checked against what its base system gives them (interpreter,
# libraries, ABI note) by mk/cross-abi.sh, from mk/abi/<target>.tsv.
ZIG_VERSION := 0.17.1
CROSS_VENV := build/venv
CROSS_ZIG := $(CROSS_VENV)/zig-$(ZIG_VERSION)
CROSS_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/shootout/cross-zig$(ZIG_VERSION)
CROSS_TARGETS := x86_64-freebsd x86_64-netbsd x86_64-openbsd aarch64-linux-musl
CROSS_TOOLS := rmtree fsdisco mkdataset replay resident dltar httpd stdiorw
# Not yet portable (issue 14): built for Linux only, counted as skipped.
CROSS_PENDING :=

.PHONY: cross zig cross-for-test $(addprefix cross-,$(CROSS_TARGETS))

# `make deps` installs zig too.
deps: zig
zig: $(CROSS_ZIG)
$(CROSS_ZIG):
	python3 -m venv $(CROSS_VENV)
	$(CROSS_VENV)/bin/python -m pip install -q --disable-pip-version-check ziglang==$(ZIG_VERSION)
	ln -sf "$$($(CROSS_VENV)/bin/python -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')" $@
	$@ version

cross: $(addprefix cross-,$(CROSS_TARGETS))
$(CROSS_ZIG): | cross-deps
.PHONY: cross-deps
cross-deps:
	$(call deps,cross)

# The Debian sources the libraries are built from, fetched once before the
# targets build side by side (`make -j`): two apt-get runs at once fail on
# apt's lock.  Nothing to do once every target has its libraries.
.PHONY: cross-src
cross-src:
	@for t in $(CROSS_TARGETS); do \
	  [ -f $(CROSS_CACHE)/$$t/lib/libowfat.a ] && [ -f $(CROSS_CACHE)/$$t/lib/libz.a ] || \
	    { mk/static-libs.sh --fetch $(CROSS_CACHE) >/dev/null && break || exit 1; }; \
	done

$(addprefix cross-,$(CROSS_TARGETS)): cross-%: $(CROSS_ZIG) | cross-src
	mk/cross-libs.sh $(CROSS_ZIG) $* $(CROSS_CACHE)/$*
	$(MAKE) --no-print-directory B=build/cross/$*/obj BIN=bin/cross/$* \
	  CC=$(CROSS_CACHE)/$*/zcc OPT="-O2" \
	  CPPFLAGS="-D_GNU_SOURCE -Ilib -I$(CROSS_CACHE)/$*/include" \
	  LDFLAGS="-L$(CROSS_CACHE)/$*/lib $(if $(findstring -linux-,$*),$(CROSS_CACHE)/$*/abi-tag.o)" LDLIBS="-lowfat -lz" \
	  $(addprefix bin/cross/$*/,$(CROSS_TOOLS))
	$(if $(wildcard mk/abi/$*.tsv),mk/cross-abi.sh $* $(addprefix bin/cross/$*/,$(CROSS_TOOLS)))

# For `make test`: build what builds (-k) and let the cross suite of
# tests/run.sh count each target and tool, so one broken tool is one
# failure, not a stopped test run.
cross-for-test:
	-@$(MAKE) -k --no-print-directory cross
