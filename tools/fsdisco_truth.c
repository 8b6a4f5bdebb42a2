/* What the system itself states about a filesystem, to set beside what
 * fsdisco discovers: statfs, st_blksize, the mount table, the read-ahead
 * setting in sysfs, MemAvailable, and dumpe2fs / xfs_info / debugfs when
 * they are installed. */
#include "fsdisco.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs argv (no shell) and returns its stdout, NUL-terminated, or NULL. */
static char *capture(char *const argv[]) {
  int p[2];
  if (pipe(p) != 0) return NULL;
  pid_t pid = fork();
  if (pid < 0) {
    close(p[0]);
    close(p[1]);
    return NULL;
  }
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 2);
    }
    dup2(p[1], 1);
    close(p[0]);
    close(p[1]);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(p[1]);
  size_t len = 0, cap = 8192;
  char *buf = malloc(cap);
  for (;;) {
    if (buf == NULL) break;
    if (len + 1 >= cap) {
      char *nb = realloc(buf, cap *= 2);
      if (nb == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
    }
    ssize_t r = read(p[0], buf + len, cap - len - 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    len += (size_t)r;
  }
  close(p[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (buf == NULL || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  return buf;
}

/* The number after `key` in text (skipping spaces and '='), 0 when absent. */
static uint64_t number_after(const char *text, const char *key) {
  const char *p = text ? strstr(text, key) : NULL;
  if (p == NULL) return 0;
  p += strlen(key);
  while (*p == ' ' || *p == '\t' || *p == '=' || *p == ':') p++;
  return strtoull(p, NULL, 10);
}

static uint64_t read_u64_file(const char *path) {
  FILE *f = fopen(path, "r");
  unsigned long long v = 0;
  if (f == NULL) return 0;
  if (fscanf(f, "%llu", &v) != 1) v = 0;
  fclose(f);
  return v;
}

/* The mount whose device is dev and whose mount point is the longest
 * prefix of dir: its mount point, type and source. */
static void find_mount(const char *dir, dev_t dev, struct truth *t) {
  char real[4096], line[8192];
  if (realpath(dir, real) == NULL) return;
  FILE *f = fopen("/proc/self/mountinfo", "r");
  if (f == NULL) return;
  size_t best = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned ma, mi;
    char mnt[4096], type[64], src[256];
    char *sep = strstr(line, " - ");
    if (sep == NULL || sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) != 3) continue;
    if (sscanf(sep + 3, "%63s %255s", type, src) != 2) continue;
    if (makedev(ma, mi) != dev) continue;
    size_t l = strlen(mnt);
    if (strncmp(real, mnt, l) != 0 || (real[l] != '/' && real[l] != '\0' && l > 1)) continue;
    if (l >= best) {
      best = l;
      snprintf(t->mnt, sizeof t->mnt, "%s", mnt);
      snprintf(t->fstype, sizeof t->fstype, "%s", type);
      snprintf(t->device, sizeof t->device, "%s", src);
    }
  }
  fclose(f);
}

void truth_gather(const char *dir, struct truth *t) {
  struct statfs sf;
  struct stat st;
  char path[512];
  memset(t, 0, sizeof *t);
  t->extents = -1;
  if (statfs(dir, &sf) == 0) t->f_bsize = (uint64_t)sf.f_bsize;
  if (stat(dir, &st) != 0) return;
  t->st_blksize = (uint64_t)st.st_blksize;
  find_mount(dir, st.st_dev, t);
  /* The filesystem's backing device info holds the read-ahead it uses. */
  snprintf(path, sizeof path, "/sys/class/bdi/%u:%u/read_ahead_kb", (unsigned)major(st.st_dev), (unsigned)minor(st.st_dev));
  t->ra_kb = read_u64_file(path);
  if (t->ra_kb == 0) {
    snprintf(path, sizeof path, "/sys/dev/block/%u:%u/queue/read_ahead_kb", (unsigned)major(st.st_dev), (unsigned)minor(st.st_dev));
    t->ra_kb = read_u64_file(path);
  }
  FILE *f = fopen("/proc/meminfo", "r");
  if (f) {
    char line[256];
    unsigned long long kb;
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) t->mem_available = kb * 1024;
    fclose(f);
  }
  if (t->device[0] != '/') return;
  if (strncmp(t->fstype, "ext", 3) == 0) {
    char *argv[] = {"dumpe2fs", "-h", t->device, NULL};
    char *out = capture(argv);
    t->fs_block = number_after(out, "Block size:");
    if (out) {
      const char *feat = strstr(out, "Filesystem features:");
      if (feat) {
        const char *eol = strchr(feat, '\n');
        size_t l = eol ? (size_t)(eol - feat) : strlen(feat);
        char tmp[1024];
        snprintf(tmp, sizeof tmp, "%.*s ", (int)(l < 1000 ? l : 1000), feat);
        t->extents = strstr(tmp, " extent ") != NULL;
      }
    }
    free(out);
  } else if (strcmp(t->fstype, "xfs") == 0) {
    char *argv[] = {"xfs_info", t->mnt, NULL};
    char *out = capture(argv);
    const char *data = out ? strstr(out, "data ") : NULL;
    t->fs_block = number_after(data, "bsize");
    t->extents = 1;
    free(out);
  }
}

long truth_default_direct(const struct truth *t) {
  if (strncmp(t->fstype, "ext", 3) == 0 && t->extents == 0) return 12; /* EXT2_NDIR_BLOCKS */
  return -1;
}

long truth_direct_pointers(const struct truth *t, const char *path) {
  if (strncmp(t->fstype, "ext", 3) != 0 || t->device[0] != '/' || t->mnt[0] == '\0') return -1;
  char real[4096], req[4200];
  if (realpath(path, real) == NULL) return -1;
  size_t l = strlen(t->mnt);
  const char *rel = strcmp(t->mnt, "/") == 0 ? real : real + l;
  snprintf(req, sizeof req, "stat \"%s\"", *rel ? rel : "/");
  sync();
  char dev[sizeof t->device];
  memcpy(dev, t->device, sizeof dev);
  char *argv[] = {"debugfs", "-R", req, dev, NULL};
  char *out = capture(argv);
  if (out == NULL) return -1;
  long r = -1;
  const char *ind = strstr(out, "(IND)");
  if (strstr(out, "EXTENTS:") != NULL) {
    r = -2;
  } else if (ind != NULL) {
    /* "(0-11):1234-1245, (IND):1246, ..." : the blocks listed before (IND). */
    const char *p = strstr(out, "BLOCKS:");
    long last = -1;
    while (p && (p = strchr(p, '(')) != NULL && p < ind) {
      long a = strtol(p + 1, NULL, 10);
      const char *dash = strchr(p, '-'), *close = strchr(p, ')');
      last = dash && close && dash < close ? strtol(dash + 1, NULL, 10) : a;
      p++;
    }
    r = last + 1;
  }
  free(out);
  return r;
}
