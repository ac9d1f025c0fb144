/* A bounded queue of work run on a fixed set of threads: berthd's HTTP handlers run here, so
 * that the few threads reading and writing sockets (libmicrohttpd's epoll pool) never wait on
 * the daemon's lock, a journal commit or an estimate, and a connection costs a thread only
 * while its request is being answered. */
#ifndef BERTH_LIVE_HTTP_WORKQ_H
#define BERTH_LIVE_HTTP_WORKQ_H

#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"

struct berth__workq;
typedef void (*berth__work_fn)(void *arg);

struct berth__workq_stats {
    uint64_t done, refused;       /* items run; pushes refused (queue full, stopping) */
    size_t threads, busy, queued; /* now */
    size_t max_queued;            /* the deepest the queue has been */
};

/* threads workers, at most cap items waiting. at_exit (may be NULL) runs on each worker as it
 * ends (per-thread cleanup of what handlers used). */
int berth__workq_start(size_t threads, size_t cap, void (*at_exit)(void), struct berth__workq **out,
                       struct berth_err *err);
/* Queues fn(arg): 0, or -1 when the queue is full or stopping (fn is then not run). */
int berth__workq_push(struct berth__workq *q, berth__work_fn fn, void *arg);
/* Runs what is queued, then joins the workers; later pushes are refused. NULL: nothing. */
void berth__workq_stop(struct berth__workq *q);
/* Stops q if it runs, then frees it. NULL: nothing. */
void berth__workq_free(struct berth__workq *q);
void berth__workq_stats(struct berth__workq *q, struct berth__workq_stats *st);

#endif
