/* EASY backfill's reservation inside one topology domain (reserve.h): for a head job whose
 * gang must (or should) lie in one domain of a level, the reservation is the domain of that
 * level where it could start earliest, so that backfilled jobs that run past it stay out
 * of that domain instead of taking the rack or island the head waits for.
 *
 * For each domain D of the level (racks, blocks: the topology's tables; node and nvlink:
 * servers) with the idle GPUs of type t in D, the running whole-GPU jobs of type t (the
 * reservation heap's entries) give the GPUs each frees in D at its expected end: the
 * earliest T_D at which idle + freed reach the gang, and the GPUs of D left over then. The
 * domain with the smallest T_D wins (ties: the lower index). Cost: O(slots of the type's
 * running jobs + their sort) per reservation, once per pass. */
#include <stdlib.h>

#include "model/alloc.h"
#include "model/cluster.h"
#include "model/topo.h"
#include "sched/reserve.h"
#include "util/mem.h"

struct rfree {
    int32_t dom;
    berth_us end;
    int32_t n;
};

static int cmp_rfree(const void *a, const void *b)
{
    const struct rfree *x = a, *y = b;
    if (x->dom != y->dom)
        return x->dom < y->dom ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

int berth__reserve_domain_kind(int level)
{
    return level == BERTH_TOPO_RACK    ? BERTH__TOPO_RACK
           : level == BERTH_TOPO_BLOCK ? BERTH__TOPO_BLOCK
                                       : -1;
}

int berth__reserve_topo(struct berth__reserve *r, const struct berth_cluster *c,
                        const struct berth__job *jobs, int t, int level, berth_us now, int32_t need,
                        struct berth__rtopo *out)
{
    int kind = berth__reserve_domain_kind(level);
    size_t ndom = kind >= 0 ? c->topo->k[kind].n : c->nsrv;
    if (t < 0 || (size_t)t >= r->ntypes || !ndom)
        return 1;
    const struct berth__rheap *h = &r->types[t];
    int32_t *idle = calloc(ndom, sizeof *idle);
    size_t n = 0, cap = 0;
    struct rfree *f = NULL;
    if (!idle)
        return -1;
    for (uint32_t s = 0; s < c->nsrv; s++) {
        int32_t d = kind >= 0 ? berth__topo_dom(c, s, kind) : (int32_t)s;
        if (d >= 0 && c->srv[s].type == t)
            idle[d] += c->srv[s].nfree;
    }
    for (size_t i = 0; i < h->n; i++) { /* each running job's GPUs per domain, by end */
        const struct berth__job *j = &jobs[h->a[i].job];
        for (int32_t k = 0; k < j->gpus; k++) {
            uint32_t s = j->slots[k].server;
            int32_t d = kind >= 0 ? berth__topo_dom(c, s, kind) : (int32_t)s;
            if (d < 0)
                continue;
            if (n && f[n - 1].dom == d && f[n - 1].end == h->a[i].end) {
                f[n - 1].n++;
                continue;
            }
            if (BERTH_GROW(f, cap, n + 1)) {
                free(f);
                free(idle);
                return -1;
            }
            f[n++] = (struct rfree){d, h->a[i].end, 1};
        }
    }
    qsort(f, n, sizeof *f, cmp_rfree);
    int found = 0;
    size_t i = 0;
    for (size_t d = 0; d < ndom; d++) {
        int32_t have = idle[d];
        berth_us at = have >= need ? now : BERTH_TIME_NONE;
        for (; i < n && f[i].dom < (int32_t)d; i++)
            ;
        for (; i < n && f[i].dom == (int32_t)d; i++) {
            if (at != BERTH_TIME_NONE && f[i].end > at)
                continue; /* past the instant found: skip the rest of D */
            have += f[i].n;
            if (at == BERTH_TIME_NONE && have >= need)
                at = f[i].end > now ? f[i].end : now;
        }
        if (at == BERTH_TIME_NONE)
            continue;
        if (!found || at < out->T) {
            *out = (struct berth__rtopo){at, have - need, kind, (int32_t)d};
            found = 1;
        }
    }
    free(f);
    free(idle);
    return found ? 0 : 1;
}

int berth__reserve_in_domain(const struct berth_cluster *c, const struct berth__rtopo *rt,
                             uint32_t s)
{
    return rt->kind >= 0 ? berth__topo_dom(c, s, rt->kind) == rt->dom : (int32_t)s == rt->dom;
}

int berth__reserve_topo_level(const struct berth_cluster *c, const struct berth__job *j)
{
    if (!c->topo || !j->gpus || berth__job_share(j) < 1000)
        return -1;
    const struct berth_jobspec_extra *x = berth_jobspec_extra(j->spec);
    int lv = x->topo_required    ? x->topo_required - 1
             : x->topo_preferred ? x->topo_preferred - 1
                                 : -1;
    if (lv < 0 || lv >= BERTH_TOPO_CLUSTER)
        return -1;
    int kind = berth__reserve_domain_kind(lv);
    return kind >= 0 && c->topo->k[kind].n ? lv : BERTH_TOPO_NODE;
}
