/* The ordering family's shared settings (order.h). */
#include "sched/order.h"

void berth__order_defaults(struct berth__order_set *s, int backfill)
{
    *s = (struct berth__order_set){.backfill = backfill,
                                   .backfill_depth = 1000,
                                   .backfill_topology = 1,
                                   .fs_half_life_us = 7 * 86400 * BERTH_US_PER_S,
                                   .fs_period_us = 300 * BERTH_US_PER_S};
}

int berth__order_create(const char *name, const struct berth__params *p,
                        const struct berth__setting *t, size_t n, void *set,
                        const struct berth__order_set *o, struct berth__prio_cfg *cfg, void **self,
                        struct berth_err *err)
{
    int rc = berth__settings_parse(name, p->settings, t, n, set, err);
    if (rc)
        return rc;
    cfg->queues = p->queues;
    cfg->backfill = o->backfill;
    cfg->backfill_depth = (int32_t)o->backfill_depth;
    cfg->backfill_topology = o->backfill_topology;
    cfg->fs_weight_us = o->fs_weight_us;
    cfg->fs_half_life_us = o->fs_half_life_us;
    cfg->fs_period_us = o->fs_period_us;
    return berth__prio_create_v(cfg, self, err);
}
