/* Replica identity (issue 34, M1): before berthd scrapes a replica's load from
 * 127.0.0.1:PORT it checks that the socket that would answer is the replica's own, since any
 * local account may bind a port first (or in the window while a replica restarts) and answer
 * `load 1000000`. The listening sockets on PORT are read from the kernel (sock_diag, as ss
 * does; else /proc/net/tcp and tcp6, state 0A), those a connection to 127.0.0.1:PORT
 * reaches are picked as the kernel picks them (the address 127.0.0.1 before the wildcard,
 * IPv4 before IPv6), and each must be held (a descriptor `socket:[INODE]` in /proc/PID/fd)
 * by one of the replica's processes, which the executor lists (its cgroup, else its process
 * group). After the scrape the same sockets must still be the ones reached, so a swap
 * during the scrape is refused too. */
#ifndef BERTH_LIVE_LISTENER_H
#define BERTH_LIVE_LISTENER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BERTH_LISTEN_MAX    16   /* listening sockets on one port looked at */
#define BERTH_OWNER_PIDS    512  /* a replica's processes whose descriptors are read, at most */
#define BERTH_OWNER_FDS_MAX 8192 /* descriptors read per check, all its processes together */

/* Which listeners a connection to 127.0.0.1:PORT reaches: those of the lowest rank > 0. */
enum berth__listen_rank {
    BERTH_LISTEN_UNREACHED = 0, /* ::1, 127.0.0.2, another host's address: never reached */
    BERTH_LISTEN_LOOPBACK = 1,  /* 127.0.0.1, or ::ffff:127.0.0.1 on an IPv6 socket */
    BERTH_LISTEN_ANY4 = 2,      /* 0.0.0.0 */
    BERTH_LISTEN_ANY6 = 3,      /* :: (a dual-stack socket) or ::ffff:0.0.0.0 */
};

struct berth__listener {
    uint64_t inode;
    uint32_t uid;
    int rank;      /* enum berth__listen_rank */
    char addr[56]; /* "127.0.0.1:8000", "[::1]:8000" */
};

/* One line of /proc/net/tcp (v6 = 0) or /proc/net/tcp6 (v6 = 1): 1 with *out filled when it
 * is a socket in state LISTEN (0A) on port, else 0 (another state or port, the header, a
 * line that does not parse). The addresses are the kernel's words in this machine's byte
 * order (as the kernel prints them). */
int berth__listener_line(const char *line, int v6, int port, struct berth__listener *out);
/* Every line of text (a whole file's): the LISTEN sockets on port appended to ls, which
 * holds n, at most max kept; the new count, which goes on past max (those past it are not
 * kept: a caller refuses what it could not look at). */
size_t berth__listeners_parse(const char *text, int v6, int port, struct berth__listener *ls,
                              size_t n, size_t max);
/* Keeps (at the front of ls) only the listeners a connection to 127.0.0.1 reaches; how many. */
size_t berth__listeners_reached(struct berth__listener *ls, size_t n);
/* Where berth__listeners_read looks. */
enum {
    BERTH_LISTEN_AUTO = 0, /* the kernel's socket diagnostics (netlink, as ss), else /proc */
    BERTH_LISTEN_PROC = 1, /* /proc/net/tcp and tcp6 only */
};
/* The listeners on port that a connection to 127.0.0.1 reaches (at most max), IPv4 and IPv6,
 * from how: how many, or -1 with why when they cannot be read, or when there are over max
 * listening sockets on port (then some could not be looked at). NETLINK_SOCK_DIAG with
 * state LISTEN walks only the kernel's listening table; /proc/net/tcp walks the whole
 * connection hash (milliseconds per read), so it is the fallback. */
int berth__listeners_read(int port, int how, struct berth__listener *ls, size_t max, char *why,
                          size_t wlen);
/* Whether one of pids[0..n) holds a descriptor on socket inode: 1 held, 0 not found, -1 not
 * found but not every descriptor was read (*budget, the descriptors left to read, ran out,
 * or a /proc/PID/fd could not be read: why says which). */
int berth__socket_held(uint64_t inode, const pid_t *pids, size_t n, size_t *budget, char *why,
                       size_t wlen);
/* Gives a replica's processes into out, at most max, its main process first: how many, or -1
 * when they are not known (yet). */
typedef int (*berth__pids_fn)(void *ctx, pid_t *out, size_t max);
/* The check before a scrape of replica `replica` at 127.0.0.1:port: 0 when at least one
 * listener is reached and every listener reached is held by one of the replica's processes
 * (pids(ctx, ...): the main process's descriptors are read first, the others' only when it
 * does not hold them all, at most BERTH_OWNER_PIDS processes); ls[0..*n) are the listeners
 * reached (BERTH_LISTEN_MAX room), for berth__listeners_same after the scrape. 1 with why "no
 * listener on 127.0.0.1:PORT" (nothing to scrape: the replica is not up, and neither is
 * anyone else). Else -1 (refused) with why: "127.0.0.1:PORT is held by a process outside
 * replica N (uid U, socket inode I)", "no process of replica N runs", or what could not be
 * read. */
int berth__listener_owned(int port, int replica, berth__pids_fn pids, void *ctx,
                          struct berth__listener *ls, size_t *n, char *why, size_t wlen);
/* After the scrape: 1 when the listeners reached are still exactly ls[0..n) (their inodes). */
int berth__listeners_same(int port, const struct berth__listener *ls, size_t n);

#endif
