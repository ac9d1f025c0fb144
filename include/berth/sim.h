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
#include "trace.h"

struct berth_sim_opts {
    const char *policy;    /* name from the policy registry */
    const char *placement; /* NULL = the policy's default */
    uint64_t seed;         /* for every random draw; 0 is a valid seed */
    berth_us quantum_us;   /* re-evaluation period of time-sliced policies (las) */
    int record_series;     /* keep the cluster time series (for --out) */
    int check_invariants;  /* re-verify every GPU and job after each pass (tests) */
};

/* Fills o with the defaults: fifo, its placement, seed 1, quantum 60 s. */
void berth_sim_opts_init(struct berth_sim_opts *o);

struct berth_job_result {
    const struct berth_jobspec *spec;
    berth_us first_start_us; /* BERTH_TIME_NONE if it never started */
    berth_us finish_us;      /* BERTH_TIME_NONE if it never finished */
    berth_us run_us;         /* time spent holding GPUs */
    int32_t preemptions;
    int32_t gpu_type; /* type of its last allocation, -1 if none */
    int32_t servers;  /* servers its last allocation spanned */
};

struct berth_series_row {
    berth_us t;
    int32_t busy_gpus;
    int32_t running;
    int32_t pending;
};

struct berth_sim_summary {
    size_t jobs;
    size_t completed;
    double avg_jct_s, median_jct_s, p95_jct_s, p99_jct_s;
    double avg_queue_s, median_queue_s, p99_queue_s;
    double makespan_s; /* first arrival to last completion */
    double gpu_util;   /* time-weighted busy fraction over the makespan */
    uint64_t preemptions;
    uint64_t migrations;
    uint64_t events; /* arrivals + completions + timer ticks processed */
    uint64_t passes; /* scheduling passes run */
    double wall_s;   /* wall-clock time of the run (not deterministic) */
};

struct berth_sim_result {
    struct berth_sim_summary summary;
    struct berth_job_result *jobs; /* one per trace job, in arrival order */
    size_t njobs;
    struct berth_series_row *series; /* one row per instant the state changed */
    size_t nseries;
    char policy[64];
    char placement[32];
};

/* The cluster is only read: the run works on its own copy of the free-GPU state. */
int berth_sim_run(const struct berth_trace *t, const struct berth_cluster *c,
                  const struct berth_sim_opts *o, struct berth_sim_result *out,
                  struct berth_err *err);
void berth_sim_result_free(struct berth_sim_result *r);

/* Result writers (io layer): per-job CSV, time-series CSV, summary JSON. */
int berth_write_jobs_csv(const char *path, const struct berth_sim_result *r,
                         const struct berth_cluster *c, struct berth_err *err);
int berth_write_series_csv(const char *path, const struct berth_sim_result *r,
                           struct berth_err *err);
/* One JSON object; wall_s is left out when with_wall is 0 (for byte-stable files). */
char *berth_summary_json(const struct berth_sim_result *r, int with_wall);

#endif
