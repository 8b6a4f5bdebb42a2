/* replay: replays a URL list against an HTTP server over many parallel
 * keep-alive connections, checks every response and reports throughput,
 * latency percentiles, failures, resets, retries and timeouts. */
#include "replay.h"
#include "url.h"

#include "printable.h"
#include "usage.h"

#include <errmsg.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage_text[] =
    "usage: replay [-c CONC] [-k PER_CONN] [-P DEPTH] [-r RETRIES] [-t SECS] [-T SECS]\n"
        "              [-M manifest.tsv] [-u URLFILE [-n COUNT] | -U PATH -n COUNT]\n"
        "              [--min-time SECS [--no-first-pass] [--slices N [--gate-in FILE --gate-out FILE]]]\n"
        "              [--stats FILE] [--series FILE]\n"
        "              HOST:PORT | http://HOST[:PORT]/\n"
        "  -c CONC       connections in parallel (default 100)\n"
        "  -k PER_CONN   requests per keep-alive connection (default 10; 1 = no keep-alive)\n"
        "  -P DEPTH      requests in flight per connection, pipelined (default 1)\n"
        "  -r RETRIES    tries again a request whose connection reset or stalled (default 3)\n"
        "  -t SECS       a connection without progress for SECS times out (default 30)\n"
        "  -T SECS, --request-timeout SECS\n"
        "                a request without its full response SECS after it was sent\n"
        "                fails as 'deadline exceeded', not retried (default 120)\n"
        "  -M FILE       check each body's size against the dataset manifest (only\n"
        "                the lines of the URLs replayed are kept)\n"
        "  -u FILE       the URL paths to request, one a line ('-' = standard input)\n"
        "  -n N          with -u: only the first N paths of the list (all if fewer)\n"
        "  -U PATH -n N  request PATH N times instead\n"
        "                (-n: N at least 1, with -u as with -U)\n"
        "  --min-time SECS\n"
        "                after the first pass (every request of it ended), go round\n"
        "                the list again until a steady window of SECS has passed: it\n"
        "                opens SECS/10 into the second pass (connections come up)\n"
        "                and closes SECS later; then no new request is sent and\n"
        "                those in flight end.  The steady_* figures are of the\n"
        "                requests that ended inside the window; wall_s, rps, mbps\n"
        "                and lat_* stay those of the first pass (as without it)\n"
        "  --no-first-pass\n"
        "                with --min-time: no first pass, the list goes round from\n"
        "                the start and the window opens SECS/10 in (a repeated\n"
        "                steady figure whose first pass is already measured):\n"
        "                no wall_s, rps, mbps, lat_* or first_* in --stats\n"
        "  --slices N    take the steady window as N slices of SECS/N (1-1000,\n"
        "                default 1): after each, no new request is sent, those in\n"
        "                flight end and the connections close; then they open\n"
        "                again, the list goes on where it stopped, and the next\n"
        "                slice opens SECS/N/10 later.  steady_s is the slices'\n"
        "                lengths added up, the steady_* figures those of the\n"
        "                requests that ended inside a slice\n"
        "  --gate-in FILE, --gate-out FILE\n"
        "                with --slices N>1, both: after slice K of N (K<N) has\n"
        "                ended, write the line 'paused K' to the gate-out file and\n"
        "                wait for one line from the gate-in file: 'go' begins the\n"
        "                next slice; anything else, end of file or an error exits\n"
        "                2 (no --stats).  Paused time is in no figure\n"
        "  --stats FILE  write the figures as metric<TAB>value<TAB>unit lines\n"
        "                (- : on standard output, after the summary)\n"
        "  --series FILE write per-second requests, bytes and errors\n"
        "  -h, --help    this text\n"
        "  --version     print the version\n"
        "HOST is a name, an IPv4 address or [IPv6]; it is resolved once.  As a URL\n"
        "(as wrk and ab take it) the port is 80 unless given, and the path is /:\n"
        "the paths requested come from -u or -U.\n"
        "Every failed request counts once, with one reason: the summary's 'failed',\n"
        "--stats' failed (the sum of its failed_* lines) and the exit status agree.\n"
        "The first failure of each reason is described on stderr.\n"
        "Exit status: 0 every request succeeded; 1 at least one request failed\n"
        "(the figures are written), or the server could not be reached at all\n"
        "(nothing is written); 2 usage error or bad input.\n";

static const struct tool replay_tool = {"replay", usage_text, NULL};

