#include "fixmath.h"

/* 2^(2^-k) for k = 1..32, in Q62. */
static const uint64_t exp2_frac[32] = {
    0x5a827999fcef3242ULL, 0x4c1bf828c6dc54b7ULL, 0x45cae0f1f545eb73ULL, 0x42d561b3e6243d8aULL,
    0x4166c34c5615d0ebULL, 0x40b268f9de0183b9ULL, 0x4058f6a7ecccd5b6ULL, 0x402c6be96af2fb58ULL,
    0x4016321b687027a8ULL, 0x400b18178ba33b14ULL, 0x40058bce410147e8ULL, 0x4002c5d7bff71daeULL,
    0x400162e807ee7e5bULL, 0x4000b1730df6a524ULL, 0x400058b9497b8151ULL, 0x40002c5c955dd701ULL,
    0x4000162e46d6f26bULL, 0x40000b1722757b1bULL, 0x4000058b90fd3e0cULL, 0x400002c5c86f3f26ULL,
    0x40000162e433c79bULL, 0x400000b17218edcfULL, 0x40000058b90c3968ULL, 0x4000002c5c860d54ULL,
    0x400000162e4302d2ULL, 0x4000000b17218073ULL, 0x400000058b90bffcULL, 0x40000002c5c85feeULL,
    0x4000000162e42ff3ULL, 0x40000000b17217f8ULL, 0x4000000058b90bfcULL, 0x400000002c5c85feULL,
};

int64_t fx_log2(uint64_t x) {
  if (x == 0) return INT64_MIN / 2;
  int msb = 63 - __builtin_clzll(x);
  uint64_t m = msb >= 62 ? x >> (msb - 62) : x << (62 - msb); /* [1,2) in Q62 */
  uint64_t frac = 0;
  for (int i = 31; i >= 0; i--) {
    m = (uint64_t)(((unsigned __int128)m * m) >> 62);
    if (m >= (1ULL << 63)) {
      m >>= 1;
      frac |= 1ULL << i;
    }
  }
  return (int64_t)(msb - 32) * FX_ONE + (int64_t)frac;
}

uint64_t fx_exp2(int64_t e) {
  int64_t ip = e >= 0 ? e / FX_ONE : -((-e + FX_ONE - 1) / FX_ONE);
  uint64_t frac = (uint64_t)(e - ip * FX_ONE);
  if (ip >= 31) return (uint64_t)0x7fffffff << 32;
  uint64_t r = 1ULL << 62;
  for (int k = 0; k < 32; k++)
    if (frac & (1ULL << (31 - k))) r = (uint64_t)(((unsigned __int128)r * exp2_frac[k]) >> 62);
  r >>= 30; /* Q32 */
  if (ip >= 0) return r << ip;
  return -ip >= 64 ? 0 : r >> -ip;
}

void zipf_init(struct zipf *z, uint64_t n, uint64_t s_micro) {
  z->n = n;
  z->a_micro = (int64_t)MICRO - (int64_t)s_micro;
  /* Ranks are the floor of a continuous variable on [1, n+1). */
  z->logn_q32 = fx_log2((n + 1) << 32);
  z->x_q32 = z->a_micro ? (int64_t)fx_exp2(z->a_micro * z->logn_q32 / MICRO) : 0;
}

uint64_t zipf_rank(const struct zipf *z, struct rng *r) {
  int64_t u = (int64_t)(rng_next(r) >> 32); /* [0,1) in Q32 */
  uint64_t v;
  if (z->a_micro == 0) {
    v = fx_exp2((int64_t)(((__int128)z->logn_q32 * u) >> 32));
  } else {
    int64_t y = FX_ONE + (int64_t)(((__int128)(z->x_q32 - FX_ONE) * u) >> 32);
    if (y < 1) y = 1;
    v = fx_exp2(fx_log2((uint64_t)y) * MICRO / z->a_micro);
  }
  uint64_t rank = v >> 32;
  if (rank < 1) rank = 1;
  if (rank > z->n) rank = z->n;
  return rank;
}

uint64_t lognormal_size(struct rng *r, uint64_t median, uint64_t spread_micro, uint64_t min,
                        uint64_t max) {
  int64_t g = -6 * FX_ONE;
  for (int i = 0; i < 12; i++) g += (int64_t)(rng_next(r) >> 32);
  int64_t e = g * (int64_t)spread_micro / MICRO;
  uint64_t size = (uint64_t)(((unsigned __int128)median * fx_exp2(e)) >> 32);
  if (size < min) size = min;
  if (size > max) size = max;
  return size;
}
