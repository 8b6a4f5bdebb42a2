/* The identity of an open file, on every system the tools build for (the
 * OS layer for file status):
 *   Linux   statx(2) with AT_EMPTY_PATH: device, inode and whether it is
 *           the root of a mount (STATX_ATTR_MOUNT_ROOT, so that a bind
 *           mount of the same filesystem is seen too)
 *   others  fstat(2): device and inode; a mount root is known by its
 *           device differing from its parent's (the caller compares). */
#ifndef SHOOTOUT_OS_STAT_H
#define SHOOTOUT_OS_STAT_H

#include <stdint.h>

/* Returns 0 and fills DEV, INO, MOUNT_ROOT (1 known root, else 0), or -1
 * with errno set. */
int os_fd_id(int fd, uint64_t *dev, uint64_t *ino, int *mount_root);

#endif
