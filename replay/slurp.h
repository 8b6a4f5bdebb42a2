/* Read a whole file (or standard input, for "-") into memory. */
#ifndef SHOOTOUT_SLURP_H
#define SHOOTOUT_SLURP_H

#include <stddef.h>

/* On success returns 0 and a malloc'd buffer of *len bytes plus a NUL
 * terminator; on failure -1 with errno set. */
int slurp(const char *path, char **buf, size_t *len);

#endif
