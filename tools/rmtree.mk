# bin/rmtree: the delete tool.
BINS += rmtree
rmtree_SRCS := tools/rmtree.c tools/dirwalk.c tools/common.c tools/printable.c
