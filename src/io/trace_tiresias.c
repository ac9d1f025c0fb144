/* Loader for Tiresias' job CSV (SymbioticLab/Tiresias @ 959f9b08f44f, simulator/, e.g.
 * 60_job.csv; read by run_sim.py parse_job_file with csv.DictReader and jobs.py add_job).
 *
 * One row is one job. Columns are found by name in the header, in any order; job_id,
 * num_gpu, submit_time and duration are required, iterations and model_name optional, and any
 * other column (interval = gap to the next arrival, tf_job.csv's start_time, model_size, ...)
 * is ignored, as DictReader does. job_id is the job's id; num_gpu the gang size; submit_time
 * seconds from the trace start (kept as given, Tiresias starts its clock at 0); duration the
 * run time in seconds, read exactly (Tiresias truncates it with int(float(.))); iterations
 * (empty or >= 0) becomes total_steps; model_name the job type. No row is left out by rule.
 * Tiresias' yarn-gput*.csv files (a lone duration column) are GPU-time samples for its
 * Gittins-index policy, not jobs: they have no ids, arrivals or GPU counts, and are refused
 * as a whole with a message saying so. */
#include <stdio.h>
#include <string.h>

#include "loaders_peers.h"
#include "util/csv.h"
#include "util/num.h"

#define MAX_GPUS_PER_JOB 1000000
#define MAX_TIME_US      INT64_C(1000000000000000000) /* 10^12 s */
#define ROW_SKIPPED      1

enum col { C_ID, C_GPU, C_SUBMIT, C_DUR, C_ITER, C_MODEL, NCOLS };

static const char *const colname[NCOLS] = {"job_id",   "num_gpu",    "submit_time",
                                           "duration", "iterations", "model_name"};

#define NREQUIRED 4 /* C_ID .. C_DUR */

struct ctx {
    struct berth__load *L;
    struct berth__csv *csv;
    int idx[NCOLS];
    size_t nfields;
};

static const char *fv(struct ctx *x, enum col c, size_t *len)
{
    *len = berth__csv_len(x->csv, (size_t)x->idx[c]);
    return berth__csv_field(x->csv, (size_t)x->idx[c]);
}

static int bad(struct ctx *x, enum col c, const char *expected, struct berth_err *err)
{
    size_t n;
    const char *s = fv(x, c, &n);
    int rc = berth__load_bad(x->L, berth__csv_line(x->csv), colname[c], expected, s, n, err);
    return rc ? rc : ROW_SKIPPED;
}

static int header(struct ctx *x, struct berth_err *err)
{
    const char *path = x->L->path;
    for (int c = 0; c < NCOLS; c++)
        x->idx[c] = -1;
    x->nfields = berth__csv_nfields(x->csv);
    for (size_t i = 0; i < x->nfields; i++) {
        const char *h = berth__csv_field(x->csv, i);
        if (i == 0 && !strncmp(h, "\xEF\xBB\xBF", 3))
            h += 3; /* UTF-8 byte-order mark */
        for (int c = 0; c < NCOLS; c++) {
            if (strcmp(h, colname[c]))
                continue;
            if (x->idx[c] >= 0)
                return berth_err_set(err, BERTH_EINPUT,
                                     "%s:1: column %s: expected once, found twice (columns %d "
                                     "and %zu)",
                                     path, h, x->idx[c] + 1, i + 1);
            x->idx[c] = (int)i;
        }
    }
    if (x->nfields == 1 && x->idx[C_DUR] == 0)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:1: expected a Tiresias job CSV (job_id,num_gpu,submit_time,"
                             "iterations,model_name,duration,interval), found a lone duration "
                             "column: this is a yarn-gput*.csv GPU-time distribution for "
                             "Tiresias' Gittins-index policy, not jobs (it has no job ids, "
                             "arrival times or GPU counts)",
                             path);
    for (int c = 0; c < NREQUIRED; c++)
        if (x->idx[c] < 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:1: column %s: expected in the header (required: job_id, "
                                 "num_gpu, submit_time, duration), found no such column",
                                 path, colname[c]);
    return 0;
}

static int row(struct ctx *x, struct berth_err *err)
{
    struct berth__load *L = x->L;
    struct berth_jobspec js;
    berth__jobspec_defaults(&js);
    js.line = berth__csv_line(x->csv);
    size_t nf = berth__csv_nfields(x->csv);
    if (nf != x->nfields) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected %zu fields as in the header, found %zu", x->nfields,
                 nf);
        int rc = berth__load_bad_row(L, js.line, msg, err);
        return rc ? rc : ROW_SKIPPED;
    }
    size_t n;
    const char *s;
    int64_t v;

    s = fv(x, C_ID, &n);
    if (n == 0 || n > 255)
        return bad(x, C_ID, "a non-empty id of at most 255 bytes", err);
    if (!(js.id = berth__trace_str(L->t, s, n)))
        goto nomem;
    s = fv(x, C_GPU, &n);
    if (berth__parse_i64(s, n, &v) || v < 1 || v > MAX_GPUS_PER_JOB)
        return bad(x, C_GPU, "a whole number of GPUs >= 1", err);
    js.num_gpus = js.min_gpus = js.max_gpus = (int32_t)v;
    s = fv(x, C_SUBMIT, &n);
    if (berth__parse_seconds_us(s, n, &js.arrival_us) || js.arrival_us < 0 ||
        js.arrival_us > MAX_TIME_US)
        return bad(x, C_SUBMIT, "a time in seconds from 0 to 10^12", err);
    s = fv(x, C_DUR, &n);
    if (berth__parse_seconds_us(s, n, &js.duration_us) || js.duration_us <= 0 ||
        js.duration_us > MAX_TIME_US)
        return bad(x, C_DUR, "a duration in seconds > 0 and at most 10^12", err);
    if (x->idx[C_ITER] >= 0 && (s = fv(x, C_ITER, &n), n > 0)) {
        if (berth__parse_i64(s, n, &v) || v < 0)
            return bad(x, C_ITER, "a whole number of iterations >= 0 (or empty)", err);
        js.total_steps = v;
    }
    if (x->idx[C_MODEL] >= 0 && (s = fv(x, C_MODEL, &n), n > 0)) {
        if (n > 255)
            return bad(x, C_MODEL, "a model name of at most 255 bytes", err);
        if (!(js.job_type = berth__trace_str(L->t, s, n)))
            goto nomem;
    }
    if (berth__trace_push(L->t, &js))
        goto nomem;
    return 0;
nomem:
    return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", L->path, js.line);
}

int berth__load_tiresias(struct berth__load *L, struct berth_err *err)
{
    struct ctx x = {.L = L};
    int rc = berth__csv_open(&x.csv, L->path, ',', err);
    if (rc)
        return rc;
    rc = berth__csv_next(x.csv, err);
    if (rc == 0)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s:1: expected the header job_id,num_gpu,submit_time,iterations,"
                           "model_name,duration,interval, found an empty file",
                           L->path);
    else if (rc > 0)
        rc = header(&x, err);
    while (rc == 0) {
        rc = berth__csv_next(x.csv, err);
        if (rc <= 0)
            break;
        L->rep->rows++;
        rc = row(&x, err);
        if (rc == ROW_SKIPPED)
            rc = 0;
    }
    berth__csv_close(x.csv);
    return rc;
}
