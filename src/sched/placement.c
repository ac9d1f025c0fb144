/* Placement helpers: which idle GPUs of one type a starting gang gets.
 *
 * Placement is a preference, not a constraint: the caller has already checked that the
 * gang fits the idle GPUs of the type (on one server when it must not span servers), and
 * every helper always completes. All three walk the free-GPU buckets of model/cluster.h, so a
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

#include "model/alloc.h"
#include "sched/plan.h"

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

/* The server with the fewest idle GPUs that can still host need of j's GPUs (CPU and
 * memory included), or -1. Without CPU or memory limits that is a bucket head. */
static int32_t tightest(const struct berth_cluster *c, const struct berth__gputype *ty,
                        const struct berth_job *j, int need)
{
    for (int f = need < 1 ? 1 : need; f <= ty->max_per_server; f++)
        for (int32_t s = ty->head[f]; s >= 0; s = c->srv[s].next) {
            if (!(c->has_cpu_mem || c->has_gpu_mem) ||
                berth__server_room(c, (uint32_t)s, j) >= need)
                return s;
        }
    return -1;
}

/* The server with the most idle GPUs that can host at least one of j's GPUs, or -1. */
static int32_t emptiest(const struct berth_cluster *c, const struct berth__gputype *ty,
                        const struct berth_job *j)
{
    for (int f = ty->max_per_server; f >= 1; f--)
        for (int32_t s = ty->head[f]; s >= 0; s = c->srv[s].next) {
            if (!(c->has_cpu_mem || c->has_gpu_mem) || berth__server_room(c, (uint32_t)s, j) >= 1)
                return s;
        }
    return -1;
}

/* A fractional job: the partly used GPU it fits most tightly (spread: a wholly idle GPU on
 * the emptiest server first, then the partly used GPU with the most room), else a wholly
 * idle GPU on the tightest server. */
static int place_share(struct berth_plan *p, struct berth_job *j, const struct berth__gputype *ty,
                       int placement)
{
    struct berth_cluster *c = p->cluster;
    int32_t share = berth__job_share(j);
    if (placement == BERTH_PLACE_SPREAD) {
        int32_t s = emptiest(c, ty, j);
        if (s >= 0) {
            berth__plan_take_share(p, j, (uint32_t)s,
                                   (uint32_t)__builtin_ctzll(c->srv[s].free_mask));
            return 0;
        }
    }
    int best = -1, best_room = 0;
    for (size_t i = 0; i < ty->npartial; i++) {
        const struct berth__partial *q = &ty->partial[i];
        int room = 1000 - c->srv[q->server].shares->used[q->gpu];
        if (room < share || !berth__server_cpu_mem_fit(c, q->server, j, 1) ||
            !berth__gpu_mem_fits(c, q->server, q->gpu, j))
            continue;
        int better = placement == BERTH_PLACE_SPREAD ? room > best_room : room < best_room;
        /* ties: the lower server, then GPU, so the choice does not depend on list order */
        if (best < 0 || better ||
            (room == best_room &&
             (q->server < ty->partial[best].server ||
              (q->server == ty->partial[best].server && q->gpu < ty->partial[best].gpu)))) {
            best = (int)i;
            best_room = room;
        }
    }
    if (best >= 0) {
        berth__plan_take_share(p, j, ty->partial[best].server, ty->partial[best].gpu);
        return 0;
    }
    int32_t s = tightest(c, ty, j, 1);
    if (s < 0)
        return -1;
    berth__plan_take_share(p, j, (uint32_t)s, (uint32_t)__builtin_ctzll(c->srv[s].free_mask));
    return 0;
}

int32_t berth__place_cpu_server(const struct berth_cluster *c, const struct berth_job *j,
                                int placement)
{
    if (!c->has_cpu_mem)
        return c->nsrv ? 0 : -1;
    int32_t best = -1;
    for (size_t s = 0; s < c->nsrv; s++) {
        if (!berth__server_cpu_mem_fit(c, (uint32_t)s, j, 1))
            continue;
        if (best < 0 ||
            (placement == BERTH_PLACE_SPREAD ? c->srv[s].cpu_free > c->srv[best].cpu_free
                                             : c->srv[s].cpu_free < c->srv[best].cpu_free))
            best = (int32_t)s;
    }
    return best;
}

int berth__place(struct berth_plan *p, struct berth_job *j, int type, int placement)
{
    struct berth_cluster *c = p->cluster;
    const struct berth__gputype *ty = &c->types[type];
    if (berth__job_share(j) < 1000)
        return place_share(p, j, ty, placement);
    int need = j->gpus;
    if (j->single) {
        int32_t s = tightest(c, ty, j, need);
        if (s < 0)
            return -1;
        berth__plan_take(p, j, (uint32_t)s, need);
        return 0;
    }
    while (need > 0) {
        int32_t s = tightest(c, ty, j, need);
        int take;
        if (s >= 0 && placement != BERTH_PLACE_SPREAD) {
            take = need; /* the rest fits on one server */
        } else {
            if (placement == BERTH_PLACE_SPREAD)
                s = emptiest(c, ty, j);
            else if (placement == BERTH_PLACE_BEST_FIT)
                s = tightest(c, ty, j, 1); /* the fullest server with room */
            else
                s = emptiest(c, ty, j);
            if (s < 0)
                return -1;
            int32_t room = berth__server_room(c, (uint32_t)s, j);
            take = placement == BERTH_PLACE_SPREAD ? 1 : room < need ? room : need;
        }
        berth__plan_take(p, j, (uint32_t)s, take);
        need -= take;
    }
    return 0;
}
