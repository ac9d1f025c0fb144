/* The engine: jobs, the cluster's GPUs and one policy, driven by whoever owns the clock.
 *
 * The simulator drives it with a virtual clock and a modelled executor; the live daemon
 * will drive it with the wall clock and a real executor. Callers report events (a job
 * arrived, a job finished) and ask for a scheduling pass; the pass runs the policy on a
 * plan, diffs the plan against the state before it, and calls the executor once per job
 * whose allocation changed (start, stop, migrate). */
#ifndef BERTH_ENGINE_H
#define BERTH_ENGINE_H

#include "sched/plan.h"

struct berth__engine_exec {
    void *ctx;
    void (*start)(void *ctx, struct berth__job *j, berth_us now); /* got its GPUs */
    void (*stop)(void *ctx, struct berth__job *j, berth_us now);  /* preempted: pending */
    /* other GPUs (or, after an elastic resize, another gang size), still runs */
    void (*migrate)(void *ctx, struct berth__job *j, berth_us now);
};

struct berth__engine {
    struct berth_cluster *cluster; /* the engine's own copy */
    const struct berth__policy_ops *ops;
    void *self;
    struct berth__placement place; /* who picks the GPUs of every start */
    struct berth__params params;
    struct berth__job *jobs;
    size_t njobs, cap;
    uint32_t *arrived, *left, *requeued, *adopted, *reestimated;
    size_t narrived, nleft, nrequeued, nadopted, arrived_cap, left_cap, requeued_cap, adopted_cap;
    size_t nreestimated, reestimated_cap;
    size_t npending, nrunning, ndone;
    struct berth__plan plan;
    struct berth__engine_exec exec;
    uint64_t passes, preemptions, migrations, resizes;
    uint64_t lends, reclaims;      /* servers a policy lent from / returned to their pool's owner */
    int32_t infer_demand;          /* inference servers in use now (the view's), -1 = no series */
    int check;                     /* verify every invariant after each pass */
    const struct berth_tput *tput; /* NULL: no throughput model */
    struct berth__spread spread;   /* how gangs across servers run (default: measured rates) */
    /* with a topology (cluster->topo): the rate by level spanned, which replaces the spread
     * rule (model/topo_rate.h); NULL without a topology. The executor owns it. */
    const struct berth_topo_model *trate;
    int spread_wait;    /* consolidate-or-wait in every plan (sched/plan_wait.c; default off) */
    int stable_ends;    /* the executor moves running jobs' ends only with their GPUs (plan.h) */
    int16_t *tput_type; /* per cluster GPU type: the model's type, -1 */
    /* the jobs' progress metric, passed to policies in the view (NULL: none) */
    double (*metric)(void *ctx, const struct berth__job *j, berth_us now);
    void *metric_ctx;
};

/* Creates an engine over a copy of cluster c (which must outlive the engine: names are
 * shared) with the named policy and placement (NULL = the policy's default). Unknown names
 * fail with BERTH_EINPUT listing the valid ones. */
int berth__engine_create(const struct berth_cluster *c, const char *policy, const char *placement,
                         const struct berth__params *params, const struct berth__engine_exec *exec,
                         struct berth__engine **out, struct berth_err *err);
void berth__engine_destroy(struct berth__engine *e);

/* Gives policies the throughput model m (NULL = none; m must outlive the engine) and maps
 * the cluster's GPU types to the model's by name. */
int berth__engine_set_tput(struct berth__engine *e, const struct berth_tput *m,
                           struct berth_err *err);

/* Reserves every server of pool `pool` for its owner (they must all be idle: call before
 * the first pass); *n = how many. Policies that lend (aryl) unreserve them. */
int berth__engine_reserve_pool(struct berth__engine *e, const char *pool, size_t *n,
                               struct berth_err *err);

/* Asks the policy whether it can ever run each registered job (its optional check hook):
 * BERTH_EINPUT with *bad = the first job it refuses and err saying why. */
int berth__engine_check(struct berth__engine *e, uint32_t *bad, struct berth_err *err);

/* Hands the job records over to the caller (who frees them with free()) once the run is
 * over: their allocations (slots) are freed and the engine is left with no jobs, ready only
 * to be destroyed or to report its counters. */
struct berth__job *berth__engine_take_jobs(struct berth__engine *e);

/* Registers a job (not yet arrived). Its number is the order of registration, so callers
 * register in arrival order. spec must outlive the engine. */
int berth__engine_add(struct berth__engine *e, const struct berth_jobspec *spec, uint32_t *idx,
                      struct berth_err *err);
