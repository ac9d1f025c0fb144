/* Progress reports from jobs: steps (and optionally a metric) read from the job's progress
 * file (JSON lines) or posted to POST /v1/jobs/ID/progress, applied to the live record and
 * to the engine's job record the policies read (done, rate, progress_at), the same fields
 * the simulator's modelled executor fills. */
#ifndef BERTH_LIVE_REPORT_H
#define BERTH_LIVE_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "live/jobs/ljob.h"

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
void berth__report_apply(struct berth__ljob *lj, struct berth__job *ej,
                         const struct berth__report *r, berth_us now);
/* Reading a progress file, in two steps so that berthd's lock is never held while a file is
 * read: a scan reads and parses (no lock), then its result is applied (under the lock, if
 * the job's file offset is still the one scanned from). */
#define BERTH_REPORT_LINE_MAX (64 * 1024) /* a longer line is skipped, never kept */

struct berth__report_scan {
    uint64_t off;  /* in: where to read from; out: where the next scan starts */
    uint32_t line; /* lines read before off */
    int skipping;  /* in and out: inside a line too long to keep, looking for its end */
    struct berth__report last[2]; /* the newest good reports, oldest first */
    int nlast, good;
    char notes[1024]; /* what was skipped, for the log ("PATH:LINE: ..." lines) */
    size_t nnotes;
};

/* Reads the complete lines of fd from s->off, at most budget bytes (a partial last line
 * waits for its end; a line over BERTH_REPORT_LINE_MAX is skipped with a memchr over each
 * chunk, never byte by byte), and parses them. */
void berth__report_scan(int fd, const char *path, size_t budget, struct berth__report_scan *s);
/* Applies a scan's reports to the records and moves lj's file position past it. */
void berth__report_scan_apply(const struct berth__report_scan *s, struct berth__ljob *lj,
                              struct berth__job *ej, berth_us now, FILE *log);
/* Both at once, for a file path (tests). Returns the number of reports applied. */
int berth__report_tail(const char *path, struct berth__ljob *lj, struct berth__job *ej,
                       berth_us now, FILE *log);
/* The engine record's progress when its job starts or stops running. */
void berth__report_started(struct berth__ljob *lj, struct berth__job *ej, berth_us now);
void berth__report_stopped(struct berth__job *ej, berth_us now);

#endif
