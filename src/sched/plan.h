/* The plan a policy writes during a pass: a transaction over the cluster's GPUs and the
 * jobs' states. Every edit is checked when it is made (a start must fit idle GPUs of one
 * type; only running jobs are preempted; a restore needs the job's own GPUs still idle),
 * so no sequence of edits can over-commit a GPU. The engine owns the plan, opens it before
 * the policy's pass and diffs it after (engine/engine.c).
 *
 * Ownership: the plan keeps pointers to the cluster and job array it was opened on; the
 * snapshots of preempted allocations live in the plan until the next open. */
#ifndef BERTH_POLICY_PLAN_H
#define BERTH_POLICY_PLAN_H

#include "sched/placement.h"
#include "sched/policy_ops.h"

struct berth__touched {
    uint32_t job;
    uint8_t was_running;
    int32_t was_gpus; /* gang size when the plan opened (an elastic start may change it) */
    size_t snap;      /* offset of the saved slots in the plan's snapshot buffer */
};

struct berth_tput;
struct berth__spread;

/* Consolidate-or-wait (plan_wait.c): with a throughput model, a gang whose placement spans
 * servers starts only when that finishes it no later than waiting for one server to hold it
 * (then it does not fit). tput NULL: off. Set by the engine for each pass. */
struct berth__plan_wait {
    const struct berth_tput *tput;
    const int16_t *tput_type; /* per cluster GPU type: the model's type, -1 */
    const struct berth__spread *spread;
    /* with a topology: the rate by level (model/topo_rate.h), which replaces the spread
     * ratio; NULL without one */
    const struct berth_topo_model *trate;
    /* a running whole-GPU job's expected end (now + work left / rate) moves between passes
     * only by rounding unless GPUs are taken or given on a server of its: the executor
     * changes its rate and progress only then (berth__engine_set_stable_ends) */
    int stable_ends;
};

/* A point of a plan inside a trial: its undo log, touched list, snapshots and counts then. */
struct berth__plan_mark {
    size_t undo, touched, snaps, npending, nrunning;
};

struct berth__plan {
    struct berth_cluster *cluster;
    struct berth__job *jobs;
    size_t njobs;
    berth_us now;
    struct berth__plan_wait wait;
    const struct berth__placement *place; /* who picks the GPUs of a start */
    int placement;                        /* its enum berth_placement, for policies */
    /* With a topology: the topology placement (sched/place_topo.c), which places every job
     * with a required or preferred level or tp > 1 whatever the run's placement is (opened
     * by the first berth__plan_open on a cluster with a topology; ops NULL until then). */
    struct berth__placement topo_place;
    struct berth__touched *touched;
    size_t ntouched, touched_cap;
    int32_t *touch_of; /* per job: index into touched, -1 when untouched this pass */
    size_t touch_cap;
    struct berth__slot *snaps;
    size_t nsnaps, snaps_cap;
    size_t npending, nrunning; /* counts after the edits so far */
    int32_t filling;           /* slots taken so far by the start in progress */
    uint32_t *stamp;           /* per server: last start that counted it (servers spanned) */
    size_t stamp_cap;
    uint32_t epoch;
    struct berth__hidden *hidden; /* idle GPUs hidden from placement in this pass */
    size_t nhidden, hidden_cap;
    int32_t lent, reclaimed;    /* servers unreserved / reserved in this pass */
    uint32_t pass;              /* bumped by every open */
    struct berth__ready *ready; /* consolidate-or-wait's per-server ends (plan_wait.c) */
    /* A trial (plan_trial.c): edits that can be taken back exactly. */
    struct berth__undo undo;
    int trial;                        /* a trial is open: edits save what they overwrite */
    struct berth__plan_mark trial_at; /* the plan when it opened (plan_trial.c) */
    /* Starts taken back: a placement that took GPUs and then did not fit gave them back, or
     * consolidate-or-wait refused a start (plan_refuse.c moves the servers as that would).
     * Each moved servers within the free-GPU buckets, which a trial's caller must know to keep
     * the trial's preemptions as they are (prio.c's commit_trial). Only grows. */
    uint64_t taken_back;
    /* Why the last start that did not fit did not (enum berth__nofit), for a caller that
     * knows more edits can only make it worse (prio.c's preemption). */
    int nofit;
};

/* Why a start did not fit (berth__plan.nofit). */
enum berth__nofit {
    BERTH_NOFIT_COUNT = 1, /* too few idle GPUs of any type it may use (or, for a gang on one
                              server, no server with enough idle GPUs) */
    BERTH_NOFIT_PLACE = 2, /* placement found no room (CPU, memory, GPU memory, shares) */
    BERTH_NOFIT_WAIT = 3,  /* placed across servers, and consolidate-or-wait chose to wait */
    BERTH_NOFIT_TOPO = 4,  /* enough idle GPUs, but no domain of its required level holds
                              the gang (reason Topology) */
};

struct berth__hidden {
    uint32_t server;
    uint64_t mask;
};

