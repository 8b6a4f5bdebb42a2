/* A log-bucketed latency histogram in the manner of HdrHistogram: fixed
 * memory, values recorded in O(1), percentiles with a relative error below
 * 1/(2^HIST_SUB_BITS / 2) (0.8 %).  Values are unsigned integers (replay
 * records nanoseconds); values above HIST_MAX_VALUE count in the top bucket,
 * while min and max stay exact. */
#ifndef SHOOTOUT_HISTOGRAM_H
#define SHOOTOUT_HISTOGRAM_H

#include <stdint.h>

#define HIST_SUB_BITS 8
#define HIST_MAX_BITS 44 /* 2^44 ns is almost 5 hours */
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_HALF (HIST_SUB / 2)
#define HIST_BUCKETS (HIST_SUB + (HIST_MAX_BITS - HIST_SUB_BITS) * HIST_HALF)
#define HIST_MAX_VALUE ((UINT64_C(1) << HIST_MAX_BITS) - 1)

struct histogram {
  uint64_t count, min, max;
  double sum;
  uint64_t buckets[HIST_BUCKETS];
};

void hist_init(struct histogram *h);
void hist_record(struct histogram *h, uint64_t v);
/* The value at percentile p (0..100): the highest value equivalent to the
 * bucket that holds it, clamped to [min, max].  0 when empty. */
uint64_t hist_percentile(const struct histogram *h, double p);
double hist_mean(const struct histogram *h);

/* Bucket arithmetic, exposed for the unit test. */
unsigned hist_index(uint64_t v);
uint64_t hist_bucket_high(unsigned idx);

#endif
