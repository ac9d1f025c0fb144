/* One simulation run as the report draws it: the figures of the summary, each completed
 * job's JCT, gang and rho, each started job's wait, the cluster time series, the preemption
 * events and the per-group table, read from a --out folder (run_load.c) or taken from a
 * result in memory (run.c). */
#ifndef BERTH_REPORT_RUN_H
#define BERTH_REPORT_RUN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"
#include "berth/sim.h"
#include "report/svg.h"

struct berth__run_group {
    char kind;  /* 't' GPU type, 'u' user, 'q' queue */
    char *name; /* owned */
    double jobs, completed, avg_jct_s, gpu_hours, rho_avg, gpus, util;
};

struct berth_run {
    char *label; /* owned; the legend's name */
    char *dir;   /* the folder it was read from (NULL: from a result) */
    char policy[64], placement[32], mode[16];
    json_t *summary; /* summary.json's object (owned) */
    /* completed jobs: JCT (s), gang, rho (0 when none); and started jobs' waits (s) */
    double *jct, *rho, *wait;
    int32_t *gang;
    size_t ndone, nwait;
    /* the series, in seconds from the first row */
    double *st, *busy, *pending;
    size_t nseries;
    /* preemptions (migrations and resizes counted with them) per instant */
    double *et, *epre;
    size_t nevents;
    int has_events;
    struct berth__run_group *groups;
    size_t ngroups;
    int has_groups;
};

/* Chart i of berth_report_chart_id's list, drawn into s (run_charts.c); -1 when out of
 * memory. */
int berth__report_chart(struct berth__svg *s, size_t i, struct berth_run *const *runs, size_t n);

/* A number of the summary by key (NaN when absent). */
double berth__run_num(const struct berth_run *r, const char *key);
/* The cluster's GPUs: the sum of the GPU type rows (0 when the folder has no groups.csv). */
double berth__run_gpus(const struct berth_run *r);

#endif
