/* libFuzzer target: the address parsers of our clients (lib/url.h): the
 * input as dltar's SOURCE URL and as replay's HOST:PORT target.  Buffers
 * are exactly as large as their contents. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (s == NULL) return 0;
  memcpy(s, data, size);
  s[size] = '\0';
  const char *why = NULL;
  struct url u;
  if (url_parse(s, &u, &why) == 0) {
    if (u.path[0] != '/' || memchr(u.hp.host, '\0', sizeof u.hp.host) == NULL) abort();
    if (u.hp.host[0] == '\0' || u.hp.port[0] == '\0') abort();
  } else if (why == NULL) {
    abort();
  }
  /* HOST:PORT over exactly the input's bytes (no NUL to stop at) */
  struct hostport hp;
  why = NULL;
  if (hostport_parse((const char *)data, size, NULL, &hp, &why) == 0) {
    if (hp.host[0] == '\0' || memchr(hp.host, '\0', sizeof hp.host) == NULL) abort();
    long port = strtol(hp.port, NULL, 10);
    if (port < 1 || port > 65535) abort();
  } else if (why == NULL) {
    abort();
  }
  free(s);
  return 0;
}
