/* os_sendfile: a head and a file's bytes arrive whole and in order on a
 * loopback TCP connection, through a socket that fills up (non-blocking,
 * partial sends resumed), and the socket is never left corked after a
 * call (a cork left on holds every later answer's last packet back). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "../../lib/os_sendfile.h"

static unsigned char byte_at(uint64_t i) { return (unsigned char)(i * 2654435761u >> 11); }

/* A connected pair over 127.0.0.1: *tx non-blocking, *rx non-blocking. */
static int tcp_pair(int *tx, int *rx) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0 ||
      getsockname(l, (struct sockaddr *)&a, &al) != 0)
    return -1;
  *tx = socket(AF_INET, SOCK_STREAM, 0);
  if (*tx < 0 || connect(*tx, (struct sockaddr *)&a, sizeof a) != 0) return -1;
  *rx = accept(l, NULL, NULL);
  close(l);
  if (*rx < 0) return -1;
  if (fcntl(*tx, F_SETFL, O_NONBLOCK) != 0 || fcntl(*rx, F_SETFL, O_NONBLOCK) != 0) return -1;
  return 0;
}

static int corked(int fd) {
#ifdef TCP_CORK
  int v = 0;
  socklen_t vl = sizeof v;
  if (getsockopt(fd, IPPROTO_TCP, TCP_CORK, &v, &vl) != 0) return -1;
  return v != 0;
#else
  (void)fd;
  return 0;
#endif
}

/* Sends HEAD and SIZE bytes of the file FD, draining RX as it goes; checks
 * what arrived.  Returns 1 when all of it came in order and the socket was
 * never left corked between calls. */
static int send_and_check(int fd, size_t size, const char *head) {
  int tx, rx;
  if (tcp_pair(&tx, &rx) != 0) return 0;
  size_t hlen = strlen(head), total = hlen + size, sent = 0, got = 0;
  unsigned char *in = malloc(total + 1);
  int ok = in != NULL, spins = 0;
  while (ok && got < total && spins < 100000) {
    spins++;
    if (sent < total) {
      size_t hleft = sent < hlen ? hlen - sent : 0;
      uint64_t foff = sent > hlen ? sent - hlen : 0;
      ssize_t n = os_sendfile(tx, fd, foff, size - (size_t)foff, head + (hlen - hleft), hleft);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) ok = 0;
      if (n > 0) sent += (size_t)n;
      if (corked(tx) != 0) ok = 0;
    }
    ssize_t r = read(rx, in + got, total + 1 - got);
    if (r > 0) got += (size_t)r;
    else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) ok = 0;
  }
  ok = ok && got == total && memcmp(in, head, hlen) == 0;
  for (size_t i = 0; ok && i < size; i++)
    if (in[hlen + i] != byte_at(i)) ok = 0;
  free(in);
  close(tx);
  close(rx);
  return ok;
}

int main(void) {
  char path[] = "/tmp/os_sendfile_test.XXXXXX";
  int fd = mkstemp(path);
  enum { SIZE = 1000 * 1000 };
  unsigned char *buf = malloc(SIZE);
  CHECK(fd >= 0 && buf != NULL, "a scratch file");
  if (fd < 0 || buf == NULL) return check_done();
  unlink(path);
  for (size_t i = 0; i < SIZE; i++) buf[i] = byte_at(i);
  CHECK(write(fd, buf, SIZE) == SIZE, "the scratch file is written");
  free(buf);
  if (!OS_HAS_SENDFILE) {
    errno = 0;
    CHECK(os_sendfile(1, fd, 0, 10, "x", 1) == -1 && errno == ENOSYS,
          "without sendfile the call says ENOSYS");
    close(fd);
    return check_done();
  }
  const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n";
  CHECK(send_and_check(fd, 3000, head), "a 3,000-byte body after its head arrives whole");
  CHECK(send_and_check(fd, 60000, head),
        "a body within one splice round (60 KB) arrives whole");
  CHECK(send_and_check(fd, 204800, head),
        "a 200 KB body (sent corked) arrives whole, the socket uncorked after each call");
  CHECK(send_and_check(fd, SIZE, head),
        "a 1 MB body through a full socket arrives whole and in order");
  CHECK(send_and_check(fd, SIZE, ""), "a body without a head arrives whole");
  close(fd);
  return check_done();
}