int berth__engine_arrive(struct berth__engine *e, uint32_t j, berth_us now, struct berth_err *err);
/* A running job completed its work: it frees its GPUs and is done. */
int berth__engine_finish(struct berth__engine *e, uint32_t j, berth_us now, struct berth_err *err);
/* Run-time changes from outside (the live daemon); the simulator never calls them.
 * Cancel: a pending or running job leaves for good (reported in the view's left list; a
 * running one frees its GPUs). Requeue: a running job is stopped from outside (its process
 * died, its node went away) and is pending again (the view's requeued list). Adopt: a job
 * registered but not arrived is running already on the given slots (a process that outlived
 * a restart of the daemon); the policy hears of it in the next pass's adopted list. Fails with
 * BERTH_EINPUT when the slots are not free. */
int berth__engine_cancel(struct berth__engine *e, uint32_t j, berth_us now, struct berth_err *err);
int berth__engine_requeue(struct berth__engine *e, uint32_t j, berth_us now, struct berth_err *err);
/* Unstart: a running job's start never happened (its executor could not start it where it
 * was placed): pending again like a requeue, its GPUs free, but no run time or GPU time
 * counted for the time since it was placed. */
int berth__engine_unstart(struct berth__engine *e, uint32_t j, berth_us now, struct berth_err *err);
int berth__engine_adopt(struct berth__engine *e, uint32_t j, const struct berth__slot *slots,
                        int32_t n, berth_us now, struct berth_err *err);
/* A job's expected run time becomes est_us (berthd: the job ran past the estimate its user
 * gave); policies that order by expected time re-key it at the next pass (the view's
 * reestimated list). The simulator never calls it. */
int berth__engine_reestimate(struct berth__engine *e, uint32_t j, berth_us est_us, berth_us now,
                             struct berth_err *err);
/* One scheduling pass at time now. */
int berth__engine_pass(struct berth__engine *e, berth_us now, struct berth_err *err);
/* How the engine runs: re-verify every invariant after each pass (tests, --check); the jobs'
 * progress metric the view hands policies (NULL: none); the inference servers in use now
 * (the view's infer_demand; -1: no demand signal). The drivers set these, never the fields. */
static inline void berth__engine_set_check(struct berth__engine *e, int on)
{
    e->check = on;
}

static inline void berth__engine_set_metric(struct berth__engine *e,
                                            double (*metric)(void *ctx, const struct berth__job *j,
                                                             berth_us now),
                                            void *ctx)
{
    e->metric = metric;
    e->metric_ctx = ctx;
}

/* How gangs across servers run, for the view's policies (default {0, 1}: measured rates). */
static inline void berth__engine_set_spread(struct berth__engine *e, const struct berth__spread *sp)
{
    e->spread = *sp;
}

/* The rate by topology level (model/topo_rate.h) for the plan's consolidate-or-wait; r must
 * outlive the engine. Ignored (NULL) on a cluster without a topology. */
static inline void berth__engine_set_topo_rate(struct berth__engine *e,
                                               const struct berth_topo_model *r)
{
    e->trate = e->cluster->topo ? r : NULL;
}

/* Consolidate-or-wait (sched/plan.h): a spread gang waits when one server would finish it
 * sooner (needs a throughput model). */
static inline void berth__engine_set_spread_wait(struct berth__engine *e, int on)
{
    e->spread_wait = on;
}

/* The executor changes a running job's rate, work or progress only when it starts, stops,
 * moves or resizes (the simulator without rounds that end early; never berthd, whose jobs
 * report): the plan may then carry per-server expected ends from pass to pass. */
static inline void berth__engine_set_stable_ends(struct berth__engine *e, int on)
{
    e->stable_ends = on;
}

static inline void berth__engine_set_infer_demand(struct berth__engine *e, int32_t servers)
{
    e->infer_demand = servers;
}

/* Why pending job j waits, as the policy saw it in its last pass (sched/why.h; code NONE
 * when the policy cannot say). */
void berth__engine_why(struct berth__engine *e, uint32_t j, berth_us now, struct berth__why *w);
/* When the policy wants its next pass with no event (BERTH_TIME_NONE if never). */
berth_us berth__engine_next_pass(struct berth__engine *e, berth_us now);
/* Checks every invariant: no GPU held twice or held and idle, gangs whole, counters right. */
int berth__engine_verify(const struct berth__engine *e, struct berth_err *err);

static inline int32_t berth__engine_busy_gpus(const struct berth__engine *e)
{
    return e->cluster->total - e->cluster->free;
}

#endif
