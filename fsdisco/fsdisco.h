/* fsdisco: discovers a filesystem's hidden parameters by timing single system
 * calls (block size, read-ahead extent, page cache available to one file,
 * number of direct block pointers).  Shared declarations of its parts:
 *   fsdisco.c    options, the tests' driver, the report
 *   testfile.c   the test file (filled, flushed) and --out's per-offset files
 *   flushcmd.c   --flush-cmd: a program run between iterations (no shell)
 *   clock.c      the clock check and timed system calls
 *   stats.c      summaries (min / median a position) and the detectors
 *   write.c      the write-latency tests: block size, direct pointers
 *   read.c       the read-latency tests: read-ahead, page cache
 *   truth.c      what the system states: statfs, sysfs, dumpe2fs, ... */
#ifndef FSDISCO_H
#define FSDISCO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "printable.h"

/* Bytes from the command line or a path, escaped for a one-line message
 * (printable.h), in a buffer that lives until the end of the statement. */
#define ESC(s) fsd_esc((char[PRINTABLE_SIZE(256)]){0}, PRINTABLE_SIZE(256), (s))
static inline const char *fsd_esc(char *buf, size_t cap, const char *s) {
  printable(buf, cap, s);
  return buf;
}

/* How the page cache is emptied between iterations. */
enum flush_mode { FLUSH_DROP, FLUSH_CMD, FLUSH_FADVISE, FLUSH_NONE };

struct disco_opts {
  const char *dir;        /* directory on the filesystem under test */
  char path[4096];        /* the test file, DIR/fsdisco.dat */
  unsigned iters;         /* iterations a test */
  uint64_t size;          /* cache test: file size (0: RAM) */
  uint64_t wsize;         /* block test: bytes a write */
  uint64_t chunk;         /* cache test: bytes a read */
  uint64_t initial;       /* read-ahead test: initial sequential read */
  double delay;           /* read-ahead test: pause after the initial read */
  int osync;              /* write tests with O_SYNC (default 1) */
  enum flush_mode flush;
  /* FLUSH_CMD: the program (--flush-cmd) and its arguments (--flush-arg),
   * NULL-terminated, executed without a shell (flushcmd.c). */
#define FLUSH_ARGV_MAX 64
  char *flush_argv[FLUSH_ARGV_MAX + 1];
  size_t flush_argc;      /* arguments after the program */
  const char *out;        /* directory for the per-offset TSV files, or NULL */
  double min_res_ns;      /* refuse a clock coarser than this */
  int quiet;
};

/* A matrix of latencies: iters rows of n positions, in microseconds. */
struct lat_matrix {
  size_t iters, n;
  double *v;
};
int lat_alloc(struct lat_matrix *m, size_t iters, size_t n);
void lat_free(struct lat_matrix *m);
#define LAT(m, i, k) ((m)->v[(i) * (m)->n + (k)])

/* clock.c */
struct clock_info {
  double res_ns;      /* clock_getres */
  double step_ns;     /* smallest non-zero difference of two readings */
  double syscall_ns;  /* median cost of a trivial system call, timed */
};
int clock_check(struct clock_info *ci);
double clock_us(void); /* CLOCK_MONOTONIC in microseconds */

/* stats.c: pure functions, unit-tested. */
double median_of(const double *v, size_t n);     /* NaN when n == 0 */
void summarize(const struct lat_matrix *m, double *min, double *med);
/* Block size from per-write latencies of a sequential write of wsize-byte
 * writes: the power of two B (2*wsize..maxb) whose boundaries are slowest
 * relative to the writes half-way between them, by 1.25 at least and by a
 * quarter more than 2B's.  0 when no B stands out (*ratio gets the chosen
 * B's ratio, or the best ratio when none was chosen). */
uint64_t detect_block(const double *lat, size_t n, uint64_t wsize, uint64_t maxb, double *ratio);
/* Where v[skip..n) first steps up and stays up: the first k where v[k..k+2]
 * are above factor x the median of v[skip..k), so are 3 in 4 of v[k..k+8),
 * and 4 in 5 of v[k..n) are above a third of that rise.  A lone outlier is
 * no step.  (size_t)-1 when there is none. */
size_t detect_step(const double *v, size_t n, size_t skip, double factor);
/* The first position at or above `known` that is slow, and most of the 8
 * after it too (n when there is none).  Slow means above *threshold; when
 * that is not positive it is set between the known-fast positions [0, known)
 * and the slowest quarter at the end. */
size_t detect_edge(const double *v, size_t n, size_t known, double *threshold);

/* write.c / read.c: each fills its result and writes its
 * per-offset file when opts->out is set.  Return 0, or -1 after a message. */
struct block_result { uint64_t block; double ratio; size_t iters, rounds; };
/* The pointers test's rounds are this many iterations at least (see
 * test_pointers); the write tests stop after this many rounds (write_rounds). */
#define PTR_MIN_ITERS 100
#define WRITE_MAX_ROUNDS 8
struct ptr_result { long direct; double spike_us, median_us; size_t iters, rounds; };
struct ra_result { uint64_t extent; double threshold_us; };
struct cache_result { uint64_t cached; int whole; double threshold_us; };
int test_block(const struct disco_opts *o, struct block_result *r);
int test_pointers(const struct disco_opts *o, uint64_t block, struct ptr_result *r);
int test_readahead(const struct disco_opts *o, struct ra_result *r);
int test_cache(const struct disco_opts *o, struct cache_result *r, uint64_t size);

/* flushcmd.c: fork + execvp of argv; 0 when it exits 0, else -1 after a
 * message. */
int run_flush_cmd(char *const argv[]);

/* testfile.c: shared by the tests. */
int flush_caches(const struct disco_opts *o, int fd);
int write_offsets(const struct disco_opts *o, const char *name, const struct lat_matrix *m,
                  uint64_t step);
int fill_file(const char *path, uint64_t size);

/* truth.c */
struct truth {
  char fstype[64], device[256], mnt[4096];
  uint64_t f_bsize;          /* statfs */
  uint64_t st_blksize;       /* stat of the directory */
  uint64_t fs_block;         /* dumpe2fs / xfs_info, 0 unknown */
  uint64_t ra_kb;            /* bdi or queue read_ahead_kb, 0 unknown */
  uint64_t mem_available;    /* /proc/meminfo, bytes */
  int extents;               /* ext4 extent feature (1), no (0), unknown (-1) */
};
void truth_gather(const char *dir, struct truth *t);
/* Direct pointers of the file as debugfs shows them: blocks before (IND);
 * -2 extent-mapped, -1 unknown. */
long truth_direct_pointers(const struct truth *t, const char *path);
long truth_default_direct(const struct truth *t); /* 12 for ext2/3 without extents */

#endif
