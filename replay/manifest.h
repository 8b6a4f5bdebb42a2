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
  int listed; /* the manifest has a line for it */
};

struct manifest {
  char *buf;
  struct manifest_entry *e;
  size_t n;
  uint32_t *slot; /* open addressing: 1 + index into e, 0 = empty */
  size_t mask;    /* slots - 1 (a power of two) */
};

/* Load only the lines of FILE ("-": standard input) whose path is one of
 * the n URL paths given (leading '/' and "?query" ignored), reading it a
 * line at a time: memory follows n, not the manifest's size.  The URL
 * strings must outlive m.  Returns 0, or -1 with a one-line reason. */
#define MANIFEST_LINE_MAX 8192
int manifest_load_wanted(struct manifest *m, const char *file, const char *const *url, const uint32_t *len,
                         size_t n, char *err, size_t errlen);
/* Parse a NUL-terminated buffer the caller gives up. */
int manifest_parse(struct manifest *m, char *buf, size_t len, char *err, size_t errlen);
/* The size of the file behind URL path (leading '/' and any "?query"
 * ignored): 0 and *size, or -1 when the manifest does not list it. */
int manifest_size(const struct manifest *m, const char *url, size_t len, uint64_t *size);
void manifest_free(struct manifest *m);

#endif
