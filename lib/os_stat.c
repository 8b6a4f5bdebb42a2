/* File identity, per system (see os_stat.h). */
#include "os_stat.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"

#ifdef __linux__
/* The kernel's value (since 5.8); musl's headers do not name it. */
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

int os_fd_id(int fd, uint64_t *dev, uint64_t *ino, int *mount_root) {
  struct statx sx;
  if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_INO, &sx) != 0) return -1;
  *dev = ((uint64_t)sx.stx_dev_major << 32) | sx.stx_dev_minor;
  *ino = sx.stx_ino;
  *mount_root = (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) && (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
  return 0;
}
#else
int os_fd_id(int fd, uint64_t *dev, uint64_t *ino, int *mount_root) {
  struct stat st;
  if (fstat(fd, &st) != 0) return -1;
  *dev = (uint64_t)st.st_dev;
  *ino = (uint64_t)st.st_ino;
  *mount_root = 0;
  return 0;
}
#endif
