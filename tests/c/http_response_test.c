/* The response parser gives the same answer however the bytes are split. */
#include "check.h"
#include "http_response.h"

#include <stdio.h>
#include <string.h>

struct want {
  int status;
  uint64_t body;
  int close;
};

/* Feed msg in two pieces split at `split`; then check the parse. */
static int parse_split(const char *msg, size_t len, size_t split, struct http_resp *r) {
  http_resp_init(r, 0);
  size_t used = http_resp_feed(r, msg, split);
  if (r->state == HR_DONE || r->state == HR_ERROR) return (int)used;
  used += http_resp_feed(r, msg + split, len - split);
  return (int)used;
}

/* Feed one byte at a time. */
static size_t parse_bytes(const char *msg, size_t len, struct http_resp *r) {
  size_t used = 0;
  http_resp_init(r, 0);
  for (size_t i = 0; i < len && r->state != HR_DONE && r->state != HR_ERROR; i++)
    used += http_resp_feed(r, msg + i, 1);
  return used;
}

static void every_split(const char *name, const char *msg, struct want w, int needs_eof) {
  size_t len = strlen(msg);
  int all_ok = 1;
  struct http_resp r;
  for (size_t s = 0; s <= len; s++) {
    int used = parse_split(msg, len, s, &r);
    if (needs_eof) http_resp_eof(&r);
    if (r.state != HR_DONE || (size_t)used != len || r.status != w.status || r.body != w.body ||
        r.close != w.close) {
      printf("# %s: split at %zu: state %d used %d status %d body %llu close %d\n", name, s,
             (int)r.state, used, r.status, (unsigned long long)r.body, r.close);
      all_ok = 0;
      break;
    }
  }
  char label[160];
  snprintf(label, sizeof label, "%s: parsed alike at every split point", name);
  CHECK(all_ok, label);
  size_t used = parse_bytes(msg, len, &r);
  if (needs_eof) http_resp_eof(&r);
  snprintf(label, sizeof label, "%s: parsed alike one byte at a time", name);
  CHECK(r.state == HR_DONE && used == len && r.status == w.status && r.body == w.body, label);
}

static void bad(const char *name, const char *msg) {
  struct http_resp r;
  http_resp_init(&r, 0);
  http_resp_feed(&r, msg, strlen(msg));
  char label[160];
  snprintf(label, sizeof label, "malformed response rejected: %s", name);
  CHECK(r.state == HR_ERROR && r.error != NULL, label);
}

/* Everything after the head, as dltar reads it: payload spans, in pieces of
 * `step` bytes; out gets the payload.  Returns the state at the end. */
static enum http_resp_state body_spans(const char *msg, size_t step, char *out, size_t *outlen) {
  struct http_resp r;
  http_resp_init(&r, 0);
  size_t n = strlen(msg), o = 0;
  for (size_t i = 0; i < n && r.state != HR_DONE && r.state != HR_ERROR;) {
    size_t k = n - i < step ? n - i : step, j = 0;
    while (j < k && r.state != HR_DONE && r.state != HR_ERROR) {
      struct http_span sp;
      size_t used = http_resp_feed_body(&r, msg + i + j, k - j, &sp);
      if (sp.len) {
        if (sp.off + sp.len > used) return HR_ERROR; /* a span outside what was taken */
        memcpy(out + o, msg + i + j + sp.off, sp.len);
        o += sp.len;
      }
      if (used == 0) break;
      j += used;
    }
    i += k;
  }
  *outlen = o;
  return r.state;
}

