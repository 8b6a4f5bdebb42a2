/* Address parsers (see url.h). */
#include "url.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common.h"

static int refuse(const char **why, const char *what) {
  *why = what;
  return -1;
}

int hostport_parse(const char *s, size_t len, const char *default_port, struct hostport *hp,
                   const char **why) {
  const char *end = s + len, *host = s, *hend, *rest;
  memset(hp, 0, sizeof *hp);
  if (len > 0 && *s == '[') {
    hend = memchr(s, ']', len);
    if (hend == NULL || hend == s + 1) return refuse(why, "bad IPv6 literal");
    host = s + 1;
    rest = hend + 1;
    hp->v6 = 1;
  } else {
    /* the last colon starts the port; a second one means an IPv6 address
     * without its brackets, which would be ambiguous */
    const char *colon = NULL;
    for (const char *c = s; c < end; c++)
      if (*c == ':') {
        if (colon) return refuse(why, "IPv6 addresses go in brackets: [ADDRESS]:PORT");
        colon = c;
      }
    hend = colon ? colon : end;
    rest = hend;
  }
  size_t hl = (size_t)(hend - host);
  if (hl == 0) return refuse(why, "no host");
  if (hl >= sizeof hp->host) return refuse(why, "host name too long");
  memcpy(hp->host, host, hl);
  if (memchr(hp->host, '\0', hl)) return refuse(why, "NUL in the host");
  if (strchr(hp->host, '@')) return refuse(why, "user info in URLs is not supported");
  if (rest == end) {
    if (default_port == NULL) return refuse(why, "no port (want HOST:PORT or [IPv6]:PORT)");
    snprintf(hp->port, sizeof hp->port, "%s", default_port);
    return 0;
  }
  if (*rest != ':') return refuse(why, "bad character after the host");
  rest++;
  size_t pl = (size_t)(end - rest);
  char tmp[8];
  uint64_t port;
  if (pl == 0 || pl > 5) return refuse(why, "bad port");
  for (size_t i = 0; i < pl; i++)
    if (rest[i] < '0' || rest[i] > '9') return refuse(why, "bad port");
  memcpy(tmp, rest, pl);
  tmp[pl] = '\0';
  if (parse_u64(tmp, 65535, &port) != 0 || port == 0) return refuse(why, "bad port");
  snprintf(hp->port, sizeof hp->port, "%u", (unsigned)port);
  return 0;
}

int url_scheme(const char *s, char *buf, size_t cap) {
  size_t n = 0;
  if (!isalpha((unsigned char)s[0])) return 0;
  while (isalnum((unsigned char)s[n]) || (s[n] != '\0' && strchr("+-.", s[n]) != NULL)) n++;
  if (strncmp(s + n, "://", 3) != 0 || n >= cap) return 0;
  memcpy(buf, s, n);
  buf[n] = '\0';
  return 1;
}

int url_parse(const char *s, struct url *u, const char **why) {
  memset(u, 0, sizeof *u);
  if (strncasecmp(s, "http://", 7) != 0)
    return refuse(why, strncasecmp(s, "https://", 8) == 0 ? "https is not supported" : "not an http:// URL");
  s += 7;
  /* the authority ends at the path, query or fragment (none of which can
   * be inside a bracketed IPv6 literal) */
  size_t al = strcspn(s, "/?#");
  if (hostport_parse(s, al, "80", &u->hp, why) != 0) return -1;
  s += al;
  if (*s == '\0' || *s == '#') {
    strcpy(u->path, "/");
    return 0;
  }
  size_t l = strcspn(s, "#");
  if (l + 2 > sizeof u->path) return refuse(why, "path too long");
  if (*s == '?') u->path[0] = '/';
  memcpy(u->path + (*s == '?'), s, l);
  for (const char *c = u->path; *c; c++)
    if ((unsigned char)*c <= ' ' || *c == 0x7f) return refuse(why, "space or control character in the path");
  return 0;
}
