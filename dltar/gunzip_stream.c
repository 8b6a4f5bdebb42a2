#include "gunzip_stream.h"

#include <errmsg.h>
#include <string.h>

#define MAP_STEP (1u << 30) /* raw input handed to the inflater at once */

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

void gz_next_member(struct gz *g) { g->last_member = 0; }

int gz_member_ended(const struct gz *g) { return g->mode == 1 && g->member_done; }

uint64_t gz_unconsumed(const struct gz *g) {
  return g->avail_in + (g->map ? g->maplen - g->mapoff : 0);
}

int gz_input_done(const struct gz *g) {
  return gz_unconsumed(g) == 0 && (g->in_eof || (g->map && g->mapoff == g->maplen));
}

const char *gz_inflater(void) { return gzi_name(); }

void gz_map(struct gz *g, const void *data, size_t len) {
  g->map = data;
  g->maplen = len;
  g->mapoff = 0;
}

/* Read more raw input after whatever is still unconsumed. */
static void refill(struct gz *g) {
  if (g->map) { /* unconsumed input ends at map + mapoff: extend it */
    size_t more = g->maplen - g->mapoff, room = MAP_STEP - g->avail_in;
    if (more > room) more = room;
    if (g->avail_in == 0) g->next_in = g->map + g->mapoff;
    g->avail_in += more;
    g->mapoff += more;
    g->in_bytes += more;
    if (more == 0) g->in_eof = 1;
    return;
  }
  if (g->avail_in && g->next_in != g->in) memmove(g->in, g->next_in, g->avail_in);
  g->next_in = g->in;
  ssize_t r = g->src(g->ctx, (char *)g->in + g->avail_in, g->incap - g->avail_in);
  if (r == 0) g->in_eof = 1;
  g->avail_in += (size_t)r;
  g->in_bytes += (uint64_t)r;
}

static void start(struct gz *g) {
  g->next_in = g->in;
  g->avail_in = 0;
  while (g->avail_in < 2 && !g->in_eof) refill(g);
  if (g->avail_in >= 2 && g->next_in[0] == 0x1f && g->next_in[1] == 0x8b) {
    g->mode = 1;
    gzi_start(g);
  } else {
    g->mode = 2;
  }
}

int gz_detect(struct gz *g) {
  if (g->mode == 0) start(g);
  return g->mode == 1;
}

/* After a member's end: another member may follow; anything else but
 * zero padding is an error. */
static int next_member(struct gz *g) {
  for (;;) {
    if (g->avail_in == 0) {
      if (g->in_eof) return 0;
      refill(g);
      continue;
    }
    if (g->next_in[0] == 0x1f) {
      if (g->avail_in < 2 && !g->in_eof) {
        refill(g);
        continue;
      }
      if (g->avail_in >= 2 && g->next_in[1] == 0x8b) {
        gzi_reset(g);
        g->member_done = 0;
        return 1;
      }
    }
    for (size_t i = 0; i < g->avail_in; i++)
      if (g->next_in[i] != 0) die(1, g->name, ": trailing garbage after the gzip stream");
    g->next_in += g->avail_in;
    g->avail_in = 0;
  }
}

static ssize_t plain_read(struct gz *g, char *out, size_t cap) {
  if (g->avail_in == 0 && g->map) refill(g);
  if (g->avail_in) { /* the bytes read for the magic check, or the map */
    size_t n = g->avail_in < cap ? g->avail_in : cap;
    memcpy(out, g->next_in, n);
    g->next_in += n;
    g->avail_in -= n;
    return (ssize_t)n;
  }
  if (g->in_eof) return 0;
  ssize_t r = g->src(g->ctx, out, cap);
  if (r == 0) g->in_eof = 1;
  g->in_bytes += (uint64_t)r;
  return r;
}

ssize_t gz_read(struct gz *g, char *out, size_t cap) {
  if (g->mode == 0) start(g);
  if (g->mode == 2) return plain_read(g, out, cap);
  if (cap > MAP_STEP) cap = MAP_STEP;
  for (;;) {
    if (g->member_done && (g->last_member || !next_member(g))) return 0;
    if (g->avail_in == 0 && !g->in_eof) refill(g);
    size_t before = g->avail_in, n = 0;
    const char *why = NULL;
    enum gzi_rc rc = gzi_inflate(g, (unsigned char *)out, cap, &n, &why);
    if (rc == GZI_ERROR) die(1, g->name, ": corrupt gzip stream: ", why);
    if (rc == GZI_END) {
      g->member_done = 1;
    } else if (n == 0 && g->avail_in == before && g->avail_in == 0 && g->in_eof) {
      die(1, g->name, ": gzip stream truncated");
    }
    if (n) return (ssize_t)n;
  }
}

void gz_end(struct gz *g) {
  if (g->mode == 1) gzi_end(g);
}
