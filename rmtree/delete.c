/* rmtree's deletion engine (see delete.h). */
#include "delete.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "os_dir.h"
#include "os_stat.h"
#include "printable.h"

#define DENTS_BUF OS_DIR_BUF

struct frame {
  int fd;              /* -1 while closed (outside the descriptor window) */
  uint64_t dev, ino;   /* of this directory */
  uint64_t d_ino;      /* its inode number as the parent's entry lists it */
  char *name;          /* its name in the parent */
  char *buf;           /* directory entries not yet handled (os_dir.h), or NULL */
  size_t len, pos;
  int restarted;       /* reread from the start: skip entries known to stay */
  int failed;          /* something below stays */
  unsigned nerr;       /* entries of this directory that could not go */
  int first_errno;
  char *first_name;
};

struct walk {
  const struct rm_opts *o;
  struct rm_counts *c;
  const char *top;     /* DIR as given, for messages */
  struct frame *st;
  size_t depth, cap;
  size_t lowest_open;  /* frames below this index have their fd closed */
  unsigned max_open;
  char **pool;         /* spare directory buffers */
  size_t npool;
  uint64_t *skip;      /* open-addressing set of (dev ^ ino*K) keys that stay */
  size_t nskip, skipcap;
  unsigned tick;
};

static void oom(void) {
  fprintf(stderr, "rmtree: out of memory\n");
  exit(1);
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (q == NULL) oom();
  return q;
}

/* ---- entries that stay (so that a reread directory skips them) ---- */

static uint64_t skip_key(uint64_t dev, uint64_t ino) {
  uint64_t k = (ino * 0x9E3779B97F4A7C15ull) ^ (dev + 0x632BE59BD9B4E019ull);
  return k ? k : 1;
}

static void skip_add(struct walk *w, uint64_t dev, uint64_t ino) {
  if ((w->nskip + 1) * 2 > w->skipcap) {
    size_t cap = w->skipcap ? w->skipcap * 2 : 64;
    uint64_t *n = calloc(cap, sizeof *n);
    if (n == NULL) oom();
    for (size_t i = 0; i < w->skipcap; i++) {
      if (!w->skip[i]) continue;
      size_t j = w->skip[i] & (cap - 1);
      while (n[j]) j = (j + 1) & (cap - 1);
      n[j] = w->skip[i];
    }
    free(w->skip);
    w->skip = n;
    w->skipcap = cap;
  }
  uint64_t k = skip_key(dev, ino);
  size_t j = k & (w->skipcap - 1);
  while (w->skip[j] && w->skip[j] != k) j = (j + 1) & (w->skipcap - 1);
  if (!w->skip[j]) w->nskip++;
  w->skip[j] = k;
}

static int skip_has(const struct walk *w, uint64_t dev, uint64_t ino) {
  if (w->nskip == 0) return 0;
  uint64_t k = skip_key(dev, ino);
  size_t j = k & (w->skipcap - 1);
  while (w->skip[j]) {
    if (w->skip[j] == k) return 1;
    j = (j + 1) & (w->skipcap - 1);
  }
  return 0;
}

/* ---- messages ---- */

/* The path of frame index i (and optionally a name below it), for humans;
 * it may well be longer than PATH_MAX. */
/* A name from the filesystem, escaped (printable.h): a newline or ESC in
 * it must not forge a line or drive the terminal.  Any length, in pieces. */
static void put_name(const char *s) {
  char buf[PRINTABLE_SIZE(256)];
  for (size_t n = strlen(s); n > 0;) {
    size_t k = n < 256 ? n : 256;
    printable_n(buf, sizeof buf, s, k);
    fputs(buf, stderr);
    s += k;
    n -= k;
  }
}

static void print_path(const struct walk *w, size_t upto, const char *name) {
  put_name(w->top);
  for (size_t i = 1; i <= upto && i < w->depth; i++) {
    fputc('/', stderr);
    put_name(w->st[i].name);
  }
  if (name) {
    fputc('/', stderr);
    put_name(name);
  }
}

/* "rmtree: BEFORE'DIR'AFTER" and a newline, DIR escaped. */
static void say_dir(const char *before, const char *dir, const char *after, const char *err) {
  fprintf(stderr, "rmtree: %s'", before);
  put_name(dir);
  fprintf(stderr, "'%s%s%s\n", after, err ? ": " : "", err ? err : "");
}

/* An entry of the top frame could not be removed: remember it; the report
 * is one line per directory (end_dir_report). */
static void entry_failed(struct walk *w, struct frame *f, const char *name, uint64_t d_ino, int err) {
  w->c->errors++;
  f->failed = 1;
  skip_add(w, f->dev, d_ino);
  if (f->nerr++ == 0) {
    f->first_errno = err;
    f->first_name = strdup(name);
  }
}

static void end_dir_report(struct walk *w, struct frame *f) {
  if (f->nerr == 0) return;
  fputs("rmtree: cannot remove '", stderr);
  if (f->nerr == 1) {
    print_path(w, w->depth - 1, f->first_name ? f->first_name : "?");
    fprintf(stderr, "': %s\n", strerror(f->first_errno));
  } else {
    print_path(w, w->depth - 1, f->first_name ? f->first_name : "?");
    fprintf(stderr, "' and %u more entries there: %s\n", f->nerr - 1, strerror(f->first_errno));
  }
  free(f->first_name);
  f->first_name = NULL;
  f->nerr = 0;
}

