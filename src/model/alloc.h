/* What a running job holds and how it is charged to the cluster: its GPU slots (whole GPUs,
 * or one share of a GPU for a fractional job) and, per GPU, an equal part of its CPU and
 * memory on that GPU's server. Taking and giving back always go through here, so the
 * cluster's counters, buckets and partial-GPU lists stay exact.
 *
 * A job's CPU (memory) per GPU is ceil(total / gang size): charged per slot, it is the same
 * whichever way the slots are grouped, so giving back undoes taking exactly. */
#ifndef BERTH_MODEL_ALLOC_H
#define BERTH_MODEL_ALLOC_H

#include "model/cluster.h"
#include "model/job.h"

/* Makes room for fractional jobs: per-GPU share counters on every server and a partial-GPU
 * list per type. Called once, before the first fractional job is charged. */
int berth__cluster_enable_shares(struct berth_cluster *c);

/* Turns on the owner map (c->owner: which whole-GPU job holds each GPU, by its idx), kept
 * by every take and give below from then on; for consolidate-or-wait (sched/plan_wait.c).
 * Called before any job is charged; 0, or -1 when out of memory. */
int berth__cluster_track_owners(struct berth_cluster *c);
/* The owner map's entry for GPU g of server s (c->owner must be on). */
static inline uint32_t berth__gpu_owner(const struct berth_cluster *c, uint32_t s, uint32_t g)
{
    return c->owner[(size_t)s * (size_t)c->max_per_server + g];
}

/* The job's share of one GPU in milli (1000 for whole-GPU jobs). */
static inline int32_t berth__job_share(const struct berth__job *j)
{
    return j->share;
}

int64_t berth__job_cpu_per_gpu(const struct berth__job *j);
int64_t berth__job_mem_per_gpu(const struct berth__job *j);

/* How many more of j's GPUs server s could host now, counting idle GPUs, CPU and memory
 * (for a fractional job: 1 when some GPU has room for its share, else 0). */
int32_t berth__server_room(const struct berth_cluster *c, uint32_t s, const struct berth__job *j);
/* 1 when server s's CPU and memory can take n more of j's GPUs. */
int berth__server_cpu_mem_fit(const struct berth_cluster *c, uint32_t s, const struct berth__job *j,
                              int32_t n);

/* Charges slots [k0, k1) of j (already written in j->slots) to the cluster / gives them
 * back. A charged GPU must be wholly idle (for a fractional job: have room for its share)
 * and its server must have the CPU and memory. */
void berth__alloc_take_range(struct berth_cluster *c, const struct berth__job *j, int32_t k0,
                             int32_t k1);
void berth__alloc_give_range(struct berth_cluster *c, const struct berth__job *j, int32_t k0,
                             int32_t k1);
/* Charges all of j's slots / gives all of them back. */
void berth__alloc_take(struct berth_cluster *c, const struct berth__job *j);
void berth__alloc_give(struct berth_cluster *c, const struct berth__job *j);
/* 1 when every slot in slots (j's gang) could be charged now. */
int berth__alloc_can_take(const struct berth_cluster *c, const struct berth__job *j,
                          const struct berth__slot *slots);

/* 1 when GPU g of server s has the memory j needs (for a fractional job: beside the other
 * fractional jobs on it); always 1 when the server or the job gives no GPU memory. */
int berth__gpu_mem_fits(const struct berth_cluster *c, uint32_t s, uint32_t g,
                        const struct berth__job *j);

/* Best GPU on server s of type t for fractional job j: the partial GPU with the least room
 * that still fits (most room when most is 1), else a wholly idle GPU; -1 when none. */
int berth__server_pick_share_gpu(const struct berth_cluster *c, uint32_t s,
                                 const struct berth__job *j, int most);

#endif
