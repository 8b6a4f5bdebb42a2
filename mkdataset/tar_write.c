#include "tar_write.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define OCTAL_SIZE_MAX 077777777777ULL /* 11 octal digits */

static const unsigned char zeros[512];

void tarw_init(struct tarw *t, tar_sink put, void *ctx, uint64_t mtime) {
  memset(t, 0, sizeof *t);
  t->put = put;
  t->ctx = ctx;
  t->mtime = mtime;
}

static void octal(unsigned char *field, size_t width, uint64_t v) {
  /* width-1 digits, zero-padded, then NUL */
  field[width - 1] = '\0';
  for (size_t i = width - 1; i-- > 0;) {
    field[i] = (unsigned char)('0' + (v & 7));
    v >>= 3;
  }
}

/* Where to cut path into prefix/name, or 0 when it cannot be. */
static size_t ustar_split(const char *path, size_t len) {
  for (size_t i = 1; i < len && i <= 155; i++)
    if (path[i] == '/' && len - i - 1 <= 100 && len - i - 1 > 0) return i;
  return 0;
}

int tar_ustar_header(unsigned char blk[512], const char *path, char type, uint64_t size,
                     unsigned mode, uint64_t mtime) {
  int needs_pax = 0;
  size_t len = strlen(path);
  memset(blk, 0, 512);
  if (len <= 100) {
    memcpy(blk, path, len);
  } else {
    size_t cut = ustar_split(path, len);
    if (cut) {
      memcpy(blk, path + cut + 1, len - cut - 1);
      memcpy(blk + 345, path, cut);
    } else {
      memcpy(blk, path, 100);
      needs_pax = 1;
    }
  }
  if (size > OCTAL_SIZE_MAX) needs_pax = 1;
  octal(blk + 100, 8, mode & 07777);
  octal(blk + 108, 8, 0);
  octal(blk + 116, 8, 0);
  octal(blk + 124, 12, size > OCTAL_SIZE_MAX ? 0 : size);
  octal(blk + 136, 12, mtime & OCTAL_SIZE_MAX);
  blk[156] = (unsigned char)type;
  memcpy(blk + 257, "ustar", 6);
  memcpy(blk + 263, "00", 2);
  memcpy(blk + 265, "root", 4);
  memcpy(blk + 297, "root", 4);
  memset(blk + 148, ' ', 8);
  unsigned sum = 0;
  for (int i = 0; i < 512; i++) sum += blk[i];
  octal(blk + 148, 7, sum);
  blk[155] = ' ';
  return needs_pax;
}

static int put(struct tarw *t, const void *p, size_t n) {
  if (t->put(t->ctx, p, n) != 0) return -1;
  t->bytes += n;
  return 0;
}

/* One pax record "LEN key=value\n"; LEN counts the whole record. */
static size_t pax_record(char *out, size_t cap, const char *key, const char *value) {
  size_t body = strlen(key) + strlen(value) + 3; /* ' ' '=' '\n' */
  size_t len = body + 1;
  for (;;) {
    int digits = snprintf(NULL, 0, "%zu", len);
    if (body + (size_t)digits == len) break;
    len = body + (size_t)digits;
  }
  if (len >= cap) return 0;
  snprintf(out, cap, "%zu %s=%s\n", len, key, value);
  return len;
}

static int entry(struct tarw *t, const char *path, char type, uint64_t size, unsigned mode) {
  unsigned char blk[512];
  if (t->pending) {
    errno = EINVAL; /* the previous file is not complete */
    return -1;
  }
  if (tar_ustar_header(blk, path, type, size, mode, t->mtime)) {
    char rec[4096 + 64], num[24];
    size_t n = 0, k;
    if (strlen(path) > 100 && !ustar_split(path, strlen(path))) {
      if ((k = pax_record(rec, sizeof rec, "path", path)) == 0) {
        errno = ENAMETOOLONG;
        return -1;
      }
      n += k;
    }
    if (size > OCTAL_SIZE_MAX) {
      snprintf(num, sizeof num, "%llu", (unsigned long long)size);
      n += pax_record(rec + n, sizeof rec - n, "size", num);
    }
    unsigned char xh[512];
    tar_ustar_header(xh, "PaxHeader", 'x', n, 0644, t->mtime);
    if (put(t, xh, 512) != 0 || put(t, rec, n) != 0) return -1;
    if (n % 512 && put(t, zeros, 512 - n % 512) != 0) return -1;
  }
  if (put(t, blk, 512) != 0) return -1;
  t->pending = size;
  return 0;
}

int tarw_file(struct tarw *t, const char *path, uint64_t size) {
  return entry(t, path, '0', size, 0644);
}

int tarw_dir(struct tarw *t, const char *path) {
  char p[4096 + 2];
  size_t n = strlen(path);
  if (n + 2 > sizeof p) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(p, path, n);
  memcpy(p + n, "/", 2);
  return entry(t, p, '5', 0, 0755);
}

int tarw_data(struct tarw *t, const void *p, size_t n) {
  if (n > t->pending) {
    errno = EINVAL;
    return -1;
  }
  if (put(t, p, n) != 0) return -1;
  t->pending -= n;
  if (t->pending == 0 && t->bytes % 512) return put(t, zeros, 512 - t->bytes % 512);
  return 0;
}

int tarw_finish(struct tarw *t) {
  if (t->pending) {
    errno = EINVAL;
    return -1;
  }
  if (put(t, zeros, 512) != 0 || put(t, zeros, 512) != 0) return -1;
  while (t->bytes % 10240)
    if (put(t, zeros, 512) != 0) return -1;
  return 0;
}
