/* lib/lathist.c: httpd's per-request log2 histograms put each time in its
 * bucket, count every one, sum over processes and write the --stats lines
 * docs/formats.md names. */
#include "check.h"
#include "../../lib/lathist.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  CHECK(lathist_bucket(0) == 0 && lathist_bucket(1) == 0, "0 and 1 ns go to bucket 0");
  CHECK(lathist_bucket(2) == 1 && lathist_bucket(3) == 1, "2..3 ns go to bucket 1");
  CHECK(lathist_bucket(1023) == 9 && lathist_bucket(1024) == 10, "bucket k is [2^k, 2^(k+1))");
  CHECK(lathist_bucket(UINT64_MAX) == LATHIST_NB - 1, "the longest times land in the last bucket");

  static struct lathist h, g, sum;
  lathist_add(&h, 1000, 1000 + 5000);  /* 5000 ns: bucket 12 */
  lathist_add(&h, 1000, 1000 + 5000);
  lathist_add(&h, 2000, 1000);         /* the clock went back: 0 */
  CHECK(h.n == 3 && h.b[12] == 2 && h.b[0] == 1, "each time counted once, in its bucket");
  lathist_add(&g, 0, 1u << 20);
  lathist_sum(&sum, &h);
  lathist_sum(&sum, &g);
  CHECK(sum.n == 4 && sum.b[12] == 2 && sum.b[20] == 1, "sums add counts and buckets");

  uint64_t a = lathist_now(), b = lathist_now();
  CHECK(a != 0 && b >= a, "the clock is monotonic and never 0");

  char path[] = "/tmp/lathist_test.XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "a temporary file");
  if (fd < 0) return check_done();
  close(fd);
  struct stats_file f;
  CHECK(stats_open(&f, path) == 0, "stats file opens");
  lathist_stats(&f, "lat_open_ns", &sum);
  CHECK(stats_close(&f) == 0, "stats file closes");
  char buf[512] = {0};
  FILE *in = fopen(path, "r");
  size_t n = in ? fread(buf, 1, sizeof buf - 1, in) : 0;
  if (in) fclose(in);
  unlink(path);
  buf[n] = '\0';
  CHECK(strcmp(buf, "lat_open_ns.n\t4\tcount\nlat_open_ns.b0\t1\tcount\n"
                    "lat_open_ns.b12\t2\tcount\nlat_open_ns.b20\t1\tcount\n") == 0,
        "the stats lines: the count, then the non-empty buckets");
  return check_done();
}
