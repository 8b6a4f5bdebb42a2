/* Shared helpers of the native tools: version, clocks, numbers, and the
 * --stats / --series writers (docs/formats.md#tool-stats, #tool-series). */
#ifndef SHOOTOUT_COMMON_H
#define SHOOTOUT_COMMON_H

#include <stdint.h>
#include <stdio.h>

#define SHOOTOUT_VERSION "0.1.0"

/* Print "NAME VERSION" to stdout; for --version. */
void print_version(const char *name);

/* Monotonic seconds since an arbitrary origin. */
double now_mono(void);
/* Wall-clock seconds since the epoch (for series and metadata). */
/* This process's user and system CPU seconds so far. */
void cpu_times(double *user_s, double *sys_s);

/* Parse a non-negative decimal integer that must fill the whole string.
 * Returns 0 on success, -1 on junk, overflow or a value above max. */
int parse_u64(const char *s, uint64_t max, uint64_t *out);
/* Parse a size: a decimal integer, optionally followed by k, m or g
 * (KiB, MiB, GiB, either case); same contract, the limit UINT64_MAX. */
int parse_size(const char *s, uint64_t *out);
/* Parse a non-negative decimal number (e.g. "2.5"); same contract. */
int parse_seconds(const char *s, double *out);

/* --stats FILE: tab-separated "metric value unit" lines.  The file is written
 * to FILE.tmp and renamed on close, so a crashed tool leaves no half file;
 * FILE "-" is standard output. */
struct stats_file {
  FILE *f;
  char *path;
  char *tmp;
  int append; /* stats_open_append: no f, the lines kept in mem until stats_close */
  int mem_failed;
  char *mem;
  size_t mem_len, mem_cap;
};
/* Returns 0, or -1 with errno set. */
int stats_open(struct stats_file *s, const char *path);
/* The same lines (stats_u64, stats_f, stats_text), appended to FILE
 * (created when missing) at stats_close in one write(2) on an O_APPEND
 * descriptor: processes that share FILE (httpd -1 under a super-server)
 * each leave one whole block, never interleaved lines.  Kept in memory meanwhile (f is
 * NULL: dietlibc has no open_memstream).  Not fsynced: read once the
 * writers have exited. */
int stats_open_append(struct stats_file *s, const char *path);
void stats_u64(struct stats_file *s, const char *metric, uint64_t v, const char *unit);
void stats_f(struct stats_file *s, const char *metric, double v, const char *unit);
/* A value that is a word (unit "text"), e.g. "inflater isal text". */
void stats_text(struct stats_file *s, const char *metric, const char *v);
/* Flushes, fsyncs and renames into place (stats_open_append: appends the
 * block); returns 0, or -1 with errno set. */
int stats_close(struct stats_file *s);

/* --series FILE: "t_s metric value" lines, appended as the tool runs.
 * series_due() tells whether a second has passed since the last sample. */
struct series_file {
  FILE *f;
  double t0;
  double last;
};
int series_open(struct series_file *s, const char *path, double t0);
int series_due(struct series_file *s, double now);
void series_put(struct series_file *s, double now, const char *metric, double v);
int series_close(struct series_file *s);

#endif
