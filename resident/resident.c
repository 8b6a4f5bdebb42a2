/* resident: how much of a sample of files is in the page cache.  Each file
 * is mapped (never read) and mincore(2) says which of its pages are
 * resident; the harness runs it before every cold phase to prove that the
 * flush flushed.  The sample is a seeded reservoir of N regular files, from
 * a walk of DIR (names starting with '.' skipped) or from a list of paths on
 * stdin, so the same seed picks the same files on every machine. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "printable.h"
#include "prng.h"
#include "usage.h"

/* mincore's vector: unsigned char on Linux, char on the BSDs and macOS.
 * OpenBSD removed mincore: there resident says so and exits 3. */
#if defined(__OpenBSD__)
#define NO_MINCORE 1
typedef char mincore_vec;
static int mincore(void *addr, size_t len, mincore_vec *vec) {
  (void)addr, (void)len, (void)vec;
  errno = ENOSYS;
  return -1;
}
#elif defined(__linux__)
typedef unsigned char mincore_vec;
#else
typedef char mincore_vec;
#endif

#define MAX_DEPTH 64
/* An untrusted string as a message shows it: escaped, one line. */
#define SHOWN(buf, x) (printable((buf), sizeof(buf), (x)), (buf))

struct sample {
  char **paths; /* the reservoir: n slots, kept filled first */
  size_t n, seen;
  struct rng rng;
};

struct counts {
  uint64_t files, pages, resident, errors;
};

static const char usage_text[] =
    "usage: resident [-n N] [-s SEED] [DIR]\n"
        "  Maps a seeded sample of N regular files (default 1000) and counts with\n"
        "  mincore how many of their pages are in the page cache; nothing is read.\n"
        "  DIR: the files below DIR (names starting with '.' skipped); without DIR,\n"
        "  or DIR '-': the paths on stdin, one a line.\n"
        "  -n N      sample size (all files when there are fewer)\n"
        "  -s SEED   the sample's seed (default 1)\n"
        "  Prints metric<TAB>value<TAB>unit lines: files pages resident_pages\n"
        "  resident_pct errors.  Exit 0; 1 when no file could be looked at; 3 where\n"
        "  the system has no mincore (OpenBSD).\n"
        "  -h, --help  this text\n"
        "  --version   print the version\n";

static const struct tool resident_tool = {"resident", usage_text, NULL};

/* Offer one path to the reservoir (copied).  Returns -1 when out of memory. */
static int offer(struct sample *s, const char *path) {
  size_t slot = s->seen;
  s->seen++;
  if (slot >= s->n) {
    slot = (size_t)(rng_next(&s->rng) % s->seen);
    if (slot >= s->n) return 0;
  }
  char *copy = strdup(path);
  if (copy == NULL) return -1;
  free(s->paths[slot]);
  s->paths[slot] = copy;
  return 0;
}

/* Every regular file below DIR (path in buf, len bytes used) into the sample. */
static int walk(struct sample *s, char *buf, size_t len, size_t cap, int depth) {
  char shown[512];
  DIR *d = opendir(buf);
  if (d == NULL) {
    fprintf(stderr, "resident: cannot open directory %s: %s\n", SHOWN(shown, buf),
            strerror(errno));
    return -1;
  }
  int rc = 0;
  struct dirent *e;
  errno = 0;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    size_t nl = strlen(e->d_name);
    if (len + 1 + nl + 1 > cap) {
      buf[len] = '\0';
      fprintf(stderr, "resident: path too long below %s\n", SHOWN(shown, buf));
      rc = -1;
      break;
    }
    buf[len] = '/';
    memcpy(buf + len + 1, e->d_name, nl + 1);
    struct stat st;
    if (lstat(buf, &st) != 0) {
      fprintf(stderr, "resident: cannot stat %s: %s\n", SHOWN(shown, buf),
              strerror(errno));
      rc = -1;
    } else if (S_ISDIR(st.st_mode)) {
      if (depth >= MAX_DEPTH) {
        fprintf(stderr, "resident: more than %d levels below the top at %s\n", MAX_DEPTH,
                SHOWN(shown, buf));
        rc = -1;
      } else {
        rc = walk(s, buf, len + 1 + nl, cap, depth + 1);
      }
    } else if (S_ISREG(st.st_mode) && offer(s, buf) != 0) {
      fputs("resident: out of memory\n", stderr);
      rc = -1;
    }
    buf[len] = '\0';
    errno = 0;
  }
  if (rc == 0 && errno != 0) {
    fprintf(stderr, "resident: cannot read directory %s: %s\n", SHOWN(shown, buf),
            strerror(errno));
    rc = -1;
  }
  closedir(d);
  return rc;
}

static int read_list(struct sample *s, FILE *in) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int rc = 0;
  while (rc == 0 && (n = getline(&line, &cap, in)) >= 0) {
    if (n > 0 && line[n - 1] == '\n') line[--n] = '\0';
    if (n == 0) continue;
    if (offer(s, line) != 0) {
      fputs("resident: out of memory\n", stderr);
      rc = -1;
    }
  }
  if (rc == 0 && ferror(in)) {
    fprintf(stderr, "resident: cannot read the list on stdin: %s\n", strerror(errno));
    rc = -1;
  }
  free(line);
  return rc;
}

