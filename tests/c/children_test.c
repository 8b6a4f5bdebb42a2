/* stdiorw's children: N processes run every step together (none starts
 * step i+1 before all finished step i), each child's seconds come back,
 * and a failing child ends the run with its one line and no child left. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "../../stdiorw/children.h"

#define N 5
#define STEPS 40

struct ctx {
  int log;     /* O_APPEND: one line a write, in the order they happened */
  int fail_k;  /* the child that fails at step fail_i (-1: none) */
  int fail_i;
};

static double step(void *arg, const struct child *c, int i) {
  struct ctx *x = arg;
  char line[32];
  int n = snprintf(line, sizeof line, "s %d %d\n", i, c->k);
  if (write(x->log, line, (size_t)n) != n) child_fail(c, "log");
  if (c->k == x->fail_k && i == x->fail_i) child_fail(c, "cannot write f.3: No space left on device");
  /* child 0 ends its steps at once, the others later: a child that ran
   * ahead of the others would show */
  struct timespec ts = {0, 200000 * (long)c->k};
  nanosleep(&ts, NULL);
  n = snprintf(line, sizeof line, "e %d %d\n", i, c->k);
  if (write(x->log, line, (size_t)n) != n) child_fail(c, "log");
  return 0.001 * (i + 1) + c->k;
}

int main(void) {
  char path[] = "/tmp/children_test.XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "a log file is made");
  struct ctx x = {open(path, O_WRONLY | O_APPEND), -1, -1};
  static double secs[STEPS * N];
  children_run(N, STEPS, step, &x, secs);
  int right = 1;
  for (int i = 0; i < STEPS; i++)
    for (int k = 0; k < N; k++) right &= secs[i * N + k] == 0.001 * (i + 1) + k;
  CHECK(right, "each child's seconds of each step come back in their place");

  FILE *f = fopen(path, "r");
  int ended[STEPS] = {0}, started[STEPS] = {0}, early = 0, lines = 0;
  char kind;
  int i, k;
  while (f && fscanf(f, " %c %d %d", &kind, &i, &k) == 3 && i >= 0 && i < STEPS) {
    lines++;
    if (kind == 's') {
      if (i > 0 && ended[i - 1] != N) early++;
      started[i]++;
    } else {
      ended[i]++;
    }
  }
  if (f) fclose(f);
  CHECK(lines == 2 * N * STEPS && started[STEPS - 1] == N, "every child runs every step once");
  CHECK(early == 0, "no child starts a step before all have finished the one before");

  /* A child fails at step 2: the run ends with exit 1 and its one line. */
  int err[2];
  CHECK(pipe(err) == 0, "a pipe for the run's stderr");
  fflush(stdout); /* the run's children must not print our lines again */
  pid_t run = fork();
  if (run == 0) {
    setpgid(0, 0); /* its own group: what is left of it can be asked for */
    dup2(err[1], 2);
    struct ctx y = {x.log, 3, 2};
    static double s2[STEPS * N];
    children_run(N, STEPS, step, &y, s2);
    _exit(0);
  }
  close(err[1]);
  char out[512] = "";
  ssize_t got = 0, r;
  while ((r = read(err[0], out + got, sizeof out - 1 - (size_t)got)) > 0) got += r;
  out[got > 0 ? got : 0] = '\0';
  int st = 0;
  waitpid(run, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1, "a failing child makes the run exit 1");
  CHECK(strstr(out, "cannot write f.3: No space left on device\n") != NULL && strchr(out, '\n') == out + strlen(out) - 1,
        "with the child's line, once");
  CHECK(kill(-run, 0) == -1, "and none of its children is left running");
  close(x.log);
  unlink(path);
  return check_done();
}
