/* Confined lookups, per system (see os_beneath.h). */
#include "os_beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__) && !defined(OS_BENEATH_WALK)
#include <sys/syscall.h>
#endif

#include "compat.h"
#include "os_open.h"

#ifndef NAME_MAX
#define NAME_MAX 255
#endif
#define WALK_MAX 8192 /* longest path the walk handles, symlinks spliced in */

/* What open(O_NOFOLLOW) of a symlink says (os_open.c maps it for
 * directories): ELOOP, EMLINK on FreeBSD, EFTYPE on NetBSD. */
static int symlink_errno(int e) {
  if (e == ELOOP || e == EMLINK) return 1;
#ifdef EFTYPE
  if (e == EFTYPE) return 1;
#endif
  return 0;
}

static int fail(int fd, int top, int e) {
  if (fd != top) close(fd);
  errno = e;
  return -1;
}

/* The directory DONE (resolved components, '/'-separated) below TOP,
 * walked again from TOP; none of them was a symlink the first time. */
static int rewalk(int top, const char *done) {
  int dfd = top;
  char comp[NAME_MAX + 1];
  while (*done != '\0') {
    const char *slash = strchr(done, '/');
    size_t n = slash ? (size_t)(slash - done) : strlen(done);
    memcpy(comp, done, n);
    comp[n] = '\0';
    int fd = os_open_dir_at(dfd, comp);
    int e = errno;
    if (dfd != top) close(dfd);
    if (fd < 0) {
      errno = e;
      return -1;
    }
    dfd = fd;
    done += n + (slash != NULL);
  }
  return dfd;
}

static int walk(int top, const char *rel, int flags) {
  char rest[WALK_MAX], done[WALK_MAX], tmp[WALK_MAX];
  size_t rl = strlen(rel), dl = 0;
  if (rl >= sizeof rest) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(rest, rel, rl + 1);
  done[0] = '\0';
  const char *p = rest;
  int dfd = top, links = 0;
  for (;;) {
    while (*p == '/') p++;
    if (*p == '\0') { /* the directory itself ("", ".", "dir/") */
      int fd = openat(dfd, ".", flags);
      int e = errno;
      if (dfd != top) close(dfd);
      errno = e;
      return fd;
    }
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (n > NAME_MAX) return fail(dfd, top, ENAMETOOLONG);
    char comp[NAME_MAX + 1];
    memcpy(comp, p, n);
    comp[n] = '\0';
    const char *next = p + n; /* "" or "/..." */
    if (strcmp(comp, ".") == 0) {
      p = next;
      continue;
    }
    if (strcmp(comp, "..") == 0) {
      if (dl == 0) return fail(dfd, top, EXDEV); /* above the top */
      while (dl > 0 && done[dl - 1] != '/') dl--;
      if (dl > 0) dl--; /* its slash */
      done[dl] = '\0';
      if (dfd != top) close(dfd);
      dfd = rewalk(top, done);
      if (dfd < 0) return -1;
      p = next;
      continue;
    }
    int fd = slash ? os_open_dir_at(dfd, comp) : openat(dfd, comp, flags | O_NOFOLLOW);
    if (fd >= 0) {
      if (!slash) {
        if (dfd != top) close(dfd);
        return fd;
      }
      if (dl + n + 2 > sizeof done) {
        close(fd);
        return fail(dfd, top, ENAMETOOLONG);
      }
      if (dl > 0) done[dl++] = '/';
      memcpy(done + dl, comp, n + 1);
      dl += n;
      if (dfd != top) close(dfd);
      dfd = fd;
      p = next;
      continue;
    }
    int e = errno;
    if (!symlink_errno(e)) return fail(dfd, top, e);
    ssize_t tl = readlinkat(dfd, comp, tmp, sizeof tmp);
    if (tl < 0) return fail(dfd, top, errno == EINVAL ? e : errno); /* EINVAL: no symlink */
    if (++links > OS_BENEATH_MAXLINKS) return fail(dfd, top, ELOOP);
    if (tl == 0) return fail(dfd, top, ENOENT);
    if (tmp[0] == '/') return fail(dfd, top, EXDEV); /* absolute: as RESOLVE_BENEATH */
    size_t nl = strlen(next);
    if ((size_t)tl + nl + 1 > sizeof tmp) return fail(dfd, top, ENAMETOOLONG);
    memcpy(tmp + tl, next, nl + 1); /* target + the rest after the link */
    memcpy(rest, tmp, (size_t)tl + nl + 1);
    p = rest;
  }
}

