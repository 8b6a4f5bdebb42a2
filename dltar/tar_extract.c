#include "tar_extract.h"

#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "printable.h"
#include "safe_path.h"
#include "tar_header.h"

#define TX_BUF (256 * 1024)
#define META_MAX (1 << 20)
#define RECORD 10240          /* tar writers pad the archive to a record */
#define TAIL_MAX (1u << 20)   /* gzip data read past the end looking for the member's end */

/* One entry as the pax / GNU records and its header describe it. */
struct entry {
  char type;
  mode_t mode;
  uid_t uid;
  gid_t gid;
  uint64_t size;
  struct timespec mtime;
  char *name;     /* as in the archive (for messages) */
  char *link;
};

struct tx {
  struct gz *g;
  const struct tx_opts *o;
  struct tx_stats *st;
  int root;
  const struct tx_input *in; /* NULL: read g here */
  const char *cur; /* the bytes at hand: own, or the input's chunk */
  char *own;       /* TX_BUF bytes */
  size_t pos, len;
  uint64_t base; /* archive offset of cur[0] */
  struct sp_dirs dirs;
  char *meta;
  size_t metacap;
  /* pending overrides for the next entry */
  int has_path, has_link;
  struct tar_pax pax;
  char path[SP_PATHMAX], linkpath[SP_PATHMAX];
  /* the current entry */
  char hname[SP_PATHMAX], hlink[SP_PATHMAX];
  char norm[SP_PATHMAX], lnorm[SP_PATHMAX];
  /* deferred directory metadata: records of struct dirrec + path + NUL */
  char *dd;
  size_t ddlen, ddcap;
  /* untrusted strings escaped for a message (printable()) */
  char pm[2][PRINTABLE_SIZE(SP_PATHMAX)];
};

struct dirrec {
  size_t next; /* length of this record */
  mode_t mode;
  uid_t uid;
  gid_t gid;
  struct timespec mtime;
};

static void sample(struct tx *t) {
  if (t->o->series == NULL) return;
  double now = now_mono();
  if (!series_due(t->o->series, now)) return;
  series_put(t->o->series, now, "tool_bytes", (double)t->st->bytes);
  series_put(t->o->series, now, "tool_files", (double)t->st->files);
}

/* Up to cap bytes of the archive into dst (a copy when the input hands
 * out chunks: only for a header split between two chunks). */
static size_t pull(struct tx *t, char *dst, size_t cap) {
  if (t->in == NULL) return (size_t)gz_read(t->g, dst, cap);
  const char *p;
  size_t r = t->in->next(t->in->ctx, &p);
  if (r > cap) die(1, "internal error: input chunk too large");
  memcpy(dst, p, r);
  return r;
}

/* Make at least n bytes available at cur+pos; 0 at the end of input. */
static int need(struct tx *t, size_t n) {
  if (t->len - t->pos >= n) return 1;
  size_t k = t->len - t->pos;
  memmove(t->own, t->cur + t->pos, k);
  t->base += t->pos;
  t->cur = t->own;
  t->len = k;
  t->pos = 0;
  while (t->len < n) {
    size_t r = pull(t, t->own + t->len, TX_BUF - t->len);
    if (r == 0) return 0;
    t->len += r;
  }
  sample(t);
  return 1;
}

/* Bytes available now (reads when the buffer is used up); 0 at the end.
 * Chunks of a tx_input are used in place. */
static size_t avail(struct tx *t) {
  if (t->pos == t->len) {
    t->base += t->len;
    t->pos = t->len = 0;
    if (t->in) {
      t->len = t->in->next(t->in->ctx, &t->cur);
    } else {
      t->cur = t->own;
      t->len = (size_t)gz_read(t->g, t->own, TX_BUF);
    }
    sample(t);
  }
  return t->len - t->pos;
}

/* s escaped for a message, in buffer i (0 or 1) of t. */
static const char *P(struct tx *t, int i, const char *s) {
  printable(t->pm[i], sizeof t->pm[i], s);
  return t->pm[i];
}

static void truncated(struct tx *t, const char *name, uint64_t missing) {
  char m[24];
  snprintf(m, sizeof m, "%llu", (unsigned long long)missing);
  die(1, P(t, 0, name), ": truncated archive (", m, " bytes of data missing)");
}

static uint64_t padded(uint64_t size) { return (size + TAR_BLOCK - 1) & ~(uint64_t)(TAR_BLOCK - 1); }