void berth__plan_init(struct berth__plan *p);
void berth__plan_free(struct berth__plan *p);
/* Starts a new pass over cluster and jobs[0..njobs) at time now, starts placed by pl (which
 * must outlive the pass). */
int berth__plan_open(struct berth__plan *p, struct berth_cluster *c, struct berth__job *jobs,
                     size_t njobs, berth_us now, const struct berth__placement *pl, size_t npending,
                     size_t nrunning);
/* Whether job j, just placed by the plan on GPU type t across several servers, should start
 * so rather than wait for one server of t to hold its gang: 1 start, 0 wait, -1 out of
 * memory. Always 1 with the rule off, a gang on one server, no class or no slowdown. */
int berth__plan_spread_pays(struct berth__plan *p, const struct berth__job *j, int t);
/* The same for job j not placed at all (its slots are not read): the answer does not depend
 * on where a placement would put the gang's pieces, only on the servers' idle GPUs and the
 * running jobs' ends, which a placement of j leaves as they are for the test. */
int berth__plan_spread_pays_unplaced(struct berth__plan *p, const struct berth__job *j, int t);
/* Frees what berth__plan_spread_pays keeps between calls (berth__plan_free calls it). */
void berth__plan_wait_free(struct berth__plan *p);
/* Drops the kept ends of the servers where the last pass's touched jobs that were running
 * when it opened (in jobs, as the executor left them) hold GPUs: a job resized or restored
 * there runs at a new rate with no take or give on the servers it kept (berth__plan_open
 * calls it). */
void berth__plan_wait_forget(struct berth__plan *p, const struct berth__job *jobs, size_t njobs);
/* How many servers berth__plan_spread_pays has asked when each is ready (for tests). */
size_t berth__plan_wait_asked(const struct berth__plan *p);
/* How many times it has read a server's running jobs for their ends (for tests). */
size_t berth__plan_wait_reads(const struct berth__plan *p);
/* The placement that picks job j's GPUs: the topology placement for a job with a required
 * or preferred level or tp > 1 on a cluster with a topology, else the run's. */
const struct berth__placement *berth__plan_placement_for(const struct berth__plan *p,
                                                         const struct berth__job *j);
/* 0 when slots (a gang of nslots for j) keep j's required level, else BERTH_NOFIT (always 0
 * without a topology). */
int berth__plan_topo_ok(const struct berth__plan *p, const struct berth__job *j,
                        const struct berth__slot *slots, int32_t nslots);
/* A stateless placement by its enum berth_placement (not FGD, which keeps state), for
 * plans opened outside an engine (tests). */
const struct berth__placement *berth__placement_stateless(int id);

/* The GPU type a pending job would get if started now (its required type, else the first
 * type in cluster order where it fits), or -1 when it does not fit the idle GPUs. */
int berth__plan_fit(const struct berth__plan *p, const struct berth__job *j);
/* Starts pending job j on idle GPUs chosen by the plan's placement. BERTH_NOFIT when it does
 * not fit; the plan is unchanged then. */
int berth__plan_start(struct berth__plan *p, uint32_t j, struct berth_err *err);
/* The same on GPU type `type` only (one the job may use; a GPU job). BERTH_NOFIT when it
 * does not fit there. */
int berth__plan_start_type(struct berth__plan *p, uint32_t j, int type, struct berth_err *err);
/* Starts pending whole-GPU job j with a gang of n GPUs, n within its elastic range
 * (max(1, min_gpus)..max_gpus); the gang size stays n until the next elastic start.
 * Preempting a running job and starting it again with another n in one pass is a resize:
 * the engine counts it and calls the executor's migrate. BERTH_NOFIT when n GPUs do not
 * fit (the job keeps its size then), BERTH_EINTERNAL when n is outside the range. */
int berth__plan_start_n(struct berth__plan *p, uint32_t j, int32_t n, struct berth_err *err);
/* The same on GPU type `type` only (one the job may use): an elastic start on a chosen type. */
int berth__plan_start_n_type(struct berth__plan *p, uint32_t j, int32_t n, int type,
                             struct berth_err *err);
/* Starts pending job j with its whole gang on server s (a fractional job on the GPU there
 * with the most room under spread placement, the least that fits otherwise; whole GPUs on
 * the lowest idle ones). BERTH_NOFIT when it does not fit there or may not use its GPU
 * type; the plan is unchanged then. With a preemption of j earlier in the same pass
 * this is a migration to a server of the policy's choice. */
int berth__plan_start_on(struct berth__plan *p, uint32_t j, uint32_t s, struct berth_err *err);
/* Resizes running whole-GPU elastic job j in place (plan_resize.c): grow_on takes n more
 * idle GPUs of its type on server s (which must hold them, with CPU and memory, and be its
 * only server when it must not span); shrink_off gives back every GPU it holds on server
 * s; shrink_to gives back its last-taken GPUs down to n. The job keeps its other GPUs; the
 * engine sees a resize (executor's migrate). BERTH_NOFIT when grow_on's GPUs are not there;
 * BERTH_EINTERNAL when a shrink names GPUs the job does not hold or the size would leave
 * min_gpus..max_gpus (the plan is unchanged then). */
