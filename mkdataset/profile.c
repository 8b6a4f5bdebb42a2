#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define PROFILE_MAX (64 * 1024)
#define MICRO 1000000

int parse_micro(const char *s, uint64_t max_micro, uint64_t *out) {
  uint64_t ip = 0, frac = 0;
  int digits = 0, any = 0;
  for (; *s >= '0' && *s <= '9'; s++, any = 1) {
    ip = ip * 10 + (uint64_t)(*s - '0');
    if (ip > 1000000000ULL) return -1;
  }
  if (*s == '.') {
    for (s++; *s >= '0' && *s <= '9'; s++, any = 1) {
      if (++digits > 6) return -1;
      frac = frac * 10 + (uint64_t)(*s - '0');
    }
  }
  if (!any || *s != '\0') return -1;
  for (; digits < 6; digits++) frac *= 10;
  uint64_t v = ip * MICRO + frac;
  if (v > max_micro) return -1;
  *out = v;
  return 0;
}

enum kind { K_INT, K_MICRO, K_NAME };
struct key {
  const char *name;
  enum kind kind;
  size_t off;
  uint64_t min, max; /* for K_MICRO: in millionths */
  int required;
};

#define F(m) offsetof(struct profile, m)
static const struct key keys[] = {
    {"name", K_NAME, F(name), 0, 0, 0},
    {"photos", K_INT, F(photos), 1, 1ULL << 28, 1},
    {"full.median", K_INT, F(full.median), 1, 1ULL << 36, 1},
    {"full.spread", K_MICRO, F(full.spread_micro), 0, 8 * MICRO, 1},
    {"full.min", K_INT, F(full.min), 0, 1ULL << 36, 0},
    {"full.max", K_INT, F(full.max), 0, 1ULL << 36, 0},
    {"thumb.median", K_INT, F(thumb.median), 1, 1ULL << 36, 1},
    {"thumb.spread", K_MICRO, F(thumb.spread_micro), 0, 8 * MICRO, 1},
    {"thumb.min", K_INT, F(thumb.min), 0, 1ULL << 36, 0},
    {"thumb.max", K_INT, F(thumb.max), 0, 1ULL << 36, 0},
    {"fanout", K_INT, F(fanout), 1, 256, 0},
    {"levels", K_INT, F(levels), 0, 3, 0},
    {"huge.dirs", K_INT, F(huge_dirs), 0, 1000, 0},
    {"huge.photos", K_INT, F(huge_photos), 0, 1ULL << 28, 0},
    {"requests", K_INT, F(requests), 0, 0xffffffffULL, 1},
    {"zipf", K_MICRO, F(zipf_micro), 0, 3 * MICRO, 0},
    {"update.replace", K_MICRO, F(replace_micro), 0, MICRO, 0},
    {"update.new", K_INT, F(new_photos), 0, 1ULL << 28, 0},
};
#undef F
#define NKEYS (sizeof keys / sizeof keys[0])

static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static void defaults(struct profile *p, const char *fname) {
  memset(p, 0, sizeof *p);
  const char *base = strrchr(fname, '/');
  base = base ? base + 1 : fname;
  size_t n = strcspn(base, ".");
  if (n >= sizeof p->name) n = sizeof p->name - 1;
  memcpy(p->name, base, n);
  p->fanout = 256;
  p->levels = 1;
  p->zipf_micro = MICRO;
  p->full.max = p->thumb.max = UINT64_MAX; /* then: 16 x median */
  p->full.min = p->thumb.min = UINT64_MAX; /* then: 64 bytes */
}

