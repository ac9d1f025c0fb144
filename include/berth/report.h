/* Pictures and comparisons of simulation runs, written by berth itself: the report (one
 * self-contained HTML file with inline SVG charts, or one SVG file per chart) of one or more
 * runs; the sweep (a grid of policies x workloads x clusters x flags x seeds, its results
 * table and its report with mean and 95 % confidence interval per cell); and the tournament
 * that ranks policies on one metric over seeds and recommends one. No JavaScript, no
 * network, no library beyond libberth's own. */
#ifndef BERTH_REPORT_H
#define BERTH_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "progress.h"
#include "sim.h"

/* ---- runs ---------------------------------------------------------------------------- */

/* One run: a berth sim --out folder read back, or a result in memory. */
struct berth_run;

/* Reads DIR/summary.json, jobs.csv, series.csv and, when present, events.csv and groups.csv
 * (older folders lack them: the charts they feed say so). Bad content is BERTH_EINPUT naming
 * FILE:LINE and the column; a missing file BERTH_EIO. The label is the folder's name. */
int berth_run_load(const char *dir, struct berth_run **out, struct berth_err *err);
/* A run of a result (its series recorded: record_series); label NULL = the policy. */
int berth_run_of_result(const struct berth_sim_result *r, const char *label, struct berth_run **out,
                        struct berth_err *err);
void berth_run_free(struct berth_run *r);
const char *berth_run_label(const struct berth_run *r);
const char *berth_run_policy(const struct berth_run *r);
int berth_run_set_label(struct berth_run *r, const char *label, struct berth_err *err);

/* ---- the report ---------------------------------------------------------------------- */

/* The charts, in the report's order: a short id (its SVG file's name) and its title. */
size_t berth_report_chart_count(void);
const char *berth_report_chart_id(size_t i);
const char *berth_report_chart_title(size_t i);

/* Chart i of the runs as one SVG document (malloc'd; NULL with err when out of memory). */
char *berth_report_chart_svg(size_t i, struct berth_run *const *runs, size_t n,
                             struct berth_err *err);
/* The report: one HTML document with every chart inline and the summary table; the same
 * runs give the same bytes. title NULL = "berth report". */
int berth_report_html(FILE *f, struct berth_run *const *runs, size_t n, const char *title,
                      struct berth_err *err);
/* Every chart as DIR/ID.svg (DIR made when missing). */
int berth_report_svgs(const char *dir, struct berth_run *const *runs, size_t n,
                      struct berth_err *err);

/* ---- the sweep ------------------------------------------------------------------------ */

/* A grid file: one dimension a line, `NAME VALUE...`, each value `[LABEL=]VALUE` (quotes
 * group words: flags="--restart-cost 30"); # starts a comment. Dimensions:
 *   policy   NAME...                       policies (required)
 *   cluster  SPEC...                       clusters as berth sim takes them (required)
 *   trace    FILE...                       trace files (relative to the grid's folder)
 *   gen      "GEN FLAGS"...                workloads berth gen makes, one per seed
 *   seed     N... or A-B                   seeds (default 1)
 *   flags    "SIM FLAGS"...                variants: berth sim flags per cell (default none)
 *   sim      SIM FLAGS                     berth sim flags of every cell
 *   resample none|bootstrap|FRACTION       how a seed varies a trace file (default none)
 * At least one trace or gen. Every combination of policy, cluster, workload, flags and seed
 * is a cell, named POLICY.CLUSTER.WORKLOAD.FLAGS.sSEED from the labels. */
struct berth_grid;

/* One cell: berth sim's arguments (after "sim", without --out) and its dimensions' labels. */
struct berth_grid_cell {
    const char *name;
    const char *policy, *cluster, *workload, *flags; /* labels */
    uint64_t seed;
    const char *const *argv; /* NULL-terminated */
    size_t argc;
    size_t input; /* the input it reads (berth_grid_input), or (size_t)-1 */
};

/* An input the cells share: berth's arguments (gen ... or trace slice ...) that write path. */
struct berth_grid_input {
    const char *path;
    const char *const *argv; /* NULL-terminated, without the program name */
    size_t argc;
};

/* Reads and checks a grid file: unknown names, policies and clusters, missing trace files and
 * flags the sweep sets itself (--cluster, --trace, --policy, --seed, --out, ...) are
 * BERTH_EINPUT naming FILE:LINE and the dimension. */
