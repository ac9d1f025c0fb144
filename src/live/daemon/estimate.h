/* The start-time estimate in two halves, so that only the cheap one holds the daemon lock:
 * a snapshot of the live state (under d->mu: a copy of every pending and running job, the
 * reserved servers, the inference demand) and a virtual run of that copy (under no lock,
 * within a wall-clock budget), whose result is a table of predicted starts and ends by job
 * id. estimator.c runs them on a thread of their own and publishes the newest result;
 * requests read that result and never wait on the run. */
#ifndef BERTH_LIVE_ESTIMATE_H
#define BERTH_LIVE_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"
#include "berth/time.h"

struct berth__daemon;

/* One job's prediction: start_us 0 when it does not start in the virtual run. */
struct berth__est {
    uint64_t id;
    berth_us start_us, end_us;
};

/* Why a virtual run ended. */
enum berth__est_stop {
    BERTH_EST_DONE,    /* every job started, or nothing more could happen */
    BERTH_EST_HORIZON, /* a year of virtual time went by */
    BERTH_EST_PASSES,  /* the bound on passes (4 per job + 1000) */
    BERTH_EST_BUDGET,  /* the wall-clock budget ran out */
};

struct berth__est_result {
    berth_us wall_us;       /* the snapshot's instant, wall clock (the virtual run's start) */
    berth_us mono_us;       /* the same instant, CLOCK_MONOTONIC (for its age) */
    uint64_t passes, njobs; /* the live engine's passes and jobs then */
    berth_us snap_us;       /* what the snapshot cost (the time it held d->mu) */
    berth_us run_us;        /* what the virtual run cost (under no lock) */
    berth_us budget_us;     /* the run's budget */
    int stop;               /* enum berth__est_stop */
    uint64_t vpasses;       /* passes of the virtual run */
    size_t n, started;      /* jobs in the run, and those it saw start */
    struct berth__est *e;   /* n of them, by id */
    /* estimator.c's: readers of a result it replaced while they read it, and the list */
    int refs;
    struct berth__est_result *next_old;
};

struct berth__est_snap;

/* Under d->mu: copies what the virtual run needs (no pointer into the live state survives).
 * now: the wall clock the run starts at. *io: the previous snapshot, whose arrays it reuses
 * (no fresh pages under the lock), or NULL for a new one; it is the caller's either way. */
int berth__est_snap_take(struct berth__daemon *d, berth_us now, struct berth__est_snap **io,
                         struct berth_err *err);
/* Under no lock: runs the copy forward until every job started, nothing more can happen, a
 * year went by, or budget_us of wall time went (checked after each pass; at least one pass
 * runs). The result is the caller's (berth__est_result_free). */
int berth__est_snap_run(struct berth__est_snap *s, berth_us budget_us,
                        struct berth__est_result **out, struct berth_err *err);
void berth__est_snap_free(struct berth__est_snap *s);
void berth__est_result_free(struct berth__est_result *r);
/* id's prediction in r, or NULL (not in the run). */
const struct berth__est *berth__est_find(const struct berth__est_result *r, uint64_t id);
/* How a run ended, as the API names it: "budget", "passes", "horizon", "done". */
const char *berth__est_stop_name(int stop);

#endif
