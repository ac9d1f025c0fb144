/* Replica identity (listener.h): whose listening socket a scrape of 127.0.0.1:PORT reaches,
 * from the kernel's socket table (sock_diag, else /proc/net/tcp{,6}) and the replica's
 * /proc/PID/fd. Bounded: at most BERTH_LISTEN_MAX
 * sockets on the port, the descriptors of at most the processes the caller gives, and
 * BERTH_OWNER_FDS_MAX descriptors read per check, whatever the replica holds. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "live/daemon/listener.h"

/* n words of 8 hex digits (the kernel's %08X of each 32-bit word as it lies in memory) into
 * the address's bytes: 0, or -1 when hex is not that. */
static int words(const char *hex, size_t n, unsigned char *bytes)
{
    if (strlen(hex) != n * 8)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char w[9];
        memcpy(w, hex + 8 * i, 8);
        w[8] = '\0';
        uint32_t v = (uint32_t)strtoul(w, NULL, 16);
        memcpy(bytes + 4 * i, &v, 4);
    }
    return 0;
}

static int rank_of(const unsigned char *b, int v6)
{
    static const unsigned char lo4[4] = {127, 0, 0, 1}, any4[4] = {0, 0, 0, 0};
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const unsigned char zero[16] = {0};
    if (!v6)
        return !memcmp(b, lo4, 4)    ? BERTH_LISTEN_LOOPBACK
               : !memcmp(b, any4, 4) ? BERTH_LISTEN_ANY4
                                     : BERTH_LISTEN_UNREACHED;
    if (!memcmp(b, zero, 16))
        return BERTH_LISTEN_ANY6;
    if (memcmp(b, mapped, 12)) /* ::1 and every other IPv6 address: no IPv4 connection */
        return BERTH_LISTEN_UNREACHED;
    return !memcmp(b + 12, lo4, 4)    ? BERTH_LISTEN_LOOPBACK
           : !memcmp(b + 12, any4, 4) ? BERTH_LISTEN_ANY6
                                      : BERTH_LISTEN_UNREACHED;
}

/* A listener from its address's bytes (network order): 0, or -1 when it has no text. */
static int make(const unsigned char *b, int v6, int port, uint32_t uid, uint64_t inode,
                struct berth__listener *out)
{
    char txt[INET6_ADDRSTRLEN];
    if (!inet_ntop(v6 ? AF_INET6 : AF_INET, b, txt, sizeof txt))
        return -1;
    *out = (struct berth__listener){.inode = inode, .uid = uid, .rank = rank_of(b, v6)};
    snprintf(out->addr, sizeof out->addr, v6 ? "[%s]:%d" : "%s:%d", txt, port);
    return 0;
}

int berth__listener_line(const char *line, int v6, int port, struct berth__listener *out)
{
    char la[40];
    unsigned lport = 0, st = 0, uid = 0;
    unsigned long long inode = 0;
    /* sl: local rem st tx:rx tr:when retrnsmt uid timeout inode ... */
    if (sscanf(line, " %*u: %39[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x %*x:%*x %*x:%*x %*x %u %*d %llu",
               la, &lport, &st, &uid, &inode) != 5 ||
        st != 0x0A || lport != (unsigned)port)
        return 0;
    unsigned char b[16];
    return !words(la, v6 ? 4 : 1, b) && !make(b, v6, port, uid, inode, out);
}

/* line's socket appended to ls when it is a listener on port: the count, counted past max (only
 * max are kept) so that the caller knows some were not. */
static size_t add(struct berth__listener *ls, size_t n, size_t max, const char *line, int v6,
                  int port)
{
    struct berth__listener one;
    if (!berth__listener_line(line, v6, port, &one))
        return n;
    if (n < max)
        ls[n] = one;
    return n + 1;
}

size_t berth__listeners_parse(const char *text, int v6, int port, struct berth__listener *ls,
                              size_t n, size_t max)
{
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), l);
        n = add(ls, n, max, line, v6, port);
        l = nl ? nl + 1 : l + len;
    }
    return n;
}

size_t berth__listeners_reached(struct berth__listener *ls, size_t n)
{
    int best = 0;
    for (size_t i = 0; i < n; i++)
        if (ls[i].rank > 0 && (!best || ls[i].rank < best))
            best = ls[i].rank;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (best && ls[i].rank == best)
            ls[k++] = ls[i];
    return k;
}

