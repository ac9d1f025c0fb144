/* Loader for SenseTime Helios job logs (S-Lab-System-Group/HeliosData, <cluster>/
 * cluster_log.csv): one Slurm job per row,
 *
 *   job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
 *   1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,
 *   2020-06-09 18:45:36,249,0
 *
 * Columns are found by header name (any order; unknown ones are ignored). Required:
 * job_id, gpu_num, submit_time, duration; used when present: user, vc, cpu_num.
 * Job spec: id = job_id, user = user, queue = vc (Helios' own `queue` column is the wait in
 * seconds, not a queue name, and is not read), num_gpus = gpu_num, cpu demand = cpu_num
 * cores, duration = duration (seconds, = end_time - start_time), arrival = submit_time
 * (zone-less "YYYY-mm-dd HH:MM:SS") relative to the earliest submit among the jobs loaded.
 * state (COMPLETED/CANCELLED/FAILED/TIMEOUT/NODE_FAIL) is kept nowhere: a cancelled or
 * failed job held its GPUs for its duration all the same. node_num, start_time, end_time
 * and queue are not read.
 *
 * Left out by the format's rules (counted per reason, never an error): CPU-only jobs
 * (gpu_num 0, about half the rows) and jobs that never ran (duration 0 or empty; Slurm
 * gives a job cancelled while pending equal start and end times). */
#include <stdio.h>
#include <string.h>

#include "io/columns.h"
#include "io/loaders_sense.h"
#include "util/num.h"

enum col { C_ID, C_GPU, C_SUBMIT, C_DUR, C_USER, C_VC, C_CPU, NCOLS };

static const char *const colname[NCOLS] = {"job_id", "gpu_num", "submit_time", "duration",
                                           "user",   "vc",      "cpu_num"};

static const struct berth__cols_spec cols_spec = {
    .names = colname,
    .ncols = NCOLS,
    .nrequired = C_DUR + 1,
    .header = " of a Helios cluster_log.csv (job_id,user,vc,gpu_num,cpu_num,node_num,state,"
              "submit_time,start_time,end_time,duration,queue)",
    .empty = "the header of a Helios cluster_log.csv",
};

#define MAX_GPUS_PER_JOB 1000000
#define MAX_DURATION_US  (INT64_MAX / 4)

/* Reads one data row: pushed (0), skipped (BERTH__ROW_SKIPPED) or an error. */
static int row(struct berth__cols *x, int64_t *origin, struct berth_err *err)
{
    struct berth__load *L = x->L;
    struct berth_jobdesc js;
    berth__jobspec_defaults(&js);
    js.spec.line = berth__cols_line(x);
    size_t n;
    const char *s;
    int64_t gpus, submit_s, cpu_milli = 0;
    s = berth__cols_get(x, C_ID, &n);
    if (n == 0)
        return berth__cols_bad(x, C_ID, "a job id", err);
    s = berth__cols_get(x, C_GPU, &n);
    if (berth__parse_whole(s, n, &gpus) || gpus < 0 || gpus > MAX_GPUS_PER_JOB)
        return berth__cols_bad(x, C_GPU, "a whole number of GPUs >= 0", err);
    if (gpus == 0) {
        berth__load_exclude(L, js.spec.line, "CPU-only job (gpu_num 0)");
        return BERTH__ROW_SKIPPED;
    }
    s = berth__cols_get(x, C_SUBMIT, &n);
    if (berth__parse_datetime(s, n, &submit_s))
        return berth__cols_bad(x, C_SUBMIT, "a time YYYY-MM-DD HH:MM:SS", err);
    s = berth__cols_get(x, C_CPU, &n);
    if (n && (berth__parse_scaled(s, n, 3, &cpu_milli) || cpu_milli < 0))
        return berth__cols_bad(x, C_CPU, "a number of CPU cores >= 0", err);
    s = berth__cols_get(x, C_DUR, &n);
    if (n && (berth__parse_seconds_us(s, n, &js.spec.duration_us) || js.spec.duration_us < 0 ||
              js.spec.duration_us > MAX_DURATION_US))
        return berth__cols_bad(x, C_DUR, "a duration in seconds >= 0", err);
    if (n == 0 || js.spec.duration_us == 0) {
        berth__load_exclude(L, js.spec.line, "job never ran (duration 0 or empty)");
        return BERTH__ROW_SKIPPED;
    }
    struct berth_trace *t = L->t;
    s = berth__cols_get(x, C_ID, &n);
    js.spec.id = berth__trace_str(t, s, n);
    s = berth__cols_get(x, C_USER, &n);
    js.x.user = berth__trace_intern(t, s, n);
    s = berth__cols_get(x, C_VC, &n);
    js.spec.queue = berth__trace_intern(t, s, n);
    js.spec.num_gpus = js.spec.min_gpus = js.spec.max_gpus = (int32_t)gpus;
    js.spec.arrival_us = submit_s; /* absolute seconds until every row is read */
    js.x.cpu_milli = cpu_milli;
    if (!js.spec.id || !js.x.user || !js.spec.queue || berth__trace_push(t, &js))
        return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", L->path, js.spec.line);
    if (submit_s < *origin)
        *origin = submit_s;
    return 0;
}

int berth__load_helios(struct berth__load *L, struct berth_err *err)
{
    struct berth__cols x;
    int rc = berth__cols_open(&x, &cols_spec, L->path, L, err);
    int64_t origin = INT64_MAX;
    while (rc == 0 && (rc = berth__cols_next(&x, err)) > 0)
        if ((rc = row(&x, &origin, err)) == BERTH__ROW_SKIPPED)
            rc = 0;
    berth__cols_close(&x);
    if (rc)
        return rc;
    struct berth_trace *t = L->t;
    for (size_t i = 0; i < t->n; i++)
        t->jobs[i].arrival_us = (t->jobs[i].arrival_us - origin) * BERTH_US_PER_S;
    return 0;
}
