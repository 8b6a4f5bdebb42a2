/* The event loop of one process: accept, readiness events, the round of
 * connections that yielded after a chunk, and the timeout sweep. */
#include "server.h"

#include <errno.h>
#include <io.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

/* Set by the signal handlers only. */
static volatile sig_atomic_t stop_flag, usr1_flag;

static void on_stop(int sig) {
  (void)sig;
  stop_flag = 1;
}

static void on_usr1(int sig) {
  (void)sig;
  usr1_flag = 1;
}

/* SIGTERM/SIGINT stop the loop; SIGUSR1 prints the counters unless the
 * parent of a prefork does that; SIGPIPE is ignored. */
void loop_signals(int report_usr1) {
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

int server_loop(struct server *s) {
  for (int i = 0; i < s->nlisten; i++) {
    if (!io_fd(s->lfd[i])) return -1;
    io_setcookie(s->lfd[i], NULL);
    io_wantread(s->lfd[i]);
  }
  s->now = now_mono();
  server_date(s);
  double next_sweep = s->now + 1;
  while (!stop_flag) {
    if (usr1_flag) {
      usr1_flag = 0;
      counters_print("httpd", s->ctr);
    }
    log_flush(s);
    int64 ms = 0;
    if (s->ready == NULL) {
      double left = next_sweep - s->now;
      ms = left <= 0 ? 0 : (int64)(left * 1000) + 1;
    }
    if (io_waituntil2(ms) < 0 && errno != EINTR) return -1;
    s->now = now_mono();
    server_date(s);
    int64 fd;
    while ((fd = io_canread()) != -1) {
      struct conn *c = io_getcookie(fd);
      if (c == NULL) {
        conn_accept(s, (int)fd);
      } else if (c->fd == fd) {
        c->drained = 0;
        conn_run(s, c);
      }
    }
    while ((fd = io_canwrite()) != -1) {
      struct conn *c = io_getcookie(fd);
      if (c != NULL && c->fd == fd) conn_run(s, c);
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
  }
  log_flush(s);
  return 0;
}

int single_run(struct server *s, const char *stats_path) {
  struct counters ctr;
  memset(&ctr, 0, sizeof ctr);
  ctr.pid = getpid();
  s->ctr = &ctr;
  double t0 = now_mono();
  loop_signals(1);
  int rc = server_loop(s);
  if (rc != 0) perror("httpd: event loop");
  counters_print("httpd", &ctr);
  if (stats_path != NULL) {
    double u, sy;
    cpu_times(&u, &sy);
    if (write_stats(stats_path, &ctr, now_mono() - t0, u, sy) != 0) {
      perror("httpd: --stats");
      rc = 1;
    }
  }
  return rc != 0;
}
