/* Path safety for extraction: member names and link targets are checked
 * lexically, and every file is created relative to directory fds that were
 * opened component by component with O_NOFOLLOW, so nothing is ever
 * written through a symlink (neither one from the archive nor one that was
 * there before). */
#ifndef SHOOTOUT_SAFE_PATH_H
#define SHOOTOUT_SAFE_PATH_H

#include <stddef.h>
#include <sys/types.h>

#define SP_PATHMAX 16384
#define SP_MAXDEPTH 128

/* Normalize a member name into out: "./" and "." components and repeated
 * or trailing slashes dropped.  Returns the length (0: the root itself),
 * or -1 with *why set (absolute path, '..' component, too long). */
int sp_normalize(const char *in, char *out, size_t cap, const char **why);

/* Number of components of a normalized path ("" has 0, "a/b" has 2). */
int sp_depth(const char *norm);

/* May a symlink in a directory parent_depth levels below the root point to
 * target?  Allowed: relative targets made of leading ".." components (not
 * climbing above the root) followed by names without "..".  Returns 0, or
 * -1 with *why set. */
int sp_symlink_ok(const char *target, int parent_depth, const char **why);

/* Is the entry leaf in dirfd, a directory parent_depth levels below the
 * root, allowed there: anything but a symlink, or a symlink whose target
 * passes sp_symlink_ok at that depth?  (A hard link to a symlink copies it
 * into another directory.)  Returns 0, or -1 with *why set (the policy) or
 * with *why NULL and errno set (it could not be read). */
int sp_entry_ok(int dirfd, const char *leaf, int parent_depth, const char **why);

/* The chain of open directory fds of the last entry's parent, so that
 * entries of one directory need no lookup at all. */
struct sp_dirs {
  int root;                  /* fd of -C DIR (not owned) */
  int n;                     /* cached levels below the root */
  int fds[SP_MAXDEPTH];      /* fds[i]: component i of cur */
  size_t ends[SP_MAXDEPTH];  /* end of component i in cur */
  char cur[SP_PATHMAX];      /* parent path the chain stands for */
  mode_t dirmode;            /* mode of directories created on the way */
};

void sp_init(struct sp_dirs *d, int rootfd, mode_t dirmode);
void sp_close(struct sp_dirs *d);

/* The fd of the parent directory of the normalized, non-empty path norm,
 * creating missing directories (mode d->dirmode).  *leaf is set to the last
 * component.  Returns the fd (owned by d), or -1 with errno set and *why
 * set when the reason is a policy one (a symlink on the way). */
int sp_parent(struct sp_dirs *d, const char *norm, const char **leaf, const char **why);

/* The same without creating or caching: returns a new fd the caller closes
 * (or rootfd itself for a top-level name).  In one call where the kernel
 * refuses every symlink on the way (os_open_dir_nolinks: Linux openat2
 * with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), else one name at a time; the
 * same answers either way. */
int sp_walk(int rootfd, const char *norm, const char **leaf, const char **why);

#endif
