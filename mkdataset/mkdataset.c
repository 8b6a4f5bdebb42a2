/* mkdataset: a deterministic synthetic dataset (tarballs, manifest, request
 * list) from a profile and a seed, or from a real capture.  See docs/mkdataset.1. */
#include <errmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "fixmath.h"
#include "mkdataset.h"
#include "os_fs.h"
#include "os_proc.h"
#include "printable.h"
#include "usage.h"

static const char usage_text[] =
    "usage: mkdataset -p PROFILE [-s SEED] -o DIR [--stats FILE]\n"
        "       mkdataset -c LIST -a ACCESSLOG [-u SHARE] [-s SEED] -o DIR [--stats FILE]\n"
        "  -p PROFILE   a profile name (datasets/NAME.profile) or a profile file\n"
        "  -s SEED      the seed (default 1): same profile and seed, same bytes\n"
        "  -o DIR       output directory (created): manifest.tsv layout.tar.gz\n"
        "               update.tar.gz requests.txt dataset.txt\n"
        "  -c LIST      real capture: 'path size' lines, in layout order\n"
        "  -a ACCESSLOG real capture: access log in Common/Combined Log Format\n"
        "  -u SHARE     capture: share of the files the update replaces (default 0.01)\n"
        "  --stats FILE write figures as 'metric value unit' lines (- : standard output)\n"
        "  -h, --help   this text\n"
        "  --version    print the version\n";

static const struct tool mkdataset_tool = {"mkdataset", usage_text, NULL};

/* s escaped for a one-line message (printable.h): file names and profile
 * lines may hold a newline or ESC.  Returns buf. */
static const char *esc(char *buf, size_t cap, const char *s) {
  printable(buf, cap, s);
  return buf;
}
#define ESC(s) esc((char[PRINTABLE_SIZE(256)]){0}, PRINTABLE_SIZE(256), (s))

/* PROFILE as given if it is a file, else NAME.profile in datasets/ of the
 * working directory, else in datasets/ beside the binary's bin/. */
static const char *find_profile(const char *arg, char *buf, size_t cap) {
  if (access(arg, R_OK) == 0) return arg;
  if (strchr(arg, '/') == NULL) {
    snprintf(buf, cap, "datasets/%.200s.profile", arg);
    if (access(buf, R_OK) == 0) return buf;
    char exe[4096];
    if (os_self_exe(exe, sizeof exe) == 0) {
      for (int up = 0; up < 2; up++) {
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
      }
      if (snprintf(buf, cap, "%.3000s/datasets/%.200s.profile", exe, arg) < (int)cap &&
          access(buf, R_OK) == 0)
        return buf;
    }
  }
  die(1, "profile '", ESC(arg), "' not found (a file, or NAME for datasets/NAME.profile)");
  return NULL;
}

/* Dies, in one line saying how much is missing, unless the filesystem of
 * DIR (or of its nearest existing parent: -o may name a new directory) has
 * NEED bytes free (for a capture, what its list alone needs). */
static void check_space(const char *dir, uint64_t need) {
  char at[4096];
  uint64_t avail;
  if (snprintf(at, sizeof at, "%s", dir) >= (int)sizeof at) return;
  while (access(at, F_OK) != 0) {
    char *slash = strrchr(at, '/');
    if (slash == NULL) { strcpy(at, "."); break; }
    if (slash == at) { at[1] = '\0'; break; }
    *slash = '\0';
  }
  if (os_fs_avail(at, &avail) != 0 || avail >= need) return;
  char msg[160];
  const char *u[3] = {"MB", "GB", "TB"};
  double sc[3] = {1e6, 1e9, 1e12};
  int k = need >= 1000000000000ULL ? 2 : need >= 1000000000 ? 1 : 0;
  snprintf(msg, sizeof msg, " needs %.1f %s, its filesystem has %.1f %s free: %.1f %s missing",
           (double)need / sc[k], u[k], (double)avail / sc[k], u[k], (double)(need - avail) / sc[k], u[k]);
  die(1, ESC(dir), msg);
}

static void write_stats(const char *file, const struct totals *t, const struct emitter *e,
                        double wall) {
  struct stats_file st;
  double user, sys;
  cpu_times(&user, &sys);
  if (stats_open(&st, file) != 0) diesys(1, "cannot write ", ESC(file));
  stats_u64(&st, "files", t->files, "files");
  stats_u64(&st, "bytes", t->bytes, "B");
  stats_u64(&st, "layout_files", t->layout_files, "files");
  stats_u64(&st, "layout_bytes", t->layout_bytes, "B");
  stats_u64(&st, "layout_gz_bytes", e->t[OUT_LAYOUT].gz.packed, "B");
  stats_u64(&st, "update_files", t->update_files, "files");
  stats_u64(&st, "update_bytes", t->update_bytes, "B");
  stats_u64(&st, "update_gz_bytes", e->t[OUT_UPDATE].gz.packed, "B");
  stats_u64(&st, "requests", t->requests, "count");
  stats_f(&st, "wall_s", wall, "s");
  stats_f(&st, "user_s", user, "s");
  stats_f(&st, "sys_s", sys, "s");
  stats_f(&st, "mbps", wall > 0 ? (double)(t->layout_bytes + t->update_bytes) / 1e6 / wall : 0, "MB/s");
  if (stats_close(&st) != 0) diesys(1, "cannot write ", ESC(file));
}

