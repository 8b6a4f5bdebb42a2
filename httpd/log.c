/* The access log (Common Log Format, to stdout) and the counters (to
 * stderr).  Neither may ever block serving: the log is a bounded buffer of
 * whole lines, written without blocking before the loop waits; a line that
 * finds the buffer full is dropped and counted (log_dropped). */
#include "server.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "evmech.h"
#include "os_proc.h"
#include "printable.h"

static uint64_t count_lines(const char *p, size_t n) {
  uint64_t k = 0;
  for (const char *e; n > 0 && (e = memchr(p, '\n', n)) != NULL; n -= (size_t)(e + 1 - p), p = e + 1)
    k++;
  return k;
}

static void drop_all(struct server *s) {
  struct logbuf *l = s->log;
  s->ctr->log_dropped += count_lines(l->buf, l->len);
  l->len = 0;
}

/* The next write from p (n bytes pending).  To a regular file, all of it.
 * Otherwise whole lines, at most PIPE_BUF bytes, so that a pipe takes them
 * whole or not at all and the lines of -N children never interleave within
 * a line. */
static size_t chunk_len(const struct outfd *o, const char *p, size_t n) {
  if (o->how == OUT_PLAIN) return n;
  const char *e = memrchr(p, '\n', n < PIPE_BUF ? n : PIPE_BUF);
  if (e == NULL) e = memchr(p, '\n', n); /* a line longer than PIPE_BUF */
  return e != NULL ? (size_t)(e + 1 - p) : n;
}

void log_flush(struct server *s, double until) {
  struct logbuf *l = s->log;
  if (l == NULL) return;
  if (l->broken) drop_all(s);
  size_t done = 0;
  while (done < l->len) {
    ssize_t w = outfd_write(&l->out, l->buf + done, chunk_len(&l->out, l->buf + done, l->len - done));
    if (w > 0) {
      done += (size_t)w;
      continue;
    }
    if (w < 0 && errno == EAGAIN) {
      if (outfd_wait(&l->out, until)) continue;
      break; /* full: keep the rest for the next turn */
    }
    /* stdout is gone, or a file cannot grow: drop the log, not the server */
    if (w < 0 && (errno == EPIPE || errno == EBADF)) l->broken = 1;
    drop_all(s);
    return;
  }
  l->len -= done;
  memmove(l->buf, l->buf + done, l->len);
}

void log_finish(struct server *s) {
  if (s->log == NULL) return;
  log_flush(s, now_mono() + 0.3);
  drop_all(s);
}

/* peer - - [10/Oct/2000:13:55:36 +0000] "GET /x HTTP/1.1" 200 2326 */
void log_access(struct server *s, struct conn *c, const struct http_req *r, int status,
                uint64_t body) {
  struct logbuf *l = s->log;
  char line[HTTPD_LOG_LINE], req[1100];
  /* The request line as printable() shows it, with '"' escaped too: no
   * control byte and no quote of the client's can end the field or the
   * line.  About 1 KiB of it at most, then "...". */
  size_t o = 0;
  if (r == NULL) req[o++] = '-';
  for (size_t i = 0; r != NULL && i < r->line_len; i++) {
    char e[8];
    size_t k = 4;
    if (r->line[i] == '"')
      memcpy(e, "\\x22", 4);
    else
      k = printable_n(e, sizeof e, r->line + i, 1);
    if (o + k > sizeof req - 4) {
      memcpy(req + o, "...", 3), o += 3;
      break;
    }
    memcpy(req + o, e, k), o += k;
  }
  req[o] = '\0';
  /* "Sun, 06 Nov 1994 08:49:37 GMT" -> "06/Nov/1994:08:49:37 +0000" */
  const char *d = s->date;
  int n = body ? snprintf(line, sizeof line, "%s - - [%.2s/%.3s/%.4s:%.8s +0000] \"%s\" %d %llu\n",
                          c->peer, d + 5, d + 8, d + 12, d + 17, req, status,
                          (unsigned long long)body)
               : snprintf(line, sizeof line, "%s - - [%.2s/%.3s/%.4s:%.8s +0000] \"%s\" %d -\n",
                          c->peer, d + 5, d + 8, d + 12, d + 17, req, status);
  if (n <= 0 || (size_t)n >= sizeof line) return; /* cannot happen: bounded above */
  if (l->len + (size_t)n > sizeof l->buf) log_flush(s, 0);
  if (l->broken || l->len + (size_t)n > sizeof l->buf) {
    s->ctr->log_dropped++;
    return;
  }
  memcpy(l->buf + l->len, line, (size_t)n);
  l->len += (size_t)n;
}

void counters_add(struct counters *sum, const struct counters *c) {
  sum->connections += c->connections;
  sum->requests += c->requests;
  sum->bytes += c->bytes;
  sum->errors += c->errors;
  sum->timeouts += c->timeouts;
  sum->refused += c->refused;
  sum->log_dropped += c->log_dropped;
  lathist_sum(&sum->lat_open, &c->lat_open);
  lathist_sum(&sum->lat_ttfb, &c->lat_ttfb);
  accept_add(sum, c);
  if (c->evmech[0] != '\0') memcpy(sum->evmech, c->evmech, sizeof sum->evmech);
}

void counters_print(struct server *s, const char *who, const struct counters *c,
                    double until) {
  char msg[512];
  int n = snprintf(msg, sizeof msg,
                   "%s: connections %llu requests %llu bytes %llu errors %llu timeouts %llu "
                   "refused %llu log_dropped %llu\n",
                   who, (unsigned long long)c->connections, (unsigned long long)c->requests,
                   (unsigned long long)c->bytes, (unsigned long long)c->errors,
                   (unsigned long long)c->timeouts, (unsigned long long)c->refused,
                   (unsigned long long)c->log_dropped);
  if (n > 0 && (size_t)n < sizeof msg) (void)outfd_put(&s->err, msg, (size_t)n, until);
}

int write_stats(const char *path, int append, const struct counters *c, const struct counters *kids,
                unsigned nkids, double wall_s, double user_s, double sys_s) {
  struct stats_file f;
  if ((append ? stats_open_append(&f, path) : stats_open(&f, path)) != 0) return -1;
  stats_u64(&f, "connections", c->connections, "count");
  stats_u64(&f, "requests", c->requests, "count");
  stats_u64(&f, "bytes", c->bytes, "B");
  stats_u64(&f, "errors", c->errors, "count");
  stats_u64(&f, "timeouts", c->timeouts, "count");
  stats_u64(&f, "refused", c->refused, "count");
  stats_u64(&f, "log_dropped", c->log_dropped, "count");
  stats_f(&f, "wall_s", wall_s, "s");
  stats_f(&f, "user_s", user_s, "s");
  stats_f(&f, "sys_s", sys_s, "s");
  /* -N: the largest of the parent and its children (RUSAGE_CHILDREN). */
  stats_u64(&f, "maxrss_kb", os_maxrss_kb(), "KiB");
  lathist_stats(&f, "lat_open_ns", &c->lat_open);
  lathist_stats(&f, "lat_ttfb_ns", &c->lat_ttfb);
  accept_stats(&f, c, kids, nkids);
  stats_text(&f, "event_mechanism", c->evmech[0] != '\0' ? c->evmech : evmech_name());
  return stats_close(&f);
}

void say(struct server *s, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n > sizeof msg - 2) n = (int)(sizeof msg - 2);
  msg[n++] = '\n';
  (void)outfd_put(&s->err, msg, (size_t)n, now_mono() + 0.1);
}
