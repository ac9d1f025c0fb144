/* The daemon's core: berthd's state (the engine driven by the wall clock, the live job
 * table, the journal, the executor seen through the host interface, executor.h), its one
 * lock, the scheduler tick, the journal writes and the engine bridge, and the hooks through
 * which subsystems (dependencies, services, inference demand, telemetry) take part. The
 * core's files are core*.c; it never calls a subsystem by name: a subsystem registers its
 * hooks (berth__daemon_hook), and the core calls them at fixed points (docs/design.md,
 * "The daemon's rooms"). One mutex, d->mu, guards the engine and the job table; HTTP
 * threads take it for short reads and changes, the scheduler loop for each tick (events, a
 * pass, launches). Submissions wait for their journal commit outside it. */
#ifndef BERTH_LIVE_DAEMON_CORE_H
#define BERTH_LIVE_DAEMON_CORE_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>

#include "live/daemon/auth.h"
#include "engine/drive.h"
#include "engine/engine.h"
#include "live/exec/exec_local.h"
#include "live/exec/executor.h"
#include "live/exec/ident.h"
#include "live/jobs/journal.h"
#include "live/jobs/limits.h"
#include "live/jobs/ljob.h"
#include "live/jobs/tally.h"
#include "live/daemon/telemetry.h"

struct berth__daemon_opts {
    const char *addr;      /* listen address, default 127.0.0.1 */
    int port;              /* default 8470; 0 = any free port */
    const char *state_dir; /* journal, job files */
    const char *policy, *placement;
    const char *policy_settings; /* --policy-arg KEY=VALUE, joined by commas (NULL: none) */
    const char *gpus;            /* fake inventory (cluster shorthand or file); NULL = NVML */
    const char *tokens;          /* token file */
    const char *queues;          /* queues file (quotas, cohorts, limits, shares); NULL: none */
    const char *self_exe;
    const char *port_file;      /* where to write the port actually bound (tests) */
    const char *metrics_listen; /* "ADDR:PORT" for /metrics apart from the API (NULL: none) */
    size_t max_body;            /* request body limit in bytes */
    berth_us tick_us;           /* scheduler loop period */
    berth_us quantum_us;
    uint64_t seed;
    int threads;                  /* HTTP worker threads */
    const char *executor;         /* "local" (default) or "slurm" */
    const char *slurm_conf;       /* slurm: the slurm.conf (NULL: $SLURM_CONF or Slurm's default) */
    const char *slurm_partitions; /* slurm: the partitions berth schedules (NULL: all) */
    berth_us slurm_failsafe_us;   /* slurm: a heartbeat older than this and the hook holds
                                     nothing */
    berth_us slurm_node_poll_us;  /* slurm: slurmctld's nodes are read this often */
    const char *throughputs;      /* Gavel throughput JSON for the policies (NULL: the built-in) */
    const char *socket;        /* Unix socket path (NULL: STATE/berthd.sock; "none": no socket) */
    const char *socket_users;  /* --socket-users: accounts and @groups (NULL: every account) */
    int socket_requires_token; /* --socket-requires-token: a token line must name the caller */
    const char *config;        /* the config file, read again on SIGHUP (NULL: none) */
    const char *isolation;     /* "auto" (cgroups where writable) or "none" (process groups) */
    int64_t log_cap;           /* bytes kept of each job's stdout and of its stderr */
    int64_t min_free;          /* bytes the state dir's file system keeps free (507 below) */
    double est_overrun;     /* a job past this many times its estimate is re-estimated (0: never) */
    berth_us est_budget_us; /* wall time one start-time estimate may run (estimate.c) */
    int64_t job_pids_max;   /* processes (and threads) one attempt may have */
    int64_t max_array;      /* tasks one array may have (--max-array) */
    berth_us min_job_age_us; /* an ended job leaves memory this long after (--min-job-age) */
    int64_t max_job_count;   /* jobs in memory at most (--max-job-count; 0: no bound) */
    berth_us header_timeout_us, body_timeout_us; /* a request's headers, then its body */
    int max_connections, max_conn_per_addr;
    int http_workers;            /* threads answering requests (--http-workers) */
    struct berth__limits limits; /* per-user limits (defaults and per-user overrides) */
    int argc;                    /* berthd's command line, for the reload */
    char **argv;
};

