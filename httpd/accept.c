/* What accept(2) said: the calls that found nothing (EAGAIN) and the errors,
 * by errno, counted per process; and their --stats lines, summed and, with
 * -N, per child.  With one listening socket shared by the -N children each
 * new connection wakes every child's epoll (libowfat's: level-triggered, no
 * EPOLLEXCLUSIVE), but epoll_wait checks the socket again before it returns,
 * so most of that thundering herd never reaches us: accept_empty counts the
 * wake-ups that did and found nothing. */
#include "server.h"

#include <errno.h>
#include <stdio.h>

#include "common.h"

static const char *const accept_name[ACCEPT_NERR] = {
    [ACC_EAGAIN] = "accept_eagain",   [ACC_ECONNABORTED] = "accept_econnaborted",
    [ACC_EINTR] = "accept_eintr",     [ACC_EMFILE] = "accept_emfile",
    [ACC_ENFILE] = "accept_enfile",   [ACC_ENOBUFS] = "accept_enobufs",
    [ACC_ENOMEM] = "accept_enomem",   [ACC_EPERM] = "accept_eperm",
    [ACC_EPROTO] = "accept_eproto",   [ACC_OTHER] = "accept_other",
};

void accept_count(struct counters *c, int err, int first) {
  int k;
  switch (err) {
  case EAGAIN: k = ACC_EAGAIN; break;
#if EWOULDBLOCK != EAGAIN
  case EWOULDBLOCK: k = ACC_EAGAIN; break;
#endif
  case ECONNABORTED: k = ACC_ECONNABORTED; break;
  case EINTR: k = ACC_EINTR; break;
  case EMFILE: k = ACC_EMFILE; break;
  case ENFILE: k = ACC_ENFILE; break;
  case ENOBUFS: k = ACC_ENOBUFS; break;
  case ENOMEM: k = ACC_ENOMEM; break;
  case EPERM: k = ACC_EPERM; break;
  case EPROTO: k = ACC_EPROTO; break;
  default: k = ACC_OTHER; break;
  }
  c->accept_err[k]++;
  if (k == ACC_EAGAIN && first) c->accept_empty++;
}

void accept_add(struct counters *sum, const struct counters *c) {
  sum->accept_empty += c->accept_empty;
  for (int k = 0; k < ACCEPT_NERR; k++) sum->accept_err[k] += c->accept_err[k];
}

void accept_stats(struct stats_file *f, const struct counters *sum, const struct counters *kids,
                  unsigned nkids) {
  stats_u64(f, "listen_sockets", sum->listen_sockets, "count");
  stats_u64(f, "accept_empty", sum->accept_empty, "count");
  for (int k = 0; k < ACCEPT_NERR; k++) stats_u64(f, accept_name[k], sum->accept_err[k], "count");
  for (unsigned i = 0; i < nkids; i++) {
    char m[48];
    snprintf(m, sizeof m, "child%u.connections", i + 1);
    stats_u64(f, m, kids[i].connections, "count");
    snprintf(m, sizeof m, "child%u.accept_empty", i + 1);
    stats_u64(f, m, kids[i].accept_empty, "count");
    snprintf(m, sizeof m, "child%u.accept_eagain", i + 1);
    stats_u64(f, m, kids[i].accept_err[ACC_EAGAIN], "count");
  }
}
