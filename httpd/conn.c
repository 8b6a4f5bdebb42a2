/* One connection's state machine: read a request head, answer it, send the
 * answer (in chunks for big files), and go on with the next request. */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <io.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "os_sendfile.h"

static void list_unlink(struct server *s, struct conn *c) {
  if (c->prev) c->prev->next = c->next; else s->head = c->next;
  if (c->next) c->next->prev = c->prev; else s->tail = c->prev;
  c->prev = c->next = NULL;
}

static void list_append(struct server *s, struct conn *c) {
  c->next = NULL;
  c->prev = s->tail;
  if (s->tail) s->tail->next = c; else s->head = c;
  s->tail = c;
}

/* A new deadline: the list stays ordered because deadlines only grow. */
static void conn_touch(struct server *s, struct conn *c) {
  c->deadline = s->now + s->timeout;
  if (s->tail != c) {
    list_unlink(s, c);
    list_append(s, c);
  }
}

void conn_peer(struct conn *c, const struct sockaddr_storage *sa) {
  const void *a = NULL;
  int af = sa->ss_family;
  if (af == AF_INET) {
    a = &((const struct sockaddr_in *)sa)->sin_addr;
  } else if (af == AF_INET6) {
    const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    a = a6;
    if (IN6_IS_ADDR_V4MAPPED(a6)) af = AF_INET, a = a6->s6_addr + 12;
  }
  if (a == NULL || inet_ntop(af, a, c->peer, sizeof c->peer) == NULL)
    strcpy(c->peer, "-");
}

static const char refuse_msg[] =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

void conn_accept(struct server *s, int lfd) {
  for (int k = 0; k < 32; k++) {
    struct sockaddr_storage sa;
    socklen_t sl = sizeof sa;
    int fd = accept4(lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      int e = errno;
      accept_count(s->ctr, e, k == 0);
      if (e == EAGAIN || e == EWOULDBLOCK) io_eagain_read(lfd);
      if (e == EMFILE || e == ENFILE) s->ctr->refused++;
      return; /* EINTR, ECONNABORTED, ...: the next event retries */
    }
    struct conn *c = s->free;
    if (s->nconns >= s->max_conns || (c == NULL && (c = malloc(sizeof *c)) == NULL)) {
      /* Full: say so and close, rather than letting it hang in the backlog. */
      if (send(fd, refuse_msg, sizeof refuse_msg - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
        /* nothing more to do for it */
      }
      close(fd);
      s->ctr->refused++;
      continue;
    }
    if (c == s->free) s->free = c->rnext;
    if (!io_fd_flags(fd, IO_FD_CANWRITE | IO_FD_NONBLOCK)) {
      close(fd);
      c->rnext = s->free;
      s->free = c;
      s->ctr->refused++;
      return;
    }
    int one = 1;
    if (sa.ss_family != AF_UNIX)
      (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    c->file_fd = -1;
    c->in_ready = c->dead = c->close_after = c->want_w = c->drained = 0;
    c->nreq = 0;
    c->off = c->end = 0;
    c->map = NULL;
    c->map_len = c->map_off = 0;
    c->in_len = c->out_len = c->out_pos = 0;
    c->rnext = NULL;
    if (s->quiet) strcpy(c->peer, "-"); else conn_peer(c, &sa);
    c->deadline = s->now + s->timeout;
    list_append(s, c);
    s->nconns++;
    s->ctr->connections++;
    io_setcookie(fd, c);
    io_wantread(fd);
  }
}

/* The descriptor is io_close'd by the loop once libowfat's event queues are
 * drained (lib/ioq.h: an io_close on a queued one may never happen). */
void conn_close(struct server *s, struct conn *c) {
  serve_file_done(c);
  ioq_close_later(&s->closing, c->fd);
  c->fd = -1;
  list_unlink(s, c);
  s->nconns--;
  if (c->in_ready) {
    c->dead = 1; /* the ready list frees it */
  } else {
    c->rnext = s->free;
    s->free = c;
  }
}

/* Sends what is pending: the head in c->out, then the file bytes with
 * sendfile (os_sendfile.h: the head first, held back to share a packet with
 * the file bytes) or from an mmap window, at most HTTPD_CHUNK file bytes per
 * turn.  With sendfile, a body of at most HTTPD_INLINE bytes is read and
 * goes out with the head in one writev.  1 done, 0 would block, 2 chunk
 * budget used, -1 error. */
/* -m mmap: make the window cover c->off; returns its bytes from c->off. */
static size_t map_window(struct conn *c) {
  if (c->map != NULL && c->off >= c->map_off && c->off < c->map_off + c->map_len)
    return (size_t)(c->map_off + c->map_len - c->off);
  if (c->map != NULL) munmap(c->map, c->map_len);
  c->map = NULL;
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  c->map_off = c->off - c->off % page;
  uint64_t len = c->end - c->map_off;
  if (len > HTTPD_CHUNK) len = HTTPD_CHUNK;
  void *m = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, c->file_fd, (off_t)c->map_off);
  if (m == MAP_FAILED) return 0;
  c->map = m;
  c->map_len = (size_t)len;
  return (size_t)(c->map_off + len - c->off);
}

static int conn_send(struct server *s, struct conn *c) {
  uint64_t budget = HTTPD_CHUNK;
  for (;;) {
    struct iovec iov[2];
    int k = 0;
    size_t head = c->out_len - c->out_pos, fpart = 0;
    if (head > 0) iov[k].iov_base = c->out + c->out_pos, iov[k++].iov_len = head;
    if (s->use_mmap && c->off < c->end) {
      if (budget == 0) return 2;
      fpart = map_window(c);
      if (fpart == 0) return -1;
      if (fpart > c->end - c->off) fpart = (size_t)(c->end - c->off);
      if (fpart > budget) fpart = (size_t)budget;
      iov[k].iov_base = c->map + (c->off - c->map_off), iov[k++].iov_len = fpart;
    } else if (head > 0 && c->off < c->end && c->end - c->off <= HTTPD_INLINE) {
      /* A small body: read it and send it with the head in one writev,
       * cheaper than a send and a sendfile of a few bytes. */
      ssize_t r = pread(c->file_fd, s->inl, (size_t)(c->end - c->off), (off_t)c->off);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return -1; /* error, or the file shrank under us */
      fpart = (size_t)r;
      iov[k].iov_base = s->inl, iov[k++].iov_len = fpart;
    }
    ssize_t n;
    if (!s->use_mmap && fpart == 0 && c->off < c->end) {
      /* sendfile of the file part, after the head while it is due */
      if (budget == 0) return 2;
      uint64_t want = c->end - c->off;
      if (want > budget) want = budget;
      fpart = (size_t)want;
      n = os_sendfile(c->fd, c->file_fd, c->off, fpart, c->out + c->out_pos, head);
      if (n == 0) return -1; /* the file shrank under us */
    } else if (k == 0) {
      return 1;
    } else if (k == 1 && head > 0) {
      n = send(c->fd, iov[0].iov_base, head, MSG_NOSIGNAL);
    } else {
      n = writev(c->fd, iov, k);
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        io_eagain_write(c->fd);
        return 0;
      }
      return -1;
    }
    s->ctr->bytes += (uint64_t)n;
    if (n > 0) serve_first_byte(s, c);
    size_t used = (size_t)n < head ? (size_t)n : head;
    c->out_pos += used;
    c->off += (uint64_t)n - used;
    budget -= (uint64_t)n - used;
    if (c->out_pos >= c->out_len && c->off >= c->end) return 1;
    if (fpart > 0 || (size_t)n < head) conn_touch(s, c);
  }
}

