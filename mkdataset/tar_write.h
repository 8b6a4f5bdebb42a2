/* A streaming ustar writer.  Paths that do not fit the 100-byte name field
 * are split into the ustar prefix when possible, else carried by a pax
 * extended header ("path="); sizes of 8 GiB and more get a pax "size=".
 * Owner root:root (uid/gid 0), fixed mtime given by the caller. */
#ifndef SHOOTOUT_TAR_WRITE_H
#define SHOOTOUT_TAR_WRITE_H

#include <stddef.h>
#include <stdint.h>

/* Where the archive bytes go: returns 0, or -1 with errno set. */
typedef int (*tar_sink)(void *ctx, const void *p, size_t n);

struct tarw {
  tar_sink put;
  void *ctx;
  uint64_t bytes;   /* archive bytes written so far */
  uint64_t pending; /* data bytes still owed to the current file */
  uint64_t mtime;
};

void tarw_init(struct tarw *t, tar_sink put, void *ctx, uint64_t mtime);

/* Fill one 512-byte ustar header.  Returns 0, or 1 when path (or size) does
 * not fit and needs a pax header first (blk is then filled with a truncated
 * name, as pax readers expect). */
int tar_ustar_header(unsigned char blk[512], const char *path, char type, uint64_t size,
                     unsigned mode, uint64_t mtime);

/* A regular file's header; then exactly size bytes through tarw_data. */
int tarw_file(struct tarw *t, const char *path, uint64_t size);
int tarw_data(struct tarw *t, const void *p, size_t n);
/* A directory entry (path without the trailing slash). */
int tarw_dir(struct tarw *t, const char *path);
/* The two zero blocks, padded to a 10240-byte record as GNU tar does. */
int tarw_finish(struct tarw *t);

#endif
