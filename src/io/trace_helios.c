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

#include "loaders_sense.h"
#include "trace_int.h"
#include "util/csv.h"
#include "util/num.h"

enum col { C_ID, C_GPU, C_SUBMIT, C_DUR, C_USER, C_VC, C_CPU, NCOLS };

static const char *const colname[NCOLS] = {"job_id", "gpu_num", "submit_time", "duration",
                                           "user",   "vc",      "cpu_num"};
#define NREQUIRED 4

#define MAX_GPUS_PER_JOB 1000000
#define MAX_DURATION_US  (INT64_MAX / 4)
#define ROW_SKIPPED      1

struct ctx {
    struct berth__load *L;
    struct berth__csv *csv;
    int idx[NCOLS]; /* field index of each column, -1 when absent */
    size_t nfields;
};

/* The job spec's CPU and memory demands (for the whole job). */
static void set_cpu_mem(struct berth_jobspec *js, int64_t cpu_milli, int64_t mem_mib)
{
    js->cpu_milli = cpu_milli;
    js->mem_mib = mem_mib;
}

static const char *fv(const struct ctx *x, enum col c, size_t *len)
{
    if (x->idx[c] < 0) {
        *len = 0;
        return "";
    }
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

/* A whole number written as an integer or a float with a zero fraction ("8", "8.0"). */
static int parse_count(const char *s, size_t n, int64_t *out)
{
    int64_t v;
    if (berth__parse_i64(s, n, out) == 0)
        return 0;
    if (berth__parse_scaled(s, n, 6, &v) || v % 1000000)
        return -1;
    *out = v / 1000000;
    return 0;
}

static int header(struct ctx *x, struct berth_err *err)
{
    for (int c = 0; c < NCOLS; c++)
        x->idx[c] = -1;
    x->nfields = berth__csv_nfields(x->csv);
    for (size_t i = 0; i < x->nfields; i++) {
        const char *h = berth__csv_field(x->csv, i);
        if (i == 0 && !strncmp(h, "\xEF\xBB\xBF", 3))
            h += 3; /* UTF-8 byte-order mark */
        for (int c = 0; c < NCOLS; c++)
            if (!strcmp(h, colname[c])) {
                if (x->idx[c] >= 0)
                    return berth_err_set(err, BERTH_EINPUT,
                                         "%s:1: column %s: expected once, found twice "
                                         "(columns %d and %zu)",
                                         x->L->path, h, x->idx[c] + 1, i + 1);
                x->idx[c] = (int)i;
            }
    }
    for (int c = 0; c < NREQUIRED; c++)
        if (x->idx[c] < 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s:1: column %s: expected in the header of a Helios "
                                 "cluster_log.csv (job_id,user,vc,gpu_num,cpu_num,node_num,"
                                 "state,submit_time,start_time,end_time,duration,queue), found "
                                 "no such column",
                                 x->L->path, colname[c]);
    return 0;
}

/* Reads one data row: pushed (0), skipped (ROW_SKIPPED) or an error. */
static int row(struct ctx *x, int64_t *origin, struct berth_err *err)
{
    struct berth__load *L = x->L;
    struct berth_jobspec js;
    berth__jobspec_defaults(&js);
    js.line = berth__csv_line(x->csv);
    size_t nf = berth__csv_nfields(x->csv), n;
    const char *s;
    if (nf != x->nfields) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected %zu fields as in the header, found %zu", x->nfields,
                 nf);
        int rc = berth__load_bad_row(L, js.line, msg, err);
        return rc ? rc : ROW_SKIPPED;
    }
    int64_t gpus, submit_s, cpu_milli = 0;
    s = fv(x, C_ID, &n);
    if (n == 0)
        return bad(x, C_ID, "a job id", err);
    s = fv(x, C_GPU, &n);
    if (parse_count(s, n, &gpus) || gpus < 0 || gpus > MAX_GPUS_PER_JOB)
        return bad(x, C_GPU, "a whole number of GPUs >= 0", err);
    if (gpus == 0) {
        berth__load_exclude(L, js.line, "CPU-only job (gpu_num 0)");
        return ROW_SKIPPED;
    }
    s = fv(x, C_SUBMIT, &n);
    if (berth__parse_datetime(s, n, &submit_s))
        return bad(x, C_SUBMIT, "a time YYYY-MM-DD HH:MM:SS", err);
    s = fv(x, C_CPU, &n);
    if (n && (berth__parse_scaled(s, n, 3, &cpu_milli) || cpu_milli < 0))
        return bad(x, C_CPU, "a number of CPU cores >= 0", err);
    s = fv(x, C_DUR, &n);
    if (n && (berth__parse_seconds_us(s, n, &js.duration_us) || js.duration_us < 0 ||
              js.duration_us > MAX_DURATION_US))
        return bad(x, C_DUR, "a duration in seconds >= 0", err);
    if (n == 0 || js.duration_us == 0) {
        berth__load_exclude(L, js.line, "job never ran (duration 0 or empty)");
        return ROW_SKIPPED;
    }
    struct berth_trace *t = L->t;
    s = fv(x, C_ID, &n);
    js.id = berth__trace_str(t, s, n);
    s = fv(x, C_USER, &n);
    js.user = berth__trace_str(t, s, n);
    s = fv(x, C_VC, &n);
    js.queue = berth__trace_str(t, s, n);
    js.num_gpus = js.min_gpus = js.max_gpus = (int32_t)gpus;
    js.arrival_us = submit_s; /* absolute seconds until every row is read */
    set_cpu_mem(&js, cpu_milli, 0);
    if (!js.id || !js.user || !js.queue || berth__trace_push(t, &js))
        return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", L->path, js.line);
    if (submit_s < *origin)
        *origin = submit_s;
    return 0;
}

int berth__load_helios(struct berth__load *L, struct berth_err *err)
{
    struct ctx x = {.L = L};
    int rc = berth__csv_open(&x.csv, L->path, ',', err);
    if (rc)
        return rc;
    rc = berth__csv_next(x.csv, err);
    if (rc == 0)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s:1: expected the header of a Helios cluster_log.csv, found an "
                           "empty file",
                           L->path);
    else if (rc > 0)
        rc = header(&x, err);
    int64_t origin = INT64_MAX;
    while (rc == 0) {
        rc = berth__csv_next(x.csv, err);
        if (rc <= 0)
            break;
        L->rep->rows++;
        rc = row(&x, &origin, err);
        if (rc == ROW_SKIPPED)
            rc = 0;
    }
    berth__csv_close(x.csv);
    if (rc)
        return rc;
    struct berth_trace *t = L->t;
    for (size_t i = 0; i < t->n; i++)
        t->jobs[i].arrival_us = (t->jobs[i].arrival_us - origin) * BERTH_US_PER_S;
    return 0;
}
