/* Scraping a replica's load (scrape.h). The client is a few lines over a socket on purpose:
 * it only ever connects to 127.0.0.1 at the replica's own port, follows no redirect, sends
 * no credential, and stops at BERTH_SCRAPE_MAX_BYTES or the deadline, whichever comes
 * first, so a service cannot turn berthd into a proxy (SSRF) or stall it. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "live/daemon/scrape.h"

static int path_ok(const char *p)
{
    size_t n = strlen(p);
    if (!n || p[0] != '/' || n > BERTH_SCRAPE_PATH_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] <= ' ' || p[i] > '~')
            return 0;
    return 1;
}

int berth__scrape_url(const char *url, char *path, size_t len, struct berth_err *err)
{
    const char *p = url;
    if (!strncmp(url, "http://", 7)) {
        const char *h = url + 7, *colon = strchr(h, ':'), *slash = strchr(h, '/');
        size_t hl = colon && (!slash || colon < slash) ? (size_t)(colon - h)
                    : slash                            ? (size_t)(slash - h)
                                                       : strlen(h);
        if (memchr(h, '@', slash ? (size_t)(slash - h) : strlen(h)))
            return berth_err_set(err, BERTH_EINPUT, "scrape: no user info in the URL");
        if (!((hl == 9 && !strncmp(h, "127.0.0.1", 9)) || (hl == 9 && !strncmp(h, "localhost", 9))))
            return berth_err_set(err, BERTH_EINPUT,
                                 "scrape: berthd scrapes only the replica's own loopback address "
                                 "(http://127.0.0.1:$PORT/PATH or http://localhost:$PORT/PATH), "
                                 "found host '%.*s'",
                                 (int)(hl > 64 ? 64 : hl), h);
        if (!colon || (slash && colon > slash) || strncmp(colon, ":$PORT/", 7))
            return berth_err_set(err, BERTH_EINPUT,
                                 "scrape: the port must be written $PORT (each replica's own "
                                 "port, which berthd assigns): no other port is scraped");
        p = colon + 6;
    } else if (strstr(url, "://")) {
        return berth_err_set(err, BERTH_EINPUT, "scrape: only http:// (plain, on loopback)");
    }
    if (!path_ok(p) || strlen(p) >= len)
        return berth_err_set(err, BERTH_EINPUT,
                             "scrape: expected a path starting with / (at most %d printable "
                             "characters, no space)",
                             BERTH_SCRAPE_PATH_MAX);
    snprintf(path, len, "%s", p);
    return 0;
}

int berth__scrape_metric_ok(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > BERTH_SCRAPE_METRIC_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
        if (!alpha && !(i && c >= '0' && c <= '9'))
            return 0;
    }
    return 1;
}

/* A number from s to end (white space around it only): 0 with *out, else -1. */
static int number(const char *s, const char *end, double *out)
{
    char buf[64];
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
        s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
        end--;
    if (s == end || end - s >= (long)sizeof buf)
        return -1;
    memcpy(buf, s, (size_t)(end - s));
    buf[end - s] = 0;
    char *e;
    errno = 0;
    double v = strtod(buf, &e);
    if (errno || *e || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

int berth__scrape_parse(const char *body, size_t len, const char *metric, double *out)
{
    const char *end = body + len;
    if (!number(body, end, out))
        return 0;
    size_t ml = strlen(metric);
    double sum = 0;
    int found = 0;
    for (const char *l = body; l < end;) {
        const char *nl = memchr(l, '\n', (size_t)(end - l));
        const char *le = nl ? nl : end;
        if (le - l > (long)ml && !strncmp(l, metric, ml) &&
            (l[ml] == ' ' || l[ml] == '\t' || l[ml] == '{')) {
            const char *v = l + ml;
            if (*v == '{') { /* labels: up to the closing brace */
                v = memchr(v, '}', (size_t)(le - v));
                v = v ? v + 1 : le;
            }
            while (v < le && (*v == ' ' || *v == '\t'))
                v++;
            const char *ve = v;
            while (ve < le && *ve != ' ' && *ve != '\t' && *ve != '\r')
                ve++; /* a timestamp may follow */
            double x;
            if (v < le && !number(v, ve, &x)) {
                sum += x;
                found = 1;
            }
        }
        l = le + 1;
    }
    if (!found)
        return -1;
    *out = sum;
    return 0;
}

static berth_us mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (berth_us)ts.tv_sec * BERTH_US_PER_S + ts.tv_nsec / 1000;
}

/* Waits for events on fd until the deadline: 1 ready, 0 timed out or failed. */
static int wait_fd(int fd, short events, berth_us deadline)
{
    for (;;) {
        berth_us left = deadline - mono_us();
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, (int)((left + 999) / 1000));
        if (r > 0)
            return 1;
        if (r == 0 || errno != EINTR)
            return 0;
    }
}

int berth__scrape_fetch(int port, const char *path, const char *metric, berth_us timeout_us,
                        double *out, char *why, size_t wlen)
{
    berth_us deadline = mono_us() + timeout_us;
    char *buf = malloc(BERTH_SCRAPE_MAX_BYTES + 1);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int rc = -1;
    if (!buf || fd < 0) {
        snprintf(why, wlen, "%s", !buf ? "out of memory" : strerror(errno));
        goto done;
    }
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (struct sockaddr *)&a, sizeof a) && errno != EINPROGRESS) {
        snprintf(why, wlen, "connect to 127.0.0.1:%d: %s", port, strerror(errno));
        goto done;
    }
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (!wait_fd(fd, POLLOUT, deadline) || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) ||
        soerr) {
        snprintf(why, wlen, "connect to 127.0.0.1:%d: %s", port,
                 soerr ? strerror(soerr) : "timed out");
        goto done;
    }
    int qlen = snprintf(buf, BERTH_SCRAPE_MAX_BYTES,
                        "GET %s HTTP/1.0\r\nHost: 127.0.0.1:%d\r\nUser-Agent: berthd\r\n"
                        "Accept: text/plain\r\nConnection: close\r\n\r\n",
                        path, port);
    for (int sent = 0; sent < qlen;) {
        ssize_t w = send(fd, buf + sent, (size_t)(qlen - sent), MSG_NOSIGNAL);
        if (w > 0) {
            sent += (int)w;
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EINTR) && wait_fd(fd, POLLOUT, deadline))
            continue;
        snprintf(why, wlen, "send: %s", w < 0 ? strerror(errno) : "closed");
        goto done;
    }
    size_t got = 0;
    for (;;) {
        if (got == BERTH_SCRAPE_MAX_BYTES) {
            snprintf(why, wlen, "answer over %d bytes", BERTH_SCRAPE_MAX_BYTES);
            goto done;
        }
        ssize_t r = recv(fd, buf + got, BERTH_SCRAPE_MAX_BYTES - got, 0);
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        if (r == 0)
            break;
        if ((errno == EAGAIN || errno == EINTR) && wait_fd(fd, POLLIN, deadline))
            continue;
        snprintf(why, wlen, "read: %s", errno == EAGAIN ? "timed out" : strerror(errno));
        goto done;
    }
    buf[got] = 0;
    int status = 0;
    if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1 || status != 200) {
        snprintf(why, wlen, "answered status %d, not 200", status);
        goto done;
    }
    char *body = strstr(buf, "\r\n\r\n");
    body = body ? body + 4 : NULL;
    if (!body || berth__scrape_parse(body, got - (size_t)(body - buf), metric, out)) {
        snprintf(why, wlen, "no load in the answer (a number, or metric %s)", metric);
        goto done;
    }
    rc = 0;
done:
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}
