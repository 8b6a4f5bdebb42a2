/* fsdisco: discover a filesystem's block size, read-ahead extent, page cache
 * available to one file and number of direct block pointers by timing single
 * system calls, and set each beside what the system states. */
#include "common.h"
#include "fsdisco.h"
#include "os_cache.h"
#include "os_fs.h"
#include "printable.h"
#include "usage.h"

#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: fsdisco [options] TEST... DIR\n"
    "  TEST: clock block pointers readahead cache, or all (the four)\n"
    "  DIR:  a directory on the filesystem under test (fsdisco.dat is made there)\n"
    "  -i N            iterations a test (5), a round for block, pointers (100 at least):\n"
    "                  rounds until two in a row agree (8 at most); min and median a position\n"
    "  -s SIZE         cache test: file size (RAM; skipped when that does not fit,\n"
    "                  refused when -s does not); block 256k, pointers 64 blocks, readahead 16m\n"
    "  -w BYTES        block test: bytes a write (512)\n"
    "  -m BYTES        cache test: bytes a read (1m)\n"
    "  -I BYTES        readahead test: initial sequential read (2m)\n"
    "  -D SECONDS      readahead test: pause after the initial read (1)\n"
    "  --buffered      write tests without O_SYNC\n"
    "  --flush MODE    between iterations: drop (root: drop_caches, the default;\n"
    "                  Linux only, remount with --flush-cmd elsewhere),\n"
    "                  fadvise (only the test file), none\n"
    "  --flush-cmd PROG\n"
    "                  run PROG between iterations instead: executed, no shell;\n"
    "                  nothing is held open on DIR while it runs (it may remount)\n"
    "  --flush-arg ARG give PROG the argument ARG (once for each, in order)\n"
    "  --out DIR       per-offset latencies: DIR/<test>.tsv (offset, min, median, each iteration)\n"
    "  --stats FILE    the figures as metric<TAB>value<TAB>unit lines (- : stdout)\n"
    "  --min-res NS    refuse a clock coarser than NS nanoseconds (1000)\n"
    "  -q              no report on stdout\n"
    "  -h, --help      this text\n"
    "  --version       print the version\n";

static const struct tool fsdisco_tool = {"fsdisco", usage_text, NULL};

enum { T_CLOCK = 1, T_BLOCK = 2, T_POINTERS = 4, T_READAHEAD = 8, T_CACHE = 16 };

static const char *yesno(int agree) { return agree > 0 ? "yes" : agree == 0 ? "NO" : "n/a"; }

struct report {
  struct stats_file *st;
  int quiet;
};

static void line(struct report *r, const char *what, const char *found, const char *says, int agree) {
  if (!r->quiet) printf("%-12s %-26s %-44s %s\n", what, found, says, yesno(agree));
}

static void stat_f(struct report *r, const char *m, double v, const char *unit) {
  if (r->st) stats_f(r->st, m, v, unit);
}

