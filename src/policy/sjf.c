/* sjf and srtf: shortest job first on oracle knowledge of run time. sjf orders by the
 * expected run time alone (the duration, or a step job's time on its fastest GPU type) and
 * never preempts; srtf orders by the expected time left and preempts a running job whose
 * time left is longer than a waiting job's. */
#include "sched/prio.h"

static int64_t key_duration(void *ctx, const struct berth__job *j)
{
    (void)ctx;
    return j->est_us;
}

static int64_t key_remaining(void *ctx, const struct berth__job *j)
{
    (void)ctx;
    /* as of j->since, where the executor has folded the work done */
    return berth__job_left_us(j, j->since);
}

static int64_t slope_countdown(void *ctx, const struct berth__job *j)
{
    (void)ctx;
    (void)j;
    return -1; /* remaining time falls by one microsecond per microsecond run */
}

static int create_sjf(const struct berth__params *p, void **self, struct berth_err *err)
{
    (void)p;
    struct berth__prio_cfg cfg = {.key = key_duration, .slope = berth__prio_slope_none};
    return berth__prio_create_v(&cfg, self, err);
}

static int create_srtf(const struct berth__params *p, void **self, struct berth_err *err)
{
    (void)p;
    struct berth__prio_cfg cfg = {.key = key_remaining, .slope = slope_countdown, .preemptive = 1};
    return berth__prio_create_v(&cfg, self, err);
}

const struct berth__policy_ops berth__policy_sjf = {
    .name = "sjf",
    .summary = "shortest job first (oracle duration), non-preemptive, first fit",
    .default_placement = "consolidate",
    .create = create_sjf,
    .destroy = berth__prio_destroy_v,
    .plan = berth__prio_plan_v,
};

const struct berth__policy_ops berth__policy_srtf = {
    .name = "srtf",
    .summary = "shortest remaining time first (oracle), preemptive",
    .default_placement = "consolidate",
    .create = create_srtf,
    .destroy = berth__prio_destroy_v,
    .plan = berth__prio_plan_v,
};
