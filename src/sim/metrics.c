/* Summary statistics of a simulation (see metrics.h). */
#include <stdlib.h>

#include "metrics.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

double berth__quantile(const int64_t *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo >= n - 1)
        return (double)v[n - 1];
    double frac = pos - (double)lo;
    return (double)v[lo] + ((double)v[lo + 1] - (double)v[lo]) * frac;
}

int berth__summarise(struct berth_sim_result *r, double busy_gpu_us, int32_t total_gpus)
{
    struct berth_sim_summary *s = &r->summary;
    size_t n = r->njobs;
    int64_t *jct = malloc((n ? n : 1) * sizeof *jct);
    int64_t *queue = malloc((n ? n : 1) * sizeof *queue);
    if (!jct || !queue) {
        free(jct);
        free(queue);
        return -1;
    }
    size_t done = 0, started = 0;
    double jsum = 0, qsum = 0;
    berth_us first = BERTH_TIME_NONE, last = BERTH_TIME_NONE;
    for (size_t i = 0; i < n; i++) {
        const struct berth_job_result *j = &r->jobs[i];
        if (first == BERTH_TIME_NONE || j->spec->arrival_us < first)
            first = j->spec->arrival_us;
        if (j->first_start_us != BERTH_TIME_NONE) {
            queue[started] = j->first_start_us - j->spec->arrival_us;
            qsum += (double)queue[started++];
        }
        if (j->finish_us != BERTH_TIME_NONE) {
            jct[done] = j->finish_us - j->spec->arrival_us;
            jsum += (double)jct[done++];
            if (last == BERTH_TIME_NONE || j->finish_us > last)
                last = j->finish_us;
        }
    }
    qsort(jct, done, sizeof *jct, cmp_i64);
    qsort(queue, started, sizeof *queue, cmp_i64);
    const double us = 1e6;
    s->jobs = n;
    s->completed = done;
    s->avg_jct_s = done ? jsum / (double)done / us : 0;
    s->median_jct_s = berth__quantile(jct, done, 0.5) / us;
    s->p95_jct_s = berth__quantile(jct, done, 0.95) / us;
    s->p99_jct_s = berth__quantile(jct, done, 0.99) / us;
    s->avg_queue_s = started ? qsum / (double)started / us : 0;
    s->median_queue_s = berth__quantile(queue, started, 0.5) / us;
    s->p99_queue_s = berth__quantile(queue, started, 0.99) / us;
    berth_us span = (last != BERTH_TIME_NONE && first != BERTH_TIME_NONE) ? last - first : 0;
    s->makespan_s = (double)span / us;
    s->gpu_util = span > 0 && total_gpus > 0 ? busy_gpu_us / ((double)span * total_gpus) : 0;
    free(jct);
    free(queue);
    return 0;
}
