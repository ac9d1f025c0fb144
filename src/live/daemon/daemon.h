/* berthd's state and its life: the engine driven by the wall clock, the live job table,
 * the journal, the executor (seen through the host interface berthd gives it, executor.h)
 * and the HTTP server. One mutex guards the engine and the job table; HTTP threads take it
 * for short reads and changes, the scheduler loop for each tick (events, a pass, launches).
 * Submissions wait for their journal commit outside it. */
#ifndef BERTH_LIVE_DAEMON_H
#define BERTH_LIVE_DAEMON_H

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

/* One change of the inference pool's state (infer.c), for GET /v1/inference/history: the
 * demand, the servers reserved and ready, and, on the tick a shortfall ended, its length. */
#define BERTH_INFER_HIST 4096
struct berth__infer_rec {
    berth_us t_us; /* wall clock */
    int32_t demand, reserved, ready;
    berth_us reclaim_us; /* -1 unless a shortfall ended here */
};

/* Capacity loaning live (infer.c): the cluster's "inference" pool and the demand an
 * inference manager posts. Integrals in GPU- and server-microseconds; latencies in us. */
struct berth__infer {
    int32_t servers, gpus; /* the pool (0 servers: no pool, no loaning) */
    uint32_t *srv;         /* its servers' indices, servers of them */
    int32_t demand;        /* servers inference needs now */
    int32_t reserved;      /* servers of the pool reserved for inference now */
    int32_t ready;         /* of those, servers with no training process left */
    berth_us since_us;     /* the integrals run up to here */
    berth_us short_since;  /* demand above ready since (BERTH_TIME_NONE: not short) */
    berth_us last_reclaim_us, max_reclaim_us; /* demand rise -> enough servers free */
    uint64_t reclaims, changes;
    double lent_gpu_us, short_server_us;
    struct berth__infer_rec *hist; /* the last BERTH_INFER_HIST changes, a ring (NULL: none) */
    uint64_t nhist;                /* changes recorded since start (the ring holds the last) */
};

struct berth__svcs;        /* services (service.h) */
struct berth__socket_rule; /* who may use the Unix socket (socket_rule.h) */
struct berth__estimator;   /* the start-time estimate (estimator.h) */

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
    struct berth__exec_host host; /* what the executor may ask of berthd (daemon_host.c) */
    char api_url[128];
    char state_dir[4096];
    char self_exe[4096];
    struct berth__ljob **jobs; /* by id - 1; NULL until committed, and once purged */
    size_t njobs, cap;
    size_t nlive;          /* jobs in memory (jobs[] not NULL) */
    uint64_t purged;       /* jobs that left memory since start (purge.c) */
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
    uint64_t *moved; /* jobs that started or ended since the last tick, whose dependents (or
                        array's waiting tasks) the next tick looks at (deps.c) */
    size_t nmoved, moved_cap;
    int moved_all;    /* a moved job could not be listed: look at every waiting job */
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
    struct berth__infer infer;
    struct berth__svcs *svcs; /* services and their replicas (service.c); NULL: none yet */
    /* the start-time estimate's thread and its newest result (estimator.c; NULL before
     * serving) */
    struct berth__estimator *estr;
};

/* The front end the daemon serves through, started once recovery can begin (so the bound
 * port is known) and stopped after the loop: the HTTP server (http/http.h), handed in by
 * berthd's main, so the daemon room never calls up into http/. */
struct berth__daemon_server {
    int (*start)(struct berth__daemon *d, struct berth_err *err);
    void (*stop)(struct berth__daemon *d);
    /* Before a stop for a restart: stops accepting, keeps the listening sockets open across
     * exec and writes "NAME=FD ..." for the next berthd (BERTH_LISTEN_FDS) into env. */
    void (*handover)(struct berth__daemon *d, char *env, size_t n);
};

int berth__daemon_create(const struct berth__daemon_opts *o, struct berth__daemon **out,
                         struct berth_err *err);
/* Serves until stop is set (by a signal handler). */
int berth__daemon_run(struct berth__daemon *d, const struct berth__daemon_server *srv,
                      struct berth_err *err);
