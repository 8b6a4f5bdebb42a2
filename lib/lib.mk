# lib/: the code two or more programs share (messages and numbers,
# printable(), the OS layer os_*.c, URLs and addresses, the HTTP response
# parser), and its unit tests.
CTESTS += common
common_test_SRCS := tests/c/common_test.c lib/common.c
# Escaping untrusted bytes for messages (lib/printable.c), linked into every tool.
CTESTS += printable
printable_test_SRCS := tests/c/printable_test.c lib/printable.c
# dltar's URLs and replay's HOST:PORT (lib/url.c).
CTESTS += url
url_test_SRCS := tests/c/url_test.c lib/url.c lib/common.c
# The HTTP/1.1 response parser of dltar and replay (lib/http_response.c).
CTESTS += http_response
http_response_test_SRCS := tests/c/http_response_test.c lib/http_response.c
# A response head and a file's bytes on a socket (lib/os_sendfile.c).
CTESTS += os_sendfile
os_sendfile_test_SRCS := tests/c/os_sendfile_test.c lib/os_sendfile.c
# Closing descriptors of libowfat's event layer (lib/ioq.c), httpd's and replay's.
CTESTS += ioq
ioq_test_SRCS := tests/c/ioq_test.c lib/ioq.c
# The --stats line naming libowfat's wait mechanism (lib/evmech.c).
CTESTS += evmech
evmech_test_SRCS := tests/c/evmech_test.c lib/evmech.c
# httpd's per-request latency histograms (lib/lathist.c).
CTESTS += lathist
lathist_test_SRCS := tests/c/lathist_test.c lib/lathist.c lib/common.c
# httpd without its per-request histograms (-DLATHIST_OFF: lib/lathist.h),
# for the cost make bench measures (tests/bench/latency.bench.sh).
.PHONY: nolathist
nolathist:
	$(MAKE) --no-print-directory B=build/nolathist BIN=build/nolathist/bin \
	  CPPFLAGS="$(CPPFLAGS) -DLATHIST_OFF" build/nolathist/bin/httpd
# httpd and dltar with the paths the BSDs take, on Linux (tests/httpd.bats,
# tests/dltar.bats): -DOS_BENEATH_WALK (os_beneath.h: the walk, no
# openat2), -DOS_PDEATH_PIPE (os_child.h: the parent-death pipe alone, no
# prctl).  Into build/bsdpaths/bin, with the C tests of those layers.
.PHONY: bsdpaths
bsdpaths:
	$(MAKE) --no-print-directory B=build/bsdpaths BIN=build/bsdpaths/bin \
	  CPPFLAGS="$(CPPFLAGS) -DOS_BENEATH_WALK -DOS_PDEATH_PIPE" \
	  build/bsdpaths/bin/httpd build/bsdpaths/bin/dltar \
	  build/bsdpaths/tests/safe_path_test build/bsdpaths/tests/http_path_test