static void spans(void) {
  char out[512];
  size_t ol;
  const char *chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                        "4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-T: 1\r\n\r\n";
  const char *want = "Wikipedia in\r\n\r\nchunks.";
  int okall = 1;
  for (size_t step = 1; step <= strlen(chunked); step++)
    if (body_spans(chunked, step, out, &ol) != HR_DONE || ol != strlen(want) || memcmp(out, want, ol) != 0)
      okall = 0;
  CHECK(okall, "spans: a chunked body's payload at every piece size, with extension and trailer");
  const char *len = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloNEXT";
  CHECK(body_spans(len, 7, out, &ol) == HR_DONE && ol == 5 && memcmp(out, "hello", 5) == 0,
        "spans: a Content-Length body, nothing after it");
  const char *eof = "HTTP/1.0 200 OK\r\n\r\nuntil close";
  CHECK(body_spans(eof, 3, out, &ol) == HR_BODY_EOF && ol == 11 && memcmp(out, "until close", 11) == 0,
        "spans: a body read until the connection closes");
  const char *cont = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  CHECK(body_spans(cont, 4, out, &ol) == HR_DONE && ol == 2 && memcmp(out, "ok", 2) == 0,
        "spans: the interim response carries no payload");
  const char *unfinished = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n";
  CHECK(body_spans(unfinished, 100, out, &ol) == HR_CHUNK_SIZE && ol == 4, "spans: an unfinished chunked body is not done");
}

