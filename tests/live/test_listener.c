/* Replica identity (live/daemon/listener.c, issue 34 M1): the /proc/net/tcp and tcp6 parser
 * on a hand-written table (IPv4 and IPv6 lines, LISTEN among other states, the inode and
 * uid, which listeners a connection to 127.0.0.1 reaches); sock_diag and /proc agreeing on a
 * real listener; the ownership check on this machine's /proc with this process's own listening
 * socket (owned) against one a forked child holds outside the pids given (refused, naming the
 * socket), a swapped listener, no listener (not a refusal), the descriptor budget; and a process
 * group's members as the local executor lists them where there are no cgroups (live/exec/procs.c).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "live/daemon/listener.h"
#include "live/exec/exec_local.h"

/* Port 8080 (1F90) on several addresses, in the kernel's words as a little-endian machine
 * prints them: 0100007F is 127.0.0.1. */
static const char tcp4[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode\n"
    "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 "
    "41111 1 0000000000000000 100 0 0 10 0\n"
    "   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 "
    "41112 1 0000000000000000 100 0 0 10 0\n"
    "   2: 0100007F:1F90 0100007F:D431 01 00000000:00000000 02:0000A1B2 00000000  1001        0 "
    "41113 2 0000000000000000 20 4 30 10 -1\n"
    "   3: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 "
    "41114 1 0000000000000000 100 0 0 10 0\n"
    "   4: 0200007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1003        0 "
    "41115 1 0000000000000000 100 0 0 10 0\n"
    "   5: 0100007F:1F90 0100007F:D432 06 00000000:00000000 03:00001770 00000000     0        0 0 "
    "3 0000000000000000\n";
static const char tcp6[] =
    "  sl  local_address                         remote_address                        st "
    "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000  1002        0 51111 1 0000000000000000 100 0 0 10 0\n"
    "   1: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000  1002        0 51112 1 0000000000000000 100 0 0 10 0\n"
    "   2: 0000000000000000FFFF00000100007F:1F90 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000  1004        0 51113 1 0000000000000000 100 0 0 10 0\n"
    "   3: 0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000100007F:E001 01 "
    "00000000:00000000 00:00000000 00000000  1004        0 51114 1 0000000000000000 20 4 1 10 -1\n";

static void test_parse(void)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    printf("SKIP parse: the table is a little-endian machine's\n");
#else
    struct berth__listener ls[8];
    size_t n = berth__listeners_parse(tcp4, 0, 8080, ls, 0, 8);
    CHECK_I64(n, 3); /* 41113 is established, 41114 another port, 0 in TIME_WAIT */
    CHECK_I64(ls[0].inode, 41111);
    CHECK_I64(ls[0].uid, 1001);
    CHECK_I64(ls[0].rank, BERTH_LISTEN_LOOPBACK);
    CHECK_STR(ls[0].addr, "127.0.0.1:8080");
    CHECK_I64(ls[1].inode, 41112);
    CHECK_I64(ls[1].rank, BERTH_LISTEN_ANY4);
    CHECK_STR(ls[1].addr, "0.0.0.0:8080");
    CHECK_I64(ls[2].inode, 41115);
    CHECK_I64(ls[2].rank, BERTH_LISTEN_UNREACHED);
    CHECK_STR(ls[2].addr, "127.0.0.2:8080");
    n = berth__listeners_parse(tcp6, 1, 8080, ls, n, 8);
    CHECK_I64(n, 6);
    CHECK_I64(ls[3].inode, 51111);
    CHECK_I64(ls[3].rank, BERTH_LISTEN_UNREACHED); /* ::1 takes no IPv4 connection */
    CHECK_STR(ls[3].addr, "[::1]:8080");
    CHECK_I64(ls[4].inode, 51112);
    CHECK_I64(ls[4].rank, BERTH_LISTEN_ANY6);
    CHECK_STR(ls[4].addr, "[::]:8080");
    CHECK_I64(ls[5].inode, 51113);
    CHECK_I64(ls[5].uid, 1004);
    CHECK_I64(ls[5].rank, BERTH_LISTEN_LOOPBACK);
    CHECK_STR(ls[5].addr, "[::ffff:127.0.0.1]:8080");
    /* reached: the loopback address first (v4, or mapped in v6), both must be owned */
    struct berth__listener all[8];
    memcpy(all, ls, sizeof all);
    n = berth__listeners_reached(all, 6);
    CHECK_I64(n, 2);
    CHECK_I64(all[0].inode, 41111);
    CHECK_I64(all[1].inode, 51113);
    /* without it: 0.0.0.0 before ::, ::1 never */
    struct berth__listener w[3] = {ls[3], ls[4], ls[1]};
    CHECK_I64(berth__listeners_reached(w, 3), 1);
    CHECK_I64(w[0].inode, 41112);
    struct berth__listener v6[2] = {ls[3], ls[4]};
    CHECK_I64(berth__listeners_reached(v6, 2), 1);
    CHECK_I64(v6[0].inode, 51112);
    CHECK_I64(berth__listeners_reached(&ls[3], 1), 0);
    /* the count goes on past max: the caller knows some were not kept */
    CHECK_I64(berth__listeners_parse(tcp4, 0, 8080, all, 0, 2), 3);
    CHECK_I64(berth__listeners_parse(tcp4, 0, 8081, all, 0, 8), 1);
    CHECK_I64(berth__listeners_parse(tcp4, 0, 9999, all, 0, 8), 0);
    /* lines that are not a socket's */
    struct berth__listener one;
    CHECK(!berth__listener_line("", 0, 8080, &one));
    CHECK(!berth__listener_line("   0: 0100007F:1F90", 0, 8080, &one));
    CHECK(!berth__listener_line("   0: 00000000000000000000000001000000:1F90 00000000000000000000"
                                "000000000000:0000 0A 00000000:00000000 00:00000000 00000000 1 0 9",
                                0, 8080, &one)); /* a v6 address read as v4 */
#endif
}

