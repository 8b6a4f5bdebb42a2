/* libFuzzer target: httpd's request parser (httpd/http.h): http_parse on
 * the input as one request head, then what httpd does with a parsed
 * request: clean its target into a path below ROOT and plan the response
 * for a file.  The input sits in a buffer of exactly its size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  struct http_req r;
  memset(&r, 0, sizeof r);
  long n = http_parse(buf, size, &r);
  if (n > 0) {
    if ((size_t)n > size) abort();
    if (r.target < buf || r.target + r.target_len > buf + size) abort();
    char path[HTTP_MAX_LINE];
    int dir = 0;
    int st = http_path_clean(r.target, r.target_len, path, sizeof path, &dir);
    if (st == 0) {
      /* confined: never absolute, never a ".." component */
      if (path[0] == '/') abort();
      for (const char *c = path; (c = strstr(c, "..")) != NULL; c += 2)
        if ((c == path || c[-1] == '/') && (c[2] == '\0' || c[2] == '/')) abort();
    }
    uint64_t off = 0, end = 0, fsize = size * 7919u;
    int plan = http_plan(&r, fsize, (time_t)1234567890, &off, &end);
    if ((plan == 200 || plan == 206) && (off > end || end > fsize)) abort();
  } else if (n != 0 && n != -400 && n != -413 && n != -414 && n != -505) {
    abort();
  }
  /* dates on their own */
  time_t t = http_date_parse(buf, size < 64 ? size : 64);
  if (t >= 0) {
    char out[32];
    http_date_fmt(out, t);
  }
  return 0;
}
