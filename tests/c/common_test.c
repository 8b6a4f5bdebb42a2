#include "check.h"
#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  uint64_t v;
  double d;
  CHECK(parse_u64("12345", 100000, &v) == 0 && v == 12345, "parse_u64 reads a number");
  CHECK(parse_u64("", 10, &v) == -1, "parse_u64 rejects empty");
  CHECK(parse_u64("12x", 100, &v) == -1, "parse_u64 rejects junk");
  CHECK(parse_u64("-1", 100, &v) == -1, "parse_u64 rejects negative");
  CHECK(parse_u64("101", 100, &v) == -1, "parse_u64 enforces max");
  CHECK(parse_size("64k", &v) == 0 && v == 65536, "parse_size: k is KiB");
  CHECK(parse_size("3M", &v) == 0 && v == 3u << 20, "parse_size: M is MiB");
  CHECK(parse_size("2g", &v) == 0 && v == 2ull << 30, "parse_size: g is GiB");
  CHECK(parse_size("4096", &v) == 0 && v == 4096, "parse_size: a plain number is bytes");
  CHECK(parse_size("k", &v) == -1 && parse_size("", &v) == -1 && parse_size("1x", &v) == -1,
        "parse_size rejects a bare suffix, empty and junk");
  CHECK(parse_size("17179869184g", &v) == -1, "parse_size rejects what overflows 64 bits");
  CHECK(parse_u64("99999999999999999999999", UINT64_MAX, &v) == -1, "parse_u64 rejects overflow");
  CHECK(parse_seconds("2.5", &d) == 0 && d == 2.5, "parse_seconds reads fractions");
  CHECK(parse_seconds("nan", &d) == -1, "parse_seconds rejects nan");
  CHECK(parse_seconds("-3", &d) == -1, "parse_seconds rejects negative");

  char dir[] = "/tmp/common_testXXXXXX";
  CHECK(mkdtemp(dir) != NULL, "temp dir");
  char path[256];
  snprintf(path, sizeof path, "%s/stats.tsv", dir);
  struct stats_file s;
  CHECK(stats_open(&s, path) == 0, "stats_open");
  CHECK(access(path, F_OK) != 0, "stats file appears only on close");
  stats_u64(&s, "files", 42, "files");
  stats_f(&s, "wall_s", 1.5, "s");
  CHECK(stats_close(&s) == 0, "stats_close");
  FILE *f = fopen(path, "r");
  char buf[256] = {0};
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  CHECK(strcmp(buf, "files\t42\tfiles\nwall_s\t1.5\ts\n") == 0, "stats records are metric<TAB>value<TAB>unit");
  unlink(path);

  struct stats_file bad;
  CHECK(stats_open(&bad, "/nonexistent/dir/x.tsv") == -1, "stats_open reports an unwritable path");

  /* stats_open_append: each close appends its whole block, the file made
   * the first time; a long block (many lines, past any first buffer) too */
  snprintf(path, sizeof path, "%s/each.tsv", dir);
  for (int k = 1; k <= 2; k++) {
    struct stats_file a;
    CHECK(stats_open_append(&a, path) == 0, "stats_open_append");
    stats_u64(&a, "connections", 1, "count");
    if (k == 2)
      for (int i = 0; i < 200; i++) stats_u64(&a, "lat_open_ns.b12", (uint64_t)i, "count");
    stats_f(&a, "wall_s", 0.25 * k, "s");
    CHECK(stats_close(&a) == 0, "stats_close appends");
  }
  f = fopen(path, "r");
  int lines = 0, conns = 0, walls = 0;
  char line[128];
  while (f && fgets(line, sizeof line, f) != NULL) {
    lines++;
    conns += strcmp(line, "connections\t1\tcount\n") == 0;
    walls += strcmp(line, "wall_s\t0.25\ts\n") == 0 || strcmp(line, "wall_s\t0.5\ts\n") == 0;
  }
  if (f) fclose(f);
  CHECK(lines == 204 && conns == 2 && walls == 2, "two appended blocks, every line whole");
  unlink(path);
  struct stats_file badapp;
  CHECK(stats_open_append(&badapp, "/nonexistent/dir/x.tsv") == 0, "stats_open_append opens nothing yet");
  stats_u64(&badapp, "requests", 1, "count");
  CHECK(stats_close(&badapp) == -1, "stats_close reports an unwritable append path");

  /* "-": standard output, left open after stats_close; nothing renamed */
  snprintf(path, sizeof path, "%s/stdout.tsv", dir);
  fflush(stdout);
  int saved = dup(1), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  int moved = saved >= 0 && fd >= 0 && dup2(fd, 1) == 1; /* no CHECK until it is back */
  struct stats_file out;
  int opened = moved && stats_open(&out, "-") == 0;
  if (opened) stats_u64(&out, "files", 7, "files");
  int closed = opened && stats_close(&out) == 0;
  int still = printf("after\n") > 0 && fflush(stdout) == 0;
  int back = saved >= 0 && dup2(saved, 1) == 1 && close(saved) == 0 && fd >= 0 && close(fd) == 0;
  CHECK(moved && back, "stdout into a file and back");
  CHECK(opened && closed && still, "stats_open -, stats_close - leaves stdout open");
  f = fopen(path, "r");
  n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  CHECK(strcmp(buf, "files\t7\tfiles\nafter\n") == 0, "stats - writes on standard output");
  CHECK(access("-", F_OK) != 0 && access("-.tmp", F_OK) != 0, "no file named - or -.tmp");
  unlink(path);

  struct series_file ser;
  snprintf(path, sizeof path, "%s/series.tsv", dir);
  CHECK(series_open(&ser, path, 100.0) == 0, "series_open");
  CHECK(!series_due(&ser, 100.5) && series_due(&ser, 101.0), "series_due once a second");
  series_put(&ser, 101.0, "bytes", 4096);
  CHECK(series_close(&ser) == 0, "series_close");
  f = fopen(path, "r");
  n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  CHECK(strcmp(buf, "1.000\tbytes\t4096\n") == 0, "series lines are t_s<TAB>metric<TAB>value");
  unlink(path);
  rmdir(dir);
  return check_done();
}
