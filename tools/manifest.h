/* The dataset manifest (docs/formats.md#manifesttsv): `path<TAB>size<TAB>crc32hex` lines,
 * '#' comments; loaded into a hash table so that replay can look up the
 * expected size of the file behind a URL ('/' + path). */
#ifndef SHOOTOUT_MANIFEST_H
#define SHOOTOUT_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

struct manifest_entry {
  const char *path; /* into buf, no leading '/' */
  uint32_t len;
  uint64_t size;
};

struct manifest {
  char *buf;
  struct manifest_entry *e;
  size_t n;
  uint32_t *slot; /* open addressing: 1 + index into e, 0 = empty */
  size_t mask;    /* slots - 1 (a power of two) */
};

/* Load FILE; returns 0, or -1 with a one-line reason in err. */
int manifest_load(struct manifest *m, const char *file, char *err, size_t errlen);
/* Parse a NUL-terminated buffer the caller gives up. */
int manifest_parse(struct manifest *m, char *buf, size_t len, char *err, size_t errlen);
/* The size of the file behind URL path (leading '/' and any "?query"
 * ignored): 0 and *size, or -1 when the manifest does not list it. */
int manifest_size(const struct manifest *m, const char *url, size_t len, uint64_t *size);
void manifest_free(struct manifest *m);

#endif
