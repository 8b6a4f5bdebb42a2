/* Which readiness mechanism libowfat's io_* layer waits with in this
 * process, as it chose at run time (httpd's and replay's --stats). */
#ifndef SHOOTOUT_EVMECH_H
#define SHOOTOUT_EVMECH_H

/* "epoll", "kqueue", "devpoll", "sigio" (Linux's queued signals, when
 * epoll_create failed), "poll" (what io_waituntil2 falls back to), or
 * "none": no descriptor was ever handed to io_fd, which picks the
 * mechanism at its first call (httpd -1 never waits through libowfat). */
const char *evmech_name(void);

#endif
