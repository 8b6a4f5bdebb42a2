/* Reading a directory by its descriptor, in batches, on every system the
 * tools build for (the OS layer for directory reading):
 *   Linux        getdents64(2), through syscall() (kernel dirent64 records)
 *   FreeBSD, NetBSD, OpenBSD   getdents(2) (struct dirent records)
 * The caller owns the buffer and the descriptor; a batch is walked with
 * os_dir_next().  No DIR stream, so the descriptor stays usable for
 * openat/unlinkat and can be closed and reopened at will. */
#ifndef SHOOTOUT_OS_DIR_H
#define SHOOTOUT_OS_DIR_H

#include <stddef.h>
#include <stdint.h>

#define OS_DIR_BUF (64 * 1024) /* a good batch buffer size */

struct os_dirent {
  uint64_t ino;     /* inode number as the directory lists it */
  unsigned type;    /* DT_* of <dirent.h>, DT_UNKNOWN when not known */
  const char *name; /* points into the batch buffer */
};

/* Reads the next batch of entries of directory FD into BUF (SIZE bytes,
 * from malloc: suitably aligned).  Returns the bytes filled, 0 at the end
 * of the directory, -1 with errno set. */
long os_dir_read(int fd, void *buf, size_t size);

/* The entry at *POS of a batch of LEN bytes: fills E, advances *POS and
 * returns 1; returns 0 when the batch is used up. */
int os_dir_next(const void *buf, size_t len, size_t *pos, struct os_dirent *e);

#endif
