/* The placement contract: which GPUs a starting job gets, as a const ops table per
 * placement (like a policy, or a Kubernetes scoring plugin), chosen by name with
 * --placement. A placement only *picks*; the plan applies each pick, checks it and charges
 * it (sched/plan.c), so no placement can over-commit a GPU or split a gang's type.
 *
 * A whole-GPU gang is placed in pieces: the plan asks for the next piece while GPUs remain
 * to be placed (`need`: the whole gang at first), and the placement answers a server and
 * how many of its idle GPUs to take (the lowest-numbered ones). A fractional job is one
 * piece: a server and the GPU whose room takes the share. A CPU-only job is one piece: the
 * server whose CPU and memory it holds. */
#ifndef BERTH_SCHED_PLACEMENT_H
#define BERTH_SCHED_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"
#include "berth/policy.h"
#include "model/cluster.h"
#include "model/job.h"

/* A plan edit's (and a placement pick's) outcome "the job does not fit there" (the Kubernetes
 * framework's Unschedulable): positive, with no message, the plan unchanged. Errors stay negative
 * BERTH_E* codes with err filled (a misuse of the plan is BERTH_EINTERNAL). */
enum { BERTH_NOFIT = 1 };

/* The placements, in table order (their index is what policies compare). */
enum berth_placement {
    BERTH_PLACE_CONSOLIDATE = 0,
    BERTH_PLACE_SPREAD = 1,
    BERTH_PLACE_BEST_FIT = 2,
    BERTH_PLACE_FGD = 3,
    BERTH_PLACE_BLOX_SCATTERED = 4,
    BERTH_PLACE_BLOX_CONSOLIDATED = 5,
    BERTH_PLACE_TOPOLOGY = 6,
};

/* One piece: n whole GPUs of server (its lowest idle ones, or exactly those of mask when
 * mask is not 0); or, for a fractional job, its share on GPU gpu of server (n = 1); or, for
 * a CPU-only job, server (gpu -1, n = 0). */
struct berth__place_pick {
    uint32_t server;
    int32_t gpu;
    int32_t n;
    uint64_t mask; /* 0, or n idle GPUs of server (the topology placement's islands) */
};

struct berth__placement_ops {
    const char *name;    /* "consolidate" */
    const char *summary; /* one line for `berth policies` */
    /* 1: pick is asked with type -1 and chooses the GPU type too (among those the job may
     * use); 0: the plan asks type by type, in cluster order, where the GPU counts fit. */
    int any_type;
    /* Optional (NULL: the placement keeps no state; self stays NULL). */
    int (*create)(void **self, struct berth_err *err);
    void (*destroy)(void *self);
    /* Optional: before each scheduling pass, with every job the engine knows (FGD builds
     * its target workload from them). */
    int (*prepare)(void *self, const struct berth_cluster *c, const struct berth__job *jobs,
                   size_t njobs, struct berth_err *err);
    /* The next piece of job j: GPUs of type `type` (-1: any the job may use, for any_type
     * placements; the plan fixes the type after the first piece), `need` whole GPUs still
     * to place (1 for a fractional job, 0 for a CPU-only one). Fills *out and returns 0, or
     * returns BERTH_NOFIT when no server can take a piece. */
    int (*pick)(void *self, const struct berth_cluster *c, const struct berth__job *j, int type,
                int32_t need, struct berth__place_pick *out);
};

/* A placement chosen for a run: its ops, its state, its index in the table. */
struct berth__placement {
    const struct berth__placement_ops *ops;
    void *self;
    int id; /* enum berth_placement */
};

/* The placement named name (0), or BERTH_EINPUT listing the names. */
int berth__placement_open(const char *name, struct berth__placement *out, struct berth_err *err);
void berth__placement_close(struct berth__placement *pl);

/* The server for CPU-only job j under the classic placements: the one with the least CPU
 * left that still holds it (spread: the most), ties to the lower index; any server when the
 * cluster does not model CPU or memory; -1 when none can. The plan's fit test uses it. */
int32_t berth__place_cpu_server(const struct berth_cluster *c, const struct berth__job *j,
                                int spread);

extern const struct berth__placement_ops berth__place_consolidate, berth__place_spread,
    berth__place_best_fit, berth__place_fgd, berth__place_blox_scattered,
    berth__place_blox_consolidated, berth__place_topology;

/* The topology placement's rules (place_topo.c), for the plan and the engine's checks:
 * j's tensor-parallel degree as placed (its tp when > 1, it divides the whole-GPU gang and
 * a server can hold a group; else 1); the highest level its gang may span (its required
 * level, node when it must stay on one server, else cluster); and whether some domain at or
 * below level maxlv holds its gang on type `type` now (-1: any type it may use; 1 without a
 * topology or for a fractional or CPU-only job). */
int berth__place_topo_tp(const struct berth_cluster *c, const struct berth__job *j);
int berth__place_topo_required(const struct berth__job *j);
int berth__place_topo_holds(const struct berth_cluster *c, const struct berth__job *j, int type,
                            int maxlv);
/* 1 when pending job j waits for its topology alone: it has a required level, a type it may
 * use has idle GPUs for its gang, and no domain of that level holds it (reason Topology). */
int berth__place_topo_blocks(const struct berth_cluster *c, const struct berth__job *j);
/* --check: -1 (why filled) when running job j's GPUs leave its required level's domain or
 * one of its tensor-parallel groups spans servers; else 0. */
int berth__place_topo_verify(const struct berth_cluster *c, const struct berth__job *j, char *why,
                             size_t len);

#endif
