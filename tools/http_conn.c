/* The network side of dltar's HTTP client: connect, send the GET, read the
 * response header and the body, every wait bounded by struct xfer. */
#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h> /* struct timeval: NetBSD's sys/socket.h does not bring it */
#include <unistd.h>

#include "common.h"
#include "http_get.h"
#include "printable.h"

#define MAX_INTERIM 16 /* 1xx responses skipped before the final one */

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

/* Milliseconds for one connect attempt: the connect timeout, or less when
 * --max-time is nearer. */
static int connect_ms(struct http *h, double connect_timeout) {
  char m[128];
  const char *msg;
  int left = xfer_budget_ms(h->x, &msg, m, sizeof m);
  if (left < 0) die(1, h->url, ": ", msg);
  double ms = connect_timeout * 1000;
  if (h->x->deadline > 0 && (h->x->deadline - now_mono()) * 1000 < ms)
    ms = (h->x->deadline - now_mono()) * 1000;
  return ms < 1 ? 1 : ms > 1e9 ? 1000000000 : (int)ms;
}

static void connect_any(struct http *h, const struct url *u, double connect_timeout) {
  char host[PRINTABLE_SIZE(sizeof u->host)];
  printable(host, sizeof host, u->host);
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
  int gerr = getaddrinfo(u->host, u->port, &hints, &ai);
  if (gerr != 0) die(1, h->url, ": cannot resolve ", host, ": ", gai_strerror(gerr));
  int err = 0;
  for (struct addrinfo *a = ai; a && h->fd < 0; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    if (connect_timed(fd, a->ai_addr, a->ai_addrlen, connect_ms(h, connect_timeout)) == 0) {
      h->fd = fd;
    } else {
      err = errno;
      close(fd);
    }
  }
  freeaddrinfo(ai);
  if (h->fd < 0) {
    errno = err;
    if (err == ETIMEDOUT) die(1, h->url, ": cannot connect to ", host, " port ", u->port, ": timed out");
    diesys(1, h->url, ": cannot connect to ", host, " port ", u->port);
  }
}

static ssize_t net_read(struct http *h, char *buf, size_t cap) {
  ssize_t r = xfer_read(h->x, h->fd, buf, cap, h->url);
  if (r < 0) diesys(1, h->url, ": read");
  return r;
}

/* Read response heads until the final (non-1xx) one. */
static void read_head(struct http *h) {
  size_t have = 0;
  int interim = 0;
  for (;;) {
    if (have == sizeof h->head) die(1, h->url, ": response header too long");
    ssize_t r = net_read(h, h->head + have, sizeof h->head - have);
    if (r == 0) die(1, h->url, ": connection closed before the response header ended");
    have += (size_t)r;
    ssize_t hl;
    while ((hl = http_parse_head(h->head, have, &h->resp)) > 0) {
      int st = h->resp.status;
      if (st >= 200 || st == 101) {
        h->pre_off = (size_t)hl;
        h->pre_len = have - (size_t)hl;
        return;
      }
      /* 100 Continue, 102, 103: an interim answer, the real one follows */
      if (++interim > MAX_INTERIM) die(1, h->url, ": too many interim (1xx) responses");
      memmove(h->head, h->head + hl, have - (size_t)hl);
      have -= (size_t)hl;
    }
    if (hl < 0) die(1, h->url, ": malformed response header: ", h->resp.why);
  }
}

void http_open(struct http *h, const char *url, const char *url_shown, double connect_timeout,
               struct xfer *x) {
  struct url u;
  const char *why;
  memset(h, 0, sizeof *h);
  h->fd = -1;
  h->url = url_shown;
  h->x = x;
  if (url_parse(url, &u, &why) != 0) die(1, h->url, ": ", why);
  connect_any(h, &u, connect_timeout);
  /* the request is small: a send timeout as long as --timeout bounds it */
  double st = x->stall_s;
  struct timeval tv = {.tv_sec = (time_t)st, .tv_usec = (suseconds_t)((st - (double)(time_t)st) * 1e6)};
  if (setsockopt(h->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) diesys(1, h->url, ": setsockopt");
  int big = 1 << 20;
  (void)setsockopt(h->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big); /* a hint only */

  int n = snprintf(h->head, sizeof h->head,
                   "GET %s HTTP/1.1\r\nHost: %s%s%s%s%s\r\nUser-Agent: dltar/%s\r\n"
                   "Accept-Encoding: identity\r\nConnection: close\r\n\r\n",
                   u.path, u.v6 ? "[" : "", u.host, u.v6 ? "]" : "",
                   strcmp(u.port, "80") ? ":" : "", strcmp(u.port, "80") ? u.port : "",
                   SHOOTOUT_VERSION);
  if (n < 0 || (size_t)n >= sizeof h->head) die(1, h->url, ": request too long");
  for (ssize_t off = 0; off < n;) {
    ssize_t w = write(h->fd, h->head + off, (size_t)(n - off));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) diesys(1, h->url, ": sending the request");
    off += w;
  }

  read_head(h);
  if (h->resp.status < 200 || h->resp.status > 299) {
    char code[16], reason[PRINTABLE_SIZE(sizeof h->resp.reason)];
    snprintf(code, sizeof code, "%d", h->resp.status);
    printable(reason, sizeof reason, h->resp.reason);
    die(1, h->url, ": server answered ", code, " ", reason);
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
      r = net_read(h, buf, want);
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
