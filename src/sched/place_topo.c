/* The topology placement (Kueue's Topology Aware Scheduling, as a pick): a gang goes to the
 * lowest level of the topology (model/topo.h) where one domain holds it, the best-fit domain
 * there, and is filled inside that domain piece by piece.
 *
 * For a gang of `need` GPUs of type t the levels are tried lowest first:
 *   nvlink   a multi-node NVLink domain, a server whose GPUs are one island, or one island
 *            of nvl GPUs inside a server
 *   node     one server
 *   rack     one rack, block: one block (their idle GPUs per type: c->topo's free counts)
 *   cluster  every server of the type
 * At the first level where some domain holds the gang (idle GPUs, with CPU and memory room
 * when the cluster models them), the domain with the fewest that still do (ties: the lower
 * first server, then island) is chosen and kept in the placement's state, so the plan's
 * later pieces stay inside it. Inside a domain of several servers each piece goes to the
 * tightest server that holds the rest of the gang (ties: the lower index), else to the
 * server with the fewest usable idle GPUs (fragments before whole servers, so whole servers
 * and islands stay free for whole-domain gangs). At the cluster level (no rack or block
 * holds it) the pieces are consolidate's instead: the emptiest servers first, the last on
 * the tightest that holds the rest, so the gang spans as few servers as it can.
 *
 * The job's required level (topo_required) caps the levels tried: no domain at or below it
 * holding the gang is BERTH_NOFIT (the plan's reason Topology). A preferred level needs
 * nothing more: the lowest level that holds the gang is at or below it whenever one does,
 * and the gang starts wider otherwise. Tensor parallelism (tp > 1 dividing the gang): every
 * piece is a multiple of tp GPUs on one server, and with islands inside a server each group
 * of tp lies inside one island (nvl a multiple of tp), so a TP group never crosses NVLink.
 *
 * Without a topology, fractional and CPU-only jobs: exactly consolidate. Picks scan the
 * servers of the domains they look at (O(servers) per pick for the levels without tables):
 * the plan sends it only the jobs that ask for topology, unless --placement topology. */
#include <stdio.h>
#include <stdlib.h>

#include "model/alloc.h"
#include "model/topo.h"
#include "sched/placement.h"

/* The domain chosen for the gang being placed. */
struct topo_self {
    uint32_t job;  /* its idx; UINT32_MAX: none */
    int kind;      /* BERTH__TOPO_* table, or -1: one server (dom), -2: the whole cluster */
    int32_t dom;   /* the table's domain, or the server */
    int32_t group; /* kind -1: the island inside the server, -1 the whole server */
    int type;
};

static int topo_create(void **self, struct berth_err *err)
{
    struct topo_self *s = malloc(sizeof *s);
    if (!s)
        return berth_err_set(err, BERTH_ENOMEM, "placement: out of memory");
    s->job = UINT32_MAX;
    *self = s;
    return 0;
}

static void topo_destroy(void *self)
{
    free(self);
}

int berth__place_topo_tp(const struct berth_cluster *c, const struct berth__job *j)
{
    int32_t tp = berth_jobspec_extra(j->spec)->tp;
    return tp > 1 && j->gpus > 0 && berth__job_share(j) >= 1000 && j->gpus % tp == 0 &&
                   tp <= c->max_per_server
               ? tp
               : 1;
}

int berth__place_topo_required(const struct berth__job *j)
{
    int r = berth_jobspec_extra(j->spec)->topo_required;
    int lv = r > 0 && r <= BERTH_TOPO_LEVELS ? r - 1 : BERTH_TOPO_CLUSTER;
    return j->single && lv > BERTH_TOPO_NODE ? BERTH_TOPO_NODE : lv;
}

/* The idle GPUs of server s that j may take as one piece of at most want GPUs on type t:
 * inside island `group` (of nvl GPUs; -1 any), as many as CPU and memory allow, a multiple
 * of tp, each group of tp inside one island of the server when it has islands that tp
 * divides. 0 when none (another type, no room). */
static uint64_t piece_mask(const struct berth_cluster *c, uint32_t s, const struct berth__job *j,
                           int t, int tp, int32_t group, int32_t want)
{
    const struct berth__server *v = &c->srv[s];
    if (v->type != t || !v->free_mask)
        return 0;
    int32_t room = (c->has_cpu_mem || c->has_gpu_mem) ? berth__server_room(c, s, j) : v->nfree;
    if (room < want)
        want = room;
    want -= want % tp;
    int nvl = berth__server_nvl(v);
    uint64_t free = group >= 0 && nvl ? berth__island_free(v, nvl, group) : v->free_mask;
    uint64_t out = 0;
    int32_t have = 0;
    if (tp > 1 && nvl && nvl % tp == 0) { /* whole TP groups per island */
        for (int i = 0; i * nvl < v->ngpus && have < want; i++) {
            uint64_t m = free & berth__island_free(v, nvl, i);
            int32_t k = __builtin_popcountll(m);
            k -= k % tp;
            if (k > want - have)
                k = want - have;
            for (int32_t x = 0; x < k; x++, m &= m - 1)
                out |= m & -m;
            have += k;
        }
        return out;
    }
    for (; have < want && free; have++, free &= free - 1)
        out |= free & -free;
    return out;
}

