/* stdiorw: IOzone's four stdio tests on one file: fwrite (the file
 * written in place, as IOzone opens it with "r+"; created when missing),
 * frewrite (the same file again), fread and freread, each moving SIZE
 * bytes in records of RECSIZE through a stdio stream whose buffer is one
 * record (setvbuf), as IOzone does.  A test is timed from its first call
 * to its last (with -e the fflush and fsync after a write test too);
 * fopen and fclose are outside the time.  Prints one line a test in the
 * stats format fio2records --iozone writes for the other IOzone tests:
 *   TEST.CELL.kBps<TAB>RATE<TAB>kB/s   (kilobytes of 1024 bytes a second)
 * With -t N, N child processes run the tests at once, each on a file of its
 * own, starting every test together; the rate is the sum of their rates
 * (IOzone's "Children see throughput"). */
#include "children.h"
#include "common.h"
#include "printable.h"
#include "usage.h"

#include <errmsg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: stdiorw [-e] [-n CELL] [-t N] -s SIZE -r RECSIZE FILE TEST...\n"
    "  IOzone's stdio tests on FILE, in the order given:\n"
    "    fwrite    write FILE in place (created when missing) with fwrite(3)\n"
    "    frewrite  write FILE again, in place, with fwrite(3)\n"
    "    fread     read FILE with fread(3)\n"
    "    freread   read FILE again with fread(3)\n"
    "  -s SIZE     bytes a test moves (k, m, g: KiB, MiB, GiB); whole records\n"
    "  -r RECSIZE  bytes a call, and the size of the stream's buffer (setvbuf)\n"
    "  -e          count the fflush and fsync after a write test in its time\n"
    "              (iozone -e); without it they follow, untimed\n"
    "  -t N        N processes at once (IOzone's throughput mode, iozone -t N),\n"
    "              child K (0 to N-1) on FILE.K; every test starts in all of\n"
    "              them together, and its rate is the sum of theirs\n"
    "  -n CELL     the middle of the metric names (default fs<SIZE in KiB>k.rs<RECSIZE>k,\n"
    "              with -t t<N>.fs<SIZE in KiB>k.rs<RECSIZE>k)\n"
    "  -h, --help  this text\n"
    "  --version   print the version\n"
    "Prints TEST.CELL.kBps<TAB>rate<TAB>kB/s a test (kB: 1024 bytes).  Exit\n"
    "status: 0 done, 1 an I/O error or a short file, 2 usage.\n";

static const struct tool stdiorw_tool = {"stdiorw", usage_text, NULL};
static const struct option stdiorw_longopts[] = {USAGE_LONGOPTS};

struct job {
  const char *path;  /* FILE, escaped for messages */
  const char *file;  /* FILE as given (FILE.K with -t) */
  uint64_t size;     /* whole records of rec bytes */
  size_t rec;
  int flush;         /* -e */
  char *record;      /* one record of data */
  char *stdio_buf;   /* the stream's buffer, one record */
  char **tests;
  int ntests;
  const struct child *child; /* with -t: the child this job runs in */
  char file_k[PRINTABLE_SIZE(512) + 16], path_k[PRINTABLE_SIZE(512) + 16]; /* FILE.K */
};

/* An error ends the run with one line: ours, or with -t the child's line
 * sent to the parent, which prints the first one. */
static void fail_text(const struct job *j, const char *text) {
  if (j->child) child_fail(j->child, text);
  die(1, text);
}

static void fail(const struct job *j, const char *what) {
  char text[PRINTABLE_SIZE(512) + 200];
  snprintf(text, sizeof text, "%s %s: %s", what, j->path, strerror(errno));
  fail_text(j, text);
}

/* Opens FILE with MODE and gives the stream a buffer of one record: ours
 * (glibc ignores the size when it allocates one itself), except with
 * dietlibc, whose fclose frees a buffer given to setvbuf as if it were its
 * own; there the stream allocates one of that size. */
static FILE *open_stream(const struct job *j, const char *mode) {
  FILE *f = fopen(j->file, mode);
  if (f == NULL) fail(j, "cannot open");
#ifdef __dietlibc__
  char *buf = NULL;
#else
  char *buf = j->stdio_buf;
#endif
  if (setvbuf(f, buf, _IOFBF, j->rec) != 0) fail(j, "cannot set the buffer of");
  return f;
}

/* The seconds one test took; the stream is closed (and, for a write test,
 * flushed and synced) before it returns. */
static double run_write(const struct job *j, int fresh) {
  /* IOzone's fwrite opens the file its write test left with "r+", in place;
   * only a missing file (the stdio tests alone) is created. */
  FILE *f = fresh && access(j->file, F_OK) != 0 && errno == ENOENT ? open_stream(j, "w") : open_stream(j, "r+");
  uint64_t n = j->size / j->rec;
  double t0 = now_mono();
  for (uint64_t i = 0; i < n; i++)
    if (fwrite(j->record, j->rec, 1, f) != 1) fail(j, "cannot write");
  if (j->flush && (fflush(f) != 0 || fsync(fileno(f)) != 0)) fail(j, "cannot flush");
  double t = now_mono() - t0;
  if (!j->flush && (fflush(f) != 0 || fsync(fileno(f)) != 0)) fail(j, "cannot flush");
  if (fclose(f) != 0) fail(j, "cannot close");
  return t;
}

