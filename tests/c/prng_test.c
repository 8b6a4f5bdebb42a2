/* The deterministic PRNG, the fixed-point math and the synthetic tree model. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../mkdataset/fixmath.h"
#include "prng.h"
#include "../../mkdataset/profile.h"
#include "../../mkdataset/synth.h"

int main(void) {
  struct rng r;
  rng_seed(&r, 42);
  uint64_t a = rng_next(&r), b = rng_next(&r);
  CHECK(a == 0x15780b2e0c2ec716ULL && b == 0x6104d9866d113a7eULL, "xoshiro256** stream is fixed (golden values)");
  CHECK(key3(1, 2, 3) != key3(1, 3, 2) && key3(1, 2, 3) == key3(1, 2, 3), "key3 is deterministic and ordered");
  unsigned char buf[13];
  rng_seed(&r, 7);
  rng_fill(&r, buf, sizeof buf);
  struct rng r2;
  rng_seed(&r2, 7);
  uint64_t w = rng_next(&r2);
  CHECK(buf[0] == (unsigned char)w && buf[7] == (unsigned char)(w >> 56), "fill is little-endian on every CPU");

  CHECK(fx_log2((uint64_t)8 << 32) == 3 * FX_ONE, "log2(8) = 3");
  CHECK(fx_log2((uint64_t)1 << 31) == -FX_ONE, "log2(0.5) = -1");
  CHECK(fx_exp2(3 * FX_ONE) == (uint64_t)8 << 32 && fx_exp2(-FX_ONE) == (uint64_t)1 << 31, "exp2 of integers exact");
  int close_all = 1;
  for (uint64_t x = 3; x < 1000000; x = x * 3 + 1) {
    uint64_t y = fx_exp2(fx_log2(x << 32));
    uint64_t want = x << 32, diff = y > want ? y - want : want - y;
    if (diff > want / 1000000) close_all = 0;
  }
  CHECK(close_all, "exp2(log2(x)) = x within 1e-6");

  struct zipf z;
  zipf_init(&z, 1000, 900000);
  uint64_t counts[1001] = {0}, inrange = 1;
  rng_seed(&r, 1);
  for (int i = 0; i < 100000; i++) {
    uint64_t k = zipf_rank(&z, &r);
    if (k < 1 || k > 1000) inrange = 0;
    else counts[k]++;
  }
  CHECK(inrange, "zipf ranks stay in 1..n");
  CHECK(counts[1] > counts[2] && counts[2] > counts[10] && counts[10] > counts[500], "zipf: lower ranks are more popular");
  CHECK(counts[1] > 5000 && counts[1] < 12000, "zipf s=0.9: rank 1 gets about 8% of requests");
  zipf_init(&z, 10, 0);
  memset(counts, 0, sizeof counts);
  for (int i = 0; i < 100000; i++) counts[zipf_rank(&z, &r)]++;
  CHECK(counts[1] > 9000 && counts[1] < 11000 && counts[10] > 9000 && counts[10] < 11000, "zipf s=0 is uniform");

  int below = 0, clamped = 1;
  for (int i = 0; i < 10000; i++) {
    uint64_t s = lognormal_size(&r, 10000, 500000, 2000, 40000);
    below += s < 10000;
    if (s < 2000 || s > 40000) clamped = 0;
  }
  CHECK(below > 4700 && below < 5300, "log-normal sizes: half below the median");
  CHECK(clamped, "log-normal sizes are clamped to min/max");

  static const char text[] = "photos 37\nfull.median 100\nfull.spread 0.5\nthumb.median 50\n"
                             "thumb.spread 0.2\nrequests 10\nfanout 4\nlevels 2\nhuge.dirs 1\nhuge.photos 5\n"
                             "update.new 5\nupdate.replace 0.3\n";
  struct profile p;
  char err[256];
  CHECK(profile_parse(&p, text, sizeof text - 1, "t.profile", err, sizeof err) == 0, "test profile parses");
  struct synth s;
  synth_init(&s, &p, 9);
  CHECK(synth_layout_files(&s) == 74 && synth_final_files(&s) == 84, "file counts: 2 x photos, plus 2 x new");
  unsigned char hit[84] = {0};
  int bijective = 1;
  for (uint64_t i = 0; i < 84; i++) {
    uint64_t u = synth_by_rank(&s, i);
    if (u >= 84 || hit[u]++) bijective = 0;
  }
  CHECK(bijective, "popularity ranks map onto every file exactly once");
  char path[SYNTH_PATH_MAX];
  synth_path(&s, 0, path);
  CHECK(strcmp(path, "img/00/00/0.jpg") == 0, "first file: img/00/00/0.jpg");
  synth_path(&s, 37, path);
  CHECK(strcmp(path, "thumb/00/00/0.jpg") == 0, "thumbnails follow the full images");
  synth_path(&s, 36, path);
  CHECK(strcmp(path, "img/h0/36.jpg") == 0, "last photos live in the huge directory");
  synth_path(&s, 74, path);
  CHECK(strncmp(path, "img/", 4) == 0 && strstr(path, "/37.jpg") != NULL, "new photos get new ids");
  int newin = 1, some = 0;
  for (uint64_t u = 0; u < 84; u++) {
    if (u >= 74 && !synth_in_update(&s, u)) newin = 0;
    if (u < 74) some += synth_in_update(&s, u);
  }
  CHECK(newin && some > 5 && some < 40, "update: all new files and about update.replace of the rest");
  CHECK(synth_size(&s, 3, 0) == synth_size(&s, 3, 0) && synth_size(&s, 3, 0) != synth_size(&s, 3, 1),
        "sizes are fixed per version and differ between versions");
  return check_done();
}