/* Skip n bytes of the archive. */
static void skip(struct tx *t, const char *name, uint64_t n) {
  while (n) {
    size_t a = avail(t);
    if (a == 0) truncated(t, name, n);
    if (a > n) a = (size_t)n;
    t->pos += a;
    n -= a;
  }
}

/* Read a pax / GNU long-name record of size bytes into t->meta. */
static size_t read_meta(struct tx *t, uint64_t size, const char *what) {
  if (size >= META_MAX) die(1, what, " record too large");
  if (size + 1 > t->metacap) {
    char *m = realloc(t->meta, (size_t)size + 1);
    if (m == NULL) diesys(1, what, " record");
    t->meta = m;
    t->metacap = (size_t)size + 1;
  }
  size_t got = 0;
  while (got < size) {
    size_t a = avail(t);
    if (a == 0) truncated(t, what, size - got);
    if (a > size - got) a = (size_t)(size - got);
    memcpy(t->meta + got, t->cur + t->pos, a);
    t->pos += a;
    got += a;
  }
  t->meta[size] = '\0';
  skip(t, what, padded(size) - size);
  return (size_t)size;
}

static void set_str(struct tx *t, char *dst, const char *src, size_t n, const char *what) {
  if (n + 1 > SP_PATHMAX) die(1, P(t, 0, what), ": name too long");
  memcpy(dst, src, n);
  dst[n] = '\0';
}

static void refuse(struct tx *t, const char *name, const char *why) {
  die(1, P(t, 0, name), ": refused: ", why);
}

/* Remove whatever is at leaf so that it can be created anew. */
static void remove_existing(struct tx *t, int pfd, const char *leaf, const char *name) {
  if (unlinkat(pfd, leaf, 0) == 0 || errno == ENOENT) return;
  if ((errno == EISDIR || errno == EPERM) && unlinkat(pfd, leaf, AT_REMOVEDIR) == 0) return;
  diesys(1, P(t, 0, name), ": cannot replace the existing entry");
}

static int parent_of(struct tx *t, struct entry *e, const char **leaf) {
  const char *why = NULL;
  int pfd = sp_parent(&t->dirs, t->norm, leaf, &why);
  if (pfd < 0) {
    if (why) refuse(t, e->name, why);
    diesys(1, P(t, 0, e->name));
  }
  return pfd;
}

static void write_all(struct tx *t, int fd, const char *p, size_t n, const char *name) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) diesys(1, P(t, 0, name));
    p += w;
    n -= (size_t)w;
  }
}

static void do_file(struct tx *t, struct entry *e) {
  const char *leaf;
  int pfd = parent_of(t, e, &leaf);
  mode_t perm = e->mode & (t->o->same_owner ? 07777 : 0777);
  int fd;
  while ((fd = openat(pfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, perm)) < 0) {
    if (errno != EEXIST) diesys(1, P(t, 0, e->name));
    remove_existing(t, pfd, leaf, e->name);
  }
  uint64_t left = e->size;
  while (left) {
    size_t a = avail(t);
    if (a == 0) truncated(t, e->name, left);
    if (a > left) a = (size_t)left;
    write_all(t, fd, t->cur + t->pos, a, e->name);
    t->pos += a;
    left -= a;
    t->st->bytes += a;
  }
  if (t->o->same_owner) {
    if (fchown(fd, e->uid, e->gid) != 0) diesys(1, P(t, 0, e->name), ": chown");
    if ((perm & 06000) && fchmod(fd, perm) != 0) diesys(1, P(t, 0, e->name), ": chmod");
  }
  struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, e->mtime};
  if (futimens(fd, ts) != 0) diesys(1, P(t, 0, e->name), ": set mtime");
  if (close(fd) != 0) diesys(1, P(t, 0, e->name));
  skip(t, e->name, padded(e->size) - e->size);
  t->st->files++;
}

static void defer_dir(struct tx *t, struct entry *e) {
  size_t pl = strlen(t->norm);
  size_t rl = (sizeof(struct dirrec) + pl + 1 + 7) & ~(size_t)7;
  if (t->ddlen + rl > t->ddcap) {
    size_t cap = t->ddcap ? t->ddcap * 2 : 65536;
    while (cap < t->ddlen + rl) cap *= 2;
    char *n = realloc(t->dd, cap);
    if (n == NULL) diesys(1, P(t, 0, e->name));
    t->dd = n;
    t->ddcap = cap;
  }
  struct dirrec r = {.next = rl, .mode = e->mode & 07777, .uid = e->uid, .gid = e->gid,
                     .mtime = e->mtime};
  if (!t->o->same_owner) r.mode &= 0777;
  memcpy(t->dd + t->ddlen, &r, sizeof r);
  memcpy(t->dd + t->ddlen + sizeof r, t->norm, pl + 1);
  t->ddlen += rl;
}