void berth__daemon_opts_init(struct berth__daemon_opts *o);

struct berth__svcs;        /* services (service.h) */
struct berth__infer;       /* capacity loaning (infer.h) */
struct berth__socket_rule; /* who may use the Unix socket (socket_rule.h) */
struct berth__estimator;   /* the start-time estimate (estimator.h) */

struct berth__daemon;
/* What a subsystem registers with the core: each hook may be NULL; each is called under
 * d->mu with the self the subsystem registered, for every subsystem in registration order
 * (berth__daemon_hook). A hook may call the core's functions below, never another
 * subsystem's (scripts/check-layers.py checks the symbols). */
#define BERTH_DAEMON_SUBS 8
struct berth__daemon_hooks {
    const char *name;
    /* Recovery (core_recover.c): load, before the journal is read (a subsystem's own state
     * file); recover_job, a non-final job of the journal the subsystem owns (j->svc: a
     * service's replica), never the scheduler's; recovered, once every job is back. */
    int (*load)(struct berth__daemon *d, void *self, struct berth_err *err);
    int (*recover_job)(struct berth__daemon *d, void *self, struct berth__ljob *j, berth_us now,
                       struct berth_err *err);
    void (*recovered)(struct berth__daemon *d, void *self, berth_us now);
    /* j joined the job table (accepted, adopted, recovered waiting): nonzero when out of
     * memory (the subsystem then copes on its own, as deps.c looks at every job). */
    int (*joined)(struct berth__daemon *d, void *self, struct berth__ljob *j);
    /* j's attempt was scheduled (before its start time is first set). */
    void (*started)(struct berth__daemon *d, void *self, const struct berth__ljob *j, berth_us now);
    /* j started or ended, or a task of an array left the scheduler. */
    void (*moved)(struct berth__daemon *d, void *self, struct berth__ljob *j);
    /* 1 when j, about to enter the scheduler, must wait outside it now. */
    int (*gate)(struct berth__daemon *d, void *self, struct berth__ljob *j, berth_us now);
    /* j (not in the engine) waits for this subsystem: its reason code (like Slurm's) with
     * buf filled, else NULL. */
    const char *(*reason)(struct berth__daemon *d, void *self, struct berth__ljob *j, char *buf,
                          size_t len);
    /* Each tick, after the arrivals and before the pass, while the tick has not failed. */
    int (*tick)(struct berth__daemon *d, void *self, berth_us now, struct berth_err *err);
    /* An attempt of a job the subsystem owns (j->svc) ended by itself (ran: its run time)
     * or could not launch (ran 0): the subsystem restarts it or gives it up. */
    void (*owned_ended)(struct berth__daemon *d, void *self, struct berth__ljob *j, const char *how,
                        berth_us ran, berth_us now);
    /* The job table's purge (core_purge.c): busy, 1 while work is pending that may need
     * any ended job (no purge pass then); keeps, 1 while the subsystem holds ended job j. */
    int (*busy)(struct berth__daemon *d, void *self);
    int (*keeps)(struct berth__daemon *d, void *self, const struct berth__ljob *j);
    /* At destroy, in the order of registration. */
    void (*free)(void *self);
};

