/* Salus' memory lanes (MLSys 2020; SymbioticLab/Salus lanemgr.cpp): each GPU's memory is cut
 * into lanes; the jobs of one lane time-share it, so a lane must hold the sum of their
 * persistent memory plus the largest of their ephemeral peaks. Pure bookkeeping, no engine:
 * the salus policies (salus.c) decide who runs, this file decides who fits where.
 *
 * The rule is Salus' own (GpuControlBlock::bestFitFor and GpuLane::tryFit):
 * - a job asking for persistent P and peak ephemeral E first gets a NEW lane of `lane_size`
 *   (P + E, or the whole GPU for the one-lane policies) when the GPU's free memory holds it;
 * - otherwise the GPU's lanes are tried in their list order (ascending available memory at
 *   creation); lane l admits it when P + max(E, maxpeak(l)) <= size(l) - persistent(l), and
 *   then persistent(l) += P and E joins the lane's peaks;
 * - a job leaving gives back its P (and its peak); an empty lane is removed and its size
 *   returns to the GPU's free memory (memory is reused; there is no other defragmentation).
 * Sizes are MiB. Which GPU is tried first is the caller's business (berth__lanes_find). */
#ifndef BERTH_POLICY_SALUS_LANES_H
#define BERTH_POLICY_SALUS_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "berth/trace.h"

#define BERTH_LANE_NONE  UINT32_MAX
#define BERTH_LANES_FREE 0
#define BERTH_LANES_ROOM 1

struct berth__lane {
    int64_t size;    /* MiB reserved on its GPU */
    int64_t persist; /* sum of its jobs' persistent memory */
    uint32_t gpu;
    uint32_t head, tail; /* its jobs in admission order (BERTH_LANE_NONE when empty) */
    uint32_t njobs;
    uint32_t next;   /* next lane of the same GPU (or next free lane record) */
    uint32_t active; /* the job running in it now (the salus policies' business), or NONE */
};

struct berth__lane_gpu {
    int64_t cap;   /* memory lanes may use (the GPU's memory less Salus' reserve) */
    int64_t free;  /* not in any lane */
    uint32_t head; /* its lanes, in Salus' list order */
    uint32_t nlanes;
};

struct berth__lanes {
    struct berth__lane_gpu *gpu;
    size_t ngpus;
    struct berth__lane *lane;
    size_t nlane, lane_cap;
    uint32_t free_lane; /* free list of lane records */
    int share;          /* 0: a GPU's lanes never take a second job (no sharing) */
    /* per job (index = job number) */
    uint32_t *lane_of, *next;
    int64_t *persist, *peak;
    size_t njobs;
    /* max segment trees over GPUs: [BERTH_LANES_FREE] their free memory, [BERTH_LANES_ROOM]
     * the most persistent memory one of their lanes could still take, size - persistent -
     * maxpeak (-1 without lanes or sharing): a new lane of n needs FREE >= n, a job of
     * persistent p sharing a lane needs ROOM >= p (and p + e <= size - persistent) */
    int64_t *tree[2];
    size_t leaves;
};

/* Sets L up for ngpus GPUs of cap[g] MiB each (share: lanes may hold several jobs). Returns 0
 * or -1 when out of memory. */
int berth__lanes_init(struct berth__lanes *L, size_t ngpus, const int64_t *cap, int share);
void berth__lanes_free(struct berth__lanes *L);
/* Makes room for jobs numbered below n. Returns 0 or -1. */
int berth__lanes_reserve_jobs(struct berth__lanes *L, size_t n);

/* The largest ephemeral peak among lane l's jobs (0 when empty). */
int64_t berth__lane_maxpeak(const struct berth__lanes *L, uint32_t l);
/* Salus' tryFit: 1 when lane l admits a job of persistent p and peak e. */
int berth__lane_fits(const struct berth__lanes *L, uint32_t l, int64_t p, int64_t e);

/* Salus' bestFitFor on GPU g: admits job j (p, e) into a new lane of lane_size (>= p + e)
 * when g's free memory holds one, else into the first of g's lanes that fits (when L may
 * share). Returns the lane, or BERTH_LANE_NONE when g cannot take it (nothing changes);
 * BERTH_LANE_NONE - 1 when out of memory. */
uint32_t berth__lanes_admit(struct berth__lanes *L, uint32_t g, uint32_t j, int64_t p, int64_t e,
                            int64_t lane_size);
/* Its two halves: a new lane only, or one of g's lanes only (in Salus' order). */
uint32_t berth__lanes_admit_new(struct berth__lanes *L, uint32_t g, uint32_t j, int64_t p,
                                int64_t e, int64_t lane_size);
uint32_t berth__lanes_admit_shared(struct berth__lanes *L, uint32_t g, uint32_t j, int64_t p,
                                   int64_t e);
/* Job j leaves its lane (it finished or was cancelled); an emptied lane is removed. Returns
 * the lane it was in (its record is freed when it emptied), or BERTH_LANE_NONE. */
uint32_t berth__lanes_leave(struct berth__lanes *L, uint32_t j);

/* The first GPU at index >= from whose value in tree `which` (BERTH_LANES_FREE or
 * BERTH_LANES_ROOM) is at least need, or BERTH_LANE_NONE. A necessary condition for a new lane
 * of need (FREE) or for sharing a lane with a job of persistent need (ROOM); admission
 * decides. */
uint32_t berth__lanes_find(const struct berth__lanes *L, int which, int64_t need, uint32_t from);
/* The GPU with the most in tree `which` (the lowest index among equals), when that is at
 * least need; else BERTH_LANE_NONE. */
uint32_t berth__lanes_find_most(const struct berth__lanes *L, int which, int64_t need);

/* Re-derives every GPU's and lane's memory from the jobs and checks Salus' invariants: lanes
 * within their GPU (sum of sizes + free = cap), every lane holding its persistent sum plus
 * its largest peak, every job in the lane it says. Returns 0 or -1. */
int berth__lanes_check(const struct berth__lanes *L);
/* The same for GPU g's lanes only. */
int berth__lanes_check_gpu(const struct berth__lanes *L, uint32_t g);

/* Memory sizes (salus_mem.c). */
#define BERTH_SALUS_RESERVE_MIB 300 /* Salus keeps 300 MiB of every GPU out of its lanes */
/* What lanes may use of one GPU: its memory (gpu_mem_mib from the cluster, else an estimate
 * by GPU type name) less Salus' reserve. */
int64_t berth__salus_gpu_cap(const char *type_name, int64_t gpu_mem_mib);
/* Job spec s's persistent and peak ephemeral memory in MiB: persist_mib / ephem_mib when the
 * trace gives them, else an estimate for its job class (Gavel's names, batch size read from
 * "(batch size N)"), split from gpu_mem_mib when only that is given; ephemeral memory is
 * raised so that p + e covers gpu_mem_mib, and p + e is at least 1. */
void berth__salus_job_mem(const struct berth_jobspec *s, int64_t *p, int64_t *e);

#endif
