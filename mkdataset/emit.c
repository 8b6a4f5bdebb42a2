#include "emit.h"

#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <fmt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "printable.h"
#include "prng.h"

#define CHUNK (64 * 1024)

/* A path escaped for a one-line message (printable.h). */
#define ESC(s) esc_path((char[PRINTABLE_SIZE(256)]){0}, PRINTABLE_SIZE(256), (s))
static const char *esc_path(char *buf, size_t cap, const char *s) {
  printable(buf, cap, s);
  return buf;
}

static const char *const tar_names[2] = {"layout.tar.gz", "update.tar.gz"};

/* What a run stopped before emit_close is through leaves behind, to be
 * removed: the .tmp outputs not renamed yet (live) and the directories
 * emit_open made (those of -o DIR from its byte `made` on), emptied.  The
 * exit and signal handlers that remove them take no argument: so this is
 * static, for the one emitter of a process. */
/* slots: the two tarballs (OUT_LAYOUT, OUT_UPDATE), then these */
enum { TMP_MANIFEST = 2, TMP_REQUESTS, TMP_INFO, TMP_FILES };
static struct {
  char tmp[TMP_FILES][4096];
  volatile sig_atomic_t live[TMP_FILES];
  char dir[4096];
  volatile sig_atomic_t made; /* -1: made none */
} leftover = {.made = -1};

/* Async-signal-safe: unlink, rmdir, no allocation. */
static void remove_leftovers(void) {
  for (int i = 0; i < TMP_FILES; i++)
    if (leftover.live[i]) {
      unlink(leftover.tmp[i]);
      leftover.live[i] = 0;
    }
  if (leftover.made < 0) return;
  char p[4096];
  size_t n = 0;
  while (n < sizeof p - 1 && leftover.dir[n]) n++;
  memcpy(p, leftover.dir, n);
  p[n] = '\0';
  /* deepest first; one still holding something (a file of the user's) stops it */
  for (size_t i = n; i > 0 && i >= (size_t)leftover.made; i--)
    if (i == n || p[i] == '/') {
      p[i] = '\0';
      if (rmdir(p) != 0 && errno != ENOENT) break;
    }
  leftover.made = -1;
}

static void on_signal(int sig) {
  int saved = errno;
  remove_leftovers();
  errno = saved;
  raise(sig); /* SA_RESETHAND: the default action, once this returns */
}

/* Removes the leftovers at exit (every die() exits) and on SIGINT, SIGTERM
 * and SIGHUP, unless they are ignored (nohup, a background job). */
static void leftovers_arm(const char *dir) {
  snprintf(leftover.dir, sizeof leftover.dir, "%s", dir);
  if (atexit(remove_leftovers) != 0) die(1, "atexit failed");
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction sa, old;
    if (sigaction(sigs[i], NULL, &old) != 0) diesys(1, "sigaction");
    if (old.sa_handler == SIG_IGN) continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sigs[i], &sa, NULL) != 0) diesys(1, "sigaction");
  }
}

/* Creates DIR/NAME.tmp, slot `slot` of the leftovers until it is renamed. */
static int open_tmp(const char *dir, const char *name, int slot) {
  char *p = leftover.tmp[slot];
  if (snprintf(p, sizeof leftover.tmp[slot], "%s/%s.tmp", dir, name) >= (int)sizeof leftover.tmp[slot]) {
    errno = ENAMETOOLONG;
    diesys(1, "cannot write ", ESC(dir));
  }
  int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) diesys(1, "cannot write ", ESC(p));
  leftover.live[slot] = 1;
  return fd;
}

static int gz_sink(void *ctx, const void *p, size_t n) { return gzw_write(ctx, p, n); }

static ssize_t write_op(int fd, const void *p, size_t n) {
  ssize_t w;
  do w = write(fd, p, n);
  while (w < 0 && errno == EINTR);
  return w;
}

/* mkdir -p; notes in the leftovers where it started making directories */
static void mkdirs(const char *dir) {
  char p[4096];
  size_t n = strlen(dir);
  if (n == 0 || n >= sizeof p) die(1, "bad output directory: ", ESC(dir));
  memcpy(p, dir, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] != '/' && p[i] != '\0') continue;
    char c = p[i];
    p[i] = '\0';
    if (mkdir(p, 0755) == 0) {
      if (leftover.made < 0) leftover.made = (sig_atomic_t)i;
    } else if (errno != EEXIST) {
      diesys(1, "cannot create ", ESC(p));
    }
    p[i] = c;
  }
}

