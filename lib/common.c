#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

void print_version(const char *name) {
  printf("%s %s\n", name, SHOOTOUT_VERSION);
  fflush(stdout);
}

double now_mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cpu_times(double *user_s, double *sys_s) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) {
    *user_s = *sys_s = 0;
    return;
  }
  *user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
  *sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int parse_u64(const char *s, uint64_t max, uint64_t *out) {
  uint64_t v = 0;
  if (s == NULL || *s == '\0') return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return -1;
    unsigned d = (unsigned)(*s - '0');
    if (v > (UINT64_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  if (v > max) return -1;
  *out = v;
  return 0;
}

int parse_size(const char *s, uint64_t *out) {
  char num[32];
  size_t l = strlen(s);
  uint64_t mul = 1;
  if (l == 0 || l >= sizeof num) return -1;
  memcpy(num, s, l + 1);
  switch (num[l - 1]) {
  case 'k': case 'K': mul = 1ULL << 10; break;
  case 'm': case 'M': mul = 1ULL << 20; break;
  case 'g': case 'G': mul = 1ULL << 30; break;
  default: break;
  }
  if (mul > 1) num[l - 1] = '\0';
  uint64_t v;
  if (parse_u64(num, UINT64_MAX / mul, &v) != 0) return -1;
  *out = v * mul;
  return 0;
}

int parse_seconds(const char *s, double *out) {
  char *end;
  if (s == NULL || *s == '\0' || *s == '-' || *s == '+') return -1;
  errno = 0;
  double v = strtod(s, &end);
  if (errno != 0 || *end != '\0' || !(v >= 0) || v > 1e9) return -1;
  *out = v;
  return 0;
}

int stats_open(struct stats_file *s, const char *path) {
  memset(s, 0, sizeof *s);
  if (strcmp(path, "-") == 0) { /* standard output: no path, nothing renamed */
    s->f = stdout;
    return 0;
  }
  size_t n = strlen(path);
  s->path = strdup(path);
  s->tmp = malloc(n + 5);
  if (s->path == NULL || s->tmp == NULL) goto fail;
  memcpy(s->tmp, path, n);
  memcpy(s->tmp + n, ".tmp", 5);
  s->f = fopen(s->tmp, "w");
  if (s->f == NULL) goto fail;
  return 0;
fail:;
  int e = errno;
  free(s->path);
  free(s->tmp);
  s->path = s->tmp = NULL;
  errno = e;
  return -1;
}

int stats_open_append(struct stats_file *s, const char *path) {
  memset(s, 0, sizeof *s);
  s->path = strdup(path);
  if (s->path == NULL) return -1;
  s->append = 1;
  return 0;
}

/* One line of the stats: into s->mem for a stats_open_append block, else
 * to the open file (none after a failed open: nothing). */
static void stats_put(struct stats_file *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void stats_put(struct stats_file *s, const char *fmt, ...) {
  va_list ap;
  if (!s->append) {
    if (s->f == NULL) return;
    va_start(ap, fmt);
    vfprintf(s->f, fmt, ap);
    va_end(ap);
    return;
  }
  for (;;) {
    va_start(ap, fmt);
    char *at = s->mem != NULL ? s->mem + s->mem_len : NULL; /* none yet: size 0 */
    int n = s->mem_failed ? -1 : vsnprintf(at, s->mem_cap - s->mem_len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      s->mem_failed = 1;
      return;
    }
    if ((size_t)n < s->mem_cap - s->mem_len) {
      s->mem_len += (size_t)n;
      return;
    }
    size_t cap = s->mem_cap * 2 + (size_t)n + 256;
    char *m = realloc(s->mem, cap);
    if (m == NULL) {
      s->mem_failed = 1;
      return;
    }
    s->mem = m, s->mem_cap = cap;
  }
}

/* stats_close of stats_open_append: the block in one write, or none. */
static int stats_close_append(struct stats_file *s) {
  int rc = -1, fd = -1;
  ssize_t n = -1;
  if (s->mem_failed) errno = ENOMEM;
  else if ((fd = open(s->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666)) >= 0) {
    do n = write(fd, s->mem, s->mem_len); while (n < 0 && errno == EINTR);
    if (n >= 0 && (size_t)n != s->mem_len) errno = ENOSPC; /* a torn block */
    else if (n >= 0) rc = 0;
    if (close(fd) != 0) rc = -1;
  }
  int e = errno;
  free(s->mem);
  free(s->path);
  memset(s, 0, sizeof *s);
  errno = e;
  return rc;
}

void stats_u64(struct stats_file *s, const char *metric, uint64_t v, const char *unit) {
  stats_put(s, "%s\t%llu\t%s\n", metric, (unsigned long long)v, unit);
}

void stats_f(struct stats_file *s, const char *metric, double v, const char *unit) {
  stats_put(s, "%s\t%.6g\t%s\n", metric, v, unit);
}

void stats_text(struct stats_file *s, const char *metric, const char *v) {
  stats_put(s, "%s\t%s\ttext\n", metric, v);
}

int stats_close(struct stats_file *s) {
  int rc = 0;
  if (s->append) return stats_close_append(s);
  if (s->f == NULL) return 0;
  if (s->path == NULL) { /* "-": standard output stays open */
    s->f = NULL;
    return fflush(stdout) == 0 ? 0 : -1;
  }
  if (fflush(s->f) != 0 || fsync(fileno(s->f)) != 0) rc = -1;
  if (fclose(s->f) != 0) rc = -1;
  s->f = NULL;
  if (rc == 0 && rename(s->tmp, s->path) != 0) rc = -1;
  if (rc != 0) {
    int e = errno;
    unlink(s->tmp);
    errno = e;
  }
  free(s->path);
  free(s->tmp);
  s->path = s->tmp = NULL;
  return rc;
}

int series_open(struct series_file *s, const char *path, double t0) {
  s->f = fopen(path, "w");
  s->t0 = t0;
  s->last = t0;
  return s->f ? 0 : -1;
}

int series_due(struct series_file *s, double now) {
  return s->f != NULL && now - s->last >= 1.0;
}

void series_put(struct series_file *s, double now, const char *metric, double v) {
  if (s->f == NULL) return;
  /* %.15g: byte counters stay exact; flushed so a sampler can read it live. */
  fprintf(s->f, "%.3f\t%s\t%.15g\n", now - s->t0, metric, v);
  fflush(s->f);
  s->last = now;
}

int series_close(struct series_file *s) {
  if (s->f == NULL) return 0;
  int rc = fclose(s->f);
  s->f = NULL;
  return rc;
}
