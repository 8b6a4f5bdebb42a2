/* fsdisco's summaries and detectors: pure functions on latency arrays. */
#include "fsdisco.h"

#include <math.h>
#include "compat.h"
#include <stdlib.h>
#include <string.h>

int lat_alloc(struct lat_matrix *m, size_t iters, size_t n) {
  m->iters = iters;
  m->n = n;
  m->v = calloc(iters * n > 0 ? iters * n : 1, sizeof *m->v);
  return m->v ? 0 : -1;
}

void lat_free(struct lat_matrix *m) {
  free(m->v);
  m->v = NULL;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double median_of(const double *v, size_t n) {
  if (n == 0) return NAN;
  double *c = malloc(n * sizeof *c);
  if (c == NULL) return NAN;
  memcpy(c, v, n * sizeof *c);
  qsort(c, n, sizeof *c, cmp_double);
  double r = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
  free(c);
  return r;
}

void summarize(const struct lat_matrix *m, double *min, double *med) {
  double col[m->iters ? m->iters : 1];
  for (size_t k = 0; k < m->n; k++) {
    double lo = INFINITY;
    for (size_t i = 0; i < m->iters; i++) {
      col[i] = LAT(m, i, k);
      if (col[i] < lo) lo = col[i];
    }
    if (min) min[k] = lo;
    if (med) med[k] = median_of(col, m->iters);
  }
}

/* Median of v[k] over the k with k % per == rem. */
static double class_median(const double *v, size_t n, size_t per, size_t rem) {
  size_t cnt = 0;
  double *c = malloc((n / per + 1) * sizeof *c);
  if (c == NULL) return NAN;
  for (size_t k = rem; k < n; k += per) c[cnt++] = v[k];
  double r = median_of(c, cnt);
  free(c);
  return r;
}

uint64_t detect_block(const double *lat, size_t n, uint64_t wsize, uint64_t maxb, double *ratio) {
  uint64_t best = 0;
  double best_r = 0;
  for (uint64_t b = 2 * wsize; b <= maxb; b *= 2) {
    size_t per = (size_t)(b / wsize);
    if (n < 2 * per) break; /* want two boundaries at least */
    /* Skip the first block: the first write of a file is special. */
    double at = class_median(lat + per, n - per, per, 0);
    double mid = class_median(lat + per, n - per, per, per / 2);
    double r = at / mid;
    if (r > best_r) {
      best_r = r;
      best = b;
    }
  }
  if (ratio) *ratio = best_r;
  return best_r >= 1.25 ? best : 0;
}

/* Sum of |v[i] - median| over v[0..n). */
static double spread(const double *v, size_t n) {
  double m = median_of(v, n), s = 0;
  for (size_t i = 0; i < n; i++) s += v[i] > m ? v[i] - m : m - v[i];
  return s;
}

size_t detect_step(const double *v, size_t n, size_t skip, double factor) {
  /* The best two-level fit of v[skip..n): the split with the least spread. */
  size_t best = (size_t)-1;
  double best_cost = 0;
  for (size_t k = skip + 3; k + 3 <= n; k++) {
    double cost = spread(v + skip, k - skip) + spread(v + k, n - k);
    if (best == (size_t)-1 || cost < best_cost) {
      best = k;
      best_cost = cost;
    }
  }
  if (best == (size_t)-1) return best;
  double before = median_of(v + skip, best - skip), after = median_of(v + best, n - best);
  return after > factor * before ? best : (size_t)-1;
}

size_t detect_edge(const double *v, size_t n, size_t known, double *threshold) {
  double thr = *threshold;
  if (known >= n) return n;
  if (!(thr > 0)) {
    if (known == 0) return n;
    /* Fast: the known-cached positions.  Slow: the last quarter of the rest. */
    size_t tail = (n - known) / 4 ? (n - known) / 4 : 1;
    double fast = median_of(v, known), slow = median_of(v + n - tail, tail);
    /* Between the two, but near the fast level: a second cache below the
     * one under test (a loop device's backing file) answers in between. */
    thr = slow > 2 * fast ? (fast + slow) / 2 : 2 * fast;
    if (thr > 8 * fast) thr = 8 * fast;
    *threshold = thr;
  }
  /* The first slow position counts only if most of the next few are slow too. */
  for (size_t k = known; k < n; k++) {
    if (v[k] <= thr) continue;
    size_t look = 8, slow_n = 0, seen = 0;
    for (size_t j = k; j < n && seen < look; j++, seen++) slow_n += v[j] > thr;
    if (slow_n * 2 > seen) return k;
  }
  return n;
}
