/* Latency histograms of a server's requests: a fixed array of log2
 * buckets of nanoseconds, cheap enough for every request (one
 * clock_gettime(CLOCK_MONOTONIC) at each end, an add), summed over
 * processes, written as --stats lines (docs/formats.md#httpd---stats). */
#ifndef SHOOTOUT_LATHIST_H
#define SHOOTOUT_LATHIST_H

#include <stdint.h>

#include "common.h"

/* Bucket k counts the times t with 2^k <= t < 2^(k+1) ns (bucket 0 also
 * t = 0); the last one everything from 2^(LATHIST_NB-1) ns (about 69 s)
 * up. */
#define LATHIST_NB 37

struct lathist {
  uint64_t n;
  uint64_t b[LATHIST_NB];
};

#ifdef LATHIST_OFF
/* The bench's httpd without the histograms (make nolathist,
 * tests/bench/latency.bench.sh): no clock read, nothing counted. */
static inline uint64_t lathist_now(void) { return 1; }
static inline void lathist_add(struct lathist *h, uint64_t start, uint64_t end) {
  (void)h, (void)start, (void)end;
}
#else
/* Monotonic nanoseconds since an arbitrary origin; never 0 (0 means "no
 * time taken" to the callers). */
uint64_t lathist_now(void);
/* Counts one time, `end - start` ns (0 when the clock went back). */
void lathist_add(struct lathist *h, uint64_t start, uint64_t end);
#endif
/* The bucket of t ns. */
unsigned lathist_bucket(uint64_t t);
/* sum += h. */
void lathist_sum(struct lathist *sum, const struct lathist *h);
/* "NAME.n N count", then "NAME.bK COUNT count" for every non-empty bucket. */
void lathist_stats(struct stats_file *f, const char *name, const struct lathist *h);

#endif
