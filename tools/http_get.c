#include "http_get.h"

#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

int url_parse(const char *s, struct url *u, const char **why) {
  memset(u, 0, sizeof *u);
  if (strncasecmp(s, "http://", 7) != 0) {
    *why = strncasecmp(s, "https://", 8) == 0 ? "https is not supported" : "not an http:// URL";
    return -1;
  }
  s += 7;
  const char *hend;
  if (*s == '[') {
    hend = strchr(s, ']');
    if (hend == NULL || hend == s + 1) {
      *why = "bad IPv6 literal";
      return -1;
    }
    s++;
    u->v6 = 1;
  } else {
    hend = s + strcspn(s, ":/?#");
  }
  size_t hl = (size_t)(hend - s);
  if (hl == 0 || hl >= sizeof u->host) {
    *why = hl ? "host name too long" : "no host";
    return -1;
  }
  memcpy(u->host, s, hl);
  if (strchr(u->host, '@')) {
    *why = "user info in URLs is not supported";
    return -1;
  }
  s = hend + (u->v6 ? 1 : 0);
  strcpy(u->port, "80");
  if (*s == ':') {
    s++;
    size_t pl = strspn(s, "0123456789");
    uint64_t port;
    char tmp[8];
    if (pl == 0 || pl > 5) {
      *why = "bad port";
      return -1;
    }
    memcpy(tmp, s, pl);
    tmp[pl] = '\0';
    if (parse_u64(tmp, 65535, &port) != 0 || port == 0) {
      *why = "bad port";
      return -1;
    }
    snprintf(u->port, sizeof u->port, "%u", (unsigned)port);
    s += pl;
  }
  if (*s == '\0') {
    strcpy(u->path, "/");
  } else if (*s == '/' || *s == '?') {
    size_t l = strcspn(s, "#");
    if (l + 2 > sizeof u->path) {
      *why = "path too long";
      return -1;
    }
    if (*s == '?') u->path[0] = '/';
    memcpy(u->path + (*s == '?'), s, l);
    for (const char *c = u->path; *c; c++)
      if ((unsigned char)*c <= ' ' || *c == 0x7f) {
        *why = "space or control character in the path";
        return -1;
      }
  } else if (*s != '#') {
    *why = "bad character after the host";
    return -1;
  } else {
    strcpy(u->path, "/");
  }
  return 0;
}

enum { CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF, CH_TRAILER,
       CH_TRAILER_LINE, CH_TRAILER_LF, CH_END_LF, CH_DONE, CH_SIZE0 };

void chunked_init(struct chunked *c) {
  c->state = CH_SIZE0;
  c->left = 0;
}

int chunked_done(const struct chunked *c) { return c->state == CH_DONE; }

