#include "check.h"
#include "printable.h"

#include <string.h>

int main(void) {
  char out[64];
  CHECK(printable(out, sizeof out, "a/b c.txt") == 9 && strcmp(out, "a/b c.txt") == 0,
        "printable ASCII passes unchanged");
  printable(out, sizeof out, "x\n\x1b[31mfake");
  CHECK(strcmp(out, "x\\x0a\\x1b[31mfake") == 0, "newline and ESC become \\xHH");
  printable(out, sizeof out, "back\\slash");
  CHECK(strcmp(out, "back\\\\slash") == 0, "a backslash is doubled, so escapes stay unambiguous");
  printable_n(out, sizeof out, "a\0b", 3);
  CHECK(strcmp(out, "a\\x00b") == 0, "a NUL inside counted bytes is escaped");
  printable(out, sizeof out, "\xff\x7f");
  CHECK(strcmp(out, "\\xff\\x7f") == 0, "bytes 0x7f and above are escaped");
  char small[8];
  size_t n = printable(small, sizeof small, "abcdefghij");
  CHECK(n == 7 && strcmp(small, "abcd...") == 0, "long input is cut and ends in ...");
  n = printable(small, sizeof small, "\n\n\n");
  CHECK(strlen(small) == n && n < sizeof small && strstr(small, "...") != NULL,
        "a cut never splits an escape");
  n = printable(small, sizeof small, "abcdefg");
  CHECK(n == 7 && strcmp(small, "abcdefg") == 0, "input that just fits is not cut");
  printable(out, sizeof out, NULL);
  CHECK(strcmp(out, "(null)") == 0, "NULL prints as (null)");
  char one[1];
  CHECK(printable(one, 1, "abc") == 0 && one[0] == '\0', "a one-byte buffer holds the NUL only");
  return check_done();
}