static void do_dir(struct tx *t, struct entry *e) {
  if (t->norm[0] == '\0') return; /* "./": the -C directory itself is left alone */
  const char *leaf;
  int pfd = parent_of(t, e, &leaf);
  mode_t m = (e->mode & 0777) | 0700;
  while (mkdirat(pfd, leaf, m) != 0) {
    struct stat sb;
    if (errno != EEXIST) diesys(1, P(t, 0, e->name));
    if (fstatat(pfd, leaf, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode)) break;
    remove_existing(t, pfd, leaf, e->name);
  }
  defer_dir(t, e);
  t->st->dirs++;
}

static void do_symlink(struct tx *t, struct entry *e) {
  const char *why, *leaf;
  if (sp_symlink_ok(e->link, sp_depth(t->norm) - 1, &why) != 0) refuse(t, e->name, why);
  int pfd = parent_of(t, e, &leaf);
  while (symlinkat(e->link, pfd, leaf) != 0) {
    if (errno != EEXIST) diesys(1, P(t, 0, e->name));
    remove_existing(t, pfd, leaf, e->name);
  }
  if (t->o->same_owner && fchownat(pfd, leaf, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) != 0)
    diesys(1, P(t, 0, e->name), ": chown");
  struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, e->mtime};
  if (utimensat(pfd, leaf, ts, AT_SYMLINK_NOFOLLOW) != 0) diesys(1, P(t, 0, e->name), ": set mtime");
  t->st->links++;
}

/* A hard link to a symlink copies the symlink into another directory,
 * where its relative target may climb out of DIR: the copy must pass the
 * symlink rule at its new depth.  Checks the entry at dfd/leaf. */
static void link_check(struct tx *t, struct entry *e, int dfd, const char *leaf, int made) {
  const char *why = NULL;
  if (sp_entry_ok(dfd, leaf, sp_depth(t->norm) - 1, &why) == 0) return;
  int err = errno;
  if (made && unlinkat(dfd, leaf, 0) != 0 && errno != ENOENT) /* leave no escaping link */
    diesys(1, P(t, 0, e->name), ": cannot remove the refused hard link");
  if (why) die(1, P(t, 0, e->name), ": refused: hard link to a symlink: ", why);
  errno = err;
  diesys(1, P(t, 0, e->name), ": hard link target ", P(t, 1, e->link));
}

static void do_hardlink(struct tx *t, struct entry *e) {
  const char *why = NULL, *leaf, *tleaf;
  int l = sp_normalize(e->link, t->lnorm, sizeof t->lnorm, &why);
  if (l < 0) refuse(t, e->name, why);
  if (l == 0) refuse(t, e->name, "hard link to the directory itself");
  if (strcmp(t->lnorm, t->norm) != 0) {
    int tfd = sp_walk(t->root, t->lnorm, &tleaf, &why);
    if (tfd < 0) {
      if (why) refuse(t, e->name, why);
      diesys(1, P(t, 0, e->name), ": hard link target ", P(t, 1, e->link));
    }
    link_check(t, e, tfd, tleaf, 0); /* the target, before anything is replaced */
    int pfd = parent_of(t, e, &leaf);
    while (linkat(tfd, tleaf, pfd, leaf, 0) != 0) {
      if (errno != EEXIST) diesys(1, P(t, 0, e->name), ": hard link to ", P(t, 1, e->link));
      remove_existing(t, pfd, leaf, e->name);
    }
    if (tfd != t->root) close(tfd);
    link_check(t, e, pfd, leaf, 1); /* what was linked, had the target changed since */
  }
  skip(t, e->name, padded(e->size)); /* pax allows data on hard links */
  t->st->links++;
}

/* Apply directory modes and mtimes, the last directory first, after all
 * their contents were written. */
