/* httpd -1: one connection, already open, for a super-server that forks a
 * process per connection (ucspi-tcp's tcpserver, inetd): the requests come
 * on fd 0, the responses go to fd 1, the access log to fd 2.  The same
 * parser, path confinement and response heads as the event loop
 * (serve_request), but plain blocking I/O: the process has nothing else to
 * do while it waits.  Bodies go out with sendfile when fd 1 is a socket,
 * with pread and write otherwise or when sendfile is refused. */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common.h"
#include "os_sendfile.h"

struct one {
  struct server *s;
  struct conn *c;
  int sock;        /* fd 1 is a socket: sendfile, and SO_SNDTIMEO bounds a write */
  int no_sendfile; /* refused once: read and write from then on */
  int ended;       /* the connection is over (timeout, write error) */
  char buf[65536]; /* file bytes on their way with read/write */
};

/* The peer for the log: TCPREMOTEIP from tcpserver when it is an address,
 * else getpeername(fd 0), else "-". */
static void one_peer(struct conn *c) {
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  const char *ip = getenv("TCPREMOTEIP");
  struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
  socklen_t sl = sizeof ss;
  if (ip != NULL && inet_pton(AF_INET, ip, &a4->sin_addr) == 1)
    ss.ss_family = AF_INET;
  else if (ip != NULL && inet_pton(AF_INET6, ip, &a6->sin6_addr) == 1)
    ss.ss_family = AF_INET6;
  else if (getpeername(0, (struct sockaddr *)&ss, &sl) != 0)
    ss.ss_family = AF_UNSPEC;
  conn_peer(c, &ss);
}

/* Writes the iovecs whole.  0, or -1: the client is gone, or (on a socket)
 * it took nothing for -t SECS (SO_SNDTIMEO: EAGAIN). */
static int put_iov(struct one *o, struct iovec *iov, int k) {
  while (k > 0) {
    ssize_t n = writev(1, iov, k);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) o->s->ctr->timeouts++;
      return -1;
    }
    o->s->ctr->bytes += (uint64_t)n;
    if (n > 0) serve_first_byte(o->s, o->c);
    while (k > 0 && (size_t)n >= iov->iov_len) n -= (ssize_t)iov->iov_len, iov++, k--;
    if (k > 0) iov->iov_base = (char *)iov->iov_base + n, iov->iov_len -= (size_t)n;
  }
  return 0;
}

/* The file part [off, end) after `head`, with pread and write. */
static int send_copy(struct one *o, const char *head, size_t hlen) {
  struct conn *c = o->c;
  while (hlen > 0 || c->off < c->end) {
    size_t want = c->end - c->off < sizeof o->buf ? (size_t)(c->end - c->off) : sizeof o->buf;
    ssize_t r = want > 0 ? pread(c->file_fd, o->buf, want, (off_t)c->off) : 0;
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 || (want > 0 && r == 0)) return -1; /* the file shrank: framing is lost */
    struct iovec iov[2];
    int k = 0;
    if (hlen > 0) iov[k].iov_base = (void *)head, iov[k++].iov_len = hlen;
    if (r > 0) iov[k].iov_base = o->buf, iov[k++].iov_len = (size_t)r;
    if (put_iov(o, iov, k) != 0) return -1;
    hlen = 0;
    c->off += (uint64_t)r;
  }
  return 0;
}

/* The head and the body of one answer. */
static int send_answer(struct one *o) {
  struct conn *c = o->c;
  size_t hlen = c->out_len;
  if (o->sock && !o->no_sendfile && !o->s->use_mmap && c->end - c->off > HTTPD_INLINE) {
    while (c->off < c->end) {
      ssize_t n = os_sendfile(1, c->file_fd, c->off, (size_t)(c->end - c->off),
                              c->out + c->out_len - hlen, hlen);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        o->s->ctr->timeouts++;
        return -1;
      }
      if (n < 0 && (errno == EINVAL || errno == ENOSYS || errno == ENOTSOCK ||
                    errno == EOPNOTSUPP)) {
        o->no_sendfile = 1; /* a socket sendfile will not serve: copy */
        return send_copy(o, c->out + c->out_len - hlen, hlen);
      }
      if (n <= 0) return -1;
      o->s->ctr->bytes += (uint64_t)n;
      serve_first_byte(o->s, c);
      size_t used = (size_t)n < hlen ? (size_t)n : hlen;
      hlen -= used;
      c->off += (uint64_t)n - used;
    }
    return hlen > 0 ? send_copy(o, c->out + c->out_len - hlen, hlen) : 0;
  }
  /* A small body goes with the head in one writev, as in the event loop. */
  return send_copy(o, c->out, hlen);
}

