#include "gunzip_stream.h"

#include <errmsg.h>
#include <string.h>

void gz_init(struct gz *g, gz_source src, void *ctx, const char *name, unsigned char *in,
             size_t incap) {
  memset(g, 0, sizeof *g);
  g->src = src;
  g->ctx = ctx;
  g->name = name;
  g->in = in;
  g->incap = incap;
}

int gz_is_gzip(const struct gz *g) { return g->mode == 1; }

void gz_stop_after_member(struct gz *g) { g->last_member = 1; }

int gz_member_ended(const struct gz *g) { return g->mode == 1 && g->member_done; }

uint64_t gz_unconsumed(const struct gz *g) {
  return g->z.avail_in + (g->map ? g->maplen - g->mapoff : 0);
}

void gz_map(struct gz *g, const void *data, size_t len) {
  g->map = data;
  g->maplen = len;
  g->mapoff = 0;
}

/* Read more raw input after whatever is still unconsumed. */
static void refill(struct gz *g) {
  if (g->map) { /* unconsumed input ends at map + mapoff: extend it */
    size_t more = g->maplen - g->mapoff, room = (1u << 30) - g->z.avail_in;
    if (more > room) more = room;
    if (g->z.avail_in == 0) g->z.next_in = (Bytef *)(uintptr_t)(g->map + g->mapoff);
    g->z.avail_in += (uInt)more;
    g->mapoff += more;
    g->in_bytes += more;
    if (more == 0) g->in_eof = 1;
    return;
  }
  if (g->z.avail_in && g->z.next_in != g->in) memmove(g->in, g->z.next_in, g->z.avail_in);
  g->z.next_in = g->in;
  ssize_t r = g->src(g->ctx, (char *)g->in + g->z.avail_in, g->incap - g->z.avail_in);
  if (r == 0) g->in_eof = 1;
  g->z.avail_in += (uInt)r;
  g->in_bytes += (uint64_t)r;
}

static void start(struct gz *g) {
  g->z.next_in = g->in;
  g->z.avail_in = 0;
  while (g->z.avail_in < 2 && !g->in_eof) refill(g);
  if (g->z.avail_in >= 2 && g->z.next_in[0] == 0x1f && g->z.next_in[1] == 0x8b) {
    g->mode = 1;
    if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) die(1, g->name, ": zlib init failed");
  } else {
    g->mode = 2;
  }
}

/* After a member's end: another member may follow; anything else but
 * zero padding is an error. */
static int next_member(struct gz *g) {
  for (;;) {
    if (g->z.avail_in == 0) {
      if (g->in_eof) return 0;
      refill(g);
      continue;
    }
    if (g->z.next_in[0] == 0x1f) {
      if (g->z.avail_in < 2 && !g->in_eof) {
        refill(g);
        continue;
      }
      if (g->z.avail_in >= 2 && g->z.next_in[1] == 0x8b) {
        if (inflateReset(&g->z) != Z_OK) die(1, g->name, ": zlib reset failed");
        g->member_done = 0;
        return 1;
      }
    }
    for (uInt i = 0; i < g->z.avail_in; i++)
      if (g->z.next_in[i] != 0) die(1, g->name, ": trailing garbage after the gzip stream");
    g->z.next_in += g->z.avail_in;
    g->z.avail_in = 0;
  }
}

ssize_t gz_read(struct gz *g, char *out, size_t cap) {
  if (g->mode == 0) start(g);
  if (g->mode == 2) {
    if (g->z.avail_in == 0 && g->map) refill(g);
    if (g->z.avail_in) { /* the bytes read for the magic check */
      size_t n = g->z.avail_in < cap ? g->z.avail_in : cap;
      memcpy(out, g->z.next_in, n);
      g->z.next_in += n;
      g->z.avail_in -= (uInt)n;
      return (ssize_t)n;
    }
    if (g->in_eof) return 0;
    ssize_t r = g->src(g->ctx, out, cap);
    if (r == 0) g->in_eof = 1;
    g->in_bytes += (uint64_t)r;
    return r;
  }
  if (cap > (1u << 30)) cap = 1u << 30;
  for (;;) {
    if (g->member_done && (g->last_member || !next_member(g))) return 0;
    if (g->z.avail_in == 0 && !g->in_eof) refill(g);
    g->z.next_out = (Bytef *)out;
    g->z.avail_out = (uInt)cap;
    int rc = inflate(&g->z, Z_NO_FLUSH);
    size_t n = cap - g->z.avail_out;
    if (rc == Z_STREAM_END) {
      g->member_done = 1;
    } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
      die(1, g->name, ": corrupt gzip stream: ", g->z.msg ? g->z.msg : "data error");
    } else if (rc == Z_MEM_ERROR) {
      die(1, g->name, ": out of memory in zlib");
    } else if (rc == Z_BUF_ERROR || (rc == Z_OK && n == 0)) {
      if (g->in_eof && g->z.avail_in == 0) die(1, g->name, ": gzip stream truncated");
    } else if (rc != Z_OK) {
      die(1, g->name, ": zlib error");
    }
    if (n) return (ssize_t)n;
  }
}

void gz_end(struct gz *g) {
  if (g->mode == 1) inflateEnd(&g->z);
}
