/* Plan edits for pools: reserving servers for their pool's owner and lending them back, and
 * hiding idle GPUs from placement for the rest of a pass (plan.h). */
#include "sched/plan.h"

int berth__plan_reserve(struct berth__plan *p, uint32_t s, struct berth_err *err)
{
    if (s >= p->cluster->nsrv || berth__cluster_reserve(p->cluster, s))
        return berth_err_set(err, BERTH_EINTERNAL,
                             "plan: server %u is not wholly idle or is "
                             "reserved already",
                             s);
    p->reclaimed++;
    return 0;
}

int berth__plan_unreserve(struct berth__plan *p, uint32_t s, struct berth_err *err)
{
    if (s >= p->cluster->nsrv || berth__cluster_unreserve(p->cluster, s))
        return berth_err_set(err, BERTH_EINTERNAL, "plan: server %u is not reserved", s);
    p->lent++;
    return 0;
}

int berth__plan_hide(struct berth__plan *p, uint32_t s)
{
    uint64_t mask = p->cluster->srv[s].free_mask;
    if (!mask)
        return 0;
    if (BERTH_GROW(p->hidden, p->hidden_cap, p->nhidden + 1))
        return BERTH_ENOMEM;
    p->hidden[p->nhidden++] = (struct berth__hidden){.server = s, .mask = mask};
    berth__cluster_take_mask(p->cluster, s, mask);
    return 0;
}

void berth__plan_unhide_to(struct berth__plan *p, size_t n)
{
    while (p->nhidden > n) {
        const struct berth__hidden *h = &p->hidden[--p->nhidden];
        berth__cluster_give_mask(p->cluster, h->server, h->mask);
    }
}

void berth__plan_unhide_all(struct berth__plan *p)
{
    berth__plan_unhide_to(p, 0);
}
