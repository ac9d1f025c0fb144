/* The small wrapper over libslurm (22.05) that berthd's slurm executor sits on: read nodes
 * and jobs, submit held, place-and-release in one update, preempt (requeue-and-hold),
 * resize, cancel. Built as stubs answering BERTH_EUNSUPPORTED where libslurm is missing.
 * The control model and every pitfall this file encodes are in docs/slurm.md. */
#ifndef BERTH_SLURM_API_H
#define BERTH_SLURM_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"
#include "berth/time.h"

/* Pitfalls measured on Slurm 22.05 (../shared/research/slurm-integration.md §8):
 * a job requeued within milliseconds of its launch and restarted at once on the same node
 * can end FAILED ("Job credential revoked"). So: no preemption in a job's first
 * BERTH_SLURM_MIN_RUN_US of running, no restart on a node it left less than
 * BERTH_SLURM_SAME_NODE_GAP_US ago, and a job FAILED within BERTH_SLURM_RESTART_FAIL_US of
 * a restart counts as "resubmit" (berth__slurm_job_failed_restart). Slurm's start times
 * have one-second resolution, so the run check adds one second. */
#define BERTH_SLURM_MIN_RUN_US       (2 * BERTH_US_PER_S)
#define BERTH_SLURM_SAME_NODE_GAP_US (3 * BERTH_US_PER_S)
#define BERTH_SLURM_RESTART_FAIL_US  (5 * BERTH_US_PER_S)
/* berth__slurm_resize waits at most this long for the requeue to finish and the gap */
#define BERTH_SLURM_RESIZE_WAIT_US (10 * BERTH_US_PER_S)

#define BERTH_SLURM_NAME_MAX  64  /* node, partition, user, GPU type names */
#define BERTH_SLURM_LIST_MAX  256 /* features, node lists, raw GRES strings */
#define BERTH_SLURM_GPU_TYPES 4   /* typed GPU kinds one node may carry */

/* Whether this build has libslurm (0: every call answers BERTH_EUNSUPPORTED). */
bool berth__slurm_built(void);

struct berth__slurm; /* one connection context (libslurm itself is process-global) */

/* Reads the configuration: conf, or $SLURM_CONF when NULL, or Slurm's default. Checks that
 * slurmctld answers. */
int berth__slurm_open(struct berth__slurm **out, const char *conf, struct berth_err *e);
void berth__slurm_close(struct berth__slurm *s);
/* slurmctld's KillWait: seconds between the SIGTERM of a cancel or requeue and its SIGKILL
 * (the checkpoint grace a job gets under Slurm). */
int berth__slurm_kill_wait(struct berth__slurm *s, uint32_t *secs, struct berth_err *e);
/* The Slurm error number behind the last failed call (0 when it was not Slurm's). */
int berth__slurm_errno(const struct berth__slurm *s);

/* ---- nodes ---- */

enum berth__slurm_node_state {
    BERTH_SLURM_NODE_UNKNOWN,
    BERTH_SLURM_NODE_IDLE,
    BERTH_SLURM_NODE_MIXED, /* some CPUs or GPUs allocated (computed: Slurm says ALLOCATED) */
    BERTH_SLURM_NODE_ALLOCATED,
    BERTH_SLURM_NODE_DOWN,
};

struct berth__slurm_gpus {
    char type[BERTH_SLURM_NAME_MAX]; /* "" for untyped GPUs */
    uint32_t count;
    uint32_t used;
};

struct berth__slurm_node {
    char name[BERTH_SLURM_NAME_MAX];
    enum berth__slurm_node_state state;
    bool drain;      /* DRAIN / DRAINING / FAIL: takes no new work */
    bool responding; /* false under NO_RESPOND */
    bool reserved;   /* RESERVED: in an active reservation, which berth's jobs never name */
    char state_name[32];
    uint32_t cpus, cpus_used;
    uint64_t memory_mb;
    size_t n_gpu_types;
    struct berth__slurm_gpus gpus[BERTH_SLURM_GPU_TYPES];
    uint32_t shards;          /* gres shard (GPU sharing by count) */
    uint32_t shard_gpus_used; /* GPUs with shards in use. 22.05's GresUsed counts these GPUs
                                 (jobs of 2 and 4 shards on two GPUs: "shard:2(IDX:0-1)");
                                 24.11 counts shards, per GPU ("shard:6(2/4,4/4)") */
    uint32_t mps, mps_used;   /* gres mps (percent of a GPU, 100 per GPU) */
    char features[BERTH_SLURM_LIST_MAX];
    char gres[BERTH_SLURM_LIST_MAX]; /* Slurm's own string, for messages */
};

