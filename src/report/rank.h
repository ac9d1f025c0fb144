/* The tournament's ranking (berth/report.h's berth_ranking), private to report/: rank.c
 * builds and prints it, table.c puts it in the sweep's report. */
#ifndef BERTH_REPORT_RANK_H
#define BERTH_REPORT_RANK_H

#include "berth/report.h"
#include "report/svg.h"

struct berth__sweep_group;

struct berth__rank_entry {
    const char *policy;
    const struct berth__sweep_group *group; /* its cells */
    int ok;                                 /* every seed ran: ranked */
    char why[256];                          /* else why not (the first failure) */
    double mean, ci, delta_pct, p, p_adj, disrupt;
    int significant; /* significantly worse than the best */
    int tied;        /* the best, or not significantly worse than it (with 2 seeds or more) */
};

struct berth_ranking {
    const struct berth_metric *m;
    double alpha;
    size_t seeds;
    int exact;                   /* no run varied with the seed: differences are exact */
    struct berth__rank_entry *e; /* by mean, best first, then the not applicable ones */
    size_t n, nok;
    char winner[64];
    char reason[1024];
};

/* The ranking's section of a report: its table and the recommendation. */
void berth__ranking_html(struct berth__svg *s, const struct berth_ranking *r);

#endif
