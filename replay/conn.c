/* replay's connection engine: CONC non-blocking connections on libowfat's
 * io_* event loop, requests handed out in list order, keep-alive and
 * pipelining, response checks, resets, retries and timeouts. */
#include "replay.h"

#include "printable.h"

#include <errno.h>
#include <io.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void url_of(const struct run *r, size_t idx, const char **p, size_t *len) {
  if (r->urls) {
    *p = r->urls->path[idx];
    *len = r->urls->len[idx];
  } else {
    *p = r->single;
    *len = r->single_len;
  }
}

/* ---- the work queue: retries first, then the list in order ---- */

/* In the steady part the list goes round until the window closes: work
 * without end until then. */
size_t work_left(const struct run *r) {
  if (r->steady) return r->win < 2 ? SIZE_MAX / 2 : r->rq_n - r->rq_head;
  return (r->rq_n - r->rq_head) + (r->total - r->next);
}

static int take_work(struct run *r, struct retry_item *w) {
  if (r->rq_head < r->rq_n) {
    *w = r->rq[r->rq_head++];
    if (r->rq_head == r->rq_n) r->rq_head = r->rq_n = 0;
    return 1;
  }
  if (r->steady && r->win == 2) return 0; /* the window has closed: retries only */
  if (r->next >= r->total && r->steady && r->total > 0) {
    r->next = 0; /* the list once more */
    r->passes++;
  }
  if (r->next < r->total) {
    w->idx = r->next++;
    w->attempts = 0;
    return 1;
  }
  return 0;
}

static void push_retry(struct run *r, size_t idx, uint32_t attempts) {
  if (r->rq_n == r->rq_cap) {
    size_t cap = r->rq_cap ? r->rq_cap * 2 : 64;
    struct retry_item *n = realloc(r->rq, cap * sizeof *n);
    if (n == NULL) {
      fprintf(stderr, "replay: out of memory\n");
      exit(1);
    }
    r->rq = n;
    r->rq_cap = cap;
  }
  r->rq[r->rq_n++] = (struct retry_item){idx, attempts};
}

/* Request idx ended badly: one failure of kind k (DETAIL printable, or
 * NULL), described on stderr if it is the first of its kind. */
static void fail_request(struct run *r, enum fail_kind k, size_t idx, const char *detail) {
  const char *p;
  size_t len;
  r->failed++;
  r->fail_kind[k]++;
  r->finished++;
  url_of(r, idx, &p, &len);
  report_failure(r, k, p, len, detail);
}

/* A try of request idx went wrong in a way worth retrying (reset, timeout,
 * refused connection): retry it on another connection, or give up. */
static void retry_or_fail(struct run *r, size_t idx, uint32_t attempts, enum fail_kind k, const char *detail) {
  if (attempts < r->retries) {
    r->retried++;
    push_retry(r, idx, attempts + 1);
  } else {
    fail_request(r, k, idx, detail);
  }
}

/* ---- connections ---- */

/* The descriptor is closed only after the event queues are drained
 * (ioq_close_pending), events are taken with ioq_canread/ioq_canwrite, and
 * reads and writes are plain read(2)/write(2): libowfat 0.32's io_close of
 * a descriptor still on one of its queues may never happen (lib/ioq.h). */
static void conn_close(struct run *r, struct conn *c) {
  if (c->state == C_CONNECTING) r->connecting--;
  io_setcookie(c->fd, NULL);
  ioq_close_later(&r->closing, c->fd);
  c->fd = -1;
  c->state = C_FREE;
  c->nout = c->head = 0;
  c->wlen = c->woff = 0;
  r->open--;
  r->freelist[r->nfree++] = (unsigned)(c - r->c);
}

/* The connection broke (kind F_RESET) or stalled (F_TIMEOUT) with requests
 * outstanding: count it once, retry or fail each of them, close it. */
