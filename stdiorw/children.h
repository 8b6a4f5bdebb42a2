/* N child processes that run the same steps in step, as IOzone's
 * throughput mode (iozone -t N) runs its children: the parent starts step i
 * in every child at once, once all of them have finished step i-1, and
 * collects the seconds each one took.  Processes, not threads: IOzone's
 * default, and a static (dietlibc) build has no working threads. */
#ifndef SHOOTOUT_CHILDREN_H
#define SHOOTOUT_CHILDREN_H

#include <stddef.h>

#define CHILDREN_MAX 1024

/* What a child's step gets: its number (0 to n-1) and where it reports. */
struct child {
  int k;
  int fd;
};

/* Step i of child c: the seconds it took.  On failure it calls
 * child_fail() instead of returning. */
typedef double (*child_step)(void *ctx, const struct child *c, int i);

/* In a child: send TEXT (one line, no program name) as the run's error and
 * end the child.  The parent prints the first such line and stops the
 * other children: one line of error, not one a child. */
void child_fail(const struct child *c, const char *text) __attribute__((noreturn));

/* Runs steps 0 to nsteps-1 in n children; secs[i * n + k] is child k's
 * seconds for step i.  On a child's failure, exits 1 with its line. */
void children_run(int n, int nsteps, child_step step, void *ctx, double *secs);

#endif
