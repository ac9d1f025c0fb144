/* priority: the job's own priority first (larger = more important: a trace's priority
 * column, berth submit -p), arrival order within a priority, first fit. With the setting
 * preempt=1 a waiting job takes the GPUs of running jobs of strictly lower priority, the
 * lowest first (Slurm's preempt/partition_prio, Kubernetes' PriorityClass); without it
 * (the default) nothing is preempted. This whole policy is this file and a line in
 * registry.c: the ordering scheduler (sched/prio.h) does the rest, and the ordering family's
 * settings (sched/order.h: backfill, fair-share, quotas) come with it. */
#include <stddef.h>

#include "sched/order.h"

struct priority_settings {
    int preempt;
    struct berth__order_set o; /* the ordering family's (sched/order.h) */
};

static const struct berth__setting settings[] = {
    {"preempt", BERTH_SET_BOOL, offsetof(struct priority_settings, preempt), 0, 1,
     "1: a waiting job preempts running jobs of strictly lower priority (default 0)"},
    BERTH_ORDER_SETTINGS(struct priority_settings, o),
};

static int64_t key_priority(void *ctx, const struct berth__job *j)
{
    (void)ctx;
    return -(int64_t)j->spec->priority; /* lower keys run first; ties: the earlier job */
}

static int create(const struct berth__params *p, void **self, struct berth_err *err)
{
    struct priority_settings set = {0};
    berth__order_defaults(&set.o, 0);
    int rc = berth__settings_parse("priority", p->settings, settings,
                                   sizeof settings / sizeof *settings, &set, err);
    if (rc)
        return rc;
    struct berth__prio_cfg cfg = {
        .key = key_priority, .slope = berth__prio_slope_none, .preemptive = set.preempt};
    struct berth__params q = *p;
    q.settings = NULL; /* parsed above: preempt decides the configuration */
    return berth__order_create("priority", &q, settings, sizeof settings / sizeof *settings, &set,
                               &set.o, &cfg, self, err);
}

const struct berth__policy_ops berth__policy_priority = {
    .name = "priority",
    .summary = "the job's priority first (larger first), then arrival, first fit; preempt=1 "
               "preempts lower priorities",
    .default_placement = "consolidate",
    .create = create,
    .destroy = berth__prio_destroy_v,
    .plan = berth__prio_plan_v,
    .check = berth__prio_check_v,
    .why = berth__prio_why_v,
    .queues = 1,
    .settings = settings,
    .nsettings = sizeof settings / sizeof *settings,
};
