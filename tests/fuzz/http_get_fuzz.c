/* libFuzzer target: dltar's HTTP client parsing (tools/http_get.h): the
 * response head (http_parse_head), then the body bytes after it through the
 * chunked decoder in pieces, and the URL parser on the input as a string.
 * Buffers are exactly as large as their contents. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http_get.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned mode = data[0];
  size_t n = size - 1;
  char *buf = malloc(n ? n : 1);
  if (buf == NULL) return 0;
  memcpy(buf, data + 1, n);

  struct http_resp r;
  ssize_t hl = http_parse_head(buf, n, &r);
  if (hl > (ssize_t)n || hl < -1) abort();
  if (hl > 0) {
    if (memchr(r.reason, '\0', sizeof r.reason) == NULL) abort();
    if (r.status < 0 || r.status > 999) abort();
    /* the body that came with the head, decoded in place, in pieces */
    struct chunked c;
    chunked_init(&c);
    size_t off = (size_t)hl, piece = 1 + (mode >> 1) % 32;
    while (off < n && !chunked_done(&c)) {
      size_t k = n - off < piece ? n - off : piece;
      ssize_t d = chunked_decode(&c, buf + off, k);
      if (d < 0) break;
      if ((size_t)d > k) abort();
      off += k;
    }
  }
  /* the input as a URL (what dltar's SOURCE may be) */
  if (mode & 1) {
    char *s = malloc(n + 1);
    if (s) {
      memcpy(s, data + 1, n);
      s[n] = '\0';
      struct url u;
      const char *why = NULL;
      if (url_parse(s, &u, &why) == 0) {
        if (u.path[0] != '/' || memchr(u.host, '\0', sizeof u.host) == NULL) abort();
      } else if (why == NULL) {
        abort();
      }
      free(s);
    }
  }
  free(buf);
  return 0;
}
