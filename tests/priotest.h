/* One pass of the generic ordering scheduler (src/sched/prio.c) outside any engine, for the
 * tests that drive it by hand: the plan opens on the cluster at now, the view says which jobs
 * arrived and left, and the cluster must verify afterwards. Jobs [0, upto) are the ones that
 * count as pending or running. prio_open and prio_close make and free the scheduler. */
#ifndef BERTH_TESTS_PRIOTEST_H
#define BERTH_TESTS_PRIOTEST_H

#include "plantest.h"
#include "sched/prio.h"

static inline void prio_pass(struct berth__prio *q, struct berth__plan *plan,
                             struct berth_cluster *c, struct berth__job *jobs, size_t njobs,
                             size_t upto, berth_us now, const uint32_t *arrived, size_t na,
                             const uint32_t *left, size_t nl)
{
    size_t npending = 0, nrunning = 0;
    for (size_t i = 0; i < upto; i++) {
        npending += jobs[i].state == BERTH_JOB_PENDING;
        nrunning += jobs[i].state == BERTH_JOB_RUNNING;
    }
    CHECK_I64(berth__plan_open(plan, c, jobs, njobs, now,
                               berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), npending,
                               nrunning),
              0);
    struct berth__view v = {.now = now,
                            .cluster = c,
                            .jobs = jobs,
                            .njobs = njobs,
                            .arrived = arrived,
                            .narrived = na,
                            .left = left,
                            .nleft = nl,
                            .npending = npending,
                            .nrunning = nrunning,
                            .infer_demand = -1};
    struct berth_err err = {0};
    CHECK_I64(berth__prio_plan(q, &v, plan, &err), 0);
    verify_ok(c);
}

/* A scheduler for cfg and an empty plan: 0, or -1 when it could not be made. */
static inline int prio_open(const struct berth__prio_cfg *cfg, struct berth__prio **q,
                            struct berth__plan *plan)
{
    struct berth_err err = {0};
    CHECK_I64(berth__prio_create(cfg, q, &err), 0);
    berth__plan_init(plan);
    return *q ? 0 : -1;
}

static inline void prio_close(struct berth__prio *q, struct berth__plan *plan,
                              struct berth_cluster *c, struct berth__job *jobs, size_t njobs)
{
    berth__prio_destroy(q);
    berth__plan_free(plan);
    for (size_t i = 0; i < njobs; i++)
        free(jobs[i].slots);
    berth_cluster_free(c);
}

#endif
