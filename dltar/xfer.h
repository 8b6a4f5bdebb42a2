/* dltar's limits on a transfer: --timeout bounds the waiting for each
 * XFER_STEP bytes of input (a trickle of a byte now and then is no
 * progress), --max-time bounds the whole run.  Every wait for input goes
 * through xfer_read(), which waits no longer than both allow. */
#ifndef SHOOTOUT_XFER_H
#define SHOOTOUT_XFER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define XFER_STEP (64 * 1024)

struct xfer {
  double stall_s;   /* --timeout: seconds of waiting allowed per XFER_STEP bytes */
  double max_s;     /* --max-time (0: none), for messages */
  double deadline;  /* now_mono() at which --max-time runs out (0: none) */
  double waited;    /* seconds waited since the last step was reached */
  uint64_t got;     /* bytes received so far */
  uint64_t step_at; /* got when the current step began */
};

/* t0: now_mono() at the start of the run. */
void xfer_init(struct xfer *x, double stall_s, double max_s, double t0);

/* Milliseconds a wait may last now (at least 1), or -1 when a limit is
 * already used up (*msg says which, as a message tail). */
int xfer_budget_ms(struct xfer *x, const char **msg, char *buf, size_t cap);

/* Read up to cap bytes from fd, waiting as long as the limits allow.
 * Returns the count (0 at the end), or -1 with errno set on a read error;
 * when a limit runs out: the message "NAME: why" and exit 1. */
ssize_t xfer_read(struct xfer *x, int fd, char *buf, size_t cap, const char *name);

#endif
