/* A dataset from a real capture: LIST holds "path size" lines (the final
 * tree, in the order the layout tarball takes), LOG an access log in Common
 * or Combined Log Format.  Requests are the log's GET lines with status 200
 * or 304 whose path is in LIST; the update replaces the first
 * ceil(share x files) distinct files the log hits, in first-hit order (same
 * size, new content).  Memory: 8 bytes per listed file plus 32 per update
 * file; the paths themselves are never held (an error naming two lines
 * reads the list again to find the other one). */
#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <fmt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "fixmath.h"
#include "mkdataset.h"
#include "printable.h"
#include "prng.h"

#define LINE_MAX_LEN 8192

struct lines {
  const char *name;
  int fd;
  char buf[65536];
  size_t start, end;
  uint64_t off;      /* file offset of buf[start] */
  uint64_t lineno;
  uint64_t line_off; /* file offset of the line last returned */
};

/* A file name escaped for a one-line message (printable.h). */
#define ESC(s) esc_name((char[PRINTABLE_SIZE(256)]){0}, PRINTABLE_SIZE(256), (s))
static const char *esc_name(char *buf, size_t cap, const char *s) {
  printable(buf, cap, s);
  return buf;
}

/* "LIST:LINE" for a message. */
#define AT(list, lineno) at_line((char[PRINTABLE_SIZE(256) + FMT_ULONG + 1]){0}, (list), (lineno))
static const char *at_line(char *buf, const char *list, uint64_t lineno) {
  size_t n = printable(buf, PRINTABLE_SIZE(256), list);
  buf[n++] = ':';
  buf[n + fmt_ulonglong(buf + n, lineno)] = '\0';
  return buf;
}

static void lines_open(struct lines *l, const char *name) {
  memset(l, 0, sizeof *l);
  l->name = name;
  l->fd = open(name, O_RDONLY | O_CLOEXEC);
  if (l->fd < 0) diesys(1, "cannot read ", ESC(name));
}

/* The next line without its newline (NUL-terminated in place), or NULL. */
static char *lines_next(struct lines *l, size_t *len) {
  for (;;) {
    char *s = l->buf + l->start;
    size_t avail = l->end - l->start;
    char *nl = memchr(s, '\n', avail);
    if (nl == NULL && l->fd < 0 && avail > 0) nl = l->buf + l->end; /* last, unterminated */
    if (nl) {
      *nl = '\0';
      *len = (size_t)(nl - s);
      size_t adv = *len + 1 > avail ? avail : *len + 1;
      l->line_off = l->off;
      l->lineno++;
      l->off += adv;
      l->start += adv;
      return s;
    }
    if (l->fd < 0) return NULL;
    if (avail >= LINE_MAX_LEN) die(1, AT(l->name, l->lineno + 1), ": line longer than 8192 bytes");
    memmove(l->buf, s, avail);
    l->start = 0;
    l->end = avail;
    ssize_t r = read(l->fd, l->buf + l->end, sizeof l->buf - 1 - l->end);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) diesys(1, "cannot read ", ESC(l->name));
    if (r == 0) {
      close(l->fd);
      l->fd = -1;
    }
    l->end += (size_t)r;
  }
}

static void lines_close(struct lines *l) {
  if (l->fd >= 0) close(l->fd);
  l->fd = -1;
}

static void line_die(const char *name, uint64_t lineno, const char *what) {
  die(1, AT(name, lineno), ": ", what);
}

/* Splits "path size" (LEN bytes at S, which may hold a NUL) in place;
 * returns 0, 1 for a blank/comment line. */
static int list_entry(const char *name, uint64_t lineno, char *s, size_t len, char **path, uint64_t *size) {
  while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t')) s[--len] = '\0';
  if (len == 0 || s[0] == '#') return 1;
  const char *nul = memchr(s, '\0', len);
  size_t sp = len;
  while (sp && s[sp - 1] != ' ' && s[sp - 1] != '\t') sp--;
  if (nul && nul < s + sp) line_die(name, lineno, "NUL byte in path");
  if (sp == 0) line_die(name, lineno, "want 'path size'");
  if (nul || parse_u64(s + sp, 1ULL << 40, size) != 0) line_die(name, lineno, "size: not a whole number");
  while (sp && (s[sp - 1] == ' ' || s[sp - 1] == '\t')) sp--;
  s[sp] = '\0';
  while (s[0] == '/' || (s[0] == '.' && s[1] == '/')) s += s[0] == '/' ? 1 : 2;
  if (*s == '\0' || *s == '.') line_die(name, lineno, "path: empty, or starting with '.'");
  if (strlen(s) > 4000) line_die(name, lineno, "path: longer than 4000 bytes");
  for (char *c = s; *c; c++) {
    if (*c == '/' && (c[1] == '/' || c[1] == '\0')) line_die(name, lineno, "path: empty component");
    if ((c == s || c[-1] == '/') && c[0] == '.' && (c[1] == '/' || c[1] == '\0' || (c[1] == '.' && (c[2] == '/' || c[2] == '\0'))))
      line_die(name, lineno, "path: '.' or '..' component");
  }
  *path = s;
  return 0;
}

