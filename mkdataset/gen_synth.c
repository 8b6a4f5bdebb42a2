/* A dataset from a profile: requests first (they fix the update's order),
 * then the layout tarball with the manifest, then the update tarball. */
#include <errmsg.h>
#include <stdlib.h>
#include <string.h>

#include "fixmath.h"
#include "mkdataset.h"
#include "prng.h"
#include "synth.h"

enum { SALT_REQUESTS = 0x2000, SALT_TAIL = 0x2001 };

void vec64_push(struct vec64 *a, uint64_t x) {
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 1024;
    uint64_t *v = realloc(a->v, cap * sizeof *v);
    if (v == NULL) die(1, "out of memory");
    a->v = v;
    a->cap = cap;
  }
  a->v[a->n++] = x;
}

int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* requests.txt, and the update's files: first those the requests hit, in
 * first-hit order, then those never hit, in a seeded pseudo-random order. */
static void requests(struct emitter *e, const struct synth *s, struct vec64 *upd,
                     struct totals *t) {
  uint64_t n = synth_final_files(s);
  unsigned char *seen = calloc(n / 8 + 1, 1);
  if (seen == NULL) die(1, "out of memory");
  struct zipf z;
  zipf_init(&z, n, s->p->zipf_micro);
  struct rng r;
  rng_seed(&r, key3(s->seed, 0, SALT_REQUESTS));
  char path[SYNTH_PATH_MAX];
  for (uint64_t i = 0; i < s->p->requests; i++) {
    uint64_t u = synth_by_rank(s, zipf_rank(&z, &r) - 1);
    synth_path(s, u, path);
    emit_request(e, path);
    if (seen[u / 8] & (1u << (u % 8))) continue;
    seen[u / 8] |= (unsigned char)(1u << (u % 8));
    t->distinct++;
    if (synth_in_update(s, u)) vec64_push(upd, u);
  }
  t->requests = s->p->requests;
  t->update_hit = upd->n;
  size_t head = upd->n;
  for (uint64_t u = 0; u < n; u++)
    if (!(seen[u / 8] & (1u << (u % 8))) && synth_in_update(s, u))
      vec64_push(upd, (key3(s->seed, u, SALT_TAIL) & 0xffffffff00000000ULL) | u);
  /* no update files: v may still be NULL, which qsort must not be given */
  if (upd->n > head) qsort(upd->v + head, upd->n - head, sizeof *upd->v, cmp_u64);
  for (size_t i = head; i < upd->n; i++) upd->v[i] &= 0xffffffffULL;
  free(seen);
}

/* One file's share of the output (emit_file_need); adds its path's length
 * to *paths. */
static uint64_t file_need(const struct synth *s, uint64_t u, unsigned version, uint64_t *paths) {
  char path[SYNTH_PATH_MAX];
  synth_path(s, u, path);
  uint64_t len = strlen(path);
  *paths += len;
  return emit_file_need(synth_size(s, u, version), len);
}

uint64_t synth_need(const struct profile *p, uint64_t seed) {
  struct synth s;
  synth_init(&s, p, seed);
  uint64_t need = 4096, paths = 0, n = synth_final_files(&s);
  for (uint64_t u = 0; u < n; u++) {
    if (u < synth_layout_files(&s)) need += file_need(&s, u, 0, &paths);
    if (synth_in_update(&s, u)) need += file_need(&s, u, 1, &paths);
  }
  /* requests.txt: a leading slash, the mean path and a newline a line */
  return need + p->requests * (2 + (n ? paths / n : 0));
}

void run_synth(struct emitter *e, const struct profile *p, struct totals *t) {
  struct synth s;
  synth_init(&s, p, e->seed);
  struct vec64 upd = {0};
  requests(e, &s, &upd, t);

  char path[SYNTH_PATH_MAX];
  for (uint64_t u = 0; u < synth_layout_files(&s); u++) {
    uint64_t key = synth_key(&s, u), size = synth_size(&s, u, 0);
    synth_path(&s, u, path);
    uint32_t crc = emit_file(e, OUT_LAYOUT, path, size, key, 0);
    t->layout_files++;
    t->layout_bytes += size;
    if (synth_in_update(&s, u)) { /* the final tree holds the update's version */
      size = synth_size(&s, u, 1);
      crc = emit_crc(e, size, key, 1);
    }
    emit_manifest(e, path, size, crc);
    t->files++;
    t->bytes += size;
  }
  for (size_t i = 0; i < upd.n; i++) {
    uint64_t u = upd.v[i], size = synth_size(&s, u, 1);
    synth_path(&s, u, path);
    uint32_t crc = emit_file(e, OUT_UPDATE, path, size, synth_key(&s, u), 1);
    t->update_files++;
    t->update_bytes += size;
    if (u >= synth_layout_files(&s)) {
      emit_manifest(e, path, size, crc);
      t->update_new++;
      t->files++;
      t->bytes += size;
    } else {
      t->update_replaced++;
    }
  }
  free(upd.v);
}
