#include "pipeline.h"

#include <errmsg.h>
#include <errno.h>
#include <string.h>

_Static_assert(PIPE_SLOT <= TX_CHUNK_MAX, "a slot must fit tar_extract's buffer");

/* The producer: fill each slot to the brim (tar blocks then never straddle
 * two slots), pause at every member end that is not the end of input. */
static void *produce(void *arg) {
  struct pipeline *p = arg;
  struct gz *g = p->g;
  gz_stop_after_member(g);
  char *buf;
  while ((buf = ring_claim(&p->ring)) != NULL) {
    size_t n = 0;
    ssize_t r = 1;
    while (n < PIPE_SLOT && (r = gz_read(g, buf + n, PIPE_SLOT - n)) > 0) n += (size_t)r;
    if (r > 0) {
      ring_publish(&p->ring, n, 0);
      continue;
    }
    if (gz_input_done(g)) {
      if (n) ring_publish(&p->ring, n, 0);
      break;
    }
    ring_publish(&p->ring, n, RING_PAUSE);
    if (!ring_pause(&p->ring)) break;
    gz_next_member(g);
  }
  ring_close(&p->ring);
  return NULL;
}

static size_t next(void *ctx, const char **data) {
  struct pipeline *p = ctx;
  if (p->holding) {
    ring_release(&p->ring);
    p->holding = 0;
  }
  for (;;) {
    const struct ring_slot *s = ring_take(&p->ring);
    if (s && s->len == 0) {
      ring_release(&p->ring);
    } else if (s) {
      p->holding = 1;
      *data = s->data;
      return s->len;
    } else if (!p->stopping && ring_paused(&p->ring)) {
      ring_resume(&p->ring); /* the archive goes on in the next member */
    } else {
      return 0;
    }
  }
}

static void stop(void *ctx) { ((struct pipeline *)ctx)->stopping = 1; }

static void settle(void *ctx) {
  struct pipeline *p = ctx;
  if (!p->running) return;
  ring_cancel(&p->ring);
  int e = pthread_join(p->th, NULL);
  if (e != 0) {
    errno = e;
    diesys(1, "joining the inflate thread");
  }
  p->running = 0;
}

void pipeline_start(struct pipeline *p, struct gz *g) {
  memset(p, 0, sizeof *p);
  p->g = g;
  p->in = (struct tx_input){.next = next, .stop = stop, .settle = settle, .ctx = p};
  if (ring_init(&p->ring, PIPE_SLOTS, PIPE_SLOT) != 0) diesys(1, "ring buffer");
  int e = pthread_create(&p->th, NULL, produce, p);
  if (e != 0) {
    errno = e;
    diesys(1, "cannot start the inflate thread");
  }
  p->running = 1;
}

void pipeline_end(struct pipeline *p) {
  settle(p);
  ring_destroy(&p->ring);
}
