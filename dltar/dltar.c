/* dltar: download (or read), gunzip and untar in one process. */
#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "gunzip_stream.h"
#include "http_conn.h"
#include "os_cache.h"
#include "os_proc.h"
#include "pipeline.h"
#include "printable.h"
#include "tar_extract.h"
#include "url.h"
#include "usage.h"
#include "xfer.h"

#define IN_BUF (256 * 1024)

static const char usage_text[] =
    "usage: dltar [-C DIR] [-o] [--stats FILE] [--series FILE] [--threads 1|2]\n"
        "             [--connect-timeout SECS] [--timeout SECS] [--max-time SECS] SOURCE\n"
        "Extract a tar archive (gzip-compressed or not) from SOURCE into DIR.\n"
        "SOURCE: http://host[:port]/path, a file, or - for standard input.\n"
        "  -C DIR              extract into DIR (default: .); it must exist\n"
        "  -o, --same-owner    restore owners, and setuid/setgid bits (root only)\n"
        "  --stats FILE        write metric<TAB>value<TAB>unit lines to FILE (- : stdout)\n"
        "  --series FILE       write a per-second series of tool_bytes and tool_files\n"
        "  --threads N         1: one thread; 2: one thread downloads and inflates\n"
        "                      gzip input, another extracts (default: 2 with two\n"
        "                      or more CPUs online, else 1; a static build: 1)\n"
        "  --connect-timeout S seconds to wait for a TCP connection (default 10)\n"
        "  --timeout S         fail when S seconds of waiting for input bring less\n"
        "                      than 64 KiB (default 60; HTTP, pipes, devices)\n"
        "  --max-time S        fail when the whole run takes longer than S seconds\n"
        "                      (default: no limit)\n"
        "  -h, --help          this text\n"
        "  --version           print the version and the inflater (isal or zlib)\n"
        "Exit status: 0 extracted; 1 a download, read or extraction error;\n"
        "2 usage error or an unsupported URL.\n";

static void version_more(void) { printf("inflater: %s\n", gz_inflater()); }
static const struct tool dltar_tool = {"dltar", usage_text, version_more};

struct source {
  int fd;
  int is_http;
  struct http http;
  const char *name; /* escaped, for messages */
  struct xfer *x;
  void *map; /* a regular file, mapped */
  size_t maplen;
};

static ssize_t source_read(void *ctx, char *buf, size_t cap) {
  struct source *s = ctx;
  if (s->is_http) return http_read(&s->http, buf, cap);
  ssize_t r = xfer_read(s->x, s->fd, buf, cap, s->name);
  if (r < 0) diesys(1, s->name, ": read");
  return r;
}

/* shown: arg escaped for messages. */
static void open_source(struct source *s, const char *arg, const char *shown, double cto,
                        struct xfer *x) {
  memset(s, 0, sizeof *s);
  s->name = shown;
  s->x = x;
  char scheme[32];
  if (url_scheme(arg, scheme, sizeof scheme) && strcasecmp(scheme, "http") != 0)
    die(2, "unsupported URL scheme ", scheme, " (dltar fetches http:// only)");
  if (strncasecmp(arg, "http://", 7) == 0) {
    s->is_http = 1;
    http_open(&s->http, arg, shown, cto, x);
  } else if (strcmp(arg, "-") == 0) {
    s->fd = 0;
    s->name = "standard input";
  } else {
    s->fd = open(arg, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0) diesys(1, "cannot open ", shown);
    (void)os_fadvise_sequential(s->fd); /* a hint; none on OpenBSD */
    struct stat sb;
    if (fstat(s->fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
      void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, s->fd, 0);
      if (m != MAP_FAILED) { /* zlib reads the file in place; else read() it */
        (void)madvise(m, (size_t)sb.st_size, MADV_SEQUENTIAL);
        s->map = m;
        s->maplen = (size_t)sb.st_size;
      }
    }
  }
}

