/* gunzip_stream's inflater on zlib: the portable one. */
#include <errmsg.h>
#include <stdlib.h>
#include <zlib.h>

#include "gunzip_stream.h"

const char *gzi_name(void) { return "zlib"; }

void gzi_start(struct gz *g) {
  z_stream *z = calloc(1, sizeof *z);
  if (z == NULL) die(1, g->name, ": out of memory");
  if (inflateInit2(z, 16 + MAX_WBITS) != Z_OK) die(1, g->name, ": zlib init failed");
  g->inf = z;
}

void gzi_reset(struct gz *g) {
  if (inflateReset(g->inf) != Z_OK) die(1, g->name, ": zlib reset failed");
}

enum gzi_rc gzi_inflate(struct gz *g, unsigned char *out, size_t cap, size_t *n,
                        const char **why) {
  z_stream *z = g->inf;
  z->next_in = (Bytef *)(uintptr_t)g->next_in;
  z->avail_in = (uInt)g->avail_in; /* gz_read keeps both under 1 GiB */
  z->next_out = out;
  z->avail_out = (uInt)cap;
  int rc = inflate(z, Z_NO_FLUSH);
  *n = cap - z->avail_out;
  g->next_in = z->next_in;
  g->avail_in = z->avail_in;
  switch (rc) {
  case Z_STREAM_END: return GZI_END;
  case Z_OK: case Z_BUF_ERROR: return GZI_OK;
  case Z_DATA_ERROR: *why = z->msg ? z->msg : "data error"; return GZI_ERROR;
  case Z_NEED_DICT: *why = "needs a dictionary"; return GZI_ERROR;
  case Z_MEM_ERROR: die(1, g->name, ": out of memory in zlib");
  default: die(1, g->name, ": zlib error");
  }
}

void gzi_end(struct gz *g) {
  inflateEnd(g->inf);
  free(g->inf);
  g->inf = NULL;
}