static int32_t cap_of(const struct berth_cluster *c, uint32_t s, const struct berth__job *j, int t,
                      int tp, int32_t group)
{
    return __builtin_popcountll(piece_mask(c, s, j, t, tp, group, INT32_MAX));
}

/* Usable idle GPUs of type t in domain d of table kind (-2: the cluster). */
static int32_t dom_cap(const struct berth_cluster *c, int kind, int32_t d,
                       const struct berth__job *j, int t, int tp)
{
    int fast = tp == 1 && !c->has_cpu_mem && !c->has_gpu_mem;
    if (kind == -2) {
        if (fast)
            return c->types[t].free;
        int32_t n = 0;
        for (uint32_t s = 0; s < c->nsrv; s++)
            n += cap_of(c, s, j, t, tp, -1);
        return n;
    }
    const struct berth__topo_kind *k = &c->topo->k[kind];
    if (fast)
        return k->free[(size_t)d * c->topo->ntypes + (size_t)t];
    int32_t n = 0;
    for (uint32_t i = k->start[d]; i < k->start[d + 1]; i++)
        n += cap_of(c, k->list[i], j, t, tp, -1);
    return n;
}

/* A candidate domain and its usable idle GPUs; better: fewer that still hold the gang, then
 * the lower first server, then the lower island. */
struct cand {
    int kind;
    int32_t dom, group, cap;
    uint32_t first;
};

static void consider(struct cand *best, struct cand x, int32_t need)
{
    if (x.cap < need)
        return;
    if (best->cap < 0 || x.cap < best->cap ||
        (x.cap == best->cap &&
         (x.first < best->first || (x.first == best->first && x.group < best->group))))
        *best = x;
}

/* The best-fit domain of level lv holding need GPUs of type t for j; best->cap < 0: none. */
static void best_at(const struct berth_cluster *c, const struct berth__job *j, int t, int tp,
                    int lv, int32_t need, struct cand *best)
{
    best->cap = -1;
    if (lv == BERTH_TOPO_CLUSTER) {
        consider(best, (struct cand){-2, 0, -1, dom_cap(c, -2, 0, j, t, tp), 0}, need);
        return;
    }
    int kind = berth__topo_level_kind(lv);
    if (kind >= 0) { /* islands across servers, racks, blocks: the tables */
        const struct berth__topo_kind *k = &c->topo->k[kind];
        for (size_t d = 0; d < k->n; d++)
            if (k->start[d] < k->start[d + 1])
                consider(best,
                         (struct cand){kind, (int32_t)d, -1, dom_cap(c, kind, (int32_t)d, j, t, tp),
                                       k->list[k->start[d]]},
                         need);
    }
    if (lv != BERTH_TOPO_NVLINK && lv != BERTH_TOPO_NODE)
        return;
    for (uint32_t s = 0; s < c->nsrv; s++) { /* servers, or the islands inside them */
        const struct berth__server *v = &c->srv[s];
        if (v->type != t || v->nfree < need)
            continue;
        int nvl = berth__server_nvl(v);
        if (lv == BERTH_TOPO_NODE || !nvl) {
            if (lv == BERTH_TOPO_NVLINK && v->island >= 0)
                continue; /* inside a multi-node domain: that domain is its island */
            consider(best, (struct cand){-1, (int32_t)s, -1, cap_of(c, s, j, t, tp, -1), s}, need);
            continue;
        }
        for (int32_t g = 0; g * nvl < v->ngpus; g++)
            consider(best, (struct cand){-1, (int32_t)s, g, cap_of(c, s, j, t, tp, g), s}, need);
    }
}

/* The lowest level at or below maxlv with a domain that holds j's gang of need on type t,
 * and that domain (best); -1 when none. */
static int choose(const struct berth_cluster *c, const struct berth__job *j, int t, int32_t need,
                  int maxlv, struct cand *best)
{
    int tp = berth__place_topo_tp(c, j);
    for (int lv = BERTH_TOPO_NVLINK; lv <= maxlv; lv++) {
        best_at(c, j, t, tp, lv, need, best);
        if (best->cap >= 0)
            return lv;
    }
    return -1;
}

int berth__place_topo_holds(const struct berth_cluster *c, const struct berth__job *j, int type,
                            int maxlv)
{
    if (!c->topo || j->gpus == 0 || berth__job_share(j) < 1000)
        return 1;
    for (size_t t = 0; t < c->ntypes; t++) {
        if ((type >= 0 && (int)t != type) || (j->type_mask && !(j->type_mask >> t & 1)) ||
            c->types[t].free < j->gpus)
            continue;
        struct cand b;
        if (choose(c, j, (int)t, j->gpus, maxlv, &b) >= 0)
            return 1;
    }
    return 0;
}

