/* A minimal HTTP/1.1 GET client for one download.  tools/http_get.c parses
 * (URLs, the response header, chunked bodies: no I/O, no messages);
 * tools/http_conn.c connects, sends the request and reads the body. */
#ifndef SHOOTOUT_HTTP_GET_H
#define SHOOTOUT_HTTP_GET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "xfer.h"

struct url {
  char host[256]; /* without brackets for an IPv6 literal */
  char port[6];
  char path[4096]; /* starts with '/' */
  int v6;          /* host was a [bracketed] literal */
};

/* Parse http://host[:port][/path].  Returns 0, or -1 with *why set. */
int url_parse(const char *s, struct url *u, const char **why);

/* In-place decoder of a chunked body. */
struct chunked {
  int state;
  uint64_t left;  /* payload bytes left in the current chunk */
  unsigned line;  /* bytes of the current size line, or of all trailer lines */
};
#define CHUNK_LINE_MAX 4096     /* a chunk-size line, with its extensions */
#define CHUNK_TRAILER_MAX 16384 /* all trailer lines together */
void chunked_init(struct chunked *c);
/* Decode buf[0..len) of raw body bytes in place: returns how many payload
 * bytes are now at buf[0..), or -1 on malformed framing (or a size line or
 * trailer longer than the limits above).  Bytes after the last chunk and
 * its trailer are dropped. */
ssize_t chunked_decode(struct chunked *c, char *buf, size_t len);
int chunked_done(const struct chunked *c);

/* What the response header says. */
struct http_resp {
  int status;
  char reason[64];
  int chunked;
  int has_length;
  uint64_t length;
  const char *why; /* what was wrong when http_parse_head returned -1 */
};
/* Parse a response header in buf[0..len).  Returns the header's length
 * (through the blank line), 0 when it is not complete yet, -1 if bad (with
 * r->why set).  Content-Length must be plain digits; two that differ are
 * refused.  A 1xx status is an interim response: the caller reads on. */
ssize_t http_parse_head(const char *buf, size_t len, struct http_resp *r);

struct http {
  int fd;
  struct http_resp resp;
  struct chunked ch;
  uint64_t got; /* body bytes received (raw) */
  char head[16384];
  size_t pre_off, pre_len; /* body bytes that came with the header */
  const char *url; /* printable (escaped) for messages */
  struct xfer *x;  /* limits of every wait */
};

/* Connect (each resolved address in turn, connect_timeout seconds each,
 * within x's --max-time), send the GET, read the header (skipping interim
 * 1xx responses).  url_shown: the URL escaped for messages.  A non-2xx
 * status, an unreachable host, a limit of x running out: one-line error
 * and exit 1. */
void http_open(struct http *h, const char *url, const char *url_shown, double connect_timeout,
               struct xfer *x);
/* Up to cap body bytes into buf; 0 at the end of the body.  A connection
 * that ends early is an error (exit 1). */
ssize_t http_read(struct http *h, char *buf, size_t cap);
void http_close(struct http *h);

#endif
