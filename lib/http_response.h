/* The HTTP/1.x response parser of our clients (replay and dltar): status
 * line, headers, Content-Length, chunked bodies and read-until-close
 * bodies, interim 1xx responses skipped.  Bytes may be fed in pieces of any
 * size (down to one byte at a time); the parser keeps no copy of them, only
 * a little state.  A line ends in CR LF or LF; a bare CR is refused, as are
 * status codes below 100, a 101, two different Content-Lengths and any
 * Transfer-Encoding but chunked. */
#ifndef SHOOTOUT_HTTP_RESPONSE_H
#define SHOOTOUT_HTTP_RESPONSE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum http_resp_state {
  HR_STATUS,      /* in the status line */
  HR_HEADER,      /* in a header line (or the blank line ending them) */
  HR_BODY_LEN,    /* body with a Content-Length */
  HR_CHUNK_SIZE,  /* chunk size line */
  HR_CHUNK_DATA,  /* chunk payload */
  HR_CHUNK_END,   /* CRLF after a chunk's payload */
  HR_TRAILER,     /* trailer lines after the last chunk */
  HR_BODY_EOF,    /* body delimited by the connection closing */
  HR_DONE,        /* one full response parsed */
  HR_ERROR        /* malformed response */
};

/* Why a response was refused (state HR_ERROR), for callers that count the
 * reasons apart: the size limits below, or any other malformation. */
enum http_resp_err {
  HRE_NONE,
  HRE_MALFORMED,   /* see r->error */
  HRE_HEADER_SIZE, /* status line + headers (+ 1xx heads, trailers) over HTTP_RESP_HEADER_LIMIT */
  HRE_CHUNK_LINE   /* one chunk-size line over HTTP_RESP_CHUNK_LINE_LIMIT */
};

/* The limits: all header bytes of one response, and one chunk-size line
 * (size, extensions, CRLF). */
#define HTTP_RESP_HEADER_LIMIT 65536
#define HTTP_RESP_CHUNK_LINE_LIMIT 4096

struct http_resp {
  enum http_resp_state state;
  int status;          /* e.g. 200 */
  int minor;           /* HTTP/1.minor */
  int head;            /* the request was HEAD: no body follows */
  int close;           /* the server will close the connection after this */
  int chunked;         /* Transfer-Encoding: chunked */
  int64_t content_length; /* -1 when absent */
  uint64_t body;       /* body bytes seen so far (payload, not chunk framing) */
  uint64_t remaining;  /* of the current Content-Length body or chunk */
  size_t header_bytes; /* bytes of status line + headers, bounded */
  const char *error;   /* what was wrong, when state == HR_ERROR */
  enum http_resp_err err; /* its class */
  /* scratch for the line being parsed */
  unsigned pos;        /* position within the current line */
  unsigned namelen;    /* header name length (capped) */
  unsigned vallen;     /* header value length (capped) */
  int which;           /* which interesting header the current line is */
  int saw_cr;          /* previous byte was a CR (after chunk data) */
  int cr_pending;      /* previous byte of a line was a CR */
  unsigned linelen;    /* bytes of the current chunk-size line */
  unsigned reasonlen;  /* bytes kept of the reason phrase */
  char reason[48];     /* the final status line's reason phrase, cut, raw
                          (untrusted: print through printable_n) */
  char name[24];
  char val[32];
};

/* Ready to parse a response; head=1 when the request was HEAD. */
void http_resp_init(struct http_resp *r, int head);
/* Feed n bytes.  Returns how many were consumed: parsing stops right after
 * the end of one response (state HR_DONE) so that the rest of the buffer
 * belongs to the next, pipelined response.  On malformed input the state
 * becomes HR_ERROR and r->error says why. */
size_t http_resp_feed(struct http_resp *r, const char *p, size_t n);
/* Where the payload bytes of one http_resp_feed_body call lie in its p. */
struct http_span {
  size_t off, len;
};
/* Like http_resp_feed, but stops right after the first run of body payload
 * bytes (chunk framing is consumed, not returned): span says where they are
 * in p (len 0: none in what was consumed).  Call again with the rest. */
size_t http_resp_feed_body(struct http_resp *r, const char *p, size_t n, struct http_span *span);
/* The connection reached end-of-file: returns 1 when that completes the
 * response (a read-until-close body), 0 when the response is truncated. */
int http_resp_eof(struct http_resp *r);

#endif