struct berth__daemon {
    struct berth__daemon_opts o;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    struct berth_cluster *cluster;
    struct berth__engine *engine;
    struct berth_tput *tput; /* the throughput model elastic policies value sizes with */
    struct berth__journal *jn;
    struct berth__auth *auth;
    pthread_rwlock_t auth_lock; /* also guards auth (with mu to change it): callers are told
                                   apart on the HTTP poll threads, which never take mu */
    struct berth__socket_rule *socket_rule; /* who may use the socket (NULL: every account) */
    struct berth__lexec ex; /* where job files live (for every executor: host.files) */
    int multi_user;         /* berthd is root: jobs run as their users' accounts */
    struct berth__account self;
    char spool_dir[4200];   /* STATE/spool: one folder per job, its account's */
    char socket_path[4200]; /* "" when there is none */
    struct berth__iso *iso; /* cgroups (NULL or kind NONE: process groups only) */
    struct berth__usage_table *usage;
    struct berth__usage_table *qusage; /* per queue: jobs waiting (max_pending of --queues) */
    struct berth_queues *queues;       /* --queues, or NULL */
    volatile sig_atomic_t reload;      /* SIGHUP: read the token file and the limits again */
    uint64_t refused_limit, refused_space, refused_journal; /* 429, 507, 503 answers */
    const struct berth__executor *xo;
    void *xs;                     /* the executor's own state (its open made it) */
    struct berth__exec_host host; /* what the executor may ask of berthd (core_host.c) */
    char api_url[128];
    char state_dir[4096];
    char self_exe[4096];
    struct berth__ljob **jobs; /* by id - 1; NULL until committed, and once purged */
    size_t njobs, cap;
    size_t nlive;          /* jobs in memory (jobs[] not NULL) */
    uint64_t purged;       /* jobs that left memory since start (core_purge.c) */
    uint64_t purged_below; /* the highest id purged: ids up to it may be in the journal only */
    berth_us purge_at;     /* the next purge pass, not before */
    _Atomic uint64_t next_id;
    uint32_t *by_eidx; /* engine job -> live id */
    size_t by_eidx_cap;
    uint32_t *active; /* ids of jobs with a process or a launch due (the loop's work list) */
    size_t nactive, active_cap;
    /* stops decided this tick (a preemption, a move, a time limit): their signals go out
     * once the journal holds the decision (berth__daemon_stops_flush), so that a crash in
     * between never leaves a checkpointed attempt journaled as running */
    uint32_t *stop_due;
    size_t nstop_due, stop_due_cap;
    uint32_t *incoming; /* ids committed, not yet in the engine */
    size_t nincoming, incoming_cap;
    uint16_t *drain;  /* per (server, GPU): processes still holding it after the engine let go */
    size_t *gpu_base; /* per server: index of its GPU 0 among this machine's devices */
    struct berth__drive drive; /* when a pass is due (engine/drive.h: berth sim's rule) */
    volatile sig_atomic_t stop;
    /* the executor asked for a restart (exec_host.restart): after the stop, main runs berthd
     * again with handover (BERTH_LISTEN_FDS=..., the listening sockets kept open) */
    int restart;
    char handover[128];
    int bound_port;
    void *http; /* http.c's server */
    FILE *log;
    uint64_t submitted;
    struct berth__tally tally;   /* jobs by state and queue (/metrics) */
    struct berth__telemetry tel; /* histograms, the last tick, the dashboard's history */
    /* the scheduler loop's cost (CLOCK_MONOTONIC), for /v1/health */
    uint64_t ticks, sync_reads; /* reads: syncs that read a changed job list (slurm) */
    berth_us tick_sum_us, tick_max_us, sync_sum_us, sync_max_us, pass_sum_us, pass_max_us;
    struct berth__infer *infer; /* capacity loaning (infer.c; made at create) */
    struct berth__svcs *svcs;   /* services and their replicas (service.c); NULL: none yet */
    /* the start-time estimate's thread and its newest result (estimator.c; NULL before
     * serving) */
    struct berth__estimator *estr;
    /* the subsystems' hooks, in the order they registered (berth__daemon_hook) */
    struct berth__daemon_sub {
        const struct berth__daemon_hooks *h;
        void *self;
    } sub[BERTH_DAEMON_SUBS];
    int nsub;
};

/* Registers a subsystem's hooks (at create, before recovery): BERTH_EINPUT, err naming
 * it, past BERTH_DAEMON_SUBS. */
