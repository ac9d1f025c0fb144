/* Loader for Gavel's job trace TSV (stanford-futuredata/gavel @ c4fa40097339, scheduler/utils.py
 * parse_trace; traces in traces/physical_cluster/ and scheduler/traces/msr/) and Shockwave's
 * variant (uw-mad-dash/shockwave @ 8a44f4a, scheduler/utils.py parse_trace).
 *
 * One line is one job; fields are separated by tabs, there is no header, and the command
 * field holds spaces and "%s". The layout is told by the first row's field count:
 *   7  (old msr): job_type, command, num_steps_arg, needs_data_dir, total_steps,
 *                 arrival_time, scale_factor
 *   10 (current): job_type, command, working_dir, num_steps_arg, needs_data_dir, total_steps,
 *                 scale_factor, priority_weight, SLO, arrival_time
 *   12 (Shockwave): the 10 plus mode after scale_factor and duration before arrival_time.
 * A later row with another count is a bad row. Job ids are the data row numbers (1 for the
 * first row), job_type is kept verbatim, scale_factor is the gang size, arrival_time is
 * float seconds from the trace start (kept as given), total_steps is kept. priority_weight w
 * (> 0) becomes priority round(1000 w), so weight 1 (the only weight of 7-field traces) is
 * 1000 and Gavel's 5.0 is 5000. SLO (-1 = none), mode, command, working_dir, num_steps_arg
 * are checked or ignored, never used. needs_data_dir must be 0 or 1.
 *
 * Run time: the 12-field duration (seconds) when present. Otherwise Gavel's own rule read
 * backwards: its generator sets total_steps = run time x the isolated V100 throughput of
 * (job_type, scale_factor) (scheduler/utils.py generate_job, reference_worker_type 'v100'),
 * so duration = total_steps / that throughput, taken from berth's built-in catalog
 * (model/tput_catalog.c: scheduler/simulation_throughputs.json, key "v100" ->
 * "('<type>', <sf>)" -> "null", steps/s).
 * A scale factor the table lacks (msr traces hold 7, 12, 16, ... and CycleGAN x 8) uses the
 * largest measured one below it scaled linearly: T(sf) = T(s0) x sf / s0. A job type not in
 * the table is a bad row (column job_type). No row is left out by rule. Quoting: a field that
 * starts with '"' is read as a CSV quoted field (Gavel never writes one). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/loaders_peers.h"
#include "model/tput_catalog.h"
#include "util/csv.h"
#include "util/num.h"

#define MAX_GPUS_PER_JOB 1000000
#define MAX_TIME_US      INT64_C(1000000000000000000) /* 10^12 s */

/* The isolated V100 throughput of (type, sf) in steps/s, extrapolated linearly above the
 * largest measured scale factor <= sf (Gavel's figures, from the built-in catalog). -1 when
 * the type is not in Gavel's table. */
static int v100_throughput(const char *type, int64_t sf, double *out)
{
    double rate;
    int32_t at = berth__tput_catalog_floor(type, "v100", 0, (int32_t)sf, &rate);
    if (at == 0 || !(rate > 0))
        return -1;
    *out = rate * (double)sf / (double)at;
    return 0;
}

enum col {
    C_TYPE,
    C_CMD,
    C_WD,
    C_NSA,
    C_NDD,
    C_STEPS,
    C_SF,
    C_MODE,
    C_PRIO,
    C_SLO,
    C_DUR,
    C_ARR,
    NCOLS
};

static const char *const colname[NCOLS] = {
    "job_type",     "command", "working_dir",     "num_steps_arg", "needs_data_dir", "total_steps",
    "scale_factor", "mode",    "priority_weight", "SLO",           "duration",       "arrival_time",
};

