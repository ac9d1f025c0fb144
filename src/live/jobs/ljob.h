/* A job as berthd knows it: what was submitted (argv, environment, GPUs, checkpoint
 * signal), where it is in its life (state history), the process of its current attempt and
 * what it reported. The engine holds its own record (model/job.h) for scheduling; this one
 * holds everything else and is what the journal stores, one JSON document per job. */
#ifndef BERTH_LIVE_LJOB_H
#define BERTH_LIVE_LJOB_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"
#include "berth/time.h"
#include "berth/trace.h"
#include "model/job.h"

enum berth__lstate {
    BERTH_L_PENDING = 0,
    BERTH_L_HELD = 1,
    BERTH_L_RUNNING = 2,
    BERTH_L_COMPLETED = 3, /* exit status 0 */
    BERTH_L_FAILED = 4,    /* any other exit */
    BERTH_L_CANCELLED = 5,
    BERTH_L_TIMEOUT = 6, /* stopped at its time limit */
};

#define BERTH_L_NSTATES 7

/* What to do when the current attempt's process exits. */
enum berth__then {
    BERTH_THEN_FINISH = 0,  /* it ran to its end: the job completed or failed */
    BERTH_THEN_REQUEUE = 1, /* preempted: the engine has it pending already */
    BERTH_THEN_RESTART = 2, /* migrated or resized: launch again on the new GPUs */
    BERTH_THEN_CANCEL = 3,  /* cancelled: the engine has let it go already */
    BERTH_THEN_TIMEOUT = 4, /* it reached its time limit: it ends in state timeout */
};

/* A dependency (sbatch --dependency): start only once job `job` has started (after), ended
 * completed (afterok), ended otherwise (afternotok) or ended at all (afterany). A job that
 * is its array's first task stands for every task of the array. */
enum berth__dep_type {
    BERTH_DEP_AFTER = 0,
    BERTH_DEP_OK = 1,
    BERTH_DEP_NOTOK = 2,
    BERTH_DEP_ANY = 3
};

struct berth__ldep {
    uint64_t job;
    uint8_t type; /* enum berth__dep_type */
};

#define BERTH_L_MAX_DEPS  64
#define BERTH_L_MAX_ARRAY 100000  /* tasks of one array at most (berthd's --max-array: fewer) */
#define BERTH_L_MAX_INDEX 4000000 /* the largest array index */

struct berth__lhist {
    berth_us t;
    uint8_t state;
    char note[120];
};

#define BERTH_L_MAX_SLOTS 64
#define BERTH_L_MAX_HIST  200

struct berth__usage;
struct berth__tally;

struct berth__ljob {
    uint64_t id;
    char idstr[24];
    char *user, *name, *cwd;
    uint32_t uid, gid;           /* the Unix account the job runs as (its user's) */
    struct berth__usage *usage;  /* its user's usage record (limits.h); NULL outside the daemon */
    struct berth__usage *qusage; /* its queue's (waiting jobs per queue); NULL likewise */
    struct berth__tally *tally;  /* the daemon's counts by state and queue (tally.h), or NULL */
    uint16_t tally_slot;         /* its queue's slot there */
    uint8_t held_back;           /* waiting outside the scheduler for its user's GPU limit */
    uint8_t dep_wait;            /* ... for its dependencies */
    uint8_t array_wait;          /* ... for its array's throttle (%N) */
    uint8_t sched_counted;       /* its GPUs count in its user's usage (inside the scheduler) */
    char **argv;                 /* NULL-terminated */
    size_t argc;
    char **env; /* "K=V", NULL-terminated */
    size_t nenv;
    struct berth_jobspec spec;        /* strings point into this record (owned) */
    struct berth_jobspec_extra extra; /* spec.extra points here (set when the record is made) */
    int ckpt_sig;
    berth_us grace_us;
    char token[36]; /* the job's own token: may post progress for this job only */
    /* a task of a job array (sbatch --array): its array's first task's id, its index, the
     * array's size and throttle (at most array_max tasks in the scheduler at once; 0 = no
     * limit); array_id 0 = not in an array */
    uint64_t array_id;
    uint32_t array_task, array_n, array_max;
    uint32_t *array_idx; /* at submission only: the indices asked for (narray of them) */
    size_t narray;
    /* a replica of a service (service.h): its service's id (0: an ordinary job), its index
     * (BERTH_REPLICA), the port berthd gave it (PORT), its restarts and the consecutive
     * quick failures the crash-loop bound counts, and the load it last reported (req/s) */
    uint64_t svc;
    int32_t replica, port;
    uint32_t restarts, quick_fails;
    double load;
    berth_us load_at;         /* 0: none reported since its attempt started */
    struct berth__ldep *deps; /* what it waits for before it may enter the scheduler */
    size_t ndeps;
    uint64_t *rdeps; /* jobs that depend on this one (in memory: rebuilt at recovery) */
    size_t nrdeps, rdcap;

    uint8_t state; /* enum berth__lstate */
    struct berth__lhist *hist;
    size_t nhist, hcap;
    berth_us submit_us, start_us, end_us;
    berth_us ran_us;            /* run time of its ended attempts (a time limit counts them all) */
    uint8_t est_given;          /* est_s came from its user (or berthd's re-estimate) */
    char ran_type[32];          /* the GPU type it last ran on ("" = never ran), for accounting */
    berth_us attempt_us;        /* when the current attempt was launched (0 = none) */
    int exit_code, exit_signal; /* -1 when none */

