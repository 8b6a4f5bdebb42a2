# Code every native tool shares (tools/common.c) and its unit test.
CTESTS += common
common_test_SRCS := tests/c/common_test.c tools/common.c
