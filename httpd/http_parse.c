/* Parsing of one HTTP/1.x request head (RFC 9112), strict where framing is
 * at stake, lenient where it is not (LF alone ends a line). */
#include "http.h"

#include <string.h>

/* RFC 9110 token characters. */
static int is_tchar(unsigned char c) {
  if (c >= 'a' && c <= 'z') return 1;
  if (c >= 'A' && c <= 'Z') return 1;
  if (c >= '0' && c <= '9') return 1;
  return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Case-insensitive compare of a counted string with a NUL-terminated one. */
static int ieq(const char *a, size_t n, const char *b) {
  size_t i;
  for (i = 0; i < n; i++)
    if (b[i] == '\0' || lower((unsigned char)a[i]) != b[i]) return 0;
  return b[i] == '\0';
}

/* Does the comma-separated list v contain the token tok? */
static int has_token(const char *v, size_t n, const char *tok) {
  size_t i = 0;
  while (i < n) {
    while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) i++;
    size_t s = i;
    while (i < n && v[i] != ',') i++;
    size_t e = i;
    while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t')) e--;
    if (e > s && ieq(v + s, e - s, tok)) return 1;
  }
  return 0;
}

/* Parses digits filling [s, s+n); -1 when empty, junk or overflowing. */
static int parse_num(const char *s, size_t n, uint64_t *out) {
  uint64_t v = 0;
  if (n == 0 || n > 19) return -1;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  *out = v;
  return 0;
}

/* "bytes=a-b", "bytes=a-", "bytes=-n"; anything else leaves RANGE_NONE. */
static void parse_range(const char *v, size_t n, struct http_req *r) {
  if (n < 7 || !ieq(v, 6, "bytes=")) return;
  v += 6, n -= 6;
  if (memchr(v, ',', n) != NULL) return; /* several ranges: send it all */
  const char *dash = memchr(v, '-', n);
  if (dash == NULL) return;
  size_t a = (size_t)(dash - v), b = n - a - 1;
  uint64_t x, y;
  if (a == 0) {
    if (parse_num(dash + 1, b, &y) == 0) r->range = RANGE_SUFFIX, r->r2 = y;
  } else if (parse_num(v, a, &x) == 0) {
    if (b == 0) {
      r->range = RANGE_FROM, r->r1 = x;
    } else if (parse_num(dash + 1, b, &y) == 0 && x <= y) {
      r->range = RANGE_FROM_TO, r->r1 = x, r->r2 = y;
    }
  }
}

/* The request line: METHOD SP TARGET SP HTTP/1.x */
static long parse_line(const char *l, size_t n, struct http_req *r) {
  size_t i = 0;
  while (i < n && is_tchar((unsigned char)l[i])) i++;
  if (i == 0 || i >= n || l[i] != ' ') return -400;
  if (i == 3 && memcmp(l, "GET", 3) == 0)
    r->method = HTTP_GET;
  else if (i == 4 && memcmp(l, "HEAD", 4) == 0)
    r->method = HTTP_HEAD;
  else
    r->method = HTTP_OTHER;
  size_t t = ++i;
  while (i < n && (unsigned char)l[i] > ' ' && l[i] != 0x7f) i++;
  if (i == t || i >= n || l[i] != ' ') return -400;
  r->target = l + t;
  r->target_len = i - t;
  const char *v = l + i + 1;
  size_t vn = n - i - 1;
  if (vn < 8 || memcmp(v, "HTTP/", 5) != 0) return -400;
  size_t d = 5;
  if (v[d] < '0' || v[d] > '9') return -400;
  int major = v[d++] - '0';
  if (d >= vn || v[d++] != '.' || d >= vn || v[d] < '0' || v[d] > '9') return -400;
  int minor = v[d++] - '0';
  if (d != vn) return -400;
  if (major != 1) return -505;
  r->minor = minor >= 1 ? 1 : 0;
  return 0;
}

long http_parse(const char *buf, size_t len, struct http_req *r) {
  size_t p = 0;
  while (p < len && (buf[p] == '\r' || buf[p] == '\n')) p++;
  if (p > HTTP_MAX_HEAD) return -400;
  const char *nl = memchr(buf + p, '\n', len - p);
  if (nl == NULL) {
    if (len - p > HTTP_MAX_LINE) return -414;
    return 0;
  }
  size_t line_end = (size_t)(nl - buf), ll = line_end - p;
  if (ll > 0 && buf[line_end - 1] == '\r') ll--;
  if (ll > HTTP_MAX_LINE) return -414;
  /* Find the empty line that ends the head. */
  size_t q = line_end + 1, head_end = 0;
  while (q < len) {
    const char *e = memchr(buf + q, '\n', len - q);
    if (e == NULL) break;
    size_t el = (size_t)(e - buf);
    if (el == q || (el == q + 1 && buf[q] == '\r')) {
      head_end = el + 1;
      break;
    }
    q = el + 1;
  }
  if (head_end == 0) return len - p > HTTP_MAX_HEAD ? -413 : 0;
  if (head_end - p > HTTP_MAX_HEAD) return -413;

  memset(r, 0, sizeof *r);
  r->ims = -1;
  r->if_range = -1;
  r->line = buf + p;
  r->line_len = ll;
  long st = parse_line(buf + p, ll, r);
  if (st < 0) return st;

  int close = 0, keep = 0, hosts = 0, lengths = 0;
  for (q = line_end + 1; q < head_end;) {
    const char *e = memchr(buf + q, '\n', head_end - q);
    size_t el = (size_t)(e - buf), n = el - q;
    const char *h = buf + q;
    q = el + 1;
    if (n > 0 && h[n - 1] == '\r') n--;
    if (n == 0) break; /* the empty line */
    size_t c = 0;
    while (c < n && is_tchar((unsigned char)h[c])) c++;
    if (c == 0 || c >= n || h[c] != ':') return -400; /* also obs-fold */
    size_t vs = c + 1, ve = n;
    while (vs < ve && (h[vs] == ' ' || h[vs] == '\t')) vs++;
    while (ve > vs && (h[ve - 1] == ' ' || h[ve - 1] == '\t')) ve--;
    const char *v = h + vs;
    size_t vn = ve - vs;
    for (size_t k = 0; k < vn; k++)
      if (v[k] == '\0' || v[k] == '\r') return -400;
    switch (lower((unsigned char)h[0])) {
    case 'h':
      if (ieq(h, c, "host")) hosts++;
      break;
    case 'c':
      if (ieq(h, c, "connection")) {
        close |= has_token(v, vn, "close");
        keep |= has_token(v, vn, "keep-alive");
      } else if (ieq(h, c, "content-length")) {
        uint64_t cl;
        if (parse_num(v, vn, &cl) != 0 || lengths++) return -400;
        if (cl > 0) r->has_body = 1;
      }
      break;
    case 't':
      if (ieq(h, c, "transfer-encoding")) r->has_body = 1;
      break;
    case 'r':
      if (ieq(h, c, "range")) parse_range(v, vn, r);
      break;
    case 'i':
      if (ieq(h, c, "if-modified-since")) {
        r->ims = http_date_parse(v, vn);
      } else if (ieq(h, c, "if-range")) {
        r->if_range = http_date_parse(v, vn);
        if (r->if_range < 0) r->if_range = -2;
      }
      break;
    }
  }
  if (r->minor == 1 && hosts != 1) return -400;
  if (hosts > 1) return -400;
  r->keep_alive = r->minor == 1 ? !close : (keep && !close);
  return (long)head_end;
}
