/* The two ways mkdataset makes a dataset: from a profile (gen_synth.c) or
 * from a real capture (capture.c).  Both write through an emitter. */
#ifndef SHOOTOUT_MKDATASET_H
#define SHOOTOUT_MKDATASET_H

#include <stdint.h>

#include "emit.h"
#include "profile.h"

struct totals {
  uint64_t layout_files, layout_bytes;
  uint64_t update_files, update_new, update_replaced, update_bytes;
  uint64_t files, bytes; /* the final tree */
  uint64_t requests, distinct, update_hit;
  uint64_t log_lines, log_skipped; /* capture mode */
};

void run_synth(struct emitter *e, const struct profile *p, struct totals *t);
/* The bytes run_synth will write at most (both tarballs as if gzip did not
 * shrink them, manifest and requests), from the sizes alone. */
uint64_t synth_need(const struct profile *p, uint64_t seed);
/* The bytes a capture from LIST needs at least: the layout tarball (a tar
 * header and the padded data of each listed file) and the manifest; the
 * update and the requests come on top. */
uint64_t capture_need(const char *list);
void run_capture(struct emitter *e, const char *list, const char *log, uint64_t share_micro,
                 struct totals *t);

/* A growable array of 64-bit values; dies when memory runs out. */
struct vec64 {
  uint64_t *v;
  size_t n, cap;
};
void vec64_push(struct vec64 *a, uint64_t x);
int cmp_u64(const void *a, const void *b);

#endif
