# bin/fsdisco: filesystem discovery by timing single system calls.
BINS += fsdisco
fsdisco_SRCS := tools/fsdisco.c tools/fsdisco_clock.c tools/fsdisco_stats.c tools/fsdisco_write.c \
	tools/fsdisco_read.c tools/fsdisco_truth.c tools/os_fs.c tools/os_cache.c tools/common.c \
	tools/printable.c
CTESTS += fsdisco_stats
fsdisco_stats_test_SRCS := tests/c/fsdisco_stats_test.c tools/fsdisco_stats.c
