/* gunzip_stream's inflater on ISA-L (isal_inflate with the gzip wrapper:
 * header, CRC-32 and length checked by the library). */
#include <errmsg.h>
#include <stdlib.h>
#include <isa-l/igzip_lib.h>

#include "gunzip_stream.h"

const char *gzi_name(void) { return "isal"; }

void gzi_start(struct gz *g) {
  struct inflate_state *s = malloc(sizeof *s);
  if (s == NULL) die(1, g->name, ": out of memory");
  isal_inflate_init(s);
  s->crc_flag = ISAL_GZIP;
  g->inf = s;
}

void gzi_reset(struct gz *g) {
  struct inflate_state *s = g->inf;
  isal_inflate_reset(s);
  s->crc_flag = ISAL_GZIP;
}

static const char *why_not(int rc) {
  switch (rc) {
  case ISAL_INVALID_BLOCK: return "invalid block type";
  case ISAL_INVALID_SYMBOL: return "invalid code";
  case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
  case ISAL_INVALID_WRAPPER: return "incorrect header check";
  case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
  case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
  case ISAL_NEED_DICT: return "needs a dictionary";
  default: return "data error";
  }
}

enum gzi_rc gzi_inflate(struct gz *g, unsigned char *out, size_t cap, size_t *n,
                        const char **why) {
  struct inflate_state *s = g->inf;
  s->next_in = (uint8_t *)(uintptr_t)g->next_in;
  s->avail_in = (uint32_t)g->avail_in; /* gz_read keeps both under 1 GiB */
  s->next_out = out;
  s->avail_out = (uint32_t)cap;
  int rc = isal_inflate(s);
  *n = cap - s->avail_out;
  g->next_in = s->next_in;
  g->avail_in = s->avail_in;
  if (rc != ISAL_DECOMP_OK && rc != ISAL_END_INPUT && rc != ISAL_OUT_OVERFLOW) {
    *why = why_not(rc);
    return GZI_ERROR;
  }
  if (s->block_state == ISAL_BLOCK_FINISH) {
    /* isal_inflate gives back the whole bytes it read ahead into its bit
     * buffer: next_in is the first byte after the trailer */
    return GZI_END;
  }
  return GZI_OK;
}

void gzi_end(struct gz *g) {
  free(g->inf);
  g->inf = NULL;
}