/* All nodes; *nodes is malloc'd (free with free()). */
int berth__slurm_nodes(struct berth__slurm *s, struct berth__slurm_node **nodes, size_t *n,
                       struct berth_err *e);

/* ---- partitions ---- */
struct berth__slurm_partition {
    char name[BERTH_SLURM_NAME_MAX];
    char nodes[1024]; /* Slurm's node list ("n[1-2],n5") */
    bool is_default;  /* jobs that name no partition go here */
};
/* All partitions; *parts is malloc'd (free with free()). */
int berth__slurm_partitions(struct berth__slurm *s, struct berth__slurm_partition **parts,
                            size_t *n, struct berth_err *e);
/* ---- jobs ---- */

enum berth__slurm_job_state {
    BERTH_SLURM_JOB_PENDING,
    BERTH_SLURM_JOB_RUNNING,
    BERTH_SLURM_JOB_SUSPENDED,
    BERTH_SLURM_JOB_DONE,      /* COMPLETED */
    BERTH_SLURM_JOB_CANCELLED, /* CANCELLED */
    BERTH_SLURM_JOB_FAILED,    /* FAILED, TIMEOUT, NODE_FAIL, BOOT_FAIL, DEADLINE, OOM */
    BERTH_SLURM_JOB_PREEMPTED, /* Slurm preempted it itself */
};

/* What a job asks for, gathered from tres_per_node / _job / _task (a pending job's
 * tres_req_str carries no GPU count). Counts are 0 when not asked. */
struct berth__slurm_ask {
    uint32_t nodes;
    uint32_t gpus_per_node, gpus_per_job, gpus_per_task;
    char gpu_type[BERTH_SLURM_NAME_MAX]; /* "" when any type will do */
    uint32_t shards_per_node, mps_per_node;
};

struct berth__slurm_job {
    uint32_t id;
    char name[BERTH_SLURM_NAME_MAX];
    enum berth__slurm_job_state state;
    bool completing; /* COMPLETING flag: still releasing its nodes */
    bool held;       /* pending with priority 0: waits for berth */
    char state_name[32];
    char reason[BERTH_SLURM_NAME_MAX];
    uint32_t uid, gid;
    char user[BERTH_SLURM_NAME_MAX]; /* "" when the uid has no name here */
    char partition[BERTH_SLURM_NAME_MAX];
    char nodes[BERTH_SLURM_LIST_MAX];     /* allocated (or last allocated) nodes */
    char req_nodes[BERTH_SLURM_LIST_MAX]; /* nodes it was pinned to */
    char features[BERTH_SLURM_LIST_MAX];
    char gres[BERTH_SLURM_LIST_MAX];    /* the raw tres_per_node/job/task strings, joined */
    char comment[BERTH_SLURM_NAME_MAX]; /* the job's comment (berthd marks its own jobs) */
    bool waits_dependency;              /* its --dependency is not fulfilled yet */
    struct berth__slurm_ask ask;
    uint32_t switches;          /* sbatch --switches=N (0: none) */
    int exit_code, exit_signal; /* of a finished job's batch script; -1 when none */
    uint32_t restarts;
    berth_us submit_us, start_us, end_us; /* 0 when Slurm has none; for a pending or
                                             running job end is Slurm's expected end */
    berth_us time_limit_us;               /* 0: no limit */
    bool timed_out;                       /* TIMEOUT: Slurm stopped it at its time limit */
    /* a task of a job array (sbatch --array): its array's job id (0: not an array), its
     * index, or BERTH_SLURM_ARRAY_META for the one record of the tasks Slurm has not split
     * off yet, whose indices array_pending lists (sbatch's syntax, cut after a ',' when
     * longer), and the array's throttle (%N; 0: none) */
    uint32_t array_job_id, array_task, array_max;
    char array_pending[BERTH_SLURM_LIST_MAX];
};
#define BERTH_SLURM_ARRAY_META UINT32_MAX

