/* rmtree: removes a directory tree with getdents64 (getdents on the
 * BSDs) and unlinkat, without following symlinks, crossing mount points
 * (unless asked) or limits on depth and path length; prints one summary
 * line. */
#include "common.h"
#include "delete.h"
#include "os_proc.h"
#include "printable.h"
#include "usage.h"

#include <errmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: rmtree [-x | --one-file-system | --cross-mounts] [--stats FILE] [--series FILE] DIR\n"
        "  Removes DIR and everything below it, depth-first, never following\n"
        "  symbolic links.  Other filesystems mounted below DIR are left alone\n"
        "  (-x, --one-file-system: the default) unless --cross-mounts is given.\n"
        "  Refuses / and the current root.\n"
        "  --stats FILE   write files, dirs, errors, wall_s, user_s, sys_s, maxrss_kb as\n"
        "                 metric<TAB>value<TAB>unit lines (- : standard output)\n"
        "  --series FILE  write the files removed per second\n"
        "  -h, --help     this text\n"
        "  --version      print the version\n"
        "Exit status: 0 DIR is gone, 1 something was left (errors are reported),\n"
        "2 usage error or DIR refused or not opened.\n";

static const struct tool rmtree_tool = {"rmtree", usage_text, NULL};

/* A file name from the command line, escaped for a one-line message. */
static void cannot_write(int code, const char *path) {
  char q[PRINTABLE_SIZE(512)];
  printable(q, sizeof q, path);
  diesys(code, "cannot write ", q);
}

struct ticker {
  struct series_file s;
  uint64_t last_files;
};

static void tick(void *arg, const struct rm_counts *c) {
  struct ticker *t = arg;
  double now = now_mono();
  if (!series_due(&t->s, now)) return;
  series_put(&t->s, now, "files", (double)(c->files - t->last_files));
  t->last_files = c->files;
}

int main(int argc, char **argv) {
  static const struct option longopts[] = {
      {"stats", required_argument, 0, 'S'},     {"series", required_argument, 0, 'E'},
      {"one-file-system", no_argument, 0, 'x'}, {"cross-mounts", no_argument, 0, 'C'},
      USAGE_LONGOPTS};
  const char *stats = NULL, *series = NULL;
  struct rm_opts o;
  struct rm_counts c;
  struct ticker t;
  int ch;

  errmsg_iam("rmtree");
  memset(&o, 0, sizeof o);
  memset(&c, 0, sizeof c);
  memset(&t, 0, sizeof t);
  while ((ch = usage_getopt(&rmtree_tool, argc, argv, "x", longopts)) != -1) {
    switch (ch) {
    case 'x': o.cross_mounts = 0; break;
    case 'C': o.cross_mounts = 1; break;
    case 'S': stats = optarg; break;
    case 'E': series = optarg; break;
    default: break; /* usage_getopt answered the rest */
    }
  }
  if (optind != argc - 1)
    die(2, optind >= argc ? "missing DIR" : "one DIR at a time", " (rmtree -h lists the options)");
  const char *dir = argv[optind];
  double t0 = now_mono();
  if (series) {
    if (series_open(&t.s, series, t0) != 0) cannot_write(2, series);
    o.tick = tick;
    o.tick_arg = &t;
  }
  int rc = rm_tree(dir, &o, &c);
  double wall = now_mono() - t0;
  if (series) {
    if (c.files != t.last_files) series_put(&t.s, now_mono(), "files", (double)(c.files - t.last_files));
    if (series_close(&t.s) != 0) cannot_write(1, series);
  }
  if (rc == 2) return 2;
  printf("rmtree: %llu files, %llu dirs removed in %.3f s%s", (unsigned long long)c.files,
         (unsigned long long)c.dirs, wall, c.errors ? "" : "\n");
  if (c.errors) printf(", %llu left (see above)\n", (unsigned long long)c.errors);
  fflush(stdout);
  if (stats) {
    struct stats_file s;
    double user_s, sys_s;
    if (stats_open(&s, stats) != 0) cannot_write(1, stats);
    cpu_times(&user_s, &sys_s);
    stats_u64(&s, "files", c.files, "files");
    stats_u64(&s, "dirs", c.dirs, "dirs");
    stats_u64(&s, "errors", c.errors, "count");
    stats_f(&s, "wall_s", wall, "s");
    stats_f(&s, "user_s", user_s, "s");
    stats_f(&s, "sys_s", sys_s, "s");
    stats_u64(&s, "maxrss_kb", os_maxrss_kb(), "KiB");
    if (stats_close(&s) != 0) cannot_write(1, stats);
  }
  return rc;
}
