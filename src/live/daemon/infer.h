/* Capacity loaning live (infer.c): a subsystem of the daemon's core. */
#ifndef BERTH_LIVE_DAEMON_INFER_H
#define BERTH_LIVE_DAEMON_INFER_H

#include "live/daemon/core.h"

/* One change of the inference pool's state (infer.c), for GET /v1/inference/history: the
 * demand, the servers reserved and ready, and, on the tick a shortfall ended, its length. */
#define BERTH_INFER_HIST 4096
struct berth__infer_rec {
    berth_us t_us; /* wall clock */
    int32_t demand, reserved, ready;
    berth_us reclaim_us; /* -1 unless a shortfall ended here */
};

/* Capacity loaning live (infer.c): the cluster's "inference" pool and the demand an
 * inference manager posts. Integrals in GPU- and server-microseconds; latencies in us. */
struct berth__infer {
    int32_t servers, gpus; /* the pool (0 servers: no pool, no loaning) */
    uint32_t *srv;         /* its servers' indices, servers of them */
    int32_t demand;        /* servers inference needs now */
    int32_t reserved;      /* servers of the pool reserved for inference now */
    int32_t ready;         /* of those, servers with no training process left */
    berth_us since_us;     /* the integrals run up to here */
    berth_us short_since;  /* demand above ready since (BERTH_TIME_NONE: not short) */
    berth_us last_reclaim_us, max_reclaim_us; /* demand rise -> enough servers free */
    uint64_t reclaims, changes;
    double lent_gpu_us, short_server_us;
    struct berth__infer_rec *hist; /* the last BERTH_INFER_HIST changes, a ring (NULL: none) */
    uint64_t nhist;                /* changes recorded since start (the ring holds the last) */
};

/* Capacity loaning (infer.c), under d->mu. init: after recovery, reserves the idle servers
 * of the "inference" pool and restores the demand (STATE/inference-demand; none: the whole
 * pool). set: a new demand in servers, stored durably first (BERTH_EINPUT naming
 * demand_servers when out of range or there is no pool). Each tick
 * (its hook) it updates the reclaim latency and the integrals. */
int berth__daemon_infer_init(struct berth__daemon *d, berth_us now, struct berth_err *err);
int berth__daemon_infer_set(struct berth__daemon *d, int32_t servers, berth_us now,
                            struct berth_err *err);
/* Makes d->infer and registers the subsystem with the core; at create. */
int berth__infer_attach(struct berth__daemon *d, struct berth_err *err);

#endif
