/* fsdisco's write-latency tests: the block size (sequential small writes,
 * each timed) and the number of direct block pointers in the inode (whole
 * blocks written one by one with O_SYNC: the first block reached through an
 * indirect block allocates and writes that block too, and so, on a current
 * kernel, does every later one, as the indirect block changes with each:
 * the latency steps up where the direct pointers end). */
#include "fsdisco.h"
#include "os_fs.h"
#include "printable.h"

#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One iteration: a new file written with n writes of wsize bytes, each timed. */
static int timed_writes(const struct disco_opts *o, uint64_t wsize, size_t n, double *lat) {
  if (unlink(o->path) != 0 && errno != ENOENT) {
    carp("cannot remove ", ESC(o->path), ": ", strerror(errno));
    return -1;
  }
  if (flush_caches(o, -1) != 0) return -1;
  int fd = open(o->path, O_CREAT | O_TRUNC | O_WRONLY | (o->osync ? O_SYNC : 0), 0644);
  if (fd < 0) {
    carp("cannot create ", ESC(o->path), ": ", strerror(errno));
    return -1;
  }
  /* The last iteration's unlink and allocations left bitmaps and inode
   * table blocks dirty: written now, not by the flusher thread while we time. */
  if (os_fs_sync(fd) != 0) {
    carp("syncfs ", ESC(o->path), ": ", strerror(errno));
    close(fd);
    return -1;
  }
  char *buf = malloc(wsize);
  if (buf == NULL) {
    close(fd);
    carp("out of memory");
    return -1;
  }
  memset(buf, 'f', wsize);
  for (size_t k = 0; k < n; k++) {
    double t0 = clock_us();
    ssize_t w = pwrite(fd, buf, wsize, (off_t)(k * wsize));
    double t1 = clock_us();
    if (w != (ssize_t)wsize) {
      carp("write to ", ESC(o->path), ": ", w < 0 ? strerror(errno) : "short write");
      free(buf);
      close(fd);
      return -1;
    }
    lat[k] = t1 - t0;
  }
  free(buf);
  if (close(fd) != 0) {
    carp("close ", ESC(o->path), ": ", strerror(errno));
    return -1;
  }
  return 0;
}

/* Adds rounds of `per` iterations (new files of n writes of wsize bytes) to
 * m until what detect() finds on the per-position minima is found, and is
 * the same, two rounds in a row, or WRITE_MAX_ROUNDS are done.  Why: a single
 * O_SYNC write waits on other threads' scheduling, and a busy or shared
 * machine (measured: a 2-core VM whose quietest write took from 42 to 266 us
 * from one run to the next) leaves the minima noisy for seconds at a time;
 * more iterations only lower a minimum, so the answer settles.  Returns the
 * last detection, *rounds the rounds done; -2 on failure (after a message). */
static long write_rounds(const struct disco_opts *o, struct lat_matrix *m, uint64_t wsize, size_t n, size_t per,
                         long (*detect)(const double *min, size_t n, void *ctx), void *ctx, size_t *rounds) {
  double *min = malloc(n * sizeof *min);
  long found = -1, prev = -1;
  if (min == NULL || lat_alloc(m, 0, n) != 0) {
    free(min);
    carp("out of memory");
    return -2;
  }
  for (*rounds = 1; *rounds <= WRITE_MAX_ROUNDS; ++*rounds) {
    double *v = realloc(m->v, (m->iters + per) * n * sizeof *v);
    if (v == NULL) {
      carp("out of memory");
      goto fail;
    }
    m->v = v;
    for (size_t i = 0; i < per; i++, m->iters++)
      if (timed_writes(o, wsize, n, &LAT(m, m->iters, 0)) != 0) goto fail;
    summarize(m, min, NULL);
    found = detect(min, n, ctx);
    if (*rounds > 1 && found >= 0 && found == prev) break;
    prev = found;
  }
  if (*rounds > WRITE_MAX_ROUNDS) *rounds = WRITE_MAX_ROUNDS;
  free(min);
  return found;
fail:
  free(min);
  return -2;
}

struct block_ctx { uint64_t wsize; double ratio; };

static long block_detect(const double *min, size_t n, void *ctx) {
  struct block_ctx *c = ctx;
  uint64_t b = detect_block(min, n, c->wsize, 16 << 10, &c->ratio);
  return b ? (long)b : -1;
}

int test_block(const struct disco_opts *o, struct block_result *r) {
  uint64_t size = 256 << 10;
  size_t n = (size_t)(size / o->wsize);
  struct lat_matrix m = {0, 0, NULL};
  struct block_ctx c = {o->wsize, 0};
  if (n < 4) {
    carp("block test: file of ", "fewer than 4 writes");
    return -1;
  }
  long b = write_rounds(o, &m, o->wsize, n, o->iters, block_detect, &c, &r->rounds);
  if (b == -2) goto fail;
  r->block = b > 0 ? (uint64_t)b : 0;
  r->ratio = c.ratio;
  r->iters = m.iters;
  if (write_offsets(o, "block", &m, o->wsize) != 0) goto fail;
  lat_free(&m);
  unlink(o->path);
  return 0;
fail:
  lat_free(&m);
  unlink(o->path);
  return -1;
}

static long step_detect(const double *min, size_t n, void *ctx) {
  (void)ctx;
  /* Block 0 is special (the first block of a file): the search starts at 1. */
  size_t k = detect_step(min, n, 1, 1.15);
  return k == (size_t)-1 ? -1 : (long)k;
}

/* Leaves the last iteration's file in place: the caller asks debugfs about it.
 * The step is small (a fifth more on a loop device), so a round is 100
 * iterations at least: 15 found the step anywhere from 9 to 49 in one run of
 * three in a 2-core VM, 100 at 12 nearly always, in about a second. */
int test_pointers(const struct disco_opts *o, uint64_t block, struct ptr_result *r) {
  uint64_t size = 64 * block;
  size_t n = (size_t)(size / block);
  size_t per = o->iters < PTR_MIN_ITERS ? PTR_MIN_ITERS : o->iters;
  struct lat_matrix m = {0, 0, NULL};
  if (n < 16) {
    carp("pointers test: want 16 blocks at least");
    return -1;
  }
  /* The fastest of the iterations a block: on a busy machine the median
   * carries other processes' I/O, the minimum only the block's own work. */
  long k = write_rounds(o, &m, block, n, per, step_detect, NULL, &r->rounds);
  if (k == -2) goto fail;
  double *min = malloc(n * sizeof *min);
  if (min == NULL) goto fail;
  summarize(&m, min, NULL);
  r->direct = k;
  r->iters = m.iters;
  r->median_us = median_of(min + 1, k < 0 ? n - 1 : (size_t)k - 1);
  r->spike_us = k < 0 ? 0 : min[k];
  free(min);
  if (write_offsets(o, "pointers", &m, block) != 0) goto fail;
  lat_free(&m);
  return 0;
fail:
  lat_free(&m);
  return -1;
}
