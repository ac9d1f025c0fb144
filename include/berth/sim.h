/* The trace-driven simulator: the engine driven by a virtual clock and a modelled executor.
 *
 * berth_sim_run replays a trace on a cluster under a policy and fills a result the caller
 * frees with berth_sim_result_free. The same inputs and seed give the same result, bit for
 * bit. */
#ifndef BERTH_SIM_H
#define BERTH_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "err.h"
#include "time.h"
#include "infer.h"
#include "progress.h"
#include "trace.h"
#include "tput.h"

/* How simulated time advances (docs/fidelity.md compares them with the peers). */
enum berth_sim_mode {
    BERTH_MODE_DES = 0,    /* a pass at every arrival, completion and policy timer */
    BERTH_MODE_ROUNDS = 1, /* passes only at round boundaries, with the round switches */
    BERTH_MODE_GAVEL = 2,  /* rounds of 360 s, Gavel's semantics */
    BERTH_MODE_BLOX = 3,   /* rounds of 300 s, Blox's semantics */
    /* des timing with Tiresias' semantics: every job by its duration, no spread rates, and
     * tiresias-* demote at Tiresias' predicted instants (the setting exact_demotion=0) */
    BERTH_MODE_TIRESIAS = 4,
};

/* Restart-cost tiers by gang size, as Helios and Lucid charge them. */
enum berth_restart_tiers {
    BERTH_RESTART_FLAT = 0,   /* restart_us for every job */
    BERTH_RESTART_HELIOS = 1, /* 7 s (1 GPU), 30 s (<= 8), 60 s (> 8) */
    BERTH_RESTART_LUCID = 2,  /* 40 s (<= 8 GPUs), 60 s (> 8) */
};

/* The rate by topology level (--topology-model FILE): a JSON file of per-level bandwidths
 * and per job type communication shares, over the defaults. Errors name the file and the
 * field. */
struct berth_topo_model;
int berth_topo_model_load(const char *path, struct berth_topo_model **out, struct berth_err *err);
void berth_topo_model_free(struct berth_topo_model *m);

struct berth_sim_opts {
    const char *policy;    /* name from the policy registry */
    const char *placement; /* NULL = the policy's default */
    uint64_t seed;         /* for every random draw; 0 is a valid seed */
    berth_us quantum_us;   /* re-evaluation period of time-sliced policies (las) */
    int record_series;     /* keep the cluster time series (for --out) */
    int check_invariants;  /* re-verify every GPU and job after each pass (tests) */

    /* Progress. With a model, a job whose job_type is one of its classes and that has
     * total_steps runs at the model's speed for the GPUs it gets; every other job runs at
     * fixed speed (its duration). NULL: every job runs at fixed speed. */
    const struct berth_tput *tput;
    /* With a cluster that has a topology: per-level bandwidths and per job type
     * communication shares (berth_topo_model_load; docs/topology.md), NULL = the defaults.
     * The rate by level replaces the spread rule for such a cluster (spread_factor must be
     * 0 there). */
    const struct berth_topo_model *topology_model;
    int fixed_speed;       /* 1: ignore steps, run every job by its duration whatever GPUs and
                              servers it gets (then gangs across servers slow down only by an
                              explicit spread_factor, per-type factor or spread_rates 1);
                              0: by steps; -1: the mode's default (0) */
    double spread_factor;  /* > 0: every gang across servers runs at its one-server rate times
                              this, whatever the model measured (per-type factors set on the
                              model win over it); 0: none */
    int spread_rates;      /* 1: gangs across servers run at the model's measured rates (Gavel's
                              *_unconsolidated) where it has them; 0: at their one-server rate;
                              -1: the mode's default (1, but 0 under fixed_speed) */
    int spread_wait;       /* consolidate-or-wait: a gang that would span servers waits when
                              one server would finish it sooner at the model's rates; -1: the
                              mode's default (on in des and rounds, off in the peer modes) */
    double colocate_speed; /* normalised speed of a job per partner sharing its GPU when the
                              model has no pair for them (0 = 1.0: no interference) */
    berth_us restart_us;   /* checkpoint/restore cost of every restart and migration */
    int restart_tiers;     /* enum berth_restart_tiers */

