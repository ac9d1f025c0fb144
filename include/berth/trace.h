/* Workloads: the job specs a trace file holds, and the loaders that read them.
 *
 * A trace owns its jobs and every string they point to (one arena); berth_trace_free
 * releases all of it. Loaders never skip a row silently: the first bad row fails the whole
 * load with "FILE:LINE: column NAME: expected ..., found ...". */
#ifndef BERTH_TRACE_H
#define BERTH_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "progress.h"
#include "time.h"

struct berth_cluster;

/* What few jobs set, or what many jobs share (a handful of users, job types, GPU types): a
 * trace keeps one copy per distinct value (jobs point to it), so it costs nothing per job. */
struct berth_jobspec_extra {
    int64_t gpu_mem_mib;    /* GPU memory per GPU, 0 = unknown */
    int64_t cpu_milli;      /* CPU for the whole job in 1/1000 cores, 0 = unknown */
    int64_t mem_mib;        /* host memory for the whole job, 0 = unknown */
    berth_us restart_us;    /* checkpoint/restore cost of this job, 0 = the run's */
    berth_us time_limit_us; /* run time after which the job is stopped (timeout), 0 = none */
    /* Salus' memory split per GPU (0 = unknown: the policy's per-class estimate): persistent
     * memory (weights, framework state) and peak ephemeral memory (activations, freed at
     * every iteration boundary). */
    int64_t persist_mib;
    int64_t ephem_mib;
    const char *job_type; /* "" when absent */
    const char *user;     /* "" when absent */
    const char *status;   /* final state in the source trace ("" = unknown), e.g. Failed */
    const char *gpu_type; /* "" = any GPU type; "a|b" = any of these (see below) */
    /* Topology (include/berth/cluster.h, enum berth_topo_level), each level + 1 so that 0 is
     * "none": the gang must stay within one domain of topo_required (it waits, reason
     * Topology, until one holds it), and should stay within one of topo_preferred (it starts
     * wider when none does, at the rate of the level it spans). tp: tensor-parallel degree
     * (ranks in consecutive groups of tp share an NVLink island), 0 or 1 = none. */
    int8_t topo_required;
    int8_t topo_preferred;
    int32_t tp;
};

/* What a job asks for. Everything a loader can know before the job runs. */
struct berth_jobspec {    /* 72 bytes (one spare byte): one per job, millions of jobs */
    const char *id;       /* unique within the trace */
    berth_us arrival_us;  /* submit time, relative to the trace's origin */
    berth_us duration_us; /* run time at full speed on the GPUs asked for (> 0) */
    int64_t total_steps;  /* 0 = work given by duration only */
    int32_t num_gpus;     /* gang size (>= 1) */
    int32_t min_gpus;     /* elastic range; both equal num_gpus when inelastic */
    int32_t max_gpus;
    int32_t priority;        /* larger = more important; 0 by default */
    uint32_t line;           /* line in the source file, for error messages */
    int16_t gpu_share_milli; /* share of one GPU in 1/1000 (1000 = whole GPUs) */
    uint8_t single_server;   /* 1 = the gang must not span servers */
    const char *queue;       /* "" when absent (virtual cluster, partition) */
    /* the rest, shared (NULL = every field at its default: 0, ""); read it with
     * berth_jobspec_extra(), never through this pointer */
    const struct berth_jobspec_extra *extra;
};

/* Every extra field at its default: numbers 0, strings "". */
extern const struct berth_jobspec_extra berth_jobspec_extra_none;

/* js's extra fields (never NULL). */
static inline const struct berth_jobspec_extra *berth_jobspec_extra(const struct berth_jobspec *js)
{
    return js->extra ? js->extra : &berth_jobspec_extra_none;
}

/* A whole job description, as loaders and berthd fill it: the spec and its extra fields
 * side by side (a trace stores the spec and one shared copy of the extra). */
struct berth_jobdesc {
    struct berth_jobspec spec;
    struct berth_jobspec_extra x;
};

struct berth_trace;

struct berth_load_opts {
    const char *format;         /* a name from berth_trace_formats(), or NULL / "auto": detect */
    int lenient;                /* skip bad rows, counting them per reason, instead of failing */
    berth_progress_fn progress; /* told the bytes read of the file's size (NULL: none) */
    void *progress_ctx;
};

#define BERTH_LOAD_MAX_REASONS 32

/* What a load read and what it left out. Rows are left out for two reasons: bad rows under
 * --lenient (bad = 1), and rows a format's documented rules say are not jobs, such as a
 * Philly job that never started (bad = 0). Both are counted, never dropped silently. */
struct berth_load_report {
    size_t rows;    /* data rows (or records) read */
    size_t jobs;    /* jobs loaded */
    size_t skipped; /* rows left out, all reasons */
    size_t nreasons;
    struct {
        char reason[160]; /* "column duration_s: expected a duration in seconds > 0" */
        size_t count;
        uint32_t first_line;
        int bad;
    } reasons[BERTH_LOAD_MAX_REASONS]; /* the last one collects "other reasons" */
};

/* Loads path (some formats take several files, see docs/sim.md, "Trace formats") with options o
 * (NULL = strict, format detected). rep (may be NULL) says what was read and left out. On success
 * *out owns the jobs in file order. */
int berth_trace_load_opts(const char *path, const struct berth_load_opts *o,
                          struct berth_load_report *rep, struct berth_trace **out,
                          struct berth_err *err);
/* Strict load in the given format ("native", "philly-pollux", ... or NULL / "auto"). */
int berth_trace_load(const char *path, const char *format, struct berth_trace **out,
                     struct berth_err *err);
void berth_trace_free(struct berth_trace *t);

size_t berth_trace_count(const struct berth_trace *t);
const struct berth_jobspec *berth_trace_jobs(const struct berth_trace *t);
const char *berth_trace_path(const struct berth_trace *t);

/* Checks every job against the cluster it will run on: gang no larger than the cluster
 * (or than its GPU type, or than one server when it must not span), known GPU types.
 * The first offender fails with FILE:LINE. */
int berth_trace_check(const struct berth_trace *t, const struct berth_cluster *c,
                      struct berth_err *err);

/* Names of the formats berth_trace_load accepts, NULL-terminated. */
const char *const *berth_trace_formats(void);

/* Writes jobs as berth's native CSV (header included). */
int berth_trace_write_native(FILE *f, const struct berth_jobspec *jobs, size_t n,
                             struct berth_err *err);

#endif
