/* dltar's two threads: a producer thread reads and inflates the gzip input
 * into a ring of buffers, the calling thread extracts from the ring
 * (tar_extract through a struct tx_input).  The producer stops at each
 * gzip member's end until the extractor says whether the archive needs
 * the next member, so that nothing is read past the archive's end that
 * the one-thread mode would not read. */
#ifndef SHOOTOUT_PIPELINE_H
#define SHOOTOUT_PIPELINE_H

#include <pthread.h>

#include "gunzip_stream.h"
#include "ring.h"
#include "tar_extract.h"

/* dietlibc's threads (Debian 12's 0.34) crash the process in exit() once a
 * thread has run, so a static build extracts in one thread. */
#ifdef __dietlibc__
#define PIPELINE_WORKS 0
#else
#define PIPELINE_WORKS 1
#endif

#define PIPE_SLOTS 32
#define PIPE_SLOT (128 * 1024)

struct pipeline {
  struct gz *g;
  struct ring ring;
  pthread_t th;
  int running;   /* the producer thread is not joined yet */
  int stopping;  /* the archive ended: no next gzip member */
  int holding;   /* a slot is out with the extractor */
  struct tx_input in;
};

/* Start the producer on g (gzip input).  Exits with a message on failure. */
void pipeline_start(struct pipeline *p, struct gz *g);
/* Join the producer (if not yet) and free the ring. */
void pipeline_end(struct pipeline *p);

#endif
