/* -N PROCS: the listening sockets are already bound; fork PROCS children
 * that accept on them (all on the same ones; with --reuseport each on its
 * own SO_REUSEPORT set where there is one, listen.c; a restarted child gets the same set back, and the parent never
 * closes one, which would drop the connections queued on it), restart a
 * child that dies, report the summed counters (kept in shared memory, one
 * slot per child) on SIGUSR1, and stop every child on SIGTERM/SIGINT.  A
 * child ends too when the parent dies, however it dies: it watches a pipe
 * whose write end only the parent holds (os_child.h). */
#include "server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "os_child.h"

static volatile sig_atomic_t p_term, p_usr1, p_chld;

static void on_sig(int sig) {
  if (sig == SIGUSR1) {
    p_usr1 = 1;
  } else if (sig == SIGCHLD) {
    p_chld = 1;
  } else {
    p_term = 1;
    stop_watchdog(sig);
  }
}

struct child {
  pid_t pid;
  double started;
};

static pid_t spawn(struct server *s, struct counters *slot, unsigned k,
                   const sigset_t *mask, pid_t parent, int pwatch[2]) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  s->pwatch = os_parent_watch_child(pwatch, SIGTERM); /* the loop watches it */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &sa, NULL);
  loop_signals(0);
  sigprocmask(SIG_SETMASK, mask, NULL);
  if (getppid() != parent) _exit(0); /* the parent died before that (the watch says so too) */
  listen_keep(s->ls, k, s->lfd);
  slot->pid = getpid();
  s->ctr = slot;
  int rc = server_loop(s);
  if (rc != 0) say(s, "httpd: event loop: %s", strerror(errno));
  _exit(rc != 0);
}

static void report(struct server *s, const struct counters *slots, unsigned n,
                   int per_child, struct counters *sum, double until) {
  memset(sum, 0, sizeof *sum);
  for (unsigned i = 0; i < n; i++) {
    counters_add(sum, &slots[i]);
    if (per_child) {
      char who[40];
      snprintf(who, sizeof who, "httpd[%ld]", (long)slots[i].pid);
      counters_print(s, who, &slots[i], until);
    }
  }
  counters_print(s, "httpd", sum, until);
}

/* SIGTERM to every child; SIGKILL to those still there after 0.75 s (each
 * child's own watchdog ends it at 0.9 s anyway), so that the whole of
 * httpd -N is gone within a second of a SIGTERM. */
static void stop_children(struct child *kids, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (kids[i].pid > 0) kill(kids[i].pid, SIGTERM);
  double limit = now_mono() + 0.75;
  for (;;) {
    int left = 0;
    for (unsigned i = 0; i < n; i++) {
      if (kids[i].pid <= 0) continue;
      pid_t r = waitpid(kids[i].pid, NULL, WNOHANG);
      if (r == kids[i].pid || (r < 0 && errno == ECHILD)) kids[i].pid = 0; else left++;
    }
    if (left == 0) return;
    if (now_mono() > limit) {
      for (unsigned i = 0; i < n; i++)
        if (kids[i].pid > 0) kill(kids[i].pid, SIGKILL);
      limit = now_mono() + 5;
    }
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

int prefork_run(struct server *s, unsigned n, const char *stats_path) {
  struct counters *slots = mmap(NULL, n * sizeof *slots, PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  struct child *kids = calloc(n, sizeof *kids);
  if (slots == MAP_FAILED || kids == NULL) {
    say(s, "httpd: shared counters: %s", strerror(errno));
    return 1;
  }
  /* Its write end stays open here until we exit, however we exit. */
  int pwatch[2];
  if (os_parent_watch_open(pwatch) != 0) {
    say(s, "httpd: parent-death pipe: %s", strerror(errno));
    return 1;
  }
  memset(slots, 0, n * sizeof *slots);
  double t0 = now_mono();
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGUSR1);
  sigaddset(&block, SIGCHLD);
  sigprocmask(SIG_BLOCK, &block, &old);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_sig;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGCHLD, &sa, NULL);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, NULL);
  watchdog_signals();
  pid_t parent = getpid();
  int rc = 0, quick_deaths = 0;
  for (unsigned i = 0; i < n; i++) {
    kids[i].pid = spawn(s, &slots[i], i, &old, parent, pwatch);
    kids[i].started = now_mono();
    if (kids[i].pid < 0) {
      say(s, "httpd: fork: %s", strerror(errno));
      p_term = 1, rc = 1;
      break;
    }
  }
  while (!p_term) {
    sigsuspend(&old);
    if (p_usr1) {
      p_usr1 = 0;
      struct counters sum;
      report(s, slots, n, 1, &sum, 0);
    }
    if (!p_chld) continue;
    p_chld = 0;
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
      for (unsigned i = 0; i < n; i++) {
        if (kids[i].pid != pid) continue;
        kids[i].pid = 0;
        if (p_term) break;
        if (WIFSIGNALED(st))
          say(s, "httpd: child %ld killed by signal %d, restarting", (long)pid, WTERMSIG(st));
        else
          say(s, "httpd: child %ld exited %d, restarting", (long)pid, WEXITSTATUS(st));
        /* A child that keeps dying at once would spin: give up. */
        quick_deaths = now_mono() - kids[i].started < 1 ? quick_deaths + 1 : 0;
        if (quick_deaths > 5) {
          say(s, "httpd: children keep dying, stopping");
          p_term = 1, rc = 1;
          break;
        }
        kids[i].pid = spawn(s, &slots[i], i, &old, parent, pwatch);
        kids[i].started = now_mono();
        if (kids[i].pid < 0) {
          say(s, "httpd: fork: %s", strerror(errno));
          kids[i].pid = 0;
        }
      }
    }
  }
  stop_children(kids, n);
  struct counters sum;
  report(s, slots, n, 0, &sum, now_mono() + 0.1);
  sum.listen_sockets = (uint64_t)s->ls->n * (s->ls->groups > 0 ? s->ls->groups : 1);
  if (stats_path != NULL) {
    struct rusage ru;
    double u = 0, sy = 0;
    if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {
      u = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
      sy = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    }
    if (write_stats(stats_path, 0, &sum, slots, n, now_mono() - t0, u, sy) != 0) {
      say(s, "httpd: --stats: %s", strerror(errno));
      rc = 1;
    }
  }
  close(pwatch[0]); /* the children are gone: the pipe has done its work */
  close(pwatch[1]);
  free(kids);
  munmap(slots, n * sizeof *slots);
  return rc;
}
