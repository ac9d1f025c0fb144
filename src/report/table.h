/* A sweep's results (berth/report.h's berth_sweep_table): rows per cell, groups over seeds.
 * Private to report/ (table.c loads and writes it, rank.c ranks it). */
#ifndef BERTH_REPORT_TABLE_H
#define BERTH_REPORT_TABLE_H

#include "berth/report.h"
#include "report/grid.h"
#include "report/metric.h"

struct berth__sweep_row {
    const struct berth_grid_cell *cell;
    int ok;        /* its results are in */
    char why[256]; /* when not: the first line of its failure, or "has not run" */
    double m[BERTH_NMETRICS];
};

/* Cells that differ only by their seed, in grid order. */
struct berth__sweep_group {
    const char *policy, *cluster, *workload, *flags;
    size_t first, n; /* rows first .. first + n - 1 (its seeds) */
    size_t nok;
    double mean[BERTH_NMETRICS], ci[BERTH_NMETRICS];
};

struct berth_sweep_table {
    const struct berth_grid *g;
    struct berth__sweep_row *rows;
    size_t nrows;
    struct berth__sweep_group *groups;
    size_t ngroups;
};

#endif
