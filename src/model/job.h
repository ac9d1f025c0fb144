/* A job as the engine tracks it: its spec, where it is in its life, what it holds, and the
 * service it has attained. Shared by the policy, engine and sim layers.
 *
 * Attained service is folded at every state change: run_us and gpu_us count up to `since`,
 * and while the job runs it gains (now - since) of run time and num_gpus times that of
 * GPU time. berth__job_run_us / berth__job_gpu_us give the values at any instant. */
#ifndef BERTH_MODEL_JOB_H
#define BERTH_MODEL_JOB_H

#include <stdint.h>

#include "berth/time.h"
#include "berth/trace.h"

enum berth_job_state {
    BERTH_JOB_WAITING = 0, /* known, not yet arrived */
    BERTH_JOB_PENDING = 1, /* arrived, holds no GPU */
    BERTH_JOB_RUNNING = 2, /* holds its whole gang */
    BERTH_JOB_DONE = 3,    /* finished; holds nothing */
};

/* One GPU of an allocation. */
struct berth__slot {
    uint32_t server;
    uint32_t gpu;
};

struct berth__job { /* 152 bytes, no holes (one per job, millions): keep the small fields packed */
    const struct berth_jobspec *spec;
    uint32_t idx;          /* berth's job number: arrival order, the tie-breaker everywhere */
    uint8_t state;         /* enum berth_job_state */
    uint8_t single : 1;    /* the gang must stay on one server (job or cluster says so) */
    uint8_t timed_out : 1; /* it was stopped at its limit (done, its work not finished) */
    uint8_t span : 3;      /* topology level its current (or last) gang spans (model/topo.h) */
    int16_t type;          /* GPU type of the current (or last) allocation, -1 = never ran */
    int32_t gpus;          /* gang size: spec->num_gpus, or what an elastic start chose within
                              min_gpus..max_gpus (kept here: hot in every pass) */
    int16_t share;         /* milli of one GPU, 1000 for whole GPUs (spec's, kept here too) */
    /* throughput-model class, -1 = none: fixed speed (duration); set by the executor */
    int16_t cls;
    uint64_t type_mask; /* allowed GPU types (bit per cluster type), 0 = any */
    int32_t servers;    /* servers the current (or last) allocation spans */
    int32_t preemptions;
    int32_t migrations;
    int32_t resizes;
    struct berth__slot *slots; /* gpus entries once it first starts */
    berth_us first_start;      /* BERTH_TIME_NONE until it first starts */
    berth_us finish;           /* BERTH_TIME_NONE until it finishes */
    berth_us since;            /* time of the last state change */
    berth_us run_us;           /* time spent running, up to since */
    int64_t gpu_us;            /* GPU-microseconds attained, up to since */
    /* Progress, kept by the executor (the simulator from its throughput model, berthd from
     * what jobs report); policies read it as an estimate. */
    double work; /* total work: total_steps for a class job, duration_us otherwise */
    double done; /* work done as of progress_at */
    double rate; /* work per microsecond while running now (0 when not running) */
    berth_us progress_at;
    /* Expected run time alone: the duration, or a step job's time at its fastest allowed
     * GPU type (what oracle policies know). */
    berth_us est_us;
    /* Its time limit (run time over all its attempts after which it is stopped, state
     * timeout), 0 = none: the spec's, or what the simulator's --time-limit-factor gave it. */
    berth_us limit_us;
    berth_us queued_us; /* when it first arrived (or was adopted): arrival order's key */
};

/* Work done by now, extrapolating at the current rate. */
static inline double berth__job_done(const struct berth__job *j, berth_us now)
{
    double d =
        j->done + (j->state == BERTH_JOB_RUNNING ? j->rate * (double)(now - j->progress_at) : 0.0);
    return d < j->work ? d : j->work;
}

/* Slots a running job holds: one per GPU, or one (gpu = BERTH_NO_GPU) naming the server of
 * a CPU-only job. */
#define BERTH_NO_GPU UINT32_MAX

static inline int32_t berth__job_nslots(const struct berth__job *j)
{
    return j->gpus ? j->gpus : 1;
}

/* The checkpoint/restore cost of restarting j on a gang of `gpus`: the job's own restart_s,
 * else the run's flat cost or tiers by gang size (enum berth_restart_tiers in berth/sim.h).
 * The simulator charges it; policies use it to weigh a resize. */
berth_us berth__job_restart_us(const struct berth__job *j, int32_t gpus, berth_us flat, int tiers);

struct berth_cluster;

/* Fills j for spec as job number idx on cluster c (NULL: gangs may span, no GPU types):
 * waiting, never run. Returns -1 when spec asks for a GPU type c does not have. */
int berth__job_init(struct berth__job *j, const struct berth_jobspec *spec, uint32_t idx,
                    const struct berth_cluster *c);

static inline berth_us berth__job_run_us(const struct berth__job *j, berth_us now)
{
    return j->run_us + (j->state == BERTH_JOB_RUNNING ? now - j->since : 0);
}

static inline int64_t berth__job_gpu_us(const struct berth__job *j, berth_us now)
{
    return j->gpu_us + (j->state == BERTH_JOB_RUNNING ? (now - j->since) * (int64_t)j->gpus : 0);
}

/* Folds the service attained since the last change into the counters (now becomes since). */
static inline void berth__job_fold(struct berth__job *j, berth_us now)
{
    j->gpu_us = berth__job_gpu_us(j, now);
    j->run_us = berth__job_run_us(j, now);
    j->since = now;
}

/* Expected run time left, as of time t: est_us scaled by the share of work not done (exact
 * for fixed-speed jobs: est_us - done). */
static inline berth_us berth__job_left_us(const struct berth__job *j, berth_us t)
{
    double done = berth__job_done(j, t);
    if (j->work == (double)j->est_us)
        return j->est_us - (berth_us)done;
    double left = (double)j->est_us * (1.0 - done / j->work);
    return left > 0 ? (berth_us)left : 0;
}

#endif
