# bin/dltar: download, gunzip and untar in one process, and its unit tests.
# The inflater: ISA-L when its header is found by $(CC) (Debian libisal-dev),
# else zlib; `make DLTAR_INFLATE=zlib` forces zlib, `make dltar-zlib` builds
# that variant as build/zlib/bin/dltar without touching bin/dltar.  `make
# static` (dietlibc) uses zlib: no ISA-L is built for it.
# (The '#' comes from a variable: inside $(shell ...) make 4.3 and later
# keep a backslash before it, older ones take a bare one for a comment.)
dltar_hash := \#
ifeq ($(origin DLTAR_INFLATE),undefined)
DLTAR_INFLATE := $(if $(findstring diet,$(CC)),zlib,$(shell echo '$(dltar_hash)include <isa-l/igzip_lib.h>' \
  | $(CC) -E -x c - >/dev/null 2>&1 && echo isal || echo zlib))
endif
BINS += dltar
dltar_SRCS := dltar/dltar.c dltar/tar_extract.c dltar/tar_header.c dltar/safe_path.c \
  dltar/http_conn.c dltar/xfer.c dltar/gunzip_stream.c dltar/gunzip_$(DLTAR_INFLATE).c \
  dltar/pipeline.c dltar/ring.c lib/url.c lib/http_response.c lib/os_open.c lib/os_beneath.c lib/common.c \
  lib/os_cache.c lib/printable.c lib/usage.c lib/os_proc.c
# (override: `make static` sets LDLIBS on the command line)
$(BIN)/dltar: override LDLIBS += $(if $(filter isal,$(DLTAR_INFLATE)),-lisal) -lpthread
CTESTS += tar_header safe_path ring
tar_header_test_SRCS := tests/c/tar_header_test.c dltar/tar_header.c
safe_path_test_SRCS := tests/c/safe_path_test.c dltar/safe_path.c lib/os_open.c lib/os_beneath.c
ring_test_SRCS := tests/c/ring_test.c dltar/ring.c
$(B)/tests/ring_test: override LDLIBS += -lpthread

.PHONY: dltar-zlib
dltar-zlib:
	$(MAKE) --no-print-directory B=build/zlib BIN=build/zlib/bin DLTAR_INFLATE=zlib build/zlib/bin/dltar