void conn_run(struct server *s, struct conn *c) {
  for (;;) {
    if (c->out_pos < c->out_len || c->off < c->end) {
      int r = conn_send(s, c);
      if (r < 0) {
        conn_close(s, c);
        return;
      }
      if (r == 0) { /* the socket is full: wait for it, stop reading meanwhile */
        if (!c->want_w) io_dontwantread(c->fd);
        c->want_w = 1;
        io_wantwrite(c->fd);
        return;
      }
      if (r == 2) { /* chunk budget used: let the others have a turn */
        if (!c->in_ready) {
          c->in_ready = 1;
          c->rnext = s->ready;
          s->ready = c;
        }
        return;
      }
      serve_file_done(c);
      c->out_len = c->out_pos = 0;
      if (c->close_after) {
        conn_close(s, c);
        return;
      }
      if (c->want_w) {
        c->want_w = 0;
        io_dontwantwrite(c->fd);
        io_wantread(c->fd);
        c->drained = 0;
      }
      conn_touch(s, c);
    }
    if (c->in_len > 0) {
      struct http_req r;
      long n = http_parse(c->in, c->in_len, &r);
      if (n == 0 && c->in_len >= sizeof c->in) n = -413;
      if (n > 0) {
        c->nreq++;
        serve_request(s, c, &r);
        if (c->close_after) {
          c->in_len = 0; /* whatever follows is not answered */
        } else {
          c->in_len -= (size_t)n;
          memmove(c->in, c->in + n, c->in_len);
        }
        continue;
      }
      if (n < 0) {
        c->close_after = 1;
        serve_error(s, c, NULL, (int)-n);
        c->in_len = 0;
        continue;
      }
    } else if (c->drained) {
      return; /* the socket was empty at the last read: wait for an event */
    }
    size_t room = sizeof c->in - c->in_len;
    /* read(2), not io_tryread: that one leaves a descriptor whose read
     * filled the buffer on a libowfat queue (lib/ioq.h) */
    ssize_t r = read(c->fd, c->in + c->in_len, room);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      io_eagain_read(c->fd);
      c->drained = 1;
      return;
    }
    if (r <= 0) {
      if (r < 0) s->ctr->errors++;
      conn_close(s, c);
      return;
    }
    c->drained = (size_t)r < room;
    c->in_len += (size_t)r;
  }
}

/* At exit: close every connection and free them all. */
void conn_free_all(struct server *s) {
  while (s->head != NULL) conn_close(s, s->head);
  for (struct conn *c = s->ready, *next; c != NULL; c = next) {
    next = c->rnext; /* closed above while waiting for their turn */
    free(c);
  }
  s->ready = NULL;
  for (struct conn *c = s->free, *next; c != NULL; c = next) {
    next = c->rnext;
    free(c);
  }
  s->free = NULL;
  ioq_free(&s->closing);
}
