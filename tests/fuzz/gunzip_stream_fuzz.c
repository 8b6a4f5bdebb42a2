/* libFuzzer target: the gzip stream (dltar/gunzip_stream.h), as dltar pulls
 * it: from a source that hands out the input in pieces of varying size
 * (first byte even) or from memory (gz_map, first byte odd); the first byte
 * also picks the output buffer size.  The rest is the raw stream.
 *
 * gz_read reports a corrupt stream the way every tool does: one line and
 * exit(1).  That is a correct answer here, not a crash, so this target is
 * linked with -Wl,--wrap=exit,--wrap=errmsg_warn (see mk/fuzz.mk): while
 * an input runs, exit() jumps back here and the message is dropped. */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../dltar/gunzip_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void __wrap_exit(int code);
void __real_exit(int code);
void __wrap_errmsg_warn(const char *message, ...);
void __real_errmsg_warn(const char *message, ...);

static jmp_buf bail;
static volatile int armed;

void __wrap_exit(int code) {
  if (armed) longjmp(bail, code + 1);
  __real_exit(code);
}

/* errmsg_warn's real message needs its varargs: when not armed (libFuzzer
 * itself never calls it) there is nothing to forward. */
void __wrap_errmsg_warn(const char *message, ...) {
  if (!armed) __real_errmsg_warn(message, (char *)0);
}

struct src {
  const uint8_t *p;
  size_t n, off;
  unsigned step;
};

static ssize_t pieces(void *ctx, char *buf, size_t cap) {
  struct src *s = ctx;
  size_t k = s->n - s->off;
  size_t piece = 1 + (s->off * 31 + s->step) % 97; /* 1..97 bytes */
  if (k > piece) k = piece;
  if (k > cap) k = cap;
  memcpy(buf, s->p + s->off, k);
  s->off += k;
  return (ssize_t)k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned mode = data[0];
  struct src s = {data + 1, size - 1, 0, mode};
  size_t incap = 64 + (mode >> 1) * 16, outcap = 1 + (mode >> 2) * 61;
  unsigned char *in = malloc(incap);
  char *out = malloc(outcap);
  uint8_t *copy = malloc(size - 1 ? size - 1 : 1);
  if (in == NULL || out == NULL || copy == NULL) goto done;
  memcpy(copy, data + 1, size - 1);

  struct gz g;
  gz_init(&g, pieces, &s, "fuzz", in, incap);
  if (mode & 1) gz_map(&g, copy, size - 1);
  if (setjmp(bail) == 0) {
    armed = 1;
    uint64_t total = 0;
    ssize_t r;
    /* bounded: a tiny input can inflate to a lot (1032:1); stop at 64 MiB */
    while ((r = gz_read(&g, out, outcap)) > 0 && total < (64u << 20)) {
      if ((size_t)r > outcap) abort();
      total += (uint64_t)r;
    }
    if (r < 0) abort();
    if (!gz_is_gzip(&g) && total != size - 1) abort(); /* plain: passed through whole */
  }
  armed = 0;
  gz_end(&g);
done:
  free(in);
  free(out);
  free(copy);
  return 0;
}
