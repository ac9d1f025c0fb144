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

#include "io/columns.h"
#include "io/loaders_peers.h"
#include "util/num.h"

#define MAX_GPUS_PER_JOB 1000000
#define MAX_TIME_US      INT64_C(1000000000000000000) /* 10^12 s */

enum col { C_ID, C_GPU, C_SUBMIT, C_DUR, C_ITER, C_MODEL, NCOLS };

static const char *const colname[NCOLS] = {"job_id",   "num_gpu",    "submit_time",
                                           "duration", "iterations", "model_name"};

/* Tiresias' yarn-gput*.csv (a lone duration column) is no job file: refused as a whole. */
static int not_yarn(const struct berth__cols *x, struct berth_err *err)
{
    if (x->nfields == 1 && x->idx[C_DUR] == 0)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:%u: expected a Tiresias job CSV (job_id,num_gpu,submit_time,"
                             "iterations,model_name,duration,interval), found a lone duration "
                             "column: this is a yarn-gput*.csv GPU-time distribution for "
                             "Tiresias' Gittins-index policy, not jobs (it has no job ids, "
                             "arrival times or GPU counts)",
                             x->path, x->line);
    return 0;
}

static const struct berth__cols_spec cols_spec = {
    .names = colname,
    .ncols = NCOLS,
    .nrequired = C_DUR + 1,
    .empty = "the header job_id,num_gpu,submit_time,iterations,model_name,duration,interval",
    .check = not_yarn,
};

static int row(struct berth__cols *x, struct berth_err *err)
{
    struct berth__load *L = x->L;
    struct berth_jobdesc js;
    berth__jobspec_defaults(&js);
    js.spec.line = berth__cols_line(x);
    size_t n;
    const char *s;
    int64_t v;

    s = berth__cols_get(x, C_ID, &n);
    if (n == 0 || n > 255)
        return berth__cols_bad(x, C_ID, "a non-empty id of at most 255 bytes", err);
    if (!(js.spec.id = berth__trace_str(L->t, s, n)))
        goto nomem;
    s = berth__cols_get(x, C_GPU, &n);
    if (berth__parse_i64(s, n, &v) || v < 1 || v > MAX_GPUS_PER_JOB)
        return berth__cols_bad(x, C_GPU, "a whole number of GPUs >= 1", err);
    js.spec.num_gpus = js.spec.min_gpus = js.spec.max_gpus = (int32_t)v;
    s = berth__cols_get(x, C_SUBMIT, &n);
    if (berth__parse_seconds_us(s, n, &js.spec.arrival_us) || js.spec.arrival_us < 0 ||
        js.spec.arrival_us > MAX_TIME_US)
        return berth__cols_bad(x, C_SUBMIT, "a time in seconds from 0 to 10^12", err);
    s = berth__cols_get(x, C_DUR, &n);
    if (berth__parse_seconds_us(s, n, &js.spec.duration_us) || js.spec.duration_us <= 0 ||
        js.spec.duration_us > MAX_TIME_US)
        return berth__cols_bad(x, C_DUR, "a duration in seconds > 0 and at most 10^12", err);
    if ((s = berth__cols_get(x, C_ITER, &n), n > 0)) {
        if (berth__parse_i64(s, n, &v) || v < 0)
            return berth__cols_bad(x, C_ITER, "a whole number of iterations >= 0 (or empty)", err);
        js.spec.total_steps = v;
    }
    if ((s = berth__cols_get(x, C_MODEL, &n), n > 0)) {
        if (n > 255)
            return berth__cols_bad(x, C_MODEL, "a model name of at most 255 bytes", err);
        if (!(js.x.job_type = berth__trace_intern(L->t, s, n)))
            goto nomem;
    }
    if (berth__trace_push(L->t, &js))
        goto nomem;
    return 0;
nomem:
    return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", L->path, js.spec.line);
}

int berth__load_tiresias(struct berth__load *L, struct berth_err *err)
{
    struct berth__cols x;
    int rc = berth__cols_open(&x, &cols_spec, L->path, L, err);
    while (rc == 0 && (rc = berth__cols_next(&x, err)) > 0)
        if ((rc = row(&x, err)) == BERTH__ROW_SKIPPED)
            rc = 0;
    berth__cols_close(&x);
    return rc;
}