/* The next file of an open list: 1 with its path and size, 0 at the end. */
static int list_next(struct lines *l, char **path, uint64_t *size) {
  char *s;
  size_t len;
  while ((s = lines_next(l, &len)) != NULL)
    if (list_entry(l->name, l->lineno, s, len, path, size) == 0) return 1;
  return 0;
}

/* The line number of the listed file number K (from 0) of LIST, its path
 * copied to PATH (CAP bytes; the list's paths are at most 4000). */
static uint64_t list_find(const char *list, uint64_t k, char *path, size_t cap) {
  struct lines l;
  char *p;
  uint64_t size;
  lines_open(&l, list);
  for (uint64_t i = 0; list_next(&l, &p, &size); i++)
    if (i == k) {
      snprintf(path, cap, "%s", p);
      lines_close(&l);
      return l.lineno;
    }
  die(1, ESC(list), ": changed while read");
  return 0;
}

static uint64_t path_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return mix64(h);
}

struct index {
  struct vec64 e; /* hash bits | file number, sorted */
  unsigned bits;  /* bits of the file number */
};

static int64_t index_find(const struct index *ix, const char *path) {
  uint64_t mask = (1ULL << ix->bits) - 1, h = path_hash(path) & ~mask;
  size_t lo = 0, hi = ix->e.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint64_t v = ix->e.v[mid] & ~mask;
    if (v == h) return (int64_t)(ix->e.v[mid] & mask);
    if (v < h) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

static void build_index(struct index *ix, const char *list) {
  struct lines l;
  struct vec64 h = {0};
  char *path;
  uint64_t size;
  lines_open(&l, list);
  while (list_next(&l, &path, &size)) vec64_push(&h, path_hash(path));
  lines_close(&l);
  if (h.n == 0) die(1, ESC(list), ": no files listed");
  ix->bits = 1;
  while ((1ULL << ix->bits) < h.n) ix->bits++;
  uint64_t mask = (1ULL << ix->bits) - 1;
  for (size_t i = 0; i < h.n; i++) h.v[i] = (h.v[i] & ~mask) | i;
  qsort(h.v, h.n, sizeof *h.v, cmp_u64);
  for (size_t i = 1; i < h.n; i++)
    if ((h.v[i] & ~mask) == (h.v[i - 1] & ~mask)) {
      char p[4096];
      uint64_t first = list_find(list, h.v[i - 1] & mask, p, sizeof p);
      uint64_t again = list_find(list, h.v[i] & mask, p, sizeof p);
      die(1, AT(list, again), ": the same path as ", AT(list, first));
    }
  ix->e = h;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  c |= 0x20;
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The decoded path (no leading slash) of a qualifying log line, or NULL. */
static char *log_path(char *s, char *out, size_t cap) {
  char *q = strchr(s, '"');
  if (q == NULL) return NULL;
  char *end = strchr(q + 1, '"');
  if (end == NULL || strncmp(q + 1, "GET ", 4) != 0) return NULL;
  *end = '\0';
  char *target = q + 5, *sp = strchr(target, ' ');
  if (sp) *sp = '\0';
  char *st = end + 1;
  while (*st == ' ') st++;
  if (!((strncmp(st, "200", 3) == 0 || strncmp(st, "304", 3) == 0) && (st[3] == ' ' || st[3] == '\0')))
    return NULL;
  if (strncmp(target, "http://", 7) == 0 || strncmp(target, "https://", 8) == 0) {
    target = strchr(strstr(target, "//") + 2, '/');
    if (target == NULL) return NULL;
  }
  target[strcspn(target, "?#")] = '\0';
  while (*target == '/') target++;
  size_t n = 0;
  for (char *c = target; *c; c++) {
    if (n + 1 >= cap) return NULL;
    if (c[0] == '%' && hexval(c[1]) >= 0 && hexval(c[2]) >= 0) {
      out[n++] = (char)(hexval(c[1]) * 16 + hexval(c[2]));
      c += 2;
    } else {
      out[n++] = *c;
    }
  }
  out[n] = '\0';
  return n && memchr(out, '\0', n) == NULL ? out : NULL;
}

/* requests.txt from the log; the update's file numbers in first-hit order. */
static void scan_log(struct emitter *e, const struct index *ix, const char *log, size_t cap,
                     struct vec64 *upd, struct totals *t) {
  struct lines l;
  char *s, path[LINE_MAX_LEN];
  size_t len;
  unsigned char *seen = calloc(ix->e.n / 8 + 1, 1);
  if (seen == NULL) die(1, "out of memory");
  lines_open(&l, log);
  while ((s = lines_next(&l, &len)) != NULL) {
    t->log_lines++;
    char *p = log_path(s, path, sizeof path);
    int64_t i = p ? index_find(ix, p) : -1;
    if (i < 0) {
      t->log_skipped++;
      continue;
    }
    emit_request(e, p);
    t->requests++;
    if (seen[i / 8] & (1u << (i % 8))) continue;
    seen[i / 8] |= (unsigned char)(1u << (i % 8));
    t->distinct++;
    if (upd->n < cap) vec64_push(upd, (uint64_t)i);
  }
  lines_close(&l);
  free(seen);
}

uint64_t capture_need(const char *list) {
  struct lines l;
  char *path;
  uint64_t size, need = 4096;
  lines_open(&l, list);
  while (list_next(&l, &path, &size)) need += emit_file_need(size, strlen(path));
  lines_close(&l);
  return need;
}

/* Dies when a parent directory of PATH (line LINENO of LIST) is a listed
 * file: the tarball would make a directory of it.  PREVDIR (4096 bytes)
 * holds the directory of the path checked before, whose parents were
 * checked then. */
static void check_parents(const struct index *ix, const char *list, uint64_t lineno, char *path,
                          char *prevdir) {
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) : 0;
  if (strlen(prevdir) == dlen && memcmp(prevdir, path, dlen) == 0) return;
  for (char *c = strchr(path, '/'); c != NULL; c = strchr(c + 1, '/')) {
    *c = '\0';
    int64_t k = index_find(ix, path);
    char file[4096];
    /* the same hash is not always the same path: look at the listed one */
    uint64_t at = k >= 0 ? list_find(list, (uint64_t)k, file, sizeof file) : 0;
    *c = '/';
    if (k >= 0 && strlen(file) == (size_t)(c - path) && memcmp(file, path, (size_t)(c - path)) == 0)
      die(1, AT(list, lineno), ": '", ESC(path), "' is under '", ESC(file), "', which ", AT(list, at),
          " lists as a file");
  }
  memcpy(prevdir, path, dlen);
  prevdir[dlen] = '\0';
}

void run_capture(struct emitter *e, const char *list, const char *log, uint64_t share_micro,
                 struct totals *t) {
  struct index ix;
  build_index(&ix, list);
  size_t cap = (size_t)(((unsigned __int128)ix.e.n * share_micro + MICRO - 1) / MICRO);
  struct vec64 upd = {0};
  scan_log(e, &ix, log, cap, &upd, t);
  t->update_hit = upd.n;

  /* file number -> update rank, sorted, and each update file's line offset
   * and number */
  struct vec64 rank = {0};
  for (size_t r = 0; r < upd.n; r++) vec64_push(&rank, upd.v[r] << 32 | r);
  if (rank.n) qsort(rank.v, rank.n, sizeof *rank.v, cmp_u64); /* empty: v is NULL */
  uint64_t *off = calloc(2 * (upd.n + 1), sizeof *off);
  if (off == NULL) die(1, "out of memory");

  struct lines l;
  char *path, prevdir[4096] = "";
  size_t next = 0;
  uint64_t size, idx = 0;
  lines_open(&l, list);
  while (list_next(&l, &path, &size)) {
    check_parents(&ix, list, l.lineno, path, prevdir);
    uint32_t crc = emit_file(e, OUT_LAYOUT, path, size, idx, 0);
    t->layout_files++;
    t->layout_bytes += size;
    if (next < rank.n && rank.v[next] >> 32 == idx) {
      uint64_t r = rank.v[next] & 0xffffffffULL;
      off[2 * r] = l.line_off;
      off[2 * r + 1] = l.lineno;
      crc = emit_crc(e, size, idx, 1);
      next++;
    }
    emit_manifest(e, path, size, crc);
    t->files++;
    t->bytes += size;
    idx++;
  }
  lines_close(&l);
  free(ix.e.v);

  int fd = open(list, O_RDONLY | O_CLOEXEC);
  if (fd < 0) diesys(1, "cannot read ", ESC(list));
  for (size_t r = 0; r < upd.n; r++) {
    char buf[LINE_MAX_LEN + 1];
    ssize_t n = pread(fd, buf, LINE_MAX_LEN, (off_t)off[2 * r]);
    if (n <= 0) diesys(1, "cannot read ", ESC(list), " again");
    buf[n] = '\0';
    char *nl = memchr(buf, '\n', (size_t)n);
    if (nl) *nl = '\0';
    if (list_entry(list, off[2 * r + 1], buf, nl ? (size_t)(nl - buf) : (size_t)n, &path, &size) != 0)
      die(1, AT(list, off[2 * r + 1]), ": changed while read");
    emit_file(e, OUT_UPDATE, path, size, upd.v[r], 1);
    t->update_files++;
    t->update_replaced++;
    t->update_bytes += size;
  }
  close(fd);
  free(off);
  free(rank.v);
  free(upd.v);
}
