/* The estimate's thread and how requests read its newest result (estimator.c). */
#ifndef BERTH_LIVE_ESTIMATOR_H
#define BERTH_LIVE_ESTIMATOR_H

#include "berth/err.h"
#include "live/daemon/estimate.h"

struct berth__daemon;

/* What /v1/health shows of the estimate: its runs and their cost, apart and under d->mu. */
struct berth__est_stats {
    uint64_t runs, budget_stops;        /* virtual runs, and those its budget ended */
    berth_us last_us, max_us;           /* a run's cost (under no lock) */
    berth_us snap_last_us, snap_max_us; /* a snapshot's (the time it held d->mu) */
    berth_us budget_us;
};

/* At serve: the thread (d->estr). stop: ends it (a run under way finishes first, within its
 * budget); free: after the HTTP server stopped (no reader is left). */
int berth__estimator_start(struct berth__daemon *d, struct berth_err *err);
void berth__estimator_stop(struct berth__daemon *d);
void berth__estimator_free(struct berth__daemon *d);
/* Not under d->mu: the newest result, after asking for a newer one when the live state
 * changed since. It waits for that run (up to --estimate-budget and a second) when there is
 * no result yet, or when fresh is set and the throttle lets the run end in time; else the
 * answer is the published one (NULL: none yet, or no thread). Each result got is given back
 * with put. */
struct berth__est_result *berth__estimator_get(struct berth__daemon *d, int fresh);
void berth__estimator_put(struct berth__daemon *d, struct berth__est_result *r);
void berth__estimator_stats(struct berth__daemon *d, struct berth__est_stats *out);

#endif
