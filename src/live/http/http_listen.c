/* The HTTP server's listening sockets (part of http.c's server): those a restart hands to
 * the next berthd and takes back, the Unix socket, and the open-files limit the connections
 * need. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "live/http/http.h"
#include "live/http/http_int.h"

/* A listening socket the berthd before this one handed over at its restart: NAME=FD in
 * BERTH_LISTEN_FDS ("tcp=5 met=6 unix=7"). -1 when there is none, or FD is not a listening
 * socket (then berthd binds its own, as at a first start). It is closed on exec again. */
int berth__httpd_handed_fd(const char *env, const char *name)
{
    size_t l = strlen(name);
    for (const char *p = env; p && *p; p += strcspn(p, " "), p += *p == ' ') {
        if (strncmp(p, name, l) || p[l] != '=')
            continue;
        char *end;
        long fd = strtol(p + l + 1, &end, 10);
        int listening = 0;
        socklen_t len = sizeof listening;
        if (end == p + l + 1 || fd < 3 || fd > 1 << 20 ||
            getsockopt((int)fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) || !listening)
            return -1;
        fcntl((int)fd, F_SETFD, FD_CLOEXEC);
        return (int)fd;
    }
    return -1;
}

/* The port a TCP listening socket is bound to (0 if unknown). */
int berth__httpd_bound_port_of(int fd)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &len) || a.sin_family != AF_INET)
        return 0;
    return ntohs(a.sin_port);
}

void berth__http_handover(struct berth__daemon *d, char *env, size_t n)
{
    struct httpd *h = d->http;
    env[0] = '\0';
    if (!h)
        return;
    struct {
        const char *name;
        struct MHD_Daemon *m;
    } l[] = {{"tcp", h->tcp}, {"met", h->met}, {"unix", h->unix_}};
    size_t o = 0;
    for (size_t i = 0; i < sizeof l / sizeof l[0]; i++) {
        if (!l[i].m)
            continue;
        MHD_socket fd = MHD_quiesce_daemon(l[i].m); /* new connections wait in its backlog */
        if (fd == MHD_INVALID_SOCKET || fcntl(fd, F_SETFD, 0))
            continue;
        int w = snprintf(env + o, n - o, "%s%s=%d", o ? " " : "", l[i].name, (int)fd);
        if (w > 0 && (size_t)w < n - o)
            o += (size_t)w;
    }
    h->handed = 1;
}

/* The Unix socket: any account may connect (multi-user mode) or only berthd's own; who
 * calls is its peer credentials. A stale socket file is replaced, anything else refused. */
int berth__httpd_unix_listen(const char *path, struct berth_err *err)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        return berth_err_set(err, BERTH_EINPUT, "--socket %s: longer than %zu bytes", path,
                             sizeof sa.sun_path - 1);
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    struct stat st;
    if (!lstat(path, &st)) {
        if (!S_ISSOCK(st.st_mode))
            return berth_err_set(err, BERTH_EINPUT, "--socket %s: exists and is not a socket",
                                 path);
        unlink(path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return berth_err_set(err, BERTH_EIO, "--socket %s: %s", path, strerror(errno));
    mode_t old = umask(077); /* made private, then opened as far as the mode says */
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (!rc)
        rc = chmod(path, berth__ident_multi_user() ? 0666 : 0600);
    if (rc || listen(fd, 128)) {
        rc = berth_err_set(err, BERTH_EIO, "--socket %s: %s", path, strerror(errno));
        close(fd);
        return rc;
    }
    return fd;
}

/* Every connection is a descriptor: the soft limit on them goes up to what the connection
 * bound needs (the hard limit at most); the shim puts the old one back for jobs
 * (BERTH_NOFILE_SOFT). */
void berth__httpd_raise_nofile(struct berth__daemon *d)
{
    struct rlimit r;
    rlim_t want = (rlim_t)d->o.max_connections * 3 + 256; /* three listeners */
    if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur >= want)
        return;
    char old[32];
    snprintf(old, sizeof old, "%llu", (unsigned long long)r.rlim_cur);
    rlim_t cur = r.rlim_cur;
    r.rlim_cur = r.rlim_max == RLIM_INFINITY || r.rlim_max > want ? want : r.rlim_max;
    if (!setrlimit(RLIMIT_NOFILE, &r) && !getenv("BERTH_NOFILE_SOFT"))
        setenv("BERTH_NOFILE_SOFT", old, 1);
    if (r.rlim_cur < want) {
        fprintf(d->log,
                "berthd: at most %llu open files (ulimit -n, was %llu): fewer than "
                "--max-connections %d needs; raise the hard limit (LimitNOFILE=)\n",
                (unsigned long long)r.rlim_cur, (unsigned long long)cur, d->o.max_connections);
        fflush(d->log);
    }
}
