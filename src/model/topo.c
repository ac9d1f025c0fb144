/* The cluster's topology tree: domain tables per kind, idle-GPU counts per domain, and the
 * level a gang spans (see topo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cluster.h"
#include "model/topo.h"

static const char *const level_names[BERTH_TOPO_LEVELS] = {"nvlink", "node", "rack", "block",
                                                           "cluster"};

const char *berth__topo_level_name(int level)
{
    return level >= 0 && level < BERTH_TOPO_LEVELS ? level_names[level] : "?";
}

int berth__topo_level_find(const char *name)
{
    for (int l = 0; l < BERTH_TOPO_LEVELS; l++)
        if (!strcmp(name, level_names[l]))
            return l;
    return -1;
}

const char *berth__topo_level_list(void)
{
    return "nvlink, node, rack, block or cluster";
}

int berth__topo_kind_level(int kind)
{
    static const int lv[BERTH__TOPO_KINDS] = {BERTH_TOPO_NVLINK, BERTH_TOPO_RACK, BERTH_TOPO_BLOCK};
    return kind >= 0 && kind < BERTH__TOPO_KINDS ? lv[kind] : -1;
}

int berth__topo_level_kind(int level)
{
    return level == BERTH_TOPO_NVLINK  ? BERTH__TOPO_ISLAND
           : level == BERTH_TOPO_RACK  ? BERTH__TOPO_RACK
           : level == BERTH_TOPO_BLOCK ? BERTH__TOPO_BLOCK
                                       : -1;
}

int32_t berth__topo_dom(const struct berth_cluster *c, uint32_t s, int kind)
{
    const struct berth__server *v = &c->srv[s];
    return kind == BERTH__TOPO_ISLAND ? v->island : kind == BERTH__TOPO_RACK ? v->rack : v->block;
}

static void kind_free(struct berth__topo_kind *k, int owned)
{
    if (owned) {
        free(k->names);
        free(k->start);
        free(k->list);
        free(k->total);
    }
    free(k->free);
}

void berth__topo_free(struct berth__topo *t)
{
    if (!t)
        return;
    for (int k = 0; k < BERTH__TOPO_KINDS; k++)
        kind_free(&t->k[k], t->owned);
    free(t);
}

/* The tables of kind k: its n domains' servers in index order (a counting sort) and their
 * GPUs per type. */
static int kind_build(const struct berth_cluster *c, struct berth__topo_kind *k, int kind, size_t n,
                      const char *const *names)
{
    k->n = n;
    k->names = calloc(n ? n : 1, sizeof *k->names);
    k->start = calloc(n + 1, sizeof *k->start);
    k->list = malloc((c->nsrv ? c->nsrv : 1) * sizeof *k->list);
    k->total = calloc(n * c->ntypes + 1, sizeof *k->total);
    k->free = calloc(n * c->ntypes + 1, sizeof *k->free);
    if (!k->names || !k->start || !k->list || !k->total || !k->free)
        return -1;
    for (size_t d = 0; d < n; d++)
        k->names[d] = names ? names[d] : "";
    for (size_t s = 0; s < c->nsrv; s++) {
        int32_t d = berth__topo_dom(c, (uint32_t)s, kind);
        if (d >= 0)
            k->start[d + 1]++;
    }
    for (size_t d = 0; d < n; d++)
        k->start[d + 1] += k->start[d];
    uint32_t *at = malloc((n ? n : 1) * sizeof *at);
    if (!at)
        return -1;
    memcpy(at, k->start, n * sizeof *at);
    for (size_t s = 0; s < c->nsrv; s++) {
        int32_t d = berth__topo_dom(c, (uint32_t)s, kind);
        if (d < 0)
            continue;
        k->list[at[d]++] = (uint32_t)s;
        const struct berth__server *v = &c->srv[s];
        k->total[(size_t)d * c->ntypes + v->type] += v->ngpus;
        k->free[(size_t)d * c->ntypes + v->type] += v->nfree;
    }
    free(at);
    return 0;
}

int berth__topo_build(struct berth_cluster *c, const char *const *islands, size_t nislands,
                      const char *const *blocks, size_t nblocks)
{
    struct berth__topo *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    t->owned = 1;
    t->ntypes = c->ntypes;
    if (kind_build(c, &t->k[BERTH__TOPO_ISLAND], BERTH__TOPO_ISLAND, nislands, islands) ||
        kind_build(c, &t->k[BERTH__TOPO_RACK], BERTH__TOPO_RACK, c->nracks, c->racks) ||
        kind_build(c, &t->k[BERTH__TOPO_BLOCK], BERTH__TOPO_BLOCK, nblocks, blocks)) {
        berth__topo_free(t);
        return -1;
    }
    c->topo = t;
    return 0;
}

