/* A response head and then a file's bytes on a socket, without copying the
 * file through user space, on every system the tools build for (the OS
 * layer for sendfile and corking):
 *   Linux    send(MSG_MORE) of the head, so that it waits to share a
 *            segment with the first file bytes, then sendfile(2); with
 *            more than 64 KiB behind the head, both under TCP_CORK
 *            (released before returning)
 *   FreeBSD  one sendfile(2), the head as its header (struct sf_hdtr)
 *   NetBSD, OpenBSD  no sendfile: OS_HAS_SENDFILE is 0, os_sendfile fails
 *            with ENOSYS and callers send from an mmap of the file instead
 *            (head and bytes in one writev, so no corking is needed). */
#ifndef SHOOTOUT_OS_SENDFILE_H
#define SHOOTOUT_OS_SENDFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#if defined(__linux__) || defined(__FreeBSD__)
#define OS_HAS_SENDFILE 1
#else
#define OS_HAS_SENDFILE 0
#endif

/* Sends HLEN bytes of HEAD (HLEN may be 0), then up to N (> 0) bytes of
 * file FD from offset OFF, on the non-blocking socket SOCK.  Returns the
 * bytes sent, head bytes first (fewer than HLEN + N when the socket is
 * full; 0 when the file ended before OFF), or -1 with errno set (EAGAIN:
 * nothing was sent; ENOSYS without sendfile). */
ssize_t os_sendfile(int sock, int fd, uint64_t off, size_t n, const void *head, size_t hlen);

#endif
