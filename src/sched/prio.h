/* The generic "order, then place greedily" scheduler that every ordering policy (fifo,
 * fifo-skip, sjf, srtf, las) is a few lines on top of.
 *
 * A policy gives each job a key; lower keys run first, ties go to the lower job number.
 * A pending job's key is frozen while it waits; a running job's key moves linearly with
 * time (key + slope * (now - since)), which covers "remaining time" (slope -1) and
 * "attained GPU-time" (slope = gang size).
 *
 * Semantics of one pass: pending jobs are considered in key order. A job starts when its
 * gang fits the idle GPUs. Otherwise, under a preemptive policy, it may take the GPUs of
 * running jobs with strictly worse keys, worst first, as many as it needs (victims it did
 * not need in the end keep running); if even that is not enough, nothing is preempted. A
 * job that cannot start blocks only jobs of its own shape (same gang size and constraints,
 * which could not start either); under a strict policy (fifo) it blocks everyone. With a
 * minimum run time, a job that (re)started less than that long ago is no victim: it is
 * protected, and becomes preemptible at the first pass after its protection ends.
 *
 * Cost: pending jobs live in one heap per shape, preemptible running jobs in one heap per
 * slope and protected ones in a queue by start time, so a pass costs
 * O((starts + preemptions + shapes) * log n), not O(jobs). Jobs backfill sets aside (they
 * would delay the reservation) wait in a side queue per shape, in order, read beside the
 * heap's top: the same ones set aside again next pass cost O(1) each, not O(log n). */
#ifndef BERTH_POLICY_PRIO_H
#define BERTH_POLICY_PRIO_H

#include "model/queues.h"
#include "sched/plan.h"
#include "sched/why.h"

struct berth__prio_cfg {
    /* The job's key as of j->since (its folded state). ctx is the policy's own (below): a
     * key may read the policy's state, such as a user's share of the cluster. */
    int64_t (*key)(void *ctx, const struct berth__job *j);
    /* How fast a running job's key grows per microsecond (0 for non-preemptive). */
    int64_t (*slope)(void *ctx, const struct berth__job *j);
    void *ctx;
    int preemptive;
    int strict;          /* a head that does not fit blocks every job behind it */
    berth_us quantum_us; /* > 0: ask for a pass every quantum while jobs wait */
    berth_us min_run_us; /* a (re)started job cannot be a victim before running this long */
    /* > 0: a running job is a victim only when its key exceeds the waiting job's by more
     * than this fraction of the waiting job's key (keys >= 0: las's attained GPU-time), so
     * jobs of like service stop trading places every quantum; 0: any worse key */
    double hysteresis;
    /* > 0: at most this many running jobs are preempted by one pass; the jobs that would
     * preempt more wait for the next pass, asked for 1 us later, so a quantum boundary's
     * wave of swaps is spread over passes (berthd's pass latency); 0: no limit */
    double max_preempt;
    /* The shared-cluster controls (sched/order.h sets them from the family's settings);
     * all zero: none, and the scheduler is exactly the plain one above. */
    const struct berth_queues *queues; /* quotas, cohorts, limits, shares (quota.h) */
    int backfill;                      /* EASY backfill for the first job that does not fit */
    int32_t backfill_depth;            /* jobs looked at past the reservation per pass */
    /* with a topology: a head with a required (else preferred) level below the cluster gets
     * its reservation inside one domain of that level (sched/reserve.h), and jobs that would
     * run past it start outside that domain; 0: GPUs counted per type, as without one */
    int backfill_topology;
    int aside_in_heap;     /* tests only: jobs backfill sets aside go back into the heap after
                            * each pass (the reference the side queue must match) */
    berth_us fs_weight_us; /* a job's key improves by this times its fair-share factor */
    int fs_order;          /* the key is the fair-share factor itself (higher first) */
    berth_us fs_half_life_us, fs_period_us;
};

struct berth__prio;

int berth__prio_create(const struct berth__prio_cfg *cfg, struct berth__prio **out,
                       struct berth_err *err);
void berth__prio_destroy(struct berth__prio *q);
int berth__prio_plan(struct berth__prio *q, const struct berth__view *v, struct berth__plan *plan,
                     struct berth_err *err);
berth_us berth__prio_next_pass(struct berth__prio *q, const struct berth__view *v);
/* Job j's key (or slope) changed: it takes its place again by key(ctx, j) now — a pending
 * job in its shape's heap, a preemptible running job in its slope's; a protected job is
 * keyed when its protection ends, a job the scheduler does not hold is left alone. A
 * pending job's key is otherwise read once, when it arrives. The view's reestimated jobs
 * are re-keyed this way at every pass; a policy whose keys follow its own state (fair
 * shares) calls it between passes or from its plan before berth__prio_plan. 0 or
 * BERTH_ENOMEM. */
int berth__prio_rekey(struct berth__prio *q, const struct berth__view *v, uint32_t j);

/* Why pending job j waits, as of the last pass (sched/why.h). */
void berth__prio_why(const struct berth__prio *q, const struct berth__view *v, uint32_t j,
                     struct berth__why *w);
/* With a queues file: BERTH_EINPUT when job j's queue is not in it (and no "*"), for the
 * policies' check hook. */
int berth__prio_check(const struct berth__prio *q, const struct berth_cluster *c,
                      const struct berth__job *j, struct berth_err *err);

/* The slope of policies that never preempt (running keys do not move). */
int64_t berth__prio_slope_none(void *ctx, const struct berth__job *j);

/* The same, shaped for struct berth__policy_ops, so a policy file only supplies its keys. */
int berth__prio_create_v(const struct berth__prio_cfg *cfg, void **self, struct berth_err *err);
void berth__prio_destroy_v(void *self);
int berth__prio_plan_v(void *self, const struct berth__view *v, struct berth__plan *plan,
                       struct berth_err *err);
berth_us berth__prio_next_pass_v(void *self, const struct berth__view *v);
void berth__prio_why_v(void *self, const struct berth__view *v, uint32_t j, struct berth__why *w);
int berth__prio_check_v(void *self, const struct berth_cluster *c, const struct berth__job *j,
                        struct berth_err *err);

#endif
