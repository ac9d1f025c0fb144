/* fairshare: Slurm's multifactor priority with the fair-share factor alone (sched/
 * fairshare.h): the jobs of the user and queue that used least of their shares (GPU-time
 * decayed with a half-life, shares from the queues file) first, arrival order between
 * equals, first fit; never preempts. The other ordering policies weigh the same factor into
 * their own keys with fairshare_weight; this one orders by nothing else. It takes the
 * family's settings (sched/order.h): backfill=1 adds EASY backfill. */
#include "sched/order.h"

static int64_t key_arrival(void *ctx, const struct berth__job *j)
{
    (void)ctx;
    return j->queued_us;
}

struct fs_settings {
    struct berth__order_set o;
};

static const struct berth__setting settings[] = {BERTH_ORDER_SETTINGS(struct fs_settings, o)};

static int create(const struct berth__params *p, void **self, struct berth_err *err)
{
    struct fs_settings s;
    berth__order_defaults(&s.o, 0);
    struct berth__prio_cfg cfg = {
        .key = key_arrival, .slope = berth__prio_slope_none, .fs_order = 1};
    return berth__order_create("fairshare", p, settings, sizeof settings / sizeof *settings, &s,
                               &s.o, &cfg, self, err);
}

const struct berth__policy_ops berth__policy_fairshare = {
    .name = "fairshare",
    .summary = "fair-share (Slurm's multifactor): the least-served user and queue first, by "
               "decayed GPU-time against shares, then arrival; first fit",
    .default_placement = "consolidate",
    .create = create,
    .destroy = berth__prio_destroy_v,
    .plan = berth__prio_plan_v,
    .check = berth__prio_check_v,
    .why = berth__prio_why_v,
    .settings = settings,
    .nsettings = sizeof settings / sizeof *settings,
    .queues = 1,
};