struct opts {
  const char *urlfile, *path, *manifest, *stats, *series, *target, *gate_in, *gate_out;
  uint64_t count;
  int have_count;
};

/* Untrusted text (arguments, file contents) for a message, escaped into
 * the char array E. */
#define ESC(e, s) (printable((e), sizeof(e), (s)), (e))

static unsigned num(const char *opt, const char *s, uint64_t min, uint64_t max) {
  uint64_t v;
  char e[PRINTABLE_SIZE(200)];
  if (parse_u64(s, max, &v) != 0 || v < min) die(2, "bad value for ", opt, ": ", ESC(e, s));
  return (unsigned)v;
}

static double seconds(const char *opt, const char *s) {
  double v;
  char e[PRINTABLE_SIZE(200)];
  if (parse_seconds(s, &v) != 0 || v <= 0 || v > 1e6) die(2, "bad value for ", opt, ": ", ESC(e, s));
  return v;
}

static void parse_args(int argc, char **argv, struct run *r, struct opts *o) {
  static const struct option longopts[] = {
      {"stats", required_argument, 0, 'S'}, {"series", required_argument, 0, 'E'},
      {"request-timeout", required_argument, 0, 'T'}, {"min-time", required_argument, 0, 'm'},
      {"slices", required_argument, 0, 'L'}, {"gate-in", required_argument, 0, 'I'},
      {"gate-out", required_argument, 0, 'O'}, {"no-first-pass", no_argument, 0, 'F'}, USAGE_LONGOPTS};
  int ch;
  char e[PRINTABLE_SIZE(200)];
  r->conc = 100;
  r->per_conn = 10;
  r->depth = 1;
  r->retries = 3;
  r->timeout = 30;
  r->deadline = 120;
  r->slices = 1;
  while ((ch = usage_getopt(&replay_tool, argc, argv, "c:k:P:r:t:T:M:u:U:n:", longopts)) != -1) {
    switch (ch) {
    case 'c': r->conc = num("-c", optarg, 1, 100000); break;
    case 'k': r->per_conn = num("-k", optarg, 1, UINT32_MAX); break;
    case 'P': r->depth = num("-P", optarg, 1, 1024); break;
    case 'r': r->retries = num("-r", optarg, 0, 1000000); break;
    case 't': r->timeout = seconds("-t", optarg); break;
    case 'T': r->deadline = seconds("-T", optarg); break;
    case 'M': o->manifest = optarg; break;
    case 'u': o->urlfile = optarg; break;
    case 'U': o->path = optarg; break;
    case 'n':
      if (parse_u64(optarg, UINT64_MAX / 2, &o->count) != 0) die(2, "bad value for -n: ", ESC(e, optarg));
      if (o->count == 0) /* no requests at all: not a run, with -u as with -U */
        die(2, "bad value for -n: ", ESC(e, optarg), " (at least 1; -u without -n replays the whole list)");
      o->have_count = 1;
      break;
    case 'S': o->stats = optarg; break;
    case 'E': o->series = optarg; break;
    case 'm': r->min_time = seconds("--min-time", optarg); break;
    case 'L': r->slices = num("--slices", optarg, 1, 1000); break;
    case 'I': o->gate_in = optarg; break;
    case 'O': o->gate_out = optarg; break;
    case 'F': r->no_first = 1; break;
    default: break; /* usage_getopt answered the rest */
    }
  }
  if (optind != argc - 1)
    die(2, optind >= argc ? "missing HOST:PORT" : "too many arguments", " (replay -h lists the options)");
  o->target = argv[optind];
  if (r->slices > 1 && r->min_time <= 0) die(2, "--slices needs --min-time SECS (the window it slices)");
  if (r->no_first && r->min_time <= 0) die(2, "--no-first-pass needs --min-time SECS (the window measured instead)");
  if (!!o->gate_in != !!o->gate_out) die(2, "--gate-in and --gate-out go together (give both or neither)");
  if (o->gate_in && r->slices < 2) die(2, "--gate-in/--gate-out need --slices N with N at least 2");
  if (!!o->urlfile == !!o->path) die(2, "give either -u URLFILE or -U PATH -n COUNT (replay -h lists the options)");
  if (o->path && !o->have_count) die(2, "-U PATH needs -n COUNT");
  if (o->path && !url_path_ok(o->path, strlen(o->path)))
    die(2, "-U: not a URL path (must start with '/', no blanks): ", ESC(e, o->path));
}

/* HOST:PORT, [V6]:PORT or http://HOST[:PORT][/] -> r->addr (resolved
 * once) and the Host header (HOST:PORT as given). */
