/* Node-and-GPU choice for one pod of a packing run: FGD and four baselines, each a scorer
 * over the cluster model (which servers can host the pod, and how each would look after).
 *
 *   fgd          the feasible (server, GPU) whose placement raises the server's F_n(M)
 *                (frag.h) the least; F_n after minus F_n before, exact (the simulator
 *                maps it through an integer sigmoid score 0..100, which makes ties).
 *   best-fit     the server with the least weighted resources left after placing:
 *                0.5 (cpu_left - cpu) / 128 cores + 0.5 (gpu_left - gpu) / 8 GPUs
 *                (simulator best_fit_score.go; 128000 and 8000 are its MaxSpec constants);
 *                inside the server the GPU with the least room that fits (idle ones last).
 *   first-fit    the first feasible server in cluster order, its lowest-index GPU that fits.
 *   dot-product  Tetris-style alignment as the simulator runs it ("merge" GPU dimension,
 *                "max" normalisation): the server minimising
 *                (cpu_left/128000 * cpu/128000 + gpu_left/8000 * gpu/8000) / 2, i.e. the
 *                one whose free vector is least aligned with the demand; GPU as best-fit.
 *   random       a feasible server uniformly at random, then a feasible GPU uniformly.
 *   fgd-k8s      FGD as the paper's simulator scores it (fgd_score.go): the integer
 *                score int(100 sigmoid((F_n before - F_n after) / 1000)), F_n in milli-GPUs,
 *                highest wins, ties broken uniformly at random (Kubernetes' selectHost).
 *                The integer score makes many ties (changes below ~0.04 GPU look alike).
 *
 * Ties go to the lower server index, then the lower GPU index. Feasibility is the model's:
 * allowed GPU model, one server, idle GPUs (or room on one GPU for a share), GPU memory,
 * CPU and host memory (alloc.h). */
#ifndef BERTH_POLICY_FGD_H
#define BERTH_POLICY_FGD_H

#include "sched/frag.h"
#include "util/rng.h"

enum berth__scorer {
    BERTH_SCORER_FGD,
    BERTH_SCORER_BEST_FIT,
    BERTH_SCORER_FIRST_FIT,
    BERTH_SCORER_DOT_PRODUCT,
    BERTH_SCORER_RANDOM,
    BERTH_SCORER_FGD_K8S,
    BERTH_SCORER_COUNT
};

/* The scorer named name, or -1. */
int berth__scorer_find(const char *name);
const char *berth__scorer_name(int scorer);

struct berth__pick {
    int32_t server;
    int32_t gpu; /* the GPU of a sharing pod; -1 otherwise (whole GPUs: lowest idle ones) */
};

/* What a scorer may read besides the cluster. frag_now[s] is F_n(M) of server s now (FGD
 * only; kept up to date by the caller). */
struct berth__score_ctx {
    int scorer;
    const struct berth__frag_workload *w;
    const double *frag_now;
    struct berth__rng *rng; /* random only */
};

/* Chooses where j goes. Returns 0 with *out filled, or 1 when no server can host j. */
int berth__pack_choose(const struct berth__score_ctx *x, const struct berth_cluster *c,
                       const struct berth__job *j, struct berth__pick *out);

#endif
