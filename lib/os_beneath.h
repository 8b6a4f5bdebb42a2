/* Opening a path below a directory without ever leaving it, on every system
 * the tools build for (the OS layer for confined lookups):
 *   Linux    openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS (5.6+);
 *            where it is missing (ENOSYS) or filtered (EPERM): the walk
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
 * Compiled with -DOS_BENEATH_WALK, Linux uses the walk too (for testing
 * it). */
#ifndef SHOOTOUT_OS_BENEATH_H
#define SHOOTOUT_OS_BENEATH_H

#define OS_BENEATH_MAXLINKS 40

/* Opens REL (relative; "" or "." is DIRFD itself) below DIRFD with FLAGS
 * (open(2) flags for the last component).  Symlinks are followed only
 * while they stay below DIRFD.  The fd, or -1 with errno set: EXDEV or
 * ELOOP for a path that would leave DIRFD or loops, else what openat says
 * (ENOENT, ENOTDIR, EACCES, ENAMETOOLONG, EMFILE, ...). */
int os_open_beneath(int dirfd, const char *rel, int flags);

#endif
