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
  /* at/mid ratio of each candidate; a B's "mid" writes are the 2B's... */
  double r[64];
  uint64_t size[64];
  size_t nb = 0;
  for (uint64_t b = 2 * wsize; b <= maxb && nb < 64; b *= 2) {
    size_t per = (size_t)(b / wsize);
    if (n < 2 * per) break; /* want two boundaries at least */
    /* Skip the first block: the first write of a file is special. */
    double at = class_median(lat + per, n - per, per, 0);
    double mid = class_median(lat + per, n - per, per, per / 2);
    size[nb] = b;
    r[nb++] = at / mid;
  }
  /* ...so at the true block size B the 2B scores about 1, while B/2, whose
   * boundaries are half B's, can score as high as B on a noisy machine: a
   * candidate must beat its double by a quarter, and the best such wins. */
  double best_r = 0, any_r = 0;
  uint64_t best = 0;
  for (size_t i = 0; i < nb; i++) {
    if (r[i] > any_r) any_r = r[i];
    if (r[i] < 1.25 || (i + 1 < nb && r[i + 1] * 1.25 > r[i])) continue;
    if (r[i] > best_r) {
      best_r = r[i];
      best = size[i];
    }
  }
  if (ratio) *ratio = best ? best_r : any_r;
  return best;
}

/* How many of v[0..n) are above t. */
static size_t count_above(const double *v, size_t n, double t) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += v[i] > t;
  return c;
}

size_t detect_step(const double *v, size_t n, size_t skip, double factor) {
  /* The first step that holds, not the biggest: past the direct pointers a
   * busy machine can add a second, larger level (measured: 47 us up to
   * block 11, 60 at 12, then 60 or 95 at random), and a lone slow block
   * just before the step must not count as the step. */
  for (size_t k = skip + 3; k + 3 <= n; k++) {
    double before = median_of(v + skip, k - skip), t = factor * before;
    if (!(v[k] > t && v[k + 1] > t && v[k + 2] > t)) continue;
    size_t w = n - k < 8 ? n - k : 8;
    if (count_above(v + k, w, t) * 4 < w * 3) continue;
    /* ...and most of the rest stays above the old level. */
    if (count_above(v + k, n - k, before * (1 + (factor - 1) / 3)) * 5 < (n - k) * 4) continue;
    return k;
  }
  return (size_t)-1;
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
