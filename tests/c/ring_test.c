/* The ring between dltar's two threads: every byte arrives once and in
 * order, slots are used in place, a pause waits for the consumer's answer,
 * a cancel frees a producer that waits for room. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../../dltar/ring.h"

#define SLOTS 4
#define SIZE 1000
#define TOTAL 1000003 /* not a multiple of SIZE: a short last slot */

struct prod {
  struct ring *r;
  int pause_at;  /* slot number after which to pause (-1: never) */
  int resumed;   /* ring_pause() said go on */
  size_t claims; /* slots claimed before a cancel stopped it */
  char *first;   /* address of the first slot claimed */
};

static unsigned char byte_at(uint64_t i) { return (unsigned char)(i * 2654435761u >> 13); }

static void *producer(void *arg) {
  struct prod *p = arg;
  uint64_t off = 0;
  int k = 0;
  char *buf;
  while (off < TOTAL && (buf = ring_claim(p->r)) != NULL) {
    if (p->first == NULL) p->first = buf;
    p->claims++;
    size_t n = TOTAL - off < SIZE ? (size_t)(TOTAL - off) : SIZE;
    for (size_t i = 0; i < n; i++) buf[i] = (char)byte_at(off + i);
    off += n;
    ring_publish(p->r, n, k == p->pause_at ? RING_PAUSE : 0);
    if (k++ == p->pause_at) {
      p->resumed = ring_pause(p->r);
      if (!p->resumed) break;
    }
  }
  ring_close(p->r);
  return NULL;
}

/* Reads everything; returns the byte count, *ok whether all bytes matched. */
static uint64_t consume(struct ring *r, int *ok, int *pauses, int resume) {
  uint64_t off = 0;
  *ok = 1;
  for (;;) {
    const struct ring_slot *s = ring_take(r);
    if (s == NULL) {
      if (!ring_paused(r)) break;
      ++*pauses;
      if (!resume) {
        ring_cancel(r);
        break;
      }
      ring_resume(r);
      continue;
    }
    for (size_t i = 0; i < s->len; i++)
      if ((unsigned char)s->data[i] != byte_at(off + i)) *ok = 0;
    off += s->len;
    ring_release(r);
  }
  return off;
}

int main(void) {
  struct ring r;
  CHECK(ring_init(&r, SLOTS, SIZE) == 0, "a ring of 4 slots is made");
  struct prod p = {.r = &r, .pause_at = -1};
  pthread_t th;
  pthread_create(&th, NULL, producer, &p);
  int ok, pauses = 0;
  uint64_t got = consume(&r, &ok, &pauses, 1);
  pthread_join(th, NULL);
  CHECK(got == TOTAL && ok, "every byte arrives once, in order, through 4 slots");
  CHECK(p.first >= r.mem && p.first < r.mem + SLOTS * SIZE, "the producer writes into the ring itself (no copy)");
  ring_destroy(&r);

  ring_init(&r, SLOTS, SIZE);
  p = (struct prod){.r = &r, .pause_at = 10};
  pthread_create(&th, NULL, producer, &p);
  pauses = 0;
  got = consume(&r, &ok, &pauses, 1);
  pthread_join(th, NULL);
  CHECK(pauses == 1 && p.resumed == 1 && got == TOTAL && ok, "a resumed pause goes on to the end");
  ring_destroy(&r);

  ring_init(&r, SLOTS, SIZE);
  p = (struct prod){.r = &r, .pause_at = 10};
  pthread_create(&th, NULL, producer, &p);
  pauses = 0;
  got = consume(&r, &ok, &pauses, 0);
  pthread_join(th, NULL);
  CHECK(pauses == 1 && p.resumed == 0 && got == 11 * SIZE && ok,
        "a pause answered by cancel stops the producer after the slots before it");
  ring_destroy(&r);

  /* a consumer that takes one slot and cancels: the producer, waiting for
   * room, is woken and stops */
  ring_init(&r, SLOTS, SIZE);
  p = (struct prod){.r = &r, .pause_at = -1};
  pthread_create(&th, NULL, producer, &p);
  const struct ring_slot *s = ring_take(&r);
  ring_cancel(&r);
  pthread_join(th, NULL);
  CHECK(s && s->len == SIZE && p.claims <= SLOTS, "cancel frees a producer blocked on a full ring");
  ring_destroy(&r);
  return check_done();
}
