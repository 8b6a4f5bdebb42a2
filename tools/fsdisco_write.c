/* fsdisco's write-latency tests: the block size (sequential small writes,
 * each timed) and the number of direct block pointers in the inode (whole
 * blocks written one by one with O_SYNC: the first block reached through an
 * indirect block allocates and writes that block too, and so, on a current
 * kernel, does every later one, as the indirect block changes with each:
 * the latency steps up where the direct pointers end). */
#include "fsdisco.h"

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
    carp("cannot remove ", o->path, ": ", strerror(errno));
    return -1;
  }
  if (flush_caches(o, -1) != 0) return -1;
  int fd = open(o->path, O_CREAT | O_TRUNC | O_WRONLY | (o->osync ? O_SYNC : 0), 0644);
  if (fd < 0) {
    carp("cannot create ", o->path, ": ", strerror(errno));
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
      carp("write to ", o->path, ": ", w < 0 ? strerror(errno) : "short write");
      free(buf);
      close(fd);
      return -1;
    }
    lat[k] = t1 - t0;
  }
  free(buf);
  if (close(fd) != 0) {
    carp("close ", o->path, ": ", strerror(errno));
    return -1;
  }
  return 0;
}

int test_block(const struct disco_opts *o, struct block_result *r) {
  uint64_t size = 256 << 10;
  size_t n = (size_t)(size / o->wsize);
  struct lat_matrix m;
  if (n < 4) {
    carp("block test: file of ", "fewer than 4 writes");
    return -1;
  }
  if (lat_alloc(&m, o->iters, n) != 0) return -1;
  for (size_t i = 0; i < o->iters; i++)
    if (timed_writes(o, o->wsize, n, &LAT(&m, i, 0)) != 0) goto fail;
  double *min = malloc(n * sizeof *min);
  if (min == NULL) goto fail;
  summarize(&m, min, NULL);
  r->block = detect_block(min, n, o->wsize, 16 << 10, &r->ratio);
  free(min);
  if (write_offsets(o, "block", &m, o->wsize) != 0) goto fail;
  lat_free(&m);
  unlink(o->path);
  return 0;
fail:
  lat_free(&m);
  unlink(o->path);
  return -1;
}

/* Leaves the last iteration's file in place: the caller asks debugfs about it. */
int test_pointers(const struct disco_opts *o, uint64_t block, struct ptr_result *r) {
  uint64_t size = 64 * block;
  size_t n = (size_t)(size / block);
  struct lat_matrix m;
  if (n < 16) {
    carp("pointers test: want 16 blocks at least");
    return -1;
  }
  if (lat_alloc(&m, o->iters, n) != 0) return -1;
  for (size_t i = 0; i < o->iters; i++)
    if (timed_writes(o, block, n, &LAT(&m, i, 0)) != 0) goto fail;
  double *min = malloc(n * sizeof *min);
  if (min == NULL) goto fail;
  /* The fastest of the iterations a block: on a busy machine the median
   * carries other processes' I/O, the minimum only the block's own work.
   * Block 0 is special (the first block of a file): the search starts at 1. */
  summarize(&m, min, NULL);
  size_t k = detect_step(min, n, 1, 1.08);
  r->direct = k == (size_t)-1 ? -1 : (long)k;
  r->median_us = median_of(min + 1, k == (size_t)-1 ? n - 1 : k - 1);
  r->spike_us = k == (size_t)-1 ? 0 : min[k];
  free(min);
  if (write_offsets(o, "pointers", &m, block) != 0) goto fail;
  lat_free(&m);
  return 0;
fail:
  lat_free(&m);
  return -1;
}
