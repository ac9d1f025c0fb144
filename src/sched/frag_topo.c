/* Fragmentation per topology level (frag.h): how many domains of a level are wholly idle,
 * and what share of the idle GPUs lies in domains that are not, so that no gang as large as
 * the domain can use them. FGD's measure (frag.c) sees servers only; a rack-sized gang is
 * blocked by idle GPUs scattered over racks as a server-sized one is by GPUs scattered over
 * servers. At nvlink without multi-node domains the islands are the servers', or the islands
 * of nvl GPUs inside a server that has them. O(servers). */
#include "model/topo.h"
#include "sched/frag.h"

/* One domain of total GPUs, idle of them wholly idle, into *out (*idle_whole: the idle GPUs
 * of the wholly idle domains). */
static void add_domain(struct berth__frag_level *out, int32_t *idle_whole, int32_t idle,
                       int32_t total)
{
    out->domains++;
    out->idle += idle;
    if (idle == total) {
        out->whole++;
        *idle_whole += idle;
    }
}

int berth__frag_topo(const struct berth_cluster *c, int level, struct berth__frag_level *out)
{
    *out = (struct berth__frag_level){0};
    int kind = berth__topo_level_kind(level);
    if (!c->topo || level == BERTH_TOPO_CLUSTER || (level != BERTH_TOPO_NODE && kind < 0))
        return -1;
    int32_t idle_whole = 0;
    if (level == BERTH_TOPO_NODE || (level == BERTH_TOPO_NVLINK && !c->topo->k[kind].n)) {
        for (size_t s = 0; s < c->nsrv; s++) { /* servers (nvlink: no multi-node islands) */
            const struct berth__server *v = &c->srv[s];
            if (!v->ngpus)
                continue;
            int nvl = level == BERTH_TOPO_NVLINK ? berth__server_nvl(v) : 0;
            if (!nvl)
                add_domain(out, &idle_whole, v->nfree, v->ngpus);
            for (int i = 0; nvl && i * nvl < v->ngpus; i++) /* its islands of nvl GPUs */
                add_domain(out, &idle_whole, __builtin_popcountll(berth__island_free(v, nvl, i)),
                           nvl);
        }
    } else {
        const struct berth__topo_kind *k = &c->topo->k[kind];
        for (size_t d = 0; d < k->n; d++) {
            int32_t total = 0, idle = 0;
            for (size_t t = 0; t < c->topo->ntypes; t++) {
                total += k->total[d * c->topo->ntypes + t];
                idle += k->free[d * c->topo->ntypes + t];
            }
            if (total)
                add_domain(out, &idle_whole, idle, total);
        }
    }
    out->stranded = out->idle ? (double)(out->idle - idle_whole) / out->idle : 0;
    return 0;
}
