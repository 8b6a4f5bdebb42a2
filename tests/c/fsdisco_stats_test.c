/* fsdisco's detectors on synthetic latency curves shaped like the paper's. */
#include "check.h"
#include "../../fsdisco/fsdisco.h"

#include <math.h>
#include <stdlib.h>

/* Sequential 512 B writes: +a at each block boundary, +p at each 4 KiB page. */
static void writes(double *v, size_t n, unsigned block, double a, double p) {
  for (size_t k = 0; k < n; k++) {
    size_t off = k * 512;
    v[k] = 100 + (off % block == 0 ? a : 0) + (off % 4096 == 0 ? p : 0) + (double)(k % 7) * 0.5;
  }
}

int main(void) {
  double v[1024], r;
  double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2};
  CHECK(median_of(odd, 3) == 3, "median of an odd count");
  CHECK(median_of(even, 4) == 2.5, "median of an even count");
  CHECK(isnan(median_of(odd, 0)), "median of nothing is NaN");

  struct lat_matrix m;
  CHECK(lat_alloc(&m, 3, 2) == 0, "lat_alloc");
  LAT(&m, 0, 0) = 5; LAT(&m, 1, 0) = 1; LAT(&m, 2, 0) = 3;
  LAT(&m, 0, 1) = 2; LAT(&m, 1, 1) = 8; LAT(&m, 2, 1) = 9;
  double mn[2], md[2];
  summarize(&m, mn, md);
  CHECK(mn[0] == 1 && md[0] == 3 && mn[1] == 2 && md[1] == 8, "summarize: min and median a position");
  lat_free(&m);

  writes(v, 512, 1024, 150, 5);
  CHECK(detect_block(v, 512, 512, 65536, &r) == 1024, "1 KiB blocks under 4 KiB pages");
  writes(v, 512, 2048, 150, 5);
  CHECK(detect_block(v, 512, 512, 65536, &r) == 2048, "2 KiB blocks");
  writes(v, 512, 4096, 150, 5);
  CHECK(detect_block(v, 512, 512, 65536, &r) == 4096, "4 KiB blocks");
  /* Measured on a busy 2-core VM, 4 KiB ext2: the 2 KiB half-boundaries
   * slow enough that 2 KiB scores as high as 4 KiB (1.80 and 1.80, 8 KiB 1.01). */
  writes(v, 512, 4096, 150, 0);
  for (size_t k = 4; k < 512; k += 8) v[k] += 30;
  CHECK(detect_block(v, 512, 512, 65536, &r) == 4096, "4 KiB blocks when 2 KiB scores as high: the larger");
  writes(v, 512, 1 << 30, 0, 0);
  CHECK(detect_block(v, 512, 512, 65536, &r) == 0 && r < 1.25, "a flat curve has no block size");

  /* As measured on ext2 4 KiB: ~46 us a direct block, 61 the 13th, ~57 after. */
  for (size_t k = 0; k < 64; k++) v[k] = (k < 12 ? 46 : 57) + (double)(k % 3);
  v[0] = 71;
  v[1] = 53;
  v[12] = 61;
  CHECK(detect_step(v, 64, 1, 1.15) == 12, "the step at the 13th block: 12 direct pointers");
  /* Measured on a busy 2-core VM: a second, larger level past the step. */
  double busy[64] = {57, 51, 46, 46, 51, 51, 50, 52, 48, 53, 54, 52, 70, 96, 98, 105, 109, 73, 59, 62, 64, 61,
                     59, 70, 69, 62, 68, 71, 61, 71, 71, 107, 104, 60, 100, 103, 106, 98, 99, 62, 103, 106, 103,
                     105, 101, 66, 61, 96, 104, 103, 105, 103, 104, 103, 106, 105, 107, 63, 104, 59, 60, 93, 101, 105};
  CHECK(detect_step(busy, 64, 1, 1.15) == 12, "the first step, not the bigger one after it");
  /* ...and a slow block just before the step (measured too). */
  double early[64] = {56, 49, 46, 47, 50, 47, 46, 49, 49, 45, 56, 48, 70, 62, 60, 59, 64, 61, 60, 60, 60, 59};
  for (size_t k = 22; k < 64; k++) early[k] = 59 + (double)(k % 3);
  CHECK(detect_step(early, 64, 1, 1.15) == 12, "a slow 11th block is not the step");
  for (size_t k = 0; k < 64; k++) v[k] = 46 + (double)(k % 3);
  v[30] = 90;
  CHECK(detect_step(v, 64, 1, 1.15) == (size_t)-1, "a lone outlier is no step");

  /* Read-ahead: 512 cached pages, 32 more read ahead, then slow. */
  for (size_t k = 0; k < 1024; k++) v[k] = k < 544 ? 2 + (double)(k % 2) : 80 + (double)(k % 5);
  v[700] = 3; /* a stray fast read in the slow part changes nothing */
  v[530] = 60; /* a stray slow one in the fast part neither */
  double thr = 0;
  CHECK(detect_edge(v, 1024, 512, &thr) == 544, "read-ahead edge at 32 pages past the initial read");
  CHECK(thr > 3 && thr < 80, "threshold between the two levels");
  for (size_t k = 0; k < 1024; k++) v[k] = 2;
  thr = 0;
  CHECK(detect_edge(v, 1024, 512, &thr) == 1024, "all cached: no edge");
  /* Page cache: a given threshold, nothing known. */
  for (size_t k = 0; k < 100; k++) v[k] = k < 80 ? 150 : 2000;
  v[10] = 900;
  thr = 600;
  CHECK(detect_edge(v, 100, 0, &thr) == 80, "cache edge at 80 chunks with a given threshold");
  return check_done();
}