static void conn_broken(struct run *r, struct conn *c, enum fail_kind kind, const char *why) {
  if (c->nout > 0) {
    if (kind == F_TIMEOUT) r->timeouts++;
    else r->resets++;
    for (unsigned i = 0; i < c->nout; i++) {
      struct req_slot *s = &c->out[(c->head + i) % r->depth];
      retry_or_fail(r, s->idx, s->attempts, kind, why);
    }
  }
  conn_close(r, c);
}

/* Connecting failed (refused, unreachable, timed out).  Before any
 * connection ever worked this ends the run with one clear line; later it
 * costs the next request one try, so that a dead server cannot make the
 * run spin forever. */
static int connect_failed(struct run *r, struct conn *c, int err) {
  const char *why = err == ETIMEDOUT ? "timed out" : strerror(err);
  conn_close(r, c);
  r->connect_errors++;
  if (!r->ever_connected) {
    char t[PRINTABLE_SIZE(300)];
    printable(t, sizeof t, r->target);
    fprintf(stderr, "replay: cannot connect to %s: %s\n", t, why);
    return -1;
  }
  struct retry_item w;
  if (take_work(r, &w)) retry_or_fail(r, w.idx, w.attempts, F_CONNECT, why);
  return 0;
}

static int conn_start(struct run *r) {
  struct conn *c = &r->c[r->freelist[--r->nfree]];
  int fd = socket(r->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    r->nfree++;
    fprintf(stderr, "replay: socket: %s\n", strerror(errno));
    return -1;
  }
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) { /* not fatal */
  }
  c->fd = fd;
  c->state = C_CONNECTING;
  c->sent = c->nout = c->head = 0;
  c->wlen = c->woff = 0;
  c->closing = c->wantw = 0;
  c->last_ok = 0;
  c->last = now_mono();
  r->open++;
  r->connecting++;
  r->connections++;
  if (!io_fd_flags(fd, IO_FD_NONBLOCK)) {
    int e = errno;
    close(fd);
    c->fd = -1;
    c->state = C_FREE;
    r->open--;
    r->connecting--;
    r->freelist[r->nfree++] = (unsigned)(c - r->c);
    fprintf(stderr, "replay: io_fd: %s\n", strerror(e));
    return -1;
  }
  io_setcookie(fd, c);
  if (connect(fd, (struct sockaddr *)&r->addr, r->addrlen) != 0 && errno != EINPROGRESS)
    return connect_failed(r, c, errno);
  io_wantwrite(fd);
  c->wantw = 1;
  return 0;
}

static void append(struct conn *c, const char *p, size_t n) {
  if (c->wlen + n > c->wcap) {
    size_t cap = c->wcap ? c->wcap : 512;
    while (cap < c->wlen + n) cap *= 2;
    char *b = realloc(c->wbuf, cap);
    if (b == NULL) {
      fprintf(stderr, "replay: out of memory\n");
      exit(1);
    }
    c->wbuf = b;
    c->wcap = cap;
  }
  memcpy(c->wbuf + c->wlen, p, n);
  c->wlen += n;
}

/* Queue one request on c: "GET path HTTP/1.1", Host, and Connection: close
 * on the last request this connection may carry. */
static void queue_request(struct run *r, struct conn *c, const struct retry_item *w, uint64_t t) {
  const char *p;
  size_t len;
  url_of(r, w->idx, &p, &len);
  append(c, "GET ", 4);
  append(c, p, len);
  append(c, " HTTP/1.1\r\nHost: ", 17);
  append(c, r->host, strlen(r->host));
  c->sent++;
  if (c->sent >= r->per_conn) {
    c->closing = 1;
    append(c, "\r\nConnection: close\r\n\r\n", 23);
  } else {
    append(c, "\r\n\r\n", 4);
  }
  struct req_slot *s = &c->out[(c->head + c->nout) % r->depth];
  s->idx = w->idx;
  s->attempts = w->attempts;
  s->t0 = t;
  c->nout++;
}

/* Write what is pending; returns 0, or -1 when the connection broke.
 * Plain write(2): libowfat's io_trywrite keeps queues of its own that do
 * not mix with closing descriptors (lib/ioq.h). */
