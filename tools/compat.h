/* Shims for the C libraries we build against: glibc for `make`, dietlibc for
 * `make static`.  Include after the system headers. */
#ifndef SHOOTOUT_COMPAT_H
#define SHOOTOUT_COMPAT_H

#ifdef __dietlibc__
#include <sys/stat.h>
#include <time.h>

/* dietlibc has utimensat but neither futimens nor the UTIME_* constants;
 * the values are the Linux kernel's ABI. */
#ifndef UTIME_OMIT
#define UTIME_NOW ((1L << 30) - 1L)
#define UTIME_OMIT ((1L << 30) - 2L)
#endif
static inline int futimens(int fd, const struct timespec ts[2]) {
  return utimensat(fd, NULL, (struct timespec *)ts, 0);
}

/* Linux's value; dietlibc's netinet/in.h lacks it. */
#ifndef IPV6_V6ONLY
#define IPV6_V6ONLY 26
#endif
#endif

#endif