struct berth__topo *berth__topo_clone(const struct berth__topo *t)
{
    struct berth__topo *d = malloc(sizeof *d);
    if (!d)
        return NULL;
    *d = *t;
    d->owned = 0;
    for (int k = 0; k < BERTH__TOPO_KINDS; k++)
        d->k[k].free = NULL;
    for (int k = 0; k < BERTH__TOPO_KINDS; k++) {
        size_t n = t->k[k].n * t->ntypes + 1;
        if (!(d->k[k].free = malloc(n * sizeof *d->k[k].free))) {
            berth__topo_free(d);
            return NULL;
        }
        memcpy(d->k[k].free, t->k[k].free, n * sizeof *d->k[k].free);
    }
    return d;
}

void berth__topo_count(struct berth_cluster *c, uint32_t s, int32_t n)
{
    struct berth__topo *t = c->topo;
    const struct berth__server *v = &c->srv[s];
    for (int k = 0; k < BERTH__TOPO_KINDS; k++) {
        int32_t d = berth__topo_dom(c, s, k);
        if (d < 0)
            continue;
        int32_t *f = &t->k[k].free[(size_t)d * t->ntypes + v->type];
        BERTH__CLUSTER_SAVE(c, *f);
        *f += n;
    }
}

int berth__topo_span(const struct berth_cluster *c, const struct berth__slot *sl, int32_t n)
{
    if (n <= 1)
        return BERTH_TOPO_NVLINK;
    uint32_t s0 = sl[0].server;
    int one_server = 1;
    for (int32_t i = 1; i < n && one_server; i++)
        one_server = sl[i].server == s0;
    if (one_server) {
        uint8_t nvl = c->srv[s0].nvl;
        if (!nvl)
            return BERTH_TOPO_NVLINK;
        for (int32_t i = 1; i < n; i++)
            if (sl[i].gpu / nvl != sl[0].gpu / nvl)
                return BERTH_TOPO_NODE;
        return BERTH_TOPO_NVLINK;
    }
    if (!c->topo)
        return BERTH_TOPO_CLUSTER;
    for (int k = 0; k < BERTH__TOPO_KINDS; k++) {
        int32_t d = berth__topo_dom(c, s0, k);
        int same = d >= 0;
        for (int32_t i = 1; i < n && same; i++)
            same = berth__topo_dom(c, sl[i].server, k) == d;
        if (same)
            return berth__topo_kind_level(k);
    }
    return BERTH_TOPO_CLUSTER;
}

int berth__topo_verify(const struct berth_cluster *c, char *why, size_t len)
{
    const struct berth__topo *t = c->topo;
    if (!t)
        return 0;
    for (int k = 0; k < BERTH__TOPO_KINDS; k++) {
        const struct berth__topo_kind *q = &t->k[k];
        for (size_t d = 0; d < q->n; d++)
            for (size_t ty = 0; ty < t->ntypes; ty++) {
                int32_t f = 0;
                for (uint32_t i = q->start[d]; i < q->start[d + 1]; i++) {
                    const struct berth__server *v = &c->srv[q->list[i]];
                    if (v->type == ty)
                        f += v->nfree;
                }
                if (f != q->free[d * t->ntypes + ty]) {
                    snprintf(why, len, "topology: %s domain %s has %d idle %s GPUs, counted %d",
                             berth__topo_level_name(berth__topo_kind_level(k)), q->names[d], f,
                             c->types[ty].name, q->free[d * t->ntypes + ty]);
                    return -1;
                }
            }
    }
    return 0;
}

int berth_cluster_has_topology(const struct berth_cluster *c)
{
    return c->topo != NULL;
}

const char *berth_cluster_server_domain(const struct berth_cluster *c, size_t s, int level)
{
    if (s >= c->nsrv)
        return NULL;
    if (level == BERTH_TOPO_NODE)
        return c->srv[s].name;
    if (level == BERTH_TOPO_CLUSTER)
        return "";
    int k = berth__topo_level_kind(level);
    if (k < 0 || !c->topo)
        return NULL;
    int32_t d = berth__topo_dom(c, (uint32_t)s, k);
    return d >= 0 ? c->topo->k[k].names[d] : NULL;
}