static double run_read(const struct job *j) {
  FILE *f = open_stream(j, "r");
  uint64_t n = j->size / j->rec;
  double t0 = now_mono();
  for (uint64_t i = 0; i < n; i++) {
    if (fread(j->record, j->rec, 1, f) != 1) {
      if (ferror(f)) fail(j, "cannot read");
      char text[PRINTABLE_SIZE(512) + 100];
      snprintf(text, sizeof text, "%s ends after %llu bytes: shorter than -s (run fwrite first)", j->path,
               (unsigned long long)(i * j->rec));
      fail_text(j, text);
    }
  }
  double t = now_mono() - t0;
  fclose(f); /* read-only: nothing to lose */
  return t;
}

static double run_test(const struct job *j, const char *t) {
  double s = strcmp(t, "fwrite") == 0     ? run_write(j, 1)
             : strcmp(t, "frewrite") == 0 ? run_write(j, 0)
                                          : run_read(j);
  return s < 1e-6 ? 1e-6 : s; /* the clock's resolution, as IOzone */
}

/* The rate of a test that moved the job's size in secs, in KiB a second. */
static double kbps(const struct job *j, double secs) {
  return (double)j->size / 1024 / secs;
}

/* Child c's test i: its own file FILE.K and buffers (after fork, the
 * parent's job is the child's own copy). */
static double child_test(void *ctx, const struct child *c, int i) {
  struct job *j = ctx;
  if (j->child == NULL) {
    j->child = c;
    snprintf(j->file_k, sizeof j->file_k, "%s.%d", j->file, c->k);
    snprintf(j->path_k, sizeof j->path_k, "%s.%d", j->path, c->k);
    j->file = j->file_k;
    j->path = j->path_k;
  }
  return run_test(j, j->tests[i]);
}

static void print_rate(const char *test, const char *cell, double kbps) {
  if (printf("%s.%s.kBps\t%.0f\tkB/s\n", test, cell, kbps) < 0 || fflush(stdout) != 0)
    diesys(1, "cannot write to standard output");
}

/* -t N: the tests in N children at once; the summed rate of each. */
static void run_children(struct job *j, int n, const char *cell) {
  double *secs = calloc((size_t)n * (size_t)j->ntests, sizeof *secs);
  if (secs == NULL) die(1, "out of memory for the children's figures");
  children_run(n, j->ntests, child_test, j, secs);
  for (int i = 0; i < j->ntests; i++) {
    double sum = 0;
    for (int k = 0; k < n; k++) sum += kbps(j, secs[(size_t)i * (size_t)n + (size_t)k]);
    print_rate(j->tests[i], cell, sum);
  }
  free(secs);
}

int main(int argc, char **argv) {
  errmsg_iam("stdiorw");
  struct job j;
  memset(&j, 0, sizeof j);
  const char *cell = NULL;
  uint64_t size = 0, rec = 0;
  int c, nchildren = 0;
  char *end;
  while ((c = usage_getopt(&stdiorw_tool, argc, argv, "es:r:n:t:", stdiorw_longopts)) != -1) {
    switch (c) {
    case 'e': j.flush = 1; break;
    case 's':
      if (parse_size(optarg, &size) != 0 || size == 0) die(2, "-s: want a size like 64k, 1m, 4g");
      break;
    case 'r':
      if (parse_size(optarg, &rec) != 0 || rec == 0 || rec > (1u << 30))
        die(2, "-r: want a record size like 4k, 64k, 16m (1g at most)");
      break;
    case 'n': cell = optarg; break;
    case 't': {
      long t = strtol(optarg, &end, 10);
      if (end == optarg || *end || t < 1 || t > CHILDREN_MAX) die(2, "-t: want a number of children, 1 to 1024");
      nchildren = (int)t;
      break;
    }
    default: break; /* usage_getopt answered the rest */
    }
  }
  if (size == 0 || rec == 0) die(2, "missing -s SIZE or -r RECSIZE (stdiorw -h lists the options)");
  if (argc - optind < 2) die(2, "want FILE TEST... (stdiorw -h lists the options)");
  if (rec > size) die(2, "-r is larger than -s: not one whole record");
  for (int i = optind + 1; i < argc; i++) {
    const char *t = argv[i];
    if (strcmp(t, "fwrite") != 0 && strcmp(t, "frewrite") != 0 && strcmp(t, "fread") != 0 &&
        strcmp(t, "freread") != 0) {
      char q[PRINTABLE_SIZE(64)];
      printable(q, sizeof q, t);
      die(2, "unknown test ", q, " (want fwrite frewrite fread freread)");
    }
  }
  char path[PRINTABLE_SIZE(512)], name[64];
  printable(path, sizeof path, argv[optind]);
  j.file = argv[optind];
  j.path = path;
  j.rec = (size_t)rec;
  j.size = size - size % rec; /* whole records, as IOzone */
  if (cell == NULL) {
    int o = nchildren ? snprintf(name, sizeof name, "t%d.", nchildren) : 0;
    snprintf(name + o, sizeof name - (size_t)o, "fs%lluk.rs%lluk", (unsigned long long)(size >> 10),
             (unsigned long long)(rec >> 10));
    cell = name;
  }
  j.record = malloc(j.rec);
  j.stdio_buf = malloc(j.rec);
  if (j.record == NULL || j.stdio_buf == NULL) die(1, "out of memory for two records");
  for (size_t i = 0; i < j.rec; i++) j.record[i] = (char)('a' + i % 26);
  j.tests = argv + optind + 1;
  j.ntests = argc - optind - 1;
  if (nchildren) {
    run_children(&j, nchildren, cell);
  } else {
    for (int i = 0; i < j.ntests; i++)
      print_rate(j.tests[i], cell, kbps(&j, run_test(&j, j.tests[i])));
  }
  free(j.record);
  free(j.stdio_buf);
  return 0;
}
