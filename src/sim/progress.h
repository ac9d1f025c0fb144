/* The simulator's modelled executor: how far each running job has got and when it will end.
 *
 * A job's work is either its total_steps (a job whose job_type is a class of the throughput
 * model) or its duration in microseconds (every other job: fixed speed). While it runs it
 * progresses at a rate set by what it holds:
 * - steps: the model's rate for its class on its gang's GPU type and size, across servers
 *   or not (model.h's interpolation and spread rules);
 * - fixed speed: 1 microsecond of work per microsecond, times the spread ratio when the
 *   gang spans servers (an explicit --spread-penalty, else its class's measured ratio when
 *   the run uses measured rates, else 1: --fixed-speed alone runs a job its duration);
 * - either, when fractional jobs share its GPU: times its normalised speed next to each
 *   partner (the model's pair, else the default co-location speed);
 * - after a restart (a start after a preemption, or a migration) it makes no progress for
 *   the restart cost, while it holds its GPUs.
 * Whenever a rate changes (a partner comes or goes) the work done so far is folded in and
 * the completion is moved. Under flat progress (Blox) the rate ignores the allocation. */
#ifndef BERTH_SIM_PROGRESS_H
#define BERTH_SIM_PROGRESS_H

#include "berth/sim.h"
#include "engine/engine.h"
#include "sim/events.h"

struct berth__progress {
    struct berth__job *jobs;
    size_t njobs;
    const struct berth_cluster *cluster;
    const struct berth_tput *m;
    const int16_t *mtype; /* cluster GPU type -> model type */
    struct berth__events ev;
    struct berth__spread sp; /* how gangs across servers run */
    /* with a topology (cluster->topo): the rate by the level a gang spans, which replaces
     * the spread rule (model/topo_rate.h) */
    const struct berth_topo_model *trate;
    double colocate;
    berth_us restart_us;
    int tiers, flat;
    berth_us round_us; /* > 0: completions are released at the next round boundary */
    /* rounds of varying length (berth__progress_use_ends): completions that fall within the
     * round under way are released at its end */
    int ends;
    berth_us round_end;
    uint32_t *scratch;
    /* whole steps (berth__progress_use_whole_steps): per job, the work it may reach in the
     * round under way (its whole steps), < 0 when not capped */
    double *cap;
    /* Per job, 5 bytes (millions of jobs): whether it works in steps, and where its state
     * as a started job is. Only jobs that have started and not yet finished (running, or
     * preempted and pending) have a berth__run, so that state costs nothing per job. */
    uint8_t *steps;          /* per job: work in steps */
    uint32_t *run_of;        /* per job: its berth__run, BERTH_EV_NONE when none */
    struct berth__run {      /* a started, unfinished job */
        int64_t done_us;     /* fixed speed: microseconds of work done (exact) */
        berth_us stall_end;  /* its restore ends */
        berth_us work_end;   /* its work ends (BERTH_TIME_NONE: not known yet) */
        berth_us held_since; /* it got its current GPUs */
        int64_t held_milli;  /* they are milli-GPUs (gang x share) */
        berth_us lost;       /* time spent restoring instead of progressing, so far */
        int32_t held_type;   /* their GPU type */
        int32_t restarts;    /* starts after a preemption, and migrations, so far */
        uint32_t next_free;  /* once free: the next free entry */
    } * run;
    size_t nrun, run_cap;
    uint32_t run_free; /* first free entry, BERTH_EV_NONE when none */
    /* retired jobs with more to report than nothing: their work ended before their finish
     * was recorded (a round release), or they restarted (most jobs do neither) */
    struct berth__early {
        uint32_t job;
        int32_t restarts;
        berth_us work_end; /* BERTH_TIME_NONE: at its finish */
        berth_us lost;
    } * early;
    size_t nearly, early_cap, early_at; /* early_at: berth__progress_retired's place */
    double *type_gpu_us; /* per cluster GPU type: GPU-microseconds held (shares count) */
    uint32_t *res_head, *res_next, *res_prev, *res_at; /* fractional jobs per GPU */
    int failed;                                        /* a rate of 0 (reported once) */
};

/* Sets every registered job of e up (class, work, allowed GPU types; fixed: every job by
 * its duration) and hooks the executor; sp says how gangs across servers run. Fails with
 * FILE:LINE on a job the model cannot run. */
int berth__progress_init(struct berth__progress *p, struct berth__engine *e,
                         const struct berth_sim_opts *o, int fixed, const struct berth__spread *sp,
                         berth_us round_release_us, const char *path, struct berth_err *err);
/* Frees the per-job state (the run is over); the per-type GPU time stays until
 * berth__progress_free. */
void berth__progress_free_jobs(struct berth__progress *p);
void berth__progress_free(struct berth__progress *p);
/* Rounds whose length the driver sets (round_release_us must have been 0): with release, a
 * job whose work ends within a round keeps its GPUs to the round's end. 0, or -1 when out
 * of memory. */
int berth__progress_use_ends(struct berth__progress *p, int release);
/* Whole steps per round (Gavel's _get_num_steps, scheduler.py ~959-985: int(throughput x
 * round) steps a round): at each round start (berth__progress_round) a job by steps that
 * will not finish in the round may make only floor(rate x round) more steps, then holds its
 * GPUs idle; the round's early end is the latest instant such a job's steps are done. Needs
 * berth__progress_use_ends first. 0, or -1 when out of memory. */
int berth__progress_use_whole_steps(struct berth__progress *p);
/* A round starts at now (after its pass): its end is now + round or, with early, the latest
 * instant the work of a job holding GPUs ends if that comes first (Gavel, scheduler.py
 * ~1283-1290: a round lasts until its last dispatched job is done); with release, every job
 * whose work ends by then is released then. Returns the end. */
berth_us berth__progress_round(struct berth__progress *p, berth_us now, berth_us round, int early);
/* The executor callbacks the engine calls (ctx = p). */
void berth__progress_start(void *ctx, struct berth__job *j, berth_us now);
void berth__progress_stop(void *ctx, struct berth__job *j, berth_us now);
void berth__progress_migrate(void *ctx, struct berth__job *j, berth_us now);
/* Job j's completion event fired at now: its work is done; call before engine finish. */
void berth__progress_finish(struct berth__progress *p, struct berth__job *j, berth_us now);
/* Job j leaves at now for good (its work done, or stopped at its limit): its started state
 * goes, remembering when its work ended if that was before now. -1 when out of memory. */
int berth__progress_retire(struct berth__progress *p, const struct berth__job *j, berth_us now);
/* What the results need of each retired job, for jobs 0..n in order: call with i = 0, 1, ...
 * once every job is retired. When its work ended (BERTH_TIME_NONE when at its finish, or
 * never), its restarts and the time they lost. */
struct berth__retired {
    berth_us work_end;
    int32_t restarts;
    berth_us lost;
};
struct berth__retired berth__progress_retired(struct berth__progress *p, size_t i);

#endif
