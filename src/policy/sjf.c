/* sjf and srtf: shortest job first on oracle knowledge of run time. sjf orders by the
 * expected run time alone (the duration, or a step job's time on its fastest GPU type) and
 * never preempts; srtf orders by the expected time left and preempts a running job whose
 * time left is longer than a waiting job's. Both take the ordering family's settings
 * (sched/order.h). */
#include "sched/order.h"

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

struct sjf_settings {
    struct berth__order_set o;
};

static const struct berth__setting settings[] = {BERTH_ORDER_SETTINGS(struct sjf_settings, o)};
#define NSETTINGS (sizeof settings / sizeof *settings)

static int create(const char *name, const struct berth__params *p, struct berth__prio_cfg *cfg,
                  void **self, struct berth_err *err)
{
    struct sjf_settings s;
    berth__order_defaults(&s.o, 0);
    return berth__order_create(name, p, settings, NSETTINGS, &s, &s.o, cfg, self, err);
}

static int create_sjf(const struct berth__params *p, void **self, struct berth_err *err)
{
    struct berth__prio_cfg cfg = {.key = key_duration, .slope = berth__prio_slope_none};
    return create("sjf", p, &cfg, self, err);
}

static int create_srtf(const struct berth__params *p, void **self, struct berth_err *err)
{
    struct berth__prio_cfg cfg = {.key = key_remaining, .slope = slope_countdown, .preemptive = 1};
    return create("srtf", p, &cfg, self, err);
}

#define ORDERING_OPS                                                                               \
    .default_placement = "consolidate", .destroy = berth__prio_destroy_v,                          \
    .plan = berth__prio_plan_v, .check = berth__prio_check_v, .why = berth__prio_why_v,            \
    .settings = settings, .nsettings = NSETTINGS, .queues = 1

const struct berth__policy_ops berth__policy_sjf = {
    .name = "sjf",
    .summary = "shortest job first (oracle duration), non-preemptive, first fit",
    .create = create_sjf,
    ORDERING_OPS,
};

const struct berth__policy_ops berth__policy_srtf = {
    .name = "srtf",
    .summary = "shortest remaining time first (oracle), preemptive",
    .create = create_srtf,
    ORDERING_OPS,
};
