# bin/replay: the parallel keep-alive URL replayer, and its unit tests.
BINS += replay
replay_SRCS := replay/replay.c replay/conn.c replay/slice.c replay/report.c replay/histogram.c replay/urllist.c \
  replay/manifest.c replay/slurp.c lib/http_response.c lib/url.c lib/common.c lib/printable.c lib/usage.c \
  lib/os_proc.c lib/ioq.c lib/evmech.c
CTESTS += histogram urllist
histogram_test_SRCS := tests/c/histogram_test.c replay/histogram.c
urllist_test_SRCS := tests/c/urllist_test.c replay/urllist.c replay/manifest.c replay/slurp.c
