/* What every policy of the ordering family (fifo, fifo-skip, sjf, srtf, las, priority,
 * backfill, fairshare) takes besides its key: EASY backfill, a fair-share factor weighed
 * into its key, and the queues file's quotas and limits (sched/prio.h says what each does).
 * A policy puts BERTH_ORDER_SETTINGS in its settings table and calls berth__order_create,
 * so the family's settings are written once and `berth policies --args` lists them with
 * each policy's own. */
#ifndef BERTH_SCHED_ORDER_H
#define BERTH_SCHED_ORDER_H

#include <stddef.h>

#include "sched/prio.h"
#include "sched/settings.h"

struct berth__order_set {
    int backfill;
    double backfill_depth;
    int backfill_topology;
    berth_us fs_weight_us, fs_half_life_us, fs_period_us;
};

/* The family's settings as entries of a policy's table whose settings struct T holds a
 * struct berth__order_set named m. */
/* clang-format off */
#define BERTH_ORDER_SETTINGS(T, m)                                                                 \
    {"backfill", BERTH_SET_BOOL, offsetof(T, m.backfill), 0, 1,                                    \
     "1: EASY backfill: the first job that cannot start gets a reservation from the running "     \
     "jobs' time limits, and later jobs start only if they do not delay it (default 0)"},         \
    {"backfill_depth", BERTH_SET_DOUBLE, offsetof(T, m.backfill_depth), 1, 1e7,                    \
     "jobs a pass looks at past the reservation (Slurm's bf_max_job_test; default 1000)"},         \
    {"backfill_topology", BERTH_SET_BOOL, offsetof(T, m.backfill_topology), 0, 1,                  \
     "1: on a cluster with a topology, a head job with a required or preferred level gets its "  \
     "reservation inside one domain of that level, and later jobs that would run past it "       \
     "start outside that domain; 0: GPUs counted per type (default 1)"},                          \
    BERTH_FAIRSHARE_SETTINGS(T, m,                                                                 \
                             "seconds (GPU-seconds under las) a job's key improves by at a "      \
                             "fair-share factor of 1 (default 0: fair-share not weighed)")
/* The fair-share part alone (tiresias-* take it without backfill), weight_help saying the
 * weight's unit for the policy. */
#define BERTH_FAIRSHARE_SETTINGS(T, m, weight_help)                                                \
    {"fairshare_weight", BERTH_SET_SECONDS, offsetof(T, m.fs_weight_us), 0, 1e9, weight_help},    \
    {"fairshare_half_life", BERTH_SET_SECONDS, offsetof(T, m.fs_half_life_us), 1, 1e10,            \
     "half-life of the usage decay, seconds (default 604800: 7 days)"},                            \
    {"fairshare_period", BERTH_SET_SECONDS, offsetof(T, m.fs_period_us), 0.001, 1e9,               \
     "seconds between recomputations of the fair-share factors (default 300)"}
/* clang-format on */

/* The family's defaults (backfill off unless the policy is backfill itself). */
void berth__order_defaults(struct berth__order_set *s, int backfill);
/* Parses p->settings for policy `name` by table t[0..n) into set (whose member o is the
 * family's part), then creates the ordering scheduler of cfg with the family's settings and
 * p's queues file. */
int berth__order_create(const char *name, const struct berth__params *p,
                        const struct berth__setting *t, size_t n, void *set,
                        const struct berth__order_set *o, struct berth__prio_cfg *cfg, void **self,
                        struct berth_err *err);

#endif
