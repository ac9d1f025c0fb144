/* FGD as a placement (--placement fgd): Weng et al., ATC'23. A starting job goes to the
 * feasible (server, GPU) whose placement raises the server's fragmentation F_n(M) the least
 * (sched/frag.h), over every GPU type the job may use; ties go to the lower server, then the
 * lower GPU — the scorer `berth pack --scorer fgd` uses, now for jobs that come and go.
 *
 * M, the target workload, is the pod types of the jobs the engine knows (the whole trace in
 * berth sim, whose jobs are registered before the first pass; the submissions so far in
 * berthd), kept from the most popular down to 95 % of them as the paper's simulator does. It
 * is rebuilt when the jobs known grew: at once below 4,096 jobs, then when they grew by a
 * sixteenth, so a busy berthd does not sort every job at every pass. F_n of each server is
 * cached and recomputed only when the server's allocation changed (its gen counter).
 *
 * FGD places a whole gang on one server. A gang that no single server can hold (it may
 * span servers) is placed as consolidate places it, on the first GPU type in cluster order
 * with the GPUs for it: the paper has no rule for gangs across servers. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "sched/frag.h"
#include "sched/placement.h"

#define POPULARITY_PCT 95   /* the simulator's PodPopularityThreshold in its openb runs */
#define REBUILD_SMALL  4096 /* below this many jobs M follows every new job */

struct fgd {
    struct berth__frag_workload w;
    size_t built_n; /* jobs M was built from */
    int built;
    double *frag; /* F_n per server, valid while gen[s] is the server's gen */
    uint32_t *gen;
    uint8_t *known;
    size_t nsrv;
};

static int create(void **self, struct berth_err *err)
{
    struct fgd *f = calloc(1, sizeof *f);
    if (!f)
        return berth_err_set(err, BERTH_ENOMEM, "placement fgd: out of memory");
    *self = f;
    return 0;
}

static void destroy(void *self)
{
    struct fgd *f = self;
    berth__frag_workload_free(&f->w);
    free(f->frag);
    free(f->gen);
    free(f->known);
    free(f);
}

static int prepare(void *self, const struct berth_cluster *c, const struct berth__job *jobs,
                   size_t njobs, struct berth_err *err)
{
    struct fgd *f = self;
    if (f->nsrv != c->nsrv) {
        free(f->frag);
        free(f->gen);
        free(f->known);
        f->nsrv = c->nsrv;
        f->frag = calloc(c->nsrv ? c->nsrv : 1, sizeof *f->frag);
        f->gen = calloc(c->nsrv ? c->nsrv : 1, sizeof *f->gen);
        f->known = calloc(c->nsrv ? c->nsrv : 1, 1);
        if (!f->frag || !f->gen || !f->known) {
            f->nsrv = 0;
            return berth_err_set(err, BERTH_ENOMEM, "placement fgd: out of memory");
        }
    }
    int grew = njobs != f->built_n &&
               (njobs < REBUILD_SMALL || njobs >= f->built_n + f->built_n / 16 || !f->built);
    if (!grew)
        return 0;
    struct berth__frag_workload w;
    if (berth__frag_workload_build(jobs, njobs, POPULARITY_PCT, &w))
        return berth_err_set(err, BERTH_ENOMEM, "placement fgd: out of memory");
    berth__frag_workload_free(&f->w);
    f->w = w;
    f->built_n = njobs;
    f->built = 1;
    memset(f->known, 0, f->nsrv); /* every F_n was measured against the old M */
    return 0;
}

/* F_n(M) of server s now, from the cache when the server has not changed. */
static double frag_now(struct fgd *f, const struct berth_cluster *c, uint32_t s)
{
    if (!f->known[s] || f->gen[s] != c->srv[s].gen) {
        struct berth__frag_node v;
        berth__frag_node_view(c, s, &v);
        f->frag[s] = berth__frag_node(&f->w, &v);
        f->gen[s] = c->srv[s].gen;
        f->known[s] = 1;
    }
    return f->frag[s];
}

/* What FGD does not decide: consolidate's piece, on the given type or the first allowed type
 * in cluster order that holds the rest by count (a gang no one server can hold, or a pick
 * before any pass prepared M). */
static int spill(const struct berth_cluster *c, const struct berth__job *j, int type, int32_t need,
                 struct berth__place_pick *out)
{
    if (type >= 0 || j->gpus == 0)
        return berth__place_consolidate.pick(NULL, c, j, type, need, out);
    for (size_t t = 0; t < c->ntypes; t++) {
        if ((j->type_mask && !(j->type_mask >> t & 1)) ||
            (berth__job_share(j) == 1000 && c->types[t].free < need))
            continue;
        if (!berth__place_consolidate.pick(NULL, c, j, (int)t, need, out))
            return 0;
    }
    return BERTH_NOFIT;
}

static int pick(void *self, const struct berth_cluster *c, const struct berth__job *j, int type,
                int32_t need, struct berth__place_pick *out)
{
    struct fgd *f = self;
    if (!f->built || f->nsrv != c->nsrv) /* no pass prepared it (a plan used alone) */
        return spill(c, j, type, need, out);
    int whole = j->gpus > 0 && berth__job_share(j) == 1000;
    if (whole && need < j->gpus) /* a later piece of a spilled gang */
        return spill(c, j, type, need, out);
    int32_t best = -1, best_gpu = -1;
    double best_d = DBL_MAX;
    for (uint32_t s = 0; s < c->nsrv; s++) {
        if ((type >= 0 && c->srv[s].type != type) || c->srv[s].closed ||
            !berth__frag_feasible(c, s, j))
            continue;
        int32_t gpu;
        double d = berth__frag_delta(&f->w, c, s, j, frag_now(f, c, s), &gpu);
        if (best < 0 || d < best_d) {
            best = (int32_t)s;
            best_d = d;
            best_gpu = gpu;
        }
    }
    if (best < 0)
        return whole && !j->single && c->allow_span ? spill(c, j, type, need, out) : BERTH_NOFIT;
    *out = (struct berth__place_pick){(uint32_t)best, j->gpus && !whole ? best_gpu : -1, need, 0};
    return 0;
}

const struct berth__placement_ops berth__place_fgd = {
    .name = "fgd",
    .summary = "FGD: the server and GPU that raise fragmentation for the typical workload least",
    .any_type = 1,
    .create = create,
    .destroy = destroy,
    .prepare = prepare,
    .pick = pick,
};