int berth__daemon_hook(struct berth__daemon *d, const struct berth__daemon_hooks *h, void *self,
                       struct berth_err *err);
/* The hook points, for the core's files: each calls that hook of every subsystem (joined:
 * -1 when one failed; tick, load, recover_job: up to the first that fails; reason: the first
 * subsystem's that names one; busy, keep: 1 when one says so). */
int berth__daemon_joined(struct berth__daemon *d, struct berth__ljob *j);
void berth__daemon_moved(struct berth__daemon *d, struct berth__ljob *j);
void berth__daemon_started(struct berth__daemon *d, const struct berth__ljob *j, berth_us now);
void berth__daemon_owned_ended(struct berth__daemon *d, struct berth__ljob *j, const char *how,
                               berth_us ran, berth_us now);
int berth__daemon_subs_tick(struct berth__daemon *d, berth_us now, struct berth_err *err);
const char *berth__daemon_sub_reason(struct berth__daemon *d, struct berth__ljob *j, char *buf,
                                     size_t len);
int berth__daemon_subs_busy(struct berth__daemon *d);
int berth__daemon_subs_keep(struct berth__daemon *d, const struct berth__ljob *j);
int berth__daemon_subs_load(struct berth__daemon *d, struct berth_err *err);
int berth__daemon_subs_recover_job(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                                   struct berth_err *err);
void berth__daemon_subs_recovered(struct berth__daemon *d, berth_us now);
void berth__daemon_subs_free(struct berth__daemon *d);
/* The users' GPU limits changed (a reload): jobs held back by them enter while they fit. */
void berth__daemon_limits_changed(struct berth__daemon *d);

berth_us berth__wall_us(void);
berth_us berth__mono_us(void); /* for measuring */

/* Under d->mu: */
struct berth__ljob *berth__daemon_job(struct berth__daemon *d, uint64_t id);
/* Journals j's current record (wait = 1: durably). */
int berth__daemon_save(struct berth__daemon *d, struct berth__ljob *j, int wait,
                       struct berth_err *err);
/* The engine's record of j, or NULL when j is not in the engine. */
struct berth__job *berth__daemon_ejob(struct berth__daemon *d, struct berth__ljob *j);
/* Puts j into the engine as arrived (pending) now. */
int berth__daemon_enqueue(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                          struct berth_err *err);
/* One scheduler tick: exits, kills after grace, arrivals, a pass when due, launches,
 * progress files. */
int berth__daemon_tick(struct berth__daemon *d, berth_us now, struct berth_err *err);
/* The job's environment: its own, then berthd's variables (which win). devices = 1 adds
 * those of one attempt on this machine (BERTH_RESUME, BERTH_ATTEMPT, CUDA_*, WORLD_SIZE,
 * RANK, MASTER_*). NULL-terminated and malloc'd, each string too; NULL when out of memory. */
char **berth__daemon_job_env(struct berth__daemon *d, const struct berth__ljob *j, int devices);
/* A TCP port free on 127.0.0.1 now (the kernel's pick; 29500 when it cannot say). */
int berth__free_port(void);
/* Fills d->host, the executor's view of berthd (core_host.c), from d's settings. */
void berth__daemon_host_init(struct berth__daemon *d);
/* Reads the running jobs' progress files without the lock (it takes it to list them and
 * to apply what they said). */
void berth__daemon_progress_sweep(struct berth__daemon *d);
/* Puts j on the scheduler loop's work list (a process to watch or a launch due). */
void berth__daemon_activate(struct berth__daemon *d, struct berth__ljob *j);
/* Counts j's process's GPUs as draining (on = 1) or not: no launch uses a draining GPU. */
void berth__daemon_drain(struct berth__daemon *d, struct berth__ljob *j, int on);
/* Under d->mu, at the end of a tick: once the journal holds every stop decided since the
 * last flush, their attempts get their checkpoint signals (executor stop). */