void emit_open(struct emitter *e, const char *dir, uint64_t seed) {
  memset(e, 0, sizeof *e);
  e->dir = dir;
  e->seed = seed;
  e->level = 1;
  leftovers_arm(dir);
  mkdirs(dir);
  struct stat st;
  if (stat(dir, &st) != 0) diesys(1, "cannot use ", ESC(dir));
  if (!S_ISDIR(st.st_mode)) die(1, ESC(dir), ": not a directory");
  e->chunk = malloc(CHUNK);
  if (e->chunk == NULL) die(1, "out of memory");
  for (int i = 0; i < 2; i++) {
    struct emit_tar *t = &e->t[i];
    t->fd = open_tmp(dir, tar_names[i], i);
    if (gzw_open(&t->gz, t->fd, e->level) != 0) diesys(1, "gzip");
    tarw_init(&t->tar, gz_sink, &t->gz, EMIT_MTIME);
  }
  e->mfd = open_tmp(dir, "manifest.tsv", TMP_MANIFEST);
  e->rfd = open_tmp(dir, "requests.txt", TMP_REQUESTS);
  e->dfd = open_tmp(dir, "dataset.txt", TMP_INFO);
  buffer_init(&e->manifest, (ssize_t(*)())write_op, e->mfd, e->mbuf, sizeof e->mbuf);
  buffer_init(&e->requests, (ssize_t(*)())write_op, e->rfd, e->rbuf, sizeof e->rbuf);
  buffer_init(&e->info, (ssize_t(*)())write_op, e->dfd, e->ibuf, sizeof e->ibuf);
  buffer_puts(&e->manifest, "# path\tsize\tcrc32\n");
}

static void tar_fail(const struct emitter *e, int which) {
  diesys(1, "writing ", ESC(e->dir), "/", tar_names[which], ".tmp");
}

/* Directory entries for the parents of path not shared with the previous
 * entry's directory. */
static void parents(struct emitter *e, struct emit_tar *t, int which, const char *path) {
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) : 0;
  if (dlen >= sizeof t->prevdir) {
    errno = ENAMETOOLONG;
    tar_fail(e, which);
  }
  if (strlen(t->prevdir) == dlen && memcmp(t->prevdir, path, dlen) == 0) return;
  /* the whole components both directories share */
  size_t i = 0, common = 0;
  while (i < dlen && t->prevdir[i] != '\0' && t->prevdir[i] == path[i]) {
    if (path[i] == '/') common = i;
    i++;
  }
  if (i == dlen && (t->prevdir[i] == '\0' || t->prevdir[i] == '/')) common = dlen;
  else if (t->prevdir[i] == '\0' && i > 0 && path[i] == '/') common = i;
  char d[4096];
  for (size_t k = common + 1; k <= dlen; k++) {
    if (k == dlen || path[k] == '/') {
      memcpy(d, path, k);
      d[k] = '\0';
      if (tarw_dir(&t->tar, d) != 0) tar_fail(e, which);
      t->dirs++;
    }
  }
  memcpy(t->prevdir, path, dlen);
  t->prevdir[dlen] = '\0';
}

struct content {
  struct rng r;
  uint64_t size, pos;
};

static void content_init(struct content *c, uint64_t seed, uint64_t key, unsigned version,
                         uint64_t size) {
  rng_seed(&c->r, key3(seed, key, 0x1000 + version));
  c->size = size;
  c->pos = 0;
}

static void patch(unsigned char *p, uint64_t pos, size_t n, uint64_t at, unsigned char v) {
  if (at >= pos && at - pos < n) p[at - pos] = v;
}

/* The next n bytes (n a multiple of 8 but for the last chunk). */
static void content_next(struct content *c, unsigned char *p, size_t n) {
  rng_fill(&c->r, p, n);
  if (c->size >= 4) {
    patch(p, c->pos, n, 0, 0xff);
    patch(p, c->pos, n, 1, 0xd8);
    patch(p, c->pos, n, c->size - 2, 0xff);
    patch(p, c->pos, n, c->size - 1, 0xd9);
  }
  c->pos += n;
}

/* Generates the content of (key, version, size) and returns its crc32; with
 * t, also streams it into that tarball. */
static uint32_t content_stream(const struct emitter *e, uint64_t size, uint64_t key,
                               unsigned version, struct emit_tar *t, int which) {
  struct content c;
  content_init(&c, e->seed, key, version, size);
  uLong crc = crc32(0L, Z_NULL, 0);
  while (c.pos < size) {
    size_t n = size - c.pos > CHUNK ? CHUNK : (size_t)(size - c.pos);
    content_next(&c, e->chunk, n);
    crc = crc32(crc, e->chunk, (uInt)n);
    if (t && tarw_data(&t->tar, e->chunk, n) != 0) tar_fail(e, which);
  }
  return (uint32_t)crc;
}

uint32_t emit_crc(const struct emitter *e, uint64_t size, uint64_t key, unsigned version) {
  return content_stream(e, size, key, version, NULL, 0);
}

