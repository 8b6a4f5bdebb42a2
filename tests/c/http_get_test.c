/* Unit tests of tools/http_get.c: URLs, response headers, chunked bodies. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "http_get.h"

static int decode_all(const char *in, size_t step, char *out, size_t *outlen, int *done) {
  struct chunked c;
  chunked_init(&c);
  char buf[512];
  size_t n = strlen(in), o = 0;
  for (size_t i = 0; i < n; i += step) {
    size_t k = n - i < step ? n - i : step;
    memcpy(buf, in + i, k);
    ssize_t d = chunked_decode(&c, buf, k);
    if (d < 0) return -1;
    memcpy(out + o, buf, (size_t)d);
    o += (size_t)d;
  }
  *outlen = o;
  *done = chunked_done(&c);
  return 0;
}

int main(void) {
  struct url u;
  const char *why;
  CHECK(url_parse("http://example.org/a/b.tgz", &u, &why) == 0 && strcmp(u.host, "example.org") == 0 &&
            strcmp(u.port, "80") == 0 && strcmp(u.path, "/a/b.tgz") == 0,
        "host and path, default port");
  CHECK(url_parse("http://127.0.0.1:8080/x?y=1", &u, &why) == 0 && strcmp(u.port, "8080") == 0 &&
            strcmp(u.path, "/x?y=1") == 0,
        "port and query");
  CHECK(url_parse("http://[::1]:9/p", &u, &why) == 0 && u.v6 && strcmp(u.host, "::1") == 0 &&
            strcmp(u.port, "9") == 0,
        "IPv6 literal");
  CHECK(url_parse("HTTP://h", &u, &why) == 0 && strcmp(u.path, "/") == 0, "no path means /");
  CHECK(url_parse("https://h/", &u, &why) == -1 && strstr(why, "https"), "https refused by name");
  CHECK(url_parse("ftp://h/", &u, &why) == -1, "other schemes refused");
  CHECK(url_parse("http://h:0/", &u, &why) == -1, "port 0 refused");
  CHECK(url_parse("http://h:65536/", &u, &why) == -1, "port above 65535 refused");
  CHECK(url_parse("http://h:/", &u, &why) == -1, "empty port refused");
  CHECK(url_parse("http:///x", &u, &why) == -1, "empty host refused");
  CHECK(url_parse("http://[::1/x", &u, &why) == -1, "unclosed IPv6 literal refused");
  CHECK(url_parse("http://h/a b", &u, &why) == -1, "space in path refused");
  CHECK(url_parse("http://u@h/", &u, &why) == -1, "user info refused");

  char out[512];
  size_t ol;
  int done;
  const char *body = "4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-T: 1\r\n\r\n";
  const char *want = "Wikipedia in\r\n\r\nchunks.";
  int okall = 1;
  for (size_t step = 1; step <= strlen(body); step++) {
    if (decode_all(body, step, out, &ol, &done) != 0 || !done || ol != strlen(want) ||
        memcmp(out, want, ol) != 0)
      okall = 0;
  }
  CHECK(okall, "chunked body decodes at every split size, with extension and trailer");
  CHECK(decode_all("4\r\nWiki\r\n", 100, out, &ol, &done) == 0 && !done && ol == 4,
        "unfinished chunked body is not done");
  CHECK(decode_all("zz\r\n", 100, out, &ol, &done) == -1, "non-hex chunk size refused");
  CHECK(decode_all("4\r\nWikiXX", 100, out, &ol, &done) == -1, "missing CRLF after data refused");
  CHECK(decode_all("\r\n", 100, out, &ol, &done) == -1, "empty size line refused");
  CHECK(decode_all("0\r\n\r\ngarbage", 100, out, &ol, &done) == 0 && done && ol == 0,
        "bytes after the last chunk dropped");

  struct http_resp r;
  const char *h1 = "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\nServer: x\r\n\r\nBODY";
  CHECK(http_parse_head(h1, strlen(h1), &r) == (ssize_t)strlen(h1) - 4 && r.status == 200 &&
            r.has_length && r.length == 1234 && !r.chunked,
        "status and Content-Length");
  const char *h2 = "HTTP/1.1 200 OK\r\ntransfer-encoding:  chunked \r\n\r\n";
  CHECK(http_parse_head(h2, strlen(h2), &r) > 0 && r.chunked, "chunked, case-insensitive");
  const char *h3 = "HTTP/1.0 404 Not Found\r\n\r\n";
  CHECK(http_parse_head(h3, strlen(h3), &r) > 0 && r.status == 404 && strcmp(r.reason, "Not Found") == 0,
        "status 404 and its reason");
  CHECK(http_parse_head(h1, 20, &r) == 0, "incomplete header: need more");
  const char *h4 = "SMTP/1.0 200 OK\r\n\r\n";
  CHECK(http_parse_head(h4, strlen(h4), &r) == -1, "not HTTP refused");
  /* Found by the http_get fuzz target: a bare CR ended a line early and the
   * parser stepped past the end of the head (NULL + 2, or a read past it). */
  const char *hcr1 = "HTTP/1.1 200 OK\r\nA: b\r\r\n\r\n";
  CHECK(http_parse_head(hcr1, strlen(hcr1), &r) == -1, "a bare CR in a header line is refused");
  const char *hcr2 = "HTTP/1.\r 200 o\r\n\r\n";
  CHECK(http_parse_head(hcr2, strlen(hcr2), &r) == -1, "a CR inside the status line is refused");
  const char *h5 = "HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n";
  CHECK(http_parse_head(h5, strlen(h5), &r) == -1 && r.why && strstr(r.why, "Content-Length"),
        "bad Content-Length refused, saying so");
  const char *bad_cl[] = {"+5", "-5", "5 5", "5,5", "0x10", "99999999999999999999", ""};
  int all = 1;
  for (size_t i = 0; i < sizeof bad_cl / sizeof *bad_cl; i++) {
    char hb[128];
    snprintf(hb, sizeof hb, "HTTP/1.1 200 OK\r\nContent-Length: %s\r\n\r\n", bad_cl[i]);
    if (http_parse_head(hb, strlen(hb), &r) != -1) all = 0;
  }
  CHECK(all, "Content-Length that is not a plain number refused (+5, -5, lists, hex, overflow)");
  const char *h6 = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\ncontent-length: 11\r\n\r\n";
  CHECK(http_parse_head(h6, strlen(h6), &r) == -1 && r.why &&
            strcmp(r.why, "conflicting Content-Length headers") == 0,
        "two different Content-Length headers refused");
  const char *h7 = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 10\r\n\r\n";
  CHECK(http_parse_head(h7, strlen(h7), &r) > 0 && r.has_length && r.length == 10,
        "the same Content-Length twice accepted");
  const char *h8 = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n";
  ssize_t l8 = http_parse_head(h8, strlen(h8), &r);
  CHECK(l8 == 25 && r.status == 100, "100 Continue parsed as a head of its own");
  CHECK(http_parse_head(h8 + l8, strlen(h8) - (size_t)l8, &r) > 0 && r.status == 200 && r.length == 3,
        "the final response follows it");
  const char *h9 = "HTTP/1.1 099 Odd\r\n\r\n";
  CHECK(http_parse_head(h9, strlen(h9), &r) == -1, "status below 100 refused");

  static char longline[CHUNK_LINE_MAX + 100];
  memset(longline, '0', sizeof longline - 1);
  CHECK(decode_all(longline, 500, out, &ol, &done) == -1,
        "endless chunk-size line (zeros) refused");
  static char longtrailer[CHUNK_TRAILER_MAX + 100];
  memcpy(longtrailer, "0\r\n", 3);
  memset(longtrailer + 3, 'x', sizeof longtrailer - 4);
  CHECK(decode_all(longtrailer, 500, out, &ol, &done) == -1,
        "endless trailer refused");
  return check_done();
}
