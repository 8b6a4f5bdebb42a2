/* Dataset profiles: small "key value" text specs (datasets/NAME.profile).
 * The format is documented in docs/mkdataset.1 (Profiles) and at the top of every profile. */
#ifndef SHOOTOUT_PROFILE_H
#define SHOOTOUT_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct sizedist {
  uint64_t median, min, max;
  uint64_t spread_micro; /* log2 standard deviation, in millionths */
};

struct profile {
  char name[64];
  uint64_t photos;      /* each photo is two files: img/... and thumb/... */
  struct sizedist full, thumb;
  uint64_t fanout;      /* subdirectories per level (1..256) */
  uint64_t levels;      /* directory levels below img/ and thumb/ (0..3) */
  uint64_t huge_dirs;   /* directories holding very many photos */
  uint64_t huge_photos; /* photos in each of them */
  uint64_t requests;    /* lines of requests.txt */
  uint64_t zipf_micro;  /* popularity skew exponent, in millionths */
  uint64_t replace_micro; /* share of layout files the update replaces */
  uint64_t new_photos;  /* photos the update adds */
};

/* Parse a profile held in buf.  fname names it in errors.  Returns 0, or -1
 * with a one-line message "FILE:LINE: KEY: problem" in err. */
int profile_parse(struct profile *p, const char *buf, size_t len, const char *fname, char *err,
                  size_t errlen);
/* Read and parse a profile file; same contract. */
int profile_load(struct profile *p, const char *path, char *err, size_t errlen);

/* "0.25" -> 250000 (at most six decimals); 0 or -1. */
int parse_micro(const char *s, uint64_t max_micro, uint64_t *out);

#endif
