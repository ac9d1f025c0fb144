/* The classic placements, as picks (placement.h), and the table of every placement.
 *
 * Placement is a preference, not a constraint: the plan has already checked that the gang
 * fits the idle GPUs of the type by count (on one server when it must not span servers),
 * and checks every pick. All three walk the free-GPU buckets of model/cluster.h, so a pick
 * costs O(GPUs per server), never O(servers).
 *
 *   consolidate  fewest servers: one server if any can hold the whole gang (the tightest
 *                such server), else whole servers from the emptiest down, the last piece
 *                again on the tightest server that holds it.
 *   best-fit     the tightest server that holds the whole gang; else fill the fullest
 *                servers first (fragments before whole servers), which leaves big holes
 *                for big gangs at the price of spanning more servers.
 *   spread       one GPU at a time, each to the server with the most idle GPUs.
 *
 * FGD (Weng et al., ATC'23) is the fourth, in place_fgd.c; Blox's two as shipped
 * (blox-scattered, blox-consolidated) are in place_blox.c; topology (the lowest level of
 * the cluster's topology with a domain that holds the gang) in place_topo.c. */
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "sched/placement.h"

/* indexed by enum berth_placement */
static const struct berth__placement_ops *const placements[] = {
    [BERTH_PLACE_CONSOLIDATE] = &berth__place_consolidate,
    [BERTH_PLACE_SPREAD] = &berth__place_spread,
    [BERTH_PLACE_BEST_FIT] = &berth__place_best_fit,
    [BERTH_PLACE_FGD] = &berth__place_fgd,
    [BERTH_PLACE_BLOX_SCATTERED] = &berth__place_blox_scattered,
    [BERTH_PLACE_BLOX_CONSOLIDATED] = &berth__place_blox_consolidated,
    [BERTH_PLACE_TOPOLOGY] = &berth__place_topology,
};
#define NPLACEMENTS (sizeof placements / sizeof *placements)

size_t berth_placement_count(void)
{
    return NPLACEMENTS;
}

const char *berth_placement_name(size_t i)
{
    return i < NPLACEMENTS ? placements[i]->name : NULL;
}

const char *berth_placement_summary(size_t i)
{
    return i < NPLACEMENTS ? placements[i]->summary : NULL;
}

int berth_placement_find(const char *name)
{
    for (size_t i = 0; i < NPLACEMENTS; i++)
        if (!strcmp(name, placements[i]->name))
            return (int)i;
    return -1;
}

int berth__placement_open(const char *name, struct berth__placement *out, struct berth_err *err)
{
    int i = berth_placement_find(name);
    if (i < 0) {
        char names[256] = "";
        size_t o = 0;
        for (size_t k = 0; k < NPLACEMENTS && o < sizeof names; k++)
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", k ? ", " : "",
                                  placements[k]->name);
        return berth_err_set(err, BERTH_EINPUT,
                             "--placement: unknown placement '%s' (expected one of: %s)", name,
                             names);
    }
    *out = (struct berth__placement){placements[i], NULL, i};
    if (out->ops->create && out->ops->create(&out->self, err))
        return err->code ? err->code : BERTH_ENOMEM;
    return 0;
}

void berth__placement_close(struct berth__placement *pl)
{
    if (pl->ops && pl->ops->destroy && pl->self)
        pl->ops->destroy(pl->self);
    pl->self = NULL;
}

/* The server with the fewest idle GPUs that can still host need of j's GPUs (CPU and
 * memory included), or -1. Without CPU or memory limits that is a bucket head. */
static int32_t tightest(const struct berth_cluster *c, const struct berth__gputype *ty,
                        const struct berth__job *j, int need)
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
                        const struct berth__job *j)
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
static int pick_share(const struct berth_cluster *c, const struct berth__job *j,
                      const struct berth__gputype *ty, int spread, struct berth__place_pick *out)
{
    int32_t share = berth__job_share(j);
    if (spread) {
        int32_t s = emptiest(c, ty, j);
        if (s >= 0) {
            *out =
                (struct berth__place_pick){(uint32_t)s, __builtin_ctzll(c->srv[s].free_mask), 1, 0};
            return 0;
        }
    }
    int best = -1, best_room = 0;
    for (size_t i = 0; i < ty->npartial; i++) {
        const struct berth__partial *q = &ty->partial[i];
        int room = 1000 - c->srv[q->server].shares->used[q->gpu];
        if (room < share || c->srv[q->server].closed ||
            !berth__server_cpu_mem_fit(c, q->server, j, 1) ||
            !berth__gpu_mem_fits(c, q->server, q->gpu, j))
            continue;
        int better = spread ? room > best_room : room < best_room;
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
        *out = (struct berth__place_pick){ty->partial[best].server, (int32_t)ty->partial[best].gpu,
                                          1, 0};
        return 0;
    }
    int32_t s = tightest(c, ty, j, 1);
    if (s < 0)
        return BERTH_NOFIT;
    *out = (struct berth__place_pick){(uint32_t)s, __builtin_ctzll(c->srv[s].free_mask), 1, 0};
    return 0;
}

