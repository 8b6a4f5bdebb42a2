#include "http_get.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common.h"

int url_parse(const char *s, struct url *u, const char **why) {
  memset(u, 0, sizeof *u);
  if (strncasecmp(s, "http://", 7) != 0) {
    *why = strncasecmp(s, "https://", 8) == 0 ? "https is not supported" : "not an http:// URL";
    return -1;
  }
  s += 7;
  const char *hend;
  if (*s == '[') {
    hend = strchr(s, ']');
    if (hend == NULL || hend == s + 1) {
      *why = "bad IPv6 literal";
      return -1;
    }
    s++;
    u->v6 = 1;
  } else {
    hend = s + strcspn(s, ":/?#");
  }
  size_t hl = (size_t)(hend - s);
  if (hl == 0 || hl >= sizeof u->host) {
    *why = hl ? "host name too long" : "no host";
    return -1;
  }
  memcpy(u->host, s, hl);
  if (strchr(u->host, '@')) {
    *why = "user info in URLs is not supported";
    return -1;
  }
  s = hend + (u->v6 ? 1 : 0);
  strcpy(u->port, "80");
  if (*s == ':') {
    s++;
    size_t pl = strspn(s, "0123456789");
    uint64_t port;
    char tmp[8];
    if (pl == 0 || pl > 5) {
      *why = "bad port";
      return -1;
    }
    memcpy(tmp, s, pl);
    tmp[pl] = '\0';
    if (parse_u64(tmp, 65535, &port) != 0 || port == 0) {
      *why = "bad port";
      return -1;
    }
    snprintf(u->port, sizeof u->port, "%u", (unsigned)port);
    s += pl;
  }
  if (*s == '\0') {
    strcpy(u->path, "/");
  } else if (*s == '/' || *s == '?') {
    size_t l = strcspn(s, "#");
    if (l + 2 > sizeof u->path) {
      *why = "path too long";
      return -1;
    }
    if (*s == '?') u->path[0] = '/';
    memcpy(u->path + (*s == '?'), s, l);
    for (const char *c = u->path; *c; c++)
      if ((unsigned char)*c <= ' ' || *c == 0x7f) {
        *why = "space or control character in the path";
        return -1;
      }
  } else if (*s != '#') {
    *why = "bad character after the host";
    return -1;
  } else {
    strcpy(u->path, "/");
  }
  return 0;
}

enum { CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF, CH_TRAILER,
       CH_TRAILER_LINE, CH_TRAILER_LF, CH_END_LF, CH_DONE, CH_SIZE0 };

void chunked_init(struct chunked *c) {
  c->state = CH_SIZE0;
  c->left = 0;
  c->line = 0;
}

int chunked_done(const struct chunked *c) { return c->state == CH_DONE; }