int berth_grid_load(const char *path, struct berth_grid **out, struct berth_err *err);
/* The same from text (name in messages, dir for relative trace paths). */
int berth_grid_parse(const char *text, const char *name, const char *dir, struct berth_grid **out,
                     struct berth_err *err);
void berth_grid_free(struct berth_grid *g);
/* Expands the grid into cells and inputs whose files lie under the folder out (an absolute
 * path): out/cells/NAME/ and out/traces/. Call once, before the accessors below. */
int berth_grid_expand(struct berth_grid *g, const char *out, struct berth_err *err);
size_t berth_grid_ncells(const struct berth_grid *g);
const struct berth_grid_cell *berth_grid_cell(const struct berth_grid *g, size_t i);
size_t berth_grid_ninputs(const struct berth_grid *g);
const struct berth_grid_input *berth_grid_input(const struct berth_grid *g, size_t i);
/* The grid's distinct berth sim flag sets (sim plus each flags value), for checking them
 * before anything runs: set i's words. */
size_t berth_grid_nflagsets(const struct berth_grid *g);
const char *const *berth_grid_flagset(const struct berth_grid *g, size_t i, size_t *nwords,
                                      unsigned *line);

/* The figures a sweep tabulates and a tournament ranks on: each a key of summary.json, a
 * name for people, and whether more is better. option is the name berth compare --metric
 * takes (NULL: not rankable). */
struct berth_metric {
    const char *key, *name, *option;
    int higher_better;
    int kind; /* 0 seconds, 1 a count, 2 a fraction shown as %, 3 a ratio */
};
size_t berth_metric_count(void);
const struct berth_metric *berth_metric(size_t i);
/* The metric berth compare --metric NAME means, or -1. */
int berth_metric_find(const char *option);

/* The results of a grid's cells: one row per cell (read from out/cells/NAME/summary.json; a
 * cell that failed has out/cells/NAME.failed, its reason), and per group of cells that differ
 * only by the seed, each metric's mean and 95 % confidence interval. */
struct berth_sweep_table;

/* Reads every cell's results. A cell neither done nor failed is BERTH_EINPUT ("has not run")
 * unless allow_missing. */
int berth_sweep_table_load(const struct berth_grid *g, const char *out, int allow_missing,
                           struct berth_sweep_table **t, struct berth_err *err);
void berth_sweep_table_free(struct berth_sweep_table *t);
/* Cells that failed or have not run. */
size_t berth_sweep_table_failed(const struct berth_sweep_table *t);
/* Why cell i has no results (the first line of what it said, paths in the sweep's folder
 * made relative to it; "has not run"), or NULL when it has them. */
const char *berth_sweep_table_why(const struct berth_sweep_table *t, size_t i);
/* Writes out/results.csv and out/results.json (a row per cell), out/summary.csv (a row per
 * group: n, and each metric's mean and ci95) and out/report.html (the groups' table and
 * charts of the means with their intervals, and the ranking when given). Same results, same
 * bytes. */
struct berth_ranking;
int berth_sweep_table_write(const struct berth_sweep_table *t, const char *out, const char *title,
                            const struct berth_ranking *rank, struct berth_err *err);

/* ---- the tournament ------------------------------------------------------------------- */

/* Ranks the table's groups (its policies, on one cluster and workload) by the mean of metric
 * over the seeds; tests each against the best with a paired t-test on the seeds (Holm's
 * correction, level alpha); recommends the best, or, among those not significantly worse
 * and within 5 % of the best's mean, the one that disrupts jobs least (preemptions,
 * migrations and resizes), and says why.
 * Policies whose cells all failed are listed as not applicable with the reason. */
int berth_compare_rank(const struct berth_sweep_table *t, int metric, double alpha,
                       struct berth_ranking **out, struct berth_err *err);
void berth_ranking_free(struct berth_ranking *r);
/* The ranking as a table and the recommendation, for people. */
int berth_ranking_print(const struct berth_ranking *r, FILE *f);
/* The ranking as one JSON object (malloc'd; NULL when out of memory). */
char *berth_ranking_json(const struct berth_ranking *r);
/* The recommended policy and the sentence saying why. */
const char *berth_ranking_winner(const struct berth_ranking *r);
const char *berth_ranking_reason(const struct berth_ranking *r);

#endif
