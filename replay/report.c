/* replay's output: the summary on stdout, --stats records, --series lines. */
#include "replay.h"

#include "evmech.h"
#include "os_proc.h"
#include "printable.h"

#include <stdio.h>

static const char *kind_name[F_KINDS] = {
    [F_STATUS] = "bad status", [F_SIZE] = "size differs from manifest",
    [F_MANIFEST] = "not in manifest", [F_PROTOCOL] = "malformed response",
    [F_HEADER] = "response headers too long", [F_CHUNK_LINE] = "chunk size line too long",
    [F_UNREQUESTED] = "bytes no request asked for", [F_DEADLINE] = "deadline exceeded",
    [F_RESET] = "reset, out of retries", [F_TIMEOUT] = "timed out, out of retries",
    [F_CONNECT] = "connect failed, out of retries",
};

static const char *kind_metric[F_KINDS] = {
    [F_STATUS] = "failed_status", [F_SIZE] = "failed_size",
    [F_MANIFEST] = "failed_manifest", [F_PROTOCOL] = "failed_protocol",
    [F_HEADER] = "failed_header_size", [F_CHUNK_LINE] = "failed_chunk_line",
    [F_UNREQUESTED] = "failed_unrequested", [F_DEADLINE] = "failed_deadline",
    [F_RESET] = "failed_reset", [F_TIMEOUT] = "failed_timeout",
    [F_CONNECT] = "failed_connect",
};

void report_failure(struct run *r, enum fail_kind k, const char *url, size_t urllen, const char *detail) {
  char u[PRINTABLE_SIZE(200)];
  if (r->told[k]) return;
  r->told[k] = 1;
  printable_n(u, sizeof u, url, urllen);
  fprintf(stderr, "replay: GET %s: %s%s%s\n", u, kind_name[k], detail ? ": " : "", detail ? detail : "");
}

/* The first pass's wall time (the whole run's without --min-time). */
static double wall(const struct run *r) {
  double w = r->t_first - r->t_start;
  return w > 0 ? w : 1e-9;
}

/* The steady window's length, its slices' added up (0: no window). */
static double window(const struct run *r) {
  return r->steady && r->win == 2 && r->steady_s > 0 ? r->steady_s : 0;
}

static double ms(uint64_t ns) {
  return (double)ns / 1e6;
}

void report_summary(const struct run *r) {
  double w = wall(r);
  const struct histogram *h = &r->hist;
  char t[PRINTABLE_SIZE(300)];
  printable(t, sizeof t, r->target);
  printf("replay %s: %u connections, %u requests/connection, depth %u\n", t, r->conc,
         r->per_conn, r->depth);
  printf("requests  %llu done, %llu ok, %llu failed, %llu retried, %llu resets, %llu timeouts\n",
         (unsigned long long)r->finished, (unsigned long long)r->ok, (unsigned long long)r->failed,
         (unsigned long long)r->retried, (unsigned long long)r->resets,
         (unsigned long long)r->timeouts);
  if (r->no_first) {
    printf("transfer  %llu bytes, %llu connections (no first pass)\n", (unsigned long long)r->bytes,
           (unsigned long long)r->connections);
  } else {
    printf("transfer  %llu bytes in %.3f s, %.1f req/s, %.2f MB/s, %llu connections%s\n",
           (unsigned long long)r->first_bytes, w, (double)r->first_done / w, (double)r->first_bytes / w / 1e6,
           (unsigned long long)r->connections, r->min_time > 0 ? " (first pass)" : "");
    printf("latency   min %.3f p50 %.3f p90 %.3f p99 %.3f max %.3f ms\n", ms(hist_percentile(h, 0)),
           ms(hist_percentile(h, 50)), ms(hist_percentile(h, 90)), ms(hist_percentile(h, 99)),
           ms(hist_percentile(h, 100)));
  }
  double sw = window(r);
  char sl[32] = "";
  if (r->slices > 1) snprintf(sl, sizeof sl, ", %u slices", r->slices);
  if (sw > 0)
    printf("steady    %llu requests in %.3f s, %.1f req/s, %.2f MB/s, p50 %.3f p99 %.3f ms (%u passes%s)\n",
           (unsigned long long)r->steady_done, sw, (double)r->steady_done / sw, (double)r->steady_bytes / sw / 1e6,
           ms(hist_percentile(&r->steady_hist, 50)), ms(hist_percentile(&r->steady_hist, 99)), r->passes, sl);
  for (int k = 0; k < F_KINDS; k++)
    if (r->fail_kind[k]) printf("failed    %llu %s\n", (unsigned long long)r->fail_kind[k], kind_name[k]);
  for (int s = 0; s < 600; s++)
    if (r->status[s]) printf("status    %d: %llu\n", s, (unsigned long long)r->status[s]);
  if (r->connect_errors)
    printf("connect   %llu failed connection attempts\n", (unsigned long long)r->connect_errors);
  fflush(stdout);
}

