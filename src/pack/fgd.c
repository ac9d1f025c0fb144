/* FGD and the baseline scorers of a packing run (definitions and sources in fgd.h). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "pack/fgd.h"
#include "model/alloc.h"

#define MAX_SPEC_CPU 128000.0 /* milli-CPU, the simulator's normalisation constant */
#define MAX_SPEC_GPU 8000.0   /* milli-GPU */

static const char *const names[BERTH_SCORER_COUNT] = {"fgd",         "best-fit", "first-fit",
                                                      "dot-product", "random",   "fgd-k8s"};

int berth__scorer_find(const char *name)
{
    for (int i = 0; i < BERTH_SCORER_COUNT; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

const char *berth__scorer_name(int scorer)
{
    return scorer >= 0 && scorer < BERTH_SCORER_COUNT ? names[scorer] : NULL;
}

static int64_t cpu_left(const struct berth__server *v)
{
    return v->cpu_milli ? v->cpu_free : 0;
}

static int64_t gpu_left(const struct berth_cluster *c, uint32_t s)
{
    struct berth__frag_node n;
    berth__frag_node_view(c, s, &n);
    return berth__frag_node_idle(&n);
}

/* The GPU of sharing pod j on server s with the least room that fits, partly used GPUs
 * before idle ones (lowest index on ties); first = 1: the lowest-index GPU that fits. */
static int32_t pick_gpu(const struct berth_cluster *c, uint32_t s, const struct berth__job *j,
                        int first)
{
    const struct berth__server *v = &c->srv[s];
    int32_t best = -1;
    int best_room = 0;
    for (int g = 0; g < v->ngpus; g++) {
        if (!berth__frag_share_fits(c, s, g, j))
            continue;
        int room = ((v->free_mask >> g) & 1) ? 1000 : 1000 - v->shares->used[g];
        if (first)
            return g;
        if (best < 0 || room < best_room) {
            best = g;
            best_room = room;
        }
    }
    return best;
}

int berth__pack_choose(const struct berth__score_ctx *x, const struct berth_cluster *c,
                       const struct berth__job *j, struct berth__pick *out)
{
    int32_t best = -1, best_gpu = -1;
    double best_score = DBL_MAX;
    size_t nfeasible = 0, nties = 0;
    double gpu_req = (double)j->gpus * (double)j->share;
    double cpu_req = (double)berth_jobspec_extra(j->spec)->cpu_milli;
    for (uint32_t s = 0; s < c->nsrv; s++) {
        if (!berth__frag_feasible(c, s, j))
            continue;
        nfeasible++;
        double score = 0;
        int32_t gpu = -1;
        const struct berth__server *v = &c->srv[s];
        switch (x->scorer) {
        case BERTH_SCORER_FGD:
            score = berth__frag_delta(x->w, c, s, j, x->frag_now[s], &gpu);
            break;
        case BERTH_SCORER_BEST_FIT:
            score = 0.5 * (v->cpu_milli ? ((double)cpu_left(v) - cpu_req) / MAX_SPEC_CPU : 0) +
                    0.5 * ((double)gpu_left(c, s) - gpu_req) / MAX_SPEC_GPU;
            break;
        case BERTH_SCORER_DOT_PRODUCT:
            score = ((double)cpu_left(v) / MAX_SPEC_CPU * cpu_req / MAX_SPEC_CPU +
                     (double)gpu_left(c, s) / MAX_SPEC_GPU * gpu_req / MAX_SPEC_GPU) /
                    2;
            break;
        case BERTH_SCORER_FIRST_FIT:
            score = 0;
            break;
        case BERTH_SCORER_FGD_K8S: {
            /* the simulator's integer score, negated (lower wins here); equal scores: each
             * of the k tied servers so far takes the pick with odds 1/k */
            double d = berth__frag_delta(x->w, c, s, j, x->frag_now[s], &gpu);
            score = -(double)(int64_t)(100.0 / (1.0 + exp(d / 1000.0)));
            if (best >= 0 && score == best_score) {
                if (berth__rng_below(x->rng, ++nties) == 0) {
                    best = (int32_t)s;
                    best_gpu = gpu;
                }
                continue;
            }
            if (best < 0 || score < best_score)
                nties = 1;
            break;
        }
        case BERTH_SCORER_RANDOM:
            /* reservoir sampling: the k-th feasible server takes the pick with odds 1/k */
            if (berth__rng_below(x->rng, nfeasible) == 0)
                best = (int32_t)s;
            continue;
        default:
            return 1;
        }
        if (best < 0 || score < best_score) {
            best = (int32_t)s;
            best_score = score;
            best_gpu = gpu;
        }
        if (x->scorer == BERTH_SCORER_FIRST_FIT)
            break;
    }
    if (best < 0)
        return 1;
    out->server = best;
    out->gpu = -1;
    if (j->gpus > 0 && j->share < 1000) {
        if (x->scorer == BERTH_SCORER_FGD || x->scorer == BERTH_SCORER_FGD_K8S) {
            out->gpu = best_gpu;
        } else if (x->scorer == BERTH_SCORER_RANDOM) {
            const struct berth__server *v = &c->srv[best];
            uint64_t k = 0;
            for (int g = 0; g < v->ngpus; g++)
                if (berth__frag_share_fits(c, (uint32_t)best, g, j) &&
                    berth__rng_below(x->rng, ++k) == 0)
                    out->gpu = g;
        } else {
            out->gpu = pick_gpu(c, (uint32_t)best, j, x->scorer == BERTH_SCORER_FIRST_FIT);
        }
    }
    return 0;
}