#if defined(__linux__) && !defined(OS_BENEATH_WALK) && defined(SYS_openat2)
struct os_open_how {
  uint64_t flags, mode, resolve;
};
#define OS_RESOLVE_NO_MAGICLINKS 0x02
#define OS_RESOLVE_NO_SYMLINKS 0x04
#define OS_RESOLVE_BENEATH 0x08

static int no_openat2; /* learnt once per process */

/* openat2 with RESOLVE_BENEATH and RESOLVE; -1 with ENOSYS where the
 * kernel has none or a seccomp filter refuses it (EPERM), for good. */
static int openat2_beneath(int dirfd, const char *rel, int flags, uint64_t resolve) {
  if (!no_openat2) {
    struct os_open_how how = {(uint64_t)(unsigned)flags, 0, OS_RESOLVE_BENEATH | resolve};
    long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
    if (fd >= 0) return (int)fd;
    if (errno != ENOSYS && errno != EPERM) return -1;
    no_openat2 = 1; /* old kernel or a seccomp filter: walk instead */
  }
  errno = ENOSYS;
  return -1;
}

int os_open_beneath(int dirfd, const char *rel, int flags) {
  if (*rel == '\0') rel = ".";
  int fd = openat2_beneath(dirfd, rel, flags, OS_RESOLVE_NO_MAGICLINKS);
  return fd >= 0 || errno != ENOSYS ? fd : walk(dirfd, rel, flags);
}

int os_open_dir_nolinks(int dirfd, const char *rel) {
  return openat2_beneath(dirfd, *rel ? rel : ".", O_PATH | O_DIRECTORY | O_CLOEXEC,
                         OS_RESOLVE_NO_SYMLINKS | OS_RESOLVE_NO_MAGICLINKS);
}
#elif defined(O_RESOLVE_BENEATH) && !defined(OS_BENEATH_WALK)
/* FreeBSD 13+: a lookup that would leave DIRFD fails with ENOTCAPABLE.  A
 * kernel that does not know the flag ignores it (unknown open flags are),
 * so whether it holds is learnt once per process: ".." of DIRFD must be
 * refused (13.0 reopened "/" for ".." of "/": the walk then, safe too). */
static int beneath_state; /* 0 not known yet, 1 honoured, -1 walk */

static int beneath_honoured(int dirfd) {
  if (beneath_state == 0) {
    int fd = openat(dirfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_RESOLVE_BENEATH);
    if (fd >= 0) close(fd);
    beneath_state = fd < 0 && errno == ENOTCAPABLE ? 1 : -1;
  }
  return beneath_state > 0;
}

int os_open_beneath(int dirfd, const char *rel, int flags) {
  if (*rel == '\0') rel = ".";
  if (!beneath_honoured(dirfd)) return walk(dirfd, rel, flags);
  int fd = openat(dirfd, rel, flags | O_RESOLVE_BENEATH);
  if (fd < 0 && errno == ENOTCAPABLE) errno = EXDEV; /* as openat2 and the walk say */
  return fd;
}

int os_open_dir_nolinks(int dirfd, const char *rel) {
  (void)dirfd, (void)rel;
  errno = ENOSYS; /* O_RESOLVE_BENEATH follows symlinks that stay below */
  return -1;
}
#else
int os_open_beneath(int dirfd, const char *rel, int flags) {
  return walk(dirfd, rel, flags);
}

int os_open_dir_nolinks(int dirfd, const char *rel) {
  (void)dirfd, (void)rel;
  errno = ENOSYS;
  return -1;
}
#endif
