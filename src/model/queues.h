/* A shared cluster's queues, as an operator declares them in a queues file (io/queues_load.c
 * reads it; berth sim --queues FILE, berthd's `queues` setting): Kueue's ClusterQueues and
 * cohorts, Slurm's fair-share shares and per-user limits. The ordering policies read it
 * through sched/quota.h and sched/fairshare.h; nothing here changes while a run goes on.
 *
 *  - a queue has a nominal GPU quota per GPU type (milli-GPUs, bound to the cluster's types
 *    when the file is read), a borrowing limit (how far past its quota it may go on what its
 *    cohort mates do not use) and a lending limit (how much of its quota its mates may
 *    borrow); a queue in no cohort never borrows. A queue without a quota has no quota gate
 *    at all (only its limits and share apply);
 *  - queue "*" takes the jobs of every queue the file does not name; a job without a queue
 *    is in queue "default"; a file without queue lines gates no queue (users only);
 *  - users have fair-share shares and limits; user "*" is everyone's default;
 *  - GPU types have a usage weight (Slurm's TRESBillingWeights), 1 unless given. */
#ifndef BERTH_MODEL_QUEUES_H
#define BERTH_MODEL_QUEUES_H

#include <stddef.h>
#include <stdint.h>

#include "model/cluster.h"
#include "util/mem.h"

#define BERTH_Q_UNLIMITED INT64_MAX

struct berth__qdef {
    const char *name;
    int32_t cohort; /* index into cohorts, -1 = none */
    uint8_t has_quota;
    int64_t nominal[BERTH_MAX_GPU_TYPES]; /* milli-GPUs per cluster type */
    int64_t borrow[BERTH_MAX_GPU_TYPES];  /* milli-GPUs past nominal, BERTH_Q_UNLIMITED */
    int64_t lend[BERTH_MAX_GPU_TYPES];    /* milli-GPUs of nominal mates may use, UNLIMITED = all */
    double share;                         /* fair-share weight, > 0 (1 unless given) */
    int64_t max_gpus;    /* milli-GPUs its running jobs may hold at once, 0 = no limit */
    int64_t max_pending; /* jobs waiting at once (berthd refuses more: 429), 0 = no limit */
    uint32_t line;
};

struct berth__udef {
    const char *name;
    double share;        /* > 0; -1 = not given here (user "*"'s applies) */
    int64_t max_gpus;    /* milli-GPUs of running jobs, 0 = no limit, -1 = not given */
    int64_t max_pending; /* 0 = no limit, -1 = not given */
    uint32_t line;
};

struct berth_queues {
    const char *path;
    struct berth__qdef *q;
    size_t nq;
    int32_t qdefault; /* index of queue "*", -1 = none */
    struct berth__udef *u;
    size_t nu;
    int32_t udefault; /* index of user "*", -1 = none */
    const char **cohorts;
    size_t ncohorts;
    size_t ntypes;                           /* the cluster's, when the file was bound */
    double type_weight[BERTH_MAX_GPU_TYPES]; /* usage weight per cluster type */
    struct berth__arena names;
};

/* The queue a job of queue name `name` ("" = "default") belongs to: its index, the index of
 * "*" when the file does not name it, or -1 when neither (the job cannot run). */
int32_t berth__queues_find(const struct berth_queues *q, const char *name);
/* The user record of user `name` (NULL when neither it nor "*" is listed). */
const struct berth__udef *berth__queues_user(const struct berth_queues *q, const char *name);
/* A user's share, GPU limit (milli) and pending-jobs limit, with "*" filling what the
 * user's own line does not give (shares default to 1, limits to none). */
double berth__queues_user_share(const struct berth_queues *q, const char *name);
int64_t berth__queues_user_max_gpus(const struct berth_queues *q, const char *name);
int64_t berth__queues_user_max_pending(const struct berth_queues *q, const char *name);

#endif
