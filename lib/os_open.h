/* Directory handles for lookups only, on every system the tools build for
 * (the OS layer for opening directories):
 *   Linux    O_PATH: the directory's own permission bits do not matter
 *            (what is done in it is checked when it is done)
 *   FreeBSD  O_SEARCH (= O_EXEC): search permission on the directory
 *   NetBSD   O_SEARCH, which there modifies a read-only open: read
 *            permission on the directory
 *   OpenBSD  no O_SEARCH: O_RDONLY, read permission on the directory
 * Always with O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC and NAME one component
 * (a '/' in it is EINVAL), so no symlink is ever followed, on the way nor
 * at the end.  A symlink fails with ELOOP everywhere (Linux's O_PATH says
 * ENOTDIR, FreeBSD EMLINK, NetBSD EFTYPE: each is mapped). */
#ifndef SHOOTOUT_OS_OPEN_H
#define SHOOTOUT_OS_OPEN_H

/* Opens NAME in DIRFD as a directory fd for the *at calls.  Returns the fd,
 * or -1 with errno set (ELOOP: NAME is a symlink; ENOTDIR: not a
 * directory). */
int os_open_dir_at(int dirfd, const char *name);

#endif
