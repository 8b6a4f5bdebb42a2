/* replay --slices: the steady window as N slices with the connections
 * drained and closed between them, and the gate that pauses the run after
 * each slice but the last (see slice.h, docs/replay.1). */
#include "replay.h"

#include "printable.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int gate_open(struct gate *g, const char *in, const char *out) {
  char e[PRINTABLE_SIZE(200)];
  g->in = g->out = -1;
  g->in_name = in;
  g->out_name = out;
  /* the harness holds both FIFOs open read-write: neither open blocks */
  g->out = open(out, O_WRONLY | O_CLOEXEC);
  if (g->out < 0) {
    fprintf(stderr, "replay: cannot open --gate-out %s: %s\n", (printable(e, sizeof e, out), e), strerror(errno));
    return -1;
  }
  g->in = open(in, O_RDONLY | O_CLOEXEC);
  if (g->in < 0) {
    fprintf(stderr, "replay: cannot open --gate-in %s: %s\n", (printable(e, sizeof e, in), e), strerror(errno));
    gate_close(g);
    return -1;
  }
  return 0;
}

void gate_close(struct gate *g) {
  if (g->in >= 0) close(g->in);
  if (g->out >= 0) close(g->out);
  g->in = g->out = -1;
}

/* "paused K\n" to the gate-out file, whole (a write may take part of it). */
static int gate_tell(const struct gate *g, unsigned k) {
  char line[32], e[PRINTABLE_SIZE(200)];
  int len = snprintf(line, sizeof line, "paused %u\n", k);
  for (size_t off = 0; off < (size_t)len;) {
    ssize_t n = write(g->out, line + off, (size_t)len - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fprintf(stderr, "replay: gate: cannot write to %s: %s\n", (printable(e, sizeof e, g->out_name), e),
              n < 0 ? strerror(errno) : "nothing written");
      return -1;
    }
    off += (size_t)n;
  }
  return 0;
}

/* One line from the gate-in file, a byte at a time: what follows its
 * newline belongs to the next pause.  Returns 0 for "go", else -1 with one
 * line on stderr. */
static int gate_wait(const struct gate *g, unsigned k, unsigned n_slices) {
  char line[GATE_LINE_MAX + 1], e[PRINTABLE_SIZE(200)], l[PRINTABLE_SIZE(GATE_LINE_MAX)];
  size_t len = 0;
  printable(e, sizeof e, g->in_name);
  for (;;) {
    char ch;
    ssize_t n = read(g->in, &ch, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      fprintf(stderr, "replay: gate: cannot read %s after slice %u of %u: %s\n", e, k, n_slices, strerror(errno));
      return -1;
    }
    if (n == 0) {
      printable_n(l, sizeof l, line, len);
      fprintf(stderr, "replay: gate: end of file on %s after slice %u of %u%s%s%s (expected the line 'go')\n", e, k,
              n_slices, len ? ", after '" : "", len ? l : "", len ? "' without a newline" : "");
      return -1;
    }
    if (ch == '\n') break;
    if (len == GATE_LINE_MAX) {
      printable_n(l, sizeof l, line, len);
      fprintf(stderr, "replay: gate: a line over %d bytes on %s after slice %u of %u: '%s...' (expected 'go')\n",
              GATE_LINE_MAX, e, k, n_slices, l);
      return -1;
    }
    line[len++] = ch;
  }
  if (len == 2 && memcmp(line, "go", 2) == 0) return 0;
  printable_n(l, sizeof l, line, len);
  fprintf(stderr, "replay: gate: read '%s' from %s after slice %u of %u, expected 'go'\n", l, e, k, n_slices);
  return -1;
}

/* The slice just closed has drained: pause on the gate, if any. */
static int slice_pause(struct run *r) {
  if (r->gate.in < 0) return 0;
  if (gate_tell(&r->gate, r->slice) != 0) return -1;
  return gate_wait(&r->gate, r->slice, r->slices);
}

int slice_more(struct run *r, double now) {
  double len = r->min_time / r->slices;
  if (r->win == 0 && now - r->t_steady >= STEADY_RAMP * len) {
    r->win = 1;
    r->t_win0 = now;
    r->win_done0 = r->finished;
    r->win_bytes0 = r->bytes;
  }
  if (r->win == 1 && now - r->t_win0 >= len) {
    r->win = 2;
    r->steady_s += now - r->t_win0;
    r->steady_done += r->finished - r->win_done0;
    r->steady_bytes += r->bytes - r->win_bytes0;
  }
  if (r->win < 2 || work_left(r) > 0 || r->open > 0) return 1;
  if (r->slice >= r->slices) return 0;
  /* nothing in flight, no connection open: the next slice, after the gate */
  ioq_close_pending(&r->closing);
  if (slice_pause(r) != 0) return -1;
  r->slice++;
  r->win = 0;
  r->t_steady = now_mono(); /* the pause is in no figure */
  return 1;
}
