# bin/fsdisco: filesystem discovery by timing single system calls.
BINS += fsdisco
fsdisco_SRCS := fsdisco/fsdisco.c fsdisco/testfile.c fsdisco/flushcmd.c fsdisco/clock.c fsdisco/stats.c \
	fsdisco/write.c fsdisco/read.c fsdisco/truth.c lib/os_fs.c lib/os_cache.c lib/common.c \
	lib/printable.c lib/usage.c
CTESTS += fsdisco_stats
fsdisco_stats_test_SRCS := tests/c/fsdisco_stats_test.c fsdisco/stats.c