static int conn_flush(struct run *r, struct conn *c) {
  while (c->woff < c->wlen) {
    ssize_t n = write((int)c->fd, c->wbuf + c->woff, c->wlen - c->woff);
    if (n > 0) {
      c->woff += (size_t)n;
      c->last = now_mono();
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      if (!c->wantw) io_wantwrite(c->fd);
      c->wantw = 1;
      return 0;
    }
    conn_broken(r, c, F_RESET, n < 0 ? strerror(errno) : "write failed");
    return -1;
  }
  c->woff = c->wlen = 0;
  if (c->wantw) io_dontwantwrite(c->fd);
  c->wantw = 0;
  return 0;
}

/* Hand c as many requests as it may carry, write them; close c when it has
 * nothing left to do. */
static void conn_pump(struct run *r, struct conn *c) {
  struct retry_item w;
  uint64_t t = 0;
  while (!c->closing && c->nout < r->depth && take_work(r, &w)) {
    if (t == 0) t = now_ns();
    queue_request(r, c, &w, t);
  }
  if (c->nout == 0) {
    conn_close(r, c);
    return;
  }
  conn_flush(r, c);
}

/* The server will close after the response just completed (or c is given
 * up): requests pipelined behind it go back to the queue without costing a
 * try. */
static void requeue_rest(struct run *r, struct conn *c) {
  for (unsigned i = 0; i < c->nout; i++) {
    struct req_slot *s = &c->out[(c->head + i) % r->depth];
    push_retry(r, s->idx, s->attempts);
  }
  c->nout = 0;
}

/* One full response arrived for the oldest outstanding request. */
static void complete(struct run *r, struct conn *c, uint64_t t) {
  struct req_slot *s = &c->out[c->head];
  const struct http_resp *h = &c->resp;
  c->head = (c->head + 1) % r->depth;
  c->nout--;
  c->last_idx = s->idx;
  c->last_ok = 0;
  /* the first pass's latencies, then those completed in the steady window */
  if (!r->steady) hist_record(&r->hist, t > s->t0 ? t - s->t0 : 0);
  else if (r->win == 1) hist_record(&r->steady_hist, t > s->t0 ? t - s->t0 : 0);
  r->bytes += h->body;
  if (h->status < 200 || h->status > 299) {
    char why[16 + PRINTABLE_SIZE(sizeof h->reason)];
    int k = snprintf(why, sizeof why, "%d ", h->status);
    printable_n(why + k, sizeof why - (size_t)k, h->reason, h->reasonlen);
    if (h->status >= 0 && h->status < 600) r->status[h->status]++;
    fail_request(r, F_STATUS, s->idx, why);
    return;
  }
  if (r->mf) {
    const char *p;
    size_t len;
    uint64_t want;
    url_of(r, s->idx, &p, &len);
    if (manifest_size(r->mf, p, len, &want) != 0) {
      fail_request(r, F_MANIFEST, s->idx, NULL);
      return;
    }
    if (want != h->body) {
      char why[80];
      snprintf(why, sizeof why, "%llu bytes, the manifest says %llu", (unsigned long long)h->body,
               (unsigned long long)want);
      fail_request(r, F_SIZE, s->idx, why);
      return;
    }
  }
  r->ok++;
  r->finished++;
  c->last_ok = 1;
}

/* n bytes arrived after the response of c->last_idx that no request asked
 * for (a body longer than its Content-Length, data after a 204 or after
 * "Connection: close"): that response was not what it said, so its request
 * fails, once; one that failed already keeps its first reason. */
static void unrequested(struct run *r, struct conn *c, size_t n) {
  if (!c->last_ok) return;
  char why[64];
  snprintf(why, sizeof why, "%zu%s bytes after the response", n, n >= r->rbufsize ? " or more" : "");
  c->last_ok = 0;
  r->ok--;
  r->finished--; /* fail_request counts it again */
  fail_request(r, F_UNREQUESTED, c->last_idx, why);
}

/* The oldest request on c ran past the -T deadline: it fails (no retry: a
 * server this slow would only be slow again), the ones pipelined behind it
 * go back to the queue, c is closed. */