int berth__plan_grow_on(struct berth__plan *p, uint32_t j, uint32_t s, int32_t n,
                        struct berth_err *err);
int berth__plan_shrink_off(struct berth__plan *p, uint32_t j, uint32_t s, struct berth_err *err);
/* shrink_on gives back n of the GPUs it holds on server s (the last taken there first). */
int berth__plan_shrink_on(struct berth__plan *p, uint32_t j, uint32_t s, int32_t n,
                          struct berth_err *err);
int berth__plan_shrink_to(struct berth__plan *p, uint32_t j, int32_t n, struct berth_err *err);
/* Distinct servers among j's slots (the plan's stamp; O(gang)). */
int32_t berth__plan_count_servers(struct berth__plan *p, const struct berth__job *j);
/* Sets j->servers and j->span (the topology level its slots span, model/topo.h) from its
 * slots. */
void berth__plan_note_span(struct berth__plan *p, struct berth__job *j);
/* Records that job j is being edited, saving its allocation the first time (0 or ENOMEM). */
int berth__plan_touch(struct berth__plan *p, uint32_t j);
/* Starts pending 1-GPU job j on GPU gpu of server server as a share of milli (1..1000) of
 * it, whatever share its spec asked for (the share stays the job's until its next start):
 * for policies that cut GPUs themselves (Salus' lanes). The GPU must have room for the share
 * (1000: be wholly idle). BERTH_NOFIT when it has not; the plan is unchanged. */
int berth__plan_start_share(struct berth__plan *p, uint32_t j, uint32_t server, uint32_t gpu,
                            int32_t milli, struct berth_err *err);
/* Stops running job j and frees its GPUs (they stay remembered for a restore). */
int berth__plan_preempt(struct berth__plan *p, uint32_t j, struct berth_err *err);
/* 1 when job j was running when the plan opened, was preempted in this plan, and every GPU
 * it held then is idle again. */
int berth__plan_can_restore(const struct berth__plan *p, uint32_t j);
/* Gives job j back exactly the GPUs it was preempted from in this plan. */
int berth__plan_restore(struct berth__plan *p, uint32_t j, struct berth_err *err);

/* Trials (plan_trial.c). Between trial_begin and trial_undo or trial_end, every edit of the
 * plan (starts, preemptions, restores, resizes) saves what it overwrites in the cluster, the
 * jobs and the plan; trial_undo takes all of it back exactly, down to the order of the
 * free-GPU buckets, the jobs' service counters and the touched list, so the plan is as if the
 * trial never happened. trial_end keeps the edits. A trial needs room: trial_room reserves it
 * for edits of up to `gpus` GPUs before they are made (0 or BERTH_ENOMEM, nothing changed);
 * an edit beyond what was reserved still works while memory lasts. Pools and hiding are not
 * for trials. Trials do not nest. */
int berth__plan_trial_begin(struct berth__plan *p);
int berth__plan_trial_room(struct berth__plan *p, int32_t gpus);
void berth__plan_trial_undo(struct berth__plan *p);
void berth__plan_trial_end(struct berth__plan *p);
/* A point inside an open trial, and taking back only the edits made after it (the trial
 * stays open). */
void berth__plan_trial_mark(const struct berth__plan *p, struct berth__plan_mark *m);
void berth__plan_trial_undo_to(struct berth__plan *p, const struct berth__plan_mark *m);
/* Inside plan.c: saves job j (and its slots) before an edit, when a trial is open. */
void berth__plan_trial_save_job(struct berth__plan *p, struct berth__job *j);
/* Starts pending whole-GPU or fractional job j on exactly the given slots (nslots of them,
 * all idle, of one type it may use): the start a trial found, made again after the trial was
 * taken back. BERTH_NOFIT when they are not free (nothing changed). */
int berth__plan_start_slots(struct berth__plan *p, uint32_t j, const struct berth__slot *slots,
                            struct berth_err *err);

/* Pools (plan_pool.c). A reserved server belongs to its pool's owner (an inference pool
 * lending servers to training; model/cluster.h). Reserving takes a wholly idle server
 * (BERTH_EINTERNAL when anything on it is in use or it is reserved already); unreserving
 * lends it to jobs. The plan counts both for the engine. */
int berth__plan_reserve(struct berth__plan *p, uint32_t s, struct berth_err *err);
int berth__plan_unreserve(struct berth__plan *p, uint32_t s, struct berth_err *err);
/* Hides server s's idle GPUs from placement until berth__plan_unhide_all (which the engine
 * also calls when the policy returns): a policy steers starts to some servers first (Aryl's
 * training servers before loaned ones) with the ordinary placement helpers. */
int berth__plan_hide(struct berth__plan *p, uint32_t s);
void berth__plan_unhide_all(struct berth__plan *p);
/* Gives back the GPUs hidden since p->nhidden was n (the last hidden first). */
void berth__plan_unhide_to(struct berth__plan *p, size_t n);

#endif
