/* Addresses our clients are given: HOST:PORT (replay's target) and
 * http://HOST[:PORT][/PATH] (dltar's source), with IPv6 literals in
 * brackets.  One parser for the HOST[:PORT] part of both; no I/O. */
#ifndef SHOOTOUT_URL_H
#define SHOOTOUT_URL_H

#include <stddef.h>

struct hostport {
  char host[256]; /* without brackets for an IPv6 literal */
  char port[6];   /* decimal, 1-65535 */
  int v6;         /* host was a [bracketed] literal */
};

/* Parse HOST[:PORT] or [V6][:PORT], exactly len bytes of s.  Without a
 * port: default_port, or an error when that is NULL.  Returns 0, or -1 with
 * *why set (a constant string). */
int hostport_parse(const char *s, size_t len, const char *default_port, struct hostport *hp,
                   const char **why);

struct url {
  struct hostport hp;
  char path[4096]; /* starts with '/' */
};

/* The SCHEME of "SCHEME://..." (RFC 3986: a letter, then letters, digits,
 * + - or .) into buf, which then holds only those characters.  Returns 1,
 * or 0 when s does not begin so or the scheme does not fit. */
int url_scheme(const char *s, char *buf, size_t cap);

/* Parse http://host[:port][/path][?query] (a #fragment is dropped).  Returns
 * 0, or -1 with *why set. */
int url_parse(const char *s, struct url *u, const char **why);

#endif
