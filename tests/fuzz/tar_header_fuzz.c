/* libFuzzer target: the tar header reader (dltar/tar_header.h).  The
 * input's first 512 bytes are a header block (zero-padded when shorter),
 * the rest a pax extended-header record set; every public function runs on
 * buffers of exactly the size the extractor gives them, so ASan sees any
 * read or write past their end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../dltar/tar_header.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned char *blk = calloc(1, TAR_BLOCK);
  if (blk == NULL) return 0;
  memcpy(blk, data, size < TAR_BLOCK ? size : TAR_BLOCK);

  struct tar_hdr h;
  if (tar_hdr_parse(blk, &h) == TAR_HDR_OK) {
    /* the extractor's name buffer, and one just too small for some names */
    size_t small = size > 0 ? (size_t)data[0] % 257 + 1 : 1;
    char *name = malloc(4096), *tight = malloc(small), *link = malloc(101);
    if (name && tight && link) {
      int n = tar_hdr_name(blk, &h, name, 4096);
      if (n >= 0 && strlen(name) != (size_t)n) abort();
      n = tar_hdr_name(blk, &h, tight, small);
      if (n >= 0 && (size_t)n >= small) abort();
      tar_hdr_linkname(blk, link);
      if (strlen(link) > 100) abort();
    }
    free(name);
    free(tight);
    free(link);
  }
  /* numeric fields of every width the header uses, as a field of its own */
  static const size_t widths[] = {8, 12};
  for (size_t w = 0; w < 2; w++) {
    unsigned char *f = malloc(widths[w]);
    if (f == NULL) break;
    memcpy(f, blk + 100 + 8 * w, widths[w]);
    int64_t v;
    tar_num(f, widths[w], (int)w, &v);
    free(f);
  }

  if (size > TAR_BLOCK) {
    size_t len = size - TAR_BLOCK;
    char *rec = malloc(len);
    if (rec == NULL) {
      free(blk);
      return 0;
    }
    memcpy(rec, data + TAR_BLOCK, len);
    struct tar_pax p;
    memset(&p, 0, sizeof p);
    if (tar_pax_parse(rec, len, &p) == 0) {
      /* what it hands back points into rec and is NUL-terminated there */
      if (p.path && (p.path < rec || p.path + strlen(p.path) >= rec + len)) abort();
      if (p.linkpath && (p.linkpath < rec || p.linkpath + strlen(p.linkpath) >= rec + len)) abort();
      if (p.has_mtime && (p.mtime_ns < 0 || p.mtime_ns > 999999999L)) abort();
    }
    free(rec);
    /* pax times on their own, NUL-terminated */
    char *s = malloc(len + 1);
    if (s) {
      memcpy(s, data + TAR_BLOCK, len);
      s[len] = '\0';
      int64_t sec;
      long ns;
      if (tar_pax_time(s, &sec, &ns) == 0 && (ns < 0 || ns > 999999999L)) abort();
      free(s);
    }
  }
  free(blk);
  return 0;
}
