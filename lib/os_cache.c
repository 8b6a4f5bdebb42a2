/* Page cache and memory, per system (see os_cache.h). */
#include "os_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#ifdef __FreeBSD__
#include <sys/types.h>
#include <sys/sysctl.h>
#endif

#include "compat.h"

int os_fadvise_dontneed(int fd) {
#ifdef __OpenBSD__
  (void)fd;
  errno = ENOSYS;
  return -1;
#else
  int e = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  if (e == 0) return 0;
  errno = e;
  return -1;
#endif
}

int os_fadvise_sequential(int fd) {
#ifdef __OpenBSD__
  (void)fd;
  errno = ENOSYS;
  return -1;
#else
  int e = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  if (e == 0) return 0;
  errno = e;
  return -1;
#endif
}

#ifdef __linux__
int os_drop_caches(void) {
  sync();
  int d = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
  if (d < 0) return -1;
  if (write(d, "3\n", 2) != 2) {
    int e = errno;
    close(d);
    errno = e;
    return -1;
  }
  return close(d);
}

uint64_t os_mem_available(void) {
  uint64_t bytes = 0;
  FILE *f = fopen("/proc/meminfo", "r");
  if (f) {
    char line[256];
    unsigned long long kb;
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) bytes = kb * 1024;
    fclose(f);
  }
  return bytes;
}
#else
int os_drop_caches(void) {
  errno = ENOSYS;
  return -1;
}

uint64_t os_mem_available(void) {
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) return 0;
#ifdef _SC_AVPHYS_PAGES
  long n = sysconf(_SC_AVPHYS_PAGES);
  return n > 0 ? (uint64_t)n * (uint64_t)page : 0;
#elif defined(__FreeBSD__)
  unsigned free_count = 0;
  size_t len = sizeof free_count;
  if (sysctlbyname("vm.stats.vm.v_free_count", &free_count, &len, NULL, 0) != 0) return 0;
  return (uint64_t)free_count * (uint64_t)page;
#else
  return 0;
#endif
}
#endif