int main(int argc, char **argv) {
  errmsg_iam("dltar");
  const char *dir = ".", *stats_path = NULL, *series_path = NULL;
  double cto = 10, rto = 60, maxt = 0;
  int same_owner = 0, threads = PIPELINE_WORKS && sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
  enum { O_STATS = 256, O_SERIES, O_CTO, O_RTO, O_MAXT, O_THREADS };
  static const struct option lo[] = {
      {"same-owner", no_argument, 0, 'o'}, {"stats", required_argument, 0, O_STATS},
      {"series", required_argument, 0, O_SERIES}, {"connect-timeout", required_argument, 0, O_CTO},
      {"timeout", required_argument, 0, O_RTO}, {"max-time", required_argument, 0, O_MAXT},
      {"threads", required_argument, 0, O_THREADS}, USAGE_LONGOPTS};
  char shown[1024]; /* a command-line argument escaped for a message */
  int c;
  while ((c = usage_getopt(&dltar_tool, argc, argv, "C:o", lo)) != -1) {
    switch (c) {
    case 'C': dir = optarg; break;
    case 'o': same_owner = 1; break;
    case O_STATS: stats_path = optarg; break;
    case O_SERIES: series_path = optarg; break;
    case O_CTO:
      if (parse_seconds(optarg, &cto) != 0 || cto <= 0)
        die(2, "bad --connect-timeout: ", (printable(shown, sizeof shown, optarg), shown));
      break;
    case O_RTO:
      if (parse_seconds(optarg, &rto) != 0 || rto <= 0)
        die(2, "bad --timeout: ", (printable(shown, sizeof shown, optarg), shown));
      break;
    case O_MAXT:
      if (parse_seconds(optarg, &maxt) != 0 || maxt <= 0)
        die(2, "bad --max-time: ", (printable(shown, sizeof shown, optarg), shown));
      break;
    case O_THREADS:
      if (strcmp(optarg, "1") != 0 && strcmp(optarg, "2") != 0)
        die(2, "bad --threads (1 or 2): ", (printable(shown, sizeof shown, optarg), shown));
      threads = optarg[0] - '0';
      if (threads == 2 && !PIPELINE_WORKS)
        die(2, "--threads 2: this static build (dietlibc) has no working threads: use the dynamic dltar");
      break;
    default: break; /* usage_getopt answered the rest */
    }
  }
  if (optind != argc - 1)
    die(2, optind == argc ? "missing SOURCE" : "one SOURCE at a time", " (dltar -h lists the options)");
  if (same_owner && geteuid() != 0) die(2, "-o/--same-owner needs root");

  double t0 = now_mono();
  int rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0) diesys(1, "cannot open -C ", (printable(shown, sizeof shown, dir), shown));
  struct stats_file sf = {0};
  if (stats_path && stats_open(&sf, stats_path) != 0)
    diesys(1, "cannot write ", (printable(shown, sizeof shown, stats_path), shown));
  struct series_file ser = {0};
  if (series_path && series_open(&ser, series_path, t0) != 0)
    diesys(1, "cannot write ", (printable(shown, sizeof shown, series_path), shown));

  /* As root, archive modes are exact (as GNU tar does for root); directories
   * created on the way get 0777 minus the caller's umask either way. */
  mode_t um = umask(0);
  if (geteuid() != 0) umask(um);
  struct tx_opts o = {.same_owner = same_owner, .dirmode = 0777 & ~um,
                      .series = series_path ? &ser : NULL};

  static unsigned char inbuf[IN_BUF];
  struct xfer x;
  xfer_init(&x, rto, maxt, t0);
  static char src_shown[PRINTABLE_SIZE(256)];
  printable(src_shown, sizeof src_shown, argv[optind]);
  struct source src;
  open_source(&src, argv[optind], src_shown, cto, &x);
  struct gz g;
  gz_init(&g, source_read, &src, src.name, inbuf, sizeof inbuf);
  if (src.map) gz_map(&g, src.map, src.maplen);
  struct tx_stats st = {0};
  /* two threads pay off for gzip input: inflating is the work to overlap */
  struct pipeline pl;
  int piped = threads == 2 && gz_detect(&g);
  if (piped) {
    pipeline_start(&pl, &g);
    o.in = &pl.in;
  }
  tar_extract(&g, rootfd, &o, &st);
  if (piped) pipeline_end(&pl);
  gz_end(&g);
  if (src.is_http) http_close(&src.http);
  if (src.map) munmap(src.map, src.maplen);
  if (!src.is_http && src.fd > 0) close(src.fd);
  close(rootfd);

  double wall = now_mono() - t0, us, ss;
  cpu_times(&us, &ss);
  double mbps = wall > 0 ? (double)st.bytes / 1e6 / wall : 0;
  if (series_path) {
    series_put(&ser, now_mono(), "tool_bytes", (double)st.bytes);
    series_put(&ser, now_mono(), "tool_files", (double)st.files);
    if (series_close(&ser) != 0) diesys(1, "writing ", (printable(shown, sizeof shown, series_path), shown));
  }
  if (stats_path) {
    stats_u64(&sf, "files", st.files, "files");
    stats_u64(&sf, "dirs", st.dirs, "dirs");
    stats_u64(&sf, "links", st.links, "count");
    stats_u64(&sf, "bytes", st.bytes, "B");
    stats_u64(&sf, "input_bytes", g.in_bytes, "B");
    stats_f(&sf, "wall_s", wall, "s");
    stats_f(&sf, "user_s", us, "s");
    stats_f(&sf, "sys_s", ss, "s");
    stats_u64(&sf, "maxrss_kb", os_maxrss_kb(), "KiB");
    stats_f(&sf, "mbps", mbps, "MB/s");
    stats_text(&sf, "inflater", gz_is_gzip(&g) ? gz_inflater() : "none");
    stats_u64(&sf, "threads", piped ? 2 : 1, "threads");
    stats_f(&sf, "files_per_s", wall > 0 ? (double)st.files / wall : 0, "files/s");
    if (stats_close(&sf) != 0) diesys(1, "writing ", (printable(shown, sizeof shown, stats_path), shown));
  }
  printf("dltar: %llu files, %llu dirs, %llu links, %llu bytes in %.3f s (%.1f MB/s)\n",
         (unsigned long long)st.files, (unsigned long long)st.dirs, (unsigned long long)st.links,
         (unsigned long long)st.bytes, wall, mbps);
  if (fflush(stdout) != 0) return 1;
  return 0;
}
