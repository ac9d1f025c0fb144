/* Looking at and cutting traces (what `berth trace stats` and `berth trace slice` do):
 * summary statistics of a loaded trace, exact on integer microseconds and deterministic, and
 * slices by arrival window, queue, user and seeded sample. */
#ifndef BERTH_TRACE_TOOLS_H
#define BERTH_TRACE_TOOLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "time.h"
#include "trace.h"

/* Jobs asking for one gang size. */
struct berth_trace_stats_bin {
    int32_t gpus;
    size_t jobs;
};

/* Jobs of one queue or user. */
struct berth_trace_stats_name {
    const char *name; /* owned by the stats */
    size_t jobs;
};

/* Percentiles are numpy's default (linear interpolation between closest ranks); an empty
 * trace gives zeros everywhere. */
struct berth_trace_stats {
    size_t jobs;

    /* GPU demand: every job by gang size, ascending (0 = CPU-only; fractional jobs count in
     * the bin of 1 and again below). */
    struct berth_trace_stats_bin *gangs;
    size_t ngangs;
    size_t multi_gpu_jobs;          /* num_gpus > 1 */
    double multi_gpu_fraction;      /* multi_gpu_jobs / jobs */
    size_t fractional_jobs;         /* gpu_share_milli < 1000 */
    double fractional_median_share; /* median share of one GPU (0.47 = 470 milli); 0 if none */
    double fractional_p90_share, fractional_min_share, fractional_max_share;

    /* Durations. */
    berth_us duration_min_us, duration_max_us;
    double duration_median_s, duration_p90_s, duration_p99_s, duration_mean_s;

    /* GPU time of a job = duration x num_gpus x gpu_share (a fractional job counts its share). */
    double gpu_hours_total, gpu_hours_median, gpu_hours_p99;

    /* Arrivals (the trace's own origin; rows need not be sorted). */
    berth_us first_arrival_us, last_arrival_us, span_us;
    double span_days;

    /* Jobs per queue and per user, by count descending, then name; jobs whose field is empty
     * are counted apart. */
    struct berth_trace_stats_name *queues;
    size_t nqueues, jobs_without_queue;
    struct berth_trace_stats_name *users;
    size_t nusers, jobs_without_user;
    /* Jobs per final state in the source trace (Running, Failed, ...), when it has one. */
    struct berth_trace_stats_name *statuses;
    size_t nstatuses, jobs_without_status;
};

/* Computes the statistics of t into *out (free with berth_trace_stats_free). */
int berth_trace_stats(const struct berth_trace *t, struct berth_trace_stats *out,
                      struct berth_err *err);
void berth_trace_stats_free(struct berth_trace_stats *s);

/* The statistics as one JSON object (path, when not NULL, as its "path"); times in seconds.
 * A malloc'd string for free(), NULL when out of memory. */
char *berth_trace_stats_json(const struct berth_trace_stats *s, const char *path, int pretty);
/* The statistics as a table for people, titled with path; at most max_names queues and
 * users each (0 = all). Returns 0, or -1 on a write error. */
int berth_trace_stats_print(FILE *f, const struct berth_trace_stats *s, const char *path,
                            size_t max_names);

struct berth_slice_opts {
    berth_us from_us;          /* keep arrival >= from_us; BERTH_TIME_NONE = from the start */
    berth_us to_us;            /* keep arrival < to_us; BERTH_TIME_NONE = to the end */
    const char *const *queues; /* keep only jobs of these queues (exact match); none = any */
    size_t nqueues;
    const char *const *users; /* the same for users */
    size_t nusers;
    /* Seeded sample of the jobs the filters above keep, in file order: a fraction in (0, 1]
     * keeps round(fraction x matched) jobs (at least 1), a count keeps min(count, matched);
     * 0 for both = no sampling. Each k-subset is equally likely; the same seed gives the same
     * jobs. */
    double fraction;
    size_t count;
    uint64_t seed;
    /* 1: draw the jobs with replacement instead (as many as the filters keep, or as fraction
     * or count say), in file order; the k-th copy of a job (k >= 2) is named ID#k. A
     * bootstrap resample: the same load on average, a new workload per seed. */
    int bootstrap;
    int rebase; /* shift arrivals so that the earliest kept job arrives at 0 */
};

/* No window, no filter, no sampling, seed 1, no rebase. */
void berth_slice_opts_init(struct berth_slice_opts *o);
/* The jobs of t that o keeps, in file order, as a new trace owning its strings (free with
 * berth_trace_free). A slice that keeps no job fails with BERTH_EINPUT saying how many jobs
 * each filter kept. */
int berth_trace_slice(const struct berth_trace *t, const struct berth_slice_opts *o,
                      struct berth_trace **out, struct berth_err *err);

/* A decimal number of seconds ("12", "0.5", "-3", "1.5e3") read exactly into microseconds,
 * as the loaders read times. Returns 0, or BERTH_EINPUT when s is not such a number. */
int berth_parse_seconds(const char *s, berth_us *out);

#endif
