/* las: least attained service first, on GPU-time (run time x gang size), preemptive.
 * Re-evaluated at every arrival and completion and every quantum (--quantum, default 60 s,
 * or its setting quantum) while jobs wait. A job that (re)starts runs at least one quantum
 * before anything can preempt it, so jobs of equal service trade places at most once a
 * quantum instead of at every event (continuous LAS otherwise degenerates into processor
 * sharing at the event rate). Preemption is free here (checkpoint costs belong to the
 * throughput model). In overload the jobs at the boundary still trade places every quantum
 * as their service crosses (hundreds of preemptions per job); the setting hysteresis=H
 * (default 0, off) lets a waiting job take a running one's GPUs only when the running job
 * has more than 1 + H times its attained GPU-time, so a job is preempted about log(size) /
 * log(1 + H) times instead of size / quantum. It takes the ordering family's settings too
 * (sched/order.h). */
#include "sched/order.h"

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

/* A pass's preemptions at most, by default: more than a 2-core machine swaps in about 2 ms
 * (a quantum boundary of 40,000 jobs at once took 40-70 ms in berthd at 100,000 pending);
 * the rest 1 us later. Only clusters of more than this many running jobs ever reach it. */
#define LAS_MAX_PREEMPT 2000

struct las_settings {
    berth_us quantum_us;
    double hysteresis, max_preempt;
    struct berth__order_set o;
};

static const struct berth__setting settings[] = {
    {"quantum", BERTH_SET_SECONDS, offsetof(struct las_settings, quantum_us), 0.001, 1e6,
     "time slice and minimum run time, seconds (default: --quantum, 60)"},
    {"hysteresis", BERTH_SET_DOUBLE, offsetof(struct las_settings, hysteresis), 0, 1e6,
     "a running job yields to a waiting one only when its attained GPU-time exceeds the "
     "waiting job's by more than this fraction of it (default 0: any excess)"},
    {"max_preempt", BERTH_SET_DOUBLE, offsetof(struct las_settings, max_preempt), 0, 1e9,
     "at most this many preemptions a pass, the rest 1 us later in the next pass, so a "
     "quantum boundary's swaps spread over passes (default 2000; 0: no limit)"},
    BERTH_ORDER_SETTINGS(struct las_settings, o),
};

static int create_las(const struct berth__params *p, void **self, struct berth_err *err)
{
    struct las_settings s = {.quantum_us = p->quantum_us, .max_preempt = LAS_MAX_PREEMPT};
    berth__order_defaults(&s.o, 0);
    int rc = berth__settings_parse("las", p->settings, settings, sizeof settings / sizeof *settings,
                                   &s, err);
    if (rc)
        return rc;
    struct berth__prio_cfg cfg = {.key = key_attained,
                                  .slope = slope_gang,
                                  .preemptive = 1,
                                  .quantum_us = s.quantum_us,
                                  .min_run_us = s.quantum_us,
                                  .hysteresis = s.hysteresis,
                                  .max_preempt = s.max_preempt};
    struct berth__params q = *p;
    q.settings = NULL; /* parsed above */
    return berth__order_create("las", &q, settings, sizeof settings / sizeof *settings, &s, &s.o,
                               &cfg, self, err);
}

const struct berth__policy_ops berth__policy_las = {
    .name = "las",
    .summary = "least attained GPU-time first, preemptive, re-evaluated every --quantum",
    .default_placement = "consolidate",
    .create = create_las,
    .destroy = berth__prio_destroy_v,
    .plan = berth__prio_plan_v,
    .next_pass = berth__prio_next_pass_v,
    .check = berth__prio_check_v,
    .why = berth__prio_why_v,
    .settings = settings,
    .nsettings = sizeof settings / sizeof *settings,
    .queues = 1,
};