    /* Time. */
    int mode;                /* enum berth_sim_mode */
    berth_us round_us;       /* 0 = the mode's (rounds 300 s, gavel 360 s, blox 300 s) */
    berth_us min_realloc_us; /* allocation policies re-solve at most this often (0 = theirs) */
    /* Round switches (rounds mode; gavel and blox set their own): -1 = the mode's default. */
    int round_admit;   /* arrivals are admitted only at round boundaries */
    int round_release; /* a finished job frees its GPUs only at the next boundary */
    int round_jct;     /* a job's finish is recorded at that boundary, not when work ends */
    int flat_progress; /* progress does not depend on the GPUs a job got (Blox) */
    /* a round ends early, when the work of every job holding GPUs in it has ended (Gavel's
     * round end at the latest finish); rounds no longer fall on a grid then */
    int round_early_end;
    /* each round a job by steps runs a whole number of steps, floor(rate x round), and
     * holds its GPUs idle after them (Gavel's int(throughput x round)); needs
     * round_early_end: the round ends when the last job's steps are done */
    int whole_steps;
    /* Multi-level feedback thresholds (0 of them: defaults): the tiresias policies' setting
     * queue_limits, given this way (another policy refuses it). */
    berth_us queue_limits_us[8];
    int nqueue_limits;
    /* The policy's own settings, "KEY=VALUE,KEY=VALUE" (a list value separates its items
     * with ':'): what `berth policies` lists under each policy. NULL = its defaults. */
    const char *policy_settings;

    /* Pools. With an inference demand series, the cluster's "inference" pool starts reserved
     * for inference and a lending policy (aryl) lends what demand leaves idle. */
    const struct berth_infer *infer;
    /* Idle inference servers kept back, 1/1000 (0: 5 %, <0: none): the aryl policies'
     * setting loan_headroom, given this way (another policy refuses it). */
    int32_t loan_headroom_milli;

    /* Shared-cluster controls. The queues file's quotas, cohorts, limits and shares
     * (berth/queues.h; NULL: none), which the ordering policies enforce; and time limits:
     * a job without one of its own (the trace's time_limit_s) gets its run time alone
     * times this factor (0: none), and a job is stopped (timed out) at its limit. */
    const struct berth_queues *queues;
    double time_limit_factor;
    /* Progress (NULL: none): jobs done of all ("jobs"), about every 4096 events and at the
     * end; it never changes what the run computes. */
    berth_progress_fn progress;
    void *progress_ctx;
};

/* "des", "rounds", "gavel", "blox", "tiresias" and back (-1 when unknown). */
const char *berth_sim_mode_name(int mode);
int berth_sim_mode_find(const char *name);

/* Fills o with the defaults: fifo, its placement, seed 1, quantum 60 s, des mode, no
 * throughput model, no restart cost. */
void berth_sim_opts_init(struct berth_sim_opts *o);

struct berth_job_result {
    const struct berth_jobspec *spec;
    berth_us first_start_us; /* BERTH_TIME_NONE if it never started */
    berth_us finish_us;      /* BERTH_TIME_NONE if it never finished */
    berth_us run_us;         /* time spent holding GPUs */
    int32_t preemptions;
    int32_t gpu_type;         /* type of its last allocation, -1 if none */
    int32_t servers;          /* servers its last allocation spanned */
    int32_t span;             /* with a topology: the level (enum berth_topo_level) its last
                                 start spanned; -1 if it never started or the cluster is flat */
    int32_t restarts;         /* starts after the first (after preemptions) plus migrations */
    berth_us restart_lost_us; /* time spent restoring checkpoints instead of progressing */
    berth_us iso_us;          /* time it would take alone on its gang (fastest allowed GPU type) */
    double ftf_rho;           /* finish-time fairness: JCT / JCT alone on 1/N of the cluster */
    int32_t by_steps;         /* 1 = progress from the throughput model, 0 = fixed speed */
    int32_t resizes;          /* elastic resizes */
    int64_t gpu_us;           /* GPU-microseconds held (whole GPUs; elastic gangs at their sizes) */
    berth_us limit_us;        /* its time limit, 0 = none */
    int32_t timed_out;        /* 1: stopped at its limit (finish_us is then; work not done) */
    /* Time waiting: JCT minus the time it held GPUs up to its recorded finish (restores
     * count as holding), so every wait between preemptions counts, not only the first;
     * BERTH_TIME_NONE if it never finished. */
    berth_us wait_us;
};

/* Per user, per queue and per GPU type aggregates. User and queue names point into the
 * trace; GPU type names belong to the result. */
struct berth_group_stat {
    const char *name;
    size_t jobs, completed;
    double avg_jct_s;
    double avg_wait_s; /* over the completed jobs: JCT - time holding GPUs */
    double gpu_hours;
    double ftf_rho_avg; /* mean finish-time fairness rho of its completed jobs (0: none) */
    int32_t gpus;       /* GPU types only: the cluster's GPUs of that type */
};

struct berth_series_row {
    berth_us t;
    int32_t busy_gpus;
    int32_t running;
    int32_t pending;
};

/* The instants at which the engine preempted, migrated or resized jobs, with how many of
 * each (recorded with the series: an instant with none has no row). */
struct berth_event_row {
    berth_us t;
    int32_t preemptions;
    int32_t migrations;
    int32_t resizes;
};

