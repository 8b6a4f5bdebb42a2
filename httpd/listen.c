/* The listening sockets: one per address, shared by the -N children (each
 * new connection wakes every child and the first to accept takes it); or
 * with --reuseport one per address and child, all bound to the same
 * address and port with SO_REUSEPORT, so that the kernel spreads new
 * connections evenly over the children. */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "compat.h" /* IPV6_V6ONLY for dietlibc */

/* A socket option that balances new connections over the sockets bound to
 * one port: FreeBSD's SO_REUSEPORT_LB, Linux's SO_REUSEPORT.  Elsewhere
 * SO_REUSEPORT only lets sockets share a port (the last one gets every
 * connection), so the children share one socket instead. */
#if defined(SO_REUSEPORT_LB)
#define HTTPD_REUSEPORT SO_REUSEPORT_LB
#elif defined(__linux__) && defined(SO_REUSEPORT)
#define HTTPD_REUSEPORT SO_REUSEPORT
#endif

static int parse(struct laddr *la, const char *addr, unsigned port, int any6) {
  char a[64];
  size_t n = strlen(addr);
  if (n >= sizeof a) return -2;
  if (addr[0] == '[' && n > 2 && addr[n - 1] == ']') addr++, n -= 2;
  memcpy(a, addr, n);
  a[n] = '\0';
  memset(la, 0, sizeof *la);
  la->any6 = any6;
  struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&la->ss;
  struct sockaddr_in *s4 = (struct sockaddr_in *)&la->ss;
  if (inet_pton(AF_INET6, a, &s6->sin6_addr) == 1) {
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons((uint16_t)port);
    la->sl = sizeof *s6;
  } else if (inet_pton(AF_INET, a, &s4->sin_addr) == 1) {
    s4->sin_family = AF_INET;
    s4->sin_port = htons((uint16_t)port);
    la->sl = sizeof *s4;
  } else {
    return -2;
  }
  return 0;
}

/* A socket bound to la (listening unless probe); -1 with errno. */
static int open_bound(const struct laddr *la, int reuseport, int probe) {
  int fd = socket(la->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int one = 1, zero = 0;
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) goto fail;
#ifdef HTTPD_REUSEPORT
  if (reuseport && setsockopt(fd, SOL_SOCKET, HTTPD_REUSEPORT, &one, sizeof one) != 0)
    goto fail;
#else
  (void)reuseport;
#endif
  if (la->ss.ss_family == AF_INET6 &&
      setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, la->any6 ? &zero : &one, sizeof one) != 0)
    goto fail;
  if (bind(fd, (const struct sockaddr *)&la->ss, la->sl) != 0) goto fail;
  if (!probe && listen(fd, 1024) != 0) goto fail;
  return fd;
fail:;
  int e = errno;
  close(fd);
  errno = e;
  return -1;
}

/* The port the kernel gave fd (for -p 0: the other groups bind to it). */
static int bound_port(int fd, struct laddr *la) {
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) return -1;
  if (la->ss.ss_family == AF_INET6)
    ((struct sockaddr_in6 *)&la->ss)->sin6_port = ((struct sockaddr_in6 *)&ss)->sin6_port;
  else
    ((struct sockaddr_in *)&la->ss)->sin_port = ((struct sockaddr_in *)&ss)->sin_port;
  return 0;
}

static int port_of(const struct laddr *la) {
  return la->ss.ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)&la->ss)->sin6_port
                                      : ((const struct sockaddr_in *)&la->ss)->sin_port;
}

int listen_add(struct listeners *l, const char *addr, unsigned port, int any6, int shared) {
  if (l->n == HTTPD_MAX_LISTEN) {
    errno = EINVAL;
    return -1;
  }
  struct laddr *la = &l->addr[l->n];
  if (parse(la, addr, port, any6) != 0) return -2;
  int reuse = 0;
#ifdef HTTPD_REUSEPORT
  reuse = !shared;
#else
  (void)shared;
#endif
  if (reuse && port_of(la) != 0) {
    /* SO_REUSEPORT would let this bind join any listener of the same user
     * on the port (another httpd, say): a plain bind first, so that a
     * port in use is still refused. */
    int p = open_bound(la, 0, 1);
    if (p < 0) return -1;
    close(p);
  }
  int fd = open_bound(la, reuse, 0);
  if (fd < 0 && reuse && (errno == ENOPROTOOPT || errno == EINVAL)) {
    reuse = 0; /* a kernel without it: one shared socket */
    fd = open_bound(la, 0, 0);
  }
  if (fd < 0) return -1;
  if (reuse && bound_port(fd, la) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  l->reuse[l->n] = reuse;
  l->fd[l->n++] = fd;
  l->groups = 1;
  return fd;
}

void listen_groups(struct listeners *l, unsigned want) {
  for (int i = 0; i < l->n; i++)
    if (!l->reuse[i]) want = 1; /* one shared socket: so are all */
  if (want <= 1) return;
  int *fd = malloc((size_t)want * (size_t)l->n * sizeof *fd);
  if (fd == NULL) return;
  memcpy(fd, l->fd, (size_t)l->n * sizeof *fd);
  unsigned g;
  for (g = 1; g < want; g++) {
    int i;
    for (i = 0; i < l->n; i++) {
      int f = open_bound(&l->addr[i], 1, 0);
      if (f < 0) break;
      fd[g * (unsigned)l->n + (unsigned)i] = f;
    }
    if (i < l->n) {
      /* Out of descriptors (or the port changed hands): the children from
       * here on share the groups already open, as all did before. */
      while (i-- > 0) close(fd[g * (unsigned)l->n + (unsigned)i]);
      break;
    }
  }
  l->all = fd;
  l->groups = g;
}

void listen_keep(struct listeners *l, unsigned child, int *lfd) {
  unsigned mine = l->groups > 0 ? child % l->groups : 0;
  for (int i = 0; i < l->n; i++) lfd[i] = l->fd[i];
  if (l->all == NULL) return;
  for (unsigned g = 0; g < l->groups; g++)
    for (int i = 0; i < l->n; i++) {
      int f = l->all[g * (unsigned)l->n + (unsigned)i];
      if (g == mine) lfd[i] = f; else close(f);
    }
}

void listen_free(struct listeners *l) {
  free(l->all);
  l->all = NULL;
}