static void deadline_hit(struct run *r, struct conn *c) {
  struct req_slot *s = &c->out[c->head];
  char why[80];
  c->head = (c->head + 1) % r->depth;
  c->nout--;
  snprintf(why, sizeof why, "no full response within %g s", r->deadline);
  fail_request(r, F_DEADLINE, s->idx, why);
  requeue_rest(r, c);
  conn_close(r, c);
}

/* Parse n bytes of r->rbuf; returns 0, or -1 when c was closed. */
static int conn_input(struct run *r, struct conn *c, size_t n) {
  size_t off = 0;
  uint64_t t = 0;
  while (off < n) {
    if (c->nout == 0) { /* bytes nobody asked for */
      unrequested(r, c, n - off);
      conn_close(r, c);
      return -1;
    }
    off += http_resp_feed(&c->resp, r->rbuf + off, n - off);
    if (c->resp.state == HR_ERROR) {
      struct req_slot *s = &c->out[c->head]; /* the oldest request fails */
      enum fail_kind k = c->resp.err == HRE_HEADER_SIZE ? F_HEADER
                         : c->resp.err == HRE_CHUNK_LINE ? F_CHUNK_LINE
                                                         : F_PROTOCOL;
      c->head = (c->head + 1) % r->depth;
      c->nout--;
      fail_request(r, k, s->idx, c->resp.error);
      requeue_rest(r, c);
      conn_close(r, c);
      return -1;
    }
    if (c->resp.state == HR_DONE) {
      int server_closes = c->resp.close;
      if (t == 0) t = now_ns();
      complete(r, c, t);
      http_resp_init(&c->resp, 0);
      if (server_closes) {
        if (off < n) unrequested(r, c, n - off);
        requeue_rest(r, c);
        conn_close(r, c);
        return -1;
      }
    }
  }
  return 0;
}

/* Reads at most READS_PER_EVENT buffers, then lets the loop look at the
 * clock (a server sending without end must not keep it from the deadline
 * checks); epoll's level triggering reports the rest again. */
#define READS_PER_EVENT 8

static void on_readable(struct run *r, struct conn *c) {
  for (int reads = 0; reads < READS_PER_EVENT;) {
    ssize_t n = read((int)c->fd, r->rbuf, r->rbufsize);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n < 0) {
      conn_broken(r, c, F_RESET, strerror(errno));
      return;
    }
    if (n == 0) { /* end of file */
      if (c->nout > 0 && http_resp_eof(&c->resp)) {
        complete(r, c, now_ns());
        http_resp_init(&c->resp, 0);
      }
      /* counts only if requests are left */
      conn_broken(r, c, F_RESET, "connection closed before a full response");
      return;
    }
    reads++;
    c->last = now_mono();
    r->wire_bytes += (uint64_t)n;
    if (conn_input(r, c, (size_t)n) != 0) return;
    if ((size_t)n < r->rbufsize) break;
  }
  if (c->nout == 0 || !c->closing) conn_pump(r, c);
}

static int on_writable(struct run *r, struct conn *c) {
  if (c->state == C_CONNECTING) {
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt((int)c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err != 0) return connect_failed(r, c, err);
    c->state = C_ACTIVE;
    r->connecting--;
    r->ever_connected = 1;
    c->last = now_mono();
    io_dontwantwrite(c->fd);
    c->wantw = 0;
    io_wantread(c->fd);
    http_resp_init(&c->resp, 0);
    conn_pump(r, c);
    return 0;
  }
  conn_flush(r, c);
  return 0;
}

/* Fail the oldest request of a connection past the -T deadline; close
 * connections without progress for r->timeout seconds. */
