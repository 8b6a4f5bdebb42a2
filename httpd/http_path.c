/* Request target -> path below ROOT, and opening it without ever leaving
 * ROOT: the security boundary of httpd. */
#include "http.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os_beneath.h"

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int http_path_clean(const char *t, size_t n, char *out, size_t outsz, int *dir) {
  /* absolute-form: http://host[:port]/path */
  if (n >= 7 && (t[0] | 0x20) == 'h') {
    size_t i = 0;
    const char *scheme = "http";
    while (i < 4 && (t[i] | 0x20) == scheme[i]) i++;
    if (i == 4 && i < n && (t[i] | 0x20) == 's') i++;
    if (i + 3 <= n && memcmp(t + i, "://", 3) == 0) {
      i += 3;
      while (i < n && t[i] != '/' && t[i] != '?' && t[i] != '#') i++;
      if (i == n || t[i] != '/') return 400;
      t += i, n -= i;
    }
  }
  if (n == 0 || t[0] != '/') return 400;
  size_t o = 0;    /* bytes in out */
  size_t seg = 0;  /* where the current segment starts in out */
  *dir = 0;
  for (size_t i = 0;; i++) {
    int end = i >= n || t[i] == '?' || t[i] == '#';
    int c = end ? '/' : (unsigned char)t[i];
    if (c == '%') {
      int h1 = i + 2 < n ? hexval(t[i + 1]) : -1, h2 = i + 2 < n ? hexval(t[i + 2]) : -1;
      if (h1 < 0 || h2 < 0) return 400;
      c = h1 * 16 + h2;
      i += 2;
      if (c == 0 || c == '\\') return 400;
      /* an encoded slash separates segments like a plain one */
    } else if (c == '\\') {
      return 400;
    }
    if (c != '/') {
      if (o + 1 >= outsz) return 414;
      out[o++] = (char)c;
      if (!end) continue;
    }
    /* end of a segment [seg, o) */
    size_t len = o - seg;
    int dots = (len == 1 && out[seg] == '.') || (len == 2 && out[seg] == '.' && out[seg + 1] == '.');
    if (len == 0 || (dots && len == 1)) {
      o = seg;
    } else if (dots) {
      if (seg == 0) return 403; /* above ROOT */
      /* drop the previous segment and its slash */
      o = seg - 1;
      while (o > 0 && out[o - 1] != '/') o--;
    } else {
      if (o + 1 >= outsz) return 414;
      out[o++] = '/';
    }
    seg = o;
    if (end) {
      *dir = len == 0 || dots;
      break;
    }
  }
  if (o > 0 && out[o - 1] == '/') o--;
  out[o] = '\0';
  return 0;
}

/* Bytes a path may carry as they are (RFC 3986 pchar and '/'). */
static int is_plain(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return 1;
  return c != 0 && strchr("-._~!$&'()*+,;=:@/", c) != NULL;
}

size_t http_location(const char *rel, char *out, size_t outsz) {
  static const char hex[] = "0123456789ABCDEF";
  size_t o = 0;
  if (outsz < 3) return 0;
  out[o++] = '/';
  for (const unsigned char *p = (const unsigned char *)rel; *p; p++) {
    if (is_plain(*p)) {
      if (o + 1 >= outsz) return 0;
      out[o++] = (char)*p;
    } else {
      if (o + 3 >= outsz) return 0;
      out[o++] = '%';
      out[o++] = hex[*p >> 4];
      out[o++] = hex[*p & 15];
    }
  }
  if (o > 1) {
    if (o + 1 >= outsz) return 0;
    out[o++] = '/';
  }
  out[o] = '\0';
  return o;
}

static int status_of(int e) {
  switch (e) {
  case ENOENT:
  case ENOTDIR:
  case ENAMETOOLONG:
    return -404;
  case EACCES:
  case EPERM:
  case ELOOP:
  case EXDEV:
  case ENXIO:
    return -403;
  case EMFILE:
  case ENFILE:
  case ENOMEM:
    return -503;
  }
  return -500;
}

int http_path_open(int rootfd, const char *rel, int follow) {
  int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  if (*rel == '\0') rel = ".";
  int fd = follow ? openat(rootfd, rel, flags) : os_open_beneath(rootfd, rel, flags);
  return fd >= 0 ? fd : status_of(errno);
}
