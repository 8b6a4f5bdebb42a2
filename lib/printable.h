/* Making untrusted bytes safe to print: archive entry names, URLs, a
 * server's reason phrase.  A raw newline would forge a second message line
 * and ESC would drive the user's terminal, so every byte outside printable
 * ASCII is shown as \xHH, and a backslash as \\, keeping one message one
 * line. */
#ifndef SHOOTOUT_PRINTABLE_H
#define SHOOTOUT_PRINTABLE_H

#include <stddef.h>

/* Room for escaping n bytes of input with the terminating NUL. */
#define PRINTABLE_SIZE(n) (4 * (n) + 1)

/* Escapes src[0..n) into dst (size dstsz, at least 1), always
 * NUL-terminated.  Output that does not fit is cut at a whole escape and
 * ends in "..."; returns the length written (without the NUL). */
size_t printable_n(char *dst, size_t dstsz, const char *src, size_t n);

/* The same for a NUL-terminated string; NULL prints as "(null)". */
size_t printable(char *dst, size_t dstsz, const char *src);

#endif
