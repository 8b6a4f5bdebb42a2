#include "ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ring_init(struct ring *r, size_t n, size_t size) {
  memset(r, 0, sizeof *r);
  r->n = n;
  r->size = size;
  r->slots = calloc(n, sizeof *r->slots);
  r->mem = malloc(n * size);
  if (r->slots == NULL || r->mem == NULL) {
    free(r->slots);
    free(r->mem);
    errno = ENOMEM;
    return -1;
  }
  for (size_t i = 0; i < n; i++) r->slots[i].data = r->mem + i * size;
  int e = pthread_mutex_init(&r->mu, NULL);
  if (e == 0 && (e = pthread_cond_init(&r->producer_cv, NULL)) != 0) pthread_mutex_destroy(&r->mu);
  if (e == 0 && (e = pthread_cond_init(&r->consumer_cv, NULL)) != 0) {
    pthread_cond_destroy(&r->producer_cv);
    pthread_mutex_destroy(&r->mu);
  }
  if (e != 0) {
    free(r->slots);
    free(r->mem);
    errno = e;
    return -1;
  }
  return 0;
}

void ring_destroy(struct ring *r) {
  pthread_cond_destroy(&r->producer_cv);
  pthread_cond_destroy(&r->consumer_cv);
  pthread_mutex_destroy(&r->mu);
  free(r->slots);
  free(r->mem);
  r->slots = NULL;
  r->mem = NULL;
}

/* Wake the other side if it sleeps (called with mu held).  A sleeping side
 * is woken for data or room only once a quarter of the ring is ready for
 * it, so that the threads do not wake each other for every slot (each
 * wake-up of an idle CPU costs more than a slot's bookkeeping); closing,
 * pausing, resuming and cancelling always wake it. */
static size_t batch(const struct ring *r) { return r->n >= 4 ? r->n / 4 : 1; }
static void wake_consumer(struct ring *r, int always) {
  if (r->consumer_waits && (always || r->head - r->tail >= batch(r)))
    pthread_cond_signal(&r->consumer_cv);
}
static void wake_producer(struct ring *r, int always) {
  if (r->producer_waits && (always || r->n - (r->head - r->tail) >= batch(r)))
    pthread_cond_signal(&r->producer_cv);
}
static void producer_wait(struct ring *r) {
  r->producer_waits++;
  pthread_cond_wait(&r->producer_cv, &r->mu);
  r->producer_waits--;
}
static void consumer_wait(struct ring *r) {
  r->consumer_waits++;
  pthread_cond_wait(&r->consumer_cv, &r->mu);
  r->consumer_waits--;
}

char *ring_claim(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  while (!r->cancelled && r->head - r->tail == r->n) producer_wait(r);
  char *p = r->cancelled ? NULL : r->slots[r->head % r->n].data;
  pthread_mutex_unlock(&r->mu);
  return p;
}

void ring_publish(struct ring *r, size_t len, int flags) {
  pthread_mutex_lock(&r->mu);
  struct ring_slot *s = &r->slots[r->head % r->n];
  s->len = len;
  s->flags = flags;
  r->head++;
  wake_consumer(r, 0);
  pthread_mutex_unlock(&r->mu);
}

int ring_pause(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  r->paused = 1;
  r->resumed = 0;
  wake_consumer(r, 1);
  while (!r->cancelled && !r->resumed) producer_wait(r);
  int go = !r->cancelled;
  r->paused = 0;
  pthread_mutex_unlock(&r->mu);
  return go;
}

void ring_close(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  r->closed = 1;
  wake_consumer(r, 1);
  pthread_mutex_unlock(&r->mu);
}

int ring_cancelled(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  int c = r->cancelled;
  pthread_mutex_unlock(&r->mu);
  return c;
}

const struct ring_slot *ring_take(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  while (r->head == r->tail && !r->closed && !(r->paused && !r->resumed))
    consumer_wait(r);
  const struct ring_slot *s = r->head != r->tail ? &r->slots[r->tail % r->n] : NULL;
  pthread_mutex_unlock(&r->mu);
  return s;
}

void ring_release(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  r->tail++;
  wake_producer(r, 0);
  pthread_mutex_unlock(&r->mu);
}

void ring_resume(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  r->resumed = 1;
  wake_producer(r, 1);
  pthread_mutex_unlock(&r->mu);
}

void ring_cancel(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  r->cancelled = 1;
  wake_producer(r, 1);
  pthread_mutex_unlock(&r->mu);
}

int ring_paused(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  int p = r->paused && !r->resumed;
  pthread_mutex_unlock(&r->mu);
  return p;
}
