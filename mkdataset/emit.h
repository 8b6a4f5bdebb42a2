/* The outputs of mkdataset in DIR: layout.tar.gz, update.tar.gz,
 * manifest.tsv, requests.txt, dataset.txt.  Each is written to NAME.tmp and
 * renamed into place by emit_close (dataset.txt last), so a directory with
 * dataset.txt holds a complete dataset; until then, an exit (every die())
 * or SIGINT/SIGTERM/SIGHUP removes the .tmp files and the directories
 * emit_open made.  File content is synthetic,
 * incompressible "image" bytes: a JPEG start/end marker around a stream of
 * xoshiro256** seeded by (seed, key, version). */
#ifndef SHOOTOUT_EMIT_H
#define SHOOTOUT_EMIT_H

#include <buffer.h>
#include <stdint.h>

#include "gz_write.h"
#include "tar_write.h"

/* The mtime of every entry: 2008-01-10, fixed for reproducible tarballs. */
#define EMIT_MTIME 1200000000ULL

enum { OUT_LAYOUT, OUT_UPDATE };

struct emit_tar {
  int fd;
  struct gzw gz;
  struct tarw tar;
  char prevdir[4096]; /* directory of the previous entry (layout only) */
  uint64_t files, dirs, bytes;
};

struct emitter {
  const char *dir;
  uint64_t seed;
  int level;
  struct emit_tar t[2];
  int mfd, rfd, dfd;
  buffer manifest, requests, info;
  char mbuf[65536], rbuf[65536], ibuf[4096];
  unsigned char *chunk;
  uint64_t requests_n;
};

/* Creates DIR (and its parents) if needed and opens the .tmp outputs; dies
 * on error.  Installs the exit and signal handlers that remove them: one
 * emitter a process. */
void emit_open(struct emitter *e, const char *dir, uint64_t seed);
/* Streams one file into tar `which`, returning its crc32 (dies on error).
 * In the layout tar, directory entries are written for new parents. */
uint32_t emit_file(struct emitter *e, int which, const char *path, uint64_t size, uint64_t key,
                   unsigned version);
/* The crc32 the content of (key, version, size) will have, without writing. */
uint32_t emit_crc(const struct emitter *e, uint64_t size, uint64_t key, unsigned version);
void emit_manifest(struct emitter *e, const char *path, uint64_t size, uint32_t crc);
/* A file's share of the output, for the space check before writing: its tar
 * header and 512-byte padded data (gzip at level 1 shrinks the headers and
 * padding, not the content) and its manifest line. */
uint64_t emit_file_need(uint64_t size, uint64_t pathlen);
/* One line of requests.txt: "/" + path, percent-encoding unsafe bytes. */
void emit_request(struct emitter *e, const char *path);
void emit_info(struct emitter *e, const char *key, const char *value);
void emit_info_u64(struct emitter *e, const char *key, uint64_t value);
/* Finishes both tarballs, adds their sizes to dataset.txt (layout_gz_bytes,
 * update_gz_bytes) and renames everything into place. */
void emit_close(struct emitter *e);

#endif
