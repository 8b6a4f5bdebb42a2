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
#include "http_conn.h"
#include "printable.h"
#include "url.h"

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

static void connect_any(struct http *h, const struct hostport *u, double connect_timeout) {
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

/* A response the parser refused: one line saying why. */
static void malformed(struct http *h) {
  die(1, h->url, h->in_body ? ": malformed chunked encoding: " : ": malformed response header: ", h->resp.error);
}

/* Read and parse until the head of the final (non-1xx) response is done:
 * the parser skips interim ones, and keeps what came after the head. */
static void read_head(struct http *h) {
  for (;;) {
    ssize_t r = net_read(h, h->head, sizeof h->head);
    if (r == 0) die(1, h->url, ": connection closed before the response header ended");
    struct http_span sp;
    size_t used = http_resp_feed_body(&h->resp, h->head, (size_t)r, &sp);
    if (h->resp.state == HR_ERROR) malformed(h);
    if (h->resp.state != HR_STATUS && h->resp.state != HR_HEADER) {
      h->pre_off = sp.off;
      h->pre_len = sp.len;
      h->raw_off = used;
      h->raw_len = (size_t)r - used;
      return;
    }
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
  connect_any(h, &u.hp, connect_timeout);
  /* the request is small: a send timeout as long as --timeout bounds it */
  double st = x->stall_s;
  struct timeval tv = {.tv_sec = (time_t)st, .tv_usec = (suseconds_t)((st - (double)(time_t)st) * 1e6)};
  if (setsockopt(h->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) diesys(1, h->url, ": setsockopt");
  int big = 1 << 20;
  (void)setsockopt(h->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big); /* a hint only */

  int n = snprintf(h->head, sizeof h->head,
                   "GET %s HTTP/1.1\r\nHost: %s%s%s%s%s\r\nUser-Agent: dltar/%s\r\n"
                   "Accept-Encoding: identity\r\nConnection: close\r\n\r\n",
                   u.path, u.hp.v6 ? "[" : "", u.hp.host, u.hp.v6 ? "]" : "",
                   strcmp(u.hp.port, "80") ? ":" : "", strcmp(u.hp.port, "80") ? u.hp.port : "",
                   SHOOTOUT_VERSION);
  if (n < 0 || (size_t)n >= sizeof h->head) die(1, h->url, ": request too long");
  for (ssize_t off = 0; off < n;) {
    ssize_t w = write(h->fd, h->head + off, (size_t)(n - off));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) diesys(1, h->url, ": sending the request");
    off += w;
  }

  http_resp_init(&h->resp, 0);
  read_head(h);
  if (h->resp.status < 200 || h->resp.status > 299) {
    char code[16], reason[PRINTABLE_SIZE(sizeof h->resp.reason)];
    snprintf(code, sizeof code, "%d", h->resp.status);
    printable_n(reason, sizeof reason, h->resp.reason, h->resp.reasonlen);
    die(1, h->url, ": server answered ", code, " ", reason);
  }
  h->in_body = 1;
}

/* The connection ended before the body did. */
static void truncated(struct http *h) {
  const struct http_resp *r = &h->resp;
  if (r->chunked) die(1, h->url, ": connection closed inside the chunked body");
  char a[24], b[24];
  snprintf(a, sizeof a, "%llu", (unsigned long long)r->body);
  snprintf(b, sizeof b, "%lld", (long long)r->content_length);
  die(1, h->url, ": connection closed after ", a, " of ", b, " bytes");
}

/* Parse buf[0..len) of raw body bytes in place: the payload runs move to
 * the front (no move at all for a Content-Length body).  Returns how many
 * payload bytes are at buf[0..); bytes after the end of the response are
 * dropped (we asked the server to close). */
static size_t parse_in_place(struct http *h, char *buf, size_t len) {
  size_t i = 0, o = 0;
  while (i < len && h->resp.state != HR_DONE) {
    struct http_span sp;
    size_t used = http_resp_feed_body(&h->resp, buf + i, len - i, &sp);
    if (h->resp.state == HR_ERROR) malformed(h);
    if (sp.len) {
      if (o != i + sp.off) memmove(buf + o, buf + i + sp.off, sp.len);
      o += sp.len;
    }
    if (used == 0) break; /* done, or (never) nothing to take */
    i += used;
  }
  return o;
}

ssize_t http_read(struct http *h, char *buf, size_t cap) {
  for (;;) {
    if (h->pre_len) { /* payload that came with the head */
      size_t k = cap < h->pre_len ? cap : h->pre_len;
      memcpy(buf, h->head + h->pre_off, k);
      h->pre_off += k;
      h->pre_len -= k;
      return (ssize_t)k;
    }
    if (h->raw_len && h->resp.state != HR_DONE) { /* and what followed it, not parsed yet */
      struct http_span sp;
      size_t used = http_resp_feed_body(&h->resp, h->head + h->raw_off, h->raw_len, &sp);
      if (h->resp.state == HR_ERROR) malformed(h);
      h->pre_off = h->raw_off + sp.off;
      h->pre_len = sp.len;
      h->raw_off += used;
      h->raw_len -= used;
      if (used == 0) h->raw_len = 0;
      continue;
    }
    if (h->resp.state == HR_DONE) return 0;
    size_t want = cap;
    /* never read past a Content-Length body */
    if (h->resp.state == HR_BODY_LEN && want > h->resp.remaining) want = (size_t)h->resp.remaining;
    ssize_t r = net_read(h, buf, want);
    if (r == 0) {
      if (http_resp_eof(&h->resp)) return 0;
      truncated(h);
    }
    size_t got = parse_in_place(h, buf, (size_t)r);
    if (got > 0) return (ssize_t)got;
  }
}
void http_close(struct http *h) {
  if (h->fd >= 0) close(h->fd);
  h->fd = -1;
}
