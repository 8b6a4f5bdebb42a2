/* Unit tests of dltar/tar_header.c: checksums, numeric fields, names, pax. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "../../dltar/tar_header.h"

static void set_checksum(unsigned char *b) {
  unsigned sum = 0;
  memset(b + 148, ' ', 8);
  for (int i = 0; i < 512; i++) sum += b[i];
  snprintf((char *)b + 148, 8, "%06o", sum);
  b[155] = ' ';
}

static void make(unsigned char *b, const char *name, char type, const char *size_oct, int posix) {
  memset(b, 0, 512);
  memcpy(b, name, strlen(name));
  memcpy(b + 100, "0000644", 7);
  memcpy(b + 108, "0001750", 7);
  memcpy(b + 116, "0001750", 7);
  snprintf((char *)b + 124, 12, "%s", size_oct);
  memcpy(b + 136, "14000000000", 11);
  b[156] = (unsigned char)type;
  memcpy(b + 257, posix ? "ustar\0" "00" : "ustar  \0", 8);
  set_checksum(b);
}

int main(void) {
  unsigned char b[512];
  struct tar_hdr h;
  char name[600];

  make(b, "dir/file.txt", '0', "00000000017", 1);
  CHECK(tar_hdr_parse(b, &h) == TAR_HDR_OK, "a valid ustar header parses");
  CHECK(h.size == 15 && h.mode == 0644 && h.uid == 1000 && h.type == '0', "size, mode, uid decoded");
  CHECK(h.mtime == 014000000000LL, "mtime decoded");
  CHECK(tar_hdr_name(b, &h, name, sizeof name) == 12 && strcmp(name, "dir/file.txt") == 0,
        "name without prefix");

  memcpy(b + 345, "some/prefix", 11);
  set_checksum(b);
  CHECK(tar_hdr_parse(b, &h) == TAR_HDR_OK && tar_hdr_name(b, &h, name, sizeof name) > 0 &&
            strcmp(name, "some/prefix/dir/file.txt") == 0,
        "ustar prefix joined with a slash");
  CHECK(tar_hdr_name(b, &h, name, 10) == -1, "name that does not fit is refused");

  make(b, "gnu", '0', "0", 0);
  memcpy(b + 345, "junkatime", 9); /* old GNU keeps atime here */
  set_checksum(b);
  CHECK(tar_hdr_parse(b, &h) == TAR_HDR_OK && !h.ustar &&
            tar_hdr_name(b, &h, name, sizeof name) == 3,
        "GNU magic: prefix field ignored");

  b[0] ^= 1;
  CHECK(tar_hdr_parse(b, &h) == TAR_HDR_CHECKSUM, "a flipped byte fails the checksum");
  memset(b, 0, 512);
  CHECK(tar_hdr_parse(b, &h) == TAR_HDR_ZERO, "an all-zero block is the end marker");

  /* signed checksum (old tars summing signed chars) */
  make(b, "\xc3\xa9t\xc3\xa9", '0', "0", 1);
  int ssum = 0;
  memset(b + 148, ' ', 8);
  for (int i = 0; i < 512; i++) ssum += (signed char)b[i];
  snprintf((char *)b + 148, 8, "%06o", ssum);
  CHECK(tar_hdr_parse(b, &h) == TAR_HDR_OK, "signed-char checksum accepted");

  /* base-256 size of 10 GiB */
  make(b, "big", '0', "0", 0);
  memset(b + 124, 0, 12);
  b[124] = 0x80;
  unsigned long long big = 10ULL << 30;
  for (int i = 0; i < 8; i++) b[135 - i] = (unsigned char)(big >> (8 * i));
  set_checksum(b);
  CHECK(tar_hdr_parse(b, &h) == TAR_HDR_OK && h.size == big, "base-256 size of 10 GiB");

  int64_t v;
  const unsigned char neg[12] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
  CHECK(tar_num(neg, 12, 1, &v) == 0 && v == -2, "base-256 negative mtime");
  CHECK(tar_num(neg, 12, 0, &v) == -1, "negative size refused");
  CHECK(tar_num((const unsigned char *)"  17 \0", 6, 0, &v) == 0 && v == 15, "octal with blanks");
  CHECK(tar_num((const unsigned char *)"0009\0", 5, 0, &v) == -1, "non-octal digit refused");
  CHECK(tar_num((const unsigned char *)"\0\0\0\0", 4, 0, &v) == 0 && v == 0, "empty field is 0");

  make(b, "x", '0', "12x", 1);
  CHECK(tar_hdr_parse(b, &h) == TAR_HDR_FIELD, "junk in the size field is an error");

  char pax[] = "29 path=a/very/long/name.txt\n"
               "19 linkpath=target\n"
               "16 size=1234567\n"
               "30 mtime=1700000000.123456789\n"
               "12 uid=4242\n"
               "13 atime=123\n";
  struct tar_pax p = {0};
  CHECK(tar_pax_parse(pax, strlen(pax), &p) == 0, "pax records parse");
  CHECK(p.path && strcmp(p.path, "a/very/long/name.txt") == 0, "pax path");
  CHECK(p.linkpath && strcmp(p.linkpath, "target") == 0, "pax linkpath");
  CHECK(p.has_size && p.size == 1234567, "pax size");
  CHECK(p.has_mtime && p.mtime == 1700000000 && p.mtime_ns == 123456789, "pax mtime with ns");
  CHECK(p.has_uid && p.uid == 4242 && !p.has_gid, "pax uid");

  char badlen[] = "99 path=x\n";
  struct tar_pax q = {0};
  CHECK(tar_pax_parse(badlen, strlen(badlen), &q) == -1, "pax record longer than data refused");
  char nonl[] = "11 path=xy!";
  CHECK(tar_pax_parse(nonl, strlen(nonl), &q) == -1, "pax record without newline refused");
  char sparse[] = "21 GNU.sparse.size=1\n";
  memset(&q, 0, sizeof q);
  CHECK(tar_pax_parse(sparse, strlen(sparse), &q) == 0 && q.sparse, "GNU sparse noticed");

  int64_t s;
  long ns;
  CHECK(tar_pax_time("-1.25", &s, &ns) == 0 && s == -2 && ns == 750000000, "negative pax time");
  CHECK(tar_pax_time("12.5x", &s, &ns) == -1, "junk after pax time refused");
  CHECK(tar_pax_time("7", &s, &ns) == 0 && s == 7 && ns == 0, "integer pax time");
  return check_done();
}
