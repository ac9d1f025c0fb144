/* The fragmentation measure of FGD (Weng et al., ATC'23, section 4): how much of a node's
 * idle GPU capacity the target workload M could not use, in milli-GPUs.
 *
 * M is a list of pod types (CPU, milli-GPU per GPU, GPU count, allowed GPU models) with
 * their popularity p_m. For one node n and one type m, f_n(m) is
 *   - all of n's idle GPU milli when m asks for no GPU, cannot use n's GPU model, or cannot
 *     be hosted by n (fewer than gpus(m) GPUs with >= milli(m) left, or too little CPU);
 *   - otherwise the idle milli on n's GPUs that each have less than milli(m) left.
 * F_n(M) = sum_m p_m f_n(m). This is the simulator's NodeGpuShareFragAmountScore
 * (hkust-adsl/kubernetes-scheduler-simulator @ 8f3d641, pkg/utils/frag.go): every class but
 * "Q3 satisfied" counts, so CPU-only types count all idle GPU milli too (a constant that
 * shifts every node's FGD score alike). Memory is not part of the measure, as there. */
#ifndef BERTH_POLICY_FRAG_H
#define BERTH_POLICY_FRAG_H

#include <stddef.h>
#include <stdint.h>

#include "model/cluster.h"
#include "model/job.h"

struct berth__frag_type {
    int64_t cpu_milli;  /* the pod's whole CPU request */
    int32_t milli;      /* milli-GPU per GPU (1..1000), 0 for a CPU-only pod */
    int32_t gpus;       /* GPUs asked for (1 for a sharing pod) */
    uint64_t type_mask; /* allowed GPU types, 0 = any */
    double p;           /* popularity, the p_m sum to 1 */
    size_t count;       /* pods of this type in the trace */
};

/* The target workload M. Owns t (berth__frag_workload_free). */
struct berth__frag_workload {
    struct berth__frag_type *t;
    size_t n;
    size_t pods; /* pods counted, before the popularity cut */
};

/* A node as the measure sees it: CPU left and milli-GPU left per GPU. */
struct berth__frag_node {
    int64_t cpu_left; /* INT64_MAX when the server does not model CPU */
    int32_t ngpus;
    uint16_t type;
    int32_t left[BERTH_MAX_SERVER_GPUS];
};

/* M from jobs[0..n): distinct (CPU, milli, GPUs, models) types counted one per pod, sorted
 * by count (ties by the key, so the order is deterministic), kept from the most popular down
 * until they cover threshold_pct % of the pods (the simulator's PodPopularityThreshold, 95
 * in its openb experiments, step 1), then renormalised. threshold_pct >= 100 keeps all.
 * Returns 0 or BERTH_ENOMEM. */
int berth__frag_workload_build(const struct berth__job *jobs, size_t n, int threshold_pct,
                               struct berth__frag_workload *w);
void berth__frag_workload_free(struct berth__frag_workload *w);

/* Server s of c as the measure sees it now. */
void berth__frag_node_view(const struct berth_cluster *c, uint32_t s, struct berth__frag_node *v);
/* F_n(M) of v, in milli-GPUs. */
double berth__frag_node(const struct berth__frag_workload *w, const struct berth__frag_node *v);
/* Idle milli-GPUs of v. */
int64_t berth__frag_node_idle(const struct berth__frag_node *v);

/* Feasibility as FGD sees it (the model's rules: allowed GPU model, one server, idle GPUs or
 * room on one GPU for a share, GPU memory, CPU and host memory, alloc.h): 1 when server s
 * can host all of j now. */
int berth__frag_feasible(const struct berth_cluster *c, uint32_t s, const struct berth__job *j);
/* 1 when GPU g of server s can take fractional job j's share. */
int berth__frag_share_fits(const struct berth_cluster *c, uint32_t s, int g,
                           const struct berth__job *j);
/* FGD's score of placing j on server s: the smallest rise of F_n(M) over j's possible GPUs
 * there, given F_n now (`before`); *gpu gets the GPU of a fractional job (-1 otherwise: a
 * whole-GPU job takes the lowest idle GPUs). */
double berth__frag_delta(const struct berth__frag_workload *w, const struct berth_cluster *c,
                         uint32_t s, const struct berth__job *j, double before, int32_t *gpu);

/* Fragmentation at one topology level (frag_topo.c): of its domains with GPUs (node:
 * servers; nvlink: multi-node NVLink domains, or servers when there are none; rack, block),
 * how many there are, how many are wholly idle, the idle GPUs, and the share of them that
 * lies in domains not wholly idle (0 when none is idle). */
struct berth__frag_level {
    int32_t domains, whole, idle;
    double stranded;
};

/* Fills *out for level (enum berth_topo_level below cluster) of c; -1 when c has no
 * topology or the level is cluster (out zeroed). */
int berth__frag_topo(const struct berth_cluster *c, int level, struct berth__frag_level *out);

#endif