/* A listening socket on 127.0.0.1 (port 0: any; reuse: SO_REUSEADDR), its port in *port. */
static int listen_on(int *port, int reuse)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)*port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (reuse)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 4) ||
        getsockname(fd, (struct sockaddr *)&a, &len)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* The pids a test gives as the replica's: set[0..n), or n = -1 (not known). */
struct set {
    pid_t p[4];
    int n, calls;
};

static int set_pids(void *ctx, pid_t *out, size_t max)
{
    struct set *s = ctx;
    s->calls++;
    if (s->n < 0)
        return -1;
    size_t k = (size_t)s->n < max ? (size_t)s->n : max;
    memcpy(out, s->p, k * sizeof *out);
    return (int)k;
}

/* A child that listens on 127.0.0.1 (a socket its parent never had) until its pipe closes;
 * its pid, its port in *port. */
static pid_t squatter(int *port, int *hold)
{
    int up[2], down[2];
    if (pipe(up) || pipe(down))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(up[0]);
        close(down[1]);
        int p = 0, fd = listen_on(&p, 0);
        (void)!write(up[1], &p, sizeof p);
        char c;
        (void)!read(down[0], &c, 1);
        close(fd);
        _exit(0);
    }
    close(up[1]);
    close(down[0]);
    *hold = down[1];
    if (read(up[0], port, sizeof *port) != sizeof *port)
        *port = 0;
    close(up[0]);
    return pid;
}

static void test_owned(void)
{
    struct berth__listener ls[BERTH_LISTEN_MAX];
    size_t n = 0;
    char why[256] = "";
    int port = 0, fd = listen_on(&port, 1);
    CHECK(fd >= 0);
    struct set self = {{getpid()}, 1, 0};
    if (berth__listener_owned(port, 0, set_pids, &self, ls, &n, why, sizeof why) &&
        strstr(why, "no listener")) { /* a /proc that does not list sockets (some sandboxes) */
        printf("SKIP owned: /proc/net/tcp does not show this process's listener: %s\n", why);
        close(fd);
        return;
    }
    CHECK_I64(berth__listener_owned(port, 0, set_pids, &self, ls, &n, why, sizeof why), 0);
    CHECK_I64(n, 1);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
    CHECK_STR(ls[0].addr, addr);
    CHECK_I64(ls[0].uid, getuid());
    CHECK_I64(self.calls, 2); /* the main process held it: only the first question */
    CHECK(berth__listeners_same(port, ls, n));
    /* the kernel's socket diagnostics (the default) and /proc/net/tcp (the fallback) agree */
    struct berth__listener fromproc[BERTH_LISTEN_MAX];
    CHECK_I64(
        berth__listeners_read(port, BERTH_LISTEN_PROC, fromproc, BERTH_LISTEN_MAX, why, sizeof why),
        1);
    CHECK_I64(fromproc[0].inode, ls[0].inode);
    CHECK_I64(fromproc[0].uid, ls[0].uid);
    CHECK_STR(fromproc[0].addr, ls[0].addr);

    /* the same port, listened on again: another socket, so the scrape's after-check fails */
    close(fd);
    fd = listen_on(&port, 1);
    CHECK(fd >= 0);
    CHECK(!berth__listeners_same(port, ls, n));
    close(fd);

    /* no listener now: not a refusal (1), nothing to scrape */
    CHECK_I64(berth__listener_owned(port, 2, set_pids, &self, ls, &n, why, sizeof why), 1);
    snprintf(addr, sizeof addr, "no listener on 127.0.0.1:%d", port);
    CHECK_STR(why, addr);

    /* a socket a forked child holds: outside {self}, refused naming it; with the child in the
     * set (second: after the main process, the rest are read), owned */
    int hold = -1, sport = 0;
    pid_t child = squatter(&sport, &hold);
    CHECK(child > 0 && sport > 0);
    CHECK_I64(berth__listener_owned(sport, 3, set_pids, &self, ls, &n, why, sizeof why), -1);
    snprintf(addr, sizeof addr, "127.0.0.1:%d is held by a process outside replica 3 (uid %u, ",
             sport, (unsigned)getuid());
    CHECK_HAS(why, addr);
    CHECK_HAS(why, "socket inode ");
    struct set both = {{getpid(), child}, 2, 0};
    CHECK_I64(berth__listener_owned(sport, 3, set_pids, &both, ls, &n, why, sizeof why), 0);
    CHECK_I64(both.calls, 2);
    /* the descriptor budget: none left is "cannot tell", never "owned" */
    size_t budget = 0;
    pid_t cp[1] = {child};
    CHECK_I64(berth__socket_held(ls[0].inode, cp, 1, &budget, why, sizeof why), -1);
    CHECK_HAS(why, "not found within the first");
    budget = BERTH_OWNER_FDS_MAX;
    CHECK_I64(berth__socket_held(ls[0].inode, cp, 1, &budget, why, sizeof why), 1);
    /* the replica's processes unknown, or none */
    struct set unknown = {{0}, -1, 0}, none = {{0}, 0, 0};
    CHECK_I64(berth__listener_owned(sport, 1, set_pids, &unknown, ls, &n, why, sizeof why), -1);
    CHECK_HAS(why, "the processes of replica 1 are not known");
    CHECK_I64(berth__listener_owned(sport, 1, set_pids, &none, ls, &n, why, sizeof why), -1);
    CHECK_HAS(why, "no process of replica 1 runs");
    close(hold);
    waitpid(child, NULL, 0);
}

