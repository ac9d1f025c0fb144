/* Placement helpers: which idle GPUs of one type a starting gang gets.
 *
 * Placement is a preference, not a constraint: the caller has already checked that the
 * gang fits the idle GPUs of the type (on one server when it must not span servers), and
 * every helper always completes. All three walk the free-GPU buckets of cluster_int.h, so a
 * choice costs O(GPUs per server) per server used, never O(servers).
 *
 *   consolidate  fewest servers: one server if any can hold the whole gang (the tightest
 *                such server), else whole servers from the emptiest down, the last piece
 *                again on the tightest server that holds it.
 *   best-fit     the tightest server that holds the whole gang; else fill the fullest
 *                servers first (fragments before whole servers), which leaves big holes
 *                for big gangs at the price of spanning more servers.
 *   spread       one GPU at a time, each to the server with the most idle GPUs. */
#include <string.h>

#include "plan.h"

static const struct {
    const char *name;
    const char *summary;
} placements[] = {
    {"consolidate", "fewest servers; the tightest server that holds the whole gang"},
    {"spread", "one GPU at a time to the server with the most idle GPUs"},
    {"best-fit", "the tightest server that holds the gang, else fill fragments first"},
};

size_t berth_placement_count(void)
{
    return sizeof placements / sizeof *placements;
}

const char *berth_placement_name(size_t i)
{
    return i < berth_placement_count() ? placements[i].name : NULL;
}

const char *berth_placement_summary(size_t i)
{
    return i < berth_placement_count() ? placements[i].summary : NULL;
}

int berth_placement_find(const char *name)
{
    for (size_t i = 0; i < berth_placement_count(); i++)
        if (!strcmp(name, placements[i].name))
            return (int)i;
    return -1;
}

/* The server with the fewest idle GPUs that still has at least need, or -1. */
static int32_t tightest(const struct berth__gputype *ty, int need)
{
    for (int f = need < 1 ? 1 : need; f <= ty->max_per_server; f++)
        if (ty->head[f] >= 0)
            return ty->head[f];
    return -1;
}

/* The server with the most idle GPUs (at least one), or -1. */
static int32_t emptiest(const struct berth__gputype *ty)
{
    for (int f = ty->max_per_server; f >= 1; f--)
        if (ty->head[f] >= 0)
            return ty->head[f];
    return -1;
}

void berth__place(struct berth_plan *p, struct berth_job *j, int type, int placement)
{
    struct berth_cluster *c = p->cluster;
    const struct berth__gputype *ty = &c->types[type];
    int need = j->gpus;
    if (j->single) {
        int32_t s = tightest(ty, need);
        if (s >= 0)
            berth__plan_take(p, j, (uint32_t)s, need);
        return;
    }
    while (need > 0) {
        int32_t s = tightest(ty, need);
        int take;
        if (s >= 0 && placement != BERTH_PLACE_SPREAD) {
            take = need; /* the rest fits on one server */
        } else if (placement == BERTH_PLACE_SPREAD) {
            s = emptiest(ty);
            take = 1;
        } else if (placement == BERTH_PLACE_BEST_FIT) {
            s = tightest(ty, 1); /* the fullest server with anything idle */
            take = c->srv[s].nfree;
        } else {
            s = emptiest(ty);
            take = c->srv[s].nfree;
        }
        if (s < 0)
            return; /* cannot happen after a fit check; plan_start reports the shortfall */
        berth__plan_take(p, j, (uint32_t)s, take);
        need -= take;
    }
}
