/* Facts about the filesystem a path is on, on every system the tools build
 * for (the OS layer for filesystem facts):
 *   Linux    the mount from /proc/self/mountinfo (device number and the
 *            longest mount point prefix), statfs(2) f_bsize, the
 *            read-ahead from sysfs (bdi, else the block queue), syncfs(2)
 *   FreeBSD, OpenBSD   statfs(2) of the path: the very entry getmntinfo(3)
 *            lists for its mount (f_mntonname, f_mntfromname,
 *            f_fstypename, f_bsize); sync(2) for syncfs
 *   NetBSD   the same from statvfs(2)
 * Free space is POSIX statvfs(3) everywhere.  Every answer is best effort:
 * what is not known stays empty or 0. */
#ifndef SHOOTOUT_OS_FS_H
#define SHOOTOUT_OS_FS_H

#include <stdint.h>

struct os_mount {
  char fstype[64], device[256], mnt[4096];
};

/* The mount DIR is on; fields not found stay empty.  0, or -1. */
int os_fs_mount(const char *dir, struct os_mount *m);
/* The filesystem's block size as statfs reports it, 0 unknown. */
uint64_t os_fs_bsize(const char *dir);
/* Bytes an unprivileged user may still write there: 0 with *bytes, -1. */
int os_fs_avail(const char *dir, uint64_t *bytes);
/* The read-ahead the system applies to DIR's device in kB, 0 unknown
 * (only Linux tells: the BSDs have no per-device figure). */
uint64_t os_fs_readahead_kb(const char *dir);
/* Writes the dirty data of FD's filesystem (syncfs on Linux, sync(2),
 * all filesystems, elsewhere).  0, or -1 with errno set. */
int os_fs_sync(int fd);

#endif