int report_stats(const struct run *r, const char *path) {
  struct stats_file s;
  const struct histogram *h = &r->hist;
  double w = wall(r);
  if (stats_open(&s, path) != 0) return -1;
  stats_u64(&s, "requests", r->finished, "count");
  stats_u64(&s, "ok", r->ok, "count");
  stats_u64(&s, "failed", r->failed, "count");
  stats_u64(&s, "resets", r->resets, "count");
  stats_u64(&s, "retries", r->retried, "count");
  stats_u64(&s, "timeouts", r->timeouts, "count");
  stats_u64(&s, "connect_errors", r->connect_errors, "count");
  stats_u64(&s, "connections", r->connections, "count");
  stats_u64(&s, "bytes", r->bytes, "B");
  stats_u64(&s, "wire_bytes", r->wire_bytes, "B");
  /* --no-first-pass: no first pass, none of its figures */
  if (!r->no_first) {
    stats_f(&s, "wall_s", w, "s");
    stats_f(&s, "rps", (double)r->first_done / w, "req/s");
    stats_f(&s, "mbps", (double)r->first_bytes / w / 1e6, "MB/s");
    stats_f(&s, "lat_min_ms", ms(hist_percentile(h, 0)), "ms");
    stats_f(&s, "lat_p50_ms", ms(hist_percentile(h, 50)), "ms");
    stats_f(&s, "lat_p90_ms", ms(hist_percentile(h, 90)), "ms");
    stats_f(&s, "lat_p99_ms", ms(hist_percentile(h, 99)), "ms");
    stats_f(&s, "lat_max_ms", ms(hist_percentile(h, 100)), "ms");
    stats_f(&s, "lat_mean_ms", hist_mean(h) / 1e6, "ms");
  }
  double sw = window(r);
  if (r->min_time > 0 && !r->no_first) {
    stats_u64(&s, "first_requests", r->first_done, "count");
    stats_u64(&s, "first_bytes", r->first_bytes, "B");
  }
  if (r->min_time > 0) stats_u64(&s, "passes", r->passes, "count");
  if (sw > 0) {
    const struct histogram *sh = &r->steady_hist;
    stats_f(&s, "steady_s", sw, "s");
    /* only with slices: a record more in every warm trial would say nothing */
    if (r->slices > 1) stats_u64(&s, "steady_slices", r->slices, "count");
    stats_u64(&s, "steady_requests", r->steady_done, "count");
    stats_f(&s, "steady_rps", (double)r->steady_done / sw, "req/s");
    stats_f(&s, "steady_mbps", (double)r->steady_bytes / sw / 1e6, "MB/s");
    stats_f(&s, "steady_lat_p50_ms", ms(hist_percentile(sh, 50)), "ms");
    stats_f(&s, "steady_lat_p99_ms", ms(hist_percentile(sh, 99)), "ms");
  }
  for (int k = 0; k < F_KINDS; k++)
    if (r->fail_kind[k]) stats_u64(&s, kind_metric[k], r->fail_kind[k], "count");
  double user_s, sys_s;
  cpu_times(&user_s, &sys_s);
  stats_f(&s, "user_s", user_s, "s");
  stats_f(&s, "sys_s", sys_s, "s");
  stats_text(&s, "event_mechanism", evmech_name());
  stats_u64(&s, "maxrss_kb", os_maxrss_kb(), "KiB");
  return stats_close(&s);
}

/* One sample per metric: what happened since the previous sample. */
void report_series(struct run *r, double now, int final) {
  uint64_t errors = r->failed + r->retried;
  if (r->series.f == NULL) return;
  if (final && r->finished == r->s_done && r->bytes == r->s_bytes && errors == r->s_errors) return;
  series_put(&r->series, now, "requests", (double)(r->finished - r->s_done));
  series_put(&r->series, now, "bytes", (double)(r->bytes - r->s_bytes));
  series_put(&r->series, now, "errors", (double)(errors - r->s_errors));
  r->s_done = r->finished;
  r->s_bytes = r->bytes;
  r->s_errors = errors;
}