/* ---- frames ---- */

static char *get_buf(struct walk *w) {
  if (w->npool) return w->pool[--w->npool];
  return xrealloc(NULL, DENTS_BUF);
}

static void put_buf(struct walk *w, struct frame *f) {
  if (f->buf == NULL) return;
  w->pool = xrealloc(w->pool, (w->npool + 1) * sizeof *w->pool);
  w->pool[w->npool++] = f->buf;
  f->buf = NULL;
  f->len = f->pos = 0;
}

static int stat_fd(int fd, uint64_t *dev, uint64_t *ino, int *mount_root) {
  return os_fd_id(fd, dev, ino, mount_root);
}

static void push(struct walk *w, int fd, uint64_t dev, uint64_t ino, uint64_t d_ino, const char *name) {
  if (w->depth == w->cap) {
    w->cap = w->cap ? w->cap * 2 : 64;
    w->st = xrealloc(w->st, w->cap * sizeof *w->st);
  }
  /* keep at most max_open directories open: close the shallowest */
  if (w->depth - w->lowest_open >= w->max_open) {
    struct frame *low = &w->st[w->lowest_open++];
    close(low->fd);
    low->fd = -1;
    put_buf(w, low);
  }
  struct frame *f = &w->st[w->depth++];
  memset(f, 0, sizeof *f);
  f->fd = fd;
  f->dev = dev;
  f->ino = ino;
  f->d_ino = d_ino;
  f->name = name ? strdup(name) : NULL;
  if (name && f->name == NULL) oom();
}

/* Next entry of the top frame, or NULL at its end. */
static int next_entry(struct walk *w, struct frame *f, struct os_dirent *d) {
  for (;;) {
    if (f->buf && os_dir_next(f->buf, f->len, &f->pos, d)) return 1;
    if (f->buf == NULL) f->buf = get_buf(w);
    long n = os_dir_read(f->fd, f->buf, DENTS_BUF);
    if (n <= 0) {
      if (n < 0) {
        fputs("rmtree: cannot read '", stderr);
        print_path(w, w->depth - 1, NULL);
        fprintf(stderr, "': %s\n", strerror(errno));
        w->c->errors++;
        f->failed = 1;
      }
      put_buf(w, f);
      return 0;
    }
    f->len = (size_t)n;
    f->pos = 0;
  }
}

/* Reopen the closed parent frame p from its child's descriptor. */
static int reopen_parent(struct walk *w, struct frame *p, int child_fd) {
  uint64_t dev, ino;
  int mr;
  int fd = openat(child_fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || stat_fd(fd, &dev, &ino, &mr) != 0 || dev != p->dev || ino != p->ino) {
    fputs("rmtree: '", stderr);
    print_path(w, w->depth - 1, NULL);
    fputs("' moved while being removed; stopping\n", stderr);
    if (fd >= 0) close(fd);
    return -1;
  }
  p->fd = fd;
  p->restarted = 1; /* its read position is lost: start over */
  w->lowest_open = (size_t)(p - w->st);
  return 0;
}

/* The top frame is fully read: close it and remove it from its parent. */
static int pop(struct walk *w) {
  struct frame *f = &w->st[w->depth - 1];
  end_dir_report(w, f);
  if (w->depth == 1) return 0; /* the caller removes DIR itself */
  struct frame *p = f - 1;
  if (p->fd < 0 && reopen_parent(w, p, f->fd) != 0) return -1;
  close(f->fd);
  put_buf(w, f);
  w->depth--;
  if (f->failed) {
    p->failed = 1;
    skip_add(w, p->dev, f->d_ino);
  } else if (unlinkat(p->fd, f->name, AT_REMOVEDIR) == 0) {
    w->c->dirs++;
  } else if (errno != ENOENT) {
    entry_failed(w, p, f->name, f->d_ino, errno);
  }
  free(f->name);
  return 0;
}

