/* The HTTP server's watchdog (part of http.c's server): the list of open connections, the
 * deadlines on a request's headers and body, and the bounds on connections not yet admitted
 * (per address and in all), enforced by evicting the oldest. */
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "live/daemon/options.h"
#include "live/http/http_int.h"
#include "util/hash.h"

/* ---- the watchdog ------------------------------------------------------------------- */

void berth__httpd_conn_phase(struct httpd *h, struct MHD_Connection *c, int phase)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn *k = ci ? ci->socket_context : NULL;
    if (!k)
        return;
    pthread_mutex_lock(&h->mu);
    h->unadmitted += (phase == HEADERS) - (k->phase == HEADERS);
    k->phase = phase;
    k->since = berth__mono_us();
    pthread_mutex_unlock(&h->mu);
}

/* Whose a connection is, for the bounds on those not yet admitted: the peer's address on
 * TCP, its account on the Unix socket. */
static uint64_t conn_addr(struct MHD_Connection *c, const struct listener *l)
{
    if (l->local) {
        uid_t uid = (uid_t)-1;
        berth__httpd_peer_uid(c, &uid);
        return (UINT64_C(1) << 62) | uid;
    }
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    if (sa && sa->sa_family == AF_INET)
        return (UINT64_C(4) << 56) | ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
    if (sa && sa->sa_family == AF_INET6)
        return berth__hash_bytes(BERTH_HASH_INIT, &((const struct sockaddr_in6 *)sa)->sin6_addr,
                                 16) |
               (UINT64_C(1) << 63);
    return 0;
}

static int by_addr(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Under h->mu, after newk joined: when its address holds more than per_addr connections not
 * yet admitted, or all addresses more than budget, the oldest of its address (of the address
 * holding the most, for the budget) is shut down; never newk itself. The scan and the sort
 * run only past a bound, over the connections not yet admitted. */
static void evict(struct httpd *h, const struct conn *newk, size_t per_addr, size_t budget)
{
    size_t mine = 0;
    for (const struct conn *k = h->conns; k; k = k->next)
        mine += k->phase == HEADERS && k->fd >= 0 && k->addr == newk->addr;
    uint64_t whose = newk->addr;
    if (!(per_addr && mine > per_addr)) {
        if (h->unadmitted <= budget)
            return;
        uint64_t *a = malloc(h->unadmitted * sizeof *a);
        size_t n = 0, best = 0;
        for (const struct conn *k = h->conns; a && k && n < h->unadmitted; k = k->next)
            if (k->phase == HEADERS && k->fd >= 0)
                a[n++] = k->addr;
        if (!a)
            return;
        qsort(a, n, sizeof *a, by_addr);
        for (size_t i = 0, j; i < n; i = j) {
            for (j = i; j < n && a[j] == a[i]; j++)
                ;
            if (j - i > best) {
                best = j - i;
                whose = a[i];
            }
        }
        free(a);
    }
    struct conn *old = NULL;
    for (struct conn *k = h->conns; k; k = k->next)
        if (k != newk && k->phase == HEADERS && k->fd >= 0 && k->addr == whose &&
            (!old || k->born < old->born))
            old = k;
    if (old) {
        shutdown(old->fd, SHUT_RDWR); /* its poll thread sees the end and cleans up */
        old->fd = -1;
        h->evicted++;
    }
}

void berth__httpd_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                                enum MHD_ConnectionNotificationCode code)
{
    struct httpd *h = ((struct listener *)cls)->h;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct conn *k = calloc(1, sizeof *k);
        if (!k || !ci) {
            free(k);
            *socket_context = NULL;
            return;
        }
        const struct berth__daemon_opts *o = &h->d->o;
        k->fd = ci->connect_fd;
        k->phase = HEADERS;
        k->since = k->born = berth__mono_us();
        k->addr = conn_addr(c, cls);
        pthread_mutex_lock(&h->mu);
        k->next = h->conns;
        if (h->conns)
            h->conns->prev = k;
        h->conns = k;
        h->nconns++;
        h->unadmitted++;
        evict(h, k, (size_t)o->max_conn_per_addr, (size_t)o->max_connections * 3 / 4);
        pthread_mutex_unlock(&h->mu);
        *socket_context = k;
        return;
    }
    /* closed: MHD closes the socket only after this returns, so the watchdog, which shuts
     * sockets down under the same mutex, never touches a descriptor reused by another */
    struct conn *k = *socket_context;
    if (!k)
        return;
    pthread_mutex_lock(&h->mu);
    if (k->prev)
        k->prev->next = k->next;
    else
        h->conns = k->next;
    if (k->next)
        k->next->prev = k->prev;
    h->nconns--;
    h->unadmitted -= k->phase == HEADERS;
    pthread_mutex_unlock(&h->mu);
    free(k);
    *socket_context = NULL;
}

void *berth__httpd_watchdog_main(void *arg)
{
    struct httpd *h = arg;
    const struct berth__daemon_opts *o = &h->d->o;
    pthread_mutex_lock(&h->mu);
    while (!h->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 200 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&h->wake, &h->mu, &ts);
        berth_us now = berth__mono_us();
        for (struct conn *k = h->conns; k; k = k->next) {
            berth_us limit = k->phase == HEADERS ? o->header_timeout_us
                             : k->phase == BODY  ? o->body_timeout_us
                                                 : 0;
            if (limit > 0 && now - k->since > limit && k->fd >= 0) {
                shutdown(k->fd, SHUT_RDWR); /* its thread sees the end and cleans up */
                if (k->phase == HEADERS)
                    h->cut_headers++;
                else
                    h->cut_body++;
                k->fd = -1;
            }
        }
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}