/* All jobs Slurm still knows (including finished ones within MinJobAge); *jobs is malloc'd. */
int berth__slurm_jobs(struct berth__slurm *s, struct berth__slurm_job **jobs, size_t *n,
                      struct berth_err *e);
/* The poll berthd's loop makes: like berth__slurm_jobs, but when no job changed since this
 * handle's last successful poll, *changed is false and *jobs NULL (Slurm answers "no change"
 * in about 1 ms). The first poll always reads. */
int berth__slurm_jobs_poll(struct berth__slurm *s, struct berth__slurm_job **jobs, size_t *n,
                           bool *changed, struct berth_err *e);
/* One job; BERTH_EINPUT when Slurm does not know it. */
int berth__slurm_job(struct berth__slurm *s, uint32_t id, struct berth__slurm_job *job,
                     struct berth_err *e);

/* ---- control ---- */

struct berth__slurm_submit {
    const char *name;
    const char *script;      /* a batch script; or NULL and argv */
    const char *const *argv; /* NULL-terminated; becomes "#!/bin/sh\nexec 'a' 'b'" */
    const char *workdir;     /* required */
    const char *const *env;  /* NULL-terminated "K=V"; NULL: an empty environment */
    const char *output;      /* stdout+stderr file (appended to across restarts) or NULL */
    const char *partition;   /* NULL: the default */
    uint32_t nodes;          /* 0 means 1 */
    uint32_t gpus_per_node;
    const char *gpu_type; /* NULL or "": any; sent as a feature, the GRES stays untyped */
    uint32_t shards_per_node;
    uint32_t cpus_per_node; /* 0: Slurm's default (one) */
    berth_us time_limit_us; /* 0: the partition's; rounded up to whole minutes */
    int warn_signal;        /* sbatch's --signal=B:SIG@SECS: 0 none, else SIG ... */
    uint32_t warn_s;        /* ... sent to the batch shell SECS before the time limit */
    uint32_t uid, gid;      /* the job's owner; used when set_owner (root only) */
    bool set_owner;
    const char *comment; /* NULL or a comment Slurm keeps with the job */
};

/* Submits a batch job that waits held (priority 0) until berth__slurm_place; *id is its
 * id. Jobs are requeueable and append to their output across restarts. */
int berth__slurm_submit_held(struct berth__slurm *s, const struct berth__slurm_submit *sub,
                             uint32_t *id, struct berth_err *e);

struct berth__slurm_place {
    const char *nodes; /* exact node list ("n1,n3" or "n[1-2]"); required */
    uint32_t num_nodes;
    const char *features; /* NULL: gpu_type when given, else leave as is */
    uint32_t gpus_per_node;
    uint32_t gpus_per_job; /* instead of gpus_per_node: an uneven gang over the nodes (Slurm
                              splits the count among them, at least one GPU each) */
    const char *gpu_type;  /* NULL or "": any; a job submitted typed must keep its type */
    uint32_t shards_per_node;
    uint32_t mps_per_node; /* instead of GPUs or shards: percent of one GPU through MPS (Slurm
                              sets CUDA_MPS_ACTIVE_THREAD_PERCENTAGE) */
    uint32_t leaves;       /* the leaf switches (racks) the nodes span, 0: unknown. A job's
                              --switches below it is raised to it, or Slurm would hold the
                              list berth chose for up to --switches' wait (reason Switch) */
};

/* Places a pending held job on exactly p->nodes with its GPU GRES and releases it in ONE
 * slurm_update_job (begin time now, so a requeued job does not wait Slurm's 121 s).
 * BERTH_EAGAIN (message says why and for how long) while the job is still COMPLETING from
 * a requeue or left one of these nodes less than BERTH_SLURM_SAME_NODE_GAP_US ago (known
 * for requeues made through this handle: Slurm forgets a requeued job's nodes).
 * Updates are not atomic in Slurm: after a failure the job may carry part of the fields,
 * but stays held. */
