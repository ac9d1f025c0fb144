/* Loader for Pollux / Sia workload CSVs (petuum/adaptdl osdi21-artifact @ c793c7089bd3,
 * simulator/workloads/workload-<k>.csv and the workloads-<variant>/ folders, written by
 * simulator/workload.py; Sia's siasosp23/artifacts @ aaf7a0d workloads/ use the same columns).
 *
 * One row is one job: name (the job's id), time (arrival, seconds from the workload start,
 * int or float, kept as given), application (bert, cifar10, deepspeech2, imagenet, ncf,
 * yolov3, or any other name), num_replicas (gang size; the job is loaded inelastic, berth has
 * no goodput model to rescale it) and batch_size (initial global batch; kept in the job type
 * as Gavel names its types: "cifar10 (batch size 128)"). Columns are found by name.
 *
 * Run time: the files have none. Pollux runs each application to its target with measured
 * profiles (simulator/traces/<app>/) that berth does not have and the stored artifact does
 * not hold completely, so berth cannot derive one. workload.py does compute one for every
 * configuration it draws (the third value of Application.get_configurations(), the run time
 * at that replica count and batch size) and drops it; berth reads it from an extra duration
 * column (seconds > 0). Without that column the whole file is refused with a message saying
 * what is missing and how to add it. No row is left out by rule. */
#include <stdio.h>
#include <string.h>

#include "io/columns.h"
#include "io/loaders_peers.h"
#include "util/num.h"

#define MAX_GPUS_PER_JOB 1000000
#define MAX_TIME_US      INT64_C(1000000000000000000) /* 10^12 s */

enum col { C_NAME, C_TIME, C_APP, C_REPLICAS, C_BSZ, C_DUR, NCOLS };

static const char *const colname[NCOLS] = {"name",         "time",       "application",
                                           "num_replicas", "batch_size", "duration"};

static const struct berth__cols_spec cols_spec = {
    .names = colname,
    .ncols = NCOLS,
    .nrequired = C_BSZ + 1, /* and duration, with a message of its own */
    .unknown = "a Pollux workload column",
    .quote_max = 60,
    .header = " (required: name, time, application, num_replicas, batch_size, duration)",
    .empty = "the header name,time,application,num_replicas,batch_size,duration",
};

static int row(struct berth__cols *x, struct berth_err *err)
{
    struct berth__load *L = x->L;
    struct berth_jobdesc js;
    berth__jobspec_defaults(&js);
    js.spec.line = berth__cols_line(x);
    size_t n, an;
    const char *s, *app;
    int64_t v, bsz;

    s = berth__cols_get(x, C_NAME, &n);
    if (n == 0 || n > 255)
        return berth__cols_bad(x, C_NAME, "a non-empty name of at most 255 bytes", err);
    if (!(js.spec.id = berth__trace_str(L->t, s, n)))
        goto nomem;
    s = berth__cols_get(x, C_TIME, &n);
    if (berth__parse_seconds_us(s, n, &js.spec.arrival_us) || js.spec.arrival_us < 0 ||
        js.spec.arrival_us > MAX_TIME_US)
        return berth__cols_bad(x, C_TIME, "a time in seconds from 0 to 10^12", err);
    app = berth__cols_get(x, C_APP, &an);
    if (an == 0 || an > 200)
        return berth__cols_bad(x, C_APP, "a non-empty application name of at most 200 bytes", err);
    s = berth__cols_get(x, C_REPLICAS, &n);
    if (berth__parse_i64(s, n, &v) || v < 1 || v > MAX_GPUS_PER_JOB)
        return berth__cols_bad(x, C_REPLICAS, "a whole number of GPUs >= 1", err);
    js.spec.num_gpus = js.spec.min_gpus = js.spec.max_gpus = (int32_t)v;
    s = berth__cols_get(x, C_BSZ, &n);
    if (berth__parse_i64(s, n, &bsz) || bsz < 1 || bsz > INT64_C(1000000000000))
        return berth__cols_bad(x, C_BSZ, "a whole batch size >= 1", err);
    s = berth__cols_get(x, C_DUR, &n);
    if (berth__parse_seconds_us(s, n, &js.spec.duration_us) || js.spec.duration_us <= 0 ||
        js.spec.duration_us > MAX_TIME_US)
        return berth__cols_bad(x, C_DUR, "a duration in seconds > 0 and at most 10^12", err);
    char tb[256];
    int tn = snprintf(tb, sizeof tb, "%.*s (batch size %lld)", (int)an, app, (long long)bsz);
    if (!(js.x.job_type = berth__trace_intern(L->t, tb, (size_t)tn)) ||
        berth__trace_push(L->t, &js))
        goto nomem;
    return 0;
nomem:
    return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", L->path, js.spec.line);
}

int berth__load_pollux(struct berth__load *L, struct berth_err *err)
{
    struct berth__cols x;
    int rc = berth__cols_open(&x, &cols_spec, L->path, L, err);
    if (rc == 0 && !berth__cols_has(&x, C_DUR))
        rc = berth_err_set(
            err, BERTH_EINPUT,
            "%s:%u: column duration: expected in the header, found no such column. A Pollux "
            "workload gives no run times (Pollux runs each application to its target from "
            "profiles berth does not have). Add a duration column in seconds: Pollux's "
            "simulator/workload.py computes one per job, the third value of "
            "get_configurations() that it assigns to _, or convert the jobs to --format native",
            L->path, x.line);
    while (rc == 0 && (rc = berth__cols_next(&x, err)) > 0)
        if ((rc = row(&x, err)) == BERTH__ROW_SKIPPED)
            rc = 0;
    berth__cols_close(&x);
    return rc;
}
