/* lib/evmech.c: --stats names the mechanism libowfat chose when it took its
 * first descriptor, not one guessed from the build: none before that, then
 * the one that waits (epoll on Linux, kqueue on FreeBSD and OpenBSD). */
#include <io.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../../lib/evmech.h"

int main(void) {
  CHECK(strcmp(evmech_name(), "none") == 0, "none before the first io_fd");
  int p[2];
  CHECK(pipe(p) == 0 && io_fd(p[0]), "a pipe handed to io_fd");
  const char *m = evmech_name();
  printf("# mechanism: %s\n", m);
#if defined(__linux__)
  CHECK(strcmp(m, "epoll") == 0, "epoll on Linux");
#elif defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
  CHECK(strcmp(m, "kqueue") == 0, "kqueue on the BSDs");
#else
  CHECK(strcmp(m, "none") != 0 && strcmp(m, "unknown") != 0, "a mechanism named");
#endif
  /* It is the one that waits: a byte in the pipe is reported readable. */
  io_wantread(p[0]);
  CHECK(write(p[1], "x", 1) == 1, "a byte written");
  io_waituntil2(1000);
  CHECK(io_canread() == p[0], "the pipe reported readable");
  return check_done();
}