int32_t berth__place_cpu_server(const struct berth_cluster *c, const struct berth__job *j,
                                int spread)
{
    if (!c->has_cpu_mem)
        return c->nsrv ? 0 : -1;
    int32_t best = -1;
    for (size_t s = 0; s < c->nsrv; s++) {
        if (c->srv[s].closed || !berth__server_cpu_mem_fit(c, (uint32_t)s, j, 1))
            continue;
        if (best < 0 || (spread ? c->srv[s].cpu_free > c->srv[best].cpu_free
                                : c->srv[s].cpu_free < c->srv[best].cpu_free))
            best = (int32_t)s;
    }
    return best;
}

/* The next piece under a classic placement: a fractional job's GPU; a gang that must stay
 * on one server, whole on the tightest server that holds it; otherwise the rest of the
 * gang on the tightest server that holds it all (consolidate, best-fit), or a piece on the
 * emptiest server (consolidate: as much as it holds; spread: one GPU) or on the fullest
 * server with room (best-fit: as much as it holds). */
static int pick_classic(int placement, const struct berth_cluster *c, const struct berth__job *j,
                        int type, int32_t need, struct berth__place_pick *out)
{
    int spread = placement == BERTH_PLACE_SPREAD;
    if (j->gpus == 0) {
        int32_t s = berth__place_cpu_server(c, j, spread);
        if (s < 0)
            return BERTH_NOFIT;
        *out = (struct berth__place_pick){(uint32_t)s, -1, 0, 0};
        return 0;
    }
    const struct berth__gputype *ty = &c->types[type];
    if (berth__job_share(j) < 1000)
        return pick_share(c, j, ty, spread, out);
    int32_t s = tightest(c, ty, j, need), take = need;
    if (j->single) {
        if (s < 0)
            return BERTH_NOFIT;
    } else if (s < 0 || spread) {
        s = placement == BERTH_PLACE_BEST_FIT ? tightest(c, ty, j, 1) /* the fullest with room */
                                              : emptiest(c, ty, j);
        if (s < 0)
            return BERTH_NOFIT;
        int32_t room = berth__server_room(c, (uint32_t)s, j);
        take = spread ? 1 : room < need ? room : need;
    }
    *out = (struct berth__place_pick){(uint32_t)s, -1, take, 0};
    return 0;
}

static int pick_consolidate(void *self, const struct berth_cluster *c, const struct berth__job *j,
                            int type, int32_t need, struct berth__place_pick *out)
{
    (void)self;
    return pick_classic(BERTH_PLACE_CONSOLIDATE, c, j, type, need, out);
}

static int pick_spread(void *self, const struct berth_cluster *c, const struct berth__job *j,
                       int type, int32_t need, struct berth__place_pick *out)
{
    (void)self;
    return pick_classic(BERTH_PLACE_SPREAD, c, j, type, need, out);
}

static int pick_best_fit(void *self, const struct berth_cluster *c, const struct berth__job *j,
                         int type, int32_t need, struct berth__place_pick *out)
{
    (void)self;
    return pick_classic(BERTH_PLACE_BEST_FIT, c, j, type, need, out);
}

const struct berth__placement_ops berth__place_consolidate = {
    .name = "consolidate",
    .summary = "fewest servers; the tightest server that holds the whole gang",
    .pick = pick_consolidate,
};

const struct berth__placement_ops berth__place_spread = {
    .name = "spread",
    .summary = "one GPU at a time to the server with the most idle GPUs",
    .pick = pick_spread,
};

const struct berth__placement_ops berth__place_best_fit = {
    .name = "best-fit",
    .summary = "the tightest server that holds the gang, else fill fragments first",
    .pick = pick_best_fit,
};
