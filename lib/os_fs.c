/* Filesystem facts, per system (see os_fs.h). */
#include "os_fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#elif defined(__NetBSD__)
/* statvfs carries the mount names */
#elif defined(__FreeBSD__) || defined(__OpenBSD__)
#include <sys/param.h>
#include <sys/mount.h>
#endif

int os_fs_avail(const char *dir, uint64_t *bytes) {
  struct statvfs sv;
  if (statvfs(dir, &sv) != 0) return -1;
  *bytes = (uint64_t)sv.f_bavail * (uint64_t)(sv.f_frsize ? sv.f_frsize : sv.f_bsize);
  return 0;
}

#ifdef __linux__

/* The mount whose device is dev and whose mount point is the longest
 * prefix of dir: its mount point, type and source. */
int os_fs_mount(const char *dir, struct os_mount *m) {
  char real[4096], line[8192];
  struct stat st;
  memset(m, 0, sizeof *m);
  if (stat(dir, &st) != 0 || realpath(dir, real) == NULL) return -1;
  FILE *f = fopen("/proc/self/mountinfo", "r");
  if (f == NULL) return -1;
  size_t best = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned ma, mi;
    char mnt[4096], type[64], src[256];
    char *sep = strstr(line, " - ");
    if (sep == NULL || sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) != 3) continue;
    if (sscanf(sep + 3, "%63s %255s", type, src) != 2) continue;
    if (makedev(ma, mi) != st.st_dev) continue;
    size_t l = strlen(mnt);
    if (strncmp(real, mnt, l) != 0 || (real[l] != '/' && real[l] != '\0' && l > 1)) continue;
    if (l >= best) {
      best = l;
      snprintf(m->mnt, sizeof m->mnt, "%s", mnt);
      snprintf(m->fstype, sizeof m->fstype, "%s", type);
      snprintf(m->device, sizeof m->device, "%s", src);
    }
  }
  fclose(f);
  return 0;
}

uint64_t os_fs_bsize(const char *dir) {
  struct statfs sf;
  return statfs(dir, &sf) == 0 ? (uint64_t)sf.f_bsize : 0;
}

static uint64_t read_u64_file(const char *path) {
  FILE *f = fopen(path, "r");
  unsigned long long v = 0;
  if (f == NULL) return 0;
  if (fscanf(f, "%llu", &v) != 1) v = 0;
  fclose(f);
  return v;
}

uint64_t os_fs_readahead_kb(const char *dir) {
  struct stat st;
  char path[512];
  if (stat(dir, &st) != 0) return 0;
  unsigned ma = (unsigned)major(st.st_dev), mi = (unsigned)minor(st.st_dev);
  /* The filesystem's backing device info holds the read-ahead it uses. */
  snprintf(path, sizeof path, "/sys/class/bdi/%u:%u/read_ahead_kb", ma, mi);
  uint64_t kb = read_u64_file(path);
  if (kb == 0) {
    snprintf(path, sizeof path, "/sys/dev/block/%u:%u/queue/read_ahead_kb", ma, mi);
    kb = read_u64_file(path);
  }
  return kb;
}

int os_fs_sync(int fd) {
  return syncfs(fd);
}

#else /* the BSDs */

#ifdef __NetBSD__
typedef struct statvfs os_statfs_t;
#define os_statfs statvfs
#else
typedef struct statfs os_statfs_t;
#define os_statfs statfs
#endif

int os_fs_mount(const char *dir, struct os_mount *m) {
  os_statfs_t sf;
  memset(m, 0, sizeof *m);
  if (os_statfs(dir, &sf) != 0) return -1;
  snprintf(m->mnt, sizeof m->mnt, "%s", sf.f_mntonname);
  snprintf(m->fstype, sizeof m->fstype, "%s", sf.f_fstypename);
  snprintf(m->device, sizeof m->device, "%s", sf.f_mntfromname);
  return 0;
}

uint64_t os_fs_bsize(const char *dir) {
  os_statfs_t sf;
  return os_statfs(dir, &sf) == 0 ? (uint64_t)sf.f_bsize : 0;
}

uint64_t os_fs_readahead_kb(const char *dir) {
  (void)dir;
  return 0;
}

int os_fs_sync(int fd) {
  (void)fd;
  sync();
  return 0;
}

#endif
