/* The ustar writer and the reproducible gzip writer. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "../../mkdataset/gz_write.h"
#include "../../mkdataset/tar_write.h"

struct mem {
  unsigned char *p;
  size_t n, cap;
};

static int mem_put(void *ctx, const void *p, size_t n) {
  struct mem *m = ctx;
  if (m->n + n > m->cap) {
    m->cap = (m->n + n) * 2;
    m->p = realloc(m->p, m->cap);
    if (m->p == NULL) return -1;
  }
  memcpy(m->p + m->n, p, n);
  m->n += n;
  return 0;
}

static int sum_ok(const unsigned char *b) {
  unsigned sum = 0;
  for (int i = 0; i < 512; i++) sum += (i >= 148 && i < 156) ? ' ' : b[i];
  return strtoul((const char *)b + 148, NULL, 8) == sum;
}

int main(void) {
  unsigned char b[512];
  CHECK(tar_ustar_header(b, "img/0a/4711.jpg", '0', 12345, 0644, 1200000000) == 0, "short path fits ustar");
  CHECK(strcmp((char *)b, "img/0a/4711.jpg") == 0, "name field holds the path");
  CHECK(memcmp(b + 124, "00000030071\0", 12) == 0, "size in octal");
  CHECK(memcmp(b + 257, "ustar\0" "00", 8) == 0, "ustar magic and version");
  CHECK(memcmp(b + 108, "0000000\0", 8) == 0 && memcmp(b + 265, "root", 5) == 0, "owner root, uid 0");
  CHECK(sum_ok(b), "header checksum is right");

  char longp[300];
  memset(longp, 'd', 120);
  strcpy(longp + 120, "/file.jpg");
  CHECK(tar_ustar_header(b, longp, '0', 1, 0644, 0) == 0, "129-byte path splits into prefix");
  CHECK(strcmp((char *)b, "file.jpg") == 0 && memcmp(b + 345, longp, 120) == 0 && b[465] == 0,
        "prefix holds the directory, name the rest");
  memset(longp, 'x', 200);
  longp[200] = '\0';
  CHECK(tar_ustar_header(b, longp, '0', 1, 0644, 0) == 1, "a 200-byte single name needs pax");

  struct mem m = {0};
  struct tarw t;
  tarw_init(&t, mem_put, &m, 1200000000);
  CHECK(tarw_dir(&t, "img") == 0, "directory entry written");
  CHECK(m.n == 512 && m.p[156] == '5' && strcmp((char *)m.p, "img/") == 0, "directory entry: type 5, trailing slash");
  CHECK(tarw_file(&t, longp, 3) == 0 && tarw_data(&t, "abc", 3) == 0, "long-named file written");
  CHECK(m.p[512 + 156] == 'x', "pax header precedes it");
  CHECK(memcmp(m.p + 1024, "210 path=", 9) == 0, "pax record carries the whole path with its length");
  CHECK(m.n == 512 * 5 && memcmp(m.p + 1536, longp, 100) == 0 && memcmp(m.p + 2048, "abc", 3) == 0,
        "then the ustar header and data padded to 512");
  CHECK(tarw_data(&t, "z", 1) != 0, "more data than the size is refused");
  CHECK(tarw_file(&t, "a", 5) == 0 && tarw_finish(&t) != 0, "finishing with a file short is refused");
  free(m.p);

  m = (struct mem){0};
  tarw_init(&t, mem_put, &m, 0);
  CHECK(tarw_file(&t, "empty", 0) == 0 && tarw_finish(&t) == 0 && m.n == 10240, "archive padded to a 10240-byte record");
  free(m.p);

  /* gzip: fixed header, round trip through zlib. */
  char tmpl[] = "/tmp/gzw_testXXXXXX";
  int fd = mkstemp(tmpl);
  struct gzw g;
  CHECK(fd >= 0 && gzw_open(&g, fd, 1) == 0, "gzip writer opens");
  unsigned char data[300000];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 7 + (i >> 9));
  CHECK(gzw_write(&g, data, sizeof data) == 0 && gzw_close(&g) == 0, "gzip stream written and closed");
  CHECK(g.raw == sizeof data && g.packed > 18, "byte counters move");
  unsigned char *z = malloc(g.packed);
  CHECK(pread(fd, z, g.packed, 0) == (ssize_t)g.packed, "read back");
  CHECK(z[0] == 0x1f && z[1] == 0x8b && z[3] == 0 && memcmp(z + 4, "\0\0\0\0", 4) == 0 && z[9] == 3,
        "gzip header: no name, mtime 0, OS Unix");
  unsigned char *back = malloc(sizeof data);
  z_stream s;
  memset(&s, 0, sizeof s);
  inflateInit2(&s, 31);
  s.next_in = z;
  s.avail_in = (uInt)g.packed;
  s.next_out = back;
  s.avail_out = sizeof data;
  CHECK(inflate(&s, Z_FINISH) == Z_STREAM_END && s.total_out == sizeof data && memcmp(back, data, sizeof data) == 0,
        "zlib inflates it to the same bytes");
  inflateEnd(&s);
  free(z);
  free(back);
  close(fd);
  unlink(tmpl);
  return check_done();
}
