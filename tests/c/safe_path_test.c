/* Unit tests of dltar/safe_path.c: names, symlink targets, the fd chain. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "os_beneath.h"
#include "os_open.h"
#include "../../dltar/safe_path.h"

static int norm_is(const char *in, const char *want) {
  char out[256];
  const char *why = NULL;
  int n = sp_normalize(in, out, sizeof out, &why);
  return n >= 0 && strcmp(out, want) == 0;
}

static int norm_refused(const char *in) {
  char out[256];
  const char *why = NULL;
  return sp_normalize(in, out, sizeof out, &why) == -1 && why != NULL;
}

static int link_ok(const char *t, int depth) {
  const char *why;
  return sp_symlink_ok(t, depth, &why) == 0;
}

int main(void) {
  CHECK(norm_is("./a//b/./c/", "a/b/c"), "./, //, /./ and trailing / dropped");
  CHECK(norm_is("./", ""), "./ is the root itself");
  CHECK(norm_is("a..b/..c/d..", "a..b/..c/d.."), "dots inside names are fine");
  CHECK(norm_refused("/etc/passwd"), "absolute path refused");
  CHECK(norm_refused("../x"), "leading .. refused");
  CHECK(norm_refused("a/../../x"), ".. in the middle refused");
  CHECK(norm_refused("a/.."), "trailing .. refused");
  char tiny[4];
  const char *why;
  CHECK(sp_normalize("abcdef", tiny, sizeof tiny, &why) == -1, "too long for the buffer");
  CHECK(sp_depth("") == 0 && sp_depth("a") == 1 && sp_depth("a/b/c") == 3, "depth");

  CHECK(link_ok("b/f", 0), "relative symlink down");
  CHECK(link_ok("../x", 1), "one level up from a subdirectory");
  CHECK(!link_ok("../x", 0), "up from the root refused");
  CHECK(!link_ok("../../x", 1), "two up from depth 1 refused");
  CHECK(!link_ok("/etc", 3), "absolute target refused");
  CHECK(!link_ok("a/../..", 3), ".. after a name refused");
  CHECK(link_ok("./../b/./c", 1), ". components ignored");
  CHECK(!link_ok("", 1), "empty target refused");

  char tmpl[] = "/tmp/safe_path_test.XXXXXX";
  if (mkdtemp(tmpl) == NULL) return 1;
  int root = open(tmpl, O_RDONLY | O_DIRECTORY);
  struct sp_dirs *d = malloc(sizeof *d);
  sp_init(d, root, 0755);
  const char *leaf;
  int fd = sp_parent(d, "a/b/c/file", &leaf, &why);
  CHECK(fd >= 0 && strcmp(leaf, "file") == 0 && d->n == 3, "parents created and cached");
  int fd2 = sp_parent(d, "a/b/c/other", &leaf, &why);
  CHECK(fd2 == fd && strcmp(leaf, "other") == 0, "same directory: same fd, no lookup");
  fd = sp_parent(d, "a/bb/x", &leaf, &why);
  CHECK(fd >= 0 && d->n == 2 && strcmp(d->cur, "a/bb") == 0, "sibling 'bb' is not mistaken for 'b'");
  fd = sp_parent(d, "top", &leaf, &why);
  CHECK(fd == root && d->n == 0, "top-level name: the root fd");
  struct stat st;
  CHECK(fstatat(root, "a/b/c", &st, 0) == 0 && S_ISDIR(st.st_mode), "directories exist on disk");

  CHECK(symlinkat("/tmp", root, "lnk") == 0, "make a symlink");
  why = NULL;
  CHECK(sp_parent(d, "lnk/file", &leaf, &why) == -1 && why != NULL, "never through a symlink");
  CHECK(fstatat(root, "lnk", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode),
        "the symlink is left as it was");
  why = NULL;
  CHECK(sp_walk(root, "lnk/x", &leaf, &why) == -1 && why != NULL, "walk refuses a symlink too");
  int w = sp_walk(root, "a/b/c/file", &leaf, &why);
  CHECK(w >= 0 && w != root && strcmp(leaf, "file") == 0, "walk opens the parent");
  if (w >= 0 && w != root) close(w);
  CHECK(sp_walk(root, "nope/x", &leaf, &why) == -1, "walk does not create");
  /* A symlink that stays inside, deep in the path: RESOLVE_BENEATH alone
   * would follow it; the rule (and RESOLVE_NO_SYMLINKS) does not. */
  CHECK(symlinkat("../bb", root, "a/b/in") == 0, "make a symlink that stays inside");
  why = NULL;
  errno = 0;
  CHECK(sp_walk(root, "a/b/in/x", &leaf, &why) == -1 && why != NULL && strstr(why, "symlink"),
        "walk refuses a symlink on the way that stays inside too");
  why = NULL;
  errno = 0;
  CHECK(sp_walk(root, "a/plain-dir-missing/x", &leaf, &why) == -1 && errno == ENOENT && why == NULL,
        "walk: a missing directory is ENOENT, no policy");
  errno = 0;
  int od2 = os_open_dir_nolinks(root, "a/b/in");
  CHECK(od2 == -1 && (errno == ELOOP || errno == ENOSYS), "os_open_dir_nolinks: a symlink is ELOOP (ENOSYS: the walk's build)");
  od2 = os_open_dir_nolinks(root, "a/b/c");
