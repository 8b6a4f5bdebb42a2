/* fsdisco's clock: CLOCK_MONOTONIC, checked before anything is timed. */
#include "fsdisco.h"

#include <math.h>
#include "compat.h"
#include <time.h>
#include <unistd.h>

double clock_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double ns_of(const struct timespec *t) {
  return (double)t->tv_sec * 1e9 + (double)t->tv_nsec;
}

int clock_check(struct clock_info *ci) {
  struct timespec r, a, b;
  if (clock_getres(CLOCK_MONOTONIC, &r) != 0) return -1;
  ci->res_ns = ns_of(&r);
  /* The smallest step the clock actually shows between two readings. */
  ci->step_ns = INFINITY;
  for (int i = 0; i < 100000; i++) {
    if (clock_gettime(CLOCK_MONOTONIC, &a) != 0) return -1;
    do {
      if (clock_gettime(CLOCK_MONOTONIC, &b) != 0) return -1;
    } while (ns_of(&b) == ns_of(&a));
    double d = ns_of(&b) - ns_of(&a);
    if (d < ci->step_ns) ci->step_ns = d;
    if (ci->step_ns <= ci->res_ns) break;
  }
  /* What one trivial system call costs as the clock sees it. */
  double s[101];
  for (int i = 0; i < 101; i++) {
    clock_gettime(CLOCK_MONOTONIC, &a);
    (void)getppid();
    clock_gettime(CLOCK_MONOTONIC, &b);
    s[i] = ns_of(&b) - ns_of(&a);
  }
  ci->syscall_ns = median_of(s, 101);
  return 0;
}
