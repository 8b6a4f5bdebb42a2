/* Event loops on libowfat's io_* layer that never lose a descriptor they
 * close (httpd's and replay's).
 *
 * libowfat 0.32's io_close() does not close a descriptor still linked in
 * one of its event queues: it marks it closed and leaves the close to a
 * later io_canread/io_canwrite that dequeues it, or to io_waituntil2's walk
 * of a deferred-close list.  Debian's 0.32-4 renamed that list in io_close.c
 * only (first_deferred_, patch 02-prevent-conflicting-definition), so the
 * walk finds it empty and only a dequeue ever closes such a descriptor.
 * Where HAVE_SIGIO is defined (Linux), io_canread/io_canwrite put the last
 * descriptor they returned on an "alternative" queue unless io_eagain_read/
 * io_eagain_write was called for it, and io_tryread does so after a read
 * that filled its buffer; that queue is only taken up again once its head
 * is ready, which a closed descriptor (no events asked for) never is.  A
 * connection closed there stayed open for good: CLOSE-WAIT, one descriptor
 * each, the peer never seeing the end of file.
 *
 * The rules that keep every descriptor off every queue when io_close runs,
 * so that it closes at once with any libowfat:
 *   - take events with ioq_canread/ioq_canwrite (io_eagain_* at once: the
 *     alternative queues stay empty; the epoll, kqueue and poll backends
 *     report a descriptor that is still ready again at the next wait);
 *   - read and write with read(2), write(2), send(2), ..., never with
 *     io_tryread or io_trywrite (they queue descriptors there too);
 *   - close with ioq_close_later, any time, and run ioq_close_pending
 *     after the event queues are drained (io_canread and io_canwrite both
 *     -1).  A descriptor queued again after that (io_wantread or
 *     io_wantwrite on one already ready) is closed by io_close or by the
 *     next drain's dequeue, never lost. */
#ifndef SHOOTOUT_IOQ_H
#define SHOOTOUT_IOQ_H

#include <stddef.h>
#include <stdint.h>

/* Descriptors to close; zeroed memory is an empty one. */
struct ioq {
  int64_t *fd;
  size_t n, cap;
};

/* Before the first io_fd: Debian's 0.32-4 (and what mk/static-libs.sh and
 * mk/cross-libs.sh build from its source) leaves the list io_waituntil2
 * walks at 0 instead of -1, and the walk loops on entry 0 for ever once
 * fd 0's page of the table exists; walking it once while the table is
 * empty ends it at -1 for good.  With an intact libowfat it does nothing. */
void ioq_start(void);
/* io_canread/io_canwrite, with io_eagain_read/io_eagain_write on the
 * descriptor returned: the caller reads or writes until EAGAIN, or leaves
 * bytes for the next wait to report again. */
int64_t ioq_canread(void);
int64_t ioq_canwrite(void);
/* Stops the events of FD (io_dontwantread, io_dontwantwrite) and keeps it
 * for ioq_close_pending.  Out of memory, it is io_close'd at once. */
void ioq_close_later(struct ioq *q, int64_t fd);
/* io_close of every kept descriptor; call it with the queues drained. */
void ioq_close_pending(struct ioq *q);
/* ioq_close_pending, then frees the list. */
void ioq_free(struct ioq *q);

#endif
