/* libFuzzer target: replay's incremental response parser
 * (lib/http_response.h).  The first byte picks how the rest is cut into
 * pieces (down to one byte at a time, as a slow server sends it) and
 * whether the request was HEAD; the rest is what the server sent on one
 * keep-alive connection: responses are parsed one after another, as replay
 * does for pipelined answers, then the connection ends. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http_response.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned mode = data[0];
  size_t n = size - 1;
  char *buf = malloc(n ? n : 1); /* exactly the input: ASan sees overreads */
  if (buf == NULL) return 0;
  memcpy(buf, data + 1, n);

  struct http_resp r;
  http_resp_init(&r, mode & 1);
  size_t off = 0, piece = 1 + (mode >> 1) % 64;
  unsigned responses = 0;
  while (off < n) {
    size_t k = n - off < piece ? n - off : piece;
    size_t used;
    if (mode & 0x80) { /* as dltar reads: payload spans, which lie in what was taken */
      struct http_span sp;
      used = http_resp_feed_body(&r, buf + off, k, &sp);
      if (sp.len && (sp.off > used || sp.len > used - sp.off)) abort();
    } else {
      used = http_resp_feed(&r, buf + off, k);
    }
    if (used > k) abort();
    off += used;
    if (r.state == HR_ERROR) {
      if (r.error == NULL) abort();
      break;
    }
    if (r.state == HR_DONE) { /* the next pipelined response */
      if (r.status < 0 || r.status > 999) abort(); /* three digits */
      /* never more body than the length it announced */
      if (r.content_length >= 0 && !r.chunked && r.body > (uint64_t)r.content_length) abort();
      responses++;
      http_resp_init(&r, mode & 1);
    } else if (used == 0) {
      abort(); /* neither done nor failed, yet it took nothing: it would spin */
    }
  }
  if (r.state != HR_ERROR) http_resp_eof(&r);
  (void)responses;
  free(buf);
  return 0;
}