static int check_timeouts(struct run *r, double now) {
  uint64_t tn = now_ns(), limit = (uint64_t)(r->deadline * 1e9);
  char why[64];
  for (unsigned i = 0; i < r->conc; i++) {
    struct conn *c = &r->c[i];
    if (c->state == C_ACTIVE && c->nout > 0 && tn - c->out[c->head].t0 >= limit) {
      deadline_hit(r, c);
      continue;
    }
    if (c->state == C_FREE || now - c->last < r->timeout) continue;
    if (c->state == C_CONNECTING) {
      r->timeouts++;
      if (connect_failed(r, c, ETIMEDOUT) != 0) return -1;
    } else {
      snprintf(why, sizeof why, "no progress for %g s", r->timeout);
      conn_broken(r, c, F_TIMEOUT, why);
    }
  }
  return 0;
}

int run_setup(struct run *r) {
  r->c = calloc(r->conc, sizeof *r->c);
  r->freelist = calloc(r->conc, sizeof *r->freelist);
  r->rbufsize = 256 * 1024;
  r->rbuf = malloc(r->rbufsize);
  if (r->c == NULL || r->freelist == NULL || r->rbuf == NULL) return -1;
  for (unsigned i = 0; i < r->conc; i++) {
    r->c[i].fd = -1;
    r->c[i].out = calloc(r->depth, sizeof *r->c[i].out);
    if (r->c[i].out == NULL) return -1;
    r->freelist[r->nfree++] = r->conc - 1 - i;
  }
  hist_init(&r->hist);
  hist_init(&r->steady_hist);
  r->passes = 1;
  r->slice = 1;
  return 0;
}

/* Whether the run goes on (1; 0: over; -1: the gate failed).  The first
 * pass ends when every one of its requests has ended; with min_time the
 * steady part begins then (the first pass's figures are taken), and goes
 * on until the last slice's window has closed and every request in flight
 * has ended (slice.c). */
static int run_more(struct run *r, double now) {
  if (!r->steady) {
    if (r->finished < r->total) return 1;
    if (r->min_time <= 0 || r->total == 0) return 0;
    r->t_first = r->t_steady = now;
    r->first_done = r->finished;
    r->first_bytes = r->bytes;
    r->steady = 1;
    r->passes++;
    r->next = 0;
    return 1;
  }
  return slice_more(r, now);
}

int run_loop(struct run *r) {
  double last_check = now_mono();
  int64 fd;
  int more;
  ioq_start();
  while ((more = run_more(r, now_mono())) > 0) {
    /* open connections while there is work no connection has taken */
    while (r->nfree > 0 && work_left(r) > r->connecting) {
      int rc = conn_start(r);
      ioq_close_pending(&r->closing);
      if (rc != 0) return -1;
    }
    if (r->open == 0) {
      if (work_left(r) == 0) break; /* cannot happen: every request ends */
      continue;
    }
    io_waituntil2(100);
    /* Drain both queues completely (handling one event can queue another,
     * e.g. io_wantwrite on a writable descriptor) before closing any. */
    for (int busy = 1; busy;) {
      busy = 0;
      while ((fd = ioq_canwrite()) != -1) {
        struct conn *c = io_getcookie(fd);
        busy = 1;
        if (c && c->fd == fd && c->state != C_FREE && on_writable(r, c) != 0) {
          ioq_close_pending(&r->closing);
          return -1;
        }
      }
      while ((fd = ioq_canread()) != -1) {
        struct conn *c = io_getcookie(fd);
        busy = 1;
        if (c && c->fd == fd && c->state == C_ACTIVE) on_readable(r, c);
      }
    }
    ioq_close_pending(&r->closing);
    double now = now_mono();
    if (now - last_check >= 0.1) {
      last_check = now;
      int rc = check_timeouts(r, now);
      ioq_close_pending(&r->closing);
      if (rc != 0) return -1;
    }
    if (series_due(&r->series, now)) report_series(r, now, 0);
  }
  return more < 0 ? -2 : 0;
}

void run_free(struct run *r) {
  ioq_close_pending(&r->closing);
  for (unsigned i = 0; r->c && i < r->conc; i++) {
    if (r->c[i].state != C_FREE) io_close(r->c[i].fd);
    free(r->c[i].out);
    free(r->c[i].wbuf);
  }
  free(r->c);
  free(r->freelist);
  ioq_free(&r->closing);
  free(r->rbuf);
  free(r->rq);
}
