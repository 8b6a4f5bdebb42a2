/* The extraction state machine: headers, pax and GNU long-name records,
 * file data written straight from the read buffer, deferred directory
 * metadata. */
#ifndef SHOOTOUT_TAR_EXTRACT_H
#define SHOOTOUT_TAR_EXTRACT_H

#include <stdint.h>
#include <sys/types.h>

#include "common.h"
#include "gunzip_stream.h"

struct tx_stats {
  uint64_t files, dirs, links, bytes, skipped;
};

/* Where the archive comes from when another thread inflates it: chunks
 * used in place. */
struct tx_input {
  /* The next chunk at *data, its length (at most TX_CHUNK_MAX); 0 at the
   * end.  The chunk stays valid until the next call. */
  size_t (*next)(void *ctx, const char **data);
  /* The archive ended: give no chunk past the end of the gzip member. */
  void (*stop)(void *ctx);
  /* Stop reading for good: the struct gz is the caller's again. */
  void (*settle)(void *ctx);
  void *ctx;
};
#define TX_CHUNK_MAX (255 * 1024)

struct tx_opts {
  const struct tx_input *in; /* NULL: tar_extract reads g itself */
  int same_owner;        /* restore uid/gid (root only) */
  mode_t dirmode;        /* mode of directories created implicitly */
  struct series_file *series; /* NULL: no series */
};

/* Extract the tar stream g into the directory rootfd.  Every error is a
 * one-line message and exit 1; on return the archive was complete.  Reads
 * no further than the archive's last record (plain) or the end of its gzip
 * member, and warns (one line) about data seen after the end. */
void tar_extract(struct gz *g, int rootfd, const struct tx_opts *o, struct tx_stats *st);

#endif
