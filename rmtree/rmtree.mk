# bin/rmtree: the delete tool.
BINS += rmtree
rmtree_SRCS := rmtree/rmtree.c rmtree/delete.c lib/os_dir.c lib/os_stat.c lib/os_proc.c lib/common.c \
  lib/printable.c lib/usage.c
