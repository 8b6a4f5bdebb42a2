/* httpd: the static file server under test.  Options, listening sockets,
 * privileges and limits; then one event loop, or -N of them. */
#include "server.h"

#include <errmsg.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "compat.h"
#include "os_sendfile.h"
#include "printable.h"
#include "usage.h"

/* An argument as a message shows it: escaped, one line (printable.h). */
#define SHOWN(buf, x) (printable((buf), sizeof(buf), (x)), (buf))

static const char usage_text[] =
    "usage: httpd -r ROOT [-i ADDR]... [-p PORT] [-N PROCS [--reuseport]] [-m sendfile|mmap]\n"
    "             [-q] [-t SECS] [-k REQS] [-u USER] [-L] [--stats FILE]\n"
    "       httpd -1 -r ROOT [-m MODE] [-q] [-t SECS] [-k REQS] [-u USER] [-L]\n"
    "             [--stats FILE | --stats-append FILE]\n"
    "  -r ROOT    serve the files below ROOT (required)\n"
    "  -1         one connection, already open (tcpserver, inetd): requests on\n"
    "             fd 0, answers on fd 1, the access log on fd 2; exit at its end\n"
    "  -i ADDR    listen on this IPv4 or IPv6 address (repeatable; default ::,\n"
    "             dual-stack, or 0.0.0.0 where IPv6 is missing)\n"
    "  -p PORT    TCP port (default 8000)\n"
    "  -N PROCS   fork PROCS processes that accept on the same listening\n"
    "             socket(s), opened before the fork (default 1)\n"
    "  --reuseport  with -N: each process its own listening socket(s), bound\n"
    "             with SO_REUSEPORT (the kernel spreads the connections over\n"
    "             them); one shared socket where the system cannot\n"
    "  -m MODE    sendfile (default) or mmap: how file bytes are sent;\n"
    "             NetBSD and OpenBSD have no sendfile: mmap only there\n"
    "  -q         no access log\n"
    "  -t SECS    idle and stall timeout per connection (default 30)\n"
    "  -k REQS    requests per keep-alive connection (default 1000, 0 no limit)\n"
    "  -u USER    drop privileges to USER after binding\n"
    "  -L         follow symlinks that point out of ROOT\n"
    "  --stats FILE  write the counters as metric/value/unit lines at exit\n"
    "             (accept(2)'s errors by errno among them; with -N, each child's)\n"
    "  --stats-append FILE  with -1: append them to FILE as one block, in one\n"
    "             write, so that the processes of a super-server sharing FILE\n"
    "             each add theirs (harness/fork-server.sh sums them)\n"
    "  -h, --help this text\n"
    "  --version  print the version\n"
    "Exit status: 0 after SIGTERM or SIGINT; 1 ROOT not opened, a socket not\n"
    "bound or -u failed; 2 usage error (a missing -r, a bad option or value).\n";

static const struct tool httpd_tool = {"httpd", usage_text, NULL};

static void drop_privileges(const char *user) {
  char e[256];
  struct passwd *pw = getpwnam(user);
  if (pw == NULL) die(1, "-u: no such user: ", SHOWN(e, user));
  if (setgroups(1, &pw->pw_gid) != 0) diesys(1, "-u ", SHOWN(e, user), ": setgroups");
  if (setgid(pw->pw_gid) != 0) diesys(1, "-u ", SHOWN(e, user), ": setgid");
  if (setuid(pw->pw_uid) != 0) diesys(1, "-u ", SHOWN(e, user), ": setuid");
  if (pw->pw_uid != 0 && setuid(0) == 0) die(1, "-u ", SHOWN(e, user), ": could regain root");
}

/* Raise the soft fd limit to the hard one; each connection may hold two
 * descriptors (socket and file), and a few are kept for the rest. */
static size_t raise_nofile(int nlisten) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) diesys(1, "getrlimit");
  rlim_t want = rl.rlim_max;
  if (want == RLIM_INFINITY || want > (1u << 20)) want = 1u << 20;
  if (rl.rlim_cur < want) {
    rl.rlim_cur = want;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) getrlimit(RLIMIT_NOFILE, &rl);
  }
  rlim_t reserve = 16 + (rlim_t)nlisten;
  if (rl.rlim_cur <= reserve + 2) die(1, "file descriptor limit too low");
  return (size_t)((rl.rlim_cur - reserve) / 2);
}

