/* sjf and srtf: shortest job first on oracle knowledge of run time. sjf orders by total
 * duration and never preempts; srtf orders by remaining time and preempts a running job
 * whose remaining time is longer than a waiting job's. */
#include "prio.h"

static int64_t key_duration(const struct berth_job *j)
{
    return j->spec->duration_us;
}

static int64_t key_remaining(const struct berth_job *j)
{
    /* folded at j->since, so run_us is exact */
    return j->spec->duration_us - j->run_us;
}

static int64_t slope_countdown(const struct berth_job *j)
{
    (void)j;
    return -1; /* remaining time falls by one microsecond per microsecond run */
}

static int create_sjf(const struct berth_params *p, void **self, struct berth_err *err)
{
    (void)p;
    struct berth__prio_cfg cfg = {.key = key_duration, .slope = berth__prio_slope_none};
    return berth__prio_create_v(&cfg, self, err);
}

static int create_srtf(const struct berth_params *p, void **self, struct berth_err *err)
{
    (void)p;
    struct berth__prio_cfg cfg = {.key = key_remaining, .slope = slope_countdown, .preemptive = 1};
    return berth__prio_create_v(&cfg, self, err);
}

const struct berth_policy_ops berth__policy_sjf = {
    "sjf",
    "shortest job first (oracle duration), non-preemptive, first fit",
    "consolidate",
    create_sjf,
    berth__prio_destroy_v,
    berth__prio_plan_v,
    NULL,
};

const struct berth_policy_ops berth__policy_srtf = {
    "srtf",
    "shortest remaining time first (oracle), preemptive",
    "consolidate",
    create_srtf,
    berth__prio_destroy_v,
    berth__prio_plan_v,
    NULL,
};
