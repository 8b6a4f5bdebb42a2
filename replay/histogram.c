/* Log-bucketed histogram (see histogram.h).  Values below HIST_SUB have a
 * bucket each; above, every power of two is cut into HIST_HALF buckets. */
#include "histogram.h"

#include <string.h>

void hist_init(struct histogram *h) {
  memset(h, 0, sizeof *h);
}

unsigned hist_index(uint64_t v) {
  if (v > HIST_MAX_VALUE) v = HIST_MAX_VALUE;
  if (v < HIST_SUB) return (unsigned)v;
  unsigned top = 63u - (unsigned)__builtin_clzll(v); /* floor(log2 v) >= SUB_BITS */
  unsigned shift = top - (HIST_SUB_BITS - 1);         /* >= 1 */
  unsigned sub = (unsigned)(v >> shift);              /* in [HALF, SUB) */
  return HIST_SUB + (shift - 1) * HIST_HALF + (sub - HIST_HALF);
}

uint64_t hist_bucket_high(unsigned idx) {
  if (idx < HIST_SUB) return idx;
  unsigned k = idx - HIST_SUB;
  unsigned shift = k / HIST_HALF + 1;
  uint64_t sub = k % HIST_HALF + HIST_HALF;
  return ((sub + 1) << shift) - 1;
}

void hist_record(struct histogram *h, uint64_t v) {
  if (h->count == 0 || v < h->min) h->min = v;
  if (v > h->max) h->max = v;
  h->count++;
  h->sum += (double)v;
  h->buckets[hist_index(v)]++;
}

uint64_t hist_percentile(const struct histogram *h, double p) {
  if (h->count == 0) return 0;
  if (p <= 0) return h->min;
  if (p >= 100) return h->max;
  double want = p / 100.0 * (double)h->count;
  uint64_t rank = (uint64_t)want;
  if ((double)rank < want) rank++; /* ceil without libm */
  if (rank < 1) rank = 1;
  uint64_t seen = 0;
  for (unsigned i = 0; i < HIST_BUCKETS; i++) {
    seen += h->buckets[i];
    if (seen >= rank) {
      uint64_t v = hist_bucket_high(i);
      if (v > h->max) v = h->max;
      if (v < h->min) v = h->min;
      return v;
    }
  }
  return h->max;
}

double hist_mean(const struct histogram *h) {
  return h->count ? h->sum / (double)h->count : 0.0;
}
