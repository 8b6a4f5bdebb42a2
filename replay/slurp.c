#include "slurp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int slurp(const char *path, char **buf, size_t *len) {
  int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t cap = 1 << 16, n = 0;
  char *b = malloc(cap);
  if (b == NULL) goto fail;
  for (;;) {
    if (n + 1 >= cap) {
      char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(b, cap * 2);
      if (nb == NULL) goto fail;
      b = nb;
      cap *= 2;
    }
    ssize_t r = read(fd, b + n, cap - n - 1);
    if (r < 0) {
      if (errno == EINTR) continue;
      goto fail;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  b[n] = '\0';
  if (fd != 0) close(fd);
  *buf = b;
  *len = n;
  return 0;
fail:;
  int e = errno;
  free(b);
  if (fd != 0) close(fd);
  errno = e;
  return -1;
}
