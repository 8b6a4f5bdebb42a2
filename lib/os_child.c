/* Child processes, per system (see os_child.h). */
#include "os_child.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#elif defined(__FreeBSD__)
#include <sys/types.h>
#include <sys/procctl.h>
#endif

#include "compat.h"

int os_parent_death_signal(int sig) {
#if defined(__linux__) && !defined(OS_PDEATH_PIPE)
  return prctl(PR_SET_PDEATHSIG, (unsigned long)sig, 0UL, 0UL, 0UL);
#elif defined(__FreeBSD__) && defined(PROC_PDEATHSIG_CTL) && !defined(OS_PDEATH_PIPE)
  return procctl(P_PID, 0, PROC_PDEATHSIG_CTL, &sig);
#else
  (void)sig;
  errno = ENOSYS;
  return -1;
#endif
}

int os_parent_watch_open(int fds[2]) { return pipe2(fds, O_NONBLOCK | O_CLOEXEC); }

int os_parent_watch_child(int fds[2], int sig) {
  (void)close(fds[1]); /* our own copy: it cannot fail but with EINTR, closed then */
  (void)os_parent_death_signal(sig); /* ENOSYS: the pipe alone */
  return fds[0];
}

int os_parent_gone(int fd) {
  char b[16];
  for (;;) {
    ssize_t n = read(fd, b, sizeof b);
    if (n > 0) continue; /* nobody writes; drained all the same */
    if (n < 0 && errno == EINTR) continue;
    return !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
  }
}

int os_reopen_fd(int fd, int flags) {
#if defined(__linux__)
  char path[40];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  return open(path, flags);
#else
  (void)fd, (void)flags;
  errno = ENOSYS;
  return -1;
#endif
}
