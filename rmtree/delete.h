/* The deletion engine of rmtree: depth-first, iterative, every directory
 * opened relative to its parent (openat, O_NOFOLLOW), read in batches
 * (getdents64 on Linux, getdents on the BSDs: os_dir.h), emptied with
 * unlinkat.  No recursion and no path-length limit; descriptors are kept
 * open for a window of levels only, deeper levels are reopened through
 * ".." (checked by device and inode). */
#ifndef SHOOTOUT_RMTREE_DELETE_H
#define SHOOTOUT_RMTREE_DELETE_H

#include <stdint.h>

struct rm_counts {
  uint64_t files;  /* non-directories removed (files, symlinks, fifos, ...) */
  uint64_t dirs;   /* directories removed, DIR itself included */
  uint64_t errors; /* entries that could not be removed (and mount points) */
};

struct rm_opts {
  int cross_mounts;  /* descend into other filesystems (default: leave them) */
  unsigned max_open; /* descriptor window; 0 = from RLIMIT_NOFILE */
  /* called now and then with the counts so far (for --series) */
  void (*tick)(void *arg, const struct rm_counts *c);
  void *tick_arg;
};

/* Remove DIR and everything below it.  Problems are reported on stderr,
 * one line each, naming the path.  Returns 0 when DIR is gone, 1 when
 * something was left (errors, mount points), 2 when DIR was refused or
 * could not be opened at all (nothing removed). */
int rm_tree(const char *dir, const struct rm_opts *o, struct rm_counts *c);

#endif
