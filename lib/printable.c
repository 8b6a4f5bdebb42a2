#include "printable.h"

#include <string.h>

/* The escape of one byte into esc (4 bytes); returns its length. */
static size_t escape_byte(unsigned char c, char esc[4]) {
  static const char hex[] = "0123456789abcdef";
  if (c == '\\') {
    esc[0] = esc[1] = '\\';
    return 2;
  }
  if (c >= 0x20 && c < 0x7f) {
    esc[0] = (char)c;
    return 1;
  }
  esc[0] = '\\';
  esc[1] = 'x';
  esc[2] = hex[c >> 4];
  esc[3] = hex[c & 15];
  return 4;
}

size_t printable_n(char *dst, size_t dstsz, const char *src, size_t n) {
  char esc[4];
  size_t full = 0, o = 0;
  if (dstsz == 0) return 0;
  for (size_t i = 0; i < n; i++) full += escape_byte((unsigned char)src[i], esc);
  /* When it does not all fit, stop early enough to leave room for "...". */
  size_t limit = full + 1 <= dstsz ? dstsz - 1 : (dstsz > 4 ? dstsz - 4 : 0);
  size_t i = 0;
  for (; i < n; i++) {
    size_t k = escape_byte((unsigned char)src[i], esc);
    if (o + k > limit) break;
    memcpy(dst + o, esc, k);
    o += k;
  }
  for (; i < n && o + 1 < dstsz && o < limit + 3; o++) dst[o] = '.';
  dst[o] = '\0';
  return o;
}

size_t printable(char *dst, size_t dstsz, const char *src) {
  if (src == NULL) src = "(null)";
  return printable_n(dst, dstsz, src, strlen(src));
}
