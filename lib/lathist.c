#include "lathist.h"

#include <stdio.h>
#include <time.h>

#ifndef LATHIST_OFF
uint64_t lathist_now(void) {
  struct timespec ts;
  /* CLOCK_MONOTONIC cannot fail with a valid pointer on the systems we
   * build for; a failure would leave ts zero and count as 0 ns. */
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 1;
  uint64_t t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  return t == 0 ? 1 : t;
}

void lathist_add(struct lathist *h, uint64_t start, uint64_t end) {
  h->n++;
  h->b[lathist_bucket(end > start ? end - start : 0)]++;
}
#endif

unsigned lathist_bucket(uint64_t t) {
  if (t < 2) return 0;
  unsigned k = 63u - (unsigned)__builtin_clzll(t);
  return k < LATHIST_NB ? k : LATHIST_NB - 1;
}

void lathist_sum(struct lathist *sum, const struct lathist *h) {
  sum->n += h->n;
  for (unsigned k = 0; k < LATHIST_NB; k++) sum->b[k] += h->b[k];
}

void lathist_stats(struct stats_file *f, const char *name, const struct lathist *h) {
  char m[64];
  snprintf(m, sizeof m, "%s.n", name);
  stats_u64(f, m, h->n, "count");
  for (unsigned k = 0; k < LATHIST_NB; k++) {
    if (h->b[k] == 0) continue;
    snprintf(m, sizeof m, "%s.b%u", name, k);
    stats_u64(f, m, h->b[k], "count");
  }
}
