/* How berthd runs a job's attempts, as one table of calls: the local executor
 * (exec_local_ops.c: processes on this machine under the shim) and the slurm executor
 * (exec_slurm.c: Slurm jobs held until berth places them). The scheduler loop
 * (daemon/core_tick.c) and recovery (daemon/core_recover.c) drive both through it, so preemption,
 * restart, cancel and re-adoption follow one state machine whatever runs the job.
 *
 * An executor never sees the daemon. Each op gets the executor's own state (self, made by
 * open, as a Slurm plugin's ops or a libuv handle do) and the job record it works on
 * (live/jobs/ljob.h); whatever it must ask of berthd goes through the host interface below,
 * which berthd fills (daemon/core_host.c) and a test can fake (tests/live/test_exec_local.c).
 * exec/ sits below daemon/ and http/: no file here includes their headers. */
#ifndef BERTH_LIVE_EXECUTOR_H
#define BERTH_LIVE_EXECUTOR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "berth/err.h"
#include "berth/time.h"

struct berth_cluster;
struct berth__lexec;
struct berth__ljob;

/* Which jobs berth__exec_host.next_job walks. */
enum berth__exec_walk {
    BERTH_EXEC_ALL = 0,  /* every job the host knows, by id */
    BERTH_EXEC_BUSY = 1, /* those with an attempt or a launch due (the loop's work list) */
};

/* What berthd gives its executor, and what it promises.
 *
 * The host fills this before open and keeps it, unchanged, until close has returned; the
 * executor may keep the pointer. Every callback is passed ctx.
 *
 * Threads and the lock: open and close are called with nothing else running (before berthd
 * serves, after it stopped); prefetch from the scheduler loop's thread WITHOUT berthd's lock
 * (so HTTP is served meanwhile); every other op under berthd's lock (the one mutex that
 * guards the job table and the engine), from the loop's thread, except stop, which an HTTP
 * thread may call too (a cancel), and which cancel below may call back. So an executor's
 * state needs no lock of its own, as long as prefetch touches only what the ops under the
 * lock take in from it at sync. The callbacks log and now may be called from any op; the
 * others only from ops called under the lock, and only from the op's own thread. */
struct berth__exec_host {
    void *ctx;
    /* where the job files live and how attempts run on this machine (exec_local.h): the
     * state dir (control files in STATE/jobs/ID/), the spool dir (each job's own files),
     * berthd's binary, multi-user mode, the log cap, the pids limit, cgroups */
    const struct berth__lexec *files;
    const char *gpus;       /* --gpus: a fake inventory (local); NULL: NVML. Slurm refuses it */
    const char *slurm_conf; /* --slurm-conf (slurm); NULL: $SLURM_CONF or Slurm's default */
    const char *slurm_partitions; /* --slurm-partitions (slurm); NULL: every partition */
    berth_us slurm_failsafe_us;   /* --slurm-failsafe (slurm): written into berth_scope */
    berth_us slurm_node_poll_us;  /* --slurm-node-poll (slurm): nodes are read this often */

    /* Writes one line of berthd's log (fmt ends with its newline). */
    void (*log)(void *ctx, const char *fmt, va_list ap);
    /* The wall clock: microseconds since the Unix epoch. */
    berth_us (*now)(void *ctx);
    /* The job's environment: its own, then berthd's variables (which win); devices = 1 adds
     * those of one attempt on this machine (BERTH_ATTEMPT, CUDA_*, WORLD_SIZE, ...).
     * NULL-terminated and malloc'd (berth__strv_free), NULL when out of memory. */
    char **(*job_env)(void *ctx, const struct berth__ljob *j, int devices);
    /* The job of id, or NULL. */
    struct berth__ljob *(*job)(void *ctx, uint64_t id);
    /* Walks the jobs walk names (enum berth__exec_walk), in id order or the work list's:
     * the one after *cursor (0 starts), or NULL at the end. The walk may go on after the
     * executor called cancel or save. */
    struct berth__ljob *(*next_job)(void *ctx, int walk, size_t *cursor);
    /* Nonzero, err saying why (naming the field), when j could never run here (more GPUs
     * than the cluster has, a type it lacks, the policy's check). */
    int (*refuses)(void *ctx, const struct berth__ljob *j, struct berth_err *err);
    /* A job found outside berthd (an sbatch job) joins it: the host gives it a job token, an
     * id and its user's accounting, and takes it into its table, to enter the queue at the
     * next tick. Not journaled yet (save follows). On failure j is still the caller's. */
    int (*adopt)(void *ctx, struct berth__ljob *j, struct berth_err *err);
    /* As adopt, for the n tasks of one job array (an sbatch --array): jobs[0] carries the
     * indices (array_idx, narray) and the throttle (array_max), jobs[1..n) are its copies;
     * they get consecutive ids, each its index, and enter the queue as one array (the
     * throttle counts them together). On failure the tasks from *taken on are still the
     * caller's. */
    int (*adopt_array)(void *ctx, struct berth__ljob **jobs, size_t n, size_t *taken,
                       struct berth_err *err);
    /* j was cancelled outside berthd: it leaves the scheduler as a cancel makes it (an
     * attempt that runs is asked to stop: stop is called back). Not journaled (save). */
    int (*cancel)(void *ctx, struct berth__ljob *j, berth_us now, struct berth_err *err);
    /* Journals j's current record (queued: a journal that cannot write retries it). */
    int (*save)(void *ctx, struct berth__ljob *j, struct berth_err *err);
    /* Takes server (an index of the inventory) out of placement (on = 1) or gives it back
     * (0): 0 done, -1 not now (only an idle server is taken; one not taken is not given). */
    int (*reserve)(void *ctx, uint32_t server, int on);
    /* Closes server to new placements (on = 1: a Slurm node draining or down) whatever runs
     * there, or opens it again (0); its idle GPUs are held out at once, the rest as its jobs
     * leave (berth__cluster_close). */
    void (*close_server)(void *ctx, uint32_t server, int on);
    /* n of server's GPUs are busy with work berth does not schedule (Slurm jobs it did not
     * place): held out of placement (berth__cluster_hold_out). */
    void (*hold_out)(void *ctx, uint32_t server, int32_t n);
    /* Something the policy sees changed: a scheduling pass is due. */
    void (*pass_due)(void *ctx);
    /* A sync read a changed list of the executor's jobs (counted for /v1/health). */
    void (*counted_read)(void *ctx);
    /* The inventory changed in a way the scheduler cannot take in while it runs (a Slurm
     * node joined berth's partitions): berthd stops and runs itself again, its listening
     * sockets handed over, and recovery re-adopts every job (main.c). why is logged. */
    void (*restart)(void *ctx, const char *why);
};

