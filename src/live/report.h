/* Progress reports from jobs: steps (and optionally a metric) read from the job's progress
 * file (JSON lines) or posted to POST /v1/jobs/ID/progress, applied to the live record and
 * to the engine's job record the policies read (done, rate, progress_at), the same fields
 * the simulator's modelled executor fills. */
#ifndef BERTH_LIVE_REPORT_H
#define BERTH_LIVE_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "ljob.h"

struct berth__report {
    int64_t step;
    double metric;
    int has_metric;
    berth_us t; /* 0: when it was read */
};

/* Reads {"step": N >= 0, "metric": x, "time": unix seconds} (metric and time optional,
 * nothing else allowed). BERTH_EINPUT naming the field. */
int berth__report_parse(const json_t *o, struct berth__report *r, struct berth_err *err);
/* Applies r to the live record and, when ej is not NULL, to the engine's record. */
void berth__report_apply(struct berth__ljob *lj, struct berth_job *ej,
                         const struct berth__report *r, berth_us now);
/* Reads the complete lines added to path since the last call (lj->prog_off), ignoring a
 * partial last line; a malformed line is logged to log as "PATH:LINE: ..." and skipped.
 * Returns the number of reports applied. */
int berth__report_tail(const char *path, struct berth__ljob *lj, struct berth_job *ej, berth_us now,
                       FILE *log);
/* The engine record's progress when its job starts or stops running. */
void berth__report_started(struct berth__ljob *lj, struct berth_job *ej, berth_us now);
void berth__report_stopped(struct berth_job *ej, berth_us now);

#endif