/* Field index of each column per layout, -1 when the layout has no such column. */
static const struct layout {
    size_t nf;
    int idx[NCOLS];
} layouts[] = {
    {7, {0, 1, -1, 2, 3, 4, 6, -1, -1, -1, -1, 5}},
    {10, {0, 1, 2, 3, 4, 5, 6, -1, 7, 8, -1, 9}},
    {12, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
};

#define ROW_SKIPPED 1

struct ctx {
    struct berth__load *L;
    struct berth__csv *csv;
    const struct layout *lo;
};

static const char *fv(struct ctx *x, enum col c, size_t *len)
{
    size_t i = (size_t)x->lo->idx[c];
    *len = berth__csv_len(x->csv, i);
    return berth__csv_field(x->csv, i);
}

static int bad(struct ctx *x, enum col c, const char *expected, struct berth_err *err)
{
    size_t n;
    const char *s = fv(x, c, &n);
    int rc = berth__load_bad(x->L, berth__csv_line(x->csv), colname[c], expected, s, n, err);
    return rc ? rc : ROW_SKIPPED;
}

static int row(struct ctx *x, struct berth_err *err)
{
    struct berth__load *L = x->L;
    struct berth_jobdesc js;
    berth__jobspec_defaults(&js);
    js.spec.line = berth__csv_line(x->csv);
    size_t nf = berth__csv_nfields(x->csv);
    if (nf != x->lo->nf) {
        char msg[96];
        snprintf(msg, sizeof msg,
                 "expected %zu tab-separated fields as on the first row, found %zu", x->lo->nf, nf);
        int rc = berth__load_bad_row(L, js.spec.line, msg, err);
        return rc ? rc : ROW_SKIPPED;
    }
    size_t n;
    const char *s;
    int64_t v, steps, sf;

    s = fv(x, C_TYPE, &n);
    if (L->rep->rows == 1 && n >= 3 && !strncmp(s, "\xEF\xBB\xBF", 3)) {
        s += 3; /* UTF-8 byte-order mark */
        n -= 3;
    }
    if (n == 0 || n > 255)
        return bad(x, C_TYPE, "a non-empty job type of at most 255 bytes", err);
    if (!(js.x.job_type = berth__trace_intern(L->t, s, n)))
        goto nomem;
    s = fv(x, C_NDD, &n);
    if (berth__parse_i64(s, n, &v) || (v != 0 && v != 1))
        return bad(x, C_NDD, "0 or 1", err);
    s = fv(x, C_STEPS, &n);
    if (berth__parse_i64(s, n, &steps) || steps < 1)
        return bad(x, C_STEPS, "a whole number of steps >= 1", err);
    js.spec.total_steps = steps;
    s = fv(x, C_SF, &n);
    if (berth__parse_i64(s, n, &sf) || sf < 1 || sf > MAX_GPUS_PER_JOB)
        return bad(x, C_SF, "a whole number of GPUs >= 1", err);
    js.spec.num_gpus = js.spec.min_gpus = js.spec.max_gpus = (int32_t)sf;
    js.spec.priority = 1000; /* weight 1 */
    if (x->lo->idx[C_PRIO] >= 0) {
        s = fv(x, C_PRIO, &n);
        if (berth__parse_scaled(s, n, 3, &v) || v < 1 || v > 1000000)
            return bad(x, C_PRIO, "a weight from 0.001 to 1000", err);
        js.spec.priority = (int32_t)v;
    }
    if (x->lo->idx[C_SLO] >= 0) {
        double slo;
        s = fv(x, C_SLO, &n);
        if (berth__parse_double(s, n, &slo))
            return bad(x, C_SLO, "a number (-1 = no SLO)", err);
    }
    s = fv(x, C_ARR, &n);
    if (berth__parse_seconds_us(s, n, &js.spec.arrival_us) || js.spec.arrival_us < 0 ||
        js.spec.arrival_us > MAX_TIME_US)
        return bad(x, C_ARR, "a time in seconds from 0 to 10^12", err);
    if (x->lo->idx[C_DUR] >= 0) {
        s = fv(x, C_DUR, &n);
        if (berth__parse_seconds_us(s, n, &js.spec.duration_us) || js.spec.duration_us <= 0 ||
            js.spec.duration_us > MAX_TIME_US)
            return bad(x, C_DUR, "a duration in seconds > 0 and at most 10^12", err);
    } else {
        double thr;
        if (v100_throughput(js.x.job_type, sf, &thr))
            return bad(x, C_TYPE, "a job type of Gavel's V100 throughput table", err);
        double us = (double)steps / thr * 1e6;
        if (!(us <= (double)MAX_TIME_US))
            return bad(x, C_STEPS, "a step count whose V100 run time is at most 10^12 s", err);
        js.spec.duration_us = llround(us);
        if (js.spec.duration_us < 1)
            js.spec.duration_us = 1;
    }
    char idb[24];
    size_t idn = berth__fmt_u64(idb, L->rep->rows);
    js.spec.id = berth__trace_str(L->t, idb, idn);
    if (!js.spec.id || berth__trace_push(L->t, &js))
        goto nomem;
    return 0;
nomem:
    return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", L->path, js.spec.line);
}

int berth__load_gavel(struct berth__load *L, struct berth_err *err)
{
    struct ctx x = {.L = L};
    int rc = berth__csv_open(&x.csv, L->path, '\t', err);
    if (!rc)
        berth__csv_progress(x.csv, L->progress, L->progress_ctx);
    if (rc)
        return rc;
    rc = berth__csv_next(x.csv, err);
    if (rc == 0)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s:1: expected a Gavel trace row (7, 10 or 12 tab-separated "
                           "fields), found an empty file",
                           L->path);
    else if (rc > 0) {
        size_t nf = berth__csv_nfields(x.csv);
        for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++)
            if (layouts[i].nf == nf)
                x.lo = &layouts[i];
        rc = x.lo ? 0
                  : berth_err_set(err, BERTH_EINPUT,
                                  "%s:%u: expected a Gavel trace row of 7, 10 or 12 "
                                  "tab-separated fields, found %zu field%s",
                                  L->path, berth__csv_line(x.csv), nf, nf == 1 ? "" : "s");
    }
    while (rc == 0) {
        L->rep->rows++;
        rc = row(&x, err);
        if (rc == ROW_SKIPPED)
            rc = 0;
        if (rc)
            break;
        rc = berth__csv_next(x.csv, err);
        if (rc <= 0)
            break;
        rc = 0;
    }
    berth__csv_close(x.csv);
    return rc;
}
