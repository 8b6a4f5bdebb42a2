#include "xfer.h"

#include <errmsg.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include "common.h"

void xfer_init(struct xfer *x, double stall_s, double max_s, double t0) {
  x->stall_s = stall_s;
  x->max_s = max_s;
  x->deadline = max_s > 0 ? t0 + max_s : 0;
  x->waited = 0;
  x->got = x->step_at = 0;
}

int xfer_budget_ms(struct xfer *x, const char **msg, char *buf, size_t cap) {
  double left = x->stall_s - x->waited;
  int which = 0; /* 0: --timeout, 1: --max-time */
  if (x->deadline > 0 && x->deadline - now_mono() < left) {
    left = x->deadline - now_mono();
    which = 1;
  }
  if (left > 0) return left * 1000 >= 1e9 ? 1000000000 : (int)(left * 1000) + 1;
  if (which) {
    snprintf(buf, cap, "not done after %g s (--max-time)", x->max_s);
  } else if (x->got == x->step_at) {
    snprintf(buf, cap, "no data for %g s (read timeout, --timeout)", x->stall_s);
  } else {
    snprintf(buf, cap, "only %llu bytes in %g s, less than %d KiB (too slow, --timeout)",
             (unsigned long long)(x->got - x->step_at), x->stall_s, XFER_STEP / 1024);
  }
  *msg = buf;
  return -1;
}

ssize_t xfer_read(struct xfer *x, int fd, char *buf, size_t cap, const char *name) {
  for (;;) {
    const char *msg;
    char m[128];
    int ms = xfer_budget_ms(x, &msg, m, sizeof m);
    if (ms < 0) die(1, name, ": ", msg);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    double t = now_mono();
    int r = poll(&p, 1, ms);
    x->waited += now_mono() - t;
    if (r < 0 && errno != EINTR) return -1;
    if (r <= 0) continue;
    ssize_t n = read(fd, buf, cap);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (n < 0) return -1;
    x->got += (uint64_t)n;
    if (x->got - x->step_at >= XFER_STEP) { /* a step done: a new allowance */
      x->step_at = x->got;
      x->waited = 0;
    }
    return n;
  }
}