/* Adds one file's pages and resident pages to c; 0, or -1 (reported). */
static int measure(const char *path, long page, struct counts *c) {
  char shown[512];
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    fprintf(stderr, "resident: cannot open %s: %s\n", SHOWN(shown, path),
            strerror(errno));
    return -1;
  }
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) != 0) {
    fprintf(stderr, "resident: cannot stat %s: %s\n", SHOWN(shown, path),
            strerror(errno));
    rc = -1;
  } else if (!S_ISREG(st.st_mode)) {
    fprintf(stderr, "resident: not a regular file: %s\n", SHOWN(shown, path));
    rc = -1;
  } else if (st.st_size > 0) {
    size_t size = (size_t)st.st_size;
    size_t pages = (size + (size_t)page - 1) / (size_t)page;
    mincore_vec *vec = malloc(pages);
    void *map = MAP_FAILED;
    if (vec == NULL) {
      fputs("resident: out of memory\n", stderr);
      rc = -1;
    } else if ((map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED) {
      fprintf(stderr, "resident: cannot map %s: %s\n", SHOWN(shown, path),
              strerror(errno));
      rc = -1;
    } else if (mincore(map, size, vec) != 0) {
      fprintf(stderr, "resident: mincore %s: %s\n", SHOWN(shown, path),
              strerror(errno));
      rc = -1;
    } else {
      c->pages += pages;
      for (size_t i = 0; i < pages; i++) c->resident += (unsigned)vec[i] & 1u;
    }
    if (map != MAP_FAILED) munmap(map, size);
    free(vec);
  }
  close(fd);
  if (rc == 0) c->files++;
  return rc;
}

int main(int argc, char **argv) {
  uint64_t n = 1000, seed = 1;
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) {
      i++;
      break;
    } else if ((!strcmp(a, "-n") || !strcmp(a, "-s")) && i + 1 < argc) {
      uint64_t *v = a[1] == 'n' ? &n : &seed;
      if (parse_u64(argv[i + 1], a[1] == 'n' ? 100000000 : UINT64_MAX, v) != 0 || (a[1] == 'n' && *v == 0)) {
        char shown[128];
        fprintf(stderr, "resident: %s wants a number%s, not '%s'\n", a, a[1] == 'n' ? " above 0" : "",
                SHOWN(shown, argv[i + 1]));
        return 2;
      }
      i++;
    } else if ((!strcmp(a, "-n") || !strcmp(a, "-s")) && i + 1 == argc) {
      fprintf(stderr, "resident: option %s needs a value (resident -h lists them)\n", a);
      return 2;
    } else {
      usage_common(&resident_tool, a); /* -h, --help, --version; else unknown */
    }
  }
  if (argc - i > 1) {
    fputs("resident: one DIR at most (resident -h lists the options)\n", stderr);
    return 2;
  }
  const char *dir = i < argc && strcmp(argv[i], "-") != 0 ? argv[i] : NULL;
#ifdef NO_MINCORE
  (void)dir;
  fputs("resident: this system has no mincore(2): the page cache cannot be looked at\n", stderr);
  return 3;
#endif

  struct sample s = {.n = (size_t)n, .seen = 0};
  rng_seed(&s.rng, seed);
  s.paths = calloc(s.n, sizeof *s.paths);
  if (s.paths == NULL) {
    fputs("resident: out of memory\n", stderr);
    return 1;
  }
  int rc = 0;
  if (dir != NULL) {
    size_t cap = 4096 + strlen(dir);
    char *buf = malloc(cap);
    if (buf == NULL) {
      fputs("resident: out of memory\n", stderr);
      rc = -1;
    } else {
      memcpy(buf, dir, strlen(dir) + 1);
      size_t len = strlen(buf);
      while (len > 1 && buf[len - 1] == '/') buf[--len] = '\0';
      rc = walk(&s, buf, len, cap, 0);
      free(buf);
    }
  } else {
    rc = read_list(&s, stdin);
  }

  struct counts c = {0, 0, 0, 0};
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) page = 4096;
  size_t taken = s.seen < s.n ? s.seen : s.n;
  for (size_t k = 0; rc == 0 && k < taken; k++)
    if (measure(s.paths[k], page, &c) != 0) c.errors++;
  for (size_t k = 0; k < s.n; k++) free(s.paths[k]);
  free(s.paths);
  if (rc != 0) return 1;
  if (c.files == 0) {
    fputs(taken == 0 ? "resident: no regular file to look at\n" : "resident: no file could be looked at\n",
          stderr);
    return 1;
  }
  printf("files\t%llu\tcount\n", (unsigned long long)c.files);
  printf("pages\t%llu\tcount\n", (unsigned long long)c.pages);
  printf("resident_pages\t%llu\tcount\n", (unsigned long long)c.resident);
  printf("resident_pct\t%.2f\t%%\n", c.pages ? 100.0 * (double)c.resident / (double)c.pages : 0.0);
  printf("errors\t%llu\tcount\n", (unsigned long long)c.errors);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "resident: cannot write the figures: %s\n", strerror(errno));
    return 1;
  }
  return 0;
}
