/* The profile parser: values, defaults, and one-line errors naming file:line and key. */
#include <string.h>

#include "check.h"
#include "../../mkdataset/profile.h"

static const char good[] =
    "# comment\n"
    "name t1\n"
    "photos 100   # trailing comment\n"
    "full.median 5000\nfull.spread 0.5\n"
    "thumb.median 700\nthumb.spread 0.25\n"
    "requests 1000\n"
    "update.replace 0.05\n";

static int parse_err(const char *text, char *err, size_t n) {
  struct profile p;
  return profile_parse(&p, text, strlen(text), "x.profile", err, n);
}

int main(void) {
  struct profile p;
  char err[512];
  CHECK(profile_parse(&p, good, sizeof good - 1, "datasets/t.profile", err, sizeof err) == 0, "a good profile parses");
  CHECK(strcmp(p.name, "t1") == 0 && p.photos == 100 && p.requests == 1000, "values are read");
  CHECK(p.full.spread_micro == 500000 && p.thumb.spread_micro == 250000 && p.replace_micro == 50000,
        "decimals are read in millionths");
  CHECK(p.fanout == 256 && p.levels == 1 && p.zipf_micro == 1000000 && p.new_photos == 0, "defaults apply");
  CHECK(p.full.min == 64 && p.full.max == 80000, "size clamps default to 64 B and 16 x median");

  CHECK(parse_err("photos 1\nbogus 3\n", err, sizeof err) != 0 && strcmp(err, "x.profile:2: bogus: unknown key") == 0,
        "unknown key: file:line: key");
  CHECK(parse_err("photos abc\n", err, sizeof err) != 0 && strstr(err, "x.profile:1: photos: want a whole number") == err,
        "bad number names line and key");
  CHECK(parse_err("photos 1\nphotos 2\n", err, sizeof err) != 0 && strstr(err, "x.profile:2: photos: given twice"),
        "duplicate key");
  CHECK(parse_err("photos 1 2\n", err, sizeof err) != 0 && strstr(err, "one value expected"), "extra value");
  CHECK(parse_err("photos\n", err, sizeof err) != 0 && strstr(err, "x.profile:1: photos: missing value"), "missing value");
  CHECK(parse_err("photos 1\n", err, sizeof err) != 0 && strstr(err, "full.median: missing"), "missing required key");
  CHECK(parse_err("photos 1\nfull.median 10\nfull.spread 9\n", err, sizeof err) != 0 && strstr(err, "x.profile:3: full.spread"),
        "out-of-range decimal");
  char bad[600];
  strcpy(bad, good);
  strcat(bad, "full.min 6000\n");
  CHECK(parse_err(bad, err, sizeof err) != 0 && strstr(err, "full.min <= full.median"), "min above median");
  strcpy(bad, good);
  strcat(bad, "huge.dirs 2\nhuge.photos 60\n");
  CHECK(parse_err(bad, err, sizeof err) != 0 && strstr(err, "huge.dirs x huge.photos"), "huge dirs larger than photos");
  CHECK(strchr(err, '\n') == NULL, "errors are one line");

  uint64_t v;
  CHECK(parse_micro("1", 3000000, &v) == 0 && v == 1000000, "parse_micro 1");
  CHECK(parse_micro("0.000001", 1000000, &v) == 0 && v == 1, "parse_micro six decimals");
  CHECK(parse_micro("0.0000001", 1000000, &v) != 0, "parse_micro refuses seven decimals");
  CHECK(parse_micro("1.5", 1000000, &v) != 0 && parse_micro("", 9, &v) != 0 && parse_micro("-1", 9, &v) != 0,
        "parse_micro refuses out of range, empty, negative");
  return check_done();
}
