/* A forked child's ties to its parent and to descriptors it inherited, on
 * every system the tools build for (the OS layer for child processes):
 *   parent death  Linux prctl(PR_SET_PDEATHSIG); FreeBSD procctl
 *                 (PROC_PDEATHSIG_CTL, 11.2+); NetBSD and OpenBSD have
 *                 none (ENOSYS: the caller checks getppid() instead)
 *   reopening     Linux open("/proc/self/fd/N"), a new open file
 *                 description of the same pipe or terminal whose flags
 *                 are our own; elsewhere ENOSYS (/proc is missing, or on
 *                 NetBSD shares the description like dup) */
#ifndef SHOOTOUT_OS_CHILD_H
#define SHOOTOUT_OS_CHILD_H

/* Asks for SIG when the parent process dies.  0, or -1 with errno. */
int os_parent_death_signal(int sig);
/* FD opened again as a new description with FLAGS (O_WRONLY | O_NONBLOCK
 * ...).  The new fd (the caller checks it is the same file), or -1 with
 * errno. */
int os_reopen_fd(int fd, int flags);

#endif
