/* The access log (Common Log Format, to stdout, buffered and flushed before
 * the loop waits) and the counters (to stderr). */
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"


void log_flush(struct server *s) {
  struct logbuf *l = s->log;
  if (l == NULL || l->len == 0) return;
  size_t done = 0;
  while (done < l->len) {
    ssize_t n = write(1, l->buf + done, l->len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break; /* stdout gone: drop the log rather than the server */
    done += (size_t)n;
  }
  l->len = 0;
}

static void put(struct logbuf *l, const char *p, size_t n) {
  if (l->len + n > sizeof l->buf) n = sizeof l->buf - l->len;
  memcpy(l->buf + l->len, p, n);
  l->len += n;
}

/* peer - - [10/Oct/2000:13:55:36 +0000] "GET /x HTTP/1.1" 200 2326 */
void log_access(struct server *s, struct conn *c, const struct http_req *r, int status,
                uint64_t body) {
  struct logbuf *l = s->log;
  if (l->len > sizeof l->buf - 2048) log_flush(s);
  /* "Sun, 06 Nov 1994 08:49:37 GMT" -> "06/Nov/1994:08:49:37 +0000" */
  const char *d = s->date;
  char when[40];
  int wn = snprintf(when, sizeof when, "%.2s/%.3s/%.4s:%.8s +0000", d + 5, d + 8, d + 12,
                    d + 17);
  put(l, c->peer, strlen(c->peer));
  put(l, " - - [", 6);
  put(l, when, wn > 0 ? (size_t)wn : 0);
  put(l, "] \"", 3);
  if (r == NULL) {
    put(l, "-", 1);
  } else {
    size_t n = r->line_len > 1024 ? 1024 : r->line_len;
    for (size_t i = 0; i < n; i++) {
      unsigned char ch = (unsigned char)r->line[i];
      if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\') {
        char esc[5];
        snprintf(esc, sizeof esc, "\\x%02x", ch);
        put(l, esc, 4);
      } else {
        put(l, (const char *)&ch, 1);
      }
    }
  }
  char tail[64];
  int tn = body ? snprintf(tail, sizeof tail, "\" %d %llu\n", status, (unsigned long long)body)
                : snprintf(tail, sizeof tail, "\" %d -\n", status);
  put(l, tail, tn > 0 ? (size_t)tn : 0);
}

void counters_add(struct counters *sum, const struct counters *c) {
  sum->connections += c->connections;
  sum->requests += c->requests;
  sum->bytes += c->bytes;
  sum->errors += c->errors;
  sum->timeouts += c->timeouts;
  sum->refused += c->refused;
}

void counters_print(const char *who, const struct counters *c) {
  fprintf(stderr,
          "%s: connections %llu requests %llu bytes %llu errors %llu timeouts %llu "
          "refused %llu\n",
          who, (unsigned long long)c->connections, (unsigned long long)c->requests,
          (unsigned long long)c->bytes, (unsigned long long)c->errors,
          (unsigned long long)c->timeouts, (unsigned long long)c->refused);
  fflush(stderr);
}

int write_stats(const char *path, const struct counters *c, double wall_s, double user_s,
                double sys_s) {
  struct stats_file f;
  if (stats_open(&f, path) != 0) return -1;
  stats_u64(&f, "connections", c->connections, "count");
  stats_u64(&f, "requests", c->requests, "count");
  stats_u64(&f, "bytes", c->bytes, "B");
  stats_u64(&f, "errors", c->errors, "count");
  stats_u64(&f, "timeouts", c->timeouts, "count");
  stats_u64(&f, "refused", c->refused, "count");
  stats_f(&f, "wall_s", wall_s, "s");
  stats_f(&f, "user_s", user_s, "s");
  stats_f(&f, "sys_s", sys_s, "s");
  return stats_close(&f);
}
