# bin/stdiorw: IOzone's stdio tests (fwrite, frewrite, fread, freread) for phase-iozone.
BINS += stdiorw
stdiorw_SRCS := stdiorw/stdiorw.c stdiorw/children.c lib/common.c lib/printable.c lib/usage.c
CTESTS += children
children_test_SRCS := tests/c/children_test.c stdiorw/children.c
