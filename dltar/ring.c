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
  if (e == 0 && (e = pthread_cond_init(&r->cv, NULL)) != 0) pthread_mutex_destroy(&r->mu);
  if (e != 0) {
    free(r->slots);
    free(r->mem);
    errno = e;
    return -1;
  }
  return 0;
}

void ring_destroy(struct ring *r) {
  pthread_cond_destroy(&r->cv);
  pthread_mutex_destroy(&r->mu);
  free(r->slots);
  free(r->mem);
  r->slots = NULL;
  r->mem = NULL;
}

char *ring_claim(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  while (!r->cancelled && r->head - r->tail == r->n) pthread_cond_wait(&r->cv, &r->mu);
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
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

int ring_pause(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  r->paused = 1;
  r->resumed = 0;
  pthread_cond_broadcast(&r->cv);
  while (!r->cancelled && !r->resumed) pthread_cond_wait(&r->cv, &r->mu);
  int go = !r->cancelled;
  r->paused = 0;
  pthread_mutex_unlock(&r->mu);
  return go;
}

void ring_close(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  r->closed = 1;
  pthread_cond_broadcast(&r->cv);
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
    pthread_cond_wait(&r->cv, &r->mu);
  const struct ring_slot *s = r->head != r->tail ? &r->slots[r->tail % r->n] : NULL;
  pthread_mutex_unlock(&r->mu);
  return s;
}

void ring_release(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  r->tail++;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

void ring_resume(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  r->resumed = 1;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

void ring_cancel(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  r->cancelled = 1;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

int ring_paused(struct ring *r) {
  pthread_mutex_lock(&r->mu);
  int p = r->paused && !r->resumed;
  pthread_mutex_unlock(&r->mu);
  return p;
}
