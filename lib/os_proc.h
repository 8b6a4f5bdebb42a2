/* The running process, on every system the tools build for (the OS layer
 * for process facts):
 *   Linux    readlink /proc/self/exe
 *   FreeBSD  sysctl kern.proc.pathname (KERN_PROC_PATHNAME) of pid -1
 *   NetBSD   sysctl kern.proc_args.<pid>.pathname (KERN_PROC_PATHNAME)
 *   OpenBSD  no way to ask: -1 (callers fall back to the working dir)
 * and its peak resident size (getrusage's ru_maxrss: kilobytes on Linux and
 * the BSDs, bytes on macOS). */
#ifndef SHOOTOUT_OS_PROC_H
#define SHOOTOUT_OS_PROC_H

#include <stddef.h>

/* The absolute path of the running executable into BUF (CAP bytes,
 * NUL-terminated).  0, or -1 when unknown or too long. */
int os_self_exe(char *buf, size_t cap);

/* The peak resident set size in KiB of this process or of any child it has
 * waited for (getrusage RUSAGE_SELF and RUSAGE_CHILDREN, the larger): what
 * the tools print as maxrss_kb.  0 when the system cannot tell. */
unsigned long long os_maxrss_kb(void);

#endif