int main(int argc, char **argv) {
  errmsg_iam("httpd");
  static const struct option longopts[] = {{"stats", required_argument, NULL, 'S'},
                                           {"stats-append", required_argument, NULL, 'A'},
                                           {"reuseport", no_argument, NULL, 'R'}, USAGE_LONGOPTS};
  const char *root = NULL, *user = NULL, *stats = NULL, *addrs[HTTPD_MAX_LISTEN];
  int naddr = 0, opt, one = 0, listen_opt = 0, reuseport = 0, append = 0;
  char e[256];
  uint64_t port = 8000, procs = 1, reqs = 1000;
  struct server s;
  memset(&s, 0, sizeof s);
  s.pwatch = -1;
  s.timeout = 30;
  s.use_mmap = !OS_HAS_SENDFILE;
  while ((opt = usage_getopt(&httpd_tool, argc, argv, "1r:i:p:N:m:qt:k:u:L", longopts)) != -1) {
    switch (opt) {
    case '1': one = 1; break;
    case 'r': root = optarg; break;
    case 'i':
      if (naddr == HTTPD_MAX_LISTEN) die(2, "-i: at most 8 addresses");
      addrs[naddr++] = optarg;
      break;
    case 'p':
      listen_opt = 1;
      if (parse_u64(optarg, 65535, &port) != 0) die(2, "-p: not a port number: ", SHOWN(e, optarg));
      break;
    case 'N':
      listen_opt = 1;
      if (parse_u64(optarg, 4096, &procs) != 0 || procs == 0)
        die(2, "-N: not a process count (1..4096): ", SHOWN(e, optarg));
      break;
    case 'm':
      if (strcmp(optarg, "mmap") == 0) s.use_mmap = 1;
      else if (strcmp(optarg, "sendfile") == 0 && !OS_HAS_SENDFILE)
        die(2, "-m sendfile: this system has no sendfile(2), only -m mmap");
      else if (strcmp(optarg, "sendfile") == 0) s.use_mmap = 0;
      else die(2, "-m: expected sendfile or mmap, not ", SHOWN(e, optarg));
      break;
    case 'q': s.quiet = 1; break;
    case 't':
      if (parse_seconds(optarg, &s.timeout) != 0 || s.timeout <= 0)
        die(2, "-t: not a positive number of seconds: ", SHOWN(e, optarg));
      break;
    case 'k':
      if (parse_u64(optarg, 1u << 30, &reqs) != 0) die(2, "-k: not a request count: ", SHOWN(e, optarg));
      break;
    case 'u': user = optarg; break;
    case 'L': s.follow = 1; break;
    case 'S':
    case 'A':
      if (stats != NULL) die(2, "--stats and --stats-append: give one of them, once");
      stats = optarg, append = opt == 'A';
      break;
    case 'R': reuseport = 1, listen_opt = 1; break;
    default: break; /* usage_getopt answered the rest */
    }
  }
  if (optind < argc) die(2, "unexpected argument: ", SHOWN(e, argv[optind]));
  if (root == NULL) die(2, "-r ROOT is required (httpd -h lists the options)");
  s.max_requests = (unsigned)reqs;
  s.rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (s.rootfd < 0) diesys(1, "ROOT ", SHOWN(e, root));
  if (one) { /* oneconn.c: no sockets of our own */
    if (naddr > 0 || listen_opt)
      die(2, "-1 serves the connection on fd 0 and 1: no -i, -p, -N or --reuseport");
    if (stats != NULL && strcmp(stats, "-") == 0)
      die(2, "--stats", append ? "-append" : "", " -: with -1, standard output is the connection (give a file)");
    outfd_open(&s.err, 2);
    if (user != NULL) drop_privileges(user);
    int rc = oneconn_run(&s, stats, append);
    outfd_close(&s.err);
    return rc;
  }

  if (append) die(2, "--stats-append is for -1 (a process per connection); a server writes --stats FILE");
  /* Before the sockets: with -N there may be one per address and child. */
  s.max_conns = raise_nofile(naddr > 0 ? naddr : 1);
  char ps[8];
  snprintf(ps, sizeof ps, "%u", (unsigned)port);
  struct listeners ls;
  memset(&ls, 0, sizeof ls);
  /* As the method did: one socket, opened before the fork, on which every
   * child accepts; --reuseport: one per child. */
  int shared = procs == 1 || !reuseport;
  if (naddr == 0) {
    int fd = listen_add(&ls, "::", (unsigned)port, 1, shared);
    if (fd < 0 && (errno == EAFNOSUPPORT || errno == EADDRNOTAVAIL))
      fd = listen_add(&ls, "0.0.0.0", (unsigned)port, 0, shared);
    if (fd < 0) diesys(1, "cannot listen on [::]:", ps);
  }
  for (int i = 0; i < naddr; i++) {
    int fd = listen_add(&ls, addrs[i], (unsigned)port, strcmp(addrs[i], "::") == 0, shared);
    if (fd == -2) die(1, "-i: not an IPv4 or IPv6 address: ", SHOWN(e, addrs[i]));
    if (fd < 0) diesys(1, "cannot listen on ", SHOWN(e, addrs[i]), " port ", ps);
  }
  if (!shared) listen_groups(&ls, (unsigned)procs);
  s.ls = &ls;
  s.nlisten = ls.n;
  memcpy(s.lfd, ls.fd, sizeof s.lfd);
  /* Before -u: /proc/self/fd may not be ours to open after it. */
  outfd_open(&s.err, 2);
  if (!s.quiet) {
    s.log = malloc(sizeof *s.log);
    if (s.log == NULL) diesys(1, "malloc");
    s.log->len = 0;
    s.log->broken = 0;
    outfd_open(&s.log->out, 1);
  }
  if (user != NULL) drop_privileges(user);
  int rc = procs > 1 ? prefork_run(&s, (unsigned)procs, stats) : single_run(&s, stats);
  if (s.log != NULL) outfd_close(&s.log->out);
  outfd_close(&s.err);
  free(s.log);
  listen_free(&ls);
  return rc;
}