static int hexval(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

ssize_t chunked_decode(struct chunked *c, char *buf, size_t len) {
  size_t i = 0, o = 0;
  while (i < len && c->state != CH_DONE) {
    char ch = buf[i];
    if (c->state == CH_SIZE0 || c->state == CH_SIZE || c->state == CH_EXT) {
      if (++c->line > CHUNK_LINE_MAX) return -1;
    } else if (c->state >= CH_TRAILER && c->state <= CH_END_LF) {
      if (++c->line > CHUNK_TRAILER_MAX) return -1;
    }
    switch (c->state) {
    case CH_SIZE0: /* the first hex digit of a size line */
    case CH_SIZE: {
      int v = hexval(ch);
      if (v >= 0) {
        if (c->left >> 59) return -1;
        c->left = c->left * 16 + (uint64_t)v;
        c->state = CH_SIZE;
      } else if (c->state == CH_SIZE0) {
        return -1;
      } else if (ch == '\r') {
        c->state = CH_SIZE_LF;
      } else if (ch == ';' || ch == ' ' || ch == '\t') {
        c->state = CH_EXT;
      } else {
        return -1;
      }
      i++;
      break;
    }
    case CH_EXT:
      if (ch == '\r') c->state = CH_SIZE_LF;
      i++;
      break;
    case CH_SIZE_LF:
      if (ch != '\n') return -1;
      c->state = c->left ? CH_DATA : CH_TRAILER;
      c->line = 0;
      i++;
      break;
    case CH_DATA: {
      size_t n = len - i;
      if (n > c->left) n = (size_t)c->left;
      if (o != i) memmove(buf + o, buf + i, n);
      o += n;
      i += n;
      c->left -= n;
      if (c->left == 0) c->state = CH_DATA_CR;
      break;
    }
    case CH_DATA_CR:
      if (ch != '\r') return -1;
      c->state = CH_DATA_LF;
      i++;
      break;
    case CH_DATA_LF:
      if (ch != '\n') return -1;
      c->state = CH_SIZE0;
      i++;
      break;
    case CH_TRAILER: /* start of a trailer line; an empty one ends the body */
      c->state = ch == '\r' ? CH_END_LF : CH_TRAILER_LINE;
      i++;
      break;
    case CH_TRAILER_LINE:
      if (ch == '\r') c->state = CH_TRAILER_LF;
      i++;
      break;
    case CH_TRAILER_LF:
      if (ch != '\n') return -1;
      c->state = CH_TRAILER;
      i++;
      break;
    case CH_END_LF:
      if (ch != '\n') return -1;
      c->state = CH_DONE;
      i++;
      break;
    }
  }
  return (ssize_t)o;
}

/* Case-insensitive "name:" at the start of line l (length n); returns the
 * value with leading blanks skipped, or NULL. */
static const char *header_value(const char *l, size_t n, const char *name, size_t *vlen) {
  size_t k = strlen(name);
  if (n <= k || strncasecmp(l, name, k) != 0 || l[k] != ':') return NULL;
  const char *v = l + k + 1, *e = l + n;
  while (v < e && (*v == ' ' || *v == '\t')) v++;
  while (e > v && (e[-1] == ' ' || e[-1] == '\t')) e--;
  *vlen = (size_t)(e - v);
  return v;
}

static ssize_t bad(struct http_resp *r, const char *why) {
  r->why = why;
  return -1;
}

ssize_t http_parse_head(const char *buf, size_t len, struct http_resp *r) {
  const char *end = memmem(buf, len, "\r\n\r\n", 4);
  if (end == NULL) return 0;
  memset(r, 0, sizeof *r);
  if (len < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ') return bad(r, "bad status line");
  for (int i = 9; i < 12; i++) {
    if (buf[i] < '0' || buf[i] > '9') return bad(r, "bad status code");
    r->status = r->status * 10 + (buf[i] - '0');
  }
  if (r->status < 100) return bad(r, "bad status code");
  /* The status line ends at its CR LF; a bare CR anywhere in the head is
   * refused, so every line below ends in CR LF within [buf, end + 2). */
  for (const char *c = buf; c < end; c++)
    if (*c == '\r' && c[1] != '\n') return bad(r, "bare CR in the response head");
  const char *eol = memchr(buf, '\r', (size_t)(end - buf) + 2);
  if (eol < buf + 12) return bad(r, "bad status line");
  const char *rs = buf + 12;
  while (rs < eol && *rs == ' ') rs++;
  size_t rl = (size_t)(eol - rs);
  if (rl >= sizeof r->reason) rl = sizeof r->reason - 1;
  memcpy(r->reason, rs, rl);
  const char *l = eol + 2;
  while (l < end + 2) {
    const char *le = memchr(l, '\r', (size_t)(end + 2 - l));
    size_t n = (size_t)(le - l), vl;
    const char *v;
    if ((v = header_value(l, n, "Content-Length", &vl)) != NULL) {
      /* digits only (no sign, no list); a second one must say the same */
      char tmp[24];
      uint64_t cl;
      if (vl == 0 || vl > 19) return bad(r, "bad Content-Length");
      memcpy(tmp, v, vl);
      tmp[vl] = '\0';
      if (parse_u64(tmp, UINT64_MAX, &cl) != 0) return bad(r, "bad Content-Length");
      if (r->has_length && cl != r->length) return bad(r, "conflicting Content-Length headers");
      r->length = cl;
      r->has_length = 1;
    } else if ((v = header_value(l, n, "Transfer-Encoding", &vl)) != NULL) {
      if (vl >= 7 && strncasecmp(v + vl - 7, "chunked", 7) == 0) r->chunked = 1;
      else return bad(r, "unsupported Transfer-Encoding");
    }
    l = le + 2;
  }
  return (ssize_t)(end - buf) + 4;
}
