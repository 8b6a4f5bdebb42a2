#include "children.h"

#include <errmsg.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* One report a step, written in one write(): smaller than PIPE_BUF (512
 * at the least), so it never arrives in pieces. */
struct report {
  int ok;
  double secs;
  char text[240];
};
_Static_assert(sizeof(struct report) <= 512, "a report must be one atomic pipe write");

void child_fail(const struct child *c, const char *text) {
  struct report r;
  memset(&r, 0, sizeof r);
  snprintf(r.text, sizeof r.text, "%s", text);
  if (write(c->fd, &r, sizeof r) < 0) { /* the parent is gone: nobody to tell */
  }
  _exit(1);
}

static void child_main(const struct child *c, int go, int nsteps, child_step step, void *ctx) {
  for (int i = 0; i < nsteps; i++) {
    char b;
    if (read(go, &b, 1) != 1) _exit(1); /* the parent stopped the run */
    struct report r;
    memset(&r, 0, sizeof r);
    r.ok = 1;
    r.secs = step(ctx, c, i);
    if (write(c->fd, &r, sizeof r) != (ssize_t)sizeof r) _exit(1);
  }
  _exit(0);
}

/* Stop and reap every child, then exit 1 with text. */
static void give_up(const pid_t *pid, int n, const char *text) {
  for (int k = 0; k < n; k++)
    if (pid[k] > 0) kill(pid[k], SIGKILL);
  for (int k = 0; k < n; k++)
    if (pid[k] > 0) waitpid(pid[k], NULL, 0);
  die(1, text);
}

static ssize_t read_full(int fd, void *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, (char *)buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return r < 0 ? -1 : (ssize_t)got;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

void children_run(int n, int nsteps, child_step step, void *ctx, double *secs) {
  pid_t *pid = calloc((size_t)n, sizeof *pid);
  int *from = calloc((size_t)n, sizeof *from);
  int *go = calloc((size_t)n, sizeof *go); /* the write end of each child's start pipe */
  char text[300];
  if (pid == NULL || from == NULL || go == NULL) die(1, "out of memory for the children");
  fflush(NULL); /* nothing buffered is written twice */
  /* a child that died shows as a short report, with a message, not as a
   * SIGPIPE that ends the parent without one */
  signal(SIGPIPE, SIG_IGN);
  for (int k = 0; k < n; k++) {
    /* A start pipe for each child: with one pipe for all, a fast child
     * could take a second start byte of the same step and run ahead. */
    int p[2], g[2];
    if (pipe(p) != 0 || pipe(g) != 0) {
      snprintf(text, sizeof text, "cannot make a pipe: %s", strerror(errno));
      give_up(pid, k, text);
    }
    pid[k] = fork();
    if (pid[k] < 0) {
      snprintf(text, sizeof text, "cannot start a child: %s", strerror(errno));
      give_up(pid, k, text);
    }
    if (pid[k] == 0) {
      close(g[1]);
      close(p[0]);
      for (int j = 0; j < k; j++) close(from[j]), close(go[j]);
      struct child c = {k, p[1]};
      child_main(&c, g[0], nsteps, step, ctx);
    }
    close(p[1]); /* a child's pipes end at EOF when that child does */
    close(g[0]);
    from[k] = p[0];
    go[k] = g[1];
  }
  for (int i = 0; i < nsteps; i++) {
    for (int k = 0; k < n; k++)
      if (write(go[k], "s", 1) != 1) {
        snprintf(text, sizeof text, "cannot start child %d: %s", k, strerror(errno));
        give_up(pid, n, text);
      }
    for (int k = 0; k < n; k++) {
      struct report r;
      if (read_full(from[k], &r, sizeof r) != (ssize_t)sizeof r) {
        snprintf(text, sizeof text, "child %d ended without a result", k);
        give_up(pid, n, text);
      }
      if (!r.ok) {
        r.text[sizeof r.text - 1] = '\0';
        give_up(pid, n, r.text);
      }
      secs[(size_t)i * (size_t)n + (size_t)k] = r.secs;
    }
  }
  for (int k = 0; k < n; k++) {
    int st;
    close(go[k]);
    close(from[k]);
    if (waitpid(pid[k], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      pid[k] = 0;
      snprintf(text, sizeof text, "child %d did not end cleanly", k);
      give_up(pid, n, text);
    }
    pid[k] = 0;
  }
  free(go);
  free(from);
  free(pid);
}
