/* Closing descriptors of libowfat's io_* layer only when no event queue
 * holds them (ioq.h says why). */
#include "ioq.h"

#include <io.h>
#include <stdlib.h>

void ioq_start(void) {
  io_waituntil2(0);
}

int64_t ioq_canread(void) {
  int64 fd = io_canread();
  if (fd != -1) io_eagain_read(fd);
  return fd;
}

int64_t ioq_canwrite(void) {
  int64 fd = io_canwrite();
  if (fd != -1) io_eagain_write(fd);
  return fd;
}

void ioq_close_later(struct ioq *q, int64_t fd) {
  io_dontwantread(fd);
  io_dontwantwrite(fd);
  if (q->n == q->cap) {
    size_t cap = q->cap ? q->cap * 2 : 64;
    int64_t *p = realloc(q->fd, cap * sizeof *p);
    if (p == NULL) {
      io_close(fd); /* may be deferred; better than never closing it */
      return;
    }
    q->fd = p;
    q->cap = cap;
  }
  q->fd[q->n++] = fd;
}

void ioq_close_pending(struct ioq *q) {
  while (q->n > 0) io_close(q->fd[--q->n]);
}

void ioq_free(struct ioq *q) {
  ioq_close_pending(q);
  free(q->fd);
  q->fd = NULL;
  q->cap = 0;
}
