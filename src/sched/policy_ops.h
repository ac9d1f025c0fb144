/* The policy interface: a const table of functions per policy, registered by name in
 * registry.c (like a Slurm plugin or a Kubernetes scheduler plugin).
 *
 * At every scheduling pass the engine hands the policy a view (the clock, the cluster, the
 * jobs, and what changed since the last pass) and a plan. The policy edits the plan through
 * plan.h — start, preempt, restore — and each edit is validated as it is made, so a plan
 * can never over-commit a GPU or split a gang. The engine then diffs the plan's final state
 * against the state before the pass and turns the difference into actions. A policy never
 * knows whether a simulator or the live daemon drives it. */
#ifndef BERTH_POLICY_INT_H
#define BERTH_POLICY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"
#include "berth/policy.h"
#include "model/cluster.h"
#include "model/job.h"
#include "model/tput.h"
#include "sched/settings.h"
#include "sched/why.h"

struct berth__plan;
struct berth_queues;

struct berth__params {
    int placement; /* enum berth_placement (sched/placement.h) */
    uint64_t seed;
    berth_us quantum_us;     /* re-evaluation period of time-sliced policies */
    berth_us round_us;       /* round length of round-based policies (Gavel 360 s, Blox 300 s) */
    berth_us min_realloc_us; /* round-based LP policies re-solve at most this often */
    /* 1: the driver runs passes only at round starts, and rounds may end early (the
     * simulator's Gavel rounds): every pass starts a round, whatever round_us says */
    int round_passes;
    /* The checkpoint/restore cost a restart will be charged (berth__job_restart_us): a flat
     * cost and tiers (enum berth_restart_tiers), for policies that weigh resizes. */
    berth_us restart_us;
    int restart_tiers;
    /* What only one policy family reads: KEY=VALUE pairs it parses in create against its
     * own table (sched/settings.h), e.g. "queue_limits=3250:7200" for Tiresias; NULL or ""
     * = its defaults. A key the policy does not have is bad input naming its keys. */
    const char *settings;
    /* The shared cluster's queues (model/queues.h: quotas, cohorts, limits, fair-share
     * shares), or NULL. Only policies with `queues` set in their table take them (the
     * engine refuses a queues file for the others). */
    const struct berth_queues *queues;
};

struct berth__view {
    berth_us now;
    const struct berth_cluster *cluster;
    struct berth__job *jobs; /* indexed by job idx; njobs known so far */
    size_t njobs;
    /* What happened since the previous pass (each list in event order): */
    const uint32_t *arrived; /* became pending */
    size_t narrived;
    const uint32_t *left; /* finished or cancelled (were pending or running) */
    size_t nleft;
    const uint32_t *requeued; /* stopped from outside (executor, node loss): pending again */
    size_t nrequeued;
    /* running already when the policy first hears of them: jobs berthd re-adopted after a
     * restart (the simulator never has any). A policy that keeps its own running set takes
     * them in (prio, tiresias, blox, aryl do); one that does not simply never preempts them. This
     * list comes before left: a job may be in both. */
    const uint32_t *adopted;
    size_t nadopted;
    /* jobs whose expected run time (est_us) changed (berthd: a job ran past its user's
     * estimate): a policy that keys jobs on it re-keys them (prio does). */
    const uint32_t *reestimated;
    size_t nreestimated;
    size_t npending, nrunning;
    /* Servers of the cluster's "inference" pool that inference uses now (the simulator's
     * --inference series, berthd's demand signal); -1 when there is no such signal. The
     * inference pool's servers start reserved (model/cluster.h); a lending policy
     * unreserves some of them for training and reserves them again when demand rises. */
    int32_t infer_demand;
    /* The throughput model, or NULL (jobs run at fixed speed). tput_type maps each cluster
     * GPU type to the model's type (-1 = the model does not know it). */
    const struct berth_tput *tput;
    const int16_t *tput_type;
    /* How gangs across servers run (never NULL from the engine): rates across servers are
     * berth__tput_rate_sp(tput, spread, ...), as the simulator's executor charges them. */
    const struct berth__spread *spread;
    /* A job's progress metric now (higher is better: accuracy in percent), or NULL: the
     * simulator reads it off the job class's curve (model/curve.h), berthd takes what each
     * job reported last. Policies that watch growth compare it with an earlier reading. */
    double (*metric)(void *ctx, const struct berth__job *j, berth_us now);
    void *metric_ctx;
};

struct berth__policy_ops {
    const char *name;              /* "las" */
    const char *summary;           /* one line for `berth policies` */
    const char *default_placement; /* "consolidate" */
    int (*create)(const struct berth__params *p, void **self, struct berth_err *err);
    void (*destroy)(void *self);
    /* Reads the view, edits the plan. Returns 0 or a BERTH_E* code with err filled. */
    int (*plan)(void *self, const struct berth__view *v, struct berth__plan *plan,
                struct berth_err *err);
    /* When the policy wants its next pass with no event, or BERTH_TIME_NONE. May be NULL. */
    berth_us (*next_pass)(void *self, const struct berth__view *v);
    /* May be NULL. Whether the policy can ever run job j on cluster c, asked once per job
     * before a run: BERTH_EINPUT with err saying why (without the job's name or line: the
     * caller adds them), so a trace the policy cannot run is bad input, not a failure. */
    int (*check)(void *self, const struct berth_cluster *c, const struct berth__job *j,
                 struct berth_err *err);
    /* The policy's own settings (sched/settings.h), which its create parses from
     * berth__params.settings and `berth policies` lists; NULL: it has none, and the engine
     * refuses any given. */
    const struct berth__setting *settings;
    size_t nsettings;
    /* May be NULL. Why pending job j waits after the last pass (sched/why.h): the ordering
     * family says which job or quota holds it; without it berthd says what it can alone. */
    void (*why)(void *self, const struct berth__view *v, uint32_t j, struct berth__why *w);
    int queues; /* 1: it enforces a queues file (berth__params.queues) */
};

const struct berth__policy_ops *berth__policy_lookup(const char *name);
const struct berth__policy_ops *berth__policy_at(size_t i);

#endif
