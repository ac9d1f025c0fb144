/* Why a pending job waits, as a policy knows it after its last pass: a code like Slurm's
 * reasons and what holds the job (a job ahead of it, a quota or limit, a reservation).
 * berthd turns it into `berth queue`'s REASON column and `berth why`'s sentence. */
#ifndef BERTH_SCHED_WHY_H
#define BERTH_SCHED_WHY_H

#include <stdint.h>

#include "berth/time.h"

enum berth__why_code {
    BERTH_WHY_NONE = 0,      /* not waiting, or the policy cannot say */
    BERTH_WHY_PRIORITY = 1,  /* jobs ahead of it in the policy's order go first (blocker) */
    BERTH_WHY_RESOURCES = 2, /* it is next, and the idle GPUs are too few */
    BERTH_WHY_QUOTA = 3,     /* its queue's quota, its cohort, or a queue or user limit */
    BERTH_WHY_RESERVED = 4,  /* backfill: starting it would delay the reserved job (blocker) */
    BERTH_WHY_TOPOLOGY = 5,  /* enough idle GPUs, but no domain of its required topology level
                                (rack, block, ...) holds its gang */
};

enum berth__why_limit {
    BERTH_LIMIT_NOMINAL = 1,    /* the queue's quota, and it may not borrow (no cohort) */
    BERTH_LIMIT_BORROW = 2,     /* the queue's borrowing limit */
    BERTH_LIMIT_COHORT = 3,     /* the cohort has nothing left to lend */
    BERTH_LIMIT_QUEUE_GPUS = 4, /* the queue's max_gpus */
    BERTH_LIMIT_USER_GPUS = 5,  /* the user's max_gpus */
};

#define BERTH_WHY_NOBODY UINT32_MAX

struct berth__why {
    int code;          /* enum berth__why_code */
    uint32_t blocker;  /* the engine job that holds it (PRIORITY, RESERVED), or NOBODY */
    int32_t queue;     /* QUOTA: the queue's number (sched/tenant.h), -1 */
    int limit;         /* QUOTA: enum berth__why_limit */
    int type;          /* QUOTA: the GPU type concerned (-1: all) */
    int64_t used, cap; /* QUOTA: milli-GPUs in use and the cap they hit */
    berth_us until;    /* RESERVED / RESOURCES with a reservation: when the reserved job starts */
};

#endif