static void resolve(struct run *r, const char *target) {
  char e[PRINTABLE_SIZE(300)], scheme[16];
  struct hostport hp;
  struct url u;
  const char *why, *authority = target;
  if (url_scheme(target, scheme, sizeof scheme)) {
    if (strcasecmp(scheme, "http") != 0) die(2, "unsupported URL scheme ", scheme, " (replay speaks http://)");
    if (url_parse(target, &u, &why) != 0) die(2, why, ": ", ESC(e, target));
    if (strcmp(u.path, "/") != 0)
      die(2, "a path in the target: ", ESC(e, target), " (the paths come from -u or -U; give http://HOST:PORT/)");
    hp = u.hp;
    authority = target + strlen(scheme) + 3;
    snprintf(r->host, sizeof r->host, "%.*s", (int)strcspn(authority, "/?#"), authority);
  } else {
    if (hostport_parse(target, strlen(target), NULL, &hp, &why) != 0) die(2, why, ": ", ESC(e, target));
    snprintf(r->host, sizeof r->host, "%s", target);
  }
  struct addrinfo hints, *res;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  int gerr = getaddrinfo(hp.host, hp.port, &hints, &res);
  if (gerr != 0) die(2, "cannot resolve ", ESC(e, hp.host), ": ", gai_strerror(gerr));
  memcpy(&r->addr, res->ai_addr, res->ai_addrlen);
  r->addrlen = res->ai_addrlen;
  freeaddrinfo(res);
  r->target = target;
}

int main(int argc, char **argv) {
  static struct run run; /* large (histogram, status table): not on the stack */
  struct run *r = &run;
  struct opts o;
  struct urllist urls;
  struct manifest mf;
  char err[256];
  char e1[PRINTABLE_SIZE(200)], e2[PRINTABLE_SIZE(256)];

  errmsg_iam("replay");
  memset(&o, 0, sizeof o);
  parse_args(argc, argv, r, &o);
  resolve(r, o.target);
  if (o.urlfile) {
    if (urllist_load(&urls, o.urlfile, err, sizeof err) != 0) die(2, ESC(e1, o.urlfile), ": ", ESC(e2, err));
    r->urls = &urls;
    r->total = urls.n;
    if (o.have_count && o.count < urls.n) r->total = (size_t)o.count;
  } else {
    r->single = o.path;
    r->single_len = strlen(o.path);
    r->total = o.count;
  }
  if (o.manifest) {
    /* only the lines of the URLs replayed: memory stays flat at millions of files */
    uint32_t single_len = (uint32_t)r->single_len;
    const char *const *want = o.urlfile ? urls.path : (const char *const *)&r->single;
    if (manifest_load_wanted(&mf, o.manifest, want, o.urlfile ? urls.len : &single_len,
                             o.urlfile ? r->total : 1, err, sizeof err) != 0)
      die(2, ESC(e1, o.manifest), ": ", ESC(e2, err));
    r->mf = &mf;
  }
  r->gate.in = r->gate.out = -1;
  if (o.gate_in && gate_open(&r->gate, o.gate_in, o.gate_out) != 0) exit(2);
  if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) diesys(1, "signal");
  if (run_setup(r) != 0) die(1, "out of memory");
  r->t_start = now_mono();
  if (r->no_first) { /* the steady part from the start: no first pass */
    r->steady = 1;
    r->t_first = r->t_steady = r->t_start;
  }
  if (o.series && series_open(&r->series, o.series, r->t_start) != 0) diesys(2, "cannot write ", ESC(e1, o.series));

  int rc = run_loop(r);
  r->t_end = now_mono();
  if (!r->steady) { /* one pass: the first is the whole run */
    r->t_first = r->t_end;
    r->first_done = r->finished;
    r->first_bytes = r->bytes;
  }
  gate_close(&r->gate);
  if (rc != 0) { /* nothing served, or the gate failed: no figures */
    run_free(r);
    return rc == -2 ? 2 : 1;
  }
  report_series(r, r->t_end, 1);
  if (series_close(&r->series) != 0) diesys(1, "cannot write ", ESC(e1, o.series));
  report_summary(r);
  if (o.stats && report_stats(r, o.stats) != 0) diesys(1, "cannot write ", ESC(e1, o.stats));
  run_free(r);
  if (o.urlfile) urllist_free(&urls);
  if (o.manifest) manifest_free(&mf);
  return r->failed ? 1 : 0;
}
