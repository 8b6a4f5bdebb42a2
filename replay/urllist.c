/* Loading the replay list (see urllist.h). */
#include "urllist.h"

#include "slurp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int url_path_ok(const char *p, size_t len) {
  if (len == 0 || len > UINT32_MAX || p[0] != '/') return 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c <= 0x20 || c == 0x7f) return 0;
  }
  return 1;
}

int urllist_parse(struct urllist *u, char *buf, size_t len, char *err, size_t errlen) {
  memset(u, 0, sizeof *u);
  u->buf = buf;
  size_t lines = 1;
  for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
  u->path = malloc(lines * sizeof *u->path);
  u->len = malloc(lines * sizeof *u->len);
  if (u->path == NULL || u->len == NULL) {
    snprintf(err, errlen, "%s", strerror(ENOMEM));
    urllist_free(u);
    return -1;
  }
  size_t lineno = 0;
  for (char *p = buf; p < buf + len;) {
    char *nl = memchr(p, '\n', (size_t)(buf + len - p));
    char *end = nl ? nl : buf + len;
    lineno++;
    *end = '\0';
    size_t l = (size_t)(end - p);
    if (l > 0 && p[l - 1] == '\r') p[--l] = '\0';
    if (l > 0 && p[0] != '#') {
      if (memchr(p, '\0', l) != NULL) { /* printed with %s, the path would look shorter and fine */
        snprintf(err, errlen, "line %zu: NUL byte in URL path", lineno);
        urllist_free(u);
        return -1;
      }
      if (!url_path_ok(p, l)) {
        snprintf(err, errlen, "line %zu: not a URL path (must start with '/', no blanks): %.60s", lineno, p);
        urllist_free(u);
        return -1;
      }
      u->path[u->n] = p;
      u->len[u->n] = (uint32_t)l;
      u->n++;
    }
    p = end + 1;
  }
  return 0;
}

int urllist_load(struct urllist *u, const char *file, char *err, size_t errlen) {
  char *buf;
  size_t len;
  memset(u, 0, sizeof *u);
  if (slurp(file, &buf, &len) != 0) {
    snprintf(err, errlen, "%s", strerror(errno));
    return -1;
  }
  return urllist_parse(u, buf, len, err, errlen);
}

void urllist_free(struct urllist *u) {
  free(u->buf);
  free(u->path);
  free(u->len);
  memset(u, 0, sizeof *u);
}