    /* engine */
    int in_engine;
    uint32_t eidx;
    /* GPUs the engine gave it (valid while RUNNING). slots and pslots (below) point into one
     * block of 2 x BERTH_L_MAX_SLOTS made when the job first needs them (berth__ljob_slots):
     * NULL, with nslots and npslots 0, for a job that never ran (1 KB less per pending job) */
    struct berth__slot *slots;
    int32_t nslots;
    int32_t run_share_milli; /* the share of its GPU the engine runs it at (salus-* lanes,
                                gpu_share), 1000 for whole GPUs; 0 = never placed */
    /* the current attempt's process */
    int attempt;                /* launches so far; attempt files are a<attempt>.* */
    int launched;               /* the attempt number journaled before its fork (0 = none) */
    int resume;                 /* the next launch is a restart: BERTH_RESUME=1 */
    int proc;                   /* 1 while the attempt's supervisor lives */
    int launch;                 /* 1: launch as soon as its GPUs are free of draining processes */
    uint8_t then;               /* enum berth__then */
    berth_us kill_at;           /* SIGKILL after the grace period, 0 = none */
    struct berth__slot *pslots; /* GPUs the living process uses (see slots) */
    int32_t npslots;
    int draining; /* pslots are counted in the daemon's drain map */
    int32_t shim_pid, job_pgid;
    uint64_t shim_start;
    berth_us launch_at;    /* no launch before (an executor said "not yet") */
    int64_t dropped;       /* output bytes the log cap dropped from this attempt (noted) */
    berth_us drop_checked; /* when the attempt's drop file was last read */

    /* the slurm executor: the Slurm job and what the last poll of slurmctld said of it */
    uint32_t slurm_id; /* 0: none yet (or it must be submitted again) */
    uint8_t foreign;   /* submitted to Slurm directly (sbatch), adopted by berthd */
    uint8_t sl_state;  /* enum berth__slurm_job_state */
    uint8_t sl_held, sl_completing, sl_gone, sl_stop_due, sl_seen_run;
    uint8_t sl_signal_due; /* its own checkpoint signal is to be sent through Slurm */
    uint8_t sl_bad;        /* pending held with Reason=BadConstraints */
    uint8_t sl_node_na;    /* released, pending with Reason=ReqNodeNotAvail */
    uint8_t sl_unplaced;   /* released, not started, a node of it closed: held again */
    uint32_t sl_restarts, sl_placed_restarts;
    int sl_exit_code, sl_exit_signal;
    uint64_t sl_gen;       /* the poll that last saw it */
    berth_us sl_placed_at; /* when berthd placed it (decision-to-running latency) */

    /* progress */
    int64_t step;
    double metric;
    int has_metric;
    berth_us step_at;
    int64_t prev_step;
    berth_us prev_at;
    uint64_t prog_off; /* bytes of the progress file read */
    uint32_t prog_line;
    uint8_t prog_skipping; /* inside a line too long to keep */
};

const char *berth__lstate_name(int s);
int berth__lstate_find(const char *name);
/* 1 when the job is over (completed, failed, cancelled). */
static inline int berth__lstate_final(int s)
{
    return s >= BERTH_L_COMPLETED;
}

/* An optional field of body: absent leaves *out; else a whole number (int) or a number
 * (num) in [lo, hi], or BERTH_EINPUT "FIELD: expected ...". */
int berth__json_int(const json_t *body, const char *field, int64_t lo, int64_t hi, int64_t *out,
                    struct berth_err *err);
int berth__json_num(const json_t *body, const char *field, double lo, double hi, double *out,
                    struct berth_err *err);
/* Builds a job from a submission body (the API's fields; see docs/api.md) for the account
 * user (uid, gid). On bad input returns BERTH_EINPUT with err naming the field ("gpus:
 * expected ..."). */
int berth__ljob_from_submit(const json_t *body, const char *user, uint32_t uid, uint32_t gid,
                            struct berth__ljob **out, struct berth_err *err);
void berth__ljob_free(struct berth__ljob *j);
/* Makes j's slots and pslots when it has none yet: 0, or BERTH_ENOMEM. */
int berth__ljob_slots(struct berth__ljob *j);
/* Sets the id (and the spec's id string). */
void berth__ljob_set_id(struct berth__ljob *j, uint64_t id);
/* Records a state change with a note (the history keeps its first entries and its last
 * ones, at most BERTH_L_MAX_HIST, saying how many it dropped between). Keeps the user's
 * waiting count (usage) right. Returns 0 or BERTH_ENOMEM (then nothing changed). */
int berth__ljob_note(struct berth__ljob *j, berth_us t, int state, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The whole record for the journal / the API (full = 1 adds the job token, environment and
 * process details). NULL when out of memory. */
json_t *berth__ljob_json(const struct berth__ljob *j, int full);
/* A dependency's name: after, afterok, afternotok, afterany. */
const char *berth__dep_name(int t);
/* Reads a journal document back. */
int berth__ljob_from_journal(const json_t *doc, struct berth__ljob **out, struct berth_err *err);
/* A copy made through the journal's document (what a journal write of it would hold), for
 * changes that must be durable before they are made (usage is not copied). */
int berth__ljob_clone(const struct berth__ljob *j, struct berth__ljob **out, struct berth_err *err);

/* Frees a NULL-terminated vector of malloc'd strings and each string (NULL is fine). */
void berth__strv_free(char **v);
/* Appends "K=V" to the NULL-terminated vector *v of *n strings (capacity *cap). 0, or -1 when
 * out of memory. */
int berth__env_add(char ***v, size_t *n, size_t *cap, const char *k, const char *val);

/* Signal names: "SIGTERM" or "TERM" (numbers are refused: they differ between
 * architectures); -1 when unknown. */
int berth__signal_find(const char *name);
const char *berth__signal_name(int sig);

#endif
