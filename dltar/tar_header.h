/* One 512-byte tar header: checksum, numeric fields (octal or base-256),
 * names, and the pax extended-header records that override them. */
#ifndef SHOOTOUT_TAR_HEADER_H
#define SHOOTOUT_TAR_HEADER_H

#include <stddef.h>
#include <stdint.h>

#define TAR_BLOCK 512

enum tar_hdr_status {
  TAR_HDR_OK = 0,
  TAR_HDR_ZERO,     /* an all-zero block: end-of-archive marker */
  TAR_HDR_CHECKSUM, /* stored checksum does not match */
  TAR_HDR_FIELD,    /* a numeric field is not a number */
};

/* The fields of a header that extraction needs. name/linkname point into
 * the block only when they fit there; use tar_hdr_name() to assemble. */
struct tar_hdr {
  char type;        /* typeflag; '\0' already mapped to '0' */
  int ustar;        /* 1: POSIX "ustar\0" magic (prefix field valid) */
  uint64_t mode;
  uint64_t uid, gid;
  uint64_t size;
  int64_t mtime;
};

/* Parse an octal or base-256 numeric field of len bytes.  Returns 0 and
 * the value, or -1 when it is neither (or negative when !allow_neg). */
int tar_num(const unsigned char *f, size_t len, int allow_neg, int64_t *out);

/* Validate and decode one block. */
enum tar_hdr_status tar_hdr_parse(const unsigned char blk[TAR_BLOCK], struct tar_hdr *h);

/* Copy the full name (ustar prefix + "/" + name) into out, NUL-terminated.
 * Returns its length, or -1 when it does not fit. */
int tar_hdr_name(const unsigned char blk[TAR_BLOCK], const struct tar_hdr *h, char *out,
                 size_t cap);
/* Copy the 100-byte linkname field into out (cap >= 101). */
void tar_hdr_linkname(const unsigned char blk[TAR_BLOCK], char *out);

/* What a pax extended header says about the next entry.  Strings point
 * into the record buffer (which tar_pax_parse NUL-terminates in place). */
struct tar_pax {
  const char *path, *linkpath;
  int has_size, has_mtime, has_uid, has_gid;
  uint64_t size, uid, gid;
  int64_t mtime;
  long mtime_ns;
  int sparse; /* GNU.sparse.*: not supported by the extractor */
};

/* Parse "LEN key=value\n" records of buf[0..len).  Modifies buf (values
 * get NUL-terminated).  Returns 0, or -1 on a malformed record. */
int tar_pax_parse(char *buf, size_t len, struct tar_pax *p);

/* Parse a pax decimal time "SECONDS[.FRACTION]" (may be negative). */
int tar_pax_time(const char *s, int64_t *sec, long *nsec);

#endif
