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
dltar_SRCS := tools/dltar.c tools/tar_extract.c tools/tar_header.c tools/safe_path.c tools/os_open.c \
  tools/url.c tools/http_response.c tools/http_conn.c tools/xfer.c tools/gunzip_stream.c \
  tools/gunzip_$(DLTAR_INFLATE).c tools/pipeline.c tools/ring.c tools/common.c \
  tools/os_cache.c tools/printable.c tools/os_proc.c
# (override: `make static` sets LDLIBS on the command line)
$(BIN)/dltar: override LDLIBS += $(if $(filter isal,$(DLTAR_INFLATE)),-lisal) -lpthread
CTESTS += tar_header safe_path url ring
tar_header_test_SRCS := tests/c/tar_header_test.c tools/tar_header.c
safe_path_test_SRCS := tests/c/safe_path_test.c tools/safe_path.c tools/os_open.c
url_test_SRCS := tests/c/url_test.c tools/url.c tools/common.c
ring_test_SRCS := tests/c/ring_test.c tools/ring.c
$(B)/tests/ring_test: override LDLIBS += -lpthread

.PHONY: dltar-zlib
dltar-zlib:
	$(MAKE) --no-print-directory B=build/zlib BIN=build/zlib/bin DLTAR_INFLATE=zlib build/zlib/bin/dltar
