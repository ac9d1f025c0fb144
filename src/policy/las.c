/* las: least attained service first, on GPU-time (run time x gang size), preemptive.
 * Re-evaluated at every arrival and completion and every quantum (--quantum, default 60 s)
 * while jobs wait. A job that (re)starts runs at least one quantum before anything can
 * preempt it, so jobs of equal service trade places at most once a quantum instead of at
 * every event (continuous LAS otherwise degenerates into processor sharing at the event
 * rate). Preemption is free here (checkpoint costs belong to the throughput model). */
#include "sched/prio.h"

static int64_t key_attained(void *ctx, const struct berth__job *j)
{
    (void)ctx;
    return j->gpu_us; /* folded at j->since */
}

static int64_t slope_gang(void *ctx, const struct berth__job *j)
{
    (void)ctx;
    return j->gpus;
}

static int create_las(const struct berth__params *p, void **self, struct berth_err *err)
{
    struct berth__prio_cfg cfg = {.key = key_attained,
                                  .slope = slope_gang,
                                  .preemptive = 1,
                                  .quantum_us = p->quantum_us,
                                  .min_run_us = p->quantum_us};
    return berth__prio_create_v(&cfg, self, err);
}

const struct berth__policy_ops berth__policy_las = {
    .name = "las",
    .summary = "least attained GPU-time first, preemptive, re-evaluated every --quantum",
    .default_placement = "consolidate",
    .create = create_las,
    .destroy = berth__prio_destroy_v,
    .plan = berth__prio_plan_v,
    .next_pass = berth__prio_next_pass_v,
};
