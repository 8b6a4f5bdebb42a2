/* A streaming gzip writer with a reproducible header: no name, mtime 0,
 * OS byte fixed to Unix, so the same input gives the same bytes (for the
 * same zlib) on every machine. */
#ifndef SHOOTOUT_GZ_WRITE_H
#define SHOOTOUT_GZ_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

struct gzw {
  z_stream z;
  gz_header head;
  int fd;
  unsigned char *in, *out;
  size_t inlen;
  uint64_t raw;    /* bytes given to gzw_write */
  uint64_t packed; /* bytes written to fd */
};

/* Start a gzip stream onto fd at a zlib level (1 = gzip -1), Huffman-only
 * strategy (see gz_write.c).  Returns 0, or
 * -1 with errno set (ENOMEM). */
int gzw_open(struct gzw *g, int fd, int level);
/* Returns 0, or -1 with errno set (write error, or EIO for a zlib error). */
int gzw_write(struct gzw *g, const void *p, size_t n);
/* Ends the stream and writes the trailer; frees the buffers (also on error).
 * Does not close fd. */
int gzw_close(struct gzw *g);
/* Frees without finishing (after an error). */
void gzw_abort(struct gzw *g);

#endif