/* Logs through h (fmt ends with its newline). */
static inline void berth__exec_log(const struct berth__exec_host *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void berth__exec_log(const struct berth__exec_host *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    h->log(h->ctx, fmt, ap);
    va_end(ap);
}

struct berth__executor {
    const char *name;
    const char *lost;      /* how an attempt poll calls lost ended, for the job's history */
    const char *unstarted; /* why an attempt poll says never started did not (NULL: lost's) */
    /* Makes the executor's state (*self) and the inventory the engine schedules
     * (*inventory; local: --gpus or NVML; slurm: slurmctld's nodes), which is the host's from
     * then on: it keeps it, unchanged, until after close. On failure nothing is left to
     * close or free (*self and *inventory stay NULL). */
    int (*open)(const struct berth__exec_host *h, void **self, struct berth_cluster **inventory,
                struct berth_err *err);
    void (*close)(void *self);
    /* Before each tick, WITHOUT berthd's lock: slow reads (slurm: the poll of slurmctld)
     * whose result sync takes in. Touches nothing but self. NULL: nothing. */
    void (*prefetch)(void *self);
    /* Once per tick, and once in recovery before the journaled attempts are polled (local:
     * reap shims; slurm: one poll of slurmctld, adopting sbatch jobs and holding jobs Slurm
     * requeued itself). NULL: nothing. */
    int (*sync)(void *self, berth_us now, struct berth_err *err);
    /* A job entered the queue (slurm: it becomes a held Slurm job). NULL: nothing to do. */
    int (*admit)(void *self, struct berth__ljob *j, berth_us now, struct berth_err *err);
    /* Starts attempt j->attempt on j->slots (its record is journaled durably before):
     * 0 started; BERTH_EAGAIN not yet (j->launch_at says when to try again); any other code
     * failed, err says why (the job is requeued). */
    int (*launch)(void *self, struct berth__ljob *j, berth_us now, struct berth_err *err);
    /* What became of the attempt: 0 still running (or starting), 1 ended (j->exit_code or
     * j->exit_signal set), 2 lost (it ended without a status; the job is requeued), 3 never
     * started and never will where it was placed (slurm: a node drained before Slurm started
     * it; the attempt is undone: the job is queued again, no run counted). */
    int (*poll)(void *self, struct berth__ljob *j);
    /* Asks the attempt to stop: force 0 is the checkpoint request, 1 comes when the grace
     * period is over. j->then says what follows (requeue, restart, cancel). May be called
     * from an HTTP thread (a cancel), under the lock. */
    void (*stop)(void *self, struct berth__ljob *j, int force);
    /* Whether the journaled attempt j->attempt ever started (recovery words its note). */
    int (*started)(void *self, const struct berth__ljob *j);
    /* Bytes the log cap dropped from the attempt's stdout and its stderr so far: 0, or -1
     * when there is nothing to say. NULL: the executor caps no logs. */
    int (*dropped)(void *self, const struct berth__ljob *j, int64_t *out, int64_t *err_);
    /* The processes of attempt `attempt` of job id on this machine, at most max into out, the
     * main process first (local: its cgroup, else its process group): how many, or -1 when
     * not known (yet). berthd asks it before it trusts a replica's listening socket
     * (live/daemon/listener.h). Unlike the other ops: from any thread, WITHOUT berthd's lock
     * (it reads only what open set, and /proc). NULL: the attempts run elsewhere (slurm: on
     * another host, whose /proc berthd cannot read). */
    int (*pids)(void *self, uint64_t id, int attempt, pid_t *out, size_t max);
};

extern const struct berth__executor berth__exec_local, berth__exec_slurm;

/* The executor named name ("local", "slurm"), or NULL. */
const struct berth__executor *berth__executor_find(const char *name);

#endif
