/* Loader for the Pollux-prepared Philly trace (petuum/adaptdl osdi21-artifact,
 * simulator/traces/philly.csv): timestamp,duration,num_gpus,gpu_time,cluster.
 *
 * One row is one job. timestamp is the zone-less submit time "YYYY-MM-DD HH:MM:SS"; arrivals
 * are made relative to the earliest submit in the file (rows are not sorted). duration is
 * float seconds, cluster the virtual-cluster hash (kept as the job's queue). Job ids are the
 * row numbers, 1 for the first data row. gpu_time (= duration x num_gpus) is checked to be a
 * number and otherwise not used. */
#include <stdio.h>
#include <string.h>

#include "io/columns.h"
#include "util/num.h"

static const char *const cols[] = {"timestamp", "duration", "num_gpus", "gpu_time", "cluster"};

/* A bad field: fails (strict) or returns 1 so the row is skipped (lenient). */
static int bad(struct berth__load *L, struct berth__csv *c, size_t i, const char *expected,
               struct berth_err *err)
{
    int rc = berth__load_bad(L, berth__csv_line(c), cols[i], expected, berth__csv_field(c, i),
                             berth__csv_len(c, i), err);
    return rc ? rc : 1;
}

static int header(struct berth__load *L, struct berth__csv *c, struct berth_err *err)
{
    size_t nf = berth__csv_nfields(c);
    for (size_t i = 0; i < 5; i++) {
        const char *h = nf == 5 ? berth__csv_field(c, i) : "";
        if (i == 0)
            h = berth__cols_skip_bom(h);
        if (nf != 5 || strcmp(h, cols[i]))
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:1: expected the header timestamp,duration,num_gpus,"
                                 "gpu_time,cluster, found a different header (column %zu)",
                                 L->path, i + 1);
    }
    return 0;
}

/* Reads one data row; returns 0 (pushed), 1 (skipped under --lenient) or an error. */
static int row(struct berth__load *L, struct berth__csv *c, int64_t *origin, struct berth_err *err)
{
    struct berth_jobdesc js;
    berth__jobspec_defaults(&js);
    js.spec.line = berth__csv_line(c);
    if (berth__csv_nfields(c) != 5) {
        char msg[64];
        snprintf(msg, sizeof msg, "expected 5 fields, found %zu", berth__csv_nfields(c));
        int rc = berth__load_bad_row(L, js.spec.line, msg, err);
        return rc ? rc : 1;
    }
    int64_t ts, gpus, gt;
    if (berth__parse_datetime(berth__csv_field(c, 0), berth__csv_len(c, 0), &ts))
        return bad(L, c, 0, "a time YYYY-MM-DD HH:MM:SS", err);
    if (berth__parse_seconds_us(berth__csv_field(c, 1), berth__csv_len(c, 1),
                                &js.spec.duration_us) ||
        js.spec.duration_us <= 0 || js.spec.duration_us > INT64_MAX / 4)
        return bad(L, c, 1, "a duration in seconds > 0", err);
    if (berth__parse_i64(berth__csv_field(c, 2), berth__csv_len(c, 2), &gpus) || gpus < 1 ||
        gpus > 1000000)
        return bad(L, c, 2, "a whole number of GPUs >= 1", err);
    if (berth__parse_seconds_us(berth__csv_field(c, 3), berth__csv_len(c, 3), &gt) || gt < 0)
        return bad(L, c, 3, "a GPU time in seconds >= 0", err);
    char idb[24];
    size_t idn = berth__fmt_u64(idb, L->rep->rows);
    js.spec.id = berth__trace_str(L->t, idb, idn);
    js.spec.queue = berth__trace_intern(L->t, berth__csv_field(c, 4), berth__csv_len(c, 4));
    js.spec.num_gpus = js.spec.min_gpus = js.spec.max_gpus = (int32_t)gpus;
    js.spec.arrival_us = ts; /* absolute seconds until every row is read */
    if (ts < *origin)
        *origin = ts;
    if (!js.spec.id || !js.spec.queue || berth__trace_push(L->t, &js))
        return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", L->path, js.spec.line);
    return 0;
}

int berth__load_philly_pollux(struct berth__load *L, struct berth_err *err)
{
    struct berth__csv *c;
    int rc = berth__csv_open(&c, L->path, ',', err);
    if (rc)
        return rc;
    berth__csv_progress(c, L->progress, L->progress_ctx);
    rc = berth__csv_next(c, err);
    if (rc == 0)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s:1: expected the header timestamp,duration,num_gpus,gpu_time,"
                           "cluster, found an empty file",
                           L->path);
    else if (rc > 0)
        rc = header(L, c, err);
    int64_t origin = INT64_MAX;
    while (rc == 0) {
        rc = berth__csv_next(c, err);
        if (rc <= 0)
            break;
        L->rep->rows++;
        rc = row(L, c, &origin, err);
        if (rc == 1)
            rc = 0;
    }
    berth__csv_close(c);
    if (rc)
        return rc;
    struct berth_trace *t = L->t;
    for (size_t i = 0; i < t->n; i++)
        t->jobs[i].arrival_us = (t->jobs[i].arrival_us - origin) * BERTH_US_PER_S;
    return 0;
}