static int set_value(struct profile *p, const struct key *k, const char *v, const char *where,
                     char *err, size_t errlen) {
  uint64_t x;
  if (k->kind == K_NAME) {
    size_t n = strlen(v);
    if (n == 0 || n >= sizeof p->name || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
      return fail(err, errlen, "%s: %s: want letters, digits, '.', '_' or '-' (got '%s')", where, k->name, v);
    memcpy(p->name, v, n + 1);
    return 0;
  }
  if (k->kind == K_INT) {
    if (parse_u64(v, k->max, &x) != 0 || x < k->min)
      return fail(err, errlen, "%s: %s: want a whole number from %llu to %llu (got '%s')", where,
                  k->name, (unsigned long long)k->min, (unsigned long long)k->max, v);
  } else if (parse_micro(v, k->max, &x) != 0) {
    return fail(err, errlen, "%s: %s: want a decimal number from 0 to %g (got '%s')", where, k->name,
                (double)k->max / MICRO, v);
  }
  memcpy((char *)p + k->off, &x, sizeof x);
  return 0;
}

static int check_dist(struct sizedist *d, const char *fname, const char *kind, char *err,
                      size_t errlen) {
  if (d->min == UINT64_MAX) d->min = d->median < 64 ? d->median : 64;
  if (d->max == UINT64_MAX) d->max = d->median * 16;
  if (d->min > d->median || d->median > d->max)
    return fail(err, errlen, "%s: %s.min <= %s.median <= %s.max does not hold", fname, kind, kind,
                kind);
  return 0;
}

int profile_parse(struct profile *p, const char *buf, size_t len, const char *fname, char *err,
                  size_t errlen) {
  uint32_t seen = 0;
  char line[512], where[600];
  size_t pos = 0;
  defaults(p, fname);
  for (unsigned lineno = 1; pos < len; lineno++) {
    size_t end = pos;
    while (end < len && buf[end] != '\n') end++;
    size_t n = end - pos;
    snprintf(where, sizeof where, "%s:%u", fname, lineno);
    if (n >= sizeof line) return fail(err, errlen, "%s: line too long", where);
    memcpy(line, buf + pos, n);
    line[n] = '\0';
    pos = end + 1;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *save = NULL;
    char *key = strtok_r(line, " \t\r", &save);
    if (key == NULL) continue;
    char *val = strtok_r(NULL, " \t\r", &save);
    char *extra = strtok_r(NULL, " \t\r", &save);
    size_t i;
    for (i = 0; i < NKEYS && strcmp(keys[i].name, key) != 0; i++) {
    }
    if (i == NKEYS) return fail(err, errlen, "%s: %s: unknown key", where, key);
    if (val == NULL) return fail(err, errlen, "%s: %s: missing value", where, key);
    if (extra) return fail(err, errlen, "%s: %s: one value expected (extra '%s')", where, key, extra);
    if (seen & (1u << i)) return fail(err, errlen, "%s: %s: given twice", where, key);
    seen |= 1u << i;
    if (set_value(p, &keys[i], val, where, err, errlen) != 0) return -1;
  }
  for (size_t i = 0; i < NKEYS; i++)
    if (keys[i].required && !(seen & (1u << i)))
      return fail(err, errlen, "%s: %s: missing (required key)", fname, keys[i].name);
  if (check_dist(&p->full, fname, "full", err, errlen) || check_dist(&p->thumb, fname, "thumb", err, errlen))
    return -1;
  uint64_t dirs = 1;
  for (uint64_t l = 0; l < p->levels; l++) dirs *= p->fanout;
  if (dirs > (1u << 24)) return fail(err, errlen, "%s: fanout^levels above 16777216 directories", fname);
  if (p->huge_dirs * p->huge_photos > p->photos)
    return fail(err, errlen, "%s: huge.dirs x huge.photos exceeds photos", fname);
  if ((p->photos + p->new_photos) * 2 > 0x7fffffffULL)
    return fail(err, errlen, "%s: photos + update.new: too many files", fname);
  return 0;
}

int profile_load(struct profile *p, const char *path, char *err, size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(err, errlen, "%s: %s", path, strerror(errno));
  char *buf = malloc(PROFILE_MAX);
  if (buf == NULL) {
    close(fd);
    return fail(err, errlen, "%s: out of memory", path);
  }
  size_t len = 0;
  for (;;) {
    ssize_t r = read(fd, buf + len, PROFILE_MAX - len);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int e = errno;
      close(fd);
      free(buf);
      return fail(err, errlen, "%s: %s", path, strerror(e));
    }
    if (r == 0) break;
    len += (size_t)r;
    if (len == PROFILE_MAX) {
      close(fd);
      free(buf);
      return fail(err, errlen, "%s: larger than %d bytes: not a profile", path, PROFILE_MAX);
    }
  }
  close(fd);
  int rc = profile_parse(p, buf, len, path, err, errlen);
  free(buf);
  return rc;
}