/* One directory entry of the top frame. */
static void handle_entry(struct walk *w, const struct os_dirent *d) {
  struct frame *f = &w->st[w->depth - 1];
  const char *name = d->name;
  if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) return;
  if (f->restarted && skip_has(w, f->dev, d->ino)) return;
  if ((++w->tick & 255) == 0 && w->o->tick) w->o->tick(w->o->tick_arg, w->c);
  int isdir = d->type == DT_DIR;
  if (d->type == DT_UNKNOWN) {
    struct stat st;
    if (fstatat(f->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) entry_failed(w, f, name, d->ino, errno);
      return;
    }
    isdir = S_ISDIR(st.st_mode);
  }
  if (!isdir) {
    if (unlinkat(f->fd, name, 0) == 0) {
      w->c->files++;
      return;
    }
    if (errno == ENOENT) return;
    if (errno != EISDIR) {
      entry_failed(w, f, name, d->ino, errno);
      return;
    }
  }
  int fd = openat(f->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOTDIR || errno == ELOOP) { /* replaced by a non-directory meanwhile */
      if (unlinkat(f->fd, name, 0) == 0) w->c->files++;
      else if (errno != ENOENT) entry_failed(w, f, name, d->ino, errno);
    } else if (errno != ENOENT) {
      entry_failed(w, f, name, d->ino, errno);
    }
    return;
  }
  uint64_t dev, ino;
  int mount_root;
  if (stat_fd(fd, &dev, &ino, &mount_root) != 0) {
    entry_failed(w, f, name, d->ino, errno);
    close(fd);
    return;
  }
  if ((dev != f->dev || mount_root) && !w->o->cross_mounts) {
    fputs("rmtree: '", stderr);
    print_path(w, w->depth - 1, name);
    fputs("' is a mount point, left alone (--cross-mounts to cross it)\n", stderr);
    w->c->errors++;
    f->failed = 1;
    skip_add(w, f->dev, d->ino);
    close(fd);
    return;
  }
  /* the rest of this directory's buffer waits; an empty buffer goes back */
  if (f->buf && f->pos >= f->len) put_buf(w, f);
  push(w, fd, dev, ino, d->ino, name);
}

/* Split DIR into the parent to open and the last component. */
static int split_path(const char *dir, char **parent, char **base) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  size_t b = n;
  while (b > 0 && dir[b - 1] != '/') b--;
  *base = strndup(dir + b, n - b);
  if (b == 0) *parent = strdup(".");
  else {
    size_t p = b;
    while (p > 1 && dir[p - 1] == '/') p--;
    *parent = strndup(dir, p);
  }
  return (*base && *parent) ? 0 : -1;
}

static int refuse(const char *dir, const char *why) {
  say_dir("refusing to remove ", dir, "", why);
  return 2;
}

int rm_tree(const char *dir, const struct rm_opts *o, struct rm_counts *c) {
  struct walk w;
  char *parent, *base;
  struct stat root, st;
  memset(&w, 0, sizeof w);
  w.o = o;
  w.c = c;
  w.top = dir;
  if (*dir == '\0') return refuse(dir, "empty path");
  if (split_path(dir, &parent, &base) != 0) oom();
  if (stat("/", &root) != 0) {
    fprintf(stderr, "rmtree: cannot stat /: %s\n", strerror(errno));
    return 2;
  }
  int rc = 2;
  int pfd = -1, fd = -1;
  if (*base == '\0' || strcmp(base, "/") == 0 || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
    rc = refuse(dir, (*base == '\0' || strcmp(base, "/") == 0) ? "it is the root directory" : "'.' and '..' are not removed");
    goto out;
  }
  pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pfd >= 0) fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (pfd >= 0 && fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
      say_dir("", dir, " is a symbolic link, not followed", NULL);
    else
      say_dir("cannot open ", dir, "", strerror(e));
    goto out;
  }
  if (fstat(fd, &st) != 0) {
    say_dir("cannot stat ", dir, "", strerror(errno));
    goto out;
  }
  if (st.st_dev == root.st_dev && st.st_ino == root.st_ino) {
    rc = refuse(dir, "it is the root directory");
    goto out;
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl); /* more open levels if allowed; fine if not */
  }
  w.max_open = o->max_open;
  if (w.max_open == 0) {
    rlim_t lim = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
    w.max_open = lim > 4096 + 16 ? 4096 : lim > 24 ? (unsigned)(lim - 16) : 8;
  }
  uint64_t dev, ino;
  int mr;
  if (stat_fd(fd, &dev, &ino, &mr) != 0) {
    say_dir("cannot stat ", dir, "", strerror(errno));
    goto out;
  }
  push(&w, fd, dev, ino, 0, NULL);
  fd = -1;
  rc = 0;
  while (w.depth > 0) {
    struct frame *f = &w.st[w.depth - 1];
    struct os_dirent d;
    if (next_entry(&w, f, &d)) {
      handle_entry(&w, &d);
      continue;
    }
    if (w.depth == 1) break;
    if (pop(&w) != 0) {
      rc = 1;
      break;
    }
  }
  if (w.depth >= 1) {
    struct frame *f = &w.st[0];
    if (rc == 0) end_dir_report(&w, f);
    int failed = rc != 0 || f->failed;
    for (size_t i = 0; i < w.depth; i++) {
      if (w.st[i].fd >= 0) close(w.st[i].fd);
      free(w.st[i].buf);
      free(w.st[i].name);
      free(w.st[i].first_name);
    }
    w.depth = 0;
    if (failed) {
      rc = 1;
    } else if (unlinkat(pfd, base, AT_REMOVEDIR) == 0) {
      c->dirs++;
    } else {
      say_dir("cannot remove ", dir, "", strerror(errno));
      c->errors++;
      rc = 1;
    }
  }
  if (o->tick) o->tick(o->tick_arg, c);
out:
  if (fd >= 0) close(fd);
  if (pfd >= 0) close(pfd);
  for (size_t i = 0; i < w.npool; i++) free(w.pool[i]);
  free(w.pool);
  free(w.st);
  free(w.skip);
  free(parent);
  free(base);
  return rc;
}