int berth__slurm_place(struct berth__slurm *s, uint32_t id, const struct berth__slurm_place *p,
                       struct berth_err *e);

/* Sets the job's admin comment (sacct -o AdminComment with slurmdbd, scontrol show job):
 * berthd writes its decisions there. Needs an admin's or SlurmUser's rights. */
int berth__slurm_admin_comment(struct berth__slurm *s, uint32_t id, const char *text,
                               struct berth_err *e);
/* Splits task `task` of array job `array_id` off the array's pending record, as Slurm does
 * for any update of one task ("ID_TASK"): it becomes a job of its own, with its own job id
 * and the same array job id and index, still held; text becomes its admin comment. */
int berth__slurm_split_task(struct berth__slurm *s, uint32_t array_id, uint32_t task,
                            const char *text, struct berth_err *e);
/* Holds a pending job that is not held (one Slurm requeued itself, or a user requeued). */
int berth__slurm_hold(struct berth__slurm *s, uint32_t id, struct berth_err *e);

/* Preempts: requeue-and-hold; the job goes back to PENDING, held, restarts+1.
 * BERTH_EAGAIN in the job's first BERTH_SLURM_MIN_RUN_US of running. */
int berth__slurm_requeue_hold(struct berth__slurm *s, uint32_t id, struct berth_err *e);

/* Requeues a batch job that ended (COMPLETED or FAILED, while Slurm still knows it: MinJobAge)
 * held, as requeue_hold does a running one: PENDING, held, restarts+1. berthd uses it for an
 * adopted job that exited on its checkpoint signal during a preemption (berthd cannot submit
 * a job it did not submit again). BERTH_EAGAIN while it is still completing. */
int berth__slurm_requeue_ended(struct berth__slurm *s, uint32_t id, struct berth_err *e);

/* Resizes a running job (Slurm cannot grow one in place, and a shrink without slurmdbd
 * blocks later updates): requeue-and-hold, wait for the requeue to finish and for the
 * same-node gap, then place it with p. Blocks up to BERTH_SLURM_RESIZE_WAIT_US; the job's
 * program restarts (SLURM_RESTART_COUNT tells it to resume from its checkpoint). */
int berth__slurm_resize(struct berth__slurm *s, uint32_t id, const struct berth__slurm_place *p,
                        struct berth_err *e);

/* Sends sig to a running job (berth's checkpoint request for a job with its own checkpoint
 * signal; the requeue follows after its grace): tree 0, to the batch script alone (sbatch's
 * --signal=B:, scancel --batch); tree 1, to the batch script and every process under it and
 * every step (scancel --full: what berthd's local executor does, a signal to the job's
 * process group, so that a script's worker processes see it too). */
int berth__slurm_signal(struct berth__slurm *s, uint32_t id, int sig, int tree,
                        struct berth_err *e);
/* Cancels (SIGKILL to every step) a pending or running job. */
int berth__slurm_cancel(struct berth__slurm *s, uint32_t id, struct berth_err *e);

/* ---- job arrays (berth sweep --slurm) ---- */

struct berth__slurm_array {
    const char *name;
    const char *script;     /* each task's batch script; $SLURM_ARRAY_TASK_ID is its index */
    const char *workdir;    /* required */
    const char *const *env; /* NULL-terminated "K=V" */
    const char *output;     /* stdout+stderr, with Slurm's %A (array id) and %a (index) */
    const char *indices;    /* "0-3,5,9" */
    const char *partition;  /* NULL: the default */
    uint32_t cpus;          /* per task (0: 1) */
    berth_us time_limit_us; /* per task; 0: the partition's */
};

/* Submits a job array that Slurm places itself (not held): one task per index, each one
 * node and cpus CPUs; *id is the array's job id. */
int berth__slurm_submit_array(struct berth__slurm *s, const struct berth__slurm_array *a,
                              uint32_t *id, struct berth_err *e);
/* The array's tasks not over yet (pending, running, suspended, completing); 0 once Slurm
 * forgot the array. */
