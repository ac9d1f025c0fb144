/* berthd's HTTP server (http.c, on libmicrohttpd): TCP and the Unix socket, the caller
 * authenticated before any body byte is kept, deadlines and per-address caps, requests
 * handed to the routes (routes.h). berthd's main gives start and stop to the daemon's run
 * (daemon.h's berth__daemon_server). */
#ifndef BERTH_LIVE_HTTP_HTTP_H
#define BERTH_LIVE_HTTP_HTTP_H

#include <stdint.h>

#include "live/daemon/daemon.h"

struct berth__route;
struct berth__caller;
struct berth__hresp;
/* The routes the server answers from (routes.h: routes.c's berth__routes and
 * berth__route_admit), given by berthd's main before berth__http_start. The server names
 * no handler itself, so that the handlers may use its helpers and counters (this file,
 * berth__hresp_error) while calls go one way: handlers -> server. */
struct berth__http_table {
    const struct berth__route *routes;
    size_t n;
    int (*admit)(struct berth__daemon *d, const struct berth__route *rt, uint64_t id,
                 const char *job_token, struct berth__caller *who, uint64_t *job_id,
                 struct berth__hresp *out);
};
void berth__http_routes(const struct berth__http_table *t);
/* The table given (for /metrics' counters by route). */
const struct berth__http_table *berth__http_table(void);

int berth__http_start(struct berth__daemon *d, struct berth_err *err);
void berth__http_stop(struct berth__daemon *d);
/* Before the stop of a restart (berth__daemon_server.handover): the listeners stop accepting
 * (new connections wait in the backlog), their sockets stay open across exec, and env gets
 * "tcp=FD [met=FD] [unix=FD]", which berth__http_start of the next berthd reads from
 * BERTH_LISTEN_FDS: the same port and socket, no connection refused meanwhile. */
void berth__http_handover(struct berth__daemon *d, char *env, size_t n);
/* Requests answered, per route (berth__route_index; the last: no route) and status code
 * (berth__http_code_index), for /metrics. */
#define BERTH_HTTP_CODES 16
extern const int berth__http_codes[BERTH_HTTP_CODES]; /* the last, 0: any other code */
uint64_t berth__http_count(struct berth__daemon *d, size_t route, size_t code);
/* Where the metrics listener is bound ("" when there is none). */
const char *berth__http_metrics_addr(struct berth__daemon *d);
/* Connections open now, and those its watchdog closed for missing a deadline. */
/* The connections not yet admitted and the handlers' workers, for /v1/health and /metrics. */
struct berth__http_pool {
    uint64_t evicted;       /* connections not yet admitted closed for a newcomer */
    uint64_t done, refused; /* items the workers ran; refused (berthd stopping) */
    size_t unadmitted;      /* connections waiting for their headers (or admission) now */
    size_t workers, busy, queued, max_queued;
};
void berth__http_pool_stats(struct berth__daemon *d, struct berth__http_pool *p);
void berth__http_stats(struct berth__daemon *d, uint64_t *open, uint64_t *cut_headers,
                       uint64_t *cut_body);

#endif
