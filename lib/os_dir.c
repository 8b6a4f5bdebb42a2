/* Directory reading, per system (see os_dir.h). */
#include "os_dir.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/syscall.h>

#include "compat.h"

struct dirent64_k { /* the kernel's struct linux_dirent64 */
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

long os_dir_read(int fd, void *buf, size_t size) {
  return syscall(SYS_getdents64, fd, buf, size);
}

int os_dir_next(const void *buf, size_t len, size_t *pos, struct os_dirent *e) {
  if (*pos >= len) return 0;
  const struct dirent64_k *d = (const struct dirent64_k *)((const char *)buf + *pos);
  *pos += d->d_reclen;
  e->ino = d->d_ino;
  e->type = d->d_type;
  e->name = d->d_name;
  return 1;
}

#elif defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)

long os_dir_read(int fd, void *buf, size_t size) {
  /* getdents: FreeBSD >= 12 (ssize_t), NetBSD and OpenBSD (int). */
  return (long)getdents(fd, buf, size);
}

int os_dir_next(const void *buf, size_t len, size_t *pos, struct os_dirent *e) {
  for (;;) {
    if (*pos >= len) return 0;
    const struct dirent *d = (const struct dirent *)((const char *)buf + *pos);
    if (d->d_reclen == 0) return 0; /* never from a sane kernel: do not loop */
    *pos += d->d_reclen;
    if (d->d_fileno == 0) continue; /* a deleted slot some filesystems leave */
    e->ino = (uint64_t)d->d_fileno;
    e->type = d->d_type;
    e->name = d->d_name;
    return 1;
  }
}

#else
#error "os_dir.c: no batch directory reader for this system (add one here)"
#endif
