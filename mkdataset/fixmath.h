/* Integer-only (fixed-point) math for the dataset model, so that sizes and
 * request ranks come out the same on every CPU and libc (no libm).
 * Q32 numbers carry 32 fraction bits. */
#ifndef SHOOTOUT_FIXMATH_H
#define SHOOTOUT_FIXMATH_H

#include <stdint.h>

#include "prng.h"

#define FX_ONE ((int64_t)1 << 32)
#define MICRO 1000000

/* log2(x) for x > 0, x and the result in Q32. */
int64_t fx_log2(uint64_t x_q32);
/* 2^e for e in Q32; result Q32, saturated at 2^31 - 1 (integer part). */
uint64_t fx_exp2(int64_t e_q32);

/* A Zipf-like rank sampler over ranks 1..n with exponent s (in millionths,
 * 0..3000000): rank r is drawn with probability ~ r^-s (continuous inverse
 * CDF, rounded down). */
struct zipf {
  uint64_t n;
  int64_t a_micro; /* 1 - s, in millionths */
  int64_t x_q32;   /* n^(1-s) in Q32 */
  int64_t logn_q32;
};
void zipf_init(struct zipf *z, uint64_t n, uint64_t s_micro);
uint64_t zipf_rank(const struct zipf *z, struct rng *r);

/* A log-normal-like size: median * 2^(spread * g), g ~ N(0,1) (sum of 12
 * uniforms), clamped to [min, max].  spread is log2 units in millionths. */
uint64_t lognormal_size(struct rng *r, uint64_t median, uint64_t spread_micro, uint64_t min,
                        uint64_t max);

#endif