/* The LISTEN sockets on port in one file, appended (counted past max, as add does). */
static size_t read_table(const char *path, int v6, int port, struct berth__listener *ls, size_t n,
                         size_t max, int *failed)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        *failed = errno;
        return n;
    }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        n = add(ls, n, max, line, v6, port);
        while (!strchr(line, '\n') && fgets(line, sizeof line, f)) /* the rest of a long line */
            ;
    }
    fclose(f);
    return n;
}

/* The listeners on port of one family from the kernel's socket diagnostics (NETLINK_SOCK_DIAG,
 * what ss reads), appended to ls (counted past max): only the listening table is walked, where
 * a read of /proc/net/tcp walks the whole connection hash (~9 ms a read on a 2-core VM). 0, or
 * -1 when the kernel does not answer it (no sock_diag: the caller reads /proc). */
static int diag_read(int family, int port, struct berth__listener *ls, size_t *n, size_t max)
{
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0)
        return -1;
    struct timeval tv = {.tv_sec = 1}; /* a dump answers at once; never hang the scraper */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct {
        struct nlmsghdr h;
        struct inet_diag_req_v2 r;
    } q;
    memset(&q, 0, sizeof q);
    q.h.nlmsg_len = sizeof q;
    q.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    q.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    q.r.sdiag_family = (uint8_t)family;
    q.r.sdiag_protocol = IPPROTO_TCP;
    q.r.idiag_states = 1u << 10; /* TCP_LISTEN only: the established hash is not walked */
    q.r.id.idiag_sport = htons((uint16_t)port);
    struct sockaddr_nl to = {.nl_family = AF_NETLINK};
    int rc = sendto(fd, &q, sizeof q, 0, (struct sockaddr *)&to, sizeof to) == sizeof q ? 1 : -1;
    long buf[2048]; /* aligned for the headers */
    while (rc == 1) {
        ssize_t got = recv(fd, buf, sizeof buf, 0);
        size_t len = got > 0 ? (size_t)got : 0;
        rc = got > 0 ? 1 : -1;
        /* NLMSG_OK/NLMSG_NEXT by hand: the macros compare the header's unsigned length with
         * a signed one (clang -Wsign-compare), and the offset below cannot run past len */
        for (size_t off = 0, step = 0; rc == 1 && len - off >= sizeof(struct nlmsghdr);
             off += step) {
            struct nlmsghdr *h = (struct nlmsghdr *)((char *)buf + off);
            if (h->nlmsg_len < sizeof *h || h->nlmsg_len > len - off)
                break;
            step = NLMSG_ALIGN(h->nlmsg_len);
            if (step > len - off)
                step = len - off;
            if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
                rc = h->nlmsg_type == NLMSG_DONE ? 0 : -1;
            const struct inet_diag_msg *m = NLMSG_DATA(h);
            struct berth__listener one;
            if (rc != 1 || h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
                h->nlmsg_len < NLMSG_LENGTH(sizeof *m) || m->idiag_state != 10 ||
                ntohs(m->id.idiag_sport) != port ||
                make((const unsigned char *)m->id.idiag_src, family == AF_INET6, port, m->idiag_uid,
                     m->idiag_inode, &one))
                continue;
            if (*n < max)
                ls[*n] = one;
            ++*n;
        }
    }
    close(fd);
    return rc;
}

int berth__listeners_read(int port, int how, struct berth__listener *ls, size_t max, char *why,
                          size_t wlen)
{
    int f4 = 0, f6 = 0;
    size_t n = 0;
    if (how == BERTH_LISTEN_PROC || diag_read(AF_INET, port, ls, &n, max)) {
        n = read_table("/proc/net/tcp", 0, port, ls, 0, max, &f4);
        how = BERTH_LISTEN_PROC; /* both families from the one source */
    }
    if (how == BERTH_LISTEN_PROC || diag_read(AF_INET6, port, ls, &n, max))
        n = read_table("/proc/net/tcp6", 1, port, ls, n, max, &f6); /* absent without IPv6 */
    if (f4) {
        snprintf(why, wlen, "cannot read /proc/net/tcp: %s", strerror(f4));
        return -1;
    }
    if (n > max) {
        snprintf(why, wlen, "over %zu listening sockets on port %d: not checked", max, port);
        return -1;
    }
    return (int)berth__listeners_reached(ls, n);
}

