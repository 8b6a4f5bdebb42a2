#include "tar_header.h"

#include <string.h>

/* Offsets of the POSIX ustar header fields. */
enum {
  OFF_NAME = 0, LEN_NAME = 100,
  OFF_MODE = 100, OFF_UID = 108, OFF_GID = 116,
  OFF_SIZE = 124, OFF_MTIME = 136, OFF_CHKSUM = 148,
  OFF_TYPE = 156, OFF_LINK = 157, LEN_LINK = 100,
  OFF_MAGIC = 257, OFF_PREFIX = 345, LEN_PREFIX = 155,
};

int tar_num(const unsigned char *f, size_t len, int allow_neg, int64_t *out) {
  if (len == 0) return -1;
  if (f[0] & 0x80) {
    /* base-256: two's complement big-endian; 0x80 positive, 0xff negative */
    int neg = f[0] == 0xff;
    if (!neg && f[0] != 0x80) return -1;
    if (neg && !allow_neg) return -1;
    uint64_t v = neg ? UINT64_MAX : 0;
    for (size_t i = 1; i < len; i++) {
      if (!neg && (v >> 56) != 0) return -1;
      if (neg && (v >> 56) != 0xff) return -1;
      v = (v << 8) | f[i];
    }
    if (!neg && v > (uint64_t)INT64_MAX) return -1;
    *out = (int64_t)v;
    if (neg && *out >= 0) return -1;
    return 0;
  }
  size_t i = 0;
  while (i < len && f[i] == ' ') i++;
  uint64_t v = 0;
  int digits = 0;
  for (; i < len && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
    if (v >> 60) return -1;
    v = v * 8 + (uint64_t)(f[i] - '0');
  }
  /* the rest may only be NULs or spaces */
  for (; i < len; i++)
    if (f[i] != ' ' && f[i] != '\0') return -1;
  if (v > (uint64_t)INT64_MAX) return -1;
  (void)digits; /* an empty field reads as 0, as GNU tar does */
  *out = (int64_t)v;
  return 0;
}

static int num_u(const unsigned char *blk, int off, size_t len, uint64_t *out) {
  int64_t v;
  if (tar_num(blk + off, len, 0, &v) != 0) return -1;
  *out = (uint64_t)v;
  return 0;
}

enum tar_hdr_status tar_hdr_parse(const unsigned char blk[TAR_BLOCK], struct tar_hdr *h) {
  uint64_t usum = 0;
  int64_t ssum = 0;
  int zero = 1;
  for (int i = 0; i < TAR_BLOCK; i++) {
    unsigned char c = (i >= OFF_CHKSUM && i < OFF_CHKSUM + 8) ? ' ' : blk[i];
    if (blk[i]) zero = 0;
    usum += c;
    ssum += (signed char)c;
  }
  if (zero) return TAR_HDR_ZERO;
  int64_t stored;
  if (tar_num(blk + OFF_CHKSUM, 8, 0, &stored) != 0) return TAR_HDR_CHECKSUM;
  if ((uint64_t)stored != usum && stored != ssum) return TAR_HDR_CHECKSUM;

  memset(h, 0, sizeof *h);
  h->type = blk[OFF_TYPE] ? (char)blk[OFF_TYPE] : '0';
  h->ustar = memcmp(blk + OFF_MAGIC, "ustar\0", 6) == 0;
  int64_t mt;
  if (num_u(blk, OFF_MODE, 8, &h->mode) || num_u(blk, OFF_UID, 8, &h->uid) ||
      num_u(blk, OFF_GID, 8, &h->gid) || num_u(blk, OFF_SIZE, 12, &h->size) ||
      tar_num(blk + OFF_MTIME, 12, 1, &mt))
    return TAR_HDR_FIELD;
  h->mtime = mt;
  return TAR_HDR_OK;
}

static size_t field_len(const unsigned char *f, size_t max) {
  const void *z = memchr(f, 0, max);
  return z ? (size_t)((const unsigned char *)z - f) : max;
}