/* The next piece inside the chosen domain: the tightest server that holds the rest, else
 * the server with the fewest usable idle GPUs (the whole cluster: the most; ties: the lower
 * index). */
static int fill(const struct berth_cluster *c, const struct berth__job *j,
                const struct topo_self *st, int32_t need, struct berth__place_pick *out)
{
    int tp = berth__place_topo_tp(c, j);
    if (st->kind == -1) {
        uint64_t m = piece_mask(c, (uint32_t)st->dom, j, st->type, tp, st->group, need);
        int32_t n = __builtin_popcountll(m);
        if (n < 1)
            return BERTH_NOFIT;
        *out = (struct berth__place_pick){(uint32_t)st->dom, -1, n, m};
        return 0;
    }
    const uint32_t *list = NULL;
    uint32_t n = (uint32_t)c->nsrv;
    if (st->kind >= 0) {
        const struct berth__topo_kind *k = &c->topo->k[st->kind];
        list = k->list + k->start[st->dom];
        n = k->start[st->dom + 1] - k->start[st->dom];
    }
    /* the whole cluster: the gang spans racks anyway, so consolidate's fewest servers */
    int emptiest = st->kind == -2;
    int32_t whole = -1, whole_cap = 0, frag = -1, frag_cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = list ? list[i] : i;
        int32_t cap = cap_of(c, s, j, st->type, tp, -1);
        if (cap <= 0)
            continue;
        if (cap >= need &&
            (whole < 0 || cap < whole_cap || (cap == whole_cap && (int32_t)s < whole)))
            whole = (int32_t)s, whole_cap = cap;
        if (frag < 0 || (emptiest ? cap > frag_cap : cap < frag_cap) ||
            (cap == frag_cap && (int32_t)s < frag))
            frag = (int32_t)s, frag_cap = cap;
    }
    int32_t s = whole >= 0 ? whole : frag;
    if (s < 0)
        return BERTH_NOFIT;
    uint64_t m = piece_mask(c, (uint32_t)s, j, st->type, tp, -1, need);
    int32_t k = __builtin_popcountll(m);
    if (k < 1)
        return BERTH_NOFIT;
    *out = (struct berth__place_pick){(uint32_t)s, -1, k, tp > 1 ? m : 0};
    return 0;
}

static int pick_topo(void *self, const struct berth_cluster *c, const struct berth__job *j,
                     int type, int32_t need, struct berth__place_pick *out)
{
    struct topo_self *st = self;
    if (!c->topo || j->gpus == 0 || berth__job_share(j) < 1000 || type < 0)
        return berth__place_consolidate.pick(NULL, c, j, type, need, out);
    if (need == j->gpus || st->job != j->idx || st->type != type) { /* the gang's first piece */
        struct cand b;
        st->job = UINT32_MAX;
        if (choose(c, j, type, need, berth__place_topo_required(j), &b) < 0)
            return BERTH_NOFIT;
        *st = (struct topo_self){j->idx, b.kind, b.dom, b.group, type};
    }
    return fill(c, j, st, need, out);
}

const struct berth__placement_ops berth__place_topology = {
    .name = "topology",
    .summary = "the lowest topology level (nvlink, node, rack, block) with a domain that "
               "holds the gang, its best-fit domain, filled in rank order",
    .create = topo_create,
    .destroy = topo_destroy,
    .pick = pick_topo,
};

int berth__place_topo_blocks(const struct berth_cluster *c, const struct berth__job *j)
{
    if (!c->topo || j->state != BERTH_JOB_PENDING || j->gpus == 0 || berth__job_share(j) < 1000 ||
        !berth_jobspec_extra(j->spec)->topo_required)
        return 0;
    int enough = 0;
    for (size_t t = 0; t < c->ntypes && !enough; t++)
        enough = (!j->type_mask || (j->type_mask >> t & 1)) && c->types[t].free >= j->gpus;
    return enough && !berth__place_topo_holds(c, j, -1, berth__place_topo_required(j));
}

int berth__place_topo_verify(const struct berth_cluster *c, const struct berth__job *j, char *why,
                             size_t len)
{
    if (!c->topo || j->state != BERTH_JOB_RUNNING || j->gpus < 2 || berth__job_share(j) < 1000)
        return 0;
    int req = berth__place_topo_required(j);
    int span = berth__topo_span(c, j->slots, j->gpus);
    if (berth_jobspec_extra(j->spec)->topo_required && span > req) {
        snprintf(why, len, "job %s spans %s, its required level is %s", j->spec->id,
                 berth__topo_level_name(span), berth__topo_level_name(req));
        return -1;
    }
    int tp = berth__place_topo_tp(c, j);
    for (int32_t k = 0; tp > 1 && k < j->gpus; k++)
        if (j->slots[k].server != j->slots[k - k % tp].server) {
            snprintf(why, len, "job %s: tensor-parallel group %d (of %d GPUs) spans servers",
                     j->spec->id, k / tp, tp);
            return -1;
        }
    return 0;
}