static void finish_dirs(struct tx *t) {
  size_t n = 0;
  for (size_t off = 0; off < t->ddlen; off += ((struct dirrec *)(void *)(t->dd + off))->next) n++;
  if (n == 0) return;
  size_t *offs = malloc(n * sizeof *offs);
  if (offs == NULL) diesys(1, "directory list");
  n = 0;
  for (size_t off = 0; off < t->ddlen; off += ((struct dirrec *)(void *)(t->dd + off))->next)
    offs[n++] = off;
  while (n) {
    struct dirrec *r = (struct dirrec *)(void *)(t->dd + offs[--n]);
    const char *path = (const char *)(r + 1), *leaf, *why = NULL;
    int pfd = sp_walk(t->root, path, &leaf, &why);
    if (pfd < 0) continue; /* replaced by a later entry */
    int fd = openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (pfd != t->root) close(pfd);
    if (fd < 0) continue;
    if (t->o->same_owner && fchown(fd, r->uid, r->gid) != 0) diesys(1, P(t, 0, path), ": chown");
    if (fchmod(fd, r->mode) != 0) diesys(1, P(t, 0, path), ": chmod");
    struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, r->mtime};
    if (futimens(fd, ts) != 0) diesys(1, P(t, 0, path), ": set mtime");
    close(fd);
  }
  free(offs);
}

static void die_at(struct tx *t, uint64_t off, const char *what) {
  char o[24];
  snprintf(o, sizeof o, "%llu", (unsigned long long)off);
  die(1, t->g->name, ": ", what, " at offset ", o);
}

/* A pax 'x' record, or a GNU 'L'/'K' long name: remember for the next entry. */
static void pending(struct tx *t, char type, uint64_t size, uint64_t hoff) {
  size_t n = read_meta(t, size, type == 'x' ? "pax header" : "GNU long name");
  if (type == 'x') {
    memset(&t->pax, 0, sizeof t->pax);
    if (tar_pax_parse(t->meta, n, &t->pax) != 0) die_at(t, hoff, "malformed pax header");
    if (t->pax.sparse) die_at(t, hoff, "sparse file (GNU.sparse) not supported");
    if (t->pax.path) {
      set_str(t, t->path, t->pax.path, strlen(t->pax.path), t->pax.path);
      t->has_path = 1;
    }
    if (t->pax.linkpath) {
      set_str(t, t->linkpath, t->pax.linkpath, strlen(t->pax.linkpath), t->pax.linkpath);
      t->has_link = 1;
    }
    t->pax.path = t->pax.linkpath = NULL; /* they point into meta */
  } else if (type == 'L') {
    set_str(t, t->path, t->meta, strnlen(t->meta, n), "GNU long name");
    t->has_path = 1;
  } else {
    set_str(t, t->linkpath, t->meta, strnlen(t->meta, n), "GNU long link");
    t->has_link = 1;
  }
}

static void entry(struct tx *t, const unsigned char *blk, const struct tar_hdr *h, uint64_t hoff) {
  struct entry e = {.type = h->type, .mode = (mode_t)h->mode, .uid = (uid_t)h->uid,
                    .gid = (gid_t)h->gid, .size = h->size, .mtime = {.tv_sec = h->mtime}};
  if (t->has_path) {
    e.name = t->path;
  } else {
    if (tar_hdr_name(blk, h, t->hname, sizeof t->hname) < 0) die_at(t, hoff, "bad name");
    e.name = t->hname;
  }
  if (t->has_link) {
    e.link = t->linkpath;
  } else {
    tar_hdr_linkname(blk, t->hlink);
    e.link = t->hlink;
  }
  if (t->pax.has_size) e.size = t->pax.size;
  if (t->pax.has_mtime) e.mtime = (struct timespec){t->pax.mtime, t->pax.mtime_ns};
  if (t->pax.has_uid) e.uid = (uid_t)t->pax.uid;
  if (t->pax.has_gid) e.gid = (gid_t)t->pax.gid;
  t->has_path = t->has_link = 0;
  memset(&t->pax, 0, sizeof t->pax);
  t->pos += TAR_BLOCK; /* blk is not used past this point */

  const char *why = NULL;
  size_t nl = strlen(e.name);
  if (e.type == 'V') { /* a volume label: nothing to extract */
    skip(t, e.name, padded(e.size));
    return;
  }
  if (sp_normalize(e.name, t->norm, sizeof t->norm, &why) < 0) refuse(t, e.name, why);
  if ((e.type == '0' || e.type == '7') && nl && e.name[nl - 1] == '/') e.type = '5';
  if (t->norm[0] == '\0' && e.type != '5' && e.type != 'D') refuse(t, e.name, "not a directory name");
  switch (e.type) {
  case '0': case '7': do_file(t, &e); break;
  case '1': do_hardlink(t, &e); break;
  case '2': do_symlink(t, &e); skip(t, e.name, padded(e.size)); break;
  case '5': case 'D': do_dir(t, &e); skip(t, e.name, padded(e.size)); break;
  case '3': case '4': case '6':
    carp(P(t, 0, e.name), ": skipped (device or fifo)");
    t->st->skipped++;
    skip(t, e.name, padded(e.size));
    break;
  case 'S': case 'M': case 'N':
    die(1, P(t, 0, e.name), ": unsupported entry type (sparse, multi-volume or old GNU)");
  default: {
    char ty[2] = {e.type, 0};
    carp(P(t, 0, e.name), ": unknown entry type '", P(t, 1, ty), "', extracted as a regular file");
    do_file(t, &e);
  }
  }
}

