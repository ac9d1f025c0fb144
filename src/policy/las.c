/* las: least attained service first, on GPU-time (run time x gang size), preemptive.
 * Re-evaluated at every arrival and completion and every quantum (--quantum, default 60 s)
 * while jobs wait, so jobs of equal service trade places at most once a quantum instead of
 * thrashing. Preemption is free here (checkpoint costs belong to the throughput model). */
#include "prio.h"

static int64_t key_attained(const struct berth_job *j)
{
    return j->gpu_us; /* folded at j->since */
}

static int64_t slope_gang(const struct berth_job *j)
{
    return j->spec->num_gpus;
}

static int create_las(const struct berth_params *p, void **self, struct berth_err *err)
{
    struct berth__prio_cfg cfg = {key_attained, slope_gang, 1, 0, p->quantum_us};
    return berth__prio_create_v(&cfg, self, err);
}

const struct berth_policy_ops berth__policy_las = {
    "las",
    "least attained GPU-time first, preemptive, re-evaluated every --quantum",
    "consolidate",
    create_las,
    berth__prio_destroy_v,
    berth__prio_plan_v,
    berth__prio_next_pass_v,
};
