/* Request parsing, dates and the 200/206/304/416 choice of httpd. */
#include <string.h>

#include "../../httpd/http.h"
#include "check.h"

static long P(const char *s, struct http_req *r) { return http_parse(s, strlen(s), r); }

int main(void) {
  struct http_req r;
  char big[HTTP_MAX_HEAD + 600];

  CHECK(P("GET /a HTTP/1.1\r\nHost: x\r\n\r\n", &r) == 28, "complete GET consumes the head");
  CHECK(r.method == HTTP_GET && r.minor == 1 && r.keep_alive, "GET 1.1 keeps alive");
  CHECK(r.target_len == 2 && memcmp(r.target, "/a", 2) == 0, "target found");
  CHECK(P("GET /a HTTP/1.1\r\nHost: x\r\n", &r) == 0, "head without empty line is incomplete");
  CHECK(P("GET /a HT", &r) == 0, "partial request line is incomplete");
  CHECK(P("HEAD /a HTTP/1.0\r\n\r\n", &r) > 0 && r.method == HTTP_HEAD && !r.keep_alive,
        "HEAD 1.0 closes by default");
  CHECK(P("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &r) > 0 && r.keep_alive,
        "1.0 with keep-alive keeps alive");
  CHECK(P("GET / HTTP/1.1\r\nHost: x\r\nConnection: foo, close\r\n\r\n", &r) > 0 &&
            !r.keep_alive,
        "Connection: close in a list");
  CHECK(P("\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0, "leading empty lines skipped");
  CHECK(P("GET / HTTP/1.1\nHost: x\n\n", &r) > 0, "bare LF line ends accepted");
  long n = P("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n", &r);
  CHECK(n == 28 && r.target[1] == '1', "pipelined: first request only");
  CHECK(P("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n", &r) > 0 &&
            r.method == HTTP_OTHER && r.has_body,
        "POST parsed as other method with a body");
  CHECK(P("DELETE /a HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0 && r.method == HTTP_OTHER,
        "DELETE is another method");
  CHECK(P("get /a HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0 && r.method == HTTP_OTHER,
        "methods are case-sensitive");

  CHECK(P("GET /a HTTP/2.0\r\nHost: x\r\n\r\n", &r) == -505, "HTTP/2.0 -> 505");
  CHECK(P("GET /a HTTP/0.9\r\n\r\n", &r) == -505, "HTTP/0.9 -> 505");
  CHECK(P("GET /a HTTP/1.7\r\nHost: x\r\n\r\n", &r) > 0 && r.minor == 1, "HTTP/1.7 -> 1.1");
  CHECK(P("GET /a\r\n\r\n", &r) == -400, "no version -> 400");
  CHECK(P("GET /a FOO/1.1\r\n\r\n", &r) == -400, "bad protocol -> 400");
  CHECK(P("GET  /a HTTP/1.1\r\nHost: x\r\n\r\n", &r) == -400, "double space -> 400");
  CHECK(P("GET /a HTTP/1.1 \r\nHost: x\r\n\r\n", &r) == -400, "trailing space -> 400");
  CHECK(P("G(T /a HTTP/1.1\r\nHost: x\r\n\r\n", &r) == -400, "bad method char -> 400");
  CHECK(P("GET /a HTTP/1.1\r\n\r\n", &r) == -400, "1.1 without Host -> 400");
  CHECK(P("GET /a HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", &r) == -400, "two Hosts -> 400");
  CHECK(P("GET /a HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", &r) == -400, "header without colon");
  CHECK(P("GET /a HTTP/1.1\r\nHost: x\r\nA : b\r\n\r\n", &r) == -400, "space before colon");
  CHECK(P("GET /a HTTP/1.1\r\nHost: x\r\nA: b\r\n c\r\n\r\n", &r) == -400, "obs-fold -> 400");
  CHECK(P("GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n", &r) == -400,
        "bad Content-Length -> 400");
  CHECK(P("GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
          &r) == -400,
        "two Content-Lengths -> 400");

  memset(big, 'a', sizeof big);
  memcpy(big, "GET /", 5);
  CHECK(http_parse(big, HTTP_MAX_LINE + 10, &r) == -414, "endless request line -> 414");
  memcpy(big + HTTP_MAX_LINE + 10, " HTTP/1.1\r\n\r\n", 13);
  CHECK(http_parse(big, HTTP_MAX_LINE + 23, &r) == -414, "long request line -> 414");
  memset(big, 'a', sizeof big);
  memcpy(big, "GET / HTTP/1.1\r\nHost: x\r\nX: ", 28);
  CHECK(http_parse(big, sizeof big, &r) == -413, "endless headers -> 413");
  memcpy(big + sizeof big - 4, "\r\n\r\n", 4);
  CHECK(http_parse(big, sizeof big, &r) == -413, "long headers -> 413");

  /* Range */
  P("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=2-5\r\n\r\n", &r);
  CHECK(r.range == RANGE_FROM_TO && r.r1 == 2 && r.r2 == 5, "Range a-b");
  P("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=7-\r\n\r\n", &r);
  CHECK(r.range == RANGE_FROM && r.r1 == 7, "Range a-");
  P("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=-3\r\n\r\n", &r);
  CHECK(r.range == RANGE_SUFFIX && r.r2 == 3, "Range -n");
  P("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1,3-4\r\n\r\n", &r);
  CHECK(r.range == RANGE_NONE, "several ranges ignored");
  P("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=5-2\r\n\r\n", &r);
  CHECK(r.range == RANGE_NONE, "reversed range ignored");
  P("GET / HTTP/1.1\r\nHost: x\r\nRange: items=1-2\r\n\r\n", &r);
  CHECK(r.range == RANGE_NONE, "other unit ignored");

  /* Dates */
  CHECK(http_date_parse("Sun, 06 Nov 1994 08:49:37 GMT", 29) == 784111777, "IMF-fixdate");
  CHECK(http_date_parse("Sunday, 06-Nov-94 08:49:37 GMT", 30) == -1, "RFC 850 ignored");
  CHECK(http_date_parse("Sun, 06 Xyz 1994 08:49:37 GMT", 29) == -1, "bad month");
  char d[32];
  CHECK(http_date_fmt(d, 784111777) == 29 && memcmp(d, "Sun, 06 Nov 1994 08:49:37 GMT", 29) == 0,
        "format a date");
  CHECK(http_date_fmt(d, 0) == 29 && memcmp(d, "Thu, 01 Jan 1970 00:00:00 GMT", 29) == 0,
        "format the epoch");
  CHECK(http_date_fmt(d, 951782400) == 29 && memcmp(d, "Tue, 29 Feb 2000", 16) == 0,
        "format a leap day");
  P("GET / HTTP/1.1\r\nHost: x\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n", &r);
  CHECK(r.ims == 784111777, "If-Modified-Since parsed");

  /* The plan */
  uint64_t off, end;
  P("GET / HTTP/1.1\r\nHost: x\r\n\r\n", &r);
  CHECK(http_plan(&r, 10, 5, &off, &end) == 200 && off == 0 && end == 10, "plain 200");
  r.ims = 5;
  CHECK(http_plan(&r, 10, 5, &off, &end) == 304, "not modified -> 304");
  r.ims = 4;
  CHECK(http_plan(&r, 10, 5, &off, &end) == 200, "modified since -> 200");
  r.ims = -1, r.range = RANGE_FROM_TO, r.r1 = 2, r.r2 = 50;
  CHECK(http_plan(&r, 10, 5, &off, &end) == 206 && off == 2 && end == 10, "range clipped");
  r.r1 = 10;
  CHECK(http_plan(&r, 10, 5, &off, &end) == 416, "range past the end -> 416");
  r.range = RANGE_SUFFIX, r.r2 = 3;
  CHECK(http_plan(&r, 10, 5, &off, &end) == 206 && off == 7 && end == 10, "suffix range");
  r.r2 = 30;
  CHECK(http_plan(&r, 10, 5, &off, &end) == 206 && off == 0, "long suffix: whole file");
  r.r2 = 0;
  CHECK(http_plan(&r, 10, 5, &off, &end) == 416, "empty suffix -> 416");
  r.r2 = 3, r.if_range = 4;
  CHECK(http_plan(&r, 10, 5, &off, &end) == 200, "stale If-Range -> whole file");
  r.if_range = 5;
  CHECK(http_plan(&r, 10, 5, &off, &end) == 206, "matching If-Range -> range");

  CHECK(strcmp(http_mime("a/b.HTML"), "text/html") == 0, "mime by extension, any case");
  CHECK(strcmp(http_mime("img/x.jpg"), "image/jpeg") == 0, "jpeg");
  CHECK(strcmp(http_mime("a.d/noext"), "application/octet-stream") == 0, "no extension");
  CHECK(strcmp(http_reason(416), "Range Not Satisfiable") == 0, "reason phrase");
  return check_done();
}
