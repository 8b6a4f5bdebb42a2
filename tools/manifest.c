/* Manifest loading and lookup (see manifest.h). */
#include "manifest.h"

#include "slurp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)p[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* The slot holding path, or the empty slot where it belongs. */
static size_t find(const struct manifest *m, const char *p, size_t n) {
  size_t i = (size_t)hash(p, n) & m->mask;
  while (m->slot[i]) {
    const struct manifest_entry *e = &m->e[m->slot[i] - 1];
    if (e->len == n && memcmp(e->path, p, n) == 0) break;
    i = (i + 1) & m->mask;
  }
  return i;
}

static int bad(struct manifest *m, char *err, size_t errlen, size_t lineno, const char *why) {
  snprintf(err, errlen, "line %zu: %s", lineno, why);
  manifest_free(m);
  return -1;
}

int manifest_parse(struct manifest *m, char *buf, size_t len, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  m->buf = buf;
  size_t lines = 1;
  for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
  if (lines > UINT32_MAX / 4) return bad(m, err, errlen, 0, "too many lines");
  size_t slots = 16;
  while (slots < lines * 2) slots *= 2;
  m->e = malloc(lines * sizeof *m->e);
  m->slot = calloc(slots, sizeof *m->slot);
  if (m->e == NULL || m->slot == NULL) return bad(m, err, errlen, 0, strerror(ENOMEM));
  m->mask = slots - 1;
  size_t lineno = 0;
  for (char *p = buf; p < buf + len;) {
    char *nl = memchr(p, '\n', (size_t)(buf + len - p));
    char *end = nl ? nl : buf + len;
    lineno++;
    *end = '\0';
    if (end > p && end[-1] == '\r') end[-1] = '\0';
    char *line = p;
    p = end + 1;
    if (*line == '\0' || *line == '#') continue;
    char *tab = strchr(line, '\t');
    if (tab == NULL || tab == line) return bad(m, err, errlen, lineno, "expected path<TAB>size<TAB>crc32");
    *tab = '\0';
    char *num = tab + 1, *q = num;
    uint64_t size = 0;
    if (*q < '0' || *q > '9') return bad(m, err, errlen, lineno, "bad size");
    for (; *q >= '0' && *q <= '9'; q++) {
      if (size > (UINT64_MAX - 9) / 10) return bad(m, err, errlen, lineno, "size too large");
      size = size * 10 + (uint64_t)(*q - '0');
    }
    if (*q != '\0' && *q != '\t') return bad(m, err, errlen, lineno, "bad size");
    size_t n = (size_t)(tab - line);
    if (line[0] == '/') return bad(m, err, errlen, lineno, "path must be relative");
    size_t s = find(m, line, n);
    if (m->slot[s]) {
      m->e[m->slot[s] - 1].size = size; /* a later line wins */
      continue;
    }
    m->e[m->n] = (struct manifest_entry){line, (uint32_t)n, size};
    m->slot[s] = (uint32_t)(++m->n);
  }
  return 0;
}

int manifest_load(struct manifest *m, const char *file, char *err, size_t errlen) {
  char *buf;
  size_t len;
  memset(m, 0, sizeof *m);
  if (slurp(file, &buf, &len) != 0) {
    snprintf(err, errlen, "%s", strerror(errno));
    return -1;
  }
  return manifest_parse(m, buf, len, err, errlen);
}

int manifest_size(const struct manifest *m, const char *url, size_t len, uint64_t *size) {
  if (m->slot == NULL) return -1;
  const char *q = memchr(url, '?', len);
  if (q) len = (size_t)(q - url);
  while (len > 0 && *url == '/') url++, len--;
  size_t s = find(m, url, len);
  if (!m->slot[s]) return -1;
  *size = m->e[m->slot[s] - 1].size;
  return 0;
}

void manifest_free(struct manifest *m) {
  free(m->buf);
  free(m->e);
  free(m->slot);
  memset(m, 0, sizeof *m);
}
