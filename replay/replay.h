/* replay: the state of one run, shared by the connection engine
 * (conn.c), the report (report.c) and main (replay.c). */
#ifndef SHOOTOUT_REPLAY_H
#define SHOOTOUT_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common.h"
#include "histogram.h"
#include "http_response.h"
#include "ioq.h"
#include "manifest.h"
#include "slice.h"
#include "urllist.h"

/* One request on its way: which list entry, how often it was tried before,
 * when it was sent (ns, monotonic). */
struct req_slot {
  size_t idx;
  uint32_t attempts;
  uint64_t t0;
};

enum conn_state { C_FREE, C_CONNECTING, C_ACTIVE };

struct conn {
  int64_t fd;
  enum conn_state state;
  unsigned sent;         /* requests taken on this connection */
  unsigned head, nout;   /* ring of outstanding requests (capacity depth) */
  struct req_slot *out;
  char *wbuf;            /* requests not yet written */
  size_t wlen, woff, wcap;
  int closing;           /* no more requests on this connection */
  int wantw;             /* we asked for write readiness */
  double last;           /* monotonic time of the last progress */
  size_t last_idx;       /* the request whose response completed last */
  int last_ok;           /* ... and it counted as ok (bytes after it undo that) */
  struct http_resp resp; /* the response being received */
};

struct retry_item {
  size_t idx;
  uint32_t attempts;
};

/* Failure reasons, for the summary and --stats.  Every failed request has
 * exactly one: the fail_kind[] counts add up to `failed`. */
enum fail_kind {
  F_STATUS,      /* not 2xx */
  F_SIZE,        /* body size differs from the manifest */
  F_MANIFEST,    /* path not in the manifest */
  F_PROTOCOL,    /* malformed response */
  F_HEADER,      /* response headers over the parser's limit */
  F_CHUNK_LINE,  /* a chunk-size line over the parser's limit */
  F_UNREQUESTED, /* bytes after the response that no request asked for */
  F_DEADLINE,    /* no full response within -T seconds */
  F_RESET,       /* reset, out of retries */
  F_TIMEOUT,     /* stalled, out of retries */
  F_CONNECT,     /* connect failed, out of retries */
  F_KINDS
};

struct run {
  /* configuration */
  struct sockaddr_storage addr;
  socklen_t addrlen;
  const char *target;  /* HOST:PORT as given, for messages */
  char host[300];      /* the Host header's value */
  unsigned conc, per_conn, depth, retries;
  double timeout;      /* -t: seconds without progress */
  double deadline;     /* -T: seconds from sending a request to its last byte */
  const struct urllist *urls; /* or the single path below */
  const char *single;
  size_t single_len;
  size_t total;        /* requests in one pass over the list */
  const struct manifest *mf;
  double min_time;     /* --min-time: seconds of steady window after the first pass (0: one pass) */
  unsigned slices;     /* --slices: the window taken as this many slices of min_time/slices */
  struct gate gate;    /* --gate-in/--gate-out: the pause after each slice but the last */

  /* work */
  size_t next;         /* next list entry of this pass never handed out */
  unsigned passes;     /* passes over the list begun */
  int steady;          /* --min-time: the first pass is over, the list goes round */
  int no_first;        /* --no-first-pass: steady from the start, no first pass's figures */
  int win;             /* the slice's window: 0 before it, 1 open, 2 closed (no new work) */
  unsigned slice;      /* slices begun (1 in the first) */
  struct retry_item *rq;
  size_t rq_head, rq_n, rq_cap;
  size_t finished;     /* requests that ended, well or not */
  unsigned open, connecting;
  int ever_connected;
  struct conn *c;      /* conc connections */
  unsigned *freelist;
  unsigned nfree;
  struct ioq closing;  /* descriptors to close once the event queues are empty */
  char *rbuf;
  size_t rbufsize;

  /* figures */
  uint64_t ok, failed, retried, resets, timeouts, connect_errors, connections;
  uint64_t bytes, wire_bytes;
  uint64_t fail_kind[F_KINDS];
  int told[F_KINDS];    /* the first failure of each kind was described */
  uint64_t status[600]; /* responses by status code, for non-2xx */
  struct histogram hist;   /* the first pass */
  double t_start, t_end;
  /* the first pass's end (t_end without --min-time) and its counts */
  double t_first;
  uint64_t first_done, first_bytes;
  /* --min-time: the steady window (the slices' windows) and what completed
   * inside it; t_steady: the second pass began, or the slice's restart */
  double t_steady, t_win0, steady_s;
  uint64_t win_done0, win_bytes0, steady_done, steady_bytes;
  struct histogram steady_hist;

  /* per-second series */
  struct series_file series;
  uint64_t s_done, s_bytes, s_errors; /* at the last sample */
};

/* Nanoseconds, monotonic. */
uint64_t now_ns(void);

/* Connection engine (conn.c).  run_loop() drives every request of
 * the run to an end and returns 0, -1 when the very first connection
 * attempts fail (the error is printed; nothing was served), or -2 when the
 * gate failed (printed; slice.c).  With min_time, the first pass ends
 * (every one of its requests finished) before the list goes round again;
 * each slice's window opens STEADY_RAMP of its length (min_time/slices)
 * after the second pass began (or the slice's restart), closes that length
 * later, and then no new request is handed out: those in flight (and their
 * retries) still end, and the connections close (slice.c). */
#define STEADY_RAMP 0.1
int run_setup(struct run *r);
int run_loop(struct run *r);
/* Requests that may still be handed out (without end in the steady part
 * until the slice's window closes). */
size_t work_left(const struct run *r);
void run_free(struct run *r);

/* Report (report.c).  report_failure() describes the first failure
 * of each kind on stderr, one line: "replay: GET URL: KIND[: DETAIL]"; the
 * URL is escaped here, DETAIL must be printable already. */
void report_failure(struct run *r, enum fail_kind k, const char *url, size_t urllen, const char *detail);
void report_summary(const struct run *r);
int report_stats(const struct run *r, const char *path);
void report_series(struct run *r, double now, int final);

#endif