int main(int argc, char **argv) {
  const char *profile = NULL, *out = NULL, *list = NULL, *log = NULL, *stats = NULL;
  uint64_t seed = 1, share = MICRO / 100;
  static const struct option longopts[] = {
      {"stats", required_argument, NULL, 'S'},
      USAGE_LONGOPTS,
  };
  errmsg_iam("mkdataset");
  int c;
  while ((c = usage_getopt(&mkdataset_tool, argc, argv, "p:s:o:c:a:u:", longopts)) != -1) {
    switch (c) {
      case 'p': profile = optarg; break;
      case 'o': out = optarg; break;
      case 'c': list = optarg; break;
      case 'a': log = optarg; break;
      case 'S': stats = optarg; break;
      case 's':
        if (parse_u64(optarg, UINT64_MAX, &seed) != 0) die(2, "-s: not a whole number: ", ESC(optarg));
        break;
      case 'u':
        if (parse_micro(optarg, MICRO, &share) != 0) die(2, "-u: want a share from 0 to 1: ", ESC(optarg));
        break;
      default: break; /* usage_getopt answered the rest */
    }
  }
  if (optind < argc)
    die(2, "unexpected argument: ", ESC(argv[optind]), " (mkdataset -h lists the options)");
  if (out == NULL) die(2, "missing -o DIR (mkdataset -h lists the options)");
  if (profile && (list || log)) die(2, "-p and -c/-a exclude each other (mkdataset -h lists the options)");
  if (!profile && !(list && log))
    die(2, "need -p PROFILE, or -c LIST with -a ACCESSLOG (mkdataset -h lists the options)");

  struct profile prof;
  if (profile) {
    /* profile.c's message quotes the file's name and line as they are; its
     * own words are printable ASCII, so escaping the whole of it escapes
     * exactly the untrusted parts. */
    char buf[4096], err[1024], safe[PRINTABLE_SIZE(1024)];
    if (profile_load(&prof, find_profile(profile, buf, sizeof buf), err, sizeof err) != 0)
      die(1, esc(safe, sizeof safe, err));
  }

  if (list && access(list, R_OK) != 0) diesys(1, "cannot read ", ESC(list));
  if (log && access(log, R_OK) != 0) diesys(1, "cannot read ", ESC(log));

  check_space(out, profile ? synth_need(&prof, seed) : capture_need(list));
  double t0 = now_mono();
  struct emitter e;
  struct totals t;
  memset(&t, 0, sizeof t);
  emit_open(&e, out, seed);
  if (profile) run_synth(&e, &prof, &t);
  else run_capture(&e, list, log, share, &t);

  emit_info(&e, "name", profile ? prof.name : "capture");
  emit_info(&e, "mode", profile ? "profile" : "capture");
  emit_info_u64(&e, "seed", seed);
  emit_info(&e, "generator", "mkdataset " SHOOTOUT_VERSION);
  emit_info_u64(&e, "files", t.files);
  emit_info_u64(&e, "bytes", t.bytes);
  emit_info_u64(&e, "layout_files", t.layout_files);
  emit_info_u64(&e, "layout_dirs", e.t[OUT_LAYOUT].dirs);
  emit_info_u64(&e, "layout_bytes", t.layout_bytes);
  emit_info_u64(&e, "update_files", t.update_files);
  emit_info_u64(&e, "update_new", t.update_new);
  emit_info_u64(&e, "update_replaced", t.update_replaced);
  emit_info_u64(&e, "update_requested", t.update_hit);
  emit_info_u64(&e, "update_bytes", t.update_bytes);
  emit_info_u64(&e, "requests", t.requests);
  emit_info_u64(&e, "requested_files", t.distinct);
  if (!profile) {
    emit_info_u64(&e, "log_lines", t.log_lines);
    emit_info_u64(&e, "log_skipped", t.log_skipped);
  }
  emit_close(&e);
  double wall = now_mono() - t0;
  if (stats) write_stats(stats, &t, &e, wall);

  printf("mkdataset: %s seed %llu: %llu files %llu bytes (update %llu files %llu bytes), "
         "%llu requests -> %s in %.2f s (%.1f MB/s)\n",
         profile ? prof.name : "capture", (unsigned long long)seed, (unsigned long long)t.files,
         (unsigned long long)t.bytes, (unsigned long long)t.update_files,
         (unsigned long long)t.update_bytes, (unsigned long long)t.requests, out, wall,
         wall > 0 ? (double)(t.layout_bytes + t.update_bytes) / 1e6 / wall : 0.0);
  return 0;
}
