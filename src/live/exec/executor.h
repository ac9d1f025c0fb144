/* How berthd runs a job's attempts, as one table of calls: the local executor
 * (exec_local_ops.c: processes on this machine under the shim) and the slurm executor
 * (exec_slurm.c: Slurm jobs held until berth places them). The scheduler loop
 * (daemon_exec.c) and recovery (recover.c) drive both through it, so preemption, restart,
 * cancel and re-adoption follow one state machine whatever runs the job. */
#ifndef BERTH_LIVE_EXECUTOR_H
#define BERTH_LIVE_EXECUTOR_H

#include "berth/err.h"
#include "berth/time.h"

struct berth__daemon;
struct berth__ljob;

struct berth__executor {
    const char *name;
    const char *lost; /* how an attempt poll calls lost ended, for the job's history */
    /* Builds d->cluster, the inventory the engine schedules (local: --gpus or NVML; slurm:
     * slurmctld's nodes), and whatever the executor keeps in d->xs. */
    int (*open)(struct berth__daemon *d, struct berth_err *err);
    void (*close)(struct berth__daemon *d);
    /* Before each tick, WITHOUT berthd's lock (so HTTP is served meanwhile): slow reads
     * (slurm: the poll of slurmctld) whose result sync takes in. Touches nothing but the
     * executor's own state. NULL: nothing. */
    void (*prefetch)(struct berth__daemon *d);
    /* Once per tick, under the lock, before the jobs are polled (local: reap shims; slurm: one poll
     * of slurmctld, adopting sbatch jobs and holding jobs Slurm requeued itself). */
    int (*sync)(struct berth__daemon *d, berth_us now, struct berth_err *err);
    /* A job entered the queue (slurm: it becomes a held Slurm job). NULL: nothing to do. */
    int (*admit)(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                 struct berth_err *err);
    /* Starts attempt j->attempt on j->slots: 0 started; BERTH_EAGAIN not yet (j->launch_at
     * says when to try again); any other code failed, err says why (the job is requeued). */
    int (*launch)(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                  struct berth_err *err);
    /* What became of the attempt: 0 still running (or starting), 1 ended (j->exit_code or
     * j->exit_signal set), 2 lost (it ended without a status; the job is requeued). */
    int (*poll)(struct berth__daemon *d, struct berth__ljob *j);
    /* Asks the attempt to stop: force 0 is the checkpoint request, 1 comes when the grace
     * period is over. j->then says what follows (requeue, restart, cancel). May be called
     * from an HTTP thread (a cancel), under the lock. */
    void (*stop)(struct berth__daemon *d, struct berth__ljob *j, int force);
    /* Whether the journaled attempt j->attempt ever started (recovery words its note). */
    int (*started)(struct berth__daemon *d, const struct berth__ljob *j);
};

extern const struct berth__executor berth__exec_local, berth__exec_slurm;

/* The executor named name ("local", "slurm"), or NULL. */
const struct berth__executor *berth__executor_find(const char *name);

#endif
