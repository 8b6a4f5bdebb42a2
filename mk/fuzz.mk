# Fuzz targets (libFuzzer, from Debian's clang) for the parsers that read
# untrusted bytes: tests/fuzz/NAME_fuzz.c, seeds in tests/fuzz/corpus/NAME/.
#   make fuzz-build            build/fuzz/NAME_fuzz, with ASan+UBSan; without
#                              clang and its libFuzzer runtime it says so,
#                              writes build/fuzz/SKIPPED and succeeds
#   make fuzz [FUZZ_S=60]      run each target FUZZ_S seconds; the corpus it
#                              grows stays in build/fuzz/corpus/NAME, crashes
#                              go to build/fuzz/artifacts/
#   make fuzz FUZZ_TARGETS=tar_header   only some of them
# `make test` runs each for FUZZ_TEST_S (3) seconds (tests/run.sh fuzz).
FUZZ_CC ?= clang
FUZZ_S ?= 60
FUZZ_DIR := build/fuzz
FUZZ_ALL := tar_header gunzip_stream http_parse http_response url
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -fno-omit-frame-pointer -D_GNU_SOURCE -Ilib -Ihttpd -Wall -Wextra -Werror
# Every target also links the shared helpers, so a parser that starts to
# use them (printable, parse_u64) still links.
FUZZ_COMMON := lib/common.c lib/printable.c
fuzz_tar_header_SRCS := dltar/tar_header.c
# the inflater dltar is built with (dltar/dltar.mk: ISA-L or zlib)
fuzz_gunzip_stream_SRCS = dltar/gunzip_stream.c dltar/gunzip_$(DLTAR_INFLATE).c
fuzz_gunzip_stream_LDFLAGS = -Wl,--wrap=exit,--wrap=errmsg_warn $(if $(filter isal,$(DLTAR_INFLATE)),-lisal)
fuzz_http_parse_SRCS := httpd/http_parse.c httpd/http_reply.c httpd/http_path.c lib/os_beneath.c lib/os_open.c
fuzz_http_response_SRCS := lib/http_response.c
fuzz_url_SRCS := lib/url.c

define fuzz_rule
$(FUZZ_DIR)/$(1)_fuzz: tests/fuzz/$(1)_fuzz.c $(fuzz_$(1)_SRCS) $(FUZZ_COMMON) $(FUZZ_HDRS)
	@mkdir -p $$(@D)
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ $$(filter %.c,$$^) $$(fuzz_$(1)_LDFLAGS) -lowfat -lz
endef
# One link of a few small files each: rebuilt when any header changes.
FUZZ_HDRS := $(wildcard lib/*.h httpd/*.h dltar/*.h)
$(foreach t,$(FUZZ_ALL),$(eval $(call fuzz_rule,$(t))))

# Can this compiler build a libFuzzer target at all?  (clang, and the
# libFuzzer runtime of libclang-rt-NN-dev.)
fuzz_probe = printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return (int)(d && n) * 0; }\n' | \
  $(FUZZ_CC) -fsanitize=fuzzer -x c - -o $(FUZZ_DIR)/.probe >/dev/null 2>&1

FUZZ_BINS := $(addprefix $(FUZZ_DIR)/,$(addsuffix _fuzz,$(FUZZ_ALL)))
.PHONY: fuzz fuzz-build
fuzz-build:
	-$(call deps,fuzz)
	@mkdir -p $(FUZZ_DIR); rm -f $(FUZZ_DIR)/SKIPPED
	@if $(fuzz_probe); then \
	  rm -f $(FUZZ_DIR)/.probe; \
	  $(MAKE) --no-print-directory -q $(FUZZ_BINS) || $(MAKE) --no-print-directory $(FUZZ_BINS); \
	else \
	  echo "$(FUZZ_CC) cannot build libFuzzer targets (needs clang and libclang-rt-14-dev: make deps)" | tee $(FUZZ_DIR)/SKIPPED; \
	fi

fuzz: fuzz-build
	@tests/fuzz/run.sh "$(FUZZ_S)" $(FUZZ_TARGETS)
