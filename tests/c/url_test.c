/* Unit tests of lib/url.c: dltar's URLs and replay's HOST:PORT, one
 * parser for the address part of both. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "url.h"

static int hp(const char *s, const char *def, struct hostport *h, const char **why) {
  return hostport_parse(s, strlen(s), def, h, why);
}

int main(void) {
  struct url u;
  struct hostport h;
  const char *why;
  CHECK(url_parse("http://example.org/a/b.tgz", &u, &why) == 0 && strcmp(u.hp.host, "example.org") == 0 &&
            strcmp(u.hp.port, "80") == 0 && strcmp(u.path, "/a/b.tgz") == 0,
        "host and path, default port");
  CHECK(url_parse("http://127.0.0.1:8080/x?y=1", &u, &why) == 0 && strcmp(u.hp.port, "8080") == 0 &&
            strcmp(u.path, "/x?y=1") == 0,
        "port and query");
  CHECK(url_parse("http://[::1]:9/p", &u, &why) == 0 && u.hp.v6 && strcmp(u.hp.host, "::1") == 0 &&
            strcmp(u.hp.port, "9") == 0,
        "IPv6 literal");
  CHECK(url_parse("HTTP://h", &u, &why) == 0 && strcmp(u.path, "/") == 0, "no path means /");
  CHECK(url_parse("http://h?q#f", &u, &why) == 0 && strcmp(u.path, "/?q") == 0, "query without a path, fragment dropped");
  CHECK(url_parse("https://h/", &u, &why) == -1 && strstr(why, "https"), "https refused by name");
  CHECK(url_parse("ftp://h/", &u, &why) == -1, "other schemes refused");
  char sch[8];
  CHECK(url_scheme("htp://h/x", sch, sizeof sch) == 1 && strcmp(sch, "htp") == 0, "a scheme is named");
  CHECK(url_scheme("svn+ssh://h", sch, sizeof sch) == 1 && strcmp(sch, "svn+ssh") == 0, "+ in a scheme");
  CHECK(url_scheme("dir/x.tgz", sch, sizeof sch) == 0, "a file name has no scheme");
  CHECK(url_scheme("a:/x", sch, sizeof sch) == 0 && url_scheme("1x://h", sch, sizeof sch) == 0,
        "no :// or a digit first: no scheme");
  CHECK(url_scheme("waytoolongscheme://h", sch, sizeof sch) == 0, "a scheme that does not fit is none");
  CHECK(url_scheme("a b://h", sch, sizeof sch) == 0, "no space in a scheme");
  CHECK(url_parse("http://h:0/", &u, &why) == -1, "port 0 refused");
  CHECK(url_parse("http://h:65536/", &u, &why) == -1, "port above 65535 refused");
  CHECK(url_parse("http://h:/", &u, &why) == -1, "empty port refused");
  CHECK(url_parse("http:///x", &u, &why) == -1, "empty host refused");
  CHECK(url_parse("http://[::1/x", &u, &why) == -1, "unclosed IPv6 literal refused");
  CHECK(url_parse("http://[::1]x/", &u, &why) == -1 && strstr(why, "after the host"), "junk after an IPv6 literal refused");
  CHECK(url_parse("http://h/a b", &u, &why) == -1, "space in path refused");
  CHECK(url_parse("http://u@h/", &u, &why) == -1, "user info refused");
  CHECK(url_parse("http://::1/", &u, &why) == -1 && strstr(why, "brackets"), "a bare IPv6 address is refused, saying why");

  /* replay's target: the same rules, and the port is required */
  CHECK(hp("127.0.0.1:8080", NULL, &h, &why) == 0 && strcmp(h.host, "127.0.0.1") == 0 &&
            strcmp(h.port, "8080") == 0 && !h.v6,
        "HOST:PORT");
  CHECK(hp("[::1]:80", NULL, &h, &why) == 0 && h.v6 && strcmp(h.host, "::1") == 0, "[IPv6]:PORT");
  CHECK(hp("localhost", NULL, &h, &why) == -1 && strstr(why, "no port"), "a target without a port is refused");
  CHECK(hp("localhost", "80", &h, &why) == 0 && strcmp(h.port, "80") == 0, "a default port where one is allowed");
  CHECK(hp("::1:80", NULL, &h, &why) == -1 && strstr(why, "brackets"), "IPv6 without brackets refused");
  CHECK(hp(":80", NULL, &h, &why) == -1 && strcmp(why, "no host") == 0, "empty host refused");
  CHECK(hp("h:1x", NULL, &h, &why) == -1 && strcmp(why, "bad port") == 0, "a port with a letter refused");
  CHECK(hp("h:080", NULL, &h, &why) == 0 && strcmp(h.port, "80") == 0, "a port with a leading zero is that number");
  CHECK(hostport_parse("h:1234", 4, NULL, &h, &why) == 0 && strcmp(h.port, "12") == 0,
        "only len bytes are read");
  char big[300];
  memset(big, 'a', sizeof big);
  memcpy(big + sizeof big - 3, ":80", 3);
  CHECK(hostport_parse(big, sizeof big, NULL, &h, &why) == -1 && strstr(why, "too long"), "a host name too long");
  return check_done();
}
