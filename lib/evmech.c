/* The mechanism libowfat's io_fd settled on (evmech.h): its io_waitmode,
 * whose enumerators io_internal.h declares from the same have*.h the
 * library was built with, so they match that build (Debian's, or the one
 * mk/static-libs.sh or mk/cross-libs.sh made). */
#include "evmech.h"

/* io_internal.h defines _GNU_SOURCE itself where libowfat has SIGIO
 * (Linux); the build's -D_GNU_SOURCE would make that a redefinition. */
#undef _GNU_SOURCE
#include <io_internal.h>

const char *evmech_name(void) {
  switch (io_waitmode) {
  case UNDECIDED: return "none";
  case POLL: return "poll";
#ifdef HAVE_KQUEUE
  case KQUEUE: return "kqueue";
#endif
#ifdef HAVE_EPOLL
  case EPOLL: return "epoll";
#endif
#ifdef HAVE_SIGIO
  case _SIGIO: return "sigio";
#endif
#ifdef HAVE_DEVPOLL
  case DEVPOLL: return "devpoll";
#endif
  default: return "unknown";
  }
}
