#include "safe_path.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os_beneath.h"
#include "os_open.h"

static const char *SYMLINK_WAY = "path goes through a symlink";

/* The next component of *p that is not "." (skipping slashes): its start,
 * length in *len, and whether it is ".." in *dotdot; NULL at the end. */
static const char *next_comp(const char **p, size_t *len, int *dotdot) {
  for (;;) {
    const char *s = *p;
    while (*s == '/') s++;
    if (!*s) return NULL;
    const char *e = s;
    while (*e && *e != '/') e++;
    *p = e;
    *len = (size_t)(e - s);
    if (*len == 1 && s[0] == '.') continue;
    *dotdot = *len == 2 && s[0] == '.' && s[1] == '.';
    return s;
  }
}

int sp_normalize(const char *in, char *out, size_t cap, const char **why) {
  size_t o = 0;
  if (in[0] == '/') {
    *why = "absolute path";
    return -1;
  }
  const char *p = in, *s;
  size_t l;
  int dotdot;
  while ((s = next_comp(&p, &l, &dotdot)) != NULL) {
    if (dotdot) {
      *why = "'..' in path";
      return -1;
    }
    if (o + (o ? 1 : 0) + l + 1 > cap) {
      *why = "name too long";
      return -1;
    }
    if (o) out[o++] = '/';
    memcpy(out + o, s, l);
    o += l;
  }
  out[o] = '\0';
  return (int)o;
}

int sp_depth(const char *norm) {
  if (*norm == '\0') return 0;
  int n = 1;
  for (; *norm; norm++)
    if (*norm == '/') n++;
  return n;
}

int sp_symlink_ok(const char *target, int parent_depth, const char **why) {
  if (*target == '\0') {
    *why = "empty symlink target";
    return -1;
  }
  if (*target == '/') {
    *why = "symlink to an absolute path";
    return -1;
  }
  int up = 0, named = 0, dotdot;
  const char *p = target;
  size_t l;
  while (next_comp(&p, &l, &dotdot) != NULL) {
    if (dotdot) {
      if (named) {
        *why = "symlink target has '..' after a name";
        return -1;
      }
      if (++up > parent_depth) {
        *why = "symlink points outside the directory";
        return -1;
      }
    } else {
      named = 1;
    }
  }
  return 0;
}

int sp_entry_ok(int dirfd, const char *leaf, int parent_depth, const char **why) {
  struct stat st;
  *why = NULL;
  if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) return -1;
  if (!S_ISLNK(st.st_mode)) return 0;
  char target[SP_PATHMAX];
  ssize_t n = readlinkat(dirfd, leaf, target, sizeof target);
  if (n < 0) return -1;
  if ((size_t)n == sizeof target) {
    *why = "symlink target too long";
    return -1;
  }
  target[n] = '\0';
  return sp_symlink_ok(target, parent_depth, why);
}

void sp_init(struct sp_dirs *d, int rootfd, mode_t dirmode) {
  d->root = rootfd;
  d->n = 0;
  d->cur[0] = '\0';
  d->dirmode = dirmode;
}

static void truncate_to(struct sp_dirs *d, int k) {
  while (d->n > k) close(d->fds[--d->n]);
  d->cur[k ? d->ends[k - 1] : 0] = '\0';
}

void sp_close(struct sp_dirs *d) { truncate_to(d, 0); }

/* Open directory name in dirfd without following a symlink; optionally
 * create it first.  Sets *why for a symlink. */
static int open_dir(int dirfd, const char *name, int create, mode_t mode, const char **why) {
  for (int tries = 0; tries < 2; tries++) {
    int fd = os_open_dir_at(dirfd, name);
    if (fd >= 0) return fd;
    int e = errno;
    if (e == ENOENT && create && tries == 0) {
      if (mkdirat(dirfd, name, mode) != 0 && errno != EEXIST) return -1;
      continue;
    }
    if (e == ELOOP) *why = SYMLINK_WAY; /* os_open_dir_at: NAME is a symlink */
    errno = e;
    return -1;
  }
  errno = ENOENT;
  return -1;
}

/* Copy component [s, e) into buf as a C string. */
static int comp(char *buf, size_t cap, const char *s, const char *e) {
  size_t l = (size_t)(e - s);
  if (l + 1 > cap) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(buf, s, l);
  buf[l] = '\0';
  return 0;
}

int sp_parent(struct sp_dirs *d, const char *norm, const char **leaf, const char **why) {
  const char *slash = strrchr(norm, '/');
  *leaf = slash ? slash + 1 : norm;
  size_t plen = slash ? (size_t)(slash - norm) : 0;
  if (plen + 1 > sizeof d->cur) {
    errno = ENAMETOOLONG;
    return -1;
  }
  /* how many cached components are a prefix of the new parent */
  int k = 0;
  size_t start = 0;
  while (k < d->n) {
    size_t end = d->ends[k];
    if (end > plen || (end < plen && norm[end] != '/') ||
        memcmp(d->cur + start, norm + start, end - start) != 0)
      break;
    start = end + 1;
    k++;
  }
  truncate_to(d, k);
  size_t pos = k ? d->ends[k - 1] + 1 : 0;
  char name[4096];
  while (pos < plen) {
    const char *s = norm + pos;
    const char *e = memchr(s, '/', plen - pos);
    if (e == NULL) e = norm + plen;
    if (d->n == SP_MAXDEPTH) {
      *why = "path too deep";
      errno = ENAMETOOLONG;
      return -1;
    }
    if (comp(name, sizeof name, s, e) != 0) return -1;
    int fd = open_dir(d->n ? d->fds[d->n - 1] : d->root, name, 1, d->dirmode, why);
    if (fd < 0) return -1;
    size_t end = (size_t)(e - norm);
    memcpy(d->cur + pos, s, end - pos);
    if (pos) d->cur[pos - 1] = '/';
    d->cur[end] = '\0';
    d->fds[d->n] = fd;
    d->ends[d->n] = end;
    d->n++;
    pos = end + 1;
  }
  return d->n ? d->fds[d->n - 1] : d->root;
}

int sp_walk(int rootfd, const char *norm, const char **leaf, const char **why) {
  const char *slash = strrchr(norm, '/');
  *leaf = slash ? slash + 1 : norm;
  const char *end = slash ? slash : norm;
  int fd = rootfd;
  char name[4096];
  if (slash != NULL) { /* the kernel refuses any symlink at once, where it can */
    char parent[SP_PATHMAX];
    if (comp(parent, sizeof parent, norm, slash) != 0) return -1;
    fd = os_open_dir_nolinks(rootfd, parent);
    if (fd >= 0) return fd;
    if (errno == ELOOP) *why = SYMLINK_WAY;
    if (errno != ENOSYS) return -1;
    fd = rootfd; /* none here: the walk */
  }
  const char *s = norm;
  while (s < end) {
    const char *e = memchr(s, '/', (size_t)(end - s));
    if (e == NULL) e = end;
    int nfd = -1;
    if (comp(name, sizeof name, s, e) == 0) nfd = open_dir(fd, name, 0, 0, why);
    int err = errno;
    if (fd != rootfd) close(fd);
    if (nfd < 0) {
      errno = err;
      return -1;
    }
    fd = nfd;
    s = e + 1;
  }
  return fd;
}
