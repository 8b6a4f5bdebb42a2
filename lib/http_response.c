/* Incremental HTTP/1.x response parser (see http_response.h).  Lines are
 * parsed byte by byte with a little state; bodies are skipped in bulk. */
#include "http_response.h"

#include <string.h>

/* Status line, headers and trailers together may not exceed
 * HTTP_RESP_HEADER_LIMIT bytes (1xx interim heads count too); one chunk-size
 * line HTTP_RESP_CHUNK_LINE_LIMIT. */

enum { H_OTHER, H_LENGTH, H_TE, H_CONNECTION };
/* Sub-states of the status line, kept in r->which while in HR_STATUS. */
enum { S_PROTO, S_CODE, S_REASON };

void http_resp_init(struct http_resp *r, int head) {
  memset(r, 0, sizeof *r);
  r->state = HR_STATUS;
  r->head = head;
  r->content_length = -1;
  r->which = S_PROTO;
}

static size_t fail_as(struct http_resp *r, enum http_resp_err err, const char *why, size_t used) {
  r->state = HR_ERROR;
  r->error = why;
  r->err = err;
  return used;
}

static size_t fail(struct http_resp *r, const char *why, size_t used) {
  return fail_as(r, HRE_MALFORMED, why, used);
}

static char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = lower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* Prepare for the next line of headers or trailers. */
static void new_line(struct http_resp *r) {
  r->pos = r->namelen = r->vallen = r->linelen = 0;
  r->which = H_OTHER;
  r->saw_cr = 0;
}

/* The value of the header line just ended, trimmed of trailing blanks. */
static void trim_value(struct http_resp *r) {
  if (r->vallen >= sizeof r->val) return; /* flagged too long: nothing to trim */
  while (r->vallen > 0 && (r->val[r->vallen - 1] == ' ' || r->val[r->vallen - 1] == '\t')) r->vallen--;
  r->val[r->vallen] = '\0';
}

/* A header line is complete: note what matters to us.  Returns 0, or -1
 * (with the state set to HR_ERROR) on a bad value. */
static int end_header(struct http_resp *r) {
  trim_value(r);
  if (r->which == H_LENGTH) {
    int64_t v = 0;
    if (r->vallen == 0 || r->vallen > 18) return fail(r, "bad Content-Length", 0), -1;
    for (unsigned i = 0; i < r->vallen; i++) {
      if (r->val[i] < '0' || r->val[i] > '9') return fail(r, "bad Content-Length", 0), -1;
      v = v * 10 + (r->val[i] - '0');
    }
    if (r->content_length >= 0 && r->content_length != v)
      return fail(r, "conflicting Content-Length headers", 0), -1;
    r->content_length = v;
  } else if (r->which == H_TE) {
    if (r->vallen >= sizeof r->val - 1) return fail(r, "Transfer-Encoding too long", 0), -1;
    size_t k = strlen("chunked");
    r->chunked = r->vallen >= k && memcmp(r->val + r->vallen - k, "chunked", k) == 0;
    if (!r->chunked) return fail(r, "unsupported Transfer-Encoding", 0), -1;
  } else if (r->which == H_CONNECTION) {
    if (strstr(r->val, "close")) r->close = 1;
    if (strstr(r->val, "keep-alive") && r->minor == 0) r->close = 0;
  }
  return 0;
}

/* The blank line after the headers: decide how the body is delimited. */
static void end_headers(struct http_resp *r) {
  if (r->status == 101) { /* we never ask for an upgrade */
    fail(r, "101 Switching Protocols without an Upgrade request", 0);
    return;
  }
  if (r->status >= 100 && r->status < 200) {
    /* informational: another status line follows */
    int head = r->head;
    size_t hb = r->header_bytes;
    http_resp_init(r, head);
    r->header_bytes = hb;
    return;
  }
  if (r->head || r->status == 204 || r->status == 304) {
    r->state = HR_DONE;
  } else if (r->chunked) {
    r->state = HR_CHUNK_SIZE;
    r->remaining = 0;
    new_line(r);
  } else if (r->content_length >= 0) {
    r->remaining = (uint64_t)r->content_length;
    r->state = r->remaining ? HR_BODY_LEN : HR_DONE;
  } else {
    r->state = HR_BODY_EOF;
    r->close = 1;
  }
}

static void status_byte(struct http_resp *r, char c) {
  static const char proto[] = "HTTP/1.";
  switch (r->which) {
  case S_PROTO:
    if (r->pos < 7) {
      if (c != proto[r->pos]) {
        fail(r, "not an HTTP/1.x status line", 0);
        return;
      }
    } else if (r->pos == 7) {
      if (c < '0' || c > '9') {
        fail(r, "bad HTTP version", 0);
        return;
      }
      r->minor = c - '0';
      r->close = r->minor == 0;
    } else if (c == ' ') {
      r->which = S_CODE;
      r->namelen = 0;
    } else {
      fail(r, "bad status line", 0);
      return;
    }
    r->pos++;
    return;
  case S_CODE:
    if (c == ' ' && r->namelen == 0) return;
    if (c >= '0' && c <= '9' && r->namelen < 3) {
      r->status = r->status * 10 + (c - '0');
      r->namelen++;
    } else if (r->namelen == 3 && r->status < 100) {
      fail(r, "bad status code", 0);
    } else if (r->namelen == 3 && (c == ' ' || c == '\n')) {
      r->which = S_REASON;
      if (c == '\n') {
        r->state = HR_HEADER;
        new_line(r);
      }
    } else {
      fail(r, "bad status code", 0);
    }
    return;
  default:
    if (c == '\n') {
      r->state = HR_HEADER;
      new_line(r);
    } else if (r->reasonlen < sizeof r->reason) {
      r->reason[r->reasonlen++] = c;
    }
  }
}

