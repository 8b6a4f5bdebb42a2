# bin/rmtree: the delete tool.
BINS += rmtree
rmtree_SRCS := tools/rmtree.c tools/os_proc.c tools/dirwalk.c tools/os_dir.c tools/os_stat.c tools/common.c tools/printable.c
