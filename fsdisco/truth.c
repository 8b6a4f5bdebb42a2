/* What the system itself states about a filesystem, to set beside what
 * fsdisco discovers: statfs, st_blksize, the mount table, the read-ahead
 * setting in sysfs, MemAvailable (through os_fs.h and os_cache.h), and
 * dumpe2fs / xfs_info / debugfs when they are installed. */
#include "fsdisco.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os_cache.h"
#include "os_fs.h"

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

void truth_gather(const char *dir, struct truth *t) {
  struct stat st;
  struct os_mount m;
  memset(t, 0, sizeof *t);
  t->extents = -1;
  t->f_bsize = os_fs_bsize(dir);
  if (stat(dir, &st) != 0) return;
  t->st_blksize = (uint64_t)st.st_blksize;
  if (os_fs_mount(dir, &m) == 0) {
    snprintf(t->mnt, sizeof t->mnt, "%s", m.mnt);
    snprintf(t->fstype, sizeof t->fstype, "%s", m.fstype);
    snprintf(t->device, sizeof t->device, "%s", m.device);
  }
  t->ra_kb = os_fs_readahead_kb(dir);
  t->mem_available = os_mem_available();
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