struct berth_sim_summary {
    size_t jobs;
    size_t completed; /* finished their work (timed-out jobs are not) */
    size_t timeouts;  /* stopped at their time limit */
    int has_limits;   /* some job had a time limit (timeouts and the limit columns are shown) */
    double avg_jct_s, median_jct_s, p95_jct_s, p99_jct_s;
    double avg_queue_s, median_queue_s, p99_queue_s; /* first start - arrival */
    double avg_wait_s, median_wait_s, p99_wait_s;    /* JCT - time holding GPUs */
    double makespan_s;                               /* first arrival to last completion */
    double gpu_util; /* time-weighted busy fraction over the makespan */
    uint64_t preemptions;
    uint64_t migrations;
    uint64_t resizes; /* elastic resizes */
    uint64_t events;  /* arrivals + completions + timer ticks processed */
    uint64_t passes;  /* scheduling passes run */
    uint64_t restarts;
    double restart_lost_s;
    double ftf_rho_max, ftf_rho_avg, ftf_jain; /* over completed jobs */
    /* With an inference demand series (has_infer): the pool, what inference used, what was
     * lent to training, server-hours inference lacked servers, usage of the whole cluster
     * ((training + inference GPU time) / (GPUs x makespan); gpu_util is training alone),
     * servers lent and reclaimed, and how long inference waited for a reclaim. */
    int has_infer;
    int32_t infer_servers;
    double infer_gpu_hours, loaned_gpu_hours, infer_short_server_hours, cluster_usage;
    uint64_t lends, reclaims;
    double reclaim_latency_max_s, reclaim_latency_avg_s;
    /* With a topology (has_topology): the jobs and the GPU-hours they held, by the level
     * their last start spanned (enum berth_topo_level; jobs that never started are left
     * out): the summary's by_span. */
    int has_topology;
    size_t span_jobs[BERTH_TOPO_LEVELS];
    double span_gpu_hours[BERTH_TOPO_LEVELS];
    /* With a topology (has_topology): per level below cluster that the topology has
     * (frag_level[l]), the time-weighted average over the run of the share of idle GPUs
     * lying in domains not wholly idle, and of the count of wholly idle domains, measured
     * at most every 300 simulated seconds: the summary's frag_by_level. */
    int frag_level[BERTH_TOPO_LEVELS];
    double frag_idle_in_partial[BERTH_TOPO_LEVELS], frag_whole_idle[BERTH_TOPO_LEVELS];
    double wall_s; /* wall-clock time of the run (not deterministic) */
};

struct berth_sim_result {
    struct berth_sim_summary summary;
    struct berth_job_result *jobs; /* one per trace job, in arrival order */
    size_t njobs;
    struct berth_series_row *series; /* one row per instant the state changed */
    size_t nseries;
    struct berth_event_row *events; /* one row per instant with preemptions, migrations or
                                       resizes (with the series) */
    size_t nevents;
    char policy[64];
    char placement[32];
    char mode[16];
    struct berth_group_stat *by_user, *by_queue, *by_type; /* sorted by name */
    size_t nby_user, nby_queue, nby_type;
};

/* The cluster is only read: the run works on its own copy of the free-GPU state. A run that
 * can make no more progress (nothing runs, nothing is to arrive, and the pending jobs can
 * never start) fails with BERTH_ESTALLED, the message naming those jobs and why. */
int berth_sim_run(const struct berth_trace *t, const struct berth_cluster *c,
                  const struct berth_sim_opts *o, struct berth_sim_result *out,
                  struct berth_err *err);
void berth_sim_result_free(struct berth_sim_result *r);

/* Result writers (io layer): per-job CSV, time-series CSV, summary JSON. */
int berth_write_jobs_csv(const char *path, const struct berth_sim_result *r,
                         const struct berth_cluster *c, struct berth_err *err);
int berth_write_series_csv(const char *path, const struct berth_sim_result *r,
                           struct berth_err *err);
/* time_s,preemptions,migrations,resizes: one row per instant with any (berth report's
 * preemptions over time). */
int berth_write_events_csv(const char *path, const struct berth_sim_result *r,
                           struct berth_err *err);
/* group,name,jobs,completed,avg_jct_s,gpu_hours,ftf_rho_avg,gpus,util: one row per user,
 * queue and GPU type (group "user", "queue", "gpu_type"); gpus and util (GPU-hours held
 * over the type's GPUs times the makespan) for GPU types only (berth report's utilisation
 * per type and fairness across users and queues). */
int berth_write_groups_csv(const char *path, const struct berth_sim_result *r,
                           struct berth_err *err);
/* Every --out file of a run in dir (jobs.csv, series.csv, events.csv, groups.csv,
 * summary.json), dir made when missing; errors name the file. */
int berth_write_outputs(const char *dir, const struct berth_sim_result *r,
                        const struct berth_cluster *c, struct berth_err *err);
/* One JSON object; wall_s is left out when with_wall is 0 (for byte-stable files). */
char *berth_summary_json(const struct berth_sim_result *r, int with_wall);

#endif
