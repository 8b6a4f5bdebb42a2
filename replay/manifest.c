/* Manifest loading and lookup (see manifest.h). */
#include "manifest.h"


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

/* One line [line, end) of a manifest, NUL-terminated at end: 1 with the
 * path's length and the size (the path is cut at its tab), 0 for a blank
 * line or a comment, -1 with *why. */
static int parse_line(char *line, char *end, size_t *n, uint64_t *size, const char **why) {
  if (end > line && end[-1] == '\r') end[-1] = '\0';
  if (*line == '\0' || *line == '#') return 0;
  char *tab = strchr(line, '\t');
  if (tab == NULL || tab == line) return *why = "expected path<TAB>size<TAB>crc32", -1;
  *tab = '\0';
  char *q = tab + 1;
  *size = 0;
  if (*q < '0' || *q > '9') return *why = "bad size", -1;
  for (; *q >= '0' && *q <= '9'; q++) {
    if (*size > (UINT64_MAX - 9) / 10) return *why = "size too large", -1;
    *size = *size * 10 + (uint64_t)(*q - '0');
  }
  if (*q != '\0' && *q != '\t') return *why = "bad size", -1;
  if (line[0] == '/') return *why = "path must be relative", -1;
  *n = (size_t)(tab - line);
  return 1;
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
    char *line = p;
    p = end + 1;
    const char *why;
    size_t n;
    uint64_t size;
    int r = parse_line(line, end, &n, &size, &why);
    if (r < 0) return bad(m, err, errlen, lineno, why);
    if (r == 0) continue;
    size_t s = find(m, line, n);
    if (m->slot[s]) {
      m->e[m->slot[s] - 1].size = size; /* a later line wins */
      continue;
    }
    m->e[m->n] = (struct manifest_entry){line, (uint32_t)n, size, 1};
    m->slot[s] = (uint32_t)(++m->n);
  }
  return 0;
}

/* The table of the wanted URLs' paths (leading '/' and "?query" cut),
 * none listed yet.  Entries point into the caller's strings. */
static int want_table(struct manifest *m, const char *const *url, const uint32_t *len, size_t n) {
  size_t slots = 16;
  while (slots < n * 2) slots *= 2;
  m->e = malloc((n ? n : 1) * sizeof *m->e);
  m->slot = calloc(slots, sizeof *m->slot);
  if (m->e == NULL || m->slot == NULL) return -1;
  m->mask = slots - 1;
  for (size_t i = 0; i < n; i++) {
    const char *p = url[i];
    size_t l = len[i];
    const char *q = memchr(p, '?', l);
    if (q) l = (size_t)(q - p);
    while (l > 0 && *p == '/') p++, l--;
    size_t s = find(m, p, l);
    if (m->slot[s]) continue;
    m->e[m->n] = (struct manifest_entry){p, (uint32_t)l, 0, 0};
    m->slot[s] = (uint32_t)(++m->n);
  }
  return 0;
}

int manifest_load_wanted(struct manifest *m, const char *file, const char *const *url, const uint32_t *len,
                         size_t n, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  if (want_table(m, url, len, n) != 0) {
    snprintf(err, errlen, "%s", strerror(ENOMEM));
    manifest_free(m);
    return -1;
  }
  FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
  if (f == NULL) {
    snprintf(err, errlen, "%s", strerror(errno));
    manifest_free(m);
    return -1;
  }
  /* One line at a time: the table holds the wanted paths only, so memory
   * follows the requests replayed, not the dataset's millions of files. */
  char line[MANIFEST_LINE_MAX + 2];
  size_t lineno = 0;
  int rc = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    lineno++;
    char *end = line + strlen(line);
    if (end > line && end[-1] == '\n') {
      *--end = '\0';
    } else if (!feof(f)) {
      rc = bad(m, err, errlen, lineno, "line too long");
      break;
    }
    const char *why;
    size_t pl;
    uint64_t size;
    int r = parse_line(line, end, &pl, &size, &why);
    if (r < 0) {
      rc = bad(m, err, errlen, lineno, why);
      break;
    }
    if (r == 0) continue;
    size_t s = find(m, line, pl);
    if (!m->slot[s]) continue;
    m->e[m->slot[s] - 1].size = size; /* a later line wins */
    m->e[m->slot[s] - 1].listed = 1;
  }
  if (rc == 0 && ferror(f)) {
    snprintf(err, errlen, "%s", strerror(errno));
    manifest_free(m);
    rc = -1;
  }
  if (f != stdin) fclose(f);
  return rc;
}

int manifest_size(const struct manifest *m, const char *url, size_t len, uint64_t *size) {
  if (m->slot == NULL) return -1;
  const char *q = memchr(url, '?', len);
  if (q) len = (size_t)(q - url);
  while (len > 0 && *url == '/') url++, len--;
  size_t s = find(m, url, len);
  if (!m->slot[s] || !m->e[m->slot[s] - 1].listed) return -1;
  *size = m->e[m->slot[s] - 1].size;
  return 0;
}

void manifest_free(struct manifest *m) {
  free(m->buf);
  free(m->e);
  free(m->slot);
  memset(m, 0, sizeof *m);
}