/* After the end-of-archive blocks: read the rest of the tar record (plain)
 * or to the end of the gzip member (its CRC checked), and no further, so
 * that a source that never ends does not keep dltar reading.  Says what it
 * saw and ignored: padding that is not zero, bytes past the record, raw
 * input read ahead past the gzip member. */
static void end_of_archive(struct tx *t) {
  struct gz *g = t->g;
  if (t->in) t->in->stop(t->in->ctx);
  else gz_stop_after_member(g);
  int gz = gz_is_gzip(g), junk = 0;
  uint64_t end = t->base + t->pos, rec = (end + RECORD - 1) / RECORD * RECORD, at;
  for (;;) { /* non-zero bytes in the padding make all of it junk */
    for (size_t i = t->pos; i < t->len && t->base + i < rec && !junk; i++) junk = t->cur[i] != 0;
    t->pos = t->len;
    at = t->base + t->len;
    if (gz ? at - end >= TAIL_MAX : at >= rec) break;
    if (avail(t) == 0) break;
  }
  if (t->in) t->in->settle(t->in->ctx); /* g is ours to look at from here */
  char n[24];
  if (gz && !gz_member_ended(g)) {
    snprintf(n, sizeof n, "%llu", (unsigned long long)(at - end));
    carp(g->name, ": stopped reading ", n, " bytes after the end of the archive: the gzip "
         "stream goes on (its CRC was not checked)");
    return;
  }
  uint64_t ignored = (junk ? (at < rec ? at : rec) - end : 0) + (at > rec ? at - rec : 0) +
                     gz_unconsumed(g);
  if (ignored == 0) return;
  snprintf(n, sizeof n, "%llu", (unsigned long long)ignored);
  int ended = g->in_eof || (g->map && g->mapoff == g->maplen);
  carp(g->name, ": ignored ", n, " bytes after the end of the archive",
       ended ? "" : " and stopped reading there");
}

void tar_extract(struct gz *g, int rootfd, const struct tx_opts *o, struct tx_stats *st) {
  struct tx *t = calloc(1, sizeof *t);
  if (t == NULL || (t->own = malloc(TX_BUF)) == NULL) diesys(1, "out of memory");
  t->cur = t->own;
  t->in = o->in;
  t->g = g;
  t->o = o;
  t->st = st;
  t->root = rootfd;
  sp_init(&t->dirs, rootfd, o->dirmode);
  int zeros = 0;
  for (;;) {
    if (!need(t, TAR_BLOCK)) {
      if (t->len > t->pos) die_at(t, t->base + t->pos, "truncated archive (partial header)");
      die(1, g->name, ": truncated archive (no end-of-archive marker)");
    }
    const unsigned char *blk = (const unsigned char *)t->cur + t->pos;
    uint64_t hoff = t->base + t->pos;
    struct tar_hdr h;
    enum tar_hdr_status s = tar_hdr_parse(blk, &h);
    if (s == TAR_HDR_ZERO) {
      t->pos += TAR_BLOCK;
      if (++zeros == 2) break;
      continue;
    }
    if (zeros) die_at(t, hoff - TAR_BLOCK, "lone zero block");
    if (s == TAR_HDR_CHECKSUM) die_at(t, hoff, "bad header checksum");
    if (s == TAR_HDR_FIELD) die_at(t, hoff, "bad numeric field in header");
    if (h.type == 'x' || h.type == 'L' || h.type == 'K') {
      t->pos += TAR_BLOCK;
      pending(t, h.type, h.size, hoff);
    } else if (h.type == 'g') { /* global pax header: nothing we use */
      t->pos += TAR_BLOCK;
      skip(t, "pax global header", padded(h.size));
    } else {
      entry(t, blk, &h, hoff);
    }
  }
  end_of_archive(t);
  finish_dirs(t);
  sample(t);
  sp_close(&t->dirs);
  free(t->dd);
  free(t->meta);
  free(t->own);
  free(t);
}
