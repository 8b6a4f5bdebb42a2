/* dltar's HTTP/1.1 GET client for one download: lib/url.c parses the URL,
 * lib/http_response.c the response (the parser replay uses too);
 * http_conn.c connects, sends the request and reads the body. */
#ifndef SHOOTOUT_HTTP_CONN_H
#define SHOOTOUT_HTTP_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "http_response.h"
#include "xfer.h"

struct http {
  int fd;
  struct http_resp resp;
  char head[16384];        /* the request, then the response head's reads */
  size_t pre_off, pre_len; /* body payload that came with the head, in head[] */
  size_t raw_off, raw_len; /* bytes in head[] after it, not parsed yet */
  int in_body;             /* the head is done: errors are the body's */
  const char *url;         /* printable (escaped) for messages */
  struct xfer *x;          /* limits of every wait */
};

/* Connect (each resolved address in turn, connect_timeout seconds each,
 * within x's --max-time), send the GET, read the header (skipping interim
 * 1xx responses).  url_shown: the URL escaped for messages.  A non-2xx
 * status, an unreachable host, a limit of x running out: one-line error
 * and exit 1. */
void http_open(struct http *h, const char *url, const char *url_shown, double connect_timeout,
               struct xfer *x);
/* Up to cap body bytes into buf; 0 at the end of the body.  A connection
 * that ends early or a malformed body is an error (exit 1). */
ssize_t http_read(struct http *h, char *buf, size_t cap);
void http_close(struct http *h);

#endif
