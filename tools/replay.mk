# bin/replay: the parallel keep-alive URL replayer, and its unit tests.
BINS += replay
replay_SRCS := tools/replay.c tools/replay_conn.c tools/replay_report.c \
  tools/http_response.c tools/url.c tools/histogram.c tools/urllist.c tools/manifest.c \
  tools/slurp.c tools/common.c tools/printable.c tools/os_proc.c
CTESTS += http_response histogram urllist
http_response_test_SRCS := tests/c/http_response_test.c tools/http_response.c
histogram_test_SRCS := tests/c/histogram_test.c tools/histogram.c
urllist_test_SRCS := tests/c/urllist_test.c tools/urllist.c tools/manifest.c tools/slurp.c