int tar_hdr_name(const unsigned char blk[TAR_BLOCK], const struct tar_hdr *h, char *out,
                 size_t cap) {
  size_t nl = field_len(blk + OFF_NAME, LEN_NAME);
  size_t pl = h->ustar ? field_len(blk + OFF_PREFIX, LEN_PREFIX) : 0;
  size_t total = nl + (pl ? pl + 1 : 0);
  if (total + 1 > cap) return -1;
  size_t o = 0;
  if (pl) {
    memcpy(out, blk + OFF_PREFIX, pl);
    out[pl] = '/';
    o = pl + 1;
  }
  memcpy(out + o, blk + OFF_NAME, nl);
  out[total] = '\0';
  return (int)total;
}

void tar_hdr_linkname(const unsigned char blk[TAR_BLOCK], char *out) {
  size_t l = field_len(blk + OFF_LINK, LEN_LINK);
  memcpy(out, blk + OFF_LINK, l);
  out[l] = '\0';
}

int tar_pax_time(const char *s, int64_t *sec, long *nsec) {
  int neg = 0;
  if (*s == '-') {
    neg = 1;
    s++;
  }
  if (*s < '0' || *s > '9') return -1;
  int64_t v = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (v > (INT64_MAX - 9) / 10) return -1;
    v = v * 10 + (*s - '0');
  }
  long ns = 0;
  if (*s == '.') {
    s++;
    int d = 0;
    for (; *s >= '0' && *s <= '9'; s++, d++)
      if (d < 9) ns = ns * 10 + (*s - '0');
    for (; d < 9; d++) ns *= 10;
  }
  if (*s != '\0') return -1;
  if (neg && ns) { /* -1.25 is 2 s before ... .75 */
    v = v + 1;
    ns = 1000000000L - ns;
  }
  *sec = neg ? -v : v;
  *nsec = ns;
  return 0;
}

static int pax_u64(const char *s, uint64_t *out) {
  uint64_t v = 0;
  if (*s == '\0') return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10) return -1;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  *out = v;
  return 0;
}

int tar_pax_parse(char *buf, size_t len, struct tar_pax *p) {
  size_t i = 0;
  while (i < len) {
    /* a trailing run of NULs (some writers pad) ends the records */
    if (buf[i] == '\0') break;
    size_t rl = 0, j = i;
    while (j < len && buf[j] >= '0' && buf[j] <= '9') {
      rl = rl * 10 + (size_t)(buf[j] - '0');
      if (rl > len) return -1;
      j++;
    }
    if (j == i || j >= len || buf[j] != ' ' || rl < (j - i) + 3 || i + rl > len) return -1;
    char *key = buf + j + 1;
    char *end = buf + i + rl - 1; /* the record's '\n' */
    if (*end != '\n') return -1;
    char *eq = memchr(key, '=', (size_t)(end - key));
    if (eq == NULL || eq == key) return -1;
    *eq = '\0';
    *end = '\0';
    const char *val = eq + 1;
    if (*val == '\0') { /* an empty value falls back to the header's */
      i += rl;
      continue;
    }
    if (strcmp(key, "path") == 0) {
      p->path = val;
    } else if (strcmp(key, "linkpath") == 0) {
      p->linkpath = val;
    } else if (strcmp(key, "size") == 0) {
      if (pax_u64(val, &p->size)) return -1;
      p->has_size = 1;
    } else if (strcmp(key, "mtime") == 0) {
      if (tar_pax_time(val, &p->mtime, &p->mtime_ns)) return -1;
      p->has_mtime = 1;
    } else if (strcmp(key, "uid") == 0) {
      if (pax_u64(val, &p->uid)) return -1;
      p->has_uid = 1;
    } else if (strcmp(key, "gid") == 0) {
      if (pax_u64(val, &p->gid)) return -1;
      p->has_gid = 1;
    } else if (strncmp(key, "GNU.sparse.", 11) == 0) {
      p->sparse = 1;
    }
    i += rl;
  }
  return 0;
}
