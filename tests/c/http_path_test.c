/* URL decoding and ROOT confinement of httpd: no encoding of ".." or of a
 * slash, no NUL, no backslash and no symlink gets out of ROOT. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../httpd/http.h"
#include "check.h"

static char out[256];
static int dir;

static int C(const char *t) { return http_path_clean(t, strlen(t), out, sizeof out, &dir); }

static int is(const char *t, const char *want) { return C(t) == 0 && strcmp(out, want) == 0; }

int main(void) {
  CHECK(is("/", "") && dir, "root");
  CHECK(is("/a/b.txt", "a/b.txt") && !dir, "plain path");
  CHECK(is("/a/b/", "a/b") && dir, "trailing slash is a directory");
  CHECK(is("//a///b", "a/b"), "repeated slashes collapse");
  CHECK(is("/./a/./b", "a/b"), "dot segments drop");
  CHECK(is("/a/../b", "b"), "dot-dot inside ROOT resolves");
  CHECK(is("/a/b/..", "a") && dir, "trailing dot-dot is a directory");
  CHECK(is("/a%20b", "a b"), "percent-decoding");
  CHECK(is("/a%2fb", "a/b"), "encoded slash separates");
  CHECK(is("/a?x=../../etc", "a"), "query dropped");
  CHECK(is("/a#frag", "a"), "fragment dropped");
  CHECK(is("http://host:80/a/b", "a/b"), "absolute-form");
  CHECK(is("/...", "..."), "three dots is a name");
  CHECK(is("/a..b", "a..b"), "dots inside a name");
  CHECK(is("/%252e%252e/x", "%2e%2e/x"), "double encoding decoded once");

  static const char *escapes[] = {
      "/..",          "/../",          "/../secret",        "/a/../../secret",
      "/%2e%2e/secret", "/%2E%2E/secret", "/.%2e/secret",     "/%2e./secret",
      "/a/%2e%2e/%2e%2e/secret", "/%2e%2e%2fsecret", "/..%2fsecret", "/a%2f..%2f..%2fsecret",
      "//../secret",  "/./../secret",  "/a/./../../secret", "http://h/../secret",
  };
  for (size_t i = 0; i < sizeof escapes / sizeof *escapes; i++) {
    char name[80];
    snprintf(name, sizeof name, "%s is refused 403", escapes[i]);
    CHECK(C(escapes[i]) == 403, name);
  }
  static const char *bad[] = {
      "/a%00b",  "/a%00",   "/%00/../x", "/a\\b",    "/..\\secret", "/%5c..%5csecret",
      "/a%5Cb",  "/a%",     "/a%2",      "/a%zz",    "a",           "",
      "*",       "http://h", "/%c0%ae%c0%ae/x",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char name[80];
    int st = C(bad[i]);
    snprintf(name, sizeof name, "%s is refused (%d)", bad[i], st);
    /* overlong UTF-8 is just a strange name below ROOT: allowed, not "..". */
    if (i == sizeof bad / sizeof *bad - 1)
      CHECK(st == 0 && strchr(out, '/') != NULL && strstr(out, "..") == NULL, name);
    else
      CHECK(st == 400, name);
  }
  char longt[600];
  memset(longt, 'a', sizeof longt);
  longt[0] = '/';
  CHECK(http_path_clean(longt, sizeof longt, out, sizeof out, &dir) == 414, "too long -> 414");

  /* The Location of a directory redirect comes from the cleaned path only:
   * one leading slash, no scheme or host, escapes where needed. */
  static const struct {
    const char *target, *loc;
  } locs[] = {
      {"//evil.example/../sub", "/sub/"},
      {"http://evil.example/sub", "/sub/"},
      {"https://evil.example//sub", "/sub/"},
      {"//evil.example", "/evil.example/"},
      {"/%2f%2fevil.example/x", "/evil.example/x/"},
      {"/a/b?q=//evil", "/a/b/"},
      {"/a%20b%25c", "/a%20b%25c/"},
      {"/x%3fy%23z", "/x%3Fy%23z/"},
      {"/%0d%0aSet-Cookie:%20x", "/%0D%0ASet-Cookie:%20x/"},
      {"/caf%c3%a9", "/caf%C3%A9/"},
      {"/%5cevil", NULL}, /* a backslash never gets this far: 400 */
  };
  for (size_t i = 0; i < sizeof locs / sizeof *locs; i++) {
    char name[120], loc[64];
    int st = C(locs[i].target);
    size_t n = st == 0 ? http_location(out, loc, sizeof loc) : 0;
    snprintf(name, sizeof name, "Location for %s is %s", locs[i].target,
             locs[i].loc ? locs[i].loc : "(refused)");
    if (locs[i].loc == NULL)
      CHECK(st == 400, name);
    else
      CHECK(n == strlen(locs[i].loc) && strcmp(loc, locs[i].loc) == 0, name);
  }
  {
    char loc[8];
    CHECK(http_location("", loc, sizeof loc) == 1 && strcmp(loc, "/") == 0, "Location of ROOT is /");
    CHECK(http_location("abcdef", loc, sizeof loc) == 0, "a Location that does not fit -> 0");
    CHECK(http_location("abcde", loc, sizeof loc) == 7 && strcmp(loc, "/abcde/") == 0,
          "a Location that just fits");
    CHECK(http_location("ab c", loc, sizeof loc) == 0, "an escape that does not fit -> 0");
  }

  /* Opening: a tree with a sentinel outside ROOT and symlinks in ROOT. */
  char tmpl[] = "/tmp/http_path_test.XXXXXX";
  char *base = mkdtemp(tmpl);
  CHECK(base != NULL, "temporary directory");
  if (base == NULL) return check_done();
  char p[512], q[512];
  snprintf(p, sizeof p, "%s/root", base);
  mkdir(p, 0755);
  snprintf(p, sizeof p, "%s/root/d", base);
  mkdir(p, 0755);
  snprintf(p, sizeof p, "%s/secret", base);
  FILE *f = fopen(p, "w");
  if (f) fputs("SECRET\n", f), fclose(f);
  snprintf(p, sizeof p, "%s/root/d/f.txt", base);
  f = fopen(p, "w");
  if (f) fputs("ok\n", f), fclose(f);
  snprintf(p, sizeof p, "%s/root/out", base);
  CHECK(symlink("../secret", p) == 0, "symlink out of ROOT made");
  snprintf(p, sizeof p, "%s/root/abs", base);
  snprintf(q, sizeof q, "%s/secret", base);
  CHECK(symlink(q, p) == 0, "absolute symlink out of ROOT made");
  snprintf(p, sizeof p, "%s/root/dl", base);
  CHECK(symlink("..", p) == 0, "directory symlink to the parent made");
  snprintf(p, sizeof p, "%s/root/in", base);
  CHECK(symlink("d/f.txt", p) == 0, "symlink inside ROOT made");
  snprintf(p, sizeof p, "%s/root", base);
  int root = open(p, O_RDONLY | O_DIRECTORY);
  CHECK(root >= 0, "open ROOT");

  int fd = http_path_open(root, "d/f.txt", 0);
  CHECK(fd >= 0, "a file in ROOT opens");
  if (fd >= 0) close(fd);
  fd = http_path_open(root, "", 0);
  CHECK(fd >= 0, "ROOT itself opens");
  if (fd >= 0) close(fd);
  CHECK(http_path_open(root, "nope", 0) == -404, "missing -> 404");
  CHECK(http_path_open(root, "d/f.txt/x", 0) == -404, "file as directory -> 404");
  CHECK(http_path_open(root, "out", 0) == -403, "relative symlink out -> 403");
  CHECK(http_path_open(root, "abs", 0) == -403, "absolute symlink out -> 403");
  CHECK(http_path_open(root, "dl/secret", 0) == -403, "directory symlink out -> 403");
  fd = http_path_open(root, "out", 1);
  char buf[16] = {0};
  CHECK(fd >= 0 && read(fd, buf, sizeof buf) == 7 && strcmp(buf, "SECRET\n") == 0,
        "with follow (-L) the symlink out is served");
  if (fd >= 0) close(fd);
  fd = http_path_open(root, "in", 0);
  CHECK(fd >= 0, "symlink inside ROOT is served");
  if (fd >= 0) close(fd);
  close(root);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  CHECK(system(cmd) == 0, "cleanup");
  return check_done();
}
