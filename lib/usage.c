/* The shared command-line behaviour of the tools (usage.h). */
#include "usage.h"

#include "common.h"
#include "printable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void usage_help(const struct tool *t) {
  fputs(t->usage, stdout);
  exit(fflush(stdout) == 0 ? 0 : 1);
}

void usage_version(const struct tool *t) {
  print_version(t->name);
  if (t->version_more) t->version_more();
  exit(fflush(stdout) == 0 ? 0 : 1);
}

/* "NAME: BEFORE OPT AFTER(NAME -h lists them)": OPT escaped. */
__attribute__((noreturn)) static void usage_line(const struct tool *t, const char *before, const char *opt,
                                                 const char *after) {
  char shown[PRINTABLE_SIZE(64)];
  printable(shown, sizeof shown, opt);
  fprintf(stderr, "%s: %s %s %s(%s -h lists them)\n", t->name, before, shown, after, t->name);
  exit(2);
}

void usage_unknown(const struct tool *t, const char *opt) { usage_line(t, "unknown option", opt, ""); }

void usage_common(const struct tool *t, const char *arg) {
  if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) usage_help(t);
  if (strcmp(arg, "--version") == 0) usage_version(t);
  if (arg[0] == '-') usage_unknown(t, arg);
}

/* Is A (a "--name=value" argument) the long option whose value is VAL? */
static int long_with_value(const char *a, int val, const struct option *lo) {
  size_t n = strcspn(a + 2, "=");
  if (strncmp(a, "--", 2) != 0 || a[2 + n] != '=') return 0;
  for (; lo->name; lo++)
    if (lo->val == val && strncmp(lo->name, a + 2, n) == 0) return 1;
  return 0;
}

/* The long option at argv[optind], checked here alike on every libc
 * (dietlibc's getopt_long takes an unknown one for a missing value, and
 * --help=x for --help): unknown (or an ambiguous abbreviation), a value it
 * does not take, or its value missing at the end. */
static void check_long(const struct tool *t, int argc, char **argv, const struct option *lo) {
  if (optind <= 0 || optind >= argc || strncmp(argv[optind], "--", 2) != 0 || argv[optind][2] == '\0') return;
  const char *a = argv[optind] + 2;
  size_t n = strcspn(a, "=");
  const struct option *hit = NULL;
  int hits = 0;
  for (; lo->name; lo++) {
    if (strncmp(lo->name, a, n) != 0) continue;
    hit = lo;
    if (strlen(lo->name) == n) { /* exact: no abbreviation can be ambiguous */
      hits = 1;
      break;
    }
    hits++;
  }
  char opt[64];
  snprintf(opt, sizeof opt, "--%.*s", (int)n, a);
  if (hits != 1) usage_unknown(t, opt);
  if (a[n] == '=' && hit->has_arg == no_argument) usage_line(t, "option", opt, "takes no value ");
  if (a[n] != '=' && hit->has_arg == required_argument && optind + 1 >= argc)
    usage_line(t, "option", opt, "needs a value ");
}

int usage_getopt(const struct tool *t, int argc, char **argv, const char *shortopts,
                 const struct option *longopts) {
  char opts[128], opt[64];
  /* ':' first: getopt says nothing itself and tells a missing value apart */
  snprintf(opts, sizeof opts, ":%sh", shortopts);
  opterr = 0;
  check_long(t, argc, argv, longopts);
  int c = getopt_long(argc, argv, opts, longopts, NULL);
  if (c == 'h') usage_help(t);
  if (c == USAGE_VERSION) usage_version(t);
  if (c != '?' && c != ':') return c;
  /* Which option (glibc; a long one after a non-option it permuted, or a
   * short one): a long one is the argument before optind (a missing value
   * is only ever the last argument's); a short one is optopt, which may sit
   * in the middle of a cluster (-xq). */
  const char *a = optind > 0 && optind <= argc ? argv[optind - 1] : "";
  int is_long = strncmp(a, "--", 2) == 0 && a[2] != '\0' &&
                (c == ':' || optopt == 0 || long_with_value(a, optopt, longopts));
  if (is_long)
    snprintf(opt, sizeof opt, "%.*s", (int)strcspn(a, "="), a);
  else
    snprintf(opt, sizeof opt, "-%c", optopt);
  if (c == ':') usage_line(t, "option", opt, "needs a value ");
  if (is_long && optopt != 0) usage_line(t, "option", opt, "takes no value ");
  usage_unknown(t, opt);
}
