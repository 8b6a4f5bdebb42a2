/* A bounded ring of equal buffers between one producer thread and one
 * consumer thread.  The producer fills a free slot in place and publishes
 * it; the consumer reads a published slot in place and releases it: the
 * data is never copied by the ring.
 *
 * A published slot may carry RING_PAUSE: the producer then waits in
 * ring_pause() until the consumer has taken every slot and says whether to
 * go on (ring_resume) or not (ring_cancel). */
#ifndef SHOOTOUT_RING_H
#define SHOOTOUT_RING_H

#include <pthread.h>
#include <stddef.h>

#define RING_PAUSE 1

struct ring_slot {
  char *data;
  size_t len;
  int flags;
};

struct ring {
  pthread_mutex_t mu;
  /* Each side sleeps on its own condition and is woken only when it
   * sleeps: most slots then pass without a futex call. */
  pthread_cond_t producer_cv, consumer_cv;
  int producer_waits, consumer_waits;
  struct ring_slot *slots;
  char *mem;
  size_t n, size;    /* slot count, bytes per slot */
  size_t head, tail; /* next slot to fill, next to read (counters) */
  int closed;        /* the producer is done: nothing after the last slot */
  int cancelled;     /* the consumer is done: the producer should stop */
  int paused;        /* the producer waits in ring_pause() */
  int resumed;       /* ring_resume() answered the pause */
};

/* n slots of size bytes each; 0, or -1 with errno set. */
int ring_init(struct ring *r, size_t n, size_t size);
void ring_destroy(struct ring *r);

/* Producer: a free slot to fill (size bytes), waiting for one; NULL once
 * the ring is cancelled. */
char *ring_claim(struct ring *r);
/* Producer: publish the claimed slot with len bytes. */
void ring_publish(struct ring *r, size_t len, int flags);
/* Producer: after publishing a RING_PAUSE slot, wait for the consumer's
 * answer: 1 go on, 0 stop (cancelled). */
int ring_pause(struct ring *r);
/* Producer: no more slots. */
void ring_close(struct ring *r);
/* Producer: has the consumer cancelled? */
int ring_cancelled(struct ring *r);

/* Consumer: the next published slot, waiting for it; NULL when the
 * producer closed the ring or waits in ring_pause() with every slot taken.
 * The slot stays valid until ring_release(). */
const struct ring_slot *ring_take(struct ring *r);
/* Consumer: done with the slot ring_take() returned. */
void ring_release(struct ring *r);
/* Consumer: answer a pause with "go on". */
void ring_resume(struct ring *r);
/* Consumer: stop the producer (it sees NULL / 0 / ring_cancelled). */
void ring_cancel(struct ring *r);
/* Consumer: is the producer paused (ring_take() returned NULL for that)? */
int ring_paused(struct ring *r);

#endif
