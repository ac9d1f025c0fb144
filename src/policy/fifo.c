/* fifo and fifo-skip: arrival order. fifo is strict (the head of the queue blocks everyone,
 * as in Tiresias' fifo); fifo-skip is first fit (a job starts whenever it fits, even if an
 * earlier one does not). Neither preempts. */
#include "sched/prio.h"

static int64_t key_arrival(void *ctx, const struct berth__job *j)
{
    (void)ctx;
    return (int64_t)j->idx; /* job numbers are given in arrival order */
}

static int create_fifo(const struct berth__params *p, void **self, struct berth_err *err)
{
    (void)p;
    struct berth__prio_cfg cfg = {.key = key_arrival, .slope = berth__prio_slope_none, .strict = 1};
    return berth__prio_create_v(&cfg, self, err);
}

static int create_fifo_skip(const struct berth__params *p, void **self, struct berth_err *err)
{
    (void)p;
    struct berth__prio_cfg cfg = {.key = key_arrival, .slope = berth__prio_slope_none};
    return berth__prio_create_v(&cfg, self, err);
}

const struct berth__policy_ops berth__policy_fifo = {
    .name = "fifo",
    .summary = "first come first served, strict: the head of the queue blocks everyone",
    .default_placement = "consolidate",
    .create = create_fifo,
    .destroy = berth__prio_destroy_v,
    .plan = berth__prio_plan_v,
};

const struct berth__policy_ops berth__policy_fifo_skip = {
    .name = "fifo-skip",
    .summary = "first come first served, first fit: later jobs start when the head does not fit",
    .default_placement = "consolidate",
    .create = create_fifo_skip,
    .destroy = berth__prio_destroy_v,
    .plan = berth__prio_plan_v,
};
