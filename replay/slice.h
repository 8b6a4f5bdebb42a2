/* replay --slices and its gate: the steady window taken as N slices, the
 * connections drained and closed between them, and a pause on a pair of
 * files (FIFOs of a harness) after each but the last. */
#ifndef SHOOTOUT_REPLAY_SLICE_H
#define SHOOTOUT_REPLAY_SLICE_H

/* The longest line read from the gate-in file, without its newline. */
#define GATE_LINE_MAX 64

/* --gate-in/--gate-out, opened once at start (-1: no gate). */
struct gate {
  int in, out;
  const char *in_name, *out_name;
};

struct run;

/* Opens IN (O_RDONLY) and OUT (O_WRONLY) into g; returns 0, or -1 with
 * one line on stderr. */
int gate_open(struct gate *g, const char *in, const char *out);
void gate_close(struct gate *g);

/* The steady part of the run (after the first pass): opens and closes
 * each slice's window, and between slices waits for nothing in flight
 * and no connection open, then on the gate (if any).  Returns 1 while
 * the run goes on, 0 when the last slice is over and drained, -1 when the
 * gate failed (the message printed). */
int slice_more(struct run *r, double now);

#endif
