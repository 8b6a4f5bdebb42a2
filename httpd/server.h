/* The event-loop side of httpd: connections, the per-process loop, the
 * prefork supervisor, counters and the access log. */
#ifndef HTTPD_SERVER_H
#define HTTPD_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include "http.h"
#include "ioq.h"
#include "lathist.h"

#define HTTPD_IN_SIZE (HTTP_MAX_HEAD + 1024)
#define HTTPD_OUT_SIZE 2048
#define HTTPD_CHUNK (1u << 20) /* file bytes per connection per turn */
#define HTTPD_INLINE 4096      /* a body this small goes out with its head */
#define HTTPD_MAX_LISTEN 8

/* accept(2)'s EAGAIN and errors, by errno (accept.c). */
enum {
  ACC_EAGAIN, ACC_ECONNABORTED, ACC_EINTR, ACC_EMFILE, ACC_ENFILE, ACC_ENOBUFS,
  ACC_ENOMEM, ACC_EPERM, ACC_EPROTO, ACC_OTHER, ACCEPT_NERR
};

/* One process's counters; with -N they live in memory shared with the
 * parent, one slot per child, each written by its child only. */
struct counters {
  pid_t pid;
  uint64_t connections, requests, bytes, errors, timeouts, refused;
  uint64_t log_dropped; /* access log lines that did not fit */
  uint64_t accept_empty; /* listening-socket events whose first accept found nothing */
  uint64_t accept_err[ACCEPT_NERR];
  uint64_t listen_sockets; /* set in the summed counters only */
  char evmech[12]; /* what libowfat waits with (lib/evmech.h); "" before the loop */
  /* per request: resolving and opening the file (open + fstat), and from
   * taking the request to its answer's first byte written (lib/lathist.h) */
  struct lathist lat_open, lat_ttfb;
};

struct conn {
  struct conn *prev, *next; /* the active list, ordered by deadline */
  struct conn *rnext;       /* the list of connections to continue */
  int fd, file_fd;
  int in_ready, dead, close_after, want_w, drained;
  unsigned nreq;
  uint64_t t_req;     /* lathist_now() when the request was taken; 0: answered */
  uint64_t off, end;  /* file bytes still to send */
  char *map;          /* -m mmap: the window [map_off, map_off + map_len) */
  size_t map_len;
  uint64_t map_off;
  size_t in_len, out_len, out_pos;
  double deadline;
  char peer[48];
  char in[HTTPD_IN_SIZE];
  char out[HTTPD_OUT_SIZE];
};

/* An output that never blocks (outfd.c). */
enum { OUT_PLAIN, OUT_SEND, OUT_OWN, OUT_SHARED };
struct outfd {
  int fd, how, oldfl;
};

/* The access log: whole lines waiting for stdout, at most sizeof buf. */
#define HTTPD_LOG_LINE 2048 /* longest line; below PIPE_BUF, so written whole */
struct logbuf {
  struct outfd out;
  int broken; /* stdout gone (EPIPE, EBADF): every line is dropped */
  size_t len;
  char buf[65536];
};

/* The listening sockets (listen.c): fd[i] for address i; with -N and
 * SO_REUSEPORT, `groups` sets of them, all[g * n + i] for address i of
 * group g (group 0 is fd[]), child k keeping group k % groups. */
struct laddr {
  struct sockaddr_storage ss;
  socklen_t sl;
  int any6;
};
struct listeners {
  int n;
  int fd[HTTPD_MAX_LISTEN], reuse[HTTPD_MAX_LISTEN];
  struct laddr addr[HTTPD_MAX_LISTEN];
  unsigned groups;
  int *all; /* NULL: one group, fd[] */
};

struct server {
  /* configuration */
  int rootfd, follow, use_mmap, quiet;
  double timeout;
  unsigned max_requests;
  int lfd[HTTPD_MAX_LISTEN];
  int nlisten;
  struct listeners *ls; /* -N: every child's sockets; each keeps its own */
  size_t max_conns;
  /* state */
  size_t nconns;
  struct conn *head, *tail; /* active connections, oldest deadline first */
  struct conn *ready;       /* connections that yielded after a chunk */
  struct conn *free;
  struct counters *ctr;
  double now;
  time_t date_t;
  char date[32];
  struct logbuf *log;
  struct outfd err; /* stderr, for the counters */
  int wake[2];      /* the loop's self-pipe (loop.c) */
  int pwatch;       /* -N child: the parent-death watch (os_child.h); -1 none */
  struct ioq closing; /* closed connections, io_close'd after the events */
  char inl[HTTPD_INLINE]; /* a small body, read to go out with its head */
};

