/* sendfile, per system (see os_sendfile.h). */
#include "os_sendfile.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#if defined(__linux__)
#include <sys/sendfile.h>
#endif

#include "compat.h"

#if defined(__linux__)
/* sendfile moves the file through a pipe of 64 KiB; a head in front shifts
 * the first round off the segment size, and without a cork its last few
 * hundred bytes leave as a packet of their own, one more for the client to
 * take per response (what nginx's tcp_nopush avoids).  So a head with more
 * than one round behind it is sent corked; a shorter answer is not (two
 * system calls more for nothing). */
#define OS_CORK_ABOVE 65536

static int set_cork(int sock, int on) {
  return setsockopt(sock, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
}

static ssize_t head_and_file(int sock, int fd, uint64_t off, size_t n, const void *head,
                             size_t hlen) {
  size_t done = 0;
  if (hlen > 0) {
    ssize_t w = send(sock, head, hlen, MSG_NOSIGNAL | (n > 0 ? MSG_MORE : 0));
    if (w < 0 || (size_t)w < hlen) return w;
    done = hlen;
  }
  if (n == 0) return (ssize_t)done;
  off_t o = (off_t)off;
  ssize_t m = sendfile(sock, fd, &o, n);
  if (m < 0) return done > 0 ? (ssize_t)done : -1; /* the error comes again next time */
  return (ssize_t)done + m;
}

ssize_t os_sendfile(int sock, int fd, uint64_t off, size_t n, const void *head, size_t hlen) {
  /* Not corked (a socket that refuses it) costs packets, not bytes. */
  int cork = hlen > 0 && hlen + n > OS_CORK_ABOVE && set_cork(sock, 1) == 0;
  ssize_t r = head_and_file(sock, fd, off, n, head, hlen);
  if (cork) {
    int e = errno;
    if (set_cork(sock, 0) != 0) return -1; /* corked for good: the caller closes it */
    errno = e;
  }
  return r;
}
#elif defined(__FreeBSD__)
ssize_t os_sendfile(int sock, int fd, uint64_t off, size_t n, const void *head, size_t hlen) {
  if (n == 0) { /* nbytes 0 means "to the end of the file" there */
    if (hlen == 0) return 0;
    return send(sock, head, hlen, MSG_NOSIGNAL);
  }
  struct iovec iov = {(void *)(uintptr_t)head, hlen};
  struct sf_hdtr hdtr = {&iov, 1, NULL, 0};
  off_t sent = 0;
  int r = sendfile(fd, sock, (off_t)off, n, hlen > 0 ? &hdtr : NULL, &sent, 0);
  if (r == 0 || sent > 0) return (ssize_t)sent; /* EAGAIN, EINTR, EBUSY after some bytes */
  return -1;
}
#else
ssize_t os_sendfile(int sock, int fd, uint64_t off, size_t n, const void *head, size_t hlen) {
  (void)sock, (void)fd, (void)off, (void)n, (void)head, (void)hlen;
  errno = ENOSYS;
  return -1;
}
#endif
