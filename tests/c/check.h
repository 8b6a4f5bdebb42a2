/* A minimal TAP producer for the C unit tests: each CHECK is one test line
 * that tests/run.sh counts.  Usage:
 *   CHECK(cond, "what a user would notice");
 *   return check_done();
 */
#ifndef SHOOTOUT_CHECK_H
#define SHOOTOUT_CHECK_H

#include <stdio.h>

static int check_n, check_failed;

#define CHECK(cond, name)                                                    \
  do {                                                                       \
    check_n++;                                                               \
    if (cond) {                                                              \
      printf("ok %d - %s\n", check_n, (name));                               \
    } else {                                                                 \
      check_failed++;                                                        \
      printf("not ok %d - %s\n#   %s:%d: %s\n", check_n, (name), __FILE__,   \
             __LINE__, #cond);                                               \
    }                                                                        \
  } while (0)

static inline int check_done(void) {
  printf("1..%d\n", check_n);
  fflush(stdout);
  return check_failed ? 1 : 0;
}

#endif