void berth__daemon_destroy(struct berth__daemon *d);

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
/* Capacity loaning (infer.c), under d->mu. init: after recovery, reserves the idle servers
 * of the "inference" pool and restores the demand (STATE/inference-demand; none: the whole
 * pool). set: a new demand in servers, stored durably first (BERTH_EINPUT naming
 * demand_servers when out of range or there is no pool). tick: the reclaim latency and the
 * integrals, every tick. */
int berth__daemon_infer_init(struct berth__daemon *d, berth_us now, struct berth_err *err);
int berth__daemon_infer_set(struct berth__daemon *d, int32_t servers, berth_us now,
                            struct berth_err *err);
void berth__daemon_infer_tick(struct berth__daemon *d, berth_us now);
/* Writes STATE-like file dir/name whole and durably (statefile.c): a crash leaves the old
 * contents or the new. */
int berth__state_write(const char *dir, const char *name, const void *buf, size_t len,
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
/* Fills d->host, the executor's view of berthd (daemon_host.c), from d's settings. */
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

/* Dependencies and array throttles (deps.c), under d->mu. deps_state: 0 every dependency of
 * j is met, 1 one is not yet, 2 one never can be (why says which, either way). array_full:
 * j's array has its throttle's tasks in the scheduler. deps_link: j joins the reverse index
 * of the jobs it depends on. moved: j started or ended (or left the scheduler): its
 * dependents and its array's waiting tasks are looked at by moved_apply, at the next tick.
 * gate: 1 when j must wait outside the scheduler now (or has just ended: a dependency that
 * can never be met), with its dep_wait / array_wait set; 0 when it may enter. */
int berth__daemon_deps_state(struct berth__daemon *d, const struct berth__ljob *j, char *why,
                             size_t len);
int berth__daemon_array_full(struct berth__daemon *d, const struct berth__ljob *j);
int berth__daemon_deps_link(struct berth__daemon *d, struct berth__ljob *j);
void berth__daemon_moved(struct berth__daemon *d, struct berth__ljob *j);
int berth__daemon_moved_apply(struct berth__daemon *d, berth_us now, struct berth_err *err);
int berth__daemon_gate(struct berth__daemon *d, struct berth__ljob *j, berth_us now);
/* An array job's tasks (jobs[0..n)), all durably journaled in one transaction or none: as
 * berth__daemon_submit, with the ids of the tasks consecutive. */
int berth__daemon_submit_array(struct berth__daemon *d, struct berth__ljob **jobs, size_t n,
                               int *retry_after, struct berth_err *err);

/* Accounting (acct.c): the jobs whose life overlaps [since_us, until_us) (until 0: now), of
 * user and queue when given, with their wait, run time and GPU-hours in the window (rows
 * for the jobs of ids above after, limit of them at most, and next_after the last row's id
 * when more match), and the totals per user, queue and GPU type over every job that
 * matches. berth__daemon_acct reads the job table (under d->mu; NULL when out of memory);
 * berth__daemon_acct_journal the journal's last commit, under no lock (the route's: O(jobs)
 * documents parsed, memory O(limit)). */
struct berth__acct_query {
    berth_us since_us, until_us;
    const char *user, *queue;
    uint64_t after;
    size_t limit;
};
json_t *berth__daemon_acct(struct berth__daemon *d, const struct berth__acct_query *q);
int berth__daemon_acct_journal(struct berth__daemon *d, const struct berth__acct_query *q,
                               size_t gpus, json_t **out, struct berth_err *err);

/* The job table bounded (purge.c), from the loop: once a second, under d->mu. */
void berth__daemon_purge(struct berth__daemon *d, berth_us now);

/* Restores every job from the journal (at create). */
int berth__daemon_recover(struct berth__daemon *d, struct berth_err *err);

/* Reads the token file and the config file's limits again (SIGHUP), keeping the old ones
 * when either is bad; says what it did in the log. Takes d->mu. */
void berth__daemon_reload(struct berth__daemon *d);

#endif