/* Waits until fd 0 has bytes or until `until` (now_mono): 1, or 0 at the
 * deadline. */
static int wait_input(double until) {
  for (;;) {
    double left = until - now_mono();
    if (left <= 0) return 0;
    struct pollfd pf = {0, POLLIN, 0};
    int r = poll(&pf, 1, (int)(left * 1000) + 1);
    if (r > 0) return 1;
    if (r < 0 && errno != EINTR) return 1; /* let read() tell what is wrong */
  }
}

/* Answers every complete request in c->in; returns when more input is
 * needed or the connection is over. */
static void answer_all(struct one *o) {
  struct server *s = o->s;
  struct conn *c = o->c;
  while (!o->ended && !c->close_after && c->in_len > 0) {
    struct http_req r;
    long n = http_parse(c->in, c->in_len, &r);
    if (n == 0 && c->in_len >= sizeof c->in) n = -413;
    if (n == 0) return;
    server_date(s);
    if (n > 0) {
      c->nreq++;
      serve_request(s, c, &r);
    } else {
      c->close_after = 1;
      serve_error(s, c, NULL, (int)-n);
    }
    c->in_len = c->close_after ? 0 : c->in_len - (size_t)n;
    if (n > 0) memmove(c->in, c->in + n, c->in_len);
    if (send_answer(o) != 0) o->ended = 1;
    serve_file_done(c);
    c->out_len = c->out_pos = 0;
    log_flush(s, 0);
  }
}

static void one_setup(struct one *o) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = SIG_IGN; /* a closed client is an EPIPE, not a death */
  sigaction(SIGPIPE, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  struct stat st;
  o->sock = fstat(1, &st) == 0 && S_ISSOCK(st.st_mode);
  if (!o->sock) return;
  struct timeval tv;
  tv.tv_sec = (time_t)o->s->timeout;
  tv.tv_usec = (suseconds_t)((o->s->timeout - (double)tv.tv_sec) * 1e6);
  if (setsockopt(1, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) {
    /* no bound on a stalled reader: the super-server's own limits apply */
  }
  int one = 1;
  (void)setsockopt(1, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* not TCP: no matter */
}

int oneconn_run(struct server *s, const char *stats_path, int append) {
  struct counters ctr;
  memset(&ctr, 0, sizeof ctr);
  ctr.pid = getpid();
  ctr.connections = 1;
  s->ctr = &ctr;
  struct one *o = calloc(1, sizeof *o);
  struct conn *c = calloc(1, sizeof *c);
  if (o == NULL || c == NULL) {
    free(o);
    free(c);
    say(s, "httpd: -1: out of memory");
    return 1;
  }
  if (!s->quiet && (s->log = calloc(1, sizeof *s->log)) == NULL) {
    free(o);
    free(c);
    say(s, "httpd: -1: out of memory");
    return 1;
  }
  if (s->log != NULL) outfd_open(&s->log->out, 2); /* fd 1 is the client */
  double t0 = now_mono();
  o->s = s;
  o->c = c;
  c->fd = 1;
  c->file_fd = -1;
  if (s->quiet) strcpy(c->peer, "-"); else one_peer(c);
  one_setup(o);
  /* Idle and slowloris deadline: -t SECS after the start or the last answer. */
  double deadline = t0 + s->timeout;
  while (!o->ended && !c->close_after) {
    if (!wait_input(deadline)) {
      ctr.timeouts++;
      break;
    }
    ssize_t r = read(0, c->in + c->in_len, sizeof c->in - c->in_len);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r <= 0) {
      if (r < 0) ctr.errors++;
      break; /* EOF: the client is done */
    }
    c->in_len += (size_t)r;
    uint64_t before = ctr.requests;
    answer_all(o);
    if (ctr.requests != before) deadline = now_mono() + s->timeout;
  }
  log_finish(s);
  free(c);
  free(o);
  if (s->log != NULL) outfd_close(&s->log->out);
  free(s->log);
  s->log = NULL;
  if (stats_path == NULL) return 0;
  double u, sy;
  cpu_times(&u, &sy);
  if (write_stats(stats_path, append, &ctr, NULL, 0, now_mono() - t0, u, sy) != 0) {
    say(s, "httpd: --stats: %s", strerror(errno));
    return 1;
  }
  return 0;
}