int main(int argc, char **argv) {
  struct disco_opts o = {.iters = 5, .wsize = 512, .chunk = 1 << 20, .initial = 2 << 20, .delay = 1,
                         .osync = 1, .flush = FLUSH_DROP, .min_res_ns = 1000};
  const char *stats_path = NULL;
  int tests = 0;
  errmsg_iam("fsdisco");
  int i;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t u = 0;
    if (!strcmp(a, "--buffered")) {
      o.osync = 0;
    } else if (!strcmp(a, "-q")) {
      o.quiet = 1;
    } else if (a[0] == '-' && a[1] != '\0' && strchr("iswmID", a[1]) && a[2] == '\0') {
      if (v == NULL) die(2, "option ", ESC(a), " needs a value (fsdisco -h lists them)");
      double d;
      if (a[1] == 'D' ? parse_seconds(v, &d) != 0 : parse_size(v, &u) != 0 || u == 0)
        die(2, "option ", ESC(a), ": not a positive number: ", ESC(v));
      if (a[1] == 'i') o.iters = u > 1000 ? 1000 : (unsigned)u;
      if (a[1] == 's') o.size = u;
      if (a[1] == 'w') o.wsize = u;
      if (a[1] == 'm') o.chunk = u;
      if (a[1] == 'I') o.initial = u;
      if (a[1] == 'D') o.delay = d;
      i++;
    } else if (!strcmp(a, "--flush") || !strcmp(a, "--flush-cmd") || !strcmp(a, "--flush-arg") ||
               !strcmp(a, "--out") || !strcmp(a, "--stats") || !strcmp(a, "--min-res")) {
      if (v == NULL) die(2, "option ", ESC(a), " needs a value (fsdisco -h lists them)");
      i++;
      if (!strcmp(a, "--flush-cmd")) {
        if (v[0] == '\0') die(2, "--flush-cmd: want a program");
        o.flush = FLUSH_CMD;
        o.flush_argv[0] = argv[i];
      } else if (!strcmp(a, "--flush-arg")) {
        if (o.flush_argc >= FLUSH_ARGV_MAX - 1) die(2, "--flush-arg: too many arguments");
        o.flush_argv[++o.flush_argc] = argv[i];
      } else if (!strcmp(a, "--out")) {
        o.out = v;
      } else if (!strcmp(a, "--stats")) {
        stats_path = v;
      } else if (!strcmp(a, "--min-res")) {
        if (parse_seconds(v, &o.min_res_ns) != 0) die(2, "--min-res: not a number: ", ESC(v));
      } else if (!strcmp(v, "drop") || !strcmp(v, "fadvise") || !strcmp(v, "none")) {
        o.flush = v[0] == 'd' ? FLUSH_DROP : v[0] == 'f' ? FLUSH_FADVISE : FLUSH_NONE;
      } else {
        die(2, "--flush: want drop, fadvise or none, got ", ESC(v));
      }
    } else if (a[0] == '-') {
      usage_common(&fsdisco_tool, a); /* -h, --help, --version; else unknown */
    } else {
      break;
    }
  }
  for (; i < argc - 1; i++) {
    const char *t = argv[i];
    int bit = !strcmp(t, "clock") ? T_CLOCK : !strcmp(t, "block") ? T_BLOCK : !strcmp(t, "pointers") ? T_POINTERS
            : !strcmp(t, "readahead") ? T_READAHEAD : !strcmp(t, "cache") ? T_CACHE
            : !strcmp(t, "all") ? T_BLOCK | T_POINTERS | T_READAHEAD | T_CACHE : 0;
    if (bit == 0) die(2, "unknown test ", ESC(t), " (want clock, block, pointers, readahead, cache or all)");
    tests |= bit;
  }
  if (i != argc - 1 || tests == 0) die(2, "want TEST... DIR (fsdisco -h lists the options)");
  if (o.flush_argc > 0 && o.flush != FLUSH_CMD) die(2, "--flush-arg: only with --flush-cmd PROG");
  o.dir = argv[i];
  struct stat sd;
  if (stat(o.dir, &sd) != 0) diesys(2, "cannot use ", ESC(o.dir));
  if (!S_ISDIR(sd.st_mode)) die(2, ESC(o.dir), " is not a directory");
  if ((size_t)snprintf(o.path, sizeof o.path, "%s/fsdisco.dat", o.dir) >= sizeof o.path)
    die(2, "directory name too long: ", ESC(o.dir));
  if (o.out && mkdir(o.out, 0755) != 0 && errno != EEXIST) diesys(2, "cannot make ", ESC(o.out));
  if (o.wsize < 512 || o.wsize & (o.wsize - 1)) die(2, "-w: want a power of two from 512");

  /* The cache test's file: RAM-sized by default, and then skipped (said, and
   * cache_skipped in the stats, not a failure) when that does not fit in
   * DIR's filesystem with a sixteenth to spare; a -s that does not fit is
   * refused here, before any test. */
  uint64_t cache_size = 0, cache_avail = 0;
  int cache_skip = 0;
  char buf[256], says[256];
  if (tests & T_CACHE) {
    cache_size = o.size ? o.size : (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    cache_size = cache_size / o.chunk * o.chunk;
    if (os_fs_avail(o.dir, &cache_avail) == 0 && cache_avail < cache_size + (cache_size >> 4)) {
      snprintf(buf, sizeof buf, "%.0f MiB does not fit in %.0f MiB free", (double)cache_size / 1048576,
               (double)cache_avail / 1048576);
      if (o.size) die(2, "-s: the cache test's file of ", buf, " in ", ESC(o.dir), ": give a smaller -s");
      cache_skip = 1;
    }
  }

  struct clock_info ci;
  if (clock_check(&ci) != 0) diesys(1, "CLOCK_MONOTONIC does not work");
  if (ci.step_ns > o.min_res_ns) {
    snprintf(buf, sizeof buf, "%.0f", ci.step_ns);
    die(1, "the clock is too coarse: smallest step ", buf, " ns (--min-res to accept it)");
  }
  if (o.flush == FLUSH_DROP && !OS_CAN_DROP_CACHES)
    die(1, "this system has no drop_caches: remount the filesystem between iterations "
           "(--flush-cmd PROG --flush-arg ARG ...), or --flush fadvise, --flush none");
  if (o.flush == FLUSH_DROP && geteuid() != 0)
    die(1, "dropping the page cache between iterations needs root (or --flush fadvise, --flush none)");

  struct truth t;
  truth_gather(o.dir, &t);
  struct stats_file st;
  if (stats_path && stats_open(&st, stats_path) != 0) diesys(2, "cannot write ", ESC(stats_path));
  struct report rep = {stats_path ? &st : NULL, o.quiet};
  if (!o.quiet) {
    printf("fsdisco %s on %s (%s on %s), %u iteration(s), %s writes\n", SHOOTOUT_VERSION, o.dir,
           t.fstype[0] ? t.fstype : "?", t.device[0] ? t.device : "?", o.iters, o.osync ? "O_SYNC" : "buffered");
    printf("clock: resolution %.0f ns, smallest step %.0f ns, getppid() %.0f ns\n", ci.res_ns, ci.step_ns,
           ci.syscall_ns);
    printf("%-12s %-26s %-44s %s\n", "test", "discovered", "the system says", "agree");
  }
  stat_f(&rep, "clock_res_ns", ci.res_ns, "ns");
  stat_f(&rep, "clock_step_ns", ci.step_ns, "ns");
  stat_f(&rep, "syscall_ns", ci.syscall_ns, "ns");
  int rc = 0;
  uint64_t block = 0;
  uint64_t truth_block = t.fs_block ? t.fs_block : t.f_bsize;
  if (tests & T_BLOCK) {
    struct block_result br;
    if (test_block(&o, &br) != 0) {
      rc = 1;
    } else {
      block = br.block;
      int agree = block == truth_block;
      if (block)
        snprintf(buf, sizeof buf, "%llu B (x%.2f, %zu it.)", (unsigned long long)block, br.ratio, br.iters);
      else
        snprintf(buf, sizeof buf, "none (best x%.2f, %zu it.)", br.ratio, br.iters);
      snprintf(says, sizeof says, "statfs %llu, st_blksize %llu, %s %llu", (unsigned long long)t.f_bsize,
               (unsigned long long)t.st_blksize, strcmp(t.fstype, "xfs") ? "dumpe2fs" : "xfs_info",
               (unsigned long long)t.fs_block);
      line(&rep, "block size", buf, says, agree);
      stat_f(&rep, "block_B", (double)block, "B");
      stat_f(&rep, "block_ratio", br.ratio, "x");
      stat_f(&rep, "block_iterations", (double)br.iters, "count");
      stat_f(&rep, "block_truth_B", (double)truth_block, "B");
      stat_f(&rep, "block_agree", agree, "bool");
    }
  }
  if (tests & T_POINTERS) {
    struct ptr_result pr;
    uint64_t b = block ? block : truth_block ? truth_block : 4096;
    if (test_pointers(&o, b, &pr) != 0) {
      rc = 1;
    } else {
      long truth = truth_direct_pointers(&t, o.path);
      long deflt = truth_default_direct(&t);
      unlink(o.path);
      int agree = truth >= 0 ? pr.direct == truth : truth == -2 ? -1 : deflt >= 0 ? pr.direct == deflt : -1;
      if (pr.direct >= 0)
        snprintf(buf, sizeof buf, "%ld (%.0f us vs %.0f, %zu it.)", pr.direct, pr.spike_us, pr.median_us, pr.iters);
      else
        snprintf(buf, sizeof buf, "no step (%.0f us, %zu it.)", pr.median_us, pr.iters);
      if (truth >= 0)
        snprintf(says, sizeof says, "debugfs: (IND) after %ld blocks of %llu B", truth, (unsigned long long)b);
      else if (truth == -2)
        snprintf(says, sizeof says, "extent-mapped inode: no direct pointers");
      else
        snprintf(says, sizeof says, deflt >= 0 ? "ext2/3 format: %ld" : "unknown", deflt);
      line(&rep, "direct ptrs", buf, says, agree);
      stat_f(&rep, "direct_pointers", (double)pr.direct, "count");
      stat_f(&rep, "direct_spike_us", pr.spike_us, "us");
      stat_f(&rep, "direct_median_us", pr.median_us, "us");
      stat_f(&rep, "direct_iterations", (double)pr.iters, "count");
      stat_f(&rep, "direct_truth", (double)(truth >= 0 ? truth : truth == -2 ? 0 : deflt), "count");
      stat_f(&rep, "direct_agree", agree, "bool");
    }
  }
  if (tests & T_READAHEAD) {
    struct ra_result rr;
    if (test_readahead(&o, &rr) != 0) {
      rc = 1;
    } else {
      double kb = (double)rr.extent / 1024;
      /* Linux keeps up to two read-ahead windows in flight (the current one and
       * the asynchronous one behind its marker): 1x to 2x read_ahead_kb. */
      int agree = t.ra_kb ? kb >= 0.75 * (double)t.ra_kb && kb <= 2.25 * (double)t.ra_kb : -1;
      snprintf(buf, sizeof buf, "%.0f KiB (edge %.0f us)", kb, rr.threshold_us);
      snprintf(says, sizeof says, "read_ahead_kb %llu (agree: 1x..2x)", (unsigned long long)t.ra_kb);
      line(&rep, "read-ahead", buf, says, agree);
      stat_f(&rep, "readahead_kB", kb, "kB");
      stat_f(&rep, "readahead_truth_kB", (double)t.ra_kb, "kB");
      stat_f(&rep, "readahead_agree", agree, "bool");
    }
  }
  if (tests & T_CACHE) {
    struct cache_result cr;
    if (cache_skip) {
      char file_mb[32], free_mb[32];
      snprintf(file_mb, sizeof file_mb, "%.0f", (double)cache_size / 1048576);
      snprintf(free_mb, sizeof free_mb, "%.0f", (double)cache_avail / 1048576);
      carp("cache test skipped: its RAM-sized file of ", file_mb, " MiB does not fit in the ", free_mb,
           " MiB free (-s SIZE for a smaller one)");
      snprintf(buf, sizeof buf, "skipped (%s MiB file)", file_mb);
      snprintf(says, sizeof says, "%s MiB free", free_mb);
      line(&rep, "page cache", buf, says, -1);
      stat_f(&rep, "cache_skipped", 1, "bool");
      stat_f(&rep, "cache_file_MB", (double)cache_size / 1048576, "MB");
      stat_f(&rep, "cache_free_MB", (double)cache_avail / 1048576, "MB");
    } else if (test_cache(&o, &cr, cache_size) != 0) {
      rc = 1;
    } else {
      double mb = (double)cr.cached / 1048576, avail = (double)t.mem_available / 1048576;
      int agree = cr.whole ? -1 : mb >= 0.75 * avail && mb <= 1.25 * avail;
      if (cr.whole)
        snprintf(buf, sizeof buf, ">= %.0f MiB (whole file)", mb);
      else
        snprintf(buf, sizeof buf, "%.0f MiB", mb);
      snprintf(says, sizeof says, OS_MEM_AVAILABLE_NAME " %.0f MiB (agree: +-25%%)", avail);
      line(&rep, "page cache", buf, says, agree);
      stat_f(&rep, "cache_MB", mb, "MB");
      stat_f(&rep, "cache_whole_file", cr.whole, "bool");
      stat_f(&rep, "cache_truth_MB", avail, "MB");
      stat_f(&rep, "cache_agree", agree, "bool");
    }
  }
  if (stats_path && stats_close(&st) != 0) diesys(1, "cannot write ", ESC(stats_path));
  unlink(o.path);
  return rc;
}
