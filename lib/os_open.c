/* Directory handles, per system (see os_open.h). */
#include "os_open.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"

#if defined(__linux__)
#define OS_DIR_LOOKUP O_PATH
#elif defined(O_SEARCH)
#define OS_DIR_LOOKUP O_SEARCH
#else
#define OS_DIR_LOOKUP O_RDONLY
#endif

/* What open(O_NOFOLLOW) says for a symlink: ELOOP per POSIX and on Linux
 * (there O_PATH | O_DIRECTORY says ENOTDIR), EMLINK on FreeBSD, EFTYPE on
 * NetBSD. */
#if defined(__FreeBSD__) || defined(__DragonFly__)
#define NOFOLLOW_ERR EMLINK
#elif defined(__NetBSD__)
#define NOFOLLOW_ERR EFTYPE
#else
#define NOFOLLOW_ERR ELOOP
#endif

int os_open_dir_at(int dirfd, const char *name) {
  if (strchr(name, '/') != NULL) { /* O_NOFOLLOW guards the last component only */
    errno = EINVAL;
    return -1;
  }
  int fd = openat(dirfd, name, OS_DIR_LOOKUP | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && (errno == ENOTDIR || errno == NOFOLLOW_ERR)) {
    int e = errno;
    struct stat st;
    errno = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) ? ELOOP : e;
  }
  return fd;
}
