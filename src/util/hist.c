/* Atomic fixed-bucket histograms (see hist.h). */
#include "util/hist.h"

void berth__hist_init(struct berth__hist *h, const double *le, size_t n)
{
    h->le = le;
    h->n = n > BERTH_HIST_MAX ? BERTH_HIST_MAX : n;
    for (size_t i = 0; i <= BERTH_HIST_MAX; i++)
        atomic_init(&h->bucket[i], 0);
    atomic_init(&h->count, 0);
    atomic_init(&h->sum_us, 0);
}

void berth__hist_observe_us(struct berth__hist *h, int64_t us)
{
    if (us < 0)
        us = 0;
    double s = (double)us / 1e6;
    size_t i = 0;
    while (i < h->n && s > h->le[i])
        i++;
    atomic_fetch_add_explicit(&h->bucket[i], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->sum_us, (uint64_t)us, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->count, 1, memory_order_release);
}

void berth__hist_read(const struct berth__hist *h, uint64_t *cum, uint64_t *count, double *sum_s)
{
    /* the count is read first: buckets only grow, so the cumulative counts are at least it
     * only when every observation counted is in; the +Inf bucket is made the count */
    uint64_t c = atomic_load_explicit(&h->count, memory_order_acquire), run = 0;
    for (size_t i = 0; i <= h->n; i++) {
        run += atomic_load_explicit(&h->bucket[i], memory_order_relaxed);
        cum[i] = run;
    }
    for (size_t i = 0; i <= h->n; i++)
        if (cum[i] > c)
            cum[i] = c; /* an observation half recorded: not counted yet anywhere */
    cum[h->n] = c;
    *count = c;
    *sum_s = (double)atomic_load_explicit(&h->sum_us, memory_order_relaxed) / 1e6;
}