#ifdef OS_BENEATH_WALK
  CHECK(od2 == -1 && errno == ENOSYS, "os_open_dir_nolinks: ENOSYS with -DOS_BENEATH_WALK");
#else
  CHECK(od2 >= 0 && fstatat(od2, "file", &st, AT_SYMLINK_NOFOLLOW) == -1 && errno == ENOENT &&
        fstatat(od2, ".", &st, 0) == 0 && S_ISDIR(st.st_mode),
        "os_open_dir_nolinks opens the directory (Linux: openat2)");
#endif
  if (od2 >= 0) close(od2);
  CHECK(fstatat(root, "nope", &st, 0) == -1, "nothing was created by walk");

  /* os_open_dir_at (lib/os_open.c), the OS layer under the chain */
  CHECK(symlinkat("a", root, "lnka") == 0, "make a symlink to a directory");
  errno = 0;
  CHECK(os_open_dir_at(root, "lnka") == -1 && errno == ELOOP, "symlink to a directory: ELOOP, not followed");
  why = NULL;
  CHECK(sp_parent(d, "lnka/file", &leaf, &why) == -1 && why && strstr(why, "symlink"),
        "the chain names the symlink on the way");
  int pl = openat(root, "plain", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  CHECK(pl >= 0 && close(pl) == 0, "make a file");
  errno = 0;
  CHECK(os_open_dir_at(root, "plain") == -1 && errno == ENOTDIR, "a file: ENOTDIR");
  errno = 0;
  CHECK(os_open_dir_at(root, "a/b") == -1 && errno == EINVAL, "a name with '/' is refused");
  int od = os_open_dir_at(root, "a");
  CHECK(od >= 0 && (fcntl(od, F_GETFD) & FD_CLOEXEC), "a directory opens, close-on-exec");
  CHECK(od >= 0 && fstatat(od, "b", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode),
        "its fd serves the *at calls");
  int mf = od >= 0 ? openat(od, "made", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) : -1;
  CHECK(mf >= 0 && close(mf) == 0 && fstatat(root, "a/made", &st, 0) == 0, "files are created through it");
  if (od >= 0) close(od);

  /* sp_entry_ok: a symlink copied elsewhere (a hard link to it) */
  CHECK(symlinkat("../../x", root, "a/b/up") == 0 && symlinkat("/etc/passwd", root, "abs") == 0,
        "make symlinks to check");
  int ab = openat(root, "a/b", O_RDONLY | O_DIRECTORY);
  why = NULL;
  CHECK(sp_entry_ok(ab, "up", 2, &why) == 0, "../../x at depth 2 stays inside");
  why = NULL;
  CHECK(sp_entry_ok(ab, "up", 0, &why) == -1 && why && strstr(why, "outside"),
        "the same symlink at the top points outside");
  why = NULL;
  CHECK(sp_entry_ok(root, "abs", 5, &why) == -1 && why != NULL, "absolute symlink refused");
  why = "x";
  CHECK(sp_entry_ok(root, "a", 0, &why) == 0 && why == NULL, "a directory is fine anywhere");
  why = "x";
  CHECK(sp_entry_ok(root, "missing", 0, &why) == -1 && why == NULL, "a missing entry: errno, no policy");
  if (ab >= 0) close(ab);
  sp_close(d);
  free(d);
  close(root);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
  if (system(cmd) != 0) return 1;
  return check_done();
}
