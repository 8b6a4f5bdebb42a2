/* Deterministic pseudo-random numbers for mkdataset: the same seed gives the
 * same stream on every machine and libc (never rand()).
 *   mix64        a stateless 64-bit finaliser (splitmix64's), for hashing keys
 *   key3         one 64-bit key from (seed, a, b)
 *   struct rng   xoshiro256** seeded through splitmix64; rng_fill writes its
 *                words little-endian, so content bytes do not depend on the CPU */
#ifndef SHOOTOUT_PRNG_H
#define SHOOTOUT_PRNG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline uint64_t splitmix64(uint64_t *state) {
  *state += 0x9e3779b97f4a7c15ULL;
  return mix64(*state);
}

static inline uint64_t key3(uint64_t seed, uint64_t a, uint64_t b) {
  return mix64(seed ^ mix64(a + 0x9e3779b97f4a7c15ULL) ^ mix64(mix64(b) + 0x632be59bd9b4e019ULL));
}

struct rng {
  uint64_t s[4];
};

static inline void rng_seed(struct rng *r, uint64_t key) {
  uint64_t st = key;
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&st);
}

static inline uint64_t rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(struct rng *r) {
  uint64_t *s = r->s;
  uint64_t out = rng_rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rng_rotl(s[3], 45);
  return out;
}

/* n bytes of the stream; whole words are drawn, a partial last word is cut. */
static inline void rng_fill(struct rng *r, unsigned char *p, size_t n) {
  while (n >= 8) {
    uint64_t w = rng_next(r);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    memcpy(p, &w, 8);
    p += 8;
    n -= 8;
  }
  if (n) {
    uint64_t w = rng_next(r);
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(w >> (8 * i));
  }
}

#endif
