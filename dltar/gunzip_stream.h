/* A pull stream that gunzips its input when it starts with the gzip magic
 * bytes and passes it through otherwise.  The inflater behind it is chosen
 * at build time: ISA-L (gunzip_isal.c) or zlib (gunzip_zlib.c). */
#ifndef SHOOTOUT_GUNZIP_STREAM_H
#define SHOOTOUT_GUNZIP_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The raw input: up to cap bytes into buf, 0 at the end; errors are the
 * source's to report (it exits). */
typedef ssize_t (*gz_source)(void *ctx, char *buf, size_t cap);

struct gz {
  gz_source src;
  void *ctx;
  const char *name; /* for messages: already escaped (printable()) */
  int mode;         /* 0 unknown, 1 gzip, 2 plain */
  int in_eof;
  int member_done;  /* the current gzip member ended */
  int last_member;  /* gz_stop_after_member(): no member after this one */
  unsigned char *in;
  size_t incap;
  const unsigned char *next_in; /* raw input not consumed yet */
  size_t avail_in;
  uint64_t in_bytes; /* raw bytes consumed */
  const unsigned char *map; /* the whole input in memory (gz_map), or NULL */
  size_t maplen, mapoff;
  void *inf;        /* the inflater's state */
};

/* in/incap: the buffer for raw input (caller-owned). */
void gz_init(struct gz *g, gz_source src, void *ctx, const char *name, unsigned char *in,
             size_t incap);
/* Take the input from memory (a mapped file) instead of the source: the
 * inflater then reads it in place, without a copy into the input buffer. */
void gz_map(struct gz *g, const void *data, size_t len);
/* Up to cap bytes of the (decompressed) stream; 0 at its end.  A corrupt
 * or truncated gzip stream: one-line error and exit 1. */
ssize_t gz_read(struct gz *g, char *out, size_t cap);
/* Reads the first bytes if needed: is the input gzip? */
int gz_detect(struct gz *g);
int gz_is_gzip(const struct gz *g);
/* From now on gz_read returns 0 at the end of the current gzip member (its
 * CRC and length checked) instead of looking for another member: the
 * archive ended.  No effect on plain input. */
void gz_stop_after_member(struct gz *g);
/* After gz_stop_after_member() made gz_read return 0 at a member's end:
 * go on into the next member, if any. */
void gz_next_member(struct gz *g);
/* Did the last gzip member end (trailer checked)? */
int gz_member_ended(const struct gz *g);
/* Raw input bytes in memory not consumed yet: read ahead into the input
 * buffer, or the rest of a mapped file. */
uint64_t gz_unconsumed(const struct gz *g);
/* Is all of the input consumed and its end seen? */
int gz_input_done(const struct gz *g);
void gz_end(struct gz *g);
/* The inflater built in: "isal" or "zlib". */
const char *gz_inflater(void);

/* The inflater's side (gunzip_isal.c or gunzip_zlib.c), for gunzip_stream.c. */
enum gzi_rc { GZI_OK, GZI_END, GZI_ERROR };
/* Set up g->inf for a gzip member at g->next_in; exits on failure. */
void gzi_start(struct gz *g);
/* Ready for the next member. */
void gzi_reset(struct gz *g);
/* Inflate from g->next_in/avail_in (advancing them) into out: *n bytes
 * made.  GZI_END: the member ended, its trailer checked.  GZI_ERROR: *why
 * says what is wrong with the data.  GZI_OK with nothing consumed and
 * nothing made: more input is needed. */
enum gzi_rc gzi_inflate(struct gz *g, unsigned char *out, size_t cap, size_t *n,
                        const char **why);
void gzi_end(struct gz *g);
const char *gzi_name(void);

#endif
