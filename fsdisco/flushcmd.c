/* fsdisco's --flush-cmd: the program run between iterations, with its
 * --flush-arg words as its arguments, forked and executed directly (execvp,
 * no shell): no word of it is ever parsed as shell code, whatever it holds. */
#include "fsdisco.h"

#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child's exec error reaches the parent through a close-on-exec pipe:
 * nothing to read means the program runs. */
static int exec_error(int fd) {
  int err = 0;
  ssize_t r;
  do r = read(fd, &err, sizeof err);
  while (r < 0 && errno == EINTR);
  close(fd);
  return r == (ssize_t)sizeof err ? err : 0;
}

int run_flush_cmd(char *const argv[]) {
  int p[2];
  if (pipe(p) != 0 || fcntl(p[1], F_SETFD, FD_CLOEXEC) != 0) {
    carp("--flush-cmd: pipe: ", strerror(errno));
    return -1;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    carp("--flush-cmd: fork: ", strerror(errno));
    close(p[0]);
    close(p[1]);
    return -1;
  }
  if (pid == 0) {
    close(p[0]);
    execvp(argv[0], argv);
    int err = errno;
    ssize_t w = write(p[1], &err, sizeof err);
    _exit(w == (ssize_t)sizeof err ? 127 : 126);
  }
  close(p[1]);
  int err = exec_error(p[0]), st = 0;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) {
      carp("--flush-cmd: waitpid: ", strerror(errno));
      return -1;
    }
  }
  if (err != 0) {
    carp("--flush-cmd: cannot run ", ESC(argv[0]), ": ", strerror(err),
         strchr(argv[0], ' ') ? " (one program, no shell: its arguments go in --flush-arg)" : "");
    return -1;
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  char how[64];
  if (WIFEXITED(st))
    snprintf(how, sizeof how, "exit %d", WEXITSTATUS(st));
  else
    snprintf(how, sizeof how, "signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  carp("flush command ", ESC(argv[0]), " failed (", how, ")");
  return -1;
}
