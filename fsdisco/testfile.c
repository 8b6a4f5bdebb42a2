/* What fsdisco's latency tests share (write.c, read.c):
 * the test file filled and flushed from the page cache, and each test's
 * per-offset latencies written to --out DIR. */
#include "fsdisco.h"

#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os_cache.h"

int flush_caches(const struct disco_opts *o, int fd) {
  if (fd >= 0) {
    fdatasync(fd);
    os_fadvise_dontneed(fd);
  }
  switch (o->flush) {
  case FLUSH_DROP:
    if (os_drop_caches() != 0) {
      carp("cannot drop the page cache (/proc/sys/vm/drop_caches: ", strerror(errno),
           "): run as root, or use --flush fadvise or --flush none");
      return -1;
    }
    return 0;
  case FLUSH_CMD:
    return run_flush_cmd(o->flush_argv);
  default:
    return 0;
  }
}

int fill_file(const char *path, uint64_t size) {
  int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) {
    carp("cannot create ", ESC(path), ": ", strerror(errno));
    return -1;
  }
  static char buf[1 << 20];
  memset(buf, 'r', sizeof buf);
  for (uint64_t done = 0; done < size;) {
    size_t n = size - done < sizeof buf ? (size_t)(size - done) : sizeof buf;
    ssize_t w = write(fd, buf, n);
    if (w <= 0) {
      carp("write ", ESC(path), ": ", w < 0 ? strerror(errno) : "no progress");
      close(fd);
      unlink(path);
      return -1;
    }
    done += (uint64_t)w;
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    carp("fsync ", ESC(path), ": ", strerror(errno));
    unlink(path);
    return -1;
  }
  return 0;
}

int write_offsets(const struct disco_opts *o, const char *name, const struct lat_matrix *m, uint64_t step) {
  if (o->out == NULL) return 0;
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.tsv", o->out, name);
  FILE *f = fopen(path, "w");
  double *min = malloc((m->n ? m->n : 1) * sizeof *min), *med = malloc((m->n ? m->n : 1) * sizeof *med);
  if (f == NULL || min == NULL || med == NULL) {
    carp("cannot write ", ESC(path), ": ", strerror(errno));
    if (f) fclose(f);
    free(min);
    free(med);
    return -1;
  }
  summarize(m, min, med);
  fprintf(f, "offset\tmin_us\tmedian_us");
  for (size_t i = 0; i < m->iters; i++) fprintf(f, "\ti%zu_us", i + 1);
  fputc('\n', f);
  for (size_t k = 0; k < m->n; k++) {
    fprintf(f, "%llu\t%.3f\t%.3f", (unsigned long long)(k * step), min[k], med[k]);
    for (size_t i = 0; i < m->iters; i++) fprintf(f, "\t%.3f", LAT(m, i, k));
    fputc('\n', f);
  }
  free(min);
  free(med);
  if (fclose(f) != 0) {
    carp("cannot write ", ESC(path), ": ", strerror(errno));
    return -1;
  }
  return 0;
}
