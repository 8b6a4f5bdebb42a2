/* fsdisco's read-latency tests: the read-ahead extent (an initial
 * sequential read, a pause, then the file read backward page by page: the
 * pages the kernel read ahead answer as fast as the initial part) and the
 * page cache available to one file (a RAM-sized file read backward, then
 * forward: where the forward reads turn slow, the cached part ends). */
#include "fsdisco.h"
#include "os_cache.h"
#include "printable.h"

#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096

static int timed_read(int fd, char *buf, uint64_t len, uint64_t off, double *us) {
  double t0 = clock_us();
  ssize_t r = pread(fd, buf, len, (off_t)off);
  double t1 = clock_us();
  if (r < 0) {
    carp("read: ", strerror(errno));
    return -1;
  }
  if (us) *us = t1 - t0;
  return 0;
}

/* Writes 64 MiB of scratch memory, more than the CPU caches of the machines
 * we run on, so that the next read copies from memory, not from a CPU cache
 * (a chunk just read sits in L2 and copies several times faster than one
 * from DRAM: as the cache test's reference that made every other cached
 * chunk look "slow").  Mapped afresh and unmapped each time, so that it
 * takes no memory from the page cache under test; -1 after a message. */
#define SCRUB_BYTES ((size_t)64 << 20)
static int evict_cpu_caches(void) {
  char *p = mmap(NULL, SCRUB_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    carp("cache test: mmap of scratch memory: ", strerror(errno));
    return -1;
  }
  memset(p, 0x5a, SCRUB_BYTES);
  if (munmap(p, SCRUB_BYTES) != 0) {
    carp("cache test: munmap: ", strerror(errno));
    return -1;
  }
  return 0;
}

static int open_read(const struct disco_opts *o) {
  int fd = open(o->path, O_RDONLY);
  if (fd < 0) carp("open ", ESC(o->path), ": ", strerror(errno));
  return fd;
}

/* The test file opened for reading, its cache emptied; -1 after a message.
 * A --flush-cmd may unmount the filesystem (harness/flush.sh remount): the
 * file is closed while it runs, and opened again after. */
static int open_flushed(const struct disco_opts *o) {
  int fd = open_read(o);
  if (fd < 0) return -1;
  if (o->flush == FLUSH_CMD) {
    os_fadvise_dontneed(fd);
    close(fd);
    return flush_caches(o, -1) == 0 ? open_read(o) : -1;
  }
  if (flush_caches(o, fd) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* A read buffer, the latency matrix and the test file of size bytes. */
static int prepare(const struct disco_opts *o, uint64_t size, uint64_t bufsize, size_t n, char **buf,
                   struct lat_matrix *m) {
  *buf = malloc(bufsize);
  if (*buf == NULL || lat_alloc(m, o->iters, n) != 0) {
    free(*buf);
    carp("out of memory");
    return -1;
  }
  if (fill_file(o->path, size) != 0) {
    free(*buf);
    lat_free(m);
    return -1;
  }
  return 0;
}

static void pause_s(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

int test_readahead(const struct disco_opts *o, struct ra_result *r) {
  uint64_t size = 16 << 20;
  uint64_t initial = o->initial / PAGE * PAGE;
  size_t n = (size_t)(size / PAGE), known = (size_t)(initial / PAGE);
  if (initial == 0 || initial + 16 * PAGE > size) {
    carp("read-ahead test: the file must be 16 pages larger than the initial read");
    return -1;
  }
  char *buf;
  struct lat_matrix m;
  if (prepare(o, size, PAGE, n, &buf, &m) != 0) return -1;
  for (size_t i = 0; i < o->iters; i++) {
    int fd = open_flushed(o);
    if (fd < 0) goto fail;
    for (uint64_t off = 0; off < initial; off += PAGE)
      if (timed_read(fd, buf, PAGE, off, NULL) != 0) goto fail_fd;
    pause_s(o->delay);
    for (size_t k = n; k-- > 0;)
      if (timed_read(fd, buf, PAGE, (uint64_t)k * PAGE, &LAT(&m, i, k)) != 0) goto fail_fd;
    close(fd);
    continue;
  fail_fd:
    close(fd);
    goto fail;
  }
  double *fast = malloc(n * sizeof *fast);
  if (fast == NULL) goto fail;
  /* The fastest read of each page over the iterations: a page read ahead in
   * any iteration shows, and a cache dropped by someone else meanwhile only
   * makes pages slower, never faster. */
  summarize(&m, fast, NULL);
  r->threshold_us = 0;
  size_t edge = detect_edge(fast, n, known, &r->threshold_us);
  r->extent = (uint64_t)(edge - known) * PAGE;
  free(fast);
  if (write_offsets(o, "readahead", &m, PAGE) != 0) goto fail;
  free(buf);
  lat_free(&m);
  unlink(o->path);
  return 0;
fail:
  free(buf);
  lat_free(&m);
  unlink(o->path);
  return -1;
}

int test_cache(const struct disco_opts *o, struct cache_result *r, uint64_t size) {
  uint64_t chunk = o->chunk;
  size_t n = (size_t)(size / chunk);
  if (n < 4) {
    carp("cache test: want 4 chunks at least");
    return -1;
  }
  char *buf;
  struct lat_matrix m;
  double *ref = malloc(o->iters * sizeof *ref);
  if (ref == NULL || prepare(o, size, chunk, n, &buf, &m) != 0) {
    free(ref);
    return -1;
  }
  for (size_t i = 0; i < o->iters; i++) {
    int fd = open_flushed(o);
    if (fd < 0) goto fail;
    int bad = 0;
    for (size_t k = n; !bad && k-- > 0;) bad = timed_read(fd, buf, chunk, (uint64_t)k * chunk, NULL) != 0;
    /* A read surely answered from the page cache (the first chunk, read
     * again), but not from a CPU cache: the other chunks are not there. */
    for (int j = 0; !bad && j < 3; j++) {
      double us;
      bad = evict_cpu_caches() != 0 || timed_read(fd, buf, chunk, 0, &us) != 0;
      if (!bad && (j == 0 || us < ref[i])) ref[i] = us;
    }
    for (size_t k = 0; !bad && k < n; k++) bad = timed_read(fd, buf, chunk, (uint64_t)k * chunk, &LAT(&m, i, k)) != 0;
    close(fd);
    if (bad) goto fail;
  }
  double *fast = malloc(n * sizeof *fast);
  if (fast == NULL) goto fail;
  /* Slow: four times a surely cached read of the same size. */
  summarize(&m, fast, NULL);
  r->threshold_us = 4 * median_of(ref, o->iters);
  size_t edge = detect_edge(fast, n, 0, &r->threshold_us);
  r->whole = edge == n;
  r->cached = (uint64_t)edge * chunk;
  free(fast);
  if (write_offsets(o, "cache", &m, chunk) != 0) goto fail;
  free(buf);
  free(ref);
  lat_free(&m);
  unlink(o->path);
  return 0;
fail:
  free(buf);
  free(ref);
  lat_free(&m);
  unlink(o->path);
  return -1;
}
