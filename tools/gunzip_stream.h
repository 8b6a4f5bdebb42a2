/* A pull stream that gunzips its input when it starts with the gzip magic
 * bytes and passes it through otherwise. */
#ifndef SHOOTOUT_GUNZIP_STREAM_H
#define SHOOTOUT_GUNZIP_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>

/* The raw input: up to cap bytes into buf, 0 at the end; errors are the
 * source's to report (it exits). */
typedef ssize_t (*gz_source)(void *ctx, char *buf, size_t cap);

struct gz {
  gz_source src;
  void *ctx;
  const char *name; /* for messages: already escaped (printable()) */
  z_stream z;
  int mode;         /* 0 unknown, 1 gzip, 2 plain */
  int in_eof;
  int member_done;  /* the current gzip member ended */
  int last_member;  /* gz_stop_after_member(): no member after this one */
  unsigned char *in;
  size_t incap;
  uint64_t in_bytes; /* raw bytes consumed */
  const unsigned char *map; /* the whole input in memory (gz_map), or NULL */
  size_t maplen, mapoff;
};

/* in/incap: the buffer for raw input (caller-owned). */
void gz_init(struct gz *g, gz_source src, void *ctx, const char *name, unsigned char *in,
             size_t incap);
/* Take the input from memory (a mapped file) instead of the source:
 * zlib then reads it in place, without a copy into the input buffer. */
void gz_map(struct gz *g, const void *data, size_t len);
/* Up to cap bytes of the (decompressed) stream; 0 at its end.  A corrupt
 * or truncated gzip stream: one-line error and exit 1. */
ssize_t gz_read(struct gz *g, char *out, size_t cap);
int gz_is_gzip(const struct gz *g);
/* From now on gz_read returns 0 at the end of the current gzip member (its
 * CRC and length checked) instead of looking for another member: the
 * archive ended.  No effect on plain input. */
void gz_stop_after_member(struct gz *g);
/* Did the last gzip member end (trailer checked)? */
int gz_member_ended(const struct gz *g);
/* Raw input bytes in memory not consumed yet: read ahead into the input
 * buffer, or the rest of a mapped file. */
uint64_t gz_unconsumed(const struct gz *g);
void gz_end(struct gz *g);

#endif
