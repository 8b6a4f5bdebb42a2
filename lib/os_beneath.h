/* Opening a path below a directory without ever leaving it, on every system
 * the tools build for (the OS layer for confined lookups):
 *   Linux    openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS (5.6+);
 *            where it is missing (ENOSYS) or filtered (EPERM): the walk
 *   FreeBSD  openat(2) with O_RESOLVE_BENEATH (13+; ENOTCAPABLE said as
 *            EXDEV), once a first lookup of ".." showed the kernel refuses
 *            it (an older one would ignore the flag): else the walk
 *   others   the walk: one component at a time from the directory, each
 *            opened with os_open_dir_at (O_DIRECTORY | O_NOFOLLOW) and the
 *            last with O_NOFOLLOW; a symlink met on the way is read with
 *            readlinkat and its text spliced into the rest of the path, so
 *            the kernel never follows one itself.  ".." goes back one
 *            resolved component by walking the ones before it again from
 *            the top (never through the directory's own ".."), and fails
 *            with EXDEV at the top.  An absolute symlink is EXDEV too, as
 *            under RESOLVE_BENEATH; more than OS_BENEATH_MAXLINKS symlinks
 *            ELOOP.  On OpenBSD each directory on the way needs read
 *            permission (os_open.h), elsewhere search permission as usual.
 * Compiled with -DOS_BENEATH_WALK, Linux and FreeBSD use the walk too (for
 * testing it; `make bsdpaths`), and os_open_dir_nolinks is ENOSYS. */
#ifndef SHOOTOUT_OS_BENEATH_H
#define SHOOTOUT_OS_BENEATH_H

#define OS_BENEATH_MAXLINKS 40

/* Opens REL (relative; "" or "." is DIRFD itself) below DIRFD with FLAGS
 * (open(2) flags for the last component).  Symlinks are followed only
 * while they stay below DIRFD.  The fd, or -1 with errno set: EXDEV or
 * ELOOP for a path that would leave DIRFD or loops, else what openat says
 * (ENOENT, ENOTDIR, EACCES, ENAMETOOLONG, EMFILE, ...). */
int os_open_beneath(int dirfd, const char *rel, int flags);

/* The directory REL below DIRFD, opened for lookups (as os_open_dir_at
 * opens one name) in one call where the kernel refuses every symlink on
 * the way, inside DIRFD or not: Linux openat2 with RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS.  The fd, or -1 with errno: ELOOP a symlink on the
 * way, ENOTDIR, ENOENT, ...; ENOSYS where no such call exists (FreeBSD's
 * O_RESOLVE_BENEATH follows symlinks that stay below; an old Linux): the
 * caller walks one name at a time with os_open_dir_at. */
int os_open_dir_nolinks(int dirfd, const char *rel);

#endif
