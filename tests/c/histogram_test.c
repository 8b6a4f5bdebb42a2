/* Percentiles of the log-bucketed histogram stay within its precision. */
#include "check.h"
#include "../../replay/histogram.h"

#include <stdlib.h>

static int near(uint64_t got, double want, double rel) {
  double d = (double)got - want;
  if (d < 0) d = -d;
  return d <= want * rel + 1;
}

int main(void) {
  static struct histogram h, g;
  hist_init(&h);
  CHECK(hist_percentile(&h, 50) == 0 && hist_percentile(&h, 100) == 0, "empty histogram gives 0");

  /* 1 us .. 10 ms in 1 us steps, recorded in ns */
  for (uint64_t us = 1; us <= 10000; us++) hist_record(&h, us * 1000);
  CHECK(h.count == 10000, "every value counted");
  CHECK(hist_percentile(&h, 0) == 1000, "min is exact");
  CHECK(hist_percentile(&h, 100) == 10000000, "max is exact");
  CHECK(near(hist_percentile(&h, 50), 5000000, 0.01), "p50 within 1%");
  CHECK(near(hist_percentile(&h, 90), 9000000, 0.01), "p90 within 1%");
  CHECK(near(hist_percentile(&h, 99), 9900000, 0.01), "p99 within 1%");
  CHECK(near(hist_percentile(&h, 99.9), 9990000, 0.01), "p99.9 within 1%");
  CHECK(near((uint64_t)hist_mean(&h), 5000500, 0.0001), "mean is exact");

  /* every bucket holds the values that map to it */
  int ok = 1;
  for (uint64_t v = 0; v < 2000000 && ok; v += 7) {
    unsigned i = hist_index(v);
    if (hist_bucket_high(i) < v || (i > 0 && hist_bucket_high(i - 1) >= v)) ok = 0;
  }
  CHECK(ok, "bucket bounds are consistent");
  CHECK(hist_index(UINT64_MAX) == HIST_BUCKETS - 1, "huge values land in the top bucket");

  /* skewed: 99 fast, 1 slow */
  hist_init(&g);
  for (int i = 0; i < 990; i++) hist_record(&g, 100000);
  for (int i = 0; i < 10; i++) hist_record(&g, 50000000);
  CHECK(near(hist_percentile(&g, 50), 100000, 0.01), "skewed: p50 is the fast value");
  CHECK(near(hist_percentile(&g, 99), 100000, 0.01), "skewed: p99 is still fast (990 of 1000)");
  CHECK(near(hist_percentile(&g, 99.5), 50000000, 0.01), "skewed: p99.5 is the slow value");

  hist_record(&g, UINT64_MAX);
  CHECK(g.max == UINT64_MAX && hist_percentile(&g, 100) == UINT64_MAX, "out-of-range value kept as exact max");
  return check_done();
}
