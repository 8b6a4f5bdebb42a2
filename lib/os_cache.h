/* The page cache and memory, on every system the tools build for (the OS
 * layer for cache flushing):
 *   Linux   sync(2), then "3" into /proc/sys/vm/drop_caches (root);
 *           MemAvailable of /proc/meminfo
 *   others  no such knob exists: os_drop_caches() fails with ENOSYS and
 *           the caller tells the user to remount the filesystem instead
 *           (its cache goes with the unmount); free memory is
 *           sysconf(_SC_AVPHYS_PAGES) (FreeBSD: vm.stats.vm.v_free_count),
 *           which unlike MemAvailable leaves out reclaimable cache.
 * Dropping one file's cached pages, or asking for read-ahead on a file
 * read from start to end: posix_fadvise(POSIX_FADV_DONTNEED, _SEQUENTIAL),
 * which OpenBSD lacks (there they do nothing). */
#ifndef SHOOTOUT_OS_CACHE_H
#define SHOOTOUT_OS_CACHE_H

#include <stdint.h>

#ifdef __linux__
#define OS_CAN_DROP_CACHES 1
#define OS_MEM_AVAILABLE_NAME "MemAvailable"
#else
#define OS_CAN_DROP_CACHES 0
#define OS_MEM_AVAILABLE_NAME "free memory"
#endif

/* Empties the whole page cache.  0, or -1 with errno set (ENOSYS where
 * the system has no way). */
int os_drop_caches(void);
/* Asks the system to forget FD's cached pages (after fdatasync).  0, or
 * -1 with errno set (ENOSYS on OpenBSD). */
int os_fadvise_dontneed(int fd);
/* Tells the system FD will be read sequentially (more read-ahead).  0, or
 * -1 with errno set (ENOSYS on OpenBSD); a hint, callers may ignore it. */
int os_fadvise_sequential(int fd);
/* Memory available for the page cache in bytes, 0 unknown. */
uint64_t os_mem_available(void);

#endif