static int hexval(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

ssize_t chunked_decode(struct chunked *c, char *buf, size_t len) {
  size_t i = 0, o = 0;
  while (i < len && c->state != CH_DONE) {
    char ch = buf[i];
    switch (c->state) {
    case CH_SIZE0: /* the first hex digit of a size line */
    case CH_SIZE: {
      int v = hexval(ch);
      if (v >= 0) {
        if (c->left >> 59) return -1;
        c->left = c->left * 16 + (uint64_t)v;
        c->state = CH_SIZE;
      } else if (c->state == CH_SIZE0) {
        return -1;
      } else if (ch == '\r') {
        c->state = CH_SIZE_LF;
      } else if (ch == ';' || ch == ' ' || ch == '\t') {
        c->state = CH_EXT;
      } else {
        return -1;
      }
      i++;
      break;
    }
    case CH_EXT:
      if (ch == '\r') c->state = CH_SIZE_LF;
      i++;
      break;
    case CH_SIZE_LF:
      if (ch != '\n') return -1;
      c->state = c->left ? CH_DATA : CH_TRAILER;
      i++;
      break;
    case CH_DATA: {
      size_t n = len - i;
      if (n > c->left) n = (size_t)c->left;
      if (o != i) memmove(buf + o, buf + i, n);
      o += n;
      i += n;
      c->left -= n;
      if (c->left == 0) c->state = CH_DATA_CR;
      break;
    }
    case CH_DATA_CR:
      if (ch != '\r') return -1;
      c->state = CH_DATA_LF;
      i++;
      break;
    case CH_DATA_LF:
      if (ch != '\n') return -1;
      c->state = CH_SIZE0;
      i++;
      break;
    case CH_TRAILER: /* start of a trailer line; an empty one ends the body */
      c->state = ch == '\r' ? CH_END_LF : CH_TRAILER_LINE;
      i++;
      break;
    case CH_TRAILER_LINE:
      if (ch == '\r') c->state = CH_TRAILER_LF;
      i++;
      break;
    case CH_TRAILER_LF:
      if (ch != '\n') return -1;
      c->state = CH_TRAILER;
      i++;
      break;
    case CH_END_LF:
      if (ch != '\n') return -1;
      c->state = CH_DONE;
      i++;
      break;
    }
  }
  return (ssize_t)o;
}

/* Case-insensitive "name:" at the start of line l (length n); returns the
 * value with leading blanks skipped, or NULL. */
static const char *header_value(const char *l, size_t n, const char *name, size_t *vlen) {
  size_t k = strlen(name);
  if (n <= k || strncasecmp(l, name, k) != 0 || l[k] != ':') return NULL;
  const char *v = l + k + 1, *e = l + n;
  while (v < e && (*v == ' ' || *v == '\t')) v++;
  while (e > v && (e[-1] == ' ' || e[-1] == '\t')) e--;
  *vlen = (size_t)(e - v);
  return v;
}

ssize_t http_parse_head(const char *buf, size_t len, struct http_resp *r) {
  const char *end = memmem(buf, len, "\r\n\r\n", 4);
  if (end == NULL) return 0;
  memset(r, 0, sizeof *r);
  if (len < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ') return -1;
  for (int i = 9; i < 12; i++) {
    if (buf[i] < '0' || buf[i] > '9') return -1;
    r->status = r->status * 10 + (buf[i] - '0');
  }
  const char *eol = memchr(buf, '\r', (size_t)(end - buf) + 2);
  const char *rs = buf + 12;
  while (rs < eol && *rs == ' ') rs++;
  size_t rl = (size_t)(eol - rs);
  if (rl >= sizeof r->reason) rl = sizeof r->reason - 1;
  memcpy(r->reason, rs, rl);
  const char *l = eol + 2;
  while (l < end + 2) {
    const char *le = memchr(l, '\r', (size_t)(end + 2 - l));
    size_t n = (size_t)(le - l), vl;
    const char *v;
    if ((v = header_value(l, n, "Content-Length", &vl)) != NULL) {
      char tmp[24];
      if (vl == 0 || vl >= sizeof tmp) return -1;
      memcpy(tmp, v, vl);
      tmp[vl] = '\0';
      if (parse_u64(tmp, UINT64_MAX, &r->length) != 0) return -1;
      r->has_length = 1;
    } else if ((v = header_value(l, n, "Transfer-Encoding", &vl)) != NULL) {
      if (vl >= 7 && strncasecmp(v + vl - 7, "chunked", 7) == 0) r->chunked = 1;
      else return -1;
    }
    l = le + 2;
  }
  return (ssize_t)(end - buf) + 4;
}

/* Non-blocking connect bounded by timeout_ms; 0 or -1 with errno. */
static int connect_timed(int fd, const struct sockaddr *sa, socklen_t sl, int timeout_ms) {
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0) return -1;
  if (connect(fd, sa, sl) != 0) {
    if (errno != EINPROGRESS) return -1;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int r;
    do r = poll(&p, 1, timeout_ms);
    while (r < 0 && errno == EINTR);
    if (r < 0) return -1;
    if (r == 0) {
      errno = ETIMEDOUT;
      return -1;
    }
    int err = 0;
    socklen_t el = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0) return -1;
    if (err) {
      errno = err;
      return -1;
    }
  }
  return fcntl(fd, F_SETFL, fl);
}

static void die_read(struct http *h) {
  if (errno == EAGAIN || errno == EWOULDBLOCK) {
    char t[32];
    snprintf(t, sizeof t, "%g", h->read_timeout);
    die(1, h->url, ": no data for ", t, " s (read timeout)");
  }
  diesys(1, h->url, ": read");
}