static void header_byte(struct http_resp *r, char c) {
  if (c == '\n') {
    if (r->pos == 0) {
      if (r->state == HR_TRAILER) r->state = HR_DONE;
      else end_headers(r);
      return;
    }
    if (r->state == HR_HEADER && end_header(r) != 0) return;
    new_line(r);
    return;
  }
  r->pos++;
  if (r->namelen != (unsigned)-1) {
    /* still in the name */
    if (c == ':') {
      r->name[r->namelen < sizeof r->name ? r->namelen : sizeof r->name - 1] = '\0';
      if (r->namelen >= sizeof r->name - 1) r->which = H_OTHER;
      else if (strcmp(r->name, "content-length") == 0) r->which = H_LENGTH;
      else if (strcmp(r->name, "transfer-encoding") == 0) r->which = H_TE;
      else if (strcmp(r->name, "connection") == 0) r->which = H_CONNECTION;
      else r->which = H_OTHER;
      r->namelen = (unsigned)-1;
    } else if (r->namelen < sizeof r->name - 1) {
      r->name[r->namelen++] = lower(c);
    } else {
      r->namelen = sizeof r->name - 1; /* too long to be one of ours */
    }
    return;
  }
  if (r->which == H_OTHER) return;
  if (r->vallen == 0 && (c == ' ' || c == '\t')) return;
  if (r->vallen < sizeof r->val - 1) r->val[r->vallen++] = lower(c);
  else if (r->which == H_LENGTH) r->vallen = sizeof r->val; /* flagged as too long */
}

static void chunk_size_byte(struct http_resp *r, char c) {
  int h;
  if (c == '\n') {
    if (r->pos == 0) {
      fail(r, "empty chunk size line", 0);
      return;
    }
    if (r->remaining == 0) {
      r->state = HR_TRAILER;
    } else {
      r->state = HR_CHUNK_DATA;
    }
    new_line(r);
    return;
  }
  if (r->which == 1) return; /* in a chunk extension or trailing blanks */
  h = hexval(c);
  if (h >= 0) {
    if (r->remaining >> 56) { /* 2^60 and more: no real chunk */
      fail(r, "chunk size too large", 0);
      return;
    }
    r->remaining = r->remaining * 16 + (uint64_t)h;
    r->pos++;
  } else if (r->pos > 0 && (c == ';' || c == ' ' || c == '\t')) {
    r->which = 1;
  } else {
    fail(r, "bad chunk size", 0);
  }
}

/* The parser proper.  With spans != NULL it stops right after the first
 * run of body payload bytes and says where they are (dltar passes them on);
 * without, it skips bodies in bulk (replay only counts them). */
static size_t feed(struct http_resp *r, const char *p, size_t n, struct http_span *span) {
  size_t i = 0;
  while (i < n) {
    switch (r->state) {
    case HR_DONE:
    case HR_ERROR:
      return i;
    case HR_BODY_LEN:
    case HR_CHUNK_DATA: {
      size_t take = n - i;
      if (take > r->remaining) take = (size_t)r->remaining;
      r->remaining -= take;
      r->body += take;
      if (r->remaining == 0) {
        if (r->state == HR_BODY_LEN) {
          r->state = HR_DONE;
        } else {
          r->state = HR_CHUNK_END;
          r->saw_cr = 0;
        }
      }
      if (span) {
        span->off = i;
        span->len = take;
        return i + take;
      }
      i += take;
      continue;
    }
    case HR_BODY_EOF:
      r->body += n - i;
      if (span) {
        span->off = i;
        span->len = n - i;
      }
      return n;
    case HR_CHUNK_END: {
      char c = p[i++];
      if (c == '\r' && !r->saw_cr) {
        r->saw_cr = 1;
      } else if (c == '\n') {
        r->state = HR_CHUNK_SIZE;
        r->remaining = 0;
        new_line(r);
      } else {
        return fail(r, "missing CRLF after chunk", i);
      }
      continue;
    }
    default:
      break;
    }
    /* line-oriented states: status line, headers, chunk sizes, trailers */
    char c = p[i++];
    if (r->state == HR_CHUNK_SIZE) {
      if (++r->linelen > HTTP_RESP_CHUNK_LINE_LIMIT)
        return fail_as(r, HRE_CHUNK_LINE, "chunk size line too long", i);
    } else if (++r->header_bytes > HTTP_RESP_HEADER_LIMIT) {
      return fail_as(r, HRE_HEADER_SIZE, "response headers too long", i);
    }
    /* a line ends in CR LF or LF; a CR anywhere else is refused, so that
     * no two readers of these bytes can see different lines */
    if (r->cr_pending && c != '\n') return fail(r, "bare CR in the response head", i);
    r->cr_pending = c == '\r';
    if (c == '\r') continue;
    if (r->state == HR_STATUS) status_byte(r, c);
    else if (r->state == HR_CHUNK_SIZE) chunk_size_byte(r, c);
    else header_byte(r, c);
  }
  return i;
}

size_t http_resp_feed(struct http_resp *r, const char *p, size_t n) {
  return feed(r, p, n, NULL);
}

size_t http_resp_feed_body(struct http_resp *r, const char *p, size_t n, struct http_span *span) {
  span->off = span->len = 0;
  return feed(r, p, n, span);
}

int http_resp_eof(struct http_resp *r) {
  if (r->state == HR_BODY_EOF) {
    r->state = HR_DONE;
    return 1;
  }
  return r->state == HR_DONE;
}
