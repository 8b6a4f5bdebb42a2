/* stdiorw: IOzone's four stdio tests on one file: fwrite (a new file),
 * frewrite (the same file again), fread and freread, each moving SIZE
 * bytes in records of RECSIZE through a stdio stream whose buffer is one
 * record (setvbuf), as IOzone does.  A test is timed from its first call
 * to its last (with -e the fflush and fsync after a write test too);
 * fopen and fclose are outside the time.  Prints one line a test in the
 * stats format fio2records --iozone writes for the other IOzone tests:
 *   TEST.CELL.kBps<TAB>RATE<TAB>kB/s   (kilobytes of 1024 bytes a second) */
#include "common.h"
#include "printable.h"

#include <errmsg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: stdiorw [-e] [-n CELL] -s SIZE -r RECSIZE FILE TEST...\n"
    "  IOzone's stdio tests on FILE, in the order given:\n"
    "    fwrite    write a new FILE (an old one is removed first) with fwrite(3)\n"
    "    frewrite  write FILE again, in place, with fwrite(3)\n"
    "    fread     read FILE with fread(3)\n"
    "    freread   read FILE again with fread(3)\n"
    "  -s SIZE     bytes a test moves (k, m, g: KiB, MiB, GiB); whole records\n"
    "  -r RECSIZE  bytes a call, and the size of the stream's buffer (setvbuf)\n"
    "  -e          count the fflush and fsync after a write test in its time\n"
    "              (iozone -e); without it they follow, untimed\n"
    "  -n CELL     the middle of the metric names (default fs<SIZE in KiB>k.rs<RECSIZE>k)\n"
    "  -h, --version\n"
    "Prints TEST.CELL.kBps<TAB>rate<TAB>kB/s a test (kB: 1024 bytes).  Exit\n"
    "status: 0 done, 1 an I/O error or a short file, 2 usage.\n";

struct job {
  const char *path;  /* FILE, escaped for messages */
  const char *file;  /* FILE as given */
  uint64_t size;     /* whole records of rec bytes */
  size_t rec;
  int flush;         /* -e */
  char *record;      /* one record of data */
  char *stdio_buf;   /* the stream's buffer, one record */
};

static void fail(const struct job *j, const char *what) {
  diesys(1, what, " ", j->path);
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
  if (fresh && unlink(j->file) != 0 && errno != ENOENT) fail(j, "cannot remove");
  FILE *f = open_stream(j, fresh ? "w" : "r+");
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
      char b[24];
      snprintf(b, sizeof b, "%llu", (unsigned long long)(i * j->rec));
      die(1, "", j->path, " ends after ", b, " bytes: shorter than -s (run fwrite first)");
    }
  }
  double t = now_mono() - t0;
  fclose(f); /* read-only: nothing to lose */
  return t;
}

int main(int argc, char **argv) {
  errmsg_iam("stdiorw");
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    print_version("stdiorw");
    return 0;
  }
  struct job j;
  memset(&j, 0, sizeof j);
  const char *cell = NULL;
  uint64_t size = 0, rec = 0;
  int c;
  while ((c = getopt(argc, argv, "es:r:n:h")) != -1) {
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
    case 'h': fputs(usage_text, stdout); return 0;
    default: fputs(usage_text, stderr); return 2;
    }
  }
  if (size == 0 || rec == 0 || argc - optind < 2) {
    fputs(usage_text, stderr);
    return 2;
  }
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
    snprintf(name, sizeof name, "fs%lluk.rs%lluk", (unsigned long long)(size >> 10),
             (unsigned long long)(rec >> 10));
    cell = name;
  }
  j.record = malloc(j.rec);
  j.stdio_buf = malloc(j.rec);
  if (j.record == NULL || j.stdio_buf == NULL) die(1, "out of memory for two records");
  for (size_t i = 0; i < j.rec; i++) j.record[i] = (char)('a' + i % 26);
  for (int i = optind + 1; i < argc; i++) {
    const char *t = argv[i];
    double s = strcmp(t, "fwrite") == 0     ? run_write(&j, 1)
               : strcmp(t, "frewrite") == 0 ? run_write(&j, 0)
                                            : run_read(&j);
    if (s < 1e-6) s = 1e-6; /* the clock's resolution, as IOzone */
    if (printf("%s.%s.kBps\t%.0f\tkB/s\n", t, cell, (double)j.size / 1024 / s) < 0 || fflush(stdout) != 0)
      diesys(1, "cannot write to standard output");
  }
  free(j.record);
  free(j.stdio_buf);
  return 0;
}