/* listen.c */
/* Binds and listens on ADDR (IPv4, IPv6, [IPv6]) port PORT, IPV6_V6ONLY off
 * when any6; unless shared, with SO_REUSEPORT where it balances, after a
 * plain bind that tells a port in use.  The fd, -1 with errno, -2 not an
 * address. */
int listen_add(struct listeners *l, const char *addr, unsigned port, int any6, int shared);
/* Up to n groups of sockets (fewer when descriptors run out; one where
 * SO_REUSEPORT is missing). */
void listen_groups(struct listeners *l, unsigned n);
/* In child k: its group's fds into lfd[], every other group's closed. */
void listen_keep(struct listeners *l, unsigned child, int *lfd);
void listen_free(struct listeners *l);
/* conn.c */
void conn_accept(struct server *s, int lfd);
void conn_run(struct server *s, struct conn *c);
void conn_close(struct server *s, struct conn *c);
void conn_free_all(struct server *s);
/* The peer's address as the log shows it (an IPv4-mapped one as IPv4), "-"
 * when there is none. */
void conn_peer(struct conn *c, const struct sockaddr_storage *sa);
/* oneconn.c: -1, the one connection on fd 0 (requests) and fd 1 (answers);
 * the log on fd 2.  The exit status for main. */
int oneconn_run(struct server *s, const char *stats_path, int append);
/* serve_file.c */
void serve_request(struct server *s, struct conn *c, const struct http_req *r);
void serve_error(struct server *s, struct conn *c, const struct http_req *r, int status);
void serve_file_done(struct conn *c);
/* After n > 0 bytes of an answer went out: its first byte, timed. */
static inline void serve_first_byte(struct server *s, struct conn *c) {
  if (c->t_req == 0) return;
  lathist_add(&s->ctr->lat_ttfb, c->t_req, lathist_now());
  c->t_req = 0;
}
/* outfd.c */
void outfd_open(struct outfd *o, int fd);
void outfd_close(struct outfd *o);
/* One write (or send): bytes written, or -1 with errno (EAGAIN when full). */
ssize_t outfd_write(const struct outfd *o, const void *p, size_t n);
/* 1 when o may take bytes before `until` (now_mono), else 0. */
int outfd_wait(const struct outfd *o, double until);
/* All n bytes, waiting up to `until`; 0 or -1. */
int outfd_put(const struct outfd *o, const char *p, size_t n, double until);
/* loop.c */
int server_loop(struct server *s);
void server_date(struct server *s);
/* log.c */
void log_access(struct server *s, struct conn *c, const struct http_req *r, int status,
                uint64_t body);
/* Writes what stdout takes now; waits for it until the time `until`
 * (now_mono) at most. */
void log_flush(struct server *s, double until);
/* At exit: flushes for up to 0.3 s, counts what is left as dropped. */
void log_finish(struct server *s);
/* One counters line on stderr; waits up to `until` for a stalled stderr,
 * then drops it. */
void counters_print(struct server *s, const char *who, const struct counters *c,
                    double until);
void counters_add(struct counters *sum, const struct counters *c);
/* prefork.c: runs fn in nprocs children, supervises them; returns the exit
 * status for main. */
int prefork_run(struct server *s, unsigned nprocs, const char *stats_path);
int single_run(struct server *s, const char *stats_path);
void loop_signals(int report_usr1);
/* Arms the exit watchdog: sig kills the process in 0.9 s if it has not
 * exited by then (signal-safe; the first call wins). */
void stop_watchdog(int sig);
void watchdog_signals(void); /* the SIGALRM handler stop_watchdog needs */
/* One line on stderr (printf format, no newline), never blocking for more
 * than 0.1 s; the caller escapes untrusted bytes with printable(). */
void say(struct server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The --stats file: the summed counters c, and with -N each child's
 * (kids, nkids; NULL, 0 otherwise); append: one block appended to path
 * (--stats-append, stats_open_append) instead of the file replaced. */
int write_stats(const char *path, int append, const struct counters *c, const struct counters *kids,
                unsigned nkids, double wall_s, double user_s, double sys_s);
/* accept.c */
/* One failed accept(2) of errno err; first: the first of this event's
 * accepts (EAGAIN there is a wake-up that found nothing). */
void accept_count(struct counters *c, int err, int first);
void accept_add(struct counters *sum, const struct counters *c);
struct stats_file;
void accept_stats(struct stats_file *f, const struct counters *sum, const struct counters *kids,
                  unsigned nkids);

#endif
