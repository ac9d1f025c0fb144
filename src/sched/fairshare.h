/* Fair-share as Slurm's multifactor plugin computes it (its classic algorithm, on two
 * levels): every user and every queue has a usage, the GPU-time its running jobs held
 * (GPUs x share x the GPU type's weight, model/queues.h), decayed continuously with a
 * half-life h, so usage at t is U(t0) 2^-((t-t0)/h) plus what ran since, decayed likewise.
 * An entity x's factor is F_x = 2^(-u_x / s_x), u_x its usage over the usage of every
 * entity of its level, s_x its share over the shares of every entity of its level seen so
 * far (shares from the queues file, else 1). A job's factor is sqrt(F_user * F_queue): 1
 * for a user and queue that used nothing, 0.5 when both used just their share.
 *
 * Factors are recomputed every period (Slurm's PriorityCalcPeriod) on a grid from time 0,
 * and in between they stay put, so the order of waiting jobs changes only then; usage
 * itself is exact at every instant. Cost: a charge is O(1); a recomputation
 * O(users + queues). */
#ifndef BERTH_SCHED_FAIRSHARE_H
#define BERTH_SCHED_FAIRSHARE_H

#include "sched/tenant.h"

struct berth__fs_entity {
    double usage; /* weighted GPU-microseconds, decayed to `at` */
    double rate;  /* weighted GPUs its running jobs hold now */
    berth_us at;
    double share;  /* its shares (not normalised) */
    double factor; /* as of the last recomputation */
};

struct berth__fairshare {
    const struct berth_queues *qf; /* may be NULL: shares 1, weights 1 */
    struct berth__tenants *t;
    berth_us half_life, period, next;
    struct berth__fs_entity *users, *queues;
    size_t nusers, ucap, nqueues, qcap;
    double *jrate; /* per job: what its running charge adds to its entities' rates */
    uint8_t *jon;
    size_t jcap;
};

/* half_life and period > 0. */
void berth__fs_init(struct berth__fairshare *f, const struct berth_queues *qf,
                    struct berth__tenants *t, berth_us half_life, berth_us period);
void berth__fs_free(struct berth__fairshare *f);
/* Job j (seen by the tenants) is known: its entities exist from now on (factor 1 until the
 * next recomputation when new). 0 or BERTH_ENOMEM. */
int berth__fs_see(struct berth__fairshare *f, const struct berth__job *j, berth_us now);
/* Running job j starts (on = 1) or stops holding its GPUs at now. 0 or BERTH_ENOMEM. */
int berth__fs_charge(struct berth__fairshare *f, const struct berth__job *j, int on, berth_us now);
/* Recomputes every factor when a period boundary has passed since the last time (or never
 * was): 1 when it did (the caller re-keys), else 0. */
int berth__fs_update(struct berth__fairshare *f, berth_us now);
/* Job j's factor in (0, 1] as of the last recomputation. */
double berth__fs_factor(const struct berth__fairshare *f, uint32_t j);
/* An entity's decayed usage at now in GPU-seconds (users: level 0, queues: level 1). */
double berth__fs_usage(const struct berth__fairshare *f, int level, int32_t id, berth_us now);

#endif