uint32_t emit_file(struct emitter *e, int which, const char *path, uint64_t size, uint64_t key,
                   unsigned version) {
  struct emit_tar *t = &e->t[which];
  if (which == OUT_LAYOUT) parents(e, t, which, path);
  if (tarw_file(&t->tar, path, size) != 0) tar_fail(e, which);
  uint32_t crc = content_stream(e, size, key, version, t, which);
  t->files++;
  t->bytes += size;
  return crc;
}

static void put_or_die(struct emitter *e, buffer *b, const char *what, const char *s, size_t n) {
  if (buffer_put(b, s, n) != 0) diesys(1, "writing ", ESC(e->dir), "/", what, ".tmp");
}

void emit_manifest(struct emitter *e, const char *path, uint64_t size, uint32_t crc) {
  char line[4096 + 64];
  size_t n = strlen(path);
  if (n > 4096) die(1, "path too long: ", ESC(path));
  memcpy(line, path, n);
  line[n++] = '\t';
  n += fmt_ulonglong(line + n, size);
  line[n++] = '\t';
  char hex[8];
  size_t h = fmt_xlong(hex, crc);
  for (size_t i = h; i < 8; i++) line[n++] = '0';
  memcpy(line + n, hex, h);
  n += h;
  line[n++] = '\n';
  put_or_die(e, &e->manifest, "manifest.tsv", line, n);
}

uint64_t emit_file_need(uint64_t size, uint64_t pathlen) {
  return 512 + (size + 511) / 512 * 512 + pathlen + 32;
}

void emit_request(struct emitter *e, const char *path) {
  static const char hex[] = "0123456789ABCDEF";
  char line[3 * 4096 + 4];
  size_t n = 0;
  line[n++] = '/';
  for (const unsigned char *p = (const unsigned char *)path; *p && n < sizeof line - 4; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        strchr("/-._~!$&'()*+,;=:@", *p)) {
      line[n++] = (char)*p;
    } else {
      line[n++] = '%';
      line[n++] = hex[*p >> 4];
      line[n++] = hex[*p & 15];
    }
  }
  line[n++] = '\n';
  put_or_die(e, &e->requests, "requests.txt", line, n);
  e->requests_n++;
}

void emit_info(struct emitter *e, const char *key, const char *value) {
  if (buffer_putm(&e->info, key, "\t", value, "\n") != 0)
    diesys(1, "writing ", ESC(e->dir), "/dataset.txt.tmp");
}

void emit_info_u64(struct emitter *e, const char *key, uint64_t value) {
  char num[FMT_ULONG + 8];
  num[fmt_ulonglong(num, value)] = '\0';
  emit_info(e, key, num);
}

static void finish_fd(struct emitter *e, int fd, const char *name, int slot) {
  if (fsync(fd) != 0 && errno != EINVAL) diesys(1, "writing ", ESC(e->dir), "/", name, ".tmp");
  if (close(fd) != 0) diesys(1, "writing ", ESC(e->dir), "/", name, ".tmp");
  char from[4096], to[4096];
  snprintf(from, sizeof from, "%s/%s.tmp", e->dir, name);
  snprintf(to, sizeof to, "%s/%s", e->dir, name);
  if (rename(from, to) != 0) diesys(1, "cannot rename ", ESC(from));
  leftover.live[slot] = 0;
}

void emit_close(struct emitter *e) {
  for (int i = 0; i < 2; i++) {
    struct emit_tar *t = &e->t[i];
    if (tarw_finish(&t->tar) != 0 || gzw_close(&t->gz) != 0) tar_fail(e, i);
    finish_fd(e, t->fd, tar_names[i], i);
  }
  emit_info_u64(e, "layout_gz_bytes", e->t[OUT_LAYOUT].gz.packed);
  emit_info_u64(e, "update_gz_bytes", e->t[OUT_UPDATE].gz.packed);
  if (buffer_flush(&e->manifest) != 0) diesys(1, "writing ", ESC(e->dir), "/manifest.tsv.tmp");
  if (buffer_flush(&e->requests) != 0) diesys(1, "writing ", ESC(e->dir), "/requests.txt.tmp");
  if (buffer_flush(&e->info) != 0) diesys(1, "writing ", ESC(e->dir), "/dataset.txt.tmp");
  finish_fd(e, e->mfd, "manifest.tsv", TMP_MANIFEST);
  finish_fd(e, e->rfd, "requests.txt", TMP_REQUESTS);
  finish_fd(e, e->dfd, "dataset.txt", TMP_INFO);
  leftover.made = -1; /* a complete dataset: its directory stays */
  free(e->chunk);
  e->chunk = NULL;
}