int main(void) {
  every_split("Content-Length",
              "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 11\r\nContent-Type: text/plain\r\n\r\nhello world",
              (struct want){200, 11, 0}, 0);
  every_split("chunked with extension and trailer",
              "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
              "5;name=v\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: 1\r\n\r\n",
              (struct want){200, 31, 0}, 0);
  every_split("bare LF line ends", "HTTP/1.1 404 Not Found\nContent-Length: 3\n\nabc",
              (struct want){404, 3, 0}, 0);
  every_split("HTTP/1.0 closes", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
              (struct want){200, 2, 1}, 0);
  every_split("Connection: close", "HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n",
              (struct want){200, 0, 1}, 0);
  every_split("204 has no body", "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n",
              (struct want){204, 0, 0}, 0);
  every_split("100 Continue first",
              "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 4\r\n\r\ndone",
              (struct want){201, 4, 0}, 0);
  every_split("body until close", "HTTP/1.1 200 OK\r\nServer: old\r\n\r\nsome bytes",
              (struct want){200, 10, 1}, 1);

  /* two pipelined responses in one buffer: the first stops at its end */
  const char *two = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz";
  struct http_resp r;
  http_resp_init(&r, 0);
  size_t used = http_resp_feed(&r, two, strlen(two));
  CHECK(r.state == HR_DONE && used == strlen(two) - 39 && r.body == 3, "pipelined: first response ends at its last byte");
  http_resp_init(&r, 0);
  size_t used2 = http_resp_feed(&r, two + used, strlen(two) - used);
  CHECK(r.state == HR_DONE && used + used2 == strlen(two) && r.body == 1, "pipelined: second response parsed from the rest");

  http_resp_init(&r, 1);
  const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n";
  used = http_resp_feed(&r, head, strlen(head));
  CHECK(r.state == HR_DONE && r.body == 0 && used == strlen(head), "HEAD: Content-Length without a body");

  http_resp_init(&r, 0);
  const char *cut = "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort";
  http_resp_feed(&r, cut, strlen(cut));
  CHECK(!http_resp_eof(&r) && r.body == 5, "truncated body: end of file does not complete it");

  /* Found by the http_response fuzz target: a 32-byte value wrote one past val[]. */
  bad("a Content-Length of 40 digits", "HTTP/1.1 200 OK\r\nContent-Length: 0000000000000000000000000000000000000001\r\n\r\n");
  bad("not HTTP", "HTTX/1.1 200 OK\r\n\r\n");
  bad("status code letters", "HTTP/1.1 2x0 OK\r\n\r\n");
  bad("Content-Length letters", "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n");
  bad("conflicting Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n");
  bad("chunk size not hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
  bad("chunk without CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX");
  bad("unknown transfer coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n");
  bad("huge chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n");

  /* headers beyond the limit */
  static char big[80000];
  size_t n = (size_t)snprintf(big, sizeof big, "HTTP/1.1 200 OK\r\n");
  while (n < sizeof big - 100) n += (size_t)snprintf(big + n, sizeof big - n, "X-Filler: 0123456789\r\n");
  http_resp_init(&r, 0);
  http_resp_feed(&r, big, n);
  CHECK(r.state == HR_ERROR, "endless headers rejected");
  CHECK(r.err == HRE_HEADER_SIZE, "endless headers: the reason is their size");

  /* endless 1xx interim responses add up to the same limit */
  n = 0;
  while (n < sizeof big - 100) n += (size_t)snprintf(big + n, sizeof big - n, "HTTP/1.1 100 Continue\r\n\r\n");
  http_resp_init(&r, 0);
  http_resp_feed(&r, big, n);
  CHECK(r.state == HR_ERROR && r.err == HRE_HEADER_SIZE, "endless 100 Continue heads rejected by size");

  /* a chunk-size line that never ends: refused at the line limit */
  const char *ch = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;";
  http_resp_init(&r, 0);
  used = http_resp_feed(&r, ch, strlen(ch));
  memset(big, 'e', sizeof big);
  size_t fed = 0;
  while (r.state == HR_CHUNK_SIZE && fed < 10 * sizeof big) fed += http_resp_feed(&r, big, sizeof big);
  CHECK(r.state == HR_ERROR && r.err == HRE_CHUNK_LINE && fed <= HTTP_RESP_CHUNK_LINE_LIMIT,
        "endless chunk extension refused within the chunk line limit");
  http_resp_init(&r, 0);
  http_resp_feed(&r, ch, strlen(ch) - 2);
  memset(big, '0', sizeof big);
  http_resp_feed(&r, big, sizeof big);
  CHECK(r.state == HR_ERROR && r.err == HRE_CHUNK_LINE, "endless leading zeros refused too");
  CHECK(strcmp(r.error, "chunk size line too long") == 0, "chunk line: the message says why");

  /* leading zeros of a chunk size are not a large size */
  every_split("chunk size with leading zeros",
              "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
              "00000000000000000003\r\nabc\r\n0000\r\n\r\n",
              (struct want){200, 3, 0}, 0);

  /* several interim responses before the final one; 101 is never interim */
  every_split("100 and 103 before the answer",
              "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
              "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
              (struct want){200, 2, 0}, 0);
  bad("101 without an upgrade", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  every_split("the same Content-Length twice",
              "HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nok", (struct want){200, 2, 0}, 0);

  /* the reason phrase is kept raw (cut), the final one, without CR */
  const char *rs = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not\x1b[31mFound\r\nContent-Length: 0\r\n\r\n";
  http_resp_init(&r, 0);
  http_resp_feed(&r, rs, strlen(rs));
  CHECK(r.state == HR_DONE && r.status == 404 && r.reasonlen == 13 && memcmp(r.reason, "Not\x1b[31mFound", 13) == 0,
        "reason phrase of the final response kept");
  n = (size_t)snprintf(big, sizeof big, "HTTP/1.1 500 ");
  memset(big + n, 'r', 1000);
  n += 1000;
  n += (size_t)snprintf(big + n, sizeof big - n, "\r\n\r\n");
  http_resp_init(&r, 0);
  http_resp_feed(&r, big, n);
  CHECK(r.state == HR_BODY_EOF && r.reasonlen == sizeof r.reason, "a long reason phrase is cut");
  spans();
  /* Found by the http_get fuzz target in dltar's old parser, kept for the one
   * parser both clients share now: a bare CR ends no line. */
  bad("a bare CR in a header line", "HTTP/1.1 200 OK\r\nA: b\r\r\n\r\n");
  bad("a CR inside the status line", "HTTP/1.\r 200 o\r\n\r\n");
  bad("status below 100", "HTTP/1.1 099 Odd\r\n\r\n");
  bad("not HTTP", "SMTP/1.0 200 OK\r\n\r\n");
  const char *bad_cl[] = {"+5", "-5", "5 5", "5,5", "0x10", "99999999999999999999", ""};
  for (size_t i = 0; i < sizeof bad_cl / sizeof *bad_cl; i++) {
    char hb[128], name[64];
    snprintf(hb, sizeof hb, "HTTP/1.1 200 OK\r\nContent-Length: %s\r\n\r\n", bad_cl[i]);
    snprintf(name, sizeof name, "Content-Length '%s'", bad_cl[i]);
    bad(name, hb);
  }
  bad("non-hex chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
  bad("no CRLF after chunk data", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWikiXX");
  bad("an empty chunk size line", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n");
  return check_done();
}
