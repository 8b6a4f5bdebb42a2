/* Loading the URL list and the manifest. */
#include "check.h"
#include "../../replay/manifest.h"
#include "../../replay/urllist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *xdup(const char *s) {
  char *p = malloc(strlen(s) + 1);
  strcpy(p, s);
  return p;
}

int main(void) {
  struct urllist u;
  struct manifest m;
  char err[256];
  const char *text = "/a/b.jpg\r\n# comment\n\n/c\n/d/e f\n";
  char *b = xdup(text);
  CHECK(urllist_parse(&u, b, strlen(b), err, sizeof err) == -1 && strstr(err, "line 5") != NULL,
        "a path with a blank is rejected naming its line");
  b = xdup("/a/b.jpg\r\n# comment\n\n/c\n/x?y=1");
  CHECK(urllist_parse(&u, b, strlen(b), err, sizeof err) == 0, "a good list loads");
  CHECK(u.n == 3 && strcmp(u.path[0], "/a/b.jpg") == 0 && u.len[0] == 8 && strcmp(u.path[2], "/x?y=1") == 0,
        "paths in order, CR stripped, comments and blank lines skipped, no final newline needed");
  urllist_free(&u);
  b = xdup("img/1.jpg\n");
  CHECK(urllist_parse(&u, b, strlen(b), err, sizeof err) == -1, "a path without leading '/' is rejected");
  /* a NUL cuts no line short: "/a" is not what the file says */
  static const char nul[] = "/ok\n# c\n/a\0b\n";
  b = malloc(sizeof nul);
  memcpy(b, nul, sizeof nul);
  CHECK(urllist_parse(&u, b, sizeof nul - 1, err, sizeof err) == -1 && strcmp(err, "line 3: NUL byte in URL path") == 0,
        "a NUL in a path is refused as such, naming its line");

  char path[] = "/tmp/urllist_test.XXXXXX";
  int fd = mkstemp(path);
  const char *list = "/one\n/two\n";
  CHECK(fd >= 0 && write(fd, list, strlen(list)) == (ssize_t)strlen(list), "temp file written");
  close(fd);
  CHECK(urllist_load(&u, path, err, sizeof err) == 0 && u.n == 2, "list loads from a file");
  urllist_free(&u);
  unlink(path);
  CHECK(urllist_load(&u, "/nonexistent/list", err, sizeof err) == -1 && strstr(err, "No such file"),
        "a missing file is an error with the reason");

  b = xdup("# path size crc\nimg/0a/1.jpg\t11000\tdeadbeef\nthumbs/1.jpg\t300\t00000001\r\nempty\t0\t0\n");
  CHECK(manifest_parse(&m, b, strlen(b), err, sizeof err) == 0 && m.n == 3, "manifest loads");
  uint64_t size = 1;
  CHECK(manifest_size(&m, "/img/0a/1.jpg", 13, &size) == 0 && size == 11000, "URL '/'+path finds the size");
  CHECK(manifest_size(&m, "/thumbs/1.jpg?x=1", 17, &size) == 0 && size == 300, "query string ignored");
  CHECK(manifest_size(&m, "/empty", 6, &size) == 0 && size == 0, "zero-size file");
  CHECK(manifest_size(&m, "/img/0a/2.jpg", 13, &size) == -1, "unknown path not found");
  CHECK(manifest_size(&m, "/img/0a/1.jp", 12, &size) == -1, "prefix of a path not found");
  manifest_free(&m);

  /* many entries: the hash table grows with the file */
  size_t cap = 5000 * 40, n = 0;
  b = malloc(cap);
  for (int i = 0; i < 5000; i++) n += (size_t)snprintf(b + n, cap - n, "d%d/f%d\t%d\t0\n", i % 17, i, i * 3);
  CHECK(manifest_parse(&m, b, n, err, sizeof err) == 0 && m.n == 5000, "5000 entries load");
  int all = 1;
  for (int i = 0; i < 5000; i++) {
    char url[64];
    int l = snprintf(url, sizeof url, "/d%d/f%d", i % 17, i);
    if (manifest_size(&m, url, (size_t)l, &size) != 0 || size != (uint64_t)i * 3) all = 0;
  }
  CHECK(all, "every entry found with its size");
  manifest_free(&m);

  b = xdup("a\tnot-a-number\t0\n");
  CHECK(manifest_parse(&m, b, strlen(b), err, sizeof err) == -1 && strstr(err, "line 1"), "bad size rejected naming its line");
  b = xdup("/abs\t1\t0\n");
  CHECK(manifest_parse(&m, b, strlen(b), err, sizeof err) == -1, "absolute path rejected");

  /* only the wanted lines, read from a file a line at a time */
  char mpath[] = "/tmp/manifest_test.XXXXXX";
  int mfd = mkstemp(mpath);
  FILE *f = mfd >= 0 ? fdopen(mfd, "w") : NULL;
  CHECK(f != NULL, "a temporary manifest");
  if (f == NULL) return check_done();
  fprintf(f, "# path size crc\n");
  for (int i = 0; i < 5000; i++) fprintf(f, "d%d/f%d\t%d\t0\n", i % 17, i, i * 3);
  fprintf(f, "d1/f1\t7\t0\n"); /* a later line wins */
  fclose(f);
  const char *want[] = {"/d3/f20", "/d1/f1?x=1", "/missing", "/d3/f20"};
  const uint32_t wlen[] = {7, 10, 8, 7};
  CHECK(manifest_load_wanted(&m, mpath, want, wlen, 4, err, sizeof err) == 0 && m.n == 3,
        "wanted: one entry per distinct wanted path, not per line");
  CHECK(manifest_size(&m, "/d3/f20", 7, &size) == 0 && size == 60, "wanted: the size of a wanted path");
  CHECK(manifest_size(&m, "/d1/f1", 6, &size) == 0 && size == 7, "wanted: a later line wins");
  CHECK(manifest_size(&m, "/missing", 8, &size) == -1, "wanted but not in the manifest: not found");
  CHECK(manifest_size(&m, "/d0/f0", 6, &size) == -1, "in the manifest but not wanted: not kept");
  manifest_free(&m);
  f = fopen(mpath, "w");
  if (f) {
    fprintf(f, "a\t1\t0\nb\tx\t0\n");
    fclose(f);
  }
  CHECK(manifest_load_wanted(&m, mpath, want, wlen, 1, err, sizeof err) == -1 && strstr(err, "line 2: bad size"),
        "wanted: a bad line is refused naming it, even when not wanted");
  unlink(mpath);
  CHECK(manifest_load_wanted(&m, "/nonexistent/manifest", want, wlen, 1, err, sizeof err) == -1 &&
            strstr(err, "No such file"),
        "wanted: a missing file is an error with the reason");
  return check_done();
}
