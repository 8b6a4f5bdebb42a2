#include "synth.h"

#include <stdio.h>

#include "fixmath.h"
#include "prng.h"

enum { SALT_SIZE = 1, SALT_REPLACE = 2, SALT_NEWDIR = 3, SALT_PERM = 4 };

void synth_init(struct synth *s, const struct profile *p, uint64_t seed) {
  s->p = p;
  s->seed = seed;
  s->P = p->photos;
  s->M = p->new_photos;
  s->dirs = 1;
  for (uint64_t l = 0; l < p->levels; l++) s->dirs *= p->fanout;
  s->regular = s->P - p->huge_dirs * p->huge_photos;
  s->per = s->regular / s->dirs;
  s->extra = s->regular % s->dirs;
  s->replace_threshold = p->replace_micro >= MICRO ? UINT64_MAX
                                                   : (uint64_t)(((unsigned __int128)p->replace_micro << 64) / MICRO);
  unsigned bits = 2;
  while ((1ULL << bits) < synth_final_files(s)) bits += 2;
  s->half_bits = bits / 2;
}

static void split(const struct synth *s, uint64_t u, uint64_t *photo, unsigned *kind) {
  if (u < 2 * s->P) {
    *kind = u >= s->P;
    *photo = u % s->P;
  } else {
    uint64_t n = u - 2 * s->P;
    *kind = n >= s->M;
    *photo = s->P + n % s->M;
  }
}

uint64_t synth_key(const struct synth *s, uint64_t u) {
  uint64_t photo;
  unsigned kind;
  split(s, u, &photo, &kind);
  return photo * 2 + kind;
}

static char *put_dir(char *b, uint64_t d, const struct synth *s) {
  static const char hex[] = "0123456789abcdef";
  char comp[3][2];
  for (uint64_t l = s->p->levels; l-- > 0;) {
    uint64_t c = d % s->p->fanout;
    d /= s->p->fanout;
    comp[l][0] = hex[c >> 4];
    comp[l][1] = hex[c & 15];
  }
  for (uint64_t l = 0; l < s->p->levels; l++) {
    *b++ = comp[l][0];
    *b++ = comp[l][1];
    *b++ = '/';
  }
  return b;
}

void synth_path(const struct synth *s, uint64_t u, char buf[SYNTH_PATH_MAX]) {
  uint64_t photo;
  unsigned kind;
  split(s, u, &photo, &kind);
  int n = snprintf(buf, SYNTH_PATH_MAX, "%s/", kind ? "thumb" : "img");
  char *b = buf + n;
  if (photo >= s->P) { /* a new photo: a pseudo-random regular directory */
    if (s->regular == 0) {
      b += snprintf(b, 16, "h0/");
    } else {
      uint64_t k = key3(s->seed, photo, SALT_NEWDIR);
      uint64_t d = (uint64_t)(((unsigned __int128)k * (s->dirs < s->regular ? s->dirs : s->regular)) >> 64);
      b = put_dir(b, d, s);
    }
  } else if (photo < s->regular) {
    uint64_t big = s->extra * (s->per + 1), d;
    d = photo < big ? photo / (s->per + 1) : s->extra + (photo - big) / s->per;
    b = put_dir(b, d, s);
  } else {
    b += snprintf(b, 24, "h%llu/", (unsigned long long)((photo - s->regular) / s->p->huge_photos));
  }
  snprintf(b, (size_t)(buf + SYNTH_PATH_MAX - b), "%llu.jpg", (unsigned long long)photo);
}

uint64_t synth_size(const struct synth *s, uint64_t u, unsigned version) {
  uint64_t key = synth_key(s, u);
  const struct sizedist *d = (key & 1) ? &s->p->thumb : &s->p->full;
  struct rng r;
  rng_seed(&r, key3(s->seed, key, SALT_SIZE + 16 * (uint64_t)version));
  return lognormal_size(&r, d->median, d->spread_micro, d->min, d->max);
}

int synth_in_update(const struct synth *s, uint64_t u) {
  if (u >= 2 * s->P) return 1;
  if (s->replace_threshold == 0) return 0;
  return key3(s->seed, synth_key(s, u), SALT_REPLACE) < s->replace_threshold ||
         s->replace_threshold == UINT64_MAX;
}

/* A 4-round Feistel network on 2*half_bits bits, cycle-walked into range. */
uint64_t synth_by_rank(const struct synth *s, uint64_t r) {
  uint64_t n = synth_final_files(s), mask = (1ULL << s->half_bits) - 1;
  uint64_t x = r;
  do {
    uint64_t l = x >> s->half_bits, rr = x & mask;
    for (uint64_t round = 0; round < 4; round++) {
      uint64_t f = key3(s->seed, rr, SALT_PERM + 16 * round) & mask;
      uint64_t t = rr;
      rr = l ^ f;
      l = t;
    }
    x = (l << s->half_bits) | rr;
  } while (x >= n);
  return x;
}
