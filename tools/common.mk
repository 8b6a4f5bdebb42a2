# Code every native tool shares (tools/common.c) and its unit test.
CTESTS += common
common_test_SRCS := tests/c/common_test.c tools/common.c
# Escaping untrusted bytes for messages (tools/printable.c), linked into every tool.
CTESTS += printable
printable_test_SRCS := tests/c/printable_test.c tools/printable.c