/* A dual-stack [::] listener is reached by a connection to 127.0.0.1 and checked too. */
static void test_owned_v6(void)
{
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), off = 0;
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = in6addr_any};
    socklen_t len = sizeof a;
    if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off) ||
        bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 4) ||
        getsockname(fd, (struct sockaddr *)&a, &len)) {
        printf("SKIP owned_v6: no IPv6 here\n");
        if (fd >= 0)
            close(fd);
        return;
    }
    int port = ntohs(a.sin6_port);
    struct berth__listener ls[BERTH_LISTEN_MAX];
    size_t n = 0;
    char why[256] = "", addr[64];
    struct set self = {{getpid()}, 1, 0}, other = {{getppid()}, 1, 0};
    int rc = berth__listener_owned(port, 0, set_pids, &self, ls, &n, why, sizeof why);
    if (rc && strstr(why, "no listener")) {
        printf("SKIP owned_v6: /proc/net/tcp6 does not show it\n");
    } else {
        CHECK_I64(rc, 0);
        snprintf(addr, sizeof addr, "[::]:%d", port);
        CHECK_STR(ls[0].addr, addr);
        CHECK_I64(ls[0].rank, BERTH_LISTEN_ANY6);
        CHECK_I64(berth__listener_owned(port, 0, set_pids, &other, ls, &n, why, sizeof why), -1);
        snprintf(addr, sizeof addr, "[::]:%d is held by a process outside replica 0", port);
        CHECK_HAS(why, addr);
    }
    close(fd);
}

/* Where there are no cgroups the local executor takes a job's process group: the leader
 * first, then its other members, never a process of another group. */
static void test_group(void)
{
    int go[2];
    if (pipe(go))
        return;
    pid_t lead = fork();
    if (lead == 0) { /* a group of its own with one more member, as the shim's child makes */
        setpgid(0, 0);
        close(go[1]);
        if (fork() == 0) {
            char c;
            (void)!read(go[0], &c, 1);
            _exit(0);
        }
        char c;
        (void)!read(go[0], &c, 1);
        wait(NULL);
        _exit(0);
    }
    close(go[0]);
    setpgid(lead, lead); /* also from here, so that it holds before the test reads it */
    pid_t out[8];
    int n = 0;
    for (int tries = 0; tries < 2000 && n < 2; tries++) { /* until its child is forked */
        n = berth__proc_group(lead, out, 8);
        if (n < 2)
            usleep(1000);
    }
    CHECK_I64(n, 2);
    CHECK_I64(out[0], lead);
    CHECK(out[1] != lead && out[1] > 1);
    CHECK_I64(berth__proc_pgrp(out[1]), lead);
    CHECK_I64(berth__proc_group(lead, out, 1), 1); /* max 1: the leader, no scan */
    CHECK_I64(out[0], lead);
    CHECK_I64(berth__proc_group(1, out, 8), 0); /* init's group is never a job's */
    close(go[1]);
    waitpid(lead, NULL, 0);
    CHECK_I64(berth__proc_group(lead, out, 8), 0); /* gone */
}

static const struct check_test tests[] = {
    {"parse", test_parse},
    {"owned", test_owned},
    {"owned_v6", test_owned_v6},
    {"group", test_group},
};

CHECK_MAIN(tests)
