/* The event loop of one process: accept, readiness events, the round of
 * connections that yielded after a chunk, and the timeout sweep. */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "common.h"
#include "evmech.h"
#include "os_child.h"

/* Set by the signal handlers only.  wake_wr is the write end of the loop's
 * self-pipe: a stop signal that lands just before the loop waits still
 * wakes it at once. */
static volatile sig_atomic_t stop_flag, usr1_flag, stop_sig, wake_wr = -1;

/* The watchdog: whatever the process is doing STOP_GRACE after the first
 * SIGTERM/SIGINT (a stalled stderr, a hung write), it dies of that signal. */
#define STOP_GRACE_US 900000

static void on_alarm(int sig) {
  (void)sig;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  int k = stop_sig ? stop_sig : SIGTERM;
  sigaction(k, &sa, NULL);
  sigset_t m;
  sigemptyset(&m);
  sigaddset(&m, k);
  sigprocmask(SIG_UNBLOCK, &m, NULL);
  raise(k);
  _exit(128 + k);
}

void stop_watchdog(int sig) {
  if (stop_sig) return;
  stop_sig = sig;
  struct itimerval it;
  memset(&it, 0, sizeof it);
  it.it_value.tv_usec = STOP_GRACE_US;
  setitimer(ITIMER_REAL, &it, NULL);
}

static void on_stop(int sig) {
  int e = errno;
  stop_flag = 1;
  stop_watchdog(sig);
  if (wake_wr >= 0 && write(wake_wr, "", 1) < 0) {
    /* full: the loop is awake already */
  }
  errno = e;
}

static void on_usr1(int sig) {
  (void)sig;
  int e = errno;
  usr1_flag = 1;
  if (wake_wr >= 0 && write(wake_wr, "", 1) < 0) {
    /* full: the loop is awake already */
  }
  errno = e;
}

/* SIGTERM/SIGINT stop the loop (and arm the watchdog); SIGUSR1 prints the
 * counters unless the parent of a prefork does that; SIGPIPE is ignored. */
void watchdog_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, NULL);
}

void loop_signals(int report_usr1) {
  watchdog_signals();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_stop; /* no SA_RESTART: wake the wait */
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sa.sa_handler = report_usr1 ? on_usr1 : SIG_IGN;
  sigaction(SIGUSR1, &sa, NULL);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, NULL);
}

void server_date(struct server *s) {
  time_t t = time(NULL);
  if (t == s->date_t) return;
  s->date_t = t;
  http_date_fmt(s->date, t);
  s->date[29] = '\0';
}

static void run_ready(struct server *s) {
  struct conn *c = s->ready;
  s->ready = NULL;
  while (c != NULL) {
    struct conn *next = c->rnext;
    c->in_ready = 0;
    if (c->dead) {
      c->rnext = s->free;
      s->free = c;
    } else {
      conn_run(s, c);
    }
    c = next;
  }
}

static int wake_open(struct server *s) {
  if (pipe2(s->wake, O_NONBLOCK | O_CLOEXEC) != 0) return -1;
  if (!io_fd(s->wake[0])) return -1;
  io_setcookie(s->wake[0], s->wake);
  io_wantread(s->wake[0]);
  wake_wr = s->wake[1];
  return 0;
}

static void wake_drain(struct server *s) {
  char b[64];
  while (read(s->wake[0], b, sizeof b) > 0) {
  }
  io_eagain_read(s->wake[0]);
}

/* The parent of -N died (a kill -9 leaves no SIGTERM for its children):
 * stop as SIGTERM stops the loop, watchdog included. */
static void parent_gone(struct server *s) {
  io_dontwantread(s->pwatch);
  stop_flag = 1;
  stop_watchdog(SIGTERM);
}

int server_loop(struct server *s) {
  /* Without it, a child whose listening socket is fd 16 (or 32, ...) spun
   * for ever in io_waituntil2, never accepting (lib/ioq.h). */
  ioq_start();
  if (wake_open(s) != 0) return -1;
  if (s->pwatch >= 0) { /* -N child: ends like SIGTERM once the parent is gone */
    if (!io_fd(s->pwatch)) return -1;
    io_setcookie(s->pwatch, &s->pwatch);
    io_wantread(s->pwatch);
  }
  for (int i = 0; i < s->nlisten; i++) {
    if (!io_fd(s->lfd[i])) return -1;
    io_setcookie(s->lfd[i], NULL);
    io_wantread(s->lfd[i]);
  }
  snprintf(s->ctr->evmech, sizeof s->ctr->evmech, "%s", evmech_name());
  s->now = now_mono();
  server_date(s);
  double next_sweep = s->now + 1;
  while (!stop_flag) {
    if (usr1_flag) {
      usr1_flag = 0;
      counters_print(s, "httpd", s->ctr, 0);
    }
    log_flush(s, 0);
    int64 ms = 0;
    if (s->ready == NULL) {
      double left = next_sweep - s->now;
      ms = left <= 0 ? 0 : (int64)(left * 1000) + 1;
    }
    if (io_waituntil2(ms) < 0 && errno != EINTR) return -1;
    s->now = now_mono();
    server_date(s);
    /* Both queues until both are empty: handling one event can queue
     * another (io_wantread on a descriptor already readable).  A connection
     * on the ready list has its turn there. */
    int64_t fd;
    for (int busy = 1; busy;) {
      busy = 0;
      while ((fd = ioq_canread()) != -1) {
        void *ck = io_getcookie(fd);
        struct conn *c = ck;
        busy = 1;
        if (ck == s->wake) {
          wake_drain(s);
        } else if (ck == &s->pwatch) {
          if (os_parent_gone(s->pwatch)) parent_gone(s);
        } else if (c == NULL) {
          conn_accept(s, (int)fd);
        } else if (c->fd == fd) {
          c->drained = 0;
          if (!c->in_ready) conn_run(s, c);
        }
      }
      while ((fd = ioq_canwrite()) != -1) {
        void *ck = io_getcookie(fd);
        struct conn *c = ck;
        busy = 1;
        if (c != NULL && ck != s->wake && ck != &s->pwatch && c->fd == fd && !c->in_ready) conn_run(s, c);
      }
    }
    if (s->ready != NULL) run_ready(s);
    if (s->now >= next_sweep) {
      /* Drop connections past their deadline: idle, stalled, slowloris. */
      while (s->head != NULL && s->head->deadline <= s->now) {
        s->ctr->timeouts++;
        conn_close(s, s->head);
      }
      next_sweep = s->now + (s->timeout < 1 ? s->timeout / 2 + 0.01 : 1);
    }
    ioq_close_pending(&s->closing);
  }
  conn_free_all(s);
  log_finish(s);
  return 0;
}

int single_run(struct server *s, const char *stats_path) {
  struct counters ctr;
  memset(&ctr, 0, sizeof ctr);
  ctr.pid = getpid();
  ctr.listen_sockets = (uint64_t)s->nlisten;
  s->ctr = &ctr;
  double t0 = now_mono();
  loop_signals(1);
  int rc = server_loop(s);
  if (rc != 0) say(s, "httpd: event loop: %s", strerror(errno));
  counters_print(s, "httpd", &ctr, now_mono() + 0.2);
  if (stats_path != NULL) {
    double u, sy;
    cpu_times(&u, &sy);
    if (write_stats(stats_path, 0, &ctr, NULL, 0, now_mono() - t0, u, sy) != 0) {
      say(s, "httpd: --stats: %s", strerror(errno));
      rc = 1;
    }
  }
  return rc != 0;
}
