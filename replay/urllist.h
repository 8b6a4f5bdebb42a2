/* The replay list: one URL path a line ("/img/0a/4711.jpg"). */
#ifndef SHOOTOUT_URLLIST_H
#define SHOOTOUT_URLLIST_H

#include <stddef.h>
#include <stdint.h>

struct urllist {
  char *buf;         /* the file, lines NUL-terminated in place */
  size_t n;          /* number of paths */
  const char **path; /* n pointers into buf */
  uint32_t *len;     /* their lengths */
};

/* Load FILE ("-" for standard input).  Empty lines and lines starting with
 * '#' are skipped; every other line must be a path starting with '/' and
 * holding no blanks, control characters or NUL bytes.  Returns 0, or -1 with a
 * one-line reason in err (errno-based or "line N: ..."). */
int urllist_load(struct urllist *u, const char *file, char *err, size_t errlen);
/* Parse a buffer the caller gives up (it must be NUL-terminated at len). */
int urllist_parse(struct urllist *u, char *buf, size_t len, char *err, size_t errlen);
void urllist_free(struct urllist *u);

/* Is this a path replay can put on a request line? */
int url_path_ok(const char *p, size_t len);

#endif
