/* The metrics a sweep reports (berth/report.h's berth_metric) and how each is written for
 * people. Its own file so that rank.c can name and format a metric without calling into
 * table.c, whose report calls rank.c for the ranking's section. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/html.h"
#include "report/metric.h"

const struct berth_metric berth__metrics[BERTH_NMETRICS] = {
    {"jobs", "jobs", NULL, 0, 1},
    {"completed", "completed", NULL, 1, 1},
    {"avg_jct_s", "avg JCT", "avg-jct", 0, 0},
    {"median_jct_s", "median JCT", "median-jct", 0, 0},
    {"p95_jct_s", "p95 JCT", "p95-jct", 0, 0},
    {"p99_jct_s", "p99 JCT", "p99-jct", 0, 0},
    {"avg_queue_s", "avg wait", "avg-wait", 0, 0},
    {"p99_queue_s", "p99 wait", "p99-wait", 0, 0},
    {"makespan_s", "makespan", "makespan", 0, 0},
    {"gpu_util", "GPU util", "util", 1, 2},
    {"preemptions", "preemptions", "preemptions", 0, 1},
    {"migrations", "migrations", NULL, 0, 1},
    {"resizes", "resizes", NULL, 0, 1},
    {"restarts", "restarts", NULL, 0, 1},
    {"ftf_rho_max", "max rho", "fairness", 0, 3},
    {"ftf_rho_avg", "mean rho", "mean-rho", 0, 3},
    {"ftf_jain", "Jain (rho)", "jain", 1, 3},
};

size_t berth_metric_count(void)
{
    return BERTH_NMETRICS;
}

const struct berth_metric *berth_metric(size_t i)
{
    return i < BERTH_NMETRICS ? &berth__metrics[i] : NULL;
}

int berth_metric_find(const char *option)
{
    for (size_t i = 0; i < BERTH_NMETRICS; i++)
        if (berth__metrics[i].option && !strcmp(berth__metrics[i].option, option))
            return (int)i;
    return -1;
}

void berth__fmt_metric(char *b, size_t len, const struct berth_metric *m, double v)
{
    if (m->kind == 0)
        berth__fmt_duration(b, len, v);
    else if (m->kind == 1)
        berth__fmt_num(b, len, v, v == floor(v) || fabs(v) >= 100 ? 0 : 1);
    else if (m->kind == 2)
        isnan(v) ? snprintf(b, len, "-") : snprintf(b, len, "%.1f %%", 100 * v);
    else /* ratios: three decimals while they matter */
        berth__fmt_num(b, len, v, fabs(v) >= 1000 ? 0 : fabs(v) >= 10 ? 1 : 3);
}