void http_open(struct http *h, const char *url, double connect_timeout, double read_timeout) {
  struct url u;
  const char *why;
  memset(h, 0, sizeof *h);
  h->fd = -1;
  h->url = url;
  h->read_timeout = read_timeout;
  if (url_parse(url, &u, &why) != 0) die(1, url, ": ", why);

  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
  int gerr = getaddrinfo(u.host, u.port, &hints, &ai);
  if (gerr != 0) die(1, url, ": cannot resolve ", u.host, ": ", gai_strerror(gerr));
  int err = 0;
  for (struct addrinfo *a = ai; a && h->fd < 0; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    if (connect_timed(fd, a->ai_addr, a->ai_addrlen, (int)(connect_timeout * 1000)) == 0) {
      h->fd = fd;
    } else {
      err = errno;
      close(fd);
    }
  }
  freeaddrinfo(ai);
  if (h->fd < 0) {
    errno = err;
    if (err == ETIMEDOUT) die(1, url, ": cannot connect to ", u.host, " port ", u.port, ": timed out");
    diesys(1, url, ": cannot connect to ", u.host, " port ", u.port);
  }
  struct timeval tv = {.tv_sec = (time_t)read_timeout,
                       .tv_usec = (suseconds_t)((read_timeout - (double)(time_t)read_timeout) * 1e6)};
  if (setsockopt(h->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
      setsockopt(h->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
    diesys(1, url, ": setsockopt");
  int big = 1 << 20;
  (void)setsockopt(h->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big); /* a hint only */

  int n = snprintf(h->head, sizeof h->head,
                   "GET %s HTTP/1.1\r\nHost: %s%s%s%s%s\r\nUser-Agent: dltar/%s\r\n"
                   "Accept-Encoding: identity\r\nConnection: close\r\n\r\n",
                   u.path, u.v6 ? "[" : "", u.host, u.v6 ? "]" : "",
                   strcmp(u.port, "80") ? ":" : "", strcmp(u.port, "80") ? u.port : "",
                   SHOOTOUT_VERSION);
  if (n < 0 || (size_t)n >= sizeof h->head) die(1, url, ": request too long");
  for (ssize_t off = 0; off < n;) {
    ssize_t w = write(h->fd, h->head + off, (size_t)(n - off));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) diesys(1, url, ": sending the request");
    off += w;
  }

  size_t have = 0;
  for (;;) {
    if (have == sizeof h->head) die(1, url, ": response header too long");
    ssize_t r = read(h->fd, h->head + have, sizeof h->head - have);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) die_read(h);
    if (r == 0) die(1, url, ": connection closed before the response header ended");
    have += (size_t)r;
    ssize_t hl = http_parse_head(h->head, have, &h->resp);
    if (hl < 0) die(1, url, ": malformed response header");
    if (hl > 0) {
      h->pre_off = (size_t)hl;
      h->pre_len = have - (size_t)hl;
      break;
    }
  }
  if (h->resp.status < 200 || h->resp.status > 299) {
    char st[8];
    snprintf(st, sizeof st, "%d", h->resp.status);
    die(1, url, ": server answered ", st, " ", h->resp.reason);
  }
  chunked_init(&h->ch);
}

ssize_t http_read(struct http *h, char *buf, size_t cap) {
  for (;;) {
    size_t want = cap;
    if (!h->resp.chunked && h->resp.has_length) {
      uint64_t left = h->resp.length - h->got;
      if (left == 0) return 0;
      if (want > left) want = (size_t)left;
    }
    if (h->resp.chunked && chunked_done(&h->ch)) return 0;
    ssize_t r;
    if (h->pre_len) {
      r = (ssize_t)(want < h->pre_len ? want : h->pre_len);
      memcpy(buf, h->head + h->pre_off, (size_t)r);
      h->pre_off += (size_t)r;
      h->pre_len -= (size_t)r;
    } else {
      r = read(h->fd, buf, want);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) die_read(h);
    }
    if (r == 0) {
      if (h->resp.chunked) die(1, h->url, ": connection closed inside the chunked body");
      if (h->resp.has_length) {
        char a[24], b[24];
        snprintf(a, sizeof a, "%llu", (unsigned long long)h->got);
        snprintf(b, sizeof b, "%llu", (unsigned long long)h->resp.length);
        die(1, h->url, ": connection closed after ", a, " of ", b, " bytes");
      }
      return 0;
    }
    h->got += (uint64_t)r;
    if (!h->resp.chunked) return r;
    ssize_t d = chunked_decode(&h->ch, buf, (size_t)r);
    if (d < 0) die(1, h->url, ": malformed chunked encoding");
    if (d > 0) return d;
  }
}

void http_close(struct http *h) {
  if (h->fd >= 0) close(h->fd);
  h->fd = -1;
}
