/* The synthetic tree of a profile, as pure functions of (profile, seed,
 * file index): nothing is stored per file.
 *
 * Files are numbered in final-tree order u = 0 .. files_final-1:
 *   u <  2P: layout files, in tar (directory) order: the P full images
 *            img/DIRS/ID.jpg, then the P thumbnails thumb/DIRS/ID.jpg;
 *   u >= 2P: the update's new files: M new full images, then M thumbnails.
 * Photo ids 0..P-1 fill the regular directories in order (fanout^levels of
 * them, named by two hex digits a level), then the huge directories
 * img/hN/ and thumb/hN/; new photos P..P+M-1 land in pseudo-random regular
 * directories.  A layout file is replaced by the update when its key hashes
 * below update.replace; a replaced file has new content and a new size. */
#ifndef SHOOTOUT_SYNTH_H
#define SHOOTOUT_SYNTH_H

#include <stdint.h>

#include "profile.h"

#define SYNTH_PATH_MAX 96

struct synth {
  const struct profile *p;
  uint64_t seed;
  uint64_t P, M;       /* photos, new photos */
  uint64_t dirs;       /* regular directories per kind */
  uint64_t regular;    /* photos in regular directories */
  uint64_t per, extra; /* photos per regular dir; the first `extra` get one more */
  uint64_t replace_threshold;
  /* Feistel permutation of [0, files_final) for popularity ranks. */
  unsigned half_bits;
};

void synth_init(struct synth *s, const struct profile *p, uint64_t seed);
static inline uint64_t synth_layout_files(const struct synth *s) { return 2 * s->P; }
static inline uint64_t synth_final_files(const struct synth *s) { return 2 * (s->P + s->M); }

/* The file's key: stable identity for content and sizes (photo*2 + kind). */
uint64_t synth_key(const struct synth *s, uint64_t u);
/* Writes the relative path of file u (no leading slash) into buf. */
void synth_path(const struct synth *s, uint64_t u, char buf[SYNTH_PATH_MAX]);
/* Size of file u in content version v (0 = layout, 1 = update). */
uint64_t synth_size(const struct synth *s, uint64_t u, unsigned version);
/* Is file u written by the update (new, or a replaced layout file)? */
int synth_in_update(const struct synth *s, uint64_t u);
/* The file at popularity rank r (0-based): a fixed pseudo-random bijection. */
uint64_t synth_by_rank(const struct synth *s, uint64_t r);

#endif
