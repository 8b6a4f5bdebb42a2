/* lib/ioq.c: a descriptor closed through ioq_close_later/ioq_close_pending
 * is really closed (the peer sees the end of file) whatever libowfat's
 * queues held it: handed out and not yet waited on again, still queued
 * when closed, or with bytes left unread; its number then works again. */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "../../lib/ioq.h"

/* A connected non-blocking pair; sp[0] is registered with libowfat. */
static int pair(int sp[2]) {
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sp) != 0) return -1;
  if (!io_fd_flags(sp[0], IO_FD_NONBLOCK)) return -1;
  return 0;
}

static int is_open(int fd) { return fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

/* The peer of a closed descriptor reads the end of file (or, when bytes
 * were left unread, a reset), not EAGAIN. */
static int peer_gone(int peer) {
  char b[256];
  ssize_t n;
  while ((n = read(peer, b, sizeof b)) > 0) {
  }
  return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

static int count_writable(void) {
  int n = 0;
  while (ioq_canwrite() != -1) n++;
  return n;
}

int main(void) {
  ioq_start();
  struct ioq q;
  memset(&q, 0, sizeof q);

  /* Two writable descriptors, both handed out, then closed: plain
   * io_canwrite left the first on libowfat's alternative queue, where
   * io_close only marked it closed. */
  int a[2], b[2];
  CHECK(pair(a) == 0 && pair(b) == 0, "two socket pairs registered");
  io_wantwrite(a[0]);
  io_wantwrite(b[0]);
  io_waituntil2(0);
  CHECK(count_writable() == 2, "both reported writable");
  ioq_close_later(&q, a[0]);
  ioq_close_later(&q, b[0]);
  CHECK(is_open(a[0]) && is_open(b[0]), "open until ioq_close_pending");
  ioq_close_pending(&q);
  CHECK(!is_open(a[0]) && !is_open(b[0]), "both closed by ioq_close_pending");
  CHECK(peer_gone(a[1]) && peer_gone(b[1]), "both peers see the end of file");
  close(a[1]);
  close(b[1]);

  /* Three writable, one handed out, two closed while still queued: those
   * two are never handed out, and they close once the queue is drained. */
  int c[3][2];
  CHECK(pair(c[0]) == 0 && pair(c[1]) == 0 && pair(c[2]) == 0,
        "three pairs registered (numbers of the closed ones reused)");
  for (int i = 0; i < 3; i++) io_wantwrite(c[i][0]);
  io_waituntil2(0);
  int64_t first = ioq_canwrite();
  CHECK(first != -1, "one handed out");
  for (int i = 0; i < 3; i++)
    if (c[i][0] != first) ioq_close_later(&q, c[i][0]);
  CHECK(count_writable() == 0, "the two closed ones are not handed out");
  ioq_close_pending(&q);
  int closed = 0;
  for (int i = 0; i < 3; i++) closed += c[i][0] != first && !is_open(c[i][0]);
  CHECK(closed == 2, "the two closed while queued are closed");
  ioq_close_later(&q, first);
  ioq_close_pending(&q);
  CHECK(!is_open((int)first), "and the one handed out");
  for (int i = 0; i < 3; i++) close(c[i][1]);

  /* Bytes left unread: reported again at the next wait, closed at once. */
  int r[2];
  CHECK(pair(r) == 0, "a pair for reading");
  CHECK(write(r[1], "0123456789abcdef", 16) == 16, "16 bytes written to it");
  io_wantread(r[0]);
  io_waituntil2(0);
  CHECK(ioq_canread() == r[0], "readable");
  char buf[4];
  CHECK(read(r[0], buf, sizeof buf) == 4, "4 of 16 bytes read");
  CHECK(ioq_canread() == -1, "handed out once per wait");
  io_waituntil2(0);
  CHECK(ioq_canread() == r[0], "the bytes left are reported at the next wait");
  ioq_close_later(&q, r[0]);
  CHECK(ioq_canread() == -1 && count_writable() == 0, "queues drained");
  ioq_close_pending(&q);
  CHECK(!is_open(r[0]), "closed with bytes left unread");
  CHECK(peer_gone(r[1]), "its peer sees the end");
  close(r[1]);

  /* A new descriptor on a number closed above gets its events. */
  int n[2];
  CHECK(pair(n) == 0, "a new pair (numbers closed above)");
  io_wantwrite(n[0]);
  io_waituntil2(0);
  CHECK(ioq_canwrite() == n[0], "the new descriptor is reported writable");
  ioq_close_later(&q, n[0]);
  ioq_free(&q);
  CHECK(!is_open(n[0]) && q.fd == NULL, "ioq_free closes what is kept and frees the list");
  close(n[1]);
  return check_done();
}
