/* Pictures and comparisons of simulation runs, written by berth itself: the report (one
 * self-contained HTML file with inline SVG charts, or one SVG file per chart) of one or more
 * runs. No JavaScript, no network, no library beyond libberth's own. */
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

#endif
