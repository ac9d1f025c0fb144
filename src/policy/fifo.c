/* fifo, fifo-skip and backfill: arrival order. fifo is strict (the head of the queue blocks
 * everyone, as in Tiresias' fifo); fifo-skip is first fit (a job starts whenever it fits,
 * even if an earlier one does not); backfill is EASY backfill (the head that does not fit
 * gets a reservation, and later jobs start only if they do not delay it: fifo order with
 * the family's backfill setting on). None preempts. Each takes the ordering family's
 * settings (sched/order.h). */
#include "sched/order.h"

static int64_t key_arrival(void *ctx, const struct berth__job *j)
{
    (void)ctx;
    return j->queued_us; /* ties: the lower job number, the earlier in arrival order */
}

struct fifo_settings {
    struct berth__order_set o;
};

static const struct berth__setting settings[] = {BERTH_ORDER_SETTINGS(struct fifo_settings, o)};
#define NSETTINGS (sizeof settings / sizeof *settings)

static int create(const char *name, const struct berth__params *p, int strict, int backfill,
                  void **self, struct berth_err *err)
{
    struct fifo_settings s;
    berth__order_defaults(&s.o, backfill);
    struct berth__prio_cfg cfg = {
        .key = key_arrival, .slope = berth__prio_slope_none, .strict = strict};
    return berth__order_create(name, p, settings, NSETTINGS, &s, &s.o, &cfg, self, err);
}

static int create_fifo(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create("fifo", p, 1, 0, self, err);
}

static int create_fifo_skip(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create("fifo-skip", p, 0, 0, self, err);
}

static int create_backfill(const struct berth__params *p, void **self, struct berth_err *err)
{
    return create("backfill", p, 1, 1, self, err);
}

#define ORDERING_OPS                                                                               \
    .default_placement = "consolidate", .destroy = berth__prio_destroy_v,                          \
    .plan = berth__prio_plan_v, .check = berth__prio_check_v, .why = berth__prio_why_v,            \
    .settings = settings, .nsettings = NSETTINGS, .queues = 1

const struct berth__policy_ops berth__policy_fifo = {
    .name = "fifo",
    .summary = "first come first served, strict: the head of the queue blocks everyone",
    .create = create_fifo,
    ORDERING_OPS,
};

const struct berth__policy_ops berth__policy_fifo_skip = {
    .name = "fifo-skip",
    .summary = "first come first served, first fit: later jobs start when the head does not fit",
    .create = create_fifo_skip,
    ORDERING_OPS,
};

const struct berth__policy_ops berth__policy_backfill = {
    .name = "backfill",
    .summary = "first come first served with EASY backfill: the head gets a reservation from "
               "time limits, later jobs start only if they do not delay it",
    .create = create_backfill,
    ORDERING_OPS,
};
