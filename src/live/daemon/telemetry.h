/* What berthd measures about itself for /metrics and the dashboard: histograms of the pass
 * latency and of the queue wait (atomic: readable without the daemon's lock), the accepted
 * submissions, the scheduler loop's last tick (/healthz), and a bounded history — a sample
 * of the cluster every BERTH_TEL_EVERY_US over the last BERTH_TEL_KEEP_US, and the waits of
 * the last BERTH_TEL_STARTS starts — that the dashboard's charts draw. The history is guarded
 * by the daemon's lock; its size never depends on the job table's. */
#ifndef BERTH_LIVE_TELEMETRY_H
#define BERTH_LIVE_TELEMETRY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "berth/time.h"
#include "util/hist.h"

#define BERTH_TEL_EVERY_US (5 * BERTH_US_PER_S)
#define BERTH_TEL_KEEP_US  (24LL * 3600 * BERTH_US_PER_S)
#define BERTH_TEL_SAMPLES  ((size_t)(BERTH_TEL_KEEP_US / BERTH_TEL_EVERY_US))
#define BERTH_TEL_STARTS   4096
#define BERTH_TEL_TYPES    16 /* GPU types drawn apart; the others count in the totals */

struct berth__sample {
    berth_us t; /* wall clock */
    int32_t gpus, busy, reserved, draining;
    int32_t pending, held, running;
    float jain; /* across users with jobs, of the GPUs they hold (NaN: fewer than two) */
    int32_t type_busy[BERTH_TEL_TYPES], type_gpus[BERTH_TEL_TYPES];
};

struct berth__start_rec {
    berth_us t;
    float wait_s;
};

struct berth__telemetry {
    struct berth__hist pass, wait;
    _Atomic uint64_t submitted;
    _Atomic int64_t last_tick_us; /* monotonic; 0 before the first tick */
    struct berth__sample *ring;   /* BERTH_TEL_SAMPLES, oldest at head once full */
    size_t n, head;
    berth_us next_at;
    struct berth__start_rec *starts; /* BERTH_TEL_STARTS, a ring */
    size_t nstarts, starts_head;
};

struct berth__daemon;
struct berth__ljob;

int berth__telemetry_init(struct berth__telemetry *t);
void berth__telemetry_free(struct berth__telemetry *t);
/* Under d->mu, at each tick: marks the tick and takes a sample when one is due. */
void berth__telemetry_tick(struct berth__daemon *d, berth_us now);
/* Under d->mu: j starts at now (its first start counts in the wait histogram). */
void berth__telemetry_started(struct berth__daemon *d, const struct berth__ljob *j, berth_us now);
/* Registers the started hook with the core (core.h); at create. */
struct berth_err;
int berth__telemetry_attach(struct berth__daemon *d, struct berth_err *err);
/* Under d->mu: copies of the samples since `since` (at most max of them, evenly picked, the
 * newest last) and of the waits of the starts since then. The caller frees both. */
int berth__telemetry_copy(const struct berth__telemetry *t, berth_us since, size_t max,
                          struct berth__sample **samples, size_t *n, float **waits, size_t *nwaits);

#endif