int berth__socket_held(uint64_t inode, const pid_t *pids, size_t n, size_t *budget, char *why,
                       size_t wlen)
{
    char want[48], got[48], path[64];
    int wl = snprintf(want, sizeof want, "socket:[%llu]", (unsigned long long)inode), partial = 0;
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "/proc/%d/fd", (int)pids[i]);
        DIR *dir = opendir(path);
        if (!dir) {
            if (errno != ENOENT && errno != ESRCH) { /* a process that ended holds nothing */
                snprintf(why, wlen, "cannot read %s: %s", path, strerror(errno));
                partial = 1;
            }
            continue;
        }
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (e->d_name[0] == '.')
                continue;
            if (!*budget) {
                snprintf(why, wlen, "not found within the first %d descriptors of %zu processes",
                         BERTH_OWNER_FDS_MAX, n);
                closedir(dir);
                return -1;
            }
            --*budget;
            ssize_t r = readlinkat(dirfd(dir), e->d_name, got, sizeof got);
            if (r == wl && !memcmp(got, want, (size_t)wl)) {
                closedir(dir);
                return 1;
            }
        }
        closedir(dir);
    }
    return partial ? -1 : 0;
}

/* 0 when one of pids holds every listener of ls, else -1 with why. */
static int held(const struct berth__listener *ls, size_t n, const pid_t *pids, size_t npids,
                int replica, char *why, size_t wlen)
{
    size_t budget = BERTH_OWNER_FDS_MAX;
    for (size_t i = 0; i < n; i++) {
        char part[160] = "";
        int h = berth__socket_held(ls[i].inode, pids, npids, &budget, part, sizeof part);
        if (h == 0)
            snprintf(why, wlen,
                     "%s is held by a process outside replica %d (uid %u, socket inode %llu)",
                     ls[i].addr, replica, (unsigned)ls[i].uid, (unsigned long long)ls[i].inode);
        else if (h < 0)
            snprintf(why, wlen, "cannot tell whether replica %d holds %s: %s", replica, ls[i].addr,
                     part);
        if (h != 1)
            return -1;
    }
    return 0;
}

int berth__listener_owned(int port, int replica, berth__pids_fn pids, void *ctx,
                          struct berth__listener *ls, size_t *n, char *why, size_t wlen)
{
    pid_t p[BERTH_OWNER_PIDS];
    int k = berth__listeners_read(port, BERTH_LISTEN_AUTO, ls, BERTH_LISTEN_MAX, why, wlen);
    *n = k > 0 ? (size_t)k : 0;
    if (k < 0)
        return -1;
    if (!k) { /* not up yet, or gone: not a question of whose */
        snprintf(why, wlen, "no listener on 127.0.0.1:%d", port);
        return 1;
    }
    int np = pids(ctx, p, 1); /* the main process first: a server's socket is usually there */
    if (np > 0 && !held(ls, *n, p, (size_t)np, replica, why, wlen))
        return 0;
    int all = np < 0 ? np : pids(ctx, p, BERTH_OWNER_PIDS);
    if (all > np && !held(ls, *n, p, (size_t)all, replica, why, wlen))
        return 0;
    if (all < 0)
        snprintf(why, wlen, "the processes of replica %d are not known (yet)", replica);
    else if (!all)
        snprintf(why, wlen, "no process of replica %d runs", replica);
    return -1;
}

int berth__listeners_same(int port, const struct berth__listener *ls, size_t n)
{
    struct berth__listener now[BERTH_LISTEN_MAX];
    char why[160];
    int k = berth__listeners_read(port, BERTH_LISTEN_AUTO, now, BERTH_LISTEN_MAX, why, sizeof why);
    if (k < 0 || (size_t)k != n)
        return 0;
    for (int i = 0; i < k; i++) {
        size_t j = 0;
        while (j < n && ls[j].inode != now[i].inode)
            j++;
        if (j == n)
            return 0;
    }
    return 1;
}
