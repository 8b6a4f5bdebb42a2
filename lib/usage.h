/* What every tool does alike with its command line (docs/building.md, "The tools' command lines"):
 * -h and --help print the usage on stdout and exit 0; --version prints
 * "NAME VERSION" and exits 0; an unknown option, or one without its value,
 * is ONE line on stderr ("NAME: unknown option --foo (NAME -h lists them)")
 * and exit 2, the status of every usage error. */
#ifndef SHOOTOUT_USAGE_H
#define SHOOTOUT_USAGE_H

#include <getopt.h>

struct tool {
  const char *name;
  const char *usage;          /* the -h text */
  void (*version_more)(void); /* prints more lines after "NAME VERSION"; or NULL */
};

/* getopt_long's value for --version; -h and --help are 'h'. */
enum { USAGE_VERSION = 0x7f00 };
/* The long options of every tool: end a tool's option table with them. */
#define USAGE_LONGOPTS                                                                             \
  {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, USAGE_VERSION}, { NULL, 0, NULL, 0 }

/* getopt_long() over SHORTOPTS (without 'h' and without a leading ':') and
 * LONGOPTS (ending in USAGE_LONGOPTS), that answers -h, --help, --version,
 * an unknown option and a missing value itself (it exits).  Returns the
 * next of the tool's own options, or -1 after the last. */
int usage_getopt(const struct tool *t, int argc, char **argv, const char *shortopts,
                 const struct option *longopts);

/* For a tool that reads its options by hand: ARG is -h/--help or --version
 * (answered: exits 0), or else ARG is refused as an unknown option (exit 2)
 * when it begins with '-'.  Returns for any other ARG. */
void usage_common(const struct tool *t, const char *arg);

/* The answers themselves. */
void usage_help(const struct tool *t) __attribute__((noreturn));
void usage_version(const struct tool *t) __attribute__((noreturn));
/* "NAME: unknown option OPT (NAME -h lists them)", exit 2. */
void usage_unknown(const struct tool *t, const char *opt) __attribute__((noreturn));

#endif
