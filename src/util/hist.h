/* A histogram with fixed bucket bounds whose observations are atomic, so that any thread can
 * record (an HTTP thread, the journal's writer, the scheduler loop) and a reader (a
 * Prometheus scrape) can take it without a lock; O(buckets) per observation at most. The
 * bounds are seconds, what the exposition format's le labels say. */
#ifndef BERTH_UTIL_HIST_H
#define BERTH_UTIL_HIST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define BERTH_HIST_MAX 24

struct berth__hist {
    const double *le; /* upper bounds in seconds, ascending */
    size_t n;
    _Atomic uint64_t bucket[BERTH_HIST_MAX + 1]; /* per bound, not cumulative; the last: +Inf */
    _Atomic uint64_t count;
    _Atomic uint64_t sum_us; /* the sum of the observations, in microseconds */
};

/* n at most BERTH_HIST_MAX bounds; le must outlive the histogram. */
void berth__hist_init(struct berth__hist *h, const double *le, size_t n);
/* Records one observation of us microseconds (negative ones count as 0). */
void berth__hist_observe_us(struct berth__hist *h, int64_t us);
/* A consistent-enough copy for a reader: cumulative counts per bound (n + 1 of them, the last
 * is +Inf), the count and the sum in seconds. */
void berth__hist_read(const struct berth__hist *h, uint64_t *cum, uint64_t *count, double *sum_s);

#endif
