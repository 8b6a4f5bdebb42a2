/* HTTP request parsing, URL path confinement and response formatting: the
 * pure parts of httpd, with no I/O, so that the unit tests can drive them. */
#ifndef HTTPD_HTTP_H
#define HTTPD_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Limits: a request line longer than HTTP_MAX_LINE is answered 414, a request
 * head (line + headers) longer than HTTP_MAX_HEAD 413. */
#define HTTP_MAX_LINE 4096
#define HTTP_MAX_HEAD 8192

enum http_method { HTTP_GET = 1, HTTP_HEAD, HTTP_OTHER };
enum http_range { RANGE_NONE = 0, RANGE_FROM_TO, RANGE_FROM, RANGE_SUFFIX };

struct http_req {
  int method;
  const char *line; /* the request line, for the access log */
  size_t line_len;
  const char *target;
  size_t target_len;
  int minor;      /* HTTP/1.0 -> 0, HTTP/1.1 (or 1.x) -> 1 */
  int keep_alive; /* what the client asked for, after the version default */
  int has_body;   /* Content-Length > 0 or Transfer-Encoding: we close after */
  int range;      /* RANGE_* (multiple or invalid ranges -> RANGE_NONE) */
  uint64_t r1, r2;
  time_t ims;     /* If-Modified-Since, or -1 */
  time_t if_range; /* If-Range as a date, or -1; -2 when it is an entity tag */
};

/* Parses one request head at buf.  Returns the bytes it takes (> 0) when it
 * is complete, 0 when more input is needed, or -STATUS (-400, -413, -414,
 * -505) when it is malformed.  Leading empty lines are skipped. */
long http_parse(const char *buf, size_t len, struct http_req *r);

/* "Sun, 06 Nov 1994 08:49:37 GMT" -> seconds since the epoch, or -1. */
time_t http_date_parse(const char *s, size_t n);
/* Formats t as an IMF-fixdate into out (30 bytes incl. NUL); returns 29. */
size_t http_date_fmt(char *out, time_t t);

/* Decodes and normalises a request target into a path relative to ROOT
 * (no leading slash; "" is ROOT itself).  Strips an absolute-form prefix,
 * the query and the fragment; decodes %XX; collapses "//" and "."; resolves
 * ".." lexically.  *dir is set when the target ends with '/'.  Returns 0, or
 * the status to answer: 400 (bad escape, NUL, backslash, not starting with
 * '/'), 403 (".." above ROOT), 414 (too long for out). */
int http_path_clean(const char *target, size_t len, char *out, size_t outsz, int *dir);

/* The Location of the redirect from a directory rel (from http_path_clean)
 * to its slash form: "/" rel "/", percent-encoded where a byte is not a
 * plain path character.  Built from the cleaned path only, so it always
 * starts with one "/" and carries no scheme or host of the request.
 * Returns its length, or 0 when it does not fit in outsz. */
size_t http_location(const char *rel, char *out, size_t outsz);

/* Opens rel (from http_path_clean) below rootfd, read-only, non-blocking.
 * Without follow, symlinks that leave ROOT are refused and those that stay
 * in it followed (os_open_beneath: openat2 RESOLVE_BENEATH on Linux, a
 * component-by-component walk elsewhere).
 * Returns the fd, or -STATUS: -403, -404, -503 (out of fds), -500. */
int http_path_open(int rootfd, const char *rel, int follow);

/* Content-Type by the file name's extension; application/octet-stream. */
const char *http_mime(const char *path);
/* "Not Found" for 404 and so on. */
const char *http_reason(int status);

/* The body of a response to a file of size bytes: status 200, 206, 304 or
 * 416 and the byte range [*off, *end). */
int http_plan(const struct http_req *r, uint64_t size, time_t mtime,
              uint64_t *off, uint64_t *end);

#endif
