/* A forked child's ties to its parent and to descriptors it inherited, on
 * every system the tools build for (the OS layer for child processes):
 *   parent death  everywhere a pipe: the parent holds its write end for as
 *                 long as it lives, each child watches the read end, which
 *                 reads end of file once the parent is gone (kill -9
 *                 included); besides, Linux prctl(PR_SET_PDEATHSIG) and
 *                 FreeBSD procctl(PROC_PDEATHSIG_CTL, 11.2+) send a
 *                 signal; NetBSD and OpenBSD have no such call (ENOSYS)
 *   reopening     Linux open("/proc/self/fd/N"), a new open file
 *                 description of the same pipe or terminal whose flags
 *                 are our own; elsewhere ENOSYS (/proc is missing, or on
 *                 NetBSD shares the description like dup)
 * Compiled with -DOS_PDEATH_PIPE, Linux and FreeBSD ask for no signal and
 * rely on the pipe alone, as NetBSD and OpenBSD do (for testing it). */
#ifndef SHOOTOUT_OS_CHILD_H
#define SHOOTOUT_OS_CHILD_H

/* Asks for SIG when the parent process dies.  0, or -1 with errno. */
int os_parent_death_signal(int sig);
/* In the parent, before it forks: the watch's pipe into FDS ([0] the read
 * end; both non-blocking and close-on-exec).  0, or -1 with errno. */
int os_parent_watch_open(int fds[2]);
/* In a child just forked: closes its copy of the write end FDS[1] (else
 * the pipe never ends) and asks for SIG as well where the system can.
 * Returns FDS[0], the descriptor to watch for reading. */
int os_parent_watch_child(int fds[2], int sig);
/* The watched descriptor FD is readable: 1 when the parent is gone (end of
 * file or an error), 0 when it is still there (EAGAIN). */
int os_parent_gone(int fd);
/* FD opened again as a new description with FLAGS (O_WRONLY | O_NONBLOCK
 * ...).  The new fd (the caller checks it is the same file), or -1 with
 * errno. */
int os_reopen_fd(int fd, int flags);

#endif
