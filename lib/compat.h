/* Shims for the C libraries we build against: glibc for `make`, dietlibc for
 * `make static`.  Include after the system headers. */
#ifndef SHOOTOUT_COMPAT_H
#define SHOOTOUT_COMPAT_H

#ifdef __dietlibc__
#include <time.h> /* before sys/stat.h: utimensat's prototype needs timespec */
#include <linux/stat.h> /* struct statx and STATX_* from the kernel headers */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_getdents64
#define SYS_getdents64 __NR_getdents64
#endif
/* dietlibc has no statx(); the system call is the same thing. */
static inline int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *sx) {
  return (int)syscall(__NR_statx, dirfd, path, flags, mask, sx);
}

/* dietlibc has utimensat but neither futimens nor the UTIME_* constants;
 * the values are the Linux kernel's ABI. */
#ifndef UTIME_OMIT
#define UTIME_NOW ((1L << 30) - 1L)
#define UTIME_OMIT ((1L << 30) - 2L)
#endif
static inline int futimens(int fd, const struct timespec ts[2]) {
  return utimensat(fd, NULL, (struct timespec *)ts, 0);
}

/* dietlibc's math.h has neither C99 constant. */
#ifndef NAN
#define NAN (__builtin_nan(""))
#endif
#ifndef INFINITY
#define INFINITY (__builtin_inf())
#endif

/* Linux's value; dietlibc's netinet/in.h lacks it. */
#ifndef IPV6_V6ONLY
#define IPV6_V6ONLY 26
#endif
#endif

#endif
