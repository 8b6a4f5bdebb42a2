/* Output that never blocks the event loop: the access log on stdout and the
 * counters on stderr may go to a pipe whose reader has stopped, a terminal
 * held by ^S, or a socket.  Each write either goes through at once or fails
 * with EAGAIN, and the caller decides to keep the bytes or drop them. */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "os_child.h"

/* A regular file (or block device) never stalls on a reader: plain write.
 * A socket: send with MSG_DONTWAIT.  A pipe, FIFO, terminal or other
 * device: a description of our own, opened through /proc/self/fd with
 * O_NONBLOCK (os_child.h: Linux only), so the flags the shell shares with
 * us stay untouched; elsewhere, O_NONBLOCK on the shared one, put back at
 * exit. */
void outfd_open(struct outfd *o, int fd) {
  struct stat st;
  o->fd = -1;
  o->how = OUT_PLAIN;
  o->oldfl = -1;
  if (fstat(fd, &st) != 0) return; /* closed: everything written is dropped */
  o->fd = fd;
  if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) return;
  if (S_ISSOCK(st.st_mode)) {
    o->how = OUT_SEND;
    return;
  }
  int nfd = os_reopen_fd(fd, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (nfd >= 0) {
    struct stat nst;
    if (fstat(nfd, &nst) == 0 && nst.st_dev == st.st_dev && nst.st_ino == st.st_ino) {
      o->fd = nfd;
      o->how = OUT_OWN;
      return;
    }
    close(nfd);
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0) {
    o->oldfl = fl;
    o->how = OUT_SHARED;
  }
}

void outfd_close(struct outfd *o) {
  if (o->how == OUT_OWN) close(o->fd);
  if (o->how == OUT_SHARED && !(o->oldfl & O_NONBLOCK)) (void)fcntl(o->fd, F_SETFL, o->oldfl);
  o->fd = -1;
}

ssize_t outfd_write(const struct outfd *o, const void *p, size_t n) {
  if (o->fd < 0) {
    errno = EBADF;
    return -1;
  }
  ssize_t w;
  do {
    w = o->how == OUT_SEND ? send(o->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL)
                           : write(o->fd, p, n);
  } while (w < 0 && errno == EINTR);
  if (w < 0 && errno == EWOULDBLOCK) errno = EAGAIN;
  return w;
}

int outfd_wait(const struct outfd *o, double until) {
  double left = until - now_mono();
  if (o->fd < 0 || left <= 0) return 0;
  struct pollfd pf = {o->fd, POLLOUT, 0};
  int r = poll(&pf, 1, (int)(left * 1000) + 1);
  return r > 0;
}

int outfd_put(const struct outfd *o, const char *p, size_t n, double until) {
  while (n > 0) {
    ssize_t w = outfd_write(o, p, n);
    if (w > 0) {
      p += w, n -= (size_t)w;
      continue;
    }
    if (w < 0 && errno == EAGAIN && outfd_wait(o, until)) continue;
    return -1;
  }
  return 0;
}