int berth__slurm_array_active(struct berth__slurm *s, uint32_t id, size_t *active,
                              struct berth_err *e);
/* Writes the sorted distinct indices idx[0..n) as Slurm's array ranges ("0-3,5,9"). */
int berth__slurm_format_indices(char *buf, size_t size, const size_t *idx, size_t n,
                                struct berth_err *e);

/* A job that FAILED within BERTH_SLURM_RESTART_FAIL_US of a restart most likely hit the
 * credential-revoked race: berthd should resubmit it rather than count a failure. */
bool berth__slurm_job_failed_restart(const struct berth__slurm_job *job);

/* Sets a job's time limit (rounded up to whole minutes; raising one takes an admin). */
int berth__slurm_set_time_limit(struct berth__slurm *s, uint32_t id, berth_us limit_us,
                                struct berth_err *e);
/* A batch job's script (scontrol write batch_script), malloc'd in *script. */
int berth__slurm_job_script(struct berth__slurm *s, uint32_t id, char **script,
                            struct berth_err *e);
/* The --signal=[{R|B}:]SIG[@SECS] of a batch script's #SBATCH lines (read as sbatch does: up
 * to the first command; the last one counts), which 22.05's job records do not carry: 1 found
 * (sig: the signal as written, a name without "SIG" or a number; *lead_s: SECS, sbatch's
 * default 60; *batch: B:, the batch shell only), 0 none, BERTH_EINPUT when malformed. */
int berth__slurm_parse_signal(const char *script, char *sig, size_t size, uint32_t *lead_s,
                              bool *batch, struct berth_err *e);

/* The --signal given on sbatch's command line, which contrib/slurm/cli_filter.lua writes
 * into the job's comment as the word "berth-signal=[B:]SIG@SECS" (22.05 keeps it nowhere a
 * client can read): as berth__slurm_parse_signal, 0 when the comment has none ("0@0" is
 * sbatch's none). */
int berth__slurm_comment_signal(const char *comment, char *sig, size_t size, uint32_t *lead_s,
                                bool *batch, struct berth_err *e);

/* ---- parsing (no libslurm; unit-tested everywhere) ---- */

/* Adds a node's GRES list ("gpu:v100:4,mps:a100:800", "gpu:a100:2(IDX:0-1)", "(null)")
 * to n: total counts when used is false, in-use counts when true. */
int berth__slurm_parse_node_gres(const char *gres, bool used, struct berth__slurm_node *n,
                                 struct berth_err *e);
/* Adds a job's TRES list ("gres:gpu:v100:4", "gres/gpu:2", "gres:shard:3", several
 * joined by ',' or ';') to the per-node, per-job or per-task counts of ask
 * (which: 'n', 'j' or 't'). */
int berth__slurm_parse_tres(const char *tres, char which, struct berth__slurm_ask *ask,
                            struct berth_err *e);
/* Writes the GPU GRES of one node ("gres:gpu:v100:4", "gres:shard:2", joined by ',') for
 * a place or submit; "" when none. */
int berth__slurm_format_gres(char *buf, size_t size, uint32_t gpus, const char *type,
                             uint32_t shards, struct berth_err *e);
/* Reads an array's indices ("0-9", "1,3,5-11:2", "0-99%8": the throttle is not read) into
 * idx, in the order written, at most max of them (*n; the rest are left for later);
 * BERTH_EINPUT naming the bad part. */
int berth__slurm_parse_indices(const char *s, uint32_t *idx, size_t max, size_t *n,
                               struct berth_err *e);
/* Expands a Slurm node list ("n1,n[3-4]", "gpu[01-02,7]") into at most max names in out
 * (*n of them); BERTH_EINPUT naming the bad part otherwise. */
int berth__slurm_hostlist(const char *list, char (*out)[BERTH_SLURM_NAME_MAX], size_t max,
                          size_t *n, struct berth_err *e);
/* Writes argv as a /bin/sh script that execs it, each word single-quoted. */
int berth__slurm_argv_script(char *buf, size_t size, const char *const *argv, struct berth_err *e);

#endif