void berth__daemon_stops_flush(struct berth__daemon *d);
/* Why j waits, in a sentence. */
void berth__daemon_why(struct berth__daemon *d, struct berth__ljob *j, char *buf, size_t len);
/* j's reason code, like Slurm's (Priority, Resources, QuotaExceeded, Dependency, Held,
 * BeginTime, JobArrayTaskLimit, TimeLimit, None), and (buf not NULL) the sentence that
 * explains it, naming the job or the quota that holds j. */
const char *berth__daemon_reason(struct berth__daemon *d, struct berth__ljob *j, char *buf,
                                 size_t len);
/* The same without the pending jobs ahead of it (that count walks the queue): O(GPU types),
 * for lists. */
void berth__daemon_why_brief(struct berth__daemon *d, struct berth__ljob *j, char *buf, size_t len);

/* Under d->mu: nonzero, err saying why (naming the field), when j could never run here
 * (more GPUs than the cluster has, a type it lacks, or the policy's check hook). */
int berth__daemon_refuses(struct berth__daemon *d, const struct berth__ljob *j,
                          struct berth_err *err);
/* Under d->mu: j counts in the daemon's jobs by state and queue from now on. */
void berth__daemon_count(struct berth__daemon *d, struct berth__ljob *j);
/* Under d->mu: puts j (its id set to id) into the job table and the loop's incoming list. */
int berth__daemon_insert(struct berth__daemon *d, struct berth__ljob *j, uint64_t id,
                         struct berth_err *err);
/* Cancels j under d->mu (see berth__daemon_cancel), without its journal write. */
int berth__daemon_cancel_locked(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                                struct berth_err *err);
/* What a cancel changes in the record alone (the journal-first copy takes it too). */
void berth__daemon_cancel_record(struct berth__ljob *j, berth_us now);

/* Actions. Each returns 0 or an HTTP status with err filled (and *retry_after, in seconds,
 * for 429 and 503). Each is durable before it takes effect: its journal write commits
 * first, and when it fails nothing changed and the answer is 503. submit takes d->mu
 * itself (400 refused, 429 a user limit, 507 the state dir's disk below --min-free);
 * cancel and hold are called with it held. */
int berth__daemon_submit(struct berth__daemon *d, struct berth__ljob *j, int *retry_after,
                         struct berth_err *err);
int berth__daemon_cancel(struct berth__daemon *d, uint64_t id, int *retry_after,
                         struct berth_err *err);
int berth__daemon_hold(struct berth__daemon *d, uint64_t id, int hold, int *retry_after,
                       struct berth_err *err);
/* Under d->mu: j leaves the scheduler (it ended, was cancelled or held): its user's GPUs
 * there shrink, and jobs held back by the user's GPU limit may enter. */
void berth__daemon_left_sched(struct berth__daemon *d, struct berth__ljob *j, berth_us now);
/* Under d->mu: j no longer waits for its user's GPU limit (held or cancelled meanwhile). */
void berth__daemon_unhold_back(struct berth__daemon *d, struct berth__ljob *j);

/* The executor callbacks the engine calls during a pass (ctx = d). */
void berth__daemon_on_start(void *ctx, struct berth__job *j, berth_us now);
void berth__daemon_on_stop(void *ctx, struct berth__job *j, berth_us now);
void berth__daemon_on_migrate(void *ctx, struct berth__job *j, berth_us now);

/* An array job's tasks (jobs[0..n)), all durably journaled in one transaction or none: as
 * berth__daemon_submit, with the ids of the tasks consecutive. */
int berth__daemon_submit_array(struct berth__daemon *d, struct berth__ljob **jobs, size_t n,
                               int *retry_after, struct berth_err *err);

/* The job table bounded (core_purge.c), from the loop: once a second, under d->mu. */
void berth__daemon_purge(struct berth__daemon *d, berth_us now);

/* Restores every job from the journal (at create). */
int berth__daemon_recover(struct berth__daemon *d, struct berth_err *err);

#endif
