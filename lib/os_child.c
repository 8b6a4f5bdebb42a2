/* Child processes, per system (see os_child.h). */
#include "os_child.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#if defined(__linux__)
#include <sys/prctl.h>
#elif defined(__FreeBSD__)
#include <sys/types.h>
#include <sys/procctl.h>
#include <unistd.h>
#endif

#include "compat.h"

int os_parent_death_signal(int sig) {
#if defined(__linux__)
  return prctl(PR_SET_PDEATHSIG, (unsigned long)sig, 0UL, 0UL, 0UL);
#elif defined(__FreeBSD__) && defined(PROC_PDEATHSIG_CTL)
  return procctl(P_PID, 0, PROC_PDEATHSIG_CTL, &sig);
#else
  (void)sig;
  errno = ENOSYS;
  return -1;
#endif
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
