/* Process facts, per system (see os_proc.h). */
#include "os_proc.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__FreeBSD__) || defined(__NetBSD__)
#include <sys/types.h>
#include <sys/sysctl.h>
#endif

#include "compat.h"

int os_self_exe(char *buf, size_t cap) {
  if (cap < 2) return -1;
#ifdef __linux__
  ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
  if (n <= 0 || (size_t)n >= cap - 1) return -1;
  buf[n] = '\0';
  return 0;
#elif defined(__FreeBSD__) || defined(__NetBSD__)
#ifdef __FreeBSD__
  int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PATHNAME, -1};
#else
  int mib[4] = {CTL_KERN, KERN_PROC_ARGS, (int)getpid(), KERN_PROC_PATHNAME};
#endif
  size_t len = cap;
  if (sysctl(mib, 4, buf, &len, NULL, 0) != 0 || len == 0 || len > cap) return -1;
  buf[cap - 1] = '\0';
  return buf[0] == '/' ? 0 : -1;
#else
  (void)buf;
  errno = ENOSYS;
  return -1;
#endif
}

/* ru_maxrss in KiB; 0 on failure. */
static unsigned long long maxrss_of(int who) {
  struct rusage ru;
  if (getrusage(who, &ru) != 0 || ru.ru_maxrss <= 0) return 0;
#ifdef __APPLE__
  return ((unsigned long long)ru.ru_maxrss + 1023) / 1024;
#else
  return (unsigned long long)ru.ru_maxrss;
#endif
}

unsigned long long os_maxrss_kb(void) {
  unsigned long long self = maxrss_of(RUSAGE_SELF), kids = maxrss_of(RUSAGE_CHILDREN);
  return self > kids ? self : kids;
}
